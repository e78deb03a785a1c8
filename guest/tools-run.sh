#!/bin/sh
# tools-run.sh TEST...: the container-tool tests (guest/tools/TEST.sh).
# /dev/vdb is the tools image (scripts/mktoolsimg.sh): bwrap, runc and
# crun pivot_root, which no process can do from the initramfs root, so the
# image becomes the root of a new mount namespace, as switch_root would do
# it (mount --move onto /, chroot), and guest/tools/run.sh runs there.
# /dev/vda, the fresh ext4 disk, is where the tests create files.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
if [ ! -b /dev/vdb ]; then
	echo "# tools-run.sh: no /dev/vdb (the tools image)"
	exit 1
fi
mkdir -p /newroot
exec unshare -m sh -c '
	mount --make-rprivate / &&
	mount -t ext4 -o ro /dev/vdb /newroot &&
	cd /newroot &&
	mount --move . / &&
	exec chroot . /guest/tools/run.sh "$@"' tools-run "$@"
