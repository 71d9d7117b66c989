/*
 * The real kernel/vm/page_ref.c's nr_mapped (Linux's NR_FILE_MAPPED):
 * page-cache and shmem pages count once while any PTE maps them, anon
 * pages never, and the count comes back to where it was.
 */
#include "../unit/test.h"
#include "mem/page.h"
#include "vm/page_ref.h"

TEST(nr_mapped_counts_file_and_shmem_pages_once)
{
	static struct page file, shmem, anon;
	file.flags = PG_FILE;
	shmem.flags = PG_SHMEM;
	anon.flags = PG_ANON;
	uint64_t base = page_nr_mapped();
	page_map_add(&file);
	CHECK_EQ(page_nr_mapped(), base + 1);
	page_map_add(&file);                    /* a second PTE: still one page */
	CHECK_EQ(page_nr_mapped(), base + 1);
	page_map_add(&shmem);
	page_map_add(&anon);
	CHECK_EQ(page_nr_mapped(), base + 2);
	CHECK_EQ(file.mapcount, 2);
	page_map_sub(&file);
	CHECK_EQ(page_nr_mapped(), base + 2);   /* one PTE left */
	page_map_sub(&file);
	page_map_sub(&anon);
	CHECK_EQ(page_nr_mapped(), base + 1);
	page_map_sub(&shmem);
	CHECK_EQ(page_nr_mapped(), base);
	CHECK_EQ(file.mapcount, 0);
	CHECK_EQ(shmem.mapcount, 0);
}
