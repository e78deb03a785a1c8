#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""memlines-report.py CSV MD: the table of make memlines (scripts/memlines.sh).

One row per path walk, namespace and map: for each kernel the kernel's
memory accesses per call (loads + stores) and the distinct 64-byte lines
they touch, medians of 64 calls; then ours against stock in lines.
"""
import csv
import sys

ORDER = ['nouserns', 'stock', 'patched']
NAME = {'nouserns': 'USER_NS=n', 'stock': 'stock', 'patched': 'ours'}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    rows, kernels = {}, set()
    keys = []
    with open(src, newline='') as f:
        for r in csv.DictReader(f):
            key = (r['workload'], int(r['extents']), r['width'])
            if key not in rows:
                rows[key] = {}
                keys.append(key)
            rows[key][r['kernel']] = (int(r['loads']), int(r['stores']), int(r['lines']))
            kernels.add(r['kernel'])
    ks = [k for k in ORDER if k in kernels]
    out = ['# Memory accesses of the path walks (make memlines)', '',
           'Per call, medians of 64: the kernel\'s loads + stores, and in',
           'brackets the distinct 64-byte lines they touch (the misses of a',
           'call whose data is all cold).  N 0: the initial namespace; else a',
           'child namespace whose map has N extents of the shape, as its first',
           'mapped uid.  From bench/memlines.c, a QEMU TCG plugin, under',
           '-icount shift=0: the same figures on every run.', '']
    head = '| workload | N | shape | ' + ' | '.join(NAME[k] for k in ks)
    sep = '|---|---:|---|' + '---:|' * len(ks)
    both = 'stock' in ks and 'patched' in ks
    if both:
        head += ' | ours - stock, lines'
        sep += '---:|'
    out += [head + ' |', sep]
    for key in keys:
        cells = []
        for k in ks:
            v = rows[key].get(k)
            cells.append('%d (%d)' % (v[0] + v[1], v[2]) if v else '-')
        line = '| %s | %d | %s | ' % key + ' | '.join(cells)
        if both:
            s, p = rows[key].get('stock'), rows[key].get('patched')
            line += ' | %+d' % (p[2] - s[2]) if s and p else ' | -'
        out.append(line + ' |')
    with open(dst, 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
