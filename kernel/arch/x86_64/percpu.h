/*
 * Per-CPU data, reached through the GS base (%gs:0 holds the struct's own
 * address).  One CPU runs kernel code today (the others are parked, see
 * smpboot.c, each with its own struct cpu and GS base already); everything
 * per-CPU lives here so a second one only needs its own struct cpu.
 *
 * The first three fields are used from assembly (syscall entry) at fixed
 * offsets; see the _Static_asserts.
 */
#ifndef PERCPU_H
#define PERCPU_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

struct thread;

struct cpu_stats {
	uint64_t ctx_switches;
	uint64_t ticks;
	uint64_t irqs;                  /* all device/timer interrupts */
	uint64_t preemptions;           /* switches forced by the timer or a wakeup */
};

struct cpu {
	struct cpu *self;               /* %gs:0 */
	uint64_t scratch_rsp;           /* %gs:8: user rsp during syscall entry */
	uint64_t kernel_rsp;            /* %gs:16: top of the current thread's kernel stack */
	struct thread *current;
	struct thread *idle;
	struct thread *prev;            /* the thread just switched away from */
	int preempt_count;              /* > 0: no preemption (spinlock held) */
	int irq_depth;                  /* > 0: inside an interrupt handler */
	bool need_resched;
	uint32_t id, apic_id;
	uint64_t slice_end_ns;          /* current thread's time slice ends */
	struct cpu_stats stats;
};

_Static_assert(offsetof(struct cpu, scratch_rsp) == 8, "used by syscall entry");
_Static_assert(offsetof(struct cpu, kernel_rsp) == 16, "used by syscall entry");

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

static inline void preempt_disable(void) { this_cpu()->preempt_count++; __asm__ volatile("" ::: "memory"); }
static inline void preempt_enable(void) { __asm__ volatile("" ::: "memory"); this_cpu()->preempt_count--; }

/* Set up the boot CPU's struct and GS base (cpu_init calls it). */
void percpu_init_boot(void);

#endif
