/*
 * Interrupt-off sections, timed.  A section begins where interrupts go
 * off (irq_save or irq_disable with them on, or an interrupt's entry) and
 * ends where they come back on (irq_restore, irq_enable, the return from
 * an interrupt to code that had them on).  A context switch inside a
 * section is part of it: the CPU could not take interrupts either way.
 * Returns to user mode turn interrupts on without an end; the begin stays
 * stale then, but every end that counts has a fresh begin before it,
 * because interrupts can only be off again through one of the begins.
 *
 * Per CPU: a section begins and ends on one CPU, so each CPU has its own
 * slot, found by the id in its struct cpu (percpu.h) at a fixed %gs
 * offset; slot 0 before the GS base is set up at boot.
 */
#ifndef IRQTRACE_H
#define IRQTRACE_H

#include <stdint.h>
#include <stdbool.h>

struct irqtrace {
	uint64_t since;                 /* TSC at the begin; 0: none open */
	uint64_t since_site;            /* where it began */
	uint64_t max_cycles, max_from, max_to;
	uint64_t sections, over_100us, over_1ms;
	uint64_t last_end, last_cycles, last_from, last_to;     /* the latest closed section */
	uint64_t off_cycles;            /* every closed section's length, summed (never reset) */
};

#define IRQTRACE_CPUS 256
#define IRQTRACE_CPU_ID_OFFSET 60       /* offsetof(struct cpu, id), checked in percpu.h */

extern struct irqtrace irqtrace[IRQTRACE_CPUS];
extern bool irqtrace_gs_ready;          /* set once the boot CPU's GS base is */
/* Lock holds and interrupt-off sections are timed (lockstat=, default
 * on; core/lockstat.h).  Cleared once, at boot, by irqtrace_untime. */
extern bool irqtrace_timing;

/* Whether to time, at each timing edge (an irq_save, a spinlock...): a
 * 5-byte no-op that irqtrace_untime patches into a jump to `off`, as
 * Linux's static keys do, so the edges cost nothing to ask (a load and a
 * branch at every one cost 2% of a swapping run's kernel time). */
static inline __attribute__((always_inline)) bool irqtrace_timed(void)
{
	__asm__ goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
		     ".pushsection .patch_sites, \"a\"\n\t"
		     ".balign 8\n\t"
		     ".quad 1b, %l[off]\n\t"
		     ".popsection"
		     : : : : off);
	return true;
off:
	return false;
}

/* lockstat=off: every timing edge's no-op becomes a jump past its timing.
 * On the boot CPU alone, interrupts off, once the direct map is up and
 * before any other thread, CPU or NMI runs.  Returns the sites patched. */
unsigned irqtrace_untime(void);

/* This CPU's slot.  Interrupts are off at every caller, so it stays ours. */
static inline __attribute__((always_inline)) struct irqtrace *irqtrace_here(void)
{
	uint32_t id = 0;
	if (irqtrace_gs_ready)
		__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(IRQTRACE_CPU_ID_OFFSET));
	return &irqtrace[id < IRQTRACE_CPUS ? id : 0];
}

void irqtrace_end_slow(struct irqtrace *t, uint64_t site, uint64_t now);

static inline __attribute__((always_inline)) void irqtrace_begin(uint64_t site, uint64_t now)
{
	struct irqtrace *t = irqtrace_here();
	t->since = now;
	t->since_site = site;
}

static inline __attribute__((always_inline)) void irqtrace_end(uint64_t site, uint64_t now)
{
	struct irqtrace *t = irqtrace_here();
	if (t->since)
		irqtrace_end_slow(t, site, now);
}

/* Every CPU's figures summed (the longest section is the longest of all). */
void irqtrace_total(struct irqtrace *out);

/* Restart the figures (lockstat_reset); the open section goes on. */
void irqtrace_reset(void);
/* time_init: the TSC rate, for the over-100-us and over-1-ms counts. */
void irqtrace_set_tsc_hz(uint64_t hz);
/* TSC cycles in 100 us and 1 ms; set from the calibrated TSC rate
 * (0 until then: nothing counts as long before time_init). */
extern uint64_t irqtrace_cyc_100us, irqtrace_cyc_1ms;

/* 2 when cycles is over 1 ms, 1 when over 100 us, else 0 (and 0 before
 * the TSC is calibrated); lock holds are counted against the same marks.
 * Inline: every spinlock release asks. */
static inline unsigned irqtrace_long(uint64_t cycles)
{
	if (!irqtrace_cyc_100us || cycles <= irqtrace_cyc_100us)
		return 0;
	return cycles > irqtrace_cyc_1ms ? 2 : 1;
}

#endif
