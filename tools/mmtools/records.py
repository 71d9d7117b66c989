"""JSON records as the kernel prints them: one object per line, starting
{"type":..., possibly after console noise on the same line (a record can
follow firmware output without a newline).  A line that starts a record
but is not valid JSON is kept as {"type": "unparsable", "line": ...}, so
that callers can report a garbled record instead of losing it."""
import json


def parse_records(text):
    """Every record in a console log, in order."""
    recs = []
    for line in text.splitlines():
        i = line.find('{"type":')
        if i < 0:
            continue
        try:
            recs.append(json.loads(line[i:]))
        except ValueError:
            recs.append({'type': 'unparsable', 'line': line})
    return recs


def of_type(records, rtype):
    return [r for r in records if r.get('type') == rtype]


def read_jsonl(path, skip_type=None):
    """(records, problems, record_bytes) of a JSON-lines file such as a
    results file: blank lines (padding) skipped, a broken line reported as
    PATH:LINE.  record_bytes counts the bytes of the lines whose type is
    not skip_type (the results file's trailer checks it)."""
    recs, problems, nbytes = [], [], 0
    with open(path, 'rb') as f:
        for no, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                r = json.loads(raw.decode('utf-8'))
            except (ValueError, UnicodeDecodeError):
                problems.append('%s:%d: not a JSON record: %r' % (path, no, raw[:60]))
                continue
            if not isinstance(r, dict) or 'type' not in r:
                problems.append('%s:%d: not a record (no "type")' % (path, no))
                continue
            if r['type'] != skip_type:
                nbytes += len(raw)
            recs.append(r)
    return recs, problems, nbytes
