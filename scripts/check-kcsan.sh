#!/bin/bash
# check-kcsan.sh (make check-kcsan): the stress test and the map tests on
# the patched kernel built with KCSAN (config/kcsan.config: strict mode,
# weak memory modelling, every report printed), GUEST_CPUS CPUs (default 2)
# on multi-threaded TCG.  Any data race KCSAN reports with a frame in the
# engine's files (kernel/user_idmap.c, kernel/user_namespace.c: the symbols
# of their objects) fails the run; races elsewhere in the kernel are listed,
# not counted.  Ends with "N passed, N failed, N skipped".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

v=patched-kcsan
cpus=${GUEST_CPUS:-2}
rounds=${USERNS_IDMAP_STRESS_ROUNDS:-64}
# About one access in skip_watch becomes a watchpoint (KCSAN's default, 4000).
# A race between one plain store per map and marked loads is seen only when
# that store is picked: lower it to look harder, at a cost in run time.
skip_watch=${KCSAN_SKIP_WATCH:-4000}
progs=${KCSAN_TESTS:-stress_test map_write_test map_read_test nesting_test map_split_test}
results=$BUILD/results
obj=$BUILD/obj-$v
mkdir -p "$results"
[ -f "$BUILD/kernels/$v.bzImage" ] || die "no $v kernel" "run 'make kernel-kcsan'"

# The engine's functions: every text symbol of its two objects.
syms=$results/kcsan-engine-symbols.txt
for o in kernel/user_idmap.o kernel/user_namespace.o; do
	[ -f "$obj/$o" ] || die "no $obj/$o" "run 'make kernel-kcsan'"
	nm "$obj/$o" | awk '$2 ~ /^[tT]$/ { print $3 }'
done | sort -u >"$syms"

log=$results/check-$v.log
disk=$BUILD/disk-$v.img
mkdisk "$disk"
cmd="USERNS_IDMAP_ENGINE=patched USERNS_IDMAP_STRESS_ROUNDS=$rounds USERNS_IDMAP_TEST_TIMEOUT=1800 /guest/run-tests.sh $progs; /guest/debug-tail.sh"
info "booting the $v kernel, $cpus CPUs, stress rounds $rounds, kcsan.skip_watch=$skip_watch (console: $log)"
set +e
"$TOP/scripts/vm.sh" --variant "$v" --disk "$disk" --smp "$cpus" --mem 1024 \
	--append "acpi=noirq kcsan.skip_watch=$skip_watch" --timeout "${CHECK_TIMEOUT:-3600}" --log "$log" -- "$cmd" >/dev/null
rc=$?
set -e
# shellcheck disable=SC2086  # progs: one name per word
debug_results "$log" "$v" no $progs
if ! grep -q 'kcsan: enabled\|KCSAN: enabled\|kcsan: selftest: .* passed\|kcsan: strict mode' "$log"; then
	f=$((f + 1))
	echo "FAILED: no sign of KCSAN in the $v kernel's log (is CONFIG_KCSAN set? see $log)"
fi

# Each report: its title, and whether a frame is one of the engine's.
reports=$results/kcsan-reports.txt
awk -v symfile="$syms" '
	BEGIN { while ((getline s < symfile) > 0) eng[s] = 1 }
	/^@@BEGIN dmesg@@/ { on = 1; next }
	/^@@END dmesg@@/ { on = 0 }
	!on { next }
	{ sub(/^<[0-9]+>/, ""); sub(/^\[ *[0-9.]+\] /, "") }
	/BUG: KCSAN: / { if (title != "") print (hit ? "ENGINE " : "other  ") title
			 title = $0; sub(/.*BUG: KCSAN: /, "", title); hit = 0; next }
	title != "" && /^=+$/ { print (hit ? "ENGINE " : "other  ") title; title = ""; next }
	title != "" { f = $1; sub(/\+0x.*/, "", f); if (f in eng) hit = 1 }
	END { if (title != "") print (hit ? "ENGINE " : "other  ") title }' "$log" >"$reports"
nrep=$(wc -l <"$reports")
neng=$(grep -c '^ENGINE ' "$reports" || true)
echo "# KCSAN: $nrep reports in all, $neng with a frame in the engine's files"
if [ "$nrep" -gt 0 ]; then
	sort "$reports" | uniq -c | sort -rn | awk '{ print "#   " $0 }'
fi
if [ "$neng" -gt 0 ]; then
	f=$((f + neng))
	echo "FAILED: KCSAN reports data races in the engine (full reports: $log)"
fi
if [ "$rc" != 0 ]; then
	f=$((f + 1))
	echo "FAILED: the $v guest did not finish cleanly (vm.sh exit $rc; see $log)"
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
