#!/bin/sh
# make check-debug, after the tests: ask kmemleak for a scan and print what
# it found, then the kernel log, each between markers that the host's
# scripts/check-debug.sh scans for checker reports.  kmemleak reports an
# object only once it has been unreferenced for 5 seconds, so an object the
# last test leaked may escape this scan; the tests before it are minutes old.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "@@BEGIN kmemleak@@"
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
else
	echo "kmemleak: not available"
fi
echo "@@END kmemleak@@"
echo "@@BEGIN dmesg@@"
dmesg
echo "@@END dmesg@@"
