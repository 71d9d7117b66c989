/*
 * The swap cache: swap entry -> page, so a page under I/O, or one whose
 * disk copy is still valid, has exactly one frame however many page-table
 * entries (or shmem slots) name its entry.  A cached page has
 * PG_SWAPCACHE, its entry in page->private, and one reference and one
 * swap-slot count owned by the cache.
 *
 * Seed 004's figures: add, find, find hits (find_hit / find = hit rate).
 */
#ifndef SWAPCACHE_H
#define SWAPCACHE_H

#include <stdint.h>
#include <stdbool.h>

struct page;

/* pages: the most pages the cache could ever hold (RAM pages); it only
 * caps how far the hash tables may grow.  cpus: how many CPUs may come
 * online (two shards per CPU, at most 64).  Each shard's table starts at
 * 64 buckets and doubles as entries arrive, so boot cost does not depend
 * on RAM.  Panics when not even those are available. */
void swapcache_init(uint64_t pages, uint32_t cpus);
/* Insert p (locked by the caller) for entry.  Takes a page reference and
 * a slot count.  -EEXIST if the entry is already cached. */
int swapcache_add(struct page *p, uint64_t entry);
/* The same for a read of entry: -ENOENT (nothing inserted) unless the
 * slot still holds data when its count is taken (swap_dup_if_data). */
int swapcache_add_read(struct page *p, uint64_t entry);
/* Remove p from the cache: drops the cache's page reference and slot
 * count.  The page must be locked. */
void swapcache_del(struct page *p);
/* The cached page for entry with a new reference, or NULL.  Counts a find
 * (and a hit) for the statistics when `count` is set. */
struct page *swapcache_lookup(uint64_t entry, bool count);
/* Whether a page is cached for entry now (no reference, no statistics):
 * a hint that may be stale as soon as it is returned. */
bool swapcache_cached(uint64_t entry);
/* swapcache_cached for entries[0..n) into cached[]: one hold of a
 * shard's lock for each run of entries in the same shard (a window's
 * slots, SHARD_SLOTS_SHIFT in swapcache.c), not one per entry. */
void swapcache_cached_many(const uint64_t *entries, uint32_t n, bool *cached);
/* swapcache_del for a page leaving memory: one still unused since
 * readahead brought it in counts as readahead waste. */
void swapcache_drop(struct page *p);
/* Drop a user's count of entry (a PTE or shmem slot going away), and the
 * cached page with it when the cache's count is all that is left and the
 * page is idle (unlocked, unmapped): Linux's free_swap_and_cache, so an
 * exiting task's read-ahead pages go back to the free lists at once rather
 * than waiting for reclaim.  Never sleeps. */
void swapcache_free_entry(uint64_t entry);
uint64_t swapcache_size(void);
/* Free the nodes the shards keep for reuse (the memory balance, before
 * it counts free frames: their slab pages go back). */
void swapcache_drain_spares(void);

/* Workingset shadows (kernel/vm/workingset.c makes and reads the words).
 * swapcache_drop for a page reclaim evicts: when others still hold its
 * slot, the slot keeps `shadow` (nonzero) until it is read back or freed.
 * The page must be locked, idle and unmapped. */
void swapcache_evict(struct page *p, uint64_t shadow);
/* The shadow the slot of p (just added by swapcache_add, locked) had
 * when p was added, once: 0 when none or already taken. */
uint64_t swapcache_take_shadow(struct page *p);
/* The slot is free: forget its shadow, if any (swap_free calls it).
 * Never sleeps. */
void swapcache_forget_shadow(uint64_t entry);
/* Drop up to max (at most 8) of the oldest shadows, as long as stale()
 * says they are of no more use.  stale runs under the cache's spinlock.
 * Returns how many went. */
int swapcache_trim_shadows(bool (*stale)(uint64_t shadow, void *arg), void *arg, int max);
/* Shadows kept now (at most RAM pages). */
uint64_t swapcache_shadows(void);
/* Up to max cached pages whose entry lies on `area`, each with a new
 * reference (for swapoff, which drops all it gets): shard by shard, in
 * list order within each (swapcache_walk rotates the lists).  Costs
 * O(max + shards), whatever the cache's size.  Returns how many. */
int swapcache_collect(unsigned area, struct page **out, int max);
/* A walk over every page cached on an area, max at a time, for a caller
 * that keeps some of them (swapcache_collect would return those again
 * and again): each call returns up to max pages, with a new reference,
 * that this walk has not returned, shard by shard; 0 at the end.  Each
 * page cached when the walk reaches its shard is returned once (pages
 * added or removed meanwhile may be missed or seen twice).  Start with
 * a zeroed struct swapcache_walk.  Costs what it returns, plus one pass
 * over each shard's list for the area. */
struct swapcache_walk {
	uint32_t shard;
	bool started;
	uint64_t left;          /* pages still to visit in this shard */
};
int swapcache_walk(unsigned area, struct swapcache_walk *w, struct page **out, int max);

#endif
