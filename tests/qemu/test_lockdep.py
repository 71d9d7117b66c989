"""The lock-order checker (kernel/core/lockdep.h) in its debug build
(make LOCKDEP=1, made here as BUILD-lockdep beside the --build one): a
deliberate inversion of two and of three lock classes is caught, naming
both acquisition sites of every edge and their callers; a lock taken in
an interrupt handler and with interrupts enabled is reported with both
sites; the default script and swap runs stay clean with the checker on.  Every other case's boots are
checked too (rig.check_lockdep): run the suite with --build build-lockdep
to put the checker under all of them."""
import fcntl
import os
import subprocess

import pytest

import rig
from rig import expect, expect_ok, selftest, swap_image, run_swapping, vm_final, expect_clean_exits


@pytest.fixture(scope='module')
def lockdep_build(request):
    build = request.config.getoption('--build').rstrip('/')
    out = build if build.endswith('-lockdep') else build + '-lockdep'
    # xdist workers share the tree: one make at a time.
    with open(out + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(['make', '-j2', 'LOCKDEP=1', 'BUILD=' + out, 'all'], capture_output=True, text=True)
    expect(r.returncode == 0, 'make LOCKDEP=1 failed:\n%s' % r.stderr[-3000:])
    return out


@pytest.fixture
def lctx(ctx, lockdep_build):
    return rig.Ctx(lockdep_build, ctx.outdir, ctx.name, ctx.runs, ctx.uefi)


def expect_lockdep_build(r):
    expect('lockdep' in rig.boot_record(r)['build'], 'not a LOCKDEP=1 kernel: %r' % rig.boot_record(r)['build'])


def check_inversion(ctx, lctx, name, classes, kind='spinlock'):
    ctx.lockdep_expected = True
    data, r = selftest(lctx, name)
    expect_lockdep_build(r)
    expect(data['reports'] == 1, 'reports %r' % data)
    rec = rig.one_record(r, 'lockdep')
    expect(rec['event'] == 'inversion', 'lockdep record %r' % rec)
    cyc = rec['cycle']
    expect(len(cyc) == len(classes), 'cycle of %d edges, want %d: %r' % (len(cyc), len(classes), cyc))
    # The new edge first, then the recorded path back to its held class.
    expect(cyc[0]['now'] and not any(e['now'] for e in cyc[1:]), 'now flags %r' % cyc)
    for i, e in enumerate(cyc):
        expect(e['taken'] == cyc[(i + 1) % len(cyc)]['held'], 'not a cycle: %r' % cyc)
        expect(e['held_at'].split('+')[0] != '0x0' and e['taken_at'].startswith(e['held_at'].split('+')[0]),
               'edge %r: both sites should name the nesting function' % e)
        # The stacks: the nesting function was called by the test itself.
        for k in ('held_stack', 'taken_stack'):
            expect(e[k] and e[k][0].startswith('test_lockdep'), 'edge %r: %s should start in test_lockdep*' % (e, k))
    expect(sorted(e['held'] for e in cyc) == sorted('lockdep_test_' + c for c in classes), 'classes %r' % cyc)
    expect(all(e['held_kind'] == e['taken_kind'] == kind for e in cyc), 'kinds %r, want %s' % (cyc, kind))
    lines = [l for l in r.log.splitlines() if l.startswith('lockdep:   ')]
    expect(len(lines) == len(classes), 'one console line per edge expected: %r' % lines)


@pytest.mark.quick
def test_lockdep_inversion(ctx, lctx):
    check_inversion(ctx, lctx, 'lockdep', 'ab')


def test_lockdep_inversion3(ctx, lctx):
    check_inversion(ctx, lctx, 'lockdep3', 'abc')


def test_lockdep_mutex_inversion(ctx, lctx):
    # Sleeping mutexes, the second taken after a sleep: held per thread.
    check_inversion(ctx, lctx, 'lockdep_mutex', ['ma', 'mb'], kind='mutex')


@pytest.mark.quick
def test_lockdep_irq_unsafe(ctx, lctx):
    # lockdep_test_irq: taken in a timer's function (the tick's interrupt
    # handler), then with interrupts on; lockdep_test_irqsafe: in the
    # handler and with interrupts off only, which must not be reported.
    ctx.lockdep_expected = True
    data, r = selftest(lctx, 'lockdep_irq')
    expect_lockdep_build(r)
    expect(data['irq_ran'] and data['reports'] == 1, 'selftest data %r' % data)
    rec = rig.one_record(r, 'lockdep')
    expect(rec['event'] == 'irq-unsafe' and rec['class'] == 'lockdep_test_irq', 'lockdep record %r' % rec)
    expect(rec['irq_at'].startswith('take_in_irq+') and rec['enabled_at'].startswith('take_with_irqs_on+'),
           'sites %r' % rec)
    expect(rec['enabled_stack'] and rec['enabled_stack'][0].startswith('test_lockdep_irq+'),
           'the enabled site\'s callers %r' % rec)
    expect(rec['irq_stack'], 'no callers for the interrupt site: %r' % rec)
    lines = [l for l in r.log.splitlines() if l.startswith('lockdep:   ')]
    expect(len(lines) == 2 and 'interrupt handler at take_in_irq+' in lines[0]
           and 'interrupts enabled at take_with_irqs_on+' in lines[1], 'one line per site expected: %r' % lines)


def test_lockdep_irq_chain(ctx, lctx):
    # lockdep_test_chain_safe taken in an interrupt handler, _unsafe with
    # interrupts on, each fine alone; then safe -> mid -> unsafe with
    # interrupts off: an interrupt taking safe while unsafe is held can
    # deadlock two CPUs.  One report naming the path; checking stays on.
    ctx.lockdep_expected = True
    data, r = selftest(lctx, 'lockdep_irq_chain')
    expect_lockdep_build(r)
    expect(data['irq_ran'] and data['reports'] == 1, 'selftest data %r' % data)
    rec = rig.one_record(r, 'lockdep')
    expect(rec['event'] == 'irq-chain' and rec['safe'] == 'lockdep_test_chain_safe'
           and rec['unsafe'] == 'lockdep_test_chain_unsafe', 'lockdep record %r' % rec)
    expect(rec['path'] == ['lockdep_test_chain_' + c for c in ('safe', 'mid', 'unsafe')], 'path %r' % rec['path'])
    expect(rec['irq_at'].startswith('take_chain_safe_in_irq+')
           and rec['enabled_at'].startswith('take_chain_unsafe_irqs_on+'), 'sites %r' % rec)


def test_lockdep_plain_build_says_so(ctx):
    # Without LOCKDEP=1 the self-test fails, naming why.
    r = ctx.boot('test=lockdep quiet')
    expect_ok(r)
    s = rig.selftest_record(r, 'lockdep')
    expect(not s['ok'] and s['data']['built'] is False, 'selftest %r' % s)
    expect('the kernel was built without LOCKDEP=1' in r.log, 'no reason printed')


@pytest.mark.slow
def test_lockdep_default_script(lctx):
    r = lctx.boot('quiet mem=48M script=scripts/default.mm', disks=[{'file': swap_image(lctx), 'bus': 'nvme'}],
                  timeout=1200)
    expect_ok(r)
    expect_lockdep_build(r)
    expect(r.find('table'), 'the default script printed no table')
    expect(not r.find('lockdep'), 'lockdep: %r' % r.find('lockdep'))


def test_lockdep_swap(lctx):
    progs = ['touch 72 30000 seq anon', 'touch 72 30000 random shmem']
    r = run_swapping(lctx, progs, [{'file': swap_image(lctx), 'bus': 'nvme'}], extra_cmdline='swapcrc=on')
    expect_lockdep_build(r)
    expect_clean_exits(r, 2)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['swap_crc_mismatch'] == 0, 'swap %r' % v)
    expect(not r.find('lockdep'), 'lockdep: %r' % r.find('lockdep'))
