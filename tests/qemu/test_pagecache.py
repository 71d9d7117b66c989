"""The page cache and block devices as files (issue 13): buffered writes
read back across drop_caches and across reclaim, write safety (data=, the
ESP, devices not named), write errors reported at fsync."""
import hashlib
import re

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


def pattern_word(seed, off):
    """filecheck's pattern: mix64(seed + 0x13) ^ off (rt_rand.c's mix64)."""
    m = (1 << 64) - 1
    z = (seed + 0x13 + 0x9e3779b97f4a7c15) & m
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m
    return (z ^ (z >> 31)) ^ off


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
