/*
 * Workingset detection, the pure part (Linux mm/workingset.c, the
 * non-lru_gen path): shadow words and the refault-distance rule.
 * kernel/vm/workingset.c keeps the clock, the counters and the hooks.
 *
 * The clock (Linux's nonresident_age) counts pages leaving the inactive
 * lists: evictions and activations.  A page evicted at clock E that
 * faults back at clock R has refault distance R - E: had the inactive
 * lists been that many pages longer, it would still be resident.  The
 * active lists are the memory that could be given to the inactive ones,
 * so a refault whose distance fits in them is a page of the working set
 * that got squeezed out: it goes straight to the active list.
 *
 * A shadow is one 64-bit word, never 0 (0 means "no shadow"):
 *
 *   bit  0      1: a shadow
 *   bit  1      the page was shmem (else anonymous)
 *   bit  2      the page was in the working set when evicted (it had
 *               been on the active list: PG_WORKINGSET)
 *   bits 3..63  the clock at eviction, modulo 2^61
 *
 * 61 bits of clock: at a billion evictions a second it wraps after 73
 * years, so unlike Linux (which packs node and memcg ids into a
 * radix-tree value) no bucketing of the clock is needed.
 */
#ifndef WORKINGSET_POLICY_H
#define WORKINGSET_POLICY_H

#include <stdint.h>
#include <stdbool.h>

#define WS_CLOCK_BITS 61

struct ws_shadow {
	uint64_t eviction;      /* clock at eviction, modulo 2^WS_CLOCK_BITS */
	bool shmem;
	bool workingset;
};

uint64_t ws_pack(uint64_t clock, bool shmem, bool workingset);
/* false for 0 (no shadow). */
bool ws_unpack(uint64_t shadow, struct ws_shadow *out);
/* Pages that left the inactive lists between eviction and now (the clock
 * may have wrapped). */
uint64_t ws_distance(uint64_t now, uint64_t eviction);

/* The lists a refault competes with, in pages. */
struct ws_lists {
	uint64_t active_anon, active_shmem;
	bool swap_has_room;     /* free swap slots: anon/shmem can be evicted */
};

/* Linux's workingset size for an anonymous refault: the active lists of
 * the swap-backed pages, when swap has room to evict them (plus the file
 * lists, which this kernel does not have yet).  Anon and shmem are one
 * pool here (reclaim scans them in proportion to their sizes, as Linux
 * keeps shmem on its anon lists), so both active lists count, for a
 * refault of either kind. */
uint64_t ws_workingset_size(const struct ws_lists *l);
/* Activate a refaulting page: its distance fits in the workingset. */
bool ws_should_activate(uint64_t distance, uint64_t workingset_size);
/* A shadow (nonzero) whose page would not be activated were it to
 * refault now: its distance already exceeds the working set, and
 * distances only grow.  Such shadows are dropped to save memory (a
 * working set that grows later could have used a few of them). */
bool ws_shadow_stale(uint64_t shadow, uint64_t now, uint64_t workingset_size);

#endif
