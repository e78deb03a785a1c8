#!/bin/bash
# make tree: extract Debian's linux-source-BASE into build/linux (6.12:
# build/6.12/linux), commit it as
# the base, and apply series/ with git am.  Safe to run again: an up-to-date
# tree is left alone, a stale one is rebuilt only if it holds no work that
# series/ does not have.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FORCE=${FORCE:-0}
stamp=$TREE/.git/userns-idmap-stamp

[ -r "$SRC_TARBALL" ] ||
	die "$SRC_TARBALL not found" "run 'make deps BASE=$KBASE' (installs $SRC_PKG) and try again"

want_hash=$(series_hash)

if [ -d "$TREE/.git" ]; then
	if [ -f "$stamp" ]; then
		read -r have_hash have_head <"$stamp"
	else
		have_hash=none have_head=none
	fi
	head=$(tree_git rev-parse HEAD)
	local_work=0
	if [ "$head" != "$have_head" ] || [ -n "$(tree_git status --porcelain --untracked-files=no)" ]; then
		local_work=1
	fi
	if [ "$have_hash" = "$want_hash" ] && [ "$FORCE" != 1 ]; then
		if [ "$local_work" = 1 ]; then
			info "tree is up to date with series/, plus local work not yet exported ('make export')"
		else
			info "tree is up to date with series/ ($TREE)"
		fi
		exit 0
	fi
	if [ "$local_work" = 1 ] && [ "$FORCE" != 1 ]; then
		die "series/ changed, but $TREE has commits or edits that series/ does not hold" \
			"export them first with 'make export' (then commit series/), or" \
			"throw them away with 'make tree FORCE=1'"
	fi
	info "re-applying series/ on the base commit"
	tree_git am --abort >/dev/null 2>&1 || true
	tree_git reset -q --hard "$BASE_TAG"
	tree_git clean -qfdx
else
	info "extracting $SRC_TARBALL (version $(source_version))"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -C "$TREE.tmp" -xf "$SRC_TARBALL" --strip-components=1
	mv "$TREE.tmp" "$TREE"
	tree_git init -q
	tree_git config core.autocrlf false
	tree_git config am.keepcr true
	# Debian's .gitignore ignores everything at the top level (a rule for
	# its packaging repository): drop it, or no new file could be added.
	sed -i '/^# Debian packaging: ignore everything at the top level/,/^!\/debian\/$/d; ${/^#$/d}' \
		"$TREE/.gitignore"
	sed -i -e ':a' -e '/^#$/{$d;N;ba' -e '}' "$TREE/.gitignore"
	tree_git add -A -f .
	tree_git commit -q -m "base: Debian $SRC_PKG $(source_version)

Debian's top-level .gitignore rule that ignores everything (its packaging
repository layout) is dropped so that new files can be added."
	tree_git tag "$BASE_TAG"
fi

rec_version=$(sed -n 's/^base-version: *//p' "$SERIES/BASE" 2>/dev/null || true)
cur_version=$(source_version)
if [ -n "$rec_version" ] && [ "$rec_version" != "$cur_version" ]; then
	info "warning: series/$KBASE/ was made against $SRC_PKG $rec_version, installed is $cur_version"
fi

failed=""
if [ -s "$SERIES/series" ]; then
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		if ! tree_git am -q --committer-date-is-author-date "$SERIES/$p" >/dev/null 2>"$BUILD/am.err"; then
			failed=$p
			break
		fi
	done <"$SERIES/series"
fi

if [ -n "$failed" ]; then
	cat "$BUILD/am.err" >&2
	tree_git am --show-current-patch=diff 2>/dev/null | tree_git apply --check --reject - 2>&1 | sed 's/^/  /' >&2 || true
	tree_git am --abort >/dev/null 2>&1 || true
	die "patch $failed does not apply to $SRC_PKG $cur_version (series made against ${rec_version:-?})" \
		"the patches before it are applied in $TREE; the hunks that failed are listed above" \
		"rebase the series on the installed source, then 'make export'"
fi

printf '%s %s\n' "$want_hash" "$(tree_git rev-parse HEAD)" >"$stamp"
info "tree ready: $TREE ($(tree_git rev-list --count "$BASE_TAG"..HEAD) patches on $BASE_TAG)"
