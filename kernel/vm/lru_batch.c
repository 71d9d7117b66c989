/*
 * Per-CPU LRU add batches (lru.h; Linux's lru_add folio batch of
 * PAGEVEC_SIZE 15).  A page entering a list waits, with a reference, in
 * its CPU's batch until LRU_BATCH of them go on the lists in one hold of
 * the LRU lock: the lock is global, and every fault that brings a page in
 * would otherwise take it, so faults of different address spaces would
 * queue there.  PG_LRU_BATCH marks a waiting page; lru_del clears it, and
 * a page without it is dropped from the batch unlisted.  The kind of list
 * comes from the page's flags at the drain (lru_kind_of), so a page whose
 * kind changed while it waited (shmem adopting a swapped-in page) goes
 * where it belongs now; a page added with a kind its flags do not name
 * goes on its list at once.
 *
 * Reclaim drains this CPU's batch before each direct round, kswapd every
 * CPU's before it scans, and the OOM path and dropping caches every CPU's
 * too, so at most LRU_BATCH pages per CPU are out of reclaim's sight.
 *
 * Locking: a batch's lock ("lru-batch") is taken by its CPU with
 * interrupts off, and by a drain of every CPU; nothing nests inside it.
 */
#include "lru.h"
#include "vm/page_ref.h"
#include "mem/pmm.h"
#include "core/spinlock.h"
#include "core/smp.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/x86.h"

#define LRU_BATCH 15

struct lru_batch {
	struct spinlock lock;
	uint32_t n;
	uint32_t active;                /* bit i: v[i] wants the active list */
	struct page *v[LRU_BATCH];
} __attribute__((aligned(64)));

/* Zeroed (bss); a CPU names its lock at its first lru_add, before its
 * count can be nonzero, and lru_drain_all only locks batches holding
 * pages. */
static struct lru_batch batch[SMP_MAX_CPUS];

/* Empty b into v; returns how many it held.  Interrupts off or b's lock
 * taken irqsave by the caller. */
static uint32_t take(struct lru_batch *b, struct page **v, uint32_t *active)
{
	uint32_t n = b->n;
	for (uint32_t i = 0; i < n; i++)
		v[i] = b->v[i];
	*active = b->active;
	b->n = 0;
	b->active = 0;
	return n;
}

void lru_add(struct page *p, enum lru_kind kind, bool active)
{
	if (kind != lru_kind_of(p) || page_test(p, PG_LRU)) {
		lru_link(p, kind, active);
		return;
	}
	if (__atomic_fetch_or(&p->flags, PG_LRU_BATCH, __ATOMIC_ACQ_REL) & PG_LRU_BATCH)
		return;                 /* already waiting: one entry is enough */
	get_page(p);
	struct page *v[LRU_BATCH];
	uint32_t n = 0, act = 0;
	bool on = irq_save();           /* stay on this CPU */
	struct lru_batch *b = &batch[this_cpu()->id % SMP_MAX_CPUS];
	if (!b->lock.name)
		spin_init(&b->lock, "lru-batch");
	spin_lock(&b->lock);
	b->active |= (uint32_t)active << b->n;
	b->v[b->n++] = p;
	if (b->n == LRU_BATCH)
		n = take(b, v, &act);
	spin_unlock(&b->lock);
	irq_restore(on);
	if (n)
		lru_link_batch(v, act, n);
}

static uint32_t drain(struct lru_batch *b)
{
	struct page *v[LRU_BATCH];
	uint32_t act;
	bool on = spin_lock_irqsave(&b->lock);
	uint32_t n = take(b, v, &act);
	spin_unlock_irqrestore(&b->lock, on);
	if (n)
		lru_link_batch(v, act, n);
	return n;
}

uint32_t lru_drain_local(void)
{
	bool on = irq_save();
	struct lru_batch *b = &batch[this_cpu()->id % SMP_MAX_CPUS];
	irq_restore(on);
	/* Another CPU's, should we have moved: as good. */
	return __atomic_load_n(&b->n, __ATOMIC_RELAXED) ? drain(b) : 0;
}

uint32_t lru_drain_all(void)
{
	uint32_t n = 0;
	for (int i = 0; i < smp_cpus_online() && i < SMP_MAX_CPUS; i++)
		n += __atomic_load_n(&batch[i].n, __ATOMIC_RELAXED) ? drain(&batch[i]) : 0;
	return n;
}
