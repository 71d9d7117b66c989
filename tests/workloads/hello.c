/*
 * hello.c - the smallest workload: proves exec, argv, write and exit work.
 *
 *   hello [ARGS...]
 *
 * Prints "hello from <argv[0]>", then each argument, then the usual one-line
 * JSON record, and exits 0. The kernel's boot tests run it first: if this
 * fails, nothing bigger will work.
 */
#include "rt/rt.h"

int main(int argc, char **argv, char **envp)
{
	struct rt_json j;

	(void)envp;
	rt_printf("hello from %s\n", argc > 0 ? argv[0] : "(no argv[0])");
	for (int i = 0; i < argc; i++)
		rt_printf("argv[%d] = \"%s\"\n", i, argv[i]);
	rt_report_begin(&j, "hello");
	rt_json_str(&j, "libc", "rt");
	rt_json_u64(&j, "argc", (uint64_t)argc);
	rt_json_u64(&j, "pid", (uint64_t)rt_getpid());
	rt_json_u64(&j, "mismatches", 0);
	return rt_json_end(&j, 1) < 0 ? 3 : 0;
}
