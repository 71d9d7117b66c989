#!/usr/bin/env python3
"""Generate the embedded kernel symbol table.

gen-ksyms.py KERNEL.ELF OUT.c   -- table of KERNEL.ELF's text symbols
gen-ksyms.py --empty OUT.c      -- an empty table for the first link

All data goes into the .ksyms section, which linker.ld places after .text
and .rodata, so filling it in on the second link moves no code.
"""
import collections
import os
import re
import subprocess
import sys

# Section boundaries from linker.ld would shadow the real function names.
LINKER = re.compile(r'^_(kernel|text|rodata|data|bss)_(start|end)$')
HEAD = '#include "core/ksyms.h"\n#define KSYMS __attribute__((section(".ksyms"), used))\n'


def symbols(elf):
    """(address, size, name) of the text symbols.  Static functions of one
    name in several files (reclaim's and another's shrink) get the file's
    name in brackets, shrink[reclaim], so a profile or a backtrace does
    not take one for the other."""
    out = subprocess.run(['nm', '-l', '-n', '-S', '--defined-only', elf],
                         check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        where = line.split('\t')[1] if '\t' in line else ''
        parts = line.split('\t')[0].split()
        if len(parts) == 4:
            addr, size, kind, name = parts
        elif len(parts) == 3:
            addr, kind, name = parts
            size = '0'
        else:
            continue
        if kind in 'tTwW' and not name.startswith('.') and not LINKER.match(name):
            src = os.path.splitext(os.path.basename(where.rsplit(':', 1)[0]))[0] if where else ''
            syms.append((int(addr, 16), int(size, 16), name, src))
    count = collections.Counter(name for _, _, name, _ in syms)
    return [(addr, size, '%s[%s]' % (name, src) if count[name] > 1 and src else name)
            for addr, size, name, src in syms]


def main():
    if sys.argv[1] == '--empty':
        out, syms = sys.argv[2], []
    else:
        out, syms = sys.argv[2], symbols(sys.argv[1])
    names, table, off = [], [], 0
    for addr, size, name in syms:
        table.append('\t{ 0x%xull, %d, %d },' % (addr, off, size))
        names.append(name)
        off += len(name) + 1
    blob = ''.join(n + '\\0' for n in names)
    with open(out, 'w') as f:
        f.write(HEAD)
        f.write('KSYMS const uint32_t ksyms_count = %d;\n' % len(table))
        f.write('KSYMS const struct ksym ksyms_table[%d] = {\n%s\n};\n' % (max(len(table), 1), '\n'.join(table)))
        f.write('KSYMS const char ksyms_names[] = "%s";\n' % blob)


if __name__ == '__main__':
    main()
