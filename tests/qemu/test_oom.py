"""Edge cases that must end cleanly: swap full under random swap-in (an
OOM kill, not a livelock), hangcheck's notion of progress, and swap read
errors under readahead (only the owners of unreadable slots die)."""
import re

import pytest

from rig import expect, expect_ok, expect_in_log, swap_image, task_exits, vm_final, blkdebug_conf

# touch maps more than RAM and swap together: Linux's heuristic
# overcommit (our default too) would refuse the mmap, not kill.
OVERCOMMIT = '@set overcommit_memory 1'
SWAP_FULL_CMD = OVERCOMMIT + ' ; touch 64 20000 random anon ; hello after'


def swap_full_boot(ctx, i):
    """One boot of the swap-full case; returns guest seconds from touch's
    start to the OOM record."""
    c = ctx.for_case('%s-%d' % (ctx.name, i))
    # hangcheck=5: a livelock also leaves a thread dump in the log.
    r = c.boot('quiet mem=32M hangcheck=5 run="%s"' % SWAP_FULL_CMD,
               disks=[{'file': swap_image(c, mib=8), 'bus': 'nvme'}], timeout=240)
    expect_ok(r)
    oom = r.find('oom_kill')
    expect(len(oom) == 1 and oom[0]['name'] == 'touch', 'boot %d: oom records %r' % (i, oom))
    expect(oom[0]['swap_free_pages'] == 0, 'boot %d: OOM kill with swap left: %r' % (i, oom[0]))
    e = task_exits(r)
    expect([x['name'] for x in e] == ['touch', 'hello'], 'boot %d: exits %r' % (i, [x['name'] for x in e]))
    expect(e[0]['signal'] == 'SIGKILL' and 'out of memory' in e[0]['reason'], 'boot %d: touch exit %r' % (i, e[0]))
    expect(e[1]['exit_code'] == 0, 'boot %d: hello exit %r' % (i, e[1]))
    log = r.log
    at = log.find('oom: out of memory and swap: killing touch')
    expect(0 <= at < log.find('hello from hello'), 'boot %d: no OOM line before hello\'s output' % i)
    expect('hangcheck:' not in log, 'boot %d: hangcheck fired (no progress, or a CPU stuck)' % i)
    return (oom[0]['t_ns'] - e[0]['start_ns']) / 1e9


@pytest.mark.slow
def test_oom_swap_full_random_5_boots(ctx):
    # 32 MiB of RAM and 8 MiB of swap cannot hold touch's 64 MiB; random
    # swap-in with readahead at swap full used to livelock (4 boots in 5):
    # the fault's page was dropped from the swap cache before the fault
    # could map it, and kswapd kept the reclaim lock.  Five boots in a row
    # must each end in an OOM kill of touch, then run hello.
    times = [swap_full_boot(ctx, i) for i in range(5)]
    print('%s: guest seconds from touch start to the OOM kill: %s' % (ctx.name, ' '.join('%.2f' % t for t in times)))


# Slots whose reads fail, apart from each other so no two share a
# readahead window.
RA_BAD_SLOTS = (1001, 2203, 3405)


def read_error_boot(ctx, ra, progs):
    """Boot with RA_BAD_SLOTS unreadable; check that each read error killed
    its owner and nobody else, and that every task not killed verified
    all its data.  Returns (swap_read_errors, killed cmdlines)."""
    c = ctx.for_case('%s-%s-%d' % (ctx.name, ra.replace(':', ''), len(progs)))
    img = swap_image(c)
    conf = blkdebug_conf(c, 'badread', 'read', [s * 8 for s in RA_BAD_SLOTS])
    r = c.boot('quiet mem=48M ra=%s run="%s ; hello after"' % (ra, ' & '.join(progs)),
               disks=[{'file': 'blkdebug:%s:%s' % (conf, img), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    exits = task_exits(r)
    expect(sorted(x['cmdline'] for x in exits) == sorted(progs + ['hello after']), '%s: exits %r' % (ra, exits))
    killed = [x for x in exits if x.get('signal')]
    for x in killed:
        expect(x['signal'] == 'SIGBUS' and 'could not be read back' in x['reason'], '%s: %r' % (ra, x))
    for x in exits:
        expect(x.get('signal') or x['exit_code'] == 0, '%s: %s did not verify its data: %r' % (ra, x['cmdline'], x))
    for w in r.find('workload'):
        expect(w.get('mismatches', 0) == 0, '%s: %s: data mismatches %r' % (ra, w['name'], w))
    v = vm_final(r)
    errors, retired = v['swap_read_errors'], v['swap_areas'][0]['retired']
    expect(errors == len(killed) == retired, '%s: %d read errors, %d slots retired, %d tasks killed (%s): '
           'one error per owner of a bad slot, nobody else' % (ra, errors, retired, len(killed),
                                                              ', '.join(x['cmdline'] for x in killed)))
    return errors, sorted(x['cmdline'] for x in killed)


@pytest.mark.slow
def test_oom_readahead_read_error_isolated(ctx):
    # touch alone: without readahead, the first bad slot it faults on is
    # retired and kills it (one error).  With fixed:3 (8-slot windows) a
    # failed window is read again page by page, read-ahead pages that fail
    # are only dropped, and only the fault's own failed read counts: the
    # same one error (before: all 8 pages of the window failed).
    touch = ['touch 60 30000 seq anon']
    off = read_error_boot(ctx, 'off', touch)
    f3 = read_error_boot(ctx, 'fixed:3', touch)
    expect(off[0] == 1, 'ra=off: %r' % (off,))
    expect(f3 == off, '(read errors, kills): fixed:3 %r, off %r' % (f3, off))
    # Three tasks at once (which owns a bad slot varies from boot to boot):
    # each read error kills only its owner, the others verify their data.
    read_error_boot(ctx, 'fixed:3', ['hold 8 8 anon', 'hold 4 8 shmem'] + touch)


def test_oom_hangcheck_sees_livelock(ctx):
    # test=hangcheck: three periods of what a livelock looks like (a
    # thread in a fault; pages scanned, faults retried, context switches,
    # nothing written or finished) must be reported; three periods with a
    # page written to swap now and then must not, nor three with nobody
    # waiting for memory (tasks asleep).
    r = ctx.boot('test=hangcheck quiet hangcheck=1', timeout=120)
    expect_ok(r)
    s = [x for x in r.find('selftest') if x.get('name') == 'hangcheck']
    expect(len(s) == 1, 'no selftest record for hangcheck')
    d = s[0].get('data', {})
    expect(s[0]['ok'], 'hangcheck selftest failed: %r' % s[0])
    expect(d['reports_livelock'] >= 1 and d['reports_writing'] == 0 and d['reports_asleep'] == 0,
           'hangcheck %r' % d)
    expect_in_log(r, 'hangcheck: no progress for 1 s')


def test_oom_swap_full_kills_the_largest(ctx):
    # A small task holding 4 MiB runs beside touch when swap fills: the OOM
    # killer takes touch (most memory), hold survives and verifies its data.
    r = ctx.boot('quiet mem=32M run="hold 4 8 anon & %s"' % SWAP_FULL_CMD,
                 disks=[{'file': swap_image(ctx, mib=8), 'bus': 'nvme'}], timeout=240)
    expect_ok(r)
    oom = r.find('oom_kill')
    expect(len(oom) == 1 and oom[0]['name'] == 'touch', 'oom records %r' % oom)
    e = {x['name']: x for x in task_exits(r)}
    expect(e['touch']['signal'] == 'SIGKILL', 'touch %r' % e['touch'])
    expect(e['hold']['exit_code'] == 0, 'hold (not the largest) %r' % e['hold'])
    expect(e['hello']['exit_code'] == 0, 'hello %r' % e['hello'])


def test_oom_weighs_swap_too(ctx):
    # hold fills 72 MiB and sleeps; touch then works 56 MiB at random and
    # pushes hold's pages out until 64 MiB of swap is full.  The killer
    # weighs resident pages and swap entries, as Linux's oom_badness: hold
    # (about 17 MiB resident and 56 MiB in swap) goes, touch finishes.
    # By resident pages alone it killed touch (43 MiB resident) and left
    # the program that filled swap.
    r = ctx.boot('quiet mem=64M run="hold 72 30 anon & @sleep 4000 & touch 56 300000 random anon ; hello after"',
                 disks=[{'file': swap_image(ctx, mib=64), 'bus': 'nvme'}], timeout=600)
    expect_ok(r)
    k = r.find('oom_kill')
    expect(len(k) == 1 and k[0]['name'] == 'hold' and k[0]['swap_kib'] > k[0]['rss_kib'], 'oom kills %r' % k)
    e = {x['name']: x for x in task_exits(r)}
    expect(e['hold']['signal'] == 'SIGKILL' and e['touch']['exit_code'] == 0 and e['hello']['exit_code'] == 0,
           'exits %r' % e)


def test_oom_weighs_page_tables(ctx):
    # hold keeps 42 MiB; touch then writes one page in every 2 MiB of a
    # 16 GiB area, a page table for each page.  No swap: memory runs out.
    # The killer counts page tables, as Linux's oom_badness: touch goes
    # (about 30 MiB resident and 20 MiB of tables), hold finishes.  By
    # resident pages alone it killed hold first, and touch after it all the
    # same (two kills).
    r = ctx.boot('quiet mem=96M run="' + OVERCOMMIT + ' ; hold 42 30 anon & @sleep 1500 & touch 16384 400000 stride:512 anon ; '
                 'hello after"', timeout=600)
    expect_ok(r)
    k = r.find('oom_kill')
    expect(len(k) == 1 and k[0]['name'] == 'touch' and k[0]['pagetable_kib'] > 10000, 'oom kills %r' % k)
    e = {x['name']: x for x in task_exits(r)}
    expect(e['touch']['signal'] == 'SIGKILL' and e['hold']['exit_code'] == 0 and e['hello']['exit_code'] == 0,
           'exits %r' % e)


@pytest.mark.quick
def test_overcommit_heuristic_refuses_one_request_larger_than_ram_and_swap(ctx):
    # overcommit_memory 0 (the default, Linux's heuristic): an mmap asking
    # for more than RAM and swap together (64 MiB + 32 MiB) is refused at
    # once with ENOMEM, not granted and then OOM-killed after swap filled;
    # a request that fits is granted.  With 1 the same mmap is granted and
    # the task is OOM-killed when swap fills.  A value out of range is
    # refused by name and the knob keeps its value.
    # sysfuzz areas (overcommit 0): brk up by 1 TiB and a 1 TiB PROT_NONE
    # area made writable are refused; its MAP_NORESERVE areas (64 TiB
    # PROT_NONE, 1 TiB shared) are not charged and work.
    # overcommit_memory 2 (Linux's strict accounting): the commit limit is
    # swap plus overcommit_ratio (50) % of RAM, about 32 + 30 MiB here.
    # hogmem 70, which the heuristic grants, is refused.  hold 40 (shmem)
    # and hogmem 30 start together: whichever maps second is refused (the
    # order is the scheduler's), and hogmem 30 is granted once both have
    # exited (the charges came back, the shmem object's with it).  overcommit_ratio 100
    # grants hogmem 70; overcommit_kbytes 8192 (a limit of 8 + 32 MiB)
    # refuses hogmem 45.  Every boot's mem_balance records check that the
    # committed count is back where it started (rig.check_balance).
    steps = ['hogmem 160 1', 'hogmem 40 1', '@set overcommit_memory 3', 'hogmem 160 1', 'sysfuzz areas',
             '@set overcommit_memory 2', 'hogmem 70 1', 'hold 40 3 shmem & @sleep 1000 & hogmem 30 1', 'hogmem 30 1',
             '@set overcommit_ratio 100', 'hogmem 70 1', '@set overcommit_kbytes 8192', 'hogmem 45 1',
             '@set overcommit_memory 1', 'hogmem 160 1', 'hello after']
    r = ctx.boot('quiet mem=64M run="%s"' % ' ; '.join(steps),
                 disks=[{'file': swap_image(ctx, mib=32), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    e = task_exits(r)
    names = [x['name'] for x in e]
    expect(names[:5] == ['hogmem'] * 3 + ['sysfuzz', 'hogmem'] and sorted(names[5:7]) == ['hogmem', 'hold'] and
           names[7:] == ['hogmem'] * 4 + ['hello'], 'exits %r' % e)
    s = [x for x in r.find('workload') if x['name'] == 'sysfuzz']
    expect(e[3]['exit_code'] == 0 and len(s) == 1 and s[0]['failures'] == 0 and s[0]['shared_1tib'] and
           not s[0]['brk_up_1tib'] and not s[0]['mprotect_1tib'], 'sysfuzz areas under overcommit 0: %r %r' % (e[3], s))
    expect(e[0]['exit_code'] == 3 and e[2]['exit_code'] == 3, 'hogmem 160 under overcommit 0: %r, %r' % (e[0], e[2]))
    expect_in_log(r, 'hogmem: mmap of 160 MiB failed: error 12')
    expect(e[1]['exit_code'] == 0, 'hogmem 40 (fits): %r' % e[1])
    expect_in_log(r, "'@set overcommit_memory 3': overcommit_memory: '3' is not a number in 0..2")
    pair = sorted((x['exit_code'], x['name']) for x in e[5:7])
    expect(pair in ([(0, 'hogmem'), (3, 'hold')], [(0, 'hold'), (3, 'hogmem')]),
           'overcommit 2: hold 40 and hogmem 30 together, one refused: %r' % e[5:7])
    expect_in_log(r, 'hold: mmap of 40 MiB failed (error 12)' if pair[1][1] == 'hold' else
                  'hogmem: mmap of 30 MiB failed: error 12')
    codes = [x['exit_code'] for x in (e[4],) + tuple(e[7:10])]
    expect(codes == [3, 0, 0, 3], 'overcommit 2: hogmem 70, hogmem 30 alone, hogmem 70 at ratio 100, '
           'hogmem 45 at 8192 KiB: exit codes %r (expected 3 0 0 3)' % codes)
    expect_in_log(r, 'hogmem: mmap of 70 MiB failed: error 12')
    expect_in_log(r, 'hogmem: mmap of 45 MiB failed: error 12')
    # The kernel's own line for each refusal (Linux's warning), with the
    # figures it judged by.
    expect(re.search(r'vm: overcommit: hogmem \(tid \d+\): not enough memory for 71680 KiB \(overcommit_memory 2, '
                     r'Committed_AS \d+ KiB, CommitLimit \d+ KiB\)', r.log), 'no refusal line for hogmem 70')
    oom = r.find('oom_kill')
    expect(len(oom) == 1 and oom[0]['name'] == 'hogmem' and e[10]['signal'] == 'SIGKILL',
           'hogmem 160 under overcommit 1: %r, oom %r' % (e[10], oom))
    expect(e[11]['exit_code'] == 0, 'hello after: %r' % e[11])
