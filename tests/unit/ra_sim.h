/*
 * A readahead simulator for host tests: the kernel's policies (their
 * struct ra_ops, exactly as kernel/swap/readahead.c calls them) on synthetic
 * fault sequences.  See ra_sim.c for the model.
 */
#ifndef RA_SIM_H
#define RA_SIM_H

#include <stdint.h>
#include <stdbool.h>

enum ra_pattern {
	RA_SEQ, RA_SEQ_BACK, RA_RANDOM, RA_STRIDE3, RA_STRIDE16, RA_STRIDE4_SEQ_START, RA_TWO_STREAMS, RA_JUMPS,
	RA_SHIFTING, RA_MIXED, RA_BUILD, RA_FOUR_STREAMS, RA_NPATTERNS
};

/* Where pages sit in swap.  address: every page starts on disk at a slot
 * in address order (MIXED: the two regions' pages interleaved) and goes
 * back to that slot.  eviction: the program first writes all its pages
 * in address order (zero-filled, not counted), and each eviction writes
 * the next free slot after the last one written, as the kernel's cluster
 * allocator does: pages evicted together sit together, the layout slot
 * windows rely on, and it follows the access pattern as pages go and
 * come back. */
enum ra_layout { RA_LAYOUT_ADDRESS, RA_LAYOUT_EVICTION, RA_NLAYOUTS };

/* One judged run's conditions: printed with every failure. */
struct ra_trial {
	enum ra_layout layout;
	uint64_t seed;          /* the workload's random numbers */
	bool held_out;          /* a seed the policies were not tuned on */
};

struct ra_stats {
	uint64_t access, major, issued, hit, waste;
};

#define RA_SIM_PAGES 4096
#define RA_SIM_CAP 1024
#define RA_SIM_PASSES 3

/* Run policy (ra_parse's syntax; page_cluster 3, own budget 64) on the
 * pattern over pages (cap of them in memory).  Readahead pages still
 * unused at the end are left out of `issued`.  MIXED: region 0's stats
 * (the sequential task's), else the total. */
struct ra_stats ra_sim_run(const char *policy, enum ra_pattern pat, const struct ra_trial *t, uint32_t pages,
			   uint32_t cap);

const char *ra_pattern_name(enum ra_pattern pat);
const char *ra_layout_name(enum ra_layout l);

/* The trials a judged test runs: both layouts on the seed the policies
 * were tuned on and on RA_SIM_HELD_OUT seeds picked at test time from a
 * list the tuning never saw (a different pick each run).  SEED=<n> in the
 * environment runs that seed alone (both layouts); SEED=all every listed
 * seed.  Returns how many went to t (at most max). */
#define RA_SIM_HELD_OUT 3
#define RA_SIM_MAX_TRIALS 64
uint32_t ra_sim_trials(struct ra_trial *t, uint32_t max);

/* A failure with the trial's conditions and how to rerun it (in a TEST). */
void ra_sim_fail(const struct ra_trial *t, const char *file, int line, const char *test, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
#define RA_FAIL(t, ...) ra_sim_fail((t), __FILE__, __LINE__, __func__, __VA_ARGS__)

static inline double ra_ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }

#endif
