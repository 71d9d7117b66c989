/*
 * TLB shootdown: invalidating a translation on every CPU that may cache
 * it, for changes that take a permission or a page away (unmap, swap-out,
 * mprotect, an accessed bit cleared for reclaim's scan).
 *
 * Who may cache a user address space: each user mm has a cpumask of the
 * CPUs that have its page-table root loaded (tlb_load_root keeps it: a
 * CPU sets its bit before loading a root and clears it after loading
 * another, so a set bit covers every moment the root is in CR3; kernel
 * threads keep the last root loaded, and their CPU stays in the mask).
 * The changer clears or alters the PTE first, then reads the mask (a full
 * fence between): a CPU not in the mask then loads the root later and
 * sees the new PTE.
 *
 * Batching: a tlb_batch collects up to TLB_BATCH_VAS addresses (more
 * turns into a full flush) and the union of their mms' masks; one flush
 * is one IPI round: every other CPU in the union gets VEC_TLB, and the
 * sender waits until each has flushed.  The caller frees or writes out
 * the pages only after tlb_batch_flush returns.
 *
 * A request per sender: each CPU sends from its own slot (struct cpu's
 * tlb_req) and names itself in each target's tlb_from mask, so CPUs
 * shoot down at once without waiting for one another.  No deadlock with
 * interrupts off: a CPU waiting for its acknowledgements, or spinning on
 * a spinlock (spinlock.h calls tlb_poll), serves the requests addressed
 * to it meanwhile.
 *
 * Lazy CPUs.  A CPU that switched from a user thread to a kernel thread
 * or its idle thread keeps that user root loaded (a kernel thread only
 * uses the kernel half; reloading CR3 at every switch to idle and back
 * would cost a TLB refill each time) and so stays in the mm's mask: it
 * used to get every shootdown IPI for that mm, waking from hlt for
 * nothing.  Now such a CPU is marked lazy, and a batch flush skips it
 * after setting its tlb_stale; the CPU flushes everything when it next
 * switches to a user thread (tlb_switch_to).  That is the cheaper of the
 * two correct choices: leaving the mask at the switch to a kernel thread
 * would cost a CR3 load each way on every block and wake-up, while the
 * skip costs one full flush on switch-in, and only after a shootdown
 * actually skipped the CPU.  It is safe because nothing on a lazy CPU
 * reaches user addresses (interrupt handlers and kernel threads work on
 * pages through the direct map) and page tables are only freed with the
 * whole mm, whose tlb_drop_root still goes to every CPU in the mask,
 * lazy or not (a CPU must not keep a freed root, nor cached walks
 * through freed tables); kernel ranges go to every CPU.
 */
#ifndef TLB_H
#define TLB_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/cpumask.h"

#define TLB_BATCH_VAS 32

/* One CPU's request (in its struct cpu), filled before any target is told. */
struct tlb_request {
	uint64_t va[TLB_BATCH_VAS];
	unsigned n;
	bool all;
	uint64_t drop_root;             /* nonzero: load the kernel's root if this is loaded */
	struct cpumask waiting;         /* targets yet to flush (atomic) */
};

struct tlb_batch {
	struct cpumask cpus;            /* union of the mms' masks at add time */
	uint64_t va[TLB_BATCH_VAS];
	unsigned n;
	bool all;                       /* more than TLB_BATCH_VAS: flush everything */
	unsigned pages;                 /* addresses added (for the counters) */
};

/* The VEC_TLB handler; once, on the boot CPU, before APs start. */
void tlb_init(void);
/* Load a user page-table root (cpus: its mm's mask), or the kernel's
 * (root = the kernel PML4, cpus NULL).  Interrupts off. */
void tlb_load_root(uint64_t root, struct cpumask *cpus);
/* The scheduler switches to a thread whose user root is root (cpus: its
 * mm's mask), or to a kernel thread (root 0: whatever is loaded stays,
 * and the CPU turns lazy).  Interrupts off. */
void tlb_switch_to(uint64_t root, struct cpumask *cpus);

static inline void tlb_batch_init(struct tlb_batch *b)
{
	cpumask_clear(&b->cpus);
	b->n = 0;
	b->all = false;
	b->pages = 0;
}

/* Record va of an mm whose mask is mm_cpus, after its PTE changed.  Any
 * context; flushes nothing yet (not even here). */
void tlb_batch_add(struct tlb_batch *b, const struct cpumask *mm_cpus, uint64_t va);
/* Flush the batch here and on the other CPUs in it, wait for them, and
 * empty it.  Returns the IPIs sent.  Any context, interrupts on or off,
 * spinlocks held or not. */
unsigned tlb_batch_flush(struct tlb_batch *b);
/* n (at most TLB_BATCH_VAS) kernel pages anywhere went away: every
 * online CPU flushes them, one IPI round.  Kernel mappings are global
 * (PT_GLOBAL), which a CR3 reload keeps, so the request names each page. */
void tlb_flush_kernel_pages(const uint64_t *va, unsigned n);
/* The mm whose root this is is being freed: every CPU in cpus that still
 * has it loaded (a kernel thread keeping it) loads the kernel's root. */
void tlb_drop_root(uint64_t root, struct cpumask *cpus);
/* Serve a request waiting for this CPU (spinning code with interrupts
 * off calls it). */
void tlb_poll(void);

/* Totals since boot: IPIs sent, and lazy CPUs a batch skipped instead. */
uint64_t tlb_ipis_sent(void);
uint64_t tlb_lazy_skips(void);

#endif
