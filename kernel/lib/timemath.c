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

/* The fraction by long division, a bit at a time (no 128-bit division:
 * the kernel links no libgcc); rem < hz throughout, and rem is doubled
 * only when that stays below hz, so nothing overflows.  Rounded up: then
 * a count whose ns are whole (a second of ticks) converts exactly. */
void tick_rate_set(struct tick_rate *r, uint64_t hz)
{
	*r = (struct tick_rate){ .hz = hz };
	if (!hz)
		return;
	r->whole = 1000000000ull / hz;
	uint64_t rem = 1000000000ull % hz;
	for (int i = 0; i < 64; i++) {
		r->frac <<= 1;
		if (rem >= hz - rem) {
			rem -= hz - rem;
			r->frac |= 1;
		} else {
			rem <<= 1;
		}
	}
	if (rem)
		r->frac++;
}

static uint32_t sat_ppm(uint64_t diff, uint64_t base)
{
	if (!base)
		return diff ? UINT32_MAX : 0;
	/* diff can exceed base by any factor: divide first when it is large. */
	if (diff / base >= UINT32_MAX / 1000000u)
		return UINT32_MAX;
	return (uint32_t)muldiv64(diff, 1000000u, base);
}

uint32_t rate_diff_ppm(uint64_t a, uint64_t b) { return sat_ppm(a > b ? a - b : b - a, b); }

void rate_summarise(uint64_t *v, unsigned n, struct rate_summary *out)
{
	*out = (struct rate_summary){ .n = n };
	if (!n)
		return;
	for (unsigned i = 1; i < n; i++)                /* insertion sort: n is a handful */
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	out->min = v[0];
	out->max = v[n - 1];
	out->median = v[n / 2];
	out->spread_ppm = sat_ppm(out->max - out->min, out->median);
	for (unsigned i = 0; i < n; i++)
		out->outliers += rate_diff_ppm(v[i], out->median) > RATE_OUTLIER_PPM;
}

enum timer_rescue_kind timer_rescue_kind(int64_t overdue, uint64_t rescue_after, uint64_t irq_off,
					 uint64_t rescuer_gap, uint64_t transit, uint64_t transit_max,
					 int requested)
{
	uint64_t half = (uint64_t)overdue / 2 + (uint64_t)overdue % 2;      /* rounded up: no doubling to wrap */
	if (overdue < (int64_t)(rescue_after / 2) || irq_off >= half)
		return RESCUE_HELD_OFF;
	if (rescuer_gap >= half)
		return RESCUE_ALL_LATE;
	if (transit >= transit_max)
		return RESCUE_NOT_RUN;
	return requested ? RESCUE_NOT_TAKEN : RESCUE_NOT_FIRED;
}
