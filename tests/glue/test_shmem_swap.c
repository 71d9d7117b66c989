/*
 * Shared anonymous memory through the real swapin.c, reclaim.c, rmap.c
 * and shmem.c: reclaim unmaps a shmem page from every mapper, leaves the
 * swap entry in the object's slot and writes the page; a fault reads it
 * back into the slot and keeps no disk copy; a failed write puts the page
 * back in its slot, data intact.
 */
#include "../unit/test.h"
#include "fake_kernel.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/reclaim.h"
#include "vm/shmem.h"
#include "vm/lru.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "swap/readahead.h"
#include "swap/swapin.h"

#define P 4096ul
#define VA0 0x400000ul
#define VA1 0x800000ul          /* where the second mm maps the object */
#define NPAGES 8

static struct mm *mm, *mm2;
static struct vma v, v2;
static struct shmem *obj;

/* An object of NPAGES mapped by two address spaces; each page faulted in
 * (written by mm, read by mm2) and given data 500 + i. */
static void setup(void)
{
	fake_reset();
	fake_swap_add_area(0, 256);
	CHECK(ra_set_policy("off"));
	obj = shmem_create(NPAGES);
	mm = fake_mm_new();
	mm2 = fake_mm_new();
	v = (struct vma){ .start = VA0, .end = VA0 + NPAGES * P, .prot = VM_READ | VM_WRITE, .flags = VM_SHARED,
			  .obj = obj };
	v2 = v;
	v2.start = VA1;
	v2.end = VA1 + NPAGES * P;
	fake_mm_areas(mm, &v, 1);
	fake_mm_areas(mm2, &v2, 1);
	shmem_get(mm, obj);
	shmem_get(mm2, obj);
	struct fault_stats st = { 0, 0, 0, 0 };
	for (uint64_t i = 0; i < NPAGES; i++) {
		CHECK_EQ(fake_fault(mm, &v, VA0 + i * P, true, &st), VM_FAULT_OK);
		*fake_page_data(phys_to_page(pt_pte_phys(fake_pte(mm, VA0 + i * P)))) = 500 + i;
		CHECK_EQ(fake_fault(mm2, &v2, VA1 + i * P, false, &st), VM_FAULT_OK);
	}
}

static void teardown(void)
{
	fake_mm_free(mm);
	fake_mm_free(mm2);
	shmem_put(mm, obj);
	shmem_put(mm2, obj);
	CHECK_EQ(fake_leaks(), 0);
}

static uint64_t data_at(struct mm *m, uint64_t va)
{
	uint64_t e = fake_pte(m, va);
	return pt_pte_present(e) ? *fake_page_data(phys_to_page(pt_pte_phys(e))) : 0;
}

TEST(shmem_pages_go_to_swap_and_come_back_without_a_disk_copy)
{
	setup();
	CHECK_EQ(data_at(mm2, VA1 + 3 * P), 503);       /* one frame for both mappers */
	fake_pmm_set_free(0);
	reclaim_knobs.batch = NPAGES;
	CHECK_EQ(reclaim_pages(NPAGES), NPAGES);
	for (uint64_t i = 0; i < NPAGES; i++) {
		CHECK_EQ(fake_pte(mm, VA0 + i * P), 0);         /* unmapped everywhere */
		CHECK_EQ(fake_pte(mm2, VA1 + i * P), 0);
		uint64_t e = shmem_slot_peek(obj, i);
		CHECK(swp_is_entry(e));
		CHECK_EQ(swap_count(e), 1);                     /* the object's */
		CHECK_EQ(fake_swap_data(e), 500 + i);
	}
	CHECK_EQ(fake.write_reqs, 1);
	CHECK_EQ(fake_pmm_used(), 0);
	uint64_t e3 = shmem_slot_peek(obj, 3);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fake_fault(mm2, &v2, VA1 + 3 * P, false, &st), VM_FAULT_OK);
	CHECK_EQ(data_at(mm2, VA1 + 3 * P), 503);
	CHECK_EQ(st.majflt, 1);
	CHECK_EQ(shmem_slot_peek(obj, 3), 0);           /* a page again */
	CHECK_EQ(swap_count(e3), 0);                    /* shmem keeps no disk copy */
	CHECK_EQ(swapcache_size(), 0);
	CHECK_EQ(fake_fault(mm, &v, VA0 + 3 * P, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 1);                    /* the other mapper finds it in the object */
	CHECK_EQ(fake_pte(mm, VA0 + 3 * P) & ~0xfffull, fake_pte(mm2, VA1 + 3 * P) & ~0xfffull);
	teardown();
}

TEST(shmem_write_error_puts_the_page_back_in_its_slot)
{
	setup();
	fake_pmm_set_free(0);
	reclaim_knobs.batch = 2;
	fake_swap_bad(swp_entry(0, 1), false, true);    /* pages 0 and 1 get slots 1 and 2 */
	CHECK(reclaim_pages(2) >= 2);
	CHECK_EQ(fake.vmstat[SWAP_WRITE_ERRORS], 2);
	for (uint64_t i = 0; i < 2; i++) {
		CHECK_EQ(shmem_slot_peek(obj, i), 0);   /* a page, not an entry */
		CHECK(fake_swap_retired(swp_entry(0, 1 + i)));
		struct fault_stats st = { 0, 0, 0, 0 };
		CHECK_EQ(fake_fault(mm, &v, VA0 + i * P, false, &st), VM_FAULT_OK);
		CHECK_EQ(data_at(mm, VA0 + i * P), 500 + i);
		CHECK_EQ(st.majflt, 0);
	}
	teardown();
}

/* A page that outlives its object: another reference (a CPU's LRU add
 * batch, say) held it when the object was destroyed, which cleared its
 * mapping and took it off the lists.  Reclaim never meets it; and one
 * that reached a list anyway is let go as garbage, counted, rather than
 * evicted through the NULL mapping into the object (kswapd took a #PF at
 * address 0 in shmem_slot_to_swap in test_same_pages_smp2). */
TEST(shmem_page_that_outlives_its_object_is_garbage_to_reclaim)
{
	setup();
	struct page *p = (struct page *)shmem_slot_get(obj, 2);        /* the other reference */
	CHECK(p && !swp_is_entry((uint64_t)p));
	CHECK(page_test(p, PG_LRU));
	fake_mm_free(mm);
	fake_mm_free(mm2);
	shmem_put(mm, obj);
	shmem_put(mm2, obj);                    /* destroyed: p's mapping is NULL now */
	CHECK(p->mapping == NULL);
	CHECK(!page_test(p, PG_LRU));           /* and it is on no list */
	/* Put on a list anyway (as the add batch's drain did): reclaim lets
	 * it go. */
	lru_add(p, LRU_SHMEM, false);
	fake_pmm_set_free(0);
	reclaim_knobs.batch = NPAGES;
	reclaim_pages(1);
	CHECK_EQ(fake.write_reqs, 0);           /* nothing to write for it */
	CHECK_EQ(fake.vmstat[SHMEM_ORPHANS], 1);
	CHECK(!page_test(p, PG_LRU));
	put_page(p);
	CHECK_EQ(fake_leaks(), 0);
}

/* swapoff of the area: every slot of the object comes back into it, with
 * its data and no disk copy. */
TEST(shmem_unuse_brings_every_slot_back)
{
	setup();
	fake_pmm_set_free(0);
	reclaim_knobs.batch = NPAGES;
	CHECK_EQ(reclaim_pages(NPAGES), NPAGES);
	fake_pmm_set_free(NPAGES);
	CHECK_EQ(swapin_unuse_shmem(0), NPAGES);
	for (uint64_t i = 0; i < NPAGES; i++) {
		CHECK_EQ(shmem_slot_peek(obj, i), 0);
		uint64_t val = shmem_slot_get(obj, i);
		CHECK(val && !swp_is_entry(val));
		if (!val || swp_is_entry(val))
			continue;
		struct page *p = (struct page *)val;
		CHECK_EQ(*fake_page_data(p), 500 + i);
		CHECK(!page_test(p, PG_SWAPCACHE));
		put_page(p);
	}
	CHECK_EQ(fake_swap_used(), 0);
	teardown();
}
