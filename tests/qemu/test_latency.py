"""Latency while swapping: the lock and interrupt-off figures (the
"locks" object in each result record and the "locks" record at halt),
and the probe's deadlines with them.

Judged under -icount with sleep=off (qemurig's icount='exact'), where
guest time counts instructions: a busy host cannot stretch a section, so
a section over 1 ms is the kernel's own doing."""
import pytest

from rig import expect, expect_ok, one_record, swap_image, script_text_image

# mtest01's fill (seed 002) at 80% of 100 MiB in 48 MiB of RAM: it exits
# with its 80 MiB still mapped, and the teardown of that address space
# used to hold the ptl with interrupts off for the whole of it (13 ms
# for mtest01.mm's 140 MiB).  Then a touch run that swaps both ways.
SCRIPT = '''mem 48M
swap auto
probe on
column "mix"
set ra fixed:3
run fill 80 100
run touch 64 40000 seq anon
probe off
'''

MS = 1000000


@pytest.mark.slow
def test_latency_sections_and_probe_icount(ctx):
    img = script_text_image(ctx, SCRIPT, programs=('touch', 'fill'), cmdline='quiet mem=48M')
    r = ctx.boot(None, image=img, disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], icount='exact', timeout=900)
    expect_ok(r)
    res = r.find('result')
    expect(len(res) == 2, 'expected 2 results, got %d' % len(res))
    for x in res:
        expect(x['failed'] == 0 and x['mismatches'] == 0, 'run failed: %r' % x['exits'])
        expect(x['vmstat']['pswpout'] > 1000, 'the run did not swap: %r' % x['vmstat'])
        L = x['locks']
        expect(L['timing'] is True, 'lock timing is on by default: %r' % L.get('timing'))
        irq = L['irqoff']
        expect(irq['sections'] > 1000, 'irqoff figures %r' % irq)
        expect(0 < irq['max_ns'] < MS and irq['over_1ms'] == 0,
               'interrupts off for %d ns (%s .. %s)' % (irq['max_ns'], irq['max_from'], irq['max_to']))
        names = [c['name'] for c in L['classes']]
        expect(0 < len(names) <= 5, 'locks %r: expected the top 5 classes' % names)
        # Spinlocks keep preemption off while held: each under 1 ms.  A
        # sleeping lock (mm's rwsem: munmap holds it for writing through
        # its zap) lets the probe run meanwhile; it only has to show up.
        for c in L['classes']:
            expect(c['acquired'] > 0 and c['over_1ms'] == 0 and (c['sleeps'] or c['max_hold_ns'] < MS),
                   'lock %s held %d ns at %s' % (c['name'], c['max_hold_ns'], c['max_hold_at']))
            expect(not c['max_hold_at'].startswith('0x'), 'site %r is not a symbol' % c['max_hold_at'])
        p = x['probe']
        expect(p['periods'] >= 20, 'probe %r' % p)
        expect(p['met'] == p['periods'] and p['worst_late_ns'] < MS,
               'probe met %d of %d deadlines, worst %d ns late' % (p['met'], p['periods'], p['worst_late_ns']))
    halt = one_record(r, 'locks')['since_reset']
    by_name = {c['name']: c for c in halt['classes']}
    for name in ('ptl', 'swap', 'lru', 'pmm'):
        expect(name in by_name and by_name[name]['acquired'] > 0, 'no %s class at halt: %r' % (name, sorted(by_name)))


def test_console_queues_for_a_slow_line(ctx):
    # COM1 read at 115200 baud's 11520 bytes a second (the rig's
    # serial_bps): QEMU's UART then waits for the reader as a real one
    # waits for the line.  The console queues what the line has not taken
    # instead of waiting for it with interrupts off (before the queue a
    # record held them off for 210 ms here), the boot CPU's tick hands the
    # line what waits while nothing else writes, and every byte arrives: the
    # same records, of the same sizes give or take their figures, as a
    # boot read at full speed.
    import re
    # Five quick steps write about 10 KB of records within milliseconds,
    # far ahead of the line; then nothing is written for 1.5 s, so only
    # the tick can hand the line what waits.
    cmd = 'quiet run="touch 16 2000 seq anon ; hello ; hello ; hello ; hello ; @sleep 1500 ; hello"'
    fast = ctx.for_case(ctx.name + '_fast').boot(cmd, timeout=300)
    expect_ok(fast)
    slow = ctx.boot(cmd, timeout=300, serial_bps=11520)
    expect_ok(slow)
    c = one_record(slow, 'console')
    # Any queue at all: writing straight to the UART leaves none (how much
    # depends on how far the guest outruns the line: 12580-12866 bytes here).
    expect(c['serial'] and c['full_waits'] == 0 and c['timeouts'] == 0 and c['queued_max'] > 0,
           'the console did not queue for the slow line: %r' % c)
    expect(c['polled'] > 0, 'the tick handed the line nothing: %r' % c)
    expect(one_record(fast, 'console')['queued_max'] == 0, 'a queue at full speed: %r' % one_record(fast, 'console'))

    # Figures and flags may differ: the boot record's tsc_warning, for
    # one, is true when a loaded host upsets the TSC calibration (a CI
    # run: the fast boot's boot record 974 characters with false, the slow
    # one's 973 with true).
    def shape(r):
        return [(x['type'], len(re.sub(r'-?[0-9.]+|\btrue\b|\bfalse\b', 'N', line)))
                for x, line in zip(r.records, [ln for ln in r.log.splitlines() if ln.startswith('{"type":')])]
    a, b = shape(fast), shape(slow)
    expect([t for t, _ in a] == [t for t, _ in b], 'records differ: %r against %r' % (a, b))
    diff = [(x, y) for x, y in zip(a, b) if x != y and x[0] not in ('locks', 'cpu', 'console')]
    expect(not diff, 'records changed size on the slow line: %r' % diff[:5])


def test_lockstat_off_times_nothing(ctx):
    # lockstat=off: no lock hold, sleeping-lock acquisition or interrupt-off
    # section is timed or counted (every edge skips its TSC read and its
    # bookkeeping); the records say so rather than show zeros as figures.
    # A value that is not on/off is named and the default (on) kept.
    for arg, timing in (('lockstat=off', False), ('lockstat=sometimes', True)):
        r = ctx.boot('quiet mem=48M %s run="touch 16 4000 seq anon"' % arg, timeout=120)
        expect_ok(r)
        halt = one_record(r, 'locks')['since_reset']
        expect(halt['timing'] is timing, '%s: timing %r' % (arg, halt['timing']))
        if timing:
            expect('lockstat=sometimes' in r.log, 'no error naming lockstat=sometimes')
            expect(halt['irqoff']['sections'] > 0 and halt['classes'], 'default on: nothing counted %r' % halt)
        else:
            expect(halt['irqoff']['sections'] == 0 and halt['classes'] == [],
                   'lockstat=off still counted: %r' % {k: halt[k] for k in ('irqoff', 'classes')})
            expect(one_record(r, 'workload')['mismatches'] == 0, 'the touch run failed')
