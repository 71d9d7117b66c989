"""tools/seed-table on a canned serial log: the per-run rows and the
comparison between the two columns."""
import json
import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'seed-table')


def record(column, tps, tps_min, pswpout, max_ns):
    return json.dumps({'type': 'result', 'column': column,
                       'rows': {'shmdb.tps': tps, 'shmdb.tps_min': tps_min, 'stream.mb_per_s_x100': 2200},
                       'vmstat': {'pswpout': pswpout, 'pswpin': 1, 'pgpgin': 2, 'pgmajfault': 3},
                       'swapin_latency': {'major': {'max_ns': max_ns}, 'cached': {'max_ns': 5},
                                          'ra_wait': {'max_ns': 0}}}, separators=(',', ':'))


def test_per_run_rows_and_comparison(tmp_path):
    log = tmp_path / 'seed.log'
    lines = ['boot noise', record('off', 30000, 0, 40000, 7698000000), record('off', 32000, 10, 50000, 3000),
             record('off', 31000, 20, 45000, 2000), 'mmkernel: noise ' + record('on', 45000, 44000, 2000, 87000000),
             record('on', 46000, 45000, 3000, 1000), record('on', 44000, 43000, 2500, 4000)]
    log.write_text('\n'.join(lines) + '\n')
    out = subprocess.run([sys.executable, TOOL, str(log)], capture_output=True, text=True, check=True).stdout
    assert 'runs 3; tps mean 31000, sd 1000' in out
    assert 'worst second (tps_min) per run: 0 10 20' in out
    # The longest of major, cached and read-ahead waits, in seconds.
    assert 'longest swap-in fault (s, guest) per run: 7.698 0.000 0.000' in out
    assert 'longest swap-in fault (s, guest) per run: 0.087 0.000 0.000' in out
    assert 'pswpout per run: 40000 50000 45000' in out
    # off against on: every off run below every on run (U 0 of 9, exact
    # p 2/20); t = -14000 / sqrt(1000^2/3 + 1000^2/3).
    assert 'tps: Welch t -17.15 (df 4.0); Mann-Whitney U 0 of 9, p 0.100' in out
    assert 'pswpout: Welch t' in out and 'U 9 of 9, p 0.100' in out


def test_boot_facts(tmp_path):
    log = tmp_path / 'seed.log'
    hist = [0] * 24
    hist[0], hist[20], hist[21] = 10, 1, 2
    lines = [record('off', 30000, 0, 40000, 7698000000),
             json.dumps({'type': 'cpus', 'cpus': [{'idle_ns': 23000000000, 'busy_ns': 44000000000}]},
                        separators=(',', ':')),
             json.dumps({'type': 'blk', 'name': 'nvme0n1', 'read_cmds': 0, 'write_cmds': 0}, separators=(',', ':')),
             json.dumps({'type': 'blk', 'name': 'nvme1n1', 'read_cmds': 9, 'write_cmds': 4, 'max_inflight': 3,
                         'max_latency_us': 3357000, 'latency_hist_log2_us': hist}, separators=(',', ':'))]
    log.write_text('\n'.join(lines) + '\n')
    out = subprocess.run([sys.executable, TOOL, str(log)], capture_output=True, text=True, check=True).stdout
    # An idle disk is left out; the busy one shows its depth and its tail.
    assert ('seed.log, the whole boot: guest CPU idle 23.0 s, busy 44.0 s; nvme1n1: 13 commands, '
            'at most 3 on the device, slowest 3.357 s, 3 of 1.05 s or more') in out
