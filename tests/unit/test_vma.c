#include <stdlib.h>
#include "test.h"
#include "vm/vma.h"
#include "lib/errno.h"

#define P 4096ull
static struct vma_set s;

static struct vma anon(uint64_t a, uint64_t b, uint32_t prot)
{
	return (struct vma){ .start = a * P, .end = b * P, .prot = prot };
}

static void fresh(void)
{
	vma_set_destroy(&s);
	vma_set_init(&s, malloc, free);
}

static bool invariants(void)
{
	uint32_t objs = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		if (s.v[i].start >= s.v[i].end || (s.v[i].start | s.v[i].end) % P)
			return false;
		if (i && s.v[i - 1].end > s.v[i].start)
			return false;
		if (!s.v[i].obj)
			continue;
		objs++;
		if ((s.v[i].end - s.v[i].start) / P > s.o_max_pages)
			return false;
		/* Its entry in the object index. */
		bool found = false;
		for (uint32_t k = 0; k < s.on && !found; k++)
			found = s.o[k].obj == s.v[i].obj && s.o[k].pgoff == s.v[i].pgoff && s.o[k].start == s.v[i].start;
		if (!found)
			return false;
	}
	for (uint32_t k = 1; k < s.on; k++) {
		const struct vma_oref *a = &s.o[k - 1], *b = &s.o[k];
		if ((uintptr_t)a->obj > (uintptr_t)b->obj ||
		    (a->obj == b->obj && (a->pgoff > b->pgoff || (a->pgoff == b->pgoff && a->start >= b->start))))
			return false;
	}
	return objs == s.on;
}

TEST(vma_insert_lookup_merge)
{
	fresh();
	CHECK_EQ(vma_insert(&s, &(struct vma){ .start = 10 * P, .end = 20 * P, .prot = VM_READ }), 0);
	struct vma v = anon(20, 30, VM_READ);
	CHECK_EQ(vma_insert(&s, &v), 0);
	CHECK_EQ(s.n, 1);                       /* merged */
	CHECK_EQ(s.v[0].end, 30 * P);
	v = anon(40, 50, VM_READ | VM_WRITE);
	CHECK_EQ(vma_insert(&s, &v), 0);
	v = anon(30, 40, VM_READ);
	CHECK_EQ(vma_insert(&s, &v), 0);
	CHECK_EQ(s.n, 2);                       /* joins the left, not the RW one */
	CHECK_EQ(vma_find(&s, 10 * P), 0);
	CHECK_EQ(vma_find(&s, 40 * P - 1), 0);
	CHECK_EQ(vma_find(&s, 40 * P), 1);
	CHECK_EQ(vma_find(&s, 50 * P), -1);
	CHECK_EQ(vma_find(&s, 0), -1);
	v = anon(45, 55, VM_READ);
	CHECK_EQ(vma_insert(&s, &v), -EEXIST);
	v = anon(5, 5, VM_READ);
	CHECK_EQ(vma_insert(&s, &v), -EINVAL);
	CHECK(invariants());
}

static int pieces;
static uint64_t piece_bytes;
static void count_piece(void *ctx, const struct vma *v)
{
	(void)ctx;
	pieces++;
	piece_bytes += v->end - v->start;
}

TEST(vma_partial_unmap_splits)
{
	fresh();
	struct vma v = anon(100, 200, VM_READ | VM_WRITE);
	CHECK_EQ(vma_insert(&s, &v), 0);
	pieces = 0;
	piece_bytes = 0;
	CHECK_EQ(vma_remove(&s, 120 * P, 130 * P, count_piece, NULL), 0);   /* hole in the middle */
	CHECK_EQ(s.n, 2);
	CHECK_EQ(pieces, 1);
	CHECK_EQ(piece_bytes, 10 * P);
	CHECK_EQ(s.v[0].end, 120 * P);
	CHECK_EQ(s.v[1].start, 130 * P);
	CHECK_EQ(vma_remove(&s, 90 * P, 125 * P, NULL, NULL), 0);           /* head and beyond */
	CHECK_EQ(s.n, 1);
	CHECK_EQ(vma_remove(&s, 0, 1000 * P, NULL, NULL), 0);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(vma_remove(&s, 0, 1000 * P, NULL, NULL), 0);               /* nothing there: fine */
	CHECK_EQ(vma_remove(&s, 1, 1000 * P, NULL, NULL), -EINVAL);
}

TEST(vma_shared_split_keeps_offsets)
{
	fresh();
	int obj;
	struct vma v = { .start = 100 * P, .end = 200 * P, .prot = VM_READ | VM_WRITE, .flags = VM_SHARED, .obj = &obj, .pgoff = 7 };
	CHECK_EQ(vma_insert(&s, &v), 0);
	CHECK_EQ(vma_remove(&s, 150 * P, 160 * P, NULL, NULL), 0);
	CHECK_EQ(s.v[1].pgoff, 7 + 60);
	/* Re-inserting the hole with the right pgoff merges everything back. */
	struct vma hole = { .start = 150 * P, .end = 160 * P, .prot = VM_READ | VM_WRITE, .flags = VM_SHARED, .obj = &obj, .pgoff = 57 };
	CHECK_EQ(vma_insert(&s, &hole), 0);
	CHECK_EQ(s.n, 1);
	/* A wrong pgoff does not merge. */
	CHECK_EQ(vma_remove(&s, 150 * P, 160 * P, NULL, NULL), 0);
	hole.pgoff = 99;
	CHECK_EQ(vma_insert(&s, &hole), 0);
	CHECK_EQ(s.n, 3);
	CHECK(invariants());
}

TEST(vma_protect_splits_and_remerges)
{
	fresh();
	struct vma v = anon(0x100, 0x200, VM_READ | VM_WRITE);
	CHECK_EQ(vma_insert(&s, &v), 0);
	pieces = 0;
	CHECK_EQ(vma_protect(&s, 0x140 * P, 0x150 * P, VM_READ, count_piece, NULL), 0);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(pieces, 1);
	CHECK_EQ(s.v[1].prot, VM_READ);
	CHECK_EQ(vma_protect(&s, 0x140 * P, 0x150 * P, VM_READ | VM_WRITE, NULL, NULL), 0);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(vma_protect(&s, 0x1f0 * P, 0x210 * P, VM_READ, NULL, NULL), -ENOMEM);    /* runs off the end */
	CHECK_EQ(s.n, 1);
	CHECK_EQ(vma_set_flags(&s, 0x100 * P, 0x180 * P, VM_RANDOM, 0), 0);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(vma_set_flags(&s, 0x100 * P, 0x180 * P, 0, VM_RANDOM), 0);
	CHECK_EQ(s.n, 1);
	CHECK(invariants());
}

TEST(vma_find_gap_top_down)
{
	fresh();
	struct vma v = anon(90, 100, VM_READ);
	CHECK_EQ(vma_insert(&s, &v), 0);
	v = anon(50, 60, VM_READ);
	CHECK_EQ(vma_insert(&s, &v), 0);
	CHECK_EQ(vma_find_gap(&s, 10 * P, 10 * P, 100 * P), 80 * P);   /* just below the top area */
	CHECK_EQ(vma_find_gap(&s, 30 * P, 10 * P, 100 * P), 60 * P);   /* fits in 60..90 */
	CHECK_EQ(vma_find_gap(&s, 31 * P, 10 * P, 100 * P), 19 * P);   /* only below 50 */
	CHECK_EQ(vma_find_gap(&s, 41 * P, 10 * P, 100 * P), 0);
	CHECK_EQ(vma_find_gap(&s, 5 * P, 10 * P, 95 * P), 85 * P);     /* hi inside an area */
	CHECK(vma_range_free(&s, 60 * P, 90 * P));
	CHECK(!vma_range_free(&s, 59 * P, 90 * P));
}

TEST(vma_many_mmaps_merge)
{
	fresh();
	/* fill-style: 2000 adjacent 1 MiB anonymous maps, top-down. */
	uint64_t hi = 0x7f0000000000ull;
	for (int i = 0; i < 2000; i++) {
		uint64_t a = vma_find_gap(&s, 256 * P, 0x10000000ull, hi);
		CHECK(a != 0);
		struct vma v = { .start = a, .end = a + 256 * P, .prot = VM_READ | VM_WRITE };
		CHECK_EQ(vma_insert(&s, &v), 0);
	}
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.v[0].end - s.v[0].start, 2000 * 256 * P);
	vma_set_destroy(&s);
}

static int refs;
static void get(void *m, void *o) { (void)m; (void)o; refs++; }
static void put(void *m, void *o) { (void)m; (void)o; refs--; }
static void put_piece(void *ctx, const struct vma *v) { (void)ctx; if (v->obj) refs--; }

TEST(vma_object_refs_follow_splits_and_merges)
{
	fresh();
	s.obj_get = get;
	s.obj_put = put;
	int obj;
	refs = 1;                               /* the caller's reference, handed over */
	struct vma v = { .start = 100 * P, .end = 200 * P, .prot = VM_READ, .flags = VM_SHARED, .obj = &obj };
	CHECK_EQ(vma_insert(&s, &v), 0);
	CHECK_EQ(vma_protect(&s, 120 * P, 130 * P, VM_READ | VM_WRITE, NULL, NULL), 0);
	CHECK_EQ(refs, 3);                      /* three areas */
	CHECK_EQ(vma_protect(&s, 120 * P, 130 * P, VM_READ, NULL, NULL), 0);
	CHECK_EQ(refs, 1);                      /* merged back */
	CHECK_EQ(vma_remove(&s, 150 * P, 160 * P, put_piece, NULL), 0);
	CHECK_EQ(refs, 2);                      /* two areas left, the piece dropped its ref */
	CHECK_EQ(vma_remove(&s, 0, 1000 * P, put_piece, NULL), 0);
	CHECK_EQ(refs, 0);
	vma_set_destroy(&s);
}

/* An allocator that refuses to grow the array. */
static bool refuse;
static void *maybe_malloc(size_t n) { return refuse ? NULL : malloc(n); }

TEST(vma_remove_needs_no_room_without_splits)
{
	vma_set_destroy(&s);
	vma_set_init(&s, maybe_malloc, free);
	refuse = false;
	/* Alternating protections: nothing merges.  Fill up to capacity. */
	uint32_t n = 0;
	while (s.n == 0 || s.n < s.cap) {
		struct vma v = anon(100 + 2 * n, 101 + 2 * n, n & 1 ? VM_READ : VM_READ | VM_WRITE);
		CHECK_EQ(vma_insert(&s, &v), 0);
		n++;
	}
	refuse = true;                  /* the array is full and cannot grow */
	struct vma more = anon(100 + 2 * n, 101 + 2 * n, VM_READ);
	CHECK_EQ(vma_insert(&s, &more), -ENOMEM);
	/* Whole areas go without a split: no room needed (this was -ENOMEM,
	 * and a program at its limit could unmap nothing). */
	CHECK_EQ(vma_remove(&s, 100 * P, 104 * P, NULL, NULL), 0);
	CHECK_EQ(s.n, n - 2);
	CHECK_EQ(vma_protect(&s, 104 * P, 105 * P, VM_READ, NULL, NULL), 0);
	CHECK(invariants());
	refuse = false;
	CHECK_EQ(vma_remove(&s, 0, 1ull << 40, NULL, NULL), 0);
	CHECK_EQ(s.n, 0);
	vma_set_destroy(&s);
	vma_set_init(&s, malloc, free);
}

TEST(vma_count_limit)
{
	fresh();
	uint32_t n = 0;
	int err = 0;
	for (; n < VMA_MAX_COUNT + 10 && !err; n++) {
		struct vma v = anon(100 + 2 * n, 101 + 2 * n, VM_READ);       /* gaps between: none merge */
		err = vma_insert(&s, &v);
	}
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(s.n, VMA_MAX_COUNT);
	CHECK_EQ(vma_remove(&s, 100 * P, 101 * P, NULL, NULL), 0);     /* a whole area: always */
	CHECK_EQ(s.n, VMA_MAX_COUNT - 1);
	struct vma two = anon(100, 102, VM_READ);
	CHECK_EQ(vma_insert(&s, &two), 0);                              /* merges with 102..103 */
	CHECK_EQ(s.n, VMA_MAX_COUNT - 1);
	CHECK_EQ(vma_remove(&s, 101 * P, 102 * P, NULL, NULL), 0);     /* a hole in 100..103: one more area */
	CHECK_EQ(s.n, VMA_MAX_COUNT);
	struct vma one = anon(101, 102, VM_READ);
	CHECK_EQ(vma_insert(&s, &one), -ENOMEM);
	CHECK_EQ(vma_protect(&s, 104 * P, 105 * P, VM_READ | VM_WRITE, NULL, NULL), 0);     /* no split */
	CHECK_EQ(s.n, VMA_MAX_COUNT);
	CHECK(invariants());
	fresh();
}

/* The object index answers as a walk over every area would, through
 * random maps, unmaps, protection changes and merges of areas on three
 * objects (two of them mapped twice over the same offsets) among
 * anonymous ones. */
struct hits { uint64_t starts[64]; int n; };
static void hit(const struct vma *v, void *ctx)
{
	struct hits *h = ctx;
	if (h->n < 64)
		h->starts[h->n++] = v->start;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool index_matches_walk(const void *obj, uint64_t idx)
{
	struct hits got = { .n = 0 }, want = { .n = 0 };
	vma_for_each_on(&s, obj, idx, hit, &got);
	for (uint32_t i = 0; i < s.n; i++) {
		const struct vma *v = &s.v[i];
		if (v->obj == obj && idx >= v->pgoff && idx < v->pgoff + (v->end - v->start) / P)
			hit(v, &want);
	}
	qsort(got.starts, got.n, sizeof got.starts[0], cmp_u64);
	if (got.n != want.n)
		return false;
	for (int i = 0; i < got.n; i++)
		if (got.starts[i] != want.starts[i])
			return false;
	return true;
}

static uint64_t rng_state;
static uint64_t rnd(uint64_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rng_state >> 33) % n;
}

TEST(vma_object_index_matches_a_walk)
{
	int objs[3];
	/* An area that grows by a merge on either side is found at its far end. */
	fresh();
	struct vma right = { .start = 10 * P, .end = 20 * P, .prot = VM_READ, .flags = VM_SHARED, .obj = &objs[0], .pgoff = 10 };
	struct vma left = right, more = right;
	left.start = 0, left.end = 10 * P, left.pgoff = 0;
	more.start = 20 * P, more.end = 40 * P, more.pgoff = 20;
	CHECK_EQ(vma_insert(&s, &right), 0);
	CHECK_EQ(vma_insert(&s, &left), 0);     /* merges with the area on its right */
	CHECK_EQ(s.n, 1);
	CHECK(index_matches_walk(&objs[0], 19));
	CHECK_EQ(vma_insert(&s, &more), 0);     /* merges with the area on its left */
	CHECK_EQ(s.n, 1);
	CHECK(index_matches_walk(&objs[0], 39));
	CHECK(invariants());
	uint64_t seeds[] = { 1, 2, 3, 77, 1234 };
	for (unsigned sd = 0; sd < sizeof seeds / sizeof seeds[0]; sd++) {
		fresh();
		rng_state = seeds[sd];
		uint64_t bad = 0, queries = 0;
		for (int op = 0; op < 3000; op++) {
			if (op % 200 == 199)    /* start over now and then: the length bound starts again from 0 */
				CHECK_EQ(vma_remove(&s, 0, 4000 * P, NULL, NULL), 0);
			uint64_t a = rnd(2000), len = 1 + rnd(op % 7 ? 8 : 200);
			switch (rnd(4)) {
			case 0: {       /* map: anonymous or on an object, offset tied to the address or not */
				struct vma v = anon(a, a + len, VM_READ | (rnd(2) ? VM_WRITE : 0));
				uint64_t o = rnd(4);
				if (o < 3) {
					v.obj = &objs[o];
					v.flags = VM_SHARED;
					v.pgoff = o == 0 ? a : rnd(300);
				}
				int err = vma_insert(&s, &v);
				CHECK(err == 0 || err == -EEXIST);
				break;
			}
			case 1:
				CHECK_EQ(vma_remove(&s, a * P, (a + len) * P, NULL, NULL), 0);
				break;
			case 2: {
				int err = vma_protect(&s, a * P, (a + len) * P, rnd(2) ? VM_READ : VM_READ | VM_WRITE, NULL, NULL);
				CHECK(err == 0 || err == -ENOMEM);
				break;
			}
			default:
				break;
			}
			if (op % 50 == 0 && !invariants())
				bad++;
			for (uint32_t i = 0; i < s.n; i++)      /* the bound the search stops at */
				if (s.v[i].obj && (s.v[i].end - s.v[i].start) / P > s.o_max_pages)
					bad++;
			for (int q = 0; q < 8; q++, queries++)
				if (!index_matches_walk(&objs[rnd(3)], rnd(2300)))
					bad++;
		}
		CHECK(invariants());
		CHECK_EQ(bad, 0);
		CHECK(queries == 24000);
		/* A removal of many object areas at once (one pass over the index). */
		CHECK_EQ(vma_remove(&s, 0, 1000 * P, NULL, NULL), 0);
		CHECK(invariants());
		for (int q = 0; q < 200; q++)
			CHECK(index_matches_walk(&objs[rnd(3)], rnd(2300)));
	}
	fresh();
}
