#!/bin/bash
# build-tests.sh: build the project's kselftests from the tree (patched),
# statically, into build/tests/, which the initramfs carries to /tests.
# The same binaries run on the stock and the patched kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Selftest directories of the series, relative to tools/testing/selftests.
dirs=${TEST_DIRS:-userns_idmap}

[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first"
rm -rf "$BUILD/tests"
mkdir -p "$BUILD/tests" "$BUILD/tests-obj"
n=0
for d in $dirs; do
	src=$TREE/tools/testing/selftests/$d
	if [ ! -d "$src" ]; then
		info "no $src yet (the series does not add it): skipped"
		continue
	fi
	out=$BUILD/tests-obj/$d
	mkdir -p "$out"
	if ! make -s -C "$src" OUTPUT="$out" LDFLAGS=-static \
		KHDR_INCLUDES="-isystem /usr/include" >"$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		die "the $d selftests did not build (log above)" "fix them in $TREE, then 'make check' again"
	fi
	for f in "$out"/*; do
		if [ -f "$f" ] && [ -x "$f" ] && file "$f" | grep -q 'statically linked'; then
			cp "$f" "$BUILD/tests/"
			n=$((n + 1))
		fi
	done
done
info "$n test programs in $BUILD/tests"

# The differential fuzzer (make fuzz, and a short campaign in make check).
mkdir -p "$BUILD/fuzz"
gcc -static -O2 -Wall -Wextra -Werror -o "$BUILD/fuzz/idmap_fuzz" "$TOP/fuzz/idmap_fuzz.c" ||
	die "fuzz/idmap_fuzz.c did not build (errors above)" "fix it, then 'make check' again"

# The tree's own selftests that create user namespaces, write id maps or
# make idmapped mounts (issue 10), in build/tests/intree/DIR/: the same
# binaries for both kernels, run with their helpers beside them.  DIR:PROG
# names the programs run as tests (helpers such as capabilities'
# validate_cap are built but not run as tests).
# DIR:PROG@USER runs PROG as USER: capabilities' test_execve uses global ids
# as root, and a user namespace with its own maps otherwise.  Not here:
# filesystems/binderfs and safesetid also write maps, but need binderfs
# and the SafeSetID LSM, which the test kernels do not have.
intree=${INTREE_TESTS:-mount_setattr:mount_setattr_test move_mount_set_group:move_mount_set_group_test
	nsfs:owner nsfs:pidns mount:unprivileged-remount-test mount:nosymfollow-test
	capabilities:test_execve capabilities:test_execve@alice}
rm -rf "$BUILD/tests-intree"
declare -A built=()
for t in $intree; do
	d=${t%%:*}
	t=${t%@*}
	src=$TREE/tools/testing/selftests/$d
	out=$BUILD/tests-obj/intree/$d
	if [ -z "${built[$d]:-}" ]; then
		[ -d "$src" ] || die "no $src in the tree" "drop $d from INTREE_TESTS"
		mkdir -p "$out" "$BUILD/tests-intree/$d"
		if ! make -s -C "$src" OUTPUT="$out" LDFLAGS=-static \
			KHDR_INCLUDES="-isystem /usr/include" >"$out/build.log" 2>&1; then
			cat "$out/build.log" >&2
			die "the tree's $d selftests did not build (log above)" "'make deps' installs their libraries (libcap-ng-dev)"
		fi
		for f in "$out"/*; do
			if [ -f "$f" ] && [ -x "$f" ]; then
				file "$f" | grep -q 'statically linked' ||
					die "$f is not statically linked" "the guest has no shared libraries for it"
				strip --strip-debug -o "$BUILD/tests-intree/$d/${f##*/}" "$f"
			fi
		done
		built[$d]=1
	fi
	[ -x "$BUILD/tests-intree/$d/${t#*:}" ] || die "$d built no ${t#*:}" "see $out/build.log"
done
for t in $intree; do echo "intree/${t/://}"; done >"$BUILD/tests-intree/LIST"
info "$(wc -l <"$BUILD/tests-intree/LIST") in-tree selftests in $BUILD/tests-intree"
