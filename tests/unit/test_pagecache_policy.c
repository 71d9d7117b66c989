/* Page-cache policies: file read-ahead windows, dirty limits, the
 * used-once verdicts for every kind of page and the anon/file scan
 * balance by swappiness. */
#include "test.h"
#include "vm/pagecache_policy.h"
#include "vm/lru_policy.h"

TEST(pagecache_ra_sequential_grows)
{
	struct pagecache_ra ra = { 0 };
	/* First read of a file, one page: 4 pages, marker at page 1. */
	struct pagecache_ra_io io = pagecache_ra_next(&ra, 0, 1, false, 32);
	CHECK_EQ(io.start, 0);
	CHECK_EQ(io.n, 4);
	CHECK_EQ(io.mark, 1);
	/* The reader reaches the marker: the next window follows, x2 (4 is
	 * not below 32/16), all of it async (marked at its first page). */
	io = pagecache_ra_next(&ra, 1, 1, true, 32);
	CHECK_EQ(io.start, 4);
	CHECK_EQ(io.n, 8);
	CHECK_EQ(io.mark, 4);
	io = pagecache_ra_next(&ra, 4, 1, true, 32);
	CHECK_EQ(io.start, 12);
	CHECK_EQ(io.n, 16);
	io = pagecache_ra_next(&ra, 12, 1, true, 32);
	CHECK_EQ(io.start, 28);
	CHECK_EQ(io.n, 32);             /* 16 <= 32/2: x2, the max */
	io = pagecache_ra_next(&ra, 28, 1, true, 32);
	CHECK_EQ(io.start, 60);
	CHECK_EQ(io.n, 32);
	/* A large max: x4 while the window is below max/16. */
	struct pagecache_ra big = { 0 };
	pagecache_ra_next(&big, 0, 1, false, 256);
	io = pagecache_ra_next(&big, 1, 1, true, 256);
	CHECK_EQ(io.n, 16);
}

TEST(pagecache_ra_random_reads_only_the_request)
{
	struct pagecache_ra ra = { 0 };
	pagecache_ra_next(&ra, 0, 1, false, 32);
	struct pagecache_ra_io io = pagecache_ra_next(&ra, 5000, 2, false, 32);
	CHECK_EQ(io.start, 5000);
	CHECK_EQ(io.n, 2);
	CHECK_EQ(io.mark, ~0ull);
	io = pagecache_ra_next(&ra, 9000, 1, false, 32);
	CHECK_EQ(io.n, 1);
	/* A miss right after the previous read is sequential again. */
	io = pagecache_ra_next(&ra, 9001, 1, false, 32);
	CHECK_EQ(io.start, 9001);
	CHECK_EQ(io.n, 4);
	/* A request larger than max reads max. */
	io = pagecache_ra_next(&ra, 70000, 100, false, 32);
	CHECK_EQ(io.n, 32);
}

TEST(pagecache_ra_max_grows_to_the_device_for_large_reads)
{
	/* Linux's ondemand_readahead: ra_pages 32, io_pages 128. */
	CHECK_EQ(pagecache_ra_max(1, 32, 128), 32);
	CHECK_EQ(pagecache_ra_max(32, 32, 128), 32);
	CHECK_EQ(pagecache_ra_max(64, 32, 128), 64);         /* a 256 KiB read(2): one window */
	CHECK_EQ(pagecache_ra_max(1024, 32, 128), 128);
	CHECK_EQ(pagecache_ra_max(1024, 32, 16), 32);        /* small commands: read_ahead_kb stays */
	/* A 256 KiB read at the start of a file: one 64-page window, marked
	 * at its first page (Linux's initial window, async_size = size). */
	struct pagecache_ra ra = { 0 };
	struct pagecache_ra_io io = pagecache_ra_next(&ra, 0, 64, false, pagecache_ra_max(64, 32, 128));
	CHECK_EQ(io.start, 0);
	CHECK_EQ(io.n, 64);
	CHECK_EQ(io.mark, 0);
	/* The next read reaches the marker: the next 64 pages. */
	io = pagecache_ra_next(&ra, 0, 64, true, pagecache_ra_max(64, 32, 128));
	CHECK_EQ(io.start, 64);
	CHECK_EQ(io.n, 64);
}

/* Linux's mmap_miss: read-around stops once misses outnumber hits by
 * more than 100, and comes back as hits pay the count down. */
#define FAR ((uint64_t)1 << 40)         /* a last miss no page is near */
TEST(pagecache_mmap_read_around_stops_on_misses)
{
	uint32_t m = 0;
	for (int i = 0; i < PAGECACHE_MMAP_LOTSAMISS; i++) {
		m = pagecache_mmap_miss(m, false, 5000 * (uint64_t)i, FAR);
		CHECK(pagecache_mmap_read_around(m));
	}
	m = pagecache_mmap_miss(m, false, 0, FAR);      /* the 101st miss reads its page only */
	CHECK_EQ(m, PAGECACHE_MMAP_LOTSAMISS + 1);
	CHECK(!pagecache_mmap_read_around(m));
	/* Misses interleaved one for one with hits never get there. */
	uint32_t even = 0;
	for (int i = 0; i < 100000; i++)
		even = pagecache_mmap_miss(even, i & 1, 5000 * (uint64_t)i, FAR);
	CHECK_EQ(even, 0);
	CHECK(pagecache_mmap_read_around(even));
	/* The count stops at 10x the limit, so a long random phase is
	 * forgotten after at most 900 hits more than misses. */
	for (int i = 0; i < 100000; i++)
		m = pagecache_mmap_miss(m, false, 5000 * (uint64_t)i, FAR);
	CHECK_EQ(m, 10 * PAGECACHE_MMAP_LOTSAMISS);
	for (int i = 0; i < 10 * PAGECACHE_MMAP_LOTSAMISS - PAGECACHE_MMAP_LOTSAMISS - 1; i++)
		m = pagecache_mmap_miss(m, true, 0, 0);
	CHECK(!pagecache_mmap_read_around(m));
	m = pagecache_mmap_miss(m, true, 0, 0);
	CHECK(pagecache_mmap_read_around(m));
	/* A miss near the last one counts down, as a hit: the read-around
	 * about the last miss would have brought it.  The same page again,
	 * or one further than the read-around reaches, counts up. */
	uint32_t before = m;
	CHECK_EQ(pagecache_mmap_miss(m, false, 1001, 1000), before - 1);
	CHECK_EQ(pagecache_mmap_miss(m, false, 1000 - PAGECACHE_MMAP_NEAR, 1000), before - 1);
	CHECK_EQ(pagecache_mmap_miss(m, false, 1000, 1000), before + 1);
	CHECK_EQ(pagecache_mmap_miss(m, false, 1000 + PAGECACHE_MMAP_NEAR + 1, 1000), before + 1);
	/* A sequential pass missing every page (its windows cut short)
	 * brings read-around back from the cap. */
	uint32_t seq = 10 * PAGECACHE_MMAP_LOTSAMISS;
	for (uint64_t idx = 1; idx < 1000; idx++)
		seq = pagecache_mmap_miss(seq, false, idx, idx - 1);
	CHECK(pagecache_mmap_read_around(seq));
	/* Hits at 0 stay at 0 (no wrap). */
	CHECK_EQ(pagecache_mmap_miss(0, true, 0, 0), 0);
}

TEST(pagecache_dirty_limits_and_states)
{
	uint64_t bg, th;
	pagecache_dirty_limits(100000, 10, 20, &bg, &th);
	CHECK_EQ(bg, 10000);
	CHECK_EQ(th, 20000);
	CHECK_EQ(pagecache_dirty_state(10000, bg, th), PAGECACHE_DIRTY_FREE);
	CHECK_EQ(pagecache_dirty_state(10001, bg, th), PAGECACHE_DIRTY_BACKGROUND);
	CHECK_EQ(pagecache_dirty_state(20000, bg, th), PAGECACHE_DIRTY_BACKGROUND);
	CHECK_EQ(pagecache_dirty_state(20001, bg, th), PAGECACHE_DIRTY_THROTTLE);
	pagecache_dirty_limits(100000, 30, 20, &bg, &th);
	CHECK_EQ(bg, 10000);            /* bg >= thresh: half of it */
	/* 1 TiB of pages: no overflow. */
	pagecache_dirty_limits(1ull << 28, 10, 20, &bg, &th);
	CHECK_EQ(th, (1ull << 28) / 5);
}

TEST(lru_used_once_verdicts_by_kind)
{
	/* Anonymous: first reference activates, knob on or off. */
	for (int knob = 0; knob < 2; knob++) {
		bool m = lru_used_more_than_once(true, false, knob, false);
		CHECK(m);
		CHECK_EQ(lru_judge_inactive(1, false, m, false), LRU_ACTIVATE);
	}
	/* Anonymous with anon_used_once (Linux 5.9+): the fault's reference
	 * keeps it one more trip, marked; a second activates it, unmarked;
	 * none after the mark: it goes.  Shmem is not affected. */
	for (int knob = 0; knob < 2; knob++) {
		bool a = lru_used_more_than_once(true, false, knob, true);
		CHECK(!a);
		CHECK_EQ(lru_judge_inactive(1, false, a, false), LRU_KEEP);
		CHECK(lru_inactive_marks(1, a));
		CHECK_EQ(lru_judge_inactive(1, true, a, false), LRU_ACTIVATE);
		CHECK_EQ(lru_judge_inactive(0, true, a, false), LRU_RECLAIM);
		CHECK_EQ(lru_used_more_than_once(false, true, knob, true), (bool)knob);
	}
	/* Shmem: on = the 3.4 fix (activate); off = 64574746 (keep once). */
	bool on = lru_used_more_than_once(false, true, true, false), off = lru_used_more_than_once(false, true, false, false);
	CHECK_EQ(lru_judge_inactive(1, false, on, false), LRU_ACTIVATE);
	CHECK_EQ(lru_judge_inactive(1, false, off, false), LRU_KEEP);
	CHECK_EQ(lru_judge_inactive(1, true, off, false), LRU_ACTIVATE);  /* second reference */
	CHECK_EQ(lru_judge_inactive(0, true, off, false), LRU_RECLAIM);
	/* File: used once stays inactive; a second reference, or two
	 * mappings, activates; unreferenced goes. */
	for (int knob = 0; knob < 2; knob++) {
		bool f = lru_used_more_than_once(false, false, knob, knob);
		CHECK(!f);
		CHECK_EQ(lru_judge_inactive(1, false, f, false), LRU_KEEP);
		CHECK_EQ(lru_judge_inactive(1, true, f, false), LRU_ACTIVATE);
		CHECK_EQ(lru_judge_inactive(2, false, f, false), LRU_ACTIVATE);
		CHECK_EQ(lru_judge_inactive(0, true, f, false), LRU_RECLAIM);
	}
}

/* A shmem page's mark over its life, with the knob off (64574746) and
 * on (3.4): the verdicts plus lru_inactive_marks/lru_deactivate_keeps_mark/
 * lru_shmem_fault_marks, played the way reclaim.c and swapin.c apply them. */
struct shmem_life {
	bool knob, mark;
};

static enum lru_verdict shmem_life_inactive(struct shmem_life *l, unsigned refs)
{
	bool more = lru_used_more_than_once(false, true, l->knob, false);
	enum lru_verdict v = lru_judge_inactive(refs, l->mark, more, false);
	l->mark = v != LRU_RECLAIM && lru_inactive_marks(refs, more);
	return v;
}

static void shmem_life_fault(struct shmem_life *l)
{
	l->mark = lru_shmem_fault_marks(l->knob);
}

static void shmem_life_deactivate(struct shmem_life *l)
{
	l->mark = l->mark && lru_deactivate_keeps_mark(true, l->knob);
}

TEST(lru_used_once_shmem_mark_life)
{
	/* Off: a fresh page (new or swapped back in) needs a reference on
	 * two trips; unreferenced on the second, it goes. */
	struct shmem_life off = { false, false };
	shmem_life_fault(&off);
	CHECK(!off.mark);
	CHECK_EQ(shmem_life_inactive(&off, 1), LRU_KEEP);
	CHECK(off.mark);
	CHECK_EQ(shmem_life_inactive(&off, 0), LRU_RECLAIM);
	CHECK(!off.mark);
	shmem_life_fault(&off);                 /* swapped back in: unmarked again */
	CHECK_EQ(shmem_life_inactive(&off, 1), LRU_KEEP);
	CHECK_EQ(shmem_life_inactive(&off, 1), LRU_ACTIVATE);
	/* Activated, it keeps the mark through deactivation and comes back
	 * at its first reference. */
	CHECK(off.mark);
	shmem_life_deactivate(&off);
	CHECK(off.mark);
	CHECK_EQ(shmem_life_inactive(&off, 1), LRU_ACTIVATE);
	CHECK(off.mark);
	/* On: activated at its first reference, unmarked; deactivation
	 * clears whatever mark a fault left. */
	struct shmem_life on = { true, false };
	shmem_life_fault(&on);
	CHECK(on.mark);
	CHECK_EQ(shmem_life_inactive(&on, 1), LRU_ACTIVATE);
	CHECK(!on.mark);
	on.mark = true;
	shmem_life_deactivate(&on);
	CHECK(!on.mark);
	CHECK_EQ(shmem_life_inactive(&on, 0), LRU_RECLAIM);
	/* Anonymous pages are never marked by the verdict; file pages kept
	 * once are; neither keeps a mark through deactivation. */
	CHECK(!lru_inactive_marks(1, true));
	CHECK(lru_inactive_marks(1, false));
	CHECK(!lru_inactive_marks(0, false));
	for (int knob = 0; knob < 2; knob++)
		CHECK(!lru_deactivate_keeps_mark(false, knob));
}

TEST(lru_scan_balance_by_swappiness)
{
	uint64_t a, f;
	struct lru_scan_cost none = { 0, 0 };
	/* Equal sizes, no cost history: anon gets swappiness/200. */
	lru_scan_balance(1000, 1000, 0, none, true, 200, &a, &f);
	CHECK_EQ(a, 0);
	CHECK_EQ(f, 200);
	lru_scan_balance(1000, 1000, 60, none, true, 200, &a, &f);
	CHECK_EQ(a, 59);                /* 60/200 in 1/1024ths: 307/1024 of 200 */
	CHECK_EQ(a + f, 200);
	lru_scan_balance(1000, 1000, 100, none, true, 200, &a, &f);
	CHECK_EQ(a, 100);
	CHECK_EQ(f, 100);
	lru_scan_balance(1000, 1000, 200, none, true, 200, &a, &f);
	CHECK_EQ(a, 200);
	CHECK_EQ(f, 0);
	/* Sizes weigh in: 3x the anon pages, swappiness 100: 3/4 on anon. */
	lru_scan_balance(3000, 1000, 100, none, true, 64, &a, &f);
	CHECK_EQ(a, 48);
	/* A side that costs (refaults) is scanned less. */
	struct lru_scan_cost anon_hurts = { 1000, 0 };
	lru_scan_balance(1000, 1000, 100, anon_hurts, true, 300, &a, &f);
	CHECK(a < 150);
	CHECK(a > 0);
	CHECK_EQ(a + f, 300);
	/* No swap: file only; no file: anon only; nothing: nothing on anon. */
	lru_scan_balance(1000, 1000, 200, none, false, 32, &a, &f);
	CHECK_EQ(a, 0);
	lru_scan_balance(1000, 0, 0, none, true, 32, &a, &f);
	CHECK_EQ(a, 32);
	CHECK_EQ(f, 0);
	/* 1 TiB of pages on each side: no overflow. */
	lru_scan_balance(1ull << 28, 1ull << 28, 100, none, true, 256, &a, &f);
	CHECK_EQ(a, 128);
}

/* A failed write is told to the files whose bytes it was to write:
 * partitions of one disk share its cache, not its errors. */
TEST(pagecache_write_errors_reach_the_files_they_hit)
{
	struct pagecache_err ring[PAGECACHE_ERR_RING] = { { 0 } };
	const uint64_t MiB = 1 << 20;
	uint64_t n = 0;
	/* Nothing failed: nobody hears of anything. */
	CHECK(!pagecache_err_since(ring, n, 0, 0, 64 * MiB));
	/* A write to p2 = [16, 64) MiB fails. */
	n = pagecache_err_note(ring, n, 17 * MiB, 17 * MiB + 4096);
	CHECK_EQ(n, 1);
	CHECK(pagecache_err_since(ring, n, 0, 16 * MiB, 64 * MiB));
	CHECK(!pagecache_err_since(ring, n, 0, 0, 16 * MiB));          /* p1 */
	CHECK(pagecache_err_since(ring, n, 0, 0, 64 * MiB));           /* the whole disk */
	/* Once seen, not again. */
	CHECK(!pagecache_err_since(ring, n, 1, 16 * MiB, 64 * MiB));
	/* Ends are exclusive: a failure ending where p2 starts is p1's. */
	n = pagecache_err_note(ring, n, 15 * MiB, 16 * MiB);
	CHECK(!pagecache_err_since(ring, n, 1, 16 * MiB, 64 * MiB));
	CHECK(pagecache_err_since(ring, n, 1, 0, 16 * MiB));
	/* A failure that spans a shared page counts for both sides. */
	n = pagecache_err_note(ring, n, 16 * MiB - 512, 16 * MiB + 512);
	CHECK(pagecache_err_since(ring, n, 2, 0, 16 * MiB));
	CHECK(pagecache_err_since(ring, n, 2, 16 * MiB, 64 * MiB));
	/* 16 later failures elsewhere still leave p2's older one known to a
	 * file that last looked before it... */
	uint64_t seen_p2 = 0;
	for (int k = 0; k < PAGECACHE_ERR_RING - 3; k++)
		n = pagecache_err_note(ring, n, 0, 4096);
	CHECK_EQ(n, PAGECACHE_ERR_RING);
	CHECK(pagecache_err_since(ring, n, seen_p2, 32 * MiB, 64 * MiB) == false);
	CHECK(pagecache_err_since(ring, n, seen_p2, 16 * MiB, 18 * MiB));
	/* ...but past the ring its range is gone: a file that last looked
	 * that long ago is told, to be safe; one that looked lately is not. */
	n = pagecache_err_note(ring, n, 0, 4096);
	CHECK(pagecache_err_since(ring, n, seen_p2, 32 * MiB, 64 * MiB));
	CHECK(!pagecache_err_since(ring, n, n - 1, 32 * MiB, 64 * MiB));
	CHECK(!pagecache_err_since(ring, n, n, 0, 64 * MiB));
}
