#!/bin/bash
# deb-guest.sh [KERNEL...]: make deb-guest.  The Debian guest
# (debian-rootfs.sh: bookworm, systemd as PID 1), with three kernels
# installed as a user installs one (dpkg -i, whose postinst runs
# initramfs-tools): ours and stock from 'make deb' (build/deb/), and
# Debian's own linux-image-*-amd64 from the archive, the one whose version
# is the installed linux-source's.  Booted from its disk image in turn
# (QEMU, 2 CPUs; the disk is opened with snapshot=on, so every boot starts
# from the same files), each runs the suites of make check,
# rootless podman and buildah from a systemd user session, and an
# out-of-tree module built against each kernel's headers package, and on
# ours the KUnit suite as a module (guest/debian/run.sh), and prints its
# KTAP and one "N passed, N failed" line.  KERNEL: patched, stock, debian
# (default: all three; docs/results/BASE/ only for all three).  Root only
# (chroot, mounts).  Logs in build/debian/results/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$TOP/build/debian
cache=$dir/cache
guest=$dir/guest-$KBASE
img=$dir/guest-$KBASE.img
results=$dir/results
kernels=${*:-patched stock debian}
[ "$(id -u)" = 0 ] || die "the Debian guest is made with chroot and mounts" "run 'make deb-guest' as root"
debs=()
rel_patched=none
rel_stock=none
for v in patched stock; do
	case " $kernels " in *" $v "*) ;; *) continue ;; esac
	obj=$BUILD/deb/obj-$v
	[ -r "$obj/include/config/kernel.release" ] || die "no $v packages" "run 'make deb${BASE:+ BASE=$BASE}' first"
	rel=$(cat "$obj/include/config/kernel.release")
	f=$(find "$BUILD/deb" -maxdepth 1 -name "linux-image-${rel}_*.deb" | sort | tail -n 1)
	[ -n "$f" ] || die "no linux-image package for $rel in $BUILD/deb" "run 'make deb${BASE:+ BASE=$BASE}'"
	h=$(find "$BUILD/deb" -maxdepth 1 -name "linux-headers-${rel}_*.deb" | sort | tail -n 1)
	[ -n "$h" ] || die "no linux-headers package for $rel in $BUILD/deb" "run 'make deb${BASE:+ BASE=$BASE}'"
	debs+=("$f" "$h")
	[ "$v" = patched ] && rel_patched=$rel
	[ "$v" = stock ] && rel_stock=$rel
done
[ -d "$BUILD/tests" ] || die "no test programs in $BUILD/tests" "run 'make tests'"
[ -r "$BUILD/tests-intree/LIST" ] || die "no $BUILD/tests-intree/LIST" "run 'make tests'"
# The packages and tests first, then the root (debootstrap: minutes).
"$TOP/scripts/debian-rootfs.sh"
mkdir -p "$results"

# Debian's own kernel: the linux-image-*-amd64 package of the archive whose
# version is linux-source's (the same source as stock built here).
src_ver=$(source_version)
debian_pkg=""
# Not the cloud or rt flavours: linux-image-6.1.0-N-amd64, linux-image-6.12.N+debM-amd64.
for p in $(chroot "$dir/rootfs" apt-cache search --names-only \
	"^linux-image-${KBASE//./\\.}\\.[0-9]+(-[0-9]+|\\+deb[0-9]+)-amd64\$" | cut -d' ' -f1); do
	if [ "$(chroot "$dir/rootfs" apt-cache show --no-all-versions "$p" | sed -n 's/^Version: //p')" = "$src_ver" ]; then
		debian_pkg=$p
	fi
done
[ -n "$debian_pkg" ] || die "Debian's archive has no linux-image-*-amd64 of version $src_ver" \
	"update the guest's package lists: rm -r $dir/rootfs, then make deb-guest"

# The guest's root: the base, the three kernels, the tests.  Remade when a
# package or a test changed.
want=$( (cat "${debs[@]}" "$0" "$TOP"/guest/debian/*.* "$TOP"/guest/debian/idmap_mod/* "$TOP"/guest/tools/*.sh "$TOP/guest/run-tests.sh" "$dir/rootfs/.userns-idmap-rootfs"
	echo "$debian_pkg"; find "$BUILD/tests" "$BUILD/tests-intree" -type f -print0 | sort -z | xargs -0 cat) |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$img.sum" 2>/dev/null)" != "$want" ] || [ ! -f "$img" ]; then
	info "installing the kernels in the guest's root ($guest)"
	rm -rf "$guest"
	cp -a "$dir/rootfs" "$guest"
	mkdir -p "$guest/tmp/debs"
	cp "${debs[@]}" "$guest/tmp/debs/"
	{
		in_chroot "$guest" "$cache" sh -c 'dpkg -i /tmp/debs/*.deb' &&
			in_chroot "$guest" "$cache" apt-get install -y -q --no-install-recommends \
				"$debian_pkg" "${debian_pkg/linux-image/linux-headers}" gcc make
	} >"$results/install-$KBASE.log" 2>&1 ||
		{ tail -n 20 "$results/install-$KBASE.log" >&2; die "installing the kernels failed" "full log: $results/install-$KBASE.log"; }
	rm -rf "$guest/tmp/debs"
	# The out-of-tree module, built for each kernel the way DKMS builds
	# one: against the headers package, in the system that runs it.
	for d in "$guest"/lib/modules/*; do
		rel=${d##*/}
		m=/opt/idmap_mod/$rel
		mkdir -p "$guest$m"
		cp "$TOP"/guest/debian/idmap_mod/* "$guest$m/"
		in_chroot "$guest" "$cache" make -C "/lib/modules/$rel/build" M="$m" modules \
			>>"$results/install-$KBASE.log" 2>&1 ||
			{ tail -n 20 "$results/install-$KBASE.log" >&2; die "idmap_mod did not build against linux-headers-$rel" "full log: $results/install-$KBASE.log"; }
	done
	# The tests, as the test kernels' initramfs has them.
	mkdir -p "$guest/tests" "$guest/intree" "$guest/guest/debian"
	cp -a "$BUILD/tests/." "$guest/tests/"
	cp -a "$BUILD/tests-intree/." "$guest/intree/"
	cp "$TOP/guest/run-tests.sh" "$guest/guest/"
	cp "$TOP"/guest/debian/*.sh "$guest/guest/debian/"
	# session.sh's KTAP helpers and inside.sh, from the tool tests.
	mkdir -p "$guest/guest/tools"
	cp "$TOP"/guest/tools/{lib.sh,containers.sh,inside.sh} "$guest/guest/tools/"
	suite_programs >"$guest/guest/tests.list"
	cat "$BUILD/tests-intree/LIST" >>"$guest/guest/tests.list"
	cp "$TOP/guest/debian/userns-idmap-tests.service" "$guest/etc/systemd/system/"
	ln -sf ../userns-idmap-tests.service "$guest/etc/systemd/system/multi-user.target.wants/"
	# The console is the tests' output: no login prompt on it.
	ln -sf /dev/null "$guest/etc/systemd/system/serial-getty@ttyS0.service"
	mb=$(($(du -sm "$guest" | cut -f1) * 5 / 4 + 256))
	rm -f "$img"
	truncate -s "${mb}M" "$img"
	mkfs.ext4 -q -F -L debian -d "$guest" "$img" "${mb}M" ||
		die "mkfs.ext4 -d could not build $img" "e2fsprogs >= 1.43 ('make deps')"
	echo "$want" >"$img.sum"
	info "guest image $img (${mb} MiB)"
fi

tp=0
tf=0
ts=0
failed=0
summary=""
releases=""
for k in $kernels; do
	case "$k" in
	patched) rel=$rel_patched ;;
	stock) rel=$rel_stock ;;
	debian) rel=$(find "$guest/lib/modules" -mindepth 1 -maxdepth 1 -name '*-amd64' -printf '%f\n' | sort | tail -n 1) ;;
	*) die "unknown kernel '$k'" "use patched, stock or debian" ;;
	esac
	[ -f "$guest/boot/vmlinuz-$rel" ] || die "no /boot/vmlinuz-$rel in the guest" "remove $img and run make deb-guest again"
	log=$results/$k-$KBASE.log
	disk=$dir/test-$k.img
	mkdisk "$disk"
	info "booting $k ($rel) in the Debian guest, 2 CPUs (console: $log)"
	set +e
	timeout -k 5 "${DEB_GUEST_TIMEOUT:-2400}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
		-m 2048 -smp 2 -no-reboot -nodefaults -display none \
		-kernel "$guest/boot/vmlinuz-$rel" -initrd "$guest/boot/initrd.img-$rel" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 oops=panic quiet loglevel=4 systemd.show_status=false" \
		-drive "file=$img,format=raw,if=virtio,index=0,snapshot=on" \
		-drive "file=$disk,format=raw,if=virtio,index=1" \
		-serial stdio </dev/null | tr -d '\r' >"$log"
	rc=${PIPESTATUS[0]}
	set -e
	rm -f "$disk"
	progs="$(cat "$guest/guest/tests.list") debian/session debian/module debian/kunit"
	# shellcheck disable=SC2086  # one program a word
	ktap_results "$log" "$k ($rel)" no $progs
	if ! grep -q '^@@DONE@@' "$log"; then
		f=$((f + 1))
		echo "FAILED: the $k kernel's guest did not finish its tests (qemu exit status $rc; see $log)"
	fi
	echo "$k ($rel): $p passed, $f failed, $s skipped"
	summary="$summary $k: $p/$f/$s"
	releases="$releases $k: $rel"
	tp=$((tp + p))
	tf=$((tf + f))
	ts=$((ts + s))
	[ "$f" = 0 ] || failed=1
done
# The committed results (docs/results/BASE/) are a full run's, as make
# check's: a run of some kernels writes its results beside the logs.
ran() { case " $kernels " in *" $1 "*) return 0 ;; esac; return 1; }
if ran patched && ran stock && ran debian; then
	published=$TOP/docs/results/$KBASE
else
	published=$results/$KBASE
	info "not all three kernels: results in $published, not docs/results/$KBASE"
fi
mkdir -p "$published"
# Test for test: stock against ours, Debian's against stock (or against
# ours while stock has not run).  Every difference should be one of
# stock's limits (docs/testing.md); debian-diff.txt.
diffs=$published/debian-diff.txt
: >"$diffs"
for pair in "patched stock" "stock debian" "patched debian"; do
	read -r ka kb <<<"$pair"
	if ! ran "$ka" || ! ran "$kb"; then
		continue
	fi
	# Ours against Debian's only while stock has not run.
	if [ "$pair" = "patched debian" ] && ran stock; then
		continue
	fi
	{
		echo "## $ka / $kb"
		"$TOP/scripts/ktap-diff.sh" "$results/$ka-$KBASE.log" "$results/$kb-$KBASE.log"
	} >>"$diffs"
done
cat "$diffs"

# The kernels that ran, their counts, in debian.txt (committed; make
# docs writes the README's table from it).
sumfile=$published/debian.txt
{
	echo "# make deb-guest BASE=$KBASE: $SRC_PKG $src_ver, series/$KBASE $(series_hash | cut -c1-12), $(date +%F)"
	echo "# releases:$releases"
	echo "# per kernel (passed/failed/skipped):$summary"
	echo "$tp passed, $tf failed, $ts skipped"
} >"$sumfile"
echo "# per kernel (passed/failed/skipped):$summary"
echo "$tp passed, $tf failed, $ts skipped"
exit "$failed"
