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
