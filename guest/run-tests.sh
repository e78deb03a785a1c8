#!/bin/sh
# Runs test programs under /tests in the guest, each between markers that
# the host's check.sh counts.  A program's KTAP goes to the console as it
# is.  The ext4 disk (if attached) is /dev/vda, formatted by the host, or
# the device USERNS_IDMAP_EXT4_DEV names (the Debian guest's second disk).
# Arguments name the programs to run; without, every program except the
# ones for a kernel without user namespaces (*nouserns*).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
if [ -z "${USERNS_IDMAP_EXT4_DEV:-}" ] && [ -b /dev/vda ]; then
	export USERNS_IDMAP_EXT4_DEV=/dev/vda
fi
cd /tests || exit 1
if [ $# -eq 0 ]; then
	for t in *; do
		case "$t" in *nouserns*) ;; *) set -- "$@" "$t" ;; esac
	done
fi
# The tree's selftests (intree/DIR/PROG) run from their own directory (their
# helpers sit beside them).  Those that report only an exit status (nsfs,
# mount) get one KTAP line for it, so a failure is counted.
# intree/DIR/PROG@USER runs as USER (su), the others as root.
for t in "$@"; do
	case "$t" in
	intree/*) dir=/$(dirname "$t") ;;
	*) dir=/tests ;;
	esac
	user=
	case "$t" in *@*) user=${t##*@} ;; esac
	prog=$dir/$(basename "${t%@*}")
	if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
		# Listed but absent: the host counts it as not run to its end.
		echo "# $t: no such test program"
		continue
	fi
	echo "@@BEGIN $t@@"
	case "$t" in
	intree/nsfs/* | intree/mount/*)
		echo "1..1"
		(cd "$dir" && timeout "${USERNS_IDMAP_TEST_TIMEOUT:-300}" "$prog")
		rc=$?
		if [ "$rc" = 0 ]; then
			echo "ok 1 $t"
		else
			echo "not ok 1 $t # exit status $rc"
		fi
		;;
	*)
		if [ -n "$user" ]; then
			(cd "$dir" && timeout "${USERNS_IDMAP_TEST_TIMEOUT:-300}" su -s /bin/sh "$user" -c "$prog")
		else
			(cd "$dir" && timeout "${USERNS_IDMAP_TEST_TIMEOUT:-300}" "$prog")
		fi
		rc=$?
		;;
	esac
	echo "@@END $t rc=$rc@@"
done
exit 0
