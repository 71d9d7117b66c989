/*
 * LRU list storage.  One set of lists for the whole machine (one memory
 * node).  New pages enter at the head of a list; reclaim takes from the
 * tail, so the tail holds the least recently added or rotated pages.
 *
 * Locking: lru_lock (irqsave) guards the lists, the counts and the PG_LRU
 * and PG_ACTIVE bits of listed pages.  It is the innermost mm lock: no
 * other lock is taken while holding it (put_page may run under other
 * locks and takes it).  New pages reach it in batches (lru_batch.c), so a
 * fault does not take it.
 */
#include "lru.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vmstat.h"
#include "core/spinlock.h"
#include "core/panic.h"

static struct {
	struct spinlock lock;
	struct list_node list[LRU_KINDS][2];    /* [kind][active] */
	uint64_t n[LRU_KINDS][2];
} L = {
	.lock = SPINLOCK_INIT("lru"),
	.list = { { LIST_INIT(L.list[0][0]), LIST_INIT(L.list[0][1]) },
		  { LIST_INIT(L.list[1][0]), LIST_INIT(L.list[1][1]) },
		  { LIST_INIT(L.list[2][0]), LIST_INIT(L.list[2][1]) } },
};

static void link_page(struct page *p, enum lru_kind kind, bool active)
{
	p->kind = (uint8_t)kind;
	list_add(&p->lru, &L.list[kind][active]);
	L.n[kind][active]++;
	page_set(p, PG_LRU | (active ? PG_ACTIVE : 0));
	if (!active)
		page_clear(p, PG_ACTIVE);
}

static void unlink_page(struct page *p)
{
	bool active = page_test(p, PG_ACTIVE);
	list_del(&p->lru);
	L.n[p->kind][active]--;
	page_clear(p, PG_LRU);
}

/* Lock held.  A refault inside the working set (PG_ACTIVATE_*) goes on
 * the active list whatever `active` says. */
static void link_new(struct page *p, enum lru_kind kind, bool active)
{
	if (!page_test(p, PG_LRU))
		link_page(p, kind, (kind != LRU_FILE &&
				    page_test_clear(p, kind == LRU_SHMEM ? PG_ACTIVATE_SHMEM : PG_ACTIVATE_ANON)) || active);
}

void lru_link(struct page *p, enum lru_kind kind, bool active)
{
	bool on = spin_lock_irqsave(&L.lock);
	link_new(p, kind, active);
	spin_unlock_irqrestore(&L.lock, on);
}

enum lru_kind lru_kind_of(const struct page *p)
{
	return page_test(p, PG_FILE) ? LRU_FILE : page_test(p, PG_SHMEM) ? LRU_SHMEM : LRU_ANON;
}

void lru_link_batch(struct page *const *v, uint32_t active, uint32_t n)
{
	bool on = spin_lock_irqsave(&L.lock);
	for (uint32_t i = 0; i < n; i++)
		if (page_test_clear(v[i], PG_LRU_BATCH))
			link_new(v[i], lru_kind_of(v[i]), active >> i & 1);
	spin_unlock_irqrestore(&L.lock, on);
	for (uint32_t i = 0; i < n; i++)
		put_page(v[i]);                 /* the batch's reference */
}

void lru_del(struct page *p)
{
	page_clear(p, PG_LRU_BATCH);            /* waiting in a batch: it stays off the lists */
	bool on = spin_lock_irqsave(&L.lock);
	if (page_test(p, PG_LRU))
		unlink_page(p);
	spin_unlock_irqrestore(&L.lock, on);
}

void lru_activate(struct page *p)
{
	bool on = spin_lock_irqsave(&L.lock);
	if (page_test(p, PG_LRU) && !page_test(p, PG_ACTIVE)) {
		enum lru_kind k = p->kind;
		unlink_page(p);
		link_page(p, k, true);
		vmstat_inc(PGACTIVATE);
	}
	spin_unlock_irqrestore(&L.lock, on);
}

bool lru_deactivate(struct page *p)
{
	bool moved = false;
	bool on = spin_lock_irqsave(&L.lock);
	if (page_test(p, PG_LRU) && page_test(p, PG_ACTIVE)) {
		enum lru_kind k = p->kind;
		unlink_page(p);
		link_page(p, k, false);
		vmstat_inc(PGDEACTIVATE);
		moved = true;
	}
	spin_unlock_irqrestore(&L.lock, on);
	return moved;
}

bool lru_isolate_page(struct page *p)
{
	bool on = spin_lock_irqsave(&L.lock);
	bool listed = page_test(p, PG_LRU);
	if (listed)
		unlink_page(p);
	spin_unlock_irqrestore(&L.lock, on);
	return listed;
}

int lru_isolate(enum lru_kind kind, bool active, struct page **out, int n, uint64_t *scanned)
{
	int got = 0;
	bool on = spin_lock_irqsave(&L.lock);
	struct list_node *head = &L.list[kind][active];
	uint64_t budget = L.n[kind][active];
	while (got < n && budget-- && !list_empty(head)) {
		struct page *p = list_last(head, struct page, lru);
		(*scanned)++;
		if (!get_page_unless_zero(p)) {
			list_move(&p->lru, head);       /* being freed: leave it to put_page */
			continue;
		}
		unlink_page(p);
		out[got++] = p;
	}
	spin_unlock_irqrestore(&L.lock, on);
	return got;
}

int lru_pin_unflagged(enum lru_kind kind, uint32_t skip, uint32_t mark, struct page **out, int n, struct page **cursor,
		      uint32_t max_skip)
{
	int got = 0;
	bool on = spin_lock_irqsave(&L.lock);
	struct list_node *head = &L.list[kind][false];
	struct list_node *at = head->prev;
	struct page *c = *cursor;
	/* Resume after the last page pinned, if it is still where it was
	 * left: on this inactive list, marked. */
	if (c && page_test(c, PG_LRU) && !page_test(c, PG_ACTIVE) && c->kind == kind && page_test(c, skip))
		at = c->lru.prev;
	while (got < n && at != head) {
		struct page *p = container_of(at, struct page, lru);
		at = at->prev;
		if (page_test(p, skip)) {
			if (!max_skip--)
				break;
			continue;
		}
		if (!get_page_unless_zero(p))
			continue;               /* being freed */
		page_set(p, mark);
		out[got++] = p;
	}
	if (got)
		*cursor = out[got - 1];
	spin_unlock_irqrestore(&L.lock, on);
	return got;
}

void lru_putback_many(struct page *const *v, uint32_t active, uint32_t n)
{
	struct page *w[LRU_PUTBACK_MAX];
	uint32_t m = 0, act = 0;
	if (n > LRU_PUTBACK_MAX)
		panic("lru_putback_many: %u pages, at most %u", n, LRU_PUTBACK_MAX);
	for (uint32_t i = 0; i < n; i++) {
		/* Claimed as lru_add claims a page for a CPU's batch: one
		 * that waits in a batch already goes on a list from there. */
		if (__atomic_fetch_or(&v[i]->flags, PG_LRU_BATCH, __ATOMIC_ACQ_REL) & PG_LRU_BATCH) {
			put_page(v[i]);
			continue;
		}
		act |= (active >> i & 1) << m;
		w[m++] = v[i];
	}
	if (m)
		lru_link_batch(w, act, m);      /* links them, drops the isolation's references */
}

uint64_t lru_size(enum lru_kind kind, bool active) { return L.n[kind][active]; }
