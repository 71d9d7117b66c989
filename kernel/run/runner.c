/*
 * The run= runner: compiles the command line's run= value into a script
 * program (script_compile_run, pure) and hands it to the script executor
 * (script_run.c), so run= and scripts share one runner and one set of
 * errors.  A bad step or part is reported and left out; the rest runs.
 * Runs in the calling thread (kmain), which blocks while programs run.
 */
#include "runner.h"
#include "script.h"
#include "core/console.h"
#include "lib/errno.h"
#include "mem/kmalloc.h"

static void compile_error(void *ctx, int step, int col, const char *msg)
{
	(void)ctx;
	script_report_error("run=", step, col, "parse", msg);
}

int runner_run(const char *spec)
{
	struct script *s = kzalloc(sizeof *s);
	if (!s) {
		kprintf("run=: out of memory; nothing runs\n");
		return -ENOMEM;
	}
	script_compile_run(spec, s, compile_error, NULL);
	int failed = script_execute(s, 0);
	kfree(s);
	return failed;
}
