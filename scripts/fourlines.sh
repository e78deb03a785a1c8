#!/bin/bash
# make fourlines: what a lookup that touches at most 4 cache lines for
# every map shape (issue 8's second target) costs in instructions, built
# and measured in user space (bench/fourlines.c) under valgrind's
# callgrind, against our kernel's one-extent lookup compiled the same way.
# Writes results/fourlines.md.  No kernel is built or booted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null ||
	die "valgrind is not installed" "run 'make deps' (Debian package valgrind)"
mkdir -p "$RESULTS" "$BUILD"
bin=$BUILD/fourlines
# The kernel's optimisation level; no stack protector, as in the kernel's
# lookup paths.
gcc -O2 -fno-stack-protector -Wall -Wextra -o "$bin" "$TOP/bench/fourlines.c" ||
	die "bench/fourlines.c did not build"
cg=$(mktemp)
trap 'rm -f "$cg"' EXIT

# per_lookup SHAPE N LOOKUP: instructions per call of find_LOOKUP.
per_lookup() {
	local calls total
	calls=$(valgrind --tool=callgrind --callgrind-out-file="$cg" \
		--toggle-collect="find_$3" "$bin" "$1" "$2" "$3" 2>/dev/null) ||
		die "fourlines $* failed: its answer differs from a scan of the map" \
			"run '$bin $*' to see which id"
	total=$(awk '$1 == "totals:" || $1 == "summary:" { print $2; exit }' "$cg")
	[ -n "$total" ] || die "no instruction total in callgrind's output for $*"
	awk -v t="$total" -v c="$calls" 'BEGIN { printf "%.1f", t / c }'
}

out=$RESULTS/fourlines.md
one=$(per_lookup narrow 1 one)
{
	echo "# make fourlines: a 4-line lookup, instructions per lookup"
	echo
	echo "User-space model (bench/fourlines.c), gcc -O2, counted by callgrind;"
	echo "every answer checked against a scan of the map. Our kernel's"
	echo "one-extent lookup compiled the same way: $one instructions."
	echo
	echo "| shape | N | conditional adds | over one extent | branches | over one extent |"
	echo "|---|---|---|---|---|---|"
	for shape in narrow wide clustered bimodal random worst; do
		for n in 340 4096; do
			s=$(per_lookup "$shape" "$n" setcc)
			b=$(per_lookup "$shape" "$n" branch)
			awk -v sh="$shape" -v n="$n" -v s="$s" -v b="$b" -v o="$one" \
				'BEGIN { printf "| %s | %d | %.1f | +%.1f | %.1f | +%.1f |\n", sh, n, s, s - o, b, b - o }'
		done
	done
} >"$out"
cat "$out"
info "results: $out"
