#!/bin/sh
# run.sh: the Debian guest's tests (make deb-guest), run by
# userns-idmap-tests.service as root once systemd has the system up.  The
# same programs as make check (/guest/tests.list: the conformance suite and
# the tree's selftests), each between the markers the host counts, on the
# test disk /dev/vdb (fresh ext4, made by the host), then podman and
# buildah from a user session (session.sh), an out-of-tree module
# (module.sh) and, on ours, the KUnit suite as a module (kunit.sh); then
# the guest is powered off.  Which limits the tests hold the kernel to
# follows from its name: ours ends in -userns-idmap, the others (stock
# built here, Debian's own) are stock.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
rel=$(uname -r)
case "$rel" in
*-userns-idmap) engine=patched ;;
*) engine=stock ;;
esac
echo "@@KERNEL $rel engine=$engine cpus=$(nproc)@@"
# The kernel as systemd left it: which LSMs are active, whether AppArmor
# confines anything, and the 32-bit ABI (so the log says what was tested).
echo "# lsm: $(cat /sys/kernel/security/lsm 2>/dev/null)"
echo "# init: $(cat /proc/1/comm), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
# shellcheck disable=SC2046  # one program a word
USERNS_IDMAP_EXT4_DEV=/dev/vdb USERNS_IDMAP_ENGINE=$engine \
	/guest/run-tests.sh $(cat /guest/tests.list)
# Rootless podman and buildah from a real systemd user session.
echo "@@BEGIN debian/session@@"
USERNS_IDMAP_ENGINE=$engine timeout 900 sh /guest/debian/session.sh
echo "@@END debian/session rc=$?@@"
# An out-of-tree module, built against this kernel's headers package.
echo "@@BEGIN debian/module@@"
USERNS_IDMAP_ENGINE=$engine timeout 300 sh /guest/debian/module.sh
echo "@@END debian/module rc=$?@@"
# The engine's KUnit suite, a module on this kernel (ours only).
echo "@@BEGIN debian/kunit@@"
USERNS_IDMAP_ENGINE=$engine timeout 600 sh /guest/debian/kunit.sh
echo "@@END debian/kunit rc=$?@@"
echo "@@DONE@@"
systemctl poweroff --no-block
