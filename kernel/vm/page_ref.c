/*
 * Page references and the page lock (see page_ref.h for the rules).
 *
 * Sleepers on page locks share LOCK_WAITQS wait queues hashed by frame
 * number: a page lock is held for one I/O at most, so collisions cost a
 * spurious wake-up, never a lost one (every waiter re-checks its page).
 */
#include "page_ref.h"
#include "lru.h"
#include "mem/pmm.h"
#include "core/panic.h"
#include "core/wait.h"

#define LOCK_WAITQS 64

static struct waitq page_waitqs[LOCK_WAITQS];

void page_ref_init(void)
{
	for (int i = 0; i < LOCK_WAITQS; i++)
		waitq_init(&page_waitqs[i], "page");
}

void get_page(struct page *p) { __atomic_add_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL); }

bool get_page_unless_zero(struct page *p)
{
	int32_t v = __atomic_load_n(&p->refcount, __ATOMIC_ACQUIRE);
	while (v > 0)
		if (__atomic_compare_exchange_n(&p->refcount, &v, v + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* Pages of the page cache and of shmem objects mapped by a PTE: counted
 * at the 0 -> 1 and 1 -> 0 steps of mapcount, which the atomics order,
 * so each step is counted once however PTEs race.  PG_FILE and PG_SHMEM
 * are set before a page is first mapped and stay while it is mapped (the
 * cache and the object hold it), so both steps see the same kind. */
static uint64_t nr_mapped;      /* [A] */

static bool mapped_kind(const struct page *p) { return page_test(p, PG_FILE | PG_SHMEM); }

void page_map_add(struct page *p)
{
	if (__atomic_add_fetch(&p->mapcount, 1, __ATOMIC_ACQ_REL) == 1 && mapped_kind(p))
		__atomic_add_fetch(&nr_mapped, 1, __ATOMIC_RELAXED);
}

void page_map_sub(struct page *p)
{
	if (__atomic_sub_fetch(&p->mapcount, 1, __ATOMIC_ACQ_REL) == 0 && mapped_kind(p))
		__atomic_sub_fetch(&nr_mapped, 1, __ATOMIC_RELAXED);
}

uint64_t page_nr_mapped(void) { return __atomic_load_n(&nr_mapped, __ATOMIC_RELAXED); }

void put_page(struct page *p)
{
	int32_t v = __atomic_sub_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL);
	if (v > 0)
		return;
	if (v < 0)
		panic("put_page: pfn 0x%lx refcount went negative (flags 0x%x)", page_to_phys(p) >> PAGE_SHIFT, p->flags);
	if (page_test(p, PG_LRU))
		lru_del(p);
	if (page_test(p, PG_LOCKED | PG_WRITEBACK | PG_SWAPCACHE))
		panic("put_page: freeing pfn 0x%lx still locked, under writeback or in the swap cache (flags 0x%x)",
		      page_to_phys(p) >> PAGE_SHIFT, p->flags);
	pmm_free(p, 0);
}

static struct waitq *page_wq(const struct page *p)
{
	uint64_t h = (page_to_phys(p) >> PAGE_SHIFT) * 0x9e3779b97f4a7c15ull;
	return &page_waitqs[h >> 58];
}

bool trylock_page(struct page *p) { return !(__atomic_fetch_or(&p->flags, PG_LOCKED, __ATOMIC_ACQUIRE) & PG_LOCKED); }

void lock_page(struct page *p)
{
	struct waitq *wq = page_wq(p);
	while (!trylock_page(p))
		WAIT_EVENT(wq, !page_test(p, PG_LOCKED));
}

/* The clear is a locked and, a full barrier, so the lockless look at the
 * queue (waitq_active) cannot miss a waiter that then sleeps: taking the
 * queue's lock on every unlock was about 6% of a swapping task's kernel
 * time at profile none (README, "Where kernel time goes"). */
void unlock_page(struct page *p)
{
	__atomic_and_fetch(&p->flags, ~PG_LOCKED, __ATOMIC_SEQ_CST);
	struct waitq *wq = page_wq(p);
	if (waitq_active(wq))
		waitq_wake_all(wq);
}

void wait_on_page(struct page *p)
{
	struct waitq *wq = page_wq(p);
	WAIT_EVENT(wq, !page_test(p, PG_LOCKED));
}
