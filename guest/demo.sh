#!/bin/sh
# make run: the id-mapping system at work, in the guest.
#   - a namespace tree two levels deep, maps written through /proc
#   - the same files seen with different owners from each level
#   - an owner a level does not map shown as the overflow id (65534)
#   - each level reading its child's map in its own ids
#   - a map bigger than stock's 340-extent, one-page limit
#   - a nested container mapping all of its parent's ids in one line,
#     across two extents of the parent's map (stock: EPERM)
# Processes are synchronised through FIFOs; no sleeps.
# shellcheck disable=SC2086  # $d and the pids hold no blanks
set -eu
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
d=/tmp/demo
mkdir -p $d
mkfifo -m 0666 $d/ready1 $d/ready2 $d/ready3 $d/ready4 $d/ready5 \
	$d/hold1 $d/hold2 $d/hold3 $d/hold4 $d/hold5
chmod 1777 $d
: >$d/file-a; chown 100015:100015 $d/file-a
: >$d/file-b; chown 100500:100500 $d/file-b
: >$d/file-c; chown 0:0 $d/file-c

say() { printf '\n== %s\n' "$*"; }
in_ns() { pid=$1; shift; nsenter -t "$pid" -U -S 0 -G 0 -- "$@"; }

say "initial namespace: kernel ids"
cat /proc/self/uid_map
ls -ln $d/file-*

# Level 1: a namespace whose ids 0..999 are kernel ids 100000..100999.
unshare -U sh -c "echo \$\$ >$d/ready1; exec cat $d/hold1 >/dev/null" &
read -r l1 <$d/ready1
echo "0 100000 1000" >/proc/$l1/uid_map
echo "0 100000 1000" >/proc/$l1/gid_map
say "level 1 (pid $l1), uid_map written from the initial namespace:"
cat /proc/$l1/uid_map

# Level 2, made by level 1's root: its ids 0..99 are level 1's 10..109.
in_ns $l1 unshare -U sh -c "echo \$\$ >$d/ready2; exec cat $d/hold2 >/dev/null" &
read -r l2 <$d/ready2
in_ns $l1 sh -c "echo '0 10 100' >/proc/$l2/uid_map; echo '0 10 100' >/proc/$l2/gid_map"
say "level 2 (pid $l2), uid_map as level 1 wrote it (level 1's ids):"
in_ns $l1 cat /proc/$l2/uid_map
say "the same map read from the initial namespace (flattened to kernel ids):"
cat /proc/$l2/uid_map

say "the same files from level 1 (file-c's owner, kernel root, is unmapped):"
in_ns $l1 ls -ln $d/file-*
say "and from level 2 (file-b's owner, level 1's 500, is unmapped too):"
in_ns $l2 ls -ln $d/file-*
say "a file made by level 2's root, seen from level 2, level 1 and the initial namespace:"
in_ns $l2 touch $d/made-in-level2
in_ns $l2 ls -ln $d/made-in-level2
in_ns $l1 ls -ln $d/made-in-level2
ls -ln $d/made-in-level2

# A big map: 1000 single-id extents of ten-digit ids in one write.
unshare -U sh -c "echo \$\$ >$d/ready3; exec cat $d/hold3 >/dev/null" &
read -r l3 <$d/ready3
i=0
while [ $i -lt 1000 ]; do
	echo "$i $((1000000000 + i * 7)) 1"
	i=$((i + 1))
done >$d/bigmap
say "a map of $(wc -l <$d/bigmap) extents, $(wc -c <$d/bigmap) bytes, in one write (stock: 340, < 4096 bytes):"
if cat $d/bigmap >/proc/$l3/uid_map; then
	echo "accepted: $(wc -l </proc/$l3/uid_map) lines in /proc/$l3/uid_map; last: $(tail -n 1 /proc/$l3/uid_map)"
else
	echo "refused by this kernel"
fi

# A rootless container's namespace: its root is kernel uid 1000, then the
# 65536 subordinate ids from 100000.  A container inside it maps all
# 65537 of those ids in one line, across both extents.
: >$d/own-1000; chown 1000:1000 $d/own-1000
: >$d/own-165535; chown 165535:165535 $d/own-165535
unshare -U sh -c "echo \$\$ >$d/ready4; exec cat $d/hold4 >/dev/null" &
read -r r <$d/ready4
echo "0 1000 1
1 100000 65536" >/proc/$r/uid_map
echo "0 1000 1
1 100000 65536" >/proc/$r/gid_map
say "a rootless layout (pid $r), written from the initial namespace:"
cat /proc/$r/uid_map
in_ns $r unshare -U sh -c "echo \$\$ >$d/ready5; exec cat $d/hold5 >/dev/null" &
read -r c <$d/ready5
say "its root maps all its ids into a child (pid $c) in one line: 0 0 65537"
if in_ns $r sh -c "echo '0 0 65537' >/proc/$c/uid_map" 2>/dev/null; then
	echo "accepted without asking: this kernel does not keep stock's rule"
else
	echo "refused (EPERM), as on stock: the range spans two extents of the parent's map"
fi
say "again, asking the kernel to split it: a first line 'split', then 0 0 65537"
if in_ns $r sh -c "printf 'split\\n0 0 65537\\n' >/proc/$c/uid_map && printf 'split\\n0 0 65537\\n' >/proc/$c/gid_map"; then
	say "the child's map as its parent reads it: the two pieces the kernel stored"
	in_ns $r cat /proc/$c/uid_map
	say "the same map from the initial namespace, in kernel ids"
	cat /proc/$c/uid_map
	say "kernel uids 1000 and 165535, the two ends, seen from inside the child:"
	in_ns $c ls -ln $d/own-1000 $d/own-165535
else
	echo "refused by this kernel (stock: EINVAL for the 'split' line; tools then write the pieces)"
fi

echo end >$d/hold1
echo end >$d/hold2
echo end >$d/hold3
echo end >$d/hold5
echo end >$d/hold4
wait
say "done"
