#!/bin/bash
# fuzz.sh (make fuzz): the differential fuzzer, fuzz/idmap_fuzz.c, run in
# the guest on the stock and the patched kernel (two guests at once, one
# CPU each), then its transcripts compared by scripts/fuzz-compare.py.
#   SEEDS="1 2 3 4"  COUNT=50000   scenarios per seed and kernel
#   FUZZ_NAME=fuzz   names the files, so that campaigns may run side by side
# Results: build/results/NAME-{stock,patched}.txt.gz and NAME-report.txt.
# Exits non-zero on any unexplained difference, on a transcript that is not
# complete, or on a guest that did not finish.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

seeds=${SEEDS:-1 2 3 4}
count=${COUNT:-50000}
name=${FUZZ_NAME:-fuzz}
results=$BUILD/results
mkdir -p "$results"
nseeds=$(wc -w <<<"$seeds")
total=$((nseeds * count))
[ -x "$BUILD/fuzz/idmap_fuzz" ] || die "no $BUILD/fuzz/idmap_fuzz" "run 'make initramfs' (it builds the fuzzer)"

# One guest per kernel: the transcript is gzipped onto a raw disk.
# fuzz_guest VARIANT: boots it, leaves $results/NAME-VARIANT.txt.gz.
fuzz_guest() {
	local v=$1 img start
	img=$BUILD/$name-$v.img
	rm -f "$img"
	truncate -s 1G "$img"
	start=$(date +%s)
	"$TOP/scripts/vm.sh" --variant "$v" --disk "$img" --timeout $((total / 20 + 600)) \
		--log "$results/$name-$v.log" -- \
		"for s in $seeds; do /fuzz/idmap_fuzz \$s $count || echo \"# idmap_fuzz failed: \$?\"; done | gzip -1 >/dev/vda" \
		>/dev/null || return 1
	echo $(($(date +%s) - start)) >"$results/$name-$v.seconds"
	# The gzip stream ends before the disk does: ignore what follows it.
	gzip -dc <"$img" 2>/dev/null | gzip -1 >"$results/$name-$v.txt.gz" || true
	rm -f "$img"
}

info "fuzzing: seeds $seeds, $count scenarios each, on stock and patched (two guests)"
pids=()
for v in stock patched; do
	fuzz_guest "$v" &
	pids+=($!)
done
rc=0
for i in 0 1; do
	wait "${pids[$i]}" || rc=1
done
[ "$rc" = 0 ] || die "a fuzzing guest did not finish" "consoles: $results/$name-{stock,patched}.log"

for v in stock patched; do
	done_lines=$(zcat "$results/$name-$v.txt.gz" | grep -c '^# done ' || true)
	[ "$done_lines" = "$nseeds" ] ||
		die "the $v transcript is incomplete ($done_lines of $nseeds seeds)" \
			"see $results/$name-$v.log; a guest that ran out of time needs a smaller COUNT"
	secs=$(cat "$results/$name-$v.seconds")
	info "$v: $total scenarios in $secs s ($((total / (secs > 0 ? secs : 1))) per second, boot included)"
done
set +e
python3 "$TOP/scripts/fuzz-compare.py" "$results/$name-stock.txt.gz" "$results/$name-patched.txt.gz" |
	tee "$results/$name-report.txt"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || die "unexplained differences between stock and patched" \
	"$results/$name-report.txt lists them; replay one: idmap_fuzz SEED 1 INDEX in 'make shell'"
info "no unexplained difference in $total scenarios per kernel"
