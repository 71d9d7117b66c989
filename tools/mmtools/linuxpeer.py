"""Linux side by side: the same workload binaries on Debian's stock kernel
and on ours, in the same QEMU machine, compared metric by metric.

  tools/linux-peer --workload "touch 72 30000 seq anon" --page-cluster 0,1,2,3,4
                   --mem 256M [--linux-mem 96M] [--ours-mem 48M]
                   [--cap-ours-to-linux-free | --ours same,matched,rss|both]
                   [--swap-bus nvme|sata] [--profile none|ssd|hdd] [--runs N]
                   [--icount] [--kernel-package PKG[=VERSION] | --kernel-deb FILE
                   | --kernel VMLINUZ --modules DIR|none]
  make linux-peer      a small default plan (see the Makefile)

  --workload STEP     a step as in our run=: "PROG ARGS", or several programs
                      at once "A & B"; repeat the option (or use ';') for
                      several steps, run one after the other in one boot
  --page-cluster LIST Linux's vm.page-cluster values; ours gets ra=fixed:N,
                      the same window (2^N slots, aligned)
  --ours-policy P     our readahead policy instead of fixed:N: vma (Linux's
                      own VMA-based window, bounded by page_cluster N), hugh,
                      shaohua, own, off; ours gets ra=P page_cluster=N
  --mem SIZE          QEMU -m, the same for both kernels
  --linux-mem SIZE    mem= on Linux's command line (default: none)
  --ours-mem SIZE     mem= on ours (default: the same as --linux-mem)
  --ours same,matched,rss|both
                      our column(s), a comma list: "ours" (same) runs with
                      --ours-mem (the same machine config); "ours@free"
                      (matched, or free) with a mem= picked so that our free
                      memory when the workload starts equals Linux's MemFree
                      then (one extra calibration boot); "ours@rss" (rss)
                      with a mem= picked so that the first step's first
                      program holds as much as on Linux (its maxrss_kib:
                      Linux also shrinks its slab, so equal MemFree leaves
                      its workload more); from the free match, mem= moves by
                      the difference, up to 4 boots of that step alone, until
                      within 128 KiB; both: same,matched
  --cap-ours-to-linux-free   short for --ours matched
  --swap-bus, --profile  the swap disk's bus and throttling (rig.PROFILES)
  --runs N            boots per configuration and kernel; mean±sd shown
  --icount[=exact]    -icount shift=0 on both sides (rig.qemu_command): guest
                      time counts instructions, not host time; boots slower;
                      exact: shift=0,sleep=off, idle time too (inflates
                      waits for the disk: docs/seed-benchmarks.md)
  --kernel-package PKG[=VERSION]
                      the Debian package to boot, e.g. the one a table's
                      header names: linux-image-6.1.0-57-amd64=6.1.192-3
                      (default: what linux-image-amd64 depends on today)
  --kernel-deb FILE   a kernel package already on disk (any release)
  --kernel VMLINUZ --modules DIR|none
                      a kernel built elsewhere (3.x, 4.14...): its bzImage
                      and its lib/modules/<release> directory (read only:
                      depmod runs on a symlink copy); none when the nvme or
                      ahci/sd_mod drivers are built in
  --data-parts N      that disk as N equal GPT partitions: @DATAp1 .. @DATApN
                      (Linux: /dev/peer-datapK; ours: /dev/nvme2n1pK)
  --data-mib N        a fresh, empty data disk of N MiB per boot (NVMe only)
                      for the disk workloads: @DATA in a step stands for
                      its path on each side (stream @DATA 64 read, mmap001
                      @DATA 256 1); ours boots with data=nvme2n1, the name
                      that makes it writable (issue 13's page cache)
  --sysctl NAME=VALUE[,VALUE...]
                      a vm knob set on both sides before the first step:
                      Linux's /proc/sys/vm/NAME, ours `@set NAME VALUE`
                      (the script knob of the same name).  NAME: swappiness
                      (0..200), dirty_ratio (1..100), dirty_background_ratio
                      (0..100), dirty_expire_centisecs (1..8640000),
                      overcommit_memory (0..2), overcommit_ratio,
                      overcommit_kbytes; and
                      used_once_swapbacked and anon_used_once (on|off), ours
                      only: Linux has no such knobs (since 5.9 every mapped
                      page, anon and shmem too, needs a second reference to
                      be activated: 6.1's rule is ours with anon_used_once=on
                      used_once_swapbacked=off).  Repeatable; one of them may list several
                      values, the sweep: one column per value (per
                      page-cluster), e.g. --sysctl swappiness=0,60,100,200
  --row PROG.FIELD    a workload's own figure as a table row (as a script's
                      `row`): FIELD of the step's PROG records, summed over
                      them (shmdb.tps, shmdb.nr_active_anon_avg)
  --side both|linux|ours, --linux-vma-ra default|on|off, --linux-thp,
  --linux-append, --ours-append, --swap-mib, --timeout, --image, --workloads-dir, --offline
  --linux-dma off     reserve Linux's ZONE_DMA (memmap=15M$1M): its 16 MiB
                      are a fifth of a 128 MiB VM, reclaimed on their own,
                      so Linux evicts by zone as well as by LRU order

Each (kernel, page-cluster, run) is a fresh boot with a fresh swap disk.

Linux side.  The kernel: by default apt-cache resolves linux-image-amd64
to today's linux-image-<release> package and its candidate version, and
`apt-get download PKG=VERSION` puts that exact .deb in
build/linux-peer/debs/ (kept: a later run with --kernel-package
PKG=VERSION, or --offline, boots it again; the archive drops old
versions, snapshot.debian.org keeps them, for --kernel-deb).
dpkg-deb -x unpacks it into build/linux-peer/trees/, and depmod makes
the modules.dep that Debian's postinst would.  kernel.json, every
results.jsonl record ("kernel": source, package, version, release,
sha256) and the table's header name what was booted, with the option
that boots it again.  The initramfs (a gzipped newc cpio written here,
no root needed) holds busybox-static, the nvme or ahci+sd_mod modules
with what kmod's `modprobe -d ROOT -S RELEASE --show-depends` says they
need (dependencies and softdeps, in load order), the workloads under
/bin/, /init = tools/linux-peer-init.sh (shellcheck'ed by make
tools-test) and /etc/peer-steps, the plan as `step LABEL PROG...` lines.
/init mounts devtmpfs/proc/sys,
insmods the modules, waits for the swap disk, mkswap+swapon, sets
/proc/sys/vm/page-cluster from `peer.pc=N` on the kernel command line,
prints /proc/meminfo as a linux_meminfo record, then runs each step and
prints one record per step:
  {"type":"linux_result","label":STEP,"page_cluster":N,"cmd":STEP,
   "exit_codes":[..],"elapsed_ns":..,"memfree_before":..,
   "memavailable_before":..,"vmstat_delta":{every /proc/vmstat line},
   "workload":{the first program's JSON line},"workloads":[..]}
and ends with {"type":"linux_done"} and poweroff -f.  QEMU boots it with
-kernel/-initrd/-append (no firmware) in qemurig's machine: q35, -cpu max,
the same -m, the same swap disk bus and profile, console=ttyS0.  THP is
off (transparent_hugepage=never, --linux-thp to change): ours has none.

With --data-mib the data disk is the second NVMe controller (serial
peerdata); /init finds both disks by serial, as Linux may probe them in
either order, and links the data disk to /dev/peer-data, which @DATA
names there.  On ours the data disk is nvme2n1 (after the boot disk and
the swap disk) and @DATA is /dev/nvme2n1.  Linux's dirty_ratio and
swappiness stay at its defaults unless --sysctl sets them: /init writes
/proc/sys/vm/NAME from `peer.vm=NAME:VALUE,...` on the command line and
reads every one back into the linux_boot record ("vm"), which the
table's header prints.  Caches: both sides drop them before every step
(Linux: sync, then vm.drop_caches=3; ours: the runner, as a script's
`drop_caches`), so a script's drop_caches has nothing left to map.

Our side: rig.run on build/disk.img with `quiet [mem=..] ra=fixed:N
run="@sleep 0 ; STEPS"`.  The `@sleep 0` step's vmstat record carries
nr_free_pages just before the first workload (our "free at start"); each
step's {"type":"vmstat","label":STEP} record and the {"type":"workload"}
lines before it give the numbers.

Output: a table per step, rows real/user/sys time (the workloads' own
CLOCK_MONOTONIC and getrusage), pgmajfault, pgpgin, pgpgout (KiB, as in
/proc/vmstat), pswpin, pswpout, swap_ra, swap_ra_hit, free memory just
before the step (ours@free is matched to Linux at the first step only: a
boot's later steps start with what the earlier ones left, which differs
between the kernels); columns per page-cluster: ours | ours@free | linux
(headers say which mem= and free memory each had).  Also build/linux-peer/compare.csv
(long form: step, metric, page_cluster, side, mem, mean, sd, n, values),
results.jsonl (every run's raw record) and the serial logs in
build/linux-peer/logs/.  A failed boot prints the serial log's tail.

Differences that are Linux's, not the rig's: Linux needs ~80 MiB of
-m for itself (mem=128M leaves ~49 MiB MemFree with the nvme modules),
hence the ours@free column; its heuristic overcommit refuses an mmap
larger than RAM + swap (the workload exits 3 with ENOMEM) where ours
maps it and OOM-kills later; its reclaim runs in kswapd and differs run
to run (use --runs); timing under TCG is noisy (other jobs on the host;
--icount takes host load out of the guests' CPU time on both sides;
waits for the disk stay host time, and =exact inflates them).
Each kernel is fetched once (about 70 MB .deb, 470 MB unpacked under
build/linux-peer/trees/; delete what you no longer compare against);
when apt fails, the default run boots the kernel kernel.json names.
"""
import argparse
import csv
import glob
import gzip
import hashlib
import json
import lzma
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from . import rig, tables
from .cpio import Cpio
from .stats import summary

OUT = 'build/linux-peer'
META = 'linux-image-amd64'
BUSYBOX = '/bin/busybox'
MODULE_ROOTS = {'nvme': ['nvme'], 'sata': ['ahci', 'sd_mod']}
SWAP_DEV = {'nvme': 'nvme0n1', 'sata': 'sda'}
METRICS = [  # (row name, key, unit)
    ('real time (s)', 'real_s', 's'), ('user time (s)', 'user_s', 's'), ('sys time (s)', 'sys_s', 's'),
    ('pgmajfault', 'pgmajfault', 'n'), ('pgpgin (KiB)', 'pgpgin', 'n'), ('pgpgout (KiB)', 'pgpgout', 'n'),
    ('pswpin', 'pswpin', 'n'), ('pswpout', 'pswpout', 'n'), ('swap_ra', 'swap_ra', 'n'),
    ('swap_ra_hit', 'swap_ra_hit', 'n'), ('free before step (MiB)', 'free_mib', 'm'),
    ('maxrss (MiB)', 'maxrss_mib', 'm'),
]


# --sysctl: our knob names, which are Linux's vm sysctl names, with the
# ranges of kernel/core/knob_table.c; None: a boolean (on|off).
SYSCTLS = {'swappiness': (0, 200), 'dirty_ratio': (1, 100), 'dirty_background_ratio': (0, 100),
           'dirty_expire_centisecs': (1, 8640000), 'used_once_swapbacked': None, 'anon_used_once': None,
           'overcommit_memory': (0, 2), 'overcommit_ratio': (0, 1 << 32), 'overcommit_kbytes': (0, 1 << 40)}
LINUX_ONLY_NOT = {'used_once_swapbacked', 'anon_used_once'}     # ours only: Linux has no such knobs


def mean(xs):
    return summary(xs).mean


def die(msg):
    sys.exit('linux-peer: ' + msg)


def say(msg):
    print('linux-peer: ' + msg, file=sys.stderr, flush=True)


class BootFailed(Exception):
    """One boot failed (timed out, stalled, crashed): said, and the other
    boots still run (main)."""


def missing_columns(results, sides, pcs, nconfigs):
    """The (side, page_cluster, config) cells with no successful boot."""
    have = {(r['side'], r['page_cluster'], r['config']) for r in results}
    return [(side, pc, ci) for side in sides for pc in pcs for ci in range(nconfigs) if (side, pc, ci) not in have]


class ToolError(Exception):
    pass


def run_tool(cmd, what, cwd=None, raise_=False):
    """Run cmd; on failure exit (or raise ToolError) naming `what` with the
    tool's own message."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if p.returncode != 0:
            msg = (p.stderr.strip() or p.stdout.strip() or 'exit status %d' % p.returncode).splitlines()
            raise ToolError('%s failed: %s' % (what, ' / '.join(msg[-4:])))
    except (OSError, ToolError) as e:
        msg = str(e) if isinstance(e, ToolError) else '%s failed: %s' % (what, e)
        if raise_:
            raise ToolError(msg)
        die(msg)
    return p.stdout


def parse_sysctls(opts):
    """[config dict] from --sysctl NAME=V[,V...] options: one config, or one
    per value of the single option that lists several (the sweep)."""
    fixed, sweep = {}, None
    for o in opts:
        name, eq, vals = o.partition('=')
        name = name.strip()
        if name.startswith('vm.'):
            name = name[3:]
        if not eq or name not in SYSCTLS:
            die('--sysctl %s: expected NAME=VALUE with NAME one of %s' % (o, ', '.join(sorted(SYSCTLS))))
        vs = [v.strip() for v in vals.split(',') if v.strip()]
        if not vs:
            die('--sysctl %s: no value' % o)
        for v in vs:
            rng = SYSCTLS[name]
            ok = v in ('on', 'off') if rng is None else (v.isdigit() and rng[0] <= int(v) <= rng[1])
            if not ok:
                die('--sysctl %s: %r is not %s' % (o, v, 'on or off' if rng is None else
                                                   'a number in %d..%d' % rng))
        if name in fixed or (sweep and sweep[0] == name):
            die('--sysctl %s: %s given twice' % (o, name))
        if len(vs) > 1:
            if sweep:
                die('--sysctl %s: only one knob may sweep several values (%s does already)' % (o, sweep[0]))
            sweep = (name, vs)
        else:
            fixed[name] = vs[0]
    if not sweep:
        return [fixed]
    return [dict(fixed, **{sweep[0]: v}) for v in sweep[1]]


def cfg_label(cfg, sweep_key):
    return '%s=%s' % (sweep_key, cfg[sweep_key]) if sweep_key else ''


def linux_vm_arg(cfg):
    """peer.vm=NAME:VALUE,... for /init (the knobs Linux has), or None."""
    kv = ['%s:%s' % (k, v) for k, v in sorted(cfg.items()) if k not in LINUX_ONLY_NOT]
    return 'peer.vm=' + ','.join(kv) if kv else None


def parse_rows(rows):
    out = []
    for r in rows:
        m = re.fullmatch(r'([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)', r.strip())
        if not m:
            die('--row %s: expected PROGRAM.FIELD, e.g. shmdb.tps' % r)
        out.append((m.group(1), m.group(2)))
    return out


def parse_size(s, opt):
    m = re.fullmatch(r'(\d+)([KMG]?)i?B?', s.strip(), re.I)
    if not m:
        die('%s %s: expected a size such as 96M, 1G or 65536K' % (opt, s))
    return int(m.group(1)) << {'': 0, 'K': 10, 'M': 20, 'G': 30}[m.group(2).upper()]


def size_str(n):
    return '%dM' % (n >> 20) if n % (1 << 20) == 0 else '%dK' % (n >> 10)


# ------------------------------------------------------------ the Linux kernel
#
# Three sources, one record of what was booted ("kernel" in results.jsonl,
# kernel.json, the table's header), so that a comparison can be rerun
# against the very same kernel:
#   debian   apt-get download of a linux-image-<release> package; by default
#            whatever linux-image-amd64 depends on today, pinned to the exact
#            package and Debian version it resolved to (--kernel-package
#            PKG=VERSION asks for that one again)
#   deb      --kernel-deb FILE: any kernel package already on disk
#   files    --kernel VMLINUZ --modules DIR|none: a kernel built elsewhere
#            (3.x, 4.14...); DIR is its lib/modules/<release>; none: the
#            swap disk's drivers are built in

def sha256_of(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def apt_download(pkg, debs):
    """apt-get download pkg (NAME or NAME=VERSION) into debs/; the .deb's path."""
    tmp = tempfile.mkdtemp(dir=debs)
    try:
        run_tool(['apt-get', 'download', pkg], 'apt-get download %s' % pkg, cwd=tmp, raise_=True)
        got = glob.glob(os.path.join(tmp, pkg.split('=')[0] + '_*.deb'))
        if not got:
            raise ToolError('apt-get download %s left no .deb in %s' % (pkg, tmp))
        deb = os.path.join(debs, os.path.basename(got[0]))
        shutil.move(got[0], deb)
        return deb
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def resolve_debian(pin):
    """(package, version) to fetch: pin 'PKG=VERSION' or 'PKG' as given
    (PKG's candidate version), else linux-image-amd64's dependency today."""
    pkg, _, ver = (pin or '').partition('=')
    if not pkg:
        out = run_tool(['apt-cache', 'depends', META], 'apt-cache depends %s' % META, raise_=True)
        pkgs = re.findall(r'^\s*Depends:\s*(linux-image-[0-9][^\s]*)', out, re.M)
        if not pkgs:
            raise ToolError('apt-cache depends %s names no linux-image-<release> package: %s'
                            % (META, ' / '.join(out.split('\n'))))
        pkg = pkgs[0]
    if not re.fullmatch(r'linux-image-[0-9][A-Za-z0-9.+~-]*', pkg):
        die('--kernel-package %s: expected linux-image-<release>[=VERSION], e.g. '
            'linux-image-6.1.0-57-amd64=6.1.192-3' % pin)
    if not ver:
        out = run_tool(['apt-cache', 'policy', pkg], 'apt-cache policy %s' % pkg, raise_=True)
        m = re.search(r'^\s*Candidate:\s*(\S+)', out, re.M)
        if not m or m.group(1) == '(none)':
            raise ToolError('apt-cache policy %s: no candidate version (not in the archive?)' % pkg)
        ver = m.group(1)
    return pkg, ver


def deb_name(pkg, ver):
    """The file name apt gives PKG=VER's .deb (':' in an epoch is %3a)."""
    return '%s_%s_amd64.deb' % (pkg, ver.replace(':', '%3a'))


def fetch_debian(pin, offline):
    """The pinned (or today's) Debian kernel .deb, from build/linux-peer/debs
    when it is there; apt only for what is missing."""
    debs = os.path.join(OUT, 'debs')
    os.makedirs(debs, exist_ok=True)
    cache = os.path.join(OUT, 'kernel.json')

    def cached(why):
        if not os.path.exists(cache):
            die('%s, and no kernel was fetched before (%s missing)' % (why, cache))
        with open(cache) as f:
            k = json.load(f)
        if k.get('source') != 'debian' or not os.path.exists(k.get('deb') or ''):
            die('%s, and %s names no downloaded Debian kernel (%s)' % (why, cache, k.get('deb')))
        return k['deb']

    if offline and not pin:
        return cached('--offline')
    if offline:
        pkg, _, ver = pin.partition('=')
        have = sorted(glob.glob(os.path.join(debs, deb_name(pkg, ver) if ver else pkg + '_*.deb')))
        if not have:
            die('--offline --kernel-package %s: no such .deb in %s' % (pin, debs))
        return have[-1]
    try:
        pkg, ver = resolve_debian(pin)
    except ToolError as e:
        if not pin:
            deb = cached(str(e))
            say('%s; booting the kernel fetched before, %s' % (e, os.path.basename(deb)))
            return deb
        die('%s (an older version gone from the archive: fetch its .deb from snapshot.debian.org and pass '
            '--kernel-deb FILE)' % e)
    deb = os.path.join(debs, deb_name(pkg, ver))
    if os.path.exists(deb):
        return deb
    try:
        return apt_download('%s=%s' % (pkg, ver), debs)
    except ToolError as e:
        die('%s (an older version gone from the archive: fetch its .deb from snapshot.debian.org and pass '
            '--kernel-deb FILE)' % e)


def unpack_deb(deb):
    """Extract deb once into build/linux-peer/<name>/ and run depmod there
    (Debian's packages ship no modules.dep: postinst makes it)."""
    root = os.path.join(OUT, 'trees', os.path.basename(deb)[:-4])
    done = os.path.join(root, '.unpacked')
    if not os.path.exists(done):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        run_tool(['dpkg-deb', '-x', deb, root], 'dpkg-deb -x %s' % deb)
        rels = [os.path.basename(d) for d in glob.glob(os.path.join(root, 'lib', 'modules', '*'))]
        for rel in rels:
            run_tool(['depmod', '-b', root, rel], 'depmod -b %s %s' % (root, rel))
        open(done, 'w').close()
    vmlinuz = glob.glob(os.path.join(root, 'boot', 'vmlinuz-*'))
    moddirs = glob.glob(os.path.join(root, 'lib', 'modules', '*'))
    if len(vmlinuz) != 1 or len(moddirs) != 1:
        die('%s: expected one boot/vmlinuz-* and one lib/modules/*, found %d and %d'
            % (deb, len(vmlinuz), len(moddirs)))
    return root, vmlinuz[0], os.path.basename(moddirs[0])


def deb_kernel(deb, source):
    if not os.path.isfile(deb):
        die('--kernel-deb %s: no such file' % deb)
    pkg = run_tool(['dpkg-deb', '-f', deb, 'Package'], 'dpkg-deb -f %s Package' % deb).strip()
    ver = run_tool(['dpkg-deb', '-f', deb, 'Version'], 'dpkg-deb -f %s Version' % deb).strip()
    root, vmlinuz, rel = unpack_deb(deb)
    return {'source': source, 'package': pkg, 'version': ver, 'deb': os.path.abspath(deb),
            'sha256': sha256_of(deb), 'vmlinuz': vmlinuz, 'modroot': root, 'release': rel,
            'pin': '--kernel-package %s=%s' % (pkg, ver) if source == 'debian' else '--kernel-deb %s' % deb}


def bzimage_release(path):
    """The release in a bzImage's header (kernel_version, boot protocol
    2.00+), or None."""
    with open(path, 'rb') as f:
        head = f.read(0x8000)
    if len(head) < 0x210 or head[0x202:0x206] != b'HdrS':
        return None
    off, = struct.unpack_from('<H', head, 0x20e)
    s = head[off + 0x200:off + 0x200 + 128].split(b'\0')[0].decode('ascii', 'replace')
    return s.split()[0] if s.strip() else None


def files_kernel(vmlinuz, modules):
    """A kernel built elsewhere: VMLINUZ and its lib/modules/<release>."""
    if not os.path.isfile(vmlinuz):
        die('--kernel %s: no such file' % vmlinuz)
    k = {'source': 'files', 'package': '-', 'version': '-', 'vmlinuz': os.path.abspath(vmlinuz),
         'sha256': sha256_of(vmlinuz), 'modroot': None, 'release': bzimage_release(vmlinuz)}
    if modules == 'none':
        k['pin'] = '--kernel %s --modules none' % vmlinuz
        return k
    if not os.path.isdir(modules):
        die('--modules %s: no such directory (give lib/modules/<release>, or none)' % modules)
    # The release is what the kernel itself says (it looks for modules
    # there); the directory's name only when the header has none.
    rel = k['release'] or os.path.basename(os.path.normpath(modules))
    if rel != os.path.basename(os.path.normpath(modules)):
        say('note: %s says release %s; --modules %s serves as lib/modules/%s' % (vmlinuz, rel, modules, rel))
    # A private root: a tree of symlinks to DIR's files, so depmod writes
    # its modules.dep here and never into DIR.
    root = os.path.join(OUT, 'trees', 'files-' + hashlib.sha256(os.path.abspath(modules).encode()).hexdigest()[:12])
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, 'lib', 'modules'))
    run_tool(['cp', '-rs', os.path.abspath(modules), os.path.join(root, 'lib', 'modules', rel)],
             'cp -rs %s' % modules)
    run_tool(['depmod', '-b', root, rel], 'depmod -b %s %s' % (root, rel))
    k.update(modroot=root, release=rel, modules=os.path.abspath(modules),
             pin='--kernel %s --modules %s' % (vmlinuz, modules))
    return k


def get_kernel(a):
    if a.kernel_deb:
        k = deb_kernel(a.kernel_deb, 'deb')
    elif a.kernel:
        k = files_kernel(a.kernel, a.modules)
    else:
        k = deb_kernel(fetch_debian(a.kernel_package, a.offline), 'debian')
    with open(os.path.join(OUT, 'kernel.json'), 'w') as f:
        json.dump(k, f, indent=1)
    return k


def read_ko(path):
    with open(path, 'rb') as f:
        data = f.read()
    if path.endswith('.xz'):
        return lzma.decompress(data)
    if path.endswith('.gz'):
        return gzip.decompress(data)
    if path.endswith('.zst'):
        try:
            return subprocess.run(['zstd', '-dc', path], capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die('%s is zstd-compressed and zstd -d failed (%s): install zstd' % (path, e))
    return data


def modname(path_or_name):
    b = os.path.basename(path_or_name)
    b = re.sub(r'\.ko(\.(xz|gz|zst))?$', '', b)
    return b.replace('-', '_')


def parse_show_depends(text):
    """[(name, path or None for built in)] from modprobe --show-depends, in
    load order, each module once (softdeps repeat their targets)."""
    out, seen = [], set()
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 2 and w[0] == 'insmod':
            name, path = modname(w[1]), w[1]
        elif len(w) >= 2 and w[0] == 'builtin':
            name, path = modname(w[1]), None
        else:
            continue
        if name not in seen:
            seen.add(name)
            out.append((name, path))
    return out


def resolve_modules(kernel, roots):
    """[(name, .ko bytes)] in load order for roots and what they need, as
    kmod's modprobe resolves it (hard dependencies and softdeps)."""
    if kernel['modroot'] is None:
        return []
    order, seen = [], set()
    for r in roots:
        text = run_tool(['modprobe', '-d', kernel['modroot'], '-S', kernel['release'], '--show-depends', r],
                        'modprobe -d %s -S %s --show-depends %s' % (kernel['modroot'], kernel['release'], r))
        for name, path in parse_show_depends(text):
            if name not in seen and path:
                seen.add(name)
                order.append((name, read_ko(path)))
    return order


# ------------------------------------------------------------ the initramfs

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # tools/
INIT = os.path.join(TOOLS, 'linux-peer-init.sh')     # the guest's /init (shellcheck'ed by make tools-test)


def parse_plan(workloads):
    """[(label, [program command lines])]; ';' splits steps, '&' programs."""
    steps = []
    for w in workloads:
        for s in w.split(';'):
            s = s.strip()
            if not s:
                continue
            if re.search(r'["\\$`\']', s):
                die('--workload %r: quotes, backslashes, $ and ` are not allowed' % s)
            if len(s) > 127:
                die('--workload %r: longer than 127 characters (our runner\'s label limit)' % s)
            progs = [p.strip() for p in s.split('&') if p.strip()]
            for p in progs:
                if p.startswith('@') and not re.fullmatch(r'@sleep \d+', p):
                    die('--workload: %r: only the built-in @sleep MS runs on both kernels' % p)
            steps.append((' '.join(s.split()), progs))
    if not steps:
        die('no --workload given')
    return steps


DATA_SERIAL = 'peerdata'           # the data disk's NVMe serial (/init looks for it)
LINUX_DATA = '/dev/peer-data'      # /init's link to the data disk
OURS_DATA = 'nvme2n1'              # ours: boot disk nvme0n1, swap nvme1n1, data


def with_data(steps, dev):
    """The steps with @DATA in their program lines replaced by dev; labels
    stay as given, so both sides' steps line up in the table."""
    return [(label, [p.replace('@DATA', dev) for p in progs]) for label, progs in steps]


def data_disk(a, name):
    """A fresh sparse data disk for one boot, or None without --data-mib;
    with --data-parts N, a GPT of N equal partitions (@DATAp1 ...)."""
    if not a.data_mib:
        return None
    path = swap_disk(name, a.data_mib, mkswap=False)
    parts = getattr(a, 'data_parts', 0)
    if parts:
        sectors = (a.data_mib << 11) - 2048 - 34      # after the first MiB, before the backup table
        each = sectors // parts // 2048 * 2048       # MiB-aligned, as partitioning tools make them
        args = ['sgdisk']
        for i in range(parts):
            args += ['-n', '%d:%d:%d' % (i + 1, 2048 + i * each, 2048 + (i + 1) * each - 1)]
        run_tool(args + [path], 'sgdisk %s' % path)
    return {'file': path, 'bus': 'nvme', 'serial': DATA_SERIAL}


def steps_file(steps):
    """/etc/peer-steps: the plan as `step LABEL PROG...` lines for /init."""
    return ''.join('step %s %s\n' % (shlex.quote(label), ' '.join(shlex.quote(p) for p in ps))
                   for label, ps in steps)


def build_initramfs(kernel, bus, steps, wdir, path):
    need = {p.split()[0] for _, progs in steps for p in progs if not p.startswith('@')}
    progs = {}
    for f in sorted(os.listdir(wdir)):
        full = os.path.join(wdir, f)
        if '.' in f or not os.path.isfile(full) or not os.access(full, os.X_OK):
            continue
        with open(full, 'rb') as fh:
            data = fh.read()
        if data[:4] == b'\x7fELF':
            progs[f] = data
    missing = sorted(need - set(progs))
    if missing:
        die('workload program(s) %s not in %s (run make workloads)' % (', '.join(missing), wdir))
    if not os.path.exists(BUSYBOX):
        die('%s missing: install busybox-static (tools/deps)' % BUSYBOX)
    with open(BUSYBOX, 'rb') as f:
        busybox = f.read()
    if b'/lib64/ld-linux' in busybox[:4096]:
        die('%s is dynamically linked: install busybox-static, not busybox' % BUSYBOX)
    mods = resolve_modules(kernel, MODULE_ROOTS[bus])
    with open(INIT, 'rb') as f:
        init = f.read()
    c = Cpio()
    for d in ('bin', 'sbin', 'dev', 'proc', 'sys', 'tmp', 'etc', 'lib', 'lib/modules'):
        c.dir(d)
    c.chardev('dev/console', 5, 1)     # the kernel opens it for /init's stdio
    c.file('init', init, 0o755)
    c.file('etc/peer-steps', steps_file(steps).encode())
    c.file('sbin/busybox', busybox, 0o755)
    for name, data in sorted(progs.items()):
        c.file('bin/' + name, data, 0o755)
    for name, data in mods:
        c.file('lib/modules/%s.ko' % name, data)
    c.file('etc/modules.' + bus, ''.join(n + '\n' for n, _ in mods).encode())
    with open(path, 'wb') as raw, gzip.GzipFile(fileobj=raw, mode='wb', compresslevel=6, mtime=0) as f:
        f.write(c.finish())
    return [n for n, _ in mods], sorted(progs)


# ------------------------------------------------------------ boots

def swap_disk(name, mib, mkswap):
    path = os.path.join(OUT, name)
    if os.path.exists(path):
        os.unlink(path)
    with open(path, 'wb') as f:
        f.truncate(mib << 20)
    if mkswap:
        run_tool(['mkswap', path], 'mkswap %s' % path)
    return path


def log_tail(r, path, n=40):
    lines = [x for x in r.log.rstrip('\n').splitlines() if x.strip()]
    if not lines:
        return '    (the console stayed empty)\n(serial log: %s)' % path
    return '\n'.join('    ' + x for x in lines[-n:]) + '\n(serial log: %s)' % path


# --linux-dma off: reserve 1-16 MiB, ZONE_DMA's pages (the first MiB is
# reserved by Linux anyway), so every allocation comes from ZONE_DMA32.
NO_DMA = 'memmap=15M$1M'


def zone_note(lin):
    """A line on Linux's zones in these runs, or None: the share of page
    allocations ZONE_DMA served (pgalloc_dma of all pgalloc_*) and the
    pages its reclaim skipped in higher zones (pgskip_*), over every step
    of every Linux run.  In a small VM ZONE_DMA's 16 MiB is a fifth of
    memory, balanced on its own, so Linux evicts by zone as well as by
    LRU order; on a PC of 16 GiB it is 0.1%."""
    alloc = dma = skip = 0
    for r in lin:
        for st in r.get('steps', []):
            v = st.get('vmstat') or {}
            dma += v.get('pgalloc_dma', 0)
            alloc += sum(v.get(k, 0) for k in ('pgalloc_dma', 'pgalloc_dma32', 'pgalloc_normal', 'pgalloc_movable'))
            skip += sum(v.get(k, 0) for k in ('pgskip_dma32', 'pgskip_normal', 'pgskip_movable'))
    if not alloc:
        return None
    return ('zones: ZONE_DMA served %.1f%% of the page allocations (pgalloc_dma %d of %d), reclaim skipped %d '
            'pages of higher zones (pgskip_*)%s' % (100.0 * dma / alloc, dma, alloc, skip,
                                                   '; --linux-dma off takes ZONE_DMA out' if dma * 20 > alloc else ''))


def boot_linux(a, kernel, initrd, pc, run, cfg=None, ci=0):
    cfg = cfg or {}
    log = os.path.join(OUT, 'logs', 'linux-pc%d-cfg%d-run%d.log' % (pc, ci, run))
    # no_timer_check: Linux's boot-time IO-APIC timer check fails under TCG
    # on a loaded host ("IO-APIC + timer doesn't work!", a panic; seen at
    # load 20); KVM guests skip it the same way.
    append = ['console=ttyS0', 'panic=-1', 'no_timer_check',
              'transparent_hugepage=' + a.linux_thp]   # boot log kept: failures show it
    if a.linux_mem:
        append.append('mem=' + a.linux_mem)
    append += ['peer.bus=' + a.swap_bus, 'peer.pc=%d' % pc, 'peer.vmra=' + a.linux_vma_ra]
    data = data_disk(a, 'data-linux.img')
    if data:
        append.append('peer.data=' + DATA_SERIAL)
        if a.data_parts:
            append.append('peer.dataparts=%d' % a.data_parts)
    if linux_vm_arg(cfg):
        append.append(linux_vm_arg(cfg))
    if getattr(a, 'linux_dma', 'on') == 'off':
        append.append(NO_DMA)
    append += a.linux_append.split()
    disk = swap_disk('swap-linux.img', a.swap_mib, mkswap=False)
    r = rig.run(None, mem=a.mem, timeout=a.timeout, log_path=log,
                disks=[{'file': disk, 'bus': a.swap_bus}] + ([data] if data else []),
                profile=a.profile, workdir=OUT, icount=a.icount,
                direct={'kernel': kernel['vmlinuz'], 'initrd': initrd, 'append': ' '.join(append)})
    os.unlink(disk)
    if data:
        os.unlink(data['file'])
    err = r.find('linux_error')
    if r.timed_out or err or not r.find('linux_done'):
        why = ('timed out after %d s' % a.timeout if r.timed_out else
               err[0]['msg'] if err else 'stopped without a linux_done record (QEMU exit %s)' % r.rc)
        raise BootFailed('Linux boot (page-cluster %d, run %d) failed: %s; serial log tail:\n%s'
                         % (pc, run, why, log_tail(r, log)))
    for x in r.find('linux_result'):
        if step_failed(x):
            say('warning: linux, page-cluster %d run %d: %r exit codes %s (its stderr is in %s)'
                % (pc, run, x['label'], x['exit_codes'], log))
    boot = r.find('linux_boot')[0]
    start = [m for m in r.find('linux_meminfo') if m.get('when') == 'start'][0]
    steps = []
    for x in r.find('linux_result'):
        ws = [w for w in x.get('workloads', []) if w]
        v = x['vmstat_delta']
        steps.append({'label': x['label'], 'exit_codes': x['exit_codes'], 'workloads': ws, 'vmstat': v,
                      'step_elapsed_ns': x['elapsed_ns'], 'free_bytes': x['memfree_before'],
                      'memavailable_bytes': x['memavailable_before']})
    kfacts = {k: kernel.get(k) for k in ('source', 'package', 'version', 'release', 'sha256', 'deb', 'pin')}
    return {'side': 'linux', 'page_cluster': pc, 'config': ci, 'vm': cfg, 'run': run, 'boot_s': r.elapsed,
            'linux_boot': boot,
            'kernel': kfacts, 'icount': a.icount,
            'free_bytes': start['MemFree'], 'memavailable_bytes': start['MemAvailable'],
            'memtotal_bytes': start['MemTotal'], 'steps': steps, 'log': log, 'append': ' '.join(append)}


OURS_POLICY = 'fixed'
OURS_APPEND = []        # --ours-append: more words on our command line


def ours_ra(pc):
    """Our readahead settings for Linux's page-cluster pc."""
    if OURS_POLICY == 'fixed':
        return 'ra=fixed:%d' % pc
    return 'ra=%s' % OURS_POLICY


def ours_cmdline(mem, pc, steps, data=False, cfg=None):
    sets = ['@set %s %s' % kv for kv in sorted((cfg or {}).items())]
    spec = ' ; '.join(['@sleep 0', '@set page_cluster %d' % pc] + sets + [label for label, _ in steps])
    if len(spec) > 511:
        die('the plan is %d characters as run="...": our run= holds 511' % len(spec))
    # data= names each device written: the disk, and each partition a step
    # names (@DATAp2 is /dev/nvme2n1p2), as ours allows writes per device.
    parts = sorted(set(re.findall(r'/dev/(%sp\d+)' % OURS_DATA, spec)))
    return 'quiet %s%s%s%s run="%s"' % ('mem=%s ' % mem if mem else '',
                                        'data=%s ' % ','.join([OURS_DATA] + parts) if data else '',
                                        ''.join(w + ' ' for w in OURS_APPEND), ours_ra(pc), spec)


def boot_ours(a, mem, pc, run, steps, tag=None, cfg=None, ci=0):
    log = os.path.join(OUT, 'logs', '%s-pc%d-cfg%d-run%d.log' % (tag or 'ours', pc, ci, run))
    # run= names a step by its text: ours runs @DATA as /dev/nvme2n1, and
    # the records come back under the step as given.
    given = {label.replace('@DATA', '/dev/' + OURS_DATA): label for label, _ in steps}
    steps = [(label.replace('@DATA', '/dev/' + OURS_DATA), progs) for label, progs in steps]
    data = data_disk(a, 'data-ours.img')
    cmdline = ours_cmdline(mem, pc, steps, data=bool(data), cfg=cfg)
    disk = swap_disk('swap-ours.img', a.swap_mib, mkswap=True)
    r = rig.run(a.image, cmdline=cmdline, mem=a.mem, timeout=a.timeout, log_path=log,
                 disks=[{'file': disk, 'bus': a.swap_bus}] + ([data] if data else []), profile=a.profile,
                 workdir=OUT, icount=a.icount)
    os.unlink(disk)
    if data:
        os.unlink(data['file'])
    if r.status != 'ok':
        raise BootFailed('our kernel (page-cluster %d, run %d, cmdline %s) failed: %s; serial log tail:\n%s'
                         % (pc, run, cmdline, r.status, log_tail(r, log)))
    boot = r.find('boot')[0]
    labels = {label for label, _ in steps}
    out, pending, exits, free_start, free_now = [], [], [], None, None
    for x in r.records:
        t = x.get('type')
        if t == 'workload':
            pending.append(x)
        elif t == 'task_exit':
            exits.append(x)
        elif t == 'vmstat' and x.get('label') == '@sleep 0' and free_start is None:
            free_start = free_now = x['nr_free_pages'] * 4096
            pending, exits = [], []
        elif t == 'vmstat' and x.get('label') in labels:
            # free_bytes: free just before the step, after the runner
            # dropped the caches (free_before_pages), as Linux's step
            # records give MemFree after its drop_caches; a kernel without
            # that field: the record before it, before the drop (a file
            # step then showed the cache the last step left: 1.6 MiB).
            before = x['free_before_pages'] * 4096 if 'free_before_pages' in x else free_now
            out.append({'label': given[x['label']], 'workloads': pending, 'vmstat': x,
                        'exit_codes': [e.get('exit_code') for e in exits],
                        'exit_reasons': [e.get('reason') for e in exits if e.get('reason')],
                        'free_bytes': before})
            free_now = x['nr_free_pages'] * 4096
            pending, exits = [], []
    for s in out:
        if step_failed(s):
            say('warning: ours, page-cluster %d run %d: %r exit codes %s %s (log %s)'
                % (pc, run, s['label'], s['exit_codes'], s['exit_reasons'], log))
    if len(out) != len(steps):
        raise BootFailed('our kernel printed %d of %d step records; serial log tail:\n%s'
                         % (len(out), len(steps), log_tail(r, log)))
    return {'side': 'ours', 'page_cluster': pc, 'config': ci, 'vm': cfg or {}, 'run': run, 'boot_s': r.elapsed,
            'cmdline': cmdline,
            'icount': a.icount, 'git': boot.get('git'),
            'free_bytes': free_start, 'boot_free_bytes': boot.get('free_bytes'),
            'mem_cap_bytes': boot.get('mem_cap_bytes'), 'managed_bytes': boot.get('managed_bytes'),
            'steps': out, 'log': log}


def calibrate_ours(a, target_free, steps):
    """Our mem= giving target_free bytes free when the workload starts."""
    guess = target_free + (16 << 20)
    r = boot_ours(a, size_str(guess & ~1023), 0, 0, [], tag='calibrate')
    overhead = guess - r['free_bytes']
    cap = (target_free + overhead) & ~((4 << 10) - 1)
    say('calibration: our mem=%s left %.1f MiB free at the start (overhead %.1f MiB) -> mem=%s'
        % (size_str(guess & ~1023), r['free_bytes'] / 2**20, overhead / 2**20, size_str(cap)))
    return size_str(cap)


RSS_CLOSE_KIB = 128     # calibration stops this close to Linux's maxrss
RSS_BOOTS = 4           # at most this many calibration boots


def first_maxrss(step):
    """maxrss_kib of a step's first program, or None."""
    ws = step.get('workloads') or []
    v = ws[0].get('maxrss_kib') if ws else None
    return v if isinstance(v, int) else None


def next_rss_mem(mem_bytes, target_kib, got_kib):
    """The mem= to try next: under memory pressure a program's resident
    set grows kilobyte for kilobyte with the memory the kernel manages, so
    move mem= by the difference (4 KiB-aligned, at least 8 MiB)."""
    m = mem_bytes + (target_kib - got_kib) * 1024
    return max(8 << 20, m & ~4095)


def calibrate_rss(a, target_kib, steps, start_mem, cfg=None, boot=None):
    """Our mem= at which the first step's first program's maxrss is within
    RSS_CLOSE_KIB of target_kib (Linux's): boots ours with that step alone
    (page-cluster and --sysctl config the first), moving mem= by the
    difference each time, RSS_BOOTS at most.  Returns (mem string, the
    maxrss ours had there, boots made); the closest mem= tried when none
    came within the bound (said)."""
    boot = boot or (lambda mem: boot_ours(a, mem, a.page_cluster[0], 0, steps[:1], tag='calibrate-rss', cfg=cfg))
    mem, best, boots = parse_size(start_mem, 'mem'), None, 0
    while boots < RSS_BOOTS:
        r = boot(size_str(mem))
        boots += 1
        got = first_maxrss(r['steps'][0]) if r.get('steps') else None
        if got is None:
            raise BootFailed('calibrating ours@rss: the first step (%s) reported no maxrss_kib' % steps[0][0])
        say('calibration: our mem=%s: %s held maxrss %d KiB, Linux %d KiB' % (size_str(mem), steps[0][0], got,
                                                                                target_kib))
        if best is None or abs(got - target_kib) < abs(best[1] - target_kib):
            best = (mem, got)
        if abs(got - target_kib) <= RSS_CLOSE_KIB:
            break
        nxt = next_rss_mem(mem, target_kib, got)
        if nxt == mem:
            break
        mem = nxt
    if abs(best[1] - target_kib) > RSS_CLOSE_KIB:
        say('calibration: no mem= within %d KiB of Linux\'s maxrss in %d boots; using the closest, mem=%s (%d KiB)'
            % (RSS_CLOSE_KIB, boots, size_str(best[0]), best[1]))
    return size_str(best[0]), best[1], boots


# ------------------------------------------------------------ the table

ROWS = []     # --row (program, field)


def step_failed(step):
    """A step (either side's record) one of whose programs exited non-zero:
    warned about when its boot is read, left out of the report's means."""
    return any(c != 0 for c in step.get('exit_codes') or [])


def metrics_of(step, run_free):
    """A step's row values; free memory is the step's own (free just
    before it: a boot's later steps start with what the earlier ones left,
    which differs between the kernels), else the boot's."""
    ws = step['workloads']
    v = step['vmstat']
    free = step.get('free_bytes')
    free = run_free if free is None else free
    m = {'free_mib': free / 2**20 if free is not None else None}
    for prog, field in ROWS:
        xs = [w[field] for w in ws if w.get('name') == prog and isinstance(w.get(field), (int, float))]
        m['row:%s.%s' % (prog, field)] = sum(xs) if xs else None
    if ws:
        rss = [w['maxrss_kib'] for w in ws if isinstance(w.get('maxrss_kib'), int)]
        m['maxrss_mib'] = sum(rss) / 1024 if rss else None
        m['real_s'] = max(w.get('elapsed_ns', 0) for w in ws) / 1e9
        m['user_s'] = sum(w.get('utime_us', 0) for w in ws) / 1e6
        m['sys_s'] = sum(w.get('stime_us', 0) for w in ws) / 1e6
        m['mismatches'] = sum(w.get('mismatches', 0) for w in ws)
    elif 'step_elapsed_ns' in step:
        m['real_s'] = step['step_elapsed_ns'] / 1e9
    for _, k, unit in METRICS:
        if unit == 'n':
            m[k] = v.get(k)     # None: this kernel has no such counter
    return m


def fmt(xs, unit):
    return tables.cell(summary(xs), {'s': 2, 'm': 1}.get(unit, 0))


SIDE_TITLE = {'ours': 'ours', 'ours_free': 'ours@free', 'ours_rss': 'ours@rss', 'linux': 'linux'}
OURS_CHOICES = {'same': ['ours'], 'matched': ['ours_free'], 'free': ['ours_free'], 'rss': ['ours_rss'],
                'both': ['ours', 'ours_free']}


def parse_ours(text):
    """--ours: a comma list of same, matched (free), rss, both; the sides
    in table order."""
    want = set()
    for w in text.split(','):
        w = w.strip()
        if w not in OURS_CHOICES:
            die('--ours %s: %r is not one of same, matched (or free), rss, both' % (text, w))
        want.update(OURS_CHOICES[w])
    return [s for s in ('ours', 'ours_free', 'ours_rss') if s in want]


def report(a, steps, results, mems, configs, sweep_key):
    pcs = a.page_cluster
    sides = [s for s in ('ours', 'ours_free', 'ours_rss', 'linux') if any(r['side'] == s for r in results)]
    lin = [r for r in results if r['side'] == 'linux']
    print()
    print('Linux side by side, QEMU -m %s for both (q35, -cpu max, TCG%s), swap %d MiB on %s, disk profile %s, '
          '%d run(s) per column' % (a.mem, (', -icount shift=0%s: guest time counts instructions' % (',sleep=off' if a.icount == 'exact' else '')
                                       if a.icount else ''),
                                    a.swap_mib, a.swap_bus, a.profile, a.runs))
    if lin:
        b = lin[0]['linux_boot']
        vma = b['vma_ra_enabled'] == 'true' and b['rotational'] == 0
        k = lin[0]['kernel']
        what = ('Debian kernel %s (%s %s)' % (b['kernel'], k['package'], k['version']) if k['source'] != 'files'
                else 'kernel %s (%s)' % (b['kernel'], a.kernel))
        print('  linux     = %s: mem=%s, vm.page-cluster=N, %s readahead'
              ' (vma_ra_enabled=%s, rotational=%s), THP %s, clocksource %s'
              % (what, a.linux_mem or '(none)',
                 'VMA-based' if vma else 'cluster', b['vma_ra_enabled'], b['rotational'], b['thp'],
                 b['clocksource']))
        print('              free at start: MemFree %.1f MiB, MemAvailable %.1f MiB (MemTotal %.1f MiB)'
              % (mean(r['free_bytes'] for r in lin) / 2**20,
                 mean(r['memavailable_bytes'] for r in lin) / 2**20,
                 mean(r['memtotal_bytes'] for r in lin) / 2**20))
        print('              the same kernel again: %s (sha256 %s)' % (k['pin'], k['sha256'][:16]))
        if getattr(a, 'linux_dma', 'on') == 'off':
            print('              ZONE_DMA taken out: %s on its command line (--linux-dma off)' % NO_DMA)
        z = zone_note(lin)
        if z:
            print('              ' + z)
        vms = sorted({json.dumps(r['linux_boot'].get('vm') or {}, sort_keys=True) for r in lin})
        print('              vm sysctls as read back after /init set them: %s'
              % ' | '.join(', '.join('%s=%s' % kv for kv in sorted(json.loads(x).items())) or '(not reported)'
                           for x in vms))
    for side, what in (('ours', 'same -m%s' % (', same mem= as Linux' if mems.get('ours') == a.linux_mem
                                                else ', mem= %s vs Linux\'s %s' % (mems.get('ours') or '(none)',
                                                                                   a.linux_mem or '(none)'))),
                       ('ours_free', "same free memory: mem= picked so ours starts with Linux's MemFree"),
                       ('ours_rss', "same resident memory: mem= picked so the first step's first program's "
                                    "maxrss is Linux's (%s)" % mems.get('rss_note', '?'))):
        rs = [r for r in results if r['side'] == side]
        if rs:
            print('  %-9s = mmkernel (%s): mem=%s, %s; %s' % (SIDE_TITLE[side], a.image,
                                                                       mems.get(side) or '(none)',
                                                                       ours_ra(0).replace(':0', ':N') +
                                                                       ('' if OURS_POLICY == 'fixed' else
                                                                        ' page_cluster=N'), what))
            print('              free at start: %.1f MiB (nr_free_pages after devices and swapon; boot record'
                  ' free_bytes %.1f MiB)' % (mean(r['free_bytes'] for r in rs) / 2**20,
                                             mean(r['boot_free_bytes'] for r in rs) / 2**20))
    if any(configs):
        print('  --sysctl: %s; ours gets them as @set NAME VALUE steps, Linux as /proc/sys/vm/NAME%s'
              % (' | '.join(', '.join('%s=%s' % kv for kv in sorted(c.items())) for c in configs),
                 '' if not any(k in c for c in configs for k in LINUX_ONLY_NOT) else
                 "; used_once_swapbacked and anon_used_once are ours only: Linux has no such knobs, and since "
                 "5.9 (mm/vmscan: protect the workingset on anonymous LRU) every mapped page needs a second "
                 "reference to be activated, so Linux 6.1's rule is ours with anon_used_once=on "
                 "used_once_swapbacked=off"))
    print("  times: the workloads' own CLOCK_MONOTONIC and getrusage (%s); pgpgin/pgpgout in KiB"
          % ('guest time: -icount shift=0, one instruction a nanosecond' if a.icount else
             'under TCG both are host time'))
    print("  readahead: Linux's page-cluster caps an adaptive window (swapin_nr_pages; VMA-based when"
          ' vma_ra_enabled and the disk is not rotational); ' +
          ('ours ra=fixed:N always reads the aligned 2^N slots' if OURS_POLICY == 'fixed' else
           'ours ra=%s (page_cluster=N bounds hugh, shaohua and vma; own ignores it)' % OURS_POLICY))
    rows = []
    for label, _ in steps:
        print()
        print('step: %s' % label)
        cols = [(pc, ci, s) for pc in pcs for ci in range(len(configs)) for s in sides]

        def title(c):
            lab = cfg_label(configs[c[1]], sweep_key)
            return 'pc=%d %s%s' % (c[0], lab + ' ' if lab else '', SIDE_TITLE[c[2]])
        w = max(13, max(len(title(c)) for c in cols) + 2)
        metrics = METRICS + [('%s.%s' % pf, 'row:%s.%s' % pf, 'n') for pf in ROWS]
        nw = max(20, max(len(m[0]) for m in metrics) + 1)
        print(' ' * nw + ''.join(('%' + str(w) + 's') % title(c) for c in cols))
        # A run whose program exited non-zero (a Linux boot whose NVMe
        # timed out under TCG: SIGBUS in touch) is left out of the means,
        # not averaged in: named under the table.
        per, left_out = {}, []
        for r in results:
            st = [x for x in r['steps'] if x['label'] == label]
            if not st:
                continue
            col = (r['page_cluster'], r.get('config', 0), r['side'])
            if step_failed(st[0]):
                left_out.append('%s run %d (exit %s)' % (title(col), r.get('run', 0) + 1, st[0]['exit_codes']))
                continue
            per.setdefault(col, []).append(metrics_of(st[0], r['free_bytes']))
        for name, k, unit in metrics:
            cells = []
            for c in cols:
                xs = [m.get(k) for m in per.get(c, [])]
                cells.append(('%' + str(w) + 's') % fmt(xs, unit))
                vals = [x for x in xs if x is not None]
                st = summary(vals)
                rows.append({'step': label, 'metric': k, 'page_cluster': c[0],
                             'config': cfg_label(configs[c[1]], sweep_key), 'side': c[2],
                             'mem': mems.get(c[2]) or '', 'mean': ('%.6g' % st.mean) if vals else '',
                             'sd': ('%.6g' % st.sd) if len(vals) > 1 else '',
                             'n': len(vals), 'values': ' '.join('%.6g' % x for x in vals)})
            print(name.ljust(nw) + ''.join(cells))
        if left_out:
            print('  left out of the means, a program exited non-zero: %s' % '; '.join(left_out))
        bad = [(c, m['mismatches']) for c, ms in per.items() for m in ms if m.get('mismatches')]
        if bad:
            print('  DATA MISMATCHES: %r' % bad)
    path = os.path.join(OUT, 'compare.csv')
    with open(path, 'w', newline='') as f:
        wr = csv.DictWriter(f, fieldnames=['step', 'metric', 'page_cluster', 'config', 'side', 'mem', 'mean', 'sd', 'n',
                                           'values'])
        wr.writeheader()
        wr.writerows(rows)
    print()
    print('csv: %s; raw runs: %s; serial logs: %s/logs/' % (path, os.path.join(OUT, 'results.jsonl'), OUT))


def main():
    ap = argparse.ArgumentParser(prog='linux-peer', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--workload', action='append', default=[], help='step to run (repeatable, or ";"-separated)')
    ap.add_argument('--page-cluster', default='0,3', help='comma-separated vm.page-cluster values (0..8)')
    ap.add_argument('--ours-policy', default='fixed', choices=['fixed', 'off', 'hugh', 'shaohua', 'vma', 'own'],
                    help='our readahead policy (fixed: ra=fixed:N)')
    ap.add_argument('--mem', default='256M', help='QEMU -m for both kernels')
    ap.add_argument('--linux-mem', default=None, help='Linux mem= (default: none)')
    ap.add_argument('--ours-mem', default=None, help='our mem= (default: --linux-mem)')
    ap.add_argument('--ours', default='same',
                    help="our column(s), a comma list: same (the same mem= config), matched or free (mem= "
                         "giving Linux's MemFree at the start), rss (mem= giving the first step's first "
                         "program Linux's maxrss), both (same,matched)")
    ap.add_argument('--cap-ours-to-linux-free', action='store_true',
                    help="short for --ours matched: our mem= such that our free memory at the start equals "
                         "Linux's MemFree")
    ap.add_argument('--swap-bus', default='nvme', choices=['nvme', 'sata'])
    ap.add_argument('--profile', default='none', choices=sorted(rig.PROFILES))
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--side', default='both', choices=['both', 'linux', 'ours'])
    ap.add_argument('--sysctl', action='append', default=[], metavar='NAME=VALUE[,VALUE...]',
                    help='a vm knob on both sides (Linux /proc/sys/vm/NAME, ours @set NAME VALUE); one may '
                         'list several values: one column each')
    ap.add_argument('--row', action='append', default=[], metavar='PROG.FIELD',
                    help="a workload's own figure as a row (summed over the step's PROG records)")
    ap.add_argument('--swap-mib', type=int, default=256)
    ap.add_argument('--data-mib', type=int, default=0,
                    help='a fresh data disk of this many MiB per boot (NVMe); @DATA in a step names it')
    ap.add_argument('--data-parts', type=int, default=0,
                    help='the data disk split into N equal GPT partitions, @DATAp1 .. @DATApN in a step')
    ap.add_argument('--linux-vma-ra', default='default', choices=['default', 'on', 'off'],
                    help='Linux /sys/kernel/mm/swap/vma_ra_enabled (default: leave it)')
    ap.add_argument('--linux-thp', default='never', choices=['never', 'madvise', 'always'])
    ap.add_argument('--linux-dma', default='on', choices=['on', 'off'],
                    help="off: reserve Linux's ZONE_DMA (%s), so its reclaim is not balanced per zone "
                         "(in -m 128 ZONE_DMA is a fifth of memory)" % NO_DMA.replace('%', '%%'))
    ap.add_argument('--linux-append', default='', help='more Linux command-line words')
    ap.add_argument('--ours-append', default='', help='more words on our command line (lockstat=off: no lock '
                    'timing, which Linux kernels leave out)')
    ap.add_argument('--timeout', type=int, default=1800, help='seconds per boot')
    ap.add_argument('--image', default='build/disk.img', help="our kernel's disk image")
    ap.add_argument('--workloads-dir', default='build/workloads')
    ap.add_argument('--offline', action='store_true', help='reuse the kernel fetched before; no apt')
    ap.add_argument('--kernel-package', default=None, metavar='PKG[=VERSION]',
                    help="Debian's linux-image-<release> package (and version) to boot; default: what "
                         'linux-image-amd64 depends on today (the result records name the exact one)')
    ap.add_argument('--kernel-deb', default=None, metavar='FILE', help='boot the kernel in this .deb')
    ap.add_argument('--kernel', default=None, metavar='VMLINUZ', help='boot this kernel image (with --modules)')
    ap.add_argument('--modules', default=None, metavar='DIR|none',
                    help="--kernel's lib/modules/<release> directory; none: the swap disk's drivers are built in")
    ap.add_argument('--icount', nargs='?', const=True, default=False, choices=['exact'],
                    help='-icount shift=0 on both sides: guest time counts instructions (slower boots); '
                         '--icount=exact adds sleep=off (idle time jumps to the next timer; a wait for the '
                         'disk, which runs in host time, is inflated by that warping: docs/seed-benchmarks.md)')
    a = ap.parse_args()
    global OURS_POLICY, OURS_APPEND
    OURS_POLICY = a.ours_policy
    OURS_APPEND = a.ours_append.split()
    try:
        a.page_cluster = [int(x) for x in a.page_cluster.split(',') if x.strip()]
    except ValueError:
        die('--page-cluster %s: expected numbers such as 0,1,2,3' % a.page_cluster)
    if not a.page_cluster or any(not 0 <= x <= 8 for x in a.page_cluster):
        die('--page-cluster: values must be 0..8 (our ra=fixed:N takes 0..8)')
    if a.runs < 1:
        die('--runs must be at least 1')
    for opt in ('mem', 'linux_mem', 'ours_mem'):
        if getattr(a, opt):
            setattr(a, opt, size_str(parse_size(getattr(a, opt), '--' + opt.replace('_', '-'))))
    if a.cap_ours_to_linux_free:
        if a.ours == 'same' and a.ours_mem:
            die('--cap-ours-to-linux-free and --ours-mem exclude each other (or use --ours both)')
        if a.ours == 'same':
            a.ours = 'matched'
    ours_sides = parse_ours(a.ours)
    if ours_sides != ['ours'] and a.side != 'both':
        die('matching our memory to Linux (--ours %s) needs --side both: it measures Linux first' % a.ours)
    given = [o for o, v in (('--kernel-package', a.kernel_package), ('--kernel-deb', a.kernel_deb),
                            ('--kernel', a.kernel)) if v]
    if len(given) > 1:
        die('%s exclude each other: one kernel per comparison' % ' and '.join(given))
    if bool(a.kernel) != bool(a.modules):
        die('--kernel VMLINUZ and --modules DIR|none go together')
    if (a.kernel or a.kernel_deb) and a.offline:
        die('--offline is for the Debian archive; %s needs no network anyway' % given[0])
    steps = parse_plan(a.workload)
    configs = parse_sysctls(a.sysctl)
    sweep_key = next((k for k in configs[0] if len(configs) > 1 and configs[1].get(k) != configs[0][k]), None)
    ROWS[:] = parse_rows(a.row)
    uses_data = any('@DATA' in p for _, progs in steps for p in progs)
    if uses_data and a.data_mib <= 0:
        die('--workload names @DATA: give --data-mib N for the data disk')
    if a.data_parts and (a.data_parts > 8 or a.data_parts < 0 or not a.data_mib or a.data_mib < 4 * a.data_parts):
        die('--data-parts %d: 1..8 partitions of a --data-mib disk of at least 4 MiB each' % a.data_parts)
    if a.data_mib < 0 or (a.data_mib and a.swap_bus != 'nvme'):
        die('--data-mib %d: a positive size, with --swap-bus nvme (the data disk is found by its NVMe serial)'
            % a.data_mib)
    os.makedirs(os.path.join(OUT, 'logs'), exist_ok=True)
    t_start = time.time()
    results, boots, failed = [], 0, []
    jl = open(os.path.join(OUT, 'results.jsonl'), 'w')
    if a.side in ('both', 'linux'):
        t = time.time()
        kernel = get_kernel(a)
        initrd = os.path.join(OUT, 'initramfs-%s.cpio.gz' % a.swap_bus)
        mods, progs = build_initramfs(kernel, a.swap_bus, with_data(steps, LINUX_DATA), a.workloads_dir, initrd)
        say('kernel %s (%s %s; %s), initramfs %s (%.1f MiB: busybox, modules %s, %d workloads) in %.1f s'
            % (kernel['release'], kernel['package'], kernel['version'], kernel['pin'], initrd,
               os.path.getsize(initrd) / 2**20, ' '.join(mods) or '(none)', len(progs), time.time() - t))
        for pc in a.page_cluster:
            for ci, cfg in enumerate(configs):
                for run in range(a.runs):
                    boots += 1
                    try:
                        r = boot_linux(a, kernel, initrd, pc, run, cfg, ci)
                    except BootFailed as e:
                        say(str(e))
                        failed.append('linux pc=%d config %d run %d' % (pc, ci, run + 1))
                        continue
                    results.append(r)
                    jl.write(json.dumps(r) + '\n')
                    jl.flush()
                    say('linux pc=%d %srun %d: %.1f s boot-to-poweroff, MemFree %.1f MiB MemAvailable %.1f MiB at '
                        'start, %s' % (pc, cfg_label(cfg, sweep_key) + ' ' if sweep_key else '', run + 1,
                                       r['boot_s'], r['free_bytes'] / 2**20, r['memavailable_bytes'] / 2**20,
                                       ', '.join('%s: exit %s' % (s['label'], s['exit_codes']) for s in r['steps'])))
    mems = {'linux': a.linux_mem}
    variants = []       # our columns, as result sides
    if a.side in ('both', 'ours'):
        if not os.path.exists(a.image):
            die('%s missing (run make)' % a.image)
        if 'ours' in ours_sides:
            mems['ours'] = a.ours_mem or a.linux_mem
            variants.append('ours')
        if 'ours_free' in ours_sides or 'ours_rss' in ours_sides:
            lin = [r['free_bytes'] for r in results if r['side'] == 'linux']
            if not lin:
                die('no Linux boot succeeded, so there is no memory to match (--ours same runs without)')
            try:
                free_mem = calibrate_ours(a, int(mean(lin)), steps)
            except BootFailed as e:
                die('calibrating ours@free: %s' % e)
            boots += 1
            if 'ours_free' in ours_sides:
                mems['ours_free'] = free_mem
                variants.append('ours_free')
        if 'ours_rss' in ours_sides:
            lin_rss = [first_maxrss(r['steps'][0]) for r in results if r['side'] == 'linux' and r.get('steps')]
            lin_rss = [x for x in lin_rss if x is not None]
            if not lin_rss:
                die("--ours rss: Linux's first step (%s) reported no maxrss_kib to match" % steps[0][0])
            target = int(mean(lin_rss))
            try:
                mems['ours_rss'], got, n = calibrate_rss(a, target, steps, free_mem, cfg=configs[0])
            except BootFailed as e:
                die('calibrating ours@rss: %s' % e)
            boots += n
            mems['rss_note'] = 'Linux %d KiB, ours %d KiB at calibration' % (target, got)
            variants.append('ours_rss')
        for side in variants:
            for pc in a.page_cluster:
                for ci, cfg in enumerate(configs):
                    for run in range(a.runs):
                        boots += 1
                        try:
                            r = boot_ours(a, mems[side], pc, run, steps, tag=side, cfg=cfg, ci=ci)
                        except BootFailed as e:
                            say(str(e))
                            failed.append('%s pc=%d config %d run %d' % (side, pc, ci, run + 1))
                            continue
                        r['side'] = side
                        results.append(r)
                        jl.write(json.dumps(r) + '\n')
                        jl.flush()
                        say('%s pc=%d %srun %d: %.1f s boot-to-halt, mem=%s, free at start %.1f MiB'
                            % (SIDE_TITLE[side], pc, cfg_label(cfg, sweep_key) + ' ' if sweep_key else '',
                               run + 1, r['boot_s'], mems[side] or '(none)', r['free_bytes'] / 2**20))
    jl.close()
    sides = (['linux'] if a.side in ('both', 'linux') else []) + variants
    gone = missing_columns(results, sides, a.page_cluster, len(configs))
    if gone:
        die('no successful boot for %s (failed: %s); the boots that ran are in %s'
            % (', '.join('%s pc=%d config %d' % g for g in gone), '; '.join(failed), jl.name))
    report(a, steps, results, mems, configs, sweep_key)
    print('total %.0f s (%d boots)' % (time.time() - t_start, boots))
    if failed:
        die('%d boot(s) failed, their columns have fewer runs than --runs %d: %s'
            % (len(failed), a.runs, '; '.join(failed)))


if __name__ == '__main__':
    main()
