#!/bin/bash
# make samecode OLD=REV: show that a rework of the series changed no code.
# Applies series/BASE/ as it was at commit REV of this repository to the
# base in a worktree of its own, then compares, prefix by prefix, the
# object code and data of every kernel C file either series touches: each
# patch of the tree's series against the old patch with the same subject,
# a patch the old series lacks against the old prefix before it (the
# base for a new first patch).  Line numbers (debug info, WARN_ON()'s
# table) are left out: only what runs and what it reads is compared.
# Exit status 1 if any prefix differs or does not build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

old_rev=${OLD:-}
[ -n "$old_rev" ] || die "no OLD revision" "name the repository commit whose series/$KBASE/ to compare against: make samecode OLD=HEAD~1"
git -C "$TOP" rev-parse -q --verify "$old_rev^{commit}" >/dev/null ||
	die "OLD=$old_rev is not a commit of this repository" "git log --oneline -- series/$KBASE"
[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first"

wt=$BUILD/linux-samecode
obj=$BUILD/obj-samecode
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The old series, applied on the base.
git -C "$TOP" archive "$old_rev" "series/$KBASE" | tar -x -C "$tmp"
old_series=$tmp/series/$KBASE
[ -f "$old_series/series" ] || die "OLD=$old_rev has no series/$KBASE/series"
[ -e "$wt/.git" ] || tree_git worktree add -q --detach "$wt" "$BASE_TAG"
git -C "$wt" checkout -q --detach "$BASE_TAG"
sed '/^#/d' "$old_series/series" | sed "s|^|$old_series/|" >"$tmp/old.list"
xargs -a "$tmp/old.list" git -C "$wt" -c user.name=userns-idmap \
	-c user.email=userns-idmap@localhost am -q >"$tmp/am.log" 2>&1 || {
	cat "$tmp/am.log"
	git -C "$wt" am --abort || true
	die "the series at OLD=$old_rev does not apply to the base"
}
old_tip=$(git -C "$wt" rev-parse HEAD)
mapfile -t olds < <(git -C "$wt" rev-list --reverse "$BASE_TAG..$old_tip")
mapfile -t news < <(tree_git rev-list --reverse "$BASE_TAG..HEAD")

# Kernel C files either series touches (not tools/: no kernel objects).
files=$( { git -C "$wt" diff --name-only "$BASE_TAG" "$old_tip"
	tree_git diff --name-only "$BASE_TAG" HEAD; } |
	grep -E '\.c$' | grep -v '^tools/' | sort -u)
info "comparing $(echo "$files" | wc -w) files: $(echo "$files" | tr '\n' ' ')"

mkdir -p "$obj"
if [ ! -f "$obj/.config" ]; then
	make -s -C "$wt" O="$obj" tinyconfig >/dev/null
	(cd "$obj" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$TOP/config/base.config" "$TOP/config/kunit.config" >/dev/null)
fi

# dump COMMIT OUT: the code and data of each file's object at COMMIT.
dump() {
	local c=$1 out=$2 f o targets=()
	git -C "$wt" checkout -q --detach "$c"
	# Options a patch adds (the KUnit suite) must be set at every prefix.
	(cd "$obj" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$TOP/config/base.config" "$TOP/config/kunit.config" >/dev/null)
	make -s -C "$wt" O="$obj" olddefconfig >/dev/null
	for f in $files; do
		[ -f "$wt/$f" ] || continue
		rm -f "$obj/${f%.c}.o"
		targets+=("${f%.c}.o")
	done
	if ! make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$(nproc)" "${targets[@]}" \
		>"$tmp/build.log" 2>&1; then
		cat "$tmp/build.log"
		return 1
	fi
	for f in $files; do
		o=$obj/${f%.c}.o
		# Not built in this config (or not at this prefix): nothing to compare.
		if [ ! -f "$wt/$f" ] || [ ! -f "$o" ]; then
			echo "== $f: none"
			continue
		fi
		echo "== $f"
		objdump -d -r --no-show-raw-insn "$o" | sed 1,2d
		objdump -s -j .data -j .rodata -j .rodata.str1.1 -j .rodata.str1.8 \
			-j .init.data -j .data..read_mostly "$o" 2>/dev/null | sed 1,2d
	done >"$out"
}

fail=0
j=-1
prev=$BASE_TAG
for i in "${!news[@]}"; do
	n=${news[$i]}
	subj=$(tree_git log -1 --format=%s "$n")
	# The old patch with this subject, else the old prefix before it.
	for k in "${!olds[@]}"; do
		if [ "$(git -C "$wt" log -1 --format=%s "${olds[$k]}")" = "$subj" ]; then
			j=$k
			prev=${olds[$k]}
			break
		fi
	done
	if ! dump "$prev" "$tmp/old.dump"; then
		die "old prefix $((j + 1)) does not build"
	fi
	if ! dump "$n" "$tmp/new.dump"; then
		echo "prefix $((i + 1)) ($subj) does not build"
		fail=1
		continue
	fi
	if cmp -s "$tmp/old.dump" "$tmp/new.dump"; then
		echo "same $((i + 1)) $subj (as old prefix $((j + 1)))"
	else
		echo "DIFFERS $((i + 1)) $subj (from old prefix $((j + 1))):"
		diff "$tmp/old.dump" "$tmp/new.dump" | head -n 20
		fail=1
	fi
done
git -C "$wt" checkout -q --detach "$BASE_TAG"
[ "$fail" = 0 ] || die "some prefixes compile to other code than OLD=$old_rev's" "see above"
info "every prefix compiles to the same code and data as OLD=$old_rev's"
