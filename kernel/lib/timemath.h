/*
 * Clock arithmetic without 128-bit types or overflow: counter ticks at a
 * given frequency to and from nanoseconds.  Pure; unit-tested on the host.
 */
#ifndef TIMEMATH_H
#define TIMEMATH_H

#include <stdint.h>

/* (a * b) / c, exact (floor), provided (c - 1) * b < 2^64 and the result
 * fits in 64 bits. */
uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c);

/* ticks of a hz counter -> ns; exact to the ns for hz <= 18 GHz. */
uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz);
/* ns -> ticks of a hz counter. */
uint64_t ns_to_ticks(uint64_t ns, uint64_t hz);

#endif
