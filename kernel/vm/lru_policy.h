/*
 * LRU aging decisions, pure: what to do with a page found at the tail of
 * an inactive or active list, and whether the inactive list is too short.
 * lru.c and reclaim.c apply the answers; tests drive them on simulated
 * page sets.  Modelled on Linux's shrink_page_list/shrink_active_list
 * (second chance for referenced inactive pages, activation for pages
 * referenced twice) and inactive_is_low.
 */
#ifndef LRU_POLICY_H
#define LRU_POLICY_H

#include <stdint.h>
#include <stdbool.h>

enum lru_verdict {
	LRU_RECLAIM,            /* unreferenced: evict */
	LRU_KEEP,               /* referenced once: second chance, back to the inactive head */
	LRU_ACTIVATE,           /* referenced again (or by several mappings): promote */
	LRU_DEACTIVATE,         /* active page not referenced: demote to inactive */
	LRU_ROTATE,             /* active and referenced: back to the active head */
};

/* A page at the inactive tail.  referenced_ptes: accessed bits found (and
 * cleared) in its page tables; was_referenced: its PG_REFERENCED flag;
 * swap_backed: anonymous or shmem (evicting it means a write);
 * unused_readahead: read ahead and not used yet, where PG_REFERENCED
 * means the readahead policy vouched for it (a confirmed stream's window):
 * it gets one more trip round the list (LRU_KEEP, and the caller does not
 * set the flag again), since a deep scan would otherwise evict a window
 * the stream is about to reach. */
enum lru_verdict lru_judge_inactive(unsigned referenced_ptes, bool was_referenced, bool swap_backed,
				    bool unused_readahead);
/* A page at the active tail.  file: a page-cache page; exec: one of
 * its referenced PTEs is in an executable mapping.  Linux 6.1's
 * shrink_active_list: a referenced file page rotates only when mapped
 * executable (code gets a second chance), any other file page goes
 * inactive, referenced or not (its references are judged again there).
 * Anonymous and shmem pages keep this project's rule (referenced:
 * rotate), not Linux's (which deactivates them all): their balance is
 * tuned against it (swap read-ahead, workingset), and it is not this
 * change's to move. */
enum lru_verdict lru_judge_active(unsigned referenced_ptes, bool file, bool exec);

/* Linux's ratio: inactive should be at least active / ratio, with
 * ratio = sqrt(10 * size in GiB), 1 below 1 GiB.  total_pages: the list
 * kind's whole size. */
bool lru_inactive_is_low(uint64_t inactive, uint64_t active, uint64_t total_pages);

/* How many pages to scan of each kind per round, Linux's get_scan_count
 * simplified: swappiness 0..200 weighs anon against file.  Without file
 * pages (as here) anon and shmem share the scan by their sizes. */
void lru_scan_split(uint64_t anon, uint64_t shmem, uint64_t want, uint64_t *scan_anon, uint64_t *scan_shmem);

/* Linux's page_check_references for a page referenced through a
 * mapping: does it count as used more than once at its first reference
 * (activate at once) or get the used-once treatment (a second trip round
 * the inactive list, activation at the second reference)?  Anonymous
 * pages: always more than once.  File pages: never.  Shmem pages (swap-
 * backed, not anonymous): per the knob used_once_swapbacked, on = Linux
 * 3.4's "mm: consider all swapped back pages in used-once logic",
 * off = commit 64574746 (2.6.34), which tested PageAnon and so let
 * streaming file I/O push a shmem database out.  Anonymous pages with
 * the knob anon_used_once on get the used-once treatment too: Linux
 * 5.9's "mm/vmscan: protect the workingset on anonymous LRU" (b518154e)
 * dropped the swap-backed test, so in the Linux 6.1 that linux-peer
 * boots a new or swapped-in anon page, which starts with the reference
 * of the fault that mapped it, needs a second one to be activated. */
bool lru_used_more_than_once(bool anon, bool shmem, bool used_once_swapbacked, bool anon_used_once);

/* First looks ahead of need (age_ahead): how many pages of an inactive
 * list of `inactive` pages an allocation gives their first look, with
 * `free` pages free.  Reclaim's first look at a page only clears the
 * accessed bit its fault left, so when the first reclaim finds every page
 * on the list still referenced it clears them all in one pass, with no
 * touch in between, and the second looks then come in the order the pages
 * were first faulted: a working set touched first goes first.  Looking
 * while memory is still free spreads that pass over the
 * total_pages / LRU_AGE_WINDOW_DIV allocations before free memory falls to
 * `floor`, which the caller sets above where reclaim keeps free memory
 * while it runs (so the looks stop once it does): enough per allocation to
 * get round the list in that window, at least one, at most LRU_AGE_MAX;
 * none outside it. */
#define LRU_AGE_WINDOW_DIV 16
#define LRU_AGE_MAX 64
uint32_t lru_age_ahead_looks(uint64_t free, uint64_t floor, uint64_t total_pages, uint64_t inactive);

/* Reclaim's verdict v on a page whose look ahead found it referenced
 * (age_referenced): evicting it needs one more trip without a reference,
 * as if that look had been reclaim's own, since a page used just before
 * the look is no older than one that was never used since its fault and
 * advised cold; LRU_KEEP for LRU_RECLAIM, v otherwise. */
enum lru_verdict lru_judge_aged(enum lru_verdict v, bool age_referenced);

/* The PG_REFERENCED mark's life, which 64574746's verdict on a shmem page
 * (used_once_swapbacked=off) depends on as much as on the verdict itself.
 * In 2.6.34..3.3, page_check_references marked every mapped page that was
 * not PageAnon when it found it referenced, kept or activated ("the mark
 * is set for activated pages as well so that recently deactivated but
 * used pages are quickly recovered"); shrink_active_list never cleared
 * it; and from 3.1 a shmem fault (swapped in or new) did not set it
 * (earlier shmem_fault called mark_page_accessed).  So a fresh shmem
 * page, new or just swapped back in, needed two trips round the inactive
 * list with a reference on each; once activated it came back at its
 * first reference.  That is the regression as the fix's changelog tells
 * it: the inactive anon list full of shmem pages, kept (referenced) on
 * their first round, so that reclaim found little to take, scanned harder
 * and swapped the database out; and each page swapped out came back
 * unmarked to go the long way again.
 *
 * lru_inactive_marks: after an inactive verdict on a page found
 * referenced_ptes times, is PG_REFERENCED set?  Pages used more than once
 * (anonymous unless anon_used_once; shmem with the fix) are activated
 * unmarked, the others
 * marked whether kept or activated (file pages only reach it kept).
 * lru_deactivate_keeps_mark: does an active page sent to the inactive
 * list keep its mark?  This project clears it (judged afresh down
 * there), except a shmem page with the knob off, as above.
 * lru_shmem_fault_marks: does a shmem fault mark the page it maps?  Yes
 * (the page is in use) except with the knob off, as above. */
bool lru_inactive_marks(unsigned referenced_ptes, bool used_more_than_once);
bool lru_deactivate_keeps_mark(bool shmem, bool used_once_swapbacked);
bool lru_shmem_fault_marks(bool used_once_swapbacked);

/* Anon/file scan balance, Linux 6.1's get_scan_count for the global
 * LRU: swappiness 0..200 weighs the swap-backed side (anon + shmem)
 * against file pages, each side's weight divided by its recent cost
 * (pages it had to rotate back or refault), and each list scanned in
 * proportion to its size times its weight.  No file pages: all on the
 * swap-backed side (swap or not: reclaim then frees only what needs no
 * write, as before file pages existed); may_swap false (no swap) or no
 * swap-backed pages: all on file.  want (< 2^20) is split exactly. */
struct lru_scan_cost {
	uint64_t anon, file;            /* recent rotations + refaults of each side */
};
void lru_scan_balance(uint64_t swapbacked, uint64_t file, unsigned swappiness, struct lru_scan_cost cost,
		      bool may_swap, uint64_t want, uint64_t *scan_swapbacked, uint64_t *scan_file);

#endif
