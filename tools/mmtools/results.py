"""Print a results file (results/NNNN.jsonl from a boot's ESP) as tables.

  tools/results FILE.jsonl [--records] [--min [--build DIR]]

The kernel writes every record it prints on the console into the results
file the loader pre-allocated on the ESP (README, "Results file").  This
reads one back: the boot (kernel, git revision, command line, firmware,
CPU), each run's result, the tables of each workload script (drawn by
tools/matrix's render_table, as tools/matrix does when the console lines
are missing), and the file's own trailer: how many bytes of records it
holds and whether the kernel reached halt.  --records also prints the
records themselves, one line each.  --min adds the optimum (tools/min):
each column's workload traced on this host (BUILD/workloads, default
build) and run through Belady's MIN and LRU with the frames free at the
start of the script.  Each table then ends in two rows, `MIN` (MIN's major
faults, i.e. re-faults) and `faults / MIN` (the column's mean majflt over
them), and a detail table under it adds LRU, pswpin / MIN and MIN with
prefetch.

Blank lines are padding (the file keeps its pre-allocated size) and are
skipped.  A line that is not JSON is reported with its line number.
Exit status: 0, or 1 when the file holds no records or a line is broken.
"""
import argparse
import json
import sys


from . import min as mmin
from .matrix import render_table
from .records import read_jsonl


def read_records(path):
    """(records, problems, record_bytes): record_bytes counts the bytes of
    the lines before the trailer, to check it against valid_bytes."""
    return read_jsonl(path, skip_type='results_file')


def boot_line(b):
    return 'boot: mmkernel %s (%s), cmdline "%s", firmware %s, cpu %s, %d MiB usable' % (
        b.get('git'), b.get('build'), b.get('cmdline'), b.get('firmware'), b.get('cpu'),
        (b.get('usable_bytes') or 0) >> 20)


def result_line(r):
    return '  %s #%s: %.1f ms, majflt %s, minflt %s%s' % (
        r.get('column'), r.get('run'), (r.get('elapsed_ns') or 0) / 1e6, r.get('majflt'),
        r.get('minflt'), ', FAILED' if r.get('failed') else '')


def trailer_line(t, nbytes):
    s = 'file: %s, %d of %d bytes hold records' % (t.get('file'), t.get('valid_bytes', 0), t.get('file_bytes', 0))
    if t.get('valid_bytes') != nbytes:
        s += ' (but %d bytes of records were read)' % nbytes
    if t.get('lost_records'):
        s += ', %d records lost (memory buffer full)' % t['lost_records']
    s += ', kernel reached halt' if t.get('final') else ', no halt recorded (power cut, panic or still running)'
    return s


def min_inputs(table, seen):
    """What MIN needs for a table record, from the records before it: the
    script's results, the free frames of the last script start before it
    (its mem_balance comes just before the script record), the boot's
    memory.  (results, frames, frames_what, usable_bytes), or a line
    saying why there is none."""
    script = table.get('script')
    idx = max((i for i, x in enumerate(seen) if x['type'] == 'script' and x.get('script') == script),
              default=0)
    starts = [x for x in seen[:idx + 1] if x['type'] == 'mem_balance']
    got = mmin.start_frames(starts[::-1])
    if got is None:
        return 'MIN: no mem_balance start record before the table of %s: no frame count' % script
    boots = [x for x in seen[:idx + 1] if x['type'] == 'boot']
    usable = boots[-1].get('usable_bytes') if boots else None
    results = [x for x in seen[idx:] if x['type'] == 'result' and x.get('script') == script]
    return results, got[0], got[1], usable


def min_lines(table, seen, oracle):
    """The MIN detail table for a table record (min_inputs)."""
    got = min_inputs(table, seen)
    if isinstance(got, str):
        return [got]
    results, frames, what, usable = got
    return mmin.min_table(table.get('columns', []), results, frames, what, oracle, usable)


def min_rows(table, seen, oracle):
    """The MIN and faults / MIN rows the table itself carries (none when
    there is no frame count: min_lines says why)."""
    got = min_inputs(table, seen)
    if isinstance(got, str):
        return []
    results, frames, _, usable = got
    return mmin.result_rows(table.get('columns', []), results, frames, oracle, usable)


def main():
    ap = argparse.ArgumentParser(description='print a results file as tables')
    ap.add_argument('file')
    ap.add_argument('--records', action='store_true', help='also print every record')
    ap.add_argument('--min', action='store_true', help="MIN and LRU under each table (tools/min)")
    ap.add_argument('--build', default='build', help='where workloads/ is, for --min (default build)')
    a = ap.parse_args()
    try:
        recs, problems, nbytes = read_records(a.file)
    except OSError as e:
        sys.exit('results: %s: %s' % (a.file, e.strerror))
    for p in problems:
        print(p, file=sys.stderr)
    if not recs:
        print('results: %s: no records' % a.file, file=sys.stderr)
        return 1
    for b in (r for r in recs if r['type'] == 'boot'):
        print(boot_line(b))
    oracle = mmin.Oracle(a.build) if a.min else None
    seen = []
    for r in recs:
        seen.append(r)
        if r['type'] == 'script':
            print('script %s' % r.get('script'))
        elif r['type'] == 'result':
            print(result_line(r))
        elif r['type'] == 'script_error':
            print('script error: %s' % r.get('message'))
        elif r['type'] == 'table':
            print()
            print(render_table(r, min_rows(r, seen, oracle) if oracle else ()))
            print()
            if oracle:
                print('\n'.join(min_lines(r, seen, oracle)))
                print()
        elif r['type'] == 'panic':
            print('PANIC: %s' % r.get('reason'))
    if a.records:
        for r in recs:
            print(json.dumps(r, separators=(',', ':')))
    trailers = [r for r in recs if r['type'] == 'results_file']
    print(trailer_line(trailers[-1], nbytes) if trailers else 'file: no results_file trailer (not written by the kernel?)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
