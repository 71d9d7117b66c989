/*
 * Swap areas: devices or partitions carrying Linux's mkswap v1 header,
 * the slot allocator over them (swapalloc.c), and the page I/O.
 *
 * Areas come from the command line: swap=auto (default: every device with
 * a SWAPSPACE2 header), swap=none, or swap=DEV[:prio=N][:cluster=N],...;
 * swapformat=DEV,... writes a fresh header first (only devices named so
 * are ever formatted).  Equal priorities take turns by cluster.
 */
#ifndef SWAP_H
#define SWAP_H

#include <stdint.h>
#include <stdbool.h>
#include "swapalloc.h"

struct page;
struct blk_dev;
struct json;

/* After the block devices are up: set up the areas the command line asks for. */
void swap_init(void);

int swapon(struct blk_dev *d, int prio, uint32_t cluster);
/* Bring every page of the area back into memory and remove it.  Sleeps;
 * -EBUSY (area left on) if pages stay in use. */
int swapoff(int area);
/* Slots per cluster on every area (-EBUSY while slots are in use). */
int swap_set_cluster(uint32_t cluster);
uint32_t swap_cluster_size(void);
/* Drop swap-cache pages that are unmapped and whose slot only the cache holds. */
void swap_drop_unused_cache(void);
/* The area on the named device, or -1. */
int swap_area_of(const char *devname);
bool swap_enabled(void);

/* Slot allocation and reference counts (swapalloc's, on the pool: the
 * count changes and reads take no global lock; swap.c says how). */
int swap_alloc(int want, struct swap_run *runs, int maxruns);
/* A slot swap_alloc gave out holds its page now (the page is in the swap
 * cache): read-ahead may read it from here on. */
void swap_settle(uint64_t entry);
/* In use and holding data: counted, and settled. */
bool swap_holds_data(uint64_t entry);
void swap_dup(uint64_t entry);
/* swap_holds_data and, if so, a new count, in one step (Linux's
 * swapcache_prepare): for a read into the swap cache.  Checked apart, the
 * slot could go in between - its last PTE dropped by a fault of another
 * thread of the same mm, which runs in parallel - and the cache would
 * keep a page for a free slot. */
bool swap_dup_if_data(uint64_t entry);
void swap_free(uint64_t entry);
int swap_count(uint64_t entry);
void swap_retire(uint64_t entry);
bool swap_entry_valid(uint64_t entry);
uint64_t swap_total_slots(void);
uint64_t swap_used_slots(void);
/* Both at once (one pass over the areas: the fault path asks). */
void swap_slot_counts(uint64_t *total, uint64_t *used);
/* Slots of the area that hold data (for readahead windows). */
uint64_t swap_area_slots(unsigned area);

/* Asynchronous page I/O on one run of contiguous slots.  done(ctx,
 * status) runs in interrupt context after all pages are transferred. */
struct swap_io {
	int status;
	void (*done)(struct swap_io *io);
	void *ctx;
	/* private */
	void *req;
};
int swap_write_run(unsigned area, uint64_t off, struct page **pages, uint32_t n, struct swap_io *io);
int swap_read_run(unsigned area, uint64_t off, struct page **pages, uint32_t n, struct swap_io *io);
void swap_plug(unsigned area);
void swap_unplug(unsigned area);
const char *swap_dev_name(unsigned area);
/* The most pages one swap_*_run may carry on this area's device. */
uint32_t swap_max_run(unsigned area);
/* The most pages worth putting in one read on this area's device when
 * the first of them are wanted soon (blk_read_pages: blk_read_split, or
 * the device's limit). */
uint32_t swap_read_max(unsigned area);

/* Integrity option (swapcrc=on): remember a page's CRC at write, check it
 * after read.  Returns false (and counts, and reports) on a mismatch. */
void swap_crc_store(uint64_t entry, const struct page *p);
bool swap_crc_check(uint64_t entry, const struct page *p);

void swap_json(struct json *j);
void swap_report(void);

/* One area as /proc/swaps shows it (read-only): usable slots (not the
 * header, not bad ones) and slots in use.  False when the area is absent. */
struct swap_area_info {
	const char *dev;
	int prio;
	uint64_t usable, used;
};
bool swap_area_info(unsigned area, struct swap_area_info *out);

#endif
