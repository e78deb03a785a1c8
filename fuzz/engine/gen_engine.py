#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen_engine.py TREE OUTDIR: the engine's source, made to build in user space.

Writes OUTDIR/engine.c from TREE/kernel/user_idmap.c: the #include lines
become one #include "stub.h", and the parts that need the rest of the
kernel (the /proc files, seq_file, capabilities, the mutex, map_write()
itself, which driver.c repeats step for step) are wrapped in #if 0.  No
other line changes, so every function driver.c calls is the kernel's.
Writes OUTDIR/idmap_types.h: the map types, verbatim from
TREE/include/linux/user_namespace.h.
"""
import re
import sys

if len(sys.argv) != 3:
    sys.exit('usage: gen_engine.py TREE OUTDIR')
tree, outdir = sys.argv[1], sys.argv[2]
src = tree + '/kernel/user_idmap.c'
lines = open(src).read().split('\n')
# (first line, last line) of each part left out, in the file's order; the
# last line is the first line matching its pattern at or after the first.
# new_idmap_permitted() appears twice: its declaration, then its body.
drops = [
    (r'^static bool new_idmap_permitted\(const struct file \*file,$', r'\);$'),
    (r'^kuid_t __make_kuid\(', r'^EXPORT_SYMBOL\(from_kprojid_munged\);$'),
    (r'^static int uid_m_show\(', r'^const struct seq_operations proc_projid_seq_operations'),
    (r'^static bool verify_root_map\(', r'^}$'),
    (r'^static bool map_writer_privileged\(', r'^}$'),
    (r'^static ssize_t map_write\(', r'^}$'),
    (r'^ssize_t proc_uid_map_write\(', r'^}$'),
    (r'^ssize_t proc_gid_map_write\(', r'^}$'),
    (r'^ssize_t proc_projid_map_write\(', r'^}$'),
    (r'^static bool new_idmap_permitted\(const struct file \*file,$', r'^}$'),
]
out = []
i = d = 0
while i < len(lines):
    line = lines[i]
    if re.match(r'^#include [<"]', line):
        if '#include "stub.h"' not in out:
            out.append('#include "stub.h"')
        out.append('/* was: %s */' % line)
        i += 1
        continue
    if d < len(drops) and re.match(drops[d][0], line):
        j = i
        while j < len(lines) and not re.search(drops[d][1], lines[j]):
            j += 1
        if 'proc_projid_seq_operations' in drops[d][1]:
            while j < len(lines) and lines[j] != '};':
                j += 1
        if j == len(lines):
            sys.exit('gen_engine.py: %s:%d: no end /%s/ after /%s/; update'
                     ' the patterns in fuzz/engine/gen_engine.py' %
                     (src, i + 1, drops[d][1], drops[d][0]))
        out.append('#if 0 /* gen_engine.py: needs the rest of the kernel */')
        out.extend(lines[i:j + 1])
        out.append('#endif')
        i = j + 1
        d += 1
        continue
    out.append(line)
    i += 1
if d != len(drops):
    sys.exit('gen_engine.py: %s: no line /%s/ (part %d of %d to leave out,'
             ' looked for in the file\'s order); update the patterns in'
             ' fuzz/engine/gen_engine.py' % (src, drops[d][0], d + 1, len(drops)))
open(outdir + '/engine.c', 'w').write('\n'.join(out))
hdr = tree + '/include/linux/user_namespace.h'
h = open(hdr).read()
a = h.find('#define UID_GID_MAP_MAX_BASE_EXTENTS')
b = h.find('#define USERNS_SETGROUPS_ALLOWED')
if a < 0 or b < a:
    sys.exit('gen_engine.py: %s: the map types are no longer between'
             ' UID_GID_MAP_MAX_BASE_EXTENTS and USERNS_SETGROUPS_ALLOWED;'
             ' update fuzz/engine/gen_engine.py' % hdr)
open(outdir + '/idmap_types.h', 'w').write(
    '/* from include/linux/user_namespace.h, verbatim */\n' + h[a:b])
