# shellcheck shell=bash
# Common settings for the harness scripts.  Sourced, never run.
# shellcheck disable=SC2034  # variables for the scripts that source this

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The kernel the series is for: BASE=6.1 (the default) or BASE=6.12, each
# with its own series/BASE/ and Debian package linux-source-BASE.  6.1
# builds in build/, 6.12 in build/6.12/; both share one ccache.
KBASE=${BASE:-6.1}
KBASES="6.1 6.12"
# 6.1 keeps the paths it had before there were two bases.
sub=/$KBASE
[ "$KBASE" != 6.1 ] || sub=""
BUILD=${BUILD:-$TOP/build$sub}
TREE=$BUILD/linux
STOCK_TREE=$BUILD/linux-stock
SERIES=$TOP/series/$KBASE
# Benchmark output (ignored; docs/ keeps the figures): results/ for 6.1,
# results/6.12/ for 6.12.
RESULTS=$TOP/results$sub
SRC_PKG=linux-source-$KBASE
SRC_TARBALL=${SRC_TARBALL:-/usr/src/$SRC_PKG.tar.xz}
BASE_TAG=base
export CCACHE_DIR=${CCACHE_DIR:-$TOP/build/ccache}
export CCACHE_BASEDIR=$TOP/build
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

die() {
	printf '%s: error: %s\n' "${0##*/}" "$1" >&2
	shift
	for hint in "$@"; do
		printf '%s:   %s\n' "${0##*/}" "$hint" >&2
	done
	exit 1
}

info() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

case " $KBASES " in
*" $KBASE "*) ;;
*) die "unknown BASE '$KBASE'" "use one of: $KBASES (BASE=6.12 make check)" ;;
esac

# Installed Debian package version of the kernel source, or "unknown".
source_version() {
	dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || echo unknown
}

# Hash of what git am applies: the series file and the patches it lists.
series_hash() {
	(cd "$SERIES" && cat series 2>/dev/null &&
		sed '/^#/d' series 2>/dev/null | xargs -r cat) |
		sha256sum | cut -d' ' -f1
}

tree_git() {
	git -C "$TREE" -c user.name=userns-idmap -c user.email=userns-idmap@localhost "$@"
}

# stock_worktree: build/linux-stock, a worktree of the tree at its base
# commit (stock, with nothing of the series), created or moved there.
stock_worktree() {
	local want
	want=$(tree_git rev-parse "$BASE_TAG")
	if [ ! -e "$STOCK_TREE/.git" ]; then
		info "creating the stock worktree at $STOCK_TREE"
		tree_git worktree prune
		tree_git worktree add -q --detach "$STOCK_TREE" "$BASE_TAG"
	elif [ "$(git -C "$STOCK_TREE" rev-parse HEAD)" != "$want" ]; then
		git -C "$STOCK_TREE" checkout -q --detach "$want"
	fi
}

# in_chroot ROOT CACHE CMD...: CMD in the Debian root file system ROOT,
# with /proc, /sys and /dev mounted (the kernel packages' postinst scripts
# and apt need them) and apt's package cache at CACHE/apt (downloads kept
# across rebuilds); unmounted again however CMD ends.  Root only.
in_chroot() {
	local root=$1 cache=$2 rc=0 m
	shift 2
	mkdir -p "$cache/apt" "$root/var/cache/apt/archives"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
	mount --bind "$cache/apt" "$root/var/cache/apt/archives"
	DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 chroot "$root" "$@" || rc=$?
	for m in var/cache/apt/archives dev sys proc; do
		umount -R "$root/$m" 2>/dev/null || umount -lR "$root/$m" || true
	done
	return "$rc"
}

# suite_programs: the names of the test programs in $BUILD/tests that a
# kernel with user namespaces runs (not the CONFIG_USER_NS=n ones, not
# faults_test, which needs check-debug's fault injection), one a line.
suite_programs() {
	local t
	for t in "$BUILD"/tests/*; do
		case "$t" in *nouserns* | *faults_test) ;; *) echo "${t##*/}" ;; esac
	done
}

# tool_subids DIR: the container-tool users' subordinate ranges, one file
# per user (DIR/USER, in /etc/subuid's format), for the tools image and
# the Debian guest.
tool_subids() {
	local sub=$1 i
	mkdir -p "$sub"
	# alice: one ordinary range (bwrap, lxc-usernsexec, crun, runc)
	echo "alice:100000:65536" >"$sub/alice"
	# dave: 1001 ranges of 500 ids, 1000 apart (podman, buildah): with his own
	# id, maps of 1002 extents, over stock's 340
	for ((i = 0; i < 1001; i++)); do
		echo "dave:$((200000 + i * 1000)):500"
	done >"$sub/dave"
	# erin: 4096 ranges of 20 five-digit ids; carol: 4096 ranges of 100
	# ten-digit ids (newuidmap)
	for ((i = 0; i < 4096; i++)); do
		echo "erin:$((10000 + i * 20)):20"
	done >"$sub/erin"
	for ((i = 0; i < 4096; i++)); do
		echo "carol:$((3000000000 + i * 100)):100"
	done >"$sub/carol"
}

# A fresh ext4 image at $1 (64 MiB, project ids and quota), owned by root.
mkdisk() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -O project,quota -E root_owner=0:0 "$1" >/dev/null 2>&1 ||
		die "mkfs.ext4 failed on $1" "run 'make deps' (installs e2fsprogs)"
}

# ktap_results LOG VARIANT KUNIT PROG...: print the KTAP in a guest console
# log (the KUnit lines printed at boot, each program's output) and what
# failed: a program that did not run to its end, the user_idmap KUnit
# suite missing when KUNIT is "yes".  Sets p, f and s (passed, failed,
# skipped) for the caller.
ktap_results() {
	local log=$1 v=$2 kunit=$3 t counts
	shift 3
	echo "# ---- $v kernel: KTAP ----"
	awk '/^Run \/init/ { booted = 1 }
	     /^KTAP version/ { ktap = 1 }
	     ktap && !booted && /^(KTAP version|# |(not )?ok |[0-9]+\.\.[0-9]+|    )/ { print }
	     /^@@BEGIN / { inprog = 1 }
	     inprog { print }
	     /^@@END / { inprog = 0 }' "$log"
	counts=$(awk -f "$TOP/scripts/count-ktap.awk" "$log")
	echo "$counts" | sed '$d'
	# shellcheck disable=SC2034  # p, f, s are the caller's
	read -r p f s <<<"$(echo "$counts" | tail -n 1)"
	for t in "$@"; do
		if ! grep -q "^@@END $t rc=" "$log"; then
			f=$((f + 1))
			echo "FAILED: $t did not run to its end on the $v kernel"
		fi
	done
	if [ "$kunit" = yes ] && ! grep -q '^    # Subtest: user_idmap$' "$log"; then
		f=$((f + 1))
		echo "FAILED: the user_idmap KUnit suite did not run (CONFIG_USER_IDMAP_KUNIT_TEST?)"
	fi
}

# tally LABEL RC LOG: after ktap_results, for one guest: a guest that did
# not finish (vm.sh exit RC) is one more failure; prints LABEL's counts and
# adds them to the caller's tp, tf, ts and summary.
tally() {
	if [ "$2" != 0 ]; then
		f=$((f + 1))
		echo "FAILED: the $1 guest did not finish cleanly (vm.sh exit $2; see $3)"
	fi
	echo "# $1: $p passed, $f failed, $s skipped"
	# shellcheck disable=SC2034  # the caller's
	summary="$summary ${1// /-}: $p/$f/$s"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
}

# debug_results LOG VARIANT KUNIT PROG...: ktap_results for a guest that
# printed the kernel log (and kmemleak's list) after its tests, between
# markers (guest/debug-tail.sh): the tests' KTAP without that tail, and a
# failure if the tail is missing.  Sets p, f and s like ktap_results.
debug_results() {
	local log=$1 v=$2 ktap=${1%.log}.ktap
	awk '/^@@BEGIN (kmemleak|dmesg)@@/ { skip = 1 } !skip { print } /^@@END (kmemleak|dmesg)@@/ { skip = 0 }' \
		"$log" >"$ktap"
	shift
	ktap_results "$ktap" "$@"
	if ! grep -q '^@@END dmesg@@' "$log"; then
		f=$((f + 1))
		echo "FAILED: the $v guest printed no kernel log at the end (see $log)"
	fi
}

# bench_guest PROG KERNEL...: build the benchmark kernels, bench/PROG.c as
# a static guest program, and build/initramfs-bench.cpio with it.
bench_guest() {
	local prog=$1 v
	shift
	for v in "$@"; do
		"$TOP/scripts/build-kernel.sh" "$v"
	done
	mkdir -p "$BUILD/bench"
	gcc -static -O2 -Wall -Wextra -o "$BUILD/bench/$prog" "$TOP/bench/$prog.c" ||
		die "bench/$prog.c did not build"
	"$TOP/scripts/mkinitramfs.sh" "$BUILD/initramfs-bench.cpio"
}
