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
#include "vm/rmap.h"
#include "vm/vma.h"
#include "vm/vm.h"
#include "arch/x86_64/tlb.h"

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

/* Write-back's page_mkclean: every PTE mapping a page-cache page, in every
 * mm whose file area covers its offset, loses its write and dirty bits
 * (and goes into the TLB batch); a PTE of another page stays writable. */
TEST(rmap_mkclean_file_write_protects_every_mapping)
{
	fake_reset();
	static int cache;               /* stands for the page cache */
	struct mm *a = fake_mm_new(), *b = fake_mm_new();
	struct vma va = { .start = VA0, .end = VA0 + 8 * P, .prot = VM_READ | VM_WRITE,
			  .flags = VM_FILE | VM_FSHARED, .obj = &cache, .pgoff = 2 };
	struct vma vb = va;
	vb.start = VA0 + 0x100000;
	vb.end = vb.start + 8 * P;
	vb.pgoff = 5;
	fake_mm_areas(a, &va, 1);
	fake_mm_areas(b, &vb, 1);
	struct page *p = fake_file_page(4000, true), *q = fake_file_page(4001, true);
	p->mapping = q->mapping = &cache;
	p->index = 5;
	q->index = 6;
	uint64_t at_a = VA0 + 3 * P, at_b = vb.start, q_at_a = VA0 + 4 * P;
	struct { struct mm *mm; uint64_t va; struct page *pg; } maps[] = { { a, at_a, p }, { b, at_b, p }, { a, q_at_a, q } };
	for (int i = 0; i < 3; i++) {
		get_page(maps[i].pg);
		maps[i].pg->mapcount++;
		fake_set_pte(maps[i].mm, maps[i].va, pt_make(page_to_phys(maps[i].pg), PT_WRITE | PT_USER));
		fake_touch(maps[i].mm, maps[i].va, true);
	}
	struct tlb_batch tlb;
	tlb_batch_init(&tlb);
	CHECK_EQ(rmap_mkclean_file(p, &tlb), 2);
	CHECK_EQ(tlb.pages, 2);
	for (int i = 0; i < 2; i++) {
		uint64_t e = fake_pte(maps[i].mm, maps[i].va);
		CHECK(pt_pte_present(e) && !pt_pte_writable(e) && !pt_pte_dirty(e));
	}
	uint64_t eq = fake_pte(a, q_at_a);
	CHECK(pt_pte_writable(eq) && pt_pte_dirty(eq));
	/* Clean already: nothing more to change or flush. */
	CHECK_EQ(rmap_mkclean_file(p, &tlb), 0);
	CHECK_EQ(tlb.pages, 2);
	vm_tlb_flush(&tlb);
	fake_mm_free(a);
	fake_mm_free(b);
	p->mapping = q->mapping = NULL;
	fake_file_drop(p);
	fake_file_drop(q);
	CHECK_EQ(fake_leaks(), 0);
}
