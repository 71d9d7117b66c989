/*
 * A set of CPUs by index (struct cpu's id, 0 = the boot CPU), one bit
 * each, for CPUMASK_BITS CPUs (the MADT parser's limit, smp.h checks).
 * Plain operations for masks one owner builds (a thread's affinity,
 * under the scheduler lock); the _atomic forms for masks several CPUs
 * update at once (the CPUs that have an address space loaded).
 * Pure: the host tests build it.
 */
#ifndef CPUMASK_H
#define CPUMASK_H

#include <stdint.h>
#include <stdbool.h>

#define CPUMASK_BITS 256
#define CPUMASK_WORDS (CPUMASK_BITS / 64)

struct cpumask {
	uint64_t w[CPUMASK_WORDS];
};

static inline void cpumask_clear(struct cpumask *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		m->w[i] = 0;
}

/* CPUs 0..n-1 (n capped at CPUMASK_BITS). */
static inline void cpumask_fill(struct cpumask *m, unsigned n)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++) {
		unsigned lo = i * 64;
		m->w[i] = n >= lo + 64 ? ~0ull : n > lo ? (1ull << (n - lo)) - 1 : 0;
	}
}

static inline bool cpumask_test(const struct cpumask *m, unsigned cpu)
{
	return cpu < CPUMASK_BITS && (m->w[cpu / 64] >> (cpu % 64)) & 1;
}

static inline void cpumask_set(struct cpumask *m, unsigned cpu)
{
	if (cpu < CPUMASK_BITS)
		m->w[cpu / 64] |= 1ull << (cpu % 64);
}

static inline void cpumask_unset(struct cpumask *m, unsigned cpu)
{
	if (cpu < CPUMASK_BITS)
		m->w[cpu / 64] &= ~(1ull << (cpu % 64));
}

static inline void cpumask_set_atomic(struct cpumask *m, unsigned cpu)
{
	if (cpu < CPUMASK_BITS)
		__atomic_fetch_or(&m->w[cpu / 64], 1ull << (cpu % 64), __ATOMIC_SEQ_CST);
}

static inline void cpumask_unset_atomic(struct cpumask *m, unsigned cpu)
{
	if (cpu < CPUMASK_BITS)
		__atomic_fetch_and(&m->w[cpu / 64], ~(1ull << (cpu % 64)), __ATOMIC_SEQ_CST);
}

/* A consistent-enough copy of a mask others update atomically. */
static inline void cpumask_copy_atomic(struct cpumask *dst, const struct cpumask *src)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		dst->w[i] = __atomic_load_n(&src->w[i], __ATOMIC_SEQ_CST);
}

static inline void cpumask_and(struct cpumask *d, const struct cpumask *a, const struct cpumask *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		d->w[i] = a->w[i] & b->w[i];
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (m->w[i])
			return false;
	return true;
}

static inline unsigned cpumask_weight(const struct cpumask *m)
{
	unsigned n = 0;
	for (int i = 0; i < CPUMASK_WORDS; i++)
		n += (unsigned)__builtin_popcountll(m->w[i]);
	return n;
}

/* The first CPU at or after `from` in m, or CPUMASK_BITS if none. */
static inline unsigned cpumask_next(const struct cpumask *m, unsigned from)
{
	for (unsigned i = from; i < CPUMASK_BITS; i++) {
		uint64_t w = m->w[i / 64] >> (i % 64);
		if (w)
			return i + (unsigned)__builtin_ctzll(w);
		i |= 63;                /* rest of this word is empty */
	}
	return CPUMASK_BITS;
}

#define cpumask_for_each(cpu, m) \
	for (unsigned cpu = cpumask_next((m), 0); cpu < CPUMASK_BITS; cpu = cpumask_next((m), cpu + 1))

#endif
