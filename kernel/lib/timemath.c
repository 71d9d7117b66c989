/*
 * Splitting a by c first keeps every intermediate below 2^64:
 * (a / c) * b is the exact whole part, and (a % c) * b < c * b.
 */
#include "timemath.h"

uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c)
{
	return (a / c) * b + ((a % c) * b) / c;
}

uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz) { return hz ? muldiv64(ticks, 1000000000ull, hz) : 0; }
uint64_t ns_to_ticks(uint64_t ns, uint64_t hz) { return muldiv64(ns, hz, 1000000000ull); }
