"""Reclaim and swap: swapping on NVMe and SATA, readahead policies, several
areas, swap full, I/O errors, swapoff."""
import os
import re

import pytest

from rig import (expect, expect_ok, expect_in_log, task_exits, swap_image, run_swapping, vm_final, expect_clean_exits,
                 blkdebug_conf, script_text_image)


def test_swap_touch_nvme(ctx):
    # 72 MiB = 1.5x the 48 MiB of usable RAM, all four of Hugh's patterns.
    progs = ['touch 72 30000 seq anon', 'touch 72 30000 random anon', 'touch 72 30000 seq shmem',
             'touch 72 30000 random shmem']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], extra_cmdline='swapcrc=on')
    expect_clean_exits(r, 4)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping: %r' % {k: v[k] for k in ('pswpout', 'pswpin')})
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)
    expect(v['pgmajfault'] > 0, 'no major faults counted')
    # Swap-out goes in batches of consecutive slots: big writes.
    blk = [b for b in r.find('blk') if b['name'] == 'nvme1n1'][0]
    mean_write = blk['write_bytes'] / max(1, blk['writes'])
    expect(mean_write >= 64 << 10, 'mean swap write %d bytes, want >= 64 KiB' % mean_write)


def test_swap_touch_ahci(ctx):
    progs = ['touch 72 20000 seq anon', 'touch 72 20000 random shmem']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'sata'}])
    expect_clean_exits(r, 2)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping on AHCI: %r' % v)
    expect(v['swap_areas'][0]['device'].startswith('sata'), 'swap area not on sata: %r' % v['swap_areas'])


def ra_rate(x):
    return x['ra_hits'] / x['ra_issued'] if x['ra_issued'] else 1.0


@pytest.mark.slow
def test_swap_readahead_policies(ctx):
    # Hugh's sequential touch, anon and shmem, under fixed:3 and the own
    # policy; random touch; then Linux 4.14's mixed test (a sequential
    # stream while another task swaps in at random) under both.  The
    # stream is larger than RAM by itself: at 40 MiB it could stay resident
    # while the slower random task's pages went instead (a clean-clone run
    # took 0 major faults for it, and the case could judge nothing).
    seq = ['touch 72 40000 seq anon', 'touch 72 40000 seq shmem']
    mixed = 'touch 56 50000 seq anon & touch 40 40000 random anon'
    progs = ['@set ra fixed:3'] + seq + [mixed, '@set ra own'] + seq + ['touch 72 30000 random anon', mixed]
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900)
    e = expect_clean_exits(r, 9)
    f3, own = e[0:2], e[4:6]
    for a, b in zip(f3, own):
        expect(b['majflt'] * 10 < a['majflt'], '%s: own %d major faults, fixed:3 %d' % (b['cmdline'], b['majflt'], a['majflt']))
        expect(ra_rate(b) >= 0.99, '%s: own readahead hit rate %.4f' % (b['cmdline'], ra_rate(b)))
    # Random: own reads ahead only its slot-window probes (fixed:3 reads
    # about six pages per major fault there).
    rnd = e[6]
    expect(rnd['ra_issued'] <= rnd['majflt'] // 5, 'random: own read ahead %d pages for %d major faults'
           % (rnd['ra_issued'], rnd['majflt']))
    seq_f3 = [x for x in e[2:4] if 'seq' in x['cmdline']][0]
    seq_own = [x for x in e[7:9] if 'seq' in x['cmdline']][0]
    expect(seq_own['majflt'] > 0 and seq_own['ra_issued'] > 1000, 'mixed: the sequential task did not swap: %r' % seq_own)
    expect(ra_rate(seq_own) >= 0.99, 'mixed: the sequential task\'s hit rate under own is %.4f (fixed:3 %.4f)'
           % (ra_rate(seq_own), ra_rate(seq_f3)))
    # Latency histograms come with every step.
    steps = [v for v in r.find('vmstat') if v.get('label') == seq[0]]
    lat = steps[-1]['swapin_latency']
    expect(lat['major']['n'] > 0 and lat['cached']['n'] > 0 and lat['major']['p50_ns'] <= lat['major']['p99_ns'],
           'swap-in latency %r' % lat)


@pytest.mark.quick
def test_swap_two_equal_areas(ctx):
    disks = [{'file': swap_image(ctx, 'swapa', 128), 'bus': 'nvme'}, {'file': swap_image(ctx, 'swapb', 128), 'bus': 'nvme'}]
    r = run_swapping(ctx, ['hogmem 72 2'], disks)
    expect_clean_exits(r, 1)
    areas = vm_final(r)['swap_areas']
    expect(len(areas) == 2, 'areas %r' % areas)
    blk = {b['name']: b for b in r.find('blk')}
    for a in areas:
        expect(blk[a['device']]['writes'] > 0, 'area %s received no writes: %r' % (a['device'], areas))
        expect(a['clusters_taken'] > 0, 'area %s took no clusters' % a['device'])


def test_swap_full_oom_kill(ctx):
    # 32 MiB of swap and 48 MiB of RAM cannot hold 128 MiB: the task is killed, the next one runs.
    # (More than RAM and swap in one mapping: overcommit_memory 1, or the
    # mmap is refused, as on Linux.)
    r = run_swapping(ctx, ['@set overcommit_memory 1', 'touch 128 40000 seq anon', 'hello after'],
                     [{'file': swap_image(ctx, mib=32), 'bus': 'nvme'}])
    oom = r.find('oom_kill')
    expect(oom and oom[0]['name'] == 'touch', 'oom records %r' % oom)
    e = task_exits(r)
    expect(e[0]['signal'] == 'SIGKILL' and 'out of memory' in e[0]['reason'], 'touch exit %r' % e[0])
    expect(e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'hello did not run after the OOM kill')
    expect_in_log(r, 'oom: out of memory and swap: killing touch')


def test_swap_no_signature_never_written(ctx):
    import hashlib
    plain = swap_image(ctx, 'plain', 64, mkswap=False)
    with open(plain, 'r+b') as f:
        f.write(os.urandom(1 << 20))
    before = hashlib.sha256(open(plain, 'rb').read()).hexdigest()
    disks = [{'file': plain, 'bus': 'nvme'}, {'file': swap_image(ctx), 'bus': 'nvme'}]
    r = run_swapping(ctx, ['touch 72 20000 random anon'], disks, extra=['-snapshot'] if False else [])
    expect_clean_exits(r, 1)
    after = hashlib.sha256(open(plain, 'rb').read()).hexdigest()
    expect(before == after, 'a disk without a swap signature was written')
    blk = {b['name']: b for b in r.find('blk')}
    expect(blk['nvme1n1']['writes'] == 0 and blk['nvme2n1']['writes'] > 0, 'writes went to the wrong disk')


def test_swap_write_errors_keep_pages(ctx):
    # Writes touching slots 40, 300 and 900 fail: those pages stay in memory,
    # their slots are retired, and the data is intact.
    img = swap_image(ctx)
    conf = blkdebug_conf(ctx, 'badwrite', 'write', [40 * 8, 300 * 8, 900 * 8])
    r = run_swapping(ctx, ['touch 72 30000 seq anon', 'touch 72 20000 random anon'],
                     [{'file': 'blkdebug:%s:%s' % (conf, img), 'bus': 'nvme'}])
    expect_clean_exits(r, 2)
    v = vm_final(r)
    expect(v['swap_write_errors'] > 0, 'no write error seen: %r' % v['swap_write_errors'])
    expect(v['swap_areas'][0]['retired'] > 0, 'no slot retired: %r' % v['swap_areas'])
    expect_in_log(r, 'failed: slot retired, page kept in memory')


def test_swap_read_error_kills_owner(ctx):
    # Reads of slot 200 fail: the task whose page lived there dies; a second
    # task swapping at the same time and the one after it are unharmed.
    img = swap_image(ctx)
    conf = blkdebug_conf(ctx, 'badread', 'read', [200 * 8])
    r = run_swapping(ctx, ['touch 60 30000 seq anon', 'hello after'],
                     [{'file': 'blkdebug:%s:%s' % (conf, img), 'bus': 'nvme'}])
    e = task_exits(r)
    expect(e[0]['signal'] == 'SIGBUS' and 'could not be read back' in e[0]['reason'], 'touch: %r' % e[0])
    expect(e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'the next task did not run: %r' % e)
    expect(vm_final(r)['swap_read_errors'] > 0, 'no read error counted')


def swapoff_run(ctx, progs, exits, timeout=600):
    """Boot progs (a swapoff among them) with an NVMe swap area at 64 MiB:
    every task exits 0 with its data whole, swapoff brings more than 1000
    pages back, and no slot stays in use.  Returns the boot."""
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], mem='64M', timeout=timeout)
    expect_clean_exits(r, exits)
    expect('still in use' not in r.log, 'swapoff gave up')
    m = re.search(r'swapoff: nvme1n1: (\d+) pages brought back', r.log)
    expect(m and int(m.group(1)) > 1000, 'swapoff brought back too little: %s' % (m and m.group(0)))
    v = vm_final(r)
    expect(v['swap_used_pages'] == 0 and not v['swap_areas'], 'swap still in use: %r' % v['swap_areas'])
    return r


def test_swap_swapoff_brings_everything_back(ctx):
    # Two tasks run at once (so one is swapped out while the other runs);
    # swapoff in the middle of a shell-like sequence: after it, no slot is
    # used, and both tasks verify all their data.
    # hold fills 20+10 MiB and sleeps; hogmem pushes them out to swap and
    # exits; swapoff pulls them back; hold then verifies every page.
    # hogmem takes about 0.5 s of guest time, which under TCG passes at
    # the host's pace: on a loaded host it ran past a 2.5 s swapoff (then
    # 78 MiB in 64 without swap: an OOM kill).  The sleep leaves 12x that,
    # and the holds outlast it.
    swapoff_run(ctx, ['hold 20 12 anon & hold 10 12 shmem & hogmem 48 2 & @sleep 6000 & @swapoff nvme1n1',
                      'hello after'], 4)


def test_swap_swapoff_over_a_huge_reservation(ctx):
    # As above, with hold's region in the middle of a 64 TiB PROT_NONE
    # reservation (hold reserved).  swapoff walked every page of every
    # private area to find its swap entries, the empty 64 TiB too: in
    # effect a hang.  It now steps over ranges with no page table.
    r = swapoff_run(ctx, ['hold 20 12 anon reserved & hogmem 48 2 & @sleep 6000 & @swapoff nvme1n1', 'hello after'],
                    3, timeout=300)
    h = [x for x in r.find('workload') if x['name'] == 'hold']
    expect(len(h) == 1 and h[0]['mode'] == 'reserved', 'hold record %r' % h)


def test_swap_pageout_of_shared_pages_beside_many_areas(ctx):
    # hold areas: 30000 one-page private areas, then 24 MiB of shmem
    # filled and paged out (MADV_PAGEOUT), then read back and checked.
    # Reclaim finds each shared page's mapping through the address
    # space's index of areas by object and offset; a mapping the index
    # missed would stay, and its page with it.  (Before the index each
    # page's search went through all 30000 areas with interrupts off.)
    r = ctx.boot('quiet mem=64M run="hold 24 0 shmem areas:30000 ; hello after"',
                 disks=[{'file': swap_image(ctx, mib=64), 'bus': 'nvme'}], timeout=600)
    expect_clean_exits(r, 2)
    h = [x for x in r.find('workload') if x['name'] == 'hold']
    expect(len(h) == 1 and h[0]['mode'] == 'areas' and h[0]['areas'] == 30000 and h[0]['mismatches'] == 0,
           'hold record %r' % h)
    pages = 24 * 256
    expect(h[0]['pageout_pswpout'] >= pages * 9 // 10 and h[0]['verify_majflt'] > 0,
           'paged out %d of %d pages, %d major faults reading them back'
           % (h[0]['pageout_pswpout'], pages, h[0]['verify_majflt']))


def test_swap_swapoff_of_many_shared_mappings(ctx):
    # hold pieces: 20 MiB of shmem as 128 mappings, 128 objects.  swapoff
    # brought back the pages of the first 64 objects only, and after 8
    # passes gave up ("pages still in use"), the area left on.
    swapoff_run(ctx, ['hold 20 12 shmem pieces & hogmem 48 2 & @sleep 6000 & @swapoff nvme1n1', 'hello after'],
                3, timeout=300)


RUNS_ALIKE = '''mem 48M
swap nvme1n1
set ra off
repeat 4
    column "r"
    run touch 72 30000 random anon
end
'''


@pytest.mark.slow
def test_swap_runs_of_one_boot_alike(ctx):
    # Four runs of one random touch in one boot (-icount exact).  Every
    # run starts with the memory the first had: the script drains the
    # kernel's own caches before each (without that, 1529 major faults,
    # then 1546, 1549, 1558 as the swap slots went further into the
    # area).  And the first reclaim round of each run, the one that
    # clears the fill's accessed bits on the whole inactive list (about
    # 11000 pages), is kswapd's: the task waits for it instead of
    # reclaiming itself (reclaim.c, waited_for_kswapd).  Before, which of
    # the two did it was a race: direct reclaim scanned 224 to 11712
    # pages per run, and the task's kernel CPU went between 68 and 79 ms.
    img = script_text_image(ctx, RUNS_ALIKE, programs=('touch',), cmdline='quiet mem=48M')
    r = ctx.boot(None, image=img, disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], icount='exact', timeout=900)
    expect_ok(r)
    res = r.find('result')
    expect(len(res) == 4 and all(x['failed'] == 0 and x['mismatches'] == 0 for x in res), 'runs %r' % res)
    v = [x['vmstat'] for x in res]
    faults = [x['pgmajfault'] for x in v]
    expect(min(faults) > 1000, 'the runs did not swap: %r' % faults)
    expect(max(faults) * 1000 <= min(faults) * 1012, 'major faults differ by more than 1.2%%: %r' % faults)
    for x in v:
        expect(x['reclaim_kswapd_waited'] > 0, 'no allocation waited for kswapd: %r' % x)
        expect(x['pgscan_direct'] * 20 <= x['pgscan_kswapd'],
               'direct reclaim scanned %d pages, kswapd %d' % (x['pgscan_direct'], x['pgscan_kswapd']))


def test_swap_text_pages_come_back_as_code(ctx):
    # A program's text page that reclaim swapped out is read back into a
    # code frame (pmm.c: frames that held code are reused for code first),
    # so swapping runs leave as many code frames as one run does.  Before,
    # each run read its text back into ordinary frames, which joined the
    # code frames at exit: [8, 17] here.  Random touches at 48 MiB swap
    # out a few of touch's text pages per run.  Read-ahead off: a slot
    # window's pages are not known to be text and still get ordinary
    # frames (with the default fixed:3, [7, 13]).
    code = []
    for runs in (1, 4):
        progs = ['touch 72 20000 random anon %d' % (seed + 1) for seed in range(runs)]
        r = run_swapping(ctx, progs, [{'file': swap_image(ctx, 'text%d' % runs), 'bus': 'nvme'}],
                         extra_cmdline='ra=off', log='log%d' % runs)
        expect_clean_exits(r, runs)
        v = vm_final(r)
        expect(v['pswpin'] > 0, 'nothing swapped in')
        ends = [x for x in r.find('mem_balance') if x['phase'] == 'end']
        expect(len(ends) == 1, 'mem_balance end records %r' % ends)
        code.append(ends[0]['code_frames'])
    expect(code[0] > 0 and code[1] == code[0], 'code frames after one swapping run and after four %r' % code)
