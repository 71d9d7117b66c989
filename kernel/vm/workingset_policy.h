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
 *   bit  0      1: a shadow (also what makes it a value entry in the
 *               page cache's index, pagecache_idx.h, as Linux's
 *               xa_mk_value)
 *   bits 1..2   the page's kind (enum ws_kind)
 *   bit  3      the page was in the working set when evicted (it had
 *               been on the active list: PG_WORKINGSET)
 *   bits 4..63  the clock at eviction, modulo 2^60
 *
 * 60 bits of clock: at a billion evictions a second it wraps after 36
 * years, so unlike Linux (which packs node and memcg ids into a
 * radix-tree value) no bucketing of the clock is needed.
 *
 * One clock for every kind, as Linux 6.1 keeps one nonresident_age per
 * lruvec for anon and file: reclaim takes from both sides (swappiness,
 * lru_scan_balance), so the pages between a file page's eviction and its
 * refault may have left either side's inactive list, and the rule below
 * compares the distance with lists of both sides.
 */
#ifndef WORKINGSET_POLICY_H
#define WORKINGSET_POLICY_H

#include <stdint.h>
#include <stdbool.h>

#define WS_CLOCK_BITS 60

enum ws_kind { WS_ANON = 0, WS_SHMEM = 1, WS_FILE = 2 };

struct ws_shadow {
	uint64_t eviction;      /* clock at eviction, modulo 2^WS_CLOCK_BITS */
	enum ws_kind kind;
	bool workingset;
};

uint64_t ws_pack(uint64_t clock, enum ws_kind kind, bool workingset);
/* false for 0 (no shadow). */
bool ws_unpack(uint64_t shadow, struct ws_shadow *out);
/* Pages that left the inactive lists between eviction and now (the clock
 * may have wrapped). */
uint64_t ws_distance(uint64_t now, uint64_t eviction);

/* The lists a refault competes with, in pages. */
struct ws_lists {
	uint64_t active_anon, inactive_anon;    /* anon + shmem: one pool (below) */
	uint64_t active_file, inactive_file;
	bool swap_has_room;     /* free swap slots: anon/shmem can be evicted */
};

/* Linux 6.1's workingset size (workingset_refault): the memory that could
 * have been given to the refaulting page's inactive list.
 *   anon or shmem refault: active file + inactive file
 *                          + (swap has room ? active anon : 0)
 *   file refault:          active file
 *                          + (swap has room ? active + inactive anon : 0)
 * A refault's own inactive list is what the distance measured already;
 * the other side's inactive list counts too, since reclaim could have
 * taken all of it instead; without swap room no anon page can give way.
 * Anon and shmem are one pool here (reclaim scans them in proportion to
 * their sizes, as Linux keeps shmem on its anon lists): their lists are
 * summed by the caller. */
uint64_t ws_workingset_size(const struct ws_lists *l, bool file);
/* Activate a refaulting page: its distance fits in the workingset. */
bool ws_should_activate(uint64_t distance, uint64_t workingset_size);
/* A shadow (nonzero) whose page would not be activated were it to
 * refault now: its distance already exceeds the working set, and
 * distances only grow.  Such shadows are dropped to save memory (a
 * working set that grows later could have used a few of them). */
bool ws_shadow_stale(uint64_t shadow, uint64_t now, uint64_t workingset_size);

#endif
