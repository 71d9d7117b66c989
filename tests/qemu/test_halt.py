"""halt=wait|poweroff|reboot: how a run ends (README: "Kernel command
line", "Output").  QEMU reports the hypervisor bit, so the default here
is poweroff, which every other case relies on."""
import json
import os
import re
import socket
import subprocess
import threading
import time

import qemurig
from rig import expect, expect_ok, expect_in_log, boot_record, expect_panic, hmp_send

PROMPT = 'halt: press any key to power off'


class Qmp(threading.Thread):
    """Collects QMP events (SHUTDOWN says whether the guest reset or
    powered off)."""
    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.events = path, []

    def run(self):
        for _ in range(600):
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.path)
                break
            except OSError:
                time.sleep(0.1)
        else:
            return
        f = s.makefile('rwb')
        f.readline()                            # greeting
        f.write(b'{"execute":"qmp_capabilities"}\n')
        f.flush()
        for line in f:
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if 'event' in m:
                self.events.append(m)


def boot_interactive(ctx, cmdline, on_line=None, timeout=180, extra=()):
    """Boot the default image with cmdline, call on_line(line, proc) for
    each console line; returns (rc, log)."""
    img = qemurig.set_cmdline(ctx.image, cmdline, ctx.outdir)
    cmd = qemurig.qemu_command(img, extra=list(extra))
    # stdin is COM1's input (the rig's -chardev stdio): a pipe nobody
    # writes to unless a case does.
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    lines = []
    try:
        for raw in proc.stdout:
            line = qemurig.ANSI.sub('', raw.decode('utf-8', 'replace'))
            lines.append(line)
            if on_line:
                on_line(line, proc)
        rc = proc.wait()
    finally:
        timer.cancel()
        os.unlink(img)
    log = ''.join(lines)
    with open(ctx.path('log'), 'w') as f:
        f.write(log)
    return rc, log


def wait_then_key(ctx, cmdline, serial=False, extra=()):
    """Boot with halt=wait; once the prompt is out, check QEMU is still up
    a few seconds later, then press a key: through the monitor's sendkey
    (the PS/2 keyboard), or with serial a byte on COM1.  Returns
    (rc, log, still_up)."""
    sock = ctx.path('mon.sock')
    if os.path.exists(sock):
        os.unlink(sock)
    state = {'still_up': None}

    def press(proc):
        if serial:
            proc.stdin.write(b'x')
            proc.stdin.flush()
        else:
            hmp_send(sock, 'sendkey a')

    def on_line(line, proc):
        if PROMPT in line and state['still_up'] is None:
            def later():
                time.sleep(3)
                state['still_up'] = proc.poll() is None
                press(proc)
            threading.Thread(target=later, daemon=True).start()
    rc, log = boot_interactive(ctx, cmdline, on_line,
                               extra=['-monitor', 'unix:%s,server=on,wait=off' % sock] + list(extra))
    return rc, log, state['still_up']


def after(log, first, then):
    i = log.find(first)
    return i >= 0 and log.find(then, i) > i


def test_halt_wait_key_powers_off(ctx):
    rc, log, still_up = wait_then_key(ctx, 'quiet halt=wait')
    r = qemurig.Result(rc, log, qemurig.parse_records(log), False, 0)
    expect_ok(r)
    expect(boot_record(r)['halt'] == 'wait', 'boot record halt=%r' % boot_record(r).get('halt'))
    expect_in_log(r, 'halt: wait at the end and on panic (halt=)')
    expect(after(log, '{"type":"halt","status":"ok"', PROMPT), 'the prompt does not follow the halt record')
    expect(still_up is True, 'QEMU did not stay up after the prompt (still_up=%r)' % still_up)
    expect(after(log, PROMPT, 'halt: key pressed'), 'no "key pressed" after the prompt')


def test_halt_wait_on_panic(ctx):
    rc, log, still_up = wait_then_key(ctx, 'quiet halt=wait test=pagefault')
    r = qemurig.Result(rc, log, qemurig.parse_records(log), False, 0)
    expect_panic(r, 'Page fault (#PF), vector 14')
    expect(after(log, '{"type":"halt","status":"panic"', PROMPT), 'no prompt after the panic')
    expect(still_up is True, 'QEMU did not stay up after the panic prompt (still_up=%r)' % still_up)
    expect(after(log, PROMPT, 'halt: key pressed'), 'no "key pressed" after the prompt')


def test_halt_wait_without_keyboard(ctx):
    # No 8042 (QEMU's FADT then clears IAPC_BOOT_ARCH's 8042 flag): the
    # kernel says so at boot, and a byte on COM1 ends the wait instead.
    rc, log, still_up = wait_then_key(ctx, 'quiet halt=wait', serial=True, extra=['-machine', 'i8042=off'])
    r = qemurig.Result(rc, log, qemurig.parse_records(log), False, 0)
    expect_ok(r)
    expect(re.search(r'^i8042: (the ACPI FADT says there is no PS/2 controller|no PS/2 controller answers)', log,
                     re.M), 'no line saying the keyboard controller is absent')
    expect(still_up is True, 'QEMU did not stay up after the prompt (still_up=%r)' % still_up)
    expect(after(log, PROMPT, 'halt: key pressed'), 'no "key pressed" after the prompt')


def test_halt_reboot_resets(ctx):
    # -no-reboot (the rig's) turns the guest's reset into an exit; QMP's
    # SHUTDOWN event tells a reset from a power-off.
    qmp_path = ctx.path('qmp.sock')
    if os.path.exists(qmp_path):
        os.unlink(qmp_path)
    q = Qmp(qmp_path)
    q.start()
    rc, log = boot_interactive(ctx, 'quiet halt=reboot',
                               extra=['-qmp', 'unix:%s,server=on,wait=off' % qmp_path])
    q.join(5)
    r = qemurig.Result(rc, log, qemurig.parse_records(log), False, 0)
    expect_ok(r)
    expect(boot_record(r)['halt'] == 'reboot', 'boot record halt=%r' % boot_record(r).get('halt'))
    expect_in_log(r, 'halt: all done, rebooting')
    shut = [e for e in q.events if e['event'] == 'SHUTDOWN']
    expect(shut and shut[0]['data'].get('reason') == 'guest-reset', 'QMP events %r' % q.events)


def test_halt_bad_value_keeps_default(ctx):
    r = ctx.boot('quiet halt=foo')
    expect_ok(r)
    expect(re.search(r'^cmdline: halt=foo: expected wait, poweroff or reboot; using the default$', r.log, re.M),
           'no one-line error for halt=foo')
    expect(boot_record(r)['halt'] == 'poweroff', 'default under QEMU should be poweroff: %r' %
           boot_record(r).get('halt'))
    expect_in_log(r, 'halt: poweroff at the end and on panic (default under a hypervisor)')
    expect_in_log(r, 'halt: all done, powering off')
