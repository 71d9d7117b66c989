from mmtools import records


def test_parse_after_noise_and_garbled():
    log = ('BdsDxe: loading\n'
           'noise{"type":"boot","usable_bytes":5}\n'
           '{"type":"result","column":"a"\n'
           'plain line\n'
           '{"type":"halt","status":"ok"}\n')
    recs = records.parse_records(log)
    assert [r['type'] for r in recs] == ['boot', 'unparsable', 'halt']
    assert recs[0]['usable_bytes'] == 5
    assert recs[1]['line'] == '{"type":"result","column":"a"'
    assert records.of_type(recs, 'halt') == [{'type': 'halt', 'status': 'ok'}]


def test_read_jsonl(tmp_path):
    p = tmp_path / 'r.jsonl'
    good = b'{"type":"boot"}\n'
    trailer = b'{"type":"results_file","valid_bytes":16}\n'
    p.write_bytes(good + b'\n   \n' + b'not json\n' + b'[1,2]\n' + trailer + b'\n' * 5)
    recs, problems, nbytes = records.read_jsonl(str(p), skip_type='results_file')
    assert [r['type'] for r in recs] == ['boot', 'results_file']
    assert nbytes == len(good)
    assert len(problems) == 2
    assert problems[0].startswith('%s:4: not a JSON record' % p)
    assert problems[1] == '%s:5: not a record (no "type")' % p


def test_rig_and_qemurig_shim_are_one_module():
    import mmtools.rig
    import qemurig
    assert qemurig is mmtools.rig
    assert qemurig.parse_records is records.parse_records
