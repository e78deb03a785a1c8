#!/bin/sh
# module.sh: idmap_mod (guest/debian/idmap_mod/), an out-of-tree module
# that make deb-guest built the way DKMS builds one (make -C
# /lib/modules/RELEASE/build M=...) against this kernel's headers package,
# loaded to convert ids through a namespace whose uid and gid maps have
# 4096 extents (stock and Debian's kernel: 340, their limit).  It checks
# make_kuid() and its twins on every extent and on the ids beside it, and
# refuses to load if one answer is wrong.  KTAP, as the tool tests print it.
cd /guest/tools || exit 1
# shellcheck source=../tools/lib.sh
. ./lib.sh
plan 3
rel=$(uname -r)
ko=/opt/idmap_mod/$rel/idmap_mod.ko
if [ ! -f "$ko" ]; then
	fail module_built "no $ko: make deb-guest builds it against linux-headers-$rel"
	exit 0
fi
pass module_built
n=4096
[ "$engine" = stock ] && n=340
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "%d %d 1\n", i * 2, 10000 + i * 2 }' >/tmp/idmap_mod.map
rm -f /tmp/idmap_mod.fifo
mkfifo /tmp/idmap_mod.fifo || exit 1
# A process in a new user namespace, blocked on the fifo until we are done.
unshare -U sh -c 'exec cat /tmp/idmap_mod.fifo >/dev/null' &
ns_pid=$!
self=$(readlink /proc/self/ns/user)
while [ "$(readlink /proc/$ns_pid/ns/user)" = "$self" ]; do :; done
cat /tmp/idmap_mod.map >/proc/$ns_pid/uid_map && cat /tmp/idmap_mod.map >/proc/$ns_pid/gid_map
check maps_written "$n $n" "$(wc -l </proc/$ns_pid/uid_map) $(wc -l </proc/$ns_pid/gid_map)"
dmesg -C
out=$(insmod "$ko" pid=$ns_pid extents=$n 2>&1)
rc=$?
line=$(dmesg | grep -m 1 -E 'idmap_mod: ([0-9]+ extents|.* wrong at )')
show "$out" "insmod: "
show "$line" "dmesg: "
# 15 conversions an extent, and 2 around the map.
check module_converts_every_extent "0 idmap_mod: $n extents, $((n * 15 + 2)) conversions, 0 wrong" \
	"$rc $(printf '%s\n' "$line" | sed 's/^\[[^]]*\] //')"
[ "$rc" = 0 ] && rmmod idmap_mod
echo >/tmp/idmap_mod.fifo
wait "$ns_pid"
