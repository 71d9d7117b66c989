/*
 * Per-CPU free-page lists in front of the buddy allocator (Linux's pcp
 * lists): each CPU keeps a short list of free order-0 pages, so most
 * single-page allocations and frees touch only that CPU's list and its
 * own lock, and the buddy (one lock for every CPU) is entered once per
 * BATCH pages, not once per page.
 *
 * The list is LIFO at the head, the end the cache is warm at: a page
 * freed is the next one handed out.  When a free makes it longer than
 * HIGH, the BATCH coldest pages (at the tail) go back to the buddy; an
 * allocation that finds it empty takes BATCH pages from the buddy.
 *
 * This file is the list logic, pure (tested on the host against the real
 * buddy); mem/pmm.c owns the lists, their locks and the rules for
 * draining them.  No locking here: the caller holds the list's lock, and
 * the buddy's lock around pcp_refill and pcp_spill.
 */
#ifndef PCP_H
#define PCP_H

#include <stdint.h>
#include <stdbool.h>
#include "page.h"
#include "buddy.h"

struct pcp_list {
	struct list_node pages;         /* free order-0 pages via lru, PG_PCP, hottest first */
	uint32_t count;
};

/* What the lists draw from: the buddy, its lock (taken around every
 * buddy call, never around a list alone), and the marks every list
 * follows. */
struct pcp_pool {
	struct buddy *buddy;
	void (*lock)(void *arg);
	void (*unlock)(void *arg);
	void *arg;
	uint32_t high, batch;           /* [A] pcp_marks(); changed while lists run */
	uint64_t pages;                 /* [A] on all lists: free pages the buddy does not count */
};

/* The marks for ncpus CPUs sharing managed_pages (see pcp.c for the
 * scaling).  batch >= 1, high >= batch. */
void pcp_marks(uint64_t managed_pages, unsigned ncpus, uint32_t *high, uint32_t *batch);

void pcp_init(struct pcp_list *l);
/* The hottest page (PG_PCP cleared), or NULL when the list is empty. */
struct page *pcp_pop(struct pcp_list *l);
/* Put a free page (flags 0, no references) at the head. */
void pcp_push(struct pcp_list *l, struct page *p);
/* The policy.  pcp_alloc: the list's hottest page, the list refilled
 * with batch pages first if empty; NULL when the buddy has none either.
 * pcp_free: the page goes to the head; a list over high gives its batch
 * coldest back.  pcp_drain: the whole list back.  The last two return
 * false if the buddy refused a page (pcp_spill). */
struct page *pcp_alloc(struct pcp_pool *pool, struct pcp_list *l);
bool pcp_free(struct pcp_pool *pool, struct pcp_list *l, struct page *p);
bool pcp_drain(struct pcp_pool *pool, struct pcp_list *l);

/* The steps (no pool): take up to batch pages from the buddy; returns
 * how many it gave. */
uint32_t pcp_refill(struct pcp_list *l, struct buddy *b, uint32_t batch);
/* Give the n coldest pages (all when n >= count) back to the buddy.
 * Returns how many went back, or -1 if the buddy refused one (a page
 * that was not free: a broken invariant; the list stops there). */
int64_t pcp_spill(struct pcp_list *l, struct buddy *b, uint32_t n);

#endif
