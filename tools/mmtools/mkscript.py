"""Build a boot image for one workload script.

  tools/mkscript-image SCRIPT [-o OUT.img] [--cmdline EXTRA] [--build build]

The image holds the loader, the kernel, the script (as scripts/NAME) and
exactly the workload programs its `run` lines name (from BUILD/workloads,
as bin/PROG).  Its command line is `script=scripts/NAME mem=SIZE quiet`,
with mem= from the script's `mem` line, swap=none when the script names
its own swap devices (or `swap none`), so that only they are used, and
EXTRA appended.  Default OUT: BUILD/scripts/NAME.img.

This reads just enough of the script for the image (mem, swap, run); the
kernel's parser checks the whole language at boot and stops a bad script
with FILE:LINE:COL before anything runs.  See README.md, "Workload
scripts".
"""
import argparse
import os
import subprocess
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # tools/


def words(line):
    """Split like the kernel: blanks, "quoted strings", # comments."""
    out, i, n = [], 0, len(line)
    while i < n:
        while i < n and line[i] in ' \t':
            i += 1
        if i == n or line[i] == '#':
            break
        if line[i] == '"':
            j, w = i + 1, []
            while j < n and line[j] != '"':
                if line[j] == '\\' and j + 1 < n and line[j + 1] in '"\\':
                    j += 1
                w.append(line[j])
                j += 1
            if j == n:
                raise ValueError('%d: unterminated quote' % (i + 1))
            out.append(''.join(w))
            i = j + 1
        else:
            j = i
            while j < n and line[j] not in ' \t':
                j += 1
            out.append(line[i:j])
            i = j
    return out


def read_script(path):
    """(mem or None, swap devices, 'none'|'auto'|None, programs in order)."""
    mem, devs, swap_kw, progs = None, [], None, []
    with open(path, encoding='utf-8', errors='replace') as f:
        for no, line in enumerate(f, 1):
            try:
                w = words(line.rstrip('\r\n'))
            except ValueError as e:
                sys.exit('mkscript-image: %s:%s' % (path, e))
            if not w:
                continue
            if w[0] == 'mem' and len(w) == 2:
                mem = w[1]
            elif w[0] == 'swap' and len(w) >= 2:
                if w[1] in ('none', 'auto'):
                    swap_kw = w[1]
                else:
                    devs.append(w[1])
            elif w[0] == 'run' and len(w) >= 2:
                prog = os.path.basename(w[1])
                if prog not in progs:
                    progs.append(prog)
    return mem, devs, swap_kw, progs


def main():
    ap = argparse.ArgumentParser(description='build a boot image that runs one workload script')
    ap.add_argument('script')
    ap.add_argument('-o', '--out', default=None)
    ap.add_argument('--cmdline', default='', help='more kernel command-line options')
    ap.add_argument('--build', default='build')
    a = ap.parse_args()
    if not os.path.isfile(a.script):
        sys.exit('mkscript-image: %s: no such file' % a.script)
    name = os.path.basename(a.script)
    mem, devs, swap_kw, progs = read_script(a.script)
    cmdline = ['script=scripts/' + name]
    if mem:
        cmdline.append('mem=' + mem)
    if devs or swap_kw == 'none':
        cmdline.append('swap=none')
    cmdline.append('quiet')
    if a.cmdline:
        cmdline.append(a.cmdline)
    files = [a.script + ':scripts/' + name]
    for p in progs:
        binary = os.path.join(a.build, 'workloads', p)
        if not os.path.isfile(binary):
            sys.exit('mkscript-image: %s runs %s, but %s does not exist (make workloads)' % (a.script, p, binary))
        files.append('%s:bin/%s' % (binary, p))
    out = a.out or os.path.join(a.build, 'scripts', os.path.splitext(name)[0] + '.img')
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    cmd = [os.path.join(TOOLS, 'mkimage'), '-o', out, '-l', os.path.join(a.build, 'BOOTX64.EFI'),
           '-k', os.path.join(a.build, 'kernel.elf'), '-c', ' '.join(cmdline)] + files
    r = subprocess.run(cmd)
    if r.returncode:
        sys.exit(r.returncode)
    print('mkscript-image: %s (cmdline: %s; programs: %s)' % (out, ' '.join(cmdline), ' '.join(progs) or 'none'))


if __name__ == '__main__':
    main()
