#!/usr/bin/python3
"""fuzz-compare.py STOCK PATCHED: compare two idmap_fuzz transcripts.

Each scenario's kernel lines ('K ...') must be the same on both kernels,
except in the documented classes below, which are checked, not waived:

  limits  the writer is root of the initial namespace and the text is over
          stock's limits (4096 bytes or more, more than 340 lines).  Stock
          must refuse it with EINVAL.  Ours may accept it (up to 4096
          extents) or refuse it (EINVAL, or EPERM when a later rule catches
          it).  Refused: everything after the write must match stock.
          Accepted: stock's grammar must accept the text (the generator's
          model), the second write must get EPERM (write-once), and every
          lookup must return what the model computes for the map as written.
A line whose lower range the parent's map covers only across several of
its extents is no class: the fuzzer's writes never ask for splitting, so
ours must refuse it with EPERM as stock does, and any difference fails.

"Every lookup must match the model" includes what the namespace reads back
from its own map file (for a split map stored as more than five extents,
sorted by first: stock's rule for more than five extents).  Everywhere else, and on stock in every scenario,
the lookups and that read-back must also agree with the model ('E'
lines), so the model that judges ours in the two classes is itself checked
against stock on every scenario it can parse.
Exit status 0 only if every scenario is explained.
"""
import gzip
import sys
from collections import Counter


def blocks(path):
    """Yield (index, header lines, kernel lines, model lines) per scenario."""
    opener = gzip.open if path.endswith('.gz') else open
    idx, head, kern, model = None, [], [], []
    with opener(path, 'rt', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('@ '):
                if idx is not None:
                    yield idx, head, kern, model
                idx, head, kern, model = line[2:], [], [], []
            elif line.startswith('K '):
                kern.append(line)
            elif line.startswith('E '):
                model.append(line)
            elif line[:2] in ('S ', 'M ', 'G '):
                head.append(line)
    if idx is not None:
        yield idx, head, kern, model


def flags(head):
    for line in head:
        if line.startswith('G '):
            return dict(kv.split('=') for kv in line[2:].split())
    return {}


def value(kern, key):
    for line in kern:
        if line.startswith('K ' + key + ' '):
            return line.split()[2]
    return None


def stored_extents(kern):
    """How many extents the kernel stored: the lines the initial namespace reads."""
    for line in kern:
        if line.startswith('K R init lines='):
            return int(line.split()[3].split('=')[1])
        if line.startswith('K R init "'):
            return line.count('|')
    return None


def sorted_by_first(text):
    """A read-back as print_text() shows it, its lines sorted by first id."""
    body = text.strip('"').rstrip('|')
    lines = body.split('|') if body else []
    lines.sort(key=lambda line: int(line.split()[0]))
    return '"' + ''.join(line + '|' for line in lines) + '"'


def model_agrees(kern, model, split=False):
    """Every lookup the kernel did, and its own read-back, equal the model's.

    The model lists up to five lines in the order written (stock keeps them
    inline), more sorted by first.  A split map may store more than five
    extents for five lines or fewer; then, like any map of more than five
    extents, it reads back sorted by first: with split, the order follows the
    number of extents the initial namespace reads.
    """
    want_self = [line[len('E R self '):] for line in model if line.startswith('E R self ')]
    n = stored_extents(kern)
    if split and n is not None and n > 5 and want_self and want_self[0].startswith('"'):
        want_self = [sorted_by_first(want_self[0])]
    got_self = [line[len('K R self '):] for line in kern if line.startswith('K R self ')]
    if want_self and want_self != got_self:
        return False
    got = [line.split() for line in kern if line[:4] in ('K F ', 'K B ')]
    want = [line.split() for line in model if line[:4] in ('E F ', 'E B ')]
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if g[1] != w[1] or g[2] != w[2]:
            return False
        if g[1] == 'F':
            if w[3] == '-1':
                if g[3] != 'unset':
                    return False
            elif g[3] != w[3]:
                return False
        elif g[3] != w[3]:
            return False
    return True


def explain(fl, ks, kp, mp):
    """The class that explains a difference, or None."""
    w1s, w1p = value(ks, 'W1'), value(kp, 'W1')
    rest_s = [line for line in ks if not line.startswith('K W1 ')]
    rest_p = [line for line in kp if not line.startswith('K W1 ')]
    for cls, stock_errno, allowed in (
            ('limits', 'EINVAL', fl.get('limits') == '1' and fl.get('priv') == '1'),):
        if not allowed or w1s != stock_errno:
            continue
        if w1p in ('EINVAL', 'EPERM'):
            if rest_s == rest_p:
                return cls + ':refused'
            continue
        if w1p != 'OK' or fl.get('parsed') != '1':
            continue
        if value(kp, 'W2') != 'EPERM' or value(kp, 'setup') is not None:
            continue
        if not model_agrees(kp, mp, split=(cls == 'split')):
            continue
        return cls + ':accepted'
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: fuzz-compare.py STOCK.txt[.gz] PATCHED.txt[.gz]')
    n = 0
    classes = Counter()
    bad = []
    model_bad = []
    for (i_s, h_s, k_s, m_s), (i_p, h_p, k_p, m_p) in zip(blocks(sys.argv[1]),
                                                          blocks(sys.argv[2])):
        n += 1
        if i_s != i_p or h_s != h_p:
            sys.exit(f'fuzz-compare: the transcripts are of different scenarios at #{n} '
                     f'({i_s} / {i_p}): run both kernels with the same seeds and counts')
        fl = flags(h_s)
        if fl.get('parsed') == '1' and value(k_s, 'setup') is None and not model_agrees(k_s, m_s):
            model_bad.append((i_s, h_s, k_s, m_s))
        if k_s == k_p:
            classes['same'] += 1
            continue
        cls = explain(fl, k_s, k_p, m_p)
        if cls:
            classes[cls] += 1
        else:
            bad.append((i_s, h_s, k_s, k_p))
    print(f'# scenarios compared: {n}')
    for cls, c in sorted(classes.items()):
        print(f'#   {cls}: {c}')
    print(f'#   unexplained: {len(bad)}')
    print(f'#   stock disagreeing with the model: {len(model_bad)}')
    for i, h, ks, kp in bad[:10]:
        print(f'# UNEXPLAINED scenario {i}:')
        for line in h:
            print('#   ' + line)
        ds, dp = set(ks), set(kp)
        for line in ks:
            if line not in dp:
                print('#   stock:   ' + line)
        for line in kp:
            if line not in ds:
                print('#   patched: ' + line)
    for i, h, ks, ms in model_bad[:5]:
        print(f'# MODEL scenario {i} (stock disagrees with the model):')
        for line in h + ks + ms:
            print('#   ' + line)
    if n == 0:
        print('# no scenario in the transcripts')
    sys.exit(0 if n and not bad and not model_bad else 1)


if __name__ == '__main__':
    main()
