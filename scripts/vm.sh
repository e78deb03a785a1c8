#!/bin/bash
# vm.sh: boot a kernel under QEMU (TCG) with the project's initramfs and run
# one command in it, in the spirit of virtme-ng's 'vng -- CMD'.
#
#   vm.sh [options] -- CMD [ARG...]   run CMD in the guest, exit with its status
#   vm.sh [options] --shell           interactive shell on the console
#
# Options:
#   --kernel FILE      bzImage to boot (default build/kernels/patched.bzImage)
#   --variant NAME     shorthand for --kernel build/kernels/NAME.bzImage
#   --initramfs FILE   base initramfs (default build/initramfs.cpio)
#   --disk IMG         attach a raw disk image as a virtio disk (repeatable)
#   --icount           deterministic mode: -icount shift=0, 1 guest ns = 1 instruction
#   --timeout SEC      kill a guest that has not finished (default 600)
#   --log FILE         also write the console to FILE
#   --mem MB           guest memory (default 1024)
#   --smp N            guest CPUs (default 1; more: multi-threaded TCG)
#   --append ARGS      more kernel command line
#   --exec-log FILE    with --icount: when the guest prints @@PROFILE-READY,
#                      log every instruction it executes to FILE (QEMU's
#                      'singlestep on' and 'log exec,nochain'), then send a
#                      line to its console; stop at @@PROFILE-DONE
#                      (make profile, bench/idmap_profile.c)
#   --plugin SO LOG    load the TCG plugin SO, its output (QEMU's log,
#                      '-d plugin') to LOG (make memlines, bench/memlines.c)
# The console streams to stdout.  Exit status: the guest command's, or 124
# when the guest timed out, 125 when it ended without reporting a status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=$BUILD/kernels/patched.bzImage
initramfs=$BUILD/initramfs.cpio
disks=()
icount=0
timeout=600
log=""
mem=1024
smp=1
more_append=""
shell=0
exec_log=""
plugin=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--variant) kernel=$BUILD/kernels/$2.bzImage; shift 2 ;;
	--initramfs) initramfs=$2; shift 2 ;;
	--disk) disks+=("$2"); shift 2 ;;
	--icount) icount=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--append) more_append=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	--exec-log) exec_log=$2; shift 2 ;;
	--plugin)
		if [ ! -r "${2:-}" ] || [ -z "${3:-}" ]; then
			die "--plugin takes a plugin (a readable .so) and a log file"
		fi
		plugin=(-plugin "file=$2" -d plugin -D "$3")
		shift 3 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1'" "see '$0 --help'" ;;
	esac
done
if [ "$shell" = 0 ] && [ $# -eq 0 ]; then
	die "no command given" "usage: $0 [options] -- CMD, or $0 --shell"
fi
[ -f "$kernel" ] || die "kernel $kernel not found" "build it first ('make kernel' or 'make kernel-stock')"
[ -f "$initramfs" ] || die "initramfs $initramfs not found" "run 'make initramfs'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed" "run 'make deps'"
for d in "${disks[@]}"; do
	[ -f "$d" ] || die "disk image $d not found"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rd=$tmp/initrd.cpio
cp "$initramfs" "$rd"
if [ "$shell" = 0 ]; then
	mkdir -p "$tmp/root"
	{
		echo '#!/bin/sh'
		if [ $# -eq 1 ]; then
			printf '%s\n' "$1"
		else
			printf '%q ' "$@"
			echo
		fi
	} >"$tmp/root/cmd"
	chmod 755 "$tmp/root/cmd"
	(cd "$tmp/root" && echo cmd | cpio -o -H newc --owner=0:0 --quiet) >>"$rd"
fi

accel=tcg
cpu=max
append="console=ttyS0 panic=-1 oops=panic rdinit=/init${more_append:+ $more_append}"
if [ "$smp" -gt 1 ]; then
	# One host thread per guest CPU: the CPUs really run at the same time.
	accel=tcg,thread=multi
fi
extra=()
if [ "$icount" = 1 ]; then
	# Deterministic: instructions as the clock, a fixed guest date, no
	# hardware random numbers, no address-space randomisation.
	cpu=max,rdrand=off,rdseed=off
	append="$append norandmaps"
	# shellcheck disable=SC2054  # QEMU option values with commas
	extra=(-icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm)
fi
qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m "$mem" -smp "$smp"
	-kernel "$kernel" -initrd "$rd" -no-reboot -nodefaults -display none
	-append "$append" "${extra[@]}" "${plugin[@]}")
n=0
for d in "${disks[@]}"; do
	qemu+=(-drive "file=$d,format=raw,if=virtio,index=$n")
	n=$((n + 1))
done

if [ "$shell" = 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

# The host speaks to QEMU's monitor and to the guest's console through
# FIFOs, opened read-write so that no open blocks (QEMU may not have
# opened its ends yet, or have died); QEMU's exit is seen by polling it.
# monitor CMD...: run the commands, then 'info status'; print its answer.
monitor() {
	local line
	printf '%s\n' "$@" 'info status' >&4
	while IFS= read -r -t 60 line <&6; do
		case "$line" in *'VM status'*) printf '%s\n' "$line"; return 0 ;; esac
	done
	return 1
}

out=$tmp/console.log
set +e
if [ -n "$exec_log" ]; then
	[ "$icount" = 1 ] || die "--exec-log needs --icount"
	[ ${#plugin[@]} = 0 ] || die "--exec-log and --plugin both write QEMU's log: use one"
	mkfifo "$tmp/ser.in" "$tmp/ser.out" "$tmp/mon.in" "$tmp/mon.out"
	timeout -k 5 "$timeout" "${qemu[@]}" -serial "pipe:$tmp/ser" -monitor "pipe:$tmp/mon" \
		-D "$exec_log" </dev/null &
	qpid=$!
	exec 3<>"$tmp/ser.in" 4<>"$tmp/mon.in" 5<>"$tmp/ser.out" 6<>"$tmp/mon.out"
	partial=""
	while :; do
		line=""
		if ! IFS= read -r -t 1 line <&5; then
			# A timeout keeps what it read: the start of a line.
			partial+=$line
			kill -0 "$qpid" 2>/dev/null && continue
			[ -n "$partial" ] && printf '%s\n' "$partial" | tee -a "$out"
			break
		fi
		line=${partial}${line%$'\r'}
		partial=""
		printf '%s\n' "$line" | tee -a "$out"
		case "$line" in
		*@@PROFILE-READY*)
			status_line=$(monitor 'singlestep on' 'log exec,nochain') ||
				die "QEMU's monitor did not answer 'singlestep on', 'log exec,nochain'"
			case "$status_line" in
			*'single step mode'*) ;;
			*) die "QEMU did not enter single-step mode ($status_line)" \
				"this QEMU may call it one-insn-per-tb; the profile needs one instruction per block" ;;
			esac
			echo go >&3 ;;
		*@@PROFILE-DONE*)
			# The guest may end before QEMU answers: not an error.
			monitor 'log none' 'singlestep off' >/dev/null ;;
		esac
	done
	wait "$qpid"
	status=("$?")
	exec 3>&- 4>&- 5<&- 6<&-
elif [ "$icount" = 1 ]; then
	# A file never blocks the guest's serial port, so the host's speed at
	# reading the console cannot move the guest's interrupts.
	timeout -k 5 "$timeout" "${qemu[@]}" -serial "file:$tmp/serial.raw" -monitor none </dev/null
	status=("$?")
	tr -d '\r' <"$tmp/serial.raw" | tee "$out"
else
	timeout -k 5 "$timeout" "${qemu[@]}" -serial stdio -monitor none </dev/null 2>&1 |
		stdbuf -oL tr -d '\r' | tee "$out"
	status=("${PIPESTATUS[@]}")
fi
set -e
[ -n "$log" ] && cp "$out" "$log"
if [ "${status[0]}" = 124 ] || [ "${status[0]}" = 137 ]; then
	info "the guest did not finish within $timeout s and was killed (--timeout SEC to allow more)"
	exit 124
fi
rc=$(sed -n 's/^.*@@USERNS-IDMAP-EXIT=\([0-9]*\)@@.*$/\1/p' "$out" | tail -n 1)
if [ -z "$rc" ]; then
	info "the guest ended without reporting an exit status (kernel panic or crash? see the console above)"
	exit 125
fi
exit "$rc"
