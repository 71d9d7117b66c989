/*
 * TLB shootdown (see tlb.h for the model and the rules).
 *
 * The request slot: req.busy is taken by one sender at a time (an atomic
 * flag, not a spinlock: spin_lock polls us, and we must not recurse into
 * it).  The sender fills the request, sets each target's tlb_pending and
 * sends VEC_TLB; a target that sees its tlb_pending (in the handler or in
 * tlb_poll) flushes what the request names and clears its bit in
 * req.waiting; the sender waits for req.waiting to empty, serving its own
 * tlb_pending meanwhile (it cannot be a target while it holds the slot,
 * but it may be one while waiting for the slot).
 */
#include "tlb.h"
#include "apic.h"
#include "irq.h"
#include "percpu.h"
#include "x86.h"
#include "mem/kmem.h"

static struct {
	volatile uint32_t busy;
	/* Filled by the holder of busy before any target is told. */
	uint64_t va[TLB_BATCH_VAS];
	unsigned n;
	bool all;
	uint64_t drop_root;             /* nonzero: load the kernel's root if this is loaded */
	struct cpumask waiting;         /* targets yet to flush (atomic) */
} req;

static uint64_t ipis_sent;

uint64_t tlb_ipis_sent(void) { return __atomic_load_n(&ipis_sent, __ATOMIC_RELAXED); }

static void flush_all_here(void)
{
	/* Reloading CR3 drops every non-global entry: all user mappings. */
	write_cr3(read_cr3());
}

static void flush_here(const uint64_t *va, unsigned n, bool all)
{
	if (all) {
		flush_all_here();
		return;
	}
	for (unsigned i = 0; i < n; i++)
		invlpg(va[i]);
}

/* Interrupts off. */
static void drop_root_here(struct cpu *c, uint64_t root)
{
	if (c->loaded_root != root)
		return;
	tlb_load_root(kmem_kernel_pml4(), NULL);
}

void tlb_poll(void)
{
	struct cpu *c = this_cpu();
	if (!__atomic_exchange_n(&c->tlb_pending, 0, __ATOMIC_ACQUIRE))
		return;
	if (req.drop_root)
		drop_root_here(c, req.drop_root);
	else
		flush_here(req.va, req.n, req.all);
	cpumask_unset_atomic(&req.waiting, c->id);
}

static void on_tlb(struct trap_frame *f, void *arg)
{
	(void)f;
	(void)arg;
	tlb_poll();
}

void tlb_init(void)
{
	irq_set_fixed(VEC_TLB, "tlb-shootdown", on_tlb, NULL);
}

void tlb_load_root(uint64_t root, struct cpumask *cpus)
{
	struct cpu *c = this_cpu();
	struct cpumask *old = c->loaded_cpus;
	if (cpus)
		cpumask_set_atomic(cpus, c->id);        /* before the load: see tlb.h */
	c->loaded_root = cpus ? root : 0;
	c->loaded_cpus = cpus;
	write_cr3(root);
	if (old && old != cpus)
		cpumask_unset_atomic(old, c->id);       /* after: nothing of it is cached now */
}

/* Do here(arg) on this CPU, then one request to the other online CPUs
 * of mask (every other one when mask is NULL), its fields set by
 * fill(arg) once the slot is ours; wait for all of them.  Interrupts
 * stay off throughout, so "this CPU" is one CPU.  Returns the IPIs sent. */
static unsigned run(const struct cpumask *mask, void (*here)(const void *), void (*fill)(const void *),
		    const void *arg)
{
	bool on = irq_save();
	struct cpu *c = this_cpu();
	here(arg);
	struct cpumask targets;
	cpumask_fill(&targets, percpu_count());
	if (mask) {
		struct cpumask m;
		cpumask_copy_atomic(&m, mask);
		cpumask_and(&targets, &targets, &m);
	}
	cpumask_unset(&targets, c->id);
	if (cpumask_empty(&targets)) {
		irq_restore(on);
		return 0;
	}
	while (__atomic_exchange_n(&req.busy, 1, __ATOMIC_ACQUIRE)) {
		tlb_poll();
		cpu_relax();
	}
	fill(arg);
	for (int i = 0; i < CPUMASK_WORDS; i++)
		__atomic_store_n(&req.waiting.w[i], targets.w[i], __ATOMIC_RELEASE);
	unsigned sent = 0;
	cpumask_for_each(id, &targets) {
		struct cpu *t = percpu_get(id);
		__atomic_store_n(&t->tlb_pending, 1, __ATOMIC_RELEASE);
		apic_send_ipi(t->apic_id, VEC_TLB);
		sent++;
	}
	while (!cpumask_empty(&req.waiting)) {
		tlb_poll();
		cpu_relax();
	}
	__atomic_store_n(&req.busy, 0, __ATOMIC_RELEASE);
	irq_restore(on);
	__atomic_add_fetch(&ipis_sent, sent, __ATOMIC_RELAXED);
	return sent;
}

void tlb_batch_add(struct tlb_batch *b, const struct cpumask *mm_cpus, uint64_t va)
{
	/* The PTE store before the mask load (tlb.h). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	struct cpumask m;
	cpumask_copy_atomic(&m, mm_cpus);
	for (int i = 0; i < CPUMASK_WORDS; i++)
		b->cpus.w[i] |= m.w[i];
	b->pages++;
	if (b->n < TLB_BATCH_VAS)
		b->va[b->n++] = va;
	else
		b->all = true;
}

static void batch_here(const void *arg)
{
	const struct tlb_batch *b = arg;
	flush_here(b->va, b->n, b->all);
}

static void batch_fill(const void *arg)
{
	const struct tlb_batch *b = arg;
	for (unsigned i = 0; i < b->n; i++)
		req.va[i] = b->va[i];
	req.n = b->n;
	req.all = b->all;
	req.drop_root = 0;
}

unsigned tlb_batch_flush(struct tlb_batch *b)
{
	if (!b->pages)
		return 0;
	unsigned sent = run(&b->cpus, batch_here, batch_fill, b);
	tlb_batch_init(b);
	return sent;
}

struct range {
	uint64_t start, end;            /* at most TLB_BATCH_VAS pages */
};

static void range_here(const void *arg)
{
	const struct range *r = arg;
	for (uint64_t va = r->start; va < r->end; va += 4096)
		invlpg(va);
}

static void range_fill(const void *arg)
{
	const struct range *r = arg;
	req.n = 0;
	req.all = false;
	req.drop_root = 0;
	for (uint64_t va = r->start; va < r->end; va += 4096)
		req.va[req.n++] = va;
}

void tlb_flush_kernel_range(uint64_t start, uint64_t end)
{
	/* Kernel mappings are global (PT_GLOBAL): a CR3 reload keeps them,
	 * so the request names every page, TLB_BATCH_VAS at a time. */
	const uint64_t step = TLB_BATCH_VAS * 4096ull;
	for (uint64_t s = start; s < end; s += step) {
		struct range r = { s, end - s > step ? s + step : end };
		run(NULL, range_here, range_fill, &r);
	}
}

static void drop_here(const void *arg)
{
	drop_root_here(this_cpu(), *(const uint64_t *)arg);
}

static void drop_fill(const void *arg)
{
	req.drop_root = *(const uint64_t *)arg;
	req.n = 0;
	req.all = false;
}

void tlb_drop_root(uint64_t root, struct cpumask *cpus)
{
	run(cpus, drop_here, drop_fill, &root);
}
