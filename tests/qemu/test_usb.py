"""USB sticks as disks (README, "USB sticks"): the xHCI driver and USB mass
storage (Bulk-Only Transport).  A PC booted from the stick finds the stick
again once the firmware hands over: its swap partition is used, its
results file written, and nothing else on it or on any other USB disk
that carries no swap signature.

The stick is tools/mkimage --swap-part (test_stick.py): partition 1 the
ESP, partition 2 mkswap'ed.  A second xHCI controller with USB 2 ports
only (qemu-xhci p3=0) holds a plain disk, so one boot drives both the
SuperSpeed path (the boot stick, a USB 3 port that enables itself) and
the high-speed path (a USB 2 port that needs a port reset)."""
import hashlib
import os

from rig import expect, expect_in_log, one_record
from test_stick import swap_on_stick, esp_files
from test_results import check_results_file


def usb2_disk(path, ctl='xusb2', did='plainusb'):
    """QEMU arguments: a second xHCI with USB 2 ports only, path on it."""
    return ['-device', 'qemu-xhci,id=%s,p2=4,p3=0' % ctl,
            '-drive', 'if=none,id=%s,format=raw,file=%s' % (did, path),
            '-device', 'usb-storage,bus=%s.0,drive=%s' % (ctl, did)]


def plain_disk(ctx, mib=16):
    """Random bytes, no partition table, no swap signature."""
    path = ctx.path('plain.img')
    with open(path, 'wb') as f:
        f.write(os.urandom(mib << 20))
    return path


def sha(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_usb_stick_swap_and_results(ctx):
    # Booted from the stick on xHCI: the kernel finds the stick (usb0),
    # swaps on its partition 2 with swapcrc=on (a touch of 64 MiB in 48 MiB
    # of RAM), writes its records into the results file on the ESP, and
    # leaves the plain USB 2 disk (usb1) untouched.
    plain = plain_disk(ctx)
    before = sha(plain)
    r = swap_on_stick(ctx, 'usb', 'usb0', '', extra=usb2_disk(plain))
    expect_in_log(r, 'swap: usb0p1: skipped: the boot partition (ESP) is never written')
    expect('is not reachable' not in r.log, 'the kernel says the boot disk is not reachable')
    # Both speeds, both kinds of port.
    stick = one_record(r, 'usb_device', controller='xhci0')
    other = one_record(r, 'usb_device', controller='xhci1')
    expect(stick['usb_major'] == 3 and stick['speed'].startswith('SuperSpeed') and stick['driver'],
           'boot stick %r' % stick)
    expect(other['usb_major'] == 2 and other['speed'].startswith('high speed') and other['driver'],
           'USB 2 disk %r' % other)
    expect(one_record(r, 'xhci_stats', name='xhci1')['port_resets'] >= 1, 'the USB 2 port was not reset')
    st = one_record(r, 'usb_storage', name='usb1')
    expect(st['ok'] and st['blocks'] * st['block_size'] == 16 << 20, 'usb1 %r' % st)
    # Never written: the plain disk (no signature), checked by its bytes.
    expect(sha(plain) == before, 'the USB disk without a swap signature was written')
    expect(one_record(r, 'blk', name='usb1')['writes'] == 0, 'writes reached usb1')
    for s in r.find('usb_storage_stats'):
        expect(s['errors'] == 0 and s['recoveries'] == 0 and not s['offline'], 'USB storage errors %r' % s)
    for x in r.find('xhci_stats'):
        expect(x['errors'] == 0 and x['timeouts'] == 0, 'xHCI errors %r' % x)
    # The results file on the stick's ESP holds the run's records.
    d = esp_files(ctx, ctx.path('stick.img'), 'results')
    check_results_file(r, os.path.join(d, 'results', '0001.jsonl'), 'usb0',
                       kinds=('boot', 'xhci', 'usb_device', 'usb_storage', 'disks', 'task_exit', 'vmstat', 'blk',
                              'xhci_stats', 'usb_storage_stats'), results=0)
