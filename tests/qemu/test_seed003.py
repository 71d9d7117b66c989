"""Seed 003's knob off (commit 64574746's used-once rule for shmem, with
that kernel's PG_referenced life: kernel/vm/lru_policy.h) on a shmem
table that swaps, at a rate shmdb caps (its TPS argument): the rows and
the swapped pages stay right, and the cap holds in guest time."""
from rig import expect, expect_clean_exits, one_record, run_swapping, swap_image, vm_final


def test_shmdb_paced_used_once_off_swaps_verified(ctx):
    # 150% of RAM under mem=48M, 500 transactions/s for 10 s, knob off:
    # the table cannot stay resident, its pages are used rarely, so they
    # meet the off verdict on the inactive list (kept once, activated at a
    # second reference) and go out to swap and back.
    r = run_swapping(ctx, ['shmdb 150% 10 0 500'], [{'file': swap_image(ctx), 'bus': 'nvme'}],
                     extra_cmdline='swapcrc=on used_once_swapbacked=off', timeout=900)
    expect_clean_exits(r, 1)
    w = one_record(r, 'workload', name='shmdb')
    expect(w['tps_limit'] == 500 and w['seconds'] == 10, 'shmdb arguments: %r' % w)
    # Paced from the run's start: never ahead by more than the batch of 8.
    expect(0 < w['transactions'] <= 500 * 10 + 8, 'transactions %r at 500/s for 10 s' % w['transactions'])
    expect(w['sleeps'] > 0, 'shmdb never slept to hold its cap: %r' % w)
    series = [int(x) for x in w['tps_series'].split()]
    expect(len(series) == 10 and sum(series) == w['transactions'], 'per-second series %r' % w['tps_series'])
    v = vm_final(r)
    expect(v['pswpout'] > 1000 and v['pswpin'] > 100, 'shmdb did not swap: pswpout %d pswpin %d'
           % (v['pswpout'], v['pswpin']))
    # Activated only at a second reference with the knob off: some were.
    expect(v['pgactivate'] > 0, 'no page activated: pgactivate %d' % v['pgactivate'])
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)
