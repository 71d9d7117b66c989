#include "test.h"
#include "blk_merge.h"

TEST(blk_merge_back_and_front)
{
	struct blk_merge_item it[] = {
		{ 0, 100, 8, 1 },       /* head */
		{ 0, 108, 8, 1 },       /* back */
		{ 0, 92, 8, 1 },        /* front */
		{ 1, 116, 8, 1 },       /* other op: not merged */
		{ 0, 300, 8, 1 },       /* not adjacent */
		{ 0, 116, 8, 1 },       /* back, after the first one joined */
		{ 0, 84, 8, 1 },        /* front, after the front one joined */
	};
	int out[8];
	int n = blk_merge_pick(it, 7, 1000, 100, out);
	CHECK_EQ(n, 5);
	int want[] = { 6, 2, 0, 1, 5 };         /* LBA order 84, 92, 100, 108, 116 */
	for (int i = 0; i < 5; i++)
		CHECK_EQ(out[i], want[i]);
}

TEST(blk_merge_limits)
{
	struct blk_merge_item it[] = { { 0, 0, 8, 2 }, { 0, 8, 8, 2 }, { 0, 16, 8, 2 }, { 0, 24, 8, 2 } };
	int out[4];
	CHECK_EQ(blk_merge_pick(it, 4, 16, 100, out), 2);      /* max_blocks */
	CHECK_EQ(blk_merge_pick(it, 4, 1000, 6, out), 3);      /* max_segs */
	CHECK_EQ(blk_merge_pick(it, 1, 1000, 100, out), 1);
	CHECK_EQ(out[0], 0);
	/* A duplicate of the head's range is never taken. */
	struct blk_merge_item dup[] = { { 0, 0, 8, 1 }, { 0, 0, 8, 1 }, { 0, 8, 8, 1 }, { 0, 8, 8, 1 } };
	CHECK_EQ(blk_merge_pick(dup, 4, 1000, 100, out), 2);
}
