#!/bin/bash
# plant.sh NAME (make plant PLANT=NAME): show that a checker catches a bug.
# Applies plants/NAME.patch to the tree (never committed), builds the kernel
# the checker runs on, runs the checker, which must fail, then takes the
# patch out again and rebuilds that kernel.  The prefix of NAME says which:
#   kasan-*, kmemleak-*   patched-debug kernel, check-debug.sh; a kmemleak-*
#                         plant must be among kmemleak's reports
#   faults-*              patched-debug kernel, check-debug.sh running
#                         faults_test alone, which must fail
#   kcsan-*               patched-kcsan kernel, check-kcsan.sh
#   fuzz-*                patched kernel, fuzz.sh (SEEDS=1 COUNT=PLANT_FUZZ_COUNT)
#   tools-*               patched kernel, check.sh on it alone; a container-tool
#                         test (guest/tools/) must be among what fails
#   stress-*              patched kernel, check.sh on it alone (no tools, no
#                         fuzzing); the stress test's memory check after the
#                         trees (SUnreclaim) must be among what fails
#   kunit-*               patched kernel, check.sh on it alone (no tools, no
#                         fuzzing); a case of the engine's KUnit suite must be
#                         among what fails
#   conformance-*         the same run; a test of the conformance suite
#                         (tools/testing/selftests/userns_idmap) must be among
#                         what fails
#   diffcheck-*           no kernel: diffcheck.sh, the engine built in user
#                         space at 4 and 64 KiB pages, must find a difference
# Exit status 0 when the checker caught the plant; its output is in
# build/results/plant-NAME.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ "$KBASE" = 6.1 ] || die "the planted bugs in plants/ are made for 6.1" "run it without BASE (6.1)"

name=${1:-}
patch=$TOP/plants/$name.patch
if [ -z "$name" ] || [ ! -f "$patch" ]; then
	die "no plant '$name'" "one of: $(find "$TOP/plants" -name '*.patch' -printf '%f\n' | sed 's|\.patch$||' | sort | tr '\n' ' ')"
fi
case "$name" in
kasan-* | kmemleak-*) variant=patched-debug; check=(env VARIANTS=patched-debug "$TOP/scripts/check-debug.sh") ;;
faults-*) variant=patched-debug; check=(env VARIANTS=patched-debug DEBUG_TESTS=faults_test "$TOP/scripts/check-debug.sh") ;;
kcsan-*) variant=patched-kcsan; check=("$TOP/scripts/check-kcsan.sh") ;;
fuzz-*) variant=patched; check=(env FUZZ_NAME=plant-fuzz SEEDS=1 COUNT="${PLANT_FUZZ_COUNT:-3000}" "$TOP/scripts/fuzz.sh") ;;
tools-*) variant=patched; check=(env VARIANTS=patched FUZZ_COUNT=0 "$TOP/scripts/check.sh") ;;
stress-* | kunit-* | conformance-*) variant=patched; check=(env VARIANTS=patched FUZZ_COUNT=0 TOOL_TESTS= "$TOP/scripts/check.sh") ;;
diffcheck-*) variant=; check=("$TOP/scripts/diffcheck.sh") ;;
*) die "plant '$name' names no checker" "name it kasan-*, kmemleak-*, faults-*, kcsan-*, fuzz-*, tools-*, stress-*, kunit-*, conformance-* or diffcheck-*" ;;
esac
[ -z "$(tree_git status --porcelain --untracked-files=no)" ] ||
	die "the tree has uncommitted edits" "commit or drop them in $TREE first"

log=$BUILD/results/plant-$name.log
mkdir -p "$BUILD/results"
restore() {
	tree_git apply -R "$patch"
	[ -n "$variant" ] || return 0
	info "plant taken out; rebuilding the $variant kernel"
	"$TOP/scripts/build-kernel.sh" "$variant"
}
tree_git apply "$patch"
trap restore EXIT
if [ -n "$variant" ]; then
	info "planted $name; building the $variant kernel"
	"$TOP/scripts/build-kernel.sh" "$variant"
fi
info "running ${check[*]##*/} (log: $log)"
set +e
"${check[@]}" >"$log" 2>&1
rc=$?
set -e
grep -E 'FAILED|UNEXPLAINED|unexplained|^# KCSAN|^ +[0-9]+ (ENGINE|BUG|unreferenced)|KASAN|kmemleak|SUnreclaim|VmallocUsed|Expected|^[0-9]+ passed' "$log" | head -n 30 || true
if [ "$rc" = 0 ]; then
	echo "NOT CAUGHT: ${check[*]##*/} passed with plants/$name.patch applied"
	exit 1
fi
# The checker must have failed for the plant's reason: the line that
# shows it (an extended regular expression) and what it is.
must=""
case "$name" in
kmemleak-*) must='^ +[0-9]+ unreferenced object ' what="a leak kmemleak reported" ;;
faults-*) must='^FAILED: faults_test: not ok ' what="a scenario of faults_test" ;;
tools-*) must='^FAILED: tools/[^:]*: not ok ' what="a tool test (one that did not run to its end does not count)" ;;
stress-*) must='trees_freed_memory_returns:Expected after - before' what="the trees' SUnreclaim check" ;;
kunit-*) must='^ +not ok [0-9]+ idmap_test_' what="a case of user_idmap's KUnit suite" ;;
diffcheck-*) must='^FAILED: diffcheck' what="a difference that diffcheck found" ;;
conformance-*) must='^FAILED: [a-z0-9_]+_test: not ok ' what="a test of the conformance suite" ;;
esac
if [ -n "$must" ] && ! grep -qE "$must" "$log"; then
	echo "NOT CAUGHT: ${check[*]##*/} failed, but not on $what"
	exit 1
fi
echo "caught: ${check[*]##*/} failed with plants/$name.patch applied, as it must"
