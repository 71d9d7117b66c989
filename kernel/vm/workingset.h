/*
 * Workingset detection (Linux mm/workingset.c): every page reclaim evicts
 * leaves a shadow at its swap slot (the swap cache keeps it); when the
 * slot is read back, the refault distance says whether the page would
 * have stayed resident had the active lists given way, and such a page
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

/* Reclaim evicts p (locked, isolated, in the swap cache): ticks the clock,
 * drops a few stale shadows and returns the shadow to leave at its slot
 * (swapcache_evict), or 0 (none) when off. */
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

void workingset_set_enabled(bool on);
bool workingset_enabled(void);

#endif
