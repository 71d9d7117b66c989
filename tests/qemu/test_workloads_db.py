"""The seed 002/003 workloads on our kernel: shmdb (seed 003's shmem
database) swapping with swapcrc=on; stream/mmap001 on a missing device
failing with one clear line each; and stream/mmap001 on a data disk
through block-device files and the page cache."""
import struct

import pytest

from rig import expect, expect_ok, expect_in_log, one_record, run_swapping, swap_image, task_exits, vm_final, expect_clean_exits


def test_shmdb_swaps_verified(ctx):
    # 150% of RAM (sysinfo's total under mem=48M): the table cannot stay
    # resident, so random transactions swap rows in and out; every row read
    # is checked against its checksum, and so is every swapped page
    # (swapcrc=on).
    r = run_swapping(ctx, ['shmdb 150% 20'], [{'file': swap_image(ctx), 'bus': 'nvme'}],
                     extra_cmdline='swapcrc=on', timeout=900)
    expect_clean_exits(r, 1)
    w = one_record(r, 'workload', name='shmdb')
    expect(w['ram_pct'] == 150 and w['size_mib'] > 48, 'shmdb did not size itself from sysinfo: %r' % w)
    expect(w['rows'] == w['size_mib'] * 1024 and w['row_bytes'] == 1024, 'rows %r' % w)
    expect(w['transactions'] > 0 and w['tps_max'] > 0, 'no transactions: %r' % w)
    series = [int(x) for x in w['tps_series'].split()]
    expect(len(series) == 20 and sum(series) == w['transactions'], 'per-second series %r' % w['tps_series'])
    expect(w['mismatches'] == 0, 'row mismatches: %r' % w)
    v = vm_final(r)
    expect(v['pswpout'] > 1000 and v['pswpin'] > 100, 'shmdb did not swap: pswpout %d pswpin %d'
           % (v['pswpout'], v['pswpin']))
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)


@pytest.mark.quick
def test_stream_mmap001_without_device_files(ctx):
    # No block-device files on this kernel yet (and /dev/nosuch never
    # exists): each program ends with exit 3 after one line naming the
    # call, the path and the errno; a bad argument is exit 2.
    r = ctx.boot('quiet run="stream /dev/nosuch 1 read ; mmap001 /dev/nosuch 1 1 ; stream /dev/nosuch 1 sideways"',
                 timeout=120)
    expect_ok(r)
    e = task_exits(r)
    expect([x['exit_code'] for x in e] == [3, 3, 2], 'exits %r' % [(x['cmdline'], x['exit_code']) for x in e])
    expect_in_log(r, 'stream: openat(/dev/nosuch, O_RDONLY) failed: ENOENT (2)')
    expect_in_log(r, 'mmap001: openat(/dev/nosuch, O_RDWR) failed: ENOENT (2)')
    expect_in_log(r, "stream: bad mode 'sideways': read, write, rw, mmap-read or mmap-rw")
    expect(not r.find('workload'), 'a failed run printed a workload record')


WLIO_BLOCK_MAGIC = 0x314b4c424f494c57      # tests/workloads/wlio.h: "WLIOBLK1"


def stamped_gens(path, mib):
    """The generation of every 4 KiB block in the first mib MiB of a disk
    image, or None for a block that is not stamped for its own offset."""
    gens = []
    with open(path, 'rb') as f:
        for i in range(mib * 256):
            magic, off, gen = struct.unpack('<3Q', f.read(4096)[:24])
            gens.append(gen if magic == WLIO_BLOCK_MAGIC and off == i * 4096 else None)
    return gens


def test_disk_workloads_on_data_disk(ctx):
    # stream and mmap001 on a data disk named writable (data=), over 72 MiB
    # in 48 MiB of RAM, with swap and swapcrc=on, through block-device
    # files and the page cache.
    data = ctx.path('data.img')
    with open(data, 'wb') as f:
        f.truncate(128 << 20)
    progs = ['stream /dev/nvme2n1 72 write', 'stream /dev/nvme2n1 72 read', 'mmap001 /dev/nvme2n1 72 2']
    r = ctx.boot('quiet mem=48M swapcrc=on data=nvme2n1 run="%s"' % ' ; '.join(progs), timeout=1200,
                 disks=[{'file': swap_image(ctx), 'bus': 'nvme'}, {'file': data, 'bus': 'nvme'}])
    expect_ok(r)
    expect_clean_exits(r, 3)
    w = [x for x in r.find('workload')]
    expect([x['name'] for x in w] == ['stream', 'stream', 'mmap001'], 'records %r' % [x['name'] for x in w])
    expect(w[0]['bytes_written'] == 72 << 20, 'stream write %r' % w[0])
    expect(w[1]['stamped_blocks'] == 72 * 256 and w[1]['foreign_blocks'] == 0,
           'stream read did not find what stream wrote: %r' % w[1])
    expect(w[2]['loops'] == 2 and w[2]['pages'] == 72 * 256, 'mmap001 %r' % w[2])
    v = vm_final(r)
    expect(v['swap_crc_mismatch'] == 0, 'swap crc mismatches %r' % v['swap_crc_mismatch'])
    # On the disk: every block of the region holds mmap001's last stamp,
    # and nothing past the region was written.
    gens = stamped_gens(data, 72)
    expect(None not in gens and len(set(gens)) == 1, 'disk blocks not all stamped by the last mmap001 loop: '
           '%d unstamped, %d generations' % (gens.count(None), len(set(gens))))
    with open(data, 'rb') as f:
        f.seek(72 << 20)
        expect(f.read().count(0) == 56 << 20, 'bytes past the 72 MiB region were written')


def test_stream_mmap_modes_on_data_disk(ctx):
    # stream's mmap modes (the seed 003 stream's pages mapped MAP_SHARED)
    # on a data disk, 40 MiB in 48 MiB of RAM: write stamps every block
    # with pread/pwrite, mmap-read must find each one intact through the
    # mapping (faulting it in), mmap-rw rewrites each in place with a new
    # generation, and a last mmap-read and the disk image itself must see
    # exactly that generation on every block (the record's gen_first).
    data = ctx.path('data.img')
    with open(data, 'wb') as f:
        f.truncate(64 << 20)
    progs = ['stream /dev/nvme2n1 40 write', 'stream /dev/nvme2n1 40 mmap-read',
             'stream /dev/nvme2n1 40 mmap-rw', 'stream /dev/nvme2n1 40 mmap-read']
    r = ctx.boot('quiet mem=48M data=nvme2n1 run="%s"' % ' ; '.join(progs), timeout=600,
                 disks=[{'file': swap_image(ctx), 'bus': 'nvme'}, {'file': data, 'bus': 'nvme'}])
    expect_ok(r)
    expect_clean_exits(r, 4)
    w = [x for x in r.find('workload')]
    expect([x.get('mode') for x in w] == ['write', 'mmap-read', 'mmap-rw', 'mmap-read'],
           'records %r' % [(x['name'], x.get('mode')) for x in w])
    for x in w[1:]:
        expect(x['stamped_blocks'] == 40 * 256 and x['foreign_blocks'] == 0 and x['mismatches'] == 0,
               'stream %s did not find every block stamped: %r' % (x['mode'], x))
        expect(x['bytes_read'] == 40 << 20, 'stream %s read %r bytes' % (x['mode'], x['bytes_read']))
        # The mapping, not read(2), brought the pages in: one fault or
        # more per page (read-ahead may map several per major fault).
        expect(x['minflt'] + x['majflt'] >= 40 * 256 // 32, 'stream %s: few faults %r' % (x['mode'], x))
    expect(w[2]['bytes_written'] == 40 << 20, 'mmap-rw wrote %r bytes' % w[2]['bytes_written'])
    gens = stamped_gens(data, 40)
    expect(None not in gens and set(gens) == {w[2]['gen_first']},
           'disk blocks not all stamped by mmap-rw (generation %d): %d unstamped, generations %r'
           % (w[2]['gen_first'], gens.count(None), sorted(set(g for g in gens if g is not None))[:4]))
    with open(data, 'rb') as f:
        f.seek(40 << 20)
        expect(f.read().count(0) == 24 << 20, 'bytes past the 40 MiB region were written')
