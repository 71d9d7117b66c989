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
 * Locking: heap.lock ("kmalloc", irqsave) guards the class lists and the counters.
 */
#include <string.h>
#include "kmalloc.h"
#include "pmm.h"
#include "core/panic.h"
#include "core/spinlock.h"

#define MIN_SHIFT 4
#define NCLASSES 8              /* 16, 32, ..., 2048 */

static struct {
	struct spinlock lock;
	struct list_node partial[NCLASSES];     /* guarded by lock */
	struct kmalloc_stats st;                /* guarded by lock */
	bool ready;
} heap = { .lock = SPINLOCK_INIT("kmalloc") };

static unsigned class_of(size_t size)
{
	unsigned c = 0;
	while (((size_t)1 << (c + MIN_SHIFT)) < size)
		c++;
	return c;
}

static size_t class_size(unsigned c) { return (size_t)1 << (c + MIN_SHIFT); }

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

void *kmalloc(size_t size)
{
	if (size == 0)
		size = 1;
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
