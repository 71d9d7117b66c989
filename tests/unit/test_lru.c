#include <stdlib.h>
#include "test.h"
#include "vm/lru_policy.h"

TEST(lru_verdicts)
{
	CHECK_EQ(lru_judge_inactive(0, false, true, false), LRU_RECLAIM);
	CHECK_EQ(lru_judge_inactive(0, true, true, false), LRU_RECLAIM);
	CHECK_EQ(lru_judge_inactive(1, false, true, false), LRU_ACTIVATE);     /* swap-backed: promote */
	CHECK_EQ(lru_judge_inactive(1, false, false, false), LRU_KEEP);        /* file: second chance */
	CHECK_EQ(lru_judge_inactive(1, true, false, false), LRU_ACTIVATE);
	CHECK_EQ(lru_judge_inactive(2, false, false, false), LRU_ACTIVATE);
	/* Unused readahead: a vouched-for page gets one more trip, no other does. */
	CHECK_EQ(lru_judge_inactive(0, true, true, true), LRU_KEEP);
	CHECK_EQ(lru_judge_inactive(0, false, true, true), LRU_RECLAIM);
	CHECK_EQ(lru_judge_inactive(1, false, true, true), LRU_ACTIVATE);
	CHECK_EQ(lru_judge_active(0, false, false), LRU_DEACTIVATE);
	CHECK_EQ(lru_judge_active(3, false, false), LRU_ROTATE);
}

TEST(lru_active_file_aging)
{
	/* Linux 6.1's shrink_active_list: only executable mapped file pages
	 * keep their place when referenced; other file pages go inactive. */
	CHECK_EQ(lru_judge_active(1, true, false), LRU_DEACTIVATE);
	CHECK_EQ(lru_judge_active(4, true, false), LRU_DEACTIVATE);
	CHECK_EQ(lru_judge_active(1, true, true), LRU_ROTATE);
	CHECK_EQ(lru_judge_active(0, true, true), LRU_DEACTIVATE);
	CHECK_EQ(lru_judge_active(0, true, false), LRU_DEACTIVATE);
}

TEST(lru_inactive_ratio)
{
	/* Below 1 GiB the lists are kept equal. */
	CHECK(lru_inactive_is_low(99, 100, 1000));
	CHECK(!lru_inactive_is_low(100, 100, 1000));
	/* 10 GiB: ratio sqrt(100) = 10. */
	uint64_t ten_gib = 10ull << 18;
	CHECK(!lru_inactive_is_low(100, 1000, ten_gib));
	CHECK(lru_inactive_is_low(99, 1000, ten_gib));
}

TEST(lru_age_ahead_window)
{
	/* 16384 pages (64 MiB): a window of 1024 allocations above the floor. */
	uint64_t total = 16384, floor = 600;
	CHECK_EQ(lru_age_ahead_looks(floor, floor, total, 8000), 0);            /* at the floor: reclaim's turn */
	CHECK_EQ(lru_age_ahead_looks(floor + 1, floor, total, 8000), 8);        /* 8000 / 1024 + 1 */
	CHECK_EQ(lru_age_ahead_looks(floor + 1024, floor, total, 8000), 8);
	CHECK_EQ(lru_age_ahead_looks(floor + 1025, floor, total, 8000), 0);     /* plenty free: no looks yet */
	CHECK_EQ(lru_age_ahead_looks(floor + 10, floor, total, 0), 0);          /* nothing to look at */
	CHECK_EQ(lru_age_ahead_looks(floor + 10, floor, total, 100), 1);        /* at least one */
	/* The window's looks cover the list: rate * window >= inactive. */
	CHECK(lru_age_ahead_looks(floor + 10, floor, total, 16000) * 1024ull >= 16000);
	/* Capped: a list much longer than the window (a small machine). */
	CHECK_EQ(lru_age_ahead_looks(floor + 10, floor, total, 1ull << 30), LRU_AGE_MAX);
	/* 1 TiB (2^28 pages) and a list of all of it; and a tiny machine. */
	uint64_t tib = 1ull << 28;
	CHECK_EQ(lru_age_ahead_looks(floor + (tib >> 5), floor, tib, tib - 1), 16);
	CHECK_EQ(lru_age_ahead_looks(floor + 1, floor, 8, 100), 0);             /* no window at all */
}

TEST(lru_aged_reference_is_one_more_trip)
{
	/* Found referenced by the look ahead, unreferenced at reclaim's: one
	 * more trip, as for a reference reclaim had seen itself; any other
	 * verdict stands, and without that look nothing changes. */
	CHECK_EQ(lru_judge_aged(LRU_RECLAIM, true), LRU_KEEP);
	CHECK_EQ(lru_judge_aged(LRU_RECLAIM, false), LRU_RECLAIM);
	CHECK_EQ(lru_judge_aged(LRU_ACTIVATE, true), LRU_ACTIVATE);
	CHECK_EQ(lru_judge_aged(LRU_KEEP, true), LRU_KEEP);
	CHECK_EQ(lru_judge_aged(lru_judge_inactive(0, false, true, false), true), LRU_KEEP);
	CHECK_EQ(lru_judge_aged(lru_judge_inactive(1, false, true, false), true), LRU_ACTIVATE);
}

TEST(lru_scan_split_by_size)
{
	uint64_t a, s;
	lru_scan_split(300, 100, 40, &a, &s);
	CHECK_EQ(a, 30);
	CHECK_EQ(s, 10);
	lru_scan_split(0, 100, 40, &a, &s);
	CHECK_EQ(a, 0);
	CHECK_EQ(s, 40);
	lru_scan_split(0, 0, 40, &a, &s);
	CHECK_EQ(a + s, 0);
}

/*
 * A simulated page set driven through the verdicts the way reclaim.c does:
 * pages sit on an active or inactive FIFO, each round some are accessed
 * (their "accessed bit" is set), then reclaim must evict `need` pages:
 * refill the inactive list from the active tail while it is low, and judge
 * the inactive tail.  A hot set accessed every round must never be
 * evicted; evictions must come from the cold set.
 */
#define NP 400
struct sim {
	int list[2][NP * 2];            /* circular FIFOs of page ids */
	int head[2], tail[2], n[2];
	bool accessed[NP], referenced[NP], resident[NP];
	int evicted_hot, evicted_cold;
};

static void push(struct sim *s, int l, int pg)
{
	s->list[l][s->head[l]] = pg;
	s->head[l] = (s->head[l] + 1) % (NP * 2);
	s->n[l]++;
}

static int pop(struct sim *s, int l)
{
	int pg = s->list[l][s->tail[l]];
	s->tail[l] = (s->tail[l] + 1) % (NP * 2);
	s->n[l]--;
	return pg;
}

/* One reclaim pass between two rounds of accesses: it scans at most four
 * times what it must free, as the kernel's chunks do between the
 * workload's touches. */
static void reclaim(struct sim *s, int need, int hot)
{
	for (int budget = need * 4; need > 0 && budget > 0; budget--) {
		while (lru_inactive_is_low((uint64_t)s->n[0], (uint64_t)s->n[1], NP) && s->n[1]) {
			int pg = pop(s, 1);
			unsigned refs = s->accessed[pg];
			s->accessed[pg] = false;
			push(s, lru_judge_active(refs, false, false) == LRU_ROTATE ? 1 : 0, pg);
		}
		if (!s->n[0])
			continue;
		int pg = pop(s, 0);
		unsigned refs = s->accessed[pg];
		s->accessed[pg] = false;
		bool was = s->referenced[pg];
		s->referenced[pg] = false;
		switch (lru_judge_inactive(refs, was, true, false)) {
		case LRU_RECLAIM:
			s->resident[pg] = false;
			if (pg < hot)
				s->evicted_hot++;
			else
				s->evicted_cold++;
			need--;
			break;
		case LRU_ACTIVATE:
			push(s, 1, pg);
			break;
		default:
			s->referenced[pg] = true;
			push(s, 0, pg);
			break;
		}
	}
}

TEST(lru_simulation_keeps_the_hot_set)
{
	static struct sim s;
	memset(&s, 0, sizeof s);
	const int hot = 50;
	for (int pg = 0; pg < NP; pg++) {
		s.resident[pg] = true;
		s.accessed[pg] = true;          /* mapped pages start accessed */
		push(&s, 0, pg);
	}
	srand(7);
	int faults = 0;
	for (int round = 0; round < 200; round++) {
		for (int pg = 0; pg < hot; pg++)
			s.accessed[pg] = true;
		/* A few cold pages touched at random: some were evicted and
		 * come back (a fault), taking a fresh place on the list. */
		for (int k = 0; k < 10; k++) {
			int pg = hot + rand() % (NP - hot);
			if (!s.resident[pg]) {
				s.resident[pg] = true;
				push(&s, 0, pg);
				faults++;
			}
			s.accessed[pg] = true;
		}
		reclaim(&s, 10, hot);
	}
	CHECK(faults > 0);
	CHECK(s.evicted_cold > 1000);
	CHECK_EQ(s.evicted_hot, 0);
	for (int pg = 0; pg < hot; pg++)
		CHECK(s.resident[pg]);
}
