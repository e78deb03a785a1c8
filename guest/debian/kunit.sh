#!/bin/sh
# kunit.sh: the engine's KUnit suite (kernel/user_idmap_kunit.c) on the
# kernel of the package, where it is a module: Debian's config does not
# build KUnit in, so make deb builds KUNIT and USER_IDMAP_KUNIT_TEST as
# modules, and loading user_idmap_kunit runs the suite.  Its cases' results
# are read back from the kernel log and printed as this program's KTAP:
# the module loaded, each case, the suite.  Stock and Debian's kernel have
# no such suite: one skip, not a pass.
cd /guest/tools || exit 1
# shellcheck source=../tools/lib.sh
. ./lib.sh
if [ "$engine" = stock ]; then
	plan 1
	skip user_idmap_kunit "stock has no id-map KUnit suite"
	exit 0
fi
dmesg -C
out=$(modprobe user_idmap_kunit 2>&1)
rc=$?
# The suite's lines, without the log's time stamps, from its header to
# its result.
log=$(dmesg | sed 's/^\[[^]]*\] //' |
	awk '/^ *# Subtest: user_idmap$/ { on = 1 } on { print } on && /^(not )?ok [0-9]+ user_idmap$/ { exit }')
cases=$(printf '%s\n' "$log" | awk '/^    1\.\.[0-9]+$/ { sub(/^ *1\.\./, ""); print; exit }')
plan $((${cases:-0} + 2))
check module_loaded "0" "$rc"
[ -z "$out" ] || show "$out" "modprobe: "
if [ -z "$cases" ]; then
	fail user_idmap_suite "the kernel log has no KTAP of the user_idmap suite" "$(dmesg | tail -n 5)"
	exit 0
fi
# Each case: "    ok N name" or "    not ok N name", after its
# diagnostics ("    # name: EXPECTATION FAILED at ...") on failure.
printf '%s\n' "$log" | awk '
	/^    (not )?ok [0-9]+ / {
		ok = $1 == "ok"; name = ok ? $3 : $4
		print (ok ? "pass " : "fail ") name
		next
	}
	/^    # / && !/^    # Subtest:/ { sub(/^ +# /, ""); print "diag " $0 }
' >/tmp/kunit.results
seen=0
while read -r kind rest; do
	case "$kind" in
	pass) pass "$rest"; seen=$((seen + 1)) ;;
	fail) fail "$rest"; seen=$((seen + 1)) ;;
	diag) echo "# $rest" ;;
	esac
done </tmp/kunit.results
# Cases the plan announced but the log does not have (a crash mid-suite).
while [ "$seen" -lt "$cases" ]; do
	seen=$((seen + 1))
	fail "case_$seen" "announced by the suite's plan, missing from the kernel log"
done
# The suite's own line (numbered by the kernel's count of suites run).
check user_idmap_suite "ok user_idmap" "$(printf '%s\n' "$log" | tail -n 1 | sed 's/^ok [0-9]* /ok /')"
[ "$rc" = 0 ] && rmmod user_idmap_kunit
