/*
 * rt_rand.c - xorshift64* pseudo-random numbers and a 64-bit mixer.
 *
 * Workloads need a fast, reproducible stream (a fixed seed gives the same
 * page sequence on our kernel and on Linux), not a cryptographic one. The
 * xorshift64* step (Marsaglia's shifts 12/25/27, Vigna's multiplier) passes
 * the usual statistical tests in its high bits, so rt_rng_below uses them.
 */
#include "rt.h"

#define RT_RNG_DEFAULT 0x9E3779B97F4A7C15ULL	/* any non-zero value */

void rt_rng_seed(struct rt_rng *rng, uint64_t seed)
{
	/* xorshift has a fixed point at 0, so scramble and avoid it. */
	rng->state = rt_mix64(seed);
	if (rng->state == 0)
		rng->state = RT_RNG_DEFAULT;
}

uint64_t rt_rng_next(struct rt_rng *rng)
{
	uint64_t x = rng->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng->state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * Roughly uniform in [0, bound). Small bounds scale the high 32 bits (the
 * strong ones) by multiply-shift; huge bounds fall back to a modulo.
 */
uint64_t rt_rng_below(struct rt_rng *rng, uint64_t bound)
{
	uint64_t r = rt_rng_next(rng);

	if (bound == 0)
		return 0;
	if (bound <= (1ULL << 32))
		return ((r >> 32) * bound) >> 32;
	return r % bound;
}

/* A bijective finaliser (splitmix64's): nearby inputs give unrelated outputs. */
uint64_t rt_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}
