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

struct kmalloc_stats {
	uint64_t allocs, frees, failures;
	uint64_t slab_pages, large_pages;
	uint64_t bytes_in_use;          /* by size class, not request */
};
void kmalloc_get_stats(struct kmalloc_stats *s);

#endif
