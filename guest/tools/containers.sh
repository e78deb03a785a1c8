# shellcheck shell=sh disable=SC2154  # engine, ktap_n: lib.sh
# containers.sh: sourced by podman_unshare.sh, buildah_unshare.sh and
# podman_run.sh.  dave's 1001 subordinate ranges (500 ids each, 1000
# apart: /etc/tools-subid/dave) and his own id make maps of 1002 extents;
# stock refuses maps of more than 340 extents (EINVAL).

# containers_home TOOL: a fresh HOME and XDG_RUNTIME_DIR for one test, so
# that no test joins the user namespace another one left behind (rootless
# podman keeps a pause process holding it, found through the runtime
# dir), with vfs storage (no overlayfs in the guest kernel) and no systemd.
# Prints the shell words that select them, for as_user's command.
containers_home() {
	h=/home/dave/$1 r=/run/user/1003/$1
	mkdir -p "$h/.config/containers" "$r" || exit 1
	printf '[storage]\ndriver = "vfs"\n' >"$h/.config/containers/storage.conf"
	printf '[containers]\ndefault_sysctls = []\n[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
		>"$h/.config/containers/containers.conf"
	chown -R dave:dave "$h" "$r" && chmod 700 "$r" || exit 1
	echo "export HOME=$h XDG_RUNTIME_DIR=$r; cd;"
}

# stock_failure TOOL RC OUT: on stock, what TOOL does when newuidmap fails
# (podman: exit 125 and the message; buildah: falls back to dave alone);
# then skips up to TOTAL results.
stock_failure() {
	case $1 in
	podman)
		check "podman_fails_on_stock" 125 "$2"
		case "$3" in
		*'Error: cannot set up namespace using "/usr/bin/newuidmap": exit status 1'*)
			pass "podman_says_newuidmap_failed" ;;
		*) fail "podman_says_newuidmap_failed" \
			'no: Error: cannot set up namespace using "/usr/bin/newuidmap": exit status 1' ;;
		esac
		;;
	buildah)
		check "buildah_exits_0_on_stock" 0 "$2"
		check "buildah_falls_back_to_one_extent" "1 1" \
			"$(field "$3" uid_map.lines) $(field "$3" gid_map.lines)"
		;;
	esac
}

# unshare_test TOOL: 'TOOL unshare' for dave.  Ours: all 1002 extents,
# root inside, a file chowned to id 500500 (the last range's last id)
# belongs to 1200499 outside, and chown to 500501 (past it) fails.
unshare_test() {
	tool=$1
	plan 8
	d=/mnt/ext4/$tool
	mkdir -p "$d" && chmod 1777 "$d" || exit 1
	env=$(containers_home "$tool")
	out=$(as_user dave "$env $tool unshare /guest/tools/inside.sh touch:$d/root \
		touch:$d/last chown:500500:$d/last stat:$d/last try_chown:500501:$d/root" 2>&1)
	rc=$?
	show "$out"
	limit "$tool" exit "$rc" extents "$(field "$out" uid_map.lines)"
	limit "$tool" says "$(printf '%s\n' "$out" | grep -m 1 '^Error: ' | sed 's/^Error: //')"
	if [ "$engine" = stock ]; then
		stock_failure "$tool" "$rc" "$out"
		while [ "$ktap_n" -lt 8 ]; do
			skip "id_checks_of_1002_extents" "stock refuses maps over 340 extents (EINVAL)"
		done
		return 0
	fi
	check "${tool}_unshare_exit_status" 0 "$rc"
	check ids_inside "0 0" "$(field "$out" uid) $(field "$out" gid)"
	check maps_have_1002_extents "1002 1002" \
		"$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
	check last_extents "500001 1200000 500 / 500001 1200000 500" \
		"$(field "$out" uid_map.last) / $(field "$out" gid_map.last)"
	check root_creates_as_dave "1003 1003" "$(owner "$d/root" 2>&1)"
	check last_range_id_500500_is_1200499 "1200499 1200499 / 500500 500500" \
		"$(owner "$d/last" 2>&1) / $(field "$out" "stat:$d/last")"
	check chown_past_last_range_fails "failed" "$(field "$out" "try_chown:500501:$d/root")"
	ran ran_without_errors "$out"
}
