/*
 * Clock arithmetic without overflow: counter ticks at a given frequency to
 * and from nanoseconds.  Pure; unit-tested on the host.
 */
#ifndef TIMEMATH_H
#define TIMEMATH_H

#include <stdint.h>

/* (a * b) / c, exact (floor), provided (c - 1) * b < 2^64 and the result
 * fits in 64 bits. */
uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c);

/* ticks of a hz counter -> ns; exact to the ns for hz <= 18 GHz. */
uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz);
/*
 * The same conversion for a rate fixed at calibration, with multiplies
 * only: 10^9 / hz as a whole part and a 64-bit binary fraction (Linux's
 * clocksource mult/shift, with the shift at 64 so no tick count
 * overflows).  ticks_to_ns divides twice (muldiv64), and the TSC's
 * conversions run several times per fault (user/kernel accounting, the
 * fault's latency, context switches, each I/O request's time): on this
 * host's EPYC 4.2 ns a call against 0.4 ns for tick_rate_ns (10^8 calls
 * of each, -O2).  Never below ticks_to_ns and at most 1 ns above (the
 * fraction is rounded up: whole ns, a second of ticks say, come out
 * exact), and monotonic in ticks.  A zeroed tick_rate (hz 0)
 * gives 0, as ticks_to_ns does.
 */
struct tick_rate {
	uint64_t hz;
	uint64_t whole;         /* 10^9 / hz */
	uint64_t frac;          /* (10^9 mod hz) * 2^64 / hz, rounded up */
};
void tick_rate_set(struct tick_rate *r, uint64_t hz);
static inline uint64_t tick_rate_ns(const struct tick_rate *r, uint64_t ticks)
{
	return ticks * r->whole + (uint64_t)(((unsigned __int128)ticks * r->frac) >> 64);
}
/* ns -> ticks of a hz counter. */
uint64_t ns_to_ticks(uint64_t ns, uint64_t hz);
/* Ticks from mark to now; 0 when now is behind mark.  A raw now - mark
 * would wrap to nearly 2^64, and ticks_to_ns of that (beyond its range)
 * to any value at all: about 110700 s at 999.994 MHz.  Inline: every
 * user/kernel boundary takes it twice. */
static inline uint64_t ticks_elapsed(uint64_t now, uint64_t mark) { return now >= mark ? now - mark : 0; }

/*
 * Several measurements of one rate (a clock calibrated over several
 * windows): the median is the answer, because one window stretched by a
 * stall (an SMI, a host that descheduled the VM) must not move it.  The
 * spread is reported so a user can see how much the windows agreed.
 */
struct rate_summary {
	uint64_t median;                /* the upper median for even n */
	uint64_t min, max;
	uint32_t spread_ppm;            /* (max - min) / median, saturating */
	unsigned n;
	unsigned outliers;              /* windows more than RATE_OUTLIER_PPM from the median */
};
#define RATE_OUTLIER_PPM 10000u        /* 1% */

/* Sorts v[0..n) in place and fills *out; n == 0 gives all zeros. */
void rate_summarise(uint64_t *v, unsigned n, struct rate_summary *out);
/* |a - b| / b in ppm, saturating at UINT32_MAX; b == 0 gives UINT32_MAX
 * unless a == 0 too. */
uint32_t rate_diff_ppm(uint64_t a, uint64_t b);

/*
 * What an overdue one-shot timer that another CPU poked (a rescue) had
 * met, all times in ns: overdue (now minus the programmed firing; below
 * half the rescue threshold, or negative, when the CPU ticked meanwhile),
 * irq_off (the CPU's interrupt-off time since programming), rescuer_gap
 * (the rescuing CPU's own time since its previous tick), transit (from
 * the rescue's sending to its taking), and whether the timer's vector was
 * requested.  In that order of precedence: a tick held off by interrupts
 * (or just late), every CPU late alike, a CPU not run, and only then an
 * interrupt lost or a timer that never fired.
 */
enum timer_rescue_kind {
	RESCUE_HELD_OFF, RESCUE_ALL_LATE, RESCUE_NOT_RUN, RESCUE_NOT_TAKEN, RESCUE_NOT_FIRED, RESCUE_KINDS
};
enum timer_rescue_kind timer_rescue_kind(int64_t overdue, uint64_t rescue_after, uint64_t irq_off,
					 uint64_t rescuer_gap, uint64_t transit, uint64_t transit_max,
					 int requested);

#endif
