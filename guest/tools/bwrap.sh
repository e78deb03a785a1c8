#!/bin/sh
# bwrap.sh: bubblewrap, unprivileged (Debian's bwrap is not setuid), makes
# the user root of a new user namespace (--unshare-user --uid 0 --gid 0):
# the maps bwrap writes, the ids the sandbox reports, the owner of a file it
# creates on ext4 as both namespaces see it, and an owner the namespace
# does not map (the overflow id).
. ./lib.sh
plan 7
d=/mnt/ext4/bwrap
mkdir -p "$d" && chown alice:alice "$d" && touch "$d/rootfile" || exit 1
out=$(as_user alice "bwrap --unshare-user --uid 0 --gid 0 --ro-bind / / \
	--proc /proc --dev /dev --bind $d $d \
	/guest/tools/inside.sh touch:$d/made stat:$d/made stat:$d/rootfile" 2>&1)
show "$out"
check ids_in_sandbox "0 0" "$(field "$out" uid) $(field "$out" gid)"
check uid_map_written "1: 0 1000 1" "$(field "$out" uid_map.lines): $(field "$out" uid_map.first)"
check gid_map_written "1: 0 1000 1" "$(field "$out" gid_map.lines): $(field "$out" gid_map.first)"
check own_file_is_root_inside "0 0" "$(field "$out" "stat:$d/made")"
check own_file_is_alice_outside "1000 1000" "$(owner "$d/made" 2>&1)"
check unmapped_owner_is_overflow "65534 65534" "$(field "$out" "stat:$d/rootfile")"
ran ran_without_errors "$out"
