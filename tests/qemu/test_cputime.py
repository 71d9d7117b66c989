"""CPU time accounting at the user/kernel boundary (kernel/proc/task.c
uacct_enter/uacct_exit against the scheduler's account_switch): eight
tasks that do nothing but system calls share one CPU, so the scheduler
often switches one out right at a boundary.  Under -icount an interrupt
can land on any instruction (rdtsc even ends a translation block), also
between uacct_enter's read of the TSC and its read of the thread's mark;
before the fix the switch moved the mark past that TSC value and the
negative difference became about 110700 s of user time (a seed 003
record's 110708 s).  Each task's user plus system time must fit in its
elapsed time."""
from rig import expect, expect_ok, task_exits

TASKS = 8       # per step; the command line takes 511 characters: two steps of 8 "uperf 1000000 syscalls"


def test_cputime_fits_elapsed_with_preemption_at_syscalls(ctx):
    step = ' & '.join(['uperf 1000000 syscalls'] * TASKS)
    r = ctx.boot('quiet mem=48M run="%s ; %s"' % (step, step), icount=True, timeout=900)
    expect_ok(r)
    e = task_exits(r)
    expect(len(e) == 2 * TASKS and all(x['exit_code'] == 0 for x in e), 'task exits %r' % e)
    for x in e:
        cpu = x['utime_ns'] + x['stime_ns']
        # Eight tasks on one CPU: each ran an eighth of its elapsed time,
        # and was switched out many times (else the case proves nothing).
        # Before the fix, the first step gave one task 110681 s of user
        # time (tsc_hz 999994000).
        expect(x['nivcsw'] >= 20, '%s: only %d involuntary switches' % (x['cmdline'], x['nivcsw']))
        expect(cpu <= x['elapsed_ns'] + 1000000, '%s: user %d ns + system %d ns > elapsed %d ns'
               % (x['cmdline'], x['utime_ns'], x['stime_ns'], x['elapsed_ns']))
