"""QEMU cases: RAM at PC scale (issue 10).  A 16 GiB guest boots without
mem=, swaps, and keeps boot cheap; mem= on a big guest still caps it.

QEMU allocates guest RAM lazily, so -m 16G costs the host only what the
guest touches: the kernel must not touch all of it (no zeroing of the
struct page array, descriptors initialised per 4 MiB chunk on first use).
To make the guest swap without touching 16 GiB, the run first sets the
mem_limit_mib knob (a run-time mem=: the rest is held by the page
allocator, never written), then touches more than the limit leaves."""
import re
import sys

from rig import expect, expect_ok, boot_record, expect_in_log, swap_image, vm_final, \
    expect_clean_exits, task_exits

GIB = 1 << 30


def expect_big_guest(r, gib):
    b = boot_record(r)
    expect(b['mem_cap_bytes'] is None, 'mem_cap_bytes should be null without mem=')
    expect(b['usable_bytes'] > (gib - 1) * GIB, 'usable %d MiB with -m %dG' % (b['usable_bytes'] >> 20, gib))
    expect(b['free_bytes'] > b['usable_bytes'] * 9 // 10,
           'only %d of %d MiB free at boot' % (b['free_bytes'] >> 20, b['usable_bytes'] >> 20))
    return b


def report_boot_ms(name, b):
    # Host time under plain TCG: reported, judged only under -icount.
    sys.stdout.write('%s: boot_ms %s at %d MiB usable\n' % (name, b['boot_ms'], b['usable_bytes'] >> 20))


def test_memscale_16g_swap(ctx):
    # 16 GiB without mem=, debug poisoning on; squeezed to 128 MiB at run
    # time (held frames are never written, not even poisoned), then 160 MiB of
    # anon (seq: every page, part of it twice) and 192 MiB of shmem (random)
    # touched against a 512 MiB swap disk: each must fault pages back from
    # swap and verify its data, and lifting the limit gives every held
    # frame back.
    progs = ['@set mem_limit_mib 128', 'touch 160 50000 seq anon', 'touch 192 60000 random shmem',
             '@set mem_limit_mib 0']
    r = ctx.boot('quiet poison=on run="%s"' % ' ; '.join(progs), mem='16G', timeout=900,
                 disks=[{'file': swap_image(ctx, mib=512), 'bus': 'nvme'}])
    expect_ok(r)
    b = expect_big_guest(r, 16)
    report_boot_ms('memscale_16g_swap', b)
    expect(not re.search(r"run=: step \d+ '@set", r.log), 'a mem_limit_mib step failed: %s' %
           [x for x in r.log.splitlines() if "'@set" in x])
    expect_clean_exits(r, 2)
    w = r.find('workload')
    expect(len(w) == 2, 'expected two workload records, got %d' % len(w))
    for x in w:
        expect(x.get('mismatches') == 0 and x['majflt'] > 0, '%s %s: %r' % (x['name'], x['mapping'], x))
    v = vm_final(r)
    expect(v['pswpout'] > 0 and v['pswpin'] > 0, 'no swapping at 16 GiB: %r' %
           {k: v[k] for k in ('pswpout', 'pswpin', 'nr_free_pages')})
    expect(v['swap_write_errors'] == 0 and v['swap_read_errors'] == 0, 'swap I/O errors: %r' % v)
    # The limit was lifted: nearly all of the 16 GiB is free again.
    expect(v['nr_free_pages'] * 4096 > b['free_bytes'] - (64 << 20),
           'free after the run %d MiB, at boot %d MiB' % (v['nr_free_pages'] >> 8, b['free_bytes'] >> 20))


def test_memscale_limit_below_use_refused(ctx):
    # A limit under what is already in use is refused with a one-line
    # error naming the knob; nothing is held and the run goes on.
    r = ctx.boot('quiet run="@set mem_limit_mib 1 ; hello"', mem='2G')
    expect_ok(r)
    expect_in_log(r, "run=: step 1 '@set mem_limit_mib 1': set mem_limit_mib 1: mem_limit_mib: 1 MiB is less than is in use")
    expect(task_exits(r) and task_exits(r)[0]['exit_code'] == 0, 'hello did not run after the refused limit')
    v = vm_final(r)
    b = boot_record(r)
    expect(v['nr_free_pages'] * 4096 > b['free_bytes'] - (16 << 20), 'frames stayed held after a refused limit')


def test_memscale_mem_cap_12g_of_16g(ctx):
    r = ctx.boot('quiet mem=12G', mem='16G', timeout=300)
    expect_ok(r)
    b = boot_record(r)
    expect(b['mem_cap_bytes'] == 12 * GIB, 'mem_cap_bytes %r' % b['mem_cap_bytes'])
    expect(b['usable_bytes'] == 12 * GIB, 'usable_bytes %d != 12 GiB' % b['usable_bytes'])
    expect(b['managed_bytes'] <= 12 * GIB, 'allocator manages %d > cap' % b['managed_bytes'])
    report_boot_ms('memscale_mem_cap_12g_of_16g', b)


def test_memscale_boot_16g_icount(ctx):
    # Under -icount guest time counts instructions, so a busy host cannot
    # move it: entry to boot report stays under 50 ms at 16 GiB, as at
    # 256 MiB (boot cost must not grow with RAM).
    r = ctx.boot('quiet', mem='16G', icount='exact', timeout=600)
    expect_ok(r)
    b = expect_big_guest(r, 16)
    report_boot_ms('memscale_boot_16g_icount', b)
    expect(b['boot_ms'] < 50, 'kernel entry to boot report took %s ms of guest time at 16 GiB (limit 50)' % b['boot_ms'])


def test_memscale_shmem_object_beyond_2g(ctx):
    # A 4 GiB shared mapping needs 1 Mi slots (8 MiB of them): more than
    # one heap allocation can hold, so they sit in 4 KiB leaves.  Only a
    # few thousand pages are touched; they must read back verified.
    # More than RAM in one mapping, and no swap: overcommit_memory 1.
    r = ctx.boot('quiet run="@set overcommit_memory 1 ; touch 4096 3000 random shmem"', mem='2G', timeout=300)
    expect_ok(r)
    expect_clean_exits(r, 1)
    w = r.find('workload')
    expect(len(w) == 1 and w[0]['mismatches'] == 0 and w[0]['pages'] == 4096 * 256, 'workload: %r' % w)
