"""The QEMU test rig shared by the test_*.py modules: a case's Ctx (boot,
make_image, path), the expectations on a Result (expect, expect_ok,
one_record, ...), scratch and swap disks, script images, and the memory
balance check conftest.py applies to every boot that ran workloads.

Cases are plain pytest functions taking the ctx fixture (conftest.py);
they fail by raising AssertionError with a message (expect)."""
import os
import socket
import subprocess
import threading
import signal
import time
import warnings

import qemurig

# QEMU's own crashes (a host-side fault in the emulator, not the guest's doing).
QEMU_CRASH_SIGNALS = (-signal.SIGSEGV, -signal.SIGBUS, -signal.SIGABRT, -signal.SIGILL)


class Ctx:
    """One case's view of the rig: its name (log and scratch files are
    OUTDIR/NAME.*), the build directory, and every boot it made (runs,
    shared with the contexts for_case derives) for the balance check."""
    def __init__(self, build, outdir, name=None, runs=None, uefi=False, pvh_images=None):
        self.build, self.outdir, self.name = build, outdir, name
        self.runs = [] if runs is None else runs
        self.uefi = uefi
        # image -> (initrd, its cmdline.txt) for images make_image built
        # around the built kernel: they boot through the PVH entry too.
        self.pvh_images = {} if pvh_images is None else pvh_images

    def for_case(self, name):
        return Ctx(self.build, self.outdir, name, self.runs, self.uefi, self.pvh_images)

    @property
    def image(self):
        return os.path.join(self.build, 'disk.img')

    def path(self, suffix):
        return os.path.join(self.outdir, '%s.%s' % (self.name, suffix))

    def pvh_args(self, cmdline, image, kw):
        """The PVH boot for this boot, or None for the firmware: the built
        image, or one make_image built around the built kernel, booted
        from NVMe, and the case not marked uefi (the firmware, loader, ESP
        and results file are what it tests).  Up to 2 GiB of RAM on a CPU
        other than the default max (pvh_entry.asm then maps 4 GiB with
        2 MiB pages; q35 keeps 2 GiB guests below 3 GiB)."""
        if self.uefi or kw.get('boot', 'nvme') != 'nvme' or 'direct' in kw:
            return None
        # Several CPUs go through PVH too (40 stress boots through PVH on
        # 2 CPUs passed); cases marked uefi keep the firmware's SMP path
        # (test_smp_all_online, the stress).
        mem = str(kw.get('mem', '256M')).upper()
        mib = int(mem[:-1]) * (1024 if mem.endswith('G') else 1) if mem[-1] in 'MG' else int(mem)
        if kw.get('cpu', 'max') != 'max' and mib > 2048:
            return None
        if image is None and cmdline is not None:
            pvh = qemurig.pvh_beside(self.image)
            return (pvh, cmdline) if pvh else None
        if image in self.pvh_images:
            initrd, own = self.pvh_images[image]
            return {'kernel': os.path.join(self.build, 'kernel.elf'), 'initrd': initrd}, \
                own if cmdline is None else cmdline
        return None

    @property
    def initrd(self):
        return os.path.join(self.build, 'initrd.cpio')

    def boot(self, cmdline='', image=None, timeout=60, log='log', **kw):
        """Boot image (default: the built disk.img) with cmdline written
        into a copy of it; cmdline=None boots image itself, as it is (its
        results file then lands in it).  The console goes to path(log).
        Through the PVH entry (QEMU -kernel, no firmware; no results file)
        where pvh_args allows."""
        p = self.pvh_args(cmdline, image, kw)
        if p:
            kw['pvh'], cmdline = p
        r = qemurig.run(image or self.image, cmdline=cmdline, timeout=timeout,
                        log_path=self.path(log), workdir=self.outdir, **kw)
        if r.rc in QEMU_CRASH_SIGNALS and not r.timed_out and not r.halt():
            # QEMU itself died of a signal before the guest halted (seen
            # once in 4-CPU TCG boots: a segfault in QEMU, host dmesg): a
            # crash of the emulator, not a verdict on the kernel.  Say so
            # in the test summary and boot once more; a second crash fails
            # the case as usual.
            warnings.warn('%s: QEMU died of signal %d before the guest halted; booting again'
                          % (self.name, -r.rc))
            os.replace(self.path(log), self.path(log + '.qemu-crash'))
            r = qemurig.run(image or self.image, cmdline=cmdline, timeout=timeout,
                            log_path=self.path(log), workdir=self.outdir, **kw)
        self.runs.append((self.path(log), r))
        return r

    def make_image(self, kernel=None, files=(), cmdline=''):
        """A custom image in the output dir (kernel=None: the built kernel)."""
        out = self.path('img')
        args = [os.path.join('tools', 'mkimage'), '-o', out, '-l', os.path.join(self.build, 'BOOTX64.EFI'),
                '-c', cmdline]
        if kernel != '':
            args += ['-k', kernel or os.path.join(self.build, 'kernel.elf')]
        subprocess.run(args + list(files), check=True)
        self.pvh_images.pop(out, None)
        if kernel is None:
            cpio = self.path('cpio')
            subprocess.run([os.path.join('tools', 'mkinitrd'), '-o', cpio] + list(files), check=True)
            self.pvh_images[out] = (cpio, cmdline)
        return out


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_ok(r):
    if r.status != 'ok':
        tail = '\n'.join(r.log.splitlines()[-40:])
        raise AssertionError('expected a clean halt, got %s (QEMU exit %s); console tail:\n%s' % (r.status, r.rc, tail))


def boot_record(r):
    b = r.find('boot')
    expect(len(b) == 1, 'expected one boot record, found %d' % len(b))
    return b[0]


def expect_in_log(r, text):
    expect(text in r.log, 'console lacks %r' % text)


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


# ------------------------------------------------------------ threads, time

def selftest(ctx, name, cmdline='', timeout=90, **kw):
    r = ctx.boot('test=%s quiet %s' % (name, cmdline), timeout=timeout, **kw)
    expect_ok(r)
    s = selftest_record(r, name)
    expect(s['ok'], '%s selftest failed: %r' % (name, s))
    return s.get('data', {}), r


# ------------------------------------------------------------ user programs

def workload_records(r):
    return {w['name'] + ':' + str(i): w for i, w in enumerate(r.find('workload'))}


def task_exits(r):
    return r.find('task_exit')


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


# ------------------------------------------------------------ AHCI (SATA) driver

def sata_disk(path, opts=''):
    """qemurig disk spec: path (an image, or blkdebug:CONF:IMAGE) on the
    next free port of q35's AHCI controller, ide.1 onwards (sata1, ...)."""
    return {'file': path, 'bus': 'sata', 'opts': opts}


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


def blkdebug_conf(ctx, name, iotype, sectors):
    conf = ctx.path(name + '.conf')
    with open(conf, 'w') as f:
        for s in sectors:
            f.write('[inject-error]\nevent = "none"\niotype = "%s"\nerrno = "5"\nsector = "%d"\n' % (iotype, s))
    return conf


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


def check_script_error(ctx, text, message):
    """A script with a parse error: one message naming FILE:LINE:COL,
    a script_error record saying the same, and nothing runs."""
    r = ctx.boot(None, image=script_text_image(ctx, text))
    expect_ok(r)
    expect_in_log(r, message)
    expect_in_log(r, 'script: scripts/bad.mm has an error; nothing runs')
    e = one_record(r, 'script_error')
    expect(e['phase'] == 'parse' and e['message'] == message and
           '%d:%d' % (e['line'], e['col']) == message.split(':')[1] + ':' + message.split(':')[2],
           'script_error %r' % e)
    expect(not task_exits(r) and not r.find('result') and not r.find('table'), 'something ran')


# ------------------------------------------------------------ lock order

def check_lockdep(ctx):
    """No boot of a case may report a lock-order inversion (a kernel built
    with LOCKDEP=1 prints a lockdep record; test_lockdep.py's own cases
    set ctx.lockdep_expected)."""
    if getattr(ctx, 'lockdep_expected', False):
        return
    for log, r in ctx.runs:
        x = r.find('lockdep')
        expect(not x, '%s: lockdep reported %r' % (log, x))


# ------------------------------------------------------------ memory balance

# Frames a run may leave allocated for good.  The kernel's figures are
# exact and taken once exited tasks' memory has settled, and every run of
# the whole suite (42 runs: swapping, OOM kills, I/O errors, swapoff) gave
# back every frame it took.  The allowance is for what the kernel keeps
# once per boot for an object first allocated during a run: kmalloc keeps
# a slab page while one object in it lives, and page-table pages of the
# kernel's own mappings (thread stacks) stay once made.  Any page of a
# workload's memory, or a per-step leak over a few steps, is more than 4.
BALANCE_FRAME_SLACK = 4


def balance_pairs(r):
    """(start, end) mem_balance records of each run= line or script of a
    boot; a run cut short (panic, timeout) has no end and is left out."""
    pairs, start = [], None
    for x in r.find('mem_balance'):
        if x['phase'] == 'start':
            start = x
        elif start is not None:
            pairs.append((start, x))
            start = None
    return pairs


def check_balance(ctx):
    """Every run= line and script the case's boots ran must give back what
    it took: exactly the swap slots in use at its start (a slot leaked is
    data no one can reach) and the pages committed (overcommit's charge),
    and the free frames of its start within
    BALANCE_FRAME_SLACK.  The kernel prints them after the run's tasks have
    exited and their memory settled (kernel/run/membal.c).  A boot that
    ended in a panic or a timeout is judged by its case, not here."""
    lines = []
    for log, r in ctx.runs:
        # An address space's counts of swap entries and page tables (what
        # the OOM killer weighs) are checked against its tables when it goes.
        bad = [l for l in r.log.splitlines() if l.startswith(('vm: swap entry count off', 'vm: page table count off'))]
        expect(not bad, '%s: %s' % (log, bad[:1]))
        for s, e in balance_pairs(r):
            expect(e['of'] == s['of'], '%s: mem_balance start of %s ended as %s' % (log, s['of'], e['of']))
            lost = s['free_frames'] - e['free_frames']
            slots = e['swap_used_slots'] - s['swap_used_slots']
            lines.append('%s %s frames_lost=%d slots_kept=%d settled=%s settle_ms=%d\n' %
                         (os.path.basename(log), s['of'], lost, slots, e['settled'], e['settle_ms']))
            expect(e['settled'], '%s: memory still moving %d ms after the %s ended: %r' % (log, e['settle_ms'], s['of'], e))
            expect(slots == 0, '%s: swap slots leaked: %d in use at the start of the %s, %d at its end' %
                   (log, s['swap_used_slots'], s['of'], e['swap_used_slots']))
            # Overcommit: every charge a run's tasks took is given back
            # (kernel/vm/commit.h): what stays committed is the runner's.
            expect(e['committed_pages'] == s['committed_pages'],
                   '%s: committed pages (Committed_AS) %d at the start of the %s, %d at its end' %
                   (log, s['committed_pages'], s['of'], e['committed_pages']))
            expect(lost <= BALANCE_FRAME_SLACK, '%s: frames leaked: %d free at the start of the %s, %d at its end '
                   '(%d lost, %d allowed)' % (log, s['free_frames'], s['of'], e['free_frames'], lost,
                                              BALANCE_FRAME_SLACK))
    if lines:
        with open(os.path.join(ctx.outdir, 'mem_balance.txt'), 'a') as f:
            f.write(''.join(lines))


# ------------------------------------------------------------ monitor

def hmp_send(sock_path, command):
    """Send one HMP command to QEMU's monitor socket (its output unread)."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    time.sleep(0.3)
    s.sendall(command.encode() + b'\n')
    time.sleep(0.5)
    s.close()


def hmp_after(sock_path, delay, command):
    """Send one HMP command to QEMU's monitor socket after delay seconds,
    from a thread; a monitor already gone is ignored."""
    def run():
        time.sleep(delay)
        try:
            hmp_send(sock_path, command)
        except OSError:
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def qmp_hmp(sock_path, command, cpu=None):
    """One HMP command through QMP's human-monitor-command (clean text,
    no line editing), on vCPU `cpu` if given; returns what it printed."""
    import json
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    try:
        s.connect(sock_path)
        f = s.makefile('rw')
        f.readline()                    # the greeting
        for cmd in ({'execute': 'qmp_capabilities'},
                    {'execute': 'human-monitor-command',
                     'arguments': dict({'command-line': command}, **({} if cpu is None else {'cpu-index': cpu}))}):
            f.write(json.dumps(cmd) + '\n')
            f.flush()
            while True:
                m = json.loads(f.readline())
                if 'return' in m or 'error' in m:
                    break
        return m.get('return', m.get('error', ''))
    except (OSError, ValueError) as e:
        return '(monitor: %s)' % e
    finally:
        s.close()


class HangWatch:
    """A guest that prints nothing for `quiet` seconds: QEMU's view of
    every CPU (`info registers -a` and each of `cpus` local APICs, kept
    in .dump), then an NMI so the
    kernel prints where each CPU is and the threads, then `quit` 20 s
    later, so a hang fails in minutes with its evidence.  Pass .kw to
    ctx.boot; call .stop() after it returns."""
    def __init__(self, ctx, name='hang', quiet=120, cpus=1):
        self.sock = ctx.path(name + '.sock')
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        self.quiet, self.last, self.dump, self.cpus = quiet, time.time(), '', cpus
        self.done = threading.Event()
        self.kw = {'extra': ['-qmp', 'unix:%s,server=on,wait=off' % self.sock], 'on_line': self.on_line}
        threading.Thread(target=self.watch, daemon=True).start()

    def on_line(self, line):
        self.last = time.time()

    def watch(self):
        while not self.done.wait(2):
            if time.time() - self.last > self.quiet:
                self.dump = qmp_hmp(self.sock, 'info registers -a')
                for cpu in range(self.cpus):    # ISR, IRR, TPR and the timer of each local APIC
                    self.dump += '\n(local APIC of CPU %d)\n' % cpu + qmp_hmp(self.sock, 'info lapic', cpu)
                qmp_hmp(self.sock, 'nmi')
                if not self.done.wait(20):
                    qmp_hmp(self.sock, 'quit')
                return

    def stop(self):
        self.done.set()
