/*
 * Page reclaim: kswapd, direct reclaim, the OOM killer, and the page
 * allocation entry point for user memory that drives them.
 *
 * Watermarks (pages of free memory): below `low` kswapd wakes and works
 * until `high`; user allocations never take the last `min` pages (kept
 * for the kernel's own allocations) and reclaim directly instead; when
 * reclaim frees nothing and no swap is left, the largest task is killed.
 */
#ifndef RECLAIM_H
#define RECLAIM_H

#include <stdint.h>
#include <stdbool.h>

struct page;

void reclaim_init(void);
/* Once the APs are online: a direct-reclaim context for each CPU (so that
 * as many tasks can reclaim at once), made at boot so that no run pays
 * for them in its memory balance. */
void reclaim_init_cpus(void);
/* A page for user memory (zeroed when zero is set).  May sleep and
 * reclaim; NULL only when the OOM killer chose the caller's task or
 * nothing at all can be freed. */
/* The process layer's OOM policy, registered at boot (the VM layer knows
 * no tasks): may_use_reserve says whether the current thread may take
 * frames below wm_min (kernel threads, tasks already dying: they free
 * memory soon); kill picks and kills a task to free memory, false when
 * nobody is left to kill (the allocation then takes the reserve).  Both
 * run in thread context and may sleep. */
struct reclaim_oom_policy {
	bool (*may_use_reserve)(void);
	bool (*kill)(void);
};
void reclaim_set_oom_policy(const struct reclaim_oom_policy *p);
struct page *alloc_user_page(bool zero);
/* The same for a page of a program's text: a frame that held code before
 * first (pmm.c, code frames). */
struct page *alloc_user_code_page(bool zero);
/* A page for swap read-ahead (not zeroed): never reclaims, never sleeps;
 * NULL when free memory is at the low watermark (skip the page).  window:
 * the pages of a confirmed stream's read-ahead window, 0 for any other
 * guess (kswapd is woken once they would take free memory under the low
 * watermark, and reclaims that many beyond the high one).  Thread
 * context. */
struct page *alloc_ra_page(uint64_t window);
/* The same for a page of an executable mapping (alloc_user_code_page). */
struct page *alloc_ra_code_page(uint64_t window);

/* Reclaim and teardown exclusion: held exclusively by address-space
 * and shmem teardown (and swapoff's walk of the objects), so the mm or
 * object a page points to cannot vanish under reclaim, whose rounds hold
 * it shared (any number at once).  Nests; may sleep; a round started by
 * the holder's own allocation runs inside its hold. */
void reclaim_lock(void);
void reclaim_unlock(void);

struct reclaim_knobs {
	uint64_t wm_min, wm_low, wm_high;       /* pages */
	unsigned batch;                         /* pages per swap-out batch */
	unsigned swappiness;                    /* 0..200: anon vs file scan balance (60) */
	bool used_once_swapbacked;              /* shmem counts as used more than once when referenced (on) */
	bool anon_used_once;                    /* anon gets the used-once treatment too (off; Linux 5.9+: on) */
	bool age_ahead;                         /* first looks before memory runs short (on) */
};
extern struct reclaim_knobs reclaim_knobs;

/* Swap is more than half full (Linux's vm_swap_full): a page brought
 * back or kept in memory should not also keep its slot. */
bool reclaim_swap_full(void);

/* A refault restored a page that had been active (workingset.c): that
 * side's reclaim was a mistake, its cost rises, and the anon/file split
 * leans away from it (Linux's lru_note_cost_refault).  Any context. */
void reclaim_note_refault_cost(bool file);

/* MADV_PAGEOUT (vm.c): swap out pages[0..n) now, whatever their
 * references (Linux's reclaim_pages, which ignores them): each is
 * written to swap and freed, or put back when it is busy (locked, under
 * writeback), still mapped somewhere after the unmap, or swap is full or
 * off.  Each page comes isolated (lru_isolate_page) and its reference is
 * consumed.  Counts pswpout, not pgscan/pgsteal (Linux neither).  Thread
 * context; sleeps for the writes. */
uint64_t reclaim_pageout(struct page **pages, int n);

/* Reclaim until `pages` are free (a test and swapoff helper). */
uint64_t reclaim_pages(uint64_t pages);

#endif
