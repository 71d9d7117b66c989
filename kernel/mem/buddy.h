/*
 * Binary buddy allocator over a range of page frame numbers.  Pure logic:
 * it reads and writes only struct page descriptors, never the frames, so
 * tests drive it on the host with a plain array.  No locking: the caller
 * (pmm) holds its lock around every call.
 */
#ifndef BUDDY_H
#define BUDDY_H

#include <stdint.h>
#include <stdbool.h>
#include "page.h"

#define BUDDY_ORDERS 11         /* orders 0..10: 4 KiB .. 4 MiB blocks */

struct buddy {
	struct page *map;               /* descriptors for [base_pfn, base_pfn + npages) */
	uint64_t base_pfn, npages;
	struct list_node free[BUDDY_ORDERS];
	uint64_t nfree[BUDDY_ORDERS];   /* blocks on each list */
	uint64_t free_pages;
	uint64_t managed_pages;         /* pages ever given to the allocator */
};

/* All pages start reserved; buddy_add_range hands them over. */
void buddy_init(struct buddy *b, struct page *map, uint64_t base_pfn, uint64_t npages);
void buddy_add_range(struct buddy *b, uint64_t pfn, uint64_t n);

/* Returns the first pfn of a 2^order block, or -1 when none is free. */
int64_t buddy_alloc(struct buddy *b, unsigned order);

/* Free a block from buddy_alloc.  Returns false (and changes nothing) on a
 * pfn outside the range, a misaligned block or a double free. */
bool buddy_free(struct buddy *b, uint64_t pfn, unsigned order);

/* Largest order with a free block, or -1. */
int buddy_max_free_order(const struct buddy *b);

#endif
