"""tools/min: MIN against an exhaustive search, LRU against a plain list,
the stack property that rules out Belady's anomaly, the prefetch bounds
against the exhaustive optimum of the same I/O model, the trace format,
and the workloads' own traces."""
import functools
import itertools
import os
import random
import subprocess

import pytest

from mmtools import min as mm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = os.path.join(ROOT, 'build', 'workloads')
ANOMALY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]     # Belady, Nelson and Shedler 1969


def random_trace(rng, length, npages):
    seq, prev = [], None
    while len(seq) < length:
        p = rng.randrange(npages)
        if p != prev:           # the trace collapses runs; so do we here
            seq.append(p)
            prev = p
    return seq


def brute_min(seq, frames):
    """The fewest faults over every choice of victim at every fault."""
    @functools.lru_cache(maxsize=None)
    def best(i, res):
        if i == len(seq):
            return 0
        p = seq[i]
        if p in res:
            return best(i + 1, res)
        if len(res) < frames:
            return 1 + best(i + 1, res | {p})
        return 1 + min(best(i + 1, (res - {v}) | {p}) for v in res)
    return best(0, frozenset())


def brute_prefetch(seq, frames, k, window=False):
    """The fewest major faults when each major fault may also read up to
    k-1 pages that are on swap (touched before, not resident) - with
    window, only those of its aligned block of k page numbers - first
    touches read nothing, and the resident set never exceeds frames."""
    @functools.lru_cache(maxsize=None)
    def best(i, res):
        if i == len(seq):
            return 0
        p = seq[i]
        if p in res:
            return best(i + 1, res)
        touched = set(seq[:i])
        major = p in touched
        swapped = sorted(touched - res - {p}) if major else []
        if window:
            swapped = [q for q in swapped if q // k == p // k]
        out = None
        for extra in range(0, min(k - 1, len(swapped)) + 1):
            for s in itertools.combinations(swapped, extra):
                pool = sorted(res)
                room = frames - 1 - extra
                if room < 0:
                    continue
                for keep in itertools.combinations(pool, min(room, len(pool))):
                    c = best(i + 1, frozenset(keep) | {p} | set(s))
                    out = c if out is None else min(out, c)
        return out + (1 if major else 0)
    return best(0, frozenset())


def ref_lru(seq, frames):
    stack, faults = [], 0
    for p in seq:
        if p in stack:
            stack.remove(p)
        else:
            faults += 1
            if len(stack) == frames:
                stack.pop(0)
        stack.append(p)
    return faults


def ref_fifo(seq, frames):
    queue, faults = [], 0
    for p in seq:
        if p not in queue:
            faults += 1
            if len(queue) == frames:
                queue.pop(0)
            queue.append(p)
    return faults


def run_min(seq, frames):
    d, n = mm.dense(seq)
    return mm.belady(d, frames, n)


@pytest.mark.parametrize('seed', range(8))
def test_min_matches_exhaustive_search(seed):
    rng = random.Random(seed)
    for _ in range(20):
        seq = random_trace(rng, rng.randrange(1, 16), rng.randrange(2, 7))
        for frames in range(1, 5):
            got = run_min(seq, frames)
            assert got.faults == brute_min(seq, frames), (seq, frames)
            assert got.compulsory == len(set(seq))


@pytest.mark.parametrize('seed', range(4))
def test_lru_matches_a_plain_list(seed):
    rng = random.Random(100 + seed)
    for _ in range(30):
        seq = random_trace(rng, rng.randrange(1, 200), rng.randrange(2, 30))
        for frames in (1, 2, 3, 5, 8, 13):
            got = mm.lru(seq, frames)
            assert got.faults == ref_lru(seq, frames)
            assert got.major == got.faults - len(set(seq))
            # dense renumbering changes nothing
            assert mm.lru(mm.dense(seq)[0], frames) == got


def test_belady_anomaly_hits_fifo_not_min_or_lru():
    # The classic example really is an anomaly (for FIFO) ...
    assert ref_fifo(ANOMALY, 3) == 9 and ref_fifo(ANOMALY, 4) == 10
    # ... and MIN and LRU, stack algorithms, take no more faults with more frames.
    assert [run_min(ANOMALY, f).faults for f in range(1, 6)] == [12, 9, 7, 6, 5]
    assert [mm.lru(ANOMALY, f).faults for f in range(1, 6)] == [12, 12, 10, 8, 5]


@pytest.mark.parametrize('seed', range(4))
def test_no_anomaly_and_min_below_lru_on_random_traces(seed):
    rng = random.Random(200 + seed)
    for _ in range(20):
        seq = random_trace(rng, 300, rng.randrange(3, 40))
        prev_min = prev_lru = None
        for frames in range(1, 42):
            m, lr = run_min(seq, frames).faults, mm.lru(seq, frames).faults
            assert m <= lr
            assert prev_min is None or m <= prev_min
            assert prev_lru is None or lr <= prev_lru
            prev_min, prev_lru = m, lr
        assert prev_min == len(set(seq))     # every page fits: compulsory only


@pytest.mark.parametrize('seed', range(6))
def test_prefetch_bounds_hold_the_exhaustive_optimum(seed):
    rng = random.Random(300 + seed)
    for _ in range(12):
        seq = random_trace(rng, rng.randrange(4, 11), rng.randrange(3, 6))
        d, n = mm.dense(seq)
        for frames in (1, 2, 3):
            major = mm.belady(d, frames, n).major
            assert brute_prefetch(seq, frames, 1) == major      # k = 1 is MIN
            for k in (2, 3):
                pf = mm.belady_prefetch(d, frames, k, n)
                opt = brute_prefetch(seq, frames, k)
                assert pf.lower <= opt <= pf.upper <= major, (seq, frames, k, pf, opt)
                assert pf.upper == min(pf.greedy, major)


@pytest.mark.parametrize('seed', range(4))
def test_window_is_a_policy_of_its_model(seed):
    rng = random.Random(500 + seed)
    for _ in range(12):
        seq = random_trace(rng, rng.randrange(4, 11), rng.randrange(3, 7))
        d, n = mm.dense(seq)
        for frames in (1, 2, 3):
            major = mm.belady(d, frames, n).major
            assert mm.belady_window(seq, frames, 1) == mm.Window(1, major, major, 0)
            for k in (2, 4):
                w = mm.belady_window(seq, frames, k)
                opt = brute_prefetch(seq, frames, k, window=True)
                # greedy is one policy of the window model; the window model
                # is a restriction of the any-page model
                assert brute_prefetch(seq, frames, k) <= opt <= w.upper <= major, (seq, frames, k, w, opt)


def test_window_helps_a_scan_not_random_pages():
    rng = random.Random(7)
    scan = list(range(1, 201)) * 4
    rnd = random_trace(rng, 2000, 200)
    for seq in (scan, rnd):
        a = mm.analyse(seq, 120, [8])
        assert a.window[8].upper >= a.prefetch[8].lower
    a = mm.analyse(scan, 120, [8])
    assert a.window[8].upper <= a.prefetch[8].lower + 5        # the next pages are the block's
    a = mm.analyse(rnd, 120, [8])
    assert a.window[8].upper > 2 * a.prefetch[8].upper           # random neighbours are little use


def test_prefetch_on_a_cyclic_scan_reaches_the_lower_bound():
    seq = list(range(1, 101)) * 5      # 100 pages round and round, 60 frames
    d, n = mm.dense(seq)
    major = mm.belady(d, 60, n).major
    pf = mm.belady_prefetch(d, 60, 8, n)
    assert major > 0 and pf.lower == -(-major // 8)
    assert pf.greedy <= pf.lower + 5, pf      # a scan is what prefetch is for


def test_frames_and_prefetch_checked():
    with pytest.raises(ValueError):
        mm.belady([0, 1], 0)
    with pytest.raises(ValueError):
        mm.lru([0, 1], 0)
    with pytest.raises(ValueError):
        mm.belady_prefetch([0, 1], 1, 0)


# ------------------------------------------------------------ trace format

@pytest.mark.parametrize('seed', range(5))
def test_trace_round_trip(seed):
    rng = random.Random(400 + seed)
    pages = [rng.choice([rng.randrange(1, 1 << 40), rng.randrange(1, 50)]) for _ in range(2000)]
    pages[3:3] = [pages[2]] * 4        # a run: one entry
    data = mm.encode(pages)
    want = [p for i, p in enumerate(pages) if i == 0 or p != pages[i - 1]]
    assert list(mm.decode(data)) == want
    assert mm.encode(mm.decode(data)) == data


def test_trace_unmap_makes_returning_pages_new():
    pages = [10, 11, 12, 10, 11, 12, 13]
    data = mm.encode(pages, unmaps=[(3, 10, 2)])       # 10 and 11 unmapped, then used again
    got = list(mm.decode(data))
    g = 1 << mm.GEN_SHIFT
    assert got == [10, 11, 12, 10 | g, 11 | g, 12, 13]
    assert mm.encode(pages, unmaps=[(3, 10, 2)]) == data
    d, n = mm.dense(got)
    assert mm.belady(d, 10, n) == mm.Faults(6, 6, 0)     # the new 10 and 11 are first touches
    with pytest.raises(mm.TraceError, match='inside an unmap'):
        mm.decode(data[:data.index(b'\0\1') + 3])


def test_trace_damage_is_named():
    data = mm.encode([5, 6, 7, 1 << 33, 2])
    with pytest.raises(mm.TraceError, match='no MMTRACE1'):
        mm.decode(b'XXTRACE1' + data[8:])
    with pytest.raises(mm.TraceError, match='inside the end marker'):
        mm.decode(data[:-9])
    with pytest.raises(mm.TraceError, match='unknown event 7'):
        mm.decode(data[:-9] + b'\7')
    with pytest.raises(mm.TraceError, match='cut short after 3 entries'):
        mm.decode(data[:12])           # inside the fourth entry's varint
    with pytest.raises(mm.TraceError, match='the trailer says 4'):
        mm.decode(data[:-8] + (4).to_bytes(8, 'little'))
    with pytest.raises(mm.TraceError, match='bytes after the end marker'):
        mm.decode(data + b'\0')


# ------------------------------------------------------------ records and tables

def test_start_frames_prefers_the_script_start():
    recs = [{'type': 'mem_balance', 'phase': 'start', 'of': 'run', 'free_frames': 900},
            {'type': 'mem_balance', 'phase': 'end', 'of': 'script', 'free_frames': 800},
            {'type': 'mem_balance', 'phase': 'start', 'of': 'script', 'free_frames': 1000}]
    assert mm.start_frames(recs) == (1000, 'free_frames at the start of the script')
    assert mm.start_frames(recs[:2]) == (900, 'free_frames at the start of the run')
    assert mm.start_frames(recs[1:2]) is None


def test_ra_pages_per_policy():
    assert mm.ra_pages({'ra': 'off'}) == 1
    assert mm.ra_pages({'ra': 'fixed:3'}) == 8
    assert mm.ra_pages({'ra': 'hugh', 'page_cluster': '4'}) == 16
    assert mm.ra_pages({'ra': 'vma', 'page_cluster': '7'}) == 32
    assert mm.ra_pages({'ra': 'own'}, 48 << 20) == 64
    assert mm.ra_pages({'ra': 'own'}, 1 << 20) == 8
    assert mm.ra_pages({'ra': 'bogus'}) is None


class FakeOracle(mm.Oracle):
    def __init__(self, traces):
        super().__init__()
        self.traces = traces


def test_table_rows():
    scan = list(range(1, 101)) * 3
    o = FakeOracle({'scan': scan})
    res = [{'column': 'RA=0', 'commands': ['scan'], 'majflt': 150, 'knobs': {'ra': 'off'}, 'vmstat': {'pswpin': 300}},
           {'column': 'RA=0', 'commands': ['scan'], 'majflt': 170, 'knobs': {'ra': 'off'}, 'vmstat': {'pswpin': 320}},
           {'column': 'RA=3', 'commands': ['scan'], 'majflt': 30, 'knobs': {'ra': 'fixed:3'}},
           {'column': 'pair', 'commands': ['scan', 'scan'], 'majflt': 9, 'knobs': {'ra': 'off'}}]
    rows, notes = mm.table_rows(['RA=0', 'RA=3', 'pair', 'gone'], res, 60, o)
    rows = dict(rows)
    major = run_min(scan, 60).major
    assert rows['MIN major'] == [str(major), str(major), '-', '-']
    assert rows['LRU major'][0] == str(mm.lru(scan, 60).major)
    assert rows['majflt / MIN'][0] == '%.2f' % (160 / major)
    assert rows['pswpin / MIN'][:2] == ['%.2f' % (310 / major), '-']     # RA=3's runs carry no vmstat
    assert rows['RA pages k'][:2] == ['1', '8']
    assert rows['MIN+PF major'][0] == str(major)
    lower = -(-major // 8)
    assert rows['majflt / MIN+PF'][1] == '%.2f' % (30 / lower)
    assert rows['MIN+window'][:2] == [str(major), str(mm.belady_window(scan, 60, 8).upper)]
    assert len(notes) == 2 and 'parallel group' in notes[0] and 'no results' in notes[1]


# ------------------------------------------------------------ the workloads' traces

def workload(name):
    path = os.path.join(WORKLOADS, name)
    if not os.path.isfile(path):
        pytest.fail('%s is missing: make workloads (make tools-test builds them)' % path)
    return path


def traced(tmp_path, *argv):
    out = tmp_path / 'trace'
    r = subprocess.run([workload(argv[0])] + list(argv[1:]), env=dict(os.environ, MM_TRACE=str(out)),
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


def test_touch_trace_is_the_touch_order(tmp_path):
    data = traced(tmp_path, 'touch', '1', '600', 'seq', 'anon')
    pages = list(mm.decode(data))
    assert mm.encode(pages) == data                    # C and Python agree byte for byte
    base = pages[0]
    assert pages == [base + i % 256 for i in range(600)]


def test_touch_random_trace_matches_its_record(tmp_path):
    data = traced(tmp_path, 'touch', '2', '3000', 'random', 'anon', '7')
    r = subprocess.run([workload('touch'), '2', '3000', 'random', 'anon', '7'], capture_output=True)
    import json
    rec = json.loads(r.stdout.decode().splitlines()[-1])
    pages = mm.decode(data)
    assert len(set(pages)) == rec['pages_touched']
    assert len(pages) <= 3000 and len(pages) > 2900   # only repeats of the last page collapse


def test_hogmem_and_fill_traces(tmp_path):
    pages = mm.decode(traced(tmp_path, 'hogmem', '1', '2'))
    assert len(pages) == 3 * 256 and len(set(pages)) == 256     # two sweeps and the check
    pages = mm.decode(traced(tmp_path, 'fill', '50', '8'))
    assert len(pages) == 2 * 1024 and len(set(pages)) == 1024   # written, then verified


def test_mmap001_trace_is_by_file_page(tmp_path):
    # 1 MiB of a file, 2 loops, then the read-back: the same 256 file pages
    # three times over (a fresh mapping each loop, so not by address).
    dev = tmp_path / 'dev'
    dev.write_bytes(b'\0' * (1 << 20))
    pages = list(mm.decode(traced(tmp_path, 'mmap001', str(dev), '1', '2')))
    assert len(pages) == 3 * 256 and len(set(pages)) == 256
    assert pages[:256] == pages[256:512] == pages[512:] == list(range(pages[0], pages[0] + 256))


def test_min_names_a_workload_without_a_trace(tmp_path):
    r = subprocess.run([os.path.join(ROOT, 'tools', 'min'), '--frames', '10', '--build', os.path.join(ROOT, 'build'),
                        'hello'], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and 'hello' in r.stderr and 'no MM_TRACE support' in r.stderr


def test_threads_trace_has_every_thread(tmp_path):
    pages = mm.decode(traced(tmp_path, 'threads', '2', '1', '60', '10'))
    # 2 threads x 10 rounds x 40 touches, less collapsed repeats, plus each
    # thread's final check of its 128 pages.  Two sets even when the second
    # thread mapped its pages where the first had unmapped its own.
    assert len(set(pages)) == 256
    assert 2 * 128 < len(pages) <= 2 * (10 * 40 + 128)


def test_min_tool_on_a_workload(tmp_path):
    r = subprocess.run([os.path.join(ROOT, 'tools', 'min'), '--frames', '100', '--prefetch', '4', '--json',
                        '--build', os.path.join(ROOT, 'build'), 'touch', '1', '600', 'seq', 'anon'],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    import json
    got = json.loads(r.stdout)
    # 256 pages cycled 600 times round in 100 frames
    seq = [i % 256 for i in range(600)]
    assert got['min'] == run_min(seq, 100)._asdict()
    assert got['lru']['faults'] == 600
    assert got['prefetch'][0]['k'] == 4 and got['window'][0]['k'] == 4


def test_min_tool_errors_name_the_thing(tmp_path):
    tool = os.path.join(ROOT, 'tools', 'min')
    r = subprocess.run([tool, '--frames', '0', 'touch', '1', '1', 'seq', 'anon'], capture_output=True, text=True)
    assert r.returncode == 2 and '--frames 0' in r.stderr
    bad = tmp_path / 'bad'
    bad.write_bytes(b'MMTRACE1\x02\x02')
    r = subprocess.run([tool, '--frames', '5', '--trace', str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and str(bad) in r.stderr and 'cut short' in r.stderr
    log = tmp_path / 'log'
    log.write_text('{"type":"boot"}\n')
    r = subprocess.run([tool, '--log', str(log), '--trace', str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and 'mem_balance' in r.stderr


def test_matrix_min_rows_and_summary_columns(tmp_path):
    import argparse
    import csv
    import io
    import sys
    from mmtools import matrix, rig
    from mmtools.records import parse_records
    log = matrix.canned_log().replace(
        '{"type":"boot","usable_bytes":50331648}',
        '{"type":"boot","usable_bytes":50331648}\n'
        '{"type":"mem_balance","phase":"start","of":"script","free_frames":60}')
    r = rig.Result(0, log, parse_records(log), False, 1.0)
    job = matrix.Job('canned.mm', 'ssd', 'nvme', 'canned.mm')
    m = matrix.Matrix(argparse.Namespace(out=str(tmp_path), build='build', scripts=[], min=True, icount=False))
    scan = list(range(1, 101)) * 3
    m.oracle = FakeOracle({'touch 56 20000 seq anon': scan, 'touch 56 3000 random anon': scan[:150]})
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        d = m.digest(job, r, 1.0, 'canned.log')
        m.write([job], [d])
        m.print_tables([d])
    finally:
        sys.stdout, sys.stderr = saved
    with open(tmp_path / 'summary.csv') as f:
        rows = {s['column']: s for s in csv.DictReader(f)}
    major = run_min(scan, 60).major
    ra3 = rows['RA=3']
    assert ra3['min_frames'] == '60' and ra3['min_major'] == str(major) and ra3['ra_pages'] == '8'
    assert ra3['majflt_over_min'] == '%.2f' % (710 / major)
    assert ra3['min_pf_lower'] == str(-(-major // 8))
    assert ra3['pswpin_over_min'] == '%.2f' % (5000 / major)      # the canned runs read 5000 pages
    assert ra3['min_window_major'] == str(mm.belady_window(scan, 60, 8).upper)
    assert rows['rnd Hugh']['min_major'] == '0' and rows['rnd Hugh']['majflt_over_min'] == 'inf'
    text = m.report.getvalue()
    assert 'MIN (tools/min): 60 frames (free_frames at the start of the script)' in text
    assert 'MIN major' in text and 'majflt / MIN+PF' in text


def test_matrix_without_min_leaves_the_columns_empty(tmp_path):
    import argparse
    import csv
    import io
    import sys
    from mmtools import matrix, rig
    from mmtools.records import parse_records
    log = matrix.canned_log()
    r = rig.Result(0, log, parse_records(log), False, 1.0)
    job = matrix.Job('canned.mm', 'ssd', 'nvme', 'canned.mm')
    m = matrix.Matrix(argparse.Namespace(out=str(tmp_path), build='build', scripts=[], icount=False))
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        m.write([job], [m.digest(job, r, 1.0, 'canned.log')])
    finally:
        sys.stdout, sys.stderr = saved
    with open(tmp_path / 'summary.csv') as f:
        rows = list(csv.DictReader(f))
    assert rows and all(s['min_major'] == '' for s in rows)
    assert 'MIN' not in m.report.getvalue()


def test_results_min_table_end_to_end(tmp_path):
    import json
    recs = [{'type': 'boot', 'usable_bytes': 48 << 20},
            {'type': 'mem_balance', 'phase': 'start', 'of': 'script', 'free_frames': 100},
            {'type': 'script', 'script': 'scripts/t.mm'}]
    for col, ra, maj in (('RA=0', 'off', 400), ('RA=2', 'fixed:2', 100)):
        recs.append({'type': 'result', 'script': 'scripts/t.mm', 'column': col, 'run': 0,
                     'commands': ['touch 1 600 seq anon'], 'majflt': maj, 'minflt': 1, 'elapsed_ns': 1,
                     'knobs': {'ra': ra, 'page_cluster': '3'}})
    recs.append({'type': 'table', 'script': 'scripts/t.mm', 'columns': ['RA=0', 'RA=2'],
                 'rows': [{'name': 'pgmajfault', 'unit': 'count',
                           'cells': [{'n': 1, 'mean': 400}, {'n': 1, 'mean': 100}]}]})
    path = tmp_path / 'r.jsonl'
    path.write_text(''.join(json.dumps(x) + '\n' for x in recs))
    r = subprocess.run([os.path.join(ROOT, 'tools', 'results'), str(path), '--min', '--build',
                        os.path.join(ROOT, 'build')], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    major = run_min([i % 256 for i in range(600)], 100).major
    # the MIN table's row names sit in 16 columns
    rows = {line[:16].strip(): line[16:].split() for line in r.stdout.splitlines()}
    assert rows['MIN major'] == [str(major), str(major)]
    assert rows['majflt / MIN'] == ['%.2f' % (400 / major), '%.2f' % (100 / major)]
    assert rows['RA pages k'] == ['1', '4']
    assert rows['majflt / MIN+PF'][1] == '%.2f' % (100 / -(-major // 4))
    # the result table itself ends in MIN and faults / MIN (row names in 14)
    table = r.stdout.split('script scripts/t.mm (from the table record)')[1].split('MIN (tools/min)')[0]
    trows = {line[:14].strip(): line[14:].split() for line in table.splitlines()[2:] if line.strip()}
    assert list(trows) == ['runs', 'pgmajfault', 'MIN', 'faults / MIN']
    assert trows['pgmajfault'] == ['400', '100']
    assert trows['MIN'] == [str(major), str(major)]
    assert trows['faults / MIN'] == ['%.2f' % (400 / major), '%.2f' % (100 / major)]


def test_results_without_min_has_no_min_rows(tmp_path):
    import json
    recs = [{'type': 'script', 'script': 'scripts/t.mm'},
            {'type': 'table', 'script': 'scripts/t.mm', 'columns': ['c'],
             'rows': [{'name': 'pgmajfault', 'unit': 'count', 'cells': [{'n': 1, 'mean': 7}]}]}]
    path = tmp_path / 'r.jsonl'
    path.write_text(''.join(json.dumps(x) + '\n' for x in recs))
    r = subprocess.run([os.path.join(ROOT, 'tools', 'results'), str(path)], capture_output=True, text=True,
                       timeout=60)
    assert 'pgmajfault' in r.stdout and 'MIN' not in r.stdout


def test_result_rows_and_no_frame_count():
    from mmtools import results
    scan = list(range(1, 101)) * 3
    o = FakeOracle({'scan': scan})
    res = [{'type': 'result', 'script': 's', 'column': 'a', 'commands': ['scan'], 'majflt': 80,
            'knobs': {'ra': 'off'}},
           {'type': 'result', 'script': 's', 'column': 'b', 'commands': ['scan', 'scan'], 'majflt': 9,
            'knobs': {'ra': 'off'}}]
    major = run_min(scan, 60).major
    assert mm.result_rows(['a', 'b'], res, 60, o) == [('MIN', [str(major), '-']),
                                                       ('faults / MIN', ['%.2f' % (80 / major), '-'])]
    table = {'type': 'table', 'script': 's', 'columns': ['a']}
    seen = [{'type': 'mem_balance', 'phase': 'start', 'of': 'script', 'free_frames': 60},
            {'type': 'script', 'script': 's'}] + res + [table]
    assert results.min_rows(table, seen, o) == [('MIN', [str(major)]), ('faults / MIN', ['%.2f' % (80 / major)])]
    assert results.min_rows(table, [table], o) == []            # no frame count: min_lines says why


def test_results_each_script_uses_its_own_start():
    from mmtools import results
    scan = list(range(1, 101)) * 3
    seen = []
    for name, frames in (('scripts/a.mm', 60), ('scripts/b.mm', 90)):
        seen += [{'type': 'mem_balance', 'phase': 'start', 'of': 'script', 'free_frames': frames},
                 {'type': 'script', 'script': name},
                 {'type': 'result', 'script': name, 'column': 'c', 'commands': ['scan'], 'majflt': 50,
                  'knobs': {'ra': 'off'}}]
        table = {'type': 'table', 'script': name, 'columns': ['c']}
        seen.append(table)
        lines = results.min_lines(table, seen, FakeOracle({'scan': scan}))
        assert lines[0].startswith('MIN (tools/min): %d frames' % frames)
        rows = {line[:16].strip(): line[16:].split() for line in lines[1:]}
        assert rows['MIN major'] == [str(run_min(scan, frames).major)]
    assert results.min_lines(table, [table], None) == [
        'MIN: no mem_balance start record before the table of scripts/b.mm: no frame count']
