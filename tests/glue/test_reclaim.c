/*
 * The real kernel/vm/reclaim.c (with the real LRU lists, aging policy,
 * reverse map and swap cache) against the fakes: what a shrink takes and
 * what it leaves, dirty pages written before their frames go, clean
 * swap-cache pages dropped without a write, a failed write keeping the
 * page mapped, the watermarks deciding between nothing, waking kswapd and
 * reclaiming directly, and the OOM policy asked only when nothing can be
 * reclaimed.  Every test ends with no frame, slot, cache entry or heap
 * block left.
 */
#include <setjmp.h>
#include "../unit/test.h"
#include "fake_kernel.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/lru.h"
#include "vm/reclaim.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "swap/readahead.h"
#include "swap/swapin.h"

#define P 4096ul
#define VA0 0x400000ul

static struct mm *mm;
static struct vma v;
static struct page *pg[256];

/* n pages mapped at VA0.., holding 1000 + i, on the inactive list (page
 * 0 at its tail); then `free` frames free; swap of `slots` slots (0: none). */
static void setup(int n, uint64_t free, uint64_t slots, unsigned batch)
{
	fake_reset();
	if (slots)
		fake_swap_add_area(0, slots);
	mm = fake_mm_new();
	v = (struct vma){ .start = VA0, .end = VA0 + 256 * P, .prot = VM_READ | VM_WRITE };
	for (int i = 0; i < n; i++)
		pg[i] = fake_map_anon(mm, VA0 + (uint64_t)i * P, 1000 + (uint64_t)i);
	fake_pmm_set_free(free);
	reclaim_knobs.batch = batch;
}

static void teardown(void)
{
	fake_mm_free(mm);
	CHECK_EQ(fake_leaks(), 0);
}

static bool present(int i) { return pt_pte_present(fake_pte(mm, VA0 + (uint64_t)i * P)); }

/* The entry page i's PTE names, or 0. */
static uint64_t swapped_to(int i)
{
	uint64_t e = fake_pte(mm, VA0 + (uint64_t)i * P);
	return pt_pte_is_swap(e) ? pt_pte_swap_entry(e) : 0;
}

static enum vm_fault_result fault(int i, bool write)
{
	struct fault_stats st = { 0, 0, 0, 0 };
	return fake_fault(mm, &v, VA0 + (uint64_t)i * P, write, &st);
}

TEST(reclaim_takes_inactive_pages_before_active_ones)
{
	setup(16, 0, 256, 8);
	for (int i = 8; i < 16; i++) {
		lru_del(pg[i]);
		lru_add(pg[i], LRU_ANON, true);
	}
	CHECK(reclaim_pages(8) >= 8);
	for (int i = 0; i < 8; i++)
		CHECK(swapped_to(i) != 0);
	for (int i = 8; i < 16; i++)
		CHECK(present(i));
	CHECK_EQ(lru_size(LRU_ANON, true), 8);
	CHECK_EQ(fake.vmstat[PSWPOUT], 8);
	CHECK_EQ(fake.vmstat[PGSTEAL_KSWAPD], 8);
	CHECK_EQ(fake.vmstat[PGSTEAL_DIRECT], 0);
	teardown();
}

/* A PTE taken away may still sit in another CPU's TLB: reclaim flushes
 * its batch (one IPI round) before any page of it is written out. */
TEST(reclaim_flushes_tlbs_before_writing)
{
	setup(16, 0, 256, 8);
	CHECK(reclaim_pages(8) >= 8);
	CHECK(fake.vmstat[PSWPOUT] == 8);
	CHECK(fake.tlb_flushes >= 1);
	CHECK_EQ(fake.tlb_writes_unflushed, 0);
	CHECK_EQ(fake.tlb_unflushed, 0);
	teardown();
}

/* Swap-backed pages touched since the last scan (accessed bit) are
 * promoted at once; the untouched ones go. */
TEST(reclaim_activates_referenced_inactive_pages)
{
	setup(8, 0, 256, 4);                    /* a batch of 4: pages 0..3 (the tail) first */
	for (int i = 0; i < 4; i++)
		fake_touch(mm, VA0 + (uint64_t)i * P, false);
	CHECK(reclaim_pages(4) >= 4);
	for (int i = 0; i < 4; i++) {
		CHECK(present(i));
		CHECK(page_test(pg[i], PG_ACTIVE) && page_test(pg[i], PG_LRU));
	}
	for (int i = 4; i < 8; i++)
		CHECK(swapped_to(i) != 0);
	CHECK_EQ(fake.vmstat[PGACTIVATE], 4);
	teardown();
}

/* Nothing inactive: the active list is aged from its tail; its touched
 * pages rotate (stay active, mapped), the others are deactivated and then
 * reclaimed.  Pages 0..3 were added in order: 0 is the tail. */
TEST(reclaim_ages_the_active_list_rotating_referenced_pages)
{
	setup(4, 0, 256, 2);
	for (int i = 0; i < 4; i++) {
		lru_del(pg[i]);
		lru_add(pg[i], LRU_ANON, true);
	}
	fake_touch(mm, VA0, false);
	fake_touch(mm, VA0 + P, false);
	CHECK_EQ(reclaim_pages(2), 2);
	CHECK(present(0) && page_test(pg[0], PG_ACTIVE));
	CHECK(present(1) && page_test(pg[1], PG_ACTIVE));
	CHECK(swapped_to(2) != 0 && swapped_to(3) != 0);
	CHECK_EQ(fake.vmstat[PGROTATED], 2);
	CHECK_EQ(fake.vmstat[PGDEACTIVATE], 2);
	teardown();
}

/* Dirty anonymous pages: slots from one run, one write for the batch,
 * the data on disk before the frames are freed (a frame freed before its
 * write completes would put the fake's poison on disk), the PTEs naming
 * the slots; brought back, they hold their data. */
TEST(reclaim_writes_dirty_pages_before_freeing_them)
{
	setup(8, 0, 256, 8);
	CHECK_EQ(reclaim_pages(8), 8);
	CHECK_EQ(fake.write_reqs, 1);
	CHECK_EQ(fake.write_pages, 8);
	CHECK_EQ(fake_pmm_used(), 0);
	CHECK_EQ(swapcache_size(), 0);
	for (int i = 0; i < 8; i++) {
		uint64_t e = swapped_to(i);
		CHECK(e != 0);
		CHECK_EQ(fake_swap_data(e), 1000 + (uint64_t)i);
		CHECK_EQ(swap_count(e), 1);     /* the PTE's */
	}
	CHECK_EQ(fake.vmstat[PSWPOUT], 8);
	CHECK_EQ(fake.vmstat[PGPGOUT], 32);
	CHECK_EQ(fake.io_waits_open, 0);
	CHECK(ra_set_policy("off"));
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(fault(i, i & 1), VM_FAULT_OK);
		uint64_t e = fake_pte(mm, VA0 + (uint64_t)i * P);
		CHECK(pt_pte_present(e) && *fake_page_data(phys_to_page(pt_pte_phys(e))) == 1000 + (uint64_t)i);
	}
	teardown();
}

/* A page read back by a read fault keeps its disk copy: reclaimed again
 * untouched, it is freed without a second write. */
TEST(reclaim_drops_clean_swap_cache_pages_without_writing)
{
	setup(1, 0, 256, 8);
	CHECK_EQ(reclaim_pages(1), 1);
	uint64_t e = swapped_to(0);
	CHECK(ra_set_policy("off"));
	CHECK_EQ(fault(0, false), VM_FAULT_OK);
	CHECK(present(0));
	CHECK_EQ(fake_pmm_used(), 1);
	fake_pmm_set_free(0);
	CHECK_EQ(reclaim_pages(1), 1);
	CHECK_EQ(swapped_to(0), e);
	CHECK_EQ(fake_swap_writes(e), 1);
	CHECK_EQ(fake.write_reqs, 1);
	CHECK_EQ(fake_pmm_used(), 0);
	teardown();
}

/* A swap-cache page someone holds (a fault waiting for it) is never
 * dropped: the fault would read it again, and at swap full that loop was
 * a livelock.  Once let go, it is. */
TEST(reclaim_leaves_swap_cache_pages_someone_holds)
{
	setup(1, 0, 256, 8);
	CHECK_EQ(reclaim_pages(1), 1);
	uint64_t e = swapped_to(0);
	CHECK(ra_set_policy("off"));
	swapin_willneed(mm, VA0, VA0 + P);
	fake_io_complete_all();
	struct page *held = swapcache_lookup(e, false);
	CHECK(held != NULL);
	if (!held)
		return;
	fake_pmm_set_free(0);
	CHECK_EQ(reclaim_pages(1), 0);
	CHECK(page_test(held, PG_SWAPCACHE) && held->private == e);
	put_page(held);
	CHECK_EQ(reclaim_pages(1), 1);
	CHECK_EQ(swapcache_size(), 0);
	CHECK_EQ(fake_swap_writes(e), 1);
	teardown();
}

/* Pages read ahead and never used are dropped (no write) and counted as
 * readahead waste.  Slots 1..8 hold pages 0..7; fixed:3 around slot 1
 * reads the block's slots 1..7. */
TEST(reclaim_drops_unused_readahead_as_waste)
{
	setup(8, 0, 256, 8);
	CHECK_EQ(reclaim_pages(8), 8);
	CHECK(ra_set_policy("fixed:3"));
	CHECK_EQ(fault(0, false), VM_FAULT_OK);
	CHECK_EQ(fake.vmstat[SWAP_RA], 6);
	CHECK_EQ(fake_pmm_used(), 7);
	fake_pmm_set_free(0);
	CHECK_EQ(reclaim_pages(7), 7);
	CHECK_EQ(fake.vmstat[SWAP_RA_WASTE], 6);
	CHECK_EQ(fake.write_reqs, 1);           /* the first eviction's only */
	CHECK_EQ(fake_pmm_used(), 0);
	teardown();
}

/* A failed write: the pages of the failed request stay mapped with their
 * data, dirty; their slots are retired; the error is counted and named
 * once; the next batch goes out and frees its pages.  Batches of 2:
 * pages 0,1 -> slots 1,2 (2 is bad), pages 2,3 -> slots 3,4. */
TEST(reclaim_write_error_keeps_the_pages)
{
	setup(4, 0, 256, 2);
	fake_swap_bad(swp_entry(0, 2), false, true);
	CHECK_EQ(reclaim_pages(2), 2);
	CHECK_EQ(fake.write_reqs, 2);
	for (int i = 0; i < 2; i++) {
		CHECK(present(i));
		CHECK_EQ(*fake_page_data(pg[i]), 1000 + (uint64_t)i);
		CHECK(page_test(pg[i], PG_DIRTY));
		CHECK(!page_test(pg[i], PG_SWAPCACHE | PG_WRITEBACK | PG_LOCKED));
		CHECK(fake_swap_retired(swp_entry(0, 1 + (uint64_t)i)));
		CHECK_EQ(swap_count(swp_entry(0, 1 + (uint64_t)i)), 0);
	}
	for (int i = 2; i < 4; i++) {
		CHECK_EQ(swapped_to(i), swp_entry(0, 1 + (uint64_t)i));
		CHECK_EQ(fake_swap_data(swapped_to(i)), 1000 + (uint64_t)i);
	}
	CHECK_EQ(fake.vmstat[SWAP_WRITE_ERRORS], 2);
	CHECK_EQ(fake_swap_used(), 2);
	CHECK_CONTAINS(fake.last_msg, "fakeswap0");
	CHECK_CONTAINS(fake.last_msg, "slot");
	/* Again, with slot 5 bad too: only counted; the pages end up on
	 * slots that work, with their data. */
	long msgs = fake.msgs;
	fake_swap_bad(swp_entry(0, 5), false, true);
	fake_pmm_set_free(0);
	CHECK_EQ(reclaim_pages(2), 2);
	CHECK_EQ(fake.msgs, msgs);
	CHECK_EQ(fake.vmstat[SWAP_WRITE_ERRORS], 4);
	for (int i = 0; i < 4; i++) {
		CHECK(swapped_to(i) != 0);
		CHECK_EQ(fake_swap_data(swapped_to(i)), 1000 + (uint64_t)i);
	}
	teardown();
}

/* swapcrc: a slot whose data changed behind the CRC's back fails its
 * fault (SIGBUS), is counted, and the other pages come back whole. */
TEST(reclaim_swapin_round_trip_catches_crc_mismatch)
{
	setup(4, 0, 256, 4);
	fake.crc_on = true;
	CHECK_EQ(reclaim_pages(4), 4);
	fake_swap_corrupt(swapped_to(2));
	CHECK(ra_set_policy("off"));
	CHECK_EQ(fault(2, false), VM_FAULT_SIGBUS);
	CHECK_EQ(fake.vmstat[SWAP_CRC_MISMATCH], 1);
	CHECK_CONTAINS(fake.last_msg, "fakeswap0");
	CHECK(fake_swap_retired(swapped_to(2)));
	CHECK_EQ(fault(1, false), VM_FAULT_OK);
	CHECK_EQ(fault(3, true), VM_FAULT_OK);
	CHECK_EQ(fake.vmstat[SWAP_CRC_MISMATCH], 1);
	teardown();
}

static int kills, kill_frees;
static bool no_reserve(void) { return false; }
static bool any_reserve(void) { return true; }
static bool do_kill(void)
{
	kills++;
	if (!kill_frees)
		return false;
	fake_pmm_set_free(pmm_free_pages() + (uint64_t)kill_frees);
	return true;
}

static struct page *alloc_policy(bool (*reserve)(void))
{
	reclaim_set_oom_policy(&(struct reclaim_oom_policy){ reserve, do_kill });
	return alloc_user_page(false);
}

static void free_page(struct page *p)
{
	if (p)
		put_page(p);
}

static void watermarks(uint64_t min, uint64_t low, uint64_t high)
{
	reclaim_knobs.wm_min = min;
	reclaim_knobs.wm_low = low;
	reclaim_knobs.wm_high = high;
}

/* Above low: nothing.  Below low: kswapd is woken, the allocation is
 * served.  Below min: the allocation reclaims directly. */
TEST(reclaim_watermarks_wake_kswapd_and_reclaim_directly)
{
	setup(64, 40, 256, 16);
	watermarks(16, 32, 48);
	kills = kill_frees = 0;
	struct page *a = alloc_policy(no_reserve);
	CHECK(a != NULL);
	CHECK_EQ(fake.kswapd_wakes, 0);
	CHECK_EQ(fake.vmstat[ALLOCSTALL], 0);
	fake_pmm_set_free(31);
	struct page *b = alloc_policy(no_reserve);
	CHECK(b != NULL);
	CHECK_EQ(fake.kswapd_wakes, 1);
	CHECK_EQ(fake.vmstat[ALLOCSTALL], 0);
	CHECK_EQ(fake.write_reqs, 0);
	fake_pmm_set_free(10);
	struct page *c = alloc_policy(no_reserve);
	CHECK(c != NULL);
	CHECK(fake.vmstat[ALLOCSTALL] >= 1);
	CHECK(fake.vmstat[PGSTEAL_DIRECT] >= 1);
	CHECK(fake.vmstat[PGSCAN_DIRECT] >= 1);
	CHECK_EQ(kills, 0);
	free_page(a);
	free_page(b);
	free_page(c);
	teardown();
}

/* A direct reclaimer frees what its caller needs, not a whole swap-out
 * batch: 32 pages at most (Linux's nr_to_reclaim), however large the
 * batch; with several CPUs, each stalled task reclaiming a full batch
 * swapped out far more than the load needed (issue 14). */
TEST(reclaim_direct_stops_at_its_target)
{
	setup(200, 10, 512, 128);
	watermarks(16, 32, 48);
	kills = kill_frees = 0;
	struct page *a = alloc_policy(no_reserve);
	CHECK(a != NULL);
	CHECK_EQ(fake.vmstat[ALLOCSTALL], 1);
	CHECK(fake.vmstat[PGSTEAL_DIRECT] >= 1);
	CHECK(fake.vmstat[PGSTEAL_DIRECT] <= 32);
	CHECK(fake.vmstat[PGSCAN_DIRECT] <= 32 * 13);   /* one chunk per priority at most */
	CHECK_EQ(fake.vmstat[RECLAIM_DIRECT_SKIPPED], 0);
	free_page(a);
	teardown();
}

/* kswapd, woken below low, reclaims until free memory is back above high,
 * then sleeps again (where the fake lets the test out). */
TEST(reclaim_kswapd_works_up_to_the_high_watermark)
{
	setup(128, 20, 256, 16);
	watermarks(8, 32, 60);
	struct page *a = alloc_policy(no_reserve);
	CHECK_EQ(fake.kswapd_wakes, 1);
	CHECK(fake.thread_fn != NULL);
	jmp_buf out;
	fake.escape = &out;
	if (!setjmp(out) && fake.thread_fn)
		fake.thread_fn(NULL);
	fake.escape = NULL;
	CHECK(pmm_free_pages() >= 60);
	CHECK(pmm_free_pages() < 60 + 16);      /* it stops there: one batch at most beyond */
	CHECK_EQ(fake.vmstat[KSWAPD_WAKEUPS], 1);
	CHECK(fake.vmstat[PGSTEAL_KSWAPD] >= 41);
	CHECK_EQ(fake.vmstat[PGSCAN_DIRECT], 0);
	free_page(a);
	teardown();
}

/* With reclaimable memory the OOM policy is never asked (above); with
 * none (no swap), it is asked once the retries are spent, and its kill
 * lets the allocation succeed. */
TEST(reclaim_oom_policy_only_when_nothing_can_be_reclaimed)
{
	setup(8, 0, 0, 8);
	watermarks(4, 8, 12);
	kills = 0;
	kill_frees = 8;                         /* the victim's memory lifts free above min */
	struct page *a = alloc_policy(no_reserve);
	CHECK(a != NULL);
	CHECK_EQ(kills, 1);
	CHECK(fake.vmstat[ALLOCSTALL] >= 1);
	CHECK_EQ(fake.write_reqs, 0);
	for (int i = 0; i < 8; i++)
		CHECK(present(i));              /* nowhere to put them */
	free_page(a);
	/* Nobody to kill: the allocation takes what reserve there is, here none. */
	fake_pmm_set_free(0);
	kills = 0;
	kill_frees = 0;
	CHECK(alloc_policy(no_reserve) == NULL);
	CHECK_EQ(kills, 1);
	/* A thread allowed the reserve takes it at once: no reclaim, no kill. */
	fake_pmm_set_free(2);
	uint64_t stalls = fake.vmstat[ALLOCSTALL];
	kills = 0;
	struct page *b = alloc_policy(any_reserve);
	CHECK(b != NULL);
	CHECK_EQ(fake.vmstat[ALLOCSTALL], stalls);
	CHECK_EQ(kills, 0);
	free_page(b);
	teardown();
}

/* MADV_PAGEOUT (reclaim_pageout): active, PG_referenced pages whose
 * accessed bits the caller cleared go out now, in one write, with no
 * memory pressure at all (free frames plenty); a page isolated twice is
 * refused the second time; what is written is the data. */
TEST(reclaim_pageout_writes_advised_pages_whatever_their_references)
{
	setup(8, 1000, 256, 4);
	struct page *iso[8];
	for (int i = 0; i < 8; i++) {
		lru_del(pg[i]);
		lru_add(pg[i], LRU_ANON, true);
		page_set(pg[i], PG_REFERENCED);
		get_page(pg[i]);
		CHECK(lru_isolate_page(pg[i]));
		iso[i] = pg[i];
	}
	get_page(pg[0]);
	CHECK(!lru_isolate_page(pg[0]));        /* off its list already: the caller keeps its reference */
	put_page(pg[0]);
	CHECK_EQ(lru_size(LRU_ANON, true), 0);
	reclaim_pageout(iso, 8);
	for (int i = 0; i < 8; i++) {
		uint64_t e = swapped_to(i);
		CHECK(e != 0);
		CHECK_EQ(fake_swap_data(e), 1000 + (uint64_t)i);
	}
	CHECK_EQ(fake.vmstat[PSWPOUT], 8);
	CHECK_EQ(fake.write_reqs, 1);           /* a batch of 4 is kswapd's; the advice's is its own */
	CHECK_EQ(fake_pmm_used(), 0);
	CHECK_EQ(fake.vmstat[PGSTEAL_KSWAPD] + fake.vmstat[PGSTEAL_DIRECT], 0);
	teardown();
}

/* A page touched after the caller cleared its accessed bit stays: the
 * unmap refuses a PTE accessed meanwhile, and the page goes back on a
 * list, mapped, its slot given back. */
TEST(reclaim_pageout_keeps_a_page_used_meanwhile)
{
	setup(2, 1000, 256, 4);
	struct page *iso[2] = { pg[0], pg[1] };
	for (int i = 0; i < 2; i++) {
		get_page(pg[i]);
		CHECK(lru_isolate_page(pg[i]));
	}
	fake_touch(mm, VA0 + P, false);
	reclaim_pageout(iso, 2);
	CHECK(swapped_to(0) != 0);
	CHECK(present(1) && page_test(pg[1], PG_LRU));
	CHECK_EQ(fake.vmstat[PSWPOUT], 1);
	CHECK_EQ(swap_used_slots(), 1);
	teardown();
}

/* MADV_COLD (lru_deactivate): an active page moves to the inactive list
 * and counts as pgdeactivate; an inactive one stays put, uncounted. */
TEST(lru_deactivate_moves_active_pages_only)
{
	setup(4, 1000, 256, 4);
	for (int i = 0; i < 2; i++) {
		lru_del(pg[i]);
		lru_add(pg[i], LRU_ANON, true);
	}
	CHECK(lru_deactivate(pg[0]));
	CHECK(!lru_deactivate(pg[2]));
	CHECK(!lru_deactivate(pg[0]));
	CHECK_EQ(lru_size(LRU_ANON, true), 1);
	CHECK_EQ(lru_size(LRU_ANON, false), 3);
	CHECK(page_test(pg[0], PG_LRU) && !page_test(pg[0], PG_ACTIVE));
	CHECK_EQ(fake.vmstat[PGDEACTIVATE], 1);
	teardown();
}

TEST(lru_putback_many_links_each_page_once)
{
	setup(8, 1000, 256, 8);
	struct page *iso[8];
	uint64_t scanned = 0;
	CHECK_EQ(lru_isolate(LRU_ANON, false, iso, 8, &scanned), 8);
	CHECK_EQ(lru_size(LRU_ANON, false), 0);
	int refs[8];
	for (int i = 0; i < 8; i++)
		refs[i] = iso[i]->refcount;
	/* iso[3] waits in a CPU's add batch meanwhile (a fault's lru_add):
	 * the batch links it, with a reference of its own. */
	page_set(iso[3], PG_LRU_BATCH);
	get_page(iso[3]);
	lru_putback_many(iso, 1u << 1 | 1u << 3 | 1u << 6, 8);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(iso[i]->refcount, refs[i] - 1 + (i == 3));   /* the isolation's dropped */
		CHECK_EQ(page_test(iso[i], PG_LRU), i != 3);
		if (i != 3)
			CHECK_EQ(page_test(iso[i], PG_ACTIVE), i == 1 || i == 6);
		CHECK(i == 3 ? page_test(iso[i], PG_LRU_BATCH) : !page_test(iso[i], PG_LRU_BATCH));
	}
	CHECK_EQ(lru_size(LRU_ANON, true), 2);
	CHECK_EQ(lru_size(LRU_ANON, false), 5);
	/* The batch's drain. */
	struct page *b = iso[3];
	lru_link_batch(&b, 0, 1);
	CHECK_EQ(iso[3]->refcount, refs[3] - 1);
	CHECK_EQ(lru_size(LRU_ANON, false), 6);
	teardown();
}
