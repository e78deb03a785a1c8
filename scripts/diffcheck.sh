#!/bin/bash
# make diffcheck: the engine's own functions, built in user space from the
# tree (fuzz/engine/gen_engine.py), checked against naive linear scans on
# random and adversarial maps (fuzz/engine/driver.c), with ASan and UBSan,
# once per page size: PAGE_SIZES (default "4096 65536": x86-64's, and the
# 64 KiB of ppc64el or arm64 with 64K pages, which the guests never run).
# ROUNDS maps of each shape (fourteen, and child maps split across a
# parent's extents) per page size (default 40, about a minute each), SEED
# (default 1): the same seed and rounds check the same maps.  driver.c
# repeats map_write()'s steps (map_write() needs the rest of the kernel):
# a change to them in the engine must be made there too.  No kernel is built or booted.  BASE=6.12 checks that tree's engine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$TOP/fuzz/engine
out=$BUILD/diffcheck
seed=${SEED:-1}
rounds=${ROUNDS:-40}
[ -f "$TREE/kernel/user_idmap.c" ] || die "no engine in $TREE" "run 'make tree' first"
for v in "$seed" "$rounds"; do
	[[ $v =~ ^[0-9]+$ ]] || die "SEED and ROUNDS take a number, not '$v'"
done
[ "$rounds" -ge 1 ] || die "ROUNDS=0 checks nothing" "give it 1 or more (default 40)"
mkdir -p "$out"
python3 "$src/gen_engine.py" "$TREE" "$out" ||
	die "could not derive the engine from $TREE/kernel/user_idmap.c" \
		"gen_engine.py said why above"
cp "$src/driver.c" "$src/ref.c" "$src/stub.h" "$out/"
cd "$out"
# The reference without sanitizers: the scans are most of the run time.
gcc -std=gnu11 -O2 -Wall -Wextra -c ref.c -o ref.o
fail=0
for ps in ${PAGE_SIZES:-4096 65536}; do
	[[ $ps =~ ^[0-9]+$ ]] || die "PAGE_SIZES takes numbers, not '$ps'"
	gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-variable \
		-Wno-unused-function -DPAGE_SIZE="${ps}UL" \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer driver.c ref.o -o "diffcheck-$ps" ||
		die "fuzz/engine/driver.c did not build against $TREE's engine"
	mkdir -p "page-$ps"
	info "page size $ps: seed $seed, $rounds rounds (log: $out/page-$ps/log)"
	rc=0
	(cd "page-$ps" && rm -f fail_*.txt && "../diffcheck-$ps" "$seed" "$rounds") \
		>"page-$ps/log" 2>&1 || rc=$?
	tail -n 1 "page-$ps/log"
	if [ "$rc" != 0 ]; then
		grep -E 'MISMATCH|WARN_ON_ONCE|ERROR|runtime error' "page-$ps/log" | head -n 10 || true
		echo "FAILED: diffcheck at page size $ps (exit status $rc; log: $out/page-$ps/log)"
		if [ -f "page-$ps/fail_1.txt" ]; then
			echo "  the first map to differ: $out/diffcheck-$ps -r $out/page-$ps/fail_1.txt"
		fi
		fail=1
	fi
done
[ "$fail" = 0 ] || exit 1
echo "diffcheck: no difference from the naive scans"
