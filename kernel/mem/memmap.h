/*
 * Memory-map normalisation.  Pure code: takes the loader's region list
 * (possibly unsorted, overlapping, unaligned) and produces sorted,
 * non-overlapping, page-aligned ranges, each with one type.  Where regions
 * overlap, the more restrictive type wins (reserved beats usable), and the
 * overlap is counted and reported.  memmap_cap() then applies mem=.
 */
#ifndef MEMMAP_H
#define MEMMAP_H

#include <stdint.h>
#include <stdbool.h>
#include "boot/boot_info.h"

#define MEMMAP_MAX 512
#define MEMMAP_PAGE 4096ull

/* Extra range types beyond enum boot_mem_type. */
#define MEMMAP_FREE   100   /* usable by the page allocator (conventional, boot services, loader) */
#define MEMMAP_CAPPED 101   /* usable RAM withheld by mem= */
#define MEMMAP_LOWRES 102   /* taken below 1 MiB before the allocators start (AP trampoline) */

struct memmap_range {
	uint64_t start, end;    /* [start, end), page aligned */
	uint32_t type;          /* MEMMAP_FREE, MEMMAP_CAPPED or enum boot_mem_type */
};

struct memmap {
	struct memmap_range r[MEMMAP_MAX];
	int n;
	uint64_t total_ram;     /* all RAM-like bytes, usable or not */
	uint64_t usable;        /* MEMMAP_FREE bytes */
	uint64_t reserved;      /* firmware reserved, MMIO, bad */
	uint64_t capped;        /* MEMMAP_CAPPED bytes */
	int overlaps, unaligned, empty, dropped;   /* anomalies seen */
};

typedef void (*memmap_report_fn)(void *ctx, const char *msg);

/* Build m from the loader's regions.  Returns 0, or -1 when nothing usable. */
int memmap_build(const struct boot_mem_region *in, int n, struct memmap *m,
		 memmap_report_fn rep, void *ctx);

/* Withhold usable memory above the first cap bytes (counting in address
 * order, as Linux's mem= does).  Returns the usable bytes left. */
uint64_t memmap_cap(struct memmap *m, uint64_t cap);

/* Take `pages` contiguous usable pages below `limit` (the highest such run,
 * never page 0) out of the map as MEMMAP_LOWRES, before any allocator
 * sees the map.  Returns their address, or 0 when no usable run fits (or
 * the map has no room to split a range). */
uint64_t memmap_reserve_low(struct memmap *m, uint64_t pages, uint64_t limit);

/* Is this type RAM (counts toward total_ram)? */
bool memmap_is_ram(uint32_t type);

const char *memmap_type_name(uint32_t type);

#endif
