"""User programs: syscalls, data verified by the workloads, faults that
kill only their task, concurrent tasks, bad ELF files."""

import pytest

from rig import expect, expect_ok, expect_in_log, task_exits, boot_record


@pytest.mark.quick
def test_user_syscalls(ctx):
    r = ctx.boot('quiet run="systest"')
    expect_ok(r)
    w = [x for x in r.find('workload') if x['name'] == 'systest']
    expect(w and w[0]['failed'] == 0 and w[0]['checks'] >= 80, 'systest: %r (see the log for FAIL lines)' % w)
    expect_in_log(r, 'task: systest (pid ')
    expect_in_log(r, 'unknown syscall 500: -ENOSYS')
    e = task_exits(r)
    expect(e and e[0]['exit_code'] == 0, 'systest exit %r' % e)


def test_user_workloads_verify_data(ctx):
    progs = ['touch 16 8000 seq anon', 'touch 16 8000 random shmem', 'hogmem 16 2', 'fill 50 64',
             'threads 4 16 1', 'hello_musl x', 'touch_musl 8 3000 random anon', 'touch_musl 8 3000 seq shmem']
    r = ctx.boot('quiet run="%s"' % ' ; '.join(progs), timeout=240)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == len(progs), 'expected %d task_exit records, got %d' % (len(progs), len(e)))
    for x in e:
        expect(x['exit_code'] == 0, '%s exited %r (%s)' % (x['cmdline'], x['exit_code'], x.get('reason')))
        expect(x['utime_ns'] > 0, '%s: no CPU time counted: %r' % (x['cmdline'], x))
        # hello_musl touches only pages the loader filled in: no faults.
        expect(x['minflt'] > 0 or x['name'] == 'hello_musl', '%s: no faults counted: %r' % (x['cmdline'], x))
    for w in r.find('workload'):
        expect(w.get('mismatches', 0) == 0, '%s reports data mismatches: %r' % (w['name'], w))
    touches = [w for w in r.find('workload') if w['name'] == 'touch']
    expect(len(touches) == 4, 'touch records: %d' % len(touches))


def test_user_faults_kill_only_the_task(ctx):
    crashes = [('null', 'SIGSEGV', 'no mapping at that address'), ('kernel', 'SIGSEGV', 'a kernel address'),
               ('ud', 'SIGILL', 'Invalid opcode'), ('readonly', 'SIGSEGV', 'not permitted'),
               ('div0', 'SIGFPE', 'Divide error'), ('stack', 'SIGSEGV', 'no mapping')]
    r = ctx.boot('quiet run="%s ; hello after"' % ' ; '.join('crash ' + c[0] for c in crashes), timeout=120)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == len(crashes) + 1, 'task_exit records: %d' % len(e))
    for (how, sig, text), x in zip(crashes, e):
        expect(x['signal'] == sig and x['exit_code'] is None, 'crash %s: %r' % (how, x))
        expect(text in x['reason'] and 'rip 0x' in x['reason'], 'crash %s reason %r' % (how, x['reason']))
        expect_in_log(r, 'task: crash (pid %d) killed by %s' % (x['pid'], sig))
    expect(e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'the program after the crashes did not run')


def test_user_cannot_make_the_return_fault_in_the_kernel(ctx):
    # Two ways a program could make the kernel's iretq back to it fault in
    # ring 0, after trap_return's swapgs (a double fault, or worse):
    # - toppage: a syscall in the last two bytes below 2^47 returns to the
    #   first non-canonical address (Intel faults on the iretq; QEMU, like
    #   AMD, in user mode).  That page is never mapped (Linux's
    #   TASK_SIZE_MAX): the MAP_FIXED is refused and crash exits 0.
    # - nt: RFLAGS.NT set before a syscall; iretq with NT set faults in
    #   64-bit mode.  IA32_FMASK clears it on entry (a double fault before).
    r = ctx.boot('quiet run="crash toppage ; crash nt ; hello after"', timeout=120)
    expect_ok(r)
    e = task_exits(r)
    expect([x['exit_code'] for x in e] == [0, 0, 0], 'exits %r' % e)
    expect_in_log(r, 'crash: the top user page is not mappable')
    expect_in_log(r, 'crash: a system call with NT set returned')


@pytest.mark.parametrize('vendor,sig', [('AuthenticAMD', 'SIGILL'), ('GenuineIntel', 'SIGSEGV')])
def test_user_sysenter_is_a_user_fault(ctx, vendor, sig):
    # Intel CPUs run SYSENTER in 64-bit mode: it would enter ring 0 wherever
    # firmware left IA32_SYSENTER_EIP, unless IA32_SYSENTER_CS is 0, which
    # the kernel sets on every CPU (then #GP).  AMD raises #UD there.
    r = ctx.boot('quiet run="crash sysenter ; hello after"', timeout=120, cpu='max,vendor=' + vendor)
    expect_ok(r)
    expect(boot_record(r)['cpu_vendor'] == vendor, 'vendor %r' % boot_record(r)['cpu_vendor'])
    e = task_exits(r)
    expect(len(e) == 2 and e[0]['signal'] == sig and e[1]['exit_code'] == 0, 'exits %r' % e)


def sysfuzz_alone(ctx, mode, cmdline, timeout, first=''):
    """Boot `[FIRST ;] sysfuzz MODE ; hello after`: both exit 0; returns the
    record."""
    r = ctx.boot('quiet %s run="%ssysfuzz %s ; hello after"' % (cmdline, first + ' ; ' if first else '', mode),
                 timeout=timeout)
    expect_ok(r)
    e = task_exits(r)
    expect([x['exit_code'] for x in e] == [0, 0], 'exits %r' % e)
    w = [x for x in r.find('workload') if x.get('mode') == mode]
    expect(len(w) == 1, 'records %r' % w)
    return w[0]


def test_user_sysfuzz_areas(ctx):
    # A 64 TiB PROT_NONE area with 16 pages in it: mprotect, madvise and
    # munmap of all of it walked every page (a hang: 2^34 steps under the
    # page-table lock); brk up by 1 TiB and back; one munmap over 200
    # areas (a panic: "more than 64 areas removed at once"); a 1 TiB
    # shared mapping with one page in it (its slot leaves were all
    # allocated up front, 2 GiB of them: the mmap failed).
    # (brk up by 1 TiB and the 1 TiB area made writable ask for more than
    # RAM and swap: overcommit_memory 1.  The shared one is MAP_NORESERVE.)
    w = sysfuzz_alone(ctx, 'areas', '', 120, first='@set overcommit_memory 1')
    expect(w['failures'] == 0 and w['brk_up_1tib'] and w['shared_1tib'] and w['mprotect_1tib'], 'record %r' % w)


def test_user_sysfuzz_random_calls(ctx):
    # 120000 system calls with hostile arguments from six processes, three
    # at a time on 2 CPUs: the kernel must neither panic, hang nor leak (the
    # balance check after every case).  A fuzzer may kill itself (a call
    # can write over its own data); the program after them must run.
    seeds = [101, 102, 103, 104, 105, 106]
    run = ' ; '.join('sysfuzz %d 20000 & sysfuzz %d 20000 & sysfuzz %d 20000' % tuple(seeds[i:i + 3])
                     for i in (0, 3))
    r = ctx.boot('quiet mem=64M run="%s ; hello after"' % run, smp=2, timeout=600)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == 7 and e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'exits %r' % e)
    for x in e[:-1]:
        expect(x['exit_code'] == 0 or x['signal'], 'sysfuzz exit %r' % x)
    done = [x for x in r.find('workload') if x['name'] == 'sysfuzz']
    expect(sum(x['calls'] for x in done) >= 60000, 'only %d fuzzers finished: %r' % (len(done), done))


def test_user_sysfuzz_threads(ctx):
    # Three threads per fuzzer making random calls plus clone (pthread
    # flags with random extras, hostile parent/child tid pointers and TLS
    # bases), futex (shared words, bad ops, misaligned and bad addresses,
    # timeouts short or bad), the sleeps and arch_prctl; clone children
    # run 200 calls, set_tid_address among them, and exit.  The second
    # pair dies of SIGSEGV halfway with its threads mid-call: the teardown
    # must neither hang nor leak (the balance check after every case).
    run = ('sysfuzz threads 401 30000 & sysfuzz threads 402 30000 ; '
           'sysfuzz threads 403 30000 die & sysfuzz threads 404 30000 die ; hello after')
    r = ctx.boot('quiet mem=64M hangcheck=10 run="%s"' % run, smp=2, timeout=600)
    expect_ok(r)
    e = task_exits(r)
    expect([x['exit_code'] for x in e[:2]] == [0, 0] and [x['signal'] for x in e[2:4]] == ['SIGSEGV'] * 2 and
           e[4]['name'] == 'hello' and e[4]['exit_code'] == 0, 'exits %r' % e)
    w = [x for x in r.find('workload') if x.get('mode') == 'threads']
    expect(len(w) == 2 and all(x['clones'] > 50 and x['child_calls'] > 10000 and x['futex_calls'] > 500 for x in w),
           'records %r' % w)
    expect('hangcheck:' not in r.log, 'hangcheck fired (no progress, or a CPU stuck)')


def test_user_clone_bomb_is_refused_in_time(ctx):
    # sysfuzz clones: threads on one-page stacks, parked, until clone
    # refuses.  Each costs the kernel 16 KiB of stack: without a limit a
    # program took all memory at 64 MiB (2900 threads), and the OOM killer
    # then chose by pages mapped.  Linux's threads-max (kernel stacks at
    # most an eighth of RAM) stops it at about 500 with -EAGAIN; the
    # program beside it runs untouched.
    r = ctx.boot('quiet mem=64M run="sysfuzz clones & touch 16 20000 random anon ; hello after"', smp=2, timeout=300)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == 3 and all(x['exit_code'] == 0 for x in e), 'exits %r' % e)
    w = [x for x in r.find('workload') if x.get('mode') == 'clones']
    expect(len(w) == 1 and w[0]['error'] == 11 and 300 <= w[0]['threads'] <= 600 and w[0]['still_parked'] == 0,
           'record %r' % w)
    expect_in_log(r, 'clone refused (-EAGAIN)')
    expect('out of memory' not in r.log, 'the OOM killer ran')


def test_user_thread_exits_share_tlb_flushes(ctx):
    # The same bomb on 4 CPUs at 40 MiB: about 300 threads end.  Each dead thread's
    # stack used to be flushed from every other CPU's TLB at once, an IPI
    # round per exit (3 IPIs each); freed stacks' pages now wait for one
    # round per 32 pages (8 stacks), and their frames with them (the
    # membal settle flushes what waits: the rig's balance check).
    r = ctx.boot('quiet mem=40M run="sysfuzz clones"', smp=4, timeout=300)
    expect_ok(r)
    w = [x for x in r.find('workload') if x.get('mode') == 'clones']
    expect(len(w) == 1 and w[0]['threads'] >= 200 and w[0]['still_parked'] == 0, 'record %r' % w)
    ipis = r.find('cpus')[-1]['tlb_ipis']
    expect(ipis <= w[0]['threads'], '%d TLB IPIs for %d thread exits on 4 CPUs' % (ipis, w[0]['threads']))


def test_user_many_areas(ctx):
    # sysfuzz maps: one-page areas that do not merge until mmap refuses
    # (-ENOMEM at the area limit, 65530 as Linux's max_map_count, or where
    # the area array stops growing), then one munmap over all of them.
    # That munmap needed room for two splits it did not make and failed
    # with -ENOMEM at the limit (a program there could unmap nothing), and
    # removing the areas one move each took 87 s under TCG for 32763.
    w = sysfuzz_alone(ctx, 'maps', 'mem=256M', 300)
    expect(w['areas'] >= 30000 and w['error'] == 12 and w['munmap_error'] == 0, 'record %r' % w)


def test_user_concurrent_tasks(ctx):
    r = ctx.boot('quiet run="touch 8 4000 seq anon & touch 8 4000 random shmem & threads 2 8 1"', timeout=120)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == 3 and all(x['exit_code'] == 0 for x in e), 'exits %r' % e)
    spans = [(x['start_ns'], x['start_ns'] + x['elapsed_ns']) for x in e]
    overlap = max(s for s, _ in spans) < min(t for _, t in spans)
    expect(overlap, 'the three tasks did not run at the same time: %r' % spans)


def test_user_bad_elf_rejected(ctx):
    bad = ctx.path('bad')
    with open(bad, 'wb') as f:
        f.write(b'\x7fELF\x02\x01\x01' + bytes(57) + b'junk' * 100)
    img = ctx.make_image(files=[bad + ':bin/bad', 'build/workloads/hello:bin/hello'])
    r = ctx.boot('quiet run="bad ; hello"', image=img)
    expect_ok(r)
    expect_in_log(r, 'task: bin/bad: not loadable: ')
    e = task_exits(r)
    expect(len(e) == 1 and e[0]['name'] == 'hello', 'only hello should have run: %r' % e)
