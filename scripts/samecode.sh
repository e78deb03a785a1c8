#!/bin/bash
# make samecode OLD=REV: show that a rework of the series changed no code.
# Applies series/BASE/ as it was at commit REV of this repository to the
# base in a worktree of its own, then compares, prefix by prefix, the
# objects of every kernel C file either series touches: each patch of the
# tree's series against the old patch with the same subject, a patch the
# old series lacks against the old prefix before it (stock, for a new
# first patch).  Compared: the disassembly with its relocations, every
# relocation section, and the contents of every section but the debug
# info and WARN_ON()'s __bug_table, which hold line numbers.
# What it cannot see: files the series does not touch (a prefix whose
# change reaches another file, a header say, fails here rather than pass
# unchecked), and barriers, which compile to nothing on a uniprocessor
# x86 kernel.  Exit status 1 if any prefix differs or does not build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

old_rev=${OLD:-}
[ -n "$old_rev" ] || die "no OLD revision" "name the repository commit whose series/$KBASE/ to compare against: make samecode OLD=HEAD~1"
git -C "$TOP" rev-parse -q --verify "$old_rev^{commit}" >/dev/null ||
	die "OLD=$old_rev is not a commit of this repository" "git log --oneline -- series/$KBASE"
[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first (make samecode does)"

wt=$BUILD/linux-samecode
obj=$BUILD/obj-samecode
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The old series, applied on the base.
git -C "$TOP" archive "$old_rev" "series/$KBASE" | tar -x -C "$tmp"
old_series=$tmp/series/$KBASE
[ -f "$old_series/series" ] || die "OLD=$old_rev has no series/$KBASE/series"
[ -e "$wt/.git" ] || tree_git worktree add -q --detach "$wt" "$BASE_TAG"
# An earlier run stopped in the middle of git am: start afresh.
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q -f --detach "$BASE_TAG"
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
[ -n "$files" ] || die "neither series touches a kernel C file: nothing to compare"
info "comparing $(echo "$files" | wc -w) files: $(echo "$files" | tr '\n' ' ')"

mkdir -p "$obj"
if [ ! -f "$obj/.config" ]; then
	make -s -C "$wt" O="$obj" tinyconfig >/dev/null
	(cd "$obj" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$TOP/config/base.config" "$TOP/config/kunit.config" >/dev/null)
fi

# dump COMMIT OUT: the code and data of each file's object at COMMIT.
# Fails if the checkout, the config or the build fails, or if a file the
# commit has builds no object (a config that lost it compares nothing).
dump() {
	local c=$1 out=$2 f o s targets=()
	git -C "$wt" checkout -q -f --detach "$c" || return 1
	[ "$(git -C "$wt" rev-parse HEAD)" = "$(git -C "$wt" rev-parse "$c^{commit}")" ] ||
		return 1
	# Options a patch adds (the KUnit suite) must be set at every prefix.
	(cd "$obj" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$TOP/config/base.config" "$TOP/config/kunit.config" >/dev/null) || return 1
	make -s -C "$wt" O="$obj" olddefconfig >/dev/null || return 1
	for f in $files; do
		[ -f "$wt/$f" ] || continue
		rm -f "$obj/${f%.c}.o"
		targets+=("${f%.c}.o")
	done
	[ "${#targets[@]}" -gt 0 ] || { echo "no file to build at $c" >&2; return 1; }
	if ! make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$(nproc)" "${targets[@]}" \
		>"$tmp/build.log" 2>&1; then
		cat "$tmp/build.log" >&2
		return 1
	fi
	for f in $files; do
		o=$obj/${f%.c}.o
		if [ ! -f "$wt/$f" ]; then
			echo "== $f: not at this prefix"
			continue
		fi
		[ -f "$o" ] || { echo "$f: no object built at $c" >&2; return 1; }
		echo "== $f"
		objdump -d -r --no-show-raw-insn "$o" | sed 1,2d
		# Relocations of every section but the line-number ones.
		readelf -rW "$o" | awk '/^Relocation section/ {
			skip = ($3 ~ /__bug_table|\.debug/) } !skip'
		for s in $(objdump -h "$o" | awk '$1 ~ /^[0-9]+$/ { print $2 }'); do
			case "$s" in
			.debug* | __bug_table | .comment | .note*) ;;
			*) objdump -s -j "$s" "$o" | sed 1,2d ;;
			esac
		done
	done >"$out"
	echo "${#targets[@]}" >"$out.count"
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
	what="old prefix $((j + 1))"
	[ "$j" -ge 0 ] || what=stock
	# The files that change between the two must all be compared ones.
	others=$(tree_git diff --name-only "$prev" "$n" |
		grep -v -x -F -e "$files" | grep -v -E '^(tools|Documentation)/' || true)
	if [ -n "$others" ]; then
		echo "UNCHECKED $((i + 1)) $subj: also changes $(echo "$others" | tr '\n' ' ')against $what"
		fail=1
		continue
	fi
	if ! dump "$prev" "$tmp/old.dump"; then
		die "$what does not build (or its checkout failed)"
	fi
	if ! dump "$n" "$tmp/new.dump"; then
		echo "prefix $((i + 1)) ($subj) does not build (or its checkout failed)"
		fail=1
		continue
	fi
	if cmp -s "$tmp/old.dump" "$tmp/new.dump"; then
		echo "same $((i + 1)) $subj (as $what; $(cat "$tmp/new.dump.count") objects)"
	else
		echo "DIFFERS $((i + 1)) $subj (from $what):"
		diff "$tmp/old.dump" "$tmp/new.dump" | head -n 20
		fail=1
	fi
done
git -C "$wt" checkout -q -f --detach "$BASE_TAG"
[ "$fail" = 0 ] || die "some prefixes compile to other code than OLD=$old_rev's, or could not be compared" "see above"
info "every prefix compiles to the same code and data as OLD=$old_rev's"
