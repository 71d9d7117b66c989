/*
 * The real kernel/swap/readahead.c, through the real swap-in path: what
 * it hands the policy (struct ra_ops, watched by the fakes' spy) and what
 * it reads for the policy's answer.  A slot window stays inside its area
 * and skips free slots; slots already cached or in flight are not read
 * again; a logical window reads the swap entries its pages' PTEs name,
 * marks its first page and fills small gaps; a hit's window is started
 * without waiting.
 */
#include "../unit/test.h"
#include "fake_kernel.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "swap/swapin.h"
#include "swap/readahead.h"
#include "vm/reclaim.h"

#define P 4096ul
#define VA0 0x400000ul
#define PG0 (VA0 / P)

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
	fake.ra_spy = false;
	fake_mm_free(mm);
	CHECK_EQ(fake_leaks(), 0);
}

static uint64_t E(uint64_t off) { return swp_entry(0, off); }

static void swapped(uint64_t i, uint64_t off, uint64_t data)
{
	fake_swap_store(E(off), data);
	fake_set_pte(mm, VA0 + i * P, pt_swap_pte(E(off)));
}

static enum vm_fault_result fault(uint64_t i)
{
	struct fault_stats st = { 0, 0, 0, 0 };
	return fake_fault(mm, &v, VA0 + i * P, false, &st);
}

static void check_req(long n, uint64_t off, uint32_t pages)
{
	unsigned a = 99;
	uint64_t o = 0;
	uint32_t np = 0;
	CHECK(fake_io_req(n, false, &a, &o, &np));
	CHECK_EQ(a, 0);
	CHECK_EQ(o, off);
	CHECK_EQ(np, pages);
}

static struct page *cached(uint64_t off)
{
	struct page *p = swapcache_lookup(E(off), false);
	if (p)
		put_page(p);            /* the cache keeps its own reference */
	return p;
}

/* The index of the policy's last window_cut call the spy saw, or -1. */
static int last_cut(void)
{
	int c = -1;
	for (int i = 0; i < fake_ra_ncalls; i++)
		if (fake_ra_calls[i].what == 'c')
			c = i;
	return c;
}

/* A fault on page 0 (slot 30) whose policy answers with window w. */
static void window_setup(struct ra_lwin w)
{
	setup(200, "fixed:3");
	fake.ra_spy = true;
	fake_ra_space_size = 16;
	fake_ra_answer = (struct ra_window){ .slots = { 0, 1 }, .lwin = w };
	swapped(0, 30, 30);
}

/* fixed:3 around slot 10 of a 13-slot area: the block 8..15 clipped to
 * the area (slots 8..12); free slot 9 is not read; two runs, one plug. */
TEST(ra_slot_window_stays_in_its_area_and_skips_free_slots)
{
	setup(13, "fixed:3");
	swapped(0, 8, 8);
	swapped(1, 10, 10);
	swapped(2, 11, 11);
	swapped(3, 12, 12);
	CHECK_EQ(fault(1), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 2);
	check_req(0, 8, 1);
	check_req(1, 10, 3);
	CHECK_EQ(fake_swap_reads(E(9)), 0);
	CHECK_EQ(fake.vmstat[SWAP_RA], 3);
	CHECK_EQ(fake.plugs, 1);
	CHECK_EQ(fake.unplugs, 1);
	fake_io_complete_all();
	CHECK(cached(12) && *fake_page_data(cached(12)) == 12);
	teardown();
}

/* A slot already in flight (MADV_WILLNEED) is skipped by a later window,
 * which then goes out as two runs around it; the fault on it waits for
 * the first read. */
TEST(ra_window_skips_slots_in_flight)
{
	setup(64, "off");
	for (uint64_t i = 0; i < 8; i++)
		swapped(i, 8 + i, 100 + i);
	swapin_willneed(mm, VA0 + 2 * P, VA0 + 3 * P);
	CHECK_EQ(fake_io_in_flight(), 1);
	CHECK(ra_set_policy("fixed:3"));
	CHECK_EQ(fault(0), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 3);
	check_req(0, 10, 1);
	check_req(1, 8, 2);
	check_req(2, 11, 5);
	CHECK_EQ(fault(2), VM_FAULT_OK);
	CHECK_EQ(fake.read_reqs, 3);
	for (uint64_t i = 0; i < 8; i++)
		CHECK_EQ(fake_swap_reads(E(8 + i)), 1);
	teardown();
}

/* What readahead.c tells the policy on a miss and on a hit, and what it
 * does with a slot window the policy returns. */
TEST(ra_policy_gets_the_fault_as_it_is)
{
	setup(100, "fixed:3");
	fake.ra_spy = true;
	fake_ra_answer = (struct ra_window){ .slots = { 16, 8 } };
	fake_ra_found_answer = (struct ra_lwin){ 0, 0, 0, false, false };
	for (uint64_t s = 16; s < 24; s++)
		if (s != 18)
			swapped(s - 16, s, s);  /* page 4 <- slot 20 */
	CHECK_EQ(fault(4), VM_FAULT_OK);
	CHECK(fake_ra_ncalls >= 2);
	struct fake_ra_call *m = &fake_ra_calls[0], *s = &fake_ra_calls[1];
	CHECK_EQ(m->what, 'm');
	CHECK_EQ(m->ev.slot, 20);
	CHECK_EQ(m->ev.slots, 100);
	CHECK_EQ(m->ev.idx, PG0 + 4);
	CHECK_EQ(m->ev.lo, PG0);
	CHECK_EQ(m->ev.hi, PG0 + 256);
	CHECK(m->ctx.vstate == v.ra_state);
	CHECK(m->ctx.global != NULL);
	CHECK_EQ(m->ctx.order, 3);
	CHECK_EQ(m->ctx.max_pages, 8);
	CHECK(m->ctx.space == NULL);            /* the spy keeps no per-space state */
	CHECK_EQ(s->what, 's');
	CHECK_EQ(s->in_use, 6);                 /* 16..23 but the fault's 20 and free 18 */
	CHECK_EQ(fake.read_reqs, 2);
	check_req(0, 16, 2);
	check_req(1, 19, 5);
	CHECK_EQ(fake.vmstat[SWAP_RA], 6);
	/* The fault, retried after its read, finds its own page: found, and
	 * not as a readahead hit. */
	CHECK_EQ(fake_ra_ncalls, 3);
	CHECK_EQ(fake_ra_calls[2].what, 'f');
	CHECK_EQ(fake_ra_calls[2].ev.slot, 20);
	CHECK(!fake_ra_calls[2].readahead);
	/* A hit on slot 21 (page 5), read ahead: found(readahead) */
	CHECK_EQ(fault(5), VM_FAULT_OK);
	CHECK_EQ(fake_ra_ncalls, 4);
	CHECK_EQ(fake_ra_calls[3].what, 'f');
	CHECK_EQ(fake_ra_calls[3].ev.slot, 21);
	CHECK_EQ(fake_ra_calls[3].ev.idx, PG0 + 5);
	CHECK(fake_ra_calls[3].readahead);
	CHECK(!fake_ra_calls[3].marker);
	CHECK_EQ(fake.read_reqs, 2);
	teardown();
}

/* A policy with per-space state gets it allocated once per address
 * space, initialised, with the budget (1/64 of memory, 8..64 pages), and
 * is asked about a swap-cache hit only when it has state for it. */
TEST(ra_policy_space_state_is_made_once_per_mm)
{
	setup(100, "fixed:3");
	fake.ra_spy = true;
	fake_ra_space_size = 48;
	fake_ra_answer = (struct ra_window){ .slots = { 0, 1 } };
	swapped(0, 10, 1);
	swapped(1, 30, 2);
	CHECK_EQ(fault(0), VM_FAULT_OK);
	CHECK(mm->ra != NULL);
	CHECK(fake_ra_calls[0].ctx.space == mm->ra);
	CHECK_EQ(fake_ra_calls[0].ctx.budget, FAKE_FRAMES / 64);
	if (mm->ra)
		CHECK_EQ(((unsigned char *)mm->ra)[47], 0x5a);
	/* The retry finds its own page, not read ahead: such a policy is not
	 * asked without its state (ra_found), so no call and no lock. */
	CHECK_EQ(fake_ra_ncalls, 1);
	void *space = mm->ra;
	CHECK_EQ(fault(1), VM_FAULT_OK);
	CHECK_EQ(fake_ra_calls[1].what, 'm');
	CHECK(fake_ra_calls[1].ctx.space == space);
	CHECK(mm->ra == space);
	teardown();                             /* frees mm->ra: the leak check sees it */
}

/* A logical window: the entries its pages' PTEs name are read (present
 * and empty PTEs skipped), the first read-ahead page carries the marker,
 * the window's pages are vouched for, a free-standing slot between two of
 * them is read too (gap filling) but not vouched for, and marked as a
 * gap's (counted in swap_ra_fill; its use in swap_ra_fill_hit); the
 * marker's hit tells the policy so, and the window it answers is started,
 * not waited for. */
TEST(ra_logical_window_reads_what_the_ptes_name)
{
	setup(100, "fixed:3");
	fake.ra_spy = true;
	fake_ra_answer = (struct ra_window){ .slots = { 0, 1 }, .lwin = { PG0 + 4, 1, 4, true, true } };
	swapped(0, 30, 30);
	swapped(4, 40, 40);
	fake_map_anon(mm, VA0 + 5 * P, 5);      /* present: nothing to read */
	swapped(6, 42, 42);
	/* page 7: empty */
	swapped(8, 41, 41);                     /* outside the window, between 40 and 42 */
	swapped(20, 70, 70);
	swapped(21, 71, 71);
	CHECK_EQ(fault(0), VM_FAULT_OK);
	fake_io_complete_all();
	CHECK_EQ(fake.read_reqs, 2);
	check_req(0, 30, 1);
	check_req(1, 40, 3);
	struct page *p40 = cached(40), *p41 = cached(41), *p42 = cached(42);
	CHECK(p40 && p41 && p42);
	if (!p40 || !p41 || !p42)
		return;
	CHECK(page_test(p40, PG_RA_MARK));
	CHECK(!page_test(p41, PG_RA_MARK) && !page_test(p42, PG_RA_MARK));
	CHECK(page_test(p40, PG_REFERENCED) && page_test(p42, PG_REFERENCED));
	CHECK(!page_test(p41, PG_REFERENCED));
	CHECK(page_test(p41, PG_READAHEAD));
	CHECK(page_test(p41, PG_RA_FILL) && !page_test(p40, PG_RA_FILL) && !page_test(p42, PG_RA_FILL));
	CHECK_EQ(fake.vmstat[SWAP_RA], 3);
	CHECK_EQ(fake.vmstat[SWAP_RA_FILL], 1);
	/* The marker page's first use: found(readahead, marker); the policy's
	 * next window (pages 20, 21) goes out without the fault waiting. */
	fake_ra_found_answer = (struct ra_lwin){ PG0 + 20, 1, 2, false, false };
	CHECK_EQ(fault(4), VM_FAULT_OK);
	CHECK_EQ(fake_ra_calls[fake_ra_ncalls - 1].what, 'f');
	CHECK(fake_ra_calls[fake_ra_ncalls - 1].readahead);
	CHECK(fake_ra_calls[fake_ra_ncalls - 1].marker);
	CHECK_EQ(fake_io_in_flight(), 1);
	check_req(2, 70, 2);
	CHECK_EQ(fake.vmstat[SWAP_RA], 5);
	fake_io_complete_all();
	CHECK_EQ(fake.vmstat[SWAP_RA_FILL_HIT], 0);
	CHECK_EQ(fault(8), VM_FAULT_OK);        /* the gap's page used */
	CHECK_EQ(fake.vmstat[SWAP_RA_FILL_HIT], 1);
	CHECK(!page_test(p41, PG_RA_FILL));
	teardown();
}

/* A stream's window (no_reclaim) that finds no free frame above the low
 * watermark is trimmed there, past its first RA_STREAM_NEXT steps (read
 * whatever free memory says), and the policy that chose it hears how many
 * of its steps were read (window_cut), with the state it decided from
 * and the window's start. */
TEST(ra_trimmed_window_tells_the_policy)
{
	enum { N = RA_STREAM_NEXT + 4 };
	setup(100, "fixed:3");
	fake.ra_spy = true;
	fake_ra_no_reclaim = true;
	fake_ra_space_size = 16;
	fake_ra_answer = (struct ra_window){ .slots = { 0, 1 }, .lwin = { PG0 + 4, 1, N, true, true } };
	swapped(0, 30, 30);
	for (uint64_t k = 0; k < N; k++)
		swapped(4 + k, 40 + k, 40 + k);
	/* The fault's page, the stream's next pages, and two more. */
	reclaim_knobs.wm_low = pmm_free_pages() - 1 - RA_STREAM_NEXT - 2;
	CHECK_EQ(fault(0), VM_FAULT_OK);
	fake_io_complete_all();
	reclaim_knobs.wm_low = 0;
	for (uint64_t k = 0; k < N; k++)
		CHECK_EQ(cached(40 + k) != NULL, k < RA_STREAM_NEXT + 2);
	CHECK_EQ(fake.vmstat[SWAP_RA], RA_STREAM_NEXT + 2);
	CHECK_EQ(fake.vmstat[SWAP_RA_TRIMMED], 2);
	int c = last_cut();
	CHECK(c >= 0);
	if (c < 0)
		return;
	CHECK_EQ(fake_ra_calls[c].in_use, RA_STREAM_NEXT + 2u);
	CHECK_EQ(fake_ra_calls[c].ev.idx, PG0 + 4);
	CHECK(fake_ra_calls[c].ctx.space == mm->ra && mm->ra);
	teardown();
}

/* A run's window (lwin.run: a stream's, or a run start's) ends where its
 * pages' slots jump (more than RA_WINDOW_FAR slots from the page before,
 * or another area): what lies past the jump would be a request of its
 * own, so it is left to the stream's next window, which starts there;
 * a stream's policy hears the window's new length (window_cut) as for a
 * trimmed one.  A jump within the window's first RA_WINDOW_MIN_STEPS
 * steps, and a step of RA_WINDOW_FAR slots or fewer, are left alone. */
TEST(ra_run_window_ends_where_its_slots_jump)
{
	window_setup((struct ra_lwin){ PG0 + 4, 1, 8, true, true });
	for (uint64_t k = 0; k < 4; k++)
		swapped(4 + k, 40 + k, 40 + k);
	for (uint64_t k = 4; k < 8; k++)
		swapped(4 + k, 150 + k, 150 + k);       /* evicted at another time */
	CHECK_EQ(fault(0), VM_FAULT_OK);
	fake_io_complete_all();
	CHECK_EQ(fake.read_reqs, 2);
	check_req(0, 30, 1);
	check_req(1, 40, 4);
	for (uint64_t k = 4; k < 8; k++)
		CHECK(!cached(150 + k));
	CHECK_EQ(fake.vmstat[SWAP_RA_SPLIT], 1);
	int c = last_cut();
	CHECK(c >= 0);
	if (c >= 0) {
		CHECK_EQ(fake_ra_calls[c].in_use, 4u);
		CHECK_EQ(fake_ra_calls[c].ev.idx, PG0 + 4);
	}
	teardown();

	/* A run start's window (the pages after a miss outside streams, no
	 * stream yet) ends at the jump too, with no stream to tell; a block
	 * around a miss (not a run) is read whole. */
	for (int run = 1; run >= 0; run--) {
		window_setup((struct ra_lwin){ PG0 + 1, 1, 6, false, run });
		for (uint64_t k = 1; k < 4; k++)
			swapped(k, 30 + k, 30 + k);
		for (uint64_t k = 4; k < 7; k++)
			swapped(k, 150 + k, 150 + k);
		CHECK_EQ(fault(0), VM_FAULT_OK);
		fake_io_complete_all();
		CHECK_EQ(fake.read_reqs, run ? 1 : 2);
		check_req(0, 30, 4);
		CHECK_EQ(fake.vmstat[SWAP_RA], run ? 3u : 6u);
		CHECK_EQ(fake.vmstat[SWAP_RA_SPLIT], (uint64_t)run);
		CHECK_EQ(last_cut(), -1);
		teardown();
	}

	/* A jump after the window's first page, and a step of exactly
	 * RA_WINDOW_FAR slots later on: the whole window is read. */
	window_setup((struct ra_lwin){ PG0 + 4, 1, 6, true, true });
	swapped(4, 40, 40);
	swapped(5, 100, 100);
	swapped(6, 101, 101);
	swapped(7, 102, 102);
	swapped(8, 102 + RA_WINDOW_FAR, 102 + RA_WINDOW_FAR);
	swapped(9, 103 + RA_WINDOW_FAR, 103 + RA_WINDOW_FAR);
	CHECK_EQ(fault(0), VM_FAULT_OK);
	fake_io_complete_all();
	CHECK_EQ(fake.vmstat[SWAP_RA], 6);
	CHECK_EQ(fake.vmstat[SWAP_RA_SPLIT], 0);
	CHECK_EQ(last_cut(), -1);
	teardown();
}
