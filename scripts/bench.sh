#!/bin/bash
# make bench: build the stock and the patched kernel with the benchmark
# config (config/bench.config: Debian's speculation mitigations), boot each
# under QEMU -icount shift=0 (1 guest ns = 1 instruction), run
# bench/idmap_bench, and write results/bench.{csv,md} and
# results/bench-stat.png.  RUNS=2 boots each kernel twice and checks that
# the counts are identical.  KERNELS="patched-bench" runs only those
# kernels and keeps the other kernels' rows of results/bench.csv (after a
# change to the series, stock's figures do not move).  SIZES="1 5 6"
# measures only those map sizes (and no memory figures), keeping the
# other rows: to compare two builds quickly.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$RESULTS
runs=${RUNS:-1}
mkdir -p "$out" "$BUILD/bench"
# nouserns-bench: stock with CONFIG_USER_NS=n, the floor for stat().
all="stock-bench patched-bench nouserns-bench"
kernels=${KERNELS:-$all}
sizes=${SIZES:-}
for n in $sizes; do
	case $n in
	1 | 2 | 3 | 5 | 6 | 16 | 64 | 340 | 1024 | 4096) ;;
	*) die "no map size '$n' in the benchmark" "SIZES takes some of: 1 2 3 5 6 16 64 340 1024 4096" ;;
	esac
done
for v in $kernels; do
	case " $all " in
	*" $v "*) ;;
	*) die "unknown benchmark kernel '$v'" "KERNELS takes some of: $all" ;;
	esac
done
# shellcheck disable=SC2086  # the list of kernels
bench_guest idmap_bench $kernels

csv=$out/bench.csv
kept=$(mktemp)
trap 'rm -f "$kept"' EXIT
if { [ "$kernels" != "$all" ] || [ -n "$sizes" ]; } && [ ! -f "$csv" ]; then
	info "no $csv yet: the table has only the rows measured now"
elif [ "$kernels" != "$all" ] || [ -n "$sizes" ]; then
	# Drop the rows measured again: the kernels run, at the sizes run
	# (all, without SIZES; the initial namespace's rows, N=0, are
	# measured every time, the memory figures only without SIZES).
	awk -F, -v run="$kernels" -v sizes="$sizes" 'BEGIN {
			n = split(run, k, " "); for (i = 1; i <= n; i++) skip[k[i]] = 1
			m = split(sizes, z, " "); for (i = 1; i <= m; i++) size[z[i]] = 1
		}
		NR > 1 && !(($1 "-bench") in skip && (m == 0 || (($4 in size || $4 == 0) && $3 !~ /^mem_per_/)))' \
		"$csv" >"$kept"
fi
echo "kernel,run,workload,extents,width,instructions" >"$csv"
cat "$kept" >>"$csv"
for v in $kernels; do
	for r in $(seq 1 "$runs"); do
		log=$out/bench-$v-$r.log
		mkdisk "$BUILD/bench-disk.img"
		info "running the benchmark on $v (run $r of $runs), icount mode"
		"$TOP/scripts/vm.sh" --variant "$v" --icount --timeout 1800 --disk "$BUILD/bench-disk.img" \
			--initramfs "$BUILD/initramfs-bench.cpio" --log "$log" -- "/bench/idmap_bench $sizes" >/dev/null ||
			die "the benchmark failed on $v" "console: $log"
		# A workload that failed says so instead of giving a figure.
		if grep -a '^@@BENCH error ' "$log" >&2; then
			die "a workload failed on $v (above)" "console: $log"
		fi
		sed -n 's/^@@BENCH \([^ ]*\) \([^ ]*\) \([^ ]*\) \([^ ]*\)$/'"${v%-bench},$r"',\1,\2,\3,\4/p' "$log" >>"$csv"
	done
done

if [ "$runs" -gt 1 ]; then
	if diff <(awk -F, '$2 == 1 { print $1, $3, $4, $5, $6 }' "$csv") \
		<(awk -F, '$2 == 2 { print $1, $3, $4, $5, $6 }' "$csv") >/dev/null; then
		info "run 1 and run 2 gave identical instruction counts"
	else
		info "run 1 and run 2 differ somewhere: see the last table of $out/bench.md"
	fi
fi

# Cache lines per lookup: a user-space model of both layouts (bench/cachelines.c).
gcc -O2 -Wall -Wextra -o "$BUILD/bench-cachelines" "$TOP/bench/cachelines.c" ||
	die "bench/cachelines.c did not build"
"$BUILD/bench-cachelines" >"$out/cachelines.md"

# Markdown: one row per workload and width, stock | ours per N.
/usr/bin/python3 "$TOP/scripts/bench-report.py" "$csv" "$out"
info "results: $out/bench.md, $out/bench.csv, $out/bench-stat.png, $out/cachelines.md"
