#include "test.h"
#include "blk_merge.h"

TEST(blk_merge_back_and_front)
{
	struct blk_merge_item it[] = {
		{ 0, 100, 8, 1, false },       /* head */
		{ 0, 108, 8, 1, false },       /* back */
		{ 0, 92, 8, 1, false },        /* front */
		{ 1, 116, 8, 1, false },       /* other op: not merged */
		{ 0, 300, 8, 1, false },       /* not adjacent */
		{ 0, 116, 8, 1, false },       /* back, after the first one joined */
		{ 0, 84, 8, 1, false },        /* front, after the front one joined */
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
	struct blk_merge_item it[] = { { 0, 0, 8, 2, false }, { 0, 8, 8, 2, false }, { 0, 16, 8, 2, false }, { 0, 24, 8, 2, false } };
	int out[4];
	CHECK_EQ(blk_merge_pick(it, 4, 16, 100, out), 2);      /* max_blocks */
	CHECK_EQ(blk_merge_pick(it, 4, 1000, 6, out), 3);      /* max_segs */
	CHECK_EQ(blk_merge_pick(it, 1, 1000, 100, out), 1);
	CHECK_EQ(out[0], 0);
	/* A duplicate of the head's range is never taken. */
	struct blk_merge_item dup[] = { { 0, 0, 8, 1, false }, { 0, 0, 8, 1, false }, { 0, 8, 8, 1, false }, { 0, 8, 8, 1, false } };
	CHECK_EQ(blk_merge_pick(dup, 4, 1000, 100, out), 2);
}

TEST(blk_merge_alone_items)
{
	int out[4];
	/* An alone head is a command of its own... */
	struct blk_merge_item head[] = { { 0, 8, 8, 1, true }, { 0, 16, 8, 1, false }, { 0, 0, 8, 1, false } };
	CHECK_EQ(blk_merge_pick(head, 3, 1000, 100, out), 1);
	CHECK_EQ(out[0], 0);
	/* ...and an alone partner is never taken, nor merged across. */
	struct blk_merge_item mid[] = { { 0, 0, 8, 1, false }, { 0, 8, 8, 1, true }, { 0, 16, 8, 1, false } };
	CHECK_EQ(blk_merge_pick(mid, 3, 1000, 100, out), 1);
	struct blk_merge_item front[] = { { 0, 8, 8, 1, false }, { 0, 0, 8, 1, true }, { 0, 16, 8, 1, false } };
	CHECK_EQ(blk_merge_pick(front, 3, 1000, 100, out), 2);
	CHECK_EQ(out[0], 0);
	CHECK_EQ(out[1], 2);
}

TEST(blk_merge_split_rules)
{
	struct blk_merge_item it[] = { { 1, 0, 8, 1, false }, { 1, 8, 8, 1, false }, { 1, 16, 8, 1, true } };
	bool retry[3] = { true, true, true };
	CHECK_EQ(blk_merge_split(it, 2, 0, retry), 0);          /* success: all complete */
	CHECK(!retry[0] && !retry[1]);
	CHECK_EQ(blk_merge_split(it, 1, -5, retry), 0);         /* failed alone: the error is its own */
	CHECK(!retry[0]);
	CHECK_EQ(blk_merge_split(it, 2, -5, retry), 2);         /* failed merged: both retried */
	CHECK(retry[0] && retry[1]);
	CHECK_EQ(blk_merge_split(it, 3, -110, retry), 2);       /* one already alone: not again */
	CHECK(retry[0] && retry[1] && !retry[2]);
}

/*
 * The block layer's loop in miniature: a queue of requests, commands made
 * by blk_merge_pick from its head, a device that fails every command
 * touching a bad block, and blk_merge_split deciding what goes back to
 * the head of the queue.  Only requests holding a bad block may fail, and
 * no request runs more than twice.
 */
#define SIM_MAX 64

struct sim {
	struct blk_merge_item q[SIM_MAX];
	int id[SIM_MAX], nq;
	int status[SIM_MAX], runs[SIM_MAX], cmds;
};

static bool sim_bad(uint64_t lba, uint32_t n, const uint64_t *bad, int nbad)
{
	for (int i = 0; i < nbad; i++)
		if (bad[i] >= lba && bad[i] < lba + n)
			return true;
	return false;
}

static void sim_remove(struct sim *s, const int *idx, int k, struct blk_merge_item *items, int *ids)
{
	bool gone[SIM_MAX] = { false };
	for (int i = 0; i < k; i++) {
		items[i] = s->q[idx[i]];
		ids[i] = s->id[idx[i]];
		gone[idx[i]] = true;
	}
	int w = 0;
	for (int i = 0; i < s->nq; i++)
		if (!gone[i]) {
			s->q[w] = s->q[i];
			s->id[w++] = s->id[i];
		}
	s->nq = w;
}

static void sim_push_front(struct sim *s, const struct blk_merge_item *it, int id)
{
	memmove(&s->q[1], &s->q[0], s->nq * sizeof s->q[0]);
	memmove(&s->id[1], &s->id[0], s->nq * sizeof s->id[0]);
	s->q[0] = *it;
	s->q[0].alone = true;
	s->id[0] = id;
	s->nq++;
}

static void sim_run(struct sim *s, uint32_t max_blocks, const uint64_t *bad, int nbad)
{
	while (s->nq) {
		int idx[SIM_MAX], ids[SIM_MAX];
		struct blk_merge_item items[SIM_MAX];
		bool retry[SIM_MAX];
		int k = blk_merge_pick(s->q, s->nq, max_blocks, 1000, idx);
		sim_remove(s, idx, k, items, ids);
		uint32_t n = 0;
		for (int i = 0; i < k; i++)
			n += items[i].nblocks;
		int status = sim_bad(items[0].lba, n, bad, nbad) ? -5 : 0;
		s->cmds++;
		blk_merge_split(items, k, status, retry);
		for (int i = k - 1; i >= 0; i--) {
			s->runs[ids[i]]++;
			if (retry[i])
				sim_push_front(s, &items[i], ids[i]);
			else
				s->status[ids[i]] = status;
		}
	}
}

static void sim_fill(struct sim *s, int n)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < n; i++) {
		s->q[i] = (struct blk_merge_item){ 1, 1000 + 8 * (uint64_t)i, 8, 1, false };
		s->id[i] = i;
		s->status[i] = 1;       /* not completed */
	}
	s->nq = n;
}

TEST(blk_merge_split_isolates_bad_block)
{
	static struct sim s;
	uint64_t bad[] = { 1000 + 8 * 13 + 5 };         /* inside request 13 */
	sim_fill(&s, 32);
	sim_run(&s, 256, bad, 1);
	CHECK_EQ(s.cmds, 1 + 32);                       /* one merged command, then each alone */
	for (int i = 0; i < 32; i++) {
		CHECK_EQ(s.status[i], i == 13 ? (unsigned long long)-5 : 0);
		CHECK_EQ(s.runs[i], 2);
	}
}

TEST(blk_merge_split_only_the_failed_command)
{
	static struct sim s;
	/* 8 requests per command; bad blocks in requests 9 and 14 (command
	 * 2 of 4) and at the very first block of request 30 (command 4). */
	uint64_t bad[] = { 1000 + 8 * 9, 1000 + 8 * 14 + 7, 1000 + 8 * 30 };
	sim_fill(&s, 32);
	sim_run(&s, 64, bad, 3);
	CHECK_EQ(s.cmds, 4 + 8 + 8);
	for (int i = 0; i < 32; i++) {
		bool failed = i == 9 || i == 14 || i == 30;
		bool retried = (i >= 8 && i < 16) || i >= 24;
		CHECK_EQ(s.status[i], failed ? (unsigned long long)-5 : 0);
		CHECK_EQ(s.runs[i], retried ? 2 : 1);
	}
	/* Without errors nothing is retried. */
	sim_fill(&s, 32);
	sim_run(&s, 64, bad, 0);
	CHECK_EQ(s.cmds, 4);
}
