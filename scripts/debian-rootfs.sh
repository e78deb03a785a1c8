#!/bin/bash
# debian-rootfs.sh: the Debian guest's base root file system (make deb-guest
# uses it): Debian bookworm made with debootstrap from Debian's archive,
# systemd as PID 1, the container tools, and the users of the tool tests
# with their /etc/subuid and /etc/subgid ranges.  Made once, in
# build/debian/rootfs; the downloaded packages stay in build/debian/cache,
# so a rebuild downloads nothing it has.  Needs root (debootstrap's chroot
# and device nodes).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$TOP/build/debian
root=$dir/rootfs
cache=$dir/cache
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# What the guest runs: systemd and a user session (logind, dbus), and
# initramfs-tools, which the kernel packages' postinst scripts run (by
# debootstrap); then the container tools of guest/tools/packages.txt and
# what they need (by apt, which resolves virtual packages such as
# podman's container-network-stack).
base=systemd-sysv,dbus,dbus-user-session,libpam-systemd,systemd-container,udev,kmod
base=$base,initramfs-tools,linux-base,zstd,procps,iproute2,e2fsprogs,busybox-static
tools="podman buildah conmon crun runc uidmap slirp4netns fuse-overlayfs netavark
bubblewrap lxc golang-github-containers-common"
stamp=$root/.userns-idmap-rootfs
want=$(cat "$0" "$TOP/scripts/lib.sh" | sha256sum | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	info "Debian root file system is up to date ($root)"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "debootstrap needs root" "run 'make deb-guest' as root"
command -v debootstrap >/dev/null || die "debootstrap is not installed" "run 'make deps'"

rm -rf "$root"
mkdir -p "$root" "$cache"
info "debootstrap bookworm from $mirror into $root (packages cached in $cache)"
if ! debootstrap --variant=minbase --include="$base" --cache-dir="$cache" \
	bookworm "$root" "$mirror" >"$dir/debootstrap.log" 2>&1; then
	tail -n 20 "$dir/debootstrap.log" >&2
	die "debootstrap failed (log above, full: $dir/debootstrap.log)" \
		"check the network and DEBIAN_MIRROR, then run 'make deb-guest' again"
fi
# Debian's archive as a bookworm machine has it, security updates
# included (the Debian kernel the guest boots comes from there).
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
	"$mirror" "$mirror" "$security" >"$root/etc/apt/sources.list"
info "installing the container tools (apt-get in the guest's root)"
in_chroot "$root" "$cache" apt-get update -q >"$dir/apt.log" 2>&1 ||
	{ tail -n 20 "$dir/apt.log" >&2; die "apt-get update failed in the guest's root" "check the network and DEBIAN_MIRROR"; }
# shellcheck disable=SC2086  # one package per word
in_chroot "$root" "$cache" apt-get install -y -q --no-install-recommends $tools >>"$dir/apt.log" 2>&1 ||
	{ tail -n 20 "$dir/apt.log" >&2; die "apt-get could not install the container tools" "full log: $dir/apt.log"; }

# The tool tests' users, with their ids and subordinate ranges
# (tool_subids): alice one range, dave 1001 (podman and buildah then write
# maps of 1002 extents), erin and carol 4096 each.
i=0
for u in alice bob carol dave erin; do
	chroot "$root" useradd --uid $((1000 + i)) --user-group --create-home \
		--shell /bin/bash "$u"
	i=$((i + 1))
done
tool_subids "$dir/subid"
cat "$dir"/subid/{alice,carol,dave,erin} >"$root/etc/subuid"
cp "$root/etc/subuid" "$root/etc/subgid"
echo userns-idmap >"$root/etc/hostname"
printf '/dev/vda / ext4 defaults 0 1\n' >"$root/etc/fstab"
# No password for root on the serial console (a test guest, never networked).
chroot "$root" passwd -d root >/dev/null
echo "$want" >"$stamp"
info "Debian root file system in $root ($(du -sh "$root" | cut -f1))"
