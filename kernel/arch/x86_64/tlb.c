/*
 * TLB shootdown (see tlb.h for the model and the rules).
 *
 * A sender fills its own tlb_req (interrupts off, so nothing else on
 * this CPU sends meanwhile), sets its bit in each target's tlb_from,
 * then the target's tlb_pending, and sends VEC_TLB; a target that sees
 * its tlb_pending (in the handler or in tlb_poll) serves every sender
 * named in its tlb_from and clears its bit in that sender's waiting
 * mask; the sender waits for waiting to empty, serving requests to
 * itself meanwhile (two CPUs shooting at each other at once each answer
 * the other while they wait).  The target clears tlb_pending before it
 * reads tlb_from and the sender sets them the other way round, so a
 * request is either seen now or leaves tlb_pending set for the next poll.
 */
#include "tlb.h"
#include "apic.h"
#include "irq.h"
#include "percpu.h"
#include "x86.h"
#include "mem/kmem.h"

static uint64_t ipis_sent;
static uint64_t lazy_skips;

uint64_t tlb_ipis_sent(void) { return __atomic_load_n(&ipis_sent, __ATOMIC_RELAXED); }
uint64_t tlb_lazy_skips(void) { return __atomic_load_n(&lazy_skips, __ATOMIC_RELAXED); }

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

/* Do what CPU `from` asks of CPU c, and tell it so. */
static void serve(struct cpu *c, struct cpu *from)
{
	struct tlb_request *r = &from->tlb_req;
	if (r->drop_root)
		drop_root_here(c, r->drop_root);
	else
		flush_here(r->va, r->n, r->all);
	cpumask_unset_atomic(&r->waiting, c->id);
}

void tlb_poll(void)
{
	struct cpu *c = this_cpu();
	if (!__atomic_exchange_n(&c->tlb_pending, 0, __ATOMIC_SEQ_CST))
		return;
	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		uint64_t bits = __atomic_exchange_n(&c->tlb_from.w[w], 0, __ATOMIC_SEQ_CST);
		for (; bits; bits &= bits - 1)
			serve(c, percpu_get(w * 64 + (unsigned)__builtin_ctzll(bits)));
	}
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
	/* A full load flushes whatever a skipped shootdown left.  Not lazy
	 * before joining the new mask: a sender that sees the bit also sees
	 * that it must send. */
	__atomic_store_n(&c->tlb_lazy, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->tlb_stale, 0, __ATOMIC_SEQ_CST);
	if (cpus)
		cpumask_set_atomic(cpus, c->id);        /* before the load: see tlb.h */
	c->loaded_root = cpus ? root : 0;
	c->loaded_cpus = cpus;
	write_cr3(root);
	if (old && old != cpus)
		cpumask_unset_atomic(old, c->id);       /* after: nothing of it is cached now */
}

void tlb_switch_to(uint64_t root, struct cpumask *cpus)
{
	struct cpu *c = this_cpu();
	if (!root) {
		if (c->loaded_root)
			__atomic_store_n(&c->tlb_lazy, 1, __ATOMIC_SEQ_CST);
		return;
	}
	if (c->tlb_lazy) {
		/* Lazy off first, then the flag: a sender that set the flag
		 * after we read it finds us no longer lazy and sends. */
		__atomic_store_n(&c->tlb_lazy, 0, __ATOMIC_SEQ_CST);
		if (__atomic_exchange_n(&c->tlb_stale, 0, __ATOMIC_SEQ_CST) && c->loaded_root == root)
			flush_all_here();
	}
	if ((read_cr3() & ~0xfffull) != root)
		tlb_load_root(root, cpus);
}

/* Take the lazy CPUs out of targets: each gets tlb_stale instead of an
 * IPI, unless it stopped being lazy meanwhile (it may have read its flag
 * before we set it: then it gets the IPI). */
static void skip_lazy(struct cpumask *targets)
{
	cpumask_for_each(id, targets) {
		struct cpu *t = percpu_get(id);
		if (!__atomic_load_n(&t->tlb_lazy, __ATOMIC_SEQ_CST))
			continue;
		__atomic_store_n(&t->tlb_stale, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&t->tlb_lazy, __ATOMIC_SEQ_CST)) {
			cpumask_unset(targets, id);
			__atomic_add_fetch(&lazy_skips, 1, __ATOMIC_RELAXED);
		}
	}
}

static bool acked(const struct tlb_request *r)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		if (__atomic_load_n(&r->waiting.w[i], __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Do here(arg) on this CPU, then one request to the other online CPUs
 * of mask (every other one when mask is NULL; lazy ones skipped when
 * lazy_ok), filled by fill(request, arg); wait for all of them.
 * Interrupts stay off throughout, so "this CPU" and its request are one.
 * Returns the IPIs sent. */
static unsigned run(const struct cpumask *mask, bool lazy_ok, void (*here)(const void *),
		    void (*fill)(struct tlb_request *, const void *), const void *arg)
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
	if (lazy_ok)
		skip_lazy(&targets);
	if (cpumask_empty(&targets)) {
		irq_restore(on);
		return 0;
	}
	struct tlb_request *r = &c->tlb_req;
	fill(r, arg);
	for (int i = 0; i < CPUMASK_WORDS; i++)
		__atomic_store_n(&r->waiting.w[i], targets.w[i], __ATOMIC_RELEASE);
	unsigned sent = 0;
	cpumask_for_each(id, &targets) {
		struct cpu *t = percpu_get(id);
		cpumask_set_atomic(&t->tlb_from, c->id);
		__atomic_store_n(&t->tlb_pending, 1, __ATOMIC_SEQ_CST);
		apic_send_ipi(t->apic_id, VEC_TLB);
		sent++;
	}
	while (!acked(r)) {
		tlb_poll();
		cpu_relax();
	}
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

static void batch_fill(struct tlb_request *r, const void *arg)
{
	const struct tlb_batch *b = arg;
	for (unsigned i = 0; i < b->n; i++)
		r->va[i] = b->va[i];
	r->n = b->n;
	r->all = b->all;
	r->drop_root = 0;
}

unsigned tlb_batch_flush(struct tlb_batch *b)
{
	if (!b->pages)
		return 0;
	unsigned sent = run(&b->cpus, true, batch_here, batch_fill, b);
	tlb_batch_init(b);
	return sent;
}

void tlb_flush_kernel_pages(const uint64_t *va, unsigned n)
{
	/* A batch for every online CPU, lazy ones too (run's mask NULL). */
	struct tlb_batch b;
	tlb_batch_init(&b);
	for (; b.n < n && b.n < TLB_BATCH_VAS; b.n++)
		b.va[b.n] = va[b.n];
	if (b.n)
		run(NULL, false, batch_here, batch_fill, &b);
}

static void drop_here(const void *arg)
{
	drop_root_here(this_cpu(), *(const uint64_t *)arg);
}

static void drop_fill(struct tlb_request *r, const void *arg)
{
	r->drop_root = *(const uint64_t *)arg;
	r->n = 0;
	r->all = false;
}

void tlb_drop_root(uint64_t root, struct cpumask *cpus)
{
	run(cpus, false, drop_here, drop_fill, &root);
}
