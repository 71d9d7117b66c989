"""Booting from a stick that carries its own swap partition (README:
"Booting a real PC from USB"), and halt= (how a run ends on a PC without
a serial port).

The stick image is tools/mkimage --swap-part: partition 1 the ESP,
partition 2 a mkswap'ed Linux swap partition.  It is booted as it is (the
command line is baked in), so the very file QEMU wrote can be checked
afterwards: every ESP file but the results file (results/, which the
loader creates and the kernel fills: test_results.py) byte-identical,
every byte outside both partitions unchanged, partition 2 written, and the
boot disk written only through partition 2 and inside the results file."""
import filecmp
import hashlib
import os
import re
import shutil
import subprocess

import pytest

from rig import expect, expect_ok, expect_in_log, one_record, disks_by_name, vm_final, \
    expect_clean_exits, blkdebug_nvme, scratch_disk

# The firmware, the UEFI loader, the ESP or the results file is what these
# cases test: never the PVH shortcut (rig.Ctx.pvh_ok).
pytestmark = pytest.mark.uefi

SECTOR = 512
ESP_START = 2048
SWAP_MIB = 128
WORK = 'touch 64 20000 seq anon'


def stick_image(ctx, cmdline, swap_mib=SWAP_MIB, progs=('touch',)):
    out = ctx.path('stick.img')
    build = ctx.build
    subprocess.run([os.path.join('tools', 'mkimage'), '-o', out, '-l', os.path.join(build, 'BOOTX64.EFI'),
                    '-k', os.path.join(build, 'kernel.elf'), '-c', cmdline, '--swap-part', str(swap_mib)] +
                   [os.path.join(build, 'workloads', p) + ':bin/' + p for p in progs], check=True)
    return out


def partition(img, n):
    """(first, last) sector of partition n, from sgdisk."""
    out = subprocess.run(['sgdisk', '-i', str(n), img], check=True, capture_output=True, text=True).stdout
    first = int(re.search(r'First sector: (\d+)', out).group(1))
    last = int(re.search(r'Last sector: (\d+)', out).group(1))
    return first, last


def esp_files(ctx, img, tag):
    """Copy every ESP file out with mtools into a fresh directory."""
    d = ctx.path('esp-' + tag)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    subprocess.run(['mcopy', '-s', '-n', '-m', '-i', img + '@@1M', '::/*', d], check=True, capture_output=True)
    return d


def tree(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)


def expect_same_esp(before, after):
    files = tree(before)
    expect('EFI/BOOT/BOOTX64.EFI' in files and 'kernel.elf' in files and 'cmdline.txt' in files,
           'ESP listing %r' % files)
    expect(not any(f.startswith('results/') for f in files), 'a fresh stick has results already')
    got = [f for f in tree(after) if not f.startswith('results/')]
    expect(got == files, 'ESP file list changed: %r -> %r' % (files, tree(after)))
    expect('results/0001.jsonl' in tree(after), 'the loader made no results file')
    _, mismatch, errors = filecmp.cmpfiles(before, after, files, shallow=False)
    expect(not mismatch and not errors, 'ESP files changed: %r %r' % (mismatch, errors))


def hash_outside(img, first, last):
    """sha256 of the image minus sectors first..last."""
    h = hashlib.sha256()
    with open(img, 'rb') as f:
        h.update(f.read(first * SECTOR))
        f.seek((last + 1) * SECTOR)
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def expect_boot_disk_writes(r, disk, part=None):
    """The kernel wrote the boot disk only through part (if any) and into
    the results file (at most its 4 MiB), never through the ESP device."""
    expect(one_record(r, 'blk', name=disk + 'p1')['writes'] == 0, 'the ESP was written')
    expect_in_log(r, 'results: records also go to results/0001.jsonl on %s ' % disk)
    other = one_record(r, 'blk', name=part)['write_bytes'] if part else 0
    blk = one_record(r, 'blk', name=disk)
    expect(blk['write_bytes'] - other <= 4 << 20,
           'writes on %s beyond %s and the results file: %r' % (disk, part, blk))


# OVMF enumerates the ports of a hub late: on a busy host it once built its
# boot options before it saw the stick behind the hub and started its EFI
# shell instead (boot='usb-hub').  That boot never reached our loader and
# wrote nothing, so it is stopped at the shell's banner and tried again.
FIRMWARE_TRIES = 3


def boot_stick(ctx, img, boot, disks=(), timeout=600, extra=()):
    for _ in range(FIRMWARE_TRIES):
        r = ctx.boot(None, image=img, boot=boot, timeout=timeout, disks=disks, extra=extra,
                     stop_pattern=r'^UEFI Interactive Shell')
        if r.rc != 'stopped':
            break
    return r


def swap_on_stick(ctx, boot, disk, swap_opt, disks=(), extra=()):
    """Boot the stick from boot, swap on its partition 2, and check the
    stick afterwards.  Returns the Result."""
    cmdline = 'quiet mem=48M swapcrc=on %s run="%s"' % (swap_opt, WORK)
    img = stick_image(ctx, cmdline)
    p1, p2 = partition(img, 1), partition(img, 2)
    expect(p1[0] == ESP_START and p2[0] == p1[1] + 1, 'layout %r %r' % (p1, p2))
    esp_before = esp_files(ctx, img, 'before')
    outside = hash_outside(img, p1[0], p2[1])
    swap_before = hashlib.sha256(open(img, 'rb').read()[p2[0] * SECTOR:(p2[1] + 1) * SECTOR]).hexdigest()
    r = boot_stick(ctx, img, boot, disks, extra=extra)
    expect_ok(r)
    expect_clean_exits(r, 1)
    v = vm_final(r)
    part = disk + 'p2'
    expect([a['device'] for a in v['swap_areas']] == [part], 'swap areas %r, want only %s' % (v['swap_areas'], part))
    expect(v['pswpout'] > 1000 and v['pswpin'] > 0, 'not enough swapping: pswpout %d pswpin %d' %
           (v['pswpout'], v['pswpin']))
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0 and v['swap_read_errors'] == 0,
           'integrity: %r' % {k: v[k] for k in ('swap_crc_mismatch', 'swap_write_errors', 'swap_read_errors')})
    expect(re.search(r'swap: %s: \d+ MiB' % part, r.log), 'no swapon line for %s' % part)
    disks_rec = disks_by_name(r)
    expect(disks_rec[disk]['boot_disk'] and disks_rec[disk + 'p1']['boot_partition'] and
           not disks_rec[part]['boot_partition'], 'disks %r' % disks_rec)
    expect(one_record(r, 'blk', name=part)['writes'] > 0, 'no writes through %s' % part)
    expect_boot_disk_writes(r, disk, part)
    expect_same_esp(esp_before, esp_files(ctx, img, 'after'))
    expect(hash_outside(img, p1[0], p2[1]) == outside, 'the stick changed outside its two partitions')
    after = hashlib.sha256(open(img, 'rb').read()[p2[0] * SECTOR:(p2[1] + 1) * SECTOR]).hexdigest()
    expect(after != swap_before, 'partition 2 was not written')
    return r


def bad_header_disk(ctx):
    """A disk whose swap signature is there but whose version is 2."""
    path = ctx.path('badhdr.img')
    with open(path, 'wb') as f:
        f.truncate(16 << 20)
    subprocess.run(['mkswap', path], check=True, capture_output=True)
    with open(path, 'r+b') as f:
        f.seek(1024)
        f.write((2).to_bytes(4, 'little'))
    return path


def test_stick_swap_auto_nvme(ctx):
    # swap=auto (the default): the ESP is skipped with a line, the signed
    # partition 2 is used, a signed but bad header (nvme1n1) and a first
    # page that cannot be read (nvme2n1, blkdebug) each say why not.
    unreadable = blkdebug_nvme(scratch_disk(ctx, 'unreadable.img', 16 << 20), 'unread', 'read', 0)
    r = swap_on_stick(ctx, 'nvme', 'nvme0n1', '', disks=[{'file': bad_header_disk(ctx), 'bus': 'nvme'}],
                      extra=unreadable)
    expect_in_log(r, 'swap: nvme0n1p1: skipped: the boot partition (ESP) is never written')
    expect(re.search(r'^swap: nvme1n1: skipped: .*version', r.log, re.M), 'no line about nvme1n1\'s bad header')
    expect(re.search(r'^swap: nvme2n1: skipped: header unreadable: read failed$', r.log, re.M),
           'no line about nvme2n1\'s unreadable header')
    for d in ('nvme1n1', 'nvme2n1'):
        expect(one_record(r, 'blk', name=d)['writes'] == 0, '%s was written' % d)


def test_stick_swap_named_nvme(ctx):
    swap_on_stick(ctx, 'nvme', 'nvme0n1', 'swap=nvme0n1p2')


def test_stick_swap_auto_sata(ctx):
    r = swap_on_stick(ctx, 'sata', 'sata0', 'swap=auto')
    expect_in_log(r, 'swap: sata0p1: skipped: the boot partition (ESP) is never written')


def test_stick_swap_named_sata(ctx):
    swap_on_stick(ctx, 'sata', 'sata0', 'swap=sata0p2')


def test_stick_usb_boot_disk_unreachable(ctx):
    # The stick on an EHCI (USB 2) controller, which the kernel does not
    # drive (xHCI only; a stick on xHCI is test_usb.py): the stick boots,
    # the kernel says its boot disk is out of reach, no swap, nothing on the stick changes but
    # the results file the loader made (left empty: all newlines).
    img = stick_image(ctx, 'quiet run="hello"', swap_mib=32, progs=('hello',))
    p1, p2 = partition(img, 1), partition(img, 2)
    before = hash_outside(img, p1[0], p1[1])
    esp_before = esp_files(ctx, img, 'before')
    r = boot_stick(ctx, img, 'usb-ehci', timeout=300)      # EHCI: the firmware reads slowly
    expect_ok(r)
    expect(re.search(r'blk: the boot disk \(ESP [0-9A-F-]{36}\) is not reachable: no driver here', r.log),
           'no "boot disk is not reachable" line')
    expect_in_log(r, 'swap: no swap areas')
    expect(hash_outside(img, p1[0], p1[1]) == before, 'the stick was written outside the ESP')
    esp_after = esp_files(ctx, img, 'after')
    expect_same_esp(esp_before, esp_after)
    with open(os.path.join(esp_after, 'results', '0001.jsonl'), 'rb') as f:
        expect(f.read().strip(b'\n') == b'', 'the unreachable results file was written')


def test_stick_whole_boot_disk_refused(ctx):
    # The whole boot disk is never written, even when named as a scratch
    # disk; the refusal names it.
    img = stick_image(ctx, 'quiet test=blk blkdev=nvme0n1', swap_mib=16)
    p1, p2 = partition(img, 1), partition(img, 2)
    before = hash_outside(img, p1[0], p1[1])
    esp_before = esp_files(ctx, img, 'before')
    r = boot_stick(ctx, img, 'nvme', timeout=120)
    expect_ok(r)
    expect_in_log(r, 'blk: nvme0n1 is the boot disk: the whole disk is never written')
    expect_boot_disk_writes(r, 'nvme0n1', 'nvme0n1p2')
    expect(hash_outside(img, p1[0], p1[1]) == before, 'the stick was written outside the ESP')
    expect_same_esp(esp_before, esp_files(ctx, img, 'after'))
