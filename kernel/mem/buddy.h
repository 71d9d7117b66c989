/*
 * Binary buddy allocator over a range of page frame numbers.  Pure logic:
 * it reads and writes only struct page descriptors, never the frames, so
 * tests drive it on the host with a plain array.  No locking: the caller
 * (pmm) holds its lock around every call.
 *
 * Descriptors are initialised lazily, one chunk (an aligned max-order
 * block, 4 MiB) at a time, so a boot with a terabyte of RAM touches a few
 * bitmap words instead of 16 GiB of struct pages.  buddy_add_range keeps
 * runs of whole free chunks as "deferred" spans: free and counted, but
 * their descriptors are untouched memory.  The first allocation that
 * needs one initialises the chunk and splits it like any free block.  A
 * chunk that is only partly free is initialised when it is added (its
 * other pages PG_RESERVED); a chunk with no free page is never initialised
 * and has no valid descriptors (buddy_pfn_ready() is false).
 */
#ifndef BUDDY_H
#define BUDDY_H

#include <stdint.h>
#include <stdbool.h>
#include "page.h"

#define BUDDY_ORDERS 11         /* orders 0..10: 4 KiB .. 4 MiB blocks */
#define BUDDY_CHUNK_ORDER (BUDDY_ORDERS - 1)
#define BUDDY_CHUNK (1ull << BUDDY_CHUNK_ORDER)         /* pages per chunk */
/* Deferred spans kept; each add_range call makes at most one, and memmap
 * has at most 512 ranges.  When full, further chunks are initialised at
 * once (slower, still correct). */
#define BUDDY_SPANS 128

/* 64-bit words of the `ready` bitmap for [base_pfn, base_pfn + npages). */
static inline uint64_t buddy_ready_words(uint64_t base_pfn, uint64_t npages)
{
	uint64_t first = base_pfn >> BUDDY_CHUNK_ORDER;
	uint64_t last = (base_pfn + npages + BUDDY_CHUNK - 1) >> BUDDY_CHUNK_ORDER;
	return (last - first + 63) / 64;
}

struct buddy_span {
	uint64_t pfn, end;              /* [pfn, end): whole chunks, descriptors untouched */
};

struct buddy {
	struct page *map;               /* descriptors for [base_pfn, base_pfn + npages) */
	uint64_t *ready;                /* bit per chunk: its descriptors are initialised */
	uint64_t base_pfn, npages;
	struct list_node free[BUDDY_ORDERS];
	uint64_t nfree[BUDDY_ORDERS];   /* blocks on each list */
	struct buddy_span span[BUDDY_SPANS];
	int nspans;
	uint64_t deferred_pages;        /* free pages in spans (counted in free_pages) */
	uint64_t free_pages;
	uint64_t managed_pages;         /* pages ever given to the allocator */
};

/* map: room for npages descriptors, contents ignored (never read before a
 * chunk is initialised).  ready: buddy_ready_words() zeroed words.  O(1):
 * nothing is touched per page. */
void buddy_init(struct buddy *b, struct page *map, uint64_t *ready, uint64_t base_pfn, uint64_t npages);
void buddy_add_range(struct buddy *b, uint64_t pfn, uint64_t n);

/* Returns the first pfn of a 2^order block, or -1 when none is free. */
int64_t buddy_alloc(struct buddy *b, unsigned order);

/* Free a block from buddy_alloc.  Returns false (and changes nothing) on a
 * pfn outside the range, a misaligned block or a double free. */
bool buddy_free(struct buddy *b, uint64_t pfn, unsigned order);

/* Largest order with a free block, or -1. */
int buddy_max_free_order(const struct buddy *b);

/* Does pfn have an initialised descriptor?  Lock-free readers are safe for
 * pages they hold: a bit is set once, before the chunk's first page is
 * handed out, and never cleared. */
bool buddy_pfn_ready(const struct buddy *b, uint64_t pfn);

/* Check the counters against the lists and spans (tests; O(free blocks)).
 * Returns 0, or a negative code naming the first broken invariant. */
int buddy_check(const struct buddy *b);

#endif
