/*
 * Shared anonymous memory objects.
 *
 * Slots are 8 bytes per page, sized at creation, in leaves of 512 (one
 * 4 KiB kmalloc each) under a directory, so no allocation exceeds what the
 * heap can give (4 MiB of directory: a 1 TiB object).  A resident page has refcount 1 for its slot plus
 * mapcount for the PTEs that map it; PG_SHMEM, mapping = the object,
 * index = the slot.  The object dies with its last VMA reference; then all
 * its pages are freed (no PTE can still map them: a VMA's pages are
 * unmapped before the VMA drops its reference).
 *
 * Locking: s->lock (irqsave) guards the fields it documents; page
 * allocation happens outside it, and a racing second allocator of the same
 * slot frees its copy.
 */
#include <string.h>
#include "shmem.h"
#include "commit.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "mem/kmalloc.h"
#include "core/panic.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "reclaim.h"
#include "lib/errno.h"
#include "lru.h"
#include "swap/readahead.h"
#include "mem/pmm.h"

static struct spinlock all_lock = SPINLOCK_INIT("shmem-all");
static struct list_node all_objects = LIST_INIT(all_objects);

#define LEAF_SLOTS (PAGE_SIZE / sizeof(uint64_t))

static uint64_t leaves(uint64_t npages) { return (npages + LEAF_SLOTS - 1) / LEAF_SLOTS; }

/* idx's leaf, or NULL while nothing was ever stored under it. */
static uint64_t *leaf(struct shmem *s, uint64_t idx)
{
	return __atomic_load_n(&s->slots[idx / LEAF_SLOTS], __ATOMIC_ACQUIRE);
}

/* What idx holds: 0 where its leaf is missing. */
static uint64_t slot_read(struct shmem *s, uint64_t idx)
{
	uint64_t *l = leaf(s, idx);
	return l ? __atomic_load_n(&l[idx % LEAF_SLOTS], __ATOMIC_RELAXED) : 0;
}

/* For a store: the leaf exists (shmem_slot_prepare, or the slot held
 * something before). */
static uint64_t *slot(struct shmem *s, uint64_t idx) { return &leaf(s, idx)[idx % LEAF_SLOTS]; }

static void slots_free(struct shmem *s)
{
	for (uint64_t i = 0; s->slots && i < leaves(s->npages); i++)
		kfree(s->slots[i]);
	kfree(s->slots);
}

/* The directory only: leaves come with the first page stored under them
 * (shmem_slot_prepare).  All of them up front cost 8 bytes a page of the
 * object's size, used or not: 128 MiB of kernel memory for an empty
 * 64 GiB shared mapping, 2 GiB for 1 TiB (at 256 MiB of RAM its mmap
 * failed). */
static bool slots_alloc(struct shmem *s)
{
	uint64_t n = leaves(s->npages);
	return (s->slots = kzalloc((n ? n : 1) * sizeof *s->slots)) != NULL;
}

int shmem_slot_prepare(struct shmem *s, uint64_t idx)
{
	if (idx >= s->npages || leaf(s, idx))
		return 0;
	uint64_t i = idx / LEAF_SLOTS, len = s->npages - i * LEAF_SLOTS;
	/* The last leaf only as long as it needs to be (a one-page object
	 * costs 8 bytes, not 4 KiB). */
	uint64_t *fresh = kzalloc((len < LEAF_SLOTS ? len : LEAF_SLOTS) * sizeof(uint64_t));
	if (!fresh)
		return -ENOMEM;
	bool on = spin_lock_irqsave(&s->lock);
	if (!s->slots[i]) {
		__atomic_store_n(&s->slots[i], fresh, __ATOMIC_RELEASE);
		fresh = NULL;
	}
	spin_unlock_irqrestore(&s->lock, on);
	kfree(fresh);
	return 0;
}

uint64_t shmem_next_leaf(struct shmem *s, uint64_t idx)
{
	while (idx < s->npages && !leaf(s, idx))
		idx = (idx / LEAF_SLOTS + 1) * LEAF_SLOTS;
	return idx < s->npages ? idx : s->npages;
}

struct shmem *shmem_create(uint64_t npages)
{
	struct shmem *s = kzalloc(sizeof *s);
	if (!s)
		return NULL;
	s->npages = npages;
	if (!slots_alloc(s)) {
		slots_free(s);
		kfree(s);
		return NULL;
	}
	spin_init(&s->lock, "shmem");
	spin_init(&s->ra_lock, "readahead-space");
	list_init(&s->mappers);
	bool on = spin_lock_irqsave(&all_lock);
	list_add_tail(&s->all, &all_objects);
	spin_unlock_irqrestore(&all_lock, on);
	return s;
}

static struct shmem_mapper *find_mapper(struct shmem *s, struct mm *mm)
{
	list_for_each(it, &s->mappers) {
		struct shmem_mapper *m = list_entry(it, struct shmem_mapper, link);
		if (m->mm == mm)
			return m;
	}
	return NULL;
}

void shmem_get(void *owner, void *obj)
{
	struct shmem *s = obj;
	struct shmem_mapper *fresh = kzalloc(sizeof *fresh);
	bool on = spin_lock_irqsave(&s->lock);
	struct shmem_mapper *m = find_mapper(s, owner);
	if (!m && fresh) {
		m = fresh;
		fresh = NULL;
		m->mm = owner;
		list_add_tail(&m->link, &s->mappers);
	}
	if (m)
		m->areas++;
	s->refs++;
	spin_unlock_irqrestore(&s->lock, on);
	kfree(fresh);
}

/* Free the object: its pages and swap slots.  Under reclaim_lock, so
 * reclaim is not following a page back to this object meanwhile. */
static void destroy(struct shmem *s)
{
	commit_uncharge(s->charged);
	bool on = spin_lock_irqsave(&all_lock);
	list_del(&s->all);
	spin_unlock_irqrestore(&all_lock, on);
	reclaim_lock();
	for (uint64_t i = shmem_next_leaf(s, 0); i < s->npages; i = shmem_next_leaf(s, i + 1)) {
		uint64_t v = slot_read(s, i);
		if (!v)
			continue;
		if (swp_is_entry(v)) {
			swapcache_free_entry(v);
			continue;
		}
		struct page *p = (struct page *)v;
		if (p->mapcount)
			panic("shmem: page %lu still mapped %d times at destruction", i, p->mapcount);
		p->mapping = NULL;
		/* Off the lists now, not when its last reference goes: one
		 * still in a CPU's add batch was linked by the drain (as
		 * shmem: the flag stays) just before the batch let go of it,
		 * and kswapd on another CPU isolated it in between and
		 * followed the NULL mapping (test_same_pages_smp2). */
		lru_del(p);
		put_page(p);
	}
	reclaim_unlock();
	ra_state_free(s->ra);
	slots_free(s);
	kfree(s);
}

void shmem_put(void *owner, void *obj)
{
	struct shmem *s = obj;
	struct shmem_mapper *gone = NULL;
	bool on = spin_lock_irqsave(&s->lock);
	struct shmem_mapper *m = find_mapper(s, owner);
	if (m && --m->areas == 0) {
		list_del(&m->link);
		gone = m;
	}
	bool last = --s->refs == 0;
	spin_unlock_irqrestore(&s->lock, on);
	kfree(gone);
	if (last)
		destroy(s);
}

uint64_t shmem_slot_get(struct shmem *s, uint64_t idx)
{
	if (idx >= s->npages)
		return 0;
	bool on = spin_lock_irqsave(&s->lock);
	uint64_t v = slot_read(s, idx);
	if (v && !swp_is_entry(v))
		get_page((struct page *)v);
	spin_unlock_irqrestore(&s->lock, on);
	return v;
}

uint64_t shmem_slot_peek(struct shmem *s, uint64_t idx)
{
	if (idx >= s->npages)
		return 0;
	uint64_t v = slot_read(s, idx);
	return swp_is_entry(v) ? v : 0;
}

bool shmem_slot_holds(struct shmem *s, uint64_t idx, uint64_t val)
{
	bool on = spin_lock_irqsave(&s->lock);
	bool ok = idx < s->npages && slot_read(s, idx) == val;
	spin_unlock_irqrestore(&s->lock, on);
	return ok;
}

bool shmem_slot_replace(struct shmem *s, uint64_t idx, uint64_t old, struct page *p)
{
	bool on = spin_lock_irqsave(&s->lock);
	/* A store into a missing leaf: the caller did not prepare it (only
	 * an empty slot can be missing one), and this fails. */
	bool ok = idx < s->npages && leaf(s, idx) && *slot(s, idx) == old;
	if (ok) {
		*slot(s, idx) = (uint64_t)p;
		get_page(p);
		s->resident++;
	}
	spin_unlock_irqrestore(&s->lock, on);
	return ok;
}

bool shmem_slot_to_swap(struct shmem *s, uint64_t idx, struct page *p, uint64_t entry)
{
	bool on = spin_lock_irqsave(&s->lock);
	bool ok = idx < s->npages && slot_read(s, idx) == (uint64_t)p;
	if (ok) {
		*slot(s, idx) = entry;
		s->resident--;
	}
	spin_unlock_irqrestore(&s->lock, on);
	return ok;
}

void shmem_for_each_mapper(struct shmem *s, void (*fn)(struct mm *mm, void *ctx), void *ctx)
{
	bool on = spin_lock_irqsave(&s->lock);
	list_for_each(it, &s->mappers)
		fn(list_entry(it, struct shmem_mapper, link)->mm, ctx);
	spin_unlock_irqrestore(&s->lock, on);
}

uint64_t shmem_total_resident(void)
{
	uint64_t n = 0;
	bool on = spin_lock_irqsave(&all_lock);
	list_for_each(it, &all_objects)
		n += list_entry(it, struct shmem, all)->resident;
	spin_unlock_irqrestore(&all_lock, on);
	return n;
}

void shmem_for_each_object(void (*fn)(struct shmem *s, void *ctx), void *ctx)
{
	/* 64 objects at a time from the list (fn sleeps: it reads from
	 * swap).  The caller holds reclaim_lock, so no object leaves the list
	 * meanwhile and positions stay; new ones join at its end.  Only the
	 * first 64 were visited, and swapoff gave up on a program with more
	 * shared mappings than that. */
	struct shmem *objs[64];
	for (uint64_t from = 0;; from += 64) {
		int n = 0;
		uint64_t at = 0;
		bool on = spin_lock_irqsave(&all_lock);
		list_for_each(it, &all_objects) {
			if (at++ < from)
				continue;
			if (n == 64)
				break;
			objs[n++] = list_entry(it, struct shmem, all);
		}
		spin_unlock_irqrestore(&all_lock, on);
		for (int i = 0; i < n; i++)
			fn(objs[i], ctx);
		if (n < 64)
			return;
	}
}
