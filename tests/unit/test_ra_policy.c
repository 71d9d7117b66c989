/*
 * Readahead policies on synthetic fault sequences.
 *
 * A small simulator stands in for the kernel: pages of one or two areas
 * ("regions", each its own VMA and address space) live on disk at fixed
 * slots; memory holds `cap` pages in FIFO order.  An access to a page
 * that is not in memory is a major fault: the policy picks a window and
 * every page of it not in memory is read, marked as readahead.  An access
 * that finds a readahead page is a hit (the fault the kernel takes to map
 * it); one that finds an ordinary page is no fault at all.  A readahead
 * page evicted unused is waste.  Counters are per region, credited to the
 * region whose fault issued the pages, as the kernel's per-mm counters are.
 */
#include <stdlib.h>
#include "test.h"
#include "swap/ra_policy.h"

enum { NOT = 0, MAPPED = 1, RA = 2, RA_MARK = 3 };

struct region_stats {
	uint64_t access, major, issued, hit, waste;
};

struct sim {
	uint32_t n, cap, nreg;
	uint64_t reg_lo[2], reg_hi[2];
	uint64_t *slot_of;              /* page -> slot (slot 0: header) */
	int64_t *page_of;               /* slot -> page or -1 */
	uint64_t nslots;
	uint8_t *st;
	uint8_t *issuer;                /* region that read a readahead page */
	uint32_t *fifo, head, count;
	struct ra_spec spec;
	unsigned cluster;               /* page_cluster for hugh/shaohua/vma */
	uint32_t budget;
	struct ra_hugh hugh;
	uint64_t vstate[2];
	struct ra_own own[2];
	struct region_stats rs[2];
};

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Regions of n/nreg pages each; slots in page order (identity + 1), or
 * interleaved between the two regions when `interleave`. */
static void sim_init(struct sim *s, uint32_t n, uint32_t cap, uint32_t nreg, bool interleave, const char *policy,
		     unsigned cluster)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->cap = cap;
	s->nreg = nreg;
	for (uint32_t r = 0; r < nreg; r++) {
		s->reg_lo[r] = (uint64_t)r * (n / nreg);
		s->reg_hi[r] = s->reg_lo[r] + n / nreg;
	}
	s->nslots = n + 1;
	s->slot_of = calloc(n, sizeof *s->slot_of);
	s->page_of = calloc(s->nslots, sizeof *s->page_of);
	s->st = calloc(n, 1);
	s->issuer = calloc(n, 1);
	s->fifo = calloc(cap, sizeof *s->fifo);
	s->page_of[0] = -1;
	uint32_t half = n / 2;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t slot = interleave ? (i < half ? 2ull * i : 2ull * (i - half) + 1) + 1 : i + 1ull;
		s->slot_of[i] = slot;
		s->page_of[slot] = i;
	}
	CHECK(ra_parse(policy, &s->spec));
	s->cluster = cluster;
	s->budget = 64;
}

static void sim_free(struct sim *s)
{
	free(s->slot_of);
	free(s->page_of);
	free(s->st);
	free(s->issuer);
	free(s->fifo);
}

static uint32_t region(const struct sim *s, uint64_t i) { return s->nreg == 2 && i >= s->reg_lo[1]; }

static void bring(struct sim *s, uint64_t i, uint8_t state, uint32_t issuer)
{
	if (s->count == s->cap) {
		uint32_t v = s->fifo[s->head];
		s->head = (s->head + 1) % s->cap;
		s->count--;
		if (s->st[v] >= RA)
			s->rs[s->issuer[v]].waste++;
		s->st[v] = NOT;
	}
	s->fifo[(s->head + s->count) % s->cap] = (uint32_t)i;
	s->count++;
	s->st[i] = state;
	s->issuer[i] = (uint8_t)issuer;
	if (state >= RA)
		s->rs[issuer].issued++;
}

/* Read the pages of a slot window besides the faulting page. */
static void read_slots(struct sim *s, uint64_t fault, uint32_t pages, uint32_t r)
{
	struct ra_slots w;
	ra_slot_window(s->slot_of[fault], pages, s->nslots, &w);
	CHECK(w.start <= s->slot_of[fault] && s->slot_of[fault] < w.start + w.count);
	for (uint64_t slot = w.start; slot < w.start + w.count; slot++) {
		int64_t p = s->page_of[slot];
		if (p >= 0 && (uint64_t)p != fault && s->st[p] == NOT)
			bring(s, (uint64_t)p, RA, r);
	}
}

/* Read a logical window; the first page read carries the marker (own). */
static void read_logical(struct sim *s, const struct ra_lwin *w, uint64_t fault, uint32_t r)
{
	bool mark = w->marker;
	for (uint32_t k = 0; k < w->count; k++) {
		uint64_t p = w->start + (uint64_t)((int64_t)k * w->stride);
		CHECK(p >= s->reg_lo[r] && p < s->reg_hi[r]);
		if (p == fault || s->st[p] != NOT)
			continue;
		bring(s, p, mark ? RA_MARK : RA, r);
		mark = false;
	}
}

static void sim_access(struct sim *s, uint64_t i)
{
	uint32_t r = region(s, i);
	uint64_t lo = s->reg_lo[r], hi = s->reg_hi[r];
	uint32_t maxp = 1u << s->cluster;
	struct ra_lwin w;
	s->rs[r].access++;
	uint8_t st = s->st[i];
	if (st == MAPPED)
		return;
	if (st >= RA) {
		s->rs[r].hit++;
		s->st[i] = MAPPED;
		switch (s->spec.kind) {
		case RA_HUGH:
			ra_hugh_hit(&s->hugh);
			break;
		case RA_SHAOHUA:
			ra_shaohua_hit(&s->vstate[r]);
			break;
		case RA_VMA:
			ra_vma_lookup(&s->vstate[r], i, true);
			break;
		case RA_OWN:
			ra_own_hit(&s->own[r], i, st == RA_MARK, lo, hi, s->budget, &w);
			read_logical(s, &w, i, r);
			break;
		default:
			break;
		}
		return;
	}
	s->rs[r].major++;
	bring(s, i, MAPPED, r);
	switch (s->spec.kind) {
	case RA_OFF:
		break;
	case RA_FIXED:
		read_slots(s, i, 1u << s->spec.order, r);
		break;
	case RA_HUGH:
		read_slots(s, i, ra_hugh_pages(&s->hugh, s->slot_of[i], maxp), r);
		break;
	case RA_SHAOHUA:
		read_slots(s, i, ra_shaohua_miss(&s->vstate[r], maxp), r);
		break;
	case RA_VMA:
		ra_vma_miss(&s->vstate[r], i, lo, hi, maxp, &w);
		CHECK(w.start <= i && i < w.start + w.count);
		read_logical(s, &w, i, r);
		break;
	case RA_OWN:
		ra_own_miss(&s->own[r], i, lo, hi, s->budget, &w);
		read_logical(s, &w, i, r);
		if (!w.count) {
			uint64_t before = s->rs[r].issued;
			read_slots(s, i, ra_own_slot_pages(&s->own[r]), r);
			ra_own_slot_read(&s->own[r], (uint32_t)(s->rs[r].issued - before));
		}
		break;
	}
}

/* ---------------------------------------------------------------- workloads */

enum pattern { SEQ, SEQ_BACK, RANDOM, STRIDE3, STRIDE16, STRIDE4_SEQ_START, TWO_STREAMS, JUMPS, SHIFTING, MIXED, BUILD };

#define NPAGES 4096
#define CAP 1024
#define PASSES 3

static void run_pattern(struct sim *s, enum pattern pat)
{
	uint32_t n = s->n;
	rng = 88172645463325252ull;
	switch (pat) {
	case SEQ:
		for (int p = 0; p < PASSES; p++)
			for (uint32_t i = 0; i < n; i++)
				sim_access(s, i);
		break;
	case SEQ_BACK:
		for (int p = 0; p < PASSES; p++)
			for (uint32_t i = n; i-- > 0;)
				sim_access(s, i);
		break;
	case RANDOM:
		for (uint32_t k = 0; k < PASSES * n; k++)
			sim_access(s, rnd() % n);
		break;
	case STRIDE3:
		for (int p = 0; p < PASSES; p++)
			for (uint32_t i = 0; i < n; i += 3)
				sim_access(s, i);
		break;
	case STRIDE16:
		for (int p = 0; p < PASSES; p++)
			for (uint32_t o = 0; o < 16; o++)
				for (uint32_t i = o; i < n; i += 16)
					sim_access(s, i);
		break;
	case STRIDE4_SEQ_START:         /* a few neighbouring faults first (as the
					 * kernel sees at a program's start), then stride 4 */
		for (int p = 0; p < PASSES; p++) {
			for (uint32_t i = 0; i < 6; i++)
				sim_access(s, i);
			for (uint32_t i = 8; i < n; i += 4)
				sim_access(s, i);
		}
		break;
	case TWO_STREAMS:
		for (int p = 0; p < PASSES; p++)
			for (uint32_t i = 0; i < n / 2; i++) {
				sim_access(s, i);
				sim_access(s, n / 2 + i);
			}
		break;
	case JUMPS: {
		uint64_t pos = 0;
		for (uint32_t k = 0; k < PASSES * n; k++) {
			if (k % 1000 == 999)
				pos = rnd() % n;
			sim_access(s, pos);
			pos = (pos + 1) % n;
		}
		break;
	}
	case SHIFTING: {
		uint64_t base = 0;
		for (uint32_t k = 0; k < 6 * n; k++) {
			if (k % 5000 == 4999)
				base = rnd() % (n - CAP / 2);
			sim_access(s, base + rnd() % (CAP / 2));
		}
		break;
	}
	case BUILD: {           /* 16 threads: bursts of 32 pages from a random start, then 8
				 * random pages, each in its own 1/16 of the space; their
				 * faults interleave one by one */
		enum { T = 16, BURST = 32, RND = 8 };
		uint64_t part = n / T, pos[T], left[T];
		for (int t = 0; t < T; t++)
			left[t] = 0, pos[t] = 0;
		for (uint32_t k = 0; k < 2 * n; k++) {
			int t = (int)(k % T);
			if (left[t] == 0) {
				left[t] = BURST + RND;
				pos[t] = rnd() % part;
			}
			uint64_t page;
			if (left[t] > RND)
				page = (pos[t] + (BURST + RND - left[t])) % part;
			else
				page = rnd() % part;
			left[t]--;
			sim_access(s, (uint64_t)t * part + page);
		}
		break;
	}
	case MIXED:             /* region 0 sequential, region 1 random, alternating */
		for (int p = 0; p < PASSES; p++)
			for (uint32_t i = 0; i < n / 2; i++) {
				sim_access(s, i);
				sim_access(s, n / 2 + rnd() % (n / 2));
			}
		break;
	}
}

static struct region_stats total(const struct sim *s)
{
	struct region_stats t = { 0, 0, 0, 0, 0 };
	for (uint32_t r = 0; r < s->nreg; r++) {
		t.access += s->rs[r].access;
		t.major += s->rs[r].major;
		t.issued += s->rs[r].issued;
		t.hit += s->rs[r].hit;
		t.waste += s->rs[r].waste;
	}
	return t;
}

static uint32_t sim_pages = NPAGES, sim_cap = CAP;

static struct region_stats run(const char *policy, enum pattern pat, unsigned cluster)
{
	struct sim s;
	uint32_t nreg = pat == MIXED ? 2 : 1;
	sim_init(&s, sim_pages, sim_cap, nreg, pat == MIXED, policy, cluster);
	run_pattern(&s, pat);
	/* Readahead pages still unused at the end are neither hit nor
	 * waste: leave them out of `issued`. */
	for (uint32_t i = 0; i < s.n; i++)
		if (s.st[i] >= RA)
			s.rs[s.issuer[i]].issued--;
	struct region_stats t = pat == MIXED ? s.rs[0] : total(&s);
	sim_free(&s);
	return t;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

/* ---------------------------------------------------------------- tests */

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
	uint64_t st = 0;
	struct ra_lwin w;
	/* First fault: no history, one page. */
	ra_vma_miss(&st, 1000, 0, 100000, 8, &w);
	CHECK_EQ(w.start, 1000);
	CHECK_EQ(w.count, 1);
	/* The next page: forward, two pages. */
	ra_vma_miss(&st, 1001, 0, 100000, 8, &w);
	CHECK_EQ(w.start, 1001);
	CHECK_EQ(w.count, 2);
	/* Hits grow it: 3 hits -> 8 pages, forward from the fault after a
	 * lookup at the previous page. */
	ra_vma_lookup(&st, 1002, true);
	ra_vma_lookup(&st, 1003, true);
	ra_vma_lookup(&st, 1004, true);
	ra_vma_miss(&st, 1005, 0, 100000, 8, &w);
	CHECK_EQ(w.start, 1005);
	CHECK_EQ(w.count, 8);
	/* Backward. */
	ra_vma_lookup(&st, 2000, true);
	ra_vma_lookup(&st, 2000, true);
	ra_vma_miss(&st, 1999, 0, 100000, 8, &w);      /* 2 hits: 4 pages */
	CHECK_EQ(w.start, 1996);
	CHECK_EQ(w.count, 4);
	/* Not adjacent: centred; at most 2^5 pages whatever page_cluster. */
	for (int i = 0; i < 40; i++)
		ra_vma_lookup(&st, 5000, true);
	ra_vma_miss(&st, 3000, 0, 100000, 256, &w);
	CHECK_EQ(w.count, 32);
	CHECK_EQ(w.start, 3000 - 15);
	/* Clipped to the VMA and to the 512-page table block. */
	for (int i = 0; i < 40; i++)
		ra_vma_lookup(&st, 5000, true);
	ra_vma_miss(&st, 3072, 3070, 100000, 32, &w);
	CHECK_EQ(w.start, 3072);                        /* block starts at 3072 */
	CHECK_EQ(w.count, 32 - 15);
	for (int i = 0; i < 40; i++)
		ra_vma_lookup(&st, 5000, true);
	ra_vma_miss(&st, 3081, 3070, 3083, 32, &w);
	CHECK_EQ(w.start, 3072);
	CHECK_EQ(w.count, 11);
}

TEST(ra_fixed_and_off_baselines)
{
	struct region_stats off = run("off", SEQ, 3), f3 = run("fixed:3", SEQ, 3), f4 = run("fixed:4", SEQ, 3);
	CHECK_EQ(off.major, PASSES * NPAGES);
	CHECK_EQ(off.issued, 0);
	/* One fault per aligned block; the first block is one short (slot 0
	 * is the header), so its last page faults on its own. */
	CHECK_EQ(f3.major, PASSES * (NPAGES / 8 + 1));
	CHECK_EQ(f4.major, PASSES * (NPAGES / 16 + 1));
	CHECK_EQ(f4.waste, 0);
	struct region_stats r0 = run("off", RANDOM, 3), r3 = run("fixed:3", RANDOM, 3);
	/* Random: readahead wastes most of what it reads. */
	CHECK(ratio(r3.waste, r3.issued) > 0.5);
	CHECK(r0.major > PASSES * NPAGES / 2);
}

TEST(ra_hugh_and_shaohua_adapt)
{
	struct region_stats hs = run("hugh", SEQ, 3), hr = run("hugh", RANDOM, 3), f3r = run("fixed:3", RANDOM, 3);
	CHECK(hs.major < PASSES * NPAGES / 6);          /* near fixed:3's 1/8 */
	CHECK(hr.issued * 4 < f3r.issued);               /* readahead mostly off */
	struct region_stats ss = run("shaohua", SEQ, 3), sr = run("shaohua", RANDOM, 3);
	CHECK_EQ(ss.major, PASSES * (NPAGES / 8 + 1));
	CHECK(sr.issued * 4 < f3r.issued);
}

/* The own policy against the best of off and fixed:0..4 on each pattern. */
static void own_vs_best(enum pattern pat, const char *name, double max_major_ratio, double min_hit_rate,
			double max_waste)
{
	static const char *const fixed[] = { "off", "fixed:1", "fixed:2", "fixed:3", "fixed:4" };
	uint64_t best = UINT64_MAX;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		struct region_stats f = run(fixed[i], pat, 3);
		if (f.major < best)
			best = f.major;
	}
	struct region_stats o = run("own", pat, 3);
	double hit = ratio(o.hit, o.issued), waste = ratio(o.waste, o.issued);
	if (!(o.major <= best * 1.05 + 2) || ratio(o.major, o.access) > max_major_ratio || (o.issued && hit < min_hit_rate) ||
	    waste > max_waste)
		test_fail(__FILE__, __LINE__, "%s: own major %llu (best fixed %llu, %.4f of %llu accesses), "
			  "issued %llu hit %.4f waste %.4f", name, (unsigned long long)o.major, (unsigned long long)best,
			  ratio(o.major, o.access), (unsigned long long)o.access, (unsigned long long)o.issued, hit, waste);
}

TEST(ra_own_sequential)
{
	own_vs_best(SEQ, "seq", 0.01, 0.99, 0.01);
	own_vs_best(SEQ_BACK, "seq backward", 0.01, 0.99, 0.01);
}

TEST(ra_own_random)
{
	/* As good as off: nearly nothing read ahead (a 64 MiB area, 16 MiB
	 * of memory: false streams get rarer as areas grow). */
	own_vs_best(RANDOM, "random", 1, 0, 1);
	sim_pages = 4 * NPAGES;
	sim_cap = 4 * CAP;
	struct region_stats o = run("own", RANDOM, 3), off = run("off", RANDOM, 3);
	sim_pages = NPAGES;
	sim_cap = CAP;
	if (o.major > off.major * 1.01 || o.issued > off.major / 50)
		test_fail(__FILE__, __LINE__, "random: own major %llu issued %llu, off major %llu",
			  (unsigned long long)o.major, (unsigned long long)o.issued, (unsigned long long)off.major);
}

TEST(ra_own_strided)
{
	own_vs_best(STRIDE3, "stride 3", 0.02, 0.98, 0.02);
	own_vs_best(STRIDE16, "stride 16", 0.05, 0.95, 0.05);
	/* Confirmed as sequential first, the stream must learn its stride. */
	own_vs_best(STRIDE4_SEQ_START, "stride 4 after a sequential start", 0.03, 0.97, 0.03);
}

TEST(ra_own_two_streams)
{
	own_vs_best(TWO_STREAMS, "two interleaved streams", 0.01, 0.99, 0.01);
}

TEST(ra_own_jumps)
{
	own_vs_best(JUMPS, "sequential with random jumps", 0.03, 0.85, 0.15);
}

TEST(ra_own_shifting_working_set)
{
	/* A dense working set in random order: the aligned blocks of
	 * fixed:4 suit it best.  The own policy opens blocks once three
	 * recent misses are close together, a few misses after each shift. */
	struct region_stats o = run("own", SHIFTING, 3), off = run("off", SHIFTING, 3), f4 = run("fixed:4", SHIFTING, 3);
	if (o.major * 4 > off.major || o.major > f4.major * 5 / 2 || ratio(o.waste, o.issued) > 0.05)
		test_fail(__FILE__, __LINE__, "shifting: own major %llu, off %llu, fixed:4 %llu; waste %.4f",
			  (unsigned long long)o.major, (unsigned long long)off.major, (unsigned long long)f4.major,
			  ratio(o.waste, o.issued));
}

TEST(ra_own_build_shape)
{
	/* Sixteen threads' short bursts, interleaved fault by fault: the
	 * streams must not crowd each other out (32 stream slots), and each
	 * burst's overrun stays small.  Within 10% of the best fixed setting
	 * in major faults while reading at most 60% as much. */
	static const char *const fixed[] = { "off", "fixed:1", "fixed:2", "fixed:3", "fixed:4" };
	struct region_stats best = { 0, UINT64_MAX, 0, 0, 0 };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		struct region_stats r = run(fixed[i], BUILD, 3);
		if (r.major < best.major)
			best = r;
	}
	struct region_stats o = run("own", BUILD, 3);
	if (o.major * 10 > best.major * 11 || o.issued * 5 > best.issued * 3)
		test_fail(__FILE__, __LINE__, "build: own major %llu issued %llu; best fixed major %llu issued %llu",
			  (unsigned long long)o.major, (unsigned long long)o.issued, (unsigned long long)best.major,
			  (unsigned long long)best.issued);
}

TEST(ra_own_mixed_seq_and_random_tasks)
{
	/* Linux 4.14's test: the sequential task's readahead hit rate.
	 * Slot-based readahead reads the random task's pages with the
	 * stream's (they share the disk, interleaved); VA-based does not. */
	struct region_stats f3 = run("fixed:3", MIXED, 3), vma = run("vma", MIXED, 3), own = run("own", MIXED, 3);
	CHECK(ratio(f3.hit, f3.issued) < 0.6);
	CHECK(ratio(vma.hit, vma.issued) > 0.95);
	if (ratio(own.hit, own.issued) < 0.99 || ratio(own.major, own.access) > 0.01)
		test_fail(__FILE__, __LINE__, "mixed: own hit rate %.4f, major %llu of %llu", ratio(own.hit, own.issued),
			  (unsigned long long)own.major, (unsigned long long)own.access);
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
	CHECK_EQ(w.start, 103);
	CHECK_EQ(w.count, RA_OWN_INIT);
	CHECK_EQ(o.confirmed, 1);
	/* Using the marker issues the next window, twice as large. */
	ra_own_hit(&o, 103, true, 0, 10000, 128, &w);
	CHECK_EQ(w.start, 103 + RA_OWN_INIT);
	CHECK_EQ(w.count, 2 * RA_OWN_INIT);
	ra_own_hit(&o, 104, false, 0, 10000, 128, &w);  /* not the marker */
	CHECK_EQ(w.count, 0);
	uint64_t next = 103 + 3 * RA_OWN_INIT;
	ra_own_hit(&o, 103 + RA_OWN_INIT, true, 0, 10000, 128, &w);
	CHECK_EQ(w.start, next);
	CHECK_EQ(w.count, 4 * RA_OWN_INIT);
	/* The budget caps it. */
	uint64_t at = next;
	next += 4 * RA_OWN_INIT;
	ra_own_hit(&o, at, true, 0, 10000, 6 * RA_OWN_INIT, &w);
	CHECK_EQ(w.start, next);
	CHECK_EQ(w.count, 6 * RA_OWN_INIT);
	/* A miss inside the last window: its pages went early; halve. */
	ra_own_miss(&o, next + 5, 0, 10000, 128, &w);
	CHECK_EQ(w.start, next + 6);
	CHECK_EQ(w.count, 3 * RA_OWN_INIT);
	CHECK_EQ(o.shrunk, 1);
	/* The area's end stops it. */
	uint64_t end = next + 6 + 3 * RA_OWN_INIT + 5;
	ra_own_hit(&o, next + 6, true, 0, end, 128, &w);
	CHECK_EQ(w.start, next + 6 + 3 * RA_OWN_INIT);
	CHECK_EQ(w.count, 5);
	ra_own_hit(&o, w.start, true, 0, end, 128, &w);
	CHECK_EQ(w.count, 0);
	/* Backward, stride -2. */
	memset(&o, 0, sizeof o);
	ra_own_miss(&o, 500, 0, 10000, 128, &w);
	ra_own_miss(&o, 498, 0, 10000, 128, &w);
	ra_own_miss(&o, 496, 0, 10000, 128, &w);
	CHECK_EQ(w.start, 494);
	CHECK_EQ(w.stride, -2);
	CHECK_EQ(w.count, RA_OWN_INIT);
	ra_own_hit(&o, 494, true, 0, 10000, 128, &w);
	CHECK_EQ(w.start, 494 - 2 * RA_OWN_INIT);
	CHECK_EQ(w.count, 2 * RA_OWN_INIT);
	/* ...stopped by the area's start. */
	uint64_t lo = 494 - 2 * RA_OWN_INIT - 2 * 2 * RA_OWN_INIT - 2;
	ra_own_hit(&o, 494 - 2 * RA_OWN_INIT, true, lo, 10000, 128, &w);
	CHECK_EQ(w.start, lo + 2);
	CHECK_EQ(w.count, 2);
	ra_own_hit(&o, lo + 2, true, lo, 10000, 128, &w);
	CHECK_EQ(w.count, 0);
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
