/*
 * Request merging for the block layer, pure: given the queued requests,
 * choose which ones become one device command.  The block layer calls it
 * under its queue lock; tests call it with arrays.
 */
#ifndef BLK_MERGE_H
#define BLK_MERGE_H

#include <stdint.h>

struct blk_merge_item {
	uint32_t op;            /* requests merge only with the same op */
	uint64_t lba;
	uint32_t nblocks;
	uint32_t nsegs;
};

/* Start from items[0] and grow a contiguous block range by taking queued
 * items that end where it starts (front merge) or start where it ends
 * (back merge), while the total stays within max_blocks and max_segs.
 * Writes the chosen indices, in LBA order, to out (capacity n) and returns
 * how many (>= 1). */
int blk_merge_pick(const struct blk_merge_item *items, int n, uint32_t max_blocks, uint32_t max_segs, int *out);

#endif
