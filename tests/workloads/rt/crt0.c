/*
 * crt0.c - process entry for workloads built without libc.
 *
 * The kernel enters _start with %rsp pointing at the System V initial stack:
 *   argc, argv[0..argc-1], NULL, envp[...], NULL, auxv pairs..., AT_NULL.
 * _start passes that pointer to C, aligns %rsp to 16 (the ABI promises it,
 * but a kernel in development might not), and clears %rbp so debuggers see
 * the outermost frame. rt_crt0_main gives the main thread its TCB and runs
 * main; main's return value becomes exit_group's status.
 *
 * The auxiliary vector is not read: the runtime assumes 4 KiB pages and
 * needs nothing else from it. Left out of the musl build, where musl's own
 * startup runs instead.
 */
#include "rt_internal.h"

__asm__(
	".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call rt_crt0_main\n"
	"	hlt\n"
	".size _start, . - _start\n");

_Noreturn void rt_crt0_main(uint64_t *initial_sp)
{
	int argc = (int)initial_sp[0];
	char **argv = (char **)(initial_sp + 1);
	char **envp = argv + argc + 1;

	rt_thread_init_main();
	rt_exit_group(main(argc, argv, envp));
}
