"""The kernel profiler (prof=on, kernel/core/kprof.h): every sample (an
NMI from the PIT under QEMU) counts what it interrupted, and each run=
step gets a "prof" record of its window.  A swapping touch spends its
kernel time in page faults, so the fault path must lead the task's
kernel samples, and the counts must add up and agree with the task's own
CPU time (under -icount both come from the instruction count).  Code
that runs with interrupts off is sampled where it runs, on every CPU."""
import pytest

from rig import expect, swap_image, run_swapping, expect_clean_exits, selftest

TOUCH = 'touch 72 30000 seq anon 1'
HZ = 2000


def expect_sums(p):
    parts = p['user'] + p['kernel_task'] + p['kernel_thread'] + p['kernel_irq'] + p['idle'] + p['unknown']
    expect(p['hz'] == HZ and parts == p['samples'], 'counts do not add up: %r' % {k: p[k] for k in
           ('hz', 'samples', 'user', 'kernel_task', 'kernel_thread', 'kernel_irq', 'idle', 'unknown')})
    # QEMU's PIT reaches the I/O APIC: the NMI clock samples, about hz a
    # second (a late NMI stretches its period; under -icount rarely).
    expect(p['source'] == 'nmi' and 0.99e9 / HZ <= p['period_ns'] <= 1.25e9 / HZ,
           'source %s, period %d ns at hz=%d' % (p['source'], p['period_ns'], HZ))


def test_prof_counts_the_fault_path(ctx):
    r = run_swapping(ctx, ['@set ra off', TOUCH], [{'file': swap_image(ctx), 'bus': 'nvme'}],
                     extra_cmdline='prof=maybe prof=on hz=%d' % HZ, icount=True, timeout=900)
    e = expect_clean_exits(r, 1)[0]
    expect("prof=maybe" in r.log, 'no error naming prof=maybe')
    recs = [p for p in r.find('prof') if p['label'] == TOUCH]
    expect(len(recs) == 1, 'prof records for the touch step: %r' % [p['label'] for p in r.find('prof')])
    expect(all(p['label'] != '@set ra off' for p in r.find('prof')), 'a prof record for a step with no program')
    p = recs[0]
    expect_sums(p)
    # The task's CPU time in sample periods against the samples taken in it.
    want = (e['stime_ns'] + e['utime_ns']) / p['period_ns']
    got = p['kernel_task'] + p['user']
    expect(want > 200 and 0.8 * want <= got <= 1.25 * want,
           'task CPU %d + %d ns is %.0f periods of %d ns, but %d samples in it'
           % (e['stime_ns'], e['utime_ns'], want, p['period_ns'], got))
    total = {x['fn']: x['n'] for x in p['total']}
    self_ = {x['fn']: x['n'] for x in p['self']}
    for key in ('total', 'self'):
        lst, cut = p[key], p[key + '_cut']
        ns = [x['n'] for x in lst]
        expect(ns == sorted(ns, reverse=True) and len(lst) <= 100, 'not a top list: %r' % lst)
        # The largest count left off: none unless the list is full, and
        # never above the list's last.
        expect((cut == 0 or len(lst) == 100) and (not ns or cut <= ns[-1]),
               '%s_cut %d for a list of %d ending at %r' % (key, cut, len(lst), ns[-1:]))
    for fn, n in self_.items():
        expect(fn not in total or n <= total[fn], '%s: self %d > total %d' % (fn, n, total.get(fn, 0)))
    # Every major fault of a swapping touch goes page_fault -> vm_fault ->
    # swapin_anon: the walk up the frame pointers must find them.
    expect(total.get('page_fault', 0) >= 0.5 * p['kernel_task'],
           'page_fault in %d of %d kernel samples of the task' % (total.get('page_fault', 0), p['kernel_task']))
    expect(total.get('vm_fault', 0) > 0 and total.get('swapin_anon', 0) > 0,
           'fault path missing from total: %r' % p['total'])
    expect(p['kernel_thread'] > 0 and total.get('kswapd', 0) > 0, 'kswapd not sampled: %r' % p['total'])
    # The caller-callee edges: right after the prof record, the fault
    # path's links among them, none lost, none above either end's total
    # (an edge is counted once per sample, as a function's total is).
    recs = [x for x in r.records if x.get('type') in ('prof', 'prof_edges') and x.get('label') == TOUCH]
    expect([x['type'] for x in recs] == ['prof', 'prof_edges'], 'records for the step: %r' % [x['type'] for x in recs])
    ed = recs[1]
    ns = [x['n'] for x in ed['edges']]
    expect(ns == sorted(ns, reverse=True) and 0 < len(ns) <= 200 and (ed['edges_cut'] == 0 or ed['edges_cut'] <= ns[-1]),
           'not a top list: %r' % ed)
    expect(ed['edges_lost'] == 0, '%d edges lost' % ed['edges_lost'])
    pairs = {(x['from'], x['to']): x['n'] for x in ed['edges']}
    for a, b in (('page_fault', 'vm_fault'), ('vm_fault', 'swapin_anon')):
        expect(pairs.get((a, b), 0) > 0, 'no %s -> %s edge: %r' % (a, b, ed['edges'][:20]))
    for (a, b), n in pairs.items():
        expect(a != b and (a not in total or n <= total[a]) and (b not in total or n <= total[b]),
               '%s -> %s: %d samples, totals %r and %r' % (a, b, n, total.get(a), total.get(b)))


@pytest.mark.parametrize('cpus', [1, 2])
def test_prof_samples_code_with_interrupts_off(ctx, cpus):
    # test=prof spins 200 ms with interrupts off, then 200 ms with them on,
    # in one function each, then runs the calibration loops 400 ms.  A
    # tick-driven profile never lands in the first (its time went to where
    # interrupts came back on); the NMI clock must find each for about
    # 200 ms, and on 2 CPUs sample the other (idle) CPU as often.
    data, r = selftest(ctx, 'prof', 'mem=64M prof=on hz=%d' % HZ, smp=cpus, icount='exact', timeout=300)
    recs = [p for p in r.find('prof') if p['label'] == 'selftest prof']
    expect(len(recs) == 1, 'prof records: %r' % [p['label'] for p in r.find('prof')])
    p = recs[0]
    expect_sums(p)
    total = {x['fn']: x['n'] for x in p['total']}
    for fn in ('prof_spin_irqs_off', 'prof_spin_irqs_on'):
        ms = total.get(fn, 0) * p['period_ns'] / 1e6
        expect(160 <= ms <= 240, '%s: %d samples of %d ns = %.0f ms, spun 200 ms' % (fn, total.get(fn, 0), p['period_ns'], ms))
    # Then 400 ms of three loops in turn whose instructions go 1 : 1 : 3
    # (an ALU loop, a loop storing to a new page each step, the ALU loop
    # three times as long): under -icount their samples must too.
    # A fourth, a loop calling a leaf (three instructions each side),
    # must get 1.5 times the first's samples, caller and callee together:
    # how they split is not judged (QEMU puts most at the callee: README).
    self_ = {x['fn']: x['n'] for x in p['self']}
    a, st, a3, c, lf = (self_.get(f, 0) for f in ('prof_calib_alu', 'prof_calib_store', 'prof_calib_alu3',
                                                 'prof_calib_calls', 'prof_calib_leaf'))
    expect(data['calib_rounds'] > 0 and a + st + a3 + c + lf >= 0.8 * 400e6 / p['period_ns'],
           'calibration: %d rounds, samples %d %d %d %d %d of %d ns'
           % (data['calib_rounds'], a, st, a3, c, lf, p['period_ns']))
    expect(a > 0 and 0.75 <= st / a <= 1.33 and 2.4 <= a3 / a <= 3.75 and 1.2 <= (c + lf) / a <= 1.8,
           'calibration samples alu %d, store %d, alu x3 %d, calls %d + leaf %d: not 1 : 1 : 3 : 1.5'
           % (a, st, a3, c, lf))
    window = (data['spun_ns'] + 400e6) / p['period_ns']
    expect(0.85 * cpus * window <= p['samples'] <= 1.2 * cpus * window,
           '%d samples on %d CPU(s) in %.0f periods' % (p['samples'], cpus, window))
    if cpus == 2:
        expect(p['idle'] >= 0.7 * window, 'the idle CPU: %d idle samples in %.0f periods' % (p['idle'], window))
