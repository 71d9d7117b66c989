/*
 * Page allocator wrapper.
 *
 * The struct page array covers pfn 0 .. max_pfn, where max_pfn is the end
 * of the highest usable range after mem=; RAM withheld by mem= has no
 * descriptors.  The array and the early page tables come from the early
 * allocator's window, which the buddy allocator never sees.
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
	return pfn < pmm.max_pfn ? &pmm.map[pfn] : NULL;
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
	pmm.map = phys_to_virt(kmem_early_alloc(pages));
	pmm.poison = poison;
	buddy_init(&pmm.buddy, pmm.map, 0, pmm.max_pfn);
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
	if (pfn >= pmm.max_pfn || (p->flags & (PG_BUDDY | PG_RESERVED)))
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

void pmm_get_stats(struct pmm_stats *s)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	*s = pmm.st;
	s->free_pages = pmm.buddy.free_pages;
	spin_unlock_irqrestore(&pmm.lock, on);
}

uint64_t pmm_free_pages(void) { return pmm.buddy.free_pages; }
