/*
 * Binary buddy allocator.
 *
 * Invariants:
 *  - a free block of order k starts at a pfn aligned to 2^k (relative to
 *    pfn 0, not base_pfn, so blocks line up with physical 2^k boundaries);
 *  - its head page has PG_BUDDY and order = k and sits on free[k]; its
 *    other pages carry no buddy flag;
 *  - two free buddies of the same order never coexist: free merges them;
 *  - every page on a list, handed out, or reserved inside a partly free
 *    chunk lies in a ready chunk; deferred spans hold whole chunks that
 *    are not ready, and free_pages = pages on the lists + deferred_pages.
 * Blocks never exceed a chunk, so merging never looks past the chunk of
 * the page being freed, and that chunk is always ready.
 * Allocation takes the smallest order that has a block and splits it,
 * returning the upper halves to the lists; only when every list from the
 * order up is empty does it initialise a deferred chunk.  Everything is
 * O(BUDDY_ORDERS), plus one chunk's descriptors when a chunk is opened.
 */
#include "buddy.h"

static struct page *pg(struct buddy *b, uint64_t pfn) { return &b->map[pfn - b->base_pfn]; }

static bool in_range(const struct buddy *b, uint64_t pfn, uint64_t n)
{
	return pfn >= b->base_pfn && pfn - b->base_pfn <= b->npages && n <= b->npages - (pfn - b->base_pfn);
}

static uint64_t chunk_index(const struct buddy *b, uint64_t pfn)
{
	return (pfn >> BUDDY_CHUNK_ORDER) - (b->base_pfn >> BUDDY_CHUNK_ORDER);
}

bool buddy_pfn_ready(const struct buddy *b, uint64_t pfn)
{
	if (!in_range(b, pfn, 1))
		return false;
	uint64_t c = chunk_index(b, pfn);
	return (__atomic_load_n(&b->ready[c / 64], __ATOMIC_ACQUIRE) >> (c % 64)) & 1;
}

/* Give every descriptor of pfn's chunk (inside the map) `flags` and mark
 * the chunk ready. */
static void chunk_init(struct buddy *b, uint64_t pfn, uint32_t flags)
{
	uint64_t s = pfn & ~(BUDDY_CHUNK - 1), e = s + BUDDY_CHUNK;
	if (s < b->base_pfn)
		s = b->base_pfn;
	if (e > b->base_pfn + b->npages)
		e = b->base_pfn + b->npages;
	for (uint64_t i = s; i < e; i++) {
		*pg(b, i) = (struct page){ .flags = flags };
		list_init(&pg(b, i)->lru);
	}
	uint64_t c = chunk_index(b, pfn);
	__atomic_or_fetch(&b->ready[c / 64], 1ull << (c % 64), __ATOMIC_RELEASE);
}

void buddy_init(struct buddy *b, struct page *map, uint64_t *ready, uint64_t base_pfn, uint64_t npages)
{
	b->map = map;
	b->ready = ready;
	b->base_pfn = base_pfn;
	b->npages = npages;
	b->free_pages = 0;
	b->managed_pages = 0;
	b->nspans = 0;
	b->deferred_pages = 0;
	for (unsigned k = 0; k < BUDDY_ORDERS; k++) {
		list_init(&b->free[k]);
		b->nfree[k] = 0;
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

/* n pages of whole, not-ready chunks from pfn: keep them as a span, or
 * (no span left) initialise them now. */
static void defer(struct buddy *b, uint64_t pfn, uint64_t n)
{
	struct buddy_span *last = b->nspans ? &b->span[b->nspans - 1] : NULL;
	b->free_pages += n;
	b->managed_pages += n;
	if (last && last->end == pfn) {
		last->end += n;
	} else if (b->nspans < BUDDY_SPANS) {
		b->span[b->nspans++] = (struct buddy_span){ pfn, pfn + n };
	} else {
		for (uint64_t c = pfn; c < pfn + n; c += BUDDY_CHUNK) {
			chunk_init(b, c, 0);
			push(b, c, BUDDY_CHUNK_ORDER);
		}
		return;
	}
	b->deferred_pages += n;
}

/* Open the last deferred chunk onto the max-order list. */
static bool refill(struct buddy *b)
{
	if (!b->nspans)
		return false;
	struct buddy_span *s = &b->span[b->nspans - 1];
	uint64_t pfn = s->end - BUDDY_CHUNK;
	s->end = pfn;
	if (s->end == s->pfn)
		b->nspans--;
	chunk_init(b, pfn, 0);
	b->deferred_pages -= BUDDY_CHUNK;
	push(b, pfn, BUDDY_CHUNK_ORDER);
	return true;
}

void buddy_add_range(struct buddy *b, uint64_t pfn, uint64_t n)
{
	if (!in_range(b, pfn, n))
		return;
	while (n) {
		if (!(pfn & (BUDDY_CHUNK - 1)) && n >= BUDDY_CHUNK && !buddy_pfn_ready(b, pfn)) {
			uint64_t m = 0;
			while (m + BUDDY_CHUNK <= n && !buddy_pfn_ready(b, pfn + m))
				m += BUDDY_CHUNK;
			defer(b, pfn, m);
			pfn += m;
			n -= m;
			continue;
		}
		if (!buddy_pfn_ready(b, pfn))
			chunk_init(b, pfn, PG_RESERVED);
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
	if (k == BUDDY_ORDERS) {
		if (!refill(b))
			return -1;
		k = BUDDY_CHUNK_ORDER;
	}
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
	if (!buddy_pfn_ready(b, pfn))
		return false;           /* a never-initialised chunk: never handed out */
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
	if (b->nspans)
		return BUDDY_CHUNK_ORDER;
	for (int k = BUDDY_ORDERS - 1; k >= 0; k--)
		if (!list_empty(&b->free[k]))
			return k;
	return -1;
}

int buddy_check(const struct buddy *b)
{
	uint64_t listed = 0, deferred = 0;
	for (unsigned k = 0; k < BUDDY_ORDERS; k++) {
		uint64_t c = 0;
		list_for_each(it, &b->free[k]) {
			const struct page *p = list_entry(it, struct page, lru);
			uint64_t pfn = b->base_pfn + (uint64_t)(p - b->map);
			if (!(p->flags & PG_BUDDY) || p->order != k || (pfn & ((1ull << k) - 1)))
				return -1;      /* a listed block with a wrong head */
			if (!buddy_pfn_ready(b, pfn))
				return -2;      /* a listed block in an uninitialised chunk */
			c++;
		}
		if (c != b->nfree[k])
			return -3;              /* nfree disagrees with the list */
		listed += c << k;
	}
	for (int i = 0; i < b->nspans; i++) {
		const struct buddy_span *s = &b->span[i];
		if (s->end <= s->pfn || ((s->pfn | s->end) & (BUDDY_CHUNK - 1)))
			return -4;              /* an empty or misaligned span */
		for (uint64_t c = s->pfn; c < s->end; c += BUDDY_CHUNK)
			if (buddy_pfn_ready(b, c))
				return -5;      /* a deferred chunk already initialised */
		deferred += s->end - s->pfn;
	}
	if (deferred != b->deferred_pages)
		return -6;
	if (listed + deferred != b->free_pages)
		return -7;              /* the free counter drifted */
	return 0;
}
