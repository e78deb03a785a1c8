# shellcheck shell=sh disable=SC2154  # engine, ktap_n: lib.sh
# containers.sh: sourced by podman_unshare.sh and buildah_unshare.sh.
# unshare_test TOOL: 'TOOL unshare' for dave, whose 1001 subordinate ranges
# (500 ids each, 1000 apart: /etc/tools-subid/dave) and own id make maps of
# 1002 extents.  Patched: all 1002 extents, root inside, and a file chowned
# to an id of the last range belongs, seen from the initial namespace, to
# the host id that range maps.  Stock refuses maps of more than 340
# extents (EINVAL): podman fails, buildah falls back to mapping dave alone;
# that is what the stock kernel checks.
unshare_test() {
	tool=$1
	plan 7
	d=/mnt/ext4/$tool
	mkdir -p "$d" /home/dave/.config/containers && chmod 1777 "$d" || exit 1
	# vfs storage (no overlay in the guest kernel), no systemd
	printf '[storage]\ndriver = "vfs"\n' >/home/dave/.config/containers/storage.conf
	printf '[containers]\ndefault_sysctls = []\n[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
		>/home/dave/.config/containers/containers.conf
	chown -R dave:dave /home/dave/.config || exit 1
	out=$(as_user dave "$tool unshare /guest/tools/inside.sh touch:$d/root \
		touch:$d/last chown:500500:$d/last stat:$d/last" 2>&1)
	rc=$?
	show "$out"
	lines="$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
	if [ "$engine" = stock ]; then
		case $tool in
		podman)
			check "podman_fails_on_stock" 125 "$rc"
			case "$out" in
			*"cannot set up namespace using \"/usr/bin/newuidmap\""* | \
			*"cannot set up namespace using /usr/bin/newuidmap"*)
				pass "podman_says_newuidmap_failed" ;;
			*) fail "podman_says_newuidmap_failed" "no 'cannot set up namespace using /usr/bin/newuidmap'" ;;
			esac
			;;
		buildah)
			check "buildah_exits_0_on_stock" 0 "$rc"
			check "buildah_falls_back_to_one_extent" "1 1" "$lines"
			;;
		esac
		while [ "$ktap_n" -lt 7 ]; do
			skip "id_checks_of_1002_extents" "stock refuses maps over 340 extents (EINVAL)"
		done
		return 0
	fi
	check "${tool}_unshare_exit_status" 0 "$rc"
	check ids_inside "0 0" "$(field "$out" uid) $(field "$out" gid)"
	check maps_have_1002_extents "1002 1002" "$lines"
	check last_extents "500001 1200000 500 / 500001 1200000 500" \
		"$(field "$out" uid_map.last) / $(field "$out" gid_map.last)"
	check root_creates_as_dave "1003 1003" "$(owner "$d/root" 2>&1)"
	check last_range_id_500500_is_1200499 "1200499 1200499 / 500500 500500" \
		"$(owner "$d/last" 2>&1) / $(field "$out" "stat:$d/last")"
	check no_errors "" "$(field "$out" error)"
}
