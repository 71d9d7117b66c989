/*
 * The real kernel/swap/swapcache.c against the fakes in fake_kernel.c:
 * references and slot counts balance, lookups find what was added while
 * the table grows and migrates, per-area collection, free_swap_and_cache
 * semantics, and no leaked heap blocks once the cache is empty.
 */
#include <stdlib.h>
#include "../unit/test.h"
#include "lib/errno.h"
#include "fake_kernel.h"
#include "mem/page.h"
#include "swap/swapcache.h"
#include "vm/page_ref.h"
#include "swap/swap.h"

#define MAXP 20000

static struct page pages[MAXP];
static long base_allocs;

/* The cache is one static table: initialise it once (as the kernel does)
 * and leave it empty after every test. */
static void setup(void)
{
	static bool done;
	fake_reset();                   /* the cache: 4 GiB of RAM, the table may grow to 512 Ki buckets */
	if (!done) {
		base_allocs = fake.live_allocs;
		done = true;
	}
	memset(pages, 0, sizeof pages);
	for (int i = 0; i < MAXP; i++)
		pages[i].refcount = 1;          /* the test's own reference */
}

static uint64_t entry_of(int i) { return swp_entry((unsigned)(i % 3), 1 + (uint64_t)i * 7); }

static void add(int i)
{
	struct page *p = &pages[i];
	p->flags |= PG_LOCKED;
	CHECK_EQ(swapcache_add(p, entry_of(i)), 0);
	p->flags &= ~PG_LOCKED;
}

static void del(int i)
{
	struct page *p = &pages[i];
	p->flags |= PG_LOCKED;
	swapcache_del(p);
	p->flags &= ~PG_LOCKED;
}

TEST(swapcache_add_lookup_del_balance)
{
	setup();
	add(0);
	CHECK_EQ(pages[0].refcount, 2);
	CHECK(pages[0].flags & PG_SWAPCACHE);
	CHECK_EQ(pages[0].private, entry_of(0));
	CHECK_EQ(swap_count(entry_of(0)), 1);
	CHECK_EQ(swapcache_add(&pages[1], entry_of(0)), -EEXIST);      /* the entry is taken */
	CHECK_EQ(pages[1].refcount, 1);
	struct page *p = swapcache_lookup(entry_of(0), true);
	CHECK(p == &pages[0]);
	CHECK_EQ(pages[0].refcount, 3);
	put_page(p);
	CHECK(swapcache_lookup(entry_of(1), false) == NULL);
	del(0);
	CHECK_EQ(pages[0].refcount, 1);
	CHECK(!(pages[0].flags & PG_SWAPCACHE));
	CHECK_EQ(swap_count(entry_of(0)), 0);
	CHECK_EQ(swapcache_size(), 0);
	/* Its shard keeps the node, and the one the refused add made, for
	 * the next adds there, which allocate nothing. */
	CHECK_EQ(fake.live_allocs, base_allocs + 2);
	add(0);
	CHECK_EQ(fake.live_allocs, base_allocs + 2);
	del(0);
	swapcache_drain_spares();
	CHECK_EQ(fake.live_allocs, base_allocs);
}

/* 20000 entries grow the shards' tables from 64 buckets through several doublings;
 * deleting in a scrambled order while migration is under way must still
 * find every node, in the old table or the new. */
TEST(swapcache_grows_and_finds_everything)
{
	setup();
	uint64_t adds0 = fake.vmstat[SWAPCACHE_ADD];
	for (int i = 0; i < MAXP; i++) {
		add(i);
		/* After every add: entries that may sit in either table while a
		 * doubling migrates MIGRATE_STEP buckets per operation. */
		int probe[] = { 0, i / 3, i / 2, i - 1 };
		for (int k = 0; k < 4; k++) {
			int j = probe[k] < 0 ? 0 : probe[k];
			struct page *p = swapcache_lookup(entry_of(j), false);
			CHECK(p == &pages[j]);
			if (p)
				put_page(p);
		}
	}
	CHECK_EQ(swapcache_size(), MAXP);
	CHECK_EQ(fake.vmstat[SWAPCACHE_ADD] - adds0, MAXP);
	CHECK(fake.live_allocs > base_allocs + MAXP);  /* the nodes, and a table bigger than the first */
	for (int k = 0; k < MAXP; k++) {
		int i = (int)(((uint64_t)k * 7919) % MAXP);     /* 7919 is prime to 20000: a permutation */
		CHECK(swapcache_lookup(entry_of(i), false) == &pages[i]);
		put_page(&pages[i]);
		del(i);
		CHECK(swapcache_lookup(entry_of(i), false) == NULL);
	}
	CHECK_EQ(swapcache_size(), 0);
	for (int i = 0; i < MAXP; i++) {
		CHECK_EQ(pages[i].refcount, 1);
		CHECK_EQ(swap_count(entry_of(i)), 0);
	}
	/* Empty again: the grown tables went back to their first size, and
	 * of 20000 nodes a few dozen per shard are kept for reuse (4 CPUs:
	 * 8 shards, 64 each), the rest freed; drained, none is left. */
	CHECK(fake.live_allocs > base_allocs && fake.live_allocs <= base_allocs + 8 * 64);
	swapcache_drain_spares();
	CHECK_EQ(fake.live_allocs, base_allocs);
	add(5);
	CHECK_EQ(fake.live_allocs, base_allocs + 1);
	del(5);
	swapcache_drain_spares();
	CHECK_EQ(fake.live_allocs, base_allocs);
}

/* Every cached page of the area once, none of another (the order is
 * shard by shard). */
TEST(swapcache_collect_is_per_area)
{
	setup();
	for (int i = 0; i < 30; i++)
		add(i);
	struct page *out[64];
	int n = swapcache_collect(1, out, 64);
	CHECK_EQ(n, 10);                        /* i % 3 == 1 */
	bool seen[30] = { false };
	for (int k = 0; k < n; k++) {
		int i = (int)(out[k] - pages);
		CHECK(i >= 0 && i < 30 && i % 3 == 1 && !seen[i]);
		if (i >= 0 && i < 30)
			seen[i] = true;
		put_page(out[k]);
	}
	CHECK_EQ(swapcache_collect(1, out, 4), 4);
	for (int k = 0; k < 4; k++)
		put_page(out[k]);
	CHECK_EQ(swapcache_collect(SWAP_MAX_AREAS, out, 4), 0);
	CHECK_EQ(swapcache_collect(7, out, 4), 0);
	for (int i = 0; i < 30; i++)
		del(i);
	CHECK_EQ(swapcache_collect(1, out, 64), 0);
}

/* A walk returns every page of the area once, whatever the caller keeps
 * or drops between calls: collecting again from the start returned the
 * kept ones again, and swap_drop_unused_cache stopped after a batch of
 * 64 it all kept (mapped pages), leaving the unused ones behind them. */
TEST(swapcache_walk_visits_each_page_once)
{
	setup();
	for (int i = 0; i < 600; i++)
		add(i);
	struct page *out[16];
	int seen[600] = { 0 }, visited = 0, n;
	struct swapcache_walk w = { 0 };
	while ((n = swapcache_walk(1, &w, out, 16)) > 0) {
		CHECK(n <= 16);
		for (int k = 0; k < n; k++) {
			int i = (int)(out[k] - pages);
			CHECK(i >= 0 && i < 600 && i % 3 == 1);
			if (i >= 0 && i < 600)
				seen[i]++;
			put_page(out[k]);
			if (visited++ % 2)
				del(i);                 /* every other one goes */
		}
		CHECK(visited <= 200);
		if (visited > 200)
			break;
	}
	CHECK_EQ(visited, 200);
	for (int i = 1; i < 600; i += 3)
		CHECK_EQ(seen[i], 1);
	CHECK_EQ(swapcache_walk(1, &w, out, 16), 0);    /* ended: stays ended */
	/* A new walk finds the kept half. */
	struct swapcache_walk w2 = { 0 };
	int again = 0;
	while ((n = swapcache_walk(1, &w2, out, 16)) > 0) {
		for (int k = 0; k < n; k++)
			put_page(out[k]);
		again += n;
		if (again > 100)
			break;
	}
	CHECK_EQ(again, 100);
	struct swapcache_walk bad = { 0 };
	CHECK_EQ(swapcache_walk(SWAP_MAX_AREAS, &bad, out, 16), 0);
	for (int i = 0; i < 600; i++)
		if (pages[i].flags & PG_SWAPCACHE)
			del(i);
	CHECK_EQ(swapcache_size(), 0u);
}

/* free_swap_and_cache: when the cache's count is the last one and the
 * page is idle, the page leaves the cache; mapped, locked or shared
 * entries stay. */
TEST(swapcache_free_entry_drops_idle_pages_only)
{
	setup();
	for (int i = 0; i < 4; i++) {
		add(i);
		swap_dup(entry_of(i));          /* a PTE's count besides the cache's */
	}
	pages[1].mapcount = 1;                  /* still mapped somewhere */
	pages[2].flags |= PG_LOCKED;            /* under I/O */
	swap_dup(entry_of(3));                  /* a second user: 3 counts in all */
	pages[0].flags |= PG_READAHEAD;         /* read ahead, never used: waste */
	uint64_t waste0 = fake.vmstat[SWAP_RA_WASTE];
	for (int i = 0; i < 4; i++)
		swapcache_free_entry(entry_of(i));
	CHECK(!(pages[0].flags & PG_SWAPCACHE));
	CHECK_EQ(swap_count(entry_of(0)), 0);
	CHECK_EQ(fake.vmstat[SWAP_RA_WASTE] - waste0, 1);
	CHECK(pages[1].flags & PG_SWAPCACHE);
	CHECK(pages[2].flags & PG_SWAPCACHE);
	CHECK(pages[3].flags & PG_SWAPCACHE);
	CHECK_EQ(swap_count(entry_of(3)), 2);
	CHECK_EQ(pages[0].refcount, 1);
	pages[1].mapcount = 0;
	pages[2].flags &= ~PG_LOCKED;
	swap_free(entry_of(3));
	for (int i = 1; i < 4; i++)
		del(i);
	CHECK_EQ(swapcache_size(), 0);
}

TEST(swapcache_add_without_memory_fails_cleanly)
{
	setup();
	long before = fake.live_allocs;
	fake.fail_allocs = 1;
	CHECK_EQ(swapcache_add(&pages[0], entry_of(0)), -ENOMEM);
	CHECK_EQ(fake.live_allocs, before);
	CHECK_EQ(pages[0].refcount, 1);
	CHECK(!(pages[0].flags & PG_SWAPCACHE));
	CHECK_EQ(swap_count(entry_of(0)), 0);
	CHECK_EQ(swapcache_size(), 0);
}

/* Workingset shadows: an evicted page's node stays at its slot with the
 * shadow while another user (a swap PTE, here the test's dup) holds the
 * slot; a read of the slot takes it back once; freeing the slot forgets
 * it (swap.c's swap_free calls swapcache_forget_shadow at count 0, which
 * the fake swap_free does not: the test does it). */
TEST(swapcache_evict_leaves_a_shadow_until_read_or_freed)
{
	setup();
	uint64_t e = entry_of(5);
	add(5);
	swap_dup(e);                            /* a PTE's count */
	pages[5].flags |= PG_LOCKED;
	swapcache_evict(&pages[5], 0x1234567 | 1);
	pages[5].flags &= ~PG_LOCKED;
	CHECK_EQ(pages[5].refcount, 1);
	CHECK(!(pages[5].flags & PG_SWAPCACHE));
	CHECK_EQ(swap_count(e), 1);             /* the PTE's alone */
	CHECK_EQ(swapcache_size(), 0);
	CHECK_EQ(swapcache_shadows(), 1);
	CHECK(swapcache_lookup(e, true) == NULL);       /* a shadow is no page */
	/* Read back: the node is the new page's, the shadow taken once. */
	pages[7].flags |= PG_LOCKED;
	CHECK_EQ(swapcache_add(&pages[7], e), 0);
	CHECK_EQ(swapcache_shadows(), 0);
	CHECK_EQ(swapcache_take_shadow(&pages[7]), 0x1234567 | 1);
	CHECK_EQ(swapcache_take_shadow(&pages[7]), 0);
	swapcache_del(&pages[7]);
	pages[7].flags &= ~PG_LOCKED;
	/* Evicted again, then the slot's last user goes. */
	add(5);
	pages[5].flags |= PG_LOCKED;
	swapcache_evict(&pages[5], 0x99 | 1);
	pages[5].flags &= ~PG_LOCKED;
	CHECK_EQ(swapcache_shadows(), 1);
	swap_free(e);
	CHECK_EQ(swap_count(e), 0);
	swapcache_forget_shadow(e);
	CHECK_EQ(swapcache_shadows(), 0);
	swapcache_forget_shadow(e);             /* nothing there: no harm */
	swapcache_drain_spares();
	CHECK_EQ(fake.live_allocs, base_allocs);
}

TEST(swapcache_evict_without_other_users_keeps_no_shadow)
{
	setup();
	add(9);
	pages[9].flags |= PG_LOCKED;
	swapcache_evict(&pages[9], 0x77 | 1);   /* the cache held the last count */
	pages[9].flags &= ~PG_LOCKED;
	CHECK_EQ(swapcache_shadows(), 0);
	CHECK_EQ(swap_count(entry_of(9)), 0);
	CHECK_EQ(pages[9].refcount, 1);
	swapcache_drain_spares();
	CHECK_EQ(fake.live_allocs, base_allocs);
}
