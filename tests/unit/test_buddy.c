#include <stdlib.h>
#include "test.h"
#include "mem/buddy.h"

#define NPAGES 4096
static struct page map[NPAGES];
static struct buddy b;

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
	return n;
}

TEST(buddy_add_and_alloc_all)
{
	buddy_init(&b, map, 0, NPAGES);
	buddy_add_range(&b, 0, NPAGES);
	CHECK_EQ(b.free_pages, NPAGES);
	CHECK_EQ(count_free(), NPAGES);
	CHECK_EQ(b.nfree[10], NPAGES / 1024);
	int64_t got = 0;
	while (buddy_alloc(&b, 0) >= 0)
		got++;
	CHECK_EQ(got, NPAGES);
	CHECK_EQ(b.free_pages, 0);
	CHECK_EQ(buddy_alloc(&b, 0), -1);
}

TEST(buddy_split_and_coalesce)
{
	buddy_init(&b, map, 0, NPAGES);
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
	buddy_init(&b, map, 0, NPAGES);
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
	buddy_init(&b, map, 0, NPAGES);
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
	buddy_init(&b, map, 512, NPAGES - 512);
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
	buddy_init(&b, map, 0, NPAGES);
	buddy_add_range(&b, 0, 1024);
	CHECK_EQ(buddy_alloc(&b, BUDDY_ORDERS), -1);
	CHECK_EQ(buddy_alloc(&b, 10), 0);
	CHECK_EQ(buddy_alloc(&b, 0), -1);
	CHECK_EQ(buddy_max_free_order(&b), -1);
}
