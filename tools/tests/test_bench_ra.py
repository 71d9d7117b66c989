"""tools/bench ra without QEMU: what one boot asks of the rig per profile
and bus, and the table's rows and own/best."""
import pytest

from mmtools import bench, rig


def exit_rec(cmd, majflt, stime_ms, elapsed_ms, issued, hits):
    return {'type': 'task_exit', 'cmdline': cmd, 'exit_code': 0, 'majflt': majflt, 'swapflt': majflt,
            'stime_ns': int(stime_ms * 1e6), 'utime_ns': 1000000, 'elapsed_ns': int(elapsed_ms * 1e6),
            'ra_issued': issued, 'ra_hits': hits}


def fake_boot(monkeypatch, tmp_path, extra=()):
    """Boots that exit every step cleanly, with the records extra too."""
    calls = []

    def run(image, cmdline=None, **kw):
        calls.append(dict(kw, cmdline=cmdline))
        cmds = cmdline.split('run="')[1].rstrip('"').split(' ; ')[1:]
        recs = [exit_rec(c, 10 + i, 5.0, 50.0, 8, 6) for i, c in enumerate(cmds)]
        recs += [{'type': 'vmstat', 'label': c, 'busy_ns': (20 + i) * 1000000, 'swap_read_reqs': 30 + i}
                 for i, c in enumerate(cmds)]
        return rig.Result(0, '', list(extra) + recs + [{'type': 'halt', 'status': 'ok'}], False, 1.0)
    monkeypatch.setattr(bench.rig, 'run', run)
    monkeypatch.setattr(bench, 'scratch', lambda name, mib, mkswap=False: str(tmp_path / name))
    monkeypatch.setattr(bench.os, 'unlink', lambda p: None)
    return calls


def test_boot_profile_bus_and_icount(monkeypatch, tmp_path):
    calls = fake_boot(monkeypatch, tmp_path)
    pats = [p for p in bench.RA_PATTERNS if p[0] in ('seq', 'streams:4', 'jumps:64')]
    rows = bench.ra_boot('fixed:3', 4242, pats, 'x/disk.img', 'sata', 'ssd', 2)
    c = calls[0]
    assert c['profile'] == 'ssd' and c['icount'] is True and c['disks'][0]['bus'] == 'sata'
    assert '@set ra fixed:3 ; touch 72 40000 seq anon 4242 ; touch 72 40000 streams:4 anon 4242' in c['cmdline']
    assert [r['pattern'] for r in rows] == ['seq', 'streams:4', 'jumps:64']
    r = rows[1]
    assert (r['bus'], r['profile'], r['run'], r['majflt'], r['elapsed_ms']) == ('sata', 'ssd', 2, 11, 50.0)
    assert r['ra_used_pct'] == 75.0
    assert [x['busy_ms'] for x in rows] == [20.0, 21.0, 22.0]        # each step's own vmstat record
    assert [x['read_reqs'] for x in rows] == [30, 31, 32]
    bench.ra_boot('own', 1, pats, 'x/disk.img', 'nvme', 'none', 0)
    assert calls[1]['icount'] == 'exact' and calls[1]['profile'] == 'none'
    # --sleep: profile none with sleep on, its own log name.
    bench.ra_boot('own', 1, pats, 'x/disk.img', 'nvme', 'none', 0, True)
    assert calls[2]['icount'] is True and calls[2]['log_path'].endswith('ra-nvme-none+sleep-own-1-r0.log')
    assert calls[1]['log_path'].endswith('ra-nvme-none-own-1-r0.log')
    # --set: @set after the policy, the knob in the log name.
    bench.ra_boot('own', 1, pats, 'x/disk.img', 'nvme', 'ssd', 0, False, [('blk_read_split', '16')])
    assert '@set ra own ; @set blk_read_split 16 ; touch 72 40000 seq anon 1' in calls[3]['cmdline']
    assert calls[3]['log_path'].endswith('ra-nvme-ssd+blk_read_split16-own-1-r0.log')
    # --tcg: no -icount on any profile, its own log name.
    bench.ra_boot('own', 1, pats, 'x/disk.img', 'nvme', 'ssd', 0, False, (), True)
    assert calls[4]['icount'] is False and calls[4]['log_path'].endswith('ra-nvme-ssd+tcg-own-1-r0.log')
    bench.ra_boot('own', 1, pats, 'x/disk.img', 'nvme', 'none', 0, False, (), True)
    assert calls[5]['icount'] is False


def test_boot_threads_touch_at_once_on_as_many_cpus(monkeypatch, tmp_path):
    calls = fake_boot(monkeypatch, tmp_path)
    pats = [p for p in bench.RA_PATTERNS if p[0] in ('hot', 'seq')]
    rows = bench.ra_boot('own', 7, pats, 'x/disk.img', 'nvme', 'none', 0, False, (), False, 4)
    c = calls[0]
    assert c['smp'] == 4 and ' cpus=4 ' in c['cmdline']
    assert ('@set ra own ; touch 72 40000 seq anon 7 threads=4 shared ; '
            'touch 72 100000 hot:2048:75 anon 7 threads=4 shared"') in c['cmdline']
    assert c['log_path'].endswith('ra-nvme-none+t4-own-7-r0.log')
    assert [r['pattern'] for r in rows] == ['seq', 'hot']
    bench.ra_boot('own', 7, pats, 'x/disk.img', 'nvme', 'none', 0)
    assert calls[1]['smp'] == 1 and 'cpus=' not in calls[1]['cmdline'] and 'threads=' not in calls[1]['cmdline']


def test_boot_fails_when_a_set_is_refused(monkeypatch, tmp_path):
    err = {'type': 'script_error', 'script': 'run=', 'message': "run=: step 2 '@set blk_read_split 7': refused"}
    fake_boot(monkeypatch, tmp_path, [err])
    pats = [p for p in bench.RA_PATTERNS if p[0] == 'seq']
    with pytest.raises(RuntimeError, match='blk_read_split 7'):
        bench.ra_boot('own', 1, pats, 'x/disk.img', 'nvme', 'ssd', 0, False, [('blk_read_split', '7')])


def rows_for(profile, vals, reqs=None):
    """vals: policy -> [(majflt, stime, elapsed, issued, hits)] one per
    seed; reqs: policy -> the step's swap read requests (else none)."""
    out = []
    for pol, per in vals.items():
        step = {'swap_read_reqs': reqs[pol]} if reqs else None
        for seed, (f, s, e, i, h) in enumerate(per):
            out.append(bench.ra_row(exit_rec('c', f, s, e, i, h), step, policy=pol, seed=seed, pattern='seq',
                                    cmd='c', bus='nvme', profile=profile, run=0))
    return out


def test_table_rows_and_own_best():
    vals = {'off': [(100, 10, 900, 0, 0)] * 3, 'fixed:3': [(40, 12, 300, 80, 60)] * 3,
            'fixed:4': [(20, 15, 400, 100, 80)] * 3, 'own': [(10, 13, 330, 50, 50)] * 3}
    pats = [p for p in bench.RA_PATTERNS if p[0] == 'seq']
    ssd = bench.ra_table(rows_for('ssd', vals), list(vals), pats, 'nvme', 'ssd', 1, [1, 2, 3])
    assert '3 values per cell' in ssd[0] and 'sleep on' in ssd[0]
    by = {line.split()[1]: line.split() for line in ssd[2:]}
    assert by['majflt'][-2:] == ['fixed:4', '0.500']
    assert by['stime_ms'][-2:] == ['off', '1.300']
    assert by['elapsed_ms'][-2:] == ['fixed:3', '1.100']
    # Read-ahead rows against the fixed setting with the fewest faults.
    assert by['ra_issued'][-2:] == ['fixed:4', '0.500']
    assert by['ra_used_%'][2] == 'n/a' and by['ra_used_%'][-2:] == ['fixed:4', '1.250']
    none = bench.ra_table(rows_for('none', vals), list(vals), pats, 'nvme', 'none', 1, [1, 2, 3])
    assert 'elapsed not shown' in none[0] and not any(' elapsed_ms ' in line for line in none)
    slept = bench.ra_table(rows_for('none', vals), list(vals), pats, 'nvme', 'none', 1, [1, 2, 3], True)
    assert 'sleep on' in slept[0] and any(' elapsed_ms ' in line for line in slept)
    # --tcg: elapsed shown on every profile, the clock said.
    tcg = bench.ra_table(rows_for('none', vals), list(vals), pats, 'nvme', 'none', 1, [1, 2, 3], False, (), True)
    assert 'plain TCG' in tcg[0] and 'icount shift' not in tcg[0] and any(' elapsed_ms ' in line for line in tcg)
    # Read requests against the fixed setting with the fewest of them
    # (here not the one with the fewest faults); none recorded: n/a.
    assert by['read_reqs'][2:6] == ['n/a'] * 4
    reqs = bench.ra_table(rows_for('hdd', vals, {'off': 100, 'fixed:3': 50, 'fixed:4': 60, 'own': 55}), list(vals),
                          pats, 'nvme', 'hdd', 1, [1, 2, 3])
    line = [line for line in reqs if ' read_reqs ' in line][0].split()
    assert line[2:6] == ['100.0±0.0', '50.0±0.0', '60.0±0.0', '55.0±0.0'] and line[-2:] == ['fixed:3', '1.100']
    # Another (bus, profile)'s rows stay out.
    assert bench.ra_table(rows_for('ssd', vals), list(vals), pats, 'sata', 'ssd', 1, [1])[2].split()[2] == 'n/a'


def test_wide_cells_stay_apart():
    vals = {'own': [(1, 1, 100000, 1, 1), (1, 1, 125000, 1, 1)], 'off': [(1, 1, 1e5, 0, 0), (1, 1, 1.3e5, 0, 0)]}
    pats = [p for p in bench.RA_PATTERNS if p[0] == 'seq']
    lines = bench.ra_table(rows_for('hdd', vals), list(vals), pats, 'nvme', 'hdd', 1, [1, 2])
    elapsed = [line for line in lines if ' elapsed_ms ' in line][0].split()
    assert elapsed[2:4] == ['112500.0±17677.7', '115000.0±21213.2']


def test_busy_row_against_the_fixed_setting_with_the_least():
    """busy_ms (the guest's busy time over the step: the task's, kswapd's,
    interrupts') is judged like stime: own against the least busy fixed
    setting.  A step record without busy_ns (an older kernel) is n/a."""
    rows = []
    for pol, busy in (('off', 30), ('fixed:4', 20), ('own', 25)):
        for seed in (1, 2):
            rows.append(bench.ra_row(exit_rec('c', 10, 5, 50, 0, 0), {'busy_ns': busy * 1000000}, policy=pol,
                                     seed=seed, pattern='seq', cmd='c', bus='nvme', profile='none', run=0))
    pats = [p for p in bench.RA_PATTERNS if p[0] == 'seq']
    lines = bench.ra_table(rows, ['off', 'fixed:4', 'own'], pats, 'nvme', 'none', 1, [1, 2])
    busy = [line for line in lines if ' busy_ms ' in line][0].split()
    assert busy[2:5] == ['30.0±0.0', '20.0±0.0', '25.0±0.0'] and busy[-2:] == ['fixed:4', '1.250']
    old = bench.ra_row(exit_rec('c', 10, 5, 50, 0, 0), None, policy='own', seed=1, pattern='seq', cmd='c',
                       bus='nvme', profile='none', run=0)
    assert old['busy_ms'] is None
    lines = bench.ra_table([old], ['own'], pats, 'nvme', 'none', 1, [1])
    assert [line for line in lines if ' busy_ms ' in line][0].split()[2] == 'n/a'


@pytest.mark.parametrize('argv, said', [
    (['--patterns', 'seq,hot:2048:75'], 'bench: --patterns hot:2048:75: no such pattern (seq,'),
    (['--seeds', '1,x'], 'bench: --seeds 1,x: expected whole numbers'),
    (['--threads', '0'], 'bench: --threads 0: must be 1..32'),
    (['--threads', '33'], 'bench: --threads 33: must be 1..32'),
    (['--boot', 'mem=64M'], 'bench: --boot mem=64M: expected NAME=VALUE, an option bench does not set itself'),
    (['--boot', 'lockstat=off run=x'], 'bench: --boot lockstat=off run=x: expected NAME=VALUE'),
])
def test_bad_pattern_or_seed_is_named_not_dropped(monkeypatch, argv, said):
    """A pattern name bench does not know (the touch argument instead of
    the row's name) once ran the others silently."""
    monkeypatch.setattr(bench.sys, 'argv', ['bench', 'ra'] + argv)
    monkeypatch.setattr(bench, 'bench_ra', lambda a: pytest.fail('ran with %s' % argv))
    with pytest.raises(SystemExit) as e:
        bench.main()
    assert str(e.value).startswith(said)


def smp_records(cmd, cpus, extra=()):
    v = {'type': 'vmstat', 'label': cmd, 'pgmajfault': 7, 'pswpout': 100, 'allocstall': 2, 'pgsteal_kswapd': 50,
         'pgsteal_direct': 10, 'tlb_shootdown_ipis': 3}
    return list(extra) + [{'type': 'boot', 'cpus_online': cpus}, v,
                          {'type': 'workload', 'elapsed_ns': 2000000000, 'mismatches': 0},
                          {'type': 'locks', 'since_reset': {'classes': []}}, {'type': 'halt', 'status': 'ok'}]


def test_smp_set_is_a_step_before_the_workload(monkeypatch, tmp_path):
    calls = []

    def run(image, cmdline=None, **kw):
        calls.append(cmdline)
        return rig.Result(0, '', smp_records('touch 72 30000 random anon threads=4', 2), False, 1.0)
    monkeypatch.setattr(bench.rig, 'run', run)
    monkeypatch.setattr(bench, 'scratch', lambda name, mib, mkswap=False: str(tmp_path / name))
    monkeypatch.setattr(bench.os, 'unlink', lambda p: None)
    row = bench.smp_boot('build/disk.img', 'touch4', 'touch 72 30000 random anon threads=4', 2, 0,
                         [('age_ahead', 'off')])
    assert calls == ['quiet mem=48M cpus=2 run="@set age_ahead off ; touch 72 30000 random anon threads=4"']
    assert row['pgmajfault'] == 7 and row['elapsed_ms'] == 2000.0


def test_smp_set_refused_fails_the_boot(monkeypatch, tmp_path):
    def run(image, cmdline=None, **kw):
        return rig.Result(0, '', smp_records('x', 1, [{'type': 'script_error', 'message': "@set age_ahead maybe"}]),
                          False, 1.0)
    monkeypatch.setattr(bench.rig, 'run', run)
    monkeypatch.setattr(bench, 'scratch', lambda name, mib, mkswap=False: str(tmp_path / name))
    monkeypatch.setattr(bench.os, 'unlink', lambda p: None)
    with pytest.raises(SystemExit) as e:
        bench.smp_boot('build/disk.img', 'x', 'x', 1, 0, [('age_ahead', 'maybe')])
    assert 'age_ahead maybe' in str(e.value)


def test_boot_words_reach_the_command_line_and_the_tag(monkeypatch):
    """--boot lockstat=off: on every boot's command line, in the log
    names (so runs with and without it do not overwrite each other) and
    in the table's header."""
    seen = {}

    class R:
        status = 'ok'

        def find(self, t):
            return []

    def run(image, cmdline=None, log_path=None, **kw):
        seen['cmdline'], seen['log'] = cmdline, log_path
        return R()
    monkeypatch.setattr(bench.rig, 'run', run)
    monkeypatch.setattr(bench, 'scratch', lambda *a, **k: '/nonexistent')
    monkeypatch.setattr(bench.os, 'unlink', lambda p: None)
    monkeypatch.setattr(bench, 'BOOT', ['lockstat=off'])
    assert bench.ra_boot('own', 1, []) == []
    assert seen['cmdline'].startswith('quiet mem=48M lockstat=off run="@set ra own"')
    assert '+lockstatoff-own-1-r0' in seen['log']
    lines = bench.ra_table([], ['own'], [], 'nvme', 'none', 1, [1])
    assert '; boot lockstat=off;' in lines[0]
