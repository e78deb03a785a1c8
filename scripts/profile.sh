#!/bin/bash
# make profile WORKLOAD=stat: where the kernel spends its instructions on
# one system call, function by function, on each benchmark kernel.
#
# Each kernel boots under QEMU -icount shift=0 (as make bench) and runs
# bench/idmap_profile WORKLOAD CALLS, which warms its caches, then waits
# for the host: vm.sh --exec-log turns on QEMU's single-instruction
# translation and its execution log ('log exec,nochain'), so the log has a
# line for every instruction the guest executes, with its address.  The
# guest calls getppid() before and after CALLS runs of the workload;
# scripts/profile-report.py keeps what lies between the two markers, maps
# each address to its function through the kernel's System.map and writes
# instructions per call for each function and kernel, and the differences,
# to results/profile-WORKLOAD.md.
#
#   WORKLOAD   stat (default), fstat, getresuid, fchown, setfsuid; the
#              path walks open1, stat1, access1, open8, stat8, access8 (a
#              tmpfs file 1 or 8 components below a directory's fd); fork,
#              execve, clone_newuser, unshare_newuser (a child made, exec'd
#              or in a new user namespace, that exits); or
#              writeN: write() of an N-extent uid_map (e.g. write6), in
#              order; reverseN: the same lines, last first; crossN: lower
#              ids in the opposite order of first (bench/idmap_profile.c)
#   USERNS=1   run it in a child user namespace (maps "0 100000 65536"),
#              not in the initial one; results/profile-WORKLOAD-userns.md
#   CALLS      runs of the workload inside the markers (default 100)
#   KERNELS    default: nouserns-bench stock-bench patched-bench (with
#              USERNS=1, writeN or the namespace workloads: stock-bench
#              patched-bench)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

workload=${WORKLOAD:-stat}
calls=${CALLS:-100}
kernels=${KERNELS:-nouserns-bench stock-bench patched-bench}
case "$workload" in
stat|fstat|getresuid|fchown|setfsuid|open1|open8|stat1|stat8|access1|access8|fork|execve) ;;
clone_newuser|unshare_newuser)
	# A kernel without user namespaces cannot make them.
	kernels=${KERNELS:-stock-bench patched-bench} ;;
write* | reverse* | cross*)
	n=${workload#write} n=${n#reverse} n=${n#cross}
	if ! [[ $n =~ ^[1-9][0-9]{0,3}$ ]] || [ "$n" -gt 4096 ]; then
		die "WORKLOAD=$workload: N must be a number from 1 to 4096"
	fi
	[ "${USERNS:-0}" != 1 ] || die "WORKLOAD=$workload writes its maps from the initial namespace" "leave USERNS unset"
	# A kernel without user namespaces has no maps to write.
	kernels=${KERNELS:-stock-bench patched-bench} ;;
*) die "unknown WORKLOAD '$workload'" "use one of: stat fstat getresuid fchown setfsuid open1 open8 stat1 stat8 access1 access8 fork execve clone_newuser unshare_newuser writeN reverseN crossN (N = 1 to 4096)" ;;
esac
where=() name=$workload
if [ "${USERNS:-0}" = 1 ]; then
	where=(userns) name=$workload-userns
	kernels=${KERNELS:-stock-bench patched-bench}
fi
case "$calls" in
'' | *[!0-9]* | 0) die "CALLS must be a positive number, not '$calls'" ;;
esac

out=$RESULTS
mkdir -p "$out" "$BUILD/bench" "$BUILD/profile"
# shellcheck disable=SC2086  # the list of kernels
bench_guest idmap_profile $kernels

args=()
for v in $kernels; do
	log=$BUILD/profile/$v-$name.exec
	console=$BUILD/profile/$v-$name.console
	# A timer tick may fall between the markers: run again (at most 3 runs).
	for try in 1 2 3; do
		rm -f "$log"
		info "profiling $name x $calls on $v, run $try (one log line per instruction)"
		"$TOP/scripts/vm.sh" --variant "$v" --icount --timeout 1200 --exec-log "$log" \
			--initramfs "$BUILD/initramfs-bench.cpio" --log "$console" \
			-- /bench/idmap_profile "$workload" "$calls" "${where[@]}" >/dev/null ||
			die "the profile run failed on $v" "console: $console"
		[ -s "$log" ] || die "QEMU wrote no execution log for $v" "console: $console"
		rc=0
		/usr/bin/python3 "$TOP/scripts/profile-report.py" --check "$BUILD/obj-$v/System.map" "$log" || rc=$?
		[ "$rc" = 0 ] && break
		[ "$rc" = 3 ] && [ "$try" -lt 3 ] && continue
		die "no clean profile of $v" "see the message above; CALLS=${calls} smaller makes a tick less likely"
	done
	args+=("$v" "$BUILD/obj-$v/System.map" "$log")
done
/usr/bin/python3 "$TOP/scripts/profile-report.py" "$name" "$calls" "$out/profile-$name.md" "${args[@]}"
rm -f "$BUILD"/profile/*.exec
info "results: $out/profile-$name.md"
