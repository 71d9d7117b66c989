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
