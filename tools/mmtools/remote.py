"""Boots spread over machines with GNU parallel (tools/matrix --sshlogin).

The model: the matrix builds every image here, then hands GNU parallel one
line per boot.  Parallel runs the worker on each --sshlogin host; the
worker boots one image with the rig and writes what the rig returned
(exit status, timeout, host seconds, the serial log) as ret/KEY.json,
which parallel brings back.  The records are parsed here, from the log,
exactly as for a local boot, so the CSVs and tables do not care where a
boot ran.

Files, all under OUT and named relative to it (parallel runs with OUT as
its current directory and --workdir ., so on a remote host they live
under the same path, or the same path below the home directory when OUT
is below ours):
  remote/mmtools.pyz   this package as one zip (python3 runs it): a
                       --basefile, sent once per host before its first job
  images/NAME.img      the images: --basefile too, sent once per host
  remote/jobs.tsv      the job lines parallel reads (stays here)
  ret/KEY.json         each boot's outcome: --return, then --cleanup
                       removes it and the basefiles from the remote host

The remote host needs python3, qemu-system-x86_64, OVMF, mkswap, rsync
(parallel's transport) and ssh access; the matrix needs nothing installed
there.  ":" in --sshlogin is this host through the same path (no copies:
parallel transfers nothing to itself).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipapp

from . import rig

JOB_FIELDS = ['key', 'image', 'profile', 'plan', 'mem', 'timeout', 'icount', 'swap_mib']


FILLER, SWAP, DATA = 0, 1, 2     # what a disk of a plan is (matrix.plan_disks)


def encode_plan(disks):
    """[(bus, k, what)] as 'nvme:1:1,sata:2:0' ('-' for none): one word on
    a command line; what is FILLER, SWAP or DATA."""
    return ','.join('%s:%d:%d' % (b, k, int(what)) for b, k, what in disks) or '-'


def decode_plan(s):
    if s == '-':
        return []
    out = []
    for part in s.split(','):
        bus, k, what = part.split(':')
        if bus not in ('nvme', 'sata') or what not in ('0', '1', '2'):
            raise ValueError('plan %r: disk %r' % (s, part))
        out.append((bus, int(k), int(what)))
    return out


def dev_name(bus, k):
    return 'nvme%dn1' % k if bus == 'nvme' else 'sata%d' % k


DATA_MIB = 1024


def make_disks(plan, workdir, key, swap_mib):
    """Fresh disks for one boot: swap disks of swap_mib MiB, mkswap'ed;
    data disks of DATA_MIB, blank; filler disks of 1 MiB, unsigned."""
    disks = []
    for bus, k, what in plan:
        path = os.path.join(workdir, '%s-%s.img' % (key, dev_name(bus, k)))
        with open(path, 'wb') as f:
            f.truncate((swap_mib if what == SWAP else DATA_MIB if what == DATA else 1) << 20)
        if what == SWAP:
            subprocess.run(['mkswap', '-L', dev_name(bus, k), path], check=True, capture_output=True)
        d = {'file': path, 'bus': bus, 'id': 'swap%s%d' % (bus, k)}
        if bus == 'nvme':
            d['serial'] = 'swap%d' % k
        disks.append(d)
    return disks


def boot_one(image, plan, profile, mem, timeout, icount, swap_mib, key, workdir, log_path=None, echo=False):
    """Boot a private copy of image (the kernel writes its results file on
    the ESP, and several boots share one image) with fresh swap disks."""
    img = os.path.join(workdir, key + '.boot.img')
    disks = []
    try:
        subprocess.run(['cp', '--sparse=always', image, img], check=True)
        disks = make_disks(plan, workdir, key, swap_mib)
        return rig.run(img, mem=mem, timeout=timeout, log_path=log_path, echo=echo, disks=disks,
                       profile=profile, icount=icount, workdir=workdir)
    finally:
        for p in [img] + [d['file'] for d in disks]:
            if os.path.exists(p):
                os.unlink(p)


def encode_icount(icount):
    """A job's icount word: 0, 1 or exact (rig.qemu_command's False,
    True and 'exact')."""
    return 'exact' if icount == 'exact' else '1' if icount else '0'


def decode_icount(word):
    return 'exact' if word == 'exact' else word == '1'


def worker(argv):
    """python3 mmtools.pyz boot KEY IMAGE PROFILE PLAN MEM TIMEOUT ICOUNT
    SWAP_MIB: one boot, its outcome in ret/KEY.json."""
    if len(argv) != len(JOB_FIELDS):
        sys.exit('mmtools worker: expected %s, got %d words' % (' '.join(JOB_FIELDS).upper(), len(argv)))
    job = dict(zip(JOB_FIELDS, argv))
    os.makedirs('ret', exist_ok=True)
    out = {'key': job['key'], 'host': os.uname().nodename}
    tmp = tempfile.mkdtemp(prefix='mmtools-boot-')
    try:
        r = boot_one(job['image'], decode_plan(job['plan']), job['profile'], job['mem'], float(job['timeout']),
                     decode_icount(job['icount']), int(job['swap_mib']), job['key'], tmp)
        out.update(rc=r.rc, timed_out=r.timed_out, elapsed=r.elapsed, log=r.log)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        out.update(error='%s: %s' % (out['host'], e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join('ret', job['key'] + '.json.part'), 'w') as f:
        json.dump(out, f)
    os.rename(os.path.join('ret', job['key'] + '.json.part'), os.path.join('ret', job['key'] + '.json'))
    print('matrix: %s on %s: %s' % (job['key'], out['host'], out.get('error') or
                                    'QEMU exit %s after %.0f s' % (out['rc'], out['elapsed'])), flush=True)
    return 0


def build_pyz(dest):
    """This package as one runnable zip (python3 dest boot ...)."""
    pkg = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(pkg, os.path.join(tmp, 'mmtools'),
                        ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
        zipapp.create_archive(tmp, dest, main='mmtools.remote:main')


def parallel_command(sshlogin, jobs_per_host, basefiles, jobs_file):
    """The GNU parallel command line (run with OUT as its cwd)."""
    cmd = ['parallel', '--will-cite', '--sshlogin', sshlogin, '--jobs', str(jobs_per_host),
           '--workdir', '.', '--colsep', '\t', '--line-buffer', '--return', 'ret/{1}.json', '--cleanup']
    for b in basefiles:
        cmd += ['--basefile', b]
    cmd += ['python3', 'remote/mmtools.pyz', 'boot'] + ['{%d}' % (i + 1) for i in range(len(JOB_FIELDS))]
    return cmd + ['::::', jobs_file]


def run_parallel(out, lines, sshlogin, jobs_per_host):
    """Run the boots lines (dicts of JOB_FIELDS, images relative to out)
    through parallel; {key: outcome dict, or None when none came back}."""
    rdir = os.path.join(out, 'remote')
    os.makedirs(rdir, exist_ok=True)
    shutil.rmtree(os.path.join(out, 'ret'), ignore_errors=True)
    os.makedirs(os.path.join(out, 'ret'))
    build_pyz(os.path.join(rdir, 'mmtools.pyz'))
    with open(os.path.join(rdir, 'jobs.tsv'), 'w') as f:
        for j in lines:
            for k in JOB_FIELDS:
                if '\t' in str(j[k]) or '\n' in str(j[k]):
                    raise ValueError('%s %r: no tabs or newlines in a job field' % (k, j[k]))
            f.write('\t'.join(str(j[k]) for k in JOB_FIELDS) + '\n')
    images = sorted({j['image'] for j in lines})
    cmd = parallel_command(sshlogin, jobs_per_host, ['remote/mmtools.pyz'] + images, 'remote/jobs.tsv')
    p = subprocess.run(cmd, cwd=out)
    got = {}
    for j in lines:
        path = os.path.join(out, 'ret', j['key'] + '.json')
        try:
            with open(path) as f:
                got[j['key']] = json.load(f)
        except (OSError, ValueError):
            got[j['key']] = None
    return got, p.returncode


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == 'boot':
        sys.exit(worker(sys.argv[2:]))
    sys.exit('mmtools.pyz: usage: python3 mmtools.pyz boot %s' % ' '.join(JOB_FIELDS).upper())
