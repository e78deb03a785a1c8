#!/bin/sh
# make check-debug, after the tests: ask kmemleak for two scans and print
# what it found, then the kernel log, each between markers that the host's
# scripts/check-debug.sh scans for checker reports.
#
# Two scans, because kmemleak reports an unreferenced object only when its
# contents did not change since the scan before: the first scan that sees
# an object records its checksum and never reports it, and the debug
# kernels have no automatic scans (DEBUG_KMEMLEAK_AUTO_SCAN=n), so one
# scan reports nothing.  An object younger than 5 seconds is not reported
# either, so a leak made only in the last seconds of the last test may
# still escape.  "kmemleak: scanned twice" tells the host both scans ran.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "@@BEGIN kmemleak@@"
if [ ! -w /sys/kernel/debug/kmemleak ]; then
	echo "kmemleak: not available"
elif echo scan >/sys/kernel/debug/kmemleak &&
	echo scan >/sys/kernel/debug/kmemleak; then
	cat /sys/kernel/debug/kmemleak
	echo "kmemleak: scanned twice"
else
	echo "kmemleak: a scan failed (disabled at run time? see dmesg)"
fi
echo "@@END kmemleak@@"
echo "@@BEGIN dmesg@@"
dmesg
echo "@@END dmesg@@"
