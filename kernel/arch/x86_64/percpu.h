/*
 * Per-CPU data, reached through the GS base (%gs:0 holds the struct's own
 * address).  Every online CPU has one (the boot CPU's in cpu.c, an AP's
 * in smpboot.c) and runs threads.
 *
 * A thread may be preempted and resumed on another CPU between any two
 * instructions unless preemption or interrupts are off, so
 * `this_cpu()->field` (load %gs:0, then the field) can read another
 * CPU's field.  The fields a preemptible thread touches (current,
 * preempt_count) therefore have single-instruction %gs-relative
 * accessors; everything else is read with preemption or interrupts off,
 * or is statistics.
 *
 * The first three fields are used from assembly (syscall entry) at fixed
 * offsets; see the _Static_asserts.
 */
#ifndef PERCPU_H
#define PERCPU_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "irqtrace.h"
#include "tlb.h"

struct thread;

struct cpu_stats {
	uint64_t ctx_switches;
	uint64_t ticks;
	uint64_t irqs;                  /* all device/timer interrupts */
	uint64_t preemptions;           /* switches forced by the timer or a wakeup */
	/* TSC ticks in interrupt handlers (trap.c; the outermost only), and
	 * of those, the ones taken while the idle thread ran: that is
	 * handler work, not idle time, though the switch-based thread
	 * times charge it to idle (sched.c takes it back out). */
	uint64_t irq_tsc;
	uint64_t idle_irq_tsc;
	uint64_t last_tick_ns;          /* an AP's latest tick (time.c) */
};

struct trap_frame;

struct cpu {
	struct cpu *self;               /* %gs:0 */
	uint64_t scratch_rsp;           /* %gs:8: user rsp during syscall entry */
	uint64_t kernel_rsp;            /* %gs:16: top of the current thread's kernel stack */
	struct thread *current;
	struct thread *idle;
	struct thread *prev;            /* the thread just switched away from */
	int preempt_count;              /* > 0: no preemption (spinlock held) */
	int irq_depth;                  /* > 0: inside an interrupt handler */
	volatile bool need_resched;     /* set by this CPU, or by a waker on another before its IPI */
	uint32_t id, apic_id;           /* id: index among online CPUs, 0 = the boot CPU */
	uint64_t slice_end_ns;          /* current thread's time slice ends */
	void *tss;                      /* this CPU's TSS (cpu.c), for the kernel stack on entry */
	/* TLB shootdown (tlb.c): the user page-table root loaded here and the
	 * mask of CPUs that have it loaded, which includes this one. */
	uint64_t loaded_root;
	struct cpumask *loaded_cpus;
	volatile uint32_t tlb_pending;  /* a shootdown request waits for this CPU */
	volatile uint32_t tlb_lazy;     /* a kernel thread runs on loaded_root (tlb.h) */
	volatile uint32_t tlb_stale;    /* a shootdown skipped this lazy CPU: flush before user code */
	struct cpumask tlb_from;        /* [atomic] CPUs whose tlb_req waits for this one */
	struct tlb_request tlb_req;     /* what this CPU asks the others to flush */
	struct cpu_stats stats;
	struct trap_frame *irq_frame;   /* what the innermost interrupt interrupted */
};

_Static_assert(offsetof(struct cpu, scratch_rsp) == 8, "used by syscall entry");
_Static_assert(offsetof(struct cpu, kernel_rsp) == 16, "used by syscall entry");
_Static_assert(offsetof(struct cpu, id) == IRQTRACE_CPU_ID_OFFSET, "irqtrace.h finds the CPU's slot there");

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

/* One instruction each: a preemption between finding the CPU and
 * touching its count would count on the CPU the thread just left. */
static inline void preempt_disable(void)
{
	__asm__ volatile("incl %%gs:%c0" :: "i"(offsetof(struct cpu, preempt_count)) : "memory");
}

static inline void preempt_enable(void)
{
	__asm__ volatile("decl %%gs:%c0" :: "i"(offsetof(struct cpu, preempt_count)) : "memory");
}

/* The thread running on this CPU, read in one instruction (see above). */
static inline struct thread *this_cpu_current(void)
{
	struct thread *t;
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(t) : "i"(offsetof(struct cpu, current)));
	return t;
}

/* Set up the boot CPU's struct and GS base (cpu_init calls it). */
void percpu_init_boot(void);

/* Online CPUs by id (0..percpu_count()-1), for whoever must reach all of
 * them (TLB shootdown).  An AP registers itself once online. */
#define PERCPU_MAX 256
void percpu_register(struct cpu *c);
struct cpu *percpu_get(unsigned id);
unsigned percpu_count(void);

#endif
