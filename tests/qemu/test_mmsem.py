"""mm->lock as a reader/writer sleeping lock (issue 14): faults of one
address space take it shared and run in parallel; mmap, munmap, brk and
mprotect take it exclusive.  The lock's own behaviour (test=rwsem), then
threads of one process faulting the very same pages at once - first
touch, swap-in of the same swapped pages, shmem - with swapcrc=on."""
import pytest

import rig
from rig import expect, selftest, boot_record
from test_lockdep import lockdep_build, lctx, check_inversion  # noqa: F401 (fixtures)


@pytest.mark.quick
def test_rwsem_selftest(ctx):
    # Two CPUs, so the readers really are inside at once.
    data, r = selftest(ctx, 'rwsem', smp=2)
    expect(data['max_readers_inside'] == 3, 'readers %r' % data)
    expect(data['writer_excludes_reader'] and data['waiting_writer_blocks_readers'], 'exclusion %r' % data)
    expect(data['order'] == 'WR', 'the waiting writer went after the reader: %r' % data)


def test_lockdep_rwsem_inversion(ctx, lctx):
    # An rwsem's classes join the lock-order graph as mutexes' do, its
    # read holds ordered like its write holds.
    check_inversion(ctx, lctx, 'lockdep_rwsem', ['rwa', 'mb'], kind='mutex')


def test_lockdep_rwsem_recursive_read(ctx, lctx):
    # One thread reading the same rwsem twice deadlocks once a writer
    # waits between the two reads: lockdep names both sites.
    ctx.lockdep_expected = True
    data, r = selftest(lctx, 'lockdep_recursive')
    expect(data['reports'] == 1, 'selftest data %r' % data)
    rec = rig.one_record(r, 'lockdep')
    expect(rec['event'] == 'recursion' and rec['class'] == 'lockdep_test_rwa', 'lockdep record %r' % rec)
    expect(rec['held_at'].startswith('read_twice+') and rec['again_at'].startswith('read_twice+')
           and rec['held_at'] != rec['again_at'], 'sites %r' % rec)
    expect('lockdep: recursive acquisition: sleeping lock \'lockdep_test_rwa\'' in r.log, 'no console line')


# Threads of one process on the same pages at once, all from page 0 in
# the same order (vpage_touch_shared reads each page before taking the
# workload's per-page lock, so the threads fault on it together):
#  - first touch of anonymous memory (16 MiB: no swapping);
#  - fill+seq over 72 MiB in 48 MiB: the fill swaps the first pages out,
#    then the four threads swap the same pages back in together (read
#    faults mapping the swap-cache page read-only, then write upgrades);
#  - the same on shmem.
SAME_PAGES = ['touch 16 16384 seq anon threads=4 shared',
              'touch 72 40000 fill+seq anon threads=4 shared',
              'touch 72 40000 fill+seq shmem threads=4 shared']


def run_vmstat(r, cmd):
    v = [x for x in r.find('vmstat') if x.get('label') == cmd]
    expect(len(v) == 1, 'no vmstat record for %r' % cmd)
    return v[0]


def test_same_pages_smp2(ctx):
    r = rig.run_swapping(ctx, SAME_PAGES, [{'file': rig.swap_image(ctx), 'bus': 'nvme'}],
                         extra_cmdline='swapcrc=on', timeout=1200, smp=2)
    expect(boot_record(r)['cpus_online'] == 2, 'the second CPU is not online')
    rig.expect_clean_exits(r, len(SAME_PAGES))
    recs = [w for w in r.find('workload') if w['name'] == 'touch']
    expect(len(recs) == len(SAME_PAGES), 'touch records %d' % len(recs))
    for w, cmd in zip(recs, SAME_PAGES):
        expect(w['sharing'] == 'shared' and w['mismatches'] == 0, '%s: %r' % (cmd, w))
        v = run_vmstat(r, cmd)
        # Faults of the one mm held mm->lock at the same time: impossible
        # while it was a mutex (checked: 0 with the faults taking it
        # exclusive), so this is the measure that they now run together.
        expect(v['fault_overlap'] > 0, '%s: no fault overlapped another: %r' % (cmd, v))
    expect(recs[0]['pages_touched'] == recs[0]['pages'] == 16 * 256, 'first touch: %r' % recs[0])
    for w, cmd in zip(recs[1:], SAME_PAGES[1:]):
        v = run_vmstat(r, cmd)
        expect(v['pswpin'] > 1000 and w['majflt'] > 0, '%s: not swapping in: %r' % (cmd, v))
    v = rig.vm_final(r)
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)
