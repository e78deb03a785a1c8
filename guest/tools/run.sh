#!/bin/sh
# run.sh TEST...: stage 2 of guest/tools-run.sh, in the tools image's root
# (read-only): fresh /proc, /sys (cgroup v2 under it), /dev, tmpfs where
# the tools write (/tmp, /run, /home, /var/tmp), the ext4 disk at
# /mnt/ext4, every mount shared (as systemd leaves them; podman expects
# it); then each test between the markers check.sh counts.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
# m WHAT ARGS...: one step of the set-up; a failure says which, and how to fix it.
m() {
	what=$1
	shift
	"$@" && return 0
	echo "# run.sh: could not $what ($*)"
	echo "# the test kernels need config/containers.config (cgroup2, mqueue, devpts);"
	echo "# the ext4 disk must be /dev/vda: see scripts/check.sh's tools_boot"
	exit 1
}
m "mount /proc" mount -t proc proc /proc
m "mount /sys" mount -t sysfs sysfs /sys
m "mount cgroup v2" mount -t cgroup2 cgroup2 /sys/fs/cgroup
m "mount /dev" mount -t devtmpfs devtmpfs /dev
m "make /dev's directories" mkdir -p /dev/pts /dev/shm /dev/mqueue
m "mount /dev/pts" mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
m "mount /dev/shm" mount -t tmpfs -o mode=1777 tmpfs /dev/shm
m "mount /dev/mqueue" mount -t mqueue mqueue /dev/mqueue
for t in /tmp:1777 /run:755 /home:755 /var/tmp:1777; do
	m "mount a tmpfs on ${t%:*}" mount -t tmpfs -o "mode=${t#*:}" tmpfs "${t%:*}"
done
m "mount the ext4 disk" mount -t ext4 /dev/vda /mnt/ext4
m "make every mount shared" mount --make-rshared /
for u in alice dave erin carol; do
	uid=$(id -u "$u") || exit 1
	mkdir -p "/home/$u" "/run/user/$uid"
	chown "$u:$u" "/home/$u" "/run/user/$uid"
	chmod 700 "/run/user/$uid"
done
cd /guest/tools || exit 1
for t in "$@"; do
	echo "@@BEGIN tools/$t@@"
	timeout "${USERNS_IDMAP_TOOL_TIMEOUT:-600}" sh "./$t.sh"
	rc=$?
	echo "@@END tools/$t rc=$rc@@"
done
