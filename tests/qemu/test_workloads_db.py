"""The seed 002/003 workloads on our kernel: shmdb (seed 003's shmem
database) swapping with swapcrc=on, and stream/mmap001, which need
block-device files, failing today with one clear line each."""
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
    expect_in_log(r, "stream: bad mode 'sideways': read, write or rw")
    expect(not r.find('workload'), 'a failed run printed a workload record')
