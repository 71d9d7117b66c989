/*
 * Workingset detection for file pages through the real workingset.c and
 * reclaim.c (the page cache faked in fake_mm.c): a file page's shadow
 * carries its kind, a refault within the lists it competes with is
 * activated (and restored when it had been active), one beyond them only
 * counted, off counts nothing; and restores of file pages raise the file
 * side's cost, so reclaim turns to anon pages.
 */
#include "../unit/test.h"
#include "fake_kernel.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/lru.h"
#include "vm/reclaim.h"
#include "vm/workingset.h"
#include "vm/workingset_policy.h"
#include "swap/swap.h"

#define P 4096ul
#define VA0 0x400000ul

static struct page *file[16];

/* n file pages, the first `active` of them on the active file list; no
 * swap, so a file refault competes with the active file list alone. */
static void setup_file(int n, int active)
{
	fake_reset();
	for (int i = 0; i < n; i++) {
		file[i] = fake_file_page(3000 + (uint64_t)i, false);
		if (i < active)
			lru_activate(file[i]);
	}
	workingset_set_enabled(true);
}

static void teardown_file(int n)
{
	workingset_set_enabled(false);
	for (int i = 0; i < n; i++)
		fake_file_drop(file[i]);
	CHECK_EQ(fake_leaks(), 0);
}

TEST(workingset_file_refault_within_active_list_activates)
{
	setup_file(8, 4);
	page_set(file[7], PG_WORKINGSET);
	uint64_t w = workingset_eviction(file[7]);
	struct ws_shadow s;
	CHECK(ws_unpack(w, &s) && s.kind == WS_FILE && s.workingset);
	/* Three more pages leave inactive lists: distance 3 <= 4 active. */
	for (int i = 0; i < 3; i++)
		workingset_activation();
	page_clear(file[6], PG_WORKINGSET);
	CHECK(workingset_refault_file(file[6], w));
	CHECK(page_test(file[6], PG_WORKINGSET));
	CHECK_EQ(fake.vmstat[WORKINGSET_REFAULT_FILE], 1);
	CHECK_EQ(fake.vmstat[WORKINGSET_ACTIVATE_FILE], 1);
	CHECK_EQ(fake.vmstat[WORKINGSET_RESTORE_FILE], 1);
	CHECK_EQ(fake.vmstat[WORKINGSET_REFAULT_ANON] + fake.vmstat[WORKINGSET_REFAULT_SHMEM], 0);
	teardown_file(8);
}

TEST(workingset_file_refault_beyond_active_list_is_only_counted)
{
	setup_file(8, 4);
	uint64_t w = workingset_eviction(file[7]);
	for (int i = 0; i < 5; i++)
		workingset_activation();        /* distance 5 > 4 active file pages */
	CHECK(!workingset_refault_file(file[6], w));
	uint64_t fresh = workingset_eviction(file[5]);
	struct workingset_now now;
	workingset_now_file(&now);
	CHECK(workingset_shadow_stale(w, &now));
	CHECK(!workingset_shadow_stale(fresh, &now));
	/* A shadow made after `now` was sampled is the newest, not stale. */
	CHECK(!workingset_shadow_stale(workingset_eviction(file[4]), &now));
	CHECK_EQ(fake.vmstat[WORKINGSET_REFAULT_FILE], 1);
	CHECK_EQ(fake.vmstat[WORKINGSET_ACTIVATE_FILE], 0);
	CHECK(!page_test(file[6], PG_WORKINGSET));
	teardown_file(8);
}

TEST(workingset_file_off_keeps_and_counts_nothing)
{
	setup_file(4, 2);
	uint64_t w = workingset_eviction(file[3]);
	workingset_set_enabled(false);
	CHECK_EQ(workingset_eviction(file[3]), 0);
	CHECK(!workingset_refault_file(file[2], w));
	CHECK_EQ(fake.vmstat[WORKINGSET_REFAULT_FILE], 0);
	teardown_file(4);
}

/* Swappiness 100, 32 anon + 32 file pages, and 200 restores of one
 * side noted before reclaim takes 16 pages: anon pages swapped out and
 * file pages dropped. */
static void reclaim_after_restores(bool file_side, uint64_t *swapped, uint64_t *dropped)
{
	fake_reset();
	fake_swap_add_area(0, 256);
	struct mm *mm = fake_mm_new();
	struct page *fp[32];
	for (int i = 0; i < 32; i++) {
		fake_map_anon(mm, VA0 + (uint64_t)i * P, 1000 + (uint64_t)i);
		fp[i] = fake_file_page(2000 + (uint64_t)i, false);
	}
	fake_pmm_set_free(0);
	reclaim_knobs.batch = 16;
	reclaim_knobs.swappiness = 100;
	for (int i = 0; i < 200; i++)
		reclaim_note_refault_cost(file_side);
	CHECK(reclaim_pages(16) >= 16);
	*swapped = fake.vmstat[PSWPOUT];
	*dropped = (uint64_t)fake.file_dropped;
	fake_io_complete_all();
	fake_mm_free(mm);
	for (int i = 0; i < 32; i++)
		if (fake_is_frame(fp[i]) && page_test(fp[i], PG_FILE))
			fake_file_drop(fp[i]);
	CHECK_EQ(fake_leaks(), 0);
}

/* At swappiness 100 and no cost the two sides share the scan evenly
 * (test_reclaim_file.c); restores of one side make it costlier, and
 * Linux's weights (each side's cost is the total plus its own) lean the
 * scan up to 2:1 to the other side, never all of it.  The cost noted
 * outside the reclaim lock must reach the split. */
TEST(workingset_restores_lean_reclaim_to_the_other_side)
{
	uint64_t swapped, dropped;
	reclaim_after_restores(true, &swapped, &dropped);
	CHECK(swapped > dropped && dropped > 0);
	reclaim_after_restores(false, &swapped, &dropped);
	CHECK(dropped > swapped && swapped > 0);
}
