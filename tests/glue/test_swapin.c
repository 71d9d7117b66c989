/*
 * The real kernel/swap/swapin.c (with the real swap cache, readahead and
 * reclaim behind it) against the fakes: a fault on a swap PTE reads the
 * right slot and maps its data; the disk copy is kept or dropped as the
 * fault asks; a second fault finds the swap cache; readahead pages are
 * cached and counted; read errors reach the fault that owns the data and
 * nobody else; no memory ends in VM_FAULT_OOM with nothing leaked.
 * Every test ends with no frame, slot, cache entry or heap block left.
 */
#include "../unit/test.h"
#include "fake_kernel.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/reclaim.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "swap/swapin.h"
#include "swap/readahead.h"

#define P 4096ul
#define VA0 0x400000ul

static struct mm *mm;
static struct vma v;

static void setup(uint64_t slots, const char *policy)
{
	fake_reset();
	fake_swap_add_area(0, slots);
	CHECK(ra_set_policy(policy));
	mm = fake_mm_new();
	v = (struct vma){ .start = VA0, .end = VA0 + 256 * P, .prot = VM_READ | VM_WRITE };
}

static void teardown(void)
{
	fake_mm_free(mm);
	CHECK_EQ(fake_leaks(), 0);
}

static uint64_t E(uint64_t off) { return swp_entry(0, off); }

/* Page i of the area swapped out to slot off, holding data. */
static void swapped(uint64_t i, uint64_t off, uint64_t data)
{
	fake_swap_store(E(off), data);
	fake_set_pte(mm, VA0 + i * P, pt_swap_pte(E(off)));
}

static struct page *mapped(struct mm *m, uint64_t i)
{
	uint64_t e = fake_pte(m, VA0 + i * P);
	return pt_pte_present(e) ? phys_to_page(pt_pte_phys(e)) : NULL;
}

static enum vm_fault_result fault(uint64_t i, bool write, struct fault_stats *st)
{
	return fake_fault(mm, &v, VA0 + i * P, write, st);
}

static void check_req(long n, unsigned area, uint64_t off, uint32_t pages)
{
	unsigned a = 99;
	uint64_t o = 0;
	uint32_t np = 0;
	CHECK(fake_io_req(n, false, &a, &o, &np));
	CHECK_EQ(a, area);
	CHECK_EQ(o, off);
	CHECK_EQ(np, pages);
}

TEST(swapin_reads_the_slot_and_maps_it_read_only)
{
	setup(64, "off");
	swapped(0, 5, 0xdada);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_OK);
	struct page *p = mapped(mm, 0);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ(*fake_page_data(p), 0xdada);
	CHECK_EQ(fake.read_reqs, 1);
	check_req(0, 0, 5, 1);
	/* A read fault keeps the disk copy: read-only, in the cache, which
	 * now holds the slot's only count (the PTE's went). */
	CHECK(!fake_pte_writable(fake_pte(mm, VA0)));
	CHECK(page_test(p, PG_SWAPCACHE));
	CHECK_EQ(p->private, E(5));
	CHECK_EQ(swap_count(E(5)), 1);
	CHECK_EQ(p->refcount, 2);               /* the PTE's and the cache's */
	CHECK_EQ(p->mapcount, 1);
	CHECK(p->mapping == mm);
	CHECK_EQ(p->index, VA0);
	CHECK(page_test(p, PG_LRU | PG_ANON) && !page_test(p, PG_LOCKED | PG_ERROR | PG_READAHEAD));
	CHECK_EQ(st.majflt, 1);
	CHECK_EQ(st.swapflt, 1);
	CHECK_EQ(fake.vmstat[PGMAJFAULT], 1);
	CHECK_EQ(fake.vmstat[PSWPIN], 1);
	CHECK_EQ(fake.vmstat[SWAP_RA], 0);
	CHECK_EQ(fake.io_waits_open, 0);
	teardown();
}

TEST(swapin_write_fault_drops_the_disk_copy)
{
	setup(64, "off");
	swapped(0, 5, 77);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, true, &st), VM_FAULT_OK);
	struct page *p = mapped(mm, 0);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ(*fake_page_data(p), 77);
	CHECK(fake_pte_writable(fake_pte(mm, VA0)));
	CHECK(!page_test(p, PG_SWAPCACHE));
	CHECK(page_test(p, PG_DIRTY));          /* its only copy now: reclaim must write it */
	CHECK_EQ(swap_count(E(5)), 0);
	CHECK_EQ(p->refcount, 1);
	CHECK_EQ(swapcache_size(), 0);
	teardown();
}

/* Two address spaces share a slot (as after fork): the first fault reads
 * it, the second finds the page in the swap cache and maps the same frame. */
TEST(swapin_second_fault_on_a_slot_hits_the_cache)
{
	setup(64, "off");
	struct mm *mm2 = fake_mm_new();
	swapped(0, 5, 1234);
	swap_dup(E(5));
	fake_set_pte(mm2, VA0, pt_swap_pte(E(5)));
	struct fault_stats st = { 0, 0, 0, 0 }, st2 = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake_fault(mm2, &v, VA0, false, &st2), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 1);
	CHECK_EQ(fake_swap_reads(E(5)), 1);
	CHECK(mapped(mm, 0) != NULL && mapped(mm, 0) == mapped(mm2, 0));
	CHECK_EQ(st.majflt, 1);
	CHECK_EQ(st2.majflt, 0);
	CHECK_EQ(st2.swapflt, 1);
	CHECK_EQ(fake.vmstat[PGMAJFAULT], 1);
	CHECK_EQ(swap_count(E(5)), 1);          /* both PTE counts gone, the cache's left */
	if (mapped(mm2, 0))
		CHECK_EQ(mapped(mm2, 0)->mapcount, 2);
	fake_mm_free(mm2);
	teardown();
}

/* fixed:3 reads the aligned block of 8 slots in one request; the other 7
 * pages wait in the swap cache marked as readahead; using one is a hit
 * and costs no read. */
TEST(swapin_readahead_pages_are_cached_and_counted_when_used)
{
	setup(64, "fixed:3");
	for (uint64_t i = 0; i < 8; i++)
		swapped(i, 8 + i, 100 + i);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(2, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 1);
	check_req(0, 0, 8, 8);
	CHECK_EQ(fake.vmstat[SWAP_RA], 7);
	CHECK_EQ(mm->ra_issued, 7);
	CHECK_EQ(swapcache_size(), 8);
	CHECK(mapped(mm, 2) && !page_test(mapped(mm, 2), PG_READAHEAD));
	for (uint64_t i = 0; i < 8; i++) {
		struct page *p = swapcache_lookup(E(8 + i), false);
		CHECK(p != NULL);
		if (!p)
			continue;
		CHECK_EQ(*fake_page_data(p), 100 + i);
		CHECK_EQ(page_test(p, PG_READAHEAD), i != 2);
		put_page(p);
	}
	CHECK_EQ(fault(3, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 1);            /* no second read */
	CHECK_EQ(st.majflt, 1);
	CHECK_EQ(st.swapflt, 2);
	CHECK_EQ(fake.vmstat[SWAP_RA_HIT], 1);
	CHECK_EQ(mm->ra_hits, 1);
	CHECK(mapped(mm, 3) && *fake_page_data(mapped(mm, 3)) == 103);
	CHECK(mapped(mm, 3) && !page_test(mapped(mm, 3), PG_READAHEAD));
	teardown();
}

/* A failed read: the slot is retired, the fault gets SIGBUS, the PTE keeps
 * naming the slot (its owner's teardown frees it), the frame is freed, and
 * the console names the device and slot. */
TEST(swapin_read_error_fails_the_fault)
{
	setup(64, "off");
	swapped(0, 5, 1);
	fake_swap_bad(E(5), true, false);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_SIGBUS);
	CHECK_EQ(fake.vmstat[SWAP_READ_ERRORS], 1);
	CHECK(fake_swap_retired(E(5)));
	CHECK_EQ(fake_pte(mm, VA0), pt_swap_pte(E(5)));
	CHECK_EQ(swap_count(E(5)), 1);
	CHECK_EQ(swapcache_size(), 0);
	CHECK_EQ(fake_pmm_used(), 0);
	CHECK_CONTAINS(fake.last_msg, "fakeswap0");
	CHECK_CONTAINS(fake.last_msg, "slot 5");
	teardown();
}

/* A bad slot inside a readahead window: the window's request fails, each
 * page is read again alone; the faulting page arrives, the bad readahead
 * page is only dropped (nobody asked for it: no error counted, slot kept),
 * and a later fault on it reads it alone and gets the error. */
TEST(swapin_readahead_error_spares_the_fault_and_reaches_the_owner)
{
	setup(64, "fixed:3");
	for (uint64_t i = 0; i < 8; i++)
		swapped(i, 8 + i, 100 + i);
	fake_swap_bad(E(11), true, false);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_OK);
	CHECK(mapped(mm, 0) && *fake_page_data(mapped(mm, 0)) == 100);
	CHECK_EQ(fake.read_reqs, 9);            /* the window, then each slot alone */
	fake_io_complete_all();                 /* the fault waited for its own page only */
	CHECK_EQ(fake_swap_reads(E(11)), 2);
	CHECK_EQ(fake.vmstat[SWAP_READ_ERRORS], 0);
	CHECK(!fake_swap_retired(E(11)));
	struct page *bad = swapcache_lookup(E(11), false);
	CHECK(bad == NULL);
	if (bad)
		put_page(bad);
	CHECK_EQ(swapcache_size(), 7);
	CHECK_EQ(fault(3, false, &st), VM_FAULT_SIGBUS);
	CHECK_EQ(fake_swap_reads(E(11)), 3);
	check_req(9, 0, 11, 1);
	CHECK_EQ(fake.vmstat[SWAP_READ_ERRORS], 1);
	CHECK(fake_swap_retired(E(11)));
	CHECK_EQ(fault(4, false, &st), VM_FAULT_OK);    /* the rest are fine */
	CHECK(mapped(mm, 4) && *fake_page_data(mapped(mm, 4)) == 104);
	teardown();
}

TEST(swapin_submit_failure_fails_the_fault)
{
	setup(64, "off");
	swapped(0, 5, 1);
	fake.fail_submit = 1;
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_SIGBUS);
	CHECK_CONTAINS(fake.last_msg, "fakeswap0");
	CHECK_EQ(fake.read_reqs, 0);
	CHECK_EQ(swapcache_size(), 0);
	teardown();
}

static int kills;
static bool no_reserve(void) { return false; }
static bool kill_nobody(void) { kills++; return false; }

/* No frame and nothing to reclaim: the OOM policy is asked, the fault
 * ends in VM_FAULT_OOM, the slot keeps its data and nothing is cached. */
TEST(swapin_without_memory_returns_oom)
{
	setup(64, "fixed:3");
	swapped(0, 8, 1);
	swapped(1, 9, 2);
	fake_pmm_set_free(0);
	kills = 0;
	reclaim_set_oom_policy(&(struct reclaim_oom_policy){ no_reserve, kill_nobody });
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_OOM);
	CHECK(kills >= 1);      /* the fault's allocation asked (readahead pages still allocate
				 * through the same path, so they may ask too) */
	CHECK_EQ(fake.read_reqs, 0);
	CHECK_EQ(swapcache_size(), 0);
	CHECK_EQ(swap_count(E(8)), 1);
	CHECK_EQ(fake_pte(mm, VA0), pt_swap_pte(E(8)));
	teardown();
}

/* MADV_WILLNEED starts the reads and does not wait; a fault on a page
 * still in flight waits for that read instead of issuing another. */
TEST(swapin_willneed_reads_ahead_and_faults_wait_for_it)
{
	setup(64, "fixed:3");
	for (uint64_t i = 0; i < 8; i++)
		swapped(i, 8 + i, 100 + i);
	swapin_willneed(mm, VA0, VA0 + 8 * P);
	CHECK_EQ(fake_io_in_flight(), 1);
	CHECK_EQ(fake.read_reqs, 1);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(5, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 1);
	for (uint64_t i = 0; i < 8; i++)
		CHECK_EQ(fake_swap_reads(E(8 + i)), 1);
	CHECK(mapped(mm, 5) && *fake_page_data(mapped(mm, 5)) == 105);
	CHECK_EQ(st.majflt, 0);
	teardown();
}

/* Swap more than half full (Linux's vm_swap_full): a read fault on a slot
 * nobody else uses keeps no disk copy either; the slot is worth more
 * free.  8 usable slots, 5 in use. */
TEST(swapin_drops_the_copy_when_swap_is_more_than_half_full)
{
	setup(9, "off");
	for (uint64_t i = 0; i < 5; i++)
		swapped(i, 1 + i, 10 + i);
	CHECK(reclaim_swap_full());
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(0, false, &st), VM_FAULT_OK);
	struct page *p = mapped(mm, 0);
	CHECK(p && !page_test(p, PG_SWAPCACHE) && page_test(p, PG_DIRTY));
	CHECK(fake_pte_writable(fake_pte(mm, VA0)));
	CHECK_EQ(swap_count(E(1)), 0);
	CHECK(!reclaim_swap_full());            /* 4 of 8 */
	CHECK_EQ(fault(1, false, &st), VM_FAULT_OK);
	CHECK(!fake_pte_writable(fake_pte(mm, VA0 + P)));
	CHECK_EQ(swap_count(E(2)), 1);
	teardown();
}

/* swapoff of one area: every page of the mm swapped there comes back,
 * without a disk copy; pages on the other area stay where they are. */
TEST(swapin_unuse_mm_brings_back_one_area)
{
	setup(64, "fixed:3");
	fake_swap_add_area(1, 64);
	fake_mm_areas(mm, &v, 1);
	for (uint64_t i = 0; i < 4; i++) {
		fake_swap_store(swp_entry(1, 20 + 3 * i), 200 + i);
		fake_set_pte(mm, VA0 + i * P, pt_swap_pte(swp_entry(1, 20 + 3 * i)));
		swapped(4 + i, 30 + i, 300 + i);
	}
	CHECK_EQ(swapin_unuse_mm(mm, 1), 4);
	fake_io_complete_all();
	for (uint64_t i = 0; i < 4; i++) {
		struct page *p = mapped(mm, i);
		CHECK(p && *fake_page_data(p) == 200 + i);
		CHECK(p && !page_test(p, PG_SWAPCACHE) && page_test(p, PG_DIRTY));
		CHECK_EQ(swap_count(swp_entry(1, 20 + 3 * i)), 0);
		CHECK(pt_pte_is_swap(fake_pte(mm, VA0 + (4 + i) * P)));
		CHECK_EQ(swap_count(E(30 + i)), 1);
	}
	mm->vmas.n = 0;
	teardown();
}

/* A device whose read split is 8 pages (blk_read_pages): fixed:4's
 * 16-page block goes out as two reads of 8, in slot order. */
TEST(swapin_cuts_reads_at_the_read_split)
{
	setup(64, "fixed:4");
	fake.read_max = 8;
	for (uint64_t i = 0; i < 16; i++)
		swapped(i, 16 + i, 100 + i);
	struct fault_stats st = { 0, 0, 0, 0 };
	CHECK_EQ(fault(5, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 2);
	check_req(0, 0, 16, 8);
	check_req(1, 0, 24, 8);
	for (uint64_t i = 0; i < 16; i++)
		CHECK_EQ(fault(i, false, &st), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 2);
	for (uint64_t i = 0; i < 16; i++)
		CHECK(mapped(mm, i) && *fake_page_data(mapped(mm, i)) == 100 + i);
	teardown();
}

/* A backward stream's windows are cut at the read split and go out
 * from the top: the run the stream meets first is read first. */
TEST(swapin_submits_a_backward_window_from_the_top)
{
	const uint64_t NB = 200;
	setup(300, "own");
	fake.read_max = 8;
	for (uint64_t i = 0; i < NB; i++)
		swapped(i, 8 + i, 1000 + i);
	struct fault_stats st = { 0, 0, 0, 0 };
	int multi = 0;
	for (uint64_t i = NB; i-- > 0;) {
		long before = fake.read_reqs;
		CHECK_EQ(fault(i, false, &st), VM_FAULT_OK);
		CHECK(mapped(mm, i) && *fake_page_data(mapped(mm, i)) == 1000 + i);
		if (fake.read_reqs - before < 2)
			continue;
		multi++;
		for (long k = before + 1; k < fake.read_reqs; k++) {
			unsigned a0, a1;
			uint64_t o0, o1;
			uint32_t n0, n1;
			CHECK(fake_io_req(k - 1, false, &a0, &o0, &n0) && fake_io_req(k, false, &a1, &o1, &n1));
			CHECK_EQ(o1 + n1, o0);          /* the next run down, adjacent */
			CHECK(n1 <= 8 && n0 <= 8);
		}
	}
	CHECK(multi > 0);
	CHECK(st.majflt < 32);
	teardown();
}
