"""Plain-text tables: right-aligned cells after a left-aligned row name,
and mean±spread cells.  What the tools print to a terminal and to
report.txt; the CSVs carry the full numbers."""


def pm(mean, spread=None, digits=0):
    """'650±50' (spread None: '650'; mean None: 'n/a')."""
    if mean is None:
        return 'n/a'
    s = '%.*f' % (digits, mean)
    return s if spread is None else s + '\u00b1' + '%.*f' % (digits, spread)


def cell(s, digits=0, spread='sd'):
    """A stats.Summary as a cell: no spread for a single value (it has
    none), 'n/a' for no value at all."""
    if not s.n:
        return 'n/a'
    return pm(s.mean, getattr(s, spread) if s.n > 1 else None, digits)


def render(header, rows, name_width=14, width=None):
    """Lines of a table.  header: column titles (without the row-name
    column); rows: (name, [cells]).  width: every column's width (default:
    each column's widest cell + 2).  A ragged row (a record read from a
    file can be one) is padded with '?' cells, and so is the header:
    nothing is cut off."""
    ncol = max([len(header)] + [len(c) for _, c in rows])
    header = list(header) + ['?'] * (ncol - len(header))
    rows = [(name, list(c) + ['?'] * (ncol - len(c))) for name, c in rows]
    if width is None:
        widths = [max([len(header[i])] + [len(c[i]) for _, c in rows]) + 2 for i in range(ncol)]
    else:
        widths = [width] * ncol
    out = ['%-*s' % (name_width, '') + ''.join(h.rjust(w) for h, w in zip(header, widths))]
    for name, cells in rows:
        out.append('%-*s' % (name_width, name) + ''.join(c.rjust(w) for c, w in zip(cells, widths)))
    return out
