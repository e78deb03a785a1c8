#!/bin/sh
# newuidmap-user.sh BASE STEP FILE...: run as a user whose 4096 subordinate
# ranges are BASE + i * STEP, STEP ids each.  A new user namespace gets, through
# newuidmap and newgidmap (one write each), the 4096 extents
# "i*STEP BASE+i*STEP STEP"; then it reports (inside.sh) what it sees,
# stat:FILE for each FILE.  Synchronised through two FIFOs: the namespace
# tells its pid, waits until both maps are written.
base=$1 step=$2
shift 2
a=$HOME/pid.fifo b=$HOME/go.fifo
rm -f "$a" "$b"
mkfifo "$a" "$b" || exit 1
ops=""
for f in "$@"; do
	ops="$ops stat:$f"
done
# If unshare fails, it says so through the FIFO instead of the pid.
# shellcheck disable=SC2016,SC2086  # expanded by the inner shell; ops: words
{ unshare -U sh -c 'echo $$ >"$1"; read -r go <"$2"; shift 2; exec /guest/tools/inside.sh "$@"' \
	sh "$a" "$b" $ops || echo "unshare-failed" >"$a"; } >"$HOME/inside.out" 2>&1 &
read -r pid <"$a"
if [ "$pid" = unshare-failed ]; then
	wait
	cat "$HOME/inside.out"
	echo "error=unshare -U failed"
	exit 1
fi
args=$(awk -v b="$base" -v s="$step" \
	'BEGIN { for (i = 0; i < 4096; i++) printf "%.0f %.0f %.0f ", i * s, b + i * s, s }')
# shellcheck disable=SC2086  # 3 x 4096 arguments
newuidmap "$pid" $args
echo "newuidmap=$?"
# shellcheck disable=SC2086
newgidmap "$pid" $args
echo "newgidmap=$?"
echo go >"$b"
wait
cat "$HOME/inside.out"
