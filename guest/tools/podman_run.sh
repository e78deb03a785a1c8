#!/bin/sh
# podman_run.sh: 'podman run' for dave (1002-extent maps,
# containers.sh) of a busybox image imported from a tarball (the image's
# /opt/bundle/rootfs and inside.sh), with an ext4 directory as a volume.
# Patched: the container runs as root over all 1002 extents, and a file
# it chowns to an id of the last range belongs, seen from the initial
# namespace, to the host id that range maps.  Stock: podman fails to set
# up its user namespace (newuidmap: EINVAL), nothing runs.
. ./lib.sh
plan 6
d=/mnt/ext4/podman-run
mkdir -p "$d" /home/dave/.config/containers && chmod 1777 "$d" || exit 1
printf '[storage]\ndriver = "vfs"\n' >/home/dave/.config/containers/storage.conf
printf '[containers]\ndefault_sysctls = []\n[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
	>/home/dave/.config/containers/containers.conf
img=/tmp/podman-run-image
rm -rf $img && cp -a /opt/bundle/rootfs $img && cp /guest/tools/inside.sh $img/ &&
	tar -C $img -cf /home/dave/busybox.tar . &&
	chown -R dave:dave /home/dave || exit 1
out=$(as_user dave "podman import busybox.tar localhost/busybox >/dev/null &&
	podman run --rm --network=none -v $d:/mnt/data localhost/busybox /inside.sh \
		touch:/mnt/data/last chown:500500:/mnt/data/last stat:/mnt/data/last" 2>&1)
rc=$?
show "$out"
if [ "$engine" = stock ]; then
	check podman_run_fails_on_stock 125 "$rc"
	case "$out" in
	*"newuidmap"*) pass podman_says_newuidmap_failed ;;
	*) fail podman_says_newuidmap_failed "no mention of newuidmap" ;;
	esac
	while [ "$ktap_n" -lt 6 ]; do
		skip "id_checks_of_1002_extents" "stock refuses maps over 340 extents (EINVAL)"
	done
	exit 0
fi
check podman_run_exit_status 0 "$rc"
check ids_in_container "0 0" "$(field "$out" uid) $(field "$out" gid)"
check maps_have_1002_extents "1002 1002" "$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
check last_extents "500001 1200000 500 / 500001 1200000 500" \
	"$(field "$out" uid_map.last) / $(field "$out" gid_map.last)"
check last_range_id_500500_is_1200499 "1200499 1200499 / 500500 500500" \
	"$(owner "$d/last" 2>&1) / $(field "$out" "stat:/mnt/data/last")"
check no_errors "" "$(field "$out" error)"
