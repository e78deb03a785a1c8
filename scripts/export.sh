#!/bin/bash
# make export: write the tree's commits above the base commit back into
# series/ as git format-patch files (stable names, no commit ids, no git
# version), rewrite series/series, keep the hand-written cover letter.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first"
if [ -n "$(tree_git status --porcelain --untracked-files=no)" ]; then
	tree_git status --short --untracked-files=no >&2
	die "the tree has uncommitted edits (listed above)" \
		"commit them in $TREE ('git -C $TREE commit -a'), then 'make export' again"
fi
if [ -d "$TREE/.git/rebase-apply" ]; then
	die "a git am is in progress in $TREE" "finish or abort it ('git -C $TREE am --abort')"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree_git format-patch -q --zero-commit --no-signature --no-cover-letter \
	--stat-width=72 -o "$tmp" "$BASE_TAG"..HEAD

find "$SERIES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
{
	echo '# Patches applied in order by make tree; written by make export.'
	for f in "$tmp"/*.patch; do
		[ -e "$f" ] || continue
		b=${f##*/}
		cp "$f" "$SERIES/$b"
		echo "$b"
	done
} >"$SERIES/series"
printf 'base-version: %s\n' "$(source_version)" >"$SERIES/BASE"

# The tree now matches series/: record it so that 'make tree' sees no local work.
printf '%s %s\n' "$(series_hash)" "$(tree_git rev-parse HEAD)" >"$TREE/.git/userns-idmap-stamp"
n=$(grep -c '\.patch$' "$SERIES/series" || true)
info "exported $n patches to $SERIES (commit them: git add series && git commit)"
