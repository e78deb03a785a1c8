#!/bin/sh
# podman_run.sh: 'podman import' of a busybox image from a tarball (the
# image's /opt/bundle/rootfs and inside.sh) and 'podman run' of it, for
# dave (1002-extent maps, containers.sh), with an ext4 directory as a
# volume.  Ours: the container runs as root over all 1002 extents, and a
# file it chowns to id 500500 of the last range belongs to 1200499 outside.
# Stock: podman cannot set up its user namespace (newuidmap: EINVAL), so
# already the import fails, with the message podman_unshare checks.
. ./lib.sh
. ./containers.sh
plan 7
d=/mnt/ext4/podman-run
mkdir -p "$d" && chmod 1777 "$d" || exit 1
env=$(containers_home podman-run)
img=/tmp/podman-run-image
rm -rf $img && cp -a /opt/bundle/rootfs $img && cp /guest/tools/inside.sh $img/ &&
	tar -C $img -cf /home/dave/podman-run/busybox.tar . &&
	chown dave:dave /home/dave/podman-run/busybox.tar || exit 1
out=$(as_user dave "$env podman import busybox.tar localhost/busybox" 2>&1)
rc=$?
show "$out" "import: "
if [ "$engine" = stock ]; then
	stock_failure podman "$rc" "$out"
	while [ "$ktap_n" -lt 7 ]; do
		skip "run_of_1002_extents" "stock refuses maps over 340 extents (EINVAL)"
	done
	exit 0
fi
check podman_import_exit_status 0 "$rc"
out=$(as_user dave "$env podman run --rm --network=none -v $d:/mnt/data localhost/busybox \
	/inside.sh touch:/mnt/data/last chown:500500:/mnt/data/last stat:/mnt/data/last" 2>&1)
rc=$?
show "$out" "run: "
check podman_run_exit_status 0 "$rc"
check ids_in_container "0 0" "$(field "$out" uid) $(field "$out" gid)"
check maps_have_1002_extents "1002 1002" "$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
check last_extents "500001 1200000 500 / 500001 1200000 500" \
	"$(field "$out" uid_map.last) / $(field "$out" gid_map.last)"
check last_range_id_500500_is_1200499 "1200499 1200499 / 500500 500500" \
	"$(owner "$d/last" 2>&1) / $(field "$out" "stat:/mnt/data/last")"
ran ran_without_errors "$out"
