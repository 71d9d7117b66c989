/*
 * Page allocator wrapper.
 *
 * The struct page array covers pfn 0 .. max_pfn, where max_pfn is the end
 * of the highest usable range after mem=; RAM withheld by mem= has no
 * descriptors.  The array and the early page tables come from the early
 * allocator's window, which the buddy allocator never sees.
 *
 * Boot cost does not grow with RAM: the array is NOT zeroed (1/64 of RAM,
 * 16 GiB at 1 TiB), and the buddy initialises descriptors one 4 MiB chunk
 * at a time, when it first hands out a page of that chunk (buddy.h).  A
 * chunk without any usable page (holes, firmware, the array itself) never
 * gets descriptors: phys_to_page returns NULL there, as for any address
 * the allocator does not manage.
 *
 * With poisoning on (poison=on, the debug setting), freed frames are filled
 * with POISON_FREE and fresh ones with POISON_NEW, so use-after-free and
 * uninitialised reads show up as recognisable junk.
 *
 * Locking: pmm.lock (irqsave) guards the buddy state and the counters.
 */
#include <string.h>
#include "pmm.h"
#include "buddy.h"
#include "kmem.h"
#include "core/panic.h"
#include "core/spinlock.h"
#include "lib/errno.h"

#define LOW_RESERVE (1ull << 20)

static struct {
	struct spinlock lock;
	struct buddy buddy;             /* guarded by lock */
	struct page *map;
	uint64_t max_pfn;
	bool poison;
	struct pmm_stats st;            /* guarded by lock */
} pmm = { .lock = SPINLOCK_INIT("pmm") };

struct page *phys_to_page(uint64_t pa)
{
	uint64_t pfn = pa >> PAGE_SHIFT;
	return pfn < pmm.max_pfn && buddy_pfn_ready(&pmm.buddy, pfn) ? &pmm.map[pfn] : NULL;
}

uint64_t page_to_phys(const struct page *p) { return (uint64_t)(p - pmm.map) << PAGE_SHIFT; }
void *page_address(const struct page *p) { return phys_to_virt(page_to_phys(p)); }
struct page *virt_to_page(const void *va) { return phys_to_page(virt_to_phys(va)); }

static void add_range(uint64_t s, uint64_t e, uint64_t elo, uint64_t ehi)
{
	if (s < LOW_RESERVE)
		s = LOW_RESERVE;
	/* Cut out the early allocator's window. */
	if (s < ehi && e > elo) {
		if (s < elo)
			add_range(s, elo, elo, ehi);
		if (e > ehi)
			add_range(ehi, e, elo, ehi);
		return;
	}
	if (e > s)
		buddy_add_range(&pmm.buddy, s >> PAGE_SHIFT, (e - s) >> PAGE_SHIFT);
}

void pmm_init(const struct memmap *m, bool poison)
{
	uint64_t top = 0, ram = 0;
	for (int i = 0; i < m->n; i++) {
		if (m->r[i].type == MEMMAP_FREE)
			top = m->r[i].end;
		if (memmap_is_ram(m->r[i].type) && m->r[i].type != MEMMAP_CAPPED)
			ram += m->r[i].end - m->r[i].start;
	}
	pmm.max_pfn = top >> PAGE_SHIFT;
	uint64_t bytes = pmm.max_pfn * sizeof(struct page);
	uint64_t pages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t words = buddy_ready_words(0, pmm.max_pfn);
	uint64_t *ready = phys_to_virt(kmem_early_alloc((words * 8 + PAGE_SIZE - 1) / PAGE_SIZE));
	pmm.map = phys_to_virt(kmem_early_alloc_raw(pages));
	pmm.poison = poison;
	buddy_init(&pmm.buddy, pmm.map, ready, 0, pmm.max_pfn);
	uint64_t elo, ehi;
	kmem_early_window(&elo, &ehi);
	for (int i = 0; i < m->n; i++)
		if (m->r[i].type == MEMMAP_FREE)
			add_range(m->r[i].start, m->r[i].end, elo, ehi);
	pmm.st.memmap_pages = pages;
	pmm.st.total_pages = pmm.buddy.managed_pages;
	pmm.st.max_pfn = pmm.max_pfn;
	pmm.st.reserved_pages = (ram >> PAGE_SHIFT) - pmm.st.total_pages;
	kmem_early_done();
}

struct page *pmm_alloc(unsigned order, unsigned flags)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	int64_t pfn = buddy_alloc(&pmm.buddy, order);
	if (pfn < 0) {
		pmm.st.failures++;
		spin_unlock_irqrestore(&pmm.lock, on);
		return NULL;
	}
	pmm.st.allocs++;
	spin_unlock_irqrestore(&pmm.lock, on);
	struct page *p = &pmm.map[pfn];
	p->refcount = 1;
	p->flags = (order ? PG_HEAD : 0) | ((flags & PMM_KERNEL) ? PG_KERNEL : 0);
	p->order = (uint8_t)order;
	if (flags & PMM_ZERO)
		memset(page_address(p), 0, PAGE_SIZE << order);
	else if (pmm.poison)
		memset(page_address(p), POISON_NEW, PAGE_SIZE << order);
	return p;
}

void pmm_free(struct page *p, unsigned order)
{
	uint64_t pfn = (uint64_t)(p - pmm.map);
	if (pfn >= pmm.max_pfn || !buddy_pfn_ready(&pmm.buddy, pfn) || (p->flags & (PG_BUDDY | PG_RESERVED)))
		panic("pmm: bad free of pfn 0x%lx order %u (double free or never allocated)", pfn, order);
	if (pmm.poison)
		memset(page_address(p), POISON_FREE, PAGE_SIZE << order);
	for (uint64_t i = 0; i < (1ull << order); i++) {
		p[i].flags = 0;
		p[i].refcount = 0;
		p[i].mapcount = 0;
		p[i].mapping = NULL;
		p[i].private = 0;
	}
	bool on = spin_lock_irqsave(&pmm.lock);
	bool ok = buddy_free(&pmm.buddy, pfn, order);
	if (ok)
		pmm.st.frees++;
	spin_unlock_irqrestore(&pmm.lock, on);
	if (!ok)
		panic("pmm: bad free of pfn 0x%lx order %u (double free or never allocated)", pfn, order);
}

/* ------------------------------------------------------------ run-time limit
 *
 * pmm_set_limit: frames beyond the limit are taken from the free lists in
 * 1 MiB blocks and held, never written, until the limit is raised again,
 * so a 16 GiB machine can be squeezed to a few hundred MiB for a swap test
 * without touching 16 GiB.  Held blocks are allocated (the free counters
 * stay exact).  They go back without poisoning: nobody but this list ever
 * had their address, so there is no use-after-free to catch, and poisoning
 * would write every held byte.
 */

#define HOLD_ORDER 8            /* 1 MiB: the limit's granularity */

static struct {
	struct list_node blocks;        /* head pages, via lru; guarded by pmm.lock */
	uint64_t pages;                 /* written under pmm.lock */
	uint64_t limit;                 /* only pmm_set_limit, one caller at a time */
} held = { .blocks = LIST_INIT(held.blocks) };

static bool hold_one(void)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	int64_t pfn = buddy_alloc(&pmm.buddy, HOLD_ORDER);
	if (pfn >= 0) {
		struct page *p = &pmm.map[pfn];
		p->flags = PG_HEAD | PG_KERNEL;
		p->order = HOLD_ORDER;
		p->refcount = 1;
		list_add(&p->lru, &held.blocks);
		held.pages += 1ull << HOLD_ORDER;
	}
	spin_unlock_irqrestore(&pmm.lock, on);
	return pfn >= 0;
}

static void release_one(void)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	struct page *p = list_first(&held.blocks, struct page, lru);
	list_del(&p->lru);
	held.pages -= 1ull << HOLD_ORDER;
	*p = (struct page){ .flags = 0 };
	list_init(&p->lru);
	bool ok = buddy_free(&pmm.buddy, (uint64_t)(p - pmm.map), HOLD_ORDER);
	spin_unlock_irqrestore(&pmm.lock, on);
	if (!ok)
		panic("pmm: held block at pfn 0x%lx was not allocated", (uint64_t)(p - pmm.map));
}

/* One block per lock hold: taking 16 GiB opens thousands of chunks, and
 * interrupts must not stay off for all of it.  Callers are serialised by
 * the knob layer (one script or run= line at a time). */
int pmm_set_limit(uint64_t pages)
{
	uint64_t total = pmm.st.total_pages, want = 0, before = held.pages;
	if (pages && pages < total)
		want = (total - pages + (1ull << HOLD_ORDER) - 1) & ~((1ull << HOLD_ORDER) - 1);
	while (held.pages < want)
		if (!hold_one()) {
			while (held.pages > before)
				release_one();
			return -ENOMEM;
		}
	while (held.pages > want)
		release_one();
	held.limit = pages;
	return 0;
}

uint64_t pmm_limit(void) { return held.limit; }

void pmm_get_stats(struct pmm_stats *s)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	*s = pmm.st;
	s->free_pages = pmm.buddy.free_pages;
	s->deferred_pages = pmm.buddy.deferred_pages;
	s->held_pages = held.pages;
	spin_unlock_irqrestore(&pmm.lock, on);
}

uint64_t pmm_free_pages(void) { return pmm.buddy.free_pages; }
