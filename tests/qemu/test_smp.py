"""Issue 14, first step: the application processors come up and park;
cpus= caps them; everything else still runs on the boot CPU."""
import pytest

from rig import expect, expect_ok, boot_record, expect_in_log, swap_image, run_swapping, vm_final, expect_clean_exits


def smp_lines(r):
    return [l for l in r.log.splitlines() if l.startswith('smp:')]


def smp_boot(ctx, smp, cmdline=''):
    r = ctx.boot('quiet mem=48M ' + cmdline, smp=smp, timeout=240)
    expect_ok(r)
    b = boot_record(r)
    # Every judgement below says what the kernel said about its CPUs.
    b['_smp'] = smp_lines(r)
    return r, b


@pytest.mark.quick
@pytest.mark.parametrize('n', [2, 4])
def test_smp_all_online(ctx, n):
    r, b = smp_boot(ctx, n)
    expect(b['cpus_found'] == n and b['cpus_online'] == n, 'found %r online %r of -smp %d: %r' %
           (b['cpus_found'], b['cpus_online'], n, b['_smp']))
    expect(sorted(b['cpu_apic_ids']) == list(range(n)), 'APIC ids %r' % b['cpu_apic_ids'])
    expect(sorted(b['cpu_apic_ids_online']) == list(range(n)), 'online ids %r' % b['cpu_apic_ids_online'])
    expect_in_log(r, 'smp: %d of %d CPUs online' % (n, n))


@pytest.mark.quick
def test_smp_one_cpu(ctx):
    # -smp 1: nothing to start; the boot record says so all the same.
    r, b = smp_boot(ctx, 1)
    expect(b['cpus_found'] == 1 and b['cpus_online'] == 1, 'found %r online %r' % (b['cpus_found'], b['cpus_online']))
    expect_in_log(r, 'smp: 1 of 1 CPUs online')


@pytest.mark.quick
@pytest.mark.parametrize('cap', [1, 2])
def test_smp_cpus_cap(ctx, cap):
    r, b = smp_boot(ctx, 4, 'cpus=%d' % cap)
    expect(b['cpus_found'] == 4 and b['cpus_online'] == cap, 'cpus=%d: found %r online %r: %r' %
           (cap, b['cpus_found'], b['cpus_online'], b['_smp']))
    expect(len(b['cpu_apic_ids_online']) == cap and b['cpu_apic_ids_online'][0] == b['cpu_apic_ids'][0],
           'online ids %r (the boot CPU first)' % b['cpu_apic_ids_online'])
    expect_in_log(r, 'smp: cpus=%d: %d more CPU(s) not started' % (cap, 4 - cap))
    if cap == 1:
        # Today's kernel: not even the trampoline's low pages are taken.
        expect('AP trampoline' not in r.log, 'cpus=1 still reserved the trampoline pages')


@pytest.mark.quick
@pytest.mark.parametrize('val', ['0', 'abc', '257'])
def test_smp_cpus_rejected(ctx, val):
    r, b = smp_boot(ctx, 2, 'cpus=%s' % val)
    lines = [l for l in r.log.splitlines() if l.startswith('cmdline: cpus=%s:' % val)]
    expect(len(lines) == 1, 'want one error line naming cpus=%s, got %r (cmdline lines %r)' %
           (val, lines, [l for l in r.log.splitlines() if l.startswith('cmdline')]))
    expect('default kept' in lines[0], lines[0])
    expect(b['cpus_online'] == 2, 'the default (all CPUs) should stay: %r online: %r' % (b['cpus_online'], b['_smp']))


def test_smp_swap_still_works(ctx):
    # test_swap_two_equal_areas' workload with checksums, APs parked.
    disks = [{'file': swap_image(ctx, 'swapa', 128), 'bus': 'nvme'}]
    r = run_swapping(ctx, ['hogmem 72 2'], disks, extra_cmdline='swapcrc=on', smp=2)
    expect(boot_record(r)['cpus_online'] == 2, 'APs not online')
    expect_clean_exits(r, 1)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping: %r' % {k: v[k] for k in ('pswpout', 'pswpin')})
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)


@pytest.mark.quick
def test_smp_hotplug_slots_not_started(ctx):
    # maxcpus=4: QEMU's MADT lists two more processors, not enabled (and
    # not online-capable): no such CPUs, nothing is sent to them.
    r, b = smp_boot(ctx, '2,maxcpus=4')
    expect(b['cpus_in_madt'] == 4, 'MADT entries %r' % b['cpus_in_madt'])
    expect(b['cpus_found'] == 2 and b['cpus_online'] == 2, 'found %r online %r' % (b['cpus_found'], b['cpus_online']))
    expect('did not come online' not in r.log, 'a CPU timed out')
