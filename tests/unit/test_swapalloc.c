#include <stdlib.h>
#include "test.h"
#include "swap/swapalloc.h"

/* Counting allocator: tests end with no live block (leak check) and can
 * make the n-th allocation fail. */
static int live, fail_at;
static void *t_alloc(size_t n)
{
	if (fail_at && --fail_at == 0)
		return NULL;
	live++;
	return malloc(n);
}
static void t_free(void *q)
{
	if (q)
		live--;
	free(q);
}

static struct swap_pool P;
static struct swap_run R[64];

#define CHECK_POOL() do { \
	const char *_e = swapalloc_check(&P); \
	if (_e) test_fail(__FILE__, __LINE__, "swapalloc_check: %s", _e); \
} while (0)

static void fresh(void)
{
	swapalloc_destroy(&P);
	CHECK_EQ(live, 0);
	fail_at = 0;
	swapalloc_init(&P, t_alloc, t_free);
}

static int add(uint64_t nslots, int prio, uint32_t cluster)
{
	struct swap_area_conf c = { .nslots = nslots, .prio = prio, .cluster = cluster };
	int a = swapalloc_area_add(&P, &c);
	CHECK(a >= 0);
	CHECK_POOL();
	return a;
}

static uint64_t total(const struct swap_run *r, int nr)
{
	uint64_t n = 0;
	for (int i = 0; i < nr; i++)
		n += r[i].count;
	return n;
}

static int get(int want, int maxruns)
{
	int nr = swapalloc_get(&P, want, R, maxruns);
	CHECK(nr >= 0 && nr <= maxruns);
	CHECK(total(R, nr > 0 ? nr : 0) <= (uint64_t)want);
	CHECK_POOL();
	return nr;
}

static struct swap_area_stats stats(int a)
{
	struct swap_area_stats s;
	CHECK_EQ(swapalloc_area_stats(&P, a, &s), 0);
	return s;
}

static void free_run(const struct swap_run *r)
{
	for (uint32_t i = 0; i < r->count; i++)
		CHECK_EQ(swapalloc_free(&P, swp_entry(r->area, r->off + i)), 0);
	CHECK_POOL();
}

static void free_slot(int a, uint64_t off)
{
	CHECK_EQ(swapalloc_free(&P, swp_entry((unsigned)a, off)), 0);
	CHECK_POOL();
}

TEST(swapalloc_entry_layout)
{
	uint64_t e = swp_entry(3, 12345);
	CHECK_EQ(e, 1ull | 3ull << 1 | 12345ull << 6);
	CHECK(swp_is_entry(e));
	CHECK_EQ(swp_area(e), 3);
	CHECK_EQ(swp_offset(e), 12345);
	CHECK(swp_entry(0, 0) != 0);
	CHECK(!swp_is_entry((uint64_t)(uintptr_t)&P));         /* aligned pointers are not entries */
	e = swp_entry(SWAP_MAX_AREAS - 1, SWAP_MAX_SLOTS - 1);
	CHECK_EQ(swp_area(e), SWAP_MAX_AREAS - 1);
	CHECK_EQ(swp_offset(e), SWAP_MAX_SLOTS - 1);
	e = swp_entry(31, (1ull << SWP_OFF_BITS) - 1);
	CHECK_EQ(swp_area(e), 31);
	CHECK_EQ(swp_offset(e), (1ull << SWP_OFF_BITS) - 1);
	CHECK_EQ(e >> 58, 0);                                   /* room for pte = e << 1 below NX */
}

TEST(swapalloc_cluster_fill_order)
{
	fresh();
	int a = add(4096, 0, 256);
	CHECK_EQ(get(64, 8), 1);                                /* one run from an empty area */
	CHECK(R[0].area == (uint32_t)a && R[0].off == 1 && R[0].count == 64);
	CHECK_EQ(get(64, 8), 1);
	CHECK(R[0].off == 65 && R[0].count == 64);
	CHECK_EQ(get(126, 8), 1);                               /* up to 254 */
	CHECK(R[0].off == 129 && R[0].count == 126);
	CHECK_EQ(stats(a).clusters_taken, 1);                   /* cluster 0 not done yet */
	CHECK_EQ(get(1, 8), 1);
	CHECK_EQ(R[0].off, 255);
	CHECK_EQ(stats(a).clusters_taken, 1);
	CHECK_EQ(get(10, 8), 1);
	CHECK(R[0].off == 256 && R[0].count == 10);
	CHECK_EQ(stats(a).clusters_taken, 2);
	/* Small batches stay contiguous: each starts where the last ended. */
	uint64_t next = 266;
	for (int i = 0; i < 100; i++) {
		CHECK_EQ(get(7, 8), 1);
		CHECK(R[0].off == next && R[0].count == 7);
		next += 7;
	}
	CHECK_EQ(stats(a).clusters_taken, (next - 1) / 256 + 1);
	CHECK_EQ(stats(a).fallback_scans, 0);
}

TEST(swapalloc_get_spans_clusters)
{
	fresh();
	int a = add(4096, 0, 256);
	CHECK_EQ(get(300, 1), 1);                               /* clusters 0 and 1 touch: one run */
	CHECK(R[0].off == 1 && R[0].count == 300);
	CHECK_EQ(stats(a).clusters_taken, 2);
	CHECK_EQ(get(1000, 1), 1);
	CHECK(R[0].off == 301 && R[0].count == 1000);
}

TEST(swapalloc_free_returns_to_cluster)
{
	fresh();
	int a = add(1024, 0, 256);
	CHECK_EQ(get(1023, 4), 1);
	struct swap_area *A = &P.area[a];
	CHECK_EQ(A->free_list.n + A->partial.n, 0);
	CHECK_EQ(A->cpu[0].cur, SWAP_CL_NONE);                         /* used up: left */
	free_slot(a, 300);                                      /* too few to be a partial cluster */
	CHECK_EQ(A->cl[1].where, SWAP_CL_OFF);
	CHECK_EQ(A->cl[1].free, 1);
	for (uint64_t off = 301; off < 316; off++)
		free_slot(a, off);
	CHECK_EQ(A->cl[1].where, SWAP_CL_PARTIAL);              /* 16 == frag_min */
	CHECK_EQ(A->partial.n, 1);
	for (uint64_t off = 256; off < 512; off++)
		if (off < 300 || off >= 316)
			free_slot(a, off);
	CHECK_EQ(A->cl[1].where, SWAP_CL_FREE);
	CHECK_EQ(A->free_list.n, 1);
	CHECK_EQ(A->partial.n, 0);
	CHECK_EQ(stats(a).frag_permille, 0);
	CHECK_EQ(stats(a).free_slots, 256);
	CHECK_EQ(get(5, 4), 1);
	CHECK(R[0].off == 256 && R[0].count == 5);
	CHECK_EQ(stats(a).clusters_taken, 5);                   /* 4 at first, then cluster 1 again */
	CHECK_EQ(A->cpu[0].cur, 1);

	/* Frees into the current cluster keep it current, cursor and all. */
	free_slot(a, 256);
	free_slot(a, 258);
	CHECK_EQ(A->cpu[0].cur, 1);
	CHECK_EQ(get(1, 4), 1);
	CHECK_EQ(R[0].off, 261);

	/* A partial cluster (cluster 2 with 40 free) is made current again. */
	for (uint64_t off = 600; off < 640; off++)
		free_slot(a, off);
	CHECK_EQ(A->partial.n, 1);
	/* The rest of cluster 1 past the cursor, then the partial cluster 2,
	 * then 256 and 258 (left behind the cursor, too few for a partial
	 * cluster) by a fallback scan. */
	CHECK_EQ(get(300, 8), 4);
	CHECK(R[0].off == 262 && R[0].count == 250);
	CHECK(R[1].off == 600 && R[1].count == 40);
	CHECK(R[2].off == 256 && R[2].count == 1);
	CHECK(R[3].off == 258 && R[3].count == 1);
	CHECK_EQ(stats(a).partial_reused, 1);
	CHECK_EQ(stats(a).fallback_scans, 1);
	CHECK_EQ(stats(a).free_slots, 0);
}

TEST(swapalloc_fragmentation_and_fallback)
{
	fresh();
	int a = add(2048, 0, 256);                              /* 8 clusters */
	CHECK_EQ(get(2047, 1), 1);
	for (uint64_t off = 5 * 256; off < 6 * 256; off++)
		free_slot(a, off);
	CHECK_EQ(stats(a).frag_permille, 0);
	/* Scattered frees, at most 8 per cluster (below frag_min): the figure
	 * never falls and ends high. */
	static bool freed[2048];
	memset(freed, 0, sizeof freed);
	uint32_t per[8] = { 0 }, frag = 0, x = 12345, nfreed = 0;
	while (nfreed < 50) {
		x = x * 1103515245u + 12345u;
		uint64_t off = 1 + (x >> 8) % 2047;
		uint32_t c = (uint32_t)(off / 256);
		if (c == 5 || freed[off] || per[c] == 8)
			continue;
		free_slot(a, off);
		freed[off] = true;
		per[c]++;
		nfreed++;
		uint32_t f = stats(a).frag_permille;
		CHECK(f >= frag);
		frag = f;
	}
	CHECK_EQ(frag, 1000 * 50 / (256 + 50));
	CHECK_EQ(stats(a).fallback_scans, 0);
	CHECK_EQ(get(256, 4), 1);                               /* the free cluster first */
	CHECK_EQ(R[0].off, 5 * 256);
	CHECK_EQ(stats(a).fallback_scans, 0);
	CHECK_EQ(stats(a).frag_permille, 1000);                 /* only scattered slots left */
	/* No free or partial cluster, free slots exist: scan for them. */
	CHECK_EQ(P.area[a].free_list.n + P.area[a].partial.n, 0);
	int nr = get(10, 16);
	CHECK_EQ(total(R, nr), 10);
	CHECK_EQ(stats(a).fallback_scans, 1);
	for (int i = 0; i < nr; i++)
		for (uint32_t k = 0; k < R[i].count; k++)
			CHECK(freed[R[i].off + k]);
	nr = get(1000, 64);
	CHECK_EQ(total(R, nr), 40);
	CHECK_EQ(stats(a).free_slots, 0);
	CHECK_EQ(get(1, 1), 0);
}

TEST(swapalloc_exhaustion)
{
	fresh();
	int a = add(100, 0, 8);
	CHECK_EQ(get(1000, 16), 1);
	CHECK(R[0].off == 1 && R[0].count == 99);
	for (int i = 0; i < 50; i++)
		CHECK_EQ(get(10, 16), 0);
	CHECK_EQ(swapalloc_free_slots(&P), 0);
	struct swap_area_stats s = stats(a);
	CHECK_EQ(s.used_slots, 99);
	CHECK_EQ(s.free_slots, 0);
	CHECK_EQ(s.slots_allocated, 99);
	CHECK_EQ(s.bad_slots, 1);
	CHECK_EQ(s.frag_permille, 0);
	free_slot(a, 50);
	CHECK_EQ(get(10, 16), 1);                               /* the one slot there is */
	CHECK(R[0].off == 50 && R[0].count == 1);
	CHECK_EQ(get(0, 16), 0);
	CHECK_EQ(swapalloc_get(&P, -1, R, 16), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_get(&P, 1, NULL, 16), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_get(&P, 1, R, -1), SWAPALLOC_EINVAL);
	fresh();
	CHECK_EQ(get(10, 16), 0);                               /* no area at all */
}

TEST(swapalloc_bad_slots_never_handed_out)
{
	fresh();
	static const uint32_t bad[] = { 0, 5, 6, 7, 300, 299999, 5 };
	struct swap_area_conf c = { .nslots = 1000, .bad = bad, .nbad = 7 };
	int a = swapalloc_area_add(&P, &c);
	CHECK(a >= 0);
	CHECK_POOL();
	CHECK_EQ(stats(a).bad_slots, 5);                        /* header, 5, 6, 7, 300 */
	int nr = get(5000, 16);
	CHECK_EQ(nr, 3);
	CHECK(R[0].off == 1 && R[0].count == 4);
	CHECK(R[1].off == 8 && R[1].count == 292);
	CHECK(R[2].off == 301 && R[2].count == 699);
	CHECK_EQ(total(R, nr), 995);
	CHECK_EQ(swapalloc_count(&P, swp_entry(a, 5)), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_dup(&P, swp_entry(a, 0)), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, swp_entry(a, 300)), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_retire(&P, swp_entry(a, 6)), SWAPALLOC_EINVAL);
	CHECK_POOL();
	/* An area with nothing usable is refused. */
	static const uint32_t all[] = { 1, 2 };
	c = (struct swap_area_conf){ .nslots = 3, .bad = all, .nbad = 2 };
	CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_ENOSPC);
	c = (struct swap_area_conf){ .nslots = 1 };
	CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_EINVAL);
	c = (struct swap_area_conf){ .nslots = SWAP_MAX_SLOTS + 1 };
	CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_EINVAL);
	CHECK_POOL();
	fresh();
}

TEST(swapalloc_retire_slots)
{
	fresh();
	int a = add(1024, 0, 256);
	CHECK_EQ(swapalloc_retire(&P, swp_entry(a, 50)), 0);   /* free slot: bad at once */
	CHECK_POOL();
	CHECK_EQ(stats(a).bad_slots, 2);
	CHECK_EQ(get(10, 8), 1);
	CHECK(R[0].off == 1 && R[0].count == 10);
	uint64_t e = swp_entry(a, 3);
	CHECK_EQ(swapalloc_retire(&P, e), 0);                   /* in use: bad when released */
	CHECK_POOL();
	CHECK_EQ(swapalloc_retire(&P, e), 0);                   /* again: counted once */
	CHECK_EQ(stats(a).retired, 2);
	CHECK_EQ(swapalloc_count(&P, e), 1);
	CHECK_EQ(swapalloc_dup(&P, e), 0);                      /* its users may still fork */
	CHECK_EQ(swapalloc_free(&P, e), 1);
	CHECK_EQ(stats(a).bad_slots, 2);
	CHECK_EQ(swapalloc_free(&P, e), 0);
	CHECK_POOL();
	CHECK_EQ(stats(a).bad_slots, 3);
	CHECK_EQ(swapalloc_free(&P, e), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_retire(&P, e), SWAPALLOC_EINVAL);
	CHECK_EQ(stats(a).retired, 2);
	CHECK_EQ(stats(a).used_slots, 9);
	int nr = get(2000, 64);
	CHECK_EQ(total(R, nr), 1024 - 3 - 9);                   /* minus bad 0, 50, 3 and 9 in use */
	for (int i = 0; i < nr; i++)
		CHECK(R[i].off > 50 || R[i].off + R[i].count <= 50);
	/* Freed and retired slots of the first run never come back. */
	for (uint64_t off = 1; off <= 10; off++)
		if (off != 3)
			free_slot(a, off);
	nr = get(20, 8);
	CHECK_EQ(total(R, nr), 9);
	for (int i = 0; i < nr; i++)
		CHECK(R[i].off > 3 || R[i].off + R[i].count <= 3);
}

TEST(swapalloc_priorities)
{
	fresh();
	int lo = add(600, 5, 0), hi = add(600, 10, 0);
	CHECK_EQ(get(100, 8), 1);
	CHECK_EQ(R[0].area, hi);
	int nr = get(600, 8);
	CHECK_EQ(nr, 2);
	CHECK(R[0].area == (uint32_t)hi && R[0].off == 101 && R[0].count == 499);
	CHECK(R[1].area == (uint32_t)lo && R[1].off == 1 && R[1].count == 101);
	int top = add(600, 20, 0);
	CHECK_EQ(get(10, 8), 1);
	CHECK_EQ(R[0].area, top);
	CHECK_EQ(swapalloc_area_disable(&P, top), 0);
	CHECK_EQ(get(10, 8), 1);
	CHECK(R[0].area == (uint32_t)lo && R[0].off == 102);
	CHECK_EQ(swapalloc_area_enable(&P, top), 0);
	CHECK_EQ(get(10, 8), 1);
	CHECK(R[0].area == (uint32_t)top && R[0].off == 11);
	/* Negative priorities (swapon's defaults) sort below. */
	int neg = add(600, -2, 0);
	CHECK_EQ(P.order[P.norder - 1], neg);
	CHECK_POOL();
}

TEST(swapalloc_equal_priorities_alternate)
{
	fresh();
	int a = add(4096, 3, 256), b = add(8192, 3, 256);
	uint32_t seq[64], n = 0, last_area = 99;
	uint64_t last_cl = 99;
	for (int i = 0; i < 60 && n < 12; i++) {
		int nr = get(64, 8);
		CHECK(nr >= 1);
		for (int k = 0; k < nr; k++) {
			uint64_t cl = R[k].off / 256;
			CHECK_EQ(cl, (R[k].off + R[k].count - 1) / 256);    /* runs stay in a cluster here */
			if (R[k].area != last_area || cl != last_cl)
				seq[n++] = R[k].area;
			last_area = R[k].area;
			last_cl = cl;
		}
	}
	CHECK(n >= 12);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ(seq[i], i % 2 ? b : a);
	int64_t d = (int64_t)stats(a).clusters_taken - (int64_t)stats(b).clusters_taken;
	CHECK(d == 0 || d == 1);
	/* A full area drops out of the rotation. */
	while (stats(a).free_slots)
		CHECK(get(64, 8) > 0);
	CHECK_EQ(stats(a).free_slots, 0);
	int nr = get(100, 8);
	CHECK_EQ(total(R, nr), 100);
	for (int k = 0; k < nr; k++)
		CHECK_EQ(R[k].area, b);
}

TEST(swapalloc_dup_free_refcounts)
{
	fresh();
	int a = add(64, 0, 8);
	CHECK_EQ(get(1, 1), 1);
	uint64_t e = swp_entry(a, R[0].off);
	CHECK_EQ(swapalloc_count(&P, e), 1);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(swapalloc_dup(&P, e), 0);
	CHECK_EQ(swapalloc_count(&P, e), 4);
	CHECK_EQ(stats(a).used_slots, 1);
	for (int i = 3; i >= 0; i--) {
		CHECK_EQ(swapalloc_free(&P, e), i);
		CHECK_POOL();
	}
	CHECK_EQ(swapalloc_count(&P, e), 0);
	CHECK_EQ(stats(a).used_slots, 0);
	CHECK_EQ(stats(a).slots_freed, 1);
	CHECK_EQ(swapalloc_free(&P, e), SWAPALLOC_EINVAL);      /* double free */
	CHECK_EQ(swapalloc_dup(&P, e), SWAPALLOC_ENOENT);
	CHECK_EQ(get(1, 1), 1);
	e = swp_entry(a, R[0].off);
	for (unsigned i = 1; i < SWAP_MAP_MAX; i++)
		CHECK_EQ(swapalloc_dup(&P, e), 0);
	CHECK_EQ(swapalloc_dup(&P, e), SWAPALLOC_EOVERFLOW);
	CHECK_EQ(swapalloc_count(&P, e), SWAP_MAP_MAX);
	CHECK_EQ(swapalloc_retire(&P, e), 0);                   /* flag and count side by side */
	CHECK_EQ(swapalloc_dup(&P, e), SWAPALLOC_EOVERFLOW);
	CHECK_POOL();
	for (unsigned i = SWAP_MAP_MAX; i > 0; i--)
		CHECK_EQ(swapalloc_free(&P, e), (int)i - 1);
	CHECK_POOL();
	CHECK_EQ(swapalloc_count(&P, e), SWAPALLOC_EINVAL);     /* retired */
	/* Entries that name no slot. */
	CHECK_EQ(swapalloc_free(&P, swp_entry(5, 1)), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, swp_entry(a, 64)), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, swp_entry(a, 2) & ~SWP_TAG), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, swp_entry(a, 2) | 1ull << 63), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, swp_entry(12, 2)), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_dup(&P, 0), SWAPALLOC_EINVAL);
	CHECK_POOL();
}

TEST(swapalloc_cluster_sizes)
{
	fresh();
	int d = add(2048, 0, 0), b = add(2048, 0, 512);
	CHECK_EQ(P.area[d].cluster, 256);
	CHECK_EQ(P.area[d].frag_min, 16);
	CHECK_EQ(P.area[b].cluster, 512);
	CHECK_EQ(P.area[b].frag_min, 32);
	CHECK_EQ(swapalloc_area_disable(&P, d), 0);
	CHECK_EQ(get(511, 4), 1);                               /* exactly cluster 0 of the 512 area */
	CHECK(R[0].area == (uint32_t)b && R[0].off == 1 && R[0].count == 511);
	CHECK_EQ(stats(b).clusters_taken, 1);
	CHECK_EQ(P.area[b].cpu[0].cur, SWAP_CL_NONE);
	CHECK_EQ(get(1, 4), 1);
	CHECK_EQ(R[0].off, 512);
	CHECK_EQ(stats(b).clusters_taken, 2);
	static const uint32_t bad_sizes[] = { 300, 4, 1u << 17, 3, 100000, 768 };
	for (unsigned i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
		struct swap_area_conf c = { .nslots = 4096, .cluster = bad_sizes[i] };
		CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_EINVAL);
		CHECK_EQ(swapalloc_area_set_cluster(&P, d, bad_sizes[i], 0), SWAPALLOC_EINVAL);
	}
	struct swap_area_conf c = { .nslots = 4096, .cluster = 64, .frag_min = 65 };
	CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_EINVAL);
	CHECK_POOL();
	/* Re-clustering only while nothing is in use. */
	CHECK_EQ(swapalloc_area_set_cluster(&P, b, 256, 0), SWAPALLOC_EBUSY);
	CHECK_EQ(swapalloc_area_set_cluster(&P, d, 512, 8), 0);
	CHECK_POOL();
	CHECK_EQ(P.area[d].cluster, 512);
	CHECK_EQ(P.area[d].frag_min, 8);
	CHECK_EQ(swapalloc_area_enable(&P, d), 0);
	CHECK_EQ(swapalloc_area_disable(&P, b), 0);
	CHECK_EQ(get(600, 4), 1);
	CHECK(R[0].area == (uint32_t)d && R[0].off == 1 && R[0].count == 600);
	CHECK_EQ(stats(d).clusters_taken, 2);
	CHECK_EQ(swapalloc_area_set_cluster(&P, 7, 256, 0), SWAPALLOC_EINVAL);
	/* Smallest and largest sizes work; the last cluster may be short. */
	fresh();
	int s = add(1001, 0, SWAP_CLUSTER_MIN), l = add(70000, -1, SWAP_CLUSTER_MAX);
	CHECK_EQ(P.area[s].nclusters, 126);
	CHECK_EQ(P.area[l].nclusters, 2);
	int nr = get(1000 + 69999, 8);
	CHECK_EQ(nr, 2);
	CHECK_EQ(total(R, nr), 1000 + 69999);
}

TEST(swapalloc_swapoff)
{
	fresh();
	int a = add(1000, 1, 0), b = add(1000, 0, 0);
	CHECK_EQ(get(50, 8), 1);
	CHECK_EQ(R[0].area, a);
	struct swap_run held = R[0];
	CHECK_EQ(swapalloc_area_disable(&P, a), 0);
	CHECK_EQ(swapalloc_free_slots(&P), 999);                /* b's only */
	CHECK_EQ(get(10, 8), 1);
	CHECK_EQ(R[0].area, b);
	CHECK_EQ(swapalloc_area_used(&P, a), 50);
	CHECK_EQ(swapalloc_area_remove(&P, a), SWAPALLOC_EBUSY);
	CHECK_POOL();
	/* try_to_unuse: references still come and go on a disabled area. */
	CHECK_EQ(swapalloc_dup(&P, swp_entry(a, 1)), 0);
	CHECK_EQ(swapalloc_free(&P, swp_entry(a, 1)), 1);
	free_run(&held);
	CHECK_EQ(swapalloc_area_used(&P, a), 0);
	CHECK_EQ(swapalloc_area_remove(&P, a), 0);
	CHECK_POOL();
	CHECK_EQ(swapalloc_area_used(&P, a), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_area_remove(&P, a), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_area_disable(&P, a), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_area_enable(&P, -1), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, swp_entry(a, 1)), SWAPALLOC_EINVAL);
	CHECK_EQ(add(500, 7, 0), a);                            /* the index is free again */
	CHECK_EQ(get(1, 1), 1);
	CHECK_EQ(R[0].area, a);
	CHECK_EQ(swapalloc_area_used(&P, b), 10);
	/* Up to SWAP_MAX_AREAS areas. */
	for (int i = 2; i < SWAP_MAX_AREAS; i++)
		add(100, i, 0);
	struct swap_area_conf c = { .nslots = 100 };
	CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_ENOSPC);
	CHECK_POOL();
}

TEST(swapalloc_enomem)
{
	fresh();
	struct swap_area_conf c = { .nslots = 5000 };
	for (int n = 1; n <= 2; n++) {
		fail_at = n;
		CHECK_EQ(swapalloc_area_add(&P, &c), SWAPALLOC_ENOMEM);
		CHECK_EQ(live, 0);
		CHECK_POOL();
	}
	fail_at = 0;
	int a = swapalloc_area_add(&P, &c);
	CHECK_EQ(a, 0);
	fail_at = 1;
	CHECK_EQ(swapalloc_area_set_cluster(&P, a, 512, 0), SWAPALLOC_ENOMEM);
	fail_at = 0;
	CHECK_EQ(P.area[a].cluster, 256);
	CHECK_POOL();
	CHECK_EQ(get(10, 1), 1);
	fresh();
}

TEST(swapalloc_maxruns_limit)
{
	fresh();
	int a = add(1024, 0, 256);
	CHECK_EQ(get(1023, 1), 1);
	for (uint64_t off = 512; off < 768; off += 2)           /* every other slot of cluster 2 */
		free_slot(a, off);
	CHECK_EQ(get(100, 5), 5);
	CHECK_EQ(total(R, 5), 5);
	for (int i = 0; i < 5; i++)
		CHECK(R[i].off == 512 + 2 * (uint64_t)i && R[i].count == 1);
	CHECK_EQ(get(100, 3), 3);                               /* the cursor goes on */
	CHECK_EQ(R[0].off, 522);
	CHECK_EQ(stats(a).partial_reused, 1);
}

TEST(swapalloc_full_runs_take_no_cluster)
{
	fresh();
	int a = add(1024, 0, 256), b = add(1024, 0, 256);
	/* One run allowed: A's cluster 0, then B's turn would start a run of
	 * its own, so the get ends there without taking B's cluster. */
	CHECK_EQ(get(300, 1), 1);
	CHECK(R[0].area == (uint32_t)a && R[0].off == 1 && R[0].count == 255);
	CHECK_EQ(stats(b).clusters_taken, 0);
	CHECK_EQ(P.area[b].cpu[0].cur, SWAP_CL_NONE);
	CHECK_EQ(get(300, 2), 2);                               /* B's cluster 0, then A's cluster 1 */
	CHECK(R[0].area == (uint32_t)b && R[0].off == 1 && R[0].count == 255);
	CHECK(R[1].area == (uint32_t)a && R[1].off == 256 && R[1].count == 45);
}

/* Randomised: gets, frees, dups and retires on three areas, every step
 * checked against the map invariants and a shadow copy of the counts. */
#define ST_AREAS 3
#define ST_MAXS 3000
static uint16_t shadow[ST_AREAS][ST_MAXS];
static uint64_t held[40000];
static uint32_t nheld;
static uint32_t rng = 99;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

static void stress_get(const int *prio)
{
	int want = 1 + (int)rnd(80), maxruns = 1 + (int)rnd(8);
	int nr = get(want, maxruns);
	uint64_t got = total(R, nr);
	int lowest = 1000;
	for (int i = 0; i < nr; i++) {
		CHECK(R[i].area < ST_AREAS && R[i].count > 0);
		for (uint32_t k = 0; k < R[i].count && nheld < 40000; k++) {
			uint64_t off = R[i].off + k;
			CHECK_EQ(shadow[R[i].area][off], 0);
			shadow[R[i].area][off] = 1;
			held[nheld++] = swp_entry(R[i].area, off);
		}
		if (prio[R[i].area] < lowest)
			lowest = prio[R[i].area];
	}
	/* Lower priorities only when the higher ones are full. */
	for (int i = 0; nr && i < ST_AREAS; i++)
		if (prio[i] > lowest)
			CHECK_EQ(stats(i).free_slots, 0);
	if (got < (uint64_t)want && nr < maxruns)
		CHECK_EQ(swapalloc_free_slots(&P), 0);
}

static void stress_drop(uint32_t i)
{
	uint64_t e = held[i];
	uint16_t *s = &shadow[swp_area(e)][swp_offset(e)];
	CHECK_EQ(swapalloc_free(&P, e), *s - 1);
	(*s)--;
	held[i] = held[--nheld];
}

TEST(swapalloc_stress)
{
	fresh();
	static const uint32_t bad[] = { 17, 18, 19, 1000, 2999 };
	const int prio[ST_AREAS] = { 1, 1, 0 };
	const uint64_t size[ST_AREAS] = { 3000, 2000, 1500 };
	const uint32_t cl[ST_AREAS] = { 16, 32, 256 };
	memset(shadow, 0, sizeof shadow);
	nheld = 0;
	for (int i = 0; i < ST_AREAS; i++) {
		struct swap_area_conf c = { .nslots = size[i], .prio = prio[i], .cluster = cl[i],
					    .bad = bad, .nbad = 5 };
		CHECK_EQ(swapalloc_area_add(&P, &c), i);
	}
	uint64_t usable = swapalloc_free_slots(&P);
	CHECK_EQ(usable, 2999 - 5 + 1999 - 4 + 1499 - 4);
	for (int step = 0; step < 12000; step++) {
		uint32_t op = rnd(100);
		/* Phases: mostly allocating, then mostly freeing, so both full
		 * swap and a fragmented map are visited. */
		bool filling = (step / 1500) % 2 == 0;
		if (op < (filling ? 45u : 20u)) {
			stress_get(prio);
		} else if (op < 90 && nheld) {
			for (uint32_t n = filling ? 1 : 1 + rnd(30); n && nheld; n--)
				stress_drop(rnd(nheld));
			CHECK_POOL();
		} else if (op < 98 && nheld && nheld < 40000) {
			uint64_t e = held[rnd(nheld)];
			if (shadow[swp_area(e)][swp_offset(e)] < SWAP_MAP_MAX) {
				CHECK_EQ(swapalloc_dup(&P, e), 0);
				shadow[swp_area(e)][swp_offset(e)]++;
				held[nheld++] = e;
			}
			CHECK_POOL();
		} else if (nheld) {
			CHECK_EQ(swapalloc_retire(&P, held[rnd(nheld)]), 0);
			CHECK_POOL();
		}
	}
	uint64_t retired = 0, fallback = 0;
	for (int i = 0; i < ST_AREAS; i++) {
		retired += stats(i).retired;
		fallback += stats(i).fallback_scans;
	}
	CHECK(retired > 0);
	CHECK(fallback > 0);
	while (nheld)
		stress_drop(nheld - 1);
	CHECK_POOL();
	/* No leak: everything not retired is free again. */
	CHECK_EQ(swapalloc_free_slots(&P), usable - retired);
	for (int i = 0; i < ST_AREAS; i++) {
		CHECK_EQ(swapalloc_area_used(&P, i), 0);
		CHECK_EQ(stats(i).slots_allocated, stats(i).slots_freed);
		CHECK_EQ(stats(i).frag_permille, 0);
		CHECK_EQ(swapalloc_area_remove(&P, i), 0);
	}
	CHECK_POOL();
	CHECK_EQ(live, 0);
}

TEST(swapalloc_area_shape_for_outsiders)
{
	fresh();
	struct swap_area_shape sh;
	CHECK(!swapalloc_area_shape(&P, 0, &sh));
	CHECK(!swapalloc_area_shape(&P, -1, &sh));
	CHECK(!swapalloc_area_shape(&P, SWAP_MAX_AREAS, &sh));
	int a = add(4096, 5, 64);
	CHECK(swapalloc_area_shape(&P, a, &sh));
	CHECK_EQ(sh.nslots, 4096);
	CHECK_EQ(sh.prio, 5);
	CHECK_EQ(sh.cluster, 64);
	CHECK(sh.enabled);
	CHECK_EQ(swapalloc_area_disable(&P, a), 0);
	CHECK(swapalloc_area_shape(&P, a, &sh) && !sh.enabled);
	CHECK_EQ(swapalloc_area_remove(&P, a), 0);
	CHECK(!swapalloc_area_shape(&P, a, &sh));
	fresh();
}

/* ------------------------------------------------------------ per-CPU clusters */

static int get_cpu(uint32_t cpu, int want, int maxruns)
{
	int nr = swapalloc_get_cpu(&P, cpu, want, R, maxruns);
	CHECK(nr >= 0 && nr <= maxruns);
	CHECK(total(R, nr > 0 ? nr : 0) <= (uint64_t)want);
	CHECK_POOL();
	return nr;
}

TEST(swapalloc_cpus_set_only_when_empty)
{
	fresh();
	CHECK_EQ(P.ncpus, 1);
	CHECK_EQ(swapalloc_set_cpus(&P, 0), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_set_cpus(&P, SWAP_MAX_CPUS + 1), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_set_cpus(&P, SWAP_MAX_CPUS), 0);
	CHECK_EQ(swapalloc_set_cpus(&P, 4), 0);
	int a = add(4096, 0, 256);
	CHECK_EQ(swapalloc_set_cpus(&P, 2), SWAPALLOC_EBUSY);
	CHECK_EQ(swapalloc_get_cpu(&P, 4, 1, R, 8), SWAPALLOC_EINVAL);
	CHECK_EQ(get_cpu(3, 1, 8), 1);
	free_run(&R[0]);
	CHECK_EQ(swapalloc_area_remove(&P, a), 0);
	CHECK_POOL();
	CHECK_EQ(swapalloc_set_cpus(&P, 2), 0);
}

/* Four CPUs taking small batches in turn each fill a cluster of their
 * own: every CPU's runs are consecutive slots of its cluster, and no two
 * CPUs ever write into the same cluster (Linux's percpu_cluster). */
TEST(swapalloc_cpus_own_clusters)
{
	fresh();
	CHECK_EQ(swapalloc_set_cpus(&P, 4), 0);
	int a = add(16384, 0, 256);
	uint64_t next[4] = { 0 };
	int owner[64];
	for (int c = 0; c < 64; c++)
		owner[c] = -1;
	for (int round = 0; round < 200; round++)
		for (uint32_t cpu = 0; cpu < 4; cpu++) {
			int nr = get_cpu(cpu, 5, 8);
			CHECK(nr == 1 || nr == 2);      /* two at a cluster's end */
			CHECK_EQ(total(R, nr), 5);
			if (next[cpu])
				CHECK_EQ(R[0].off, next[cpu]);  /* where this CPU's last batch ended... */
			for (int i = 0; i < nr; i++) {
				uint32_t cl = (uint32_t)(R[i].off >> 8);
				CHECK_EQ(R[i].area, a);
				CHECK_EQ((R[i].off + R[i].count - 1) >> 8, cl);
				if (owner[cl] < 0)
					owner[cl] = (int)cpu;
				CHECK_EQ(owner[cl], cpu);       /* ...in clusters no other CPU touched */
			}
			next[cpu] = R[nr - 1].off + R[nr - 1].count;
			if (nr == 2 || !(next[cpu] & 255))
				next[cpu] = 0;          /* a new cluster next: anywhere */
		}
	/* 4 x 200 x 5 = 4000 slots, 51 per cluster: 4 CPUs x 4 clusters (+1 for slot 0). */
	CHECK(stats(a).clusters_taken <= 17);
	CHECK_EQ(stats(a).fallback_scans, 0);
	/* With one CPU (the old allocator) the same interleaved batches share a cluster. */
	fresh();
	add(16384, 0, 256);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(get(5, 8), 1);
		CHECK_EQ(R[0].off, 1 + 5 * (uint64_t)i);
	}
}

/* Clusters that fill up leave the CPU, frees into another CPU's current
 * cluster do not move it, and when no free or partial cluster is left a
 * CPU's fallback scan takes what is free - in other CPUs' current
 * clusters too - until the area is exactly full. */
TEST(swapalloc_cpus_until_full)
{
	fresh();
	CHECK_EQ(swapalloc_set_cpus(&P, 3), 0);
	int a = add(1024, 0, 64);                       /* 16 clusters, 1023 usable slots */
	uint64_t got = 0;
	CHECK_EQ(get_cpu(0, 10, 8), 1);                 /* CPU 0 starts cluster 0 */
	got += R[0].count;
	CHECK_EQ(get_cpu(1, 10, 8), 1);
	got += R[0].count;
	CHECK_EQ(P.area[a].cpu[1].cur, 1);
	free_slot(a, R[0].off);                         /* a free in CPU 1's cluster */
	got--;
	CHECK_EQ(P.area[a].cl[1].where, SWAP_CL_CUR);
	for (int i = 0; got < 1023 && i < 1000; i++) {
		int nr = get_cpu((uint32_t)(i % 3), 16, 4);
		CHECK(nr > 0);
		got += total(R, nr);
	}
	CHECK_EQ(got, 1023);
	CHECK_EQ(stats(a).free_slots, 0);
	for (uint32_t cpu = 0; cpu < 3; cpu++)
		CHECK_EQ(get_cpu(cpu, 1, 1), 0);
	/* A slot freed in the middle is found by any CPU. */
	free_slot(a, 500);
	CHECK_EQ(get_cpu(2, 4, 4), 1);
	CHECK(R[0].off == 500 && R[0].count == 1);
}

/* Random gets and frees on eight CPUs over two areas against a shadow
 * map: every slot handed out once, the invariants after every call. */
TEST(swapalloc_cpus_random)
{
	fresh();
	CHECK_EQ(swapalloc_set_cpus(&P, 8), 0);
	int a0 = add(3000, 0, 32), a1 = add(2000, 0, 64);
	static uint8_t used[2][3000];
	memset(used, 0, sizeof used);
	uint64_t inuse = 0;
	srand(1414);
	for (int step = 0; step < 20000; step++) {
		if (rand() % 100 < 55) {
			int nr = get_cpu((uint32_t)(rand() % 8), 1 + rand() % 40, 1 + rand() % 6);
			for (int i = 0; i < nr; i++)
				for (uint32_t k = 0; k < R[i].count; k++) {
					int ai = R[i].area == (uint32_t)a0 ? 0 : 1;
					CHECK_EQ(used[ai][R[i].off + k], 0);
					used[ai][R[i].off + k] = 1;
					inuse++;
				}
		} else if (inuse) {
			int ai = rand() % 2;
			uint64_t off = (uint64_t)(1 + rand() % (ai ? 1999 : 2999));
			if (used[ai][off]) {
				free_slot(ai ? a1 : a0, off);
				used[ai][off] = 0;
				inuse--;
			}
		}
	}
	CHECK_EQ(stats(a0).used_slots + stats(a1).used_slots, inuse);
	for (int ai = 0; ai < 2; ai++)
		for (uint64_t off = 1; off < (ai ? 2000u : 3000u); off++)
			if (used[ai][off])
				free_slot(ai ? a1 : a0, off);
	CHECK_EQ(stats(a0).used_slots + stats(a1).used_slots, 0);
}

/* A slot swapalloc_get hands out is FRESH (in use, no data) until it is
 * settled: read-ahead's dup_if_data must not take it before. */
TEST(swapalloc_fresh_until_settled)
{
	fresh();
	int a = add(64, 0, 16);
	CHECK_EQ(get(1, 1), 1);
	uint64_t e = swp_entry(a, R[0].off);
	CHECK_EQ(swapalloc_count(&P, e), 1);
	CHECK(!swapalloc_has_data(&P, e));
	CHECK(!swapalloc_dup_if_data(&P, e));
	CHECK_EQ(swapalloc_dup(&P, e), 0);              /* the owner may take counts */
	CHECK(!swapalloc_has_data(&P, e));
	swapalloc_settle(&P, e);
	CHECK(swapalloc_has_data(&P, e));
	CHECK(swapalloc_dup_if_data(&P, e));
	CHECK_EQ(swapalloc_count(&P, e), 3);
	swapalloc_settle(&P, e);                        /* twice: nothing changes */
	CHECK_EQ(swapalloc_count(&P, e), 3);
	CHECK_POOL();
	CHECK(!swapalloc_dup_if_data(&P, swp_entry(a, 40)));   /* a free slot */
	CHECK(!swapalloc_dup_if_data(&P, swp_entry(a, 0)));    /* the header */
	CHECK(!swapalloc_has_data(&P, swp_entry(a, 40)));
	for (int i = 2; i >= 0; i--)
		CHECK_EQ(swapalloc_free(&P, e), i);
	CHECK_POOL();
	/* Given out again, it is fresh again. */
	CHECK_EQ(get(1, 1), 1);
	CHECK(!swapalloc_has_data(&P, swp_entry(a, R[0].off)));
}

/* The lock-free free: counts above one drop in place; the last leaves
 * the slot PENDING - counted in use, never handed out, no count to take -
 * until swapalloc_release frees it (or makes it BAD when retired). */
TEST(swapalloc_put_pending_release)
{
	fresh();
	int a = add(17, 0, 8);                          /* 16 usable slots */
	CHECK_EQ(total(R, get(16, 4)), 16u);
	uint64_t e = swp_entry(a, 1), r = swp_entry(a, 2), x = swp_entry(a, 3);
	swapalloc_settle(&P, e);
	CHECK_EQ(swapalloc_dup(&P, e), 0);
	CHECK_EQ(swapalloc_put(&P, e), 1);
	CHECK_EQ(swapalloc_put(&P, e), 0);              /* the last: pending */
	CHECK_EQ(swapalloc_count(&P, e), 0);
	CHECK(!swapalloc_has_data(&P, e));
	CHECK_EQ(swapalloc_dup(&P, e), SWAPALLOC_ENOENT);
	CHECK(!swapalloc_dup_if_data(&P, e));
	CHECK_EQ(swapalloc_put(&P, e), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_free(&P, e), SWAPALLOC_EINVAL);
	CHECK_EQ(stats(a).used_slots, 16);              /* still in use */
	CHECK_POOL();
	CHECK_EQ(get(1, 1), 0);                         /* and not handed out */
	CHECK_EQ(swapalloc_release(&P, e), 0);
	CHECK_EQ(swapalloc_release(&P, e), SWAPALLOC_EINVAL);
	CHECK_EQ(stats(a).used_slots, 15);
	CHECK_EQ(stats(a).slots_freed, 1);
	CHECK_POOL();
	CHECK_EQ(get(1, 1), 1);
	CHECK_EQ(R[0].off, 1u);
	/* Retired while pending: BAD on release. */
	CHECK_EQ(swapalloc_put(&P, r), 0);
	CHECK_EQ(swapalloc_retire(&P, r), 0);
	CHECK_POOL();
	CHECK_EQ(swapalloc_release(&P, r), 0);
	CHECK_EQ(swapalloc_count(&P, r), SWAPALLOC_EINVAL);
	CHECK_EQ(stats(a).bad_slots, 2);
	CHECK_POOL();
	/* Retired in use: put leaves the last count to the locked free. */
	CHECK_EQ(swapalloc_retire(&P, x), 0);
	CHECK_EQ(swapalloc_put(&P, x), SWAPALLOC_EAGAIN);
	CHECK_EQ(swapalloc_count(&P, x), 1);
	CHECK_EQ(swapalloc_free(&P, x), 0);
	CHECK_EQ(swapalloc_count(&P, x), SWAPALLOC_EINVAL);
	CHECK_EQ(swapalloc_release(&P, swp_entry(a, 4)), SWAPALLOC_EINVAL);    /* in use, not pending */
	CHECK_EQ(swapalloc_release(&P, swp_entry(a, 0)), SWAPALLOC_EINVAL);    /* the header */
	CHECK_POOL();
}

/* The lock-free calls race with each other and with the locked ones.
 * Four threads take and drop counts (dup_if_data / dup / put) on 256
 * settled slots on which the test holds one count each, so no count of
 * theirs is ever the last; meanwhile the main thread, under the "swap
 * lock", gets, settles, frees, puts and releases other slots of the same
 * clusters, whose counts and lists the lock-free calls must not disturb.
 * At the end every shared slot is back at one count and the invariants
 * hold. */
#include <pthread.h>
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t shared_e[256];
static volatile int racing;
static int bad_race;

static unsigned xs(unsigned *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *racer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u;
	uint64_t held[8];
	int nheld = 0;
	for (int it = 0; it < 200000 || nheld; it++) {
		if (nheld && (it >= 200000 || xs(&seed) % 2)) {
			int r = swapalloc_put(&P, held[--nheld]);
			if (r < 1)
				__atomic_store_n(&bad_race, 1, __ATOMIC_RELAXED);
			continue;
		}
		uint64_t e = shared_e[xs(&seed) % 256];
		bool ok = xs(&seed) % 2 ? swapalloc_dup_if_data(&P, e) : swapalloc_dup(&P, e) == 0;
		if (!ok)
			__atomic_store_n(&bad_race, 1, __ATOMIC_RELAXED);
		else if (nheld < 8)
			held[nheld++] = e;
		else if (swapalloc_put(&P, e) < 1)
			__atomic_store_n(&bad_race, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

TEST(swapalloc_lockfree_races)
{
	fresh();
	int a = add(4096, 0, 64);
	/* Every other slot of the first 512 is shared; the rest of them is
	 * the main thread's to churn. */
	CHECK_EQ(get(512, 64) > 0, true);
	CHECK_EQ(stats(a).used_slots, 512);
	int ns = 0;
	for (uint64_t off = 1; off <= 512; off++) {
		uint64_t e = swp_entry(a, off);
		if (off % 2 && ns < 256) {
			swapalloc_settle(&P, e);
			shared_e[ns++] = e;
		} else {
			CHECK_EQ(swapalloc_free(&P, e), 0);
		}
	}
	CHECK_EQ(ns, 256);
	bad_race = 0;
	pthread_t t[4];
	for (uintptr_t i = 0; i < 4; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, racer, (void *)(i + 1)), 0);
	srand(77);
	uint64_t mine[64];
	int nmine = 0, pend = 0;
	uint64_t pending[64];
	for (int it = 0; it < 20000; it++) {
		pthread_mutex_lock(&plock);
		int op = rand() % 3;
		if (op == 0 && nmine < 48) {
			int nr = swapalloc_get(&P, 1 + rand() % 8, R, 4);
			for (int i = 0; i < nr; i++)
				for (uint32_t k = 0; k < R[i].count && nmine < 64; k++) {
					mine[nmine] = swp_entry(R[i].area, R[i].off + k);
					swapalloc_settle(&P, mine[nmine++]);
				}
		} else if (op == 1 && nmine) {
			int i = rand() % nmine;
			uint64_t e = mine[i];
			mine[i] = mine[--nmine];
			if (rand() % 2 && pend < 64) {
				pthread_mutex_unlock(&plock);
				int r = swapalloc_put(&P, e);           /* without the lock */
				pthread_mutex_lock(&plock);
				CHECK_EQ(r, 0);
				pending[pend++] = e;
			} else {
				CHECK_EQ(swapalloc_free(&P, e), 0);
			}
		} else if (pend) {
			for (int i = 0; i < pend; i++)
				CHECK_EQ(swapalloc_release(&P, pending[i]), 0);
			pend = 0;
		}
		pthread_mutex_unlock(&plock);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(bad_race, 0);
	for (int i = 0; i < pend; i++)
		CHECK_EQ(swapalloc_release(&P, pending[i]), 0);
	for (int i = 0; i < nmine; i++)
		CHECK_EQ(swapalloc_free(&P, mine[i]), 0);
	for (int i = 0; i < 256; i++)
		CHECK_EQ(swapalloc_count(&P, shared_e[i]), 1);
	CHECK_POOL();
	CHECK_EQ(stats(a).used_slots, 256);
	for (int i = 0; i < 256; i++)
		CHECK_EQ(swapalloc_free(&P, shared_e[i]), 0);
	CHECK_EQ(stats(a).used_slots, 0);
	CHECK_POOL();
}

/* The lock-free totals follow every change, over several areas. */
TEST(swapalloc_slots_totals)
{
	fresh();
	uint64_t usable, used;
	swapalloc_slots(&P, &usable, &used);
	CHECK(usable == 0 && used == 0);
	int a = add(100, 0, 16), b = add(50, 1, 16);
	swapalloc_slots(&P, &usable, &used);
	CHECK_EQ(usable, 99u + 49u);
	CHECK_EQ(used, 0u);
	int nr = get(60, 8);
	swapalloc_slots(&P, &usable, &used);
	CHECK_EQ(used, total(R, nr));
	CHECK_EQ(usable, stats(a).free_slots + stats(a).used_slots + stats(b).free_slots + stats(b).used_slots);
	uint64_t e = swp_entry(R[0].area, R[0].off);
	CHECK_EQ(swapalloc_put(&P, e), 0);              /* pending: still in use */
	swapalloc_slots(&P, &usable, &used);
	CHECK_EQ(used, total(R, nr));
	CHECK_EQ(swapalloc_release(&P, e), 0);
	swapalloc_slots(&P, &usable, &used);
	CHECK_EQ(used, total(R, nr) - 1);
	CHECK_EQ(swapalloc_retire(&P, swp_entry(a, 99)), 0);   /* a free slot turns BAD */
	swapalloc_slots(&P, &usable, &used);
	CHECK_EQ(usable, 99u + 49u - 1);
}
