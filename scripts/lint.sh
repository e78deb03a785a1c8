#!/bin/bash
# make lint: shellcheck on the harness, checkpatch --strict on series/,
# and sparse + W=1 on the files the series touches (patched kernel).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fail=0
info "shellcheck"
shellcheck -x "$TOP"/scripts/*.sh "$TOP"/guest/*.sh "$TOP"/guest/init "$TOP"/.ci/run || fail=1

info "checkpatch --strict on series/"
patches=$(grep '\.patch$' "$SERIES/series" | sed "s|^|$SERIES/|")
# spdxcheck.py needs Debian's python3 (python3-ply), first on PATH.
# shellcheck disable=SC2086
(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --terse $patches) || fail=1

info "sparse (C=1) and W=1 on the touched C files"
files=$(tree_git diff --name-only "$BASE_TAG"..HEAD -- 'kernel/*.c' 'include/*.h' | grep '^kernel/.*\.c$' || true)
objs=""
for f in $files; do
	objs="$objs ${f%.c}.o"
done
if [ -n "$objs" ]; then
	# shellcheck disable=SC2086
	out=$(make -s -C "$TREE" O="$BUILD/obj-patched" C=2 W=1 CC="ccache gcc" $objs 2>&1 | grep -v '^  CHECK\|^  CC' || true)
	if [ -n "$out" ]; then
		echo "$out"
		fail=1
	fi
fi
if [ "$fail" != 0 ]; then
	die "lint found problems (above)"
fi
info "lint clean"
