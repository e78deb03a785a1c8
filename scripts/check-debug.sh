#!/bin/bash
# check-debug.sh (make check-debug): the KUnit suite and the conformance
# suite, stress test included, on SMP kernels built with the kernel's
# checkers (config/debug.config: KASAN, UBSAN, KFENCE, lockdep and RCU
# checks, atomic-sleep checks, kmemleak, list debugging, FORTIFY_SOURCE,
# hardened usercopy; slub_debug=FZPU; fault injection, which faults_test
# drives through every allocation and copy of the map paths), patched and
# stock alike, each guest with GUEST_CPUS CPUs (default 2) on
# multi-threaded TCG.
# Fails on any failed test, on any checker report in the kernel log, and on
# any leak kmemleak finds at the end.  Ends with "N passed, N failed, N
# skipped"; a report counts as one failure each.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variants=${VARIANTS:-patched-debug stock-debug}
cpus=${GUEST_CPUS:-2}
rounds=${USERNS_IDMAP_STRESS_ROUNDS:-16}
# FAULT_ROUNDS=1: faults_test runs each scenario's campaign once, not
# twice, for a quick look: a point that shifts (a slab's new page) can
# then step over the copy a scenario must reach, so it may fail where two
# rounds pass.  check-debug and CI run two.
fault_rounds=${FAULT_ROUNDS:-2}
results=$BUILD/results
mkdir -p "$results"

all=$(cd "$BUILD/tests" 2>/dev/null && ls)
[ -n "$all" ] || die "no test programs in $BUILD/tests" "run 'make tests' and look at its errors"
progs=$(echo "$all" | grep -v nouserns | tr '\n' ' ')
# DEBUG_TESTS="faults_test ...": those programs only (make plant does).
progs=${DEBUG_TESTS:-$progs}

# What the checkers print: the first line of each report.
reports='^(BUG[: ]|WARNING: |INFO: |UBSAN: |kernel BUG at|Oops|general protection fault|Kernel panic|list_(add|del) corruption|usercopy: |kmemleak: [0-9]+ new suspected)|detected buffer overflow|unreferenced object'

tp=0 tf=0 ts=0 summary=""
for v in $variants; do
	case "$v" in
	patched-debug) engine=patched ;;
	stock-debug) engine=stock ;;
	*) die "unknown debug variant '$v'" "use patched-debug and/or stock-debug" ;;
	esac
	log=$results/check-$v.log
	disk=$BUILD/disk-$v.img
	mkdisk "$disk"
	# USERNS_IDMAP_FAULTS=1: faults_test fails, not skips, without fail-nth.
	cmd="USERNS_IDMAP_FAULTS=1 USERNS_IDMAP_FAULT_ROUNDS=$fault_rounds USERNS_IDMAP_ENGINE=$engine USERNS_IDMAP_STRESS_ROUNDS=$rounds USERNS_IDMAP_TEST_TIMEOUT=2400 /guest/run-tests.sh $progs; /guest/debug-tail.sh"
	# A run takes about 150 s here.  A debug kernel's boot has hung, once
	# in about ten, in the RCU-tasks self-test (PROVE_RCU), before any
	# test: a guest that fails without reaching the tests boots once more.
	for try in 1 2; do
		info "booting the $v kernel, $cpus CPUs (console: $log)"
		set +e
		"$TOP/scripts/vm.sh" --variant "$v" --disk "$disk" --smp "$cpus" --mem 2048 \
			--append "slub_debug=FZPU acpi=noirq" --timeout "${CHECK_TIMEOUT:-2700}" \
			--log "$log" -- "$cmd" >/dev/null
		rc=$?
		set -e
		if [ "$rc" = 0 ] || grep -q '^@@BEGIN ' "$log" || [ "$try" = 2 ]; then
			break
		fi
		cp "$log" "$log.boot-failed"
		echo "# $v: the guest failed before any test (vm.sh exit $rc;" \
			"console kept in $log.boot-failed): booting it again"
		mkdisk "$disk"
	done
	kunit=no
	[ "$engine" = patched ] && kunit=yes
	# shellcheck disable=SC2086  # progs: one name per word
	debug_results "$log" "$v" "$kunit" $progs
	# faults_test: how many injection points each scenario reached.
	grep -E '^# .*: [0-9]+ injection points' "$log" | sed "s/^# /# $v: /" || true
	# Checker reports: in the kernel log (busybox dmesg may prefix <level>)
	# and in kmemleak's list, or on the console before init quietened it.
	found=$(awk '/^@@BEGIN (kmemleak|dmesg)@@/ { on = 1; next } /^@@END (kmemleak|dmesg)@@/ { on = 0 }
		on { sub(/^<[0-9]+>/, ""); print }' "$log" | grep -E "$reports" | sort | uniq -c || true)
	# A guest that died (a panic) printed no kernel log at the end: its
	# reports are on the console, where the kernel printed them.
	if ! grep -q '^@@END dmesg@@' "$log"; then
		found=$(sed 's/^<[0-9]*>//' "$log" | grep -E "$reports" | sort | uniq -c || true)
	fi
	if [ -n "$found" ]; then
		n=$(echo "$found" | wc -l)
		f=$((f + n))
		echo "FAILED: checker reports in the $v kernel's log (kinds: $n; full log: $log):"
		awk '{ print "    " $0 }' <<<"$found"
	else
		echo "# $v: no KASAN, UBSAN, KFENCE, lockdep, RCU, atomic-sleep, list, usercopy or kmemleak report"
	fi
	# A kmemleak that did not scan found nothing: that is no pass.
	if ! grep -q '^kmemleak: scanned twice' "$log"; then
		f=$((f + 1))
		echo "FAILED: kmemleak did not scan in the $v guest (its line in $log says why;" \
			"check CONFIG_DEBUG_KMEMLEAK in $BUILD/obj-$v/.config)"
	fi
	tally "$v" "$rc" "$log"
done

echo "# per kernel (passed/failed/skipped):$summary"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
