#!/bin/sh
# session.sh: rootless podman and buildah as users run them on Debian:
# from dave's systemd user session (lingering, so systemd starts his user
# manager; each command a transient unit of it, through systemd-run
# --machine=dave@.host --user), with the systemd cgroup manager on the
# cgroup v2 tree his manager is delegated, and podman's default storage.
# dave has 1001 subordinate ranges (make deb-guest's /etc/subuid): with his
# own id, maps of 1002 extents.  Ours: the container runs as root over all
# of them.  Stock and Debian's kernel: newuidmap's write is refused
# (EINVAL, over 340 extents), podman exits 125 and buildah falls back to
# dave's own id.  KTAP, as the tool tests (guest/tools/lib.sh) print it.
cd /guest/tools || exit 1
# shellcheck source=../tools/lib.sh
. ./lib.sh
# shellcheck source=../tools/containers.sh
. ./containers.sh
plan 9
uid=$(id -u dave) || exit 1

# in_session CMD: CMD (a shell command) in dave's session; its output and
# exit status.
in_session() {
	systemd-run --quiet --machine=dave@.host --user --wait --pipe --collect \
		/bin/sh -c "$1" </dev/null
}

loginctl enable-linger dave
# Started by enable-linger; this waits for it.
systemctl start "user@$uid.service"
# shellcheck disable=SC2016  # expanded in the session
out=$(in_session 'echo "runtime=$XDG_RUNTIME_DIR"; echo "cgroup=$(cat /proc/self/cgroup)"' 2>&1)
show "$out" "session: "
check session_runtime_dir "/run/user/$uid" "$(field "$out" runtime)"
case "$(field "$out" cgroup)" in
"0::/user.slice/user-$uid.slice/user@$uid.service/"*) pass session_cgroup_is_dave_s_manager ;;
*) fail session_cgroup_is_dave_s_manager "wanted: 0::/user.slice/user-$uid.slice/user@$uid.service/..." \
	"got:    $(field "$out" cgroup)" ;;
esac

# The image: busybox and inside.sh, from a tarball (no network).
img=/home/dave/image
rm -rf "$img" && mkdir -p "$img/bin" "$img/data" && cp /bin/busybox "$img/bin/" &&
	for a in sh id cat stat touch chown ls awk wc sed; do ln -s busybox "$img/bin/$a"; done &&
	cp /guest/tools/inside.sh "$img/" && tar -C "$img" -cf /home/dave/busybox.tar . &&
	chown -R dave:dave "$img" /home/dave/busybox.tar || exit 1

out=$(in_session 'podman import ~/busybox.tar localhost/busybox' 2>&1)
rc=$?
show "$out" "import: "
if [ "$engine" = stock ]; then
	stock_failure podman "$rc" "$out"
	while [ "$ktap_n" -lt 7 ]; do
		skip podman_in_session "stock refuses maps over 340 extents (EINVAL)"
	done
else
	check podman_import_exit_status 0 "$rc"
	out=$(in_session 'podman info --format "manager={{.Host.CgroupManager}}
cgroups={{.Host.CgroupsVersion}}
driver={{.Store.GraphDriverName}}"' 2>&1)
	show "$out" "info: "
	check podman_uses_systemd_and_cgroup_v2 "systemd v2" "$(field "$out" manager) $(field "$out" cgroups)"
	out=$(in_session 'podman run --rm --network=none localhost/busybox \
		/inside.sh touch:/data/last chown:500500:/data/last stat:/data/last' 2>&1)
	rc=$?
	show "$out" "run: "
	check podman_run_exit_status 0 "$rc"
	check podman_maps_have_1002_extents "1002 1002" \
		"$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
	check podman_root_and_last_range "0 0 / 500500 500500" \
		"$(field "$out" uid) $(field "$out" gid) / $(field "$out" stat:/data/last)"
fi

out=$(in_session 'buildah unshare /guest/tools/inside.sh' 2>&1)
rc=$?
show "$out" "buildah: "
if [ "$engine" = stock ]; then
	stock_failure buildah "$rc" "$out"
else
	check buildah_unshare_exit_status 0 "$rc"
	check buildah_maps_have_1002_extents "1002 1002" \
		"$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
fi
