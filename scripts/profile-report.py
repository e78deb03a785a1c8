#!/usr/bin/python3
"""profile-report.py: instructions per call, per function, from QEMU exec logs.

Usage: profile-report.py WORKLOAD CALLS OUT.md (KERNEL SYSTEM.MAP EXECLOG)...
       profile-report.py --check SYSTEM.MAP EXECLOG

Each EXECLOG has one line per executed instruction (QEMU 'log exec,nochain'
with 'singlestep on'), "Trace N: HOST [CSBASE/PC/FLAGS/CFLAGS] ...".  The
region counted runs from the first user-space instruction after the first
__x64_sys_getppid (the guest's start marker) up to, not including, the
kernel entry of the last one (the end marker): CALLS runs of the workload,
user space included.  Each address is charged to the function whose
System.map symbol is the nearest at or below it.  The first kernel is the
reference: the table gives each other kernel's difference from it.

A region that an interrupt entered (a timer tick: the guest's clock runs
on while it waits for the host, so where ticks fall is not fixed) is not
the workload's cost: --check exits with status 3 for it, and the report
refuses it.
"""
import bisect
import re
import sys

TRACE = re.compile(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')
USER_TOP = 0x800000000000
INTERRUPT = ('asm_sysvec_', 'asm_common_interrupt', 'asm_spurious_interrupt')


def load_symbols(path):
    syms = []
    for line in open(path):
        parts = line.split()
        if len(parts) >= 3 and parts[1] in 'TtWw':
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(sysmap, execlog):
    addrs, names = load_symbols(sysmap)
    byname = dict(zip(names, addrs))
    for need in ('__x64_sys_getppid', 'entry_SYSCALL_64', '_etext'):
        if need not in byname:
            sys.exit(f'profile-report: no {need} in {sysmap}')
    marker, entry, etext = (byname['__x64_sys_getppid'], byname['entry_SYSCALL_64'],
                            byname['_etext'])
    pcs = []
    for line in open(execlog, errors='replace'):
        m = TRACE.match(line)
        if m:
            pcs.append(int(m.group(1), 16))
    marks = [i for i, pc in enumerate(pcs) if pc == marker]
    if len(marks) < 2:
        sys.exit(f'profile-report: {execlog} has {len(marks)} start/end markers, not 2 '
                 '(did the guest run the workload? see its console)')
    # The guest's two getppid() calls; the log runs on a little after.
    start = marks[0]
    while start < len(pcs) and pcs[start] >= USER_TOP:
        start += 1
    end = marks[1]
    while end > start and pcs[end] != entry:
        end -= 1
    if end <= start:
        sys.exit(f'profile-report: no region between the markers in {execlog}')
    counts = {}
    for pc in pcs[start:end]:
        if pc < USER_TOP:
            fn = '[user space]'
        elif pc >= etext or pc < addrs[0]:
            fn = '[outside kernel text]'
        else:
            fn = names[bisect.bisect_right(addrs, pc) - 1]
        counts[fn] = counts.get(fn, 0) + 1
    interrupts = sorted(fn for fn in counts if fn.startswith(INTERRUPT))
    return counts, interrupts


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--check':
        _, interrupts = profile(sys.argv[2], sys.argv[3])
        if interrupts:
            print(f'profile-report: an interrupt fell between the markers ({", ".join(interrupts)})')
            sys.exit(3)
        return
    if len(sys.argv) < 7 or (len(sys.argv) - 4) % 3:
        sys.exit(__doc__)
    workload, calls, outpath = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rest = sys.argv[4:]
    kernels, counts = [], []
    for i in range(0, len(rest), 3):
        c, interrupts = profile(rest[i + 1], rest[i + 2])
        if interrupts:
            sys.exit(f'profile-report: an interrupt fell between the markers in {rest[i + 2]} '
                     f'({", ".join(interrupts)}): run that kernel again')
        kernels.append(rest[i])
        counts.append(c)
    fns = set()
    for c in counts:
        fns.update(c)

    def per_call(c, fn):
        return c.get(fn, 0) / calls

    def diffs(fn):
        return [per_call(c, fn) - per_call(counts[0], fn) for c in counts[1:]]

    rows = sorted(fns, key=lambda fn: (-max([abs(d) for d in diffs(fn)] or [0]),
                                       -per_call(counts[-1], fn), fn))
    head = ['function'] + kernels + [f'{k} - {kernels[0]}' for k in kernels[1:]]
    lines = [f'# make profile WORKLOAD={workload}: instructions per call, by function', '',
             f'{calls} calls inside the markers; QEMU TCG, -icount shift=0, one log line per '
             'instruction (scripts/profile.sh). Rows: largest difference first.', '',
             '| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    total = [sum(c.values()) / calls for c in counts]
    cells = ['**total**'] + [f'**{t:.2f}**' for t in total] + \
        [f'**{t - total[0]:+.2f}**' for t in total[1:]]
    lines.append('| ' + ' | '.join(cells) + ' |')
    for fn in rows:
        cells = [fn] + [f'{per_call(c, fn):.2f}' for c in counts] + [f'{d:+.2f}' for d in diffs(fn)]
        lines.append('| ' + ' | '.join(cells) + ' |')
    with open(outpath, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines[:min(len(lines), 40)]))


main()
