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
def test_read_split_cuts_reads(ctx):
    # blk_read_split=N: no read command larger than N pages, so own's
    # 64-page windows go as 16-page reads; off (the default) merges them
    # whole (about 52 pages per read: windows come trimmed at times).  A
    # bad value, on the command line or in @set, is named and the value in
    # force stays; @set changes it between runs.  Counters only: the cut
    # does not depend on the disk's speed (README, "Read commands cut to
    # the device").
    progs = ['@set ra own', SEQ % 1, '@set blk_read_split 12', '@set blk_read_split 16', SEQ % 2]
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900,
                     extra_cmdline='blk_read_split=7')
    expect_clean_exits(r, 2)
    expect('cmdline: blk_read_split=7: not off or a power of two in 8..256; using off' in r.log,
           'no one-line error for blk_read_split=7')
    expect("blk_read_split: '12' is not off or a power of two in 8..256" in r.log,
           'no error for @set blk_read_split 12')
    st = steps(r)
    off, cut = st[SEQ % 1], st[SEQ % 2]
    expect(off['pswpin'] > 40 * off['swap_read_reqs'], 'off: %d pages in %d reads'
           % (off['pswpin'], off['swap_read_reqs']))
    expect(cut['pswpin'] > 10000 and cut['pswpin'] <= 16 * cut['swap_read_reqs'], '16: %d pages in %d reads'
           % (cut['pswpin'], cut['swap_read_reqs']))
    # The same pages either way: a cut changes commands, not what is read.
    expect(abs(cut['pswpin'] - off['pswpin']) * 20 < off['pswpin'], 'pages read: off %d, 16 %d'
           % (off['pswpin'], cut['pswpin']))
    b = swap_disk_blk(r)
    expect(b['read_pages'] == 16, 'blk record: read_pages %r' % b.get('read_pages'))
