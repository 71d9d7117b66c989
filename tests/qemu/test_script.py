"""Workload scripts: the smoke script end to end, parse and check errors."""
import os
import re

import pytest

from rig import check_script_error, expect, expect_ok, boot_record, expect_in_log, task_exits, one_record, swap_image, script_image, script_text_image


# ------------------------------------------------------------ workload scripts

SMOKE_SCRIPT = os.path.join('tests', 'workloads', 'scripts', 'smoke.mm')
TABLE_ROWS = ['real time', 'user time', 'sys time', 'pgmajfault', 'pgpgin', 'pgpgout', 'pswpin', 'pswpout',
              'swap_ra', 'swap_ra_hit', 'swap_ra_waste', 'swapcache hit %', 'swap-in p50 (us)',
              'swap-in p99 (us)']


def test_script_smoke_end_to_end(ctx):
    # smoke.mm: column "seq RA=3" runs touch twice, column "pair RA=0" a
    # parallel group of two; the probe is on throughout.
    img = script_image(ctx, SMOKE_SCRIPT)
    r = ctx.boot(None, image=img, disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect(boot_record(r)['mem_cap_bytes'] == 48 << 20, 'mkscript-image did not put mem=48M on the command line')
    res = r.find('result')
    expect([(x['column'], x['run'], len(x['commands'])) for x in res] ==
           [('seq RA=3', 0, 1), ('seq RA=3', 1, 1), ('pair RA=0', 0, 2)],
           'results %r' % [(x['column'], x['run'], x['commands']) for x in res])
    expect([x['rep'] for x in res] == [0, 1, 0] and res[1]['reps'] == [1], 'repetition indices %r' % res)
    expect(len(task_exits(r)) == 4, 'expected 4 task_exit records')
    for x in res:
        expect(x['failed'] == 0 and all(e['exit_code'] == 0 and e['started'] for e in x['exits']),
               'a run failed: %r' % x['exits'])
        expect(x['mismatches'] == 0 and x['workload_records'] == len(x['commands']),
               'mismatch count %r from %r workload lines' % (x['mismatches'], x['workload_records']))
        expect(x['elapsed_ns'] > 0 and x['utime_ns'] > 0 and x['minflt'] > 0, 'figures %r' % x)
        expect(all(k in x['vmstat'] for k in ('pgmajfault', 'pswpin', 'pswpout', 'swap_ra', 'swap_ra_hit',
                                              'swap_ra_waste', 'swap_read_reqs')), 'vmstat %r' % x['vmstat'])
        expect('probe' in x and x['probe']['periods'] > 0, 'no probe figures in %r' % x)
        expect(x['readahead']['swap_ra'] == x['vmstat']['swap_ra'], 'readahead %r' % x['readahead'])
        lat = x['swapin_latency']['major']
        expect(lat['p50_ns'] <= lat['p99_ns'] <= lat['max_ns'],
               'swap-in latency %r' % x['swapin_latency'])
    expect(res[0]['knobs']['ra'] == 'fixed:3' and res[2]['knobs']['page_cluster'] == '0', 'knobs %r' % res[2]['knobs'])
    expect(res[0]['vmstat']['pswpout'] > 0, 'touch 56 MiB in 48 MiB did not swap: %r' % res[0]['vmstat'])
    expect(res[0]['swapin_latency']['major']['n'] > 0, 'no swap-in latency: %r' % res[0]['swapin_latency'])
    # One run's elapsed time spans both tasks of the group.
    t = one_record(r, 'table')
    expect(t['script'] == 'scripts/smoke.mm' and t['columns'] == ['seq RA=3', 'pair RA=0'], 'table columns %r' % t['columns'])
    expect([row['name'] for row in t['rows']] == TABLE_ROWS, 'table rows %r' % [row['name'] for row in t['rows']])
    for row in t['rows']:
        expect([c['n'] for c in row['cells']] == [2, 1], '%s: n %r' % (row['name'], row['cells']))
        expect(row['cells'][1]['stderr'] == 0, '%s: stderr of one run %r' % (row['name'], row['cells'][1]))
    real = t['rows'][0]
    want = (res[0]['elapsed_ns'] + res[1]['elapsed_ns']) / 2e6
    expect(real['unit'] == 'ms' and abs(real['cells'][0]['mean'] - want) < 0.01,
           'real time mean %r, results say %.3f ms' % (real['cells'][0], want))
    maj = t['rows'][3]['cells'][0]['mean']
    expect(maj == (res[0]['vmstat']['pgmajfault'] + res[1]['vmstat']['pgmajfault']) / 2, 'pgmajfault mean %r' % maj)
    expect_in_log(r, 'script scripts/smoke.mm: mean\u00b1stderr over the runs of each column; times in ms')
    expect(re.search(r'^real time +\d+(\.\d)?\u00b1\d+(\.\d)? +\d+(\.\d)?$', r.log, re.M), 'no human real time row')
    p = one_record(r, 'probe')
    expect(p['periods'] > 50 and 0 <= p['met_pct'] <= 100 and p['p99_late_ns'] <= p['worst_late_ns'], 'probe %r' % p)
    end = one_record(r, 'script_end')
    expect(end['results'] == 3 and end['failed'] == 0 and not end['stopped'], 'script_end %r' % end)


# A parse error names FILE:LINE:COL and nothing runs (rig.check_script_error).
SCRIPT_ERRORS = [
    ('unknown_statement', 'mem 48M\nrun hello\n  frobnicate 3\n',
     "scripts/bad.mm:3:3: unknown statement 'frobnicate'"),
    ('bad_knob_name', 'run hello\nset swapines 60\n',
     "scripts/bad.mm:2:5: unknown knob 'swapines' (did you mean swappiness?)"),
    ('unterminated_quote', 'run hello\ncolumn "RA=3\nrun hello\n',
     'scripts/bad.mm:2:8: unterminated quote'),
    ('end_without_block', 'repeat 2\n  run hello\nend\nend\n',
     "scripts/bad.mm:4:1: 'end' without 'repeat' or 'parallel'"),
]


@pytest.mark.quick
@pytest.mark.parametrize('text, message', [pytest.param(t, m, id=n) for n, t, m in SCRIPT_ERRORS])
def test_script_error(ctx, text, message):
    check_script_error(ctx, text, message)


def test_script_mem_mismatch_refused(ctx):
    # The script wants 48M; booted without mem= the kernel has ~250 MiB.
    r = ctx.boot(None, image=script_text_image(ctx, 'mem 48M\nrun hello\n'))
    expect_ok(r)
    expect(re.search(r'scripts/bad\.mm: the script expects mem 48M but the kernel has \d+ MiB of usable RAM; '
                     r'boot with mem=48M', r.log), 'no mem= advice')
    expect(one_record(r, 'script_error')['phase'] == 'check', 'script_error phase')
    expect(not task_exits(r), 'something ran')


def test_script_missing_program_and_device_refused(ctx):
    r = ctx.boot(None, image=script_text_image(ctx, 'run hello\nrun hogmem 8 1\n'))
    expect_ok(r)
    expect_in_log(r, "scripts/bad.mm:2:5: no program 'hogmem' among the boot files")
    expect(not task_exits(r), 'something ran')
    r = ctx.boot(None, image=script_text_image(ctx, 'swap nvme7n1\nrun hello\n'))
    expect_ok(r)
    expect_in_log(r, 'scripts/bad.mm:1:6: swap nvme7n1: no such block device')
    expect(not task_exits(r), 'something ran')


def test_script_bad_knob_value_stops_there(ctx):
    # What only the running kernel knows (ra's policy names) is checked
    # when `set` runs: the first run happens, the line with the bad value
    # stops the script, the table shows what ran.  (Numeric ranges are
    # checked at parse time, test_cmdline.py.)
    r = ctx.boot(None, image=script_text_image(ctx, 'run hello one\nset ra bogus\nrun hello two\n'))
    expect_ok(r)
    expect_in_log(r, "scripts/bad.mm:2:5: set ra bogus: ra: 'bogus' is not a readahead policy "
                     "(off, fixed:0..fixed:8, hugh, shaohua, vma or own); the script stops here")
    e = task_exits(r)
    expect(len(e) == 1 and e[0]['cmdline'] == 'hello one', 'runs %r' % e)
    end = one_record(r, 'script_end')
    expect(end['stopped'] and end['results'] == 1, 'script_end %r' % end)
    t = one_record(r, 'table')
    expect(t['columns'] == ['hello one', 'hello two'], 'table columns %r' % t['columns'])
    expect([c['n'] for c in t['rows'][0]['cells']] == [1, 0] and t['rows'][0]['cells'][1]['mean'] is None,
           'cells of a column that never ran %r' % t['rows'][0]['cells'])


def test_run_vmstat_and_probe(ctx):
    # run= has the scripts' vmstat and probe as @vmstat and @probe: the
    # sampler prints its lines while the step's program runs and stops at
    # @vmstat 0, the probe counts its deadlines until @probe off; a bad
    # interval is named and left out, the rest runs.
    r = ctx.boot('quiet mem=48M run="@vmstat 5 ; @vmstat 20 & @probe on & touch 72 20000 seq anon ; '
                 '@vmstat 0 & @probe off ; touch 8 2000 seq anon"',
                 disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=600)
    expect_ok(r)
    expect_in_log(r, "run=: step 1 '@vmstat 5': vmstat: an interval of 5 ms is below 10 ms")
    e = task_exits(r)
    expect(len(e) == 2 and all(x['exit_code'] == 0 for x in e), 'exits %r' % e)
    lines = r.log.splitlines()
    samples = [i for i, l in enumerate(lines) if re.match(r'vmstat: +\d+ +\d+ +\d+', l)]
    # The first touch swaps for a while at 20 ms a line; the second starts
    # after the sampler stopped, so no line comes after its start.
    second = max(i for i, l in enumerate(lines) if "step 3 done" in l)
    expect(len(samples) >= 3, 'only %d vmstat lines' % len(samples))
    expect(max(samples) < second, 'a vmstat line after @vmstat 0 (line %d, step 3 done at %d)'
           % (max(samples), second))
    p = one_record(r, 'probe')
    expect(p['periods'] > 0 and p['period_ns'] == 10000000, 'probe %r' % p)
    # Each program step's record has the guest's busy time over the step:
    # at least its task's own CPU time, and more where kswapd worked too.
    for x in e:
        v = [y for y in r.find('vmstat') if y.get('label', '').endswith(x['cmdline'])]
        expect(len(v) == 1, 'no vmstat record of the step running %s' % x['cmdline'])
        v = v[0]
        task = x['utime_ns'] + x['stime_ns']
        expect(v['busy_ns'] >= task, '%s: busy %d ns < the task\'s %d' % (x['cmdline'], v['busy_ns'], task))
        if v['pgscan_kswapd']:
            expect(v['busy_ns'] > task, '%s: kswapd scanned, busy %d ns = the task\'s' % (x['cmdline'], task))
    # Interrupt handlers that ran while the CPU idled (the completions of
    # the reads and writes the task waited for) count busy, not idle: the
    # idle thread's time is idle_ns plus those.
    c = one_record(r, 'cpu')
    idle = [t for t in c['threads'] if t['name'] == 'idle']
    expect(len(idle) == 1, 'no idle thread in %r' % c['threads'])
    expect(0 < c['idle_irq_ns'] <= c['irq_ns'] < c['busy_ns'], 'interrupt time %r' % c)
    expect(c['idle_ns'] + c['idle_irq_ns'] == idle[0]['cpu_ns'],
           'idle_ns %d + idle_irq_ns %d != the idle thread\'s %d' % (c['idle_ns'], c['idle_irq_ns'], idle[0]['cpu_ns']))
