#!/bin/sh
# lxc_usernsexec.sh: lxc-usernsexec -m b:0:100000:65536 (alice's
# subordinate range, through newuidmap and newgidmap) creates and chowns
# files on ext4; the owners are checked from the initial namespace, and
# the namespace's view of them and of an id it does not map.
. ./lib.sh
plan 8
d=/mnt/ext4/lxc
mkdir -p "$d" && chmod 1777 "$d" && touch "$d/rootfile" || exit 1
out=$(as_user alice "lxc-usernsexec -m b:0:100000:65536 -- \
	/guest/tools/inside.sh touch:$d/f0 touch:$d/f1 chown:1000:$d/f1 \
	touch:$d/f2 chown:65535:$d/f2 stat:$d/f2 stat:$d/rootfile" 2>&1)
show "$out"
check ids_in_namespace "0 0" "$(field "$out" uid) $(field "$out" gid)"
check uid_map_written "1: 0 100000 65536" "$(field "$out" uid_map.lines): $(field "$out" uid_map.first)"
check gid_map_written "1: 0 100000 65536" "$(field "$out" gid_map.lines): $(field "$out" gid_map.first)"
check root_creates_as_100000 "100000 100000" "$(owner "$d/f0" 2>&1)"
check chown_1000_is_101000 "101000 101000" "$(owner "$d/f1" 2>&1)"
check chown_65535_is_165535 "165535 165535" "$(owner "$d/f2" 2>&1)"
check owner_seen_inside "65535 65535 / 65534 65534" \
	"$(field "$out" "stat:$d/f2") / $(field "$out" "stat:$d/rootfile")"
ran ran_without_errors "$out"
