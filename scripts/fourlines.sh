#!/bin/bash
# make fourlines: what a lookup that touches at most 4 cache lines for
# every map shape (issue 8's second target) costs in instructions, built
# and measured in user space (bench/fourlines.c) under valgrind's
# callgrind, against our kernel's one-extent lookup compiled the same way.
# Writes results/fourlines.md.  No kernel is built or booted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null ||
	die "valgrind is not installed" "run 'make deps' (Debian package valgrind)"
mkdir -p "$RESULTS" "$BUILD"
bin=$BUILD/fourlines
# The kernel's optimisation level; no stack protector, as in the kernel's
# lookup paths.
gcc -O2 -fno-stack-protector -Wall -Wextra -o "$bin" "$TOP/bench/fourlines.c" ||
	die "bench/fourlines.c did not build"
cg=$(mktemp)
trap 'rm -f "$cg"' EXIT

# per_lookup SHAPE N LOOKUP: instructions per call of find_LOOKUP, and the
# lines each call touches.
per_lookup() {
	local printed calls lines total
	printed=$(valgrind --tool=callgrind --callgrind-out-file="$cg" \
		--toggle-collect="find_$3" "$bin" "$1" "$2" "$3" 2>/dev/null) ||
		die "fourlines $* failed: its answer differs from a scan of the map" \
			"run '$bin $*' to see which id"
	read -r calls lines <<<"$printed"
	total=$(awk '$1 == "totals:" || $1 == "summary:" { print $2; exit }' "$cg")
	[ -n "$total" ] || die "no instruction total in callgrind's output for $*"
	awk -v t="$total" -v c="$calls" -v l="$lines" 'BEGIN { printf "%.1f %d", t / c, l }'
}

out=$RESULTS/fourlines.md
read -r one _ <<<"$(per_lookup narrow 1 one)"
{
	echo "# make fourlines: a lookup in at most 4 lines, instructions per lookup"
	echo
	echo "User-space model (bench/fourlines.c), gcc -O2, counted by callgrind;"
	echo "every answer checked against a scan of the map. Our kernel's"
	echo "one-extent lookup compiled the same way: $one instructions."
	echo
	echo "| shape | N | lines | instructions | over one extent |"
	echo "|---|---|---|---|---|"
	for shape in narrow wide clustered bimodal random worst; do
		for n in 64 340 1024 4096; do
			read -r ins lines <<<"$(per_lookup "$shape" "$n" four)"
			awk -v sh="$shape" -v n="$n" -v l="$lines" -v i="$ins" -v o="$one" \
				'BEGIN { printf "| %s | %d | %d | %.1f | +%.1f |\n", sh, n, l, i, i - o }'
		done
	done
} >"$out"
cat "$out"
info "results: $out"
