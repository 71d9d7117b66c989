"""The optimum as a column: a workload's page trace through Belady's MIN
and LRU with the frames the kernel had free.

  tools/min [--frames N | --log FILE] [--prefetch K] [--build DIR] [--json]
            (--trace FILE | WORKLOAD ARGS...)

WORKLOAD ARGS... is a workload command line as a script runs it ('touch 72
40000 seq anon'): the program BUILD/workloads/WORKLOAD runs on this host
with MM_TRACE set and writes its page-access trace (tests/workloads/
wtrace.h); --trace reads such a file instead.  The frames are --frames N,
or the free_frames of the first mem_balance record with phase "start" in
FILE (a serial log or a results file; README, "Results file"): what the
kernel had free when the script (or the run) began.

Printed: the accesses and distinct pages, then per policy the faults,
split into compulsory (a page's first access: a zero-fill minor fault in
the kernel, no I/O) and re-faults (a page that had been evicted: a major
fault, a read from swap).  The kernel's major faults compare with the
re-faults.  MIN is Belady's: on a fault with every frame full, evict the
page whose next use is farthest away; no policy, prefetching or not, reads
fewer pages from swap with that many frames.  LRU evicts the page used
longest ago.

MIN with prefetch (--prefetch K, K >= 2; README gives the definition):
each major fault is one I/O that may bring up to K pages - the faulting one
and K-1 others of the pages on swap - as a read-ahead window of K pages
does; first touches bring nothing.  The fewest major faults any such
policy can take lie between two bounds printed: ceil(MIN re-faults / K)
(every page read from swap is read by some fault's I/O, and MIN reads the
fewest pages) and the faults of a greedy policy (each fault also brings the
K-1 swapped pages used soonest, each only while it is used before the
resident page used last, which it then replaces).  MIN+window is the same
greedy policy allowed only the pages of the faulting page's aligned block
of K page numbers, as a read-ahead window in the address space: what a
clairvoyant windowed read-ahead achieves (a count, not a bound).

tools/results --min and tools/matrix --min put the same figures under
each script's table (min_table()), one column per table column.

Cost: the simulation is Python, measured at under a microsecond per
access for LRU, one to two for MIN, two to six for MIN with prefetch;
the seed scripts' traces (at most 210000 accesses) take seconds (README,
"The optimum: tools/min", has the figures).
"""
import argparse
import heapq
import json
import os
import subprocess
import sys
import tempfile
from array import array
from collections import OrderedDict, namedtuple

from .records import parse_records

MAGIC = b'MMTRACE1'
NEVER = 1 << 62          # "no next use"

Faults = namedtuple('Faults', 'faults compulsory major')
Prefetch = namedtuple('Prefetch', 'k lower upper greedy reads')
Window = namedtuple('Window', 'k upper greedy reads')


# ------------------------------------------------------------ the trace file

class TraceError(ValueError):
    pass


GEN_SHIFT = 36           # virtual page numbers are below 2^36 (48-bit addresses)


def _varint(out, v):
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | 0x80 if v else b)
        if not v:
            return


def encode(pages, unmaps=()):
    """The trace file's bytes for a sequence of page numbers (runs of one
    page are collapsed, as the workloads write them; page 0, never mapped,
    cannot come first).  unmaps: (before entry i, first page, pages)
    events, as wtrace_unmap writes them."""
    out = bytearray(MAGIC)
    ev = sorted(unmaps)
    prev, n = 0, 0
    for i, p in enumerate(pages):
        while ev and ev[0][0] <= i:
            _, first, count = ev.pop(0)
            out += b'\0\1'
            _varint(out, first)
            _varint(out, count)
            prev = 0
        if p == prev:
            continue
        d = p - prev
        _varint(out, (d << 1) if d >= 0 else ((-d << 1) - 1))
        prev = p
        n += 1
    out += b'\0\0'
    out += n.to_bytes(8, 'little')
    return bytes(out)


def _unmap(data, i, name, pages, gens):
    """Reads an unmap event at data[i:]: every page in its range starts a
    new generation, so a page number mapped again is another page."""
    vals = []
    for _ in range(2):
        v, shift = 0, 0
        while True:
            if i >= len(data):
                raise TraceError('%s: cut short inside an unmap after %d entries' % (name, len(pages)))
            b = data[i]
            i += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                break
        vals.append(v)
    first, count = vals
    if count > 1 << 30 or first + count > 1 << GEN_SHIFT:
        raise TraceError('%s: unmap of %d pages from page %d after %d entries: out of range'
                         % (name, count, first, len(pages)))
    for vpn in range(first, first + count):
        gens[vpn] = gens.get(vpn, 0) + 1
    return i


def decode(data, name='trace'):
    """Page numbers of a trace file's bytes; TraceError names what is wrong.
    After an unmap, a page number coming back is numbered page + (g << 36)
    for its g-th mapping."""
    if data[:8] != MAGIC:
        raise TraceError('%s: not a page trace (no MMTRACE1 magic)' % name)
    pages = array('q')
    gens = {}
    prev, v, shift, i, n = 0, 0, 0, 8, len(data)
    while True:
        if i >= n:
            raise TraceError('%s: cut short after %d entries (no end marker: did the workload finish?)'
                             % (name, len(pages)))
        b = data[i]
        i += 1
        if b == 0 and shift == 0:
            if i >= n:
                raise TraceError('%s: cut short after %d entries (inside the end marker)' % (name, len(pages)))
            kind = data[i]
            i += 1
            if kind == 0:
                break
            if kind != 1:
                raise TraceError('%s: unknown event %d after %d entries' % (name, kind, len(pages)))
            i = _unmap(data, i, name, pages, gens)
            prev = 0
            continue
        v |= (b & 0x7f) << shift
        if b & 0x80:
            shift += 7
            continue
        prev += (v >> 1) ^ -(v & 1)
        g = gens.get(prev) if gens else None
        pages.append(prev | (g << GEN_SHIFT) if g else prev)
        v, shift = 0, 0
    if n - i != 8:
        raise TraceError('%s: %d bytes after the end marker, want 8' % (name, n - i))
    want = int.from_bytes(data[i:], 'little')
    if want != len(pages):
        raise TraceError('%s: %d entries, the trailer says %d' % (name, len(pages), want))
    return pages


def read_trace(path):
    with open(path, 'rb') as f:
        return decode(f.read(), path)


def trace_command(words, build='build', timeout=3600):
    """Runs a workload command line on this host with MM_TRACE; its pages.
    RuntimeError says why when it cannot."""
    if not words:
        raise RuntimeError('no workload command given')
    prog = words[0] if os.sep in words[0] else os.path.join(build, 'workloads', words[0])
    if not os.path.isfile(prog):
        raise RuntimeError("workload '%s': %s does not exist (make workloads)" % (words[0], prog))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace')
        env = dict(os.environ, MM_TRACE=path)
        r = subprocess.run([prog] + list(words[1:]), env=env, capture_output=True, timeout=timeout)
        if r.returncode:
            err = r.stderr.decode(errors='replace').strip().splitlines()
            raise RuntimeError("'%s' exited %d: %s" % (' '.join(words), r.returncode,
                                                       err[-1] if err else 'no message'))
        if not os.path.exists(path):
            raise RuntimeError("'%s' wrote no trace: %s has no MM_TRACE support (tests/workloads/wtrace.h)"
                               % (' '.join(words), words[0]))
        return read_trace(path)


# ------------------------------------------------------------ simulations

def dense(pages):
    """The trace with pages renumbered 0..n-1 in order of first use, and n."""
    seq, ids = dense_map(pages)
    return seq, len(ids)


def dense_map(pages):
    """dense()'s trace and {page number: id} (its keys in id order)."""
    ids = {}
    out = array('l', bytes(8 * len(pages)))
    for i, p in enumerate(pages):
        j = ids.get(p)
        if j is None:
            j = ids[p] = len(ids)
        out[i] = j
    return out, ids


def next_uses(seq, npages):
    """nxt[i]: the index of the next access to seq[i] after i, or NEVER."""
    nxt = array('q', bytes(8 * len(seq)))
    last = array('q', [NEVER]) * npages
    for i in range(len(seq) - 1, -1, -1):
        p = seq[i]
        nxt[i] = last[p]
        last[p] = i
    return nxt


def check_frames(frames):
    if frames < 1:
        raise ValueError('frames must be at least 1, got %d' % frames)


def lru(seq, frames):
    """Faults of LRU with `frames` frames on a (dense or not) page trace."""
    check_frames(frames)
    res = OrderedDict()
    seen = set()
    faults = compulsory = 0
    move, pop = res.move_to_end, res.popitem
    for p in seq:
        if p in res:
            move(p)
            continue
        faults += 1
        if p not in seen:
            seen.add(p)
            compulsory += 1
        if len(res) >= frames:
            pop(last=False)
        res[p] = None
    return Faults(faults, compulsory, faults - compulsory)


def belady(seq, frames, npages=None, nxt=None):
    """Faults of MIN with `frames` frames on a dense trace (see dense())."""
    check_frames(frames)
    if npages is None:
        npages = max(seq) + 1 if len(seq) else 0
    if nxt is None:
        nxt = next_uses(seq, npages)
    when = array('q', [-1]) * npages      # resident page: its next use; else -1
    seen = bytearray(npages)
    heap = []                             # (-next use, page), stale entries skipped
    push, pop = heapq.heappush, heapq.heappop
    used = faults = compulsory = 0
    for i in range(len(seq)):
        p, n = seq[i], nxt[i]
        if when[p] < 0:
            faults += 1
            if not seen[p]:
                seen[p] = 1
                compulsory += 1
            if used == frames:
                while True:
                    w, q = pop(heap)
                    if when[q] == -w:
                        break
                when[q] = -1
            else:
                used += 1
        when[p] = n
        push(heap, (-n, p))
    return Faults(faults, compulsory, faults - compulsory)


def belady_prefetch(seq, frames, k, npages=None, nxt=None, major=None):
    """MIN with prefetch, K pages per major fault: Prefetch(k, lower,
    upper, greedy, reads).  lower = ceil(MIN's re-faults / k), a bound no
    policy beats; greedy = the major faults of the greedy policy in the
    module comment, reads = the pages it read ahead; upper = the smaller
    of greedy and MIN's re-faults (declining to prefetch is allowed)."""
    check_frames(frames)
    if k < 1:
        raise ValueError('prefetch must be at least 1 page, got %d' % k)
    if npages is None:
        npages = max(seq) + 1 if len(seq) else 0
    if nxt is None:
        nxt = next_uses(seq, npages)
    if major is None:
        major = belady(seq, frames, npages, nxt).major
    if k == 1:
        return Prefetch(1, major, major, major, 0)
    greedy, reads = _greedy_prefetch(seq, frames, k, npages, nxt)
    return Prefetch(k, -(-major // k), min(greedy, major), greedy, reads)


class _Greedy:
    """The greedy prefetching policy's state.  A page is resident (when[p]
    is its next use), on swap (out[p] its next use, NEVER if none), or
    never touched (both -1).  res: max-heap of resident pages by next use,
    disk: min-heap of swapped pages by next use; both keep stale entries,
    skipped when they no longer match when/out."""

    def __init__(self, frames, npages):
        self.frames, self.used = frames, 0
        self.when = array('q', [-1]) * npages
        self.out = array('q', [-1]) * npages
        self.res, self.disk = [], []

    def farthest(self):
        """The resident page used last, or None (every page hidden)."""
        res, when = self.res, self.when
        while res:
            w, q = res[0]
            if when[q] == -w:
                return q
            heapq.heappop(res)
        return None

    def evict(self, q):
        heapq.heappop(self.res)            # q is the valid top: farthest() said so
        nx = self.out[q] = self.when[q]
        self.when[q] = -1
        if nx < NEVER:
            heapq.heappush(self.disk, (nx, q))

    def place(self, p, n):
        self.out[p] = -1
        self.when[p] = n
        heapq.heappush(self.res, (-n, p))

    def room(self):
        if self.used < self.frames:
            self.used += 1
        else:
            self.evict(self.farthest())

    def take(self, q, nx):
        """Reads swapped page q, next used at nx, into a free frame or in
        place of the resident page used last, if that one is used after
        q; False (nothing read) if not."""
        if self.used < self.frames:
            self.used += 1
        else:
            r = self.farthest()
            if r is None or self.when[r] <= nx:
                return False
            self.evict(r)
        self.place(q, nx)
        return True

    def bring(self, m, pinned, cands=None):
        """Reads up to m swapped pages, soonest used first, while take()
        will: any pages on swap, or only cands ((next use, page) pairs).
        `pinned`, the faulting page, arrives with them and keeps its frame:
        hidden from farthest() meanwhile (its heap entries go stale and are
        dropped, then it is pushed again).  Returns how many."""
        got, disk, out, when = 0, self.disk, self.out, self.when
        keep, when[pinned] = when[pinned], -2     # its heap entries look stale now
        if cands is not None:
            for nx, q in sorted(cands)[:m]:
                if not self.take(q, nx):
                    break
                got += 1
        while cands is None and got < m and disk:
            nx, q = disk[0]
            if out[q] != nx:                  # stale: q came in, or went out again later
                heapq.heappop(disk)
                continue
            if not self.take(q, nx):
                break
            got += 1
        self.place(pinned, keep)
        return got

    def window(self, k, p, vpn_of, ids):
        """(next use, page) of the pages of p's aligned block of k page
        numbers that are on swap and used again."""
        v = vpn_of[p]
        out, when, got = self.out, self.when, []
        for u in range(v - v % k, v - v % k + k):
            q = ids.get(u)
            if q is not None and when[q] < 0 and 0 <= out[q] < NEVER:
                got.append((out[q], q))
        return got


def _greedy_prefetch(seq, frames, k, npages, nxt, window=None):
    """(major faults, pages read ahead) of the greedy policy; window:
    (vpn_of, ids) to read only from the faulting page's aligned block."""
    g = _Greedy(frames, npages)
    when, out, res = g.when, g.out, g.res
    faults = reads = 0
    for i in range(len(seq)):
        p, n = seq[i], nxt[i]
        if when[p] >= 0:
            when[p] = n
            heapq.heappush(res, (-n, p))
            continue
        major = out[p] >= 0
        g.room()
        g.place(p, n)
        if major:
            faults += 1
            cands = g.window(k, p, *window) if window else None
            reads += g.bring(k - 1, p, cands)
    return faults, reads


def belady_window(pages, frames, k, major=None):
    """MIN with a read-ahead window: each major fault may also read the
    swapped pages of its aligned block of k page numbers, greedily as in
    belady_prefetch.  A count a clairvoyant windowed policy achieves, not
    a bound: Window(k, upper, greedy, reads), upper = min(greedy, MIN's
    re-faults)."""
    seq, ids = dense_map(pages)
    npages = len(ids)
    nxt = next_uses(seq, npages)
    if major is None:
        major = belady(seq, frames, npages, nxt).major
    if k == 1:
        return Window(1, major, major, 0)
    greedy, reads = _greedy_prefetch(seq, frames, k, npages, nxt, (list(ids), ids))
    return Window(k, min(greedy, major), greedy, reads)


# ------------------------------------------------------------ analysis

Analysis = namedtuple('Analysis', 'accesses pages frames min lru prefetch window')


def analyse(pages, frames, ks=()):
    """MIN, LRU, and MIN with prefetch and with a window for each k in ks
    (k >= 2), of one trace with `frames` frames."""
    seq, ids = dense_map(pages)
    npages = len(ids)
    nxt = next_uses(seq, npages)
    b = belady(seq, frames, npages, nxt)
    ks = [k for k in sorted(set(ks)) if k > 1]
    pf = {k: belady_prefetch(seq, frames, k, npages, nxt, b.major) for k in ks}
    win = {}
    for k in ks:
        greedy, reads = _greedy_prefetch(seq, frames, k, npages, nxt, (list(ids), ids))
        win[k] = Window(k, min(greedy, b.major), greedy, reads)
    return Analysis(len(seq), npages, frames, b, lru(seq, frames), pf, win)


def start_frames(records):
    """(free frames, what) of the first mem_balance record of a script's
    (else a run's) start, or None."""
    starts = [r for r in records if r.get('type') == 'mem_balance' and r.get('phase') == 'start'
              and isinstance(r.get('free_frames'), int)]
    for of in ('script', 'run'):
        for r in starts:
            if r.get('of') == of:
                return r['free_frames'], 'free_frames at the start of the %s' % of
    return None


def log_frames(path):
    """start_frames() of a serial log or results file; ValueError says why not."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            recs = parse_records(f.read())
    except OSError as e:
        raise ValueError('%s: %s' % (path, e.strerror))
    got = start_frames(recs)
    if got is None:
        raise ValueError('%s: no mem_balance record with phase "start" and free_frames' % path)
    return got


def ra_pages(knobs, usable_bytes=None):
    """Pages a read-ahead policy may read per major fault (README, "Swap-in
    readahead"): off 1, fixed:N 2^N, hugh/shaohua 2^page_cluster, vma
    2^min(page_cluster, 5), own its budget (1/64 of memory, 8..64 pages;
    64 when memory is unknown).  None for an unknown policy."""
    ra = str((knobs or {}).get('ra', ''))
    try:
        pc = int((knobs or {}).get('page_cluster', 3))
    except ValueError:
        pc = 3
    if ra == 'off':
        return 1
    if ra.startswith('fixed:') and ra[6:].isdigit():
        return 1 << int(ra[6:])
    if ra in ('hugh', 'shaohua'):
        return 1 << pc
    if ra == 'vma':
        return 1 << min(pc, 5)
    if ra == 'own':
        if not usable_bytes:
            return 64
        return max(8, min(64, usable_bytes // 4096 // 64))
    return None


class Oracle:
    """Traces and analyses of workload command lines, each computed once."""

    def __init__(self, build='build'):
        self.build = build
        self.traces, self.done = {}, {}

    def analysis(self, command, frames, ks=()):
        """Analysis of one command line (a string), or RuntimeError."""
        key = (command, frames, tuple(sorted(set(ks))))
        if key not in self.done:
            if command not in self.traces:
                self.traces[command] = trace_command(command.split(), self.build)
            self.done[key] = analyse(self.traces[command], frames, ks)
        return self.done[key]


def mean(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return sum(xs) / len(xs) if xs else None


def ratio_cell(a, b):
    if a is None or b is None:
        return '-'
    if b == 0:
        return '1.00' if a == 0 else 'inf'
    return '%.2f' % (a / b)


def table_rows(columns, results, frames, oracle, usable_bytes=None):
    """Rows to add under a script's table, one cell per column: MIN's and
    LRU's major faults (re-faults), the runs' mean majflt over MIN's, their
    mean pswpin (pages read from swap: MIN's major count bounds it under
    every read-ahead policy, own's too) over MIN's, the read-ahead pages k of the column's policy, MIN with prefetch of k pages
    (lower bound, or lower-upper) and majflt over that lower bound.
    Returns (rows, notes): notes name columns that could not be done."""
    names = ['MIN major', 'LRU major', 'majflt / MIN', 'pswpin / MIN', 'RA pages k', 'MIN+PF major',
             'majflt / MIN+PF', 'MIN+window']
    cells = {n: [] for n in names}
    notes = []
    for col in columns:
        xs = [x for x in results if x.get('column') == col]
        got = column_cells(col, xs, frames, oracle, usable_bytes, notes)
        for n in names:
            cells[n].append(got.get(n, '-'))
    return [(n, cells[n]) for n in names], notes


def result_rows(columns, results, frames, oracle, usable_bytes=None):
    """The two rows a script's result table carries with --min (the issue's
    "MIN as a row"): MIN's major faults and the runs' mean majflt over
    them, per column ('-' where there is no MIN: table_rows' notes)."""
    rows = dict(table_rows(columns, results, frames, oracle, usable_bytes)[0])
    return [('MIN', rows['MIN major']), ('faults / MIN', rows['majflt / MIN'])]


def column_cells(col, xs, frames, oracle, usable_bytes, notes):
    cmds = {tuple(x.get('commands', [])) for x in xs}
    if not xs or len(cmds) != 1:
        notes.append("'%s': %s" % (col, 'no results' if not xs else 'runs with different commands'))
        return {}
    cmd = next(iter(cmds))
    if len(cmd) != 1:
        notes.append("'%s': a parallel group has no single access order" % col)
        return {}
    k = ra_pages(xs[0].get('knobs'), usable_bytes)
    try:
        a = oracle.analysis(cmd[0], frames, [k] if k else [])
    except (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired) as e:
        notes.append("'%s': %s" % (col, e))
        return {}
    maj = mean([x.get('majflt') for x in xs])
    pswpin = mean([x.get('vmstat', {}).get('pswpin') for x in xs])
    out = {'MIN major': str(a.min.major), 'LRU major': str(a.lru.major),
           'majflt / MIN': ratio_cell(maj, a.min.major), 'pswpin / MIN': ratio_cell(pswpin, a.min.major),
           'RA pages k': str(k) if k else '?'}
    pf = a.prefetch.get(k) if k else None
    win = a.window.get(k) if k else None
    if k == 1:
        pf = Prefetch(1, a.min.major, a.min.major, a.min.major, 0)
        win = Window(1, a.min.major, a.min.major, 0)
    if pf:
        out['MIN+PF major'] = str(pf.lower) if pf.lower == pf.upper else '%d-%d' % (pf.lower, pf.upper)
        out['majflt / MIN+PF'] = ratio_cell(maj, pf.lower)
    if win:
        out['MIN+window'] = str(win.upper)
    return out


def min_table(columns, results, frames, frames_what, oracle, usable_bytes=None):
    """Lines of the MIN table under a script's table: the kernel's mean
    majflt per column, then table_rows(), then a note per column left out."""
    from . import tables
    rows, notes = table_rows(columns, results, frames, oracle, usable_bytes)
    maj = []
    for col in columns:
        ms = [x['majflt'] for x in results if x.get('column') == col and isinstance(x.get('majflt'), int)]
        maj.append('%.0f' % (sum(ms) / len(ms)) if ms else '-')
    head = ('MIN (tools/min): %d frames (%s); major faults = re-faults, reads from swap; '
            'MIN+PF: k pages per major fault, lower bound or lower-upper; MIN+window: k-page '
            'aligned blocks' % (frames, frames_what))
    return [head] + tables.render(columns, [('majflt', maj)] + rows, name_width=16) + \
        ['  no MIN for %s' % n for n in notes]


def summary_fields(col, results, frames, oracle, usable_bytes=None):
    """The MIN columns of a summary.csv row (empty strings when not done)."""
    rows, _ = table_rows([col], [x for x in results if x.get('column') == col], frames, oracle, usable_bytes)
    got = {name: cells[0] for name, cells in rows}

    def val(name):
        v = got.get(name, '-')
        return '' if v in ('-', '?') else v
    pf = val('MIN+PF major').split('-')
    return {'min_frames': frames, 'min_major': val('MIN major'), 'lru_major': val('LRU major'),
            'majflt_over_min': val('majflt / MIN'), 'pswpin_over_min': val('pswpin / MIN'),
            'ra_pages': val('RA pages k'), 'min_pf_lower': pf[0], 'min_pf_upper': pf[-1],
            'majflt_over_min_pf': val('majflt / MIN+PF'), 'min_window_major': val('MIN+window')}


SUMMARY_FIELDS = ['min_frames', 'min_major', 'lru_major', 'majflt_over_min', 'pswpin_over_min', 'ra_pages',
                  'min_pf_lower', 'min_pf_upper', 'majflt_over_min_pf', 'min_window_major']


# ------------------------------------------------------------ command line

def report(a, what, frames_what):
    lines = ['min: %s: %d accesses (runs of one page collapsed), %d pages (%.1f MiB)'
             % (what, a.accesses, a.pages, a.pages / 256.0),
             'min: %d frames (%.1f MiB)%s' % (a.frames, a.frames / 256.0,
                                              ': ' + frames_what if frames_what else ''),
             '%-8s %10s %11s %10s' % ('policy', 'faults', 'compulsory', 'major'),
             '%-8s %10d %11d %10d' % ('MIN', a.min.faults, a.min.compulsory, a.min.major),
             '%-8s %10d %11d %10d' % ('LRU', a.lru.faults, a.lru.compulsory, a.lru.major)]
    for k, pf in sorted(a.prefetch.items()):
        lines.append('MIN+PF k=%d: major faults >= %d (MIN major / %d), <= %d (greedy: %d faults, '
                     '%d pages read ahead)' % (k, pf.lower, k, pf.upper, pf.greedy, pf.reads))
        w = a.window[k]
        lines.append('MIN+window k=%d: %d major faults (greedy from each fault\'s aligned %d-page block: '
                     '%d faults, %d pages read ahead)' % (k, w.upper, k, w.greedy, w.reads))
    return lines


def as_json(a, what):
    return json.dumps({'type': 'min', 'what': what, 'accesses': a.accesses, 'pages': a.pages,
                       'frames': a.frames, 'min': a.min._asdict(), 'lru': a.lru._asdict(),
                       'prefetch': [p._asdict() for _, p in sorted(a.prefetch.items())],
                       'window': [w._asdict() for _, w in sorted(a.window.items())]},
                      separators=(',', ':'))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='\n\n'.join(__doc__.split('\n\n')[1:]))
    ap.add_argument('command', nargs=argparse.REMAINDER, metavar='WORKLOAD ARGS',
                    help="a workload command line, e.g. touch 72 40000 seq anon")
    ap.add_argument('--trace', help='a trace file (MM_TRACE=FILE) instead of a command')
    ap.add_argument('--frames', type=int, help='frames to simulate')
    ap.add_argument('--log', help='serial log or results file: frames = free_frames at the start')
    ap.add_argument('--prefetch', type=int, action='append', default=[], metavar='K',
                    help='also MIN with prefetch, K pages per major fault (repeatable)')
    ap.add_argument('--build', default='build', help='where workloads/ is (default build)')
    ap.add_argument('--json', action='store_true', help='print one JSON line instead of the table')
    a = ap.parse_args(argv)
    if bool(a.trace) == bool(a.command):
        ap.error('give either a workload command line or --trace FILE')
    if (a.frames is None) == (a.log is None):
        ap.error('give either --frames N or --log FILE')
    for k in a.prefetch:
        if k < 2:
            ap.error('--prefetch %d: must be at least 2 pages' % k)
    if a.frames is not None:
        if a.frames < 1:
            ap.error('--frames %d: must be at least 1' % a.frames)
        frames, frames_what = a.frames, ''
    else:
        try:
            frames, frames_what = log_frames(a.log)
        except ValueError as e:
            ap.error('--log %s' % e)
        frames_what += ', ' + a.log
    try:
        if a.trace:
            pages, what = read_trace(a.trace), a.trace
        else:
            pages, what = trace_command(a.command, a.build), ' '.join(a.command)
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
        print('min: %s' % e, file=sys.stderr)
        return 1
    res = analyse(pages, frames, a.prefetch)
    print(as_json(res, what) if a.json else '\n'.join(report(res, what, frames_what)))
    return 0
