/*
 * Workingset detection: the clock and the hooks (workingset.h); the rule
 * is pure, in workingset_policy.c.
 *
 * One clock for every kind (anon, shmem, file), as Linux 6.1 keeps one
 * nonresident_age per lruvec: reclaim takes from both sides (swappiness
 * and each side's cost, lru_scan_balance), so a page's distance counts
 * evictions and activations of any kind, and the rule compares it with
 * lists of both sides (ws_workingset_size).  The clock ticks where a
 * page leaves an inactive list: eviction (reclaim.c, pagecache.c), an
 * activation by reclaim or by a second buffered access
 * (pagecache_mark_accessed), and an activation at refault (here), as
 * Linux's nonresident_age does.  Aging the active lists does not tick it.
 *
 * Shadows of swap-backed pages live in the swap cache at the slot
 * (swapcache_evict, swapcache_take_shadow); shadows of file pages in the
 * page cache's index at the page's offset (pagecache.c), as Linux keeps
 * both in an xarray.  kernel/vm/README.md says more.
 *
 * Locking: none of its own; the clock and the switch are atomic words.
 */
#include "workingset.h"
#include "workingset_policy.h"
#include "lru.h"
#include "reclaim.h"
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

_Static_assert(WORKINGSET_REFAULT_FILE == WORKINGSET_REFAULT_ANON + WS_FILE &&
	       WORKINGSET_ACTIVATE_SHMEM == WORKINGSET_ACTIVATE_ANON + WS_SHMEM &&
	       WORKINGSET_ACTIVATE_FILE == WORKINGSET_ACTIVATE_ANON + WS_FILE &&
	       WORKINGSET_RESTORE_FILE == WORKINGSET_RESTORE_ANON + WS_FILE,
	       "vmstat's workingset counters follow enum ws_kind");

static uint64_t tick(void) { return __atomic_add_fetch(&W.clock, 1, __ATOMIC_RELAXED); }

static uint64_t workingset_size(bool file)
{
	uint64_t total, used;
	swap_slot_counts(&total, &used);
	struct ws_lists l = {
		.active_anon = lru_size(LRU_ANON, true) + lru_size(LRU_SHMEM, true),
		.inactive_anon = lru_size(LRU_ANON, false) + lru_size(LRU_SHMEM, false),
		.active_file = lru_size(LRU_FILE, true),
		.inactive_file = lru_size(LRU_FILE, false),
		.swap_has_room = used < total,
	};
	return ws_workingset_size(&l, file);
}

struct trim {
	uint64_t now, size;
};

static bool stale(uint64_t shadow, void *arg)
{
	const struct trim *t = arg;
	return ws_shadow_stale(shadow, t->now, t->size);
}

static enum ws_kind kind_of(const struct page *p)
{
	return page_test(p, PG_FILE) ? WS_FILE : page_test(p, PG_SHMEM) ? WS_SHMEM : WS_ANON;
}

/* Off: no shadow, so the run pays neither the memory nor the counting. */
uint64_t workingset_eviction(struct page *p)
{
	if (__atomic_load_n(&W.off, __ATOMIC_RELAXED))
		return 0;
	enum ws_kind kind = kind_of(p);
	uint64_t now = tick();
	if (kind != WS_FILE) {
		/* Shadows cost memory the working set could use (64 bytes
		 * each in the swap cache, so about one page of memory per 64
		 * shadows): drop the oldest ones that could no longer
		 * activate their page, a few per eviction, so their number
		 * follows the lists rather than RAM.  Measured: 160 MiB
		 * random through 48 MiB kept ~13000 shadows with only the
		 * RAM-pages bound, and took 0.7% more major faults than
		 * without.  File shadows are trimmed by the page cache
		 * (workingset_shadow_stale). */
		struct trim t = { now, workingset_size(false) };
		swapcache_trim_shadows(stale, &t, 4);
	}
	return ws_pack(now, kind, page_test(p, PG_WORKINGSET));
}

void workingset_activation(void) { tick(); }

/* Linux's workingset_refault: count the refault; when its distance fits
 * the lists it competes with, tick the clock (the page leaves an
 * inactive list it never joins), count the activation, and restore
 * PG_WORKINGSET, a refault of a page that had been active, which also
 * counts as cost of its side for the anon/file balance
 * (lru_note_cost_refault).  True: activate. */
static bool refault(struct page *p, uint64_t shadow, enum ws_kind *kind)
{
	struct ws_shadow s;
	if (__atomic_load_n(&W.off, __ATOMIC_RELAXED) || !ws_unpack(shadow, &s))
		return false;
	*kind = s.kind;
	vmstat_inc(WORKINGSET_REFAULT_ANON + s.kind);
	uint64_t now = __atomic_load_n(&W.clock, __ATOMIC_RELAXED);
	if (!ws_should_activate(ws_distance(now, s.eviction), workingset_size(s.kind == WS_FILE)))
		return false;
	tick();
	vmstat_inc(WORKINGSET_ACTIVATE_ANON + s.kind);
	if (s.workingset) {
		page_set(p, PG_WORKINGSET);
		vmstat_inc(WORKINGSET_RESTORE_ANON + s.kind);
		reclaim_note_refault_cost(s.kind == WS_FILE);
	}
	return true;
}

void workingset_refault(struct page *p)
{
	enum ws_kind kind;
	/* Off: no eviction left a shadow to take (one left from before a
	 * switch to off stays on the node, unread, until the page goes);
	 * the lookup cost every swap-in about 120 ns under -icount. */
	if (__atomic_load_n(&W.off, __ATOMIC_RELAXED))
		return;
	if (refault(p, swapcache_take_shadow(p), &kind))
		page_set(p, kind == WS_SHMEM ? PG_ACTIVATE_SHMEM : PG_ACTIVATE_ANON);
}

bool workingset_refault_file(struct page *p, uint64_t shadow)
{
	enum ws_kind kind;
	return refault(p, shadow, &kind);
}

void workingset_now_file(struct workingset_now *now)
{
	now->clock = __atomic_load_n(&W.clock, __ATOMIC_RELAXED);
	now->file_size = workingset_size(true);
}

bool workingset_shadow_stale(uint64_t shadow, const struct workingset_now *now)
{
	struct ws_shadow s;
	if (!ws_unpack(shadow, &s))
		return true;
	/* Evicted (on another CPU) after `now` was sampled: its distance
	 * would wrap to a huge one; it is the newest shadow, not stale. */
	uint64_t d = ws_distance(now->clock, s.eviction);
	if (d >> (WS_CLOCK_BITS - 1))
		return false;
	return !ws_should_activate(d, now->file_size);
}

uint64_t workingset_max_shadows(void)
{
	static uint64_t ram_pages;      /* [A] set once: RAM does not change */
	if (!__atomic_load_n(&ram_pages, __ATOMIC_RELAXED)) {
		struct pmm_stats st;
		pmm_get_stats(&st);
		__atomic_store_n(&ram_pages, st.total_pages, __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&ram_pages, __ATOMIC_RELAXED);
}

void workingset_set_enabled(bool on) { __atomic_store_n(&W.off, !on, __ATOMIC_RELAXED); }

bool workingset_enabled(void) { return !__atomic_load_n(&W.off, __ATOMIC_RELAXED); }
