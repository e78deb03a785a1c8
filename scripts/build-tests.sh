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
