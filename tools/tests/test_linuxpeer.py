import os
import shlex
import shutil
import struct
import subprocess

import pytest

from mmtools import linuxpeer

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_init_script_passes_shellcheck():
    assert shutil.which('shellcheck'), 'shellcheck missing: tools/deps'
    p = subprocess.run(['shellcheck', os.path.join(TOOLS, 'linux-peer-init.sh')], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_show_depends_order_softdeps_once_builtin_skipped():
    text = ('insmod /r/lib/modules/6.1/kernel/crypto/crct10dif_common.ko \n'
            'insmod /r/lib/modules/6.1/kernel/lib/crc64.ko \n'
            'insmod /r/lib/modules/6.1/kernel/crypto/crct10dif_common.ko \n'
            'insmod /r/lib/modules/6.1/kernel/arch/x86/crypto/crct10dif-pclmul.ko.xz \n'
            'builtin scsi_mod\n'
            'insmod /r/lib/modules/6.1/kernel/drivers/nvme/host/nvme.ko option=1\n')
    got = linuxpeer.parse_show_depends(text)
    assert [n for n, _ in got] == ['crct10dif_common', 'crc64', 'crct10dif_pclmul', 'scsi_mod', 'nvme']
    assert got[3] == ('scsi_mod', None)
    assert got[2][1].endswith('crct10dif-pclmul.ko.xz')


def test_steps_file_is_sh_words():
    steps = linuxpeer.parse_plan(['touch 72 20000 seq anon; hogmem 8 1 & @sleep 5'])
    text = linuxpeer.steps_file(steps)
    lines = text.splitlines()
    assert len(lines) == 2
    assert shlex.split(lines[0]) == ['step', 'touch 72 20000 seq anon', 'touch 72 20000 seq anon']
    assert shlex.split(lines[1]) == ['step', 'hogmem 8 1 & @sleep 5', 'hogmem 8 1', '@sleep 5']


def test_steps_file_runs_in_sh(tmp_path):
    """The init script's `. /etc/peer-steps` calls step with the words
    parse_plan made."""
    steps = linuxpeer.parse_plan(['touch 1 2 seq anon & @sleep 3'])
    script = 'step() { for a in "$@"; do echo "[$a]"; done; }\n' + linuxpeer.steps_file(steps)
    out = subprocess.run(['sh', '-c', script], capture_output=True, text=True, check=True).stdout
    assert out == '[touch 1 2 seq anon & @sleep 3]\n[touch 1 2 seq anon]\n[@sleep 3]\n'


def test_bzimage_release(tmp_path):
    img = bytearray(0x1000)
    img[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', img, 0x20e, 0x400)
    img[0x600:0x600 + 40] = b'4.14.336-custom (me@host) #1 SMP\0'.ljust(40, b'\0')
    p = tmp_path / 'vmlinuz'
    p.write_bytes(bytes(img))
    assert linuxpeer.bzimage_release(str(p)) == '4.14.336-custom'
    p.write_bytes(b'MZ' + b'\0' * 0x400)
    assert linuxpeer.bzimage_release(str(p)) is None


def test_deb_name_epoch():
    assert linuxpeer.deb_name('linux-image-6.1.0-57-amd64', '6.1.192-3') == \
        'linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb'
    assert linuxpeer.deb_name('p', '1:2.0-1') == 'p_1%3a2.0-1_amd64.deb'


@pytest.mark.parametrize('bad', ['touch "x"', 'a $HOME', '@frob 1'])
def test_parse_plan_refuses(bad):
    with pytest.raises(SystemExit) as e:
        linuxpeer.parse_plan([bad])
    assert 'linux-peer: --workload' in str(e.value)


def test_sysctl_configs_sweep_and_checks(monkeypatch):
    assert linuxpeer.parse_sysctls([]) == [{}]
    cfgs = linuxpeer.parse_sysctls(['swappiness=0,60,200', 'vm.dirty_ratio=20', 'used_once_swapbacked=off'])
    assert [c['swappiness'] for c in cfgs] == ['0', '60', '200']
    assert all(c['dirty_ratio'] == '20' and c['used_once_swapbacked'] == 'off' for c in cfgs)
    # Linux gets the knobs it has; used_once_swapbacked is ours only.
    assert linuxpeer.linux_vm_arg(cfgs[0]) == 'peer.vm=dirty_ratio:20,swappiness:0'
    assert linuxpeer.linux_vm_arg({'used_once_swapbacked': 'on'}) is None
    assert linuxpeer.linux_vm_arg({'anon_used_once': 'on'}) is None
    assert '@set swappiness 200 ; @set used_once_swapbacked off' in linuxpeer.ours_cmdline(
        '128M', 3, [('hello', ['hello'])], cfg=cfgs[2])

    def dies(opts):
        monkeypatch.setattr(linuxpeer, 'die', lambda msg: (_ for _ in ()).throw(SystemExit(msg)))
        with pytest.raises(SystemExit) as e:
            linuxpeer.parse_sysctls(opts)
        return str(e.value)
    assert 'swappiness=201' in dies(['swappiness=201'])
    assert 'on or off' in dies(['used_once_swapbacked=maybe'])
    assert 'one of' in dies(['min_free_kbytes=1'])
    assert 'overcommit_memory=3' in dies(['overcommit_memory=3'])
    oc = linuxpeer.parse_sysctls(['overcommit_memory=2', 'overcommit_kbytes=16384'])
    assert linuxpeer.linux_vm_arg(oc[0]) == 'peer.vm=overcommit_kbytes:16384,overcommit_memory:2'
    assert 'only one knob' in dies(['swappiness=0,60', 'dirty_ratio=10,20'])
    assert 'twice' in dies(['swappiness=0', 'swappiness=60'])
    assert linuxpeer.parse_rows(['shmdb.tps']) == [('shmdb', 'tps')]
    assert 'PROGRAM.FIELD' in dies_rows(monkeypatch, ['shmdb'])


def dies_rows(monkeypatch, rows):
    monkeypatch.setattr(linuxpeer, 'die', lambda msg: (_ for _ in ()).throw(SystemExit(msg)))
    with pytest.raises(SystemExit) as e:
        linuxpeer.parse_rows(rows)
    return str(e.value)


def report_args(runs=1):
    """report()'s options as the command line would give them."""
    import argparse
    return argparse.Namespace(page_cluster=[3], mem='256M', icount='exact', swap_mib=512, swap_bus='nvme',
                              profile='none', runs=runs, linux_mem='128M', kernel=None, image='build/disk.img')


def linux_run(config, vm, steps, run=0, boot_vm=None):
    """One Linux boot's result as boot_linux returns it, at page-cluster 3."""
    boot = {'vma_ra_enabled': 'true', 'rotational': 0, 'kernel': '6.1.0', 'thp': 'never', 'clocksource': 'tsc'}
    if boot_vm is not None:
        boot['vm'] = boot_vm
    kern = {'source': 'debian', 'package': 'linux-image-6.1.0', 'version': '1', 'pin': '--kernel-package x',
            'sha256': '0' * 64}
    return {'side': 'linux', 'page_cluster': 3, 'config': config, 'vm': vm, 'run': run, 'linux_boot': boot,
            'kernel': kern, 'free_bytes': 1 << 20, 'memavailable_bytes': 1 << 20, 'memtotal_bytes': 1 << 20,
            'steps': steps}


def test_report_sweep_columns_and_rows(monkeypatch, tmp_path, capsys):
    # The table of a sweep: one column per swappiness, --row figures summed
    # over the step's records of the program, and the csv's config column.
    import csv
    monkeypatch.setattr(linuxpeer, 'OUT', str(tmp_path))
    monkeypatch.setattr(linuxpeer, 'ROWS', [('shmdb', 'tps')])
    configs = linuxpeer.parse_sysctls(['swappiness=0,200'])
    results = [linux_run(ci, configs[ci],
                         [{'label': 'shmdb 8 1', 'vmstat': {'pswpout': 5},
                           'workloads': [{'name': 'shmdb', 'tps': t, 'elapsed_ns': 10 ** 9} for t in tps]}],
                         boot_vm={'swappiness': int(configs[ci]['swappiness'])})
               for ci, tps in ((0, [100, 20]), (1, [7]))]
    linuxpeer.report(report_args(), [('shmdb 8 1', ['shmdb 8 1'])], results, {'linux': '128M'}, configs,
                     'swappiness')
    out = capsys.readouterr().out
    assert 'pc=3 swappiness=0 linux' in out and 'pc=3 swappiness=200 linux' in out, out
    row = [x for x in out.splitlines() if x.startswith('shmdb.tps')][0].split()
    assert row[1:] == ['120', '7'], row
    with open(tmp_path / 'compare.csv') as f:
        got = {(r['config'], r['metric']): r['mean'] for r in csv.DictReader(f)}
    assert got[('swappiness=200', 'row:shmdb.tps')] == '7' and got[('swappiness=0', 'pswpout')] == '5', got


def test_report_leaves_out_failed_runs(monkeypatch, tmp_path, capsys):
    # A run whose program exited non-zero (Linux's NVMe timed out under TCG,
    # touch died of SIGBUS: exit 135) is named under the table and not
    # averaged into its column.
    monkeypatch.setattr(linuxpeer, 'OUT', str(tmp_path))
    monkeypatch.setattr(linuxpeer, 'ROWS', [])
    configs = linuxpeer.parse_sysctls([])
    results = [linux_run(0, configs[0], [{'label': 'touch', 'exit_codes': [code], 'vmstat': {'pgmajfault': majflt},
                                          'workloads': []}], run=run)
               for run, code, majflt in ((0, 135, 7), (1, 0, 12000))]
    linuxpeer.report(report_args(runs=2), [('touch', ['touch'])], results, {'linux': '128M'}, configs, None)
    out = capsys.readouterr().out
    row = [x for x in out.splitlines() if x.startswith('pgmajfault')][0].split()
    assert row[1:] == ['12000'], out
    assert 'left out of the means, a program exited non-zero: pc=3 linux run 1 (exit [135])' in out, out


def test_missing_columns_after_failed_boots():
    # A failed boot is said and skipped (BootFailed); a column left with no
    # boot at all is what stops the report.
    res = [{'side': 'linux', 'page_cluster': 3, 'config': 0}, {'side': 'ours_free', 'page_cluster': 3, 'config': 0},
           {'side': 'linux', 'page_cluster': 0, 'config': 0}]
    assert linuxpeer.missing_columns(res, ['linux', 'ours_free'], [0, 3], 1) == [('ours_free', 0, 0)]
    assert linuxpeer.missing_columns(res, ['linux'], [0, 3], 1) == []
    assert linuxpeer.missing_columns([], ['linux'], [3], 2) == [('linux', 3, 0), ('linux', 3, 1)]


def test_free_is_the_steps_own():
    # A boot's third step starts with what the first two left (Linux had
    # 2 MiB more free before it than at boot): the row shows the step's.
    step = {'workloads': [], 'vmstat': {}, 'free_bytes': 50 << 20}
    assert linuxpeer.metrics_of(step, 48 << 20)['free_mib'] == 50
    assert linuxpeer.metrics_of({'workloads': [], 'vmstat': {}}, 48 << 20)['free_mib'] == 48


def test_ours_columns_parse(monkeypatch):
    assert linuxpeer.parse_ours('same') == ['ours']
    assert linuxpeer.parse_ours('both') == ['ours', 'ours_free']
    assert linuxpeer.parse_ours('rss,same') == ['ours', 'ours_rss']
    assert linuxpeer.parse_ours('free, rss') == ['ours_free', 'ours_rss']
    monkeypatch.setattr(linuxpeer, 'die', lambda msg: (_ for _ in ()).throw(SystemExit(msg)))
    with pytest.raises(SystemExit) as e:
        linuxpeer.parse_ours('same,maxrss')
    assert "--ours same,maxrss: 'maxrss' is not one of same, matched (or free), rss, both" in str(e.value)


def fake_rss_boot(rss_of_mem, log):
    def boot(mem):
        log.append(mem)
        got = rss_of_mem(linuxpeer.parse_size(mem, 'mem') // 1024)
        return {'steps': [{'workloads': [] if got is None else [{'name': 'touch', 'maxrss_kib': got}]}]}
    return boot


def test_calibrate_rss_moves_mem_by_the_difference(monkeypatch):
    # A kernel whose program holds what it manages less 6000 KiB (and a
    # little less when memory is tight): mem= moves by the difference until
    # maxrss is within RSS_CLOSE_KIB of Linux's.
    monkeypatch.setattr(linuxpeer, 'say', lambda msg: None)
    steps = [('touch 72 30000 random anon 1', ['touch 72 30000 random anon 1'])]
    tried = []
    boot = fake_rss_boot(lambda kib: kib - 6000 - max(0, 60000 - kib) // 8, tried)
    mem, got, n = linuxpeer.calibrate_rss(None, 50200, steps, '50000K', boot=boot)
    assert abs(got - 50200) <= linuxpeer.RSS_CLOSE_KIB and n == len(tried) and 2 <= n <= 3, (tried, got)
    assert mem == tried[-1] and linuxpeer.parse_size(mem, 'mem') % 4096 == 0
    assert linuxpeer.next_rss_mem(48 << 20, 50000, 49000) == (48 << 20) + (1000 << 10)


def test_calibrate_rss_gives_up_with_the_closest(monkeypatch):
    said = []
    monkeypatch.setattr(linuxpeer, 'say', said.append)
    steps = [('hogmem 8 1', ['hogmem 8 1'])]
    tried = []
    # maxrss that does not follow mem=: RSS_BOOTS tries, then the closest.
    values = iter([40000, 45000, 44000, 41000])
    mem, got, n = linuxpeer.calibrate_rss(None, 50000, steps, '48M', boot=fake_rss_boot(lambda kib: next(values),
                                                                                         tried))
    assert n == linuxpeer.RSS_BOOTS and got == 45000 and mem == tried[1]
    assert any('no mem= within' in s and 'using the closest' in s for s in said)
    with pytest.raises(linuxpeer.BootFailed) as e:
        linuxpeer.calibrate_rss(None, 50000, steps, '48M', boot=fake_rss_boot(lambda kib: None, []))
    assert 'the first step (hogmem 8 1) reported no maxrss_kib' in str(e.value)


def test_maxrss_row():
    step = {'workloads': [{'name': 'touch', 'maxrss_kib': 51200}, {'name': 'hogmem', 'maxrss_kib': 1024}],
            'vmstat': {}, 'free_bytes': 1}
    assert linuxpeer.metrics_of(step, None)['maxrss_mib'] == 51.0
    assert linuxpeer.metrics_of({'workloads': [{'name': 'x'}], 'vmstat': {}}, None)['maxrss_mib'] is None


def test_zone_note_names_a_large_dma_share():
    # Over every step of every Linux run: ZONE_DMA's share of the page
    # allocations and the higher-zone pages its reclaim skipped; past 5%
    # the line says how to take ZONE_DMA out.
    v1 = {'pgalloc_dma': 5894, 'pgalloc_dma32': 9063, 'pgalloc_normal': 0, 'pgskip_dma32': 8796}
    lin = [{'steps': [{'vmstat': v1}]}, {'steps': [{'vmstat': dict(v1, pgalloc_dma=106, pgalloc_dma32=14851)}]}]
    z = linuxpeer.zone_note(lin)
    assert 'ZONE_DMA served 20.1% of the page allocations (pgalloc_dma 6000 of 29914)' in z, z
    assert 'skipped 17592 pages' in z and '--linux-dma off' in z, z
    none = linuxpeer.zone_note([{'steps': [{'vmstat': {'pgalloc_dma': 0, 'pgalloc_dma32': 15454}}]}])
    assert '0.0%' in none and '--linux-dma off' not in none, none
    assert linuxpeer.zone_note([{'steps': [{'vmstat': {}}]}]) is None


def test_linux_dma_off_reserves_zone_dma(monkeypatch, tmp_path):
    # --linux-dma off puts memmap=15M$1M on Linux's command line (before
    # --linux-append's words); on (the default) leaves it alone.
    import argparse
    seen = []

    def run(image, **kw):
        seen.append(kw['direct']['append'])
        raise SystemExit('stop here')
    monkeypatch.setattr(linuxpeer.rig, 'run', run)
    monkeypatch.setattr(linuxpeer, 'OUT', str(tmp_path))
    monkeypatch.setattr(linuxpeer, 'swap_disk', lambda name, mib, mkswap=False: str(tmp_path / name))
    monkeypatch.setattr(linuxpeer, 'data_disk', lambda a, name: None)
    for dma in ('off', 'on'):
        a = argparse.Namespace(linux_thp='never', linux_mem='', swap_bus='nvme', linux_vma_ra='default',
                               linux_append='quiet', linux_dma=dma, swap_mib=64, mem='128M', timeout=10,
                               profile='none', icount=False)
        with pytest.raises(SystemExit):
            linuxpeer.boot_linux(a, {'vmlinuz': 'vmlinuz'}, 'initrd', 0, 0)
    assert seen[0].endswith('memmap=15M$1M quiet') and 'memmap' not in seen[1], seen


def test_ours_append_goes_on_our_command_line(monkeypatch):
    # --ours-append: words for our kernel alone (lockstat=off), before run=.
    monkeypatch.setattr(linuxpeer, 'OURS_APPEND', ['lockstat=off'])
    line = linuxpeer.ours_cmdline('96M', 3, [('hello', ['hello'])])
    assert line.startswith('quiet mem=96M lockstat=off ra=fixed:3 run="')
    monkeypatch.setattr(linuxpeer, 'OURS_APPEND', [])
    assert linuxpeer.ours_cmdline('96M', 3, [('hello', ['hello'])]).startswith('quiet mem=96M ra=fixed:3 run="')
