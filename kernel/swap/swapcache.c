/*
 * Swap cache: an open hash table of chains through a small node per page
 * (struct page has no spare link while it sits on an LRU list).  Buckets
 * are sized at boot from the number of RAM pages, so chains stay short.
 *
 * Locking: sc.lock ("swapcache", irqsave) guards the table; it nests inside page locks
 * and page-table locks and outside the swap allocator's lock.
 */
#include <string.h>
#include "swapcache.h"
#include "swap.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/vmstat.h"
#include "mem/kmalloc.h"
#include "core/panic.h"
#include "lib/errno.h"
#include "core/spinlock.h"
#include "readahead.h"

struct node {
	struct node *next;
	uint64_t entry;
	struct page *page;
};

static struct {
	struct spinlock lock;
	struct node **bucket;
	uint64_t nbuckets, n;
} sc = { .lock = SPINLOCK_INIT("swapcache") };

void swapcache_init(uint64_t pages)
{
	uint64_t nb = 64;
	while (nb < pages / 4 && nb < (1u << 20))
		nb *= 2;
	sc.bucket = kzalloc(nb * sizeof *sc.bucket);
	if (!sc.bucket)
		panic("swapcache: no memory for %lu buckets", nb);
	sc.nbuckets = nb;
}

static struct node **slot(uint64_t entry)
{
	uint64_t h = entry * 0x9e3779b97f4a7c15ull;
	return &sc.bucket[(h >> 20) & (sc.nbuckets - 1)];
}

int swapcache_add(struct page *p, uint64_t entry)
{
	struct node *n = kmalloc(sizeof *n);
	if (!n)
		return -ENOMEM;
	bool on = spin_lock_irqsave(&sc.lock);
	struct node **b = slot(entry);
	for (struct node *x = *b; x; x = x->next)
		if (x->entry == entry) {
			spin_unlock_irqrestore(&sc.lock, on);
			kfree(n);
			return -EEXIST;
		}
	n->entry = entry;
	n->page = p;
	n->next = *b;
	*b = n;
	sc.n++;
	get_page(p);
	p->private = entry;
	page_set(p, PG_SWAPCACHE);
	spin_unlock_irqrestore(&sc.lock, on);
	swap_dup(entry);
	vmstat_inc(SWAPCACHE_ADD);
	return 0;
}

void swapcache_del(struct page *p)
{
	uint64_t entry = p->private;
	struct node *gone = NULL;
	bool on = spin_lock_irqsave(&sc.lock);
	for (struct node **b = slot(entry); *b; b = &(*b)->next)
		if ((*b)->page == p) {
			gone = *b;
			*b = gone->next;
			sc.n--;
			break;
		}
	if (gone)
		page_clear(p, PG_SWAPCACHE);
	spin_unlock_irqrestore(&sc.lock, on);
	if (!gone)
		panic("swapcache_del: page not in the cache (entry 0x%lx)", entry);
	kfree(gone);
	vmstat_inc(SWAPCACHE_DEL);
	swap_free(entry);
	put_page(p);
}

struct page *swapcache_lookup(uint64_t entry, bool count)
{
	struct page *p = NULL;
	bool on = spin_lock_irqsave(&sc.lock);
	for (struct node *x = *slot(entry); x; x = x->next)
		if (x->entry == entry) {
			p = x->page;
			get_page(p);
			break;
		}
	spin_unlock_irqrestore(&sc.lock, on);
	if (count) {
		vmstat_inc(SWAPCACHE_FIND);
		if (p)
			vmstat_inc(SWAPCACHE_FIND_HIT);
	}
	return p;
}

void swapcache_drop(struct page *p)
{
	page_clear(p, PG_RA_MARK);
	if (page_test_clear(p, PG_READAHEAD))
		ra_waste(p->private);
	swapcache_del(p);
}

void swapcache_free_entry(uint64_t entry)
{
	swap_free(entry);
	if (swap_count(entry) != 1)
		return;
	struct page *p = swapcache_lookup(entry, false);
	if (!p)
		return;
	if (trylock_page(p)) {
		if (page_test(p, PG_SWAPCACHE) && p->private == entry && !p->mapcount &&
		    !page_test(p, PG_WRITEBACK | PG_SHMEM) && swap_count(entry) == 1) {
			swapcache_drop(p);
		}
		unlock_page(p);
	}
	put_page(p);
}

uint64_t swapcache_size(void) { return sc.n; }

int swapcache_collect(unsigned area, struct page **out, int max)
{
	int n = 0;
	bool on = spin_lock_irqsave(&sc.lock);
	for (uint64_t b = 0; b < sc.nbuckets && n < max; b++)
		for (struct node *x = sc.bucket[b]; x && n < max; x = x->next)
			if (swp_area(x->entry) == area) {
				get_page(x->page);
				out[n++] = x->page;
			}
	spin_unlock_irqrestore(&sc.lock, on);
	return n;
}
