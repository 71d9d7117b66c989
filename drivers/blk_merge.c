/*
 * Merge selection and the splitting of failed merged commands.
 *
 * Picking is O(n^2) in the queue length, which the block layer keeps small
 * (requests are dispatched as soon as the device has room, so only a
 * plugged batch or a full device queue builds a backlog); at most
 * BLK_MERGE_MAX items are looked at.
 *
 * Splitting: a device reports one status per command, so a failed merged
 * command says nothing about which of its requests hold the bad blocks.
 * Retrying each request alone, once, answers that at the cost of one
 * command per request, paid only on errors; a request never merges again
 * after that, so the retries end.
 */
#include "blk_merge.h"

static bool taken(const uint64_t *set, int i) { return set[i / 64] >> (i % 64) & 1; }
static void take(uint64_t *set, int i) { set[i / 64] |= 1ull << (i % 64); }

static bool fits(const struct blk_merge_item *it, int i, uint32_t blocks, uint32_t segs, uint32_t max_blocks,
		 uint32_t max_segs)
{
	return !it[i].alone && it[i].op == it[0].op && blocks + it[i].nblocks <= max_blocks &&
	       segs + it[i].nsegs <= max_segs;
}

int blk_merge_pick(const struct blk_merge_item *it, int n, uint32_t max_blocks, uint32_t max_segs, int *out)
{
	uint64_t set[BLK_MERGE_MAX / 64] = { 1 };      /* item 0 is taken */
	if (n > BLK_MERGE_MAX)
		n = BLK_MERGE_MAX;
	int nord = 1;
	out[0] = 0;
	uint64_t lo = it[0].lba, hi = it[0].lba + it[0].nblocks;
	uint32_t blocks = it[0].nblocks, segs = it[0].nsegs;
	for (bool grown = !it[0].alone; grown;) {
		grown = false;
		for (int i = 1; i < n; i++) {
			if (taken(set, i) || !fits(it, i, blocks, segs, max_blocks, max_segs))
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
			take(set, i);
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

int blk_merge_split(const struct blk_merge_item *it, int n, int status, bool *retry)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		retry[i] = status != 0 && n > 1 && !it[i].alone;
		k += retry[i];
	}
	return k;
}
