#!/bin/sh
# newuidmap_4096.sh: shadow's newuidmap and newgidmap, setuid, each write a
# map of 4096 extents for an unprivileged user: erin's five-digit ranges
# (10000 + 20 i, 20 ids each; a 59 KiB write) and carol's ten-digit ones
# (3000000000 + 100 i, 100 ids each; 87 KiB).  Patched: both maps hold all
# 4096 extents, and the first id of the first range, the last id of the
# last range and the first id past it are what the namespace sees as
# owners (0, 4096 * step - 1, the overflow id).  Stock (340 extents, writes
# under a page): both helpers fail and the maps stay empty.
. ./lib.sh
plan 10
d=/mnt/ext4/newuidmap
mkdir -p "$d" || exit 1
for spec in erin:10000:20 carol:3000000000:100; do
	u=${spec%%:*}
	base=${spec#*:}
	step=${base#*:}
	base=${base%:*}
	last=$(awk -v b="$base" -v s="$step" 'BEGIN { printf "%.0f", b + 4096 * s - 1 }')
	past=$(awk -v b="$base" -v s="$step" 'BEGIN { printf "%.0f", b + 4096 * s }')
	inlast=$((4096 * step - 1))
	touch "$d/$u-first" "$d/$u-last" "$d/$u-past" &&
		chown "$base:$base" "$d/$u-first" && chown "$last:$last" "$d/$u-last" &&
		chown "$past:$past" "$d/$u-past" || exit 1
	out=$(as_user "$u" "/guest/tools/newuidmap-user.sh $base $step $d/$u-first $d/$u-last $d/$u-past" 2>&1)
	show "$out"
	lines="$(field "$out" uid_map.lines) $(field "$out" gid_map.lines)"
	# The README's table: carol's write, its size, what stock says of it.
	if [ "$u" = carol ]; then
		bytes=$(awk -v b="$base" -v s="$step" \
			'BEGIN { for (i = 0; i < 4096; i++) n += length(sprintf("%.0f %.0f %.0f\n", i * s, b + i * s, s)); print n }')
		limit newuidmap extents "$(field "$out" uid_map.lines)" bytes "$bytes"
		limit newuidmap says "$(printf '%s\n' "$out" | sed -n 's/^newuidmap: //p' | head -n 1)"
	fi
	if [ "$engine" = stock ]; then
		check "${u}_helpers_fail_on_stock" "1 1" "$(field "$out" newuidmap) $(field "$out" newgidmap)"
		check "${u}_maps_stay_empty_on_stock" "0 0" "$lines"
		skip "${u}_last_extent" "stock refuses maps over 340 extents (EINVAL)"
		skip "${u}_owners" "stock refuses maps over 340 extents (EINVAL)"
		skip "${u}_ran_to_its_end" "stock refuses maps over 340 extents (EINVAL)"
		continue
	fi
	check "${u}_helpers_succeed" "0 0" "$(field "$out" newuidmap) $(field "$out" newgidmap)"
	check "${u}_maps_have_4096_extents" "4096 4096" "$lines"
	lastext="$((4095 * step)) $((base + 4095 * step)) $step"
	check "${u}_last_extent" "$lastext / $lastext" \
		"$(field "$out" uid_map.last) / $(field "$out" gid_map.last)"
	check "${u}_owners" "0 0 / $inlast $inlast / 65534 65534" \
		"$(field "$out" "stat:$d/$u-first") / $(field "$out" "stat:$d/$u-last") / $(field "$out" "stat:$d/$u-past")"
	ran "${u}_ran_to_its_end" "$out"
done
