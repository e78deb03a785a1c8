#!/bin/bash
# build-kernel.sh VARIANT: configure and build one kernel out of tree.
#   patched        the tree (build/linux) as it is, with the test config
#   stock          the base commit (a worktree at build/linux-stock), same config
#   nouserns       the tree with CONFIG_USER_NS=n (identity maps only)
#   patched-bench, stock-bench, nouserns-bench   benchmark configs (see config/)
#   patched-hold, stock-hold   bench configs, trees with bench/hold-*.patch
#   patched-debug, stock-debug   SMP kernels with the kernel's checkers (make check-debug)
#   patched-kcsan   SMP kernel with KCSAN (make check-kcsan)
# Result: build/kernels/VARIANT.bzImage (+ VARIANT.config).  Incremental:
# the config is regenerated only when a fragment changed, make rebuilds only
# what changed, ccache serves the rest.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-}
case "$variant" in
patched) src=$TREE; frags="base kunit containers compat" ;;
stock) src=$STOCK_TREE; frags="base kunit containers compat" ;;
nouserns) src=$TREE; frags="base nouserns" ;;
patched-bench) src=$TREE; frags="base bench" ;;
# make check-debug: SMP kernels with KASAN, UBSAN, KFENCE, lockdep, kmemleak
patched-debug) src=$TREE; frags="base kunit compat debug" ;;
stock-debug) src=$STOCK_TREE; frags="base kunit compat debug" ;;
# make check-kcsan: SMP kernel with KCSAN (it excludes KASAN)
patched-kcsan) src=$TREE; frags="base kunit compat kcsan" ;;
stock-bench) src=$STOCK_TREE; frags="base bench" ;;
nouserns-bench) src=$STOCK_TREE; frags="base bench nouserns" ;;
# make holdtime: the bench kernels with bench/hold-*.patch (scripts/holdtime.sh)
patched-hold) src=$BUILD/linux-hold-patched; frags="base bench" ;;
stock-hold) src=$BUILD/linux-hold-stock; frags="base bench" ;;
*) die "unknown kernel variant '$variant'" "use one of: patched stock nouserns patched-bench stock-bench nouserns-bench patched-hold stock-hold patched-debug stock-debug patched-kcsan" ;;
esac

[ -d "$TREE/.git" ] || die "no tree at $TREE" "run 'make tree' first"
command -v ccache >/dev/null || die "ccache not installed" "run 'make deps'"

[ "$src" != "$STOCK_TREE" ] || stock_worktree

obj=$BUILD/obj-$variant
mkdir -p "$obj" "$BUILD/kernels"
fragfiles=()
for f in $frags; do
	fragfiles+=("$TOP/config/$f.config")
done
# Reconfigure when a fragment or any Kconfig file of the source changed.
cfgsum=$( (cat "${fragfiles[@]}"; cd "$src" && find . -name 'Kconfig*' -not -path './.git/*' -print0 |
	sort -z | xargs -0 cat) | sha256sum | cut -d' ' -f1)
mk=(make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)")

if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.cfgsum" 2>/dev/null)" != "$cfgsum" ]; then
	info "configuring $variant: tinyconfig + ${frags// /, }"
	"${mk[@]}" tinyconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragfiles[@]}" >/dev/null)
	"${mk[@]}" olddefconfig >/dev/null
	# merge_config.sh drops options whose dependencies are missing,
	# silently: check the result, not the fragment.
	# A later fragment overrides an earlier one: the last line of an
	# option is what must hold.
	declare -A want=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]=${line#*=} ;;
		esac
	done < <(cat "${fragfiles[@]}")
	missing=""
	for opt in "${!want[@]}"; do
		val=${want[$opt]}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$obj/.config" && missing="$missing $opt=n"
			continue
		fi
		# An option this tree does not define at all (a KUnit suite of
		# the series, on the stock tree) is expected to drop out.
		if ! grep -rqs --include='Kconfig*' "^config ${opt#CONFIG_}\$" "$src"; then
			continue
		fi
		grep -qx "$opt=$val" "$obj/.config" || missing="$missing $opt=$val"
	done
	if [ -n "$missing" ]; then
		die "the $variant config did not take:$missing" \
			"a dependency of these options is missing from config/*.config; see $obj/.config"
	fi
	echo "$cfgsum" >"$obj/.cfgsum"
fi

# CONFIG_ONLY=1: configured, not built (make lint compiles a few files in it).
if [ "${CONFIG_ONLY:-0}" = 1 ]; then
	info "configured $variant in $obj (not built: CONFIG_ONLY=1)"
	exit 0
fi

# OBJS="a.o b.o": only these objects, compiled in the configured tree, no
# kernel (make compile-nouserns: CI's check of the CONFIG_USER_NS=n side).
if [ -n "${OBJS:-}" ]; then
	info "compiling $variant: ${OBJS}"
	start=$(date +%s)
	# shellcheck disable=SC2086 # a list of objects
	if ! "${mk[@]}" $OBJS >"$obj/build.log" 2>&1; then
		grep -E 'error|Error' "$obj/build.log" | head -n 30 >&2
		die "the $variant objects did not compile" "full log: $obj/build.log"
	fi
	info "compiled $variant's objects in $(($(date +%s) - start)) s (not a kernel: OBJS)"
	exit 0
fi

info "building $variant kernel (make -j$(nproc), ccache)"
start=$(date +%s)
if ! "${mk[@]}" bzImage >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -n 30 >&2
	die "the $variant kernel did not build" "full log: $obj/build.log"
fi
cp "$obj/arch/x86/boot/bzImage" "$BUILD/kernels/$variant.bzImage"
cp "$obj/.config" "$BUILD/kernels/$variant.config"
info "built $BUILD/kernels/$variant.bzImage in $(($(date +%s) - start)) s"
