"""Issue 14: the application processors come up and run threads (cpus=
caps them), threads spread over every CPU, a page taken away reaches
every CPU's TLB, and swap stays intact with several CPUs faulting."""
import json
import os
import re
import socket
import threading
import time
import warnings

import pytest

from rig import (expect, expect_ok, boot_record, expect_in_log, swap_image, run_swapping, vm_final,
                 expect_clean_exits, task_exits, expect_panic, selftest, selftest_record, hmp_send, HangWatch)


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
@pytest.mark.uefi               # the firmware's MADT and memory map, as on a PC
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
    # test_swap_two_equal_areas' workload with checksums on 2 CPUs.
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


# ------------------------------------------------------------ issue 14: threads on every CPU

def cpus_record(r):
    c = r.find('cpus')
    expect(len(c) == 1, 'expected one cpus record, found %d' % len(c))
    return c[0]


@pytest.mark.quick
@pytest.mark.parametrize('n', [2, 4])
def test_smp_threads_spread(ctx, n):
    # n CPU-bound threads (the build shape) for 3 s: every CPU must take
    # a share, as the cpus record's busy time and switches show.
    r = ctx.boot('quiet mem=64M run="threads %d 16 3"' % n, smp=n, timeout=600)
    expect_ok(r)
    expect_clean_exits(r, 1)
    c = cpus_record(r)
    expect(c['online'] == n and len(c['cpus']) == n, 'cpus record %r' % c)
    elapsed = task_exits(r)[0]['elapsed_ns']
    for x in c['cpus']:
        # Each CPU ran a thread for at least a quarter of the run (guest
        # time: a vCPU the host leaves unscheduled still counts the
        # thread it was running).
        expect(x['ctx_switches'] > 0 and x['busy_ns'] > elapsed // 4,
               'CPU %d barely ran threads: %r (workload %d ms)' % (x['cpu'], x, elapsed // 1000000))
    expect(sum(x['wake_ipis'] + x['pulled'] for x in c['cpus'][1:]) > 0, 'no thread reached an AP: %r' % c)


@pytest.mark.quick
def test_smp_panic_report(ctx):
    # A panic with 4 CPUs running: the others are stopped (NMI) and the
    # report comes out whole, once.
    r = ctx.boot('test=pagefault', smp=4, timeout=240)
    expect_panic(r, 'Page fault (#PF), vector 14', 'deliberate_page_fault+')
    expect(r.log.count('*** EXCEPTION:') == 1 and 'nested panic' not in r.log, 'report repeated or nested')


@pytest.mark.quick
@pytest.mark.parametrize('mode,n', [('munmap', 2), ('mprotect', 2), ('munmap', 4), ('munmap', 1)])
def test_smp_tlb_shootdown(ctx, mode, n):
    # One thread stores into a page while another (on another CPU) takes
    # it away: the writer's next store must fault (SIGSEGV), not go on
    # through its CPU's stale TLB entry (tlbtest exits 1 then).
    r = ctx.boot('quiet run="tlbtest %s"' % mode, smp=n, timeout=300)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == 1, 'task_exit records %r' % e)
    expect(e[0]['signal'] == 'SIGSEGV', 'tlbtest %s: exit %r signal %r (%s); console: %r' %
           (mode, e[0]['exit_code'], e[0]['signal'], e[0].get('reason'),
            [l for l in r.log.splitlines() if l.startswith(('tlbtest:', '[tlbtest'))]))
    if n > 1:
        expect_in_log(r, 'writer on cpu 1, %d cpus' % n)
        v = vm_final(r)
        expect(v['tlb_shootdown_ipis'] > 0 and v['tlb_shootdown_pages'] >= 1, 'no shootdown counted: %r' %
               {k: v[k] for k in ('tlb_shootdown_ipis', 'tlb_shootdown_pages')})


def test_smp_swap_touch_threads(ctx):
    # Swap from both CPUs at once, data checked by the workloads and by
    # swapcrc on every page read back.
    disks = [{'file': swap_image(ctx, 'swapa', 192), 'bus': 'nvme'}]
    progs = ['hogmem 72 2 & touch 72 20000 random anon & threads 2 48 3']
    r = run_swapping(ctx, progs, disks, extra_cmdline='swapcrc=on hangcheck=10', smp=2)
    expect_clean_exits(r, 3)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping: %r' % {k: v[k] for k in ('pswpout', 'pswpin')})
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)
    expect(v['tlb_shootdown_ipis'] > 0, 'reclaim unmapped pages of tasks on the other CPU without a shootdown')
    expect('hangcheck:' not in r.log, 'hangcheck fired (no progress, or a CPU stuck)')
    busy = [x['busy_ns'] for x in cpus_record(r)['cpus']]
    expect(min(busy) > 0, 'a CPU never ran: %r' % busy)


@pytest.mark.slow
@pytest.mark.uefi               # make stress soaks the path a PC boots by
def test_smp_swap_stress_boots(ctx):
    # Boots of concurrent swapping on 2 CPUs: none may hang (hangcheck
    # dumps the threads if one does), lose data or leak.  3 in make test
    # (about a minute each under TCG); `make stress` runs 50
    # (SMP_STRESS_BOOTS).
    # SMP_STRESS_ACCEL=single runs both vCPUs in one host thread
    # (round-robin TCG) instead of one thread each, to tell the emulator's
    # cross-thread wake-ups apart from the kernel's own doing.
    rescued = []
    accel = os.environ.get('SMP_STRESS_ACCEL')
    for i in range(int(os.environ.get('SMP_STRESS_BOOTS', '3'))):
        c = ctx.for_case('%s_%d' % (ctx.name, i))
        disks = [{'file': swap_image(c, 'swapa', 128), 'bus': 'nvme'}]
        w = HangWatch(c, cpus=2)
        if accel:
            w.kw['extra'] = w.kw['extra'] + ['-accel', 'tcg,thread=' + accel]
        r = c.boot('quiet mem=40M swapcrc=on hangcheck=10 run="hogmem 48 2 & touch 48 15000 random shmem & '
                   'threads 2 32 2"', disks=disks, smp=2, timeout=900, **w.kw)
        w.stop()
        expect(r.status == 'ok', 'boot %d: %s (QEMU exit status %r: negative is a signal, QEMU itself died); '
               'tail:\n%s\n%s' % (i, r.status, r.rc, '\n'.join(r.log.splitlines()[-60:]), w.dump))
        expect('hangcheck:' not in r.log, 'boot %d: hangcheck fired (no progress, or a CPU stuck)' % i)
        expect_clean_exits(r, 3)
        v = vm_final(r)
        expect(v['swap_crc_mismatch'] == 0, 'boot %d: %d CRC mismatches' % (i, v['swap_crc_mismatch']))
        expect(v['pswpout'] > 1000, 'boot %d: little swapping (%d pages out)' % (i, v['pswpout']))
        cpus = r.find('cpus')
        if cpus and cpus[-1].get('timer_rescues'):
            rescued.append((i, {k[len('timer_rescues_'):]: v for k, v in cpus[-1].items()
                                if k.startswith('timer_rescues_') and v}))
        os.unlink(disks[0]['file'])     # 50 boots' swap images filled this host's disk once
    if rescued:
        # Not a failure (the kernel recovered, time.c), but in view:
        # the boot CPU's timer was 50 ms overdue, by kind (held off: its
        # interrupts were off; not taken / not fired: a stall).
        warnings.warn('boot CPU timer rescued by an AP in boots (boot, rescues by kind): %r' % rescued)


@pytest.mark.parametrize('n', [2, 4])
def test_smp_mutex_and_pingpong(ctx, n):
    # The in-kernel mutex and wake-up ping-pong with threads on several
    # CPUs at once (the yield-interleave self-test assumes one CPU).
    d, _ = selftest(ctx, 'mutex', smp=n, timeout=300)
    expect(d['counter'] == 2000 and d['collisions'] == 0, 'mutex on %d CPUs: %r' % (n, d))
    d, _ = selftest(ctx, 'ctxsw', smp=n, timeout=300)
    expect(d['switches'] >= 2 * d['rounds'] - 2, 'ping-pong switches on %d CPUs: %r' % (n, d))


@pytest.mark.slow
def test_smp_rt_wakeups_under_load(ctx):
    # test_sched's RT probe with its two NORMAL hogs on 2 CPUs: the RT thread
    # still meets its deadlines (reschedule IPI or an idle CPU).  -icount runs
    # the vCPUs round-robin in one host thread, and in some boots (3 of 20
    # through OVMF on 2026-12-04, none of 30 through PVH) every wake is late
    # by about the same amount (0.04-0.6 ms, with 1 ms more every 100 ms; once
    # in CI 21 of 50 wakes over 1 ms, worst 1.24 ms).  The probe splits each
    # wake's lateness into the timer's (deadline to the interrupt that ran the
    # wake) and the rest.  Seen both ways: the boot CPU's timer interrupt
    # arriving 0.9 ms after the time it was programmed for (its trace, a debug
    # boot), and the interrupt on time and the wake late (mean 0.37 ms), with
    # the boot CPU's interrupt time 24.5 ms instead of 1.5 and the timer lock
    # held up to 419 us in the tick, which points at the vCPU not being run in
    # the middle of its handler.  On a PC these take microseconds.  A
    # scheduler that lets NORMAL hogs delay the RT thread is late by up to
    # their 10 ms slice on every boot, so every boot must wake within 2 ms of
    # 90% of its deadlines, and one of up to 3 boots must pass the selftest's
    # own checks (1 ms, mean 0.5 ms).
    seen = []
    for i in range(3):
        c = ctx if i == 0 else ctx.for_case('%s-%d' % (ctx.name, i))
        r = c.boot('test=rt quiet', timeout=900, smp=2, icount=True)
        expect_ok(r)
        s = selftest_record(r, 'rt')
        d = s.get('data', {})
        seen.append(d)
        expect(d['met_2ms'] * 10 >= d['periods'] * 9, 'RT probe missed deadlines by 2 ms on 2 CPUs: %r' % seen)
        if s['ok']:
            return
    expect(False, 'the RT selftest failed on 3 boots: %r' % seen)


def test_smp_swapoff_and_oom(ctx):
    # test_swap's swapoff and OOM scenarios on 2 CPUs with swapcrc: swapoff
    # brings every page back while tasks on both CPUs run; an OOM kill
    # still picks the task and the next one runs.
    import re
    # test_swap's timing (swapoff 2.5 s in, hogmem done by then) does not
    # hold for two vCPUs on a loaded 2-core host (hogmem still ran at 2.5 s,
    # and swapoff with it running is an honest OOM): 10 s, holds of 30 s.
    progs = ['hold 20 30 anon & hold 10 30 shmem & hogmem 48 1 & @sleep 10000 & @swapoff nvme1n1', 'hello after']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], mem='64M',
                     extra_cmdline='swapcrc=on', smp=2)
    expect_clean_exits(r, 4)
    m = re.search(r'swapoff: nvme1n1: (\d+) pages brought back', r.log)
    expect(m and int(m.group(1)) > 1000, 'swapoff brought back too little: %s' % (m and m.group(0)))
    v = vm_final(r)
    expect(v['swap_used_pages'] == 0 and v['swap_crc_mismatch'] == 0, 'after swapoff: %r' % v)
    c = ctx.for_case(ctx.name + '_oom')
    r = run_swapping(c, ['@set overcommit_memory 1', 'touch 128 40000 seq anon & threads 2 8 2', 'hello after'],
                     [{'file': swap_image(c, mib=32), 'bus': 'nvme'}], extra_cmdline='swapcrc=on', smp=2)
    oom = r.find('oom_kill')
    expect(oom and oom[0]['name'] == 'touch', 'oom records %r' % oom)
    e = {x['name']: x for x in task_exits(r)}
    expect(e['touch']['signal'] == 'SIGKILL', 'touch exit %r' % e['touch'])
    expect(e['threads']['exit_code'] == 0 and e['hello']['exit_code'] == 0, 'the others: %r' % e)
    expect(vm_final(r)['swap_crc_mismatch'] == 0, 'CRC mismatches')


@pytest.mark.parametrize('prof', ['', 'prof=on hz=20'], ids=['plain', 'prof'])
def test_smp_nmi_shows_every_cpu(ctx, prof):
    # QEMU's `nmi` (a PC's NMI button) while threads run on 2 CPUs: the
    # boot CPU prints where it is, sends an NMI to the other, which prints
    # its place too, then the thread dump; the run carries on to a clean
    # end.  This is how a hang that leaves no thread able to print shows
    # where each CPU is stuck.  With prof=on the profiler's NMI clock
    # sends both CPUs NMIs all along: the button's must still be told
    # from them, and each CPU print once per report.  A button NMI that
    # arrives while the clock's waits is taken as the clock's (NMIs do not
    # queue; under a loaded host a vCPU can wait for its thread longer
    # than the clock's period): then, as at a PC, press again, up to 3
    # times, with the clock at 20 a second.
    sock = ctx.path('mon.sock')
    if os.path.exists(sock):
        os.unlink(sock)
    sent, reports = [], []

    def press():
        time.sleep(0.5)
        for _ in range(3 if prof else 1):
            if reports:
                return
            try:
                hmp_send(sock, 'nmi')
            except OSError:
                return
            time.sleep(1.0)

    def on_line(line):
        if line.startswith('NMI: where every CPU is'):
            reports.append(line)
        if not sent and line.startswith('task: started threads'):
            sent.append(threading.Thread(target=press, daemon=True))
            sent[0].start()
    r = ctx.boot('quiet mem=48M %s run="threads 2 16 3"' % prof, smp=2, timeout=300,
                 extra=['-monitor', 'unix:%s,server=on,wait=off' % sock], on_line=on_line)
    for t in sent:
        t.join(4)
    expect_ok(r)
    expect(sent, 'no "task: started" line to send the NMI at')
    lines = r.log.splitlines()
    where = [l for l in lines if l.startswith('NMI: cpu ')]
    # One report per press that got through (a slow report may let the
    # next press go too): each with both CPUs, once.
    k = len(reports)
    expect(1 <= k <= (3 if prof else 1) and sorted(l.split()[2] for l in where) == ['0'] * k + ['1'] * k,
           'reports %d, NMI lines: %r' % (k, where))
    expect('NMI: 1 of 1 other CPU(s) did not answer' not in r.log, 'the AP did not answer')
    expect('threads:' in lines, 'no thread dump after the NMI')
    expect_clean_exits(r, 1)


def test_nmi_with_the_users_gs(ctx):
    # test=nmi_user_gs: an NMI that arrives while the kernel runs with the
    # user's GS base (between syscall entry and its swapgs, or between the
    # return's swapgs and iretq) must still find its CPU's data.  The test
    # makes that window on purpose and sends itself an NMI.  Before the
    # NMI entry asked the GS MSR, its handler read address 0, faulted, and
    # the page-fault handler did the same until the stack ran out.
    d, r = selftest(ctx, 'nmi_user_gs', 'mem=48M')
    expect(d['nmis'] == 1 and d['handler_found_this_cpu'], 'data %r' % d)
    expect('Double fault' not in r.log, 'double fault in the log')


def test_kernel_stacks_mapped_from_two_cpus(ctx):
    # test=kstacks: two threads, one per CPU, each map 2000 kernel stacks
    # and check every page.  Where the stacks crossed into a new 2 MiB
    # range both CPUs installed a page table, the second hiding the first's
    # mapping: 15-32 pages missing in 3 of 3 boots before page tables went
    # in by compare-and-swap, and threads cloned on two CPUs at once
    # faulted in alloc_thread (sysfuzz threads).
    d, r = selftest(ctx, 'kstacks', 'mem=64M', smp=2)
    expect(d['stacks'] == 4000 and d['pages_missing'] == 0 and d['cpus_seen'] == 2, 'data %r' % d)


def test_nmis_while_threads_cross_into_the_kernel(ctx):
    # NMIs every 0.1 s at 2 CPUs busy with system calls whose rbp points at
    # the user's stack (uperf's syscalls mode).  Some NMIs land in the
    # instructions around swapgs, where rbp (and GS) are still the user's:
    # the report must not follow a user frame pointer (SMAP turned that
    # read into a page fault and a panic).  Where the NMIs land is up to
    # the host's timing, so a run where none landed there passes with a
    # warning; in 3 runs 1-4 of about 20 did each time.
    sock = ctx.path('mon.sock')
    if os.path.exists(sock):
        os.unlink(sock)
    stop, sent = threading.Event(), []

    def storm():
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            while not stop.wait(0.1):
                s.sendall(b'nmi\n')
                sent.append(1)
        except OSError:
            pass                # QEMU gone: the run ended

    def on_line(line):
        if not sent and line.startswith('task: started'):
            sent.append(0)
            threading.Thread(target=storm, daemon=True).start()
    run = ' & '.join(['uperf 1000000 syscalls'] * 6)
    r = ctx.boot('quiet mem=48M run="%s"' % run, smp=2, timeout=600,
                 extra=['-monitor', 'unix:%s,server=on,wait=off' % sock], on_line=on_line)
    stop.set()
    expect_ok(r)
    reports = r.log.count('NMI: where every CPU is')
    expect(reports >= 5, 'only %d NMI reports (%d NMIs sent)' % (reports, sum(sent)))
    expect('NMI: 1 of 1 other CPU(s) did not answer' not in r.log, 'the AP did not answer')
    # A report waits in the console's buffer and goes out whole after the
    # line a CPU was writing: before, an NMI on the CPU writing a record
    # printed into it (a CI run lost a task_exit record so, '"pid":NMI:
    # where every CPU is').  Every record line parses, every report line
    # starts its line, and each of the six programs has its record.
    torn = [l for l in r.log.splitlines()
            if ('{"type"' in l and not l.startswith('{"type"')) or ('NMI: ' in l and not l.startswith('NMI: '))]
    expect(not torn, 'torn lines: %r' % torn[:3])
    def parses(l):
        try:
            json.loads(l)
            return True
        except ValueError:
            return False
    broken = [l for l in r.log.splitlines() if l.startswith('{"type"') and not parses(l)]
    expect(not broken, 'records that do not parse: %r' % broken[:3])
    expect_clean_exits(r, 6)
    if 'is not a kernel address, backtrace ends' not in r.log:
        warnings.warn('none of %d NMIs landed where rbp was the user\'s' % reports)


@pytest.mark.parametrize('n', [1, 2])
def test_hangcheck_sees_stuck_cpu(ctx, n):
    # test=lockup with hangcheck=1: a CPU spinning with preemption off
    # reports itself once; with interrupts off too (2 CPUs), the other
    # CPU's tick reports it; either report shows where every CPU is, the
    # stuck one inside spin_stuck.  A sleep as long stays quiet.
    d, r = selftest(ctx, 'lockup', 'hangcheck=1', smp=n, timeout=300)
    expect(d['reports_soft'] == 1 and d['reports_asleep'] == 0, 'soft: %r' % d)
    expect(re.search(r'hangcheck: cpu \d+ ran 1 s with preemption off', r.log), 'no soft-lockup line')
    where = [l for l in r.log.splitlines() if l.startswith('NMI: cpu ')]
    expect(len(where) >= n, 'CPU places: %r' % where)
    expect('test_lockup+' in r.log, 'no backtrace through test_lockup (spin_stuck itself may be skipped when the NMI lands in a leaf)')
    if n > 1:
        expect(d['reports_hard'] >= 1, 'hard: %r' % d)
        expect(re.search(r'hangcheck: cpu \d+ took no timer tick for 1 s', r.log), 'no hard-lockup line')
        expect(any('interrupts off' in l and 'thread kmain' in l for l in where), 'the stuck CPU: %r' % where)


def test_hangcheck_report_passes_a_cpu_stuck_in_a_console_write(ctx):
    # test=consolestuck, 2 CPUs, hangcheck=1: kmain's CPU holds the
    # console lock with interrupts off for 13 s, as a CPU stuck in the
    # middle of a write.  The AP's check reports it; the report waits in
    # the console's buffer, its wait for the lock runs out, and it goes
    # out past the lock (the console in panic mode from then on) while
    # the write is still stuck.  Its first line was a plain kprintf,
    # which waited for the lock until the stuck CPU let go.
    d, r = selftest(ctx, 'consolestuck', 'hangcheck=1', smp=2, timeout=300)
    expect(d['reports_hard'] >= 1 and d['report_out_while_held'] and d['panic_mode'], 'data %r' % d)
    expect(re.search(r'hangcheck: cpu \d+ took no timer tick for 1 s', r.log), 'no hard-lockup line')
    where = [l for l in r.log.splitlines() if l.startswith('NMI: cpu ')]
    expect(any('interrupts off' in l and 'thread kmain' in l for l in where), 'the stuck CPU: %r' % where)
    # The stuck CPU's backtrace runs through the test (the holding loop
    # itself is skipped when the NMI lands in its leaf callee, time_ns,
    # as in test_hangcheck_sees_stuck_cpu).
    expect('test_consolestuck+' in r.log, 'no backtrace through the stuck write')


def test_ap_rescues_stopped_boot_cpu_timer(ctx):
    # test=timerstall on 2 CPUs: the boot CPU's timer stopped by hand is
    # noticed by the AP and poked; the boot CPU sorts it as "not fired"
    # (interrupts on, no request) and says what its timer looked like
    # (masked, count 0) and what was last done to it.  A ktimer armed on
    # the boot CPU after the stop writes a new initial count but leaves the
    # timer masked (apic_timer_rearm), so the initial count may be anything
    # (seen once in CI: initial 57351, current 0).
    d, r = selftest(ctx, 'timerstall', '', smp=2, timeout=300)
    expect(d['rescues'] >= 1, 'data %r' % d)
    m = re.search(r"time: the boot CPU's timer was (\d+) us overdue, (\d+) us of it with interrupts off, "
                  r"the rescuer's tick \d+ us apart, the rescue \d+ us on its way; rescued \(not fired: ", r.log)
    expect(m, 'no not-fired rescue line')
    expect(int(m.group(1)) >= 50000 and int(m.group(2)) * 2 < int(m.group(1)), 'times: %r' % m.group(0))
    m = re.search(r'time:   lvt (\w+) initial (\d+) current (\d+) .* requested (\d); came at ', r.log)
    expect(m, 'no register line')
    expect(int(m.group(1), 16) & 0x10000 and m.group(3) == '0' and m.group(4) == '0',
           'the report shows the stopped timer: %r' % m.group(0))
    expect(re.search(r'time:   \d+ us ago, cpu 0: program \(', r.log), 'no event list')
    cpus = r.find('cpus')
    expect(cpus and cpus[-1].get('timer_rescues_not_fired', 0) >= 1, 'cpus record: %r' % cpus)


@pytest.mark.parametrize('n', [1, 2])
def test_hangcheck_sees_lost_wakeup(ctx, n):
    # test=lostwakeup with hangcheck=1: a thread in a timed sleep whose
    # timer is taken away is reported once, naming it, with every CPU's
    # place and the thread dump; woken by hand, it goes on.
    d, r = selftest(ctx, 'lostwakeup', 'hangcheck=1', smp=n, timeout=300)
    expect(d['timer_taken'] and d['reported'] and d['woke'], 'data %r' % d)
    lines = re.findall(r'hangcheck: thread lostwakeup \(tid \d+\) still blocked \d+ ms after its wake-up time',
                       r.log)
    expect(len(lines) == 1, 'one lost-wakeup line for the sleeper, over two periods: %r' % lines)
    expect(len([l for l in r.log.splitlines() if l.startswith('NMI: cpu ')]) >= n, 'no place per CPU')
    expect(re.search(r'lostwakeup +tid \d+ +blocked +on sleep|lostwakeup +tid \d+ +blocked', r.log), 'not in the dump')


@pytest.mark.parametrize('smp', [1, 4])
def test_lockstat_counts_every_cpu(ctx, smp):
    # test=lockstat: a thread pinned to each CPU takes one lock class 5000
    # times; the lock statistics keep a table per CPU (no shared counter
    # for the CPUs to fight over), and their sum must count every
    # acquisition exactly once.
    d, r = selftest(ctx, 'lockstat', '', smp=smp, timeout=300)
    expect(d['cpus'] == smp and d['acquired'] == 5000 * smp, 'data %r' % d)
