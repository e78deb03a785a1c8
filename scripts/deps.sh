#!/bin/bash
# make deps: install everything the harness needs from Debian's packages.
# Skipped when every package is already installed (fast re-runs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# Nothing is written under build/: run with sudo, it would be root's and
# the next make, as the user, could not write there.

pkgs=(
	"$SRC_PKG"
	# kernel build
	build-essential bc bison flex libelf-dev libssl-dev cpio kmod python3 rsync xz-utils git file
	ccache sparse dwarves
	# guest
	qemu-system-x86 busybox-static e2fsprogs uidmap util-linux libc6-dev libcap-dev libcap-ng-dev
	# container tools the guest runs (guest/tools/, scripts/mktoolsimg.sh)
	bubblewrap lxc crun runc podman buildah conmon golang-github-containers-common
	# make deb, make deb-guest: Debian's config, packaging (6.12's
	# bindeb-pkg declares debhelper-compat 12), a bookworm guest
	"linux-config-$KBASE" fakeroot debhelper debootstrap
	# uid16_test: a 32-bit program (the 16-bit id calls)
	gcc-multilib
	# lint and benchmark
	shellcheck gnuplot-nox valgrind python3-ply python3-git
)

missing=()
for p in "${pkgs[@]}"; do
	case "$p" in '#'*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ -r "$SRC_TARBALL" ]; then
	exit 0
fi

cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	die "missing packages: ${missing[*]}" "as root, run: $cmd" "then run make again"
fi
info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "apt-get update failed" "check the network and the apt sources, then run 'make deps' again"
log=$(mktemp /tmp/userns-idmap-apt.XXXXXX)
apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "apt-get install failed (log above, full: $log)" "fix the cause, then run 'make deps' again"; }
rm -f "$log"
[ -r "$SRC_TARBALL" ] || die "$SRC_PKG is installed but $SRC_TARBALL is missing" "reinstall it: apt-get install --reinstall $SRC_PKG"
info "dependencies installed"
