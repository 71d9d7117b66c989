/*
 * The run= runner: splits the spec into steps and programs, spawns, waits.
 * Runs in the calling thread (kmain), which blocks while programs run.
 */
#include <string.h>
#include "runner.h"
#include "core/console.h"
#include "proc/task.h"
#include "core/record.h"
#include "vm/vmstat.h"
#include "swap/swapin.h"
#include "swap/swap.h"
#include "vm/knobs.h"
#include "drivers/blk.h"
#include "script.h"
#include "core/sched.h"
#include "membal.h"

#define MAX_PARALLEL 16

/* Trim blanks at both ends, in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

/* Built-in steps: "@swapoff DEV", "@swapon DEV", "@sleep MS", "@set KNOB
 * VALUE" (knobs.h), parsed by script_builtin_parse (pure, unit-tested).
 * Within a concurrent step they run in order after its programs have
 * started.  Every failure prints one line naming the step. */
static int builtin(char *step)
{
	struct script_builtin b;
	char err[SCRIPT_ERR_MAX];
	if (script_builtin_parse(step, &b, err, sizeof err)) {
		kprintf("run: %s\n", err);
		return 1;
	}
	if (b.op == SCRIPT_SET) {
		if (vm_set_knob(b.a, b.b, err, sizeof err)) {
			kprintf("run: @set: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (b.op == SCRIPT_SLEEP) {
		sleep_ms(b.n);
		return 0;
	}
	if (b.op == SCRIPT_SWAPOFF) {
		int a = swap_area_of(b.a);
		if (a < 0) {
			kprintf("run: @swapoff %s: not a swap area\n", b.a);
			return 1;
		}
		return swapoff(a) ? 1 : 0;
	}
	/* swapon() itself would add the device a second time, as a second
	 * area over the same slots: refuse here, as scripts do. */
	if (swap_area_of(b.a) >= 0) {
		kprintf("run: @swapon %s: already a swap area\n", b.a);
		return 1;
	}
	struct blk_dev *d = blk_find(b.a);
	if (!d) {
		kprintf("run: @swapon %s: no such block device\n", b.a);
		return 1;
	}
	int a = swapon(d, 0, 0);
	if (a < 0)
		kprintf("run: @swapon %s: failed (%d)\n", b.a, a);
	return a < 0;
}

static int run_step(char *step)
{
	struct task *tasks[MAX_PARALLEL];
	char *builtins[MAX_PARALLEL];
	int n = 0, nb = 0, failed = 0;
	for (char *p = step; p;) {
		char *amp = strchr(p, '&');
		if (amp)
			*amp = 0;
		if (n == MAX_PARALLEL || nb == MAX_PARALLEL) {
			kprintf("run: more than %d programs in one step; the rest are skipped\n", MAX_PARALLEL);
			failed++;
			break;
		}
		p = trim(p);
		if (!*p || *p == '@') {
			if (*p)
				builtins[nb++] = p;
			p = amp ? amp + 1 : NULL;
			continue;
		}
		tasks[n] = task_spawn(p, 0);
		if (tasks[n])
			n++;
		else
			failed++;
		p = amp ? amp + 1 : NULL;
	}
	for (int i = 0; i < nb; i++)
		failed += builtin(builtins[i]);
	for (int i = 0; i < n; i++) {
		if (task_wait(tasks[i]))
			failed++;
		task_put(tasks[i]);
	}
	return failed;
}

/* The step's counters, as a vmstat record labelled with the step. */
static void step_record(const char *step, const uint64_t base[VMSTAT_NITEMS])
{
	struct json *j = rec_begin("vmstat");
	json_str(j, "label", step);
	vmstat_json_delta(j, base);
	swapin_latency_json(j, "swapin_latency");
	rec_end();
}

int runner_run(const char *spec)
{
	static char buf[512];
	size_t len = strlen(spec);
	if (len >= sizeof buf)
		len = sizeof buf - 1;
	memcpy(buf, spec, len);
	buf[len] = 0;
	int failed = 0;
	membal_record("start", "run");
	for (char *p = buf; p;) {
		char *semi = strchr(p, ';');
		if (semi)
			*semi = 0;
		uint64_t base[VMSTAT_NITEMS];
		vmstat_snapshot(base);
		swapin_latency_reset();
		char label[128];
		size_t n = strnlen(trim(p), sizeof label - 1);
		memcpy(label, trim(p), n);
		label[n] = 0;
		failed += run_step(p);
		step_record(label, base);
		p = semi ? semi + 1 : NULL;
	}
	membal_record("end", "run");
	return failed;
}
