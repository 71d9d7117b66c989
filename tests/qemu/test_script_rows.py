"""`row PROGRAM.FIELD` in workload scripts (issue 13, seed 003): a
workload's own figure, shmdb's transactions/s, as a row of the result
table, mean±stderr over each column's runs, with the per-run values in the
result records."""
import re

from rig import expect, expect_ok, expect_in_log, one_record, swap_image, script_text_image

# Two columns, shmdb twice in each: 16 MiB fits in 48 MiB; 64 MiB does not
# (shmem to swap), so its transactions are fewer.  touch.pages_touched
# names a program that never runs; tps_series is a string, not a figure.
SCRIPT = '''mem 48M
swap auto
row shmdb.tps
row shmdb.transactions
row touch.pages_touched
row shmdb.tps_series
column "fits"
repeat 2
    run shmdb 16 2
end
column "swaps"
repeat 2
    run shmdb 64 2
end
'''


def cell(table, row, col):
    r = [x for x in table['rows'] if x['name'] == row]
    expect(len(r) == 1, 'row %s in the table record: %r' % (row, [x['name'] for x in table['rows']]))
    return r[0]['cells'][col]


def test_script_rows_shmdb_tps(ctx):
    img = script_text_image(ctx, SCRIPT, programs=('shmdb',), cmdline='quiet mem=48M swapcrc=on')
    r = ctx.boot(None, image=img, disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=600)
    expect_ok(r)
    res = r.find('result')
    expect(len(res) == 4 and all(x['failed'] == 0 and x['mismatches'] == 0 for x in res),
           'results %r' % [(x['column'], x['failed'], x['mismatches']) for x in res])
    recs = [w for w in r.find('workload') if w['name'] == 'shmdb']
    expect(len(recs) == 4, 'shmdb records %d' % len(recs))
    # Each result record carries its unit's values: the workload's own.
    for x, w in zip(res, recs):
        expect(x['rows']['shmdb.tps'] == w['tps'] and x['rows']['shmdb.transactions'] == w['transactions'],
               'result rows %r, record tps %r transactions %r' % (x['rows'], w['tps'], w['transactions']))
        expect(x['rows']['touch.pages_touched'] is None and x['rows']['shmdb.tps_series'] is None,
               'rows with no figure should be null: %r' % x['rows'])
        expect(w['tps'] > 0 and w['transactions'] >= w['tps'], 'shmdb figures %r' % w)
    t = one_record(r, 'table')
    for c, (a, b) in enumerate([(recs[0], recs[1]), (recs[2], recs[3])]):
        for field in ('tps', 'transactions'):
            x = cell(t, 'shmdb.' + field, c)
            mean = (a[field] + b[field]) / 2
            sd = abs(a[field] - b[field]) / 2 ** 0.5
            expect(x['n'] == 2 and abs(x['mean'] - mean) <= 0.01 and abs(x['sd'] - sd) <= 0.01,
                   'column %d %s: cell %r, records %d and %d' % (c, field, x, a[field], b[field]))
        expect(cell(t, 'touch.pages_touched', c)['n'] == 0 and cell(t, 'shmdb.tps_series', c)['n'] == 0,
               'empty rows have values: %r' % t['rows'])
    # The printed table has the rows, aligned with the kernel's.
    lines = r.log.splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith('script scripts/bad.mm: mean')]
    expect(len(i) == 1, 'no printed table')
    body = lines[i[0] + 1:i[0] + 3 + len(t['rows'])]      # labels, runs, the rows
    tps = [l for l in body if l.startswith('shmdb.tps ')]
    expect(len(tps) == 1 and re.search(r'\d\xb1\d', tps[0]), 'printed row %r' % tps)
    expect(len({len(l.rstrip('\r')) for l in body}) == 1, 'table lines not aligned:\n%s' % '\n'.join(body))
    # What cannot be shown is said, once each.
    expect_in_log(r, "scripts/bad.mm:6:5: row shmdb.tps_series: a shmdb record has no unsigned integer field "
                     "'tps_series'; that cell stays empty")
    expect_in_log(r, 'script: scripts/bad.mm:5: row touch.pages_touched: no run printed a touch record with it; '
                     'the row stays empty')
    expect(r.log.count('row shmdb.tps_series:') == 1, 'the tps_series note is not said once')
