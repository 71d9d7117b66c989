#include "test.h"
#include "lib/timemath.h"

TEST(timemath_exact_conversions)
{
	CHECK_EQ(ticks_to_ns(2462295654ull, 2462295654ull), 1000000000ull);
	CHECK_EQ(ticks_to_ns(1, 1000000000ull), 1);
	CHECK_EQ(ticks_to_ns(3, 3000000000ull), 1);
	CHECK_EQ(ns_to_ticks(1000000, 2000000000ull), 2000000);
	CHECK_EQ(ticks_to_ns(0, 0), 0);
	CHECK_EQ(muldiv64(7, 3, 2), 10);
}

TEST(timemath_no_overflow_at_4ghz_over_days)
{
	uint64_t hz = 4000000000ull;
	uint64_t ten_days = 10ull * 86400 * hz;         /* 3.456e15 ticks */
	CHECK_EQ(ticks_to_ns(ten_days, hz), 10ull * 86400 * 1000000000ull);
	uint64_t century = 100ull * 365 * 86400 * hz;   /* 1.26e19: near 2^64 ticks */
	CHECK_EQ(ticks_to_ns(century, hz), 100ull * 365 * 86400 * 1000000000ull);
	/* Round trip at an awkward frequency. */
	uint64_t odd = 2462295654ull, ns = 123456789012345ull;
	uint64_t back = ticks_to_ns(ns_to_ticks(ns, odd), odd);
	CHECK(ns - back <= 1);
	/* The largest tick count: no overflow, monotonic. */
	CHECK(ticks_to_ns(UINT64_MAX, hz) > ticks_to_ns(UINT64_MAX - hz, hz));
}

/* tick_rate_ns against ticks_to_ns: never below, at most 1 ns above, exact
 * where the ns are whole, monotonic, and no overflow at the largest tick
 * counts.  Frequencies from a 1 MHz reference to a 5 GHz
 * TSC, with this rig's odd calibrations among them. */
TEST(timemath_tick_rate_within_a_ns)
{
	static const uint64_t hzs[] = { 1000000ull, 3579545ull, 14318180ull, 100000000ull, 999994000ull,
					1000000000ull, 2462295654ull, 3000000000ull, 4000000000ull, 5000000000ull };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (unsigned h = 0; h < sizeof hzs / sizeof *hzs; h++) {
		struct tick_rate r;
		tick_rate_set(&r, hzs[h]);
		CHECK_EQ(r.hz, hzs[h]);
		CHECK_EQ(tick_rate_ns(&r, 0), 0);
		CHECK_EQ(tick_rate_ns(&r, hzs[h]), 1000000000ull);      /* a second of ticks: exact */
		uint64_t prev = 0;
		for (int i = 0; i < 200000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Up to ten years of ticks (results in 64 bits for
			 * every hz here), small counts more often. */
			uint64_t t = x % (i % 4 ? 1000000ull : 10ull * 365 * 86400 * hzs[h]);
			uint64_t want = ticks_to_ns(t, hzs[h]), got = tick_rate_ns(&r, t);
			if (!(got >= want && got - want <= 1)) {
				CHECK_EQ(got, want);
				return;
			}
		}
		for (uint64_t t = 1000000; t < 1000000 + 5000; t++) {
			uint64_t ns = tick_rate_ns(&r, t);
			CHECK(t == 1000000 || ns >= prev);
			prev = ns;
		}
	}
	/* Where 10^9 / hz is whole the fraction is 0 and every count exact. */
	struct tick_rate r;
	tick_rate_set(&r, 1000000ull);
	CHECK_EQ(r.whole, 1000);
	CHECK_EQ(r.frac, 0);
	CHECK_EQ(tick_rate_ns(&r, 123456789ull), 123456789000ull);
	/* The largest counts (results beyond 2^64 ns wrap, as ticks_to_ns's
	 * do): near 2^64 ticks at 4 GHz, 146 years, still within a ns. */
	tick_rate_set(&r, 4000000000ull);
	CHECK_EQ(r.whole, 0);
	CHECK_EQ(r.frac, 1ull << 62);
	CHECK(tick_rate_ns(&r, UINT64_MAX) - ticks_to_ns(UINT64_MAX, 4000000000ull) <= 1);
	/* A zeroed rate (not calibrated yet) gives 0, as ticks_to_ns(t, 0). */
	struct tick_rate z = { 0 };
	CHECK_EQ(tick_rate_ns(&z, 12345), 0);
	tick_rate_set(&z, 0);
	CHECK_EQ(tick_rate_ns(&z, 12345), 0);
}

TEST(timemath_elapsed_never_wraps)
{
	CHECK_EQ(ticks_elapsed(1005, 1000), 5);
	CHECK_EQ(ticks_elapsed(1000, 1000), 0);
	CHECK_EQ(ticks_elapsed(1000, 1005), 0);
	CHECK_EQ(ticks_elapsed(UINT64_MAX, 0), UINT64_MAX);
	/* What the raw difference did: a mark 5 ticks ahead of the TSC at a
	 * 999.994 MHz calibration became 110681 s of user time (a seed 003
	 * record showed 110708 s). */
	uint64_t raw = ticks_to_ns(1000 - 1005ull, 999994000ull);
	CHECK(raw > 110000ull * 1000000000ull && raw < 111000ull * 1000000000ull);
	CHECK_EQ(ticks_to_ns(ticks_elapsed(1000, 1005), 999994000ull), 0);
}

TEST(rate_median_ignores_a_stretched_window)
{
	/* Seven 1 ms windows at 2 GHz, one stretched to twice the rate by a
	 * stall and one squeezed: the median stays on the true rate. */
	uint64_t v[] = { 2000100000, 4020000000, 1999900000, 2000000000, 2000050000, 1500000000, 2000020000 };
	struct rate_summary s;
	rate_summarise(v, 7, &s);
	CHECK_EQ(s.median, 2000020000);
	CHECK_EQ(s.min, 1500000000);
	CHECK_EQ(s.max, 4020000000);
	CHECK_EQ(s.n, 7);
	CHECK_EQ(s.outliers, 2);
	CHECK_EQ(s.spread_ppm, 1259987);                /* 2.52e9 / 2.00002e9 */
	for (unsigned i = 1; i < 7; i++)
		CHECK(v[i - 1] <= v[i]);
}

TEST(rate_median_edge_sizes)
{
	struct rate_summary s;
	rate_summarise(NULL, 0, &s);
	CHECK_EQ(s.median, 0);
	CHECK_EQ(s.n, 0);
	uint64_t one[] = { 3579545 };
	rate_summarise(one, 1, &s);
	CHECK_EQ(s.median, 3579545);
	CHECK_EQ(s.spread_ppm, 0);
	CHECK_EQ(s.outliers, 0);
	uint64_t two[] = { 200, 100 };                  /* even n: the upper median */
	rate_summarise(two, 2, &s);
	CHECK_EQ(s.median, 200);
	CHECK_EQ(s.outliers, 1);
	uint64_t same[] = { 5, 5, 5, 5 };
	rate_summarise(same, 4, &s);
	CHECK_EQ(s.median, 5);
	CHECK_EQ(s.spread_ppm, 0);
}

TEST(rate_diff_ppm_saturates)
{
	CHECK_EQ(rate_diff_ppm(2020000000, 2000000000), 10000);
	CHECK_EQ(rate_diff_ppm(1980000000, 2000000000), 10000);
	CHECK_EQ(rate_diff_ppm(0, 0), 0);
	CHECK_EQ(rate_diff_ppm(1, 0), UINT32_MAX);
	CHECK_EQ(rate_diff_ppm(UINT64_MAX, 1), UINT32_MAX);
	CHECK_EQ(rate_diff_ppm(UINT64_MAX, UINT64_MAX - 1), 0);
}

TEST(timemath_timer_rescue_kinds)
{
	const uint64_t after = 50000000, tmax = 1000000;       /* 50 ms, 1 ms */
	/* Ticked meanwhile (overdue small or negative): a late tick. */
	CHECK_EQ(timer_rescue_kind(-577000, after, 0, 1000000, 10000, tmax, 0), RESCUE_HELD_OFF);
	CHECK_EQ(timer_rescue_kind(24999999, after, 0, 1000000, 10000, tmax, 1), RESCUE_HELD_OFF);
	/* Interrupts off half the time or more. */
	CHECK_EQ(timer_rescue_kind(60000000, after, 30000000, 1000000, 10000, tmax, 1), RESCUE_HELD_OFF);
	CHECK_EQ(timer_rescue_kind(60000000, after, 29999999, 1000000, 10000, tmax, 1), RESCUE_NOT_TAKEN);
	/* The rescuer's own tick as late: the whole machine was held back. */
	CHECK_EQ(timer_rescue_kind(60000000, after, 0, 30000000, 10000, tmax, 1), RESCUE_ALL_LATE);
	/* The rescue itself slow: this CPU was not run. */
	CHECK_EQ(timer_rescue_kind(60000000, after, 0, 1000000, 1000000, tmax, 1), RESCUE_NOT_RUN);
	CHECK_EQ(timer_rescue_kind(60000000, after, 0, 1000000, 999999, tmax, 1), RESCUE_NOT_TAKEN);
	/* Taken at once, interrupts on: lost interrupt, or a timer that never fired. */
	CHECK_EQ(timer_rescue_kind(60000000, after, 0, 1000000, 50000, tmax, 1), RESCUE_NOT_TAKEN);
	CHECK_EQ(timer_rescue_kind(60000000, after, 0, 1000000, 50000, tmax, 0), RESCUE_NOT_FIRED);
	/* Held off wins over the rest; all late over not run. */
	CHECK_EQ(timer_rescue_kind(60000000, after, 59000000, 59000000, 5000000, tmax, 0), RESCUE_HELD_OFF);
	CHECK_EQ(timer_rescue_kind(60000000, after, 0, 59000000, 5000000, tmax, 0), RESCUE_ALL_LATE);
	/* Extremes do not wrap. */
	CHECK_EQ(timer_rescue_kind(INT64_MAX, after, 0, 0, 0, tmax, 0), RESCUE_NOT_FIRED);
	CHECK_EQ(timer_rescue_kind(INT64_MIN, after, UINT64_MAX, UINT64_MAX, UINT64_MAX, tmax, 1), RESCUE_HELD_OFF);
	CHECK_EQ(timer_rescue_kind(60000000, after, UINT64_MAX, 0, 0, tmax, 1), RESCUE_HELD_OFF);
	CHECK_EQ(timer_rescue_kind(60000001, after, 30000000, 0, 0, tmax, 1), RESCUE_NOT_TAKEN);
}
