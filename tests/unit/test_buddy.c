#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "mem/buddy.h"

#define NPAGES 4096
static struct page map[NPAGES];
static struct buddy b;
static uint64_t ready[64];

/* A fresh allocator over `map` with garbage in every descriptor: the
 * buddy must never read one it has not initialised. */
static void fresh(uint64_t base, uint64_t n)
{
	memset(map, 0x5a, sizeof map);
	memset(ready, 0, sizeof ready);
	buddy_init(&b, map + base, ready, base, n);
}

static uint64_t count_free(void)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < BUDDY_ORDERS; k++) {
		uint64_t c = 0;
		list_for_each(it, &b.free[k])
			c++;
		CHECK_EQ(c, b.nfree[k]);
		n += c << k;
	}
	CHECK_EQ(buddy_check(&b), 0);
	return n + b.deferred_pages;
}

TEST(buddy_add_and_alloc_all)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 0, NPAGES);
	CHECK_EQ(b.free_pages, NPAGES);
	CHECK_EQ(count_free(), NPAGES);
	CHECK_EQ(b.deferred_pages, NPAGES);     /* whole chunks wait untouched */
	int64_t got = 0;
	while (buddy_alloc(&b, 0) >= 0)
		got++;
	CHECK_EQ(got, NPAGES);
	CHECK_EQ(b.free_pages, 0);
	CHECK_EQ(buddy_alloc(&b, 0), -1);
}

TEST(buddy_split_and_coalesce)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 0, 1024);
	int64_t a = buddy_alloc(&b, 0);
	CHECK_EQ(a, 0);
	CHECK_EQ(b.free_pages, 1023);
	for (unsigned k = 0; k < 10; k++)
		CHECK_EQ(b.nfree[k], 1);
	CHECK(buddy_free(&b, (uint64_t)a, 0));
	CHECK_EQ(b.nfree[10], 1);
	for (unsigned k = 0; k < 10; k++)
		CHECK_EQ(b.nfree[k], 0);
	CHECK_EQ(count_free(), 1024);
}

TEST(buddy_alignment_of_blocks)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 3, 1000);   /* unaligned start: small blocks first */
	CHECK_EQ(b.free_pages, 1000);
	for (unsigned k = 0; k < BUDDY_ORDERS; k++) {
		int64_t p = buddy_alloc(&b, k);
		if (p >= 0) {
			CHECK_EQ((uint64_t)p & ((1ull << k) - 1), 0);
			CHECK((uint64_t)p >= 3 && (uint64_t)p + (1ull << k) <= 1003);
		}
	}
}

TEST(buddy_rejects_bad_frees)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 0, 64);
	int64_t p = buddy_alloc(&b, 2);
	CHECK(p >= 0);
	CHECK(!buddy_free(&b, (uint64_t)p + 1, 2));     /* misaligned */
	CHECK(!buddy_free(&b, NPAGES + 8, 0));          /* out of range */
	CHECK(!buddy_free(&b, 100, 0));                 /* reserved, never added */
	CHECK(buddy_free(&b, (uint64_t)p, 2));
	CHECK(!buddy_free(&b, (uint64_t)p, 2));         /* double free */
	CHECK(!buddy_free(&b, (uint64_t)p + 1, 0));     /* inside a free block */
	CHECK_EQ(b.free_pages, 64);
	CHECK_EQ(count_free(), 64);
}

TEST(buddy_random_stress_no_leak)
{
	static int64_t held[2048];
	static unsigned ord[2048];
	int n = 0;
	fresh(512, NPAGES - 512);
	buddy_add_range(&b, 512, NPAGES - 600);
	uint64_t start = b.free_pages;
	srand(1);
	for (int i = 0; i < 20000; i++) {
		if (n < 2048 && (rand() & 1)) {
			unsigned k = (unsigned)(rand() % 5);
			int64_t p = buddy_alloc(&b, k);
			if (p >= 0) {
				held[n] = p;
				ord[n++] = k;
			}
		} else if (n) {
			int j = rand() % n;
			CHECK(buddy_free(&b, (uint64_t)held[j], ord[j]));
			held[j] = held[--n];
			ord[j] = ord[n];
		}
	}
	while (n--)
		CHECK(buddy_free(&b, (uint64_t)held[n], ord[n]));
	CHECK_EQ(b.free_pages, start);
	CHECK_EQ(count_free(), start);
	CHECK_EQ(buddy_max_free_order(&b), 10);
}

TEST(buddy_order_limits)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 0, 1024);
	CHECK_EQ(buddy_alloc(&b, BUDDY_ORDERS), -1);
	CHECK_EQ(buddy_alloc(&b, 10), 0);
	CHECK_EQ(buddy_alloc(&b, 0), -1);
	CHECK_EQ(buddy_max_free_order(&b), -1);
}

static bool untouched(uint64_t from, uint64_t n)
{
	const unsigned char *c = (const unsigned char *)&map[from];
	for (size_t i = 0; i < n * sizeof(struct page); i++)
		if (c[i] != 0x5a)
			return false;
	return true;
}

TEST(buddy_deferred_chunks_untouched_until_needed)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 0, NPAGES);
	CHECK(untouched(0, NPAGES));
	CHECK_EQ(b.free_pages, NPAGES);
	CHECK_EQ(b.managed_pages, NPAGES);
	CHECK_EQ(buddy_max_free_order(&b), 10);
	int64_t p = buddy_alloc(&b, 0);
	CHECK_EQ(p, NPAGES - 1024);             /* the last chunk is opened first */
	CHECK(untouched(0, NPAGES - 1024));     /* and only that one */
	CHECK(!buddy_pfn_ready(&b, 0));
	CHECK(buddy_pfn_ready(&b, (uint64_t)p));
	CHECK_EQ(b.free_pages, NPAGES - 1);
	CHECK_EQ(count_free(), NPAGES - 1);
	CHECK(!buddy_free(&b, 5, 0));           /* a chunk never opened */
	CHECK(buddy_free(&b, (uint64_t)p, 0));
	CHECK_EQ(count_free(), NPAGES);
	uint64_t got = 0;
	while (buddy_alloc(&b, 0) >= 0)
		got++;
	CHECK_EQ(got, NPAGES);
	CHECK_EQ(count_free(), 0);
	for (uint64_t i = 0; i < NPAGES; i++)
		CHECK(buddy_free(&b, i, 0));
	CHECK_EQ(b.free_pages, NPAGES);
	CHECK_EQ(count_free(), NPAGES);
	CHECK_EQ(b.nfree[10], NPAGES / 1024);
}

TEST(buddy_partly_free_chunks_reserve_the_rest)
{
	fresh(0, NPAGES);
	buddy_add_range(&b, 100, 2000);         /* chunk 0 partly, chunk 1 whole, chunk 2 partly */
	CHECK_EQ(b.free_pages, 2000);
	CHECK_EQ(b.deferred_pages, 1024);
	CHECK_EQ(count_free(), 2000);
	CHECK(buddy_pfn_ready(&b, 0) && !buddy_pfn_ready(&b, 1024) && buddy_pfn_ready(&b, 2048));
	CHECK(!buddy_pfn_ready(&b, 3072));      /* no free page there: never initialised */
	CHECK(!buddy_free(&b, 50, 0));          /* reserved */
	CHECK(!buddy_free(&b, 3000, 0));        /* reserved, in a partly free chunk */
	CHECK(!buddy_free(&b, 3500, 0));        /* in a chunk with no descriptors */
	uint64_t got = 0;
	int64_t p;
	while ((p = buddy_alloc(&b, 0)) >= 0) {
		CHECK(p >= 100 && p < 2100);
		got++;
	}
	CHECK_EQ(got, 2000);
	CHECK_EQ(count_free(), 0);
}

TEST(buddy_more_ranges_than_spans)
{
	/* Every other chunk free: each is its own span, and the ones past
	 * BUDDY_SPANS are initialised at once instead. */
	uint64_t nchunks = 2 * (BUDDY_SPANS + 5), n = nchunks * 1024;
	struct page *big = malloc(n * sizeof *big);
	uint64_t *rd = calloc(buddy_ready_words(0, n), sizeof *rd);
	CHECK(big && rd);
	if (!big || !rd)
		return;
	buddy_init(&b, big, rd, 0, n);
	for (uint64_t c = 0; c < nchunks; c += 2)
		buddy_add_range(&b, c * 1024, 1024);
	CHECK_EQ(b.nspans, BUDDY_SPANS);
	CHECK_EQ(b.deferred_pages, BUDDY_SPANS * 1024ull);
	CHECK_EQ(b.nfree[10], 5);
	CHECK_EQ(b.free_pages, nchunks / 2 * 1024);
	CHECK_EQ(buddy_check(&b), 0);
	uint64_t got = 0;
	while (buddy_alloc(&b, 10) >= 0)
		got++;
	CHECK_EQ(got, nchunks / 2);
	CHECK_EQ(buddy_check(&b), 0);
	CHECK_EQ(b.free_pages, 0);
	free(big);
	free(rd);
}
