"""QEMU launch rig shared by tools/qemu-run, the QEMU tests and the
benchmark runners (mmtools.rig; `import qemurig` gets this module).  See docs/qemu-rig.md for why each option is there.

A run: copy the image (sparse) when a different command line is wanted,
start QEMU with the boot disk on NVMe, SATA (q35 AHCI) or USB (xHCI), stream
the serial console (ANSI codes stripped) to a log and optionally stdout,
enforce a timeout, then classify the ending from the exit status and the
records on the console.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from .records import parse_records  # noqa: F401  (qemurig.parse_records)

OVMF_CODE = '/usr/share/OVMF/OVMF_CODE_4M.fd'
OVMF_VARS = '/usr/share/OVMF/OVMF_VARS_4M.fd'
ANSI = re.compile(r'\x1b\[[0-9;=?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r')

# Disk profiles: QEMU block throttling on the data (swap) drives.  Sized by
# what they do to a TCG guest, not by datasheets (see README, "Disk profiles").
PROFILES = {
    'none': '',
    'ssd': ',throttling.iops-total=700,throttling.bps-total=52428800',
    'hdd': ',throttling.iops-total=150,throttling.bps-total=104857600',
}


def set_cmdline(image, cmdline, workdir):
    """A sparse copy of image whose cmdline.txt says cmdline."""
    fd, path = tempfile.mkstemp(suffix='.img', dir=workdir)
    os.close(fd)
    subprocess.run(['cp', '--sparse=always', image, path], check=True)
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False, dir=workdir) as c:
        c.write(cmdline + '\n')
    try:
        subprocess.run(['mcopy', '-o', '-i', path + '@@1M', c.name, '::/cmdline.txt'],
                       check=True, capture_output=True)
    finally:
        os.unlink(c.name)
    return path


def boot_args(boot, image, pvh=False):
    """pvh: the disk is there (the kernel numbers disks as in a firmware
    boot) but nothing boots from it, and nothing written reaches the file."""
    drive = '-drive if=none,id=boot,format=raw,%sfile=%s' % ('snapshot=on,' if pvh else '', image)
    if boot == 'nvme':
        dev = ['-device', 'nvme,serial=boot0,drive=boot,bootindex=0']
    elif boot == 'sata':
        dev = ['-device', 'ide-hd,drive=boot,bus=ide.0,bootindex=0']
    elif boot == 'usb':
        dev = ['-device', 'qemu-xhci,id=xhci',
               '-device', 'usb-storage,bus=xhci.0,drive=boot,removable=on,bootindex=0']
    elif boot == 'usb-hub':
        # The stick behind a (full-speed) hub on the xHCI's port 1.
        dev = ['-device', 'qemu-xhci,id=xhci', '-device', 'usb-hub,bus=xhci.0,port=1',
               '-device', 'usb-storage,bus=xhci.0,port=1.1,drive=boot,removable=on,bootindex=0']
    elif boot == 'usb-ehci':
        # A USB 2 (EHCI) controller: the firmware boots from it, the kernel
        # (xHCI only) does not reach it.
        dev = ['-device', 'usb-ehci,id=ehci',
               '-device', 'usb-storage,bus=ehci.0,drive=boot,removable=on,bootindex=0']
    else:
        raise ValueError('boot device must be nvme, sata, usb, usb-hub or usb-ehci, not %r' % boot)
    if pvh:
        dev = [d.replace(',bootindex=0', '') for d in dev]
    return drive.split(' ') + dev


def disk_args(disks, profile):
    """disks: list of dicts {file, bus: nvme|sata|usb|usb-hub, id, opts};
    usb disks share one qemu-xhci of their own (xdisks), each on a port;
    usb-hub disks sit behind one hub on that controller's port 4."""
    args, sata_port, xhci, hub_port = [], 1, False, 0
    for i, d in enumerate(disks):
        did = d.get('id') or 'disk%d' % i
        fmt = 'raw'
        extra = d.get('opts', '') + PROFILES[profile]
        f = d['file']
        args += ['-drive', 'if=none,id=%s,format=%s,file=%s%s' % (did, fmt, f, extra)]
        if d.get('bus', 'nvme') == 'nvme':
            args += ['-device', 'nvme,serial=%s,drive=%s' % (d.get('serial', did), did)]
        elif d['bus'] in ('usb', 'usb-hub'):
            if not xhci:
                args += ['-device', 'qemu-xhci,id=xdisks']
                xhci = True
            if d['bus'] == 'usb':
                args += ['-device', 'usb-storage,bus=xdisks.0,drive=%s' % did]
            else:
                # usb-hub: behind one (full-speed, 8-port) hub on the
                # controller's last port, from the hub's port 1 up.
                if not hub_port:
                    args += ['-device', 'usb-hub,bus=xdisks.0,port=4']
                hub_port += 1
                args += ['-device', 'usb-storage,bus=xdisks.0,port=4.%d,drive=%s' % (hub_port, did)]
        else:
            args += ['-device', 'ide-hd,drive=%s,bus=ide.%d' % (did, sata_port)]
            sata_port += 1
    return args


def qemu_command(image, boot='nvme', mem='256M', disks=(), profile='none', icount=False,
                 smp=1, extra=(), cpu='max', serial_pipe=None, direct=None, pvh=None):
    """serial_pipe: COM1 to the FIFOs SERIAL_PIPE.in and .out (QEMU's pipe
    chardev) instead of stdout (run's serial_bps).

    direct: {'kernel', 'initrd', 'append'} boots a Linux kernel with
    -kernel/-initrd/-append (no firmware, no boot disk; image unused) in
    the same machine otherwise (tools/linux-peer).

    pvh: {'kernel', 'initrd', 'append'} boots our kernel.elf through its
    PVH entry (kernel/arch/x86_64/pvh_entry.asm) with the files of
    tools/mkinitrd, no UEFI firmware: 0.6 s instead of OVMF's 5 s (70 s
    under -icount).  image is still attached as the boot disk, read-only
    in effect (snapshot=on), so disks keep their names.

    icount: True counts guest time in instructions (-icount shift=0); time
    the guest spends idle still passes in host time, and a timer that ends
    an idle spell is delivered up to about a millisecond late (a 1000 Hz
    tick measured 535 Hz).  'exact' adds sleep=off: idle time jumps straight
    to the next timer, so guest time is exact even when idle (and idle
    waits cost no host time); use it to judge timing logic.  Not for I/O
    waits: disks run on host time either way, and under sleep=off an idle
    guest warps through its timers while the host's read is under way
    (about 24 guest ms per host ms on the shared 2-core host), so a wait
    for the disk is inflated by that factor (docs/seed-benchmarks.md)."""
    cmd = ['qemu-system-x86_64', '-machine', 'q35', '-cpu', cpu, '-m', str(mem), '-smp', str(smp),
           '-nodefaults', '-display', 'none', '-no-reboot']
    if direct:
        cmd += ['-kernel', direct['kernel'], '-initrd', direct['initrd'], '-append', direct['append']]
    elif pvh:
        cmd += ['-kernel', pvh['kernel'], '-initrd', pvh['initrd'], '-append', pvh['append']]
        cmd += boot_args(boot, image, pvh=True)
    else:
        cmd += ['-drive', 'if=pflash,format=raw,readonly=on,file=' + OVMF_CODE,
                '-drive', 'if=pflash,format=raw,snapshot=on,file=' + OVMF_VARS]
        cmd += boot_args(boot, image)
    cmd += disk_args(list(disks), profile)
    cmd += ['-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
            '-chardev', 'pipe,id=ser0,path=' + serial_pipe if serial_pipe else 'stdio,id=ser0,signal=off',
            '-serial', 'chardev:ser0']
    if icount:
        cmd += ['-icount', 'shift=0,sleep=off' if icount == 'exact' else 'shift=0']
    elif int(str(smp).split(',')[0]) > 1 and not any(str(x).startswith('-accel') for x in extra):
        # Multi-threaded TCG: one host thread per vCPU, so guest CPUs
        # really run at once (QEMU's default for x86 on x86 too; said
        # here so a run's command line shows it).  -icount needs the
        # single-threaded form.
        cmd += ['-accel', 'tcg,thread=multi']
    cmd += list(extra)
    return cmd


def pvh_beside(image):
    """The PVH boot of a built image (BUILD/disk.img, with BUILD/kernel.elf
    and BUILD/initrd.cpio beside it, made together by make), or None: for
    runs that measure the kernel, not its boot (tools/bench), and skip the
    firmware's 4-5 s per boot (70 s under -icount)."""
    d = os.path.dirname(os.path.abspath(image))
    k, i = os.path.join(d, 'kernel.elf'), os.path.join(d, 'initrd.cpio')
    if os.path.basename(image) == 'disk.img' and os.path.isfile(k) and os.path.isfile(i):
        return {'kernel': k, 'initrd': i}
    return None


class Result:
    def __init__(self, rc, log, records, timed_out, elapsed):
        self.rc, self.log, self.records = rc, log, records
        self.timed_out, self.elapsed = timed_out, elapsed

    def find(self, rtype):
        return [r for r in self.records if r.get('type') == rtype]

    def halt(self):
        h = self.find('halt')
        return h[-1] if h else None

    @property
    def status(self):
        """ok | panic | timeout | powered-off-early | qemu-error"""
        if self.timed_out:
            return 'timeout'
        h = self.halt()
        if h and h.get('status') == 'panic':
            return 'panic'
        if h and h.get('status') == 'ok' and self.rc == 0:
            return 'ok'
        if self.rc == 1:
            return 'qemu-error'
        return 'powered-off-early'


F_SETPIPE_SZ = 1031    # fcntl.F_SETPIPE_SZ (Linux)


def paced_console(path, bps, proc):
    """The console lines QEMU writes to the FIFO at path, read at bps bytes
    a second through a pipe of one page: QEMU's UART then waits for the
    reader, a page at a time, as a PC's transmitter waits for the line
    (115200 baud: 11520 bytes a second).  Reads on unpaced once QEMU has
    exited."""
    import fcntl
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
        step = 0.01
        per = max(1, int(bps * step))
        buf = b''
        nxt = time.time()
        while True:
            done = proc.poll() is not None
            try:
                chunk = os.read(fd, 65536 if done else per)
            except BlockingIOError:
                chunk = None
            if chunk:
                buf += chunk
                while b'\n' in buf:
                    line, buf = buf.split(b'\n', 1)
                    yield line + b'\n'
            elif done:
                break
            nxt += step
            time.sleep(max(0.0, nxt - time.time()))
        if buf:
            yield buf
    finally:
        os.close(fd)


def run(image, cmdline=None, boot='nvme', mem='256M', timeout=120, log_path=None, echo=False,
        disks=(), profile='none', icount=False, smp=1, extra=(), stop_pattern=None, cpu='max',
        workdir=None, direct=None, on_line=None, pvh=None, serial_bps=None):
    """Boot image and return a Result.  stop_pattern: kill QEMU once a line
    matches (for failures the firmware never returns from).  direct: see
    qemu_command (image and cmdline are then unused).  on_line: called
    with each console line as it arrives (a test that acts on the guest
    through QEMU's monitor mid-run).  pvh: {'kernel', 'initrd'} boots
    through the PVH entry with cmdline on QEMU's -append (qemu_command).
    serial_bps: COM1 drains at that many bytes a second (paced_console),
    not as fast as QEMU writes."""
    tmp_image = None
    if pvh:
        pvh = dict(pvh, append=cmdline or '')
    elif cmdline is not None and not direct:
        workdir = workdir or os.path.dirname(os.path.abspath(image))
        tmp_image = image = set_cmdline(image, cmdline, workdir)
    fifo_dir = None
    if serial_bps:
        fifo_dir = tempfile.mkdtemp(prefix='serial-', dir=workdir)
        for end in ('in', 'out'):
            os.mkfifo(os.path.join(fifo_dir, 'com1.' + end))
    cmd = qemu_command(image, boot, mem, disks, profile, icount, smp, extra, cpu, direct=direct, pvh=pvh,
                       serial_pipe=fifo_dir and os.path.join(fifo_dir, 'com1'))
    start = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if fifo_dir:
        console = paced_console(os.path.join(fifo_dir, 'com1.out'), serial_bps, proc)
    else:
        console = proc.stdout
    lines, timed_out, stopped = [], False, False
    err = []
    t = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    t.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        for raw in console:
            line = ANSI.sub('', raw.decode('utf-8', 'replace'))
            lines.append(line)
            if on_line:
                on_line(line)
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()
            if stop_pattern and re.search(stop_pattern, line):
                stopped = True
                proc.kill()
                break
        rc = proc.wait()
    finally:
        timer.cancel()
        t.join()
        if tmp_image:
            os.unlink(tmp_image)
        if fifo_dir:
            shutil.rmtree(fifo_dir, ignore_errors=True)
    elapsed = time.time() - start
    timed_out = not stopped and elapsed >= timeout - 0.5 and rc != 0 and rc < 0
    text = ''.join(lines)
    stderr = err[0].decode('utf-8', 'replace') if err and err[0] else ''
    if stderr.strip():
        text += '\n[qemu stderr] ' + stderr
    if log_path:
        with open(log_path, 'w') as f:
            f.write(text)
    if stopped:
        rc = 'stopped'
    return Result(rc, text, parse_records(text), timed_out, elapsed)
