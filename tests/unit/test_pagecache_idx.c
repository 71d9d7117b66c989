/* The page cache's radix tree: entries, node counts, the walk, the
 * tree's size following what it holds (16 TiB disk offsets), and its
 * tag (the dirty pages write-back walks). */
#include <stdlib.h>
#include "test.h"
#include "vm/pagecache_idx.h"
#include "lib/errno.h"

static int fail_after = -1;             /* allocations left before one fails (-1: never) */

static void *zalloc(size_t n)
{
	if (fail_after == 0)
		return NULL;
	if (fail_after > 0)
		fail_after--;
	return calloc(1, n);
}

static struct pagecache_idx fresh(void)
{
	return (struct pagecache_idx){ .alloc = zalloc, .free = free };
}

static void *val(uint64_t i) { return (void *)(uintptr_t)((i << 4) | 8); }

TEST(pagecache_idx_set_get_del)
{
	struct pagecache_idx x = fresh();
	CHECK(!pagecache_idx_get(&x, 0));
	CHECK_EQ(pagecache_idx_set(&x, 5, val(5)), 0);
	CHECK_EQ(x.height, 1);
	CHECK_EQ(pagecache_idx_set(&x, 5, val(6)), -EEXIST);
	CHECK(pagecache_idx_get(&x, 5) == val(5));
	CHECK(!pagecache_idx_get(&x, 6));
	/* Last page of a 16 TiB disk: 2^32 - 1; the tree grows to 6 levels. */
	uint64_t top = (1ull << 32) - 1;
	CHECK_EQ(pagecache_idx_set(&x, top, val(top)), 0);
	CHECK_EQ(x.height, 6);
	CHECK_EQ(x.nodes, 6 + 5);       /* root and 5 levels to 5; 5 more to top */
	CHECK_EQ(pagecache_idx_check(&x), 0);
	CHECK(pagecache_idx_get(&x, top) == val(top));
	CHECK(pagecache_idx_get(&x, 5) == val(5));
	CHECK(pagecache_idx_del(&x, top) == val(top));
	CHECK_EQ(x.height, 1);          /* shrunk back: only 5 is left */
	CHECK_EQ(x.nodes, 1);
	CHECK(!pagecache_idx_del(&x, top));
	CHECK(pagecache_idx_del(&x, 5) == val(5));
	CHECK_EQ(x.height, 0);
	CHECK_EQ(x.nodes, 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
}

TEST(pagecache_idx_next_walks_in_order)
{
	struct pagecache_idx x = fresh();
	uint64_t keys[] = { 3, 64, 65, 4095, 4096, 1ull << 30, (1ull << 40) + 7 };
	for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
		CHECK_EQ(pagecache_idx_set(&x, keys[k], val(keys[k])), 0);
	uint64_t at = 0, from = 0;
	unsigned seen = 0;
	for (void *v; (v = pagecache_idx_next(&x, from, &at)); from = at + 1) {
		CHECK(seen < sizeof keys / sizeof keys[0]);
		if (seen >= sizeof keys / sizeof keys[0])
			break;
		CHECK_EQ(at, keys[seen]);
		CHECK(v == val(keys[seen]));
		seen++;
	}
	CHECK_EQ(seen, sizeof keys / sizeof keys[0]);
	CHECK(pagecache_idx_next(&x, 66, &at) && at == 4095);
	CHECK(!pagecache_idx_next(&x, (1ull << 40) + 8, &at));
	CHECK(!pagecache_idx_next(&x, ~0ull, &at));
	for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
		CHECK(pagecache_idx_del(&x, keys[k]) == val(keys[k]));
	CHECK_EQ(x.nodes, 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
}

/* Memory follows entries: 10000 scattered pages, then all deleted. */
TEST(pagecache_idx_size_follows_contents)
{
	struct pagecache_idx x = fresh();
	uint64_t seed = 1;
	uint64_t *keys = calloc(10000, sizeof *keys);
	for (int k = 0; k < 10000; k++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		keys[k] = (seed >> 20) & ((1ull << 32) - 1);
		int r = pagecache_idx_set(&x, keys[k], val(keys[k]));
		CHECK(r == 0 || r == -EEXIST);
		if (r)
			keys[k] = ~0ull;
	}
	CHECK_EQ(pagecache_idx_check(&x), 0);
	CHECK(x.nodes <= x.entries * 6);
	for (int k = 0; k < 10000; k++)
		if (keys[k] != ~0ull)
			CHECK(pagecache_idx_get(&x, keys[k]) == val(keys[k]));
	for (int k = 0; k < 10000; k++)
		if (keys[k] != ~0ull)
			CHECK(pagecache_idx_del(&x, keys[k]) == val(keys[k]));
	CHECK_EQ(x.entries, 0);
	CHECK_EQ(x.nodes, 0);
	free(keys);
}

/* A failed node allocation leaves the tree as it was. */
TEST(pagecache_idx_enomem_changes_nothing)
{
	struct pagecache_idx x = fresh();
	CHECK_EQ(pagecache_idx_set(&x, 1, val(1)), 0);
	for (int budget = 0; budget < 6; budget++) {
		fail_after = budget;
		int r = pagecache_idx_set(&x, 1ull << 31, val(2));
		fail_after = -1;
		CHECK_EQ(r, -ENOMEM);
		CHECK_EQ(x.entries, 1);
		CHECK_EQ(x.nodes, 1);
		CHECK_EQ(x.height, 1);
		CHECK_EQ(pagecache_idx_check(&x), 0);
	}
	CHECK(pagecache_idx_del(&x, 1) == val(1));
	CHECK_EQ(x.nodes, 0);
}

/* Shadows (value entries, bit 0 set) take the slot a page left: replace
 * never allocates, the values count follows every path in and out, and
 * the last entry going, value or not, frees the nodes. */
TEST(pagecache_idx_value_entries)
{
	struct pagecache_idx x = fresh();
	void *shadow = (void *)(uintptr_t)0x1235;
	CHECK(pagecache_idx_is_value(shadow));
	CHECK(!pagecache_idx_is_value(val(7)));
	CHECK(!pagecache_idx_replace(&x, 7, shadow));   /* empty: nothing */
	CHECK_EQ(x.entries, 0);
	CHECK_EQ(pagecache_idx_set(&x, 7, val(7)), 0);
	CHECK_EQ(pagecache_idx_set(&x, 1ull << 32, val(8)), 0);
	uint64_t nodes = x.nodes;
	fail_after = 0;                                 /* replace must not allocate */
	CHECK(pagecache_idx_replace(&x, 7, shadow) == val(7));
	fail_after = -1;
	CHECK_EQ(x.nodes, nodes);
	CHECK_EQ(x.values, 1);
	CHECK_EQ(x.entries, 2);
	CHECK_EQ(pagecache_idx_check(&x), 0);
	CHECK(pagecache_idx_get(&x, 7) == shadow);
	CHECK_EQ(pagecache_idx_set(&x, 7, val(9)), -EEXIST);   /* a shadow occupies the slot */
	/* A refault: the page takes the shadow's place. */
	CHECK(pagecache_idx_replace(&x, 7, val(9)) == shadow);
	CHECK_EQ(x.values, 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
	CHECK(pagecache_idx_replace(&x, 1ull << 32, shadow) == val(8));
	uint64_t at;
	CHECK(pagecache_idx_next(&x, 8, &at) == shadow && at == 1ull << 32);
	CHECK(pagecache_idx_del(&x, 1ull << 32) == shadow);
	CHECK_EQ(x.values, 0);
	CHECK(pagecache_idx_del(&x, 7) == val(9));
	CHECK_EQ(x.nodes, 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
}

/* Tags: set only on an entry, found in order by next_tagged (skipping
 * untagged entries and the subtrees without tags), dropped by del and
 * replace, and the root's bits kept when the tree grows and shrinks. */
TEST(pagecache_idx_tags)
{
	struct pagecache_idx x = fresh();
	CHECK(!pagecache_idx_tag_set(&x, 7, NULL));     /* empty: nothing to tag */
	uint64_t keys[] = { 3, 64, 65, 4095, 4096, 1ull << 30 };
	for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
		CHECK_EQ(pagecache_idx_set(&x, keys[k], val(keys[k])), 0);
	CHECK(!pagecache_idx_tag_set(&x, 66, NULL));
	CHECK(pagecache_idx_tag_set(&x, 65, NULL));
	CHECK(pagecache_idx_tag_set(&x, 65, NULL));     /* twice: counted once */
	CHECK(pagecache_idx_tag_set(&x, 1ull << 30, NULL));
	CHECK(!pagecache_idx_tag_set(&x, 64, val(65)));    /* another entry than the one named */
	CHECK(!pagecache_idx_tag_get(&x, 64));
	pagecache_idx_tag_clear(&x, 65, val(64));
	CHECK(pagecache_idx_tag_get(&x, 65));
	CHECK_EQ(x.tagged, 2);
	CHECK_EQ(pagecache_idx_check(&x), 0);
	uint64_t at = 0;
	CHECK(pagecache_idx_next_tagged(&x, 0, &at) == val(65) && at == 65);
	CHECK(pagecache_idx_next_tagged(&x, 66, &at) == val(1ull << 30) && at == 1ull << 30);
	CHECK(!pagecache_idx_next_tagged(&x, (1ull << 30) + 1, &at));
	CHECK(pagecache_idx_tag_get(&x, 65) && !pagecache_idx_tag_get(&x, 64) && !pagecache_idx_tag_get(&x, 66));
	pagecache_idx_tag_clear(&x, 65, NULL);
	pagecache_idx_tag_clear(&x, 65, NULL);
	CHECK_EQ(x.tagged, 1);
	CHECK(pagecache_idx_next_tagged(&x, 0, &at) == val(1ull << 30));
	/* Growing past 2^36 puts the old root under a new one: its tags stay
	 * reachable. */
	uint64_t far = 1ull << 40;
	CHECK_EQ(pagecache_idx_set(&x, far, val(far)), 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
	CHECK(pagecache_idx_next_tagged(&x, 0, &at) == val(1ull << 30));
	CHECK(pagecache_idx_tag_set(&x, far, NULL));
	CHECK(pagecache_idx_del(&x, far) == val(far));  /* the tag goes with it */
	CHECK_EQ(x.tagged, 1);
	CHECK_EQ(pagecache_idx_check(&x), 0);
	CHECK(pagecache_idx_replace(&x, 1ull << 30, val(9)) == val(1ull << 30));
	CHECK(!pagecache_idx_tag_get(&x, 1ull << 30));  /* a new entry starts untagged */
	CHECK_EQ(x.tagged, 0);
	CHECK(!pagecache_idx_next_tagged(&x, 0, &at));
	CHECK_EQ(pagecache_idx_check(&x), 0);
	for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
		CHECK(pagecache_idx_del(&x, keys[k]));
	CHECK_EQ(x.nodes, 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
}

/* Random sets, deletes, tags and untags over a sparse range, against a
 * model: every next_tagged from a random start finds the model's next. */
TEST(pagecache_idx_tags_match_a_model)
{
	enum { KEYS = 512, OPS = 20000 };
	static uint64_t key[KEYS];
	static bool present[KEYS], tagged[KEYS];
	uint64_t r = 88172645463325252ull;
	for (unsigned k = 0; k < KEYS; k++) {
		/* Sorted, clustered and spread: runs of neighbours, then jumps
		 * of up to 2^20 pages. */
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		key[k] = (k ? key[k - 1] : 0) + (r % 4 ? 1 : 1 + r % (1u << 20));
	}
	struct pagecache_idx x = fresh();
	for (unsigned op = 0; op < OPS; op++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		unsigned k = (unsigned)(r >> 8) % KEYS;
		switch (r % 5) {
		case 0:
			CHECK_EQ(pagecache_idx_set(&x, key[k], val(k)), present[k] ? -EEXIST : 0);
			present[k] = true;
			break;
		case 1:
			CHECK(pagecache_idx_del(&x, key[k]) == (present[k] ? val(k) : NULL));
			present[k] = tagged[k] = false;
			break;
		case 2:
		case 3:
			CHECK_EQ(pagecache_idx_tag_set(&x, key[k], NULL), present[k]);
			tagged[k] = present[k];
			break;
		default:
			pagecache_idx_tag_clear(&x, key[k], NULL);
			tagged[k] = false;
			break;
		}
		CHECK_EQ(pagecache_idx_tag_get(&x, key[k]), tagged[k]);
		if (op % 64 == 0) {
			CHECK_EQ(pagecache_idx_check(&x), 0);
			uint64_t from = key[(r >> 20) % KEYS] + (r >> 40) % 3, at = 0;
			unsigned want = 0;
			while (want < KEYS && (key[want] < from || !tagged[want]))
				want++;
			void *v = pagecache_idx_next_tagged(&x, from, &at);
			if (want == KEYS) {
				CHECK(!v);
			} else {
				CHECK(v == val(want));
				CHECK_EQ(at, key[want]);
			}
		}
	}
	for (unsigned k = 0; k < KEYS; k++)
		if (present[k])
			CHECK(pagecache_idx_del(&x, key[k]) == val(k));
	CHECK_EQ(x.nodes, 0);
	CHECK_EQ(x.tagged, 0);
	CHECK_EQ(pagecache_idx_check(&x), 0);
}
