#!/bin/bash
# make bisect: build the patched kernel at every prefix of the series (in a
# separate worktree and object directory) and boot it, to show the series
# is bisectable.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wt=$BUILD/linux-bisect
obj=$BUILD/obj-bisect
[ -e "$wt/.git" ] || tree_git worktree add -q --detach "$wt" "$BASE_TAG"
mkdir -p "$obj"
commits=$(tree_git rev-list --reverse "$BASE_TAG"..HEAD)
n=0
for c in $commits; do
	n=$((n + 1))
	git -C "$wt" checkout -q --detach "$c"
	subj=$(git -C "$wt" log -1 --format=%s)
	if [ ! -f "$obj/.config" ]; then
		make -s -C "$wt" O="$obj" tinyconfig >/dev/null
		(cd "$obj" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"$TOP/config/base.config" "$TOP/config/kunit.config" >/dev/null)
	fi
	make -s -C "$wt" O="$obj" olddefconfig >/dev/null
	if ! make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$(nproc)" bzImage >"$obj/build.log" 2>&1; then
		grep -E 'error' "$obj/build.log" | head -n 10
		die "prefix $n ($subj) does not build" "log: $obj/build.log"
	fi
	if ! "$TOP/scripts/vm.sh" --kernel "$obj/arch/x86/boot/bzImage" --timeout 300 \
		-- 'cat /proc/self/uid_map' >"$obj/boot.log" 2>&1; then
		tail -n 20 "$obj/boot.log"
		die "prefix $n ($subj) does not boot" "console: $obj/boot.log"
	fi
	echo "ok $n $subj (builds, boots)"
done
info "all $n prefixes of the series build and boot"
