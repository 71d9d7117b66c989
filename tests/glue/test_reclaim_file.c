/*
 * The file side of the real reclaim.c: page-cache pages on the file LRU
 * lists (the page cache itself faked in fake_mm.c), scanned against
 * anonymous pages as swappiness says (lru_scan_balance), clean ones
 * dropped, dirty ones written first and dropped at a later pass, and the
 * used_once_swapbacked knob deciding a shmem-like first reference.
 * Every test ends with no frame, slot or heap block left.
 */
#include "../unit/test.h"
#include "fake_kernel.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/lru.h"
#include "vm/reclaim.h"
#include "swap/swap.h"

#define P 4096ul
#define VA0 0x400000ul

static struct mm *mm;
static struct page *anon[64], *file[64];

/* n anonymous pages mapped at VA0.. and n file pages, all inactive; no
 * frame free; swap of 256 slots (or none). */
static void setup(int n, bool swap, unsigned swappiness)
{
	fake_reset();
	if (swap)
		fake_swap_add_area(0, 256);
	mm = fake_mm_new();
	for (int i = 0; i < n; i++) {
		anon[i] = fake_map_anon(mm, VA0 + (uint64_t)i * P, 1000 + (uint64_t)i);
		file[i] = fake_file_page(2000 + (uint64_t)i, false);
	}
	fake_pmm_set_free(0);
	reclaim_knobs.batch = 16;
	reclaim_knobs.swappiness = swappiness;
}

static void teardown(int n)
{
	fake_mm_free(mm);
	for (int i = 0; i < n; i++)
		if (fake_is_frame(file[i]) && page_test(file[i], PG_FILE))
			fake_file_drop(file[i]);
	CHECK_EQ(fake_leaks(), 0);
}

static int anon_present(int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += pt_pte_present(fake_pte(mm, VA0 + (uint64_t)i * P));
	return k;
}

TEST(reclaim_file_swappiness_0_takes_only_file_pages)
{
	setup(32, true, 0);
	CHECK(reclaim_pages(16) >= 16);
	CHECK(fake.file_dropped >= 16);
	CHECK_EQ(anon_present(32), 32);
	CHECK_EQ(fake.vmstat[PSWPOUT], 0);
	CHECK_EQ(fake.vmstat[PGSTEAL_FILE], (uint64_t)fake.file_dropped);
	CHECK(fake.vmstat[PGSCAN_FILE] >= fake.vmstat[PGSTEAL_FILE]);
	teardown(32);
}

TEST(reclaim_file_swappiness_200_takes_only_anon_pages)
{
	setup(32, true, 200);
	CHECK(reclaim_pages(16) >= 16);
	CHECK_EQ(fake.file_dropped, 0);
	CHECK_EQ(fake.vmstat[PGSCAN_FILE], 0);
	CHECK(fake.vmstat[PSWPOUT] >= 16);
	fake_io_complete_all();
	teardown(32);
}

TEST(reclaim_file_swappiness_100_takes_from_both)
{
	setup(32, true, 100);
	CHECK(reclaim_pages(32) >= 32);
	CHECK(fake.file_dropped > 0);
	CHECK(fake.vmstat[PSWPOUT] > 0);
	fake_io_complete_all();
	teardown(32);
}

TEST(reclaim_file_without_swap_takes_file_pages_whatever_swappiness)
{
	setup(16, false, 200);
	CHECK(reclaim_pages(8) >= 8);
	CHECK(fake.file_dropped >= 8);
	CHECK_EQ(anon_present(16), 16);
	teardown(16);
}

TEST(reclaim_file_dirty_pages_are_written_then_dropped)
{
	fake_reset();
	mm = fake_mm_new();
	for (int i = 0; i < 8; i++)
		file[i] = fake_file_page(3000 + (uint64_t)i, true);
	fake_pmm_set_free(0);
	reclaim_knobs.batch = 8;
	/* The first pass starts the writes and keeps the pages; a later one
	 * (the same reclaim_pages call keeps going) drops them. */
	CHECK_EQ(reclaim_pages(8), 8);
	CHECK_EQ(fake.file_writebacks, 8);
	CHECK_EQ(fake.file_dropped, 8);
	teardown(8);
}
