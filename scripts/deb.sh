#!/bin/bash
# deb.sh VARIANT: the kernel as Debian users get one, as Debian packages.
#   patched   the tree (build/linux: linux-source with the series)
#   stock     the base commit of the same tree (build/linux-stock)
# Config: Debian's own for the base (linux-config-BASE, flavour amd64, the
# config of linux-image-*-amd64), then the kernel's localmodconfig with
# LSMOD=config/debian-modules.txt: every option Debian builds in stays (the
# LSM stack, IA32_EMULATION and UID16, SMP, the mitigations), the modules of
# that list stay modules, the drivers of hardware QEMU does not have go.
# Changed from Debian's config, each for a reason (CHANGES below): no debug
# info (build time and disk; BTF needs it), modules signed with a key made
# at build time (Debian's key is not ours), a LOCALVERSION that names the
# kernel, KUnit and the engine's suite as modules (KUNIT below).
# Packaged with the kernel's bindeb-pkg target, as Debian's kernel
# handbook describes for custom kernels: linux-image-* and linux-headers-*
# in build/deb/ (build/6.12/deb/ for BASE=6.12).  Incremental, like
# build-kernel.sh: reconfigured only when an input changed, ccache shared.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-}
case "$variant" in
patched) src=$TREE; local=-userns-idmap ;;
stock) src=$STOCK_TREE; local=-stock ;;
*) die "unknown variant '$variant'" "use patched or stock (make deb builds both)" ;;
esac
[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first"
[ "$variant" != stock ] || stock_worktree
flavour=amd64_none_amd64
debcfg=/usr/src/linux-config-$KBASE/config.$flavour.xz
[ -r "$debcfg" ] || die "no Debian config $debcfg" "run 'make deps' (installs linux-config-$KBASE)"
command -v fakeroot >/dev/null || die "fakeroot is not installed" "run 'make deps'"

out=$BUILD/deb
obj=$out/obj-$variant
mkdir -p "$obj"
# What is changed from Debian's config, and why; scripts/config syntax.
CHANGES=(
	# Debug info: the build's largest cost in time and disk, and
	# BTF is made from it; nothing here reads either.
	--disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT
	--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5
	--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
	# Debian signs its modules with its own key at packaging time: here
	# the build makes a key (certs/signing_key.pem) and signs them all,
	# so they load without tainting the kernel, as Debian's do.
	--enable MODULE_SIG_ALL --set-str MODULE_SIG_KEY certs/signing_key.pem
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	# The kernel's name: 6.1.N-userns-idmap, 6.1.N-stock.
	--set-str LOCALVERSION "$local" --disable LOCALVERSION_AUTO
	--set-str BUILD_SALT "$KBASE$local"
)
# Debian's config has no KUnit: the engine's suite is built as a module.
KUNIT=(--module KUNIT --module USER_IDMAP_KUNIT_TEST)
# Options the Debian guest tests, which must survive localmodconfig as
# Debian's config sets them (built in or a module: 6.12 builds FUSE in,
# 6.1 has it as a module).
KEEP_OPTS="USER_NS SMP IA32_EMULATION UID16 SECURITY_APPARMOR MODULES EXT4_FS
XFS_FS BTRFS_FS OVERLAY_FS FUSE_FS NFS_FS"
KEEP=""
for o in $KEEP_OPTS; do
	want=$(xz -dc "$debcfg" | grep -E "^CONFIG_$o=[ym]\$") ||
		die "Debian's config $debcfg does not enable CONFIG_$o" \
			"the guest tests need it: update KEEP_OPTS in $0 for this base"
	KEEP="$KEEP $want"
done
[ "$variant" = stock ] || KEEP="$KEEP CONFIG_USER_IDMAP_KUNIT_TEST=m"
mods=$TOP/config/debian-modules.txt
# LOCALVERSION set (empty: CONFIG_LOCALVERSION names the kernel), or
# setlocalversion appends a "+" for a git tree.
mk=(make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= -j"$(nproc)")

cfgsum=$( (cat "$debcfg" "$mods" "$0"; echo "${DEB_MODULES:-}"; cd "$src" && find . -name 'Kconfig*' -not -path './.git/*' -print0 |
	sort -z | xargs -0 cat) | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.cfgsum" 2>/dev/null)" != "$cfgsum" ]; then
	info "configuring $variant: Debian's $flavour config, localmodconfig with $(grep -cv '^#' "$mods") modules"
	xz -dc "$debcfg" >"$obj/.config"
	"$src/scripts/config" --file "$obj/.config" "${CHANGES[@]}"
	"${mk[@]}" olddefconfig >/dev/null
	# DEB_MODULES=all: every module of Debian's config (for a real
	# machine's hardware; hours on 2 cores), not the guest's list.
	if [ "${DEB_MODULES:-}" != all ]; then
		grep -v '^#' "$mods" | awk 'BEGIN { print "Module Size Used" } NF { print $1, 0, 0 }' >"$obj/lsmod"
		"${mk[@]}" LSMOD="$obj/lsmod" localmodconfig </dev/null >"$obj/localmodconfig.log" 2>&1 ||
			{ tail -n 20 "$obj/localmodconfig.log" >&2; die "localmodconfig failed" "log: $obj/localmodconfig.log"; }
		"${mk[@]}" olddefconfig >/dev/null
	fi
	# KUnit as modules, in both kernels alike: the engine's suite runs
	# when user_idmap_kunit is loaded (stock has no such option, and
	# olddefconfig drops it there).  Set after localmodconfig, which
	# would drop modules that no list names.
	"$src/scripts/config" --file "$obj/.config" "${KUNIT[@]}"
	"${mk[@]}" olddefconfig >/dev/null
	bad=""
	for o in $KEEP; do
		grep -qx "$o" "$obj/.config" || bad="$bad $o"
	done
	[ -z "$bad" ] || die "the $variant config lost:$bad" "see $obj/.config and $obj/localmodconfig.log"
	echo "$cfgsum" >"$obj/.cfgsum"
fi
info "$variant: $(grep -c '=m$' "$obj/.config") modules, $(grep -c '=y$' "$obj/.config") built-in options"

# CONFIG_ONLY=1: configured, not built.
if [ "${CONFIG_ONLY:-0}" = 1 ]; then
	info "configured $variant in $obj (not built: CONFIG_ONLY=1)"
	exit 0
fi

ver=$(source_version)
info "building $variant (make -j$(nproc) bindeb-pkg, ccache)"
start=$(date +%s)
# The kernel and modules first (ccache serves what it has), then the
# packages: bindeb-pkg finds the build done.
if ! "${mk[@]}" bzImage modules >"$obj/build.log" 2>&1 ||
	! "${mk[@]}" KDEB_PKGVERSION="$ver+${local#-}" bindeb-pkg >>"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -n 30 >&2
	die "the $variant packages did not build" "full log: $obj/build.log"
fi
rel=$(cat "$obj/include/config/kernel.release")
rm -f "$out"/*"_$ver+${local#-}_"*.buildinfo "$out"/*"_$ver+${local#-}_"*.changes
info "built $variant in $(($(date +%s) - start)) s:"
ls "$out"/linux-*"$rel"_*.deb >&2 || die "bindeb-pkg made no packages for $rel" "see $obj/build.log"
