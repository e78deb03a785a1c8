#!/bin/bash
# symvers-diff.sh [OUT]: the module ABI our series changes, from the
# Module.symvers of make deb's two kernels (Debian's config, ours and
# stock from one tree): exports removed, added, and those whose CRC
# (CONFIG_MODVERSIONS: a hash of the types the symbol's prototype
# reaches) changed.  A module built against stock's headers loads on ours
# only if every symbol it uses is still there with the same CRC.  Written
# to OUT (default docs/results/BASE/symvers.txt) with the counts first.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:-$TOP/docs/results/$KBASE/symvers.txt}
ours=$BUILD/deb/obj-patched/Module.symvers
stock=$BUILD/deb/obj-stock/Module.symvers
for f in "$ours" "$stock"; do
	[ -s "$f" ] || die "no $f" "run 'make deb${BASE:+ BASE=$BASE}' first"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "symbol crc type namespace" a line (namespace "-" for none), sorted by
# symbol.
for v in ours stock; do
	f=$ours
	[ "$v" = stock ] && f=$stock
	awk -F'\t' '{ print $2, $1, $4, ($5 == "" ? "-" : $5) }' "$f" | sort >"$tmp/$v"
done
join -v 2 "$tmp/ours" "$tmp/stock" >"$tmp/removed"
join -v 1 "$tmp/ours" "$tmp/stock" >"$tmp/added"
# The CRCs that changed: the symbols alone (there are thousands).
join "$tmp/ours" "$tmp/stock" | awk '$2 != $5 { print $1 }' >"$tmp/changed"
mkdir -p "$(dirname "$out")"
{
	echo "# make deb's kernels (Debian's amd64 config, localmodconfig): Module.symvers of"
	echo "# ours ($(cat "$BUILD/deb/obj-patched/include/config/kernel.release")) against stock"
	echo "# ($(cat "$BUILD/deb/obj-stock/include/config/kernel.release")), written by scripts/symvers-diff.sh"
	echo "exports: ours $(wc -l <"$tmp/ours"), stock $(wc -l <"$tmp/stock")"
	echo "removed: $(wc -l <"$tmp/removed")"
	echo "added: $(wc -l <"$tmp/added")"
	echo "crc changed: $(wc -l <"$tmp/changed")"
	echo
	echo "## removed (symbol, stock's crc, export, namespace)"
	cat "$tmp/removed"
	echo
	echo "## added (symbol, our crc, export, namespace)"
	cat "$tmp/added"
	echo
	echo "## crc changed (symbol)"
	cat "$tmp/changed"
} >"$out"
sed -n '4,7p' "$out"
info "written to $out"
