#!/bin/bash
# make holdtime: how long a map write holds userns_state_mutex, stock vs
# ours.  Builds the benchmark kernels once more from worktrees with
# bench/hold-{stock,patched}.patch (a ktime_get_ns() after mutex_lock()
# and before mutex_unlock() in map_write(), printed as "@@HOLD <extents>
# <ns>"; ours takes the mutex twice and prints the longer hold first), boots each under -icount shift=0 (1 ns = 1 instruction), runs
# bench/holdtime (uid_maps of 6, 340 and 4096 extents, narrow and wide
# ids, three times each) and writes results/holdtime.md: the smallest
# hold per size.  The instrumentation is never part of series/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ "$KBASE" = 6.1 ] || die "the instrumentation patches bench/hold-*.patch are made for 6.1" "run it without BASE (6.1)"

out=$RESULTS
mkdir -p "$out" "$BUILD/bench"
[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first"

# worktree DIR COMMIT PATCH: DIR at COMMIT with PATCH applied, nothing else.
worktree() {
	local dir=$1 commit=$2 patch=$3
	if [ ! -e "$dir/.git" ]; then
		tree_git worktree prune
		tree_git worktree add -q --detach "$dir" "$commit"
	fi
	# Already there: leave the files (and the build) alone.
	if [ "$(git -C "$dir" rev-parse HEAD)" = "$(tree_git rev-parse "$commit")" ] &&
		git -C "$dir" apply --reverse --check "$patch" 2>/dev/null &&
		[ "$(git -C "$dir" diff --stat | wc -l)" -gt 0 ]; then
		return
	fi
	git -C "$dir" checkout -q -f --detach "$commit"
	git -C "$dir" apply "$patch" ||
		die "$patch does not apply to $commit" "update it to the series (see its hunks)"
}
worktree "$BUILD/linux-hold-stock" "$BASE_TAG" "$TOP/bench/hold-stock.patch"
worktree "$BUILD/linux-hold-patched" "$(tree_git rev-parse HEAD)" "$TOP/bench/hold-patched.patch"

for v in stock-hold patched-hold; do
	"$TOP/scripts/build-kernel.sh" "$v"
done
gcc -static -O2 -Wall -Wextra -o "$BUILD/bench/holdtime" "$TOP/bench/holdtime.c" ||
	die "bench/holdtime.c did not build"
"$TOP/scripts/mkinitramfs.sh" "$BUILD/initramfs-bench.cpio"

md=$out/holdtime.md
{
	echo "# userns_state_mutex held by one map write (instructions, QEMU -icount shift=0)"
	echo
	echo "Smallest of three writes of a uid_map; \"-\": the write is refused."
	echo
	echo "| ids | N | stock | ours |"
	echo "|---|---|---|---|"
} >"$md"
declare -A hold
for v in stock patched; do
	log=$out/holdtime-$v.log
	info "running bench/holdtime on $v-hold, icount mode"
	"$TOP/scripts/vm.sh" --variant "$v-hold" --icount --timeout 900 \
		--initramfs "$BUILD/initramfs-bench.cpio" --log "$log" \
		-- 'echo 7 >/proc/sys/kernel/printk; /bench/holdtime' >/dev/null ||
		die "bench/holdtime failed on $v" "console: $log"
	# Each @@WRITE line follows the @@HOLD line of that write, if it got there.
	while read -r width n ns; do
		hold[$v,$width,$n]=$ns
	done < <(awk '/@@HOLD/ { for (i = 1; i < NF; i++) if ($i == "@@HOLD") { hn = $(i + 1); h = $(i + 2) } }
		/^@@WRITE/ { if ($4 == "ok" && hn == $3) print $2, $3, h; h = ""; hn = "" }' "$log" |
		sort -k1,1 -k2,2n -k3,3n | awk '!seen[$1 " " $2]++')
done
for width in narrow wide; do
	for n in 6 340 4096; do
		echo "| $width | $n | ${hold[stock,$width,$n]:--} | ${hold[patched,$width,$n]:--} |"
	done
done >>"$md"
cat "$md"
