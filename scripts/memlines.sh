#!/bin/bash
# make memlines: the loads, stores and distinct cache lines of the kernel
# on each path walk of make bench (open, stat and access of a file 1 and 8
# components deep, on tmpfs, ext4 and an idmapped mount; in the initial
# namespace, and in child namespaces with narrow and wide maps), for each
# benchmark kernel: what the instruction counts cannot see.
#
# A QEMU TCG plugin (bench/memlines.c) watches the guest: between the
# marks bench/idmap_bench.c places around each call ("idmap_bench walks"),
# it counts the loads and stores of kernel code and the distinct physical
# 64-byte lines they touch, and prints the medians of 64 calls per row.
# Distinct lines are the cache misses of a call whose data is all cold: a
# bound, not a cache model (no prefetch, no page-table walks).  The guest
# runs under -icount shift=0, as make bench, so that every run gives the
# same figures.
#
# The plugin is built against qemu-plugin.h from Debian's source package
# of the QEMU installed (apt-get source, the archive's signatures checked
# by apt; Debian's binary packages do not ship the header), kept in
# build/qemu-plugin/.
#
#   KERNELS  default: nouserns-bench stock-bench patched-bench
#   SIZES    map sizes of the child namespaces (default: 1 64)
# Output: results/memlines.csv and results/memlines.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

all="nouserns-bench stock-bench patched-bench"
kernels=${KERNELS:-$all}
sizes=${SIZES:-1 64}
for v in $kernels; do
	case " $all " in
	*" $v "*) ;;
	*) die "unknown benchmark kernel '$v'" "KERNELS takes some of: $all" ;;
	esac
done
for n in $sizes; do
	case $n in
	1 | 2 | 3 | 5 | 6 | 16 | 64 | 340 | 1024 | 4096) ;;
	*) die "no map size '$n' in the benchmark" "SIZES takes some of: 1 2 3 5 6 16 64 340 1024 4096" ;;
	esac
done

# The header of the QEMU that runs the guests.
pdir=$BUILD/qemu-plugin
hdr=$pdir/qemu-plugin.h
qver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed" "run 'make deps'"
if [ ! -r "$hdr" ] || [ "$(cat "$pdir/version" 2>/dev/null)" != "$qver" ]; then
	info "fetching qemu-plugin.h from Debian's qemu $qver source package"
	rm -rf "$pdir"
	mkdir -p "$pdir/lists/partial" "$pdir/cache/archives/partial" "$pdir/src"
	{
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main"
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main"
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main"
	} >"$pdir/sources.list"
	apt_opts=(-q -o "Dir::Etc::SourceList=$pdir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o "Dir::State::Lists=$pdir/lists" -o "Dir::Cache=$pdir/cache")
	(cd "$pdir/src" && apt-get "${apt_opts[@]}" update && apt-get "${apt_opts[@]}" source --download-only "qemu=$qver") \
		>"$pdir/apt.log" 2>&1 ||
		{ tail -n 10 "$pdir/apt.log" >&2; die "could not fetch Debian's qemu $qver source" "full log: $pdir/apt.log; check the network"; }
	orig=$(find "$pdir/src" -maxdepth 1 -name 'qemu_*.orig.tar.*' | head -n 1)
	[ -n "$orig" ] || die "no orig tarball in $pdir/src" "see $pdir/apt.log"
	tar -xf "$orig" -C "$pdir/src" --wildcards '*/include/qemu/qemu-plugin.h' ||
		die "no include/qemu/qemu-plugin.h in $orig"
	find "$pdir/src" -path '*/include/qemu/qemu-plugin.h' -exec cp {} "$hdr" \;
	rm -rf "$pdir/src" "$pdir/lists" "$pdir/cache"
	echo "$qver" >"$pdir/version"
fi
so=$pdir/memlines.so
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -I "$pdir" -o "$so" "$TOP/bench/memlines.c" ||
	die "bench/memlines.c did not build against $hdr"

out=$RESULTS
mkdir -p "$out" "$BUILD/bench"
# shellcheck disable=SC2086  # the list of kernels
bench_guest idmap_bench $kernels

csv=$out/memlines.csv
echo "kernel,workload,extents,width,loads,stores,lines" >"$csv"
for v in $kernels; do
	log=$out/memlines-$v.log
	plog=$out/memlines-$v.plugin
	rm -f "$plog"
	mkdisk "$BUILD/bench-disk.img"
	info "counting the path walks' memory accesses on $v (icount mode, plugin $so)"
	"$TOP/scripts/vm.sh" --variant "$v" --icount --timeout 3600 --disk "$BUILD/bench-disk.img" \
		--initramfs "$BUILD/initramfs-bench.cpio" --log "$log" --plugin "$so" "$plog" \
		-- "/bench/idmap_bench walks $sizes" >/dev/null ||
		die "the walks failed on $v" "console: $log"
	if grep -a '^@@BENCH error ' "$log" >&2; then
		die "a path walk failed on $v (above)" "console: $log"
	fi
	# The guest names the rows, the plugin counts them, in the same order.
	rows=$(grep -ac '^@@MEMROW ' "$log" || true)
	counted=$(grep -ac '^@@MEMLINES ' "$plog" || true)
	[ "$rows" -gt 0 ] && [ "$rows" = "$counted" ] && ok=1 || ok=0
	[ "$ok" = 1 ] ||
		die "$v: the guest made $rows rows, the plugin counted $counted" "console: $log, plugin: $plog"
	bad=$(awk '/^@@MEMLINES / && (NF != 6 || $3 != 64)' "$plog")
	[ -z "$bad" ] || die "$v: a row without its 64 windows, or with more lines than the plugin holds: $bad" \
		"plugin log: $plog"
	paste -d' ' <(grep -a '^@@MEMROW ' "$log") <(grep -a '^@@MEMLINES ' "$plog") |
		awk -v k="${v%-bench}" '{ print k "," $2 "," $3 "," $4 "," $8 "," $9 "," $10 }' >>"$csv"
done
/usr/bin/python3 "$TOP/scripts/memlines-report.py" "$csv" "$out/memlines.md"
info "results: $out/memlines.md, $out/memlines.csv"
