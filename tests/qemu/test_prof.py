"""The kernel profiler (prof=on, kernel/core/kprof.h): every tick counts
what it interrupted, and each run= step gets a "prof" record of its
window.  A swapping touch spends its kernel time in page faults, so the
fault path must lead the task's kernel samples, and the counts must add
up and agree with the task's own CPU time (under -icount both come from
the instruction count)."""
from rig import expect, swap_image, run_swapping, expect_clean_exits

TOUCH = 'touch 72 30000 seq anon 1'
HZ = 2000


def test_prof_counts_the_fault_path(ctx):
    r = run_swapping(ctx, ['@set ra off', TOUCH], [{'file': swap_image(ctx), 'bus': 'nvme'}],
                     extra_cmdline='prof=maybe prof=on hz=%d' % HZ, icount=True, timeout=900)
    e = expect_clean_exits(r, 1)[0]
    expect("prof=maybe" in r.log, 'no error naming prof=maybe')
    recs = [p for p in r.find('prof') if p['label'] == TOUCH]
    expect(len(recs) == 1, 'prof records for the touch step: %r' % [p['label'] for p in r.find('prof')])
    expect(all(p['label'] != '@set ra off' for p in r.find('prof')), 'a prof record for a step with no program')
    p = recs[0]
    parts = p['user'] + p['kernel_task'] + p['kernel_thread'] + p['idle'] + p['unknown']
    expect(p['hz'] == HZ and parts == p['samples'], 'counts do not add up: %r' % {k: p[k] for k in
           ('hz', 'samples', 'user', 'kernel_task', 'kernel_thread', 'idle', 'unknown')})
    # The task's CPU time in ticks against the samples taken in it.
    want = (e['stime_ns'] + e['utime_ns']) * HZ / 1e9
    got = p['kernel_task'] + p['user']
    expect(want > 200 and 0.8 * want <= got <= 1.25 * want,
           'task CPU %d + %d ns is %.0f ticks at %d Hz, but %d samples in it'
           % (e['stime_ns'], e['utime_ns'], want, HZ, got))
    total = {x['fn']: x['n'] for x in p['total']}
    self_ = {x['fn']: x['n'] for x in p['self']}
    for lst in (p['total'], p['self']):
        ns = [x['n'] for x in lst]
        expect(ns == sorted(ns, reverse=True) and len(lst) <= 40, 'not a top list: %r' % lst)
    for fn, n in self_.items():
        expect(fn not in total or n <= total[fn], '%s: self %d > total %d' % (fn, n, total.get(fn, 0)))
    # Every major fault of a swapping touch goes page_fault -> vm_fault ->
    # swapin_anon: the walk up the frame pointers must find them.
    expect(total.get('page_fault', 0) >= 0.5 * p['kernel_task'],
           'page_fault in %d of %d kernel samples of the task' % (total.get('page_fault', 0), p['kernel_task']))
    expect(total.get('vm_fault', 0) > 0 and total.get('swapin_anon', 0) > 0,
           'fault path missing from total: %r' % p['total'])
    expect(p['kernel_thread'] > 0 and total.get('kswapd', 0) > 0, 'kswapd not sampled: %r' % p['total'])
