/*
 * Readahead policies' window logic, function by function, and the ops
 * tables that serve the kernel and the simulator alike.  The policies on
 * whole fault sequences: test_ra_workloads.c.
 */
#include "test.h"
#include "swap/ra_policy.h"

TEST(ra_parse_names)
{
	struct ra_spec sp;
	char buf[16];
	const char *ok[] = { "off", "fixed:0", "fixed:3", "fixed:8", "hugh", "shaohua", "vma", "own" };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECK(ra_parse(ok[i], &sp));
		ra_format(&sp, buf, sizeof buf);
		CHECK_STR(buf, ok[i]);
	}
	const char *bad[] = { "", "fixed", "fixed:", "fixed:9", "fixed:33", "fixed:-1", "Own", "hugh ", "off2" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(!ra_parse(bad[i], &sp));
}

TEST(ra_suggest_names)
{
	CHECK_STR(ra_suggest("owm"), "own");
	CHECK_STR(ra_suggest("Own"), "own");
	CHECK_STR(ra_suggest("fixd:3"), "fixed:3");
	CHECK(ra_suggest("fixed:9") == NULL);     /* every fixed:N is as near: RA_POLICIES says */
	CHECK_STR(ra_suggest("shauhua"), "shaohua");
	CHECK(ra_suggest("linux") == NULL);
	CHECK(ra_suggest("") == NULL);
	char buf[32];
	CHECK_STR(ra_unknown_hint("owm", buf, sizeof buf), "did you mean own?");
	CHECK_STR(ra_unknown_hint("fixed:9", buf, sizeof buf), RA_POLICIES);
}

TEST(ra_slot_window_aligned)
{
	struct ra_slots w;
	ra_slot_window(13, 8, 1000, &w);
	CHECK_EQ(w.start, 8);
	CHECK_EQ(w.count, 8);
	ra_slot_window(3, 8, 1000, &w);         /* slot 0 is the header */
	CHECK_EQ(w.start, 1);
	CHECK_EQ(w.count, 7);
	ra_slot_window(998, 8, 1000, &w);       /* clipped at the end */
	CHECK_EQ(w.start, 992);
	CHECK_EQ(w.count, 8);
	ra_slot_window(999, 16, 1000, &w);
	CHECK_EQ(w.start, 992);
	CHECK_EQ(w.count, 8);
	ra_slot_window(77, 1, 1000, &w);
	CHECK_EQ(w.start, 77);
	CHECK_EQ(w.count, 1);
}

TEST(ra_hugh_formula)
{
	/* No hits, not adjacent: one page; adjacent: two. */
	CHECK_EQ(ra_nr_pages(100, 500, 0, 8, 0), 1);
	CHECK_EQ(ra_nr_pages(100, 101, 0, 8, 0), 2);
	CHECK_EQ(ra_nr_pages(100, 99, 0, 8, 0), 2);
	/* Hits + 2 rounded up to a power of two, at least 4, at most max. */
	CHECK_EQ(ra_nr_pages(0, 500, 1, 8, 0), 4);
	CHECK_EQ(ra_nr_pages(0, 500, 3, 8, 0), 8);
	CHECK_EQ(ra_nr_pages(0, 500, 30, 8, 0), 8);
	CHECK_EQ(ra_nr_pages(0, 500, 30, 32, 0), 32);
	/* Shrinks to no less than half the last window. */
	CHECK_EQ(ra_nr_pages(0, 500, 0, 8, 8), 4);
	CHECK_EQ(ra_nr_pages(0, 500, 0, 8, 4), 2);
	CHECK_EQ(ra_nr_pages(0, 500, 0, 8, 2), 1);

	struct ra_hugh h = { 0, 0, 0 };
	CHECK_EQ(ra_hugh_pages(&h, 1000, 8), 1);
	CHECK_EQ(ra_hugh_pages(&h, 1001, 8), 2);
	for (int i = 0; i < 7; i++)
		ra_hugh_hit(&h);
	CHECK_EQ(ra_hugh_pages(&h, 1010, 8), 8);
	CHECK_EQ(ra_hugh_pages(&h, 5000, 8), 4);        /* no hits: halves */
	CHECK_EQ(ra_hugh_pages(&h, 9000, 8), 2);
	CHECK_EQ(ra_hugh_pages(&h, 3000, 8), 1);
	CHECK_EQ(ra_hugh_pages(&h, 3000, 1), 1);        /* page_cluster 0 */
}

TEST(ra_shaohua_detector)
{
	uint64_t st = 0;
	for (int i = 0; i < RA_SHAOHUA_THRESHOLD; i++)
		CHECK_EQ(ra_shaohua_miss(&st, 8), 8);
	CHECK_EQ(ra_shaohua_miss(&st, 8), 1);           /* 101 misses in a row */
	ra_shaohua_hit(&st);
	ra_shaohua_hit(&st);
	CHECK_EQ(ra_shaohua_miss(&st, 8), 8);           /* back at 100 */
	for (int i = 0; i < 5000; i++)
		ra_shaohua_miss(&st, 8);
	CHECK_EQ(st, RA_SHAOHUA_MAX_MISS);
}

TEST(ra_vma_windows)
{
	uint64_t st[RA_VSTATE_WORDS] = { 0 };
	struct ra_lwin w;
	/* First fault: no history, one page. */
	ra_vma_miss(st, 1000, 0, 100000, 8, &w);
	CHECK_EQ(w.start, 1000);
	CHECK_EQ(w.count, 1);
	/* The next page: forward, two pages. */
	ra_vma_miss(st, 1001, 0, 100000, 8, &w);
	CHECK_EQ(w.start, 1001);
	CHECK_EQ(w.count, 2);
	/* Hits grow it: 3 hits -> 8 pages, forward from the fault after a
	 * lookup at the previous page. */
	ra_vma_lookup(st, 1002, true);
	ra_vma_lookup(st, 1003, true);
	ra_vma_lookup(st, 1004, true);
	ra_vma_miss(st, 1005, 0, 100000, 8, &w);
	CHECK_EQ(w.start, 1005);
	CHECK_EQ(w.count, 8);
	/* Backward. */
	ra_vma_lookup(st, 2000, true);
	ra_vma_lookup(st, 2000, true);
	ra_vma_miss(st, 1999, 0, 100000, 8, &w);      /* 2 hits: 4 pages */
	CHECK_EQ(w.start, 1996);
	CHECK_EQ(w.count, 4);
	/* Not adjacent: centred; at most 2^5 pages whatever page_cluster. */
	for (int i = 0; i < 40; i++)
		ra_vma_lookup(st, 5000, true);
	ra_vma_miss(st, 3000, 0, 100000, 256, &w);
	CHECK_EQ(w.count, 32);
	CHECK_EQ(w.start, 3000 - 15);
	/* Clipped to the VMA and to the 512-page table block. */
	for (int i = 0; i < 40; i++)
		ra_vma_lookup(st, 5000, true);
	ra_vma_miss(st, 3072, 3070, 100000, 32, &w);
	CHECK_EQ(w.start, 3072);                        /* block starts at 3072 */
	CHECK_EQ(w.count, 32 - 15);
	for (int i = 0; i < 40; i++)
		ra_vma_lookup(st, 5000, true);
	ra_vma_miss(st, 3081, 3070, 3083, 32, &w);
	CHECK_EQ(w.start, 3072);
	CHECK_EQ(w.count, 11);
}

/* The ops tables: the dispatch the kernel runs, on single events. */
TEST(ra_ops_dispatch)
{
	struct ra_hugh h = { 0, 0, 0 };
	uint64_t vst[RA_VSTATE_WORDS] = { 0 };
	struct ra_ctx c = { .order = 3, .max_pages = 8, .budget = 64, .global = &h, .vstate = vst, .space = NULL };
	struct ra_event e = { .slot = 13, .slots = 1000, .idx = 500, .lo = 0, .hi = 1000 };
	struct ra_window w;
	struct ra_lwin lw;
	for (int k = RA_OFF; k <= RA_OWN; k++) {
		const struct ra_ops *o = ra_ops_of((enum ra_kind)k);
		CHECK(o->miss && o->found);
		CHECK((o->space_size != 0) == (k == RA_OWN));
		CHECK((o->slot_read != NULL) == (k == RA_OWN));
	}
	ra_ops_of(RA_OFF)->miss(&c, &e, &w);
	CHECK(w.slots.count <= 1 && w.lwin.count == 0);
	ra_ops_of(RA_FIXED)->miss(&c, &e, &w);          /* fixed:3: the aligned 8 slots */
	CHECK_EQ(w.slots.start, 8);
	CHECK_EQ(w.slots.count, 8);
	CHECK_EQ(w.lwin.count, 0);
	/* shaohua without VMA state (shmem): the full window; with: counted. */
	c.vstate = NULL;
	ra_ops_of(RA_SHAOHUA)->miss(&c, &e, &w);
	CHECK_EQ(w.slots.count, 8);
	CHECK_EQ(vst[0], 0);
	c.vstate = vst;
	ra_ops_of(RA_SHAOHUA)->miss(&c, &e, &w);
	CHECK_EQ(vst[0], 1);
	ra_ops_of(RA_SHAOHUA)->found(&c, &e, true, false, &lw);
	CHECK_EQ(vst[0], 0);
	CHECK_EQ(lw.count, 0);
	/* vma: the VMA's window; one page becomes none.  Without VMA state
	 * (shmem) hugh's global window, fed by hits. */
	vst[0] = vst[1] = 0;
	ra_ops_of(RA_VMA)->miss(&c, &e, &w);
	CHECK_EQ(w.lwin.count, 0);
	CHECK(w.slots.count <= 1);
	c.vstate = NULL;
	for (int i = 0; i < 3; i++)
		ra_ops_of(RA_VMA)->found(&c, &e, true, false, &lw);
	CHECK_EQ(h.hits, 3);
	ra_ops_of(RA_VMA)->miss(&c, &e, &w);
	CHECK_EQ(w.slots.count, 8);
	CHECK_EQ(h.hits, 0);
	/* own: nothing without its state; with it, a slot window for a miss
	 * no stream claims (two slots while nothing is known). */
	ra_ops_of(RA_OWN)->miss(&c, &e, &w);
	CHECK(w.slots.count <= 1 && w.lwin.count == 0);
	struct ra_own own;
	memset(&own, 0xa5, sizeof own);
	ra_ops_of(RA_OWN)->space_init(&own);
	CHECK_EQ(own.sw_read, 0);
	CHECK_EQ(own.nhist, 0);
	c.space = &own;
	ra_ops_of(RA_OWN)->miss(&c, &e, &w);
	CHECK_EQ(w.lwin.count, 0);
	CHECK_EQ(w.slots.start, 12);
	CHECK_EQ(w.slots.count, 2);
	ra_ops_of(RA_OWN)->slot_read(&c, 1);
	CHECK_EQ(own.sw_read, 1);
	/* a hit on a page no stream read counts as used */
	ra_ops_of(RA_OWN)->found(&c, &e, true, false, &lw);
	CHECK_EQ(own.sw_used, 1);
	ra_ops_of(RA_OWN)->found(&c, &e, false, false, &lw);   /* not read ahead: ignored */
	CHECK_EQ(own.sw_used, 1);
	CHECK_EQ(lw.count, 0);
}

TEST(ra_own_window_grows_and_shrinks)
{
	struct ra_own o;
	memset(&o, 0, sizeof o);
	struct ra_lwin w;
	ra_own_miss(&o, 100, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);                           /* one miss: nothing yet */
	ra_own_miss(&o, 101, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);                           /* one step */
	CHECK_EQ(o.confirmed, 0);
	ra_own_miss(&o, 100 - 50, 0, 10000, 128, &w);  /* another area */
	CHECK_EQ(w.count, 0);
	ra_own_miss(&o, 102, 0, 10000, 128, &w);       /* the same step again */
	CHECK(w.marker);
	CHECK(w.run);                                   /* it ends where its slots jump */
	CHECK_EQ(w.start, 103);
	CHECK_EQ(w.count, RA_OWN_INIT);
	CHECK_EQ(o.confirmed, 1);
	/* The stream's use of the window's first half issues the next
	 * window, twice as large (so it is in flight while the stream uses
	 * the second half). */
	ra_own_hit(&o, 103, true, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);
	ra_own_hit(&o, 104, false, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);
	ra_own_hit(&o, 105, false, 0, 10000, 128, &w);
	CHECK_EQ(w.start, 103 + RA_OWN_INIT);
	CHECK_EQ(w.count, 2 * RA_OWN_INIT);
	ra_own_hit(&o, 106, false, 0, 10000, 128, &w);  /* the window before: no more */
	CHECK_EQ(w.count, 0);
	uint64_t cur = 103 + RA_OWN_INIT, next = 103 + 3 * RA_OWN_INIT;
	for (uint64_t i = cur; i < cur + RA_OWN_INIT; i++) {
		ra_own_hit(&o, i, i == cur, 0, 10000, 128, &w);
		CHECK_EQ(w.count, 0);
	}
	ra_own_hit(&o, cur + RA_OWN_INIT, false, 0, 10000, 128, &w);
	CHECK_EQ(w.start, next);
	CHECK_EQ(w.count, 4 * RA_OWN_INIT);
	/* A hit that does not follow the stream's last page (another
	 * access's) is no progress. */
	ra_own_hit(&o, next + 3 * RA_OWN_INIT, false, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);
	/* The budget caps it. */
	for (uint64_t i = cur + RA_OWN_INIT + 1; i <= next + 2 * RA_OWN_INIT; i++)
		ra_own_hit(&o, i, false, 0, 10000, 6 * RA_OWN_INIT, &w);
	CHECK_EQ(w.start, next + 4 * RA_OWN_INIT);
	CHECK_EQ(w.count, 6 * RA_OWN_INIT);
	next += 4 * RA_OWN_INIT;
	/* A miss inside the last window right after the stream's last page:
	 * its pages went early; halve. */
	for (uint64_t i = next - 2 * RA_OWN_INIT; i < next + 5; i++)
		ra_own_hit(&o, i, false, 0, 10000, 128, &w);
	ra_own_miss(&o, next + 5, 0, 10000, 128, &w);
	CHECK_EQ(w.start, next + 6);
	CHECK_EQ(w.count, 3 * RA_OWN_INIT);
	CHECK_EQ(o.shrunk, 1);
	/* A miss in its range far from its last page is not the stream's. */
	ra_own_miss(&o, next + 6 + 2 * RA_OWN_INIT, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);
	CHECK_EQ(o.shrunk, 1);
	/* The area's end stops it. */
	uint64_t end = next + 6 + 3 * RA_OWN_INIT + 5;
	for (uint64_t i = next + 6; w.count == 0 && i < next + 6 + 3 * RA_OWN_INIT; i++)
		ra_own_hit(&o, i, false, 0, end, 128, &w);
	CHECK_EQ(w.start, next + 6 + 3 * RA_OWN_INIT);
	CHECK_EQ(w.count, 5);
	for (uint64_t i = next + 6 + 3 * RA_OWN_INIT / 2 + 1; i < end; i++) {
		ra_own_hit(&o, i, false, 0, end, 128, &w);
		CHECK_EQ(w.count, 0);
	}
	CHECK_EQ(o.smask, 0);
	/* Backward, stride -2. */
	memset(&o, 0, sizeof o);
	ra_own_miss(&o, 500, 0, 10000, 128, &w);
	ra_own_miss(&o, 498, 0, 10000, 128, &w);
	ra_own_miss(&o, 496, 0, 10000, 128, &w);
	CHECK_EQ(w.start, 494);
	CHECK_EQ(w.stride, -2);
	CHECK_EQ(w.count, RA_OWN_INIT);
	ra_own_hit(&o, 494, true, 0, 10000, 128, &w);
	ra_own_hit(&o, 492, false, 0, 10000, 128, &w);
	CHECK_EQ(w.count, 0);
	ra_own_hit(&o, 490, false, 0, 10000, 128, &w);
	CHECK_EQ(w.start, 494 - 2 * RA_OWN_INIT);
	CHECK_EQ(w.count, 2 * RA_OWN_INIT);
	/* ...stopped by the area's start. */
	uint64_t lo = 494 - 2 * RA_OWN_INIT - 2 * 2 * RA_OWN_INIT - 2;
	for (uint64_t i = 488; i >= 494 - 2 * RA_OWN_INIT - 2 * RA_OWN_INIT; i -= 2)
		ra_own_hit(&o, i, false, lo, 10000, 128, &w);
	CHECK_EQ(w.start, lo + 2);
	CHECK_EQ(w.count, 2);
}

/* Pages [from, from + len) of the space [lo, hi) in order through ra_own,
 * as the kernel drives it: a miss reads its page and the window; a hit is
 * a fault on a page read ahead and not used yet, the marker the first
 * page read of each window (pages already in memory are not read again).
 * st[p - lo]: 0 on disk, 1 read ahead, 2 with the marker, 3 used.
 * Returns the misses; in *r: far, the furthest page a window reached
 * (past its last); maxw, the largest window; wins, the windows issued on
 * a hit, each a request of its own (a window a miss issues goes out with
 * the missing page: one request). */
struct scan { uint64_t far; uint32_t maxw, wins; };

static void scan_read(uint8_t *st, uint64_t lo, const struct ra_lwin *w, bool hit, struct scan *r)
{
	bool mark = w->marker;
	for (uint32_t k = 0; k < w->count; k++) {
		uint64_t p = w->start + (uint64_t)((int64_t)k * w->stride) - lo;
		if (st[p])
			continue;
		st[p] = mark ? 2 : 1;
		mark = false;
	}
	if (w->count && w->start + w->count > r->far)
		r->far = w->start + w->count;
	if (w->count > r->maxw)
		r->maxw = w->count;
	r->wins += hit && w->count > 0;
}

static uint32_t scan(struct ra_own *o, uint8_t *st, uint64_t lo, uint64_t hi, uint64_t from, uint64_t len,
		     struct scan *r)
{
	uint32_t misses = 0;
	*r = (struct scan){ 0, 0, 0 };
	for (uint64_t i = from; i < from + len; i++) {
		struct ra_lwin w;
		uint8_t s = st[i - lo];
		st[i - lo] = 3;
		if (s == 0) {
			misses++;
			ra_own_miss(o, i, lo, hi, 64, &w);
		} else {
			ra_own_hit(o, i, s == 2, lo, hi, 64, &w);
		}
		scan_read(st, lo, &w, s != 0, r);
	}
	return misses;
}

enum { SCAN_LO = 1000, SCAN_PAGES = 4096 };

/* A sequential scan of a fresh space of SCAN_PAGES. */
static uint32_t scan_seq(struct ra_own *o)
{
	static uint8_t st[SCAN_PAGES];
	struct scan r;
	memset(st, 0, sizeof st);
	return scan(o, st, SCAN_LO, SCAN_LO + SCAN_PAGES, SCAN_LO, SCAN_PAGES, &r);
}

TEST(ra_own_stream_keeps_its_windows)
{
	/* Hits on the pages of a stream's window after its marker (the
	 * marker issued the next window, so they are no longer in its last
	 * one) once went to the candidates as accesses outside streams:
	 * every third step confirmed a "phantom" stream of stride 1 just
	 * behind the real one, and the phantom's window, holding the next
	 * marker, took it: the real stream's next window was never issued,
	 * and it missed at the end of every other window (QEMU, touch 72
	 * 40000 seq anon: 1400 streams confirmed, 86-156 major faults where
	 * three would do).  The stream owns the window before its last. */
	struct ra_own o;
	memset(&o, 0, sizeof o);
	uint32_t misses = scan_seq(&o);
	CHECK_EQ(misses, 3);                    /* two steps confirm the stream */
	CHECK_EQ(o.confirmed, 1);
	CHECK_EQ(o.shrunk, 0);
}

TEST(ra_own_window_cut_to_nothing_is_tried_again)
{
	struct ra_own o;
	memset(&o, 0, sizeof o);
	struct ra_lwin w;
	for (uint64_t i = 100; i < 103; i++)
		ra_own_miss(&o, i, 0, 10000, 64, &w);
	CHECK_EQ(w.start, 103);
	for (uint64_t i = 103; i < 106; i++)
		ra_own_hit(&o, i, i == 103, 0, 10000, 64, &w);
	CHECK_EQ(w.start, 107);
	CHECK_EQ(w.count, 2 * RA_OWN_INIT);
	ra_own_cut(&o, 107, 0);                 /* no free memory for any of it */
	CHECK_EQ(o.cut, 1);
	ra_own_hit(&o, 106, false, 0, 10000, 64, &w);
	CHECK_EQ(w.start, 107);                 /* the same window again */
	CHECK_EQ(w.count, 2 * RA_OWN_INIT);
	/* Read this time, but cut short: the window ends there, and the
	 * stream's next window goes out halfway through what was read. */
	ra_own_cut(&o, 107, 4);
	ra_own_hit(&o, 107, false, 0, 10000, 64, &w);
	ra_own_hit(&o, 108, false, 0, 10000, 64, &w);
	CHECK_EQ(w.count, 0);
	ra_own_hit(&o, 109, false, 0, 10000, 64, &w);
	CHECK_EQ(w.start, 111);
	CHECK_EQ(w.count, 4 * RA_OWN_INIT);
	/* Cut to nothing again: tried at the next hit, then only every
	 * RA_OWN_RETRY hits while memory stays short. */
	ra_own_cut(&o, 111, 0);
	ra_own_hit(&o, 110, false, 0, 10000, 64, &w);
	CHECK_EQ(w.start, 111);
	ra_own_cut(&o, 111, 0);
	uint32_t tries = 0;
	for (uint32_t i = 0; i < 2 * RA_OWN_RETRY; i++) {
		ra_own_hit(&o, 110, false, 0, 10000, 64, &w);   /* (the same page: the count is what matters) */
		if (w.count) {
			tries++;
			ra_own_cut(&o, 111, 0);
		}
	}
	CHECK_EQ(tries, 2);
	/* No hit left before it: the stream misses there, and the miss
	 * reads it (not halved: it outran). */
	ra_own_miss(&o, 111, 0, 10000, 64, &w);
	CHECK_EQ(w.start, 112);
	CHECK_EQ(w.count, 4 * RA_OWN_INIT);
	CHECK_EQ(o.shrunk, 0);
	CHECK_EQ(o.cut, 6);
}

static uint64_t ghost_rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

TEST(ra_own_ghost_windows_tell_dense_from_random)
{
	/* 72 MiB of pages, as bench ra's touch.  Misses at random over the
	 * whole space: a ghost window holds them about as often as chance,
	 * so slot windows never open on the ghosts' word. */
	enum { SPACE = 18432, MISSES = 4000 };
	struct ra_own o;
	struct ra_lwin w;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		uint64_t x = seed * 0x9e3779b97f4a7c15ull, dense = 0;
		memset(&o, 0, sizeof o);
		for (int i = 0; i < MISSES; i++) {
			ra_own_miss(&o, ghost_rnd(&x) % SPACE, 0, SPACE, 64, &w);
			dense += o.g_dense;
		}
		CHECK_EQ(dense, 0);
		/* A working set of 2048 pages that moves every 200 misses:
		 * dense nearly all the time once learnt, moves included. */
		memset(&o, 0, sizeof o);
		uint64_t base = 0;
		dense = 0;
		for (int i = 0; i < MISSES; i++) {
			if (i % 200 == 0)
				base = ghost_rnd(&x) % (SPACE - 2048);
			ra_own_miss(&o, base + ghost_rnd(&x) % 2048, 0, SPACE, 64, &w);
			dense += i >= RA_OWN_GLEARN && o.g_dense;
		}
		CHECK(dense * 100 >= (MISSES - RA_OWN_GLEARN) * 95);
		/* Its misses read slot windows, not logical blocks. */
		CHECK_EQ(w.count, 0);
		CHECK_EQ(ra_own_slot_pages(&o, false), RA_OWN_GPAGES);
	}
}

/* A process's first misses and the read-ahead they bring, as bench ra's
 * random touch (seed 1) began in test_swap_readahead_policies: eight
 * misses within the area's first 18 pages, a block read there and used. */
static void ghost_startup(struct ra_own *o, uint64_t space)
{
	static const uint64_t burst[] = { 7, 11, 10, 5, 4, 1, 17, 0 };
	struct ra_lwin w, next;
	for (size_t i = 0; i < sizeof burst / sizeof burst[0]; i++) {
		ra_own_miss(o, burst[i], 0, space, 64, &w);
		for (uint32_t k = 0; !w.marker && k < w.count; k++)
			if (w.start + k != burst[i])
				ra_own_hit(o, w.start + k, false, 0, space, 64, &next);
	}
}

TEST(ra_own_ghost_windows_ignore_a_startup_burst)
{
	/* Then misses at random over the area.  Counted from the start, the
	 * burst and its block's hits looked denser than chance for about a
	 * dozen misses, each of which read a 32-slot window: 2 of 3 runs of
	 * test_swap_readahead_policies went over its read-ahead bound on
	 * random.  Neither the burst nor the hits may open ghost windows. */
	enum { SPACE = 18450, MISSES = 2000 };
	struct ra_own o;
	struct ra_lwin w;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		uint64_t x = seed * 0x9e3779b97f4a7c15ull, dense = 0;
		memset(&o, 0, sizeof o);
		ghost_startup(&o, SPACE);
		for (int i = 0; i < MISSES; i++) {
			ra_own_miss(&o, ghost_rnd(&x) % SPACE, 0, SPACE, 64, &w);
			dense += o.g_dense;
		}
		CHECK_EQ(dense, 0);
	}
}

TEST(ra_own_ghost_windows_stay_open_on_hits)
{
	/* A dense set that its ghost windows serve: half its accesses hit
	 * pages read ahead instead of missing.  The hits count as the misses
	 * they would have been, so the windows stay open. */
	enum { SPACE = 18432, SET = 2048, MISSES = 2000 };
	struct ra_own o;
	struct ra_lwin w;
	uint64_t x = 5, dense = 0;
	memset(&o, 0, sizeof o);
	for (int i = 0; i < MISSES; i++) {
		uint64_t idx = 4096 + ghost_rnd(&x) % SET;
		if (i >= RA_OWN_GLEARN && i % 2)
			ra_own_hit(&o, idx, false, 0, SPACE, 64, &w);
		else
			ra_own_miss(&o, idx, 0, SPACE, 64, &w);
		dense += i >= RA_OWN_GLEARN && o.g_dense;
	}
	CHECK(dense * 100 >= (MISSES - RA_OWN_GLEARN) * 95);
}

TEST(ra_own_windows_follow_the_runs_of_ended_streams)
{
	/* touch's jumps:64: 64 pages in order, then a jump.  A stream ends
	 * when a new candidate takes its place in the table (the least
	 * recently used of RA_OWN_STREAMS), so the runs are known after a
	 * few dozen.  Before, a run's windows doubled to 64 pages and read a
	 * whole window past its end; after, they stop about a quarter past
	 * the runs seen.  A stream that goes on grows back to the budget. */
	enum { SPACE = 20000, RUN = 64, RUNS = 60 };
	static uint8_t st[SPACE];
	static struct ra_own o;
	memset(&o, 0, sizeof o);
	struct scan got;
	for (int r = 0; r < RUNS; r++) {
		uint64_t base = 200 + (uint64_t)r * 300;
		scan(&o, st, 0, SPACE, base, RUN, &got);
		if (r == 0)
			CHECK(got.far > base + 2 * RUN - 8);    /* nothing known yet */
		if (r >= RUNS - 10) {
			CHECK(got.far <= base + RUN + RUN / 4 + RA_OWN_MIN);
			/* Once the runs are known, a new stream's first
			 * window reaches its run's end (first_size): one
			 * request where the doubling took four (4, 8, 16,
			 * 32 steps), each waited for on a disk that costs
			 * per request. */
			CHECK(got.wins <= 2);
			CHECK(got.far >= base + RUN);
		}
	}
	CHECK(o.runs >= RA_OWN_RUN_LEARN);
	memset(st, 0, sizeof st);
	scan(&o, st, 0, SPACE, 200, 4000, &got);
	CHECK_EQ(got.maxw, 64);
	CHECK(got.far > 200 + 4000);
}

/* Runs of RUN pages from random places, forward (dir 1) or backward
 * (-1), pages read ahead kept in st; returns the misses of the last
 * `last` runs, whether the misses ever looked dense in *dense, and the
 * window the last miss read in *first. */
static uint32_t runs_from_random_places(struct ra_own *o, uint8_t *st, uint64_t space, int dir, int runs,
					int last, bool *dense, struct ra_lwin *first)
{
	enum { RUN = 64 };
	uint64_t x = dir > 0 ? 11 : 12;
	uint32_t misses = 0;
	struct scan read = { 0, 0, 0 };   /* (scan_read's figures, unused here) */
	*dense = false;
	for (int r = 0; r < runs; r++) {
		uint64_t base = RUN + ghost_rnd(&x) % (space - 2 * RUN);
		for (int k = 0; k < RUN; k++) {
			uint64_t i = base + (uint64_t)(dir * k);
			struct ra_lwin w;
			uint8_t was = st[i];
			st[i] = 3;
			if (was) {
				ra_own_hit(o, i, was == 2, 0, space, 64, &w);
			} else {
				misses += r >= runs - last;
				ra_own_miss(o, i, 0, space, 64, &w);
				*first = w;
			}
			scan_read(st, 0, &w, was != 0, &read);
			*dense |= o->g_dense;
		}
	}
	return misses;
}

TEST(ra_own_a_run_starts_with_one_miss)
{
	/* touch's jumps:64: a random page, then the next 63.  Its first
	 * step used to be no evidence of anything: the first miss read
	 * nothing (or, the misses looking dense, 32 slots around it), the
	 * next two missed as well and confirmed the stream.  Once most new
	 * candidates become streams of step 1, a miss outside streams reads
	 * its next pages (the mean run, up to RA_OWN_BLOCK_MAX), whose hits
	 * confirm it: one miss per run, either way round, and never a
	 * dense set. */
	enum { SPACE = 1 << 20, RUNS = 200, LAST = 50 };
	static uint8_t st[SPACE];
	static struct ra_own o;
	for (int dir = -1; dir <= 1; dir += 2) {
		bool dense;
		struct ra_lwin first;
		memset(&o, 0, sizeof o);
		memset(st, 0, sizeof st);
		uint32_t misses = runs_from_random_places(&o, st, SPACE, dir, RUNS, LAST, &dense, &first);
		CHECK(misses <= LAST);       /* (a run may start on a page read before) */
		CHECK(!dense);
		CHECK_EQ(first.count, RA_OWN_BLOCK_MAX);
		CHECK_EQ(first.stride, dir);
		CHECK(first.run && !first.marker);      /* a run's next pages, not a stream's window */
		CHECK(dir > 0 ? o.start_dir > 0 : o.start_dir < 0);
	}
	/* Random misses start no runs: nothing read for them. */
	uint64_t x = 7, read = 0;
	memset(&o, 0, sizeof o);
	for (int i = 0; i < 2000; i++) {
		struct ra_lwin w;
		ra_own_miss(&o, ghost_rnd(&x) % SPACE, 0, SPACE, 64, &w);
		read += w.count;
	}
	CHECK_EQ(read, 0);
}

/* The rings of recent misses keep per-bucket masks of their slots, and
 * the candidates per-bucket masks of s[], so that a miss looks only at
 * the entries near it.  The masks must always be the rings' and the
 * candidates' contents exactly, or an entry is missed that would have
 * been near: checked after every access, on a space far larger than the
 * buckets (hash collisions), on one smaller, and across the hash's wrap
 * (a miss in the last bucket and one in the first are neighbours). */
static void check_bucket_masks(const struct ra_own *o)
{
	uint32_t g[RA_OWN_BUCKETS] = { 0 }, h[RA_OWN_BUCKETS] = { 0 }, c[RA_OWN_CBUCKETS] = { 0 };
	uint32_t ng = o->nghost < RA_OWN_GHOST ? o->nghost : RA_OWN_GHOST;
	uint32_t nh = o->nhist < RA_OWN_HIST ? o->nhist : RA_OWN_HIST;
	for (uint32_t i = 0; i < ng; i++)
		g[o->ghost[i] / RA_OWN_GNEAR % RA_OWN_BUCKETS] |= 1u << i;
	for (uint32_t i = 0; i < nh; i++)
		h[o->hist[i] / RA_OWN_NEAR % RA_OWN_BUCKETS] |= 1u << i;
	CHECK(!memcmp(g, o->gmask, sizeof g));
	CHECK(!memcmp(h, o->hmask, sizeof h));
	/* The candidates' buckets, likewise (detect looks at no other). */
	for (uint32_t i = 0; i < RA_OWN_STREAMS; i++)
		if (o->s[i].state == RA_S_CANDIDATE)
			c[o->s[i].pos / RA_OWN_MAX_STRIDE % RA_OWN_CBUCKETS] |= 1u << i;
	CHECK(!memcmp(c, o->cand, sizeof c));
}

TEST(ra_own_bucket_masks_follow_the_rings)
{
	static const uint64_t spaces[] = { 300, 18432, 1ull << 40 };
	struct ra_own o;
	struct ra_lwin w;
	for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
		uint64_t x = k + 3;
		memset(&o, 0, sizeof o);
		for (int i = 0; i < 5000; i++) {
			uint64_t idx = ghost_rnd(&x) % spaces[k];
			if (i % 5 == 4)
				ra_own_hit(&o, idx, false, 0, spaces[k], 64, &w);
			else
				ra_own_miss(&o, idx, 0, spaces[k], 64, &w);
			check_bucket_masks(&o);
		}
		CHECK(o.nghost < 2 * RA_OWN_GHOST);
		CHECK(o.nhist < 2 * RA_OWN_HIST);
	}
	/* The last bucket's neighbour is the first: three misses in the
	 * last (no two steps alike, so no stream) are near one in the first,
	 * which therefore finds a cluster and reads a block. */
	uint64_t edge = 5ull * RA_OWN_BUCKETS * RA_OWN_NEAR;
	memset(&o, 0, sizeof o);
	ra_own_miss(&o, edge - 1, 0, 1ull << 40, 64, &w);
	ra_own_miss(&o, edge - 20, 0, 1ull << 40, 64, &w);
	ra_own_miss(&o, edge - 9, 0, 1ull << 40, 64, &w);
	CHECK_EQ(w.count, 0);
	ra_own_miss(&o, edge + 1, 0, 1ull << 40, 64, &w);
	CHECK_EQ(w.count, RA_OWN_BLOCK_MAX);
	CHECK(!w.run && !w.marker);     /* a block around the miss: read whole */
	check_bucket_masks(&o);
}

/* smask (stream_of's list of streams) names exactly the entries in
 * state RA_S_STREAM, through streams confirmed, ended at the space's
 * end, replaced by candidates and cut to nothing. */
static void check_smask(const struct ra_own *o)
{
	for (uint32_t i = 0; i < RA_OWN_STREAMS; i++)
		CHECK_EQ((o->smask >> i) & 1, o->s[i].state == RA_S_STREAM);
}

TEST(ra_own_stream_mask_follows_the_states)
{
	static const uint64_t spaces[] = { 300, 18432, 1ull << 40 };
	struct ra_own o;
	struct ra_lwin w;
	for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
		uint64_t x = k + 11, pos[6];
		uint32_t streams = 0;
		memset(&o, 0, sizeof o);
		for (int j = 0; j < 6; j++)
			pos[j] = ghost_rnd(&x) % spaces[k];
		for (int i = 0; i < 20000; i++) {
			uint64_t r = ghost_rnd(&x);
			uint64_t idx;
			if (r % 8 == 0) {
				idx = ghost_rnd(&x) % spaces[k];         /* a random page */
			} else {
				int j = (int)(r / 8 % 6);               /* stream j's next page, or a jump */
				pos[j] = r % 64 == 1 ? ghost_rnd(&x) % spaces[k] : (pos[j] + 1) % spaces[k];
				idx = pos[j];
			}
			if (r / 64 % 3)
				ra_own_hit(&o, idx, false, 0, spaces[k], 64, &w);
			else
				ra_own_miss(&o, idx, 0, spaces[k], 64, &w);
			if (w.count && r / 256 % 5 == 0)
				ra_own_cut(&o, w.start, (uint32_t)(r / 1024 % 2));
			check_smask(&o);
			streams += o.smask != 0;
		}
		CHECK(streams > 1000);          /* streams were there to follow */
	}
}

/* Fast hits change nothing: the same accesses through ra_own_hit alone
 * and through ra_own_fast_hit first (ra_own_hit when it says no) issue
 * the same windows, and leave the same state once the fast hits are
 * folded in.  K streams round robin (touch's streams:K), forward or
 * backward, of step 1 or 3, with random pages between, pages lost to
 * reclaim and windows cut. */
enum { FAST_PAGES = 8192, FAST_CAP = 3000 };

/* Pages in memory (st[p] 1: read ahead, 3: used; 0: out), oldest
 * going out first once FAST_CAP are in. */
struct fast_mem {
	uint8_t st[FAST_PAGES];
	uint32_t ring[FAST_CAP];
	uint32_t head, n, cap;          /* cap <= FAST_CAP */
};

static void fast_in(struct fast_mem *m, uint64_t p, uint8_t v)
{
	if (m->st[p]) {
		if (v > m->st[p])
			m->st[p] = v;
		return;
	}
	if (m->n == m->cap) {
		m->st[m->ring[m->head]] = 0;
		m->head = (m->head + 1) % m->cap;
		m->n--;
	}
	m->ring[(m->head + m->n++) % m->cap] = (uint32_t)p;
	m->st[p] = v;
}

static void fast_state(struct ra_own *o, struct ra_own *out)
{
	ra_own_cut(o, UINT64_MAX, 0);   /* folds the fast hits, cuts nothing */
	*out = *o;
	memset(out->fast, 0, sizeof out->fast);
	memset(out->fast_at, 0, sizeof out->fast_at);
	out->fast_n = 0;
	memset(out->fast_left, 0, sizeof out->fast_left);
	memset(out->fast_stream, 0, sizeof out->fast_stream);
	out->fast_had = 0;
}

TEST(ra_own_fast_hits_change_nothing)
{
	static struct fast_mem m;
	static struct ra_own a, b, fa, fb;
	for (uint32_t kstreams = 1; kstreams <= 6; kstreams++) {
		for (int down = 0; down < 2; down++) {
		for (int noise = 0; noise < 2; noise++) {
		for (uint64_t step3 = 1; step3 <= 3; step3 += 2) {
			uint64_t x = kstreams * 4 + (uint64_t)down * 2 + (uint64_t)noise + 77 + (step3 - 1) * 500;
			uint64_t slice = FAST_PAGES / kstreams / step3 * step3;
			uint64_t t = 0;
			uint32_t hits = 0, fast = 0, same = 0;
			memset(&a, 0, sizeof a);
			memset(&b, 0, sizeof b);
			memset(&m, 0, sizeof m);
			m.cap = FAST_CAP / (uint32_t)step3;     /* a stride's pages still swap */
			for (uint32_t i = 0; i < 40000; i++) {
				uint64_t r = ghost_rnd(&x), idx;
				if (noise && r % 16 == 0) {
					idx = ghost_rnd(&x) % FAST_PAGES;
				} else {
					uint64_t j = t % kstreams, step = (t / kstreams * step3) % slice;
					idx = j * slice + (down ? slice - 1 - step : step);
					t++;
				}
				struct ra_lwin wa, wb;
				uint8_t s = m.st[idx];
				if (s == 3) {
					same++;
					continue;
				}
				fast_in(&m, idx, 3);
				if (s == 0) {
					ra_own_miss(&a, idx, 0, FAST_PAGES, 64, &wa);
					ra_own_miss(&b, idx, 0, FAST_PAGES, 64, &wb);
				} else {
					hits++;
					ra_own_hit(&a, idx, false, 0, FAST_PAGES, 64, &wa);
					if (ra_own_fast_hit(&b, idx)) {
						fast++;
						wb = (struct ra_lwin){ idx, 1, 0, false, false };
					} else {
						ra_own_hit(&b, idx, false, 0, FAST_PAGES, 64, &wb);
					}
				}
				CHECK_EQ(wa.count, wb.count);
				if (wa.count != wb.count)
					break;
				if (wa.count) {
					CHECK_EQ(wa.start, wb.start);
					CHECK_EQ(wa.stride, wb.stride);
				}
				for (uint32_t k = 0; k < wa.count; k++)
					fast_in(&m, wa.start + (uint64_t)((int64_t)k * wa.stride), 1);
				if (noise && wa.count && r / 16 % 8 == 0) {     /* the window cut for want of memory */
					uint32_t steps = (uint32_t)(r / 128 % wa.count);
					ra_own_cut(&a, wa.start, steps);
					ra_own_cut(&b, wb.start, steps);
				}
			}
			fast_state(&a, &fa);
			fast_state(&b, &fb);
			CHECK(!memcmp(&fa, &fb, sizeof fa));
			/* The fast path took nearly every hit of clean streams
			 * (all but one per window); with random pages between
			 * (each a slow call, and a random page in a stream's
			 * window makes it skip a page) and windows cut, still
			 * a good part. */
			CHECK(hits > 10000);
			/* More streams than slots: RA_OWN_FAST of them stay set. */
			uint32_t share = kstreams <= RA_OWN_FAST ? 10 : 10 * RA_OWN_FAST / kstreams;
			bool ok = noise ? fast * 5 > hits : fast * 10 > hits * share * 9 / 10;
			CHECK(ok);
			if (hits <= 10000 || !ok)
				printf("  streams %u down %d noise %d step %u: %u hits, %u fast, %u used before\n",
				       kstreams, down, noise, (unsigned)step3, hits, fast, same);
		}
		}
		}
	}
}

TEST(ra_fill_gaps_between_slot_runs)
{
	uint64_t out[16];
	const uint64_t two_streams[] = { 10, 12, 14, 16 };     /* every other slot */
	CHECK_EQ(ra_fill_gaps(two_streams, 4, 16, out), 3u);
	CHECK_EQ(out[0], 11u);
	CHECK_EQ(out[2], 15u);
	CHECK_EQ(ra_fill_gaps(two_streams, 4, 2, out), 2u);    /* at most max */
	const uint64_t far[] = { 10, 11, 20 };                  /* a gap of 8: left alone */
	CHECK_EQ(ra_fill_gaps(far, 3, 16, out), 0u);
	const uint64_t three[] = { 0, 4 }, four[] = { 0, 5 };
	CHECK_EQ(ra_fill_gaps(three, 2, 16, out), (uint32_t)RA_FILL_GAP);
	CHECK_EQ(out[0], 1u);
	CHECK_EQ(ra_fill_gaps(four, 2, 16, out), 0u);
	const uint64_t adjacent[] = { 5, 6, 7 };
	CHECK_EQ(ra_fill_gaps(adjacent, 3, 16, out), 0u);
	CHECK_EQ(ra_fill_gaps(adjacent, 1, 16, out), 0u);
}

/* Gap filling goes on while half the fill pages read get used; below
 * that one window in RA_FILL_PROBE fills, and use brings it back. */
TEST(ra_fill_room_follows_use)
{
	struct ra_fill f = { 0, 0, 0 };
	CHECK_EQ(ra_fill_room(&f, 5), 5u);              /* nothing known: fill */
	ra_fill_read(&f, RA_FILL_LEARN);
	for (uint32_t i = 0; i < RA_FILL_LEARN / 2; i++)
		ra_fill_used(&f);
	CHECK_EQ(ra_fill_room(&f, 5), 5u);              /* half used: fill */
	ra_fill_read(&f, 2);
	uint32_t filled = 0;
	for (uint32_t i = 0; i < 4 * RA_FILL_PROBE; i++)
		filled += ra_fill_room(&f, 3) != 0;
	CHECK_EQ(filled, 4u);                           /* under half: the probes only */
	for (uint32_t i = 0; i < 4; i++)
		ra_fill_used(&f);
	CHECK_EQ(ra_fill_room(&f, 3), 3u);
	/* Use never exceeds reads; past RA_FILL_FORGET both halve. */
	for (uint32_t i = 0; i < 1000; i++)
		ra_fill_used(&f);
	CHECK_EQ(f.used, f.read);
	ra_fill_read(&f, RA_FILL_FORGET);
	CHECK(f.read <= RA_FILL_FORGET && f.used * 2 <= f.read);
}

TEST(ra_loose_verdict_counts_resolved_pages_only)
{
	struct ra_loose l = { 0, 0 };
	CHECK(!ra_loose_pays(&l));                      /* nothing known */
	for (uint32_t i = 0; i + 1 < RA_LOOSE_LEARN; i++)
		ra_loose_used(&l);
	CHECK(!ra_loose_pays(&l));                      /* too few to tell */
	ra_loose_used(&l);
	CHECK(ra_loose_pays(&l));
	for (uint32_t i = 0; i < RA_LOOSE_LEARN; i++)
		ra_loose_wasted(&l);
	CHECK(ra_loose_pays(&l));                       /* half used */
	ra_loose_wasted(&l);
	CHECK(!ra_loose_pays(&l));
	/* Past RA_LOOSE_FORGET both halve: the share stays, old pages weigh less. */
	for (uint32_t i = 0; i < 10 * RA_LOOSE_FORGET; i++)
		ra_loose_wasted(&l);
	CHECK(l.used + l.wasted <= RA_LOOSE_FORGET);
	CHECK(!ra_loose_pays(&l));
	for (uint32_t i = 0; i < RA_LOOSE_FORGET; i++)
		ra_loose_used(&l);
	CHECK(ra_loose_pays(&l));
	/* A slot miss reads the large window on the machine's verdict even
	 * where the space's own counts say not yet or no. */
	struct ra_own o;
	memset(&o, 0, sizeof o);
	CHECK_EQ(ra_own_slot_pages(&o, false), 2u);
	CHECK_EQ(ra_own_slot_pages(&o, true), RA_OWN_SW_PAGES);
	ra_own_slot_read(&o, 4 * RA_OWN_SW_LEARN);
	CHECK(ra_own_slot_pages(&o, false) <= 2u);
	CHECK_EQ(ra_own_slot_pages(&o, true), RA_OWN_SW_PAGES);
}
