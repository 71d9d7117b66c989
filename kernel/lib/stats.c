/*
 * Integer statistics (see stats.h).
 *
 * Mean: summed as quotients and remainders of v/n, so no sum overflows.
 * Spread: two passes.  The squared deviations (in x100 units) could
 * overflow 64 bits for large figures, so deviations are shifted right by
 * the fewest bits that make n * max_dev^2 fit; the shift costs precision
 * only below 2^-31 of the largest deviation, far under what a table shows.
 */
#include <string.h>
#include "stats.h"
#include "printf.h"
#include "errno.h"

uint64_t stats_isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;
	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

uint64_t stats_isqrt_round(uint64_t x)
{
	uint64_t r = stats_isqrt(x);
	/* sqrt(x) >= r + 1/2  <=>  x >= r^2 + r + 1/4  <=>  x - r^2 > r */
	return x - r * r > r ? r + 1 : r;
}

static uint64_t clamp(uint64_t v) { return v < STATS_VALUE_MAX ? v : STATS_VALUE_MAX - 1; }

static uint64_t mean_x100(const uint64_t *v, uint32_t n)
{
	uint64_t q = 0, r = 0;
	for (uint32_t i = 0; i < n; i++) {
		q += clamp(v[i]) / n;
		r += clamp(v[i]) % n;
	}
	/* r < n^2 <= 2^40, so r * 100 fits. */
	return q * 100 + (r * 100 + n / 2) / n;
}

static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* Sum of squared deviations, shifted right by *shift bits each. */
static uint64_t squares(const uint64_t *v, uint32_t n, uint64_t m100, unsigned *shift)
{
	uint64_t maxd = 0, sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t d = absdiff(clamp(v[i]) * 100, m100);
		maxd = d > maxd ? d : maxd;
	}
	uint64_t lim = stats_isqrt(UINT64_MAX / n);
	unsigned s = 0;
	while ((maxd >> s) > lim)
		s++;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t d = absdiff(clamp(v[i]) * 100, m100) >> s;
		sum += d * d;
	}
	*shift = s;
	return sum;
}

int stats_summarize(const uint64_t *v, uint32_t n, struct stats_summary *out)
{
	memset(out, 0, sizeof *out);
	if (!n || n > STATS_MAX_N)
		return -EINVAL;
	out->n = n;
	out->mean_x100 = mean_x100(v, n);
	out->min = out->max = clamp(v[0]);
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = clamp(v[i]);
		out->min = x < out->min ? x : out->min;
		out->max = x > out->max ? x : out->max;
	}
	if (n < 2)
		return 0;
	unsigned s;
	uint64_t sq = squares(v, n, out->mean_x100, &s);
	out->sd_x100 = stats_isqrt_round(sq / (n - 1)) << s;
	out->se_x100 = stats_isqrt_round(sq / ((uint64_t)(n - 1) * n)) << s;
	return 0;
}

uint64_t stats_scale_x100(uint64_t x100, uint64_t unit)
{
	return unit ? (x100 + unit / 2) / unit : x100;
}

/* A x100 figure in display units: whole units, or tenths when small. */
static int fmt_fixed(char *buf, size_t cap, uint64_t x100, bool tenths)
{
	if (!tenths)
		return ksnprintf(buf, cap, "%llu", (unsigned long long)((x100 + 50) / 100));
	uint64_t t = (x100 + 5) / 10;
	return ksnprintf(buf, cap, "%llu.%llu", (unsigned long long)(t / 10), (unsigned long long)(t % 10));
}

int stats_format(char *buf, size_t cap, const struct stats_summary *s, uint64_t unit, bool tenths)
{
	if (!s->n)
		return ksnprintf(buf, cap, "-");
	uint64_t m = stats_scale_x100(s->mean_x100, unit), e = stats_scale_x100(s->se_x100, unit);
	tenths = tenths && m < 1000;
	char a[32], b[32];
	fmt_fixed(a, sizeof a, m, tenths);
	if (s->n < 2)
		return ksnprintf(buf, cap, "%s", a);
	fmt_fixed(b, sizeof b, e, tenths);
	return ksnprintf(buf, cap, "%s\xc2\xb1%s", a, b);
}

size_t stats_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* ------------------------------------------------------------ histogram */

static unsigned msb(uint64_t v)
{
	unsigned b = 0;
	while (v >>= 1)
		b++;
	return b;
}

static unsigned bucket_of(uint64_t v)
{
	if (v < 16)
		return (unsigned)v;
	unsigned m = msb(v);
	return 16 + (m - 4) * 8 + (unsigned)((v >> (m - 3)) & 7);
}

static uint64_t bucket_upper(unsigned i)
{
	if (i < 16)
		return i;
	unsigned m = (i - 16) / 8 + 4, sub = (i - 16) % 8;
	uint64_t step = 1ull << (m - 3);
	return ((8ull + sub) << (m - 3)) + step - 1;
}

void stats_hist_add(struct stats_hist *h, uint64_t v)
{
	h->bucket[bucket_of(v)]++;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

uint64_t stats_hist_percentile(const struct stats_hist *h, unsigned permille)
{
	if (!h->count)
		return 0;
	uint64_t rank = (h->count * permille + 999) / 1000, seen = 0;
	if (!rank)
		rank = 1;
	for (unsigned i = 0; i < STATS_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t u = bucket_upper(i);
			return u < h->max ? u : h->max;
		}
	}
	return h->max;
}
