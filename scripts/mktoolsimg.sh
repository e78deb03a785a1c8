#!/bin/bash
# mktoolsimg.sh OUT.img: the root file system of the container-tool tests
# (guest/tools/, make check), as an ext4 image the guest mounts read-only
# and makes its root (bwrap, runc and crun pivot_root, which the initramfs
# root cannot do).  It holds:
#  - the test initramfs (busybox, /etc, /guest, /tests), unpacked;
#  - every file of the Debian packages in guest/tools/packages.txt, as the
#    host has them installed ('make deps'), and the shared libraries of
#    every program among them;
#  - guest/tools/ at /guest/tools, the tool users' subordinate ranges
#    (/etc/tools-subid/USER, bound over /etc/subuid and /etc/subgid by each
#    test), and a busybox OCI bundle root for crun and runc.
# Files keep their modes (newuidmap and newgidmap are setuid) and belong to
# root in the image even when this runs as another user.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: mktoolsimg.sh OUT.img}
initramfs=$BUILD/initramfs.cpio
[ -r "$initramfs" ] || die "no $initramfs" "run 'make initramfs' first"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 not installed" "run 'make deps'"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
(cd "$root" && cpio -idm --quiet) <"$initramfs"

# busybox's applets, which the initramfs's init links at boot: here the
# image is the root.  Not over a program a package brings.
"$root/bin/busybox" --list-full | while IFS= read -r a; do
	mkdir -p "$root/$(dirname "$a")"
	[ -e "$root/$a" ] || [ -L "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done

# The packages' files.  Documentation, manuals, translations, shell
# completions and service units are left out: nothing in the guest reads them.
pkgs=$(grep -v '^#' "$TOP/guest/tools/packages.txt" | tr '\n' ' ')
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		die "Debian package $p is not installed" "run 'make deps'"
done
# shellcheck disable=SC2086  # one package per word
dpkg -L $pkgs | sort -u | grep -Ev '^/usr/share/(doc|man|locale|lintian|bash-completion|zsh|fish)/|^/(usr/)?lib/systemd/|^/etc/(init\.d|apparmor\.d|default)/' |
	while IFS= read -r f; do
		# Files and symbolic links to files; not the host's merged-/usr
		# directory links (/lib, /bin), which the image has as directories.
		if { [ -L "$f" ] && [ ! -d "$f" ]; } || { [ -f "$f" ] && [ ! -L "$f" ]; }; then
			printf '%s\0' "${f#/}"
		fi
	done | (cd / && xargs -0 cp -a --parents -t "$root")
# cp -a drops the setuid and setgid bits of files it cannot give their
# owner (not root): put every mode back as the host has it (newuidmap,
# newgidmap are setuid root).
# shellcheck disable=SC2086
dpkg -L $pkgs | sort -u | while IFS= read -r f; do
	if [ -f "$f" ] && [ ! -L "$f" ] && { [ -u "$f" ] || [ -g "$f" ]; } && [ -e "$root$f" ]; then
		chmod --reference="$f" "$root$f"
	fi
done

# Shared libraries of every ELF program or library copied, resolved on the
# host (the guest's loader and libraries are the host's).
find "$root" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
	xargs -0 file -N | awk -F': ' '/ELF .*dynamically linked/ { print $1 }' |
	while IFS= read -r f; do
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
	done | sort -u | while IFS= read -r lib; do
	[ -e "$root$lib" ] && continue
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done

# The tests, their users and their subordinate ranges (one file per user).
mkdir -p "$root/guest/tools" "$root/etc/tools-subid" "$root/home" "$root/run" \
	"$root/var/tmp" "$root/mnt/ext4" "$root/sys/fs/cgroup"
cp -a "$TOP"/guest/tools/. "$root/guest/tools/"
# The versions of the tools, which tool_limits.sh reports with what it
# measured (the README's table of tool limits is written from that).
# shellcheck disable=SC2086  # one package per word
dpkg-query -W -f='${Package} ${Version}\n' $pkgs util-linux >"$root/guest/tools/versions" ||
	die "dpkg-query could not list the tools' versions" "run 'make deps'"
cat >>"$root/etc/passwd" <<'EOF'
dave:x:1003:1003:dave:/home/dave:/bin/sh
erin:x:1004:1004:erin:/home/erin:/bin/sh
EOF
cat >>"$root/etc/group" <<'EOF'
dave:x:1003:
erin:x:1004:
EOF
tool_subids "$root/etc/tools-subid"

# A busybox bundle root for crun and runc (config.json is written by the
# test, per runtime).
mkdir -p "$root/opt/bundle/rootfs"/{bin,proc,dev,sys,tmp,mnt/data,guest/tools}
cp /bin/busybox "$root/opt/bundle/rootfs/bin/busybox"
for a in sh id cat stat touch chown ls awk wc sed; do
	ln -s busybox "$root/opt/bundle/rootfs/bin/$a"
done

# The image: the tree's size and room for metadata.
mb=$(($(du -sm "$root" | cut -f1) * 5 / 4 + 32))
rm -f "$out"
truncate -s "${mb}M" "$out"
mkfs.ext4 -q -F -L tools -d "$root" "$out" "${mb}M" ||
	die "mkfs.ext4 -d could not build $out" "e2fsprogs >= 1.43 ('make deps')"
if [ "$(id -u)" != 0 ]; then
	# Not root: the copies belong to us.  Give every inode to root, as
	# on the host (the setuid helpers must be setuid root).
	(cd "$root" && find . -mindepth 1 -printf '/%P\n') |
		awk '{ print "sif \"" $0 "\" uid 0"; print "sif \"" $0 "\" gid 0" }' |
		debugfs -w -f - "$out" >/dev/null 2>&1 ||
		die "debugfs could not give the files of $out to root" "run as root"
	printf 'sif / uid 0\nsif / gid 0\n' | debugfs -w -f - "$out" >/dev/null 2>&1
fi
info "tools image $out (${mb} MiB)"
