"""Benchmarks that are too long for `make test`.

  tools/bench blk  [--runs N]   block self-test figures (test=blkbench) on an
                                NVMe and an AHCI scratch disk, per disk profile
  tools/bench swap [--runs N] [--buses nvme,usb]
                                seed 004's hogmem (1.25x RAM, one and two at
                                once) and Hugh's touch (seq, random) swapping
                                to NVMe (or a USB stick on xHCI: usb) under
                                the ssd and hdd profiles

Each configuration boots a fresh QEMU; figures come from the kernel's
records (guest TSC time; under TCG that is host time, see README).  Results:
a table on stdout and JSON lines in build/bench/<name>.jsonl.
"""
import argparse
import json
import os
import subprocess
import sys

from . import rig, tables
from .stats import summary

OUT = 'build/bench'


def scratch(name, mib, mkswap=False):
    path = os.path.join(OUT, name)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, 'wb') as f:
        f.truncate(mib << 20)
    if mkswap:
        subprocess.run(['mkswap', path], check=True, capture_output=True)
    return path


def boot(cmdline, disks, profile, timeout=1800, mem='512M'):
    r = rig.run('build/disk.img', cmdline=cmdline, mem=mem, disks=disks, profile=profile,
                    timeout=timeout, log_path=os.path.join(OUT, 'last.log'), workdir=OUT)
    if r.status != 'ok':
        sys.exit('bench: run failed (%s), see %s/last.log' % (r.status, OUT))
    return r


def bench_blk(a):
    rows = {}
    out = open(os.path.join(OUT, 'blk.jsonl'), 'w')
    for bus, dev in (('nvme', 'nvme1n1'), ('sata', 'sata1')):
        for profile in a.profiles:
            for run in range(a.runs):
                img = scratch('blk-%s.img' % bus, 256)
                r = boot('quiet test=blkbench blkdev=%s blktest_mib=128' % dev,
                         [{'file': img, 'bus': bus}], profile)
                d = [x for x in r.find('selftest') if x['name'] == 'blkbench'][0]['data']
                out.write(json.dumps({'bus': bus, 'profile': profile, 'run': run, 'data': d}) + '\n')
                for k, v in d.items():
                    if isinstance(v, dict):
                        metric = 'iops' if k.startswith('rand') else 'mb_per_s'
                        rows.setdefault((k, metric), {}).setdefault((bus, profile), []).append(v[metric])
    cols = [(b, p) for b in ('nvme', 'sata') for p in a.profiles]
    print('%-22s %-8s' % ('test', 'unit') + ''.join('%16s' % ('%s/%s' % c) for c in cols))
    for (k, metric), per in sorted(rows.items()):
        cells = ['%16s' % tables.cell(summary(per.get(c, [])), 0) for c in cols]
        print('%-22s %-8s' % (k, metric) + ''.join(cells))


# The swap disk's name when it is the only disk on its bus (booted from NVMe).
SWAP_DEV = {'nvme': 'nvme1n1', 'sata': 'sata1', 'usb': 'usb0'}

SWAP_RUNS = [
    ('hogmem x1', 'hogmem {big} 3'),
    ('hogmem x2', 'hogmem {half} 3 & hogmem {half} 3'),
    ('touch seq', 'touch {big} {touches} seq anon'),
    ('touch random', 'touch {big} {touches} random anon'),
]


def bench_swap(a):
    ram = a.ram
    big, half = ram * 5 // 4, ram * 5 // 8
    touches = big * 256 * 3
    out = open(os.path.join(OUT, 'swap.jsonl'), 'w')
    metrics = ['elapsed_ms', 'mb_per_s', 'pgmajfault', 'pswpin', 'pswpout', 'read_mb_per_s', 'write_mb_per_s',
               'mean_read_kib', 'mean_write_kib', 'read_cmd_kib', 'write_cmd_kib', 'swapcache_hit_pct']
    table = {}
    for bus, profile in [(b, p) for b in a.buses for p in a.profiles]:
        dev = SWAP_DEV[bus]
        for name, prog in SWAP_RUNS:
            for run in range(a.runs):
                cmd = prog.format(big=big, half=half, touches=touches)
                img = scratch('swap.img', max(512, ram * 4), mkswap=True)
                r = boot('quiet mem=%dM run="%s"' % (ram, cmd), [{'file': img, 'bus': bus}], profile)
                v = [x for x in r.find('vmstat') if x.get('label') == cmd.strip()][0]
                ws = r.find('workload')
                blk = [b for b in r.find('blk') if b['name'] == dev][0]
                secs = max(w['elapsed_ns'] for w in ws) / 1e9
                row = {
                    'elapsed_ms': max(w['elapsed_ns'] for w in ws) / 1e6,
                    'mb_per_s': sum(w.get('mb_per_s_x100', 0) for w in ws) / 100.0,
                    'pgmajfault': v['pgmajfault'], 'pswpin': v['pswpin'], 'pswpout': v['pswpout'],
                    'read_mb_per_s': blk['read_bytes'] / secs / 1e6,
                    'write_mb_per_s': blk['write_bytes'] / secs / 1e6,
                    'mean_read_kib': blk['read_bytes'] / max(1, blk['reads']) / 1024,
                    'mean_write_kib': blk['write_bytes'] / max(1, blk['writes']) / 1024,
                    # Device commands: requests after the block layer's merging.
                    'read_cmd_kib': blk['read_bytes'] / max(1, blk['read_cmds']) / 1024,
                    'write_cmd_kib': blk['write_bytes'] / max(1, blk['write_cmds']) / 1024,
                    'swapcache_hit_pct': 100.0 * v['swapcache_find_hit'] / max(1, v['swapcache_find']),
                    'mismatches': sum(w.get('mismatches', 0) for w in ws),
                }
                out.write(json.dumps({'bus': bus, 'profile': profile, 'workload': name, 'cmd': cmd, 'run': run, **row})
                          + '\n')
                if row['mismatches']:
                    sys.exit('bench: %s reported data mismatches' % cmd)
                for m in metrics:
                    table.setdefault((bus, profile, name), {}).setdefault(m, []).append(row[m])
    cols = sorted(table)
    print('mem=%dM, swap on %s; mean±sd of %d run(s)' % (ram, ' and '.join(a.buses), a.runs))
    print('%-18s' % '' + ''.join('%24s' % ('%s %s %s' % c) for c in cols))
    for m in metrics:
        print('%-18s' % m + ''.join('%24s' % tables.cell(summary(table[c][m]), 1) for c in cols))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('what', choices=['blk', 'swap'])
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--profiles', default='none,ssd,hdd')
    ap.add_argument('--ram', type=int, default=64, help='MiB of RAM for the swap benchmark (mem=)')
    ap.add_argument('--buses', default='nvme', help='swap disk buses for the swap benchmark: nvme, sata, usb')
    a = ap.parse_args()
    a.profiles = a.profiles.split(',')
    a.buses = a.buses.split(',')
    if any(b not in SWAP_DEV for b in a.buses):
        sys.exit('bench: --buses %s: each must be one of %s' % (','.join(a.buses), ', '.join(sorted(SWAP_DEV))))
    os.makedirs(OUT, exist_ok=True)
    {'blk': bench_blk, 'swap': bench_swap}[a.what](a)


if __name__ == '__main__':
    main()
