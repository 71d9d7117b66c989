"""The rig itself, without QEMU: Ctx.boot boots once more when QEMU (not
the guest) crashed, and only then."""
import os
import signal
import warnings

import qemurig
import rig


def fake_runs(monkeypatch, results):
    calls = []

    def run(image, log_path=None, **kw):
        r = results[len(calls)]
        calls.append(log_path)
        with open(log_path, 'w') as f:
            f.write('boot %d\n' % len(calls))
        return r
    monkeypatch.setattr(qemurig, 'run', run)
    return calls


def result(rc, halted=False, timed_out=False):
    return qemurig.Result(rc, '', [{'type': 'halt', 'status': 'ok'}] if halted else [], timed_out, 1.0)


def test_boot_again_after_a_qemu_crash(monkeypatch, tmp_path):
    c = rig.Ctx(str(tmp_path), str(tmp_path), 'case')
    calls = fake_runs(monkeypatch, [result(-signal.SIGSEGV), result(0, halted=True)])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        r = c.boot('quiet', direct={'kernel': 'k'})
    assert len(calls) == 2 and r.status == 'ok'
    assert any('signal 11' in str(x.message) for x in w)
    assert open(c.path('log.qemu-crash')).read() == 'boot 1\n'
    assert c.runs == [(c.path('log'), r)]


def test_second_crash_and_guest_verdicts_stand(monkeypatch, tmp_path):
    c = rig.Ctx(str(tmp_path), str(tmp_path), 'case')
    # Two crashes: the second is the result (the case then fails as usual).
    calls = fake_runs(monkeypatch, [result(-signal.SIGABRT), result(-signal.SIGSEGV), result(0)])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r = c.boot('quiet', direct={'kernel': 'k'})
    assert len(calls) == 2 and r.rc == -signal.SIGSEGV and r.status != 'ok'
    # A timeout (the rig's own kill), a panic halt and QEMU's error exit
    # are the guest's or the setup's: no second boot.
    for first in (result(-signal.SIGKILL, timed_out=True), result(-signal.SIGSEGV, halted=True), result(1)):
        calls = fake_runs(monkeypatch, [first, result(0, halted=True)])
        c.boot('quiet', direct={'kernel': 'k'})
        assert len(calls) == 1
