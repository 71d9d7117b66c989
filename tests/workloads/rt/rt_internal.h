/*
 * rt_internal.h - declarations shared between the runtime's own files only.
 *
 * Startup (crt0.c) and threads (rt_thread.c, rt_clone.S) meet here; nothing
 * in this header is for workloads, which include rt.h alone.
 */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include "rt.h"

/* Every rt program's entry point, called by crt0 with envp. */
int main(int argc, char **argv, char **envp);

/* crt0's C half: the initial stack pointer in, exit_group out. */
_Noreturn void rt_crt0_main(uint64_t *initial_sp);

/* Gives the main thread a TCB and points %fs at it (crt0 only). */
void rt_thread_init_main(void);

/*
 * clone(2) with the child running child_sp[0](child_sp[1]) on its new stack
 * and then exit(2). Returns the child's tid to the parent, or -errno.
 */
long rt_clone_raw(unsigned long flags, void *child_sp, volatile int *parent_tid,
		  volatile int *child_tid, void *tls);

#endif /* RT_INTERNAL_H */
