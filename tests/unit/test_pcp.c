/*
 * Per-CPU free-page lists (kernel/mem/pcp.c) over the real buddy: the
 * marks from 48 MiB to 1 TiB and 1 to 256 CPUs, the list order, refill
 * and spill in batches, draining, and several simulated CPUs allocating
 * and freeing at random with every page accounted for.
 */
#include <stdlib.h>
#include "test.h"
#include "mem/pcp.h"

#define NPAGES 4096
#define NCPU 4
static struct page map[NPAGES];
static uint64_t ready[64];
static struct buddy b;
static struct pcp_list cpu[NCPU];
static unsigned locks_taken;
static bool locked;

static void lock(void *arg) { (void)arg; CHECK(!locked); locked = true; locks_taken++; }
static void unlock(void *arg) { (void)arg; CHECK(locked); locked = false; }

static struct pcp_pool pool;

static void fresh(uint32_t high, uint32_t batch)
{
	memset(map, 0x5a, sizeof map);
	memset(ready, 0, sizeof ready);
	buddy_init(&b, map, ready, 0, NPAGES);
	buddy_add_range(&b, 0, NPAGES);
	pool = (struct pcp_pool){ .buddy = &b, .lock = lock, .unlock = unlock, .high = high, .batch = batch };
	for (int i = 0; i < NCPU; i++)
		pcp_init(&cpu[i]);
	locks_taken = 0;
}

/* Every list's length and flags, and the page count: buddy + lists +
 * allocated == all. */
static void check_all(uint64_t allocated)
{
	uint64_t on_lists = 0;
	for (int i = 0; i < NCPU; i++) {
		uint32_t n = 0;
		list_for_each(it, &cpu[i].pages) {
			struct page *p = list_entry(it, struct page, lru);
			CHECK_EQ(p->flags, PG_PCP);
			n++;
		}
		CHECK_EQ(n, cpu[i].count);
		CHECK(n <= pool.high);
		on_lists += n;
	}
	CHECK_EQ(on_lists, pool.pages);
	CHECK_EQ(b.free_pages + pool.pages + allocated, NPAGES);
	CHECK_EQ(buddy_check(&b), 0);
}

TEST(pcp_marks_scale)
{
	uint32_t h, bt;
	pcp_marks(12288, 1, &h, &bt);           /* 48 MiB */
	CHECK_EQ(bt, 12);
	CHECK_EQ(h, 96);                        /* 1/128 of memory */
	pcp_marks(16384, 1, &h, &bt);           /* 64 MiB */
	CHECK_EQ(bt, 16);
	CHECK_EQ(h, 128);
	pcp_marks(1ull << 28, 256, &h, &bt);    /* 1 TiB, 256 CPUs: the caps */
	CHECK_EQ(bt, 63);
	CHECK_EQ(h, 504);
	for (uint64_t pages = 12288; pages <= 1ull << 28; pages *= 2)
		for (unsigned n = 1; n <= 256; n *= 2) {
			pcp_marks(pages, n, &h, &bt);
			CHECK(bt >= 1 && h >= bt && bt <= 63);
			/* all lists full: at most 1/128 of memory (a page each when even that is less) */
			CHECK((uint64_t)h * n <= (pages >> 7 > n ? pages >> 7 : n));
		}
}

TEST(pcp_refill_and_lifo)
{
	fresh(8, 4);
	struct page *p = pcp_alloc(&pool, &cpu[0]);
	CHECK(p != NULL);
	CHECK_EQ(locks_taken, 1);
	CHECK_EQ(cpu[0].count, 3);              /* a batch of 4, one handed out */
	CHECK_EQ(b.free_pages, NPAGES - 4);
	check_all(1);
	p->flags = 0;
	CHECK(pcp_free(&pool, &cpu[0], p));
	CHECK(pcp_alloc(&pool, &cpu[0]) == p);  /* the hottest page comes back first */
	CHECK_EQ(locks_taken, 1);
	check_all(1);
}

TEST(pcp_spill_coldest_batch)
{
	fresh(8, 4);
	struct page *pages[9];
	for (int i = 0; i < 9; i++)
		pages[i] = &map[100 + i * 2];   /* not from the buddy: take them out by hand */
	/* Take every page, give back all but ours: ours are allocated. */
	while (buddy_alloc(&b, 0) >= 0)
		;
	for (uint64_t pfn = 0; pfn < NPAGES; pfn++)
		if (pfn < 100 || pfn > 116 || (pfn & 1))
			CHECK(buddy_free(&b, pfn, 0));
	CHECK_EQ(b.free_pages, NPAGES - 9);
	for (int i = 0; i < 8; i++)
		CHECK(pcp_free(&pool, &cpu[1], pages[i]));
	CHECK_EQ(locks_taken, 0);
	CHECK(pcp_free(&pool, &cpu[1], pages[8]));      /* 9 > high: 4 go */
	CHECK_EQ(locks_taken, 1);
	CHECK_EQ(cpu[1].count, 5);
	for (int i = 0; i < 4; i++)
		CHECK(!(pages[i]->flags & PG_PCP));     /* the first freed are the coldest */
	for (int i = 4; i < 9; i++)
		CHECK(pages[i]->flags & PG_PCP);
	check_all(0);
	CHECK(pcp_drain(&pool, &cpu[1]));
	CHECK_EQ(b.free_pages, NPAGES);
	CHECK_EQ(b.nfree[BUDDY_ORDERS - 1], NPAGES >> (BUDDY_ORDERS - 1));    /* merged whole again */
}

TEST(pcp_empty_buddy_and_bad_page)
{
	fresh(8, 4);
	uint64_t n = 0;
	while (pcp_alloc(&pool, &cpu[2]))
		n++;
	CHECK_EQ(n, NPAGES);
	CHECK(pcp_alloc(&pool, &cpu[3]) == NULL);
	check_all(NPAGES);
	/* A page the buddy holds as free, pushed by a broken caller: the
	 * drain says so instead of corrupting the buddy. */
	CHECK(buddy_free(&b, 7, 0));
	pcp_push(&cpu[3], &map[7]);
	pool.pages++;
	CHECK(!pcp_drain(&pool, &cpu[3]));
}

/* Four CPUs allocate and free at random, a page freed on any CPU (as a
 * page allocated on one and freed on another); when an allocation finds
 * nothing, every list is drained and it tries the buddy once more, as
 * pmm_alloc does: every page must then be reachable. */
TEST(pcp_random_cpus)
{
	fresh(12, 5);
	static struct page *held[NPAGES];
	uint64_t nheld = 0;
	srand(14);
	for (int step = 0; step < 200000; step++) {
		int c = rand() % NCPU;
		bool alloc = nheld == 0 || (nheld < NPAGES && rand() % 100 < (step % 20000 < 12000 ? 70 : 30));
		if (alloc) {
			struct page *p = pcp_alloc(&pool, &cpu[c]);
			if (!p) {
				for (int i = 0; i < NCPU; i++)
					CHECK(pcp_drain(&pool, &cpu[i]));
				p = pcp_alloc(&pool, &cpu[c]);
			}
			CHECK(p != NULL || nheld == NPAGES);
			if (!p)
				break;
			CHECK_EQ(p->flags, 0);
			held[nheld++] = p;
		} else {
			uint64_t i = (uint64_t)rand() % nheld;
			struct page *p = held[i];
			held[i] = held[--nheld];
			CHECK(pcp_free(&pool, &cpu[c], p));
		}
		if (step % 997 == 0)
			check_all(nheld);
	}
	check_all(nheld);
	while (nheld)
		CHECK(pcp_free(&pool, &cpu[0], held[--nheld]));
	for (int i = 0; i < NCPU; i++)
		CHECK(pcp_drain(&pool, &cpu[i]));
	CHECK_EQ(b.free_pages, NPAGES);
	CHECK_EQ(pool.pages, 0);
}
