#!/bin/bash
# mkinitramfs.sh OUT: build the guest's base initramfs (newc cpio):
# busybox-static, guest/init, /etc files, guest/*.sh, the static test
# binaries under build/tests/, and guest/host-binaries.txt with their
# shared libraries.  The VM runner appends a small cpio with /cmd.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: mkinitramfs.sh OUT.cpio}
bb=/bin/busybox
[ -x "$bb" ] || die "$bb not found" "run 'make deps' (installs busybox-static)"
file -L "$bb" 2>/dev/null | grep -q 'statically linked' ||
	die "$bb is not statically linked" "install busybox-static ('make deps'), not busybox"
command -v cpio >/dev/null || die "cpio not installed" "run 'make deps'"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,mnt,tests,guest,usr/bin,usr/sbin}
cp "$bb" "$root/bin/busybox"
cp "$TOP/guest/init" "$root/init"
chmod 755 "$root/init"
for f in passwd group subuid subgid; do
	cp "$TOP/guest/etc-$f" "$root/etc/$f"
done
# carol: 4096 subordinate ranges of 100 ten-digit ids (clients_test.c,
# newuidmap_4096_ranges), generated rather than kept as 4096 lines.
for ((i = 0; i < 4096; i++)); do
	echo "carol:$((3000000000 + i * 100)):100"
done >>"$root/etc/subuid"
cp "$TOP"/guest/*.sh "$root/guest/" 2>/dev/null || true
if [ -d "$BUILD/tests" ]; then
	cp -a "$BUILD/tests/." "$root/tests/"
fi
if [ -d "$BUILD/tests-intree" ]; then
	mkdir -p "$root/intree"
	cp -a "$BUILD/tests-intree/." "$root/intree/"
fi
if [ -d "$BUILD/fuzz" ]; then
	mkdir -p "$root/fuzz"
	cp -a "$BUILD/fuzz/." "$root/fuzz/"
fi
if [ -d "$BUILD/bench" ]; then
	mkdir -p "$root/bench"
	cp -a "$BUILD/bench/." "$root/bench/"
fi

copy_with_libs() {
	local bin=$1 lib
	[ -e "$bin" ] || die "host binary $bin not found" "run 'make deps', or drop it from guest/host-binaries.txt"
	mkdir -p "$root$(dirname "$bin")"
	cp -aL "$bin" "$root$bin"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
while read -r bin; do
	case "$bin" in ''|'#'*) continue ;; esac
	copy_with_libs "$bin"
done <"$TOP/guest/host-binaries.txt"
# newuidmap/newgidmap are setuid root on the host; keep that in the guest.
for b in newuidmap newgidmap; do
	[ -e "$root/usr/bin/$b" ] && chmod 4755 "$root/usr/bin/$b"
done

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
info "initramfs $out ($(du -h "$out" | cut -f1))"
