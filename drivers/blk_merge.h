/*
 * Request merging for the block layer, pure: given the queued requests,
 * choose which ones become one device command; given a failed command,
 * choose which of its requests to retry alone.  The block layer calls it
 * under its queue lock; tests call it with arrays.
 */
#ifndef BLK_MERGE_H
#define BLK_MERGE_H

#include <stdint.h>
#include <stdbool.h>

#define BLK_MERGE_MAX 256       /* items looked at by blk_merge_pick */

struct blk_merge_item {
	uint32_t op;            /* requests merge only with the same op */
	uint64_t lba;
	uint32_t nblocks;
	uint32_t nsegs;
	bool alone;             /* never merged with anything */
};

/* Start from items[0] and grow a contiguous block range by taking queued
 * items that end where it starts (front merge) or start where it ends
 * (back merge), while the total stays within max_blocks and max_segs.
 * Items marked alone are neither taken nor, as items[0], grown.
 * Writes the chosen indices, in LBA order, to out (capacity n) and returns
 * how many (>= 1).  Only the first BLK_MERGE_MAX items are looked at. */
int blk_merge_pick(const struct blk_merge_item *items, int n, uint32_t max_blocks, uint32_t max_segs, int *out);

/* A command made of the n requests items[] ended with status.  Sets
 * retry[i] for each request to be resubmitted on its own: when a command
 * that merged several requests fails, every one of them not yet alone is
 * retried alone, so that only a request that fails by itself reports the
 * error.  The others complete with status.  Returns how many to retry. */
int blk_merge_split(const struct blk_merge_item *items, int n, int status, bool *retry);

#endif
