"""Command line, run= built-ins, knob ranges and small Linux-ABI cases:
every bad input gives one line naming the option and value, the rest of the
line still applies, the default stays (README: Command line)."""
import re

import pytest

from rig import (expect, expect_ok, expect_in_log, boot_record, task_exits, swap_image,
                   vm_final, script_text_image, check_script_error)


def ran(r, cmdline):
    return [e for e in task_exits(r) if e['cmdline'] == cmdline and e['exit_code'] == 0]


def test_cmdline_stray_quote_keeps_later_options(ctx):
    # The reproducer: a stray quote used to drop everything after it.
    r = ctx.boot('junk" mem=32M run="hello"')
    expect_ok(r)
    expect_in_log(r, "cmdline: column 1: a quote outside a value in 'junk\"'; ignored")
    expect(boot_record(r)['mem_cap_bytes'] == 32 << 20, 'mem=32M after the bad token was lost')
    expect(ran(r, 'hello'), 'run="hello" after the bad token did not run')


def test_cmdline_syntax_errors_each_skip_one_token(ctx):
    # Junk after a quoted value, a value over 511 characters, an
    # unterminated quote: three messages, and mem= and run= after them apply.
    long_value = 'y' * 600
    r = ctx.boot('a="x y"z run=%s b="open mem=40M run=hello' % long_value)
    expect_ok(r)
    expect_in_log(r, "cmdline: column 1: junk after the value in 'a=\"x y\"z'; ignored")
    expect_in_log(r, "cmdline: column 10: value longer than 511 characters in 'run=yyyy")
    expect_in_log(r, "cmdline: column 615: unterminated quote in 'b=\"open'; ignored")
    expect(boot_record(r)['mem_cap_bytes'] == 40 << 20, 'mem=40M after the bad tokens was lost')
    expect(ran(r, 'hello'), 'run=hello after the bad tokens did not run')


def test_cmdline_knob_ranges_keep_defaults_and_swap_works(ctx):
    # Out-of-range knobs used to be taken as given (swap_cluster=100000
    # turned all swap off, then OOM kills) and a bad hz= reset swap_cluster.
    r = ctx.boot('quiet mem=48M hz=5 swap_cluster=100000 reclaim_batch=0 swappiness=300 page_cluster=9 ra=owm '
                 'run="touch 72 20000 seq anon"', disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=600)
    expect_ok(r)
    expect_in_log(r, "cmdline: ra=owm: unknown readahead policy (did you mean own?); using fixed:3")
    expect_in_log(r, "cmdline: hz=5: '5' is not a number in 10..10000; default kept")
    expect_in_log(r, "cmdline: swap_cluster=100000: '100000' is not a power of two in 8..65536; default kept")
    expect_in_log(r, "cmdline: reclaim_batch=0: '0' is not a number in 1..256; default kept")
    expect_in_log(r, "cmdline: swappiness=300: '300' is not a number in 0..200; default kept")
    expect_in_log(r, "cmdline: page_cluster=9: '9' is not a number in 0..8; default kept")
    expect(re.search(r'swap: nvme1n1: \d+ MiB .* cluster 256 slots', r.log), 'swap area not added with cluster 256')
    expect('cannot add area' not in r.log, 'swap area refused')
    e = task_exits(r)
    expect(len(e) == 1 and e[0]['exit_code'] == 0, 'touch: %r' % e)
    v = vm_final(r)
    expect(v['pswpout'] > 1000, 'swap not used: pswpout %d' % v['pswpout'])


def test_cmdline_bad_hz_keeps_swap_cluster_and_dev_cluster_checked(ctx):
    r = ctx.boot('quiet hz=5 swap_cluster=512 swap=nvme1n1:cluster=7 run=hello',
                 disks=[{'file': swap_image(ctx), 'bus': 'nvme'}])
    expect_ok(r)
    expect_in_log(r, "cmdline: hz=5: '5' is not a number in 10..10000; default kept")
    expect_in_log(r, "swap: nvme1n1: cluster=7: '7' is not a power of two in 8..65536; using 512")
    expect(re.search(r'swap: nvme1n1: \d+ MiB .* cluster 512 slots', r.log),
           'swap_cluster=512 lost after the bad hz= (or the area not added)')
    expect(ran(r, 'hello'), 'hello did not run')


def test_cmdline_run_builtins_named_errors(ctx):
    # @sleepy used to run as @sleep; @swapon of nothing printed nothing;
    # @swapon of an active area added it again, over the same slots.
    # run= is compiled into a script program: every error names its step
    # in the script errors' style (run=: step N 'TEXT': ...) and gives a
    # script_error record; a bad step or part is left out, the rest runs,
    # and every step still gives its vmstat record.
    steps = ['@sleepy 5', '@swapon', '@swapon nvme9n9', '@sleep', '@set swappiness 300', '@swapon nvme1n1',
             'helo & hello']
    r = ctx.boot('quiet run="%s"' % ' ; '.join(steps), disks=[{'file': swap_image(ctx), 'bus': 'nvme'}])
    expect_ok(r)
    expect_in_log(r, "run=: step 6 '@swapon nvme1n1': swapon nvme1n1: already a swap area; nothing to do")
    expect(len(re.findall(r'swap: nvme1n1: \d+ MiB', r.log)) == 1, 'nvme1n1 added as a swap area twice')
    expect_in_log(r, "run=: step 1 '@sleepy 5': unknown built-in '@sleepy' (expected @set, @sleep, @swapon, @swapoff, @vmstat or @probe)")
    expect_in_log(r, "run=: step 2 '@swapon': missing argument (usage: @swapon DEV)")
    expect_in_log(r, "run=: step 3 '@swapon nvme9n9': swapon nvme9n9: no such block device")
    expect_in_log(r, "run=: step 4 '@sleep': missing argument (usage: @sleep MS)")
    expect_in_log(r, "run=: step 5 '@set swappiness 300': swappiness: '300' is not a number in 0..200")
    expect_in_log(r, "run=: step 7 'helo & hello': no program 'helo' among the boot files (did you mean hello?)")
    errs = [(x['phase'], x['line']) for x in r.find('script_error') if x['script'] == 'run=']
    expect(errs == [('parse', 1), ('parse', 2), ('parse', 4), ('parse', 5), ('check', 3), ('check', 7)],
           'script_error records (phase, step) %r' % errs)
    expect(ran(r, 'hello'), 'hello after the bad built-ins did not run')
    labels = [x.get('label') for x in r.find('vmstat') if x.get('label') != 'final']
    expect(labels == steps, 'vmstat records per step %r' % labels)


def test_user_syscalls_writev_einval_and_enosys_logged_once(ctx):
    # systest checks writev's -EINVAL/-EFAULT for a bad vector and calls
    # syscalls 500 and 100000 200 times each.
    r = ctx.boot('quiet run="systest"')
    expect_ok(r)
    w = [x for x in r.find('workload') if x['name'] == 'systest']
    expect(w and w[0]['failed'] == 0, 'systest: %r (see the log for FAIL lines)' % w)
    expect('FAIL writev wrote' not in r.log, 'writev wrote part of a vector it refused')
    for nr in (500, 100000):
        n = r.log.count('unknown syscall %d: -ENOSYS' % nr)
        expect(n == 1, 'unknown syscall %d logged %d times, expected once' % (nr, n))


@pytest.mark.quick
def test_script_knob_records_show_swappiness(ctx):
    # swappiness does something since issue 13 (the anon/file balance).
    r = ctx.boot(None, image=script_text_image(ctx, 'set reclaim_batch 32\nset swappiness 100\nrun hello\n'))
    expect_ok(r)
    res = r.find('result')
    expect(res, 'no result record')
    k = res[0]['knobs']
    expect(k.get('swappiness') == '100', 'result record lacks swappiness 100: %r' % k)
    expect(k.get('reclaim_batch') == '32', 'knobs %r' % k)


@pytest.mark.quick
def test_cmdline_sets_run_time_knobs_and_names_typos(ctx):
    # cmdline.txt takes every run-time knob, as `set` would (the knobs
    # with no boot-time setting of their own were refused as unknown
    # before); out of range keeps the default; a typo gets the option it
    # probably meant.  overcommit_memory=2 at 64 MiB (mem_limit_mib=48)
    # with 32 MiB of swap refuses hogmem 70, which the default (0) grants.
    img = script_text_image(ctx, 'swap auto\nrun hogmem 70 1\nrun hello\n', programs=('hogmem', 'hello'),
                            cmdline='quiet mem=64M overcommit_memory=2 dirty_ratio=30 overcomit_ratio=40 '
                                    'dirty_background_ratio=500 dirty_mmap=off mem_limit_mib=48')
    r = ctx.boot(None, image=img, disks=[{'file': swap_image(ctx, mib=32), 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect_in_log(r, "cmdline: unknown option 'overcomit_ratio' ignored (did you mean overcommit_ratio?)")
    expect_in_log(r, "cmdline: dirty_background_ratio=500: '500' is not a number in 0..100; default kept")
    k = r.find('result')[0]['knobs']
    expect(k['overcommit_memory'] == '2' and k['dirty_ratio'] == '30' and k['dirty_mmap'] == 'off' and
           k['dirty_background_ratio'] == '10' and k['overcommit_ratio'] == '50' and k['mem_limit_mib'] == '48',
           'knobs %r' % k)
    # mem_limit_mib=48 holds the rest of the 64 MiB back before anything runs.
    free = [x['free_frames'] for x in r.find('mem_balance') if x['phase'] == 'start']
    expect(free and free[0] <= 48 * 256, 'free frames at the start with mem_limit_mib=48: %r' % free)
    e = task_exits(r)
    expect([(x['name'], x['exit_code']) for x in e] == [('hogmem', 3), ('hello', 0)], 'exits %r' % e)
    expect_in_log(r, 'hogmem: mmap of 70 MiB failed: error 12')


SCRIPT_ERRORS = [
    ('swappiness_out_of_range', 'run hello\nset swappiness 201\n',
     "scripts/bad.mm:2:16: swappiness: '201' is not a number in 0..200"),
    ('knob_out_of_range', 'run hello\nset reclaim_batch 0\n',
     "scripts/bad.mm:2:19: reclaim_batch: '0' is not a number in 1..256"),
    ('swap_cluster_out_of_range', 'swap auto\nrun hello\nset swap_cluster 100000\n',
     "scripts/bad.mm:3:18: swap_cluster: '100000' is not a power of two in 8..65536"),
]


@pytest.mark.parametrize('text, message', [pytest.param(t, m, id=n) for n, t, m in SCRIPT_ERRORS])
def test_script_error(ctx, text, message):
    check_script_error(ctx, text, message)
