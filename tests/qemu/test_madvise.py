"""MADV_PAGEOUT and MADV_COLD on anonymous and shmem memory (kernel/vm/vm.c
lru_advise, reclaim.c reclaim_pageout): PAGEOUT swaps a region out at once
and a second pass takes one major fault per page, with the data verified
(swapcrc=on); COLD makes a region go before hot memory under pressure,
where without the advice it would have gone after it.  Readahead is off
(ra=off): a major fault is then one read of one page.  The workload is
`hold ... pageout|cold:MIB|nocold:MIB` (tests/workloads/hold.c), which
runs unchanged on Linux 5.4 and later."""
import pytest

from rig import expect, expect_ok, swap_image, expect_clean_exits


def boot(ctx, progs, mem='48M'):
    r = ctx.boot('quiet mem=%s ra=off swapcrc=on run="%s"' % (mem, ' ; '.join(progs)),
                 disks=[{'file': swap_image(ctx, mib=128), 'bus': 'nvme'}], timeout=900)
    expect_ok(r)
    return r


def holds(r):
    return [w for w in r.find('workload') if w['name'] == 'hold']


@pytest.mark.quick
def test_madvise_pageout_swaps_out_and_back(ctx):
    # 8 MiB = 2048 pages in 48 MiB: no memory pressure, so whatever goes
    # out goes because of the advice.
    r = boot(ctx, ['hold 8 0 anon pageout', 'hold 8 0 shmem pageout'])
    expect_clean_exits(r, 2)
    for w in holds(r):
        n = w['size_mib'] * 256
        # The region's pages, give or take none: every one was mapped
        # once and dirty.  The verify pass reads each back: one major
        # fault each, and nothing else of the program was swapped.
        expect(n <= w['pageout_pswpout'] <= n + 16, '%s: pswpout rose by %d for %d pages advised'
               % (w['mapping'], w['pageout_pswpout'], n))
        expect(n <= w['verify_majflt'] <= n + 16, '%s: %d major faults re-touching %d paged-out pages'
               % (w['mapping'], w['verify_majflt'], n))
    v = [x for x in r.find('vmstat') if x.get('label') == 'final'][0]
    expect(v['swap_crc_mismatch'] == 0, 'swap checksums: %r' % v['swap_crc_mismatch'])


@pytest.mark.parametrize('mapping', ['anon', 'shmem'])
def test_madvise_cold_goes_before_hot(ctx, mapping):
    # A 16 MiB region, its first half hot, its second (newer) half
    # advised cold, then 36 MiB of fresh memory in 48 MiB of RAM: a few
    # MiB must go.  With the advice the cold half goes first; without it
    # (nocold), the same pressure takes the older, hot half first.
    # Measured (hot/cold major faults of 2048 pages each): anon cold
    # 199/2048, nocold 2000/175; shmem cold 0/1916, nocold 917/0.
    r = boot(ctx, ['hold 16 0 %s cold:36' % mapping, 'hold 16 0 %s nocold:36' % mapping])
    expect_clean_exits(r, 2)
    cold, nocold = holds(r)
    half = 16 * 256 // 2
    expect(cold['cold_majflt'] >= half // 4, 'cold: only %d of the %d cold pages were reclaimed' % (cold['cold_majflt'], half))
    expect(cold['hot_majflt'] * 4 <= cold['cold_majflt'], 'cold: %d hot pages reclaimed against %d cold ones'
           % (cold['hot_majflt'], cold['cold_majflt']))
    # The control: the advice is what moved the pages.
    expect(nocold['cold_majflt'] * 2 <= cold['cold_majflt'] and nocold['hot_majflt'] >= nocold['cold_majflt'],
           'without the advice: hot %d cold %d major faults; with it: hot %d cold %d'
           % (nocold['hot_majflt'], nocold['cold_majflt'], cold['hot_majflt'], cold['cold_majflt']))
