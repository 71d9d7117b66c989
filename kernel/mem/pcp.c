/*
 * Per-CPU free-page list logic (pcp.h).
 *
 * Invariants (the tests check them): count is the length of pages; every
 * page on it has PG_PCP and no other flag, refcount 0, and is allocated
 * as far as the buddy knows (the buddy's free_pages does not count it).
 */
#include "pcp.h"

/* Linux's zone_batchsize gives about a quarter of managed/1024, at most
 * 63; at 48 MiB that is one page, which saves nothing.  Here batch =
 * managed/1024 (16 at 64 MiB, capped at 63 from 256 MiB up).  Linux
 * (since 5.14) sets high to the low watermark split over the node's
 * CPUs, at least 4 * batch: 640 pages a CPU at 16 GiB on 8 CPUs.  Here
 * high = 8 * batch (504 pages from 256 MiB up), so a list takes a
 * reclaim batch (64 pages) freed at once and hands it to a read-ahead
 * window without both going through the buddy: with 4 * batch (48 at
 * 48 MiB), kswapd's frees spilled and the windows refilled 12 pages at
 * a time, and a swapping run's buddy work was 7 ms more under own than
 * under fixed:4 (bench ra, -icount exact: own's busy time -1 to -2%,
 * the others' within their spread).  All CPUs' lists together hold at
 * most 1/128 of memory (0.8%), so with many CPUs on little RAM the free
 * pages they hide from each other (until drained) stay well under the
 * reclaim watermarks' reach. */
#define PCP_BATCH_MAX   63
#define PCP_HIGH_MULT   8
#define PCP_SHARE_SHIFT 7

void pcp_marks(uint64_t managed_pages, unsigned ncpus, uint32_t *high, uint32_t *batch)
{
	uint64_t b = managed_pages >> 10, h;
	if (b > PCP_BATCH_MAX)
		b = PCP_BATCH_MAX;
	if (b < 1)
		b = 1;
	h = b * PCP_HIGH_MULT;
	uint64_t share = (managed_pages >> PCP_SHARE_SHIFT) / (ncpus ? ncpus : 1);
	if (h > share)
		h = share;
	if (b > h / 2)
		b = h / 2;
	if (b < 1)
		b = 1;
	if (h < b)
		h = b;
	*high = (uint32_t)h;
	*batch = (uint32_t)b;
}

void pcp_init(struct pcp_list *l)
{
	list_init(&l->pages);
	l->count = 0;
}

struct page *pcp_pop(struct pcp_list *l)
{
	if (!l->count)
		return NULL;
	struct page *p = list_first(&l->pages, struct page, lru);
	list_del(&p->lru);
	p->flags &= ~PG_PCP;
	l->count--;
	return p;
}

void pcp_push(struct pcp_list *l, struct page *p)
{
	p->flags |= PG_PCP;
	list_add(&p->lru, &l->pages);
	l->count++;
}

uint32_t pcp_refill(struct pcp_list *l, struct buddy *b, uint32_t batch)
{
	uint32_t n = 0;
	for (; n < batch; n++) {
		int64_t pfn = buddy_alloc(b, 0);
		if (pfn < 0)
			break;
		struct page *p = &b->map[(uint64_t)pfn - b->base_pfn];
		p->flags = PG_PCP;
		/* At the tail: the pages freed here recently stay hotter. */
		list_add_tail(&p->lru, &l->pages);
		l->count++;
	}
	return n;
}

int64_t pcp_spill(struct pcp_list *l, struct buddy *b, uint32_t n)
{
	int64_t done = 0;
	while (n-- && l->count) {
		struct page *p = list_last(&l->pages, struct page, lru);
		list_del(&p->lru);
		l->count--;
		p->flags &= ~PG_PCP;
		if (!buddy_free(b, b->base_pfn + (uint64_t)(p - b->map), 0))
			return -1;
		done++;
	}
	return done;
}

/* ------------------------------------------------------------ policy */

/* pool->pages changes under the buddy lock where the buddy's count does,
 * so a reader adding both sees a batch in flight only briefly. */
static int64_t give_back(struct pcp_pool *pool, struct pcp_list *l, uint32_t n)
{
	uint32_t before = l->count;
	pool->lock(pool->arg);
	int64_t done = pcp_spill(l, pool->buddy, n);
	__atomic_sub_fetch(&pool->pages, before - l->count, __ATOMIC_RELAXED);
	pool->unlock(pool->arg);
	return done;
}

struct page *pcp_alloc(struct pcp_pool *pool, struct pcp_list *l)
{
	struct page *p = pcp_pop(l);
	if (!p) {
		pool->lock(pool->arg);
		uint32_t got = pcp_refill(l, pool->buddy, __atomic_load_n(&pool->batch, __ATOMIC_RELAXED));
		__atomic_add_fetch(&pool->pages, got, __ATOMIC_RELAXED);
		pool->unlock(pool->arg);
		p = pcp_pop(l);
	}
	if (p)
		__atomic_sub_fetch(&pool->pages, 1, __ATOMIC_RELAXED);
	return p;
}

bool pcp_free(struct pcp_pool *pool, struct pcp_list *l, struct page *p)
{
	pcp_push(l, p);
	__atomic_add_fetch(&pool->pages, 1, __ATOMIC_RELAXED);
	if (l->count <= __atomic_load_n(&pool->high, __ATOMIC_RELAXED))
		return true;
	return give_back(pool, l, __atomic_load_n(&pool->batch, __ATOMIC_RELAXED)) >= 0;
}

bool pcp_drain(struct pcp_pool *pool, struct pcp_list *l)
{
	return !l->count || give_back(pool, l, l->count) >= 0;
}
