#!/bin/sh
# Runs test programs under /tests in the guest, each between markers that
# the host's check.sh counts.  A program's KTAP goes to the console as it
# is.  The ext4 disk (if attached) is /dev/vda, formatted by the host.
# Arguments name the programs to run; without, every program except the
# ones for a kernel without user namespaces (*nouserns*).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
if [ -b /dev/vda ]; then
	export USERNS_IDMAP_EXT4_DEV=/dev/vda
fi
cd /tests || exit 1
if [ $# -eq 0 ]; then
	for t in *; do
		case "$t" in *nouserns*) ;; *) set -- "$@" "$t" ;; esac
	done
fi
for t in "$@"; do
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then
		continue
	fi
	echo "@@BEGIN $t@@"
	timeout "${USERNS_IDMAP_TEST_TIMEOUT:-300}" "./$t"
	rc=$?
	echo "@@END $t rc=$rc@@"
done
exit 0
