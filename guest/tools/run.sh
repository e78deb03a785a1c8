#!/bin/sh
# run.sh TEST...: stage 2 of guest/tools-run.sh, in the tools image's root
# (read-only): fresh /proc, /sys (cgroup v2 under it), /dev, tmpfs where
# the tools write (/tmp, /run, /home, /var/tmp), the ext4 disk at
# /mnt/ext4, every mount shared (as systemd leaves them; podman expects
# it); then each test between the markers check.sh counts.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
if ! { mount -t proc proc /proc &&
	mount -t sysfs sysfs /sys &&
	mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
	mount -t devtmpfs devtmpfs /dev &&
	mkdir -p /dev/pts /dev/shm /dev/mqueue &&
	mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts &&
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
	mount -t mqueue mqueue /dev/mqueue &&
	mount -t tmpfs -o mode=1777 tmpfs /tmp &&
	mount -t tmpfs -o mode=755 tmpfs /run &&
	mount -t tmpfs -o mode=755 tmpfs /home &&
	mount -t tmpfs -o mode=1777 tmpfs /var/tmp &&
	mount -t ext4 /dev/vda /mnt/ext4 &&
	mount --make-rshared /; }; then
	echo "# run.sh: could not set up the tools root"
	exit 1
fi
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
