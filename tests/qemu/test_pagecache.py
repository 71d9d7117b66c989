"""The page cache and block devices as files (issue 13): buffered writes
read back across drop_caches and across reclaim, write safety (data=, the
ESP, devices not named), write errors reported at fsync."""
import hashlib
import subprocess

import pytest

from rig import expect, expect_ok, expect_in_log, task_exits, scratch_disk, vm_final, blkdebug_conf


def sha(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def filechecks(r):
    return [w for w in r.find('workload') if w['name'] == 'filecheck']


def expect_filechecks_clean(r, n):
    w = filechecks(r)
    expect(len(w) == n, 'expected %d filecheck records, got %d' % (n, len(w)))
    for x in w:
        expect(x['mismatches'] == 0 and x['failed'] == '', 'filecheck %s: %r' % (x['mode'], x))
    return w


def boot_steps_on_data_disk(ctx, steps, disk_mib, opts='mem=96M', timeout=300, **kw):
    """Boot with a fresh disk of disk_mib MiB as nvme1n1, named in data=,
    and run steps one after another (opts: the rest of the command line);
    expects a clean halt.  Returns the result and the disk image's path."""
    data = scratch_disk(ctx, 'data.img', disk_mib << 20)
    r = ctx.boot('quiet %s data=nvme1n1 run="%s"' % (opts, ' ; '.join(steps)),
                 disks=[{'file': data, 'bus': 'nvme'}], timeout=timeout, **kw)
    expect_ok(r)
    return r, data


def step_vmstat(r, steps):
    """The runner's vmstat record of each step, by its label."""
    v = {x['label']: x for x in r.find('vmstat') if x.get('label') in steps}
    expect(len(v) == len(steps), 'vmstat records of the steps: %r' % list(v))
    return v


def pattern_word(seed, off):
    """filecheck's pattern: mix64(seed + 0x13) ^ off (rt_rand.c's mix64)."""
    m = (1 << 64) - 1
    z = (seed + 0x13 + 0x9e3779b97f4a7c15) & m
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m
    return (z ^ (z >> 31)) ^ off


def disk_word(path, off):
    """The 64-bit little-endian word at byte off of a disk image."""
    with open(path, 'rb') as f:
        f.seek(off)
        return int.from_bytes(f.read(8), 'little')


@pytest.mark.quick
def test_pagecache_write_then_read_back_across_drop_caches(ctx):
    # Two runs: the cache is dropped (written back, then emptied) before
    # each run, so the second reads what the first left on the disk.
    data = scratch_disk(ctx, 'data.img', 64 << 20)
    r = ctx.boot('quiet mem=96M data=/dev/nvme1n1 run="filecheck /dev/nvme1n1 16 both 7 ; '
                 'filecheck /dev/nvme1n1 16 verify 7"', disks=[{'file': data, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    w = expect_filechecks_clean(r, 2)
    expect(w[0]['dev_bytes'] == 64 << 20, 'BLKGETSIZE64 gave %d' % w[0]['dev_bytes'])
    v = vm_final(r)
    expect(v['pgpgout'] >= 16 << 10, 'pgpgout %d KiB, the 16 MiB written not counted' % v['pgpgout'])
    # The first verify reads what its own writes left cached; the second,
    # after the drop, reads the disk.
    expect(16 << 10 <= v['pgpgin'] < 2 * (16 << 10), 'pgpgin %d KiB: want one 16 MiB read from disk' % v['pgpgin'])
    # The host sees the pattern where it was written.
    with open(data, 'rb') as f:
        head = f.read(16)
        f.seek((16 << 20) - 8)
        tail = f.read(8)
    expect(int.from_bytes(head[:8], 'little') == pattern_word(7, 0) and
           int.from_bytes(head[8:], 'little') == pattern_word(7, 8) and
           int.from_bytes(tail, 'little') == pattern_word(7, (16 << 20) - 8),
           'disk image does not hold the pattern')


def test_pagecache_write_read_back_across_reclaim(ctx):
    # 96 MiB through the cache with 48 MiB of RAM and no swap: the dirty
    # limit throttles the writer, reclaim drops written pages, and the
    # read-back comes from the disk.
    data = scratch_disk(ctx, 'data.img', 128 << 20)
    r = ctx.boot('quiet mem=48M swap=none data=/dev/nvme1n1 run="filecheck /dev/nvme1n1 96 both 3"',
                 disks=[{'file': data, 'bus': 'nvme'}], timeout=600)
    expect_ok(r)
    expect_filechecks_clean(r, 1)
    v = vm_final(r)
    expect(v['pgsteal_file'] > 1000, 'file pages not reclaimed: pgsteal_file %d' % v['pgsteal_file'])
    expect(v['pgscan_file'] >= v['pgsteal_file'], 'pgscan_file %d < pgsteal_file %d' % (v['pgscan_file'], v['pgsteal_file']))
    expect(v['pgpgin'] >= 48 << 10, 'pgpgin %d KiB: the read-back did not come from the disk' % v['pgpgin'])
    expect(v['oom_kill'] == 0, 'OOM kill with only clean/dirty file pages to reclaim')
    expect(v['nr_dirty'] == 0 and v['nr_writeback'] == 0, 'dirty pages left: %r' % v)


@pytest.mark.uefi    # the ESP refusal needs the boot partition the loader names
def test_pagecache_write_safety(ctx):
    # Three data disks: nvme1n1 named in data=, nvme2n1 not, nvme3n1 an
    # active swap area named in data= too; and the ESP named.  Only
    # nvme1n1 may be written: the others refuse the open (EACCES, a line
    # naming the device) and are byte-identical afterwards.
    named = scratch_disk(ctx, 'named.img', 32 << 20)
    other = scratch_disk(ctx, 'other.img', 32 << 20)
    with open(other, 'r+b') as f:
        f.write(b'keep me' * 1000)
    swap = ctx.path('swap.img')
    with open(swap, 'wb') as f:
        f.truncate(32 << 20)
    subprocess.run(['mkswap', swap], check=True, capture_output=True)
    before = {p: sha(p) for p in (other, swap)}
    r = ctx.boot('quiet mem=64M swap=nvme3n1 data=/dev/nvme1n1,nvme3n1,nvme0n1p1,/dev/nvme9n1 '
                 'run="filecheck /dev/nvme1n1 4 both ; filecheck /dev/nvme2n1 1 openw ; '
                 'filecheck /dev/nvme3n1 1 openw ; filecheck /dev/nvme0n1p1 1 openw ; '
                 'filecheck /dev/nvme2n1 1 verify"',
                 disks=[{'file': named, 'bus': 'nvme'}, {'file': other, 'bus': 'nvme'}, {'file': swap, 'bus': 'nvme'}],
                 timeout=300)
    expect_ok(r)
    expect_in_log(r, 'data: nvme3n1: not writable: an active swap area')
    expect_in_log(r, 'data: nvme0n1p1: not writable: the boot partition (ESP) is never written')
    expect_in_log(r, 'data: /dev/nvme9n1: no such block device; ignored')
    w = filechecks(r)
    expect(len(w) == 5, 'filecheck records %d' % len(w))
    expect(w[0]['failed'] == '' and w[0]['mismatches'] == 0, 'named disk: %r' % w[0])
    for x, dev in zip(w[1:4], ('nvme2n1', 'nvme3n1', 'nvme0n1p1')):
        expect(x['failed'] == 'open_rw' and x['errno'] == 13, '%s open for writing: %r' % (dev, x))
        expect_in_log(r, 'file: /dev/%s (%s): not writable: not named in data= or a data statement' % (dev, dev))
    # Read-only opens still work (and find the host's bytes, not the pattern).
    expect(w[4]['failed'] == '' and w[4]['mismatches'] > 0, 'read-only verify of nvme2n1: %r' % w[4])
    for p, h in before.items():
        expect(sha(p) == h, '%s was written' % p)
    esp = [b for b in r.find('blk') if b['name'] == 'nvme0n1p1']
    expect(esp and esp[0]['writes'] == 0, 'the ESP was written: %r' % esp)


def test_pagecache_fsync_reports_write_error(ctx):
    # Writes to sector 2048 (1 MiB in) fail: fsync returns EIO (and
    # syncfs, second run, as Linux's since 5.8: it returned 0; msync
    # MS_SYNC for a shared mapping's pages, third); the rest of the data
    # still reaches the disk.
    data = scratch_disk(ctx, 'data.img', 32 << 20)
    conf = blkdebug_conf(ctx, 'badwrite', 'write', [2048])
    r = ctx.boot('quiet mem=64M data=nvme1n1 run="filecheck /dev/nvme1n1 4 write 5 ; filecheck /dev/nvme1n1 4 writesyncfs 5 ; '
                 'filecheck /dev/nvme1n1 2 mmap 6"',
                 disks=[{'file': 'blkdebug:%s:%s' % (conf, data), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    w = filechecks(r)
    expect(len(w) == 3 and w[0]['failed'] == 'fsync' and w[0]['errno'] == 5, 'fsync after a failed write: %r' % w)
    expect(w[1]['failed'] == 'syncfs' and w[1]['errno'] == 5, 'syncfs after a failed write: %r' % w[1])
    expect(w[2]['failed'] == 'msync' and w[2]['errno'] == 5, 'msync after a failed write: %r' % w[2])
    e = task_exits(r)
    expect(e and e[0]['exit_code'] == 3, 'filecheck exit %r' % e)
    with open(data, 'rb') as f:
        f.seek(3 << 20)
        word = int.from_bytes(f.read(8), 'little')
    expect(word == pattern_word(5, 3 << 20), 'data beyond the bad sector did not reach the disk')
    with open(data, 'rb') as f:
        word = int.from_bytes(f.read(8), 'little')
    expect(word == pattern_word(6, 0), 'the mapping\'s first page did not reach the disk')


def test_pagecache_write_error_reaches_only_the_partition_it_hit(ctx):
    # Partitions share their disk's cache, but an error belongs to the
    # bytes it failed to write: a write to p2's first sectors fails
    # (p2's fsync: EIO) while p1's filecheck, started beside it, fsyncs
    # 8 MiB and makes 128 commits; none of p1's fsyncs may report p2's
    # error.  Before, every open file of the disk got EIO from its next
    # fsync (Linux keeps the error per block device, partitions apart).
    img = scratch_disk(ctx, 'gpt.img', 64 << 20)
    subprocess.run(['sgdisk', '-n', '1:2048:+16M', '-n', '2:0:0', img], check=True, capture_output=True)
    p2 = 2048 + (16 << 11)
    conf = blkdebug_conf(ctx, 'badwrite', 'write', [p2 + 64])
    r = ctx.boot('quiet mem=64M data=nvme1n1p1,nvme1n1p2 run="filecheck /dev/nvme1n1p1 8 commits 1 & '
                 'filecheck /dev/nvme1n1p2 1 write 5"',
                 disks=[{'file': 'blkdebug:%s:%s' % (conf, img), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    w = {x['dev']: x for x in filechecks(r)}
    expect(w['/dev/nvme1n1p2']['failed'] == 'fsync' and w['/dev/nvme1n1p2']['errno'] == 5,
           'p2 after its failed write: %r' % w['/dev/nvme1n1p2'])
    expect(w['/dev/nvme1n1p1']['failed'] == '' and w['/dev/nvme1n1p1'].get('commits') == 128,
           'p1 got the error of a write to p2: %r' % w['/dev/nvme1n1p1'])
    expect(disk_word(img, 2048 * 512 + (5 << 20)) == pattern_word(1, 5 << 20), 'p1 5 MiB in did not reach the disk')


def test_pagecache_disk_and_its_partition_named_write_each_block_once(ctx):
    # data= names the disk and one of its partitions: a page of the
    # partition may go to the disk through either, but must go once.
    # Before, each batch went to every writer that overlapped it: 8 MiB
    # written through p1 sent 16 MiB to the disk (and a bulk writer beside
    # commits ran at half speed).
    img = scratch_disk(ctx, 'gpt.img', 32 << 20)
    subprocess.run(['sgdisk', '-n', '1:2048:+16M', img], check=True, capture_output=True)
    r = ctx.boot('quiet mem=64M data=nvme1n1,nvme1n1p1 run="filecheck /dev/nvme1n1p1 8 write 2 ; '
                 'filecheck /dev/nvme1n1p1 8 verify 2"', disks=[{'file': img, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect_filechecks_clean(r, 2)
    b = [x for x in r.find('blk') if x['name'] == 'nvme1n1']
    expect(b, 'no blk record for nvme1n1')
    w = b[-1]['write_bytes']
    expect(8 << 20 <= w < 9 << 20, 'nvme1n1 was sent %d bytes for 8 MiB written through p1' % w)
    expect(disk_word(img, 2048 * 512 + (7 << 20)) == pattern_word(2, 7 << 20), 'p1 7 MiB in did not reach the disk')


def test_pagecache_unaligned_partition_writes_only_its_blocks(ctx):
    # Partition 2 starts at sector 10241, not on a page: its first and
    # last cached pages are shared with partitions 1 and 3.  Writes
    # through nvme1n1p2 reach its blocks only; partitions 1 and 3 keep
    # every byte (they are read through the same pages).  A SATA disk is
    # reached as Linux's /dev/sda.
    img = scratch_disk(ctx, 'gpt.img', 32 << 20)
    subprocess.run(['sgdisk', '-a', '1', '-n', '1:2048:10240', '-n', '2:10241:18440', '-n', '3:18441:0', img],
                   check=True, capture_output=True)
    with open(img, 'r+b') as f:
        f.seek(2048 * 512)
        f.write(b'\xa1' * (8193 * 512))             # partition 1
        f.seek(18441 * 512)
        f.write(b'\xc3' * (8192 * 512))             # the start of partition 3
    def outside(path):
        with open(path, 'rb') as f:
            f.seek(2048 * 512)
            p1 = f.read(8193 * 512)
            f.seek(18441 * 512)
            p3 = f.read(8192 * 512)
        return p1, p3
    before = outside(img)
    sata = scratch_disk(ctx, 'sata.img', 16 << 20)
    r = ctx.boot('quiet mem=64M data=nvme1n1p2,/dev/sda run="filecheck /dev/nvme1n1p2 4 both 9 ; '
                 'filecheck /dev/nvme1n1p2 4 verify 9 ; filecheck /dev/sda 2 both 4"',
                 disks=[{'file': img, 'bus': 'nvme'}, {'file': sata, 'bus': 'sata'}], timeout=300)
    expect_ok(r)
    w = expect_filechecks_clean(r, 3)
    expect(w[0]['dev_bytes'] == 8200 * 512, 'nvme1n1p2 size %d' % w[0]['dev_bytes'])
    expect(w[2]['dev_bytes'] == 16 << 20, '/dev/sda size %d' % w[2]['dev_bytes'])
    expect(outside(img) == before, 'partition 1 or 3 was changed')
    with open(img, 'rb') as f:
        f.seek(10241 * 512)
        first = int.from_bytes(f.read(8), 'little')
    expect(first == pattern_word(9, 0), 'partition 2 does not start with the pattern')
    with open(sata, 'rb') as f:
        expect(int.from_bytes(f.read(8), 'little') == pattern_word(4, 0), '/dev/sda not written')


def test_pagecache_mmap_shared_and_private(ctx):
    # MAP_SHARED writes are seen by read() at once and are on the disk
    # after msync (seed 11) and after munmap + fsync (seed 13, over 11);
    # MAP_PRIVATE writes (seed 12) never reach the cache or the disk.
    # Each run starts with the cache dropped, so the verifies read the disk.
    data = scratch_disk(ctx, 'data.img', 64 << 20)
    r = ctx.boot('quiet mem=96M data=nvme1n1 run="filecheck /dev/nvme1n1 8 mmap 11 ; '
                 'filecheck /dev/nvme1n1 8 verify 11 ; filecheck /dev/nvme1n1 8 mmapp 12 ; '
                 'filecheck /dev/nvme1n1 8 verify 11 ; filecheck /dev/nvme1n1 8 mmapu 13 ; '
                 'filecheck /dev/nvme1n1 8 verify 13"', disks=[{'file': data, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    w = filechecks(r)
    expect(len(w) == 6, 'filecheck records %d' % len(w))
    for x in w:
        expect(x['failed'] == '' and x['mismatches'] == 0 and x['leaked'] == 0, 'filecheck %s: %r' % (x['mode'], x))
    # After msync, and after munmap + fsync, nothing is dirty or in flight
    # (filecheck reads /proc/meminfo's Dirty and Writeback then).
    for x in w[0], w[4]:
        expect(x.get('unwritten_kib') == 0, 'filecheck %s: %r KiB unwritten after the sync'
               % (x['mode'], x.get('unwritten_kib')))
    e = task_exits(r)
    expect([x['exit_code'] for x in e] == [0] * 6, 'exits %r' % [(x['cmdline'], x['exit_code']) for x in e])
    with open(data, 'rb') as f:
        expect(int.from_bytes(f.read(8), 'little') == pattern_word(13, 0), 'the disk does not hold seed 13')
    v = vm_final(r)
    expect(v['nr_mapped'] == 0, 'nr_mapped %d with nothing mapped (MAP_PRIVATE copies unmap the cache page)' % v['nr_mapped'])


def test_pagecache_fsync_while_mapped(ctx):
    # filecheck mmapfs: the pattern written through a shared mapping,
    # fsync(2) while it is still mapped, then the device read with
    # O_DIRECT (the disk, not the cache).  The pages are dirty since
    # their write faults (dirty_mmap, on by default), so fsync writes
    # them; with dirty_mmap off they are dirty only in the PTEs, fsync
    # finds nothing to write, and the disk read mismatches.
    data = scratch_disk(ctx, 'data.img', 16 << 20)
    r = ctx.boot('quiet mem=96M data=nvme1n1 run="filecheck /dev/nvme1n1 8 mmapfs 31"',
                 disks=[{'file': data, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect_filechecks_clean(r, 1)
    x = filechecks(r)[0]
    expect(x['mode'] == 'mmapfs' and x.get('unwritten_kib') == 0, 'filecheck: %r' % x)
    with open(data, 'rb') as f:
        expect(int.from_bytes(f.read(8), 'little') == pattern_word(31, 0), 'the disk does not hold seed 31')


def test_pagecache_mmap_larger_than_memory(ctx):
    # seed 002's mmap001 shape: a shared mapping of 96 MiB with 48 MiB of
    # RAM, written through, msync'ed: reclaim unmaps written pages (their
    # dirty bits make them dirty), writes them back and drops them; the
    # read-back after the drop finds every word.
    data = scratch_disk(ctx, 'data.img', 128 << 20)
    r = ctx.boot('quiet mem=48M swap=none data=nvme1n1 run="filecheck /dev/nvme1n1 96 mmap 21 ; '
                 'filecheck /dev/nvme1n1 96 verify 21"', disks=[{'file': data, 'bus': 'nvme'}], timeout=900)
    expect_ok(r)
    expect_filechecks_clean(r, 2)
    m = filechecks(r)[0]
    expect(m.get('unwritten_kib') == 0, 'msync under pressure left %r KiB unwritten' % m.get('unwritten_kib'))
    v = vm_final(r)
    expect(v['pgsteal_file'] > 10000, 'mapped file pages not reclaimed: %d' % v['pgsteal_file'])
    expect(v['pgmajfault'] > 0, 'no major faults on the mapping')
    expect(v['oom_kill'] == 0, 'OOM kill')
    # Linux's nr_mapped: every mapping is gone, and reclaim's unmaps and
    # the faults that mapped the pages again balanced.
    expect(v['nr_mapped'] == 0, 'nr_mapped %d with nothing mapped' % v['nr_mapped'])


def test_pagecache_flusher_expiry_and_background_limit(ctx):
    # 4 MiB left dirty (no fsync) on a 96 MiB machine, the writer then
    # lingering 8 s: with the defaults (dirty_expire_centisecs 3000, 4 MiB
    # under dirty_background_ratio 10) nothing is written during its step;
    # with an expiry of 1 s the flusher (every 5 s) writes it all; with
    # dirty_background_ratio 1 the writer wakes the flusher at once, which
    # writes until the dirty pages are under that limit (1% of ~90 MiB).
    steps = ['filecheck /dev/nvme1n1 4 writenf 1 8', '@set dirty_expire_centisecs 100',
             'filecheck /dev/nvme1n1 4 writenf 2 8', '@set dirty_expire_centisecs 3000',
             '@set dirty_background_ratio 1', 'filecheck /dev/nvme1n1 4 writenf 3 3']
    r, data = boot_steps_on_data_disk(ctx, steps, 32)
    expect_filechecks_clean(r, 3)
    out = {k: x['pgpgout'] for k, x in step_vmstat(r, [steps[0], steps[2], steps[5]]).items()}
    expect(out[steps[0]] == 0, 'written back before it expired: %d KiB' % out[steps[0]])
    expect(out[steps[2]] >= 4096, 'expired pages not written back: %d KiB' % out[steps[2]])
    expect(3072 <= out[steps[5]] <= 4096, 'pages over the background limit: %d KiB written back' % out[steps[5]])
    with open(data, 'rb') as f:
        expect(int.from_bytes(f.read(8), 'little') == pattern_word(3, 0), 'the last pattern is not on the disk')


def test_pagecache_swappiness_moves_reclaim_between_anon_and_file(ctx):
    # A task touching 40 MiB of anonymous memory at random beside a
    # 64 MiB buffered write and read-back, on 64 MiB of RAM with swap:
    # swappiness 0 leaves anon alone while file pages can go, 200 takes
    # only anon while there is any.  Both runs keep every byte.  Measured:
    # pswpout 0 against 4603.
    data = scratch_disk(ctx, 'data.img', 96 << 20)
    from rig import swap_image
    pair = 'touch 40 30000 random anon & filecheck /dev/nvme2n1 64 both %d'
    steps = ['@set swappiness 0', pair % 1, '@set swappiness 200', pair % 2]
    r = ctx.boot('quiet mem=64M data=nvme2n1 run="%s"' % ' ; '.join(steps),
                 disks=[{'file': swap_image(ctx), 'bus': 'nvme'}, {'file': data, 'bus': 'nvme'}], timeout=900)
    expect_ok(r)
    expect_filechecks_clean(r, 2)
    e = task_exits(r)
    expect(len(e) == 4 and all(x['exit_code'] == 0 for x in e), 'exits %r' % [(x['cmdline'], x['exit_code']) for x in e])
    v = step_vmstat(r, [steps[1], steps[3]])
    lo, hi = v[steps[1]], v[steps[3]]
    expect(lo['pswpout'] * 4 < hi['pswpout'], 'pswpout at swappiness 0: %d, at 200: %d' % (lo['pswpout'], hi['pswpout']))
    # (File pages go in both runs: touch ends first, and then only file
    # pages are left to reclaim.)
    expect(lo['pgsteal_file'] > 1000, 'swappiness 0 took no file pages: %d' % lo['pgsteal_file'])


def test_pagecache_fadvise_dontneed_drops_the_range(ctx):
    # After a written and fsync'ed 16 MiB, POSIX_FADV_DONTNEED drops the
    # range: the read-back comes from the disk (pgpgin), where "both"
    # reads its own cached pages.
    steps = ['filecheck /dev/nvme1n1 16 both 1', 'filecheck /dev/nvme1n1 16 bothdrop 2']
    r, _ = boot_steps_on_data_disk(ctx, steps, 32)
    expect_filechecks_clean(r, 2)
    pin = {k: x['pgpgin'] for k, x in step_vmstat(r, steps).items()}
    expect(pin[steps[0]] < 1024, 'both read %r KiB from the disk' % pin[steps[0]])
    expect(pin[steps[1]] >= 16 << 10, 'bothdrop read %r KiB from the disk, want 16 MiB' % pin[steps[1]])


@pytest.mark.uefi    # the ESP refusal needs the boot partition the loader names
def test_pagecache_data_statement_in_a_script(ctx):
    # `data DEV` in a script allows writes from there on; naming the ESP
    # is refused with one line, and the script goes on.
    from rig import script_text_image
    data = scratch_disk(ctx, 'data.img', 16 << 20)
    text = ('run filecheck /dev/nvme1n1 1 openw\ndata /dev/nvme1n1\nrun filecheck /dev/nvme1n1 2 both 4\n'
            'data nvme0n1p1\nrun filecheck /dev/nvme0n1p1 1 openw\n')
    r = ctx.boot(None, image=script_text_image(ctx, text, programs=('filecheck',)),
                 disks=[{'file': data, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    w = filechecks(r)
    expect(len(w) == 3, 'filecheck records %d' % len(w))
    expect(w[0]['failed'] == 'open_rw' and w[0]['errno'] == 13, 'before the data statement: %r' % w[0])
    expect(w[1]['failed'] == '' and w[1]['mismatches'] == 0, 'after it: %r' % w[1])
    expect(w[2]['failed'] == 'open_rw' and w[2]['errno'] == 13, 'the ESP: %r' % w[2])
    expect_in_log(r, 'nvme0n1p1: not writable: the boot partition (ESP) is never written')
    with open(data, 'rb') as f:
        expect(int.from_bytes(f.read(8), 'little') == pattern_word(4, 0), 'the data disk was not written')
