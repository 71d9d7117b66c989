/*
 * Integer statistics for result tables (kernel/lib/stats.c): mean, sample
 * standard deviation and standard error in x100 fixed point against
 * figures computed with floating point, the "mean±stderr" cells, and the
 * latency histogram's percentiles.
 */
#include "test.h"
#include "lib/stats.h"

#define ABSDIFF(a, b) ((a) > (b) ? (a) - (b) : (b) - (a))

TEST(stats_isqrt_exact_and_rounded)
{
	CHECK_EQ(stats_isqrt(0), 0);
	CHECK_EQ(stats_isqrt(1), 1);
	CHECK_EQ(stats_isqrt(15), 3);
	CHECK_EQ(stats_isqrt(16), 4);
	CHECK_EQ(stats_isqrt(UINT64_MAX), 4294967295ull);
	CHECK_EQ(stats_isqrt(1ull << 62), 1ull << 31);
	CHECK_EQ(stats_isqrt_round(12), 3);    /* 3.46 */
	CHECK_EQ(stats_isqrt_round(13), 4);    /* 3.61 */
	CHECK_EQ(stats_isqrt_round(UINT64_MAX), 4294967296ull);
	for (uint64_t x = 0; x < 100000; x += 7) {
		uint64_t r = stats_isqrt(x);
		CHECK(r * r <= x && (r + 1) * (r + 1) > x);
	}
}

TEST(stats_summary_small_sets)
{
	struct stats_summary s;
	const uint64_t a[] = { 1, 2, 3, 4 };
	CHECK_EQ(stats_summarize(a, 4, &s), 0);
	CHECK_EQ(s.n, 4);
	CHECK_EQ(s.mean_x100, 250);
	CHECK_EQ(s.sd_x100, 129);              /* 1.29099 */
	CHECK_EQ(s.se_x100, 65);               /* 0.64550 */
	CHECK_EQ(s.min, 1);
	CHECK_EQ(s.max, 4);
	const uint64_t b[] = { 500, 512, 488, 530, 470 };
	stats_summarize(b, 5, &s);
	CHECK_EQ(s.mean_x100, 50000);
	CHECK_EQ(s.sd_x100, 2285);             /* 22.8473 */
	CHECK_EQ(s.se_x100, 1022);             /* 10.2176 */
	const uint64_t c[] = { 7 };
	stats_summarize(c, 1, &s);
	CHECK_EQ(s.mean_x100, 700);
	CHECK_EQ(s.sd_x100, 0);
	CHECK_EQ(s.se_x100, 0);
	const uint64_t d[] = { 9, 9, 9 };
	stats_summarize(d, 3, &s);
	CHECK_EQ(s.sd_x100, 0);
}

TEST(stats_summary_rounds_the_mean)
{
	struct stats_summary s;
	const uint64_t a[] = { 1, 1, 2 };      /* 1.3333 */
	stats_summarize(a, 3, &s);
	CHECK_EQ(s.mean_x100, 133);
	const uint64_t b[] = { 1, 2, 2 };      /* 1.6667 */
	stats_summarize(b, 3, &s);
	CHECK_EQ(s.mean_x100, 167);
}

TEST(stats_summary_large_values_do_not_overflow)
{
	struct stats_summary s;
	/* Nanosecond figures of ~1000 s: squares of x100 deviations overflow
	 * 64 bits without the shift. */
	const uint64_t a[] = { 1000000000000ull, 1003000000000ull, 999000000000ull };
	stats_summarize(a, 3, &s);
	CHECK_EQ(s.mean_x100, 100066666666667ull);
	CHECK(ABSDIFF(s.sd_x100, 208166599947ull) < 1000);
	CHECK(ABSDIFF(s.se_x100, 120185042515ull) < 1000);
	uint64_t big[64];
	for (int i = 0; i < 64; i++)
		big[i] = (i & 1) ? STATS_VALUE_MAX - 1 : 0;
	stats_summarize(big, 64, &s);
	CHECK_EQ(s.mean_x100, (STATS_VALUE_MAX - 1) * 50);
	CHECK(s.sd_x100 > (STATS_VALUE_MAX - 1) * 50);         /* sd of a 0/max mix is > half max */
	CHECK(s.sd_x100 < (STATS_VALUE_MAX - 1) * 51);
	uint64_t huge[] = { UINT64_MAX, UINT64_MAX };
	stats_summarize(huge, 2, &s);
	CHECK_EQ(s.mean_x100, (STATS_VALUE_MAX - 1) * 100);    /* clamped */
}

TEST(stats_summary_rejects_empty)
{
	struct stats_summary s;
	uint64_t v = 3;
	CHECK(stats_summarize(&v, 0, &s) < 0);
	CHECK_EQ(s.n, 0);
}

TEST(stats_format_cells)
{
	char buf[64];
	struct stats_summary s = { 0 };
	stats_format(buf, sizeof buf, &s, 1, true);
	CHECK_STR(buf, "-");
	s = (struct stats_summary){ .n = 10, .mean_x100 = 50000, .se_x100 = 1240 };
	stats_format(buf, sizeof buf, &s, 1, true);
	CHECK_STR(buf, "500\xc2\xb1" "12");
	CHECK_EQ(stats_width(buf), 6);
	s.n = 1;
	stats_format(buf, sizeof buf, &s, 1, true);
	CHECK_STR(buf, "500");
	/* ns shown in ms: 4.23 ms +- 0.31 ms */
	s = (struct stats_summary){ .n = 3, .mean_x100 = 423000000ull, .se_x100 = 31000000ull };
	stats_format(buf, sizeof buf, &s, 1000000, true);
	CHECK_STR(buf, "4.2\xc2\xb1" "0.3");
	s = (struct stats_summary){ .n = 3, .mean_x100 = 99960, .se_x100 = 4 };
	stats_format(buf, sizeof buf, &s, 1, true);
	CHECK_STR(buf, "1000\xc2\xb1" "0");    /* 999.6 rounds up to whole units */
	s = (struct stats_summary){ .n = 2, .mean_x100 = 250, .se_x100 = 50 };
	stats_format(buf, sizeof buf, &s, 1, true);
	CHECK_STR(buf, "2.5\xc2\xb1" "0.5");
	stats_format(buf, sizeof buf, &s, 1, false);
	CHECK_STR(buf, "3\xc2\xb1" "1");      /* counts: whole numbers, as the seeds print them */
	CHECK_EQ(stats_scale_x100(150, 100), 2);
	CHECK_EQ(stats_scale_x100(149, 100), 1);
}

TEST(stats_hist_percentiles)
{
	static struct stats_hist h;
	memset(&h, 0, sizeof h);
	CHECK_EQ(stats_hist_percentile(&h, 990), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		stats_hist_add(&h, v * 1000);  /* 1 us .. 1 ms */
	CHECK_EQ(h.count, 1000);
	CHECK_EQ(h.max, 1000000);
	uint64_t p50 = stats_hist_percentile(&h, 500), p99 = stats_hist_percentile(&h, 990);
	CHECK(p50 >= 500000 && p50 <= 500000 + 500000 / 8);
	CHECK(p99 >= 990000 && p99 <= 1000000);
	CHECK_EQ(stats_hist_percentile(&h, 1000), 1000000);
	/* Small values are exact. */
	memset(&h, 0, sizeof h);
	for (int i = 0; i < 99; i++)
		stats_hist_add(&h, 3);
	stats_hist_add(&h, UINT64_MAX);
	CHECK_EQ(stats_hist_percentile(&h, 990), 3);
	CHECK_EQ(stats_hist_percentile(&h, 1000), UINT64_MAX);
}
