#!/bin/bash
# bench-diff.sh OLD.csv NEW.csv [KERNEL]: compare two 'make bench' runs of
# one kernel (default patched), row by row: every lookup workload (all but
# map_write and mem_per_map, which measure writes and memory), before and
# after, and the change.  Lists the rows that got slower, then a summary
# line; exit status 1 if a stat, chown or getresuid row did (the rows
# that only map ids; getpriority, setfsuid and /proc/self/status also
# take locks, allocate or free credentials, and move by a few
# instructions from boot to boot: listed, not counted).  Use it for a patch's before/after
# figures: make bench; cp results/bench.csv /tmp/old.csv; change the
# series; make bench KERNELS=patched-bench; bench-diff.sh /tmp/old.csv
# results/bench.csv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 OLD.csv NEW.csv [KERNEL]"
old=$1 new=$2 kernel=${3:-patched}
for f in "$old" "$new"; do
	[ -f "$f" ] || die "$f not found" "make bench writes results/bench.csv"
done
awk -F, -v k="$kernel" '
	$1 != k || $2 != 1 || $3 == "map_write" || $3 == "mem_per_map" { next }
	FNR == NR { before[$3 " " $4 " " $5] = $6; next }
	{
		key = $3 " " $4 " " $5
		if (!(key in before)) { missing++; next }
		n++
		d = $6 - before[key]
		lookup = $3 ~ /^(stat_|chown_|getresuid_)/
		if (d > 0.5) {
			printf "%s: %s N=%s %s: %.1f -> %.1f (%+.1f)\n", lookup ? "slower" : "slower (not counted)",
				$3, $4, $5, before[key], $6, d
			if (lookup) slower++; else other++
		}
		else if (d < -0.5) faster++
		else same++
	}
	END {
		printf "%d rows of %s: %d faster, %d the same (within half an instruction), %d slower", n, k, faster, same, slower
		if (other) printf ", %d other rows slower", other
		if (missing) printf ", %d not in the old run", missing
		printf "\n"
		exit slower > 0
	}' "$old" "$new"
