/*
 * Binary buddy allocator.
 *
 * Invariants:
 *  - a free block of order k starts at a pfn aligned to 2^k (relative to
 *    pfn 0, not base_pfn, so blocks line up with physical 2^k boundaries);
 *  - its head page has PG_BUDDY and order = k and sits on free[k]; its
 *    other pages carry no buddy flag;
 *  - two free buddies of the same order never coexist: free merges them.
 * Allocation takes the smallest order that has a block and splits it,
 * returning the upper halves to the lists.  Everything is O(BUDDY_ORDERS).
 */
#include "buddy.h"

static struct page *pg(struct buddy *b, uint64_t pfn) { return &b->map[pfn - b->base_pfn]; }

static bool in_range(const struct buddy *b, uint64_t pfn, uint64_t n)
{
	return pfn >= b->base_pfn && pfn - b->base_pfn <= b->npages && n <= b->npages - (pfn - b->base_pfn);
}

void buddy_init(struct buddy *b, struct page *map, uint64_t base_pfn, uint64_t npages)
{
	b->map = map;
	b->base_pfn = base_pfn;
	b->npages = npages;
	b->free_pages = 0;
	b->managed_pages = 0;
	for (unsigned k = 0; k < BUDDY_ORDERS; k++) {
		list_init(&b->free[k]);
		b->nfree[k] = 0;
	}
	for (uint64_t i = 0; i < npages; i++) {
		map[i] = (struct page){ .flags = PG_RESERVED };
		list_init(&map[i].lru);
	}
}

static void push(struct buddy *b, uint64_t pfn, unsigned k)
{
	struct page *p = pg(b, pfn);
	p->flags = PG_BUDDY;
	p->order = (uint8_t)k;
	list_add(&p->lru, &b->free[k]);
	b->nfree[k]++;
}

static void unlink(struct buddy *b, struct page *p)
{
	list_del(&p->lru);
	b->nfree[p->order]--;
	p->flags &= ~PG_BUDDY;
}

/* Insert a block, merging with free buddies as far as they go. */
static void insert(struct buddy *b, uint64_t pfn, unsigned k)
{
	while (k + 1 < BUDDY_ORDERS) {
		uint64_t bud = pfn ^ (1ull << k);
		if (!in_range(b, bud, 1ull << k))
			break;
		struct page *q = pg(b, bud);
		if (!(q->flags & PG_BUDDY) || q->order != k)
			break;
		unlink(b, q);
		q->flags = 0;
		pfn &= ~(1ull << k);
		k++;
	}
	push(b, pfn, k);
}

void buddy_add_range(struct buddy *b, uint64_t pfn, uint64_t n)
{
	if (!in_range(b, pfn, n))
		return;
	while (n) {
		unsigned k = 0;
		while (k + 1 < BUDDY_ORDERS && !(pfn & ((2ull << k) - 1)) && (2ull << k) <= n)
			k++;
		for (uint64_t i = 0; i < (1ull << k); i++)
			pg(b, pfn + i)->flags = 0;
		insert(b, pfn, k);
		b->free_pages += 1ull << k;
		b->managed_pages += 1ull << k;
		pfn += 1ull << k;
		n -= 1ull << k;
	}
}

int64_t buddy_alloc(struct buddy *b, unsigned order)
{
	if (order >= BUDDY_ORDERS)
		return -1;
	unsigned k = order;
	while (k < BUDDY_ORDERS && list_empty(&b->free[k]))
		k++;
	if (k == BUDDY_ORDERS)
		return -1;
	struct page *p = list_first(&b->free[k], struct page, lru);
	unlink(b, p);
	uint64_t pfn = b->base_pfn + (uint64_t)(p - b->map);
	while (k > order) {
		k--;
		push(b, pfn + (1ull << k), k);
	}
	p->flags = 0;
	p->order = (uint8_t)order;
	b->free_pages -= 1ull << order;
	return (int64_t)pfn;
}

bool buddy_free(struct buddy *b, uint64_t pfn, unsigned order)
{
	if (order >= BUDDY_ORDERS || (pfn & ((1ull << order) - 1)) || !in_range(b, pfn, 1ull << order))
		return false;
	for (uint64_t i = 0; i < (1ull << order); i++)
		if (pg(b, pfn + i)->flags & (PG_BUDDY | PG_RESERVED))
			return false;
	/* A page inside a larger free block has no flag; catch that too. */
	for (unsigned k = order + 1; k < BUDDY_ORDERS; k++) {
		uint64_t head = pfn & ~((1ull << k) - 1);
		if (in_range(b, head, 1) && (pg(b, head)->flags & PG_BUDDY) && pg(b, head)->order >= k)
			return false;
	}
	insert(b, pfn, order);
	b->free_pages += 1ull << order;
	return true;
}

int buddy_max_free_order(const struct buddy *b)
{
	for (int k = BUDDY_ORDERS - 1; k >= 0; k--)
		if (!list_empty(&b->free[k]))
			return k;
	return -1;
}
