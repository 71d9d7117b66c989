/*
 * Kernel heap: power-of-two size classes, 16 .. 2048 bytes.
 *
 * A slab is one page holding objects of one class.  Its struct page has
 * PG_SLAB, order = class, inuse = objects handed out, and private = the
 * head of an in-page free list (each free object's first word points to the
 * next).  A class keeps its slabs with free objects on `partial`; a slab
 * that becomes entirely free goes back to the page allocator, so the heap
 * never hoards memory reclaim could use.
 *
 * Requests over 2048 bytes take 2^k whole pages; their head page has
 * PG_HEAD and order = k, which is how kfree tells the two apart.
 *
 * Per-CPU magazines (Linux's per-CPU slab freelists in their simplest
 * form): each CPU keeps a few free objects of each class, so a kfree and
 * the next kmalloc of that size on the same CPU take no shared lock.  An
 * empty magazine is refilled, a full one half emptied, under heap.lock
 * (KMAG_BATCH objects at a time).  A CPU holds at most 1-4 KiB of each
 * class (kmag_limit): about 27 KiB, and the slab pages under them stay
 * allocated until kmalloc_drain_all.  The swap cache's node per swapped
 * page made heap.lock the second most contended lock with four threads
 * swapping on 2 CPUs (2682 of 205754 acquisitions waited).  Measured
 * with `touch 72 30000 seq|random anon 1 threads=4` at 48 MiB, 2 CPUs,
 * 3 boots each: heap.lock taken 34374-38502 -> 3756-4200 times, waited
 * 970-1051 -> 52-90 times (2.2-4.0 -> 0.4-0.6 ms); one CPU under
 * -icount exact, `touch 72 40000 seq anon`: busy 419.0-419.7 -> 416.8-
 * 417.0 ms, the task's system time 255.4-255.9 -> 251.8-252.3 ms.
 *
 * Locking: heap.lock ("kmalloc", irqsave) guards the class lists and the
 * counters.  A CPU's magazines are guarded by their flag (kcpu.locked,
 * interrupts off), taken by that CPU and by a drain; a flag is taken
 * before heap.lock, never the other way round.
 */
#include <string.h>
#include "kmalloc.h"
#include "pmm.h"
#include "core/panic.h"
#include "core/spinlock.h"
#include "core/smp.h"
#include "arch/x86_64/percpu.h"

#define MIN_SHIFT 4
#define NCLASSES 8              /* 16, 32, ..., 2048 */

static struct {
	struct spinlock lock;
	struct list_node partial[NCLASSES];     /* guarded by lock */
	struct kmalloc_stats st;                /* guarded by lock */
	bool ready;
} heap = { .lock = SPINLOCK_INIT("kmalloc") };

/* As many as fit a CPU's magazines in a page: the swap cache's node
 * class (64 bytes) then keeps 62, not 31.  A read-ahead window takes a
 * node per page, up to 257 at once, and faults give them back one at a
 * time: with 31 the class was refilled and flushed 16 at a time
 * (kmag_flush had 3.8 of kfree's 12.3 ms in a streams:4 run under own,
 * tools/prof --callees kfree).  bench ra, seeds 1 and 2, -icount exact,
 * lockstat=off, busy ms 31 -> 62: seq fixed:4 282.8 -> 280.5, own 284.8
 * -> 282.2; streams:4 fixed:4 281.4 -> 280.4, own 293.2 -> 290.4; shift
 * within its spread. */
#define KMAG_MAX 62
struct kmag {
	uint32_t n;
	void *obj[KMAG_MAX];
};

struct kcpu {
	volatile uint32_t locked;       /* the magazines' flag, interrupts off */
	struct kmag mag[NCLASSES];
};
_Static_assert(sizeof(struct kcpu) <= PAGE_SIZE, "a CPU's magazines fit one page");

/* Each CPU's magazines: a page, made for every online CPU once they are
 * up (kmalloc_cpus_ready: not during a run, where the memory balance
 * would count it), else on the CPU's first kmalloc or kfree.  NULL: not
 * yet, or no page then: the slabs directly. */
static struct kcpu *kcpus[SMP_MAX_CPUS];

/* kcpus[id], made if it is not there yet; NULL without memory. */
static struct kcpu *kcpu_make(uint32_t id)
{
	struct kcpu *k = __atomic_load_n(&kcpus[id], __ATOMIC_ACQUIRE);
	if (k)
		return k;
	struct page *p = pmm_alloc(0, PMM_KERNEL);
	if (!p)
		return NULL;
	k = page_address(p);
	memset(k, 0, sizeof *k);
	struct kcpu *none = NULL;
	if (__atomic_compare_exchange_n(&kcpus[id], &none, k, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return k;
	pmm_free(p, 0);                 /* made meanwhile by the other side */
	return none;
}

void kmalloc_cpus_ready(unsigned n)
{
	for (uint32_t id = 0; id < n && id < SMP_MAX_CPUS; id++)
		kcpu_make(id);
}

static unsigned class_of(size_t size)
{
	unsigned c = 0;
	while (((size_t)1 << (c + MIN_SHIFT)) < size)
		c++;
	return c;
}

static size_t class_size(unsigned c) { return (size_t)1 << (c + MIN_SHIFT); }

/* Objects of class c a CPU keeps: at most a page's worth (2 for 2048
 * bytes), at most KMAG_MAX. */
static uint32_t kmag_limit(unsigned c)
{
	size_t n = PAGE_SIZE / class_size(c);
	return n < KMAG_MAX ? (uint32_t)n : KMAG_MAX;
}

#define KMAG_BATCH(c) ((kmag_limit(c) + 1) / 2)

static void lazy_init(void)
{
	for (unsigned c = 0; c < NCLASSES; c++)
		list_init(&heap.partial[c]);
	heap.ready = true;
}

/* A fresh slab for class c, threaded into a free list.  Lock held. */
static struct page *new_slab(unsigned c)
{
	spin_assert_held(&heap.lock);
	struct page *p = pmm_alloc(0, PMM_KERNEL);
	if (!p)
		return NULL;
	p->flags |= PG_SLAB;
	p->order = (uint8_t)c;
	p->inuse = 0;
	char *base = page_address(p);
	size_t sz = class_size(c), n = PAGE_SIZE / sz;
	for (size_t i = 0; i < n; i++)
		*(void **)(base + i * sz) = i + 1 < n ? base + (i + 1) * sz : NULL;
	p->private = (uint64_t)base;
	list_add(&p->lru, &heap.partial[c]);
	heap.st.slab_pages++;
	return p;
}

static void *slab_alloc(unsigned c)
{
	struct page *p;
	if (list_empty(&heap.partial[c])) {
		if (!new_slab(c))
			return NULL;
	}
	p = list_first(&heap.partial[c], struct page, lru);
	void *obj = (void *)p->private;
	char *next = *(char **)obj, *base = page_address(p);
	/* A free object's first word links the next one in the same slab; any
	 * other value is a write after kfree, caught here rather than as a
	 * wild pointer handed out later. */
	if (next && (next < base || next >= base + PAGE_SIZE || (size_t)(next - base) % class_size(c)))
		panic("kmalloc: %zu-byte free list corrupted: object %p links to %p (a write after kfree)",
		      class_size(c), obj, next);
	p->private = (uint64_t)next;
	p->inuse++;
	if (!p->private)
		list_del(&p->lru);      /* full: off the partial list */
	return obj;
}

static void *large_alloc(size_t size)
{
	unsigned order = 0;
	while ((PAGE_SIZE << order) < size)
		order++;
	struct page *p = pmm_alloc(order, PMM_KERNEL);
	if (!p)
		return NULL;
	p->flags |= PG_HEAD;
	p->order = (uint8_t)order;
	heap.st.large_pages += 1ull << order;
	heap.st.bytes_in_use += PAGE_SIZE << order;
	return page_address(p);
}

static void kcpu_take(struct kcpu *k)
{
	while (__atomic_exchange_n(&k->locked, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void kcpu_drop(struct kcpu *k) { __atomic_store_n(&k->locked, 0, __ATOMIC_RELEASE); }

/* This CPU's magazines, taken (interrupts off: *on for kcpu_put), or NULL
 * with interrupts as they were. */
static struct kcpu *kcpu_get(bool *on)
{
	*on = irq_save();       /* first: no move to another CPU after reading the id */
	uint32_t id = this_cpu()->id;
	struct kcpu *k = id < SMP_MAX_CPUS ? kcpu_make(id) : NULL;
	if (!k) {
		irq_restore(*on);
		return NULL;
	}
	kcpu_take(k);
	return k;
}

static void kcpu_put(struct kcpu *k, bool on)
{
	kcpu_drop(k);
	irq_restore(on);
}

static void slab_free(struct page *p, void *obj);

/* Give the n oldest objects of m back to their slabs.
 * m's flag held. */
static void kmag_flush(struct kmag *m, uint32_t n)
{
	spin_lock(&heap.lock);
	for (uint32_t i = 0; i < n; i++) {
		struct page *p = virt_to_page(m->obj[i]);
		slab_free(p, m->obj[i]);
		heap.st.frees++;
	}
	spin_unlock(&heap.lock);
	memmove(&m->obj[0], &m->obj[n], (m->n - n) * sizeof m->obj[0]);
	m->n -= n;
}

/* An object of class c from this CPU's magazine, refilled from the slabs
 * when empty; NULL when memory is short or there is no magazine. */
static void *kmag_alloc(unsigned c)
{
	bool on;
	struct kcpu *k = kcpu_get(&on);
	if (!k)
		return NULL;
	struct kmag *m = &k->mag[c];
	if (!m->n) {
		spin_lock(&heap.lock);
		if (!heap.ready)
			lazy_init();
		for (uint32_t want = KMAG_BATCH(c); m->n < want;) {
			void *obj = slab_alloc(c);
			if (!obj)
				break;
			heap.st.bytes_in_use += class_size(c);
			heap.st.allocs++;
			m->obj[m->n++] = obj;
		}
		spin_unlock(&heap.lock);
	}
	void *obj = m->n ? m->obj[--m->n] : NULL;
	kcpu_put(k, on);
	return obj;
}

/* Keep obj (of class c, in slab page p) in this CPU's magazine; false
 * when there is none. */
static bool kmag_free(struct page *p, unsigned c, void *obj)
{
	if (((char *)obj - (char *)page_address(p)) % class_size(c))
		panic("kfree: %p is not an object start in its slab", obj);
	bool on;
	struct kcpu *k = kcpu_get(&on);
	if (!k)
		return false;
	struct kmag *m = &k->mag[c];
	if (m->n == kmag_limit(c))
		kmag_flush(m, KMAG_BATCH(c));        /* the oldest half */
	m->obj[m->n++] = obj;
	kcpu_put(k, on);
	return true;
}

void kmalloc_drain_all(void)
{
	for (uint32_t id = 0; id < SMP_MAX_CPUS; id++) {
		struct kcpu *k = __atomic_load_n(&kcpus[id], __ATOMIC_ACQUIRE);
		if (!k)
			continue;
		bool on = irq_save();
		kcpu_take(k);
		for (unsigned c = 0; c < NCLASSES; c++)
			if (k->mag[c].n)
				kmag_flush(&k->mag[c], k->mag[c].n);
		kcpu_put(k, on);
	}
}

void *kmalloc(size_t size)
{
	if (size == 0)
		size = 1;
	if (size <= class_size(NCLASSES - 1)) {
		void *obj = kmag_alloc(class_of(size));
		if (obj)
			return obj;
	}
	bool on = spin_lock_irqsave(&heap.lock);
	if (!heap.ready)
		lazy_init();
	void *obj;
	if (size > class_size(NCLASSES - 1)) {
		obj = large_alloc(size);
	} else {
		unsigned c = class_of(size);
		obj = slab_alloc(c);
		if (obj)
			heap.st.bytes_in_use += class_size(c);
	}
	if (obj)
		heap.st.allocs++;
	else
		heap.st.failures++;
	spin_unlock_irqrestore(&heap.lock, on);
	return obj;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

static void slab_free(struct page *p, void *obj)
{
	unsigned c = p->order;
	char *base = page_address(p);
	if (((char *)obj - base) % class_size(c))
		panic("kfree: %p is not an object start in its slab", obj);
	bool was_full = !p->private;
	*(void **)obj = (void *)p->private;
	p->private = (uint64_t)obj;
	p->inuse--;
	heap.st.bytes_in_use -= class_size(c);
	if (p->inuse == 0) {
		if (!was_full)
			list_del(&p->lru);
		heap.st.slab_pages--;
		p->flags &= ~PG_SLAB;
		pmm_free(p, 0);
	} else if (was_full) {
		list_add(&p->lru, &heap.partial[c]);
	}
}

void kfree(void *obj)
{
	if (!obj)
		return;
	struct page *p = virt_to_page(obj);
	if (!p)
		panic("kfree: %p is not heap memory", obj);
	if ((p->flags & PG_SLAB) && kmag_free(p, p->order, obj))
		return;
	bool on = spin_lock_irqsave(&heap.lock);
	if (p->flags & PG_SLAB) {
		slab_free(p, obj);
	} else if (p->flags & PG_HEAD) {
		heap.st.large_pages -= 1ull << p->order;
		heap.st.bytes_in_use -= PAGE_SIZE << p->order;
		pmm_free(p, p->order);
	} else {
		spin_unlock_irqrestore(&heap.lock, on);
		panic("kfree: %p is not heap memory (flags 0x%x)", obj, p->flags);
	}
	heap.st.frees++;
	spin_unlock_irqrestore(&heap.lock, on);
}

void kmalloc_get_stats(struct kmalloc_stats *s)
{
	bool on = spin_lock_irqsave(&heap.lock);
	*s = heap.st;
	spin_unlock_irqrestore(&heap.lock, on);
}
