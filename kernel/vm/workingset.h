/*
 * Workingset detection (Linux mm/workingset.c): every page reclaim evicts
 * leaves a shadow, at its swap slot (the swap cache keeps it) or, for a
 * file page, in the page cache's index at its offset; when the page is
 * read back, the refault distance says whether it would have stayed
 * resident had the lists it competes with given way, and such a page
 * goes straight to the active list.  The rule and the shadow word are in
 * workingset_policy.h; the counters are Linux's workingset_refault_*,
 * workingset_activate_*, workingset_restore_* (vmstat.h).
 *
 * workingset=off (knob): no shadows are left (no memory spent on them),
 * no refault counted, nothing activated: the kernel as it was without
 * workingset detection, for A/B runs.
 */
#ifndef WORKINGSET_H
#define WORKINGSET_H

#include <stdbool.h>
#include <stdint.h>

struct page;

/* Reclaim evicts p (locked, isolated; in the swap cache, or a file page
 * leaving its cache): ticks the clock, drops a few stale swap-cache
 * shadows and returns the shadow to leave at its slot (swapcache_evict)
 * or index (pagecache.c), or 0 (none) when off.  Never sleeps. */
uint64_t workingset_eviction(struct page *p);
/* A page left the inactive list for the active one (reclaim found it
 * referenced): ticks the clock, as an eviction does. */
void workingset_activation(void);
/* p (locked, just added to the swap cache for a read of its slot, not on
 * an LRU list yet) is a refault if its slot kept a shadow: counts it and,
 * when its distance fits in the working set, marks it for the active list
 * of its kind (PG_ACTIVATE_ANON/SHMEM: lru_add) and, when it was in the working
 * set at eviction, restores PG_WORKINGSET.  Never sleeps. */
void workingset_refault(struct page *p);

/* A file page p (locked, new, not on an LRU list yet) takes the index
 * slot where `shadow` was: a refault, counted (workingset_*_file); true
 * when it goes on the active file list.  Never sleeps; any lock. */
bool workingset_refault_file(struct page *p, uint64_t shadow);
/* The clock and a file refault's workingset size, sampled once for
 * judging many page-cache shadows (workingset_shadow_stale). */
struct workingset_now {
	uint64_t clock, file_size;
};
void workingset_now_file(struct workingset_now *now);
/* Could this file page's shadow no longer activate its page (distance
 * past the lists it would compete with, and distances only grow)?  The
 * page cache drops such shadows.  Never sleeps, takes no lock. */
bool workingset_shadow_stale(uint64_t shadow, const struct workingset_now *now);
/* The most shadows worth keeping of one kind: RAM pages (a shadow older
 * than RAM-pages evictions cannot fit in any list). */
uint64_t workingset_max_shadows(void);

void workingset_set_enabled(bool on);
bool workingset_enabled(void);

#endif
