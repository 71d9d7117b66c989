"""tools/prof: where kernel CPU time went, from the profiler's records
(boot with prof=on; README, "Where kernel time goes").

    tools/prof LOG... [--label TEXT] [--top N] [--vs LOG...]
               [--callees FN | --callers FN]

Reads the {"type":"prof"} records in the console logs (or JSON-lines
files) given and averages them per label over the records found (one
per run: several runs of one command average out the sampling noise),
every label but "halt".  --label TEXT keeps only the records whose
label contains TEXT and averages them all as one, under TEXT: runs of
one pattern with different seeds (touch's seed ends its command line).  Prints, per label, the run's samples by kind (user,
kernel in a task, kernel threads, interrupt handlers, idle) in ms of CPU, then the functions
by "total" (the function or anything it called, on the interrupted
stack) and "self" (the function itself), in ms per run.

--vs LOG...: a second set of logs (another policy, build or knob),
matched by label; the table then shows both and the difference in total
time, sorted by it, so what one configuration spends more on comes
first.  Records list each run's top 100 functions only, and say how
many samples the largest one left off had (self_cut, total_cut): a
function below the list in some run counts 0 there, its mean is a
floor, and the table marks it with a "+" (at most that run's cut more).

--callees FN: instead of the function table, what FN's time went to:
each function FN called directly, with the samples that had it under
FN on the stack (its time called from FN, its own callees included),
from the "prof_edges" records (caller-callee pairs, each once per
sample; the top 200 per run, edges_cut as above).  --callers FN: who
called FN, with FN's time under each.  With --vs, both and the
difference, sorted by it.
"""
import argparse
import sys

from mmtools.records import parse_records, of_type
from mmtools.tables import render

KINDS = ('user', 'kernel_task', 'kernel_thread', 'kernel_irq', 'idle')


def read_logs(paths):
    """Every prof record of the logs, in order; (records, problems)."""
    recs, problems = [], []
    for p in paths:
        try:
            with open(p, errors='replace') as f:
                text = f.read()
        except OSError as e:
            problems.append('%s: %s' % (p, e.strerror))
            continue
        got = [r for r in parse_records(text) if r.get('type') in ('prof', 'prof_edges')]
        if not any(r['type'] == 'prof' for r in got):
            problems.append('%s: no prof records (was it booted with prof=on?)' % p)
        recs += got
    return recs, problems


def summarise(recs, label=None):
    """{label: summary} of records averaged per label: 'runs', 'hz', ms
    per run for each of KINDS, and 'total'/'self' dicts of fn -> ms per
    run.  label: keep labels containing it, all averaged under it (None:
    every label but "halt", each its own)."""
    out = {}
    period = {}             # label -> ms a sample stood for in its last prof record
    for r in recs:
        lab = r.get('label', '')
        if (label is None and lab == 'halt') or (label is not None and label not in lab):
            continue
        if r.get('type') == 'prof_edges':
            # The edges of the prof record just before it (same label).
            s = out.get(lab if label is None else label)
            if s is None or lab not in period:
                continue
            s['edge_runs'] += 1
            for e in r.get('edges', []):
                key = (e['from'], e['to'])
                s['edges'][key] = s['edges'].get(key, 0.0) + e['n'] * period[lab]
            if r.get('edges_cut'):
                s['cut']['edges'].append({(e['from'], e['to']) for e in r.get('edges', [])})
            continue
        hz = r.get('hz') or 1000
        s = out.setdefault(lab if label is None else label, {'runs': 0, 'hz': hz, 'source': r.get('source', 'tick'),
                                                            'total': {}, 'self': {}, 'edges': {}, 'edge_runs': 0,
                                                            'cut': {'total': [], 'self': [], 'edges': []},
                                                            **{k: 0.0 for k in KINDS}})
        s['runs'] += 1
        # What one sample stands for: the NMI clock's period as it fired
        # (late NMIs stretch it), else the tick's.
        ms = r['period_ns'] / 1e6 if r.get('period_ns') else 1000.0 / hz
        period[lab] = ms
        for k in KINDS:
            s[k] += r.get(k, 0) * ms
        for key in ('total', 'self'):
            for e in r.get(key, []):
                s[key][e['fn']] = s[key].get(e['fn'], 0.0) + e['n'] * ms
            # Which functions this run listed, if it left any off.
            if r.get(key + '_cut'):
                s['cut'][key].append({e['fn'] for e in r.get(key, [])})
    for s in out.values():
        n = s['runs']
        for k in KINDS:
            s[k] /= n
        for key in ('total', 'self'):
            s[key] = {fn: v / n for fn, v in s[key].items()}
        s['edges'] = {k: v / s['edge_runs'] for k, v in s['edges'].items()} if s['edge_runs'] else {}
    return out


def value(s, key, fn):
    """fn's (or an edge's) ms per run under key ('total', 'self', 'edges'),
    "+" marked when some run's list left it off (it had at most that run's
    cut there: a floor)."""
    v = '%.1f' % s[key].get(fn, 0)
    return v + '+' if any(fn not in listed for listed in s['cut'][key]) else v


def head_line(name, s):
    return ('%s: %d run(s) at %d Hz (%s); ms per run: user %.1f, kernel in tasks %.1f, kernel threads %.1f, '
            'interrupts %.1f, idle %.1f') % (
        name, s['runs'], s['hz'], s['source'], s['user'], s['kernel_task'], s['kernel_thread'], s['kernel_irq'], s['idle'])


def table(a, b=None, top=30):
    """Lines of the function table for summary a (and b, --vs)."""
    fns = set(a['total']) | set(a['self'])
    if b is None:
        order = sorted(fns, key=lambda f: (-a['total'].get(f, 0), f))[:top]
        rows = [(f, [value(a, 'total', f), value(a, 'self', f)]) for f in order]
        return render(['total ms', 'self ms'], rows, name_width=max([24] + [len(f) + 1 for f in order])) + \
            footnote(rows)
    fns |= set(b['total']) | set(b['self'])

    def diff(f):
        return a['total'].get(f, 0) - b['total'].get(f, 0)
    order = sorted(fns, key=lambda f: (-abs(diff(f)), f))[:top]
    rows = [(f, [value(a, 'total', f), value(a, 'self', f), value(b, 'total', f), value(b, 'self', f),
                 '%+.1f' % diff(f)]) for f in order]
    return render(['total', 'self', 'vs total', 'vs self', 'diff'], rows,
                  name_width=max([24] + [len(f) + 1 for f in order])) + footnote(rows)


def edge_table(a, b, fn, callers, top=30):
    """Lines of fn's callees (or callers) table for summary a (and b)."""
    def key(x):
        return (x, fn) if callers else (fn, x)

    def others(s):
        return {f if callers else t for f, t in s['edges'] if (t if callers else f) == fn}
    names = others(a) | (others(b) if b is not None else set())
    if not names:
        return ['(no edges %s %s in the records%s)' % ('to' if callers else 'from', fn,
                                                        '' if a['edge_runs'] else ': none has prof_edges')]

    def ms(s, x):
        return s['edges'].get(key(x), 0)
    title = '%s %s' % ('callers of' if callers else 'called by', fn)
    if b is None:
        order = sorted(names, key=lambda x: (-ms(a, x), x))[:top]
        rows = [(x, [value(a, 'edges', key(x))]) for x in order]
        return [title + ' (ms per run with it on the stack there)'] + \
            render(['ms'], rows, name_width=max([24] + [len(x) + 1 for x in order])) + footnote(rows)

    def diff(x):
        return ms(a, x) - ms(b, x)
    order = sorted(names, key=lambda x: (-abs(diff(x)), x))[:top]
    rows = [(x, [value(a, 'edges', key(x)), value(b, 'edges', key(x)), '%+.1f' % diff(x)]) for x in order]
    return [title + ' (ms per run with it on the stack there)'] + \
        render(['ms', 'vs ms', 'diff'], rows, name_width=max([24] + [len(x) + 1 for x in order])) + footnote(rows)


def footnote(rows):
    if any(c.endswith('+') for _, cells in rows for c in cells):
        return ['+: left off some run\'s record (below its top list): a floor']
    return []


def main(argv=None):
    ap = argparse.ArgumentParser(prog='tools/prof', description='where kernel CPU time went (prof=on records)')
    ap.add_argument('logs', nargs='+', help='console logs or JSON-lines files with prof records')
    ap.add_argument('--label', default=None, help='only records whose label contains this (default: all but halt)')
    ap.add_argument('--top', type=int, default=30, help='functions to show (default 30)')
    ap.add_argument('--vs', nargs='+', default=None, metavar='LOG', help='logs to compare against, by label')
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--callees', metavar='FN', help="what FN's time went to: the functions it called, their time under it")
    g.add_argument('--callers', metavar='FN', help="who called FN, with FN's time under each")
    a = ap.parse_args(argv)
    if a.top < 1:
        ap.error('--top %d: must be at least 1' % a.top)
    recs, problems = read_logs(a.logs)
    vs = None
    if a.vs:
        vrecs, vproblems = read_logs(a.vs)
        problems += vproblems
        vs = summarise(vrecs, a.label)
    for p in problems:
        print('prof: ' + p, file=sys.stderr)
    sums = summarise(recs, a.label)
    if not sums:
        print('prof: no prof records%s' % (' with a label containing %r' % a.label if a.label else ''),
              file=sys.stderr)
        return 1
    for lab, s in sums.items():
        print(head_line(lab, s))
        other = None
        if vs is not None:
            other = vs.get(lab)
            if other is None:
                print('  (no record with this label in the --vs logs)')
            else:
                print(head_line('vs', other))
        if a.callees or a.callers:
            lines = edge_table(s, other, a.callees or a.callers, bool(a.callers), a.top)
        else:
            lines = table(s, other, a.top)
        for line in lines:
            print('  ' + line)
        print()
    return 0
