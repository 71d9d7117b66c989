"""Threads, context switches, mutexes, real-time wakeups and the irq record."""


from rig import expect, expect_ok, boot_record, selftest


def test_threads_interleave(ctx):
    d, _ = selftest(ctx, 'threads')
    expect(d['yield_steps'] == 400 and d['yield_alternations'] >= 300, 'yield interleave %r' % d)
    expect(d['busy_switches'] >= 20, 'busy threads not preempted: %r' % d)


# The timing self-tests (sleep, timer) are in test_time.py, under -icount.


def test_context_switch_cost(ctx):
    d, _ = selftest(ctx, 'ctxsw')
    expect(d['switches'] >= 2 * d['rounds'] - 2, 'ping-pong switches %r' % d)


def test_mutex_serialises(ctx):
    d, _ = selftest(ctx, 'mutex')
    expect(d['counter'] == 2000 and d['collisions'] == 0, 'mutex %r' % d)


def test_rt_wakeups_under_load(ctx):
    # Under -icount guest time counts instructions, so the host's own load
    # (the other test QEMU, a busy CI machine) cannot make deadlines late;
    # what is left is the kernel's own wakeup latency.  About 10 s through the
    # PVH entry (70 s more through OVMF, whose delay loops count instructions).
    d, _ = selftest(ctx, 'rt', timeout=900, icount=True)    # host seconds: a safety net, not a judgement
    expect(d['met_1ms'] * 10 >= d['periods'] * 9, 'RT probe missed deadlines: %r' % d)


def test_irq_record_on_halt(ctx):
    r = ctx.boot('quiet')
    expect_ok(r)
    irq = r.find('irq')
    expect(irq, 'no irq record')
    expect(irq[0]['unexpected'] == 0 and irq[0]['spurious'] == 0, 'unexpected interrupts: %r' % irq[0])
    expect(any(v['name'] == 'timer' for v in irq[0]['vectors']), 'timer vector not counted')
    b = boot_record(r)
    expect(b['ioapics'] >= 1 and b['lapic_timer_hz'] > 0 and b['hz'] == 1000, 'boot record apic/timer %r' % b)
