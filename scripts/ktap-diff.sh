#!/bin/bash
# ktap-diff.sh LOG_A LOG_B: compare two guest console logs test for test.
# Each program's top-level results (between @@BEGIN PROG@@ and @@END@@)
# are taken by number (ok, not-ok, skip); a line is printed for every test
# whose result differs, or that only one log has, as
#   PROG #N NAME: A_RESULT / B_RESULT
# and last a count.  make deb-guest runs it on stock against ours and
# Debian's kernel against stock.  Exit status 0 whatever it finds: which
# differences are expected is for the reader (docs/testing.md).
set -euo pipefail

results() {
	# "PROG #N<TAB>RESULT<TAB>NAME": by number, since a skipped test's
	# line may have no name ("ok 8 # SKIP ...").
	awk '/^@@BEGIN / { prog = $2; sub(/@@$/, "", prog); next }
	     /^@@END / { prog = ""; next }
	     prog != "" && /^(not )?ok [0-9]+/ {
		res = ($1 == "not") ? "not-ok" : "ok"
		if ($0 ~ /# [Ss][Kk][Ii][Pp]/) res = "skip"
		num = ($1 == "not") ? $3 : $2
		name = $0
		sub(/^(not )?ok [0-9]+ */, "", name)
		sub(/ *#.*/, "", name)
		print prog " #" num "\t" res "\t" name
	     }' "$1" | sort -t$'\t' -k1,1 -u
}

a=$(mktemp)
b=$(mktemp)
trap 'rm -f "$a" "$b"' EXIT
results "$1" >"$a"
results "$2" >"$b"
join -t$'\t' -a 1 -a 2 -e missing -o 0,1.2,2.2,1.3,2.3 "$a" "$b" |
	awk -F'\t' '$2 != $3 { name = ($4 != "" && $4 != "missing") ? $4 : $5
	                       print $1 " " name ": " $2 " / " $3; d++ }
	            END { printf "%d of %d tests differ\n", d, NR }'
