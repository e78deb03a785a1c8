#!/bin/bash
# make bisect: build the patched kernel at every prefix of the series (in a
# separate worktree and object directory), boot it with a fresh ext4 disk and
# run the conformance suite (the final tree's, build/tests) and, from the
# patch that adds it, the KUnit suite: every prefix must build, boot and pass.
# Prefixes that still have stock's 340-extent limit are held to stock's side
# of the limit tests (USERNS_IDMAP_ENGINE=stock), those without the sysctl
# skip its test (patched-nosysctl), those without range splitting assert
# stock's EPERM (patched-nosplit; the features come in that order: big
# maps, sysctl, splitting).  Prefixes whose maps are not yet shared by
# their copies get USERNS_IDMAP_NOSHARE=1: where idmapped mounts copy the
# maps (6.3 on), the test that they share them is skipped.  FROM=N starts
# at the Nth prefix.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wt=$BUILD/linux-bisect
obj=$BUILD/obj-bisect
[ -e "$wt/.git" ] || tree_git worktree add -q --detach "$wt" "$BASE_TAG"
mkdir -p "$obj"
commits=$(tree_git rev-list --reverse "$BASE_TAG"..HEAD)
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs with the tests" "run 'make initramfs' first"
progs=$(suite_programs | tr '\n' ' ')
n=0
for c in $commits; do
	n=$((n + 1))
	# FROM=N: start at the Nth prefix (the earlier ones passed already).
	[ "$n" -ge "${FROM:-1}" ] || continue
	git -C "$wt" checkout -q --detach "$c"
	subj=$(git -C "$wt" log -1 --format=%s)
	[ -f "$obj/.config" ] || make -s -C "$wt" O="$obj" tinyconfig >/dev/null
	# Every prefix: options its patches add (the KUnit suite) must be set too.
	(cd "$obj" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$TOP/config/base.config" "$TOP/config/kunit.config" "$TOP/config/compat.config" >/dev/null)
	make -s -C "$wt" O="$obj" olddefconfig >/dev/null
	if ! make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$(nproc)" bzImage >"$obj/build.log" 2>&1; then
		grep -E 'error' "$obj/build.log" | head -n 10
		die "prefix $n ($subj) does not build" "log: $obj/build.log"
	fi
	engine=patched
	if grep -q 'UID_GID_MAP_MAX_EXTENTS 340$' "$wt/include/linux/user_namespace.h"; then
		engine=stock
	elif ! grep -qs max_unprivileged_idmap_extents "$wt/kernel/user_idmap.c"; then
		engine=patched-nosysctl
	elif ! grep -qs '^static int split_line(' "$wt/kernel/user_idmap.c"; then
		engine=patched-nosplit
	fi
	noshare=
	grep -qs '^static refcount_t \*idmap_users(' "$wt/kernel/user_idmap.c" ||
		noshare="USERNS_IDMAP_NOSHARE=1 "
	mkdisk "$BUILD/disk-bisect.img"
	log=$obj/boot.log
	if ! "$TOP/scripts/vm.sh" --kernel "$obj/arch/x86/boot/bzImage" --timeout 900 \
		--disk "$BUILD/disk-bisect.img" --log "$log" \
		-- "${noshare}USERNS_IDMAP_ENGINE=$engine /guest/run-tests.sh" >/dev/null 2>&1; then
		tail -n 20 "$log"
		die "prefix $n ($subj) does not boot or its guest did not finish" "console: $log"
	fi
	read -r p f s <<<"$(awk -f "$TOP/scripts/count-ktap.awk" "$log" | tail -n 1)"
	if grep -qs '^config USER_IDMAP_KUNIT_TEST$' "$wt/lib/Kconfig.debug" &&
		! grep -q '^    # Subtest: user_idmap$' "$log"; then
		echo "the user_idmap KUnit suite did not run"
		f=$((f + 1))
	fi
	for t in $progs; do
		grep -q "^@@END $t rc=" "$log" || { echo "$t did not run to its end"; f=$((f + 1)); }
	done
	if [ "$f" != 0 ]; then
		grep -E '^ *not ok' "$log" | head -n 20
		die "prefix $n ($subj): $f tests failed ($engine expectations)" "console: $log"
	fi
	echo "ok $n $subj (builds, boots; $p passed, $s skipped, $engine limits${noshare:+, maps not shared})"
done
info "all $n prefixes of the series build, boot and pass"
