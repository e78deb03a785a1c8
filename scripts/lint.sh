#!/bin/bash
# make lint: the generated tables of README.md and docs/ (docs.sh --check,
# first: it needs no kernel tree), shellcheck on the harness,
# checkpatch --strict on series/, and sparse + W=1 on the files the series
# touches (patched kernel).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fail=0
info "docs: the tables and counts of README.md and docs/ against docs/results/"
"$TOP/scripts/docs.sh" --check || fail=1

info "shellcheck"
shellcheck -x -P SCRIPTDIR "$TOP"/scripts/*.sh "$TOP"/guest/*.sh "$TOP"/guest/tools/*.sh "$TOP"/guest/debian/*.sh "$TOP"/guest/init "$TOP"/.ci/run || fail=1

info "checkpatch --strict on series/"
# The series tidies stock's map code before moving it, so every finding
# fails but one kind: simple_strtoul() on a line of stock's
# kernel/user_namespace.c (the parser, moved, then moved into a helper).
# The kstrto*() helpers take a whole string (a number a space follows
# fails) and kstrtou32() refuses what the parser truncates: an ABI
# change, so these are counted.
stock_lines=$(mktemp)
trap 'rm -f "$stock_lines"' EXIT
tree_git show "$BASE_TAG:kernel/user_namespace.c" | sed 's/^[[:space:]]*//' >"$stock_lines"
known=0
while read -r p; do
	# spdxcheck.py needs Debian's python3 (python3-ply), first on PATH.
	# checkpatch exits non-zero on any finding: its output is judged here,
	# and must end in its summary (else it did not run to the end).
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		--ignore FILE_PATH_CHANGES "$SERIES/$p" 2>&1) || true
	if ! grep -q '^total: ' <<<"$out"; then
		echo "$p: checkpatch did not run to its summary:"
		tail -n 5 <<<"$out"
		fail=1
		continue
	fi
	res=$(awk -v stock="$stock_lines" '
		BEGIN { while ((getline l < stock) > 0) have[l] = 1 }
		function flush() {
			if (blk == "") return
			if (!other && plus > 0 && plus == seen) k++
			else { printf "%s\n\n", blk; n++ }
			blk = ""; plus = 0; seen = 0; other = 0
		}
		/^(WARNING|ERROR|CHECK)/ {
			flush(); blk = $0
			# only this kind may come from stock: any other one fails
			other = $0 !~ /simple_strtoul is obsolete/
			next
		}
		blk != "" && /^$/ { flush(); next }
		blk != "" {
			blk = blk "\n" $0
			if (substr($0, 1, 1) == "+") {
				l = substr($0, 2); sub(/^[ \t]+/, "", l)
				plus++; if (l in have) seen++
			}
		}
		END { flush(); printf "@@ %d %d\n", n, k }' <<<"$out")
	new=$(sed -n 's/^@@ \([0-9]*\) [0-9]*$/\1/p' <<<"$res")
	k=$(sed -n 's/^@@ [0-9]* \([0-9]*\)$/\1/p' <<<"$res")
	known=$((known + k))
	if [ "$new" != 0 ]; then
		echo "$p:"
		sed '$d' <<<"$res"
		fail=1
	fi
done < <(grep '\.patch$' "$SERIES/series")
info "checkpatch: $known findings on stock's simple_strtoul() calls (moved, kept)"

# The cover letter is not a patch checkpatch reads: its subject and text
# wrap at 75 columns, as the patches' messages do.
cover=$SERIES/0000-cover-letter.patch
if [ -r "$cover" ]; then
	long=$(awk 'length > 75 { printf "  line %d: %d columns\n", FNR, length }' "$cover")
	if [ -n "$long" ]; then
		echo "$cover: lines over 75 columns (wrap them):"
		echo "$long"
		fail=1
	fi
fi

# checkpatch asks "does MAINTAINERS need updating?" of every patch that adds
# a file without touching MAINTAINERS (ignored above); the answer is no when
# an entry already covers the file: ours, or the subsystem's (a file the
# series adds to fs/ belongs to IDMAPPED MOUNTS).  Check that instead.
info "MAINTAINERS covers every file the series adds"
while read -r f; do
	if ! (cd "$TREE" && ./scripts/get_maintainer.pl --no-git -f "$f") |
		grep -v 'THE REST' | grep -q '(maintainer:'; then
		echo "$f: no MAINTAINERS entry covers it (add an F: line to USER NAMESPACE ID MAPS, or to its subsystem's entry)"
		fail=1
	fi
done < <(tree_git diff --name-only --diff-filter=A "$BASE_TAG"..HEAD)

info "sparse (C=2) and W=1 on the touched C files, against the stock tree's"
files=$(tree_git diff --name-only "$BASE_TAG"..HEAD -- 'kernel/*.c' 'fs/*.c' |
	grep -E '^(kernel|fs)/[^/]*\.c$' || true)
# Messages without files and line numbers, to compare the two trees (the
# series moves stock's code to another file).
sparse_w1() {
	local src=$1 obj=$2 objs=""
	for f in $files; do
		[ -f "$src/$f" ] || continue
		objs="$objs ${f%.c}.o"
		# W=1 speaks only when the file is compiled: compile it.
		rm -f "$obj/${f%.c}.o"
	done
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086
	make -s -C "$src" O="$obj" C=2 W=1 CC="ccache gcc" $objs 2>&1 |
		grep -E 'warning|error' | sed -E 's/^.*(warning|error):/\1:/' | sort -u
}
if [ -n "$files" ]; then
	# Configured object directories are enough: only the touched files
	# are compiled in them (with what Kbuild prepares first).
	for v in stock patched; do
		[ -f "$BUILD/obj-$v/.config" ] || CONFIG_ONLY=1 "$TOP/scripts/build-kernel.sh" "$v" ||
			die "could not configure the $v kernel" "see the messages above"
	done
	new=$(sparse_w1 "$TREE" "$BUILD/obj-patched")
	old=$(sparse_w1 "$STOCK_TREE" "$BUILD/obj-stock")
	added=$(comm -23 <(echo "$new") <(echo "$old") | sed '/^$/d')
	if [ -n "$added" ]; then
		echo "$added"
		fail=1
	fi
	known=$(comm -12 <(echo "$new") <(echo "$old") | sed '/^$/d' | wc -l)
	info "touched files: $(echo "$files" | tr '\n' ' ')($known warnings stock has too)"
fi
if [ "$fail" != 0 ]; then
	die "lint found problems (above)"
fi
info "lint clean"
