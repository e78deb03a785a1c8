#!/bin/bash
# check.sh: every test of the project, counted.
#  1. build-time type checks against the patched tree (scripts/typecheck.sh);
#  2. the patched kernel: its KUnit suite (run at boot) and the conformance
#     suite; 3. the stock kernel: the conformance suite; 4. the patched tree
#     built with CONFIG_USER_NS=n: the tests written for it; 5. the
#     container-tool tests on stock and ours (guest/tools/, TOOL_TESTS);
#  6. the differential fuzzer, stock against ours (FUZZ_COUNT).
# Each kernel boots with a fresh ext4 disk.  Prints the KTAP of each and
# ends with one line "N passed, N failed, N skipped"; exits non-zero on any
# failure, a test program that did not finish, or a guest that did not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# nouserns: the patched tree with CONFIG_USER_NS=n, running the tests
# written for such a kernel.
variants=${VARIANTS:-patched stock nouserns}
fuzz_seed=${FUZZ_SEED:-2026}
fuzz_count=${FUZZ_COUNT:-6000}
results=$BUILD/results
mkdir -p "$results"
# The container-tool tests (guest/tools/NAME.sh), on stock and ours, in
# the tools image (scripts/mktoolsimg.sh); TOOL_TESTS="" leaves them out.
all_tools="bwrap lxc_usernsexec crun runc podman_unshare buildah_unshare newuidmap_4096 podman_run tool_limits"
tool_tests=${TOOL_TESTS-$all_tools}
# ONLY_TOOLS=1 (make clients): the tool tests alone, no type checks, no
# conformance boot, no fuzzing.
only_tools=${ONLY_TOOLS:-}
if [ -n "$tool_tests" ] && [ ! -r "$BUILD/tools.img" ]; then
	die "no $BUILD/tools.img" "run 'make toolsimg' (make check builds it)"
fi

# Build-time tests: the id types must not mix (patched tree).
tp=0 tf=0 ts=0 summary=""
if [ -z "$only_tools" ]; then
	tlog=$results/typecheck.log
	set +e
	{
		echo "@@BEGIN typecheck@@"
		"$TOP/scripts/typecheck.sh"
		echo "@@END typecheck rc=$?@@"
	} >"$tlog" 2>&1
	set -e
	echo "# ---- build-time type checks (patched tree) ----"
	cat "$tlog"
	counts=$(awk -f "$TOP/scripts/count-ktap.awk" "$tlog")
	echo "$counts" | sed '$d'
	read -r tp tf ts <<<"$(echo "$counts" | tail -n 1)"
	summary=" typecheck: $tp/$tf/$ts"
fi

all=$(cd "$BUILD/tests" 2>/dev/null && ls)
[ -n "$all" ] || die "no test programs in $BUILD/tests" "run 'make tests' and look at its errors"

# tools_boot VARIANT: the container-tool tests (guest/tools/) on one kernel,
# in a boot whose root is the tools image, with a fresh ext4 disk; adds
# to the counts.
tools_boot() {
	local v=$1 log rc p f s
	[ "$v" != nouserns ] && [ -n "$tool_tests" ] || return 0
	log=$results/check-$v-tools.log
	mkdisk "$disk"
	info "booting the $v kernel for the container tools (console: $log)"
	set +e
	# shellcheck disable=SC2086  # tool_tests: one name per word
	"$TOP/scripts/vm.sh" --variant "$v" --disk "$disk" --disk "$BUILD/tools.img" \
		--timeout "${CHECK_TIMEOUT:-1200}" --log "$log" -- \
		"USERNS_IDMAP_ENGINE=$v /guest/tools-run.sh $tool_tests" >/dev/null
	rc=$?
	set -e
	# The KUnit suite ran at boot again: count it once, in the first boot.
	awk '/^Run \/init/ { booted = 1 } booted' "$log" >"${log%.log}.ktap"
	# shellcheck disable=SC2046,SC2086  # one name per word
	ktap_results "${log%.log}.ktap" "$v tools" no $(printf 'tools/%s ' $tool_tests)
	tally "$v tools" "$rc" "$log"
}

for v in $variants; do
	disk=$BUILD/disk-$v.img
	if [ -n "$only_tools" ]; then
		tools_boot "$v"
		continue
	fi
	log=$results/check-$v.log
	if [ "$v" = nouserns ]; then
		progs=$(echo "$all" | grep nouserns || true)
		engine=none
	else
		# faults_test needs fault injection: check-debug's kernels have it.
		progs=$(suite_programs)
		# The tree's own selftests that write id maps (build-tests.sh)
		[ -r "$BUILD/tests-intree/LIST" ] || die "no $BUILD/tests-intree/LIST" "run 'make tests'"
		progs="$progs $(cat "$BUILD/tests-intree/LIST")"
		engine=$v
	fi
	cmd="USERNS_IDMAP_ENGINE=$engine /guest/run-tests.sh $(echo "$progs" | tr '\n' ' ')"
	disk=$BUILD/disk-$v.img
	mkdisk "$disk"
	disks=(--disk "$disk")
	# The fuzzer's transcript goes, gzipped, to a raw second disk.
	fuzzimg=$BUILD/fuzz-$v.img
	rm -f "$fuzzimg" "$results/fuzz-$v.txt.gz"
	if [ "$v" != nouserns ] && [ "$fuzz_count" -gt 0 ]; then
		truncate -s 256M "$fuzzimg"
		disks+=(--disk "$fuzzimg")
		cmd="$cmd; /fuzz/idmap_fuzz $fuzz_seed $fuzz_count | gzip -1 >/dev/vdb"
	fi
	info "booting the $v kernel (console: $log)"
	set +e
	"$TOP/scripts/vm.sh" --variant "$v" "${disks[@]}" --timeout "${CHECK_TIMEOUT:-1200}" \
		--log "$log" -- "$cmd" >/dev/null
	rc=$?
	set -e
	if [ -f "$fuzzimg" ]; then
		gzip -dc <"$fuzzimg" 2>/dev/null | gzip -1 >"$results/fuzz-$v.txt.gz" || true
		rm -f "$fuzzimg"
	fi
	kunit=no
	[ "$v" = patched ] && kunit=yes
	# shellcheck disable=SC2086  # progs: one name per word
	ktap_results "$log" "$v" "$kunit" $progs
	tally "$v" "$rc" "$log"

	tools_boot "$v"
done

# Every tool test on stock and ours, all passed: what they measured of each
# tool ("# limit:" lines, guest/tools/lib.sh) goes to
# docs/results/BASE/tools.txt, committed, from which make docs writes the
# README's table of what each tool passes on to the kernel.
if [ "$tool_tests" = "$all_tools" ] && [[ " $variants " == *" patched "* ]] &&
	[[ " $variants " == *" stock "* ]]; then
	toolsfile=$TOP/docs/results/$KBASE/tools.txt
	if grep -q '^not ok ' "$results/check-patched-tools.ktap" "$results/check-stock-tools.ktap"; then
		info "not writing $toolsfile: a tool test failed"
	elif ! {
		echo "# make clients BASE=$KBASE: the tools' limits as guest/tools/ measured them, per kernel"
		for v in stock patched; do
			sed -n "s/\r$//; s/^# limit: /$v /p" "$results/check-$v-tools.ktap"
		done
	} 2>/dev/null >"$toolsfile"; then
		info "could not write $toolsfile"
	fi
fi

# The fuzzing campaign: stock's transcript against ours.
if [ -z "$only_tools" ] && [ "$fuzz_count" -gt 0 ] && [[ " $variants " == *" patched "* ]] && [[ " $variants " == *" stock "* ]]; then
	echo "# ---- differential fuzzing: seed $fuzz_seed, $fuzz_count scenarios per kernel ----"
	fuzz_ok=yes
	for v in stock patched; do
		if [ "$(zcat "$results/fuzz-$v.txt.gz" 2>/dev/null | grep -c '^# done ')" != 1 ]; then
			echo "FAILED: the $v kernel's fuzzing transcript is incomplete (see $results/check-$v.log)"
			fuzz_ok=no
		fi
	done
	if [ "$fuzz_ok" = yes ] &&
		python3 "$TOP/scripts/fuzz-compare.py" "$results/fuzz-stock.txt.gz" "$results/fuzz-patched.txt.gz"; then
		echo "ok 1 fuzz_differential"
		tp=$((tp + 1))
		summary="$summary fuzz: 1/0/0"
	else
		echo "not ok 1 fuzz_differential"
		tf=$((tf + 1))
		summary="$summary fuzz: 0/1/0"
	fi
fi

# A full run (every kernel, every tool test, the fuzzing comparison as
# documented) leaves its summary in docs/results/BASE/check.txt, committed:
# make docs quotes it in README.md and docs/testing.md.
if [ -z "$only_tools" ] && [ "$variants" = "patched stock nouserns" ] &&
	[ "$tool_tests" = "$all_tools" ] &&
	[ "$fuzz_seed" = 2026 ] && [ "$fuzz_count" = 6000 ]; then
	sumfile=$TOP/docs/results/$KBASE/check.txt
	if ! {
		echo "# make check BASE=$KBASE: $SRC_PKG $(source_version), series/$KBASE $(series_hash | cut -c1-12), $(date +%F)"
		echo "# per kernel (passed/failed/skipped):$summary"
		echo "$tp passed, $tf failed, $ts skipped"
	} 2>/dev/null >"$sumfile"; then
		info "could not write $sumfile"
	fi
fi

echo "# per kernel (passed/failed/skipped):$summary"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
