#!/bin/sh
# tools-run.sh TEST...: the container-tool tests (guest/tools/TEST.sh).
# /dev/vdb is the tools image (scripts/mktoolsimg.sh): bwrap, runc and
# crun pivot_root, which no process can do from the initramfs root, so the
# image becomes the root of a new mount namespace, as switch_root would do
# it (mount --move onto /, chroot), and guest/tools/run.sh runs there.
# /dev/vda, the fresh ext4 disk, is where the tests create files.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
if [ ! -b /dev/vdb ]; then
	echo "# tools-run.sh: no /dev/vdb: boot with the tools image as the second disk"
	echo "# (scripts/vm.sh --disk EXT4.img --disk build/tools.img; 'make toolsimg' builds it)"
	exit 1
fi
mkdir -p /newroot
# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare -m sh -c '
	fail() { echo "# tools-run.sh: $1"; exit 1; }
	mount --make-rprivate / || fail "mount --make-rprivate / failed"
	mount -t ext4 -o ro /dev/vdb /newroot ||
		fail "cannot mount /dev/vdb (ext4, read-only): rebuild it with make toolsimg"
	cd /newroot || fail "cannot enter /newroot"
	mount --move . / || fail "mount --move of the tools image onto / failed"
	exec chroot . /guest/tools/run.sh "$@"' tools-run "$@"
