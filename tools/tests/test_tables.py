from mmtools import stats, tables


def test_pm():
    assert tables.pm(650, 50) == '650\u00b150'
    assert tables.pm(650.25, None, 1) == '650.2'
    assert tables.pm(None, 3) == 'n/a'
    assert tables.pm(0.5, 0.25, 2) == '0.50\u00b10.25'


def test_cell_spread_only_with_two_values():
    assert tables.cell(stats.summary([]), 0) == 'n/a'
    assert tables.cell(stats.summary([5]), 1) == '5.0'
    assert tables.cell(stats.summary([600, 700]), 0, 'stderr') == '650\u00b150'
    assert tables.cell(stats.summary([600, 700]), 0) == '650\u00b171'


def test_render_widths_and_alignment():
    lines = tables.render(['RA=3', 'own'], [('runs', ['2', '1']), ('real time', ['650\u00b150', '9'])])
    # Each column: its widest cell + 2; the row names in 14 columns.
    assert lines == ['              ' + '    RA=3' + '  own',
                     'runs          ' + '       2' + '    1',
                     'real time     ' + '  650\u00b150' + '    9']


def test_render_fixed_width():
    lines = tables.render(['a'], [('x', ['1'])], name_width=4, width=5)
    assert lines == ['        a', 'x       1']


def test_render_ragged_rows_padded_not_cut():
    lines = tables.render(['a'], [('x', ['1', '2']), ('y', [])])
    assert lines[0].split() == ['a', '?']
    assert lines[1].split() == ['x', '1', '2']
    assert lines[2].split() == ['y', '?', '?']
