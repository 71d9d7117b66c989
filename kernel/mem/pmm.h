/*
 * Physical page allocator: the buddy allocator over all usable RAM, with
 * per-CPU lists of free single pages in front (pcp.h), the lock, the
 * struct page array, poisoning and counters around it.
 */
#ifndef PMM_H
#define PMM_H

#include <stdint.h>
#include <stdbool.h>
#include "page.h"
#include "memmap.h"

enum pmm_flags {
	PMM_ZERO   = 1u << 0,   /* zero the pages */
	PMM_KERNEL = 1u << 1,   /* mark PG_KERNEL (tables, heap, stacks) */
	PMM_CODE   = 1u << 2,   /* for user code: a frame that held code first (order 0) */
};

struct pmm_stats {
	uint64_t total_pages;   /* managed by the allocator */
	uint64_t free_pages;     /* the buddy's and the per-CPU lists' */
	uint64_t pcp_pages;     /* free pages on per-CPU lists (in free_pages) */
	uint32_t pcp_high, pcp_batch;   /* the lists' marks */
	uint64_t pcp_drains;    /* every list given back: an allocation the buddy could not serve or pmm_set_limit */
	uint64_t reserved_pages;/* RAM the allocator never manages (kernel, firmware, low 1 MiB) */
	uint64_t memmap_pages;  /* the struct page array itself */
	uint64_t deferred_pages;/* free pages whose descriptors are not yet initialised */
	uint64_t held_pages;    /* taken by pmm_set_limit */
	uint64_t code_pages;    /* free frames that held user code (in free_pages) */
	uint64_t allocs, frees, failures;
	uint64_t max_pfn;
};

/* After kmem_init.  Hands every usable page to the buddy allocator except
 * the low 1 MiB and what the early allocator took. */
void pmm_init(const struct memmap *m, bool poison);

/* May be called with interrupts off; never sleeps.  NULL when no block of
 * that order is free (reclaim, in a later layer, decides what to do). */
struct page *pmm_alloc(unsigned order, unsigned flags);
void pmm_free(struct page *p, unsigned order);

/* Give every CPU's free-page list back to the buddy (pmm_alloc does it
 * itself before it fails, and pmm_set_limit before it holds whole 1 MiB
 * blocks).  Free counts do not change: the lists' pages were counted
 * free already.  Any context where pmm_alloc may run. */
void pmm_drain_all(void);

/* References and the page lock live one layer up: vm/page_ref.h. */

/* Atomic flag updates for pages in use. */
static inline void page_set(struct page *p, uint32_t f) { __atomic_or_fetch(&p->flags, f, __ATOMIC_ACQ_REL); }
static inline void page_clear(struct page *p, uint32_t f) { __atomic_and_fetch(&p->flags, ~f, __ATOMIC_ACQ_REL); }
static inline bool page_test(const struct page *p, uint32_t f) { return __atomic_load_n(&p->flags, __ATOMIC_ACQUIRE) & f; }
static inline bool page_test_clear(struct page *p, uint32_t f) { return __atomic_fetch_and(&p->flags, ~f, __ATOMIC_ACQ_REL) & f; }

struct page *phys_to_page(uint64_t pa);
uint64_t page_to_phys(const struct page *p);
void *page_address(const struct page *p);
struct page *virt_to_page(const void *va);

/* Run-time mem=: let the allocator hand out at most `pages` of the pages
 * it manages (0: no limit) by holding the rest, untouched, in 1 MiB
 * blocks.  Raising or lifting the limit gives them back.  -ENOMEM (and
 * nothing changes) when too few pages are free to hold.  Never sleeps;
 * takes the pmm lock once per block; one caller at a time. */
int pmm_set_limit(uint64_t pages);
uint64_t pmm_limit(void);

void pmm_get_stats(struct pmm_stats *s);
uint64_t pmm_free_pages(void);
/* Pages the allocator manages (pmm_stats.total_pages), without its lock. */
uint64_t pmm_total_pages(void);

#define POISON_FREE 0x6b        /* written over freed frames (debug) */
#define POISON_NEW  0xa5        /* written over fresh non-zeroed frames (debug) */

#endif
