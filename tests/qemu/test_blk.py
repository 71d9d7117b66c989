"""NVMe and AHCI drivers and the block layer: self-tests on scratch
disks, partitions, injected errors (blkdebug), timeouts, the boot disk."""
import os
import re
import struct
import subprocess

import pytest

from rig import expect, expect_ok, expect_in_log, selftest, scratch_disk, nvme_disk, blkdebug_nvme, one_record, disks_by_name, selftest_record, sata_disk, hmp_after


def expect_failed_io_line(r, op, block, text):
    """A console line naming the device, the failed block range (which
    holds block) and the decoded NVMe status."""
    pat = re.compile(r'nvme1n1: %s of blocks (\d+)\.\.(\d+) failed: %s' % (op, re.escape(text)))
    hits = [m for m in pat.finditer(r.log) if int(m.group(1)) <= block <= int(m.group(2))]
    expect(hits, 'no "nvme1n1: %s of blocks a..b failed: %s" line with a <= %d <= b' % (op, text, block))


def test_nvme_blk_selftest(ctx):
    # test=blk on a 256 MiB scratch NVMe that takes 1 MiB commands (mdts=8).
    # Unthrottled, QEMU finishes requests about as fast as the guest issues
    # them; an IOPS cap makes them queue, so the 40-deep passes really have
    # 32+ commands at the device.
    disk = scratch_disk(ctx, 'scratch.img', 256 << 20)
    d, r = selftest(ctx, 'blk', 'blkdev=nvme1n1', timeout=240,
                    extra=nvme_disk(disk, 'scratch', ',throttling.iops-total=1000', ',mdts=8'))
    expect(d['verify_errors'] == 0 and d['io_errors'] == 0, 'blk selftest %r' % d)
    n = one_record(r, 'nvme', name='nvme1')
    expect(n['ok'] and n['interrupts'] == 'msix' and n['serial'] == 'scratch' and n['model'] == 'QEMU NVMe Ctrl',
           'nvme record %r' % n)
    expect(n['queue_depth'] >= 32 and n['queue_entries'] >= 64 and n['mdts'] == 8 and n['max_transfer'] == 1 << 20,
           'nvme limits %r' % n)
    blk = one_record(r, 'blk', name='nvme1n1')
    expect(blk['max_inflight'] >= 32, 'only %d requests in flight at most' % blk['max_inflight'])
    expect(blk['errors'] == 0 and blk['rejected'] == 0, 'blk record %r' % blk)
    st = one_record(r, 'nvme_stats', name='nvme1')
    expect(st['max_command_bytes'] == 1 << 20, 'largest command %d bytes, expected 1 MiB' % st['max_command_bytes'])
    expect(st['errors'] == st['timeouts'] == st['resets'] == 0, 'nvme_stats %r' % st)
    irq = r.find('irq')[0]
    expect(irq['unexpected'] == 0 and any(v['name'].startswith('nvme1 io') and v['count'] > 0 for v in irq['vectors']),
           'I/O vector of nvme1 never fired: %r' % irq)


@pytest.mark.uefi    # the boot disk is found by the ESP the loader names
def test_nvme_boot_disk(ctx):
    # The boot NVMe: found, its ESP listed, and refused as a scratch disk.
    r = ctx.boot('quiet test=blk blkdev=nvme0n1p1', timeout=90)
    expect_ok(r)
    n = one_record(r, 'nvme', name='nvme0')
    expect(n['ok'] and n['serial'] == 'boot0' and [x['name'] for x in n['namespaces']] == ['nvme0n1'],
           'nvme record %r' % n)
    disks = disks_by_name(r)
    expect('nvme0n1' in disks and disks['nvme0n1']['boot_disk'] is True, 'boot disk not marked: %r' % disks)
    esp = disks.get('nvme0n1p1')
    expect(esp and esp['type'] == 'EFI System' and esp['disk'] == 'nvme0n1' and esp['boot_disk'] is True,
           'ESP %r' % esp)
    expect_in_log(r, 'blk: nvme0n1p1 holds the boot partition: it is never written')
    expect(not selftest_record(r, 'blk')['ok'], 'test=blk on the boot disk should fail')
    # The boot disk's only writes are the results file's (test_results.py
    # checks that every other ESP file stays byte-identical).
    expect(one_record(r, 'blk', name='nvme0n1p1')['writes'] == 0, 'the boot partition was written')
    expect_in_log(r, 'results: records also go to results/0001.jsonl on nvme0n1 ')
    expect(one_record(r, 'blk', name='nvme0n1')['write_bytes'] <= 4 << 20, 'the boot disk was written beyond the results file')


def test_nvme_gpt_partitions(ctx):
    # A GPT scratch disk made with sgdisk: its three partitions listed with
    # names, sizes and type names; blkedge on the swap partition checks the
    # partition's own end, and its last block lands at the right disk LBA.
    img = scratch_disk(ctx, 'gpt.img', 64 << 20)
    subprocess.run(['sgdisk', '-n', '1:2048:+16M', '-t', '1:8300', '-c', '1:data',
                    '-n', '2:0:+24M', '-t', '2:8200', '-c', '2:swap0',
                    '-n', '3:0:0', '-t', '3:0700', '-c', '3:scratch', img], check=True, capture_output=True)
    d, r = selftest(ctx, 'blkedge', 'blkdev=nvme1n1p2', extra=nvme_disk(img, 'gpt'))
    disks = disks_by_name(r)
    want = {'nvme1n1p1': (2048, 32768, 'Linux filesystem', 'data'),
            'nvme1n1p2': (34816, 49152, 'Linux swap', 'swap0'),
            'nvme1n1p3': (83968, 131038 - 83968 + 1, 'Microsoft basic data', 'scratch')}
    expect(disks.get('nvme1n1', {}).get('blocks') == 131072, 'disk nvme1n1 %r' % disks.get('nvme1n1'))
    for name, (start, blocks, tname, label) in want.items():
        p = disks.get(name)
        expect(p is not None, 'partition %s missing (have %s)' % (name, sorted(disks)))
        got = (p['start_lba'], p['blocks'], p['type'], p['label'], p['disk'], p['bytes'], p['boot_disk'])
        expect(got == (start, blocks, tname, label, 'nvme1n1', blocks * 512, False), '%s is %r' % (name, got))
    expect(d['rejected'] == 8 and d['callbacks'] == 0 and d['last_block_read_back'], 'blkedge %r' % d)
    with open(img, 'rb') as f:
        f.seek((34816 + 49152 - 1) * 512)
        last = f.read(512)
    expect(struct.unpack('<Q', last[:8])[0] == 49151 and last[8:] == b'\x5a' * 504,
           'the last block of nvme1n1p2 did not land at disk LBA 83967')


def test_nvme_blkedge_namespaces(ctx):
    # One controller, two namespaces (512-byte and 4 KiB blocks), which
    # share its command slots; blkedge on each whole disk.  A one-entry
    # MSI-X table makes both queues share a vector (the MSI/INTx path).
    a, b = scratch_disk(ctx, 'ns1.img', 16 << 20), scratch_disk(ctx, 'ns2.img', 16 << 20)
    extra = ['-drive', 'if=none,id=ns1,format=raw,file=' + a, '-drive', 'if=none,id=ns2,format=raw,file=' + b,
             '-device', 'nvme,id=nv1,serial=multi,msix_qsize=1',
             '-device', 'nvme-ns,drive=ns1,bus=nv1,nsid=1',
             '-device', 'nvme-ns,drive=ns2,bus=nv1,nsid=2,logical_block_size=4096,physical_block_size=4096']
    for dev, bs in (('nvme1n1', 512), ('nvme1n2', 4096)):
        d, r = selftest(ctx, 'blkedge', 'blkdev=' + dev, extra=extra)
        expect(d['blocks'] == (16 << 20) // bs and d['rejected'] == 8 and d['callbacks'] == 0, 'blkedge %r' % d)
        expect(d['write_not_writable'] == -30 and d['read_at_end'] == -22 and d['last_block_read_back'],
               'blkedge %r' % d)
    n = one_record(r, 'nvme', name='nvme1')
    expect(n['interrupts'] == 'msix', 'interrupts %r' % n['interrupts'])
    irq = r.find('irq')[0]
    expect(any(v['name'] == 'nvme1' and v['count'] > 0 for v in irq['vectors']), 'no shared nvme1 vector: %r' % irq)
    got = [(x['nsid'], x['name'], x['block_size']) for x in n['namespaces']]
    expect(got == [(1, 'nvme1n1', 512), (2, 'nvme1n2', 4096)], 'namespaces %r' % got)
    disks = disks_by_name(r)
    expect(disks['nvme1n1']['queue_depth'] + disks['nvme1n2']['queue_depth'] <= n['queue_depth'],
           'namespaces oversubscribe the command slots: %r' % disks)


def nvme_injected_error(ctx, iotype, sector, text):
    img = scratch_disk(ctx, 'bad.img', 64 << 20)
    r = ctx.boot('quiet test=blk blkdev=nvme1n1 blktest_mib=4', timeout=120,
                 extra=blkdebug_nvme(img, 'bad', iotype, sector))
    expect_ok(r)
    s = selftest_record(r, 'blk')
    expect(not s['ok'] and s['data']['io_errors'] > 0, 'the selftest saw no I/O error: %r' % s)
    expect_failed_io_line(r, iotype, sector, text)
    st = one_record(r, 'nvme_stats', name='nvme1')
    expect(st['errors'] > 0 and st['timeouts'] == 0 and st['resets'] == 0, 'nvme_stats %r' % st)
    return r


def test_nvme_read_error_injected(ctx):
    nvme_injected_error(ctx, 'read', 1000, 'media error: unrecovered read error (sct 2 sc 0x81)')


def test_nvme_write_error_injected(ctx):
    nvme_injected_error(ctx, 'write', 5004, 'media error: write fault (sct 2 sc 0x80)')


@pytest.mark.slow
@pytest.mark.parametrize('smp', [1, 2])
def test_nvme_timeout_reset(ctx, smp):
    # A disk throttled to 1 KiB/s: test=blk's first writes stay in flight
    # past the command timeout (nvme_timeout=10000: 10 s instead of Linux's
    # 30), the driver resets the controller and fails them.  When the
    # kernel says the reset is done, the test lifts the throttle through
    # the monitor, so the rest of the run goes through on the reset
    # controller (a fixed delay was host-paced: under load the firmware
    # alone can take longer than it).  On 2 CPUs the controller has an
    # I/O queue pair per CPU, and the reset recreates both.
    img = scratch_disk(ctx, 'slow.img', 64 << 20)
    sock = ctx.path('mon.sock')
    if os.path.exists(sock):
        os.unlink(sock)
    lifted = []

    def on_line(line):
        if not lifted and 'nvme1: controller reset done' in line:
            lifted.append(hmp_after(sock, 0, 'block_set_io_throttle slow 0 0 0 0 0 0'))
    r = ctx.boot('quiet test=blk blkdev=nvme1n1 blktest_mib=1 nvme_timeout=10000', timeout=300,
                 extra=nvme_disk(img, 'slow', ',throttling.bps-total=1024', ',mdts=8') +
                 ['-monitor', 'unix:%s,server=on,wait=off' % sock], on_line=on_line, smp=smp)
    for t in lifted:
        t.join(1)
    expect_ok(r)
    expect_in_log(r, 'nvme1: command timeout: resetting the controller')
    expect_in_log(r, 'nvme1: controller reset done, queues up again')
    # The reset fails what is still in flight (no line when nothing is).
    m = re.search(r'nvme1: failing (\d+) command\(s\) that were in flight, (\d+) of them timed out', r.log)
    in_flight, timed_out = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    # Each command past its deadline either is failed by the reset, or its
    # completion came in before the reset disabled the controller (QEMU
    # lets throttled requests through when the reset drains them) and it
    # stands.  Each says which on the console, and the two add up to the
    # timeouts counted.
    failed = re.findall(r'nvme1n1: write of blocks \d+\.\.\d+ failed: timed out \(no completion in 10000 ms\)', r.log)
    late = re.findall(r'nvme1n1: write of blocks \d+\.\.\d+ completed: past its 10000 ms deadline', r.log)
    expect(len(failed) == timed_out, 'timed-out write lines %r vs %d' % (failed, timed_out))
    st = one_record(r, 'nvme_stats', name='nvme1')
    expect(st['resets'] == 1 and st['timeouts'] >= 1 and st['timeouts'] == len(failed) + len(late),
           'nvme_stats %r, %d failed and %d late lines' % (st, len(failed), len(late)))
    # Everything after the reset worked: the only failures are the commands
    # the reset failed.
    expect(st['errors'] == in_flight, 'nvme_stats %r' % st)
    s = selftest_record(r, 'blk')
    expect('mib_read_verify' in s['data'], 'the selftest did not run to the end: %r' % s)
    n = one_record(r, 'nvme', name='nvme1')
    expect(n['io_queues'] == smp and len(st['queues']) == smp, 'I/O queues: %r, %r' % (n, st))
    blk = one_record(r, 'blk', name='nvme1n1')
    expect(blk['reads'] > 0 and blk['errors'] == st['errors'], 'blk %r vs nvme_stats %r' % (blk, st))


def ahci_ports(r):
    a = one_record(r, 'ahci', controller='00:1f.2')
    expect(a['id'] == '8086:2922' and a['ncq'] and a['slots'] == 32 and a['interrupt'] == 'msi',
           'ahci record %r' % a)
    return {p['port']: p for p in a['ports']}


def test_ahci_blk_selftest(ctx):
    # test=blk on a 256 MiB scratch disk on port 1: NCQ, 32 tags, 1 MiB
    # commands.  An IOPS cap makes commands queue at the device, so the
    # 40-deep passes really have 32 NCQ commands outstanding.  The cap
    # counts host time: at 2000 IOPS a guest slowed by a busy host (TCG)
    # took longer than 16 ms to issue 32 commands and saw only 24 in
    # flight; 500 IOPS gives it 64 ms (about 2100 commands: 4 s).
    disk = scratch_disk(ctx, 'scratch.img', 256 << 20)
    d, r = selftest(ctx, 'blk', 'blkdev=sata1', timeout=240,
                    disks=[sata_disk(disk, ',throttling.iops-total=500')])
    expect(d['verify_errors'] == 0 and d['io_errors'] == 0, 'blk selftest %r' % d)
    ports = ahci_ports(r)
    expect(list(ports) == [1], 'ports with a disk: %r (empty ports are skipped quietly)' % ports)
    p = ports[1]
    expect(p['name'] == 'sata1' and p['model'] == 'QEMU HARDDISK' and p['sectors'] == (256 << 20) // 512 and
           p['sector_size'] == 512 and p['ncq_depth'] == 32 and p['queue_depth'] == 32, 'port 1 %r' % p)
    blk = one_record(r, 'blk', name='sata1')
    expect(blk['max_inflight'] >= 32, 'only %d requests in flight at most' % blk['max_inflight'])
    expect(blk['errors'] == 0 and blk['rejected'] == 0, 'blk record %r' % blk)
    st = one_record(r, 'ahci_port', name='sata1')
    expect(st['max_in_flight'] == 32 and st['max_command_bytes'] == 1 << 20, 'ahci_port %r' % st)
    expect(st['ncq_commands'] == st['commands'] > 0, 'not every command was queued (NCQ): %r' % st)
    expect(st['device_errors'] == st['timeouts'] == st['port_resets'] == 0, 'ahci_port %r' % st)
    irq = r.find('irq')[0]
    expect(irq['unexpected'] == 0 and any(v['name'] == 'ahci0' and v['count'] > 0 for v in irq['vectors']),
           'the AHCI vector never fired: %r' % irq)


def test_ahci_gpt_partitions(ctx):
    # A GPT scratch disk made with sgdisk: its partitions listed as sata1p1..
    # with their sizes; blkedge on the second checks its end, and its last
    # block lands at the right disk LBA.
    img = scratch_disk(ctx, 'gpt.img', 64 << 20)
    subprocess.run(['sgdisk', '-n', '1:2048:+16M', '-t', '1:8300', '-c', '1:data',
                    '-n', '2:0:+8M', '-t', '2:8200', '-c', '2:swap0',
                    '-n', '3:0:0', '-t', '3:0700', '-c', '3:rest', img], check=True, capture_output=True)
    d, r = selftest(ctx, 'blkedge', 'blkdev=sata1p2', disks=[sata_disk(img)])
    disks = disks_by_name(r)
    whole = disks.get('sata1', {})
    expect(whole.get('blocks') == 131072 and whole.get('model') == 'QEMU HARDDISK' and not whole.get('boot_disk'),
           'disk sata1 %r' % whole)
    want = {'sata1p1': (2048, 32768, 'Linux filesystem', 'data'),
            'sata1p2': (34816, 16384, 'Linux swap', 'swap0'),
            'sata1p3': (51200, 131038 - 51200 + 1, 'Microsoft basic data', 'rest')}
    for name, (start, blocks, tname, label) in want.items():
        p = disks.get(name)
        expect(p is not None, 'partition %s missing (have %s)' % (name, sorted(disks)))
        got = (p['start_lba'], p['blocks'], p['type'], p['label'], p['disk'], p['bytes'], p['boot_disk'])
        expect(got == (start, blocks, tname, label, 'sata1', blocks * 512, False), '%s is %r' % (name, got))
        expect(re.search(r'^  %s +%d MiB' % (name, blocks * 512 >> 20), r.log, re.M), 'no text line for %s' % name)
    expect(d['rejected'] == 8 and d['callbacks'] == 0 and d['last_block_read_back'], 'blkedge %r' % d)
    with open(img, 'rb') as f:
        f.seek((34816 + 16384 - 1) * 512)
        last = f.read(512)
    expect(struct.unpack('<Q', last[:8])[0] == 16383 and last[8:] == b'\x5a' * 504,
           'the last block of sata1p2 did not land at disk LBA %d' % (34816 + 16384 - 1))


def ahci_injected_error(ctx, iotype, sector):
    # Every <iotype> touching <sector> fails (blkdebug, qemu-rig.md section
    # 6); QEMU's AHCI device reports it with ERR+ABRT (PxTFD 0x441).
    img = scratch_disk(ctx, 'bad.img', 64 << 20)
    conf = ctx.path('bad.conf')
    with open(conf, 'w') as f:
        f.write('[inject-error]\nevent = "none"\niotype = "%s"\nerrno = "5"\nsector = "%d"\n' % (iotype, sector))
    r = ctx.boot('quiet test=blk blkdev=sata1 blktest_mib=16', timeout=120,
                 disks=[sata_disk('blkdebug:%s:%s' % (conf, img))])
    expect_ok(r)
    s = selftest_record(r, 'blk')
    expect(not s['ok'] and s['data']['io_errors'] > 0, 'the selftest saw no I/O error: %r' % s)
    pat = re.compile(r'sata1: %s of blocks (\d+)\.\.(\d+) failed: device error '
                     r'\(status 0x[0-9a-f]{2} error 0x04: aborted\)' % iotype)
    hits = [m for m in pat.finditer(r.log) if int(m.group(1)) <= sector <= int(m.group(2))]
    expect(hits, 'no "sata1: %s of blocks a..b failed: device error (... aborted)" line with a <= %d <= b'
           % (iotype, sector))
    expect_in_log(r, 'sata1: port reset (COMRESET) after a device error')
    st = one_record(r, 'ahci_port', name='sata1')
    expect(st['state'] == 'running' and st['device_errors'] > 0 and st['port_resets'] == st['device_errors'] and
           st['timeouts'] == 0, 'ahci_port %r' % st)
    blk = one_record(r, 'blk', name='sata1')
    expect(blk['errors'] > 0, 'blk record counts no error: %r' % blk)
    expect('mib_read_verify' in s['data'], 'the selftest did not run to the end: %r' % s)


def test_ahci_read_error_injected(ctx):
    ahci_injected_error(ctx, 'read', 1000)


def test_ahci_write_error_injected(ctx):
    ahci_injected_error(ctx, 'write', 5004)


def test_ahci_boot_disk(ctx):
    # Booted from SATA: sata0 is the boot disk, its ESP listed, and it is
    # refused as a scratch disk.
    r = ctx.boot('quiet test=blk blkdev=sata0p1', boot='sata', timeout=90)
    expect_ok(r)
    ports = ahci_ports(r)
    expect(list(ports) == [0] and ports[0]['name'] == 'sata0', 'ports %r' % ports)
    disks = disks_by_name(r)
    expect(disks.get('sata0', {}).get('boot_disk') is True, 'boot disk not marked: %r' % disks)
    esp = disks.get('sata0p1')
    expect(esp and esp['type'] == 'EFI System' and esp['disk'] == 'sata0' and esp['boot_disk'] is True,
           'ESP %r' % esp)
    expect(re.search(r'^disk sata0 .*\(boot disk\)$', r.log, re.M), 'the disk list does not mark sata0')
    expect_in_log(r, 'blk: sata0p1 holds the boot partition: it is never written')
    expect(not selftest_record(r, 'blk')['ok'], 'test=blk on the boot disk should fail')
    # The boot disk's only writes are the results file's (test_results.py
    # checks that every other ESP file stays byte-identical).
    expect(one_record(r, 'blk', name='sata0p1')['writes'] == 0, 'the boot partition was written')
    expect_in_log(r, 'results: records also go to results/0001.jsonl on sata0 ')
    expect(one_record(r, 'blk', name='sata0')['write_bytes'] <= 4 << 20, 'the boot disk was written beyond the results file')


# ------------------------------------------------------------ block layer: errors in merged commands

SPLIT_WRITE_BAD = 13 * 8 + 3    # a sector of blksplit's request 13 (4 KiB requests from block 0)
SPLIT_READ_BAD = 22 * 8 + 7     # and of request 22


def expect_split_isolated(r, dev):
    """test=blksplit with a write error under request 13 and a read error
    under request 22: the 32 plugged requests merged, the failed merged
    command was taken apart, and only those two requests failed (and
    request 22 again in the chained read)."""
    expect_ok(r)
    s = selftest_record(r, 'blksplit')
    d = s['data']
    expect(s['ok'], 'blksplit failed: %r' % s)
    expect(d['write_failed'] == [13] and d['read_failed'] == [22] and d['chain_failed'] == [22],
           'failed requests %r' % d)
    expect(d['chain_max_depth'] == 1, 'callbacks nested: %r' % d)
    expect(d['write_merges'] >= 31 and d['read_merges'] >= 31, 'the batches did not merge: %r' % d)
    expect(d['retried_alone'] == 64 and d['verified'] == 30 and d['verify_errors'] == 0, 'blksplit %r' % d)
    blk = one_record(r, 'blk', name=dev)
    expect(blk['failed_reqs'] == 3 and blk['retried_alone'] == 64, 'blk record %r' % blk)
    for op, block in (('write', SPLIT_WRITE_BAD), ('read', SPLIT_READ_BAD)):
        first = block // 8 * 8
        expect('%s: %s of blocks %d..%d failed' % (dev, op, first, first + 7) in r.log,
               'no failure line for the %s request alone (blocks %d..%d)' % (op, first, first + 7))


def test_nvme_merged_error_isolated(ctx):
    # One bad sector inside a merged 128 KiB write, another inside a merged
    # read: each fails only the 4 KiB request that holds it.
    img = scratch_disk(ctx, 'split.img', 64 << 20)
    node = ('{"driver":"raw","node-name":"split","file":{"driver":"blkdebug","inject-error":'
            '[{"event":"none","iotype":"write","sector":%d,"errno":5},'
            '{"event":"none","iotype":"read","sector":%d,"errno":5}],'
            '"image":{"driver":"file","filename":"%s"}}}' % (SPLIT_WRITE_BAD, SPLIT_READ_BAD, img))
    r = ctx.boot('quiet test=blksplit blkdev=nvme1n1', timeout=120,
                 extra=['-blockdev', node, '-device', 'nvme,serial=split,drive=split,mdts=8'])
    expect_split_isolated(r, 'nvme1n1')
    st = one_record(r, 'nvme_stats', name='nvme1')
    # Two failed merged commands, the two requests alone, the chained read.
    expect(st['errors'] == 5 and st['timeouts'] == 0 and st['resets'] == 0, 'nvme_stats %r' % st)


def test_ahci_merged_error_isolated(ctx):
    # The same on SATA: the failed merged command, then the failed NCQ
    # retry among 31 good ones, each cost a port reset.
    img = scratch_disk(ctx, 'split.img', 64 << 20)
    conf = ctx.path('split.conf')
    with open(conf, 'w') as f:
        for iotype, sector in (('write', SPLIT_WRITE_BAD), ('read', SPLIT_READ_BAD)):
            f.write('[inject-error]\nevent = "none"\niotype = "%s"\nerrno = "5"\nsector = "%d"\n' % (iotype, sector))
    r = ctx.boot('quiet test=blksplit blkdev=sata1', timeout=180, disks=[sata_disk('blkdebug:%s:%s' % (conf, img))])
    expect_split_isolated(r, 'sata1')
    st = one_record(r, 'ahci_port', name='sata1')
    expect(st['state'] == 'running' and st['timeouts'] == 0, 'ahci_port %r' % st)


# ------------------------------------------------------------ block layer: boot disk protection

def unreadable_gpt_disk(ctx):
    """A blank NVMe disk whose LBA 1 (the primary GPT header) cannot be
    read: its partition table is unknown."""
    img = scratch_disk(ctx, 'nogpt.img', 16 << 20)
    node = ('{"driver":"raw","node-name":"nogpt","file":{"driver":"blkdebug","inject-error":'
            '[{"event":"none","iotype":"read","sector":1,"errno":5}],'
            '"image":{"driver":"file","filename":"%s"}}}' % img)
    return img, ['-blockdev', node, '-device', 'nvme,serial=nogpt,drive=nogpt']


@pytest.mark.uefi    # its second boot needs the boot disk found through the loader's ESP
def test_blk_unreadable_gpt_refused_while_boot_disk_missing(ctx):
    # Booted from USB on EHCI (no driver here, so the boot disk is never found):
    # a disk whose GPT cannot be read might be the boot disk, and is not
    # written.  Booted from NVMe (the boot disk found first), the same
    # disk is just a scratch disk.
    import hashlib
    img, extra = unreadable_gpt_disk(ctx)
    r = ctx.boot('quiet test=blkedge blkdev=nvme0n1', boot='usb-ehci', extra=extra, timeout=180)
    expect_ok(r)
    disks = disks_by_name(r)
    expect(disks['nvme0n1']['gpt_unreadable'] is True, 'disk %r' % disks['nvme0n1'])
    expect_in_log(r, 'blk: nvme0n1: partition table unusable: primary: read error; backup: ')
    expect_in_log(r, 'blk: nvme0n1: partition table unreadable and the boot disk not found: '
                     'it may be the boot disk, so it is not written')
    # LBA 0-1 failed together, then LBA 1 alone; nothing else of the scan.
    expect(r.log.count('nvme0n1: read of blocks 0..1 failed') == 1 and
           r.log.count('nvme0n1: read of blocks 1..1 failed') == 1, 'GPT scan reads of the bad sector')
    expect(not selftest_record(r, 'blkedge')['ok'], 'blkedge should fail on a refused disk')
    expect(one_record(r, 'blk', name='nvme0n1')['writes'] == 0, 'the disk was written')
    before = hashlib.sha256(open(img, 'rb').read()).hexdigest()
    r = ctx.for_case(ctx.name + '-nvmeboot').boot('quiet test=blkedge blkdev=nvme1n1', boot='nvme', extra=extra)
    expect_ok(r)
    disks = disks_by_name(r)
    expect(disks['nvme0n1']['boot_disk'] is True and disks['nvme1n1']['gpt_unreadable'] is True, 'disks %r' % disks)
    d = selftest_record(r, 'blkedge')
    expect(d['ok'] and d['data']['last_block_read_back'], 'blkedge with the boot disk found: %r' % d)
    expect(hashlib.sha256(open(img, 'rb').read()).hexdigest() != before, 'the scratch disk was not written')
