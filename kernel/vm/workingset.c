/*
 * Workingset detection: the clock and the hooks (workingset.h); the rule
 * is pure, in workingset_policy.c.
 *
 * One clock for anon and shmem: reclaim takes both from one pool (their
 * inactive lists are scanned in proportion to their sizes), so a page's
 * distance counts evictions and activations of either kind.  The clock
 * ticks where a page leaves an inactive list: eviction (reclaim.c), an
 * activation by reclaim, and an activation at refault (here), as Linux's
 * nonresident_age does.  Aging the active lists does not tick it.
 *
 * Shadows live in the swap cache at the slot (swapcache_evict,
 * swapcache_take_shadow), not in the PTE or the shmem slot: every evicted
 * swap-backed page has a slot, the cache is already keyed by it, and a
 * refault is always a read into the cache, so one place serves both kinds
 * and readahead pages alike; kernel/vm/README.md says more.
 *
 * Locking: none of its own; the clock and the switch are atomic words.
 */
#include "workingset.h"
#include "workingset_policy.h"
#include "lru.h"
#include "vmstat.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "core/config.h"

/* Off by default: on the patterns measured (random touches and a
 * backward scan, anon and shmem, 48 MiB free) activation changed no
 * fault count, and the shadows' memory cost 0.25% (160 MiB random) to
 * 1.35% (64 MiB random) more major faults: reclaim here promotes every
 * page referenced once (lru_judge_inactive), so a refault would reach
 * the active list on its first scan anyway.  kernel/vm/README.md. */
static struct {
	uint64_t clock;         /* [A] evictions + activations (nonresident_age) */
	bool off;               /* [A] workingset=off */
} W = { 0, true };

static uint64_t tick(void) { return __atomic_add_fetch(&W.clock, 1, __ATOMIC_RELAXED); }

struct trim {
	uint64_t now, size;
};

static bool stale(uint64_t shadow, void *arg)
{
	const struct trim *t = arg;
	return ws_shadow_stale(shadow, t->now, t->size);
}

static uint64_t workingset_size(void);

/* Off: no shadow, so the run pays neither the memory nor the counting. */
uint64_t workingset_eviction(struct page *p)
{
	if (__atomic_load_n(&W.off, __ATOMIC_RELAXED))
		return 0;
	struct trim t = { tick(), workingset_size() };
	/* Shadows cost memory the working set could use (64 bytes each, so
	 * about one page of memory per 64 shadows): drop the oldest ones
	 * that could no longer activate their page, a few per eviction, so
	 * their number follows the active lists rather than RAM.  Measured:
	 * 160 MiB random through 48 MiB kept ~13000 shadows with only the
	 * RAM-pages bound, and took 0.7% more major faults than without. */
	swapcache_trim_shadows(stale, &t, 4);
	return ws_pack(t.now, page_test(p, PG_SHMEM), page_test(p, PG_WORKINGSET));
}

void workingset_activation(void) { tick(); }

static uint64_t workingset_size(void)
{
	struct ws_lists l = {
		.active_anon = lru_size(LRU_ANON, true),
		.active_shmem = lru_size(LRU_SHMEM, true),
		.swap_has_room = swap_used_slots() < swap_total_slots(),
	};
	return ws_workingset_size(&l);
}

void workingset_refault(struct page *p)
{
	struct ws_shadow s;
	if (__atomic_load_n(&W.off, __ATOMIC_RELAXED) || !ws_unpack(swapcache_take_shadow(p), &s))
		return;
	vmstat_inc(s.shmem ? WORKINGSET_REFAULT_SHMEM : WORKINGSET_REFAULT_ANON);
	uint64_t now = __atomic_load_n(&W.clock, __ATOMIC_RELAXED);
	if (!ws_should_activate(ws_distance(now, s.eviction), workingset_size()))
		return;
	page_set(p, s.shmem ? PG_ACTIVATE_SHMEM : PG_ACTIVATE_ANON);
	tick();
	vmstat_inc(s.shmem ? WORKINGSET_ACTIVATE_SHMEM : WORKINGSET_ACTIVATE_ANON);
	if (s.workingset) {
		page_set(p, PG_WORKINGSET);
		vmstat_inc(s.shmem ? WORKINGSET_RESTORE_SHMEM : WORKINGSET_RESTORE_ANON);
	}
}

void workingset_set_enabled(bool on) { __atomic_store_n(&W.off, !on, __ATOMIC_RELAXED); }

bool workingset_enabled(void) { return !__atomic_load_n(&W.off, __ATOMIC_RELAXED); }
