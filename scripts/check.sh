#!/bin/bash
# check.sh: every test of the project, counted.
#  1. build-time type checks against the patched tree (scripts/typecheck.sh);
#  2. the patched kernel: its KUnit suite (run at boot) and the conformance
#     suite; 3. the stock kernel: the conformance suite; 4. the patched tree
#     built with CONFIG_USER_NS=n: the tests written for it.
# Each kernel boots with a fresh ext4 disk.  Prints the KTAP of each and
# ends with one line "N passed, N failed, N skipped"; exits non-zero on any
# failure, a test program that did not finish, or a guest that did not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# nouserns: the patched tree with CONFIG_USER_NS=n, running the tests
# written for such a kernel.
variants=${VARIANTS:-patched stock nouserns}
results=$BUILD/results
mkdir -p "$results"

# Build-time tests: the id types must not mix (patched tree).
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

all=$(cd "$BUILD/tests" 2>/dev/null && ls)
[ -n "$all" ] || die "no test programs in $BUILD/tests" "run 'make tests' and look at its errors"

for v in $variants; do
	log=$results/check-$v.log
	if [ "$v" = nouserns ]; then
		progs=$(echo "$all" | grep nouserns || true)
		engine=none
	else
		progs=$(echo "$all" | grep -v nouserns || true)
		engine=$v
	fi
	cmd="USERNS_IDMAP_ENGINE=$engine /guest/run-tests.sh $(echo "$progs" | tr '\n' ' ')"
	disk=$BUILD/disk-$v.img
	mkdisk "$disk"
	info "booting the $v kernel (console: $log)"
	set +e
	"$TOP/scripts/vm.sh" --variant "$v" --disk "$disk" --timeout "${CHECK_TIMEOUT:-1200}" \
		--log "$log" -- "$cmd" >/dev/null
	rc=$?
	set -e
	kunit=no
	[ "$v" = patched ] && kunit=yes
	# shellcheck disable=SC2086  # progs: one name per word
	ktap_results "$log" "$v" "$kunit" $progs
	if [ "$rc" != 0 ]; then
		f=$((f + 1))
		echo "FAILED: the $v guest did not finish cleanly (vm.sh exit $rc; see $log)"
	fi
	echo "# $v: $p passed, $f failed, $s skipped"
	summary="$summary $v: $p/$f/$s"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
done

echo "# per kernel (passed/failed/skipped):$summary"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
