"""Boot a disk image in QEMU and show the serial console.

  tools/qemu-run [--image build/disk.img] [--boot nvme|sata|usb] [--mem 256M]
                 [--cmdline 'mem=64M ...'] [--disk FILE[:nvme|sata|usb]] ...
                 [--profile none|ssd|hdd] [--icount[=exact]] [--smp N]
                 [--timeout S] [--log build/serial.log] [--quiet] [--summary]

--summary prints the result tables of workload scripts once more after the
run, so they end the output (make run uses it).

Exit status: 0 when the kernel halted cleanly (a {"type":"halt",
"status":"ok"} record and an ACPI power-off), 1 on a kernel panic, 2 on a
timeout, 3 when QEMU failed or the guest stopped without a halt record.
"""
import argparse
import os
import sys

from . import rig


def script_tables(log):
    """The human tables a workload script prints: from its title line to
    the first line that is not a table row."""
    out, cur = [], None
    for line in log.splitlines():
        if line.startswith('script ') and 'mean\u00b1stderr' in line:
            cur = [line]
            out.append(cur)
        elif cur is not None:
            if not line.strip() or line.startswith('{'):
                cur = None
            else:
                cur.append(line)
    return ['\n'.join(t) for t in out]


def main():
    ap = argparse.ArgumentParser(description='boot an mmkernel image in QEMU')
    ap.add_argument('--image', default='build/disk.img')
    ap.add_argument('--boot', default='nvme', choices=['nvme', 'sata', 'usb'])
    ap.add_argument('--mem', default='256M')
    ap.add_argument('--cmdline', default=None, help='replace the image\'s cmdline.txt (on a copy)')
    ap.add_argument('--disk', action='append', default=[], help='extra disk FILE[:nvme|sata|usb]')
    ap.add_argument('--profile', default='none', choices=sorted(rig.PROFILES))
    ap.add_argument('--icount', nargs='?', const=True, default=False, choices=['exact'],
                    help='-icount shift=0: guest time counts instructions; --icount=exact adds '
                    'sleep=off (idle time jumps to the next timer: exact even when idle, but waits for the disk '
                    'are inflated, since the disk runs in host time)')
    ap.add_argument('--smp', type=int, default=1)
    ap.add_argument('--pvh', action='store_true',
                    help='skip the firmware: boot kernel.elf and initrd.cpio from beside the image through the '
                    'PVH entry (QEMU -kernel; NVMe boot only; no results file)')
    ap.add_argument('--timeout', type=float, default=120)
    ap.add_argument('--log', default=None, help='serial log file (default: next to the image)')
    ap.add_argument('--quiet', action='store_true', help='do not echo the console')
    ap.add_argument('--summary', action='store_true', help='repeat the script result tables at the end')
    ap.add_argument('qemu_args', nargs='*', help='extra QEMU arguments (after --)')
    a = ap.parse_args()
    if not os.path.isfile(a.image):
        sys.exit('qemu-run: %s: no such image (run make image)' % a.image)
    disks = []
    for d in a.disk:
        f, _, bus = d.partition(':')
        if not os.path.isfile(f):
            sys.exit('qemu-run: --disk %s: no such file' % f)
        if bus not in ('', 'nvme', 'sata', 'usb'):
            sys.exit('qemu-run: --disk %s: bus %r is not nvme, sata or usb' % (d, bus))
        disks.append({'file': f, 'bus': bus or 'nvme'})
    log = a.log or os.path.join(os.path.dirname(os.path.abspath(a.image)), 'serial.log')
    pvh = None
    if a.pvh:
        pvh = rig.pvh_beside(a.image)
        if not pvh or a.boot != 'nvme':
            sys.exit('qemu-run: --pvh needs --boot nvme and BUILD/disk.img with kernel.elf and initrd.cpio beside it '
                     '(make image), not %s' % a.image)
        if a.cmdline is None:
            sys.exit('qemu-run: --pvh needs --cmdline (the image\'s cmdline.txt is on its ESP, which a PVH boot skips)')
    r = rig.run(a.image, cmdline=a.cmdline, boot=a.boot, mem=a.mem, timeout=a.timeout,
                    log_path=log, echo=not a.quiet, disks=disks, profile=a.profile,
                    icount=a.icount, smp=a.smp, extra=a.qemu_args, pvh=pvh)
    st = r.status
    if a.summary:
        tables = script_tables(r.log)
        if tables:
            print()
            print('\n\n'.join(tables))
            print()
        else:
            print('qemu-run: no result table in the log')
    print('qemu-run: %s after %.1f s (QEMU exit %s), log in %s' % (st, r.elapsed, r.rc, log))
    sys.exit({'ok': 0, 'panic': 1, 'timeout': 2}.get(st, 3))


if __name__ == '__main__':
    main()
