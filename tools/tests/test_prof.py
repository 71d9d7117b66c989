"""tools/prof: prof records averaged per label over logs, the halt
record left out by default, --vs sorted by the difference, and the
errors a user meets (a log without records, a label nobody has)."""
import json

from mmtools import prof


def rec(label, hz=1000, total=(), self_=(), **kinds):
    r = {'type': 'prof', 'label': label, 'hz': hz, 'samples': sum(kinds.values())}
    r.update({k: kinds.get(k, 0) for k in prof.KINDS})
    r['unknown'] = 0
    r['total'] = [{'fn': f, 'n': n} for f, n in total]
    r['self'] = [{'fn': f, 'n': n} for f, n in self_]
    return r


def write_log(tmp_path, name, recs):
    p = tmp_path / name
    # Console noise before and between records, as a serial log has.
    p.write_text('mmkernel starting\n' + ''.join('noise ' + json.dumps(r) + '\n' for r in recs) + 'bye\n')
    return str(p)


def test_records_average_per_label(tmp_path):
    a = write_log(tmp_path, 'a.log', [rec('touch 1', hz=2000, total=[('vm_fault', 40), ('evict', 10)],
                                          self_=[('evict', 10)], kernel_task=50, user=4),
                                      rec('halt', total=[('idle_loop', 99)], idle=99)])
    b = write_log(tmp_path, 'b.log', [rec('touch 1', hz=2000, total=[('vm_fault', 20)], kernel_task=20)])
    recs, problems = prof.read_logs([a, b])
    assert problems == []
    s = prof.summarise(recs)
    assert list(s) == ['touch 1']            # halt left out
    t = s['touch 1']
    assert t['runs'] == 2 and t['hz'] == 2000
    assert t['kernel_task'] == (50 + 20) / 2 / 2 and t['user'] == 4 / 2 / 2      # ms per run at 2000 Hz
    assert t['total'] == {'vm_fault': 15.0, 'evict': 2.5}     # evict below b's top list: counts 0 there
    assert prof.summarise(recs, 'halt')['halt']['idle'] == 99.0
    # --label averages every matching record as one (seeds of a pattern).
    seeds = [rec('touch 72 seq anon %d' % s, total=[('vm_fault', n)], kernel_task=n) for s, n in ((1, 10), (2, 30))]
    m = prof.summarise(seeds, 'seq anon')
    assert list(m) == ['seq anon'] and m['seq anon']['runs'] == 2 and m['seq anon']['total'] == {'vm_fault': 20.0}


def test_vs_sorts_by_difference(tmp_path, capsys):
    a = write_log(tmp_path, 'own.log', [rec('t', total=[('read_plan', 50), ('shrink', 30), ('kswapd', 5)],
                                            kernel_task=80)])
    b = write_log(tmp_path, 'off.log', [rec('t', total=[('shrink', 28), ('kswapd', 25)], kernel_task=50)])
    assert prof.main([a, '--vs', b, '--top', '2']) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [l.split() for l in out if l.startswith('  ') and not l.strip().startswith('total')]
    assert [r[0] for r in rows] == ['read_plan', 'kswapd']      # +50, -20; shrink's +2 cut by --top
    assert rows[0][-1] == '+50.0' and rows[1][-1] == '-20.0'


def test_problems_are_named(tmp_path, capsys):
    empty = tmp_path / 'empty.log'
    empty.write_text('no records here\n')
    assert prof.main([str(empty), str(tmp_path / 'missing.log')]) == 1
    err = capsys.readouterr().err
    assert 'empty.log: no prof records (was it booted with prof=on?)' in err
    assert 'missing.log: No such file or directory' in err
    a = write_log(tmp_path, 'a.log', [rec('touch', total=[('f', 1)], kernel_task=1)])
    assert prof.main([a, '--label', 'shmdb']) == 1
    assert "no prof records with a label containing 'shmdb'" in capsys.readouterr().err


def test_nmi_records_count_their_real_period(tmp_path, capsys):
    # The NMI clock's record says what a sample stood for (period_ns: the
    # PIT's count plus the NMI's latency), and its interrupt handlers.
    r = rec('t', hz=2000, total=[('evict', 100)], kernel_task=100, kernel_irq=10)
    r['source'], r['period_ns'] = 'nmi', 520000
    a = write_log(tmp_path, 'a.log', [r])
    s = prof.summarise(prof.read_logs([a])[0])['t']
    assert s['source'] == 'nmi' and abs(s['kernel_task'] - 52.0) < 1e-9 and abs(s['kernel_irq'] - 5.2) < 1e-9
    assert abs(s['total']['evict'] - 52.0) < 1e-9
    assert prof.main([a]) == 0
    out = capsys.readouterr().out
    assert '(nmi)' in out and 'interrupts 5.2' in out


def test_functions_left_off_a_record_are_marked_floors(tmp_path, capsys):
    # A record lists its top functions and the samples of the largest it
    # left off (total_cut): a function missing there is a floor, "+".
    a = rec('t', total=[('read_plan', 50), ('shrink', 30)], kernel_task=80)
    a['total_cut'] = 4
    b = rec('t', total=[('shrink', 28), ('pt_leaf', 9)], kernel_task=50)
    b['total_cut'] = 0                          # b left nothing off: its 0s are real
    pa, pb = write_log(tmp_path, 'a.log', [a]), write_log(tmp_path, 'b.log', [b])
    sa = prof.summarise(prof.read_logs([pa])[0])['t']
    assert prof.value(sa, 'total', 'pt_leaf') == '0.0+' and prof.value(sa, 'total', 'shrink') == '30.0'
    assert prof.main([pa, '--vs', pb]) == 0
    out = capsys.readouterr().out.splitlines()
    row = {l.split()[0]: l.split()[1:] for l in out if l.startswith('  ') and l.split()[0] in ('pt_leaf', 'read_plan')}
    assert row['pt_leaf'][0] == '0.0+' and row['pt_leaf'][2] == '9.0'
    assert row['read_plan'][2] == '0.0'        # b's list was whole
    assert any('a floor' in l for l in out)
    assert prof.main([pb]) == 0
    assert 'a floor' not in capsys.readouterr().out


def edges(label, pairs, cut=0):
    return {'type': 'prof_edges', 'label': label, 'edges': [{'from': f, 'to': t, 'n': n} for f, t, n in pairs],
            'edges_cut': cut, 'edges_lost': 0}


def test_callees_and_callers_come_from_the_edges(tmp_path, capsys):
    # Each run's prof_edges record follows its prof record and counts in
    # that record's period; --callees FN lists what FN called, --callers
    # who called FN, with --vs the difference; floors marked as above.
    r1 = rec('t', hz=2000, total=[('swapin_anon', 80)], kernel_task=80)
    r2 = rec('t', hz=2000, total=[('swapin_anon', 40)], kernel_task=40)
    a = write_log(tmp_path, 'own.log', [r1, edges('t', [('swapin_anon', 'read_plan', 60), ('swapin_anon', 'get_locked', 20),
                                                         ('vm_fault', 'swapin_anon', 80)]),
                                        r2, edges('t', [('swapin_anon', 'read_plan', 20), ('vm_fault', 'swapin_anon', 40)], cut=3)])
    b = write_log(tmp_path, 'fixed.log', [rec('t', total=[('swapin_anon', 30)], kernel_task=30),
                                          edges('t', [('swapin_anon', 'get_locked', 30)])])
    s = prof.summarise(prof.read_logs([a])[0])['t']
    assert s['edge_runs'] == 2
    assert s['edges'][('swapin_anon', 'read_plan')] == (60 + 20) * 0.5 / 2      # ms per run at 2000 Hz
    assert prof.main([a, '--callees', 'swapin_anon']) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {l.split()[0]: l.split()[1:] for l in out if l.startswith('  ') and len(l.split()) == 2}
    assert rows == {'read_plan': ['20.0'], 'get_locked': ['5.0+']}     # get_locked: left off run 2's list
    assert any('called by swapin_anon' in l for l in out)
    assert prof.main([a, '--vs', b, '--callees', 'swapin_anon']) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [l.split() for l in out if l.startswith('  ') and l.split()[0] in ('read_plan', 'get_locked')]
    assert rows == [['get_locked', '5.0+', '30.0', '-25.0'], ['read_plan', '20.0', '0.0', '+20.0']]   # by |diff|
    assert prof.main([a, '--callers', 'swapin_anon']) == 0
    out = capsys.readouterr().out
    assert 'callers of swapin_anon' in out and 'vm_fault' in out and '30.0' in out
    assert prof.main([a, '--callees', 'nothing_like_it']) == 0
    assert '(no edges from nothing_like_it in the records)' in capsys.readouterr().out
