"""Run workload scripts across disk profiles and gather their results.

  tools/matrix SCRIPT.mm... [--profile none,ssd,hdd] [--swap-bus nvme,sata]
               [--swap-mib 256] [--mem 256M] [--icount[=exact]] [--timeout S]
               [--jobs 1] [--sshlogin HOSTS] [--out build/matrix] [--build build]
               [--echo] [--cmdline 'KERNEL OPTIONS'] [--min]
  tools/matrix --self-test

Per script and swap bus it builds one image with tools/mkscript-image;
per script, profile and bus it boots that image in a fresh QEMU with the
swap disk(s) attached (each a fresh sparse, mkswap'ed file of --swap-mib
MiB) and the profile's block throttling on them (tools/rig.py,
PROFILES), then reads the kernel's records from the serial console.

Swap disks.  The boot disk is nvme0n1; the first extra NVMe disk is
nvme1n1, the next nvme2n1; the first SATA disk is sata1 (q35 AHCI port 1),
then sata2.  A script's `swap DEV` and `swapoff DEV` lines say which disks
to attach (an index the script skips gets a small unsigned disk, which the
kernel never writes); `swap auto`, or no swap line, gets one disk on the
bus; `swap none` gets none.  --swap-bus BUS moves every disk to BUS: the
script is copied to OUT/scripts-BUS/ with nvmeKn1 <-> sataK rewritten in
its swap/swapoff lines (the copy keeps the file name, so the kernel's
records still name scripts/NAME).  Without --swap-bus the script's own
names stand (auto: nvme).  Partitions and second namespaces are refused.

Data disks.  A disk a script reads or writes (`data DEV`, or /dev/DEV in
a run line, as seed003-shmdb.mm's stream reads /dev/nvme2n1) that is not
one of its swap disks is attached as a blank sparse file of 1 GiB, never
mkswap'ed (tools/seed-table --boot does the same); --swap-bus leaves
these names as they are.

Failures are reported as they happen, one line each naming script,
profile, bus and column (a failed boot, a panic, a script_error, a result
with failed > 0 or mismatches > 0, records missing), repeated at the end;
the other runs go on and the exit status is 1.

Output in OUT (default build/matrix):
  results.csv   one row per result record (a run of a column); `rows`:
                the script's `row PROGRAM.FIELD` figures of that run
                (NAME=VALUE; ..., '-' when the run did not report it)
  summary.csv   per script, profile, bus and column: n, mean and stderr
                (sd/sqrt(n)) of elapsed_ms and majflt, and in `rows` each
                workload figure as NAME=MEAN±STDERR n=RUNS (the kernel's
                table has them as rows too)
  boots.csv     per boot: status, host seconds, results, problems, log
  records.jsonl every result/table/script_end/script_error record, tagged
  report.txt    what was printed: the kernel's tables and the comparison
  plots/NAME-PROFILE-BUS.png   mean major faults and mean elapsed per
                column, stderr error bars (gnuplot; skipped with the
                apt-get line when gnuplot is missing)
  logs/NAME-PROFILE-BUS.log    serial console of each boot

The comparison, per script/profile/bus and per workload in it (columns
that run the same command lines), names the column with the fewest major
faults and the fastest one, and for each column whose policy (knob ra)
is "own" its ratio to the best `off`/`fixed:N` column in majflt, in the
runs' kernel CPU time (sys, the tasks' stime: the measure under --icount,
where it repeats within about 2%) and in elapsed: the check that the own
policy comes within 2% of the best fixed setting for that workload in
major faults and elapsed time (issue 12's target).  At profile none under
--icount the check takes sys instead of elapsed (the line says so): there
the disk is not throttled, so a run is CPU-bound as on a fast NVMe, and
elapsed follows the host, since the guest's idle time passes in host time
(-icount sleeps), while sys counts instructions.  --icount=exact adds
sleep=off: the guest's idle time jumps to its next timer instead of
passing in host time, so a boot repeats exactly whatever the host does
(a latency probe's figures with them), but a wait for the disk takes
however long the guest's next timer is away, not the disk's time; the
check takes sys there at every profile.  majflt is the result
record's (the run's tasks' major faults; the same as the table's
pgmajfault so far).

Timing: guest time is the TSC.  Plain TCG runs it at host speed, so host
load shows up in elapsed (5-25%); --icount (-icount shift=0) makes guest
time count instructions (a few percent of noise), but boots get much
slower (smoke.mm: 93 s instead of 5 s) and the ssd/hdd throttling still
runs on host time: the disk works on while the guest computes and its clock
counts instructions, so a disk-bound column's elapsed leaves that host time
out, and leaves out more for work TCG emulates slowly (README, "Two clocks
at ssd and hdd").  Compare elapsed at ssd and hdd without --icount, and
kernel CPU (sys) with it.  On a host with few cores, --jobs 2 runs two
QEMUs at once and distorts the timings of both (major faults and page
counts are unaffected); keep --jobs 1 for times there.

--sshlogin HOSTS spreads the boots over machines with GNU parallel
(HOSTS as parallel's --sshlogin: 'host1,user@host2'; ':' is this
host through the same path).  The images are built here, then sent to
each host once (--basefile, with this package zipped as mmtools.pyz, the
boot worker); each boot's outcome (QEMU exit, timeout, host seconds, the
serial log) comes back as OUT/ret/KEY.json (--return) and is parsed here
as a local boot's would be, so results.csv and the tables are the same;
--cleanup removes the copies on the hosts.  --jobs is then per host.
Each host needs python3, QEMU, OVMF, mkswap and rsync (parallel's
transport); files go below the same path as OUT here (parallel --workdir
., relative to the home directory when OUT is below it).  See
mmtools/remote.py.

--min adds the optimum as a column (tools/min, README "The optimum"):
under each table, per column, Belady's MIN and LRU on the column's
workload traced on this host, with the frames free at the start of the
script (its mem_balance record), beside the kernel's mean majflt, the
ratios majflt / MIN and pswpin / MIN, and MIN with prefetch (and with a
window) of the column's read-ahead pages; summary.csv's min_* columns
(empty without --min) carry the same.
A parallel group has no single access order and gets none.

--self-test parses a canned serial log into the CSVs and checks them (no
QEMU).
"""
import argparse
import concurrent.futures
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import mkscript, remote, rig, tables
from . import min as mmin
from .records import parse_records
from .stats import mean_stderr

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # tools/

GNUPLOT_APT = 'apt-get install -y --no-install-recommends gnuplot-nox'
OWN_MARGIN = 1.02     # issue 12: own within 2% of the best fixed setting

RESULT_FIELDS = [
    'script', 'profile', 'swap_bus', 'column', 'run', 'seq', 'policy', 'page_cluster',
    'elapsed_ms', 'user_ms', 'sys_ms', 'majflt', 'minflt',
    'pgmajfault', 'pgpgin', 'pgpgout', 'pswpin', 'pswpout', 'swap_ra', 'swap_ra_hit', 'swap_ra_waste',
    'ra_hit_pct', 'major_p50_us', 'major_p99_us', 'cached_p50_us', 'cached_p99_us',
    'probe_met_pct', 'probe_worst_late_ms', 'failed', 'mismatches', 'workload', 'rows',
]
VMSTAT_FIELDS = ['pgmajfault', 'pgpgin', 'pgpgout', 'pswpin', 'pswpout', 'swap_ra', 'swap_ra_hit', 'swap_ra_waste']
SUMMARY_FIELDS = ['script', 'profile', 'swap_bus', 'column', 'workload', 'policy', 'n',
                  'elapsed_ms_mean', 'elapsed_ms_stderr', 'majflt_mean', 'majflt_stderr',
                  'sys_ms_mean', 'sys_ms_stderr', 'rows'] + mmin.SUMMARY_FIELDS
BOOT_FIELDS = ['script', 'profile', 'swap_bus', 'status', 'host_s', 'results', 'problems', 'log']
KEEP_RECORDS = ('result', 'table', 'script_end', 'script_error', 'panic', 'probe')


# ------------------------------------------------------------ swap disks

DEV_RE = re.compile(r'^(?:nvme(\d+)n1|sata(\d+))$')


def parse_dev(dev):
    """(bus, index) of a whole swap disk name, or ValueError saying why not."""
    m = DEV_RE.match(dev)
    if not m:
        raise ValueError("swap device '%s': the matrix attaches whole disks only "
                         "(nvmeKn1 or sataK, K >= 1), not partitions or other namespaces" % dev)
    bus, k = ('nvme', int(m.group(1))) if m.group(1) is not None else ('sata', int(m.group(2)))
    if k < 1:
        raise ValueError("swap device '%s' is the boot disk's place (the boot disk is nvme0n1; "
                         "extra disks start at nvme1n1 and sata1)" % dev)
    return bus, k


dev_name = remote.dev_name


def script_devices(text):
    """Swap plan of a script: ('none'|'auto'|'named', [(bus, k), ...]) from
    its swap and swapoff lines.  A script with no swap line is 'auto'."""
    kind, devs = None, []
    for no, line in enumerate(text.splitlines(), 1):
        try:
            w = mkscript.words(line)
        except ValueError:
            continue        # the kernel's parser reports it with line and column
        if len(w) < 2 or w[0] not in ('swap', 'swapoff'):
            continue
        if w[0] == 'swap' and w[1] in ('none', 'auto'):
            kind = kind or w[1]
            continue
        try:
            d = parse_dev(w[1])
        except ValueError as e:
            raise ValueError('line %d: %s' % (no, e))
        if d not in devs:
            devs.append(d)
    if devs:
        return 'named', devs
    return kind or 'auto', []


def data_devices(text, swap):
    """[(bus, k)] of the disks a script reads or writes besides its swap
    disks swap: `data DEV` lines, and /dev/DEV words in any other line
    (a run line's program reading a raw disk)."""
    out = []
    for line in text.splitlines():
        try:
            w = mkscript.words(line)
        except ValueError:
            continue
        if not w or w[0] in ('swap', 'swapoff'):
            continue
        names = [word[5:] for word in w[1:] if word.startswith('/dev/')]
        if w[0] == 'data' and len(w) > 1 and not w[1].startswith('/dev/'):
            names.append(w[1])
        for name in names:
            try:
                d = parse_dev(name)
            except ValueError:
                continue        # a partition or a device the matrix does not attach
            if d not in swap and d not in out:
                out.append(d)
    return out


SWAP_LINE = re.compile(r'^(\s*(?:swap|swapoff)\s+)(\S+)')


def rewrite_script(text, bus):
    """The script with every swap/swapoff device moved to bus (nvmeKn1 <->
    sataK); (new text, {old: new})."""
    out, renamed = [], {}
    for line in text.splitlines(True):
        m = SWAP_LINE.match(line)
        if m and m.group(2) not in ('none', 'auto') and DEV_RE.match(m.group(2)):
            old = m.group(2)
            new = dev_name(bus, parse_dev(old)[1])
            if new != old:
                renamed[old] = new
                line = m.group(1) + new + line[m.end():]
        out.append(line)
    return ''.join(out), renamed


FILLER, SWAP, DATA = remote.FILLER, remote.SWAP, remote.DATA


def plan_disks(kind, devs, bus, data=()):
    """[(bus, k, what)] to attach, what FILLER, SWAP or DATA: the swap
    devices named (or one for auto, none for none) and the data disks,
    with filler disks for the indices a script skips (so sata2 is sata2)."""
    if kind == 'auto':
        devs = [(bus, 1)]
        if devs[0] in data:
            raise ValueError('%s is named as a data disk, where swap auto puts its swap disk' % dev_name(bus, 1))
    elif kind == 'none':
        devs = []
    plan = []
    for b in ('nvme', 'sata'):
        ks = {k for bb, k in devs if bb == b}
        ds = {k for bb, k in data if bb == b}
        for k in range(1, max(ks | ds) + 1 if ks | ds else 1):
            plan.append((b, k, SWAP if k in ks else DATA if k in ds else FILLER))
    return plan


def prepare(text, bus_opt):
    """(script text for the image, disk plan, bus label, note) for one
    --swap-bus value (None: the script's own names)."""
    kind, devs = script_devices(text)
    note = ''
    if bus_opt:
        if len({k for _, k in devs}) != len(devs):
            raise ValueError('moving its swap devices to %s would make two of them one (%s)'
                             % (bus_opt, ', '.join(dev_name(b, k) for b, k in devs)))
        text, renamed = rewrite_script(text, bus_opt)
        if renamed:
            note = 'rewritten: ' + ', '.join('%s -> %s' % kv for kv in sorted(renamed.items()))
        kind, devs = script_devices(text)
    buses = sorted({b for b, _ in devs})
    label = bus_opt or ('+'.join(buses) if buses else 'nvme')
    data = data_devices(text, devs)
    return text, plan_disks(kind, devs, bus_opt or 'nvme', data), label, note


# ------------------------------------------------------------ statistics

def fmt(v, digits):
    if v is None:
        return ''
    return ('%.' + str(digits) + 'f') % v


# ------------------------------------------------------------ one boot's records

class Job:
    def __init__(self, script, profile, bus, name):
        self.script, self.profile, self.bus, self.name = script, profile, bus, name
        self.key = '%s-%s-%s' % (os.path.splitext(name)[0], profile, bus)
        self.image = None        # set once built
        self.plan = []
        self.note = ''           # what was rewritten

    def where(self, column=None):
        s = '%s %s swap=%s' % (self.name, self.profile, self.bus)
        return s + (" column '%s'" % column if column is not None else '')


def ns_ms(v):
    return None if v is None else v / 1e6


def ns_us(v):
    return None if v is None else v / 1e3


def result_row(job, x):
    v = x.get('vmstat', {})
    lat = x.get('swapin_latency', {})
    maj, cached = lat.get('major', {}), lat.get('cached', {})
    probe = x.get('probe')
    knobs = x.get('knobs', {})
    ra = x.get('readahead', {})
    row = {
        'script': job.name, 'profile': job.profile, 'swap_bus': job.bus,
        'column': x.get('column'), 'run': x.get('run'), 'seq': x.get('seq'),
        'policy': knobs.get('ra', ''), 'page_cluster': knobs.get('page_cluster', ''),
        'elapsed_ms': fmt(ns_ms(x.get('elapsed_ns')), 3), 'user_ms': fmt(ns_ms(x.get('utime_ns')), 3),
        'sys_ms': fmt(ns_ms(x.get('stime_ns')), 3),
        'majflt': x.get('majflt'), 'minflt': x.get('minflt'),
        'ra_hit_pct': ra.get('hit_pct', ''),
        'major_p50_us': fmt(ns_us(maj.get('p50_ns')), 1), 'major_p99_us': fmt(ns_us(maj.get('p99_ns')), 1),
        'cached_p50_us': fmt(ns_us(cached.get('p50_ns')), 1), 'cached_p99_us': fmt(ns_us(cached.get('p99_ns')), 1),
        'probe_met_pct': probe.get('met_pct', '') if probe else '',
        'probe_worst_late_ms': fmt(ns_ms(probe.get('worst_late_ns')), 3) if probe else '',
        'failed': x.get('failed', 0), 'mismatches': x.get('mismatches', 0), 'workload': workload(x),
        'rows': '; '.join('%s=%s' % (k, '-' if v is None else v) for k, v in x.get('rows', {}).items()),
    }
    for k in VMSTAT_FIELDS:
        row[k] = v.get(k, ra.get(k, ''))
    return row


def failed_exits(x):
    bad = []
    for e in x.get('exits', []):
        if not e.get('started'):
            bad.append("'%s' did not start" % e.get('cmdline'))
        elif e.get('signal'):
            bad.append("'%s' killed (%s)" % (e.get('cmdline'), e.get('signal')))
        elif e.get('exit_code'):
            bad.append("'%s' exit %s" % (e.get('cmdline'), e.get('exit_code')))
    return '; '.join(bad)


def problems_of(job, r):
    """One line per thing that went wrong in a boot (empty: all well)."""
    out = []
    if r.status != 'ok':
        why = {'timeout': 'timed out', 'panic': 'kernel panic',
               'qemu-error': 'QEMU failed', 'powered-off-early': 'stopped without a halt record'}[r.status]
        p = r.find('panic')
        if p:
            why += ': ' + str(p[-1].get('reason') or p[-1].get('message') or p[-1])
        elif r.status == 'qemu-error' and '[qemu stderr]' in r.log:
            why += ': ' + r.log.split('[qemu stderr]', 1)[1].strip().splitlines()[0]
        out.append('%s: boot %s (QEMU exit %s)' % (job.where(), why, r.rc))
    for e in r.find('script_error'):
        out.append('%s: script_error (%s): %s' % (job.where(), e.get('phase'), e.get('message')))
    results = r.find('result')
    for x in results:
        if x.get('failed'):
            out.append('%s run %s: failed=%s: %s' % (job.where(x.get('column')), x.get('run'), x['failed'],
                                                     failed_exits(x) or 'see log'))
        if x.get('mismatches'):
            out.append('%s run %s: %s data mismatches' % (job.where(x.get('column')), x.get('run'),
                                                          x['mismatches']))
    for u in r.find('unparsable'):
        if '"type":"result"' in u['line'] or '"type":"table"' in u['line']:
            out.append('%s: a record was garbled on the console: %.80s' % (job.where(), u['line']))
    end = r.find('script_end')
    if not end and not r.find('script_error') and r.status == 'ok':
        out.append('%s: no script_end record: the script did not run' % job.where())
    if end:
        e = end[-1]
        if e.get('results') != len(results):
            out.append('%s: script_end counts %s results, the console has %d' % (job.where(), e.get('results'),
                                                                                 len(results)))
        if e.get('stopped') and not r.find('script_error'):
            out.append('%s: the script stopped early' % job.where())
    return out


TABLE_HEAD = re.compile(r'^script \S+: mean\u00b1stderr over the runs of each column')


def human_table(r):
    """The kernel's own table from the console, or one drawn from the
    table record when the console lines are not there."""
    lines = r.log.splitlines()
    for i, line in enumerate(lines):
        if TABLE_HEAD.match(line):
            body = []
            for t in lines[i:]:
                if '{"type":' in t:
                    break
                body.append(t.rstrip())
            while body and not body[-1]:
                body.pop()
            return '\n'.join(body)
    t = r.find('table')
    return render_table(t[-1]) if t else None


def render_table(t, extra_rows=()):
    """The table record drawn as text; extra_rows: (name, [cells]) rows
    to add at its foot (tools/results --min: MIN and faults / MIN)."""
    def cell(c, unit):
        if c.get('n', 0) == 0 or c.get('mean') is None:
            return '-'
        d = 0 if unit == 'count' or c['mean'] >= 10 else 1
        return tables.pm(c['mean'], c.get('stderr') if c['n'] >= 2 else None, d)
    cols = t.get('columns', [])
    rows = [('runs', [str(c.get('n', 0)) for c in t['rows'][0]['cells']])] if t.get('rows') else []
    rows += [(row['name'], [cell(c, row.get('unit')) for c in row['cells']]) for row in t.get('rows', [])]
    rows += list(extra_rows)
    out = ['script %s (from the table record): mean\u00b1stderr over the runs of each column; times in ms'
           % t.get('script')]
    return '\n'.join(out + tables.render(cols, rows))


# ------------------------------------------------------------ summaries

def column_order(results, tables):
    order = []
    for t in tables:
        for c in t.get('columns', []):
            if c not in order:
                order.append(c)
    for x in results:
        if x['column'] not in order:
            order.append(x['column'])
    return order


def distinct(values):
    return list(dict.fromkeys(values))


def summarize(job, results, tables):
    """Summary rows of one boot, in column order.  workload: the column's
    command lines (a group's joined by ' & '), what the comparison groups
    columns by."""
    out = []
    for col in column_order(results, tables):
        xs = [x for x in results if x['column'] == col]
        if not xs:
            continue
        el = mean_stderr([x['elapsed_ns'] / 1e6 for x in xs])
        mj = mean_stderr([x['majflt'] for x in xs])
        sy = mean_stderr([x.get('stime_ns', 0) / 1e6 for x in xs])
        out.append({'script': job.name, 'profile': job.profile, 'swap_bus': job.bus, 'column': col,
                    'workload': ' | '.join(distinct(workload(x) for x in xs)),
                    'policy': '|'.join(distinct(x.get('knobs', {}).get('ra', '') for x in xs)), 'n': len(xs),
                    'elapsed_ms_mean': el[0], 'elapsed_ms_stderr': el[1],
                    'majflt_mean': mj[0], 'majflt_stderr': mj[1],
                    'sys_ms_mean': sy[0], 'sys_ms_stderr': sy[1], 'rows': rows_summary(xs)})
    return out


def workload(x):
    return ' & '.join(x.get('commands', []))


def rows_summary(xs):
    """A script's `row PROGRAM.FIELD` figures over a column's results:
    'NAME=MEAN±STDERR n=N; ...' over the runs that reported each (as the
    kernel's table cells), '-' where none did."""
    names = distinct(k for x in xs for k in x.get('rows', {}))
    out = []
    for k in names:
        vals = [x['rows'][k] for x in xs if x.get('rows', {}).get(k) is not None]
        if not vals:
            out.append('%s=-' % k)
            continue
        m, se = mean_stderr(vals)
        out.append('%s=%.3f±%.3f n=%d' % (k, m, se or 0.0, len(vals)))
    return '; '.join(out)


def is_fixed(policy):
    return policy == 'off' or policy.startswith('fixed:')


def ratio(a, b):
    if b == 0:
        return 1.0 if a == 0 else float('inf')
    return a / b


def cpu_clock_note(icount, profile):
    """Why the own-vs-best verdict takes sys rather than elapsed for a
    boot (icount: False, True or 'exact'), or None where it takes
    elapsed."""
    if icount == 'exact':
        return 'elapsed jumps over idle time under --icount=exact'
    if icount and profile == 'none':
        return 'elapsed follows the host at none under --icount'
    return None


def compare(summary, cpu_clock=None):
    """Comparison lines for one boot's summary rows: per workload (columns
    running the same commands), the best columns and the own policy
    against the best off/fixed:N column.  cpu_clock (cpu_clock_note's):
    the verdict takes sys, not elapsed, and the line says why."""
    if not summary:
        return ['  no results']
    lines = []
    groups = distinct(s['workload'] for s in summary)
    for wl in groups:
        cols = [s for s in summary if s['workload'] == wl]
        ind = '  '
        if len(groups) > 1:
            lines.append('  %s:' % wl)
            ind = '    '
        lines += [ind + t for t in compare_group(cols, cpu_clock)]
    return lines


def compare_group(cols, cpu_clock=None):
    fewest = min(cols, key=lambda s: s['majflt_mean'])
    fastest = min(cols, key=lambda s: s['elapsed_ms_mean'])
    lines = ["fewest major faults: '%s' (%s) %.1f;  fastest: '%s' (%s) %.1f ms" % (
        fewest['column'], fewest['policy'], fewest['majflt_mean'],
        fastest['column'], fastest['policy'], fastest['elapsed_ms_mean'])]
    fixed = [s for s in cols if is_fixed(s['policy'])]
    for own in (s for s in cols if s['policy'] == 'own'):
        if not fixed:
            lines.append("own '%s': no off/fixed:N column with the same workload to compare with" % own['column'])
            continue
        bm = min(fixed, key=lambda s: s['majflt_mean'])
        bs = min(fixed, key=lambda s: s['sys_ms_mean'])
        be = min(fixed, key=lambda s: s['elapsed_ms_mean'])
        rm = ratio(own['majflt_mean'], bm['majflt_mean'])
        rs = ratio(own['sys_ms_mean'], bs['sys_ms_mean'])
        re_ = ratio(own['elapsed_ms_mean'], be['elapsed_ms_mean'])
        ok = rm <= OWN_MARGIN and (rs if cpu_clock else re_) <= OWN_MARGIN
        pct = '%g%%' % round((OWN_MARGIN - 1) * 100, 6)
        if cpu_clock:
            pct += ' (in majflt and sys: %s)' % cpu_clock
        lines.append("own '%s' vs best fixed: majflt x%.3f (best '%s' %s %.1f), sys x%.3f (best '%s' %s %.1f ms), "
                     "elapsed x%.3f (best '%s' %s %.1f ms): %s" % (
                         own['column'], rm, bm['column'], bm['policy'], bm['majflt_mean'],
                         rs, bs['column'], bs['policy'], bs['sys_ms_mean'],
                         re_, be['column'], be['policy'], be['elapsed_ms_mean'],
                         ('within ' if ok else 'NOT within ') + pct))
    return lines


# ------------------------------------------------------------ plots

GNUPLOT_SCRIPT = r'''
set encoding utf8
set terminal {term} noenhanced size {width},900 font ",10"
set output "{png}"
set datafile separator "\t"
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics nomirror rotate by -25 left
set ytics nomirror
set grid ytics
set yrange [0:*]
set xrange [-0.6:{xmax}]
set lmargin 12
set rmargin 4
set bmargin 5
set offsets 0, 0, graph 0.1, 0
set key off
set multiplot layout 2,1 title "{title}\nblue: off / fixed:N    green: hugh, shaohua, vma    red: own" font ",12"
set title "mean major faults per column (± stderr)"
set ylabel "majflt"
plot "{dat}" using 1:4:5:9:xtic(stringcolumn(2)."\n".stringcolumn(3)) with boxerrorbars lc rgb variable, \
     "" using 1:($4+$5):(sprintf("%.0f", $4)) with labels offset 0,0.7 font ",8"
set title "mean elapsed per column (± stderr)"
set ylabel "elapsed (ms)"
plot "{dat}" using 1:6:7:9:xtic(stringcolumn(2)."\n".stringcolumn(3)) with boxerrorbars lc rgb variable, \
     "" using 1:($6+$7):(sprintf("%.0f", $6)) with labels offset 0,0.7 font ",8"
unset multiplot
'''
POLICY_RGB = {'fixed': 0x4472c4, 'own': 0xc00000, 'other': 0x70ad47}


def policy_rgb(policy):
    return POLICY_RGB['fixed' if is_fixed(policy) else 'own' if policy == 'own' else 'other']


def gnuplot_terminal():
    """pngcairo when this gnuplot has it (Debian's gnuplot-nox does), else png."""
    try:
        r = subprocess.run(['gnuplot', '-e', 'set terminal'], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = r.stdout + r.stderr
    return 'pngcairo' if re.search(r'^\s*pngcairo\s', text, re.M) else 'png'


def gp_text(s):
    return str(s).replace('"', "'").replace('\t', ' ').replace('\\', '/')


def plot(job, summary, plotdir, term):
    """One PNG with two panels; returns its path or raises RuntimeError."""
    os.makedirs(plotdir, exist_ok=True)
    dat = os.path.join(plotdir, job.key + '.dat')
    png = os.path.join(plotdir, job.key + '.png')
    with open(dat, 'w') as f:
        f.write('# i\tcolumn\tpolicy\tmajflt_mean\tmajflt_stderr\telapsed_ms_mean\telapsed_ms_stderr\tn\trgb\n')
        for i, s in enumerate(summary):
            f.write('%d\t"%s"\t"%s"\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\n' % (
                i, gp_text(s['column']), gp_text(s['policy']), s['majflt_mean'], s['majflt_stderr'],
                s['elapsed_ms_mean'], s['elapsed_ms_stderr'], s['n'], policy_rgb(s['policy'])))
    runs = sorted({s['n'] for s in summary})
    title = '%s: profile %s, swap on %s (%s run%s per column)' % (
        gp_text(job.name), job.profile, job.bus, '/'.join(map(str, runs)), '' if runs == [1] else 's')
    gp = GNUPLOT_SCRIPT.format(term=term, png=png, dat=dat, title=title, xmax=len(summary) - 0.4,
                               width=max(1100, 200 + 75 * len(summary)))
    gpf = os.path.join(plotdir, job.key + '.gp')
    with open(gpf, 'w') as f:
        f.write(gp)
    r = subprocess.run(['gnuplot', gpf], capture_output=True, text=True, timeout=120)
    if r.returncode or not os.path.isfile(png):
        raise RuntimeError('gnuplot %s: %s' % (gpf, (r.stderr.strip() or 'no output')[:400]))
    return png


# ------------------------------------------------------------ running

class Matrix:
    def __init__(self, a):
        self.a = a
        self.out = a.out
        self.problems = []
        self.lock = threading.Lock()
        self.report = io.StringIO()
        self.oracle = mmin.Oracle(a.build) if getattr(a, 'min', False) else None

    def say(self, text=''):
        with self.lock:
            print(text, flush=True)
            self.report.write(text + '\n')

    def fail(self, line):
        with self.lock:
            self.problems.append(line)
            sys.stdout.flush()
            print('matrix: FAIL ' + line, file=sys.stderr, flush=True)
            self.report.write('FAIL ' + line + '\n')

    def build_image(self, script, bus_opt):
        """Image path, disk plan, bus label and note; None after a FAIL."""
        name = os.path.basename(script)
        try:
            with open(script, encoding='utf-8', errors='replace') as f:
                text, plan, label, note = prepare(f.read(), bus_opt)
        except (OSError, ValueError) as e:
            self.fail('%s swap=%s: %s' % (name, bus_opt or 'script', e))
            return None
        src = script
        if bus_opt:
            d = os.path.join(self.out, 'scripts-' + bus_opt)
            os.makedirs(d, exist_ok=True)
            src = os.path.join(d, name)
            with open(src, 'w') as f:
                f.write(text)
        img = os.path.join(self.out, 'images', '%s-%s.img' % (os.path.splitext(name)[0], label))
        cmd = [os.path.join(TOOLS, 'mkscript-image'), src, '-o', img, '--build', self.a.build]
        if self.a.cmdline:
            cmd += ['--cmdline', self.a.cmdline]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            msg = (r.stderr.strip() or r.stdout.strip() or 'exit %d' % r.returncode).splitlines()[-1]
            self.fail('%s swap=%s: image build failed: %s' % (name, label, msg))
            return None
        return img, plan, label, note

    def boot(self, job, i, n):
        """Boot one job; (rig.Result or None, host seconds)."""
        workdir = os.path.join(self.out, 'work')
        os.makedirs(workdir, exist_ok=True)
        logs = os.path.join(self.out, 'logs')
        os.makedirs(logs, exist_ok=True)
        log = os.path.join(logs, job.key + '.log')
        self.say('matrix: [%d/%d] %s: booting (%s)%s' % (
            i, n, job.where(), ', '.join(dev_name(b, k) + {SWAP: '', DATA: ' (data)'}.get(what, ' (filler)')
                                         for b, k, what in job.plan) or 'no swap disk',
            '; ' + job.note if job.note else ''))
        start = time.time()
        try:
            r = remote.boot_one(job.image, job.plan, job.profile, self.a.mem, self.a.timeout, self.a.icount,
                                self.a.swap_mib, job.key, workdir, log_path=log, echo=self.a.echo)
        except (OSError, subprocess.CalledProcessError) as e:
            self.fail('%s: could not boot: %s' % (job.where(), e))
            return None, time.time() - start, log
        return r, time.time() - start, log

    def jobs(self):
        names = {}
        for s in self.a.scripts:
            n = os.path.basename(s)
            if n in names and os.path.abspath(names[n]) != os.path.abspath(s):
                sys.exit('matrix: %s and %s have the same name; the kernel sees both as scripts/%s'
                         % (names[n], s, n))
            names[n] = s
        out = []
        for s in dict.fromkeys(self.a.scripts):
            for bus in self.a.swap_bus or [None]:
                built = self.build_image(s, bus)
                if not built:
                    continue
                img, plan, label, note = built
                for p in self.a.profile:
                    j = Job(s, p, label, os.path.basename(s))
                    j.image, j.plan, j.note = img, plan, note
                    out.append(j)
        return out

    def run(self):
        jobs = self.jobs()
        done = [None] * len(jobs)
        if self.a.sshlogin:
            self.run_remote(jobs, done)
            self.write(jobs, done)
            self.done = done
            return

        def one(i):
            r, secs, log = self.boot(jobs[i], i + 1, len(jobs))
            done[i] = self.digest(jobs[i], r, secs, log)

        if self.a.jobs > 1:
            with concurrent.futures.ThreadPoolExecutor(self.a.jobs) as ex:
                list(ex.map(one, range(len(jobs))))
        else:
            for i in range(len(jobs)):
                one(i)
        self.write(jobs, done)
        self.done = done

    def run_remote(self, jobs, done):
        """Every boot through GNU parallel on the --sshlogin hosts (see
        remote.py); the outcomes come back as the rig's, then as local."""
        lines = []
        for j in jobs:
            lines.append({'key': j.key, 'image': os.path.relpath(j.image, self.out), 'profile': j.profile,
                          'plan': remote.encode_plan(j.plan), 'mem': self.a.mem, 'timeout': self.a.timeout,
                          'icount': remote.encode_icount(self.a.icount), 'swap_mib': self.a.swap_mib})
        if not lines:
            return
        self.say('matrix: %d boot(s) through GNU parallel on %s, %d at once per host' % (
            len(lines), self.a.sshlogin, self.a.jobs))
        got, prc = remote.run_parallel(self.out, lines, self.a.sshlogin, self.a.jobs)
        logs = os.path.join(self.out, 'logs')
        os.makedirs(logs, exist_ok=True)
        for i, j in enumerate(jobs):
            log = os.path.join(logs, j.key + '.log')
            o = got[j.key]
            if o is None or o.get('error'):
                why = o['error'] if o else 'no ret/%s.json came back (parallel exit %s)' % (j.key, prc)
                self.fail('%s: could not boot: %s' % (j.where(), why))
                done[i] = self.digest(j, None, 0.0, log)
                continue
            with open(log, 'w') as f:
                f.write(o['log'])
            r = rig.Result(o['rc'], o['log'], parse_records(o['log']), o['timed_out'], o['elapsed'])
            done[i] = self.digest(j, r, o['elapsed'], log, host=o.get('host'))

    def digest(self, job, r, secs, log, host=None):
        """Check one boot and turn it into rows; reports as it goes."""
        d = {'job': job, 'secs': secs, 'log': log, 'results': [], 'tables': [], 'records': [],
             'summary': [], 'table_text': None, 'status': 'no-boot', 'problems': []}
        if r is None:
            d['problems'] = ['could not boot']
            return d
        d['status'] = r.status
        d['results'] = r.find('result')
        d['tables'] = r.find('table')
        d['records'] = [x for x in r.records if x.get('type') in KEEP_RECORDS]
        d['table_text'] = human_table(r)
        d['summary'] = summarize(job, d['results'], d['tables'])
        d['problems'] = problems_of(job, r)
        d['frames'] = mmin.start_frames(r.records)
        boots = r.find('boot')
        d['usable'] = boots[-1].get('usable_bytes') if boots else None
        for p in d['problems']:
            self.fail(p)
        self.say('matrix: %s: %s after %.0f s%s, %d results%s; log %s' % (
            job.where(), r.status, secs, ' on ' + host if host else '', len(d['results']),
            ', %d problem(s)' % len(d['problems']) if d['problems'] else '', log))
        return d

    # -------------------------------------------------------- output

    def write(self, jobs, done):
        os.makedirs(self.out, exist_ok=True)
        with open(os.path.join(self.out, 'results.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, RESULT_FIELDS)
            w.writeheader()
            for d in done:
                for x in d['results']:
                    w.writerow(result_row(d['job'], x))
        with open(os.path.join(self.out, 'summary.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, SUMMARY_FIELDS)
            w.writeheader()
            for d in done:
                for s in d['summary']:
                    row = {k: fmt(v, 3) if isinstance(v, float) else v for k, v in s.items()}
                    if self.oracle and d.get('frames'):
                        row.update(mmin.summary_fields(s['column'], d['results'], d['frames'][0], self.oracle,
                                                       d.get('usable')))
                    w.writerow(row)
        with open(os.path.join(self.out, 'boots.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, BOOT_FIELDS)
            w.writeheader()
            for d in done:
                j = d['job']
                w.writerow({'script': j.name, 'profile': j.profile, 'swap_bus': j.bus, 'status': d['status'],
                            'host_s': '%.1f' % d['secs'], 'results': len(d['results']),
                            'problems': len(d['problems']), 'log': d['log']})
        with open(os.path.join(self.out, 'records.jsonl'), 'w') as f:
            for d in done:
                j = d['job']
                for x in d['records']:
                    f.write(json.dumps({'matrix': {'script': j.name, 'profile': j.profile, 'swap_bus': j.bus},
                                        **x}) + '\n')

    def print_tables(self, done):
        for d in done:
            j = d['job']
            self.say('')
            self.say('=== %s (host %.0f s, %s)' % (j.where(), d['secs'], d['status']))
            self.say(d['table_text'] or '(no table)')
            self.say('')
            for line in compare(d['summary'], cpu_clock=cpu_clock_note(self.a.icount, j.profile)):
                self.say(line)
            if self.oracle:
                self.say('')
                for line in self.min_lines(d):
                    self.say(line)

    def min_lines(self, d):
        if not d.get('frames'):
            return ['MIN: no mem_balance start record in the log: no frame count']
        cols = column_order(d['results'], d['tables'])
        return mmin.min_table(cols, d['results'], d['frames'][0], d['frames'][1], self.oracle, d.get('usable'))

    def plots(self, done):
        if not shutil.which('gnuplot'):
            self.say('matrix: gnuplot is missing, so no plots (the CSVs are written); as root: ' + GNUPLOT_APT)
            return []
        term = gnuplot_terminal() or 'png'
        pngs = []
        for d in done:
            if not d['summary']:
                continue
            try:
                pngs.append(plot(d['job'], d['summary'], os.path.join(self.out, 'plots'), term))
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                self.say('matrix: %s: no plot: %s' % (d['job'].where(), e))
        return pngs

    def finish(self, done, start):
        self.print_tables(done)
        pngs = self.plots(done)
        self.say('')
        self.say('matrix: wrote %s/results.csv, summary.csv, boots.csv, records.jsonl%s' % (
            self.out, ', %d plot(s) in %s/plots' % (len(pngs), self.out) if pngs else ''))
        self.say('matrix: %d boot(s) in %.0f s' % (len(done), time.time() - start))
        if self.problems:
            self.say('matrix: %d problem(s):' % len(self.problems))
            for p in self.problems:
                self.say('  FAIL ' + p)
        with open(os.path.join(self.out, 'report.txt'), 'w') as f:
            f.write(self.report.getvalue())
        return 1 if self.problems else 0


# ------------------------------------------------------------ self-test

def canned_log():
    """A console of one script with an own, a fixed and an off column and
    one failed run; figures chosen so the sums are easy to check."""
    def res(col, ci, run, seq, ra, el_ms, maj, failed=0, mism=0, probe=True, cmd='touch 56 20000 seq anon',
            rows=None, sys_ms=250):
        x = {'type': 'result', 'script': 'scripts/canned.mm', 'line': 5, 'column': col, 'column_index': ci,
             'run': run, 'rep': run, 'reps': [run], 'seq': seq, 'commands': [cmd],
             'exits': [{'cmdline': cmd, 'started': True, 'pid': 6 + seq,
                        'exit_code': 1 if failed else 0, 'signal': None}],
             'failed': failed, 'elapsed_ns': el_ms * 1000000, 'utime_ns': 60000000, 'stime_ns': sys_ms * 1000000,
             'minflt': 15000, 'majflt': maj, 'mismatches': mism, 'workload_records': 1,
             'knobs': {'ra': ra, 'page_cluster': '3', 'swap_cluster': '256', 'reclaim_batch': '64'},
             'readahead': {'swap_ra': 4000, 'swap_ra_hit': 3900, 'swap_ra_waste': 100, 'hit_pct': 97.5},
             'swapin_latency': {'major': {'n': 700, 'p50_ns': 150000, 'p99_ns': 900000, 'max_ns': 2000000,
                                          'mean_ns': 200000},
                                'cached': {'n': 4000, 'p50_ns': 2000, 'p99_ns': 9000, 'max_ns': 20000,
                                           'mean_ns': 3000}},
             'vmstat': {'pgmajfault': maj, 'pgpgin': 20000, 'pgpgout': 35000, 'pswpin': 5000,
                        'pswpout': 8800, 'swap_ra': 4000, 'swap_ra_hit': 3900, 'swap_ra_waste': 100}}
        if rows is not None:
            x['rows'] = rows
        if probe:
            x['probe'] = {'periods': 60, 'met': 50, 'met_pct': 83.33, 'worst_late_ns': 12500000,
                          'p50_late_ns': 1, 'p99_late_ns': 2, 'mean_late_ns': 1}
        return x
    recs = [res('RA=3', 0, 0, 0, 'fixed:3', 600, 700, rows={'touch.pages': 100, 'touch.tps': None}),
            res('RA=3', 0, 1, 1, 'fixed:3', 700, 720, rows={'touch.pages': 120, 'touch.tps': None}),
            res('RA=0', 1, 0, 2, 'off', 900, 5000, probe=False, sys_ms=200),
            res('own', 2, 0, 3, 'own', 610, 707, sys_ms=200),
            res('own', 2, 1, 4, 'own', 650, 721, failed=1, mism=3, sys_ms=220),
            res('rnd Hugh', 3, 0, 5, 'hugh', 2000, 3000, cmd='touch 56 3000 random anon'),
            res('rnd RA=0', 4, 0, 6, 'off', 1500, 2500, cmd='touch 56 3000 random anon'),
            res('rnd own', 5, 0, 7, 'own', 1800, 2600, cmd='touch 56 3000 random anon')]
    table = {'type': 'table', 'script': 'scripts/canned.mm', 'columns': ['RA=3', 'RA=0', 'own'],
             'rows': [{'name': 'real time', 'unit': 'ms',
                       'cells': [{'n': 2, 'mean': 650.0, 'stderr': 50.0, 'sd': 70.711},
                                 {'n': 1, 'mean': 900.0, 'stderr': 0, 'sd': 0},
                                 {'n': 2, 'mean': 630.0, 'stderr': 20.0, 'sd': 28.284}]}]}
    lines = ['BdsDxe: loading Boot0001', '{"type":"boot","usable_bytes":50331648}',
             'script: scripts/canned.mm: 9 statements, 3 columns']
    lines += [json.dumps(x, separators=(',', ':')) for x in recs]
    lines += ['', 'script scripts/canned.mm: mean\u00b1stderr over the runs of each column; times in ms',
              '                RA=3  RA=0     own', 'runs               2     1       2',
              'real time     650\u00b150   900  630\u00b120', json.dumps(table, separators=(',', ':')),
              '{"type":"script_end","script":"scripts/canned.mm","results":8,"failed":1,"stopped":false}',
              '{"type":"halt","status":"ok"}']
    return '\n'.join(lines) + '\n'


def self_test():
    failures, checks = [], [0]

    def check(cond, what):
        checks[0] += 1
        if not cond:
            failures.append(what)

    # Swap devices: names, rewriting, plans.
    check(parse_dev('nvme1n1') == ('nvme', 1) and parse_dev('sata2') == ('sata', 2), 'parse_dev')
    for bad in ('nvme0n1', 'sata0', 'nvme1n1p2', 'nvme1n2', 'sda'):
        try:
            parse_dev(bad)
            check(False, 'parse_dev accepted ' + bad)
        except ValueError:
            check(True, '')
    text = 'mem 48M\nswap nvme1n1   # the disk\nswap nvme2n1 prio=5\nrun touch 8 1\n  swapoff nvme2n1\n'
    new, renamed = rewrite_script(text, 'sata')
    check(new == 'mem 48M\nswap sata1   # the disk\nswap sata2 prio=5\nrun touch 8 1\n  swapoff sata2\n',
          'rewrite to sata: %r' % new)
    check(renamed == {'nvme1n1': 'sata1', 'nvme2n1': 'sata2'}, 'renamed %r' % renamed)
    check(rewrite_script(new, 'nvme')[0] == text, 'rewrite back to nvme')
    check(script_devices(text) == ('named', [('nvme', 1), ('nvme', 2)]), 'script_devices')
    check(script_devices('swap auto\nrun x\n') == ('auto', []) and script_devices('run x\n') == ('auto', []),
          'auto')
    check(plan_disks('auto', [], 'sata') == [('sata', 1, True)], 'plan auto')
    check(plan_disks('none', [], 'nvme') == [], 'plan none')
    check(plan_disks('named', [('sata', 2)], 'sata') == [('sata', 1, False), ('sata', 2, True)], 'plan filler')
    check(prepare(text, None)[1:] == ([('nvme', 1, True), ('nvme', 2, True)], 'nvme', ''), 'prepare as is')
    check(prepare(text, 'sata')[1:] == ([('sata', 1, True), ('sata', 2, True)], 'sata',
                                        'rewritten: nvme1n1 -> sata1, nvme2n1 -> sata2'), 'prepare to sata')
    check(prepare('swap nvme1n1\nswap sata2\n', None)[1:3] ==
          ([('nvme', 1, True), ('sata', 1, False), ('sata', 2, True)], 'nvme+sata'), 'prepare mixed')
    try:
        prepare('swap nvme1n1\nswap sata1\n', 'sata')
        check(False, 'prepare let nvme1n1 and sata1 become one disk')
    except ValueError:
        check(True, '')

    # --sshlogin: a disk plan survives the command line; parallel's options.
    plan = [('nvme', 1, True), ('sata', 1, False), ('sata', 2, True)]
    check(remote.encode_plan(plan) == 'nvme:1:1,sata:1:0,sata:2:1', 'encode_plan')
    check(remote.decode_plan(remote.encode_plan(plan)) == plan and remote.decode_plan('-') == [], 'decode_plan')
    pc = remote.parallel_command('a,b', 2, ['remote/mmtools.pyz', 'images/x.img'], 'remote/jobs.tsv')
    check(pc[:5] == ['parallel', '--will-cite', '--sshlogin', 'a,b', '--jobs'] and '--cleanup' in pc and
          pc[pc.index('--return') + 1] == 'ret/{1}.json' and pc.count('--basefile') == 2 and
          pc[-2:] == ['::::', 'remote/jobs.tsv'] and '{8}' in pc and '{9}' not in pc, 'parallel command %r' % pc)

    # A canned console: rows, summaries, comparison, problems, plots.
    log = canned_log()
    r = rig.Result(0, log, parse_records(log), False, 1.0)
    job = Job('canned.mm', 'ssd', 'nvme', 'canned.mm')
    with tempfile.TemporaryDirectory() as tmp:
        a = argparse.Namespace(out=tmp, build='build', scripts=[], icount=False)
        m = Matrix(a)
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()
        try:
            d = m.digest(job, r, 1.0, 'canned.log')
            m.write([job], [d])
            m.print_tables([d])
        finally:
            sys.stdout, sys.stderr = saved
        with open(os.path.join(tmp, 'results.csv')) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(tmp, 'summary.csv')) as f:
            summ = list(csv.DictReader(f))
        check(len(rows) == 8 and list(rows[0]) == RESULT_FIELDS, 'results.csv shape')
        r0 = rows[0]
        check((r0['column'], r0['policy'], r0['elapsed_ms'], r0['majflt'], r0['pswpin'], r0['ra_hit_pct'],
               r0['major_p99_us'], r0['cached_p50_us'], r0['probe_met_pct'], r0['probe_worst_late_ms']) ==
              ('RA=3', 'fixed:3', '600.000', '700', '5000', '97.5', '900.0', '2.0', '83.33', '12.500'),
              'results row %r' % r0)
        check(rows[2]['probe_met_pct'] == '' and rows[4]['failed'] == '1', 'probe absent / failed')
        check(r0['rows'] == 'touch.pages=100; touch.tps=-' and rows[2]['rows'] == '', 'results rows %r' % r0['rows'])
        check([s['column'] for s in summ] == ['RA=3', 'RA=0', 'own', 'rnd Hugh', 'rnd RA=0', 'rnd own'],
              'summary columns')
        s0 = summ[0]
        check((s0['n'], s0['elapsed_ms_mean'], s0['elapsed_ms_stderr'], s0['majflt_mean'], s0['majflt_stderr'],
               s0['sys_ms_mean'], summ[2]['sys_ms_mean'], summ[2]['sys_ms_stderr'])
              == ('2', '650.000', '50.000', '710.000', '10.000', '250.000', '210.000', '10.000'),
              'summary row %r' % s0)
        check(s0['rows'] == 'touch.pages=110.000±10.000 n=2; touch.tps=-' and summ[1]['rows'] == '',
              'summary rows %r' % s0['rows'])
        text = m.report.getvalue()
        check('real time     650\u00b150   900  630\u00b120' in text, 'kernel table not printed')
        check("own 'own' vs best fixed: majflt x1.006 (best 'RA=3' fixed:3 710.0), "
              "sys x1.050 (best 'RA=0' off 200.0 ms), elapsed x0.969 (best 'RA=3' fixed:3 650.0 ms): within 2%"
              in text, 'comparison: %s' % text)
        check("fewest major faults: 'RA=3'" in text and "fastest: 'own'" in text, 'best columns')
        # At none under --icount the verdict takes sys: own's sys is 1.05x
        # off's there, so the same columns are not within 2%.
        cpu = [x for x in compare(d['summary'], cpu_clock=cpu_clock_note(True, 'none')) if "own 'own'" in x]
        check(len(cpu) == 1 and cpu[0].endswith(
            "elapsed x0.969 (best 'RA=3' fixed:3 650.0 ms): NOT within 2% "
            "(in majflt and sys: elapsed follows the host at none under --icount)"), 'cpu clock: %r' % cpu)
        # --icount=exact: sys at every profile; plain --icount only at none.
        check(cpu_clock_note(True, 'ssd') is None and cpu_clock_note(False, 'none') is None
              and cpu_clock_note('exact', 'ssd') == 'elapsed jumps over idle time under --icount=exact',
              'cpu clock notes')
        check("    own 'rnd own' vs best fixed: majflt x1.040 (best 'rnd RA=0' off 2500.0), sys x1.000 "
              "(best 'rnd RA=0' off 250.0 ms), elapsed x1.200 (best 'rnd RA=0' off 1500.0 ms): NOT within 2%"
              in text, 'random group: %s' % text)
        probs = m.problems
        check(len(probs) == 2 and "column 'own' run 1: failed=1: 'touch 56 20000 seq anon' exit 1" in probs[0]
              and 'run 1: 3 data mismatches' in probs[1], 'problems %r' % probs)
        # A boot that never got to the script, and a script_error.
        bad = '{"type":"script_error","script":"scripts/x.mm","phase":"parse","line":3,"col":1,' \
              '"message":"scripts/x.mm:3:1: unknown statement \'frob\'"}\n{"type":"halt","status":"ok"}\n'
        pr = problems_of(job, rig.Result(0, bad, parse_records(bad), False, 1.0))
        check(pr == ["canned.mm ssd swap=nvme: script_error (parse): scripts/x.mm:3:1: unknown statement 'frob'"],
              'script_error: %r' % pr)
        pr = problems_of(job, rig.Result(-9, 'BdsDxe\n', [], True, 9.0))
        check(len(pr) == 1 and 'boot timed out' in pr[0], 'timeout: %r' % pr)
        rendered = render_table(d['tables'][0])
        check('650.000\u00b150.000' not in rendered and '650\u00b150' in rendered, 'render_table %r' % rendered)
        if shutil.which('gnuplot'):
            png = plot(job, d['summary'], os.path.join(tmp, 'plots'), gnuplot_terminal() or 'png')
            with open(png, 'rb') as f:
                check(f.read(8) == b'\x89PNG\r\n\x1a\n', 'plot is not a PNG')
    for f in failures:
        print('matrix-selftest: FAIL ' + f)
    print('matrix-selftest: %d passed, %d failed' % (checks[0] - len(failures), len(failures)))
    return 1 if failures else 0


# ------------------------------------------------------------ main

def comma_list(choices):
    def parse(s):
        vals = [v for v in s.split(',') if v]
        for v in vals:
            if v not in choices:
                raise argparse.ArgumentTypeError('%r is not one of %s' % (v, ', '.join(choices)))
        return vals
    return parse


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    ap.add_argument('scripts', nargs='*', metavar='SCRIPT.mm')
    ap.add_argument('--profile', action='append', type=comma_list(sorted(rig.PROFILES)),
                    help='disk profile(s): none, ssd, hdd; a comma list or repeated (default: none)')
    ap.add_argument('--swap-bus', action='append', type=comma_list(['nvme', 'sata']),
                    help="bus of the swap disk(s): nvme, sata or both (nvme,sata); default: the script's own "
                         'device names (swap auto: nvme)')
    ap.add_argument('--swap-mib', type=int, default=256, help='size of each swap disk in MiB (default 256)')
    ap.add_argument('--mem', default='256M', help="QEMU -m (default 256M; the script's mem line caps the kernel)")
    ap.add_argument('--cmdline', default='', help="more kernel options for every image (e.g. 'swapcrc=on')")
    ap.add_argument('--icount', nargs='?', const=True, default=False, choices=['exact'],
                    help='-icount shift=0: low-noise guest time (slower); --icount=exact adds sleep=off '
                    '(idle time jumps to the next timer: exact, but a wait for the disk lasts until then)')
    ap.add_argument('--timeout', type=float, default=7200, help='seconds per boot (default 7200)')
    ap.add_argument('--jobs', type=int, default=1,
                    help='QEMUs at once (default 1; more than the host has spare cores distorts the timings)')
    ap.add_argument('--sshlogin', default=None, metavar='HOSTS',
                    help="boot on these hosts with GNU parallel (its --sshlogin: 'host1,user@host2', ':' is "
                         'this host); --jobs is then per host')
    ap.add_argument('--out', default='build/matrix', help='output directory (default build/matrix)')
    ap.add_argument('--build', default='build', help='where the kernel, loader and workloads are (default build)')
    ap.add_argument('--echo', action='store_true', help='stream the serial consoles (best with --jobs 1)')
    ap.add_argument('--min', action='store_true',
                    help="MIN and LRU of each column's workload beside the tables (tools/min)")
    ap.add_argument('--self-test', action='store_true', help='check the record parsing on a canned log; no QEMU')
    a = ap.parse_args()
    if a.self_test:
        sys.exit(self_test())
    if not a.scripts:
        ap.error('no script given')
    a.profile = [p for ps in (a.profile or [['none']]) for p in ps]
    a.profile = list(dict.fromkeys(a.profile))
    a.swap_bus = list(dict.fromkeys(b for bs in (a.swap_bus or []) for b in bs)) or None
    if a.jobs < 1 or a.swap_mib < 1:
        ap.error('--jobs and --swap-mib must be at least 1')
    if a.sshlogin is not None:
        if not a.sshlogin.strip():
            ap.error('--sshlogin: empty (give hosts, or : for this host)')
        if a.echo:
            ap.error('--echo streams local consoles only; with --sshlogin the logs come back at the end')
        if not shutil.which('parallel'):
            sys.exit('matrix: --sshlogin needs GNU parallel; as root: apt-get install -y --no-install-recommends '
                     'parallel rsync')
    for s in a.scripts:
        if not os.path.isfile(s):
            ap.error('%s: no such file' % s)
    for f in ('kernel.elf', 'BOOTX64.EFI'):
        if not os.path.isfile(os.path.join(a.build, f)):
            sys.exit('matrix: %s/%s is missing (make all)' % (a.build, f))
    os.makedirs(a.out, exist_ok=True)
    m = Matrix(a)
    start = time.time()
    m.run()
    sys.exit(m.finish(m.done, start))


if __name__ == '__main__':
    main()
