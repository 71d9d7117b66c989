/*
 * rt_time.c - clocks as plain integers.
 *
 * Workloads measure elapsed time with CLOCK_MONOTONIC in nanoseconds; a
 * static binary without libc has no vDSO hook, so every reading is a real
 * clock_gettime syscall. Callers read the clock once per burst of work, not
 * per page, to keep that cost out of the figures.
 */
#include "rt.h"

uint64_t rt_now_ns(void)
{
	struct rt_timespec ts = { 0, 0 };

	/* Cannot fail for CLOCK_MONOTONIC with a valid pointer; 0 if it does. */
	if (rt_clock_gettime(RT_CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t rt_timeval_us(const struct rt_timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ULL + (uint64_t)tv->tv_usec;
}
