"""The page cache's later calls (issue 13, pc13b): O_DIRECT beside the
cache, madvise hints on device mappings, file-LRU aging, /proc listings
and /proc/pressure/memory."""
import subprocess

import pytest

from rig import expect, expect_ok, expect_in_log, scratch_disk
from test_pagecache import filechecks, expect_filechecks_clean, pattern_word, disk_word, step_vmstat, boot_steps_on_data_disk


@pytest.mark.quick
def test_pagecache_direct_io(ctx):
    # dmix: a buffered write left dirty is what an O_DIRECT read sees; an
    # O_DIRECT write is what a buffered read sees afterwards (no stale
    # cached page) and is on the disk (seed 2 = 1 + 1).  dwrite/dverify
    # bypass the cache: the verify reads the disk (pgpgin) although the
    # unit's cache holds nothing.  dmisalign: misaligned offset, buffer
    # and length each give EINVAL; after fcntl(F_SETFL, 0) the same reads
    # go through the cache and succeed, after F_SETFL O_DIRECT fail again.
    # A device not named in data= still refuses an O_DIRECT open for
    # writing (EACCES) and keeps its bytes.
    data = scratch_disk(ctx, 'data.img', 32 << 20)
    other = scratch_disk(ctx, 'other.img', 8 << 20)
    with open(other, 'r+b') as f:
        f.write(b'keep me' * 1000)
    with open(other, 'rb') as f:
        before = f.read()
    steps = ['filecheck /dev/nvme1n1 16 dmix 1', 'filecheck /dev/nvme1n1 8 dwrite 5 ; filecheck /dev/nvme1n1 8 dverify 5',
             'filecheck /dev/nvme1n1 1 dmisalign', 'filecheck /dev/nvme2n1 1 dwrite 3']
    r = ctx.boot('quiet mem=96M data=/dev/nvme1n1 run="%s"' % ' ; '.join(steps),
                 disks=[{'file': data, 'bus': 'nvme'}, {'file': other, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    w = filechecks(r)
    expect(len(w) == 5, 'filecheck records %d' % len(w))
    for x in w[:4]:
        expect(x['failed'] == '' and x['mismatches'] == 0, 'filecheck %s: %r' % (x['mode'], x))
    expect(w[4]['failed'] == 'open_rw' and w[4]['errno'] == 13, 'O_DIRECT write open of nvme2n1: %r' % w[4])
    expect_in_log(r, 'file: /dev/nvme2n1 (nvme2n1): not writable: not named in data= or a data statement')
    with open(other, 'rb') as f:
        expect(f.read() == before, 'nvme2n1 was written')
    with open(data, 'rb') as f:
        head = int.from_bytes(f.read(8), 'little')
        f.seek((8 << 20) - 8)
        tail = int.from_bytes(f.read(8), 'little')
        f.seek(12 << 20)
        mixed = int.from_bytes(f.read(8), 'little')
    # dwrite 5 ran after dmix and rewrote the first 8 MiB; dmix's O_DIRECT
    # write of seed 2 is what the rest holds.
    expect(head == pattern_word(5, 0) and tail == pattern_word(5, (8 << 20) - 8), 'dwrite did not reach the disk')
    expect(mixed == pattern_word(2, 12 << 20), 'dmix\'s direct write did not reach the disk')
    nr = [x for x in r.find('vmstat') if x.get('label') == 'filecheck /dev/nvme1n1 8 dverify 5']
    expect(nr and nr[0]['pgpgin'] >= 8 << 10, 'dverify read %r KiB from the disk, want 8 MiB' %
           (nr[0]['pgpgin'] if nr else None))
    # Direct I/O counts in pgpgin/pgpgout as on Linux (submit_bio counts
    # every bio), and leaves no page cached.
    nw = [x for x in r.find('vmstat') if x.get('label') == 'filecheck /dev/nvme1n1 8 dwrite 5']
    expect(nw and nw[0]['pgpgout'] >= 8 << 10, 'dwrite wrote %r KiB' % (nw[0]['pgpgout'] if nw else None))


@pytest.mark.quick
def test_pagecache_madvise_on_device_mappings(ctx):
    # A 4 MiB device mapping read one word per 16 pages (64 touches), the
    # cache dropped before each run.  NORMAL reads 32 pages around each
    # miss; RANDOM only the page (a sixteenth of the bytes); SEQUENTIAL
    # 32 pages forward, so every other touch finds its page cached;
    # WILLNEED reads the start of the range ahead (Linux's cap: max(the
    # device's largest request, 32 pages)), whose touches fault minor.  PAGEOUT between two passes drops the
    # pages: the second pass faults them in again.
    modes = ('mnormal', 'mrandom', 'msequential', 'mwillneed', 'mpageout')
    steps = ['filecheck /dev/nvme1n1 4 write 5'] + ['filecheck /dev/nvme1n1 4 %s 5' % m for m in modes]
    r, _ = boot_steps_on_data_disk(ctx, steps, 16)
    w = {x['mode']: x for x in expect_filechecks_clean(r, 6)}
    v = step_vmstat(r, steps)
    pin = {m: v[s]['pgpgin'] for m, s in zip(modes, steps[1:])}
    maj = {m: w[m]['majflt'] for m in modes}
    expect(maj['mnormal'] >= 60, 'NORMAL: %d major faults, want one per touch (read-around wastes half)' % maj['mnormal'])
    expect(pin['mrandom'] == 256 and maj['mrandom'] == 64,
           'RANDOM: %d KiB read in %d major faults, want 256 in 64' % (pin['mrandom'], maj['mrandom']))
    expect(pin['mrandom'] * 8 <= pin['mnormal'], 'RANDOM read %d KiB, NORMAL %d' % (pin['mrandom'], pin['mnormal']))
    expect(maj['msequential'] <= 33, 'SEQUENTIAL: %d major faults, want every other touch minor' % maj['msequential'])
    expect(maj['mwillneed'] <= 62 and maj['mwillneed'] < maj['mnormal'],
           'WILLNEED: %d major faults (NORMAL %d), want the first touches minor' % (maj['mwillneed'], maj['mnormal']))
    # PAGEOUT between two passes: the clean pages go, the second pass
    # reads them again.
    expect(maj['mpageout'] >= 2 * maj['mnormal'] - 2,
           'PAGEOUT: %d major faults over two passes (one NORMAL pass: %d)' % (maj['mpageout'], maj['mnormal']))


@pytest.mark.quick
def test_pagecache_fsync_writes_each_commit(ctx):
    # filecheck's commits: 16 MiB written and fsynced (clean in the
    # cache), then 128 times one page rewritten and fsynced.  Write-back
    # walks the index's dirty tags, not the cached pages: each fsync must
    # still find its page (at least 16 MiB + 128 pages written in the
    # step), and the device must hold every word after the drop.
    steps = ['filecheck /dev/nvme1n1 16 commits 3', 'filecheck /dev/nvme1n1 16 verify 3']
    r, _ = boot_steps_on_data_disk(ctx, steps, 32)
    w = expect_filechecks_clean(r, 2)
    expect(w[0]['mode'] == 'commits' and w[0].get('commits') == 128, 'commits record: %r' % w[0])
    v = step_vmstat(r, steps)
    out = v[steps[0]]['pgpgout']
    expect(out >= (16 << 10) + 128 * 4, 'commits wrote %d KiB: each of the 128 fsyncs a page after 16 MiB' % out)
    expect(v[steps[1]]['pgpgin'] >= 16 << 10, 'verify read %d KiB: not from the disk' % v[steps[1]]['pgpgin'])


def test_pagecache_commits_beside_a_writer_on_another_partition(ctx):
    # A writer on one partition keeps the disk's write-back busy for 16 s
    # (at the ssd profile's 50 MB/s it never catches up); beside it,
    # filecheck writes 8 MiB to another partition of the same disk,
    # fsyncs them, makes 128 one-page commits (pwrite + fsync) and reads
    # everything back.  Two things let it finish early:
    # - fsync waits for the write-back of its own range (Linux's
    #   filemap_fdatawait_range).  Before, it waited until no page of the
    #   disk was under write-back, which a writer that never lets up
    #   never allows: the first fsync lasted the stream's whole life.
    # - the flusher keeps at most 4 batches of a disk in flight, so a
    #   commit queues behind 1 MiB of background write-back, not behind
    #   everything dirty (the 128 commits took 20.4 s, 1.99 s after).
    # Judged by order, not time: filecheck needs about 3 s of the 16.
    img = scratch_disk(ctx, 'gpt.img', 256 << 20)
    subprocess.run(['sgdisk', '-n', '1:2048:+64M', '-n', '2:0:0', img], check=True, capture_output=True)
    r = ctx.boot('quiet mem=64M data=nvme1n1p1,nvme1n1p2 run="stream /dev/nvme1n1p2 128 write 0 16 & '
                 'filecheck /dev/nvme1n1p1 8 commits 1"',
                 disks=[{'file': img, 'bus': 'nvme',
                         'opts': ',throttling.iops-total=700,throttling.bps-total=52428800'}], timeout=300)
    expect_ok(r)
    w = expect_filechecks_clean(r, 1)[0]
    expect(w.get('commits') == 128, 'commits record: %r' % w)
    s = [x for x in r.find('workload') if x['name'] == 'stream']
    expect(len(s) == 1 and s[0]['mismatches'] == 0 and s[0]['bytes_written'] > 0, 'stream record: %r' % s)
    ends = {t['name']: t['start_ns'] + t['elapsed_ns'] for t in r.find('task_exit')}
    expect(ends['filecheck'] < ends['stream'],
           'filecheck ended %.1f s after the stream it ran beside: its first fsync took %.1f s, its 128 commits '
           '%.1f s (the slowest %.0f ms)' % ((ends['filecheck'] - ends['stream']) / 1e9, w['fill_fsync_ns'] / 1e9,
                                             w['fsync_ns'] / 1e9, w['commit_max_ns'] / 1e6))


@pytest.mark.quick
def test_pagecache_sync_and_syncfs_write_everything_back(ctx):
    # 8 MiB written with write(2) stay dirty (under the background limit
    # of a 96 MiB machine, short of the 30 s expiry) until sync(2) or
    # syncfs(2) writes them back: right after the call, /proc/meminfo's
    # Dirty + Writeback is 0.  Before, both were -ENOSYS (busybox sync
    # printed nothing and synced nothing).  The disk holds the words.
    steps = ['filecheck /dev/nvme1n1 8 writesync 3', 'filecheck /dev/nvme1n1 8 writesyncfs 4',
             'filecheck /dev/nvme1n1 8 writenf 5']
    r, data = boot_steps_on_data_disk(ctx, steps, 16)
    w = expect_filechecks_clean(r, 3)
    for x in w[:2]:
        expect(x.get('unwritten_kib') == 0, '%s left %r KiB dirty or under write-back' % (x['mode'], x.get('unwritten_kib')))
    # The control: without a sync, the pages are still dirty at that point.
    expect(w[2].get('unwritten_kib', 0) >= 4 << 10, 'writenf left only %r KiB unwritten: the check cannot tell'
           % w[2].get('unwritten_kib'))
    expect(disk_word(data, 7 << 20) == pattern_word(5, 7 << 20), 'the last step\'s words are not on the disk')


def test_pagecache_background_writeback_stops_under_the_limit(ctx):
    # 80 MiB left dirty by write(2) on a 512 MiB machine: over the
    # background limit (10% of about 500 MiB), under dirty_ratio (20%).
    # The flusher writes until the dirty pages are under the background
    # limit again, 4 MiB at a time (Linux's background write-back), and
    # leaves the rest for the expiry (30 s, after the step): 32 MiB
    # written.  Before, each pass wrote every page dirty when it came by,
    # as far as the writer had got (51648 and 53232 KiB in two boots).
    # The runner's drop before the verify writes the rest, and the verify
    # reads every word back.
    steps = ['filecheck /dev/nvme1n1 80 writenf 1 6', 'filecheck /dev/nvme1n1 80 verify 1']
    r, _ = boot_steps_on_data_disk(ctx, steps, 96, 'mem=512M', mem='768M', timeout=600)
    expect_filechecks_clean(r, 2)
    v = step_vmstat(r, steps)
    w = v[steps[0]]
    expect(w['pgpgout'] >= 16 << 10, 'the flusher wrote %d KiB of 80 MiB over the background limit' % w['pgpgout'])
    expect(w['pgpgout'] <= 48 << 10, 'the flusher wrote %d KiB of 80 MiB: past the background limit (about %d '
           'pages)' % (w['pgpgout'], w['free_before_pages'] // 10))
    expect(w['nr_dirty'] * 4 >= 32 << 10, '%d pages dirty at the end of the step: the flusher wrote under the '
           'background limit' % w['nr_dirty'])


def test_pagecache_sequential_readers_keep_ahead_on_two_cpus(ctx):
    # A sequential pass over a mapped device larger than memory, and a
    # mapped stream, on 2 CPUs.  When free memory is at the low watermark
    # the stream's next window takes its first pages with reclaim, and a
    # window cut short passes its marker to its last page: before, on two
    # CPUs (where kswapd runs beside the reader), 283 and 289 major faults
    # for the pass in two boots and 192 for the stream; then 5 and 2.
    # A window also ends at its first page refused, and a miss's
    # read-around takes the pages ahead of it as a stream's: before, with
    # a busy loop on the host, 3-244 major faults for the pass (4 of 20
    # boots over 50, CI 101 and 194) and 1-24 for the stream, each a hole
    # left where kswapd on the other CPU had not yet freed a page; now 3
    # (one per pass start) and 1 in 23 of 24 boots.
    steps = ['touch 72 40000 seq file:/dev/nvme1n1 1', 'stream /dev/nvme1n1 72 mmap-read']
    r, _ = boot_steps_on_data_disk(ctx, steps, 80, 'mem=48M cpus=2', smp=2, timeout=600)
    t = [x for x in r.find('workload') if x['name'] == 'touch']
    expect(len(t) == 1 and t[0]['mismatches'] == 0, 'touch records: %r' % t)
    v = step_vmstat(r, steps)
    expect(v[steps[0]]['pgmajfault'] <= 12, 'seq: %d major faults for 40000 touches' % v[steps[0]]['pgmajfault'])
    expect(v[steps[1]]['pgmajfault'] <= 6, 'mmap-read: %d major faults' % v[steps[1]]['pgmajfault'])


def test_pagecache_mmap_read_around_stops_on_random_misses(ctx):
    # touch on a shared mapping of 72 MiB of the device with 48 MiB of
    # RAM.  At random, misses soon outnumber hits by Linux's 100
    # (mmap_miss) and each miss reads its page only: before, every miss
    # read 32 pages around it, about 20 pages per major fault (1 GB read
    # for 30000 touches).  A sequential pass keeps its read-around (the
    # bound fails without it: a major fault per page).  Its misses where
    # memory cut a window short count as the window's, not as misses:
    # counted, they switched read-around off for good in one boot of five
    # (28956 major faults for 40000 touches instead of 300 to 1900, under
    # -icount), too rare to provoke here; the unit test checks the rule.
    # When memory is at the low watermark, the stream's next window lets
    # kswapd run before it is trimmed: without that, 447 and 577 major
    # faults in two boots here (each a window cut short), with it 4 and 17
    # (Linux 6.1 at equal free memory: 17).
    # Every touch after a page's first verifies it (touch's file: mapping).
    # The first random pass runs with dirty_mmap off: its writes stay
    # dirty in the PTEs until reclaim or the drop finds them, so the drop
    # has about 10000 pages to write (see below); the second with it on.
    steps = ['@set dirty_mmap off', 'touch 72 30000 random file:/dev/nvme1n1 1', '@set dirty_mmap on',
             'touch 72 30000 random file:/dev/nvme1n1 2', 'touch 72 40000 seq file:/dev/nvme1n1 1']
    r, _ = boot_steps_on_data_disk(ctx, steps, 80, 'mem=48M', timeout=600)
    t = [x for x in r.find('workload') if x['name'] == 'touch']
    expect([x['pattern'] for x in t] == ['random', 'random', 'seq'], 'touch records: %r' % [x['pattern'] for x in t])
    for x in t:
        expect(x['mapping'] == 'file' and x['mismatches'] == 0, 'touch %s: %r' % (x['pattern'], x))
    v = step_vmstat(r, steps)
    off, on, seq = v[steps[1]], v[steps[3]], v[steps[4]]
    for rnd in off, on:
        expect(rnd['pgmajfault'] > 5000, 'random: %d major faults' % rnd['pgmajfault'])
        expect(rnd['pgpgin'] // 4 <= 2 * rnd['pgmajfault'], 'random: %d pages read in %d major faults, want at most 2 a '
               'fault' % (rnd['pgpgin'] // 4, rnd['pgmajfault']))
    expect(seq['pgmajfault'] <= 100, 'seq: %d major faults for 40000 touches' % seq['pgmajfault'])
    # The runner drops the caches before each step: it writes back what
    # the last step left dirty and drops what is clean.  Write-back under
    # pressure used to give up when its request structures ran out (1934
    # of about 10000 pages still dirty at the drop after the off pass);
    # it now waits for writes in flight to give them back.  The record
    # says what was free and dirty then (tools/linux-peer's "free before
    # step").
    expect(off['nr_dirty'] > 5000, 'random (dirty_mmap off) left %d dirty pages: nothing for the drop to write'
           % off['nr_dirty'])
    for before, after in (off, on), (on, seq):
        expect(after['dirty_before_pages'] == 0, 'the drop before %s left %d pages dirty or under write-back'
               % (after['label'], after['dirty_before_pages']))
        expect(after['free_before_pages'] > before['nr_free_pages'] + before['nr_dirty'] // 2,
               'free before %s %d pages, the step before ended with %d free and %d dirty: its cache was not dropped'
               % (after['label'], after['free_before_pages'], before['nr_free_pages'], before['nr_dirty']))
    # dirty_mmap on: a write fault marks the page dirty and the writer is
    # held to dirty_ratio (20% of free plus cache); off, the dirty pages
    # go unseen until reclaim finds them (10107 of 11353 in a boot).
    expect(on['nr_dirty'] <= on['free_before_pages'] // 5,
           'random (dirty_mmap on) ended with %d dirty pages, over 20%% of %d' % (on['nr_dirty'], on['free_before_pages']))


@pytest.mark.quick
def test_procfs_listings_and_pressure(ctx):
    # busybox ls on the folders open() reaches (getdents64), and
    # /proc/pressure/memory after a task pushed 72 MiB through 48 MiB of
    # RAM with swap: it stalled for memory (reclaimed itself, or waited
    # for kswapd's round: both are memstalls), so "some" has a total.
    import re
    from rig import swap_image, vm_final
    from test_procfs import BUSYBOX, outputs, enosys_lines
    img = ctx.make_image(files=[BUSYBOX + ':bin/busybox', ctx.build + '/workloads/touch:bin/touch'])
    cmds = ['busybox cat /proc/pressure/memory', 'touch 72 30000 random anon', 'busybox ls /proc', 'busybox ls /dev',
            'busybox ls /proc/self', 'busybox ls /proc/pressure', 'busybox ls /', 'busybox ls /bin',
            'busybox cat /proc/pressure/memory']
    r = ctx.boot('quiet mem=48M swap=nvme1n1 run="%s"' % ' ; '.join(cmds), image=img,
                 disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=400)
    expect_ok(r)
    out = outputs(r)
    expect(not [l for l in enosys_lines(r) if 'getdents' in l], 'getdents64 unknown: %r' % enosys_lines(r))
    proc = out['busybox ls /proc']
    for name in ('meminfo', 'vmstat', 'swaps', 'pressure', 'self'):
        expect(name in proc, 'ls /proc lacks %s: %r' % (name, proc))
    expect(any(re.match(r'^\d+$', l) for l in proc), 'ls /proc lacks the reader\'s pid: %r' % proc)
    expect(out['busybox ls /dev'] == ['null', 'nvme0n1', 'nvme0n1p1', 'nvme1n1', 'zero'], 'ls /dev: %r' % out['busybox ls /dev'])
    expect(out['busybox ls /proc/self'] == ['exe', 'stat', 'status'], 'ls /proc/self: %r' % out['busybox ls /proc/self'])
    expect(out['busybox ls /proc/pressure'] == ['memory'], 'ls /proc/pressure: %r' % out['busybox ls /proc/pressure'])
    expect(out['busybox ls /'] == ['bin', 'dev', 'proc'], 'ls /: %r' % out['busybox ls /'])
    expect(out['busybox ls /bin'] == ['busybox', 'touch'], 'ls /bin: %r' % out['busybox ls /bin'])
    pat = re.compile(r'^(some|full) avg10=(\d+\.\d\d) avg60=(\d+\.\d\d) avg300=(\d+\.\d\d) total=(\d+)$')
    def psi(lines):
        expect(len(lines) == 2 and all(pat.match(l) for l in lines), 'pressure not Linux-shaped: %r' % lines)
        return {pat.match(l).group(1): pat.match(l).groups()[1:] for l in lines}
    # The two cats have one command line (outputs() keeps the last): the
    # console's pressure lines in order instead.
    lines = [l for l in r.log.splitlines() if pat.match(l)]
    expect(len(lines) == 4, 'pressure lines %r' % lines)
    before, after = psi(lines[:2]), psi(lines[2:])
    v = vm_final(r)
    stalls = v['allocstall'] + v['reclaim_kswapd_waited']
    expect(stalls > 0, 'no stall for memory: the case measures nothing')
    expect(int(before['some'][3]) == 0, 'stall before any pressure: %r' % before)
    expect(int(after['some'][3]) > 0, '%d stalls for memory (%d direct reclaims) left no "some" time: %r'
           % (stalls, v['allocstall'], after))
    expect(int(after['full'][3]) <= int(after['some'][3]), '"full" beyond "some": %r' % after)


def test_pagecache_active_file_aging(ctx):
    # A 24 MiB device mapping read through 8 times, each pass followed by
    # 12 MiB of buffered reads of the rest of the device, on 48 MiB of
    # RAM without swap: the mapped pages are active, more than the
    # inactive file pages beside them, so reclaim ages the active file
    # list (with 16 MiB mapped it never did: the inactive list was long
    # enough).  Linux 6.1's rule: a referenced page goes
    # inactive anyway (pgdeactivate) unless it is mapped executable
    # (mhotx: it rotates, pgrotated here).
    steps = ['filecheck /dev/nvme1n1 24 write 8', 'filecheck /dev/nvme1n1 24 mhot 8', 'filecheck /dev/nvme1n1 24 mhotx 8']
    r, _ = boot_steps_on_data_disk(ctx, steps, 128, 'mem=48M swap=none', timeout=900)
    expect_filechecks_clean(r, 3)
    v = step_vmstat(r, steps)
    hot, hotx = v[steps[1]], v[steps[2]]
    expect(hot['pgrefill'] > 1000 and hotx['pgrefill'] > 1000,
           'active lists hardly aged: pgrefill %d, %d' % (hot['pgrefill'], hotx['pgrefill']))
    expect(hot['pgdeactivate'] > 4 * hot['pgrotated'],
           'mapped, referenced, not executable: pgdeactivate %d, pgrotated %d' % (hot['pgdeactivate'], hot['pgrotated']))
    expect(hotx['pgrotated'] > 4 * hotx['pgdeactivate'],
           'mapped executable: pgrotated %d, pgdeactivate %d' % (hotx['pgrotated'], hotx['pgdeactivate']))


def test_pagecache_madvise_dontneed_keeps_shared_writes(ctx):
    # mmapdn: 8 MiB written through a MAP_SHARED device mapping, then
    # MADV_DONTNEED of it: the PTEs go, their dirty bits reach the cache
    # pages first, so the mapping reads every word back, and the fsync
    # after munmap puts them on the disk (the next run, with the cache
    # dropped, reads them from there).
    data = scratch_disk(ctx, 'data.img', 32 << 20)
    r = ctx.boot('quiet mem=96M data=nvme1n1 run="filecheck /dev/nvme1n1 8 mmapdn 17 ; '
                 'filecheck /dev/nvme1n1 8 verify 17"', disks=[{'file': data, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect_filechecks_clean(r, 2)
    with open(data, 'rb') as f:
        f.seek((8 << 20) - 8)
        expect(int.from_bytes(f.read(8), 'little') == pattern_word(17, (8 << 20) - 8), 'the last word is not on the disk')


@pytest.mark.parametrize('cpus', [1, 2])
def test_file_position_shared_by_threads(ctx, cpus):
    # Four threads read one descriptor 4 KiB at a time (filecheck
    # sharedpos): each block must arrive exactly once, so the read and the
    # position update are one step (the per-file position lock).  The
    # cache is dropped first, so reads sleep in I/O and race even on one CPU.
    data = scratch_disk(ctx, 'data.img', 16 << 20)       # the whole device: the threads read to its end
    r = ctx.boot('quiet mem=96M data=/dev/nvme1n1 run="filecheck /dev/nvme1n1 16 sharedpos 5"',
                 disks=[{'file': data, 'bus': 'nvme'}], smp=cpus, timeout=300)
    expect_ok(r)
    w = [x for x in r.find('workload') if x['name'] == 'filecheck']
    expect(len(w) == 1 and w[0]['failed'] == '', 'filecheck %r' % w)
    expect(w[0]['pos_dups'] == 0 and w[0]['pos_missing'] == 0 and w[0]['mismatches'] == 0,
           'blocks read twice %d, never %d, mismatches %d' % (w[0]['pos_dups'], w[0]['pos_missing'], w[0]['mismatches']))


@pytest.mark.quick
def test_pagecache_read_stream_keeps_the_next_window_in_flight(ctx):
    # read(2) of 256 KiB at a time over a device: each read starts a
    # window of 32 pages whose marker is its first page (Linux's initial
    # window), so the next window must go out while the reader copies
    # this one.  Before, a window was read only when the reader missed
    # it: one request in flight at a time (max_inflight 1 in 6 boots),
    # and under -icount the pass took twice as long (8.3-9.0 s against
    # 3.5-5.9 s of guest time, 3 boots each).
    steps = ['stream /dev/nvme1n1 72 read']
    r, _ = boot_steps_on_data_disk(ctx, steps, 80)
    w = [x for x in r.find('workload') if x['name'] == 'stream']
    expect(len(w) == 1 and w[0]['bytes_read'] == 72 << 20, 'stream records: %r' % w)
    b = [x for x in r.find('blk') if x['name'] == 'nvme1n1']
    expect(b, 'no blk record for nvme1n1')
    expect(b[-1]['max_inflight'] >= 2, 'read(2) stream: %d request(s) in flight at most, want the next window beside '
           'the one being read' % b[-1]['max_inflight'])
    # One request per window of 128 KiB, not one per page.
    expect(b[-1]['reads'] <= 600, 'read(2) stream: %d read requests for 72 MiB' % b[-1]['reads'])


def test_pagecache_write_copies_from_a_source_that_goes_meanwhile(ctx):
    # write(2) copies from the caller's buffer straight into the locked
    # cache page with faults off, after faulting the buffer in (before,
    # every byte went through a bounce page).  A second thread drops the
    # buffer's page-table entries over and over (MADV_DONTNEED; the
    # pages stay in their shared object), so some copies come up short
    # after the fault-in: into a new page (dropped, then copied again)
    # and into a cached one (what was copied counts, the rest follows).
    # Every word must reach the disk: a short copy counted whole left
    # 467 words of the first pattern in a trial.
    data = scratch_disk(ctx, 'data.img', 32 << 20)
    r = ctx.boot('quiet mem=64M data=nvme1n1 run="filecheck /dev/nvme1n1 8 wrace 3"',
                 disks=[{'file': data, 'bus': 'nvme'}], smp=2, timeout=600)
    expect_ok(r)
    w = filechecks(r)
    expect(len(w) == 1 and w[0]['failed'] == '' and w[0]['mismatches'] == 0, 'wrace: %r' % w)
    expect(w[0]['race_drops'] > 100, 'the dropping thread hardly ran: %r' % w[0])
    expect(disk_word(data, 7 << 20) == pattern_word(3, 7 << 20), '7 MiB in did not reach the disk')
