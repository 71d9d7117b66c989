/*
 * System call entry: syscall_init programs the MSRs; syscall_dispatch is
 * called by syscall_entry (arch/x86_64/syscall.asm) with the user frame.
 */
#ifndef SYSCALL_H
#define SYSCALL_H

#include <stdint.h>

struct trap_frame;

void syscall_init(void);
void syscall_dispatch(struct trap_frame *f);
/* Unix time (ns) at time_ns() == 0, for CLOCK_REALTIME. */
void syscall_set_wall_clock(uint64_t unix_ns_at_boot);
uint64_t syscall_boot_wall_ns(void);
void syscall_entry(void);

#endif
