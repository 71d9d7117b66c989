#include "test.h"
#include "blk_cost.h"

/* A device that serves a command of n pages in max(a, b*n) (QEMU's
 * throttle: an IOPS and a bandwidth limit) or a + b*n (seek plus
 * transfer); times in ns. */
static uint64_t serve(int additive, uint64_t a, uint64_t b, uint32_t n)
{
	if (additive)
		return a + b * n;
	return a > b * n ? a : b * n;
}

static void feed(struct blk_cost *c, int additive, uint64_t a, uint64_t b, const uint32_t *sizes, int nsizes, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nsizes; i++)
			blk_cost_sample(c, sizes[i], serve(additive, a, b, sizes[i]));
}

TEST(blk_cost_split_follows_the_device)
{
	const uint32_t mix[] = { 1, 64, 64, 1, 3, 64 };
	/* QEMU's ssd profile on paper: 700 IOPS, 50 MiB/s, served in
	 * max(1.43 ms, 78 us per page).  The straight line through 1 and 64
	 * pages: a 1.37 ms, b 57 us, a/b 24: nearest 32. */
	struct blk_cost ssd = { 0 };
	feed(&ssd, 0, 1428571, 78125, mix, 6, 10);
	CHECK_EQ(ssd.split, 32u);
	CHECK(ssd.cmd_ns > 1300000 && ssd.cmd_ns < 1450000);
	/* ... as the kernel measured it (QEMU lets bursts through): a 0.87
	 * ms, b 56 us, a/b 15.5: 16. */
	struct blk_cost meas = { 0 };
	feed(&meas, 1, 872000 - 56000, 56000, mix, 6, 10);
	CHECK_EQ(meas.split, 16u);
	/* The hdd profile: 150 IOPS, 100 MiB/s: a 64-page command costs no
	 * more than a 1-page one.  Never cut. */
	struct blk_cost hdd = { 0 };
	feed(&hdd, 0, 6666667, 39063, mix, 6, 10);
	CHECK_EQ(hdd.split, 0u);
	/* a/b 10: the floor, not 8. */
	struct blk_cost low = { 0 };
	feed(&low, 1, 560000, 56000, mix, 6, 10);
	CHECK_EQ(low.split, 16u);
	/* The hdd profile as the kernel measured it once (writes queued
	 * between reads): a 4.7 ms, b 79 us, a/b 60.  A seek: never cut. */
	struct blk_cost hddm = { 0 };
	feed(&hddm, 1, 4682000, 78609, mix, 6, 10);
	CHECK_EQ(hddm.split, 0u);
	/* A seeking disk, 8 ms + 27 us per page: a/b ~ 300, above any command. */
	struct blk_cost disk = { 0 };
	feed(&disk, 1, 8000000, 27000, mix, 6, 10);
	CHECK_EQ(disk.split, 0u);
	/* An NVMe drive, 80 us + 1.3 us per page: a/b ~ 61. */
	struct blk_cost nvme = { 0 };
	feed(&nvme, 1, 80000, 1300, mix, 6, 10);
	CHECK_EQ(nvme.split, 64u);
	CHECK(nvme.cmd_ns > 75000 && nvme.cmd_ns < 85000);
	CHECK(nvme.page_ps > 1200000 && nvme.page_ps < 1400000);
	/* No fixed cost to speak of (bandwidth only, or QEMU unthrottled:
	 * a 12 us, b 2.5 us): nothing to gain. */
	struct blk_cost bw = { 0 };
	feed(&bw, 1, 0, 5000, mix, 6, 10);
	CHECK_EQ(bw.split, 0u);
	struct blk_cost none = { 0 };
	feed(&none, 1, 12000, 2540, mix, 6, 10);
	CHECK_EQ(none.split, 0u);
}

TEST(blk_cost_no_split_without_both_sizes)
{
	/* Only large commands, or only small ones: nothing to fit. */
	struct blk_cost c = { 0 };
	const uint32_t big[] = { 64, 32, 64 }, small[] = { 1, 2, 4 };
	feed(&c, 0, 1428571, 78125, big, 3, 20);
	CHECK_EQ(c.split, 0u);
	feed(&c, 0, 1428571, 78125, small, 3, 2);       /* 2 of 1 page: too few */
	CHECK_EQ(c.split, 0u);
	feed(&c, 0, 1428571, 78125, small, 3, 6);
	CHECK_EQ(c.split, 32u);
	/* Sizes 4-7 against 16: under 8x apart, no fit. */
	struct blk_cost d = { 0 };
	const uint32_t near[] = { 4, 16, 5, 16 };
	feed(&d, 0, 1428571, 78125, near, 4, 20);
	CHECK_EQ(d.split, 0u);
	blk_cost_sample(&d, 0, 5);                      /* no pages: ignored */
	CHECK_EQ(d.n[0], 0u);
}

TEST(blk_cost_follows_a_change_and_keeps_the_last_fit)
{
	const uint32_t mix[] = { 1, 64 };
	struct blk_cost c = { 0 };
	feed(&c, 0, 1428571, 78125, mix, 2, 20);
	CHECK_EQ(c.split, 32u);
	/* The same device, now bound by commands (its bandwidth limit
	 * lifted): the averages move, the split goes within a few dozen
	 * commands. */
	feed(&c, 0, 1428571, 1000, mix, 2, 40);
	CHECK_EQ(c.split, 0u);
	/* Once split, only split-sized commands come: the old large class
	 * still anchors the fit (no 256-page commands here). */
	struct blk_cost s = { 0 };
	feed(&s, 0, 1428571, 78125, mix, 2, 20);
	const uint32_t after[] = { 1, 32, 32, 32, 32 };
	feed(&s, 0, 1428571, 78125, after, 5, 50);
	CHECK_EQ(s.split, 32u);
	/* Huge or odd sizes stay in range. */
	blk_cost_sample(&s, 100000, 1000000000ull);
	CHECK(s.n[BLK_COST_CLASSES - 1] == 1);
}
