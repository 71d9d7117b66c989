"""touch ... threads=N (issue 14): several threads of one process faulting
and swapping at once, each on its own slice of the area or all on the same
pages, with swapcrc=on: every swapped page checked by the kernel and every
touch verified by the workload."""
import pytest

from rig import expect, boot_record, swap_image, run_swapping, vm_final, expect_clean_exits

# 72 MiB in 48 MiB of RAM: 1.5x, so every slice swaps.
PROGS = ['touch 72 30000 seq anon threads=4',
         'touch 72 30000 random shmem threads=4 shared',
         'touch 72 20000 fill+random anon threads=3 shared']


def touch_records(r):
    return [w for w in r.find('workload') if w['name'] == 'touch']


def ints(s):
    return [int(x) for x in s.split()]


def check_record(w, cmd):
    """The record of one threaded run is whole and adds up."""
    n = w['threads']
    expect('threads=%d' % n in cmd.split(), '%s: threads %r' % (cmd, n))
    touches = ints(w['thread_touches'])
    expect(len(touches) == n and sum(touches) == w['touches'], 'per-thread touches %r of %d' % (touches, w['touches']))
    expect(max(touches) - min(touches) <= 1, 'touches not split evenly: %r' % touches)
    for key in ('thread_minflt', 'thread_majflt', 'thread_elapsed_us'):
        expect(len(ints(w[key])) == n, '%s: %r' % (key, w[key]))
    # Each thread faulted for itself: the pages it touched first came in
    # through its own faults, so none of them can have made none.
    expect(all(f > 0 for f in ints(w['thread_minflt'])), 'a thread with no faults: %r' % w)
    # getrusage(RUSAGE_THREAD) counts the thread's own faults, so the
    # threads' add up to no more than the process's (RUSAGE_SELF), which
    # also has the main thread's few (the mmaps' first touches are theirs).
    for key in ('minflt', 'majflt'):
        per = ints(w['thread_' + key])
        expect(sum(per) <= w[key], '%s: threads %r sum to more than the process\'s %d' % (key, per, w[key]))
    expect(sum(ints(w['thread_minflt'])) * 10 >= w['minflt'] * 9, 'the threads made under 90%% of the faults: %r' % w)
    # No thread ran longer than the whole run.
    expect(max(ints(w['thread_elapsed_us'])) * 1000 <= w['elapsed_ns'], 'thread elapsed %r vs %d ns'
           % (w['thread_elapsed_us'], w['elapsed_ns']))
    expect(w['mismatches'] == 0, 'mismatches %r' % w)


def run_threads(ctx, **kw):
    r = run_swapping(ctx, PROGS, [{'file': swap_image(ctx), 'bus': 'nvme'}], extra_cmdline='swapcrc=on',
                     timeout=900, **kw)
    expect_clean_exits(r, len(PROGS))
    recs = touch_records(r)
    expect(len(recs) == len(PROGS), 'touch records %d' % len(recs))
    for w, cmd in zip(recs, PROGS):
        expect(w['sharing'] == ('shared' if 'shared' in cmd else 'slices'), '%s: sharing %r' % (cmd, w['sharing']))
        check_record(w, cmd)
    seq = recs[0]
    # 30000 seq touches, 7500 a thread over slices of 4608 pages: every page.
    expect(seq['pages_touched'] == seq['pages'] == 72 * 256, 'seq: %d of %d pages touched' % (seq['pages_touched'], seq['pages']))
    expect(recs[2]['pages_touched'] == recs[2]['pages'], 'fill+: pages not all filled: %r' % recs[2])
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping: %r' % {k: v[k] for k in ('pswpout', 'pswpin')})
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)
    expect(all(w['majflt'] > 0 for w in recs), 'a run without major faults: %r' % [w['majflt'] for w in recs])
    return r, recs


def test_touch_threads_swap(ctx):
    """-smp 1 (the rig's default): the threads take turns on the one CPU,
    blocking in swap-in while another runs."""
    run_threads(ctx)


def test_touch_threads_smp2(ctx):
    """-smp 2: the threads run on both CPUs, so the same checks judge
    concurrent faults on shared pages (the shared runs) and concurrent
    swap-out from one address space."""
    r, recs = run_threads(ctx, smp=2)
    expect(boot_record(r)['cpus_online'] == 2, 'the second CPU is not online')
    # The swap disk's controller has an I/O queue pair per CPU, and both
    # CPUs' swapping went through their own (drivers/nvme.c).
    st = [x for x in r.find('nvme_stats') if x['name'] == 'nvme1']
    expect(len(st) == 1 and len(st[0]['queues']) == 2 and
           all(q['commands'] > 0 and q['interrupts'] > 0 for q in st[0]['queues']),
           'NVMe queues on 2 CPUs: %r' % st)
