"""QEMU test cases.  Register a case with @case; it gets a Ctx whose boot()
runs an image and returns a qemurig.Result."""
import os
import re
import socket
import struct
import subprocess
import threading
import time

import qemurig

_CASES = []


def case(fn):
    _CASES.append((fn.__name__, fn))
    return fn


def all_cases():
    return list(_CASES)


class Ctx:
    def __init__(self, build, outdir, name=None):
        self.build, self.outdir, self.name = build, outdir, name

    def for_case(self, name):
        return Ctx(self.build, self.outdir, name)

    @property
    def image(self):
        return os.path.join(self.build, 'disk.img')

    def path(self, suffix):
        return os.path.join(self.outdir, '%s.%s' % (self.name, suffix))

    def boot(self, cmdline='', image=None, timeout=60, **kw):
        r = qemurig.run(image or self.image, cmdline=cmdline, timeout=timeout,
                        log_path=self.path('log'), workdir=self.outdir, **kw)
        return r

    def make_image(self, kernel=None, files=(), cmdline=''):
        """A custom image in the output dir (kernel=None: the built kernel)."""
        out = self.path('img')
        args = [os.path.join('tools', 'mkimage'), '-o', out, '-l', os.path.join(self.build, 'BOOTX64.EFI'),
                '-c', cmdline]
        if kernel != '':
            args += ['-k', kernel or os.path.join(self.build, 'kernel.elf')]
        subprocess.run(args + list(files), check=True)
        return out


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_ok(r):
    expect(r.status == 'ok', 'expected a clean halt, got %s (QEMU exit %s)' % (r.status, r.rc))


def boot_record(r):
    b = r.find('boot')
    expect(len(b) == 1, 'expected one boot record, found %d' % len(b))
    return b[0]


def expect_in_log(r, text):
    expect(text in r.log, 'console lacks %r' % text)


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
    # (cases_tsc.boot_clock_icount).
    expect(b['nx'] and b['smep'] and b['smap'], 'NX/SMEP/SMAP not all on with -cpu max')
    for text in ('kernel: image', '.text', 'r-x', '.rodata', 'r-- nx', 'direct map', 'memory map:'):
        expect_in_log(r, text)
    expect(r.log.rstrip().splitlines()[-1].startswith('{"type":"halt"'), 'halt record is not the last line')


@case
def boot_nvme(ctx):
    check_boot_report(ctx.boot(boot='nvme'))


@case
def boot_sata(ctx):
    check_boot_report(ctx.boot(boot='sata'))


@case
def boot_usb(ctx):
    check_boot_report(ctx.boot(boot='usb'))


@case
def boot_with_framebuffer(ctx):
    # A VGA device gives OVMF a GOP framebuffer; the console draws on it.
    r = ctx.boot(extra=['-device', 'VGA'])
    expect_ok(r)
    b = boot_record(r)
    expect(b['framebuffer'] is True, 'no framebuffer reported with -device VGA')
    expect_in_log(r, 'framebuffer: ')


@case
def boot_4g_unsorted_map(ctx):
    # q35 with 4 GiB splits RAM around the PCI hole and lists it unsorted.
    r = ctx.boot(mem='4G')
    expect_ok(r)
    b = boot_record(r)
    expect(b['usable_bytes'] > (3800 << 20), 'usable %d MiB with -m 4G' % (b['usable_bytes'] >> 20))


# ------------------------------------------------------------ mem=

@case
def mem_cap_64m(ctx):
    r = ctx.boot('mem=64M')
    expect_ok(r)
    b = boot_record(r)
    expect(b['usable_bytes'] == 64 << 20, 'usable_bytes %d != 64 MiB' % b['usable_bytes'])
    expect(b['mem_cap_bytes'] == 64 << 20, 'mem_cap_bytes %r' % b['mem_cap_bytes'])
    expect(b['managed_bytes'] <= 64 << 20, 'allocator manages %d > cap' % b['managed_bytes'])


@case
def mem_cap_above_ram(ctx):
    r = ctx.boot('mem=100G')
    expect_ok(r)
    expect_in_log(r, 'mem=102400 MiB exceeds the')
    expect(boot_record(r)['usable_bytes'] > 200 << 20, 'all RAM should be used')


@case
def mem_cap_too_small(ctx):
    r = ctx.boot('mem=1M')
    expect_ok(r)
    expect_in_log(r, 'mem=1024 KiB is below the 8 MiB needed to boot; using 8 MiB')
    expect(boot_record(r)['usable_bytes'] == 8 << 20, 'usable should be 8 MiB')


# ------------------------------------------------------------ command line

@case
def cmdline_unknown_option(ctx):
    r = ctx.boot('frobnicate=3 mem=96M')
    expect_ok(r)
    expect_in_log(r, "cmdline: unknown option 'frobnicate' ignored")
    expect(boot_record(r)['usable_bytes'] == 96 << 20, 'mem= after the unknown option was lost')


@case
def cmdline_malformed_option(ctx):
    r = ctx.boot('mem=lots poison=maybe run="unterminated')
    expect_ok(r)
    expect_in_log(r, 'cmdline: mem=lots: expected a size')
    expect_in_log(r, 'cmdline: poison=maybe: expected on/off')
    expect_in_log(r, 'unterminated quote')
    expect(boot_record(r)['mem_cap_bytes'] is None, 'bad mem= must keep the default')


# ------------------------------------------------------------ faults

def expect_panic(r, *texts):
    expect(r.status == 'panic', 'expected a panic, got %s' % r.status)
    expect(r.rc == 3, 'QEMU exit %s, expected 3 (isa-debug-exit 1)' % r.rc)
    p = r.find('panic')
    expect(len(p) == 1, 'expected one panic record')
    expect(r.halt()['status'] == 'panic' and r.halt().get('reason'), 'halt record lacks panic status/reason')
    for t in ('*** EXCEPTION:', 'RIP ', 'CR2 ', 'RAX ', 'R15 ', 'Backtrace:') + texts:
        expect_in_log(r, t)
    return p[0]


@case
def fault_page_fault_report(ctx):
    r = ctx.boot('test=pagefault')
    p = expect_panic(r, 'Page fault (#PF), vector 14', '[read, not present, kernel]',
                     'CR2 000000000dead000', 'deliberate_page_fault+', 'selftest_run+', 'kmain+')
    expect(p['vector'] == 14 and p['cr2'] == '0xdead000', 'panic record %r' % p)


@case
def fault_write_to_text(ctx):
    r = ctx.boot('test=wx')
    p = expect_panic(r, '[write, protection violation, kernel]', 'write_kernel_text+', 'kmain+')
    expect(p['error_code'] == '0x3', 'error code %s' % p['error_code'])


@case
def fault_exec_data(ctx):
    r = ctx.boot('test=nx')
    expect_panic(r, '[instruction fetch, protection violation, kernel]')


@case
def fault_stack_guard(ctx):
    r = ctx.boot('test=stackoverflow')
    expect_panic(r, 'Double fault (#DF)', 'ran into its guard page', 'recurse')


@case
def panic_call(ctx):
    r = ctx.boot('test=panic')
    expect(r.status == 'panic', 'status %s' % r.status)
    expect_in_log(r, '*** PANIC: selftest: deliberate panic')
    expect_in_log(r, 'selftest_run+')


@case
def heap_selftest(ctx):
    r = ctx.boot('test=heap poison=on')
    expect_ok(r)
    s = r.find('selftest')
    expect(s and s[0]['ok'], 'heap selftest failed: %r' % s)


# ------------------------------------------------------------ loader

@case
def loader_missing_kernel(ctx):
    img = ctx.make_image(kernel='')
    r = ctx.boot(image=img, stop_pattern='returning to firmware', timeout=40)
    expect_in_log(r, 'boot: error: no \\kernel.elf on the ESP')
    expect(not r.find('boot'), 'a kernel booted without kernel.elf?')


@case
def loader_corrupt_kernel(ctx):
    bad = ctx.path('bad.elf')
    with open(bad, 'wb') as f:
        f.write(b'\x7fELF' + bytes(4000))
    img = ctx.make_image(kernel=bad)
    r = ctx.boot(image=img, stop_pattern='returning to firmware', timeout=40)
    expect_in_log(r, 'boot: error: \\kernel.elf: not an x86-64 ELF64 file')


@case
def loader_hands_over_files(ctx):
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


# ------------------------------------------------------------ threads, time

def selftest(ctx, name, cmdline='', timeout=90, **kw):
    r = ctx.boot('test=%s quiet %s' % (name, cmdline), timeout=timeout, **kw)
    expect_ok(r)
    s = [x for x in r.find('selftest') if x.get('name') == name]
    expect(len(s) == 1, 'no selftest record for %s' % name)
    expect(s[0]['ok'], '%s selftest failed: %r' % (name, s[0]))
    return s[0].get('data', {}), r


@case
def threads_interleave(ctx):
    d, _ = selftest(ctx, 'threads')
    expect(d['yield_steps'] == 400 and d['yield_alternations'] >= 300, 'yield interleave %r' % d)
    expect(d['busy_switches'] >= 20, 'busy threads not preempted: %r' % d)


# The timing self-tests (sleep, timer) are in cases_time.py, under -icount.


@case
def context_switch_cost(ctx):
    d, _ = selftest(ctx, 'ctxsw')
    expect(d['switches'] >= 2 * d['rounds'] - 2, 'ping-pong switches %r' % d)


@case
def mutex_serialises(ctx):
    d, _ = selftest(ctx, 'mutex')
    expect(d['counter'] == 2000 and d['collisions'] == 0, 'mutex %r' % d)


@case
def rt_wakeups_under_load(ctx):
    # Under -icount guest time counts instructions, so the host's own load
    # (the other test QEMU, a busy CI machine) cannot make deadlines late;
    # what is left is the kernel's own wakeup latency.  Slow: ~70 s.
    d, _ = selftest(ctx, 'rt', timeout=300, icount=True)
    expect(d['met_1ms'] * 10 >= d['periods'] * 9, 'RT probe missed deadlines: %r' % d)


@case
def irq_record_on_halt(ctx):
    r = ctx.boot('quiet')
    expect_ok(r)
    irq = r.find('irq')
    expect(irq, 'no irq record')
    expect(irq[0]['unexpected'] == 0 and irq[0]['spurious'] == 0, 'unexpected interrupts: %r' % irq[0])
    expect(any(v['name'] == 'timer' for v in irq[0]['vectors']), 'timer vector not counted')
    b = boot_record(r)
    expect(b['ioapics'] >= 1 and b['lapic_timer_hz'] > 0 and b['hz'] == 1000, 'boot record apic/timer %r' % b)


# ------------------------------------------------------------ PCI

def pci_devices(r):
    """The one pci record, and its devices by bus:dev.fn."""
    p = r.find('pci')
    expect(len(p) == 1, 'expected one pci record, found %d' % len(p))
    return p[0], {d['bdf']: d for d in p[0]['devices']}


def expect_function(devs, bdf, vendor, device, cls):
    d = devs.get(bdf)
    expect(d is not None, 'no PCI function at %s (have %s)' % (bdf, sorted(devs)))
    got = (d['vendor'], d['device'], d['class'])
    expect(got == (vendor, device, cls), '%s is %s, expected %s' % (bdf, got, (vendor, device, cls)))
    return d


def bar(d, i):
    b = [x for x in d['bars'] if x['bar'] == i]
    expect(b, '%s has no BAR%d: %r' % (d['bdf'], i, d['bars']))
    return b[0]


def expect_qemu_nvme(d):
    expect(d['msix'] == 65, '%s: MSI-X %r, expected 65 vectors' % (d['bdf'], d['msix']))
    b0 = bar(d, 0)
    expect(b0['type'] == 'mem64' and b0['size'] == 16384, '%s BAR0 %r, expected mem64 16 KiB' % (d['bdf'], b0))
    expect(int(b0['base'], 16) != 0, '%s BAR0 unassigned' % d['bdf'])
    expect(d['pcie'] and 0x11 in [int(c, 16) for c in d['caps']], '%s caps %r' % (d['bdf'], d['caps']))


Q35_CHIPSET = {'00:00.0': ('0x8086', '0x29c0', '0x060000'),    # host bridge
               '00:1f.0': ('0x8086', '0x2918', '0x060100'),    # ICH9 LPC
               '00:1f.2': ('0x8086', '0x2922', '0x010601'),    # ICH9 AHCI
               '00:1f.3': ('0x8086', '0x2930', '0x0c0500')}    # ICH9 SMBus


@case
def pci_default_devices(ctx):
    # -nodefaults q35 with the boot NVMe: exactly the chipset and the NVMe.
    r = ctx.boot('quiet')
    expect_ok(r)
    rec, devs = pci_devices(r)
    expect(rec['access'] == 'ecam' and rec['q35'] and rec['buses'] == 1, 'pci record %r' % rec)
    for bdf, ids in Q35_CHIPSET.items():
        expect_function(devs, bdf, *ids)
    expect_qemu_nvme(expect_function(devs, '00:01.0', '0x1b36', '0x0010', '0x010802'))
    expect(set(devs) == set(Q35_CHIPSET) | {'00:01.0'}, 'unexpected functions: %s' % sorted(devs))
    ahci = devs['00:1f.2']
    expect(ahci['msi'] and bar(ahci, 5)['type'] == 'mem32' and bar(ahci, 5)['size'] == 4096 and
           bar(ahci, 4)['type'] == 'io' and bar(ahci, 4)['size'] == 32, 'AHCI %r' % ahci)
    expect_in_log(r, '00:01.0 1b36:0010 01.08.02 NVMe controller')
    expect_in_log(r, 'BAR0 mem64')


@case
def pci_extra_nvme_and_xhci(ctx):
    disk = ctx.path('extra.img')
    with open(disk, 'wb') as f:
        f.truncate(1 << 20)
    r = ctx.boot('quiet', extra=['-drive', 'if=none,id=x,format=raw,file=' + disk,
                                 '-device', 'nvme,serial=x,drive=x', '-device', 'qemu-xhci'])
    expect_ok(r)
    rec, devs = pci_devices(r)
    for bdf, ids in Q35_CHIPSET.items():
        expect_function(devs, bdf, *ids)
    expect_qemu_nvme(expect_function(devs, '00:01.0', '0x1b36', '0x0010', '0x010802'))
    expect_qemu_nvme(expect_function(devs, '00:02.0', '0x1b36', '0x0010', '0x010802'))
    xhci = expect_function(devs, '00:03.0', '0x1b36', '0x000d', '0x0c0330')
    expect(xhci['msix'] == 16 and bar(xhci, 0)['size'] == 16384, 'xHCI %r' % xhci)
    expect(len(devs) == 7, 'unexpected functions: %s' % sorted(devs))
    expect_in_log(r, 'USB xHCI controller')


@case
def pci_bridge_and_extended_caps(ctx):
    # Recursion through a PCIe root port and a PCI-PCI bridge, each with
    # a device behind it; the root port has extended capabilities.
    r = ctx.boot('quiet', extra=['-device', 'pcie-root-port,id=rp1,chassis=1,slot=1',
                                 '-device', 'qemu-xhci,bus=rp1',
                                 '-device', 'pci-bridge,id=br1,chassis_nr=2',
                                 '-device', 'edu,bus=br1,addr=3'])
    expect_ok(r)
    rec, devs = pci_devices(r)
    expect(rec['buses'] == 3, 'buses %r' % rec['buses'])
    rp = expect_function(devs, '00:02.0', '0x1b36', '0x000c', '0x060400')
    expect(0x10001 in [int(c, 16) for c in rp['caps']], 'root port lacks AER (extended) %r' % rp['caps'])
    expect_function(devs, '01:00.0', '0x1b36', '0x000d', '0x0c0330')
    expect_function(devs, '00:03.0', '0x1b36', '0x0001', '0x060400')
    expect_function(devs, '02:03.0', '0x1234', '0x11e8', '0x00ff00')


@case
def pci_legacy_config_i440fx(ctx):
    # i440fx has no MCFG: config access falls back to ports 0xCF8/0xCFC.
    r = ctx.boot('quiet', extra=['-machine', 'pc'])
    expect_ok(r)
    expect_in_log(r, 'pci: no MCFG table: using legacy port I/O config access')
    rec, devs = pci_devices(r)
    expect(rec['access'] == 'cf8' and not rec['q35'], 'pci record %r' % rec)
    expect_function(devs, '00:00.0', '0x8086', '0x1237', '0x060000')
    expect_function(devs, '00:01.0', '0x8086', '0x7000', '0x060100')     # PIIX3, multi-function
    expect_function(devs, '00:01.3', '0x8086', '0x7113', '0x068000')
    nvme = [d for d in devs.values() if d['vendor'] == '0x1b36' and d['device'] == '0x0010']
    expect(len(nvme) == 1, 'NVMe not found over port I/O')
    expect_qemu_nvme(nvme[0])


@case
def pci_many_functions(ctx):
    # 96 edu functions in 12 multi-function slots: every function found,
    # and a record too big for full detail cut down to identities.
    extra = []
    for slot in range(4, 16):
        for fn in range(8):
            extra += ['-device', 'edu,addr=%02x.%d%s' % (slot, fn, ',multifunction=on' if fn == 0 else '')]
    r = ctx.boot('quiet', extra=extra)
    expect_ok(r)
    rec, devs = pci_devices(r)
    expect(rec['functions'] == len(devs) == 101 and not rec['detail'], 'pci record %r' % {
        k: v for k, v in rec.items() if k != 'devices'})
    for slot in range(4, 16):
        for fn in range(8):
            expect_function(devs, '00:%02x.%d' % (slot, fn), '0x1234', '0x11e8', '0x00ff00')


def pci_selftest(ctx, name, extra=('-device', 'edu'), timeout=90):
    r = ctx.boot('test=%s quiet' % name, extra=list(extra), timeout=timeout)
    expect_ok(r)
    s = [x for x in r.find('selftest') if x.get('name') == name]
    expect(len(s) == 1, 'no selftest record for %s' % name)
    expect(s[0]['ok'], '%s selftest failed: %r' % (name, s[0]))
    d = s[0]['data']
    expect(d['delivered'] == d['rounds'] == 100 and d['lost'] == 0, 'interrupts lost: %r' % d)
    expect(d['handler_calls'] == 100, 'handler calls %r' % d)
    irq = r.find('irq')[0]
    expect(irq['unexpected'] == 0 and irq['spurious'] == 0, 'unexpected interrupts %r' % irq)
    return d, r


@case
def pci_msi_edu(ctx):
    d, r = pci_selftest(ctx, 'msi')
    expect(d['device'] == '00:02.0' and d['msi_64bit'], 'msi %r' % d)
    vec = [v for v in r.find('irq')[0]['vectors'] if v['name'] == 'edu-msi']
    expect(vec and vec[0]['count'] == 100, 'edu-msi vector count %r' % vec)


@case
def pci_msix_nvme(ctx):
    # A spare NVMe (the test resets the controller it uses: the last one).
    disk = ctx.path('spare.img')
    with open(disk, 'wb') as f:
        f.truncate(1 << 20)
    d, _ = pci_selftest(ctx, 'msix', extra=['-drive', 'if=none,id=spare,format=raw,file=' + disk,
                                            '-device', 'nvme,serial=spare,drive=spare'])
    expect(d['device'] == '00:02.0' and d['msix_table_size'] == 65, 'msix %r' % d)
    expect(d['masked_held'] and d['unmask_delivered'], 'MSI-X masking %r' % d)
    expect(int(d['bar0'], 16) >= 1 << 32, 'BAR0 %s: OVMF no longer puts 64-bit BARs above 4 GiB, '
           'so this no longer tests mapping them' % d['bar0'])


@case
def pci_intx_edu(ctx):
    # q35: slot 2 INTA -> PIRQG -> GSI 22, level (see drivers/pci.c).
    d, _ = pci_selftest(ctx, 'intx')
    expect(d['gsi'] == 22 and d['level'] and d['pin'] == 1, 'intx route %r' % d)


@case
def pci_intx_shared_and_bridged(ctx):
    # Two edus whose INTA meet on GSI 22 (slots 2 and 6) share a vector.
    d, _ = pci_selftest(ctx, 'intx', extra=['-device', 'edu', '-device', 'edu,addr=06.0'])
    expect(d['second']['gsi'] == d['gsi'] == 22 and d['second']['vector'] == d['vector'], 'shared %r' % d)
    # The second's handler ran for each of the first's 100 interrupts and
    # found nothing of its own (the kernel checks the converse).
    s = d['second_stats']
    expect(s['delivered'] == 100 and s['not_ours'] >= 100, 'sharing %r' % d)
    # Behind a PCI-PCI bridge at 00:02.0: INTA of slot 3 swizzles to INTD
    # at the bridge, which q35 sends to GSI 20 + (2 + 3) % 4 = 21.
    d, _ = pci_selftest(ctx, 'intx', extra=['-device', 'pci-bridge,id=br1,chassis_nr=1',
                                            '-device', 'edu,bus=br1,addr=3'])
    expect(d['device'] == '01:03.0' and d['gsi'] == 21, 'bridged intx %r' % d)


@case
def pci_selftest_without_edu(ctx):
    r = ctx.boot('test=msi quiet')
    expect_ok(r)
    s = [x for x in r.find('selftest') if x.get('name') == 'msi']
    expect(s and not s[0]['ok'], 'msi selftest without edu should fail: %r' % s)
    expect_in_log(r, 'no edu device (PCI 1234:11e8); run QEMU with -device edu')


# ------------------------------------------------------------ user programs

def workload_records(r):
    return {w['name'] + ':' + str(i): w for i, w in enumerate(r.find('workload'))}


def task_exits(r):
    return r.find('task_exit')


@case
def user_syscalls(ctx):
    r = ctx.boot('quiet run="systest"')
    expect_ok(r)
    w = [x for x in r.find('workload') if x['name'] == 'systest']
    expect(w and w[0]['failed'] == 0 and w[0]['checks'] >= 80, 'systest: %r (see the log for FAIL lines)' % w)
    expect_in_log(r, 'task: systest (pid ')
    expect_in_log(r, 'unknown syscall 500: -ENOSYS')
    e = task_exits(r)
    expect(e and e[0]['exit_code'] == 0, 'systest exit %r' % e)


@case
def user_workloads_verify_data(ctx):
    progs = ['touch 16 8000 seq anon', 'touch 16 8000 random shmem', 'hogmem 16 2', 'fill 50 64',
             'threads 4 16 1', 'hello_musl x', 'touch_musl 8 3000 random anon', 'touch_musl 8 3000 seq shmem']
    r = ctx.boot('quiet run="%s"' % ' ; '.join(progs), timeout=240)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == len(progs), 'expected %d task_exit records, got %d' % (len(progs), len(e)))
    for x in e:
        expect(x['exit_code'] == 0, '%s exited %r (%s)' % (x['cmdline'], x['exit_code'], x.get('reason')))
        expect(x['utime_ns'] > 0, '%s: no CPU time counted: %r' % (x['cmdline'], x))
        # hello_musl touches only pages the loader filled in: no faults.
        expect(x['minflt'] > 0 or x['name'] == 'hello_musl', '%s: no faults counted: %r' % (x['cmdline'], x))
    for w in r.find('workload'):
        expect(w.get('mismatches', 0) == 0, '%s reports data mismatches: %r' % (w['name'], w))
    touches = [w for w in r.find('workload') if w['name'] == 'touch']
    expect(len(touches) == 4, 'touch records: %d' % len(touches))


@case
def user_faults_kill_only_the_task(ctx):
    crashes = [('null', 'SIGSEGV', 'no mapping at that address'), ('kernel', 'SIGSEGV', 'a kernel address'),
               ('ud', 'SIGILL', 'Invalid opcode'), ('readonly', 'SIGSEGV', 'not permitted'),
               ('div0', 'SIGFPE', 'Divide error'), ('stack', 'SIGSEGV', 'no mapping')]
    r = ctx.boot('quiet run="%s ; hello after"' % ' ; '.join('crash ' + c[0] for c in crashes), timeout=120)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == len(crashes) + 1, 'task_exit records: %d' % len(e))
    for (how, sig, text), x in zip(crashes, e):
        expect(x['signal'] == sig and x['exit_code'] is None, 'crash %s: %r' % (how, x))
        expect(text in x['reason'] and 'rip 0x' in x['reason'], 'crash %s reason %r' % (how, x['reason']))
        expect_in_log(r, 'task: crash (pid %d) killed by %s' % (x['pid'], sig))
    expect(e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'the program after the crashes did not run')


@case
def user_concurrent_tasks(ctx):
    r = ctx.boot('quiet run="touch 8 4000 seq anon & touch 8 4000 random shmem & threads 2 8 1"', timeout=120)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == 3 and all(x['exit_code'] == 0 for x in e), 'exits %r' % e)
    spans = [(x['start_ns'], x['start_ns'] + x['elapsed_ns']) for x in e]
    overlap = max(s for s, _ in spans) < min(t for _, t in spans)
    expect(overlap, 'the three tasks did not run at the same time: %r' % spans)


@case
def user_bad_elf_rejected(ctx):
    bad = ctx.path('bad')
    with open(bad, 'wb') as f:
        f.write(b'\x7fELF\x02\x01\x01' + bytes(57) + b'junk' * 100)
    img = ctx.make_image(files=[bad + ':bin/bad', 'build/workloads/hello:bin/hello'])
    r = ctx.boot('quiet run="bad ; hello"', image=img)
    expect_ok(r)
    expect_in_log(r, 'task: bin/bad: not loadable: ')
    e = task_exits(r)
    expect(len(e) == 1 and e[0]['name'] == 'hello', 'only hello should have run: %r' % e)


# ------------------------------------------------------------ NVMe driver, block layer

def scratch_disk(ctx, name, size):
    """A fresh sparse raw image in the output directory."""
    path = ctx.path(name)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, 'wb') as f:
        f.truncate(size)
    return path


def nvme_disk(path, serial, drive_opts='', dev_opts=''):
    """QEMU arguments for a raw image on an NVMe controller of its own."""
    return ['-drive', 'if=none,id=%s,format=raw,file=%s%s' % (serial, path, drive_opts),
            '-device', 'nvme,serial=%s,drive=%s%s' % (serial, serial, dev_opts)]


def blkdebug_nvme(path, serial, iotype, sector):
    """An NVMe disk whose every <iotype> touching <sector> fails with EIO
    (qemu-rig.md section 6, form C)."""
    node = ('{"driver":"raw","node-name":"%s","file":{"driver":"blkdebug","inject-error":'
            '[{"event":"none","iotype":"%s","sector":%d,"errno":5}],'
            '"image":{"driver":"file","filename":"%s"}}}' % (serial, iotype, sector, path))
    return ['-blockdev', node, '-device', 'nvme,serial=%s,drive=%s,mdts=8' % (serial, serial)]


def one_record(r, rtype, **match):
    x = [y for y in r.find(rtype) if all(y.get(k) == v for k, v in match.items())]
    expect(len(x) == 1, 'expected one %s record matching %r, found %d' % (rtype, match, len(x)))
    return x[0]


def disks_by_name(r):
    return {d['name']: d for d in one_record(r, 'disks')['devices']}


def selftest_record(r, name):
    s = [x for x in r.find('selftest') if x.get('name') == name]
    expect(len(s) == 1, 'no selftest record for %s' % name)
    return s[0]


def expect_failed_io_line(r, op, block, text):
    """A console line naming the device, the failed block range (which
    holds block) and the decoded NVMe status."""
    pat = re.compile(r'nvme1n1: %s of blocks (\d+)\.\.(\d+) failed: %s' % (op, re.escape(text)))
    hits = [m for m in pat.finditer(r.log) if int(m.group(1)) <= block <= int(m.group(2))]
    expect(hits, 'no "nvme1n1: %s of blocks a..b failed: %s" line with a <= %d <= b' % (op, text, block))


@case
def nvme_blk_selftest(ctx):
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
    expect(irq['unexpected'] == 0 and any(v['name'] == 'nvme1 io' and v['count'] > 0 for v in irq['vectors']),
           'I/O vector of nvme1 never fired: %r' % irq)


@case
def nvme_boot_disk(ctx):
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
    # The boot disk's only writes are the results file's (cases_results.py
    # checks that every other ESP file stays byte-identical).
    expect(one_record(r, 'blk', name='nvme0n1p1')['writes'] == 0, 'the boot partition was written')
    expect_in_log(r, 'results: records also go to results/0001.jsonl on nvme0n1 ')
    expect(one_record(r, 'blk', name='nvme0n1')['write_bytes'] <= 4 << 20, 'the boot disk was written beyond the results file')


@case
def nvme_gpt_partitions(ctx):
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


@case
def nvme_blkedge_namespaces(ctx):
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


@case
def nvme_read_error_injected(ctx):
    nvme_injected_error(ctx, 'read', 1000, 'media error: unrecovered read error (sct 2 sc 0x81)')


@case
def nvme_write_error_injected(ctx):
    nvme_injected_error(ctx, 'write', 5004, 'media error: write fault (sct 2 sc 0x80)')


def hmp_after(sock_path, delay, command):
    """Send one HMP command to QEMU's monitor socket after delay seconds."""
    def run():
        time.sleep(delay)
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock_path)
            time.sleep(0.3)
            s.sendall(command.encode() + b'\n')
            time.sleep(0.5)
            s.close()
        except OSError:
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@case
def nvme_timeout_reset(ctx):
    # A disk throttled to 1 KiB/s: test=blk's first writes stay in flight
    # past the 30 s command timeout, the driver resets the controller and
    # fails them.  At 50 s the test lifts the throttle through the monitor
    # so the rest of the run goes through on the reset controller.  ~60 s.
    img = scratch_disk(ctx, 'slow.img', 64 << 20)
    sock = ctx.path('mon.sock')
    if os.path.exists(sock):
        os.unlink(sock)
    t = hmp_after(sock, 50, 'block_set_io_throttle slow 0 0 0 0 0 0')
    r = ctx.boot('quiet test=blk blkdev=nvme1n1 blktest_mib=1', timeout=180,
                 extra=nvme_disk(img, 'slow', ',throttling.bps-total=1024', ',mdts=8') +
                 ['-monitor', 'unix:%s,server=on,wait=off' % sock])
    t.join(1)
    expect_ok(r)
    expect_in_log(r, 'nvme1: command timeout: resetting the controller')
    expect_in_log(r, 'nvme1: controller reset done, queues up again')
    m = re.search(r'nvme1: failing (\d+) command\(s\) that were in flight, ([1-9]\d*) of them timed out', r.log)
    expect(m, 'no "failing N command(s) ... timed out" line')
    expect(re.search(r'nvme1n1: write of blocks \d+\.\.\d+ failed: timed out', r.log), 'no timed-out write line')
    st = one_record(r, 'nvme_stats', name='nvme1')
    expect(st['resets'] == 1 and st['timeouts'] == int(m.group(2)), 'nvme_stats %r' % st)
    # Everything after the reset worked: the only failures are the commands
    # the reset failed.
    expect(st['errors'] == int(m.group(1)), 'nvme_stats %r' % st)
    s = selftest_record(r, 'blk')
    expect('mib_read_verify' in s['data'], 'the selftest did not run to the end: %r' % s)
    blk = one_record(r, 'blk', name='nvme1n1')
    expect(blk['reads'] > 0 and blk['errors'] == st['errors'], 'blk %r vs nvme_stats %r' % (blk, st))


# ------------------------------------------------------------ AHCI (SATA) driver

def sata_disk(path, opts=''):
    """qemurig disk spec: path (an image, or blkdebug:CONF:IMAGE) on the
    next free port of q35's AHCI controller, ide.1 onwards (sata1, ...)."""
    return {'file': path, 'bus': 'sata', 'opts': opts}


def ahci_ports(r):
    a = one_record(r, 'ahci', controller='00:1f.2')
    expect(a['id'] == '8086:2922' and a['ncq'] and a['slots'] == 32 and a['interrupt'] == 'msi',
           'ahci record %r' % a)
    return {p['port']: p for p in a['ports']}


@case
def ahci_blk_selftest(ctx):
    # test=blk on a 256 MiB scratch disk on port 1: NCQ, 32 tags, 1 MiB
    # commands.  An IOPS cap makes commands queue at the device, so the
    # 40-deep passes really have 32 NCQ commands outstanding.
    disk = scratch_disk(ctx, 'scratch.img', 256 << 20)
    d, r = selftest(ctx, 'blk', 'blkdev=sata1', timeout=240,
                    disks=[sata_disk(disk, ',throttling.iops-total=2000')])
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


@case
def ahci_gpt_partitions(ctx):
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


@case
def ahci_read_error_injected(ctx):
    ahci_injected_error(ctx, 'read', 1000)


@case
def ahci_write_error_injected(ctx):
    ahci_injected_error(ctx, 'write', 5004)


@case
def ahci_boot_disk(ctx):
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
    # The boot disk's only writes are the results file's (cases_results.py
    # checks that every other ESP file stays byte-identical).
    expect(one_record(r, 'blk', name='sata0p1')['writes'] == 0, 'the boot partition was written')
    expect_in_log(r, 'results: records also go to results/0001.jsonl on sata0 ')
    expect(one_record(r, 'blk', name='sata0')['write_bytes'] <= 4 << 20, 'the boot disk was written beyond the results file')


# ------------------------------------------------------------ reclaim and swap

def swap_image(ctx, name='swap', mib=256, mkswap=True):
    path = ctx.path(name + '.img')
    with open(path, 'wb') as f:
        f.truncate(mib << 20)
    if mkswap:
        subprocess.run(['mkswap', '-L', name, path], check=True, capture_output=True)
    return path


def run_swapping(ctx, progs, disks, mem='48M', extra_cmdline='', timeout=600, **kw):
    r = ctx.boot('quiet mem=%s %s run="%s"' % (mem, extra_cmdline, ' ; '.join(progs)), disks=disks,
                 timeout=timeout, **kw)
    expect_ok(r)
    return r


def vm_final(r):
    v = [x for x in r.find('vmstat') if x.get('label') == 'final']
    expect(v, 'no final vmstat record')
    return v[0]


def expect_clean_exits(r, n):
    e = task_exits(r)
    expect(len(e) == n, 'expected %d task_exit records, got %d' % (n, len(e)))
    for x in e:
        expect(x['exit_code'] == 0, '%s: exit %r (%s)' % (x['cmdline'], x['exit_code'], x.get('reason')))
    for w in r.find('workload'):
        expect(w.get('mismatches', 0) == 0, '%s: data mismatches %r' % (w['name'], w))
    return e


@case
def swap_touch_nvme(ctx):
    # 72 MiB = 1.5x the 48 MiB of usable RAM, all four of Hugh's patterns.
    progs = ['touch 72 30000 seq anon', 'touch 72 30000 random anon', 'touch 72 30000 seq shmem',
             'touch 72 30000 random shmem']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], extra_cmdline='swapcrc=on')
    expect_clean_exits(r, 4)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping: %r' % {k: v[k] for k in ('pswpout', 'pswpin')})
    expect(v['swap_crc_mismatch'] == 0 and v['swap_write_errors'] == 0, 'integrity: %r' % v)
    expect(v['pgmajfault'] > 0, 'no major faults counted')
    # Swap-out goes in batches of consecutive slots: big writes.
    blk = [b for b in r.find('blk') if b['name'] == 'nvme1n1'][0]
    mean_write = blk['write_bytes'] / max(1, blk['writes'])
    expect(mean_write >= 64 << 10, 'mean swap write %d bytes, want >= 64 KiB' % mean_write)


@case
def swap_touch_ahci(ctx):
    progs = ['touch 72 20000 seq anon', 'touch 72 20000 random shmem']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'sata'}])
    expect_clean_exits(r, 2)
    v = vm_final(r)
    expect(v['pswpout'] > 5000 and v['pswpin'] > 1000, 'not enough swapping on AHCI: %r' % v)
    expect(v['swap_areas'][0]['device'].startswith('sata'), 'swap area not on sata: %r' % v['swap_areas'])


def ra_rate(x):
    return x['ra_hits'] / x['ra_issued'] if x['ra_issued'] else 1.0


@case
def swap_readahead_policies(ctx):
    # Hugh's sequential touch, anon and shmem, under fixed:3 and the own
    # policy; random touch; then Linux 4.14's mixed test (a sequential
    # stream while another task swaps in at random) under both.
    seq = ['touch 72 40000 seq anon', 'touch 72 40000 seq shmem']
    mixed = 'touch 40 50000 seq anon & touch 40 40000 random anon'
    progs = ['@set ra fixed:3'] + seq + [mixed, '@set ra own'] + seq + ['touch 72 30000 random anon', mixed]
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900)
    e = expect_clean_exits(r, 9)
    f3, own = e[0:2], e[4:6]
    for a, b in zip(f3, own):
        expect(b['majflt'] * 10 < a['majflt'], '%s: own %d major faults, fixed:3 %d' % (b['cmdline'], b['majflt'], a['majflt']))
        expect(ra_rate(b) >= 0.99, '%s: own readahead hit rate %.4f' % (b['cmdline'], ra_rate(b)))
    # Random: own reads ahead only its slot-window probes (fixed:3 reads
    # about six pages per major fault there).
    rnd = e[6]
    expect(rnd['ra_issued'] <= rnd['majflt'] // 5, 'random: own read ahead %d pages for %d major faults'
           % (rnd['ra_issued'], rnd['majflt']))
    seq_f3 = [x for x in e[2:4] if 'seq' in x['cmdline']][0]
    seq_own = [x for x in e[7:9] if 'seq' in x['cmdline']][0]
    expect(seq_own['majflt'] > 0 and seq_own['ra_issued'] > 1000, 'mixed: the sequential task did not swap: %r' % seq_own)
    expect(ra_rate(seq_own) >= 0.99, 'mixed: the sequential task\'s hit rate under own is %.4f (fixed:3 %.4f)'
           % (ra_rate(seq_own), ra_rate(seq_f3)))
    # Latency histograms come with every step.
    steps = [v for v in r.find('vmstat') if v.get('label') == seq[0]]
    lat = steps[-1]['swapin_latency']
    expect(lat['major']['n'] > 0 and lat['cached']['n'] > 0 and lat['major']['p50_ns'] <= lat['major']['p99_ns'],
           'swap-in latency %r' % lat)


@case
def swap_two_equal_areas(ctx):
    disks = [{'file': swap_image(ctx, 'swapa', 128), 'bus': 'nvme'}, {'file': swap_image(ctx, 'swapb', 128), 'bus': 'nvme'}]
    r = run_swapping(ctx, ['hogmem 72 2'], disks)
    expect_clean_exits(r, 1)
    areas = vm_final(r)['swap_areas']
    expect(len(areas) == 2, 'areas %r' % areas)
    blk = {b['name']: b for b in r.find('blk')}
    for a in areas:
        expect(blk[a['device']]['writes'] > 0, 'area %s received no writes: %r' % (a['device'], areas))
        expect(a['clusters_taken'] > 0, 'area %s took no clusters' % a['device'])


@case
def swap_full_oom_kill(ctx):
    # 32 MiB of swap and 48 MiB of RAM cannot hold 128 MiB: the task is killed, the next one runs.
    r = run_swapping(ctx, ['touch 128 40000 seq anon', 'hello after'], [{'file': swap_image(ctx, mib=32), 'bus': 'nvme'}])
    oom = r.find('oom_kill')
    expect(oom and oom[0]['name'] == 'touch', 'oom records %r' % oom)
    e = task_exits(r)
    expect(e[0]['signal'] == 'SIGKILL' and 'out of memory' in e[0]['reason'], 'touch exit %r' % e[0])
    expect(e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'hello did not run after the OOM kill')
    expect_in_log(r, 'oom: out of memory and swap: killing touch')


@case
def swap_no_signature_never_written(ctx):
    import hashlib
    plain = swap_image(ctx, 'plain', 64, mkswap=False)
    with open(plain, 'r+b') as f:
        f.write(os.urandom(1 << 20))
    before = hashlib.sha256(open(plain, 'rb').read()).hexdigest()
    disks = [{'file': plain, 'bus': 'nvme'}, {'file': swap_image(ctx), 'bus': 'nvme'}]
    r = run_swapping(ctx, ['touch 72 20000 random anon'], disks, extra=['-snapshot'] if False else [])
    expect_clean_exits(r, 1)
    after = hashlib.sha256(open(plain, 'rb').read()).hexdigest()
    expect(before == after, 'a disk without a swap signature was written')
    blk = {b['name']: b for b in r.find('blk')}
    expect(blk['nvme1n1']['writes'] == 0 and blk['nvme2n1']['writes'] > 0, 'writes went to the wrong disk')


def blkdebug_conf(ctx, name, iotype, sectors):
    conf = ctx.path(name + '.conf')
    with open(conf, 'w') as f:
        for s in sectors:
            f.write('[inject-error]\nevent = "none"\niotype = "%s"\nerrno = "5"\nsector = "%d"\n' % (iotype, s))
    return conf


@case
def swap_write_errors_keep_pages(ctx):
    # Writes touching slots 40, 300 and 900 fail: those pages stay in memory,
    # their slots are retired, and the data is intact.
    img = swap_image(ctx)
    conf = blkdebug_conf(ctx, 'badwrite', 'write', [40 * 8, 300 * 8, 900 * 8])
    r = run_swapping(ctx, ['touch 72 30000 seq anon', 'touch 72 20000 random anon'],
                     [{'file': 'blkdebug:%s:%s' % (conf, img), 'bus': 'nvme'}])
    expect_clean_exits(r, 2)
    v = vm_final(r)
    expect(v['swap_write_errors'] > 0, 'no write error seen: %r' % v['swap_write_errors'])
    expect(v['swap_areas'][0]['retired'] > 0, 'no slot retired: %r' % v['swap_areas'])
    expect_in_log(r, 'failed: slot retired, page kept in memory')


@case
def swap_read_error_kills_owner(ctx):
    # Reads of slot 200 fail: the task whose page lived there dies; a second
    # task swapping at the same time and the one after it are unharmed.
    img = swap_image(ctx)
    conf = blkdebug_conf(ctx, 'badread', 'read', [200 * 8])
    r = run_swapping(ctx, ['touch 60 30000 seq anon', 'hello after'],
                     [{'file': 'blkdebug:%s:%s' % (conf, img), 'bus': 'nvme'}])
    e = task_exits(r)
    expect(e[0]['signal'] == 'SIGBUS' and 'could not be read back' in e[0]['reason'], 'touch: %r' % e[0])
    expect(e[-1]['name'] == 'hello' and e[-1]['exit_code'] == 0, 'the next task did not run: %r' % e)
    expect(vm_final(r)['swap_read_errors'] > 0, 'no read error counted')


@case
def swap_swapoff_brings_everything_back(ctx):
    # Two tasks run at once (so one is swapped out while the other runs);
    # swapoff in the middle of a shell-like sequence: after it, no slot is
    # used, and both tasks verify all their data.
    # hold fills 20+10 MiB and sleeps; hogmem pushes them out to swap and
    # exits; swapoff pulls them back; hold then verifies every page.
    progs = ['hold 20 4 anon & hold 10 4 shmem & hogmem 48 2 & @sleep 2500 & @swapoff nvme1n1', 'hello after']
    r = run_swapping(ctx, progs, [{'file': swap_image(ctx), 'bus': 'nvme'}], mem='64M')
    expect_clean_exits(r, 4)
    m = re.search(r'swapoff: nvme1n1: (\d+) pages brought back', r.log)
    expect(m and int(m.group(1)) > 1000, 'swapoff brought back too little: %s' % (m and m.group(0)))
    v = vm_final(r)
    expect(v['swap_used_pages'] == 0 and not v['swap_areas'], 'swap still in use: %r' % v['swap_areas'])


# ------------------------------------------------------------ workload scripts

SMOKE_SCRIPT = os.path.join('tests', 'workloads', 'scripts', 'smoke.mm')
TABLE_ROWS = ['real time', 'user time', 'sys time', 'pgmajfault', 'pgpgin', 'pgpgout', 'pswpin', 'pswpout',
              'swap_ra', 'swap_ra_hit', 'swap_ra_waste', 'swapcache hit %', 'swap-in p50 (us)',
              'swap-in p99 (us)']


def script_image(ctx, script, cmdline=''):
    """An image for one script, made by tools/mkscript-image."""
    out = ctx.path('img')
    args = [os.path.join('tools', 'mkscript-image'), script, '-o', out, '--build', ctx.build]
    if cmdline:
        args += ['--cmdline', cmdline]
    subprocess.run(args, check=True, capture_output=True)
    return out


def script_text_image(ctx, text, programs=('hello',), cmdline='quiet'):
    """An image holding scripts/bad.mm with text and the given programs."""
    path = ctx.path('mm')
    with open(path, 'w') as f:
        f.write(text)
    files = [path + ':scripts/bad.mm'] + ['%s/workloads/%s:bin/%s' % (ctx.build, p, p) for p in programs]
    return ctx.make_image(files=files, cmdline='script=scripts/bad.mm ' + cmdline)


@case
def script_smoke_end_to_end(ctx):
    # smoke.mm: column "seq RA=3" runs touch twice, column "pair RA=0" a
    # parallel group of two; the probe is on throughout.
    img = script_image(ctx, SMOKE_SCRIPT)
    r = ctx.boot(None, image=img, disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect(boot_record(r)['mem_cap_bytes'] == 48 << 20, 'mkscript-image did not put mem=48M on the command line')
    res = r.find('result')
    expect([(x['column'], x['run'], len(x['commands'])) for x in res] ==
           [('seq RA=3', 0, 1), ('seq RA=3', 1, 1), ('pair RA=0', 0, 2)],
           'results %r' % [(x['column'], x['run'], x['commands']) for x in res])
    expect([x['rep'] for x in res] == [0, 1, 0] and res[1]['reps'] == [1], 'repetition indices %r' % res)
    expect(len(task_exits(r)) == 4, 'expected 4 task_exit records')
    for x in res:
        expect(x['failed'] == 0 and all(e['exit_code'] == 0 and e['started'] for e in x['exits']),
               'a run failed: %r' % x['exits'])
        expect(x['mismatches'] == 0 and x['workload_records'] == len(x['commands']),
               'mismatch count %r from %r workload lines' % (x['mismatches'], x['workload_records']))
        expect(x['elapsed_ns'] > 0 and x['utime_ns'] > 0 and x['minflt'] > 0, 'figures %r' % x)
        expect(all(k in x['vmstat'] for k in ('pgmajfault', 'pswpin', 'pswpout', 'swap_ra', 'swap_ra_hit',
                                              'swap_ra_waste', 'swap_read_reqs')), 'vmstat %r' % x['vmstat'])
        expect('probe' in x and x['probe']['periods'] > 0, 'no probe figures in %r' % x)
        expect(x['readahead']['swap_ra'] == x['vmstat']['swap_ra'], 'readahead %r' % x['readahead'])
        lat = x['swapin_latency']['major']
        expect(lat['p50_ns'] <= lat['p99_ns'] <= lat['max_ns'],
               'swap-in latency %r' % x['swapin_latency'])
    expect(res[0]['knobs']['ra'] == 'fixed:3' and res[2]['knobs']['page_cluster'] == '0', 'knobs %r' % res[2]['knobs'])
    expect(res[0]['vmstat']['pswpout'] > 0, 'touch 56 MiB in 48 MiB did not swap: %r' % res[0]['vmstat'])
    expect(res[0]['swapin_latency']['major']['n'] > 0, 'no swap-in latency: %r' % res[0]['swapin_latency'])
    # One run's elapsed time spans both tasks of the group.
    t = one_record(r, 'table')
    expect(t['script'] == 'scripts/smoke.mm' and t['columns'] == ['seq RA=3', 'pair RA=0'], 'table columns %r' % t['columns'])
    expect([row['name'] for row in t['rows']] == TABLE_ROWS, 'table rows %r' % [row['name'] for row in t['rows']])
    for row in t['rows']:
        expect([c['n'] for c in row['cells']] == [2, 1], '%s: n %r' % (row['name'], row['cells']))
        expect(row['cells'][1]['stderr'] == 0, '%s: stderr of one run %r' % (row['name'], row['cells'][1]))
    real = t['rows'][0]
    want = (res[0]['elapsed_ns'] + res[1]['elapsed_ns']) / 2e6
    expect(real['unit'] == 'ms' and abs(real['cells'][0]['mean'] - want) < 0.01,
           'real time mean %r, results say %.3f ms' % (real['cells'][0], want))
    maj = t['rows'][3]['cells'][0]['mean']
    expect(maj == (res[0]['vmstat']['pgmajfault'] + res[1]['vmstat']['pgmajfault']) / 2, 'pgmajfault mean %r' % maj)
    expect_in_log(r, 'script scripts/smoke.mm: mean\u00b1stderr over the runs of each column; times in ms')
    expect(re.search(r'^real time +\d+(\.\d)?\u00b1\d+(\.\d)? +\d+(\.\d)?$', r.log, re.M), 'no human real time row')
    p = one_record(r, 'probe')
    expect(p['periods'] > 50 and 0 <= p['met_pct'] <= 100 and p['p99_late_ns'] <= p['worst_late_ns'], 'probe %r' % p)
    end = one_record(r, 'script_end')
    expect(end['results'] == 3 and end['failed'] == 0 and not end['stopped'], 'script_end %r' % end)


def script_error_case(name, text, message):
    def fn(ctx):
        r = ctx.boot(None, image=script_text_image(ctx, text))
        expect_ok(r)
        expect_in_log(r, message)
        expect_in_log(r, 'script: scripts/bad.mm has an error; nothing runs')
        e = one_record(r, 'script_error')
        expect(e['phase'] == 'parse' and e['message'] == message and
               '%d:%d' % (e['line'], e['col']) == message.split(':')[1] + ':' + message.split(':')[2],
               'script_error %r' % e)
        expect(not task_exits(r) and not r.find('result') and not r.find('table'), 'something ran')
    fn.__name__ = 'script_error_' + name
    case(fn)


script_error_case('unknown_statement', 'mem 48M\nrun hello\n  frobnicate 3\n',
                  "scripts/bad.mm:3:3: unknown statement 'frobnicate'")
script_error_case('bad_knob_name', 'run hello\nset swapines 60\n',
                  "scripts/bad.mm:2:5: unknown knob 'swapines' (did you mean swappiness?)")
script_error_case('unterminated_quote', 'run hello\ncolumn "RA=3\nrun hello\n',
                  'scripts/bad.mm:2:8: unterminated quote')
script_error_case('end_without_block', 'repeat 2\n  run hello\nend\nend\n',
                  "scripts/bad.mm:4:1: 'end' without 'repeat' or 'parallel'")


@case
def script_mem_mismatch_refused(ctx):
    # The script wants 48M; booted without mem= the kernel has ~250 MiB.
    r = ctx.boot(None, image=script_text_image(ctx, 'mem 48M\nrun hello\n'))
    expect_ok(r)
    expect(re.search(r'scripts/bad\.mm: the script expects mem 48M but the kernel has \d+ MiB of usable RAM; '
                     r'boot with mem=48M', r.log), 'no mem= advice')
    expect(one_record(r, 'script_error')['phase'] == 'check', 'script_error phase')
    expect(not task_exits(r), 'something ran')


@case
def script_missing_program_and_device_refused(ctx):
    r = ctx.boot(None, image=script_text_image(ctx, 'run hello\nrun hogmem 8 1\n'))
    expect_ok(r)
    expect_in_log(r, "scripts/bad.mm:2:5: no program 'hogmem' among the boot files")
    expect(not task_exits(r), 'something ran')
    r = ctx.boot(None, image=script_text_image(ctx, 'swap nvme7n1\nrun hello\n'))
    expect_ok(r)
    expect_in_log(r, 'scripts/bad.mm:1:6: swap nvme7n1: no such block device')
    expect(not task_exits(r), 'something ran')


@case
def script_bad_knob_value_stops_there(ctx):
    # What only the running kernel knows (ra's policy names) is checked
    # when `set` runs: the first run happens, the line with the bad value
    # stops the script, the table shows what ran.  (Numeric ranges are
    # checked at parse time, cases_cmdline.py.)
    r = ctx.boot(None, image=script_text_image(ctx, 'run hello one\nset ra bogus\nrun hello two\n'))
    expect_ok(r)
    expect_in_log(r, "scripts/bad.mm:2:5: set ra bogus: ra: 'bogus' is not a readahead policy; "
                     "the script stops here")
    e = task_exits(r)
    expect(len(e) == 1 and e[0]['cmdline'] == 'hello one', 'runs %r' % e)
    end = one_record(r, 'script_end')
    expect(end['stopped'] and end['results'] == 1, 'script_end %r' % end)
    t = one_record(r, 'table')
    expect(t['columns'] == ['hello one', 'hello two'], 'table columns %r' % t['columns'])
    expect([c['n'] for c in t['rows'][0]['cells']] == [1, 0] and t['rows'][0]['cells'][1]['mean'] is None,
           'cells of a column that never ran %r' % t['rows'][0]['cells'])


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


@case
def nvme_merged_error_isolated(ctx):
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


@case
def ahci_merged_error_isolated(ctx):
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


@case
def blk_unreadable_gpt_refused_while_boot_disk_missing(ctx):
    # Booted from USB (no driver here, so the boot disk is never found):
    # a disk whose GPT cannot be read might be the boot disk, and is not
    # written.  Booted from NVMe (the boot disk found first), the same
    # disk is just a scratch disk.
    import hashlib
    img, extra = unreadable_gpt_disk(ctx)
    r = ctx.boot('quiet test=blkedge blkdev=nvme0n1', boot='usb', extra=extra)
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
