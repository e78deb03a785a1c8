#!/bin/bash
# typecheck.sh: negative compile tests of the id types, against the patched
# tree with the flags kbuild used for kernel/user_idmap.o.  A kernel file
# that assigns a uid_t to a kuid_t (gid_t to kgid_t, projid_t to kprojid_t)
# must not build; the same file using make_kuid() and friends must.
# Prints KTAP; exits non-zero if any case went the wrong way.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj=$BUILD/obj-patched
cmdfile=$obj/kernel/.user_idmap.o.cmd
[ -f "$cmdfile" ] || die "$cmdfile not found" "build the patched kernel first ('make kernel')"
# The compiler command line, less its input, output and dependency file
# (kbuild's variable is savedcmd_ from 6.3 on, cmd_ before).
flags=$(sed -n 's/^\(saved\)\{0,1\}cmd_kernel\/user_idmap.o := //p' "$cmdfile" |
	sed 's/ -Wp,-MMD,[^ ]*//; s/ -c -o .*$//; s/^ccache //; s/^gcc //')
[ -n "$flags" ] || die "no compiler command for kernel/user_idmap.o in $cmdfile" \
	"the kbuild .cmd format changed: fix the sed above"
dir=$BUILD/typecheck
rm -rf "$dir"
mkdir -p "$dir"

cases=(
	"kuid_t from uid_t|kuid_t f(uid_t id) { kuid_t k = id; return k; }|kuid_t f(uid_t id) { return make_kuid(&init_user_ns, id); }"
	"uid_t from kuid_t|uid_t f(kuid_t k) { uid_t id = k; return id; }|uid_t f(kuid_t k) { return from_kuid(&init_user_ns, k); }"
	"kgid_t from gid_t|kgid_t f(gid_t id) { kgid_t k = id; return k; }|kgid_t f(gid_t id) { return make_kgid(&init_user_ns, id); }"
	"kprojid_t from projid_t|kprojid_t f(projid_t id) { kprojid_t k = id; return k; }|kprojid_t f(projid_t id) { return make_kprojid(&init_user_ns, id); }"
	"kuid_t compared with uid_t|bool f(kuid_t k) { return k == 0; }|bool f(kuid_t k) { return uid_eq(k, GLOBAL_ROOT_UID); }"
	"kgid_t passed as kuid_t|bool f(kgid_t g) { return uid_valid(g); }|bool f(kgid_t g) { return gid_valid(g); }"
)

echo "TAP version 13"
echo "1..$((2 * ${#cases[@]}))"
n=0 bad=0
compile() {
	printf '#include <linux/uidgid.h>\n#include <linux/projid.h>\n#include <linux/user_namespace.h>\n%s\n' "$2" >"$dir/$1.c"
	# shellcheck disable=SC2086
	(cd "$obj" && gcc $flags -c -o "$dir/$1.o" "$dir/$1.c") >"$dir/$1.log" 2>&1
}
for c in "${cases[@]}"; do
	IFS='|' read -r name wrong right <<<"$c"
	n=$((n + 1))
	# Only a type error counts: a file that fails for any other reason
	# (a missing header, say) proves nothing about the types.
	if compile "wrong$n" "$wrong"; then
		echo "not ok $n $name does not build"
		bad=1
	elif ! grep -qE 'error: (invalid initializer|incompatible type|invalid operands)' "$dir/wrong$n.log"; then
		sed 's/^/# /' "$dir/wrong$n.log"
		echo "not ok $n $name does not build, for its types (another error, above)"
		bad=1
	else
		echo "ok $n $name does not build ($(grep -m1 -o 'error: .*' "$dir/wrong$n.log"))"
	fi
	n=$((n + 1))
	if compile "right$n" "$right"; then
		echo "ok $n $name, written with the conversion helpers, builds"
	else
		sed 's/^/# /' "$dir/right$n.log"
		echo "not ok $n $name, written with the conversion helpers, builds"
		bad=1
	fi
done
exit "$bad"
