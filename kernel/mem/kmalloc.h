/*
 * Kernel heap.  kmalloc never sleeps and may be called with interrupts
 * off; it returns NULL when memory is short (callers handle it).  Sizes up
 * to 2048 bytes come from per-size slabs, larger ones from whole pages.
 * Memory is 16-byte aligned; kzalloc zeroes it.
 */
#ifndef KMALLOC_H
#define KMALLOC_H

#include <stddef.h>
#include <stdint.h>

void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);
/* Give every CPU's cached free objects back to their slabs, so empty
 * slab pages return to the page allocator (the memory balance). */
void kmalloc_drain_all(void);
/* Make the magazines of CPUs 0..n-1 now (once they are online), not at
 * their first kmalloc in the middle of a run. */
void kmalloc_cpus_ready(unsigned n);

struct kmalloc_stats {
	uint64_t allocs, frees, failures;
	uint64_t slab_pages, large_pages;
	uint64_t bytes_in_use;          /* by size class, not request */
};
void kmalloc_get_stats(struct kmalloc_stats *s);

#endif
