"""tools/matrix end to end without QEMU: a stand-in qemu-system-x86_64 on
PATH prints matrix's canned console, so local --jobs 2, --sshlogin : and
(where a mount namespace is allowed) a real remote path through a
stand-in ssh all run the same code as a real matrix, in seconds."""
import csv
import os
import shutil
import stat
import subprocess
import sys

import pytest

from mmtools import matrix

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = 'mem 48M\nswap auto\ncolumn "a"\nrun touch 56 20000 seq anon\n'

FAKE_QEMU = '''#!/bin/sh
# Prints the canned console; records its argv so the test sees the disks.
echo "$@" >> "%(argv_log)s"
cat "%(console)s"
'''

# "host" runs the command here, but in a mount namespace where OUT is an
# empty directory: only what parallel transfers reaches the worker.  Like
# sshd, it gives the command a login's SHELL (parallel's remote worker
# execs $SHELL; CI may run with none set).
FAKE_SSH = '''#!/bin/bash
export SHELL=/bin/bash
while [ $# -gt 0 ]; do
	case $1 in
	-l|-p|-o|-S|-i|-F) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
shift
[ "$1" = -- ] && shift
exec unshare -m bash -c 'mount --bind "$2" "$3" && cd && exec bash -c "$1"' fakessh "$*" "%(remote)s" "%(out)s"
'''


def write_exec(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


@pytest.fixture
def rig_dir(tmp_path):
    build = tmp_path / 'build'
    (build / 'workloads').mkdir(parents=True)
    for f in ('kernel.elf', 'BOOTX64.EFI', 'workloads/touch'):
        (build / f).write_bytes(b'\x7fELF not really\n')
    (tmp_path / 'canned.mm').write_text(SCRIPT)
    (tmp_path / 'console.txt').write_text(matrix.canned_log())
    fake = tmp_path / 'fakebin'
    fake.mkdir()
    write_exec(str(fake / 'qemu-system-x86_64'),
               FAKE_QEMU % {'argv_log': tmp_path / 'qemu-argv.log', 'console': tmp_path / 'console.txt'})
    return tmp_path


def run_matrix(d, out, *opts):
    env = dict(os.environ, PATH='%s:%s' % (d / 'fakebin', os.environ['PATH']))
    cmd = [sys.executable, os.path.join(TOOLS, 'matrix'), str(d / 'canned.mm'), '--profile', 'none,ssd',
           '--build', str(d / 'build'), '--out', str(out), '--timeout', '60'] + list(opts)
    p = subprocess.run(cmd, cwd=str(d), env=env, capture_output=True, text=True, timeout=300)
    return p


def rows(out, name):
    with open(os.path.join(out, name)) as f:
        return list(csv.DictReader(f))


def check_outputs(out, p):
    # The canned console has one failed run and one with mismatches, per boot.
    assert p.returncode == 1, p.stdout + p.stderr
    res = rows(out, 'results.csv')
    assert len(res) == 16, p.stdout + p.stderr
    assert sorted({r['profile'] for r in res}) == ['none', 'ssd']
    boots = rows(out, 'boots.csv')
    assert [(b['profile'], b['status'], b['results']) for b in boots] == [('none', 'ok', '8'), ('ssd', 'ok', '8')]
    assert 'could not boot' not in p.stdout + p.stderr
    return res


def counters(res):
    return [(r['profile'], r['column'], r['run'], r['majflt'], r['pswpin'], r['elapsed_ms']) for r in res]


@pytest.mark.skipif(not shutil.which('mkswap') or not shutil.which('mcopy'), reason='needs mkswap and mtools')
def test_jobs_and_sshlogin_local_agree(rig_dir):
    p1 = run_matrix(rig_dir, rig_dir / 'j1', '--jobs', '1')
    r1 = check_outputs(rig_dir / 'j1', p1)
    p2 = run_matrix(rig_dir, rig_dir / 'j2', '--jobs', '2')
    r2 = check_outputs(rig_dir / 'j2', p2)
    assert counters(r1) == counters(r2)
    if not shutil.which('parallel'):
        pytest.skip('GNU parallel missing (tools/deps)')
    p3 = run_matrix(rig_dir, rig_dir / 'ssh', '--sshlogin', ':', '--jobs', '2')
    r3 = check_outputs(rig_dir / 'ssh', p3)
    assert counters(r1) == counters(r3)
    assert 'through GNU parallel on :' in p3.stdout
    # The swap disk reached QEMU on every path: one fresh disk per boot.
    argv = (rig_dir / 'qemu-argv.log').read_text().splitlines()
    assert len(argv) == 6 and all('canned-' in a and '-nvme1n1.img' in a for a in argv)


@pytest.mark.skipif(not shutil.which('mkswap') or not shutil.which('mcopy'), reason='needs mkswap and mtools')
def test_icount_exact_reaches_qemu(rig_dir):
    # --icount=exact gives QEMU sleep=off, here and through GNU parallel's
    # workers (the job's icount word), and the verdict says why it takes sys.
    p = run_matrix(rig_dir, rig_dir / 'x1', '--icount=exact')
    check_outputs(rig_dir / 'x1', p)
    assert 'under --icount=exact' in p.stdout
    opts = ['--icount=exact']
    if shutil.which('parallel'):
        p = run_matrix(rig_dir, rig_dir / 'x2', '--icount=exact', '--sshlogin', ':')
        check_outputs(rig_dir / 'x2', p)
        opts.append('--sshlogin')
    argv = (rig_dir / 'qemu-argv.log').read_text().splitlines()
    assert len(argv) == 2 * len(opts) and all('-icount shift=0,sleep=off' in a for a in argv), (opts, argv)
    p = run_matrix(rig_dir, rig_dir / 'x3', '--icount')
    check_outputs(rig_dir / 'x3', p)
    argv = (rig_dir / 'qemu-argv.log').read_text().splitlines()[2 * len(opts):]
    assert len(argv) == 2 and all('-icount shift=0 ' in a + ' ' and 'sleep=off' not in a for a in argv), argv


def can_unshare():
    try:
        return subprocess.run(['unshare', '-m', 'true'], capture_output=True).returncode == 0
    except OSError:
        return False


@pytest.mark.skipif(not shutil.which('parallel') or not shutil.which('rsync') or not can_unshare(),
                    reason='needs GNU parallel, rsync and unshare -m (root)')
def test_sshlogin_remote_path_transfers(rig_dir):
    out = rig_dir / 'remote-out'
    out.mkdir()
    remote = rig_dir / 'remote-host'
    remote.mkdir()
    write_exec(str(rig_dir / 'fakebin' / 'fakessh'), FAKE_SSH % {'remote': remote, 'out': out})
    p = run_matrix(rig_dir, out, '--sshlogin', '%s fakehost' % (rig_dir / 'fakebin' / 'fakessh'))
    res = check_outputs(out, p)
    assert counters(res)[0][:4] == ('none', 'RA=3', '0', '700')
    # --cleanup left nothing on the "remote host".
    assert os.listdir(str(remote)) == []
