"""Benchmarks that are too long for `make test`.

  tools/bench blk  [--runs N]   block self-test figures (test=blkbench) on an
                                NVMe and an AHCI scratch disk, per disk profile
  tools/bench swap [--runs N] [--buses nvme,usb]
                                seed 004's hogmem (1.25x RAM, one and two at
                                once) and Hugh's touch (seq, random) swapping
                                to NVMe (or a USB stick on xHCI: usb) under
                                the ssd and hdd profiles
  tools/bench ra [--seeds S,..] [--runs N] [--profiles none,ssd,hdd]
                [--buses nvme,sata] [--policies ...] [--patterns ...] [--sleep|--tcg]
                [--threads N]
                                the own read-ahead policy against off and
                                fixed:N per touch pattern (seq, random,
                                stride:4, back, a skewed hot set, a
                                shifting set, streams:4, jumps:64), 72 MiB
                                touched in mem=48M, swap on a scratch disk
                                on each bus, per disk profile: one table per
                                (bus, profile) with, per pattern, major
                                faults, the task's stime, the guest's busy
                                time, read-ahead pages issued and the share
                                of them used, swap read requests, and
                                under ssd and hdd the task's elapsed time;
                                mean±sd over seeds x runs (seeds count as
                                runs) and own / the best fixed setting.
                                Profile none runs under -icount
                                shift=0,sleep=off (stime exact; elapsed
                                meaningless, not shown; --sleep: with
                                sleep on, elapsed shown), ssd and hdd under
                                -icount shift=0 with sleep on (the wait for
                                the throttled disk passes in real time).
                                --tcg: every profile under plain TCG, no
                                -icount: the guest's clock is the host's,
                                as the disk throttle's is (README, "Two
                                clocks at ssd and hdd").
                                --threads N: N threads touch each
                                pattern at once (touch ... threads=N
                                shared) on cpus=N of -smp N.
                                One boot per (bus, profile, run, seed,
                                policy), the policies interleaved within
                                each seed; --jobs of them at once
  tools/bench smp [--runs N] [--cpus 1,2,4] [--workloads procs4,...]
                                issue 14: the seed build's shape (threads 16
                                72, "build16"), threads 4, touch ...
                                threads=4 and four touch processes at once
                                ("procs4") at cpus=1, 2, 4 of one QEMU -smp 4
                                (MTTCG), swap on NVMe, profile none, the
                                cells interleaved run by run: major faults,
                                elapsed, pswpout, swap-out MB/s, direct
                                reclaim (calls, pages per call, rounds that
                                overlapped another), TLB shootdown IPIs per
                                1000 pages reclaimed, and per lock class the
                                contended acquisitions and wait time

Each configuration boots a fresh QEMU; figures come from the kernel's
records (guest TSC time; under TCG that is host time, see README).  Results:
a table on stdout and JSON lines in build/bench/<name>.jsonl.
"""
import argparse
import concurrent.futures
import json
import re
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
                    timeout=timeout, pvh=rig.pvh_beside('build/disk.img'), log_path=os.path.join(OUT, 'last.log'), workdir=OUT)
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


# The read-ahead benchmark's patterns: 72 MiB touched in 48 MiB of RAM
# (README "Swap-in readahead"); every pattern takes its seed from --seeds
# (seq, back, stride and streams ignore it: their runs are plain repeats).
# Touch counts are set so each pattern takes a similar share of the boot.
RA_PATTERNS = [
    ('seq', 'touch 72 40000 seq anon {seed}'),
    ('random', 'touch 72 30000 random anon {seed}'),
    ('stride:4', 'touch 72 24000 stride:4 anon {seed}'),
    ('back', 'touch 72 40000 back anon {seed}'),
    ('hot', 'touch 72 100000 hot:2048:75 anon {seed}'),
    ('shift', 'touch 72 60000 shift:2048:2000 anon {seed}'),
    ('streams:4', 'touch 72 40000 streams:4 anon {seed}'),
    ('jumps:64', 'touch 72 60000 jumps:64 anon {seed}'),
]

# Per pattern, the table's rows: (key, label, digits).  elapsed_ms only
# where it means something (not under sleep=off: profile none).
RA_METRICS = [('majflt', 'majflt', 1), ('stime_ms', 'stime_ms', 1), ('busy_ms', 'busy_ms', 1),
              ('elapsed_ms', 'elapsed_ms', 1), ('ra_issued', 'ra_issued', 1), ('ra_used_pct', 'ra_used_%', 1),
              ('read_reqs', 'read_reqs', 1)]
# Rows whose own/best compares against the fixed setting with the fewest
# of the row's own value; the read-ahead rows compare against the fixed
# setting with the fewest major faults (the fewest pages issued is off's 0).
RA_OWN_BEST = ('majflt', 'stime_ms', 'busy_ms', 'elapsed_ms', 'read_reqs')


def ra_icount(profile, sleep=False, tcg=False):
    """Profile none: -icount shift=0,sleep=off (stime exact, elapsed
    meaningless: idle time takes no host time), unless sleep (--sleep):
    then, as for a throttled disk (ssd, hdd), -icount shift=0 with sleep
    on, so guest CPU time still counts instructions and the wait for the
    disk passes in real time (elapsed measured, and moved by host load).
    tcg (--tcg): no -icount at all (False): guest time is host time, the
    clock QEMU's disk throttle runs on; CPU time is TCG's (several times
    a real CPU's, and moved by host load)."""
    if tcg:
        return False
    return 'exact' if profile == 'none' and not sleep else True


def ra_elapsed_meaningful(profile, sleep=False, tcg=False):
    return ra_icount(profile, sleep, tcg) != 'exact'


def ra_clock(profile, sleep=False, tcg=False):
    """The clock a table's figures were taken on, for its header."""
    icount = ra_icount(profile, sleep, tcg)
    if icount is False:
        return 'plain TCG, no -icount (guest time is host time)'
    return '-icount shift=0,sleep=off' if icount == 'exact' else '-icount shift=0 (sleep on)'


def set_steps(sets):
    """--set's (knob, value) pairs as run= steps: ['@set blk_read_split 16']."""
    return ['@set %s %s' % kv for kv in sets]


# --boot: words for every boot's command line (lockstat=off), and their
# tag in log names ('+lockstatoff').
BOOT = []
BOOT_OWN = ('mem', 'cpus', 'run', 'script', 'quiet')     # bench sets these


def boot_words():
    return ''.join(' ' + w for w in BOOT)


def boot_tag():
    return ''.join('+' + re.sub(r'[^\w]', '', w) for w in BOOT)


def set_tag(sets):
    """--set's knobs in a log name: '' or '+blk_read_split16'."""
    return ''.join('+%s%s' % (k, re.sub(r'[^\w]', '', v)) for k, v in sets)


def ra_boot(policy, seed, patterns, image='build/disk.img', bus='nvme', profile='none', run=0, sleep=False, sets=(),
            tcg=False, threads=1):
    """One boot: every pattern in turn under policy (and the (knob, value)
    pairs of sets, @set after the policy), swap on a scratch disk on bus,
    under profile; per pattern the task's majflt, stime_ns, elapsed_ns,
    ra_issued and ra_hits (its task_exit record: its own counters, so the
    runs before it do not count).  threads > 1: each pattern touched by
    that many threads at once, all over its area (touch's threads=N
    shared: its touches split between them, each thread its own seed
    SEED+i), on cpus=N of QEMU -smp N; the counters are the process's."""
    tag = 'ra-%s-%s%s%s%s%s-%s-%d-r%d' % (bus, profile, '+sleep' if sleep else '+tcg' if tcg else '', set_tag(sets),
                                          boot_tag(), '+t%d' % threads if threads > 1 else '', policy.replace(':', ''),
                                          seed, run)
    img = scratch(tag + '.img', 256, mkswap=True)
    cmds = [p.format(seed=seed) + (' threads=%d shared' % threads if threads > 1 else '') for _, p in patterns]
    set_cmds = set_steps(sets)
    r = rig.run(image, cmdline='quiet mem=48M%s%s run="%s"' % (' cpus=%d' % threads if threads > 1 else '', boot_words(),
                                                            ' ; '.join(['@set ra ' + policy] + set_cmds + cmds)),
                mem='256M', disks=[{'file': img, 'bus': bus}], profile=profile, icount=ra_icount(profile, sleep, tcg),
                smp=threads, timeout=7200, pvh=rig.pvh_beside(image), log_path=os.path.join(OUT, tag + '.log'),
                workdir=OUT)
    os.unlink(img)
    if r.status != 'ok':
        raise RuntimeError('%s failed (%s), see %s/%s.log' % (tag, r.status, OUT, tag))
    refused = r.find('script_error')
    if refused:
        raise RuntimeError('%s: %s' % (tag, refused[0].get('message')))
    exits = {e['cmdline']: e for e in r.find('task_exit')}
    steps = {v['label']: v for v in r.find('vmstat') if 'label' in v}
    rows = []
    for (name, _), cmd in zip(patterns, cmds):
        e = exits.get(cmd)
        if e is None:
            raise RuntimeError('%s: no task_exit record for %s' % (tag, cmd))
        if e['exit_code']:
            raise RuntimeError('%s: %s exited %s' % (tag, cmd, e['exit_code']))
        rows.append(ra_row(e, steps.get(cmd), policy=policy, seed=seed, pattern=name, cmd=cmd, bus=bus,
                           profile=profile, run=run))
    return rows


def ra_row(e, step=None, **key):
    """A table row from one command's task_exit record and its run=
    step's vmstat record (step), whose busy_ns is the guest's busy time
    over the step on every CPU: the task's own time, kswapd's, interrupts'
    (None from a kernel without it).  Task stime alone moves when work
    moves between the task and kswapd; busy_ms does not.  read_reqs: the
    step's swap read requests (every task's: a throttled disk's elapsed
    time follows them more than pages)."""
    busy = step.get('busy_ns') if step else None
    return dict(key, majflt=e['majflt'], swapflt=e.get('swapflt'), stime_ms=e['stime_ns'] / 1e6,
                busy_ms=busy / 1e6 if busy is not None else None,
                utime_ms=e['utime_ns'] / 1e6, elapsed_ms=e['elapsed_ns'] / 1e6, ra_issued=e['ra_issued'],
                ra_hits=e['ra_hits'],
                ra_used_pct=100.0 * e['ra_hits'] / e['ra_issued'] if e['ra_issued'] else None,
                read_reqs=step.get('swap_read_reqs') if step else None)


def mean(xs):
    return sum(xs) / len(xs)


def fewest(per, policies):
    """Of policies, the one whose values in per have the lowest mean
    (None when none has values)."""
    got = [p for p in policies if per.get(p)]
    return min(got, key=lambda p: mean(per[p])) if got else None


def ra_table(rows, policies, patterns, bus, profile, nruns, seeds, sleep=False, sets=(), tcg=False, threads=1):
    """One (bus, profile)'s table as lines: per pattern and metric each
    policy's mean±sd, the best fixed setting (every policy but own) and
    own / best."""
    elapsed = ra_elapsed_meaningful(profile, sleep, tcg)
    metrics = [m for m in RA_METRICS if elapsed or m[0] != 'elapsed_ms']
    cells = {}
    for row in rows:
        if (row['bus'], row['profile']) != (bus, profile):
            continue
        for m, _, _ in metrics:
            if row.get(m) is not None:
                cells.setdefault((row['pattern'], m), {}).setdefault(row['policy'], []).append(row[m])
    fixed = [p for p in policies if p != 'own']
    n = nruns * len(seeds)
    lines = ['swap on %s, profile %s, %s; 72 MiB in 48 MiB%s%s; seeds %s x %d run(s) = %d values per cell '
             '(seeds count as runs), policies interleaved per seed; mean±sd%s'
             % (bus, profile, ra_clock(profile, sleep, tcg),
                '; %d threads at once (shared) on %d CPUs' % (threads, threads) if threads > 1 else '',
                ''.join('; %s=%s' % kv for kv in sets) + ''.join('; boot %s' % w for w in BOOT),
                ','.join(map(str, seeds)), nruns, n,
                '' if elapsed else '; elapsed not shown (sleep=off: idle takes no time)')]
    # Each row's cells first, then one width for every policy column (a
    # cell like 112461.9±10394.2 must not run into its neighbour).
    body = []
    for name, _ in patterns:
        fault_best = fewest(cells.get((name, 'majflt'), {}), fixed)
        for m, label, digits in metrics:
            per = cells.get((name, m), {})
            best = fewest(per, fixed) if m in RA_OWN_BEST else fault_best
            tail = ''
            if best and per.get('own') and per.get(best) and mean(per[best]) > 0:
                tail = '%10s %9.3f' % (best, mean(per['own']) / mean(per[best]))
            elif best:
                tail = '%10s %9s' % (best, '-')
            body.append(('%-10s %-10s' % (name, label),
                         [tables.cell(summary(per.get(p, [])), digits) for p in policies], tail))
    w = max([16] + [len(c) + 2 for _, cs, _ in body for c in cs] + [len(p) + 2 for p in policies])
    lines.append('%-10s %-10s' % ('pattern', 'metric') + ''.join('%*s' % (w, p) for p in policies) +
                 '%10s %9s' % ('best', 'own/best'))
    lines += [head + ''.join('%*s' % (w, c) for c in cs) + tail for head, cs, tail in body]
    return lines


def bench_ra(a):
    patterns = [p for p in RA_PATTERNS if p[0] in a.patterns]
    nruns = a.runs or 1
    cells = [(b, p) for b in a.buses for p in a.profiles]
    # Per (bus, profile): runs, then seeds, then the policies interleaved.
    jobs = [(pol, seed, patterns, a.image, bus, profile, run, a.sleep, a.set, a.tcg, a.threads) for bus, profile in cells
            for run in range(nruns) for seed in a.seeds for pol in a.policies]
    name = 'ra%s%s%s%s%s.jsonl' % ('' if a.image == 'build/disk.img' else '-' + os.path.basename(a.image),
                                  set_tag(a.set), boot_tag(), '+tcg' if a.tcg else '', '+t%d' % a.threads if a.threads > 1 else '')
    out = open(os.path.join(OUT, name), 'w')
    rows, failed = [], []

    def one(job):
        try:
            return ra_boot(*job)
        except RuntimeError as e:
            return e

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for job, got in zip(jobs, ex.map(one, jobs)):
            if isinstance(got, Exception):
                print('bench: %s' % got, file=sys.stderr)
                failed.append(str(got))
                continue
            for row in got:
                out.write(json.dumps(row) + '\n')
            out.flush()
            rows += got
    out.close()
    for bus, profile in cells:
        print('\n'.join(ra_table(rows, a.policies, patterns, bus, profile, nruns, a.seeds, a.sleep, a.set, a.tcg,
                                  a.threads)))
        print()
    if failed:
        print('%d boot(s) failed:\n  %s' % (len(failed), '\n  '.join(failed)))
        return 1


# The SMP benchmark's workloads (48 MiB of RAM, 72 to 80 MiB touched).
SMP_WORKLOADS = [
    ('build16', 'threads 16 72 600 300'),
    ('threads4', 'threads 4 72 600 300'),
    ('touch4', 'touch 72 30000 random anon threads=4'),
    # Four address spaces faulting at once: no lock of the fault path is
    # theirs to share (issue 14), so contention here is reclaim's.
    ('procs4', ' & '.join(['touch 20 30000 random anon'] * 4)),
]
SMP_METRICS = ['elapsed_ms', 'pgmajfault', 'pswpout', 'swapout_mb_per_s', 'allocstall', 'direct_pages_per_call',
               'reclaim_overlap', 'reclaim_direct_waited', 'reclaim_direct_skipped', 'tlb_ipis_per_1000_reclaimed']


def smp_boot(image, name, cmd, cpus, run, sets=()):
    """One boot of cmd at cpus= on -smp 4 (after an @set step per (knob,
    value) of sets): one row of figures and the halt "locks" record's
    classes (the runner resets lock statistics at the start of the run,
    so they are the run's own)."""
    # The image's name in the tag: two builds may be compared at once.
    tag = 'smp-%s%s%s-%s-c%d-r%d' % (os.path.splitext(os.path.basename(image))[0], set_tag(sets), boot_tag(), name, cpus,
                                    run)
    img = scratch(tag + '.img', 256, mkswap=True)
    steps = set_steps(sets) + [cmd]
    r = rig.run(image, cmdline='quiet mem=48M cpus=%d%s run="%s"' % (cpus, boot_words(), ' ; '.join(steps)), mem='256M',
                disks=[{'file': img, 'bus': 'nvme'}], profile='none', smp=4, timeout=3600, pvh=rig.pvh_beside(image),
                log_path=os.path.join(OUT, tag + '.log'), workdir=OUT)
    os.unlink(img)
    if r.status != 'ok':
        sys.exit('bench: %s failed (%s), see %s/%s.log' % (tag, r.status, OUT, tag))
    refused = r.find('script_error')
    if refused:
        sys.exit('bench: %s: %s' % (tag, refused[0].get('message')))
    boot_rec = r.find('boot')[0]
    if boot_rec.get('cpus_online') != cpus:
        sys.exit('bench: %s: %r CPUs online, wanted %d' % (tag, boot_rec.get('cpus_online'), cpus))
    v = [x for x in r.find('vmstat') if x.get('label') == cmd][0]
    ws = r.find('workload')
    if any(w.get('mismatches', 0) for w in ws):
        sys.exit('bench: %s reported data mismatches' % tag)
    w = max(ws, key=lambda w: w['elapsed_ns'])      # several at once: the last to finish
    secs = w['elapsed_ns'] / 1e9
    reclaimed = v['pgsteal_kswapd'] + v['pgsteal_direct']
    row = {'workload': name, 'cmd': cmd, 'cpus': cpus, 'run': run,
           'elapsed_ms': w['elapsed_ns'] / 1e6, 'pgmajfault': v['pgmajfault'], 'pswpout': v['pswpout'],
           'swapout_mb_per_s': v['pswpout'] * 4096 / secs / 1e6, 'allocstall': v['allocstall'],
           'direct_pages_per_call': v['pgsteal_direct'] / max(1, v['allocstall']),
           # Counters a kernel before issue 14's reclaim lacks: None (n/a).
           'reclaim_overlap': v.get('reclaim_overlap'), 'reclaim_direct_waited': v.get('reclaim_direct_waited'),
           'reclaim_direct_skipped': v.get('reclaim_direct_skipped'),
           'tlb_ipis_per_1000_reclaimed': 1000.0 * v['tlb_shootdown_ipis'] / max(1, reclaimed)}
    locks = r.find('locks')[0]['since_reset']['classes']
    row['locks'] = {c['name']: {'acquired': c['acquired'], 'contended': c['contended'], 'wait_ms': c['wait_ns'] / 1e6}
                    for c in locks}
    return row


def smp_workloads(a):
    return [(n, c) for n, c in SMP_WORKLOADS if not a.workloads or n in a.workloads.split(',')]


def bench_smp(a):
    out = open(os.path.join(OUT, ('smp%s%s.jsonl' if a.image == 'build/disk.img' else
                                  'smp-' + os.path.basename(a.image) + '%s%s.jsonl') % (set_tag(a.set), boot_tag())), 'w')
    cells, lockcells = {}, {}
    for run in range(a.runs):               # interleaved: every cell once per round
        for name, cmd in smp_workloads(a):
            for cpus in a.cpus:
                row = smp_boot(a.image, name, cmd, cpus, run, a.set)
                out.write(json.dumps(row) + '\n')
                out.flush()
                for m in SMP_METRICS:
                    got = cells.setdefault((name, m), {}).setdefault(cpus, [])
                    if row[m] is not None:
                        got.append(row[m])
                for cls, f in row['locks'].items():
                    for m in ('contended', 'wait_ms'):
                        lockcells.setdefault((name, cls, m), {}).setdefault(cpus, []).append(f[m])
    out.close()
    cols = ['cpus=%d' % c for c in a.cpus]
    print('%s%s%s: mem=48M, QEMU -smp 4 (MTTCG), swap on NVMe, profile none; mean±sd of %d run(s)' % (
        a.image, boot_words(), ''.join(' ' + s for s in set_steps(a.set)), a.runs))
    for name, cmd in smp_workloads(a):
        print('\n%s (%s)' % (name, cmd))
        print('%-30s' % '' + ''.join('%18s' % c for c in cols))
        for m in SMP_METRICS:
            print('%-30s' % m + ''.join('%18s' % tables.cell(summary(cells[(name, m)][c]), 1) for c in a.cpus))
        # The lock classes that were contended in any cell, most first.
        classes = sorted({cls for (n, cls, m) in lockcells if n == name},
                         key=lambda cls: -max(mean(v) for v in lockcells[(name, cls, 'contended')].values()))
        for cls in classes:
            per = lockcells[(name, cls, 'contended')]
            if max(mean(v) for v in per.values()) < 1:
                continue
            for m in ('contended', 'wait_ms'):
                pc = lockcells[(name, cls, m)]
                print('%-30s' % ('lock %s %s' % (cls, m)) +
                      ''.join('%18s' % tables.cell(summary(pc.get(c, [0])), 1) for c in a.cpus))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('what', choices=['blk', 'swap', 'ra', 'smp'])
    ap.add_argument('--runs', type=int, default=None,
                    help='repeats (default 3; ra: 1 - each seed is a run, --runs N boots each seed N times)')
    ap.add_argument('--profiles', default=None, help='disk profiles (default none,ssd,hdd; ra: none)')
    ap.add_argument('--ram', type=int, default=64, help='MiB of RAM for the swap benchmark (mem=)')
    ap.add_argument('--buses', default='nvme', help='swap, ra: the swap disk\'s buses: nvme, sata, usb')
    ap.add_argument('--seeds', default='1,20261201,77977', help='ra: touch seeds (1 is what the policies were tuned on)')
    ap.add_argument('--policies', default='off,fixed:1,fixed:2,fixed:3,fixed:4,own', help='ra: policies to compare')
    ap.add_argument('--patterns', default=','.join(p for p, _ in RA_PATTERNS), help='ra: patterns to run')
    ap.add_argument('--jobs', type=int, default=2, help='ra: boots at once')
    ap.add_argument('--sleep', action='store_true',
                    help='ra: profile none under -icount shift=0 with sleep on, so elapsed is measured '
                         '(moved by host load: run --jobs 1 on a quiet host); default sleep=off, stime exact')
    ap.add_argument('--tcg', action='store_true',
                    help='ra: every profile under plain TCG, no -icount: guest time is host time, the clock the '
                         'ssd and hdd throttle runs on (CPU time is TCG\'s; run --jobs 1 on a quiet host)')
    ap.add_argument('--set', action='append', default=[], metavar='KNOB=VALUE',
                    help='ra, smp: a run-time knob for every boot, @set after the policy (blk_read_split=16); '
                         'repeatable; a value the kernel refuses fails the boot')
    ap.add_argument('--boot', action='append', default=[], metavar='NAME=VALUE',
                    help='ra, smp: a word for every boot\'s command line (lockstat=off: kernel CPU without the '
                         'lock and interrupt-off timing); repeatable')
    ap.add_argument('--threads', type=int, default=1,
                    help='ra: N threads touch each pattern at once, all over its area (touch ... threads=N shared), '
                         'on cpus=N of QEMU -smp N (1..32; default 1)')
    ap.add_argument('--cpus', default='1,2,4', help='smp: cpus= values (each on QEMU -smp 4)')
    ap.add_argument('--workloads', default='', help='smp: which of %s (default: all)' % ','.join(n for n, _ in SMP_WORKLOADS))
    ap.add_argument('--image', default='build/disk.img', help='smp, ra: the disk image to boot (another build to compare)')
    a = ap.parse_args()
    if a.runs is None and a.what != 'ra':
        a.runs = 3
    if a.profiles is None:
        a.profiles = 'none' if a.what == 'ra' else 'none,ssd,hdd'
    a.profiles = a.profiles.split(',')
    if any(p not in rig.PROFILES for p in a.profiles):
        sys.exit('bench: --profiles %s: each must be one of %s' % (','.join(a.profiles), ', '.join(sorted(rig.PROFILES))))
    a.buses = a.buses.split(',')
    if any(b not in SWAP_DEV for b in a.buses):
        sys.exit('bench: --buses %s: each must be one of %s' % (','.join(a.buses), ', '.join(sorted(SWAP_DEV))))
    bad = [s for s in a.set if not re.fullmatch(r'[a-z_]+=\S+', s) or s.startswith('ra=')]
    if bad:
        sys.exit('bench: --set %s: expected KNOB=VALUE, a run-time knob other than ra (--policies)' % bad[0])
    a.set = [tuple(s.split('=', 1)) for s in a.set]
    bad = [w for w in a.boot if not re.fullmatch(r'[a-z_]+=[\w.:,-]+', w) or w.split('=')[0] in BOOT_OWN]
    if bad:
        sys.exit('bench: --boot %s: expected NAME=VALUE, an option bench does not set itself (%s)'
                 % (bad[0], ', '.join(BOOT_OWN)))
    BOOT[:] = a.boot
    if a.sleep and a.tcg:
        sys.exit('bench: --sleep and --tcg: --sleep keeps -icount (with sleep on), --tcg runs without it; pick one')
    try:
        a.seeds = [int(s) for s in a.seeds.split(',')]
    except ValueError:
        sys.exit('bench: --seeds %s: expected whole numbers, comma-separated' % a.seeds)
    a.policies = a.policies.split(',')
    a.patterns = a.patterns.split(',')
    unknown = [p for p in a.patterns if p not in dict(RA_PATTERNS)]
    if unknown:
        sys.exit('bench: --patterns %s: no such pattern (%s)' % (','.join(unknown), ','.join(dict(RA_PATTERNS))))
    if not 1 <= a.threads <= 32:
        sys.exit('bench: --threads %d: must be 1..32 (touch\'s threads=)' % a.threads)
    a.cpus = [int(c) for c in a.cpus.split(',')]
    if any(not 1 <= c <= 4 for c in a.cpus):
        sys.exit('bench: --cpus %s: each must be 1..4 (QEMU -smp 4)' % ','.join(map(str, a.cpus)))
    unknown = [n for n in a.workloads.split(',') if n and n not in dict(SMP_WORKLOADS)]
    if unknown:
        sys.exit('bench: --workloads %s: no such workload (%s)' % (','.join(unknown), ','.join(dict(SMP_WORKLOADS))))
    os.makedirs(OUT, exist_ok=True)
    return {'blk': bench_blk, 'swap': bench_swap, 'ra': bench_ra, 'smp': bench_smp}[a.what](a)


if __name__ == '__main__':
    main()
