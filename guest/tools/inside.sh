#!/bin/sh
# inside.sh OP...: run by a tool inside its namespace; reports, one
# "key=value" a line, what the namespace sees: its ids, its maps (extents,
# first and last), and for each OP:
#   touch:PATH      create PATH
#   chown:ID:PATH   chown ID:ID PATH (ID is this namespace's)
#   stat:PATH       "stat:PATH=uid gid" as this namespace sees the owner
#   try_chown:ID:PATH   "try_chown:ID:PATH=ok" or "=failed": for ids the
#                   namespace does not map, where chown must fail
# and last "done=1", so a caller can tell it ran to its end.
echo "uid=$(id -u)"
echo "gid=$(id -g)"
for m in uid_map gid_map; do
	echo "$m.lines=$(wc -l </proc/self/$m)"
	echo "$m.first=$(awk 'NR == 1 { print $1, $2, $3 }' /proc/self/$m)"
	echo "$m.last=$(awk '{ l = $1 " " $2 " " $3 } END { print l }' /proc/self/$m)"
done
for op in "$@"; do
	case "$op" in
	touch:*) touch "${op#touch:}" || echo "error=touch ${op#touch:}" ;;
	chown:*)
		a=${op#chown:}
		chown "${a%%:*}:${a%%:*}" "${a#*:}" || echo "error=chown $a"
		;;
	stat:*) echo "$op=$(stat -c '%u %g' "${op#stat:}")" ;;
	try_chown:*)
		a=${op#try_chown:}
		if chown "${a%%:*}:${a%%:*}" "${a#*:}" 2>/dev/null; then
			echo "$op=ok"
		else
			echo "$op=failed"
		fi
		;;
	*) echo "error=unknown op $op" ;;
	esac
done
echo "done=1"
