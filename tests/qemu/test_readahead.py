"""Swap read-ahead under memory pressure: read-ahead pages never make the
faulting task reclaim (alloc_ra_page), windows are trimmed instead, and
the wait for pages still under read is counted and timed."""
import pytest

from rig import expect, swap_image, run_swapping, expect_clean_exits

# One label per step (the vmstat step records are keyed by the command
# line): seq ignores touch's seed argument, so it tells the runs apart.
SEQ = 'touch 72 40000 seq anon %d'


def steps(r):
    return {v['label']: v for v in r.find('vmstat') if v.get('label')}


@pytest.mark.slow
def test_readahead_never_reclaims_for_itself(ctx):
    # 72 MiB in 48 MiB: the same sequential touch under off, fixed:4 and
    # own.  own reads far more ahead per major fault than fixed:4 (64-page
    # windows, issued from hits), and read-ahead now only takes frames
    # above the low watermark, never reclaiming for them: own's task
    # stalls no more than off's, whose faulting task reads nothing ahead.
    progs = ['@set ra off', SEQ % 1, '@set ra fixed:4', SEQ % 2, '@set ra own', SEQ % 3]
    # Under icount: how often the task stalls depends on how far kswapd
    # gets while it runs, which host load changed (own 219 against off's
    # 187 in a clean-clone run beside other QEMUs).
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900, icount='exact')
    e = expect_clean_exits(r, 3)
    st = steps(r)
    off, f4, own = (st[SEQ % k] for k in (1, 2, 3))
    expect(own['pgmajfault'] * 10 < f4['pgmajfault'], 'own %d major faults, fixed:4 %d'
           % (own['pgmajfault'], f4['pgmajfault']))
    expect(own['swap_ra'] > 10000 and own['swap_ra_hit'] * 100 >= own['swap_ra'] * 99,
           'own read ahead %d pages, %d hits' % (own['swap_ra'], own['swap_ra_hit']))
    # The faulting task's allocations (zero-fill of the first pass, the
    # pages of its major faults) are all that may stall it, and the first
    # pass's are the same under every policy (off 223, fixed:4 228, own
    # 223 allocstalls under icount, the same in every run).  Before
    # alloc_ra_page own's task took nearly three times off's (313 against
    # 109, without icount) and 3.3 times its direct scans.
    base = min(off['allocstall'], f4['allocstall'])
    expect(own['allocstall'] * 10 <= base * 11 + 50,
           'direct reclaim: own allocstall %d (pgscan_direct %d), off %d (%d), fixed:4 %d (%d)'
           % (own['allocstall'], own['pgscan_direct'], off['allocstall'], off['pgscan_direct'],
              f4['allocstall'], f4['pgscan_direct']))
    # Every counted wait is in the histogram, and they agree.
    for x in (f4, own):
        w = x['swapin_latency']['ra_wait']
        expect(w['n'] == x['swap_ra_wait'] and (w['n'] == 0 or w['p50_ns'] <= w['max_ns']),
               '%s: swap_ra_wait %d, histogram %r' % (x['label'], x['swap_ra_wait'], w))
    expect(e[2]['ra_hits'] * 100 >= e[2]['ra_issued'] * 99, 'own hit rate %r' % e[2])


@pytest.mark.slow
def test_readahead_trims_instead_of_stalling(ctx):
    # Two sequential touches at once in 48 MiB, under own: their windows
    # compete for frames with each other and with the faulting pages, so
    # some read-ahead finds free memory at the low watermark and is
    # trimmed (counted), and the data stays right (touch verifies).
    progs = ['@set ra own', 'touch 40 40000 seq anon & touch 40 40000 seq anon']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900)
    expect_clean_exits(r, 2)
    x = steps(r)[progs[1]]
    expect(x['swap_ra'] > 10000, 'read ahead %d pages' % x['swap_ra'])
    expect(x['swap_ra_trimmed'] > 0, 'no window was trimmed: %r'
           % {k: x[k] for k in ('swap_ra', 'swap_ra_trimmed', 'allocstall', 'kswapd_wakeups')})


@pytest.mark.slow
def test_readahead_vma_interleaved_streams(ctx):
    # Four sequential streams through one mapping, one touch each in
    # turn.  Linux 6.1's vma readahead at page-cluster 3 took about a
    # third of RA=0's major faults; ours took exactly off's until a fault
    # next to any of the VMA's last five counted as adjacent.  Random
    # touches still read almost nothing ahead.
    four, rnd = 'touch 72 40000 streams:4 anon %d', 'touch 72 30000 random anon %d'
    progs = ['@set ra off', four % 1, rnd % 1, '@set ra vma', four % 2, rnd % 2]
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900)
    expect_clean_exits(r, 4)
    st = steps(r)
    off, vma = st[four % 1], st[four % 2]
    expect(vma['pgmajfault'] * 2 <= off['pgmajfault'] and vma['swap_ra_hit'] * 100 >= vma['swap_ra'] * 95,
           'streams:4: vma %d major faults (read ahead %d, hits %d), off %d'
           % (vma['pgmajfault'], vma['swap_ra'], vma['swap_ra_hit'], off['pgmajfault']))
    roff, rvma = st[rnd % 1], st[rnd % 2]
    expect(rvma['swap_ra'] * 20 <= roff['pgmajfault'], 'random: vma read ahead %d pages, off %d major faults'
           % (rvma['swap_ra'], roff['pgmajfault']))


def swap_disk_blk(r):
    dev = r.find('swap')[-1]['swap_areas'][0]['device']
    b = [x for x in r.find('blk') if x['name'] == dev]
    expect(b, 'no blk record for the swap disk %s' % dev)
    return b[-1]


@pytest.mark.slow
def test_read_split_follows_the_device(ctx):
    # The block layer learns each disk's read cost from its own reads and
    # cuts reads where a command's transfer outweighs its fixed cost
    # (drivers/blk_cost.h).  QEMU's ssd profile (700 IOPS, 50 MiB/s) is
    # such a disk: own's 64-page windows go out as 16- or 32-page reads
    # (measured a 0.6-0.9 ms, b 32-58 us per page: 16).  Its hdd profile
    # (150 IOPS) is bound by commands, a fixed cost of a seek's size:
    # never cut.  Guest time under icount, so the throttle's timing is the
    # guest's; a bad value on the command line is named and auto stays.
    got = {}
    for profile in ('ssd', 'hdd'):
        progs = ['@set ra own', SEQ % 1] + (['@set blk_read_split off', SEQ % 2] if profile == 'ssd' else [])
        r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900, icount=True,
                         profile=profile, extra_cmdline='blk_read_split=7' if profile == 'ssd' else '')
        expect_clean_exits(r, len(progs) // 2)
        got[profile] = (swap_disk_blk(r), steps(r), r)
    b, st, r = got['ssd']
    expect('cmdline: blk_read_split=7: not auto, off or a power of two in 8..256; using auto' in r.log,
           'no one-line error for blk_read_split=7')
    expect(b['read_split_pages'] in (16, 32), 'ssd: read split %r' % b)
    # Learnt after 8 reads of each size: the first windows go whole.
    # Own's windows are 64 pages, about 52 per read uncut.
    auto, off = st[SEQ % 1], st[SEQ % 2]
    expect(auto['pswpin'] < 32 * auto['swap_read_reqs'], 'ssd, auto: %d pages in %d reads'
           % (auto['pswpin'], auto['swap_read_reqs']))
    expect(off['pswpin'] > 40 * off['swap_read_reqs'], 'ssd, off: %d pages in %d reads'
           % (off['pswpin'], off['swap_read_reqs']))
    expect(b['read_pages'] > b['read_split_pages'], 'ssd: blk_read_split off, yet reads of %d' % b['read_pages'])
    b, st, _ = got['hdd']
    expect(b['read_split_pages'] == 0 and b['read_cost_cmd_us'] >= 2000, 'hdd: read split %r' % b)
    x = st[SEQ % 1]
    expect(x['pswpin'] > 40 * x['swap_read_reqs'], 'hdd: %d pages in %d reads' % (x['pswpin'], x['swap_read_reqs']))
