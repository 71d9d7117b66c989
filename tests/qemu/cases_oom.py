"""Edge cases that must end cleanly: swap full under random swap-in (an
OOM kill, not a livelock), hangcheck's notion of progress, and swap read
errors under readahead (only the owners of unreadable slots die)."""
from cases import case, expect, expect_ok, expect_in_log, swap_image, task_exits, vm_final, blkdebug_conf

SWAP_FULL_CMD = 'touch 64 20000 random anon ; hello after'


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
    expect('hangcheck: no progress' not in log, 'boot %d: hangcheck saw no progress' % i)
    return (oom[0]['t_ns'] - e[0]['start_ns']) / 1e9


@case
def oom_swap_full_random_5_boots(ctx):
    # 32 MiB of RAM and 8 MiB of swap cannot hold touch's 64 MiB; random
    # swap-in with readahead at swap full used to livelock (4 boots in 5):
    # the fault's page was dropped from the swap cache before the fault
    # could map it, and kswapd kept the reclaim lock.  Five boots in a row
    # must each end in an OOM kill of touch, then run hello.
    times = [swap_full_boot(ctx, i) for i in range(5)]
    print('%s: guest seconds from touch start to the OOM kill: %s' % (ctx.name, ' '.join('%.2f' % t for t in times)))
