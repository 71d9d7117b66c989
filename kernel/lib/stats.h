/*
 * Statistics for result tables and latency probes, in integers only (the
 * kernel is built with -mgeneral-regs-only: no floating point).  Pure
 * code, tested on the host.
 *
 * Fixed point: a figure "x100" holds the value times 100, rounded, so a
 * mean of 2.5 is 250.  Inputs are unsigned and below STATS_VALUE_MAX
 * (2^56: over two years in nanoseconds); larger ones are clamped.
 */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATS_VALUE_MAX (1ull << 56)
#define STATS_MAX_N     (1u << 20)

struct stats_summary {
	uint32_t n;
	uint64_t mean_x100;
	uint64_t sd_x100;       /* sample standard deviation (n - 1); 0 when n < 2 */
	uint64_t se_x100;       /* standard error of the mean: sd / sqrt(n) */
	uint64_t min, max;
};

/* Summarise v[0..n).  Returns 0, or -EINVAL for n == 0 or n > STATS_MAX_N
 * (*out is then zeroed). */
int stats_summarize(const uint64_t *v, uint32_t n, struct stats_summary *out);

/* floor(sqrt(x)) and sqrt(x) rounded to the nearest integer. */
uint64_t stats_isqrt(uint64_t x);
uint64_t stats_isqrt_round(uint64_t x);

/* "mean±stderr" in units of `unit` input units (1000000 turns ns into
 * ms), rounded to integers ("500±12"); with tenths, means below 10 units
 * get one decimal ("4.2±0.3").  Just the mean when n < 2; "-" when n == 0.
 * Returns the length (as snprintf). */
int stats_format(char *buf, size_t cap, const struct stats_summary *s, uint64_t unit, bool tenths);

/* x100 figure divided by unit, as hundredths rounded (for JSON decimals). */
uint64_t stats_scale_x100(uint64_t x100, uint64_t unit);

/* Columns a UTF-8 string takes on a terminal (one per code point). */
size_t stats_width(const char *s);

/* A latency histogram: exact below 16, then 8 buckets per power of two
 * (so a percentile is at most 12.5% above the true value). */
#define STATS_HIST_BUCKETS (16 + 60 * 8)
struct stats_hist {
	uint64_t count, max, sum;
	uint32_t bucket[STATS_HIST_BUCKETS];
};

void stats_hist_add(struct stats_hist *h, uint64_t v);
/* The value at or below which permille/1000 of the samples lie (the
 * bucket's upper bound, capped at the largest sample); 0 when empty. */
uint64_t stats_hist_percentile(const struct stats_hist *h, unsigned permille);

#endif
