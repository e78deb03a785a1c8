#!/bin/sh
# tool_limits.sh (make clients): how many extents each tool passes on when
# a user has more subordinate ranges than stock's 340, measured rather than
# read from its source (README, "What each tool does with large maps").
# dave has 1001 ranges (containers.sh); each tool is asked for his id and
# all of them, 1002 extents, or for as many as it takes.  What a tool
# does is checked against what the README says of it: a change in a
# tool's version shows up here.  Every limit found is the tool's own: the
# same on stock and on ours.
. ./lib.sh
. ./oci.sh
# lxc 5.0.2's limit with dave's ranges (bisected in the guest)
LXC_MAX=239
plan 9
# mappings K: dave's id and K - 1 of his ranges, as OCI JSON
mappings() {
	awk -v k="$1" 'BEGIN {
		printf "{ \"containerID\": 0, \"hostID\": 1003, \"size\": 1 }"
		for (i = 0; i < k - 1; i++)
			printf ", { \"containerID\": %d, \"hostID\": %d, \"size\": 500 }", 1 + 500 * i, 200000 + 1000 * i
	}'
}
# The tools' versions (Debian's, from scripts/mktoolsimg.sh), for the
# README's table; the "limit" lines below are the rest of it.
while read -r p v; do
	limit version "$p" "$v"
done </guest/tools/versions
# said OUT ERE: the part of OUT's first line matching ERE (what a tool said)
said() {
	printf '%s\n' "$1" | grep -m 1 -o -E "$2" | sed 's,/proc/[0-9]*/,/proc/PID/,'
}
d=/mnt/ext4/limits
mkdir -p $d && chmod 1777 $d || exit 1
# oci_run RUNTIME K: 'RUNTIME run' as dave with K mappings; sets out
oci_run() {
	b=/tmp/limits-$1-$2
	mkdir -p "$b" && oci_config "$1" "$d" "$(mappings "$2")" >"$b/config.json" &&
		chown -R dave:dave "$b" || exit 1
	out=$(as_user dave "cd $b && $1 run --bundle $b l-$1-$2" 2>&1)
	rc=$?
	show "$(printf '%s\n' "$out" | grep -v '^[ug]id_map\.\(first\|last\)\|^stat')" "$1 ($2 mappings): "
}
# crun 1.8.1 builds newuidmap's argument list in a fixed array of 20:
# 6 mappings, the rest dropped without a word.
oci_run crun 1002
limit crun passes "$(field "$out" uid_map.lines)" of 1002 exit "$rc"
check crun_passes_6_of_1002_mappings_silently "rc=0 6 6 done=1" \
	"rc=$rc $(field "$out" uid_map.lines) $(field "$out" gid_map.lines) done=$(field "$out" "done")"
# runc 1.1.5 has the same 20-entry argument array, but fills it without
# a terminating NULL: 6 mappings or more (20 arguments) make newuidmap's execve() fail
# with EFAULT.  And it writes the map itself first, running newuidmap only
# when that fails with EPERM: a map text of a page or more fails earlier,
# with EINVAL (on stock too), and runc gives up.
oci_run runc 5
check runc_passes_5_mappings 5 "$(field "$out" uid_map.lines)"
limit runc passes "$(field "$out" uid_map.lines)"
oci_run runc 6
limit runc six "$(said "$out" 'failed to execv: [A-Za-z ]+')"
case "$out" in
*"failed to execv: Bad address"*) pass runc_fails_6_mappings_efault ;;
*) fail runc_fails_6_mappings_efault "no 'failed to execv: Bad address'" ;;
esac
oci_run runc 1002
limit runc page "$(said "$out" 'failed to update /proc/[0-9]+/uid_map: [A-Za-z ]+')"
case "$out" in
*"uid_map: Invalid argument"*) pass runc_fails_1002_mappings_einval ;;
*) fail runc_fails_1002_mappings_einval "no 'uid_map: Invalid argument'" ;;
esac
# lxc 5.0.2 builds newuidmap's command line in a page: the most mappings
# (dave's id and his first ranges, as -m b:...) lxc-usernsexec passes on,
# found by bisection, and what it says beyond.
lxc_try() {
	args=$(awk -v k="$1" 'BEGIN { printf "-m b:0:1003:1"; for (i = 0; i < k - 1; i++) printf " -m b:%d:%d:500", 1 + 500 * i, 200000 + 1000 * i }')
	out=$(as_user dave "lxc-usernsexec $args -- /guest/tools/inside.sh" 2>&1)
	[ "$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)" = "$1 $1" ]
}
lo=1 hi=1002
lxc_try $lo || lo=0
lxc_try $hi && lo=$hi
while [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	if lxc_try $mid; then lo=$mid; else hi=$mid; fi
done
echo "# lxc-usernsexec: at most $lo mappings"
limit lxc passes "$lo" of 1002
check lxc_usernsexec_passes_at_most_$LXC_MAX "$LXC_MAX" "$lo"
lxc_try $((LXC_MAX + 1))
show "$(printf '%s\n' "$out" | grep -v '^[ug]id_map\.\(first\|last\)')" "lxc-usernsexec ($((LXC_MAX + 1)) mappings): "
limit lxc says "$(said "$out" 'Too many [a-z ]+')"
case "$out" in
*"Too many uid mappings defined"*) pass lxc_usernsexec_too_many_uid_mappings ;;
*) fail lxc_usernsexec_too_many_uid_mappings "no 'Too many uid mappings defined'" ;;
esac
# util-linux 2.38 unshare: of two --map-users, only the last is written
out=$(as_user dave "/usr/bin/unshare --user --map-users=1003,0,1 \
	--map-users=200000,1,500 --map-groups=1003,0,1 /guest/tools/inside.sh" 2>&1)
show "$out" "unshare: "
limit unshare map-users "$(field "$out" uid_map.lines)" first "$(field "$out" uid_map.first)"
check unshare_keeps_last_map_users "1: 1 200000 500" \
	"$(field "$out" uid_map.lines): $(field "$out" uid_map.first)"
# --map-auto: only the first of dave's ranges (and no id of his own)
out=$(as_user dave "/usr/bin/unshare --user --map-auto /guest/tools/inside.sh" 2>&1)
show "$out" "unshare --map-auto: "
limit unshare map-auto "$(field "$out" uid_map.lines)" first "$(field "$out" uid_map.first)"
check unshare_map_auto_first_range "1: 0 200000 500" \
	"$(field "$out" uid_map.lines): $(field "$out" uid_map.first)"
# bubblewrap 0.8 maps the caller's own id, once (no subordinate ranges)
out=$(as_user dave "bwrap --unshare-user --uid 0 --gid 0 --ro-bind / / --proc /proc \
	--dev /dev /guest/tools/inside.sh" 2>&1)
limit bwrap maps "$(field "$out" uid_map.lines)" first "$(field "$out" uid_map.first)"
check bwrap_maps_one_id "1: 0 1003 1" "$(field "$out" uid_map.lines): $(field "$out" uid_map.first)"
