/*
 * Merge selection.  O(n^2) in the queue length, which the block layer keeps
 * small (requests are dispatched as soon as the device has room, so only a
 * plugged batch or a full device queue builds a backlog); at most
 * BLK_MERGE_MAX items are looked at.
 */
#include <stdbool.h>
#include "blk_merge.h"

#define BLK_MERGE_MAX 256

int blk_merge_pick(const struct blk_merge_item *it, int n, uint32_t max_blocks, uint32_t max_segs, int *out)
{
	bool taken[BLK_MERGE_MAX] = { true };
	if (n > BLK_MERGE_MAX)
		n = BLK_MERGE_MAX;
	int nord = 1;
	out[0] = 0;
	uint64_t lo = it[0].lba, hi = it[0].lba + it[0].nblocks;
	uint32_t blocks = it[0].nblocks, segs = it[0].nsegs;
	for (bool grown = true; grown;) {
		grown = false;
		for (int i = 1; i < n; i++) {
			if (taken[i] || it[i].op != it[0].op || blocks + it[i].nblocks > max_blocks ||
			    segs + it[i].nsegs > max_segs)
				continue;
			int at;
			if (it[i].lba == hi)
				at = nord;              /* back merge */
			else if (it[i].lba + it[i].nblocks == lo)
				at = 0;                 /* front merge */
			else
				continue;
			for (int k = nord; k > at; k--)
				out[k] = out[k - 1];
			out[at] = i;
			nord++;
			taken[i] = true;
			if (at == 0)
				lo = it[i].lba;
			else
				hi += it[i].nblocks;
			blocks += it[i].nblocks;
			segs += it[i].nsegs;
			grown = true;
		}
	}
	return nord;
}
