"""Booting: the boot report on NVMe, SATA and USB, mem=, the command line's
basic errors, faults and panics, and what the loader hands over."""
import os

import pytest

from rig import expect, expect_ok, boot_record, expect_in_log, expect_panic

# The firmware, the UEFI loader, the ESP or the results file is what these
# cases test: never the PVH shortcut (rig.Ctx.pvh_ok).
pytestmark = pytest.mark.uefi


# ------------------------------------------------------------ boot devices

def check_boot_report(r):
    expect_ok(r)
    b = boot_record(r)
    for k in ('usable_bytes', 'total_bytes', 'mem_cap_bytes', 'boot_ms', 'cpu'):
        expect(k in b, 'boot record lacks %s' % k)
    expect(b['usable_bytes'] > 100 << 20, 'usable_bytes %d too small for -m 256' % b['usable_bytes'])
    expect(b['total_bytes'] >= b['usable_bytes'], 'total < usable')
    expect(b['mem_cap_bytes'] is None, 'mem_cap_bytes should be null without mem=')
    # boot_ms is host time under plain TCG: judged under -icount only
    # (test_time.py).
    expect(b['nx'] and b['smep'] and b['smap'], 'NX/SMEP/SMAP not all on with -cpu max')
    for text in ('kernel: image', '.text', 'r-x', '.rodata', 'r-- nx', 'direct map', 'memory map:'):
        expect_in_log(r, text)
    expect(r.log.rstrip().splitlines()[-1].startswith('{"type":"halt"'), 'halt record is not the last line')


@pytest.mark.quick
def test_boot_nvme(ctx):
    check_boot_report(ctx.boot(boot='nvme'))


@pytest.mark.quick
def test_boot_sata(ctx):
    check_boot_report(ctx.boot(boot='sata'))


def test_boot_usb(ctx):
    check_boot_report(ctx.boot(boot='usb'))


def test_boot_with_framebuffer(ctx):
    # A VGA device gives OVMF a GOP framebuffer; the console draws on it.
    r = ctx.boot(extra=['-device', 'VGA'])
    expect_ok(r)
    b = boot_record(r)
    expect(b['framebuffer'] is True, 'no framebuffer reported with -device VGA')
    expect_in_log(r, 'framebuffer: ')


def test_boot_4g_unsorted_map(ctx):
    # q35 with 4 GiB splits RAM around the PCI hole and lists it unsorted.
    r = ctx.boot(mem='4G')
    expect_ok(r)
    b = boot_record(r)
    expect(b['usable_bytes'] > (3800 << 20), 'usable %d MiB with -m 4G' % (b['usable_bytes'] >> 20))


# ------------------------------------------------------------ mem=

@pytest.mark.quick
def test_mem_cap_64m(ctx):
    r = ctx.boot('mem=64M')
    expect_ok(r)
    b = boot_record(r)
    expect(b['usable_bytes'] == 64 << 20, 'usable_bytes %d != 64 MiB' % b['usable_bytes'])
    expect(b['mem_cap_bytes'] == 64 << 20, 'mem_cap_bytes %r' % b['mem_cap_bytes'])
    expect(b['managed_bytes'] <= 64 << 20, 'allocator manages %d > cap' % b['managed_bytes'])


def test_mem_cap_above_ram(ctx):
    r = ctx.boot('mem=100G')
    expect_ok(r)
    expect_in_log(r, 'mem=102400 MiB exceeds the')
    expect(boot_record(r)['usable_bytes'] > 200 << 20, 'all RAM should be used')


def test_mem_cap_too_small(ctx):
    r = ctx.boot('mem=1M')
    expect_ok(r)
    expect_in_log(r, 'mem=1024 KiB is below the 8 MiB needed to boot; using 8 MiB')
    expect(boot_record(r)['usable_bytes'] == 8 << 20, 'usable should be 8 MiB')


# ------------------------------------------------------------ command line

def test_cmdline_unknown_option(ctx):
    r = ctx.boot('frobnicate=3 mem=96M')
    expect_ok(r)
    expect_in_log(r, "cmdline: unknown option 'frobnicate' ignored")
    expect(boot_record(r)['usable_bytes'] == 96 << 20, 'mem= after the unknown option was lost')


@pytest.mark.quick
def test_cmdline_malformed_option(ctx):
    r = ctx.boot('mem=lots poison=maybe run="unterminated')
    expect_ok(r)
    expect_in_log(r, 'cmdline: mem=lots: expected a size')
    expect_in_log(r, 'cmdline: poison=maybe: expected on/off')
    expect_in_log(r, 'unterminated quote')
    expect(boot_record(r)['mem_cap_bytes'] is None, 'bad mem= must keep the default')


@pytest.mark.quick
def test_fault_page_fault_report(ctx):
    r = ctx.boot('test=pagefault')
    p = expect_panic(r, 'Page fault (#PF), vector 14', '[read, not present, kernel]',
                     'CR2 000000000dead000', 'deliberate_page_fault+', 'selftest_run+', 'kmain+')
    expect(p['vector'] == 14 and p['cr2'] == '0xdead000', 'panic record %r' % p)


def test_fault_write_to_text(ctx):
    r = ctx.boot('test=wx')
    p = expect_panic(r, '[write, protection violation, kernel]', 'write_kernel_text+', 'kmain+')
    expect(p['error_code'] == '0x3', 'error code %s' % p['error_code'])


def test_fault_exec_data(ctx):
    r = ctx.boot('test=nx')
    expect_panic(r, '[instruction fetch, protection violation, kernel]')


def test_fault_stack_guard(ctx):
    r = ctx.boot('test=stackoverflow')
    expect_panic(r, 'Double fault (#DF)', 'ran into its guard page', 'recurse')


def test_panic_call(ctx):
    r = ctx.boot('test=panic')
    expect(r.status == 'panic', 'status %s' % r.status)
    expect_in_log(r, '*** PANIC: selftest: deliberate panic')
    expect_in_log(r, 'selftest_run+')


def test_heap_selftest(ctx):
    r = ctx.boot('test=heap poison=on')
    expect_ok(r)
    s = r.find('selftest')
    expect(s and s[0]['ok'], 'heap selftest failed: %r' % s)


# ------------------------------------------------------------ loader

def test_loader_missing_kernel(ctx):
    img = ctx.make_image(kernel='')
    r = ctx.boot(image=img, stop_pattern='returning to firmware', timeout=40)
    expect_in_log(r, 'boot: error: no \\kernel.elf on the ESP')
    expect(not r.find('boot'), 'a kernel booted without kernel.elf?')


def test_loader_corrupt_kernel(ctx):
    bad = ctx.path('bad.elf')
    with open(bad, 'wb') as f:
        f.write(b'\x7fELF' + bytes(4000))
    img = ctx.make_image(kernel=bad)
    r = ctx.boot(image=img, stop_pattern='returning to firmware', timeout=40)
    expect_in_log(r, 'boot: error: \\kernel.elf: not an x86-64 ELF64 file')


def test_loader_hands_over_files(ctx):
    a, b = ctx.path('a.txt'), ctx.path('b.bin')
    with open(a, 'w') as f:
        f.write('hello\n')
    with open(b, 'wb') as f:
        f.write(os.urandom(300000))
    img = ctx.make_image(files=[a + ':notes/a.txt', b + ':b.bin'])
    r = ctx.boot(image=img)
    expect_ok(r)
    expect(boot_record(r)['files'] == 2, 'files=%s' % boot_record(r)['files'])
    expect_in_log(r, 'notes/a.txt')
    expect_in_log(r, '300000 bytes')
