/*
 * Workingset detection's pure part (kernel/vm/workingset_policy.c):
 * shadows round-trip, distances survive the clock wrapping, and the
 * activation rule is Linux's (distance <= the active swap-backed lists,
 * only while swap has room), driven here on a simulated clock.
 */
#include "test.h"
#include "vm/workingset_policy.h"

TEST(ws_shadow_round_trip)
{
	struct ws_shadow s;
	CHECK(!ws_unpack(0, &s));
	uint64_t w = ws_pack(12345, WS_SHMEM, false);
	CHECK(w != 0);
	CHECK(ws_unpack(w, &s));
	CHECK_EQ(s.eviction, 12345);
	CHECK(s.kind == WS_SHMEM && !s.workingset);
	CHECK(ws_unpack(ws_pack(0, WS_ANON, true), &s));
	CHECK_EQ(s.eviction, 0);
	CHECK(s.kind == WS_ANON && s.workingset);
	CHECK(ws_unpack(ws_pack(77, WS_FILE, true), &s));
	CHECK(s.kind == WS_FILE && s.workingset && s.eviction == 77);
	/* The clock keeps its low 60 bits; bit 0 set (a value entry for the
	 * page cache's index) whatever the clock. */
	CHECK(ws_unpack(ws_pack(~0ull, WS_FILE, false), &s));
	CHECK(ws_pack(0, WS_ANON, false) & 1);
	CHECK(s.kind == WS_FILE);
	CHECK_EQ(s.eviction, (1ull << WS_CLOCK_BITS) - 1);
}

TEST(ws_distance_wraps)
{
	CHECK_EQ(ws_distance(100, 100), 0);
	CHECK_EQ(ws_distance(150, 100), 50);
	/* Evicted just before the 60-bit clock wrapped, refaulted after. */
	struct ws_shadow s;
	CHECK(ws_unpack(ws_pack((1ull << WS_CLOCK_BITS) - 3, WS_ANON, false), &s));
	CHECK_EQ(ws_distance(4, s.eviction), 7);
	/* The caller's 64-bit clock, past 2^60, against a packed eviction. */
	uint64_t now = (1ull << WS_CLOCK_BITS) + 10;
	CHECK(ws_unpack(ws_pack(now - 8, WS_SHMEM, false), &s));
	CHECK_EQ(ws_distance(now, s.eviction), 8);
}

TEST(ws_activation_rule)
{
	struct ws_lists l = { .active_anon = 500, .inactive_anon = 400, .swap_has_room = true };
	CHECK_EQ(ws_workingset_size(&l, false), 500);
	CHECK(ws_should_activate(0, 500));
	CHECK(ws_should_activate(500, 500));
	CHECK(!ws_should_activate(501, 500));
	/* Swap full: the active pages could not be evicted to make room. */
	l.swap_has_room = false;
	CHECK_EQ(ws_workingset_size(&l, false), 0);
	CHECK(!ws_should_activate(1, ws_workingset_size(&l, false)));
}

/* Linux 6.1's sizes with file pages: an anon refault competes with the
 * whole file cache (reclaim could have taken it instead) plus, while swap
 * has room, the active anon list; a file refault with the active file
 * list plus, while swap has room, all of anon. */
TEST(ws_activation_rule_with_file_pages)
{
	struct ws_lists l = { .active_anon = 500, .inactive_anon = 400, .active_file = 3000,
			      .inactive_file = 2000, .swap_has_room = true };
	CHECK_EQ(ws_workingset_size(&l, false), 3000 + 2000 + 500);
	CHECK_EQ(ws_workingset_size(&l, true), 3000 + 500 + 400);
	CHECK(ws_should_activate(3900, ws_workingset_size(&l, true)));
	CHECK(!ws_should_activate(3901, ws_workingset_size(&l, true)));
	l.swap_has_room = false;
	CHECK_EQ(ws_workingset_size(&l, false), 5000);
	CHECK_EQ(ws_workingset_size(&l, true), 3000);
	/* A file working set of 3000 pages cycled through an inactive list
	 * of 1000 by a stream: distance ~ the 3000 other pages evicted in
	 * between; it activates against an active list of that size only. */
	CHECK(ws_should_activate(3000, ws_workingset_size(&l, true)));
	l.active_file = 2999;
	CHECK(!ws_should_activate(3000, ws_workingset_size(&l, true)));
}

TEST(ws_stale_shadows)
{
	uint64_t w = ws_pack(1000, false, true);
	CHECK(!ws_shadow_stale(w, 1000, 0));
	CHECK(!ws_shadow_stale(w, 1500, 500));
	CHECK(ws_shadow_stale(w, 1501, 500));
	CHECK(ws_shadow_stale(0, 1000, 500));   /* no shadow at all */
}

/*
 * A simulated memory of R resident pages, managed as one FIFO (what the
 * inactive list is when nothing is referenced twice), looping over L
 * pages: with L <= R nothing refaults; with L > R every access faults,
 * and the distance is measured on a clock ticking once per eviction, as
 * the kernel's does.  The rule must activate the
 * loop's pages when the active list could hold the excess (L - R <=
 * active), and not when it could not.
 */
#define SIM_PAGES 64
static int sim_activations(int resident, int loop, uint64_t active)
{
	uint64_t clock = 0, shadow[SIM_PAGES] = { 0 };
	int fifo[SIM_PAGES], n = 0, activations = 0;
	bool in[SIM_PAGES] = { false };
	struct ws_lists l = { .active_anon = active, .swap_has_room = true };
	for (int round = 0; round < 4; round++)
		for (int pg = 0; pg < loop; pg++) {
			if (in[pg])
				continue;
			struct ws_shadow s;
			if (ws_unpack(shadow[pg], &s) &&
			    ws_should_activate(ws_distance(clock, s.eviction), ws_workingset_size(&l, false)))
				activations++;
			if (n == resident) {
				int victim = fifo[0];
				for (int i = 1; i < n; i++)
					fifo[i - 1] = fifo[i];
				n--;
				in[victim] = false;
				shadow[victim] = ws_pack(++clock, WS_ANON, false);
			}
			fifo[n++] = pg;
			in[pg] = true;
		}
	return activations;
}

TEST(ws_refault_distance_on_a_loop)
{
	CHECK_EQ(sim_activations(32, 32, 0), 0);        /* fits: no refaults at all */
	/* 40 pages looping through 32: between a page's eviction and its
	 * refault the other 7 of the 8 pages that do not fit were evicted
	 * (the refault's own eviction ticks after it is judged), so the
	 * distance is 7: an active list of 7 pages would have kept it. */
	CHECK(sim_activations(32, 40, 7) > 0);
	CHECK_EQ(sim_activations(32, 40, 6), 0);
	CHECK(sim_activations(32, 64, 31) > 0);
	CHECK_EQ(sim_activations(32, 64, 30), 0);
}
