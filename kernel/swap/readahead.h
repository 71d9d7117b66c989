/*
 * Swap-in readahead: which swap entries to read along with a faulting one.
 *
 * Each policy is a pure struct ra_ops (ra_policy.h), which the unit tests'
 * simulator runs too; this layer calls it, holds the policies'
 * state (global, per VMA in vma->ra_state, per address space in mm->ra,
 * per shmem object in shmem->ra), turns a window into swap entries (slots
 * of the faulting area, or the entries found in the page table or the
 * shmem object for logical windows) and takes the feedback: a fault that
 * finds a readahead page in the swap cache (a hit, maybe the marker that
 * starts the next window), a readahead page reclaimed unused (waste: only
 * counted; no policy uses it), and whether the pages read only to fill
 * gaps between a stream window's slots get used (ra_filled, ra_fill_hit).
 *
 * Policies are selected at run time (ra_set_policy, knob "ra"); the
 * adaptive ones (hugh, shaohua, vma) are bounded by page_cluster as in
 * Linux.  Counters: vmstat swap_ra (pages read ahead), swap_ra_hit,
 * swap_ra_waste; per address space mm->ra_issued and mm->ra_hits.
 */
#ifndef READAHEAD_H
#define READAHEAD_H

#include <stdint.h>
#include <stdbool.h>

struct mm;
struct shmem;
struct page;

struct ra_fault {
	uint64_t entry;         /* the faulting swap entry */
	struct mm *mm;          /* NULL when not a fault (swapoff, madvise) */
	/* anonymous faults: */
	uint64_t va;
	uint64_t *vstate;       /* the VMA's ra_state (RA_VSTATE_WORDS), or NULL */
	uint64_t vlo, vhi;      /* the VMA's pages [vlo, vhi) */
	bool code;              /* the VMA is executable: the fault's page is text */
	/* shmem faults: */
	struct shmem *obj;
	uint64_t idx;
};

#define RA_PLAN_MAX 257            /* the largest window and the fault's page */

#define RA_STEP_NONE 0xffff     /* ra_item.step of an entry outside a logical window */
#define RA_STEP_FILL 0xfffe     /* ... of a slot between a window's (gap filling) */
/* A confirmed stream's window: its first RA_STREAM_NEXT steps are read
 * even when that takes reclaim (read_plan).  bench ra, profile none,
 * seeds 1, 4242, 77977, two runs each, interleaved: sequential 11.0 and
 * 11.0 major faults against 14.0 and 17.7 with every page of the window
 * from free memory only, backward 11.7 and 10.0 against 42.0 and 18.0,
 * stride:4 11.0 and 9.7 against 21.7 and 14.7, at the same task stime. */
#define RA_STREAM_NEXT 4
/* A run's window (ra_lwin.run: a confirmed stream's, or a run start's)
 * ends at its first page whose slot lies more than RA_WINDOW_FAR slots
 * from the slot of the page before it (or in another area), if at least
 * RA_WINDOW_MIN_STEPS steps come before that page (add_logical): the
 * pages past such a jump were evicted at another time, their slots are a
 * request of their own that gap filling (RA_FILL_GAP) cannot join, and
 * the stream's next (or first) window, which starts there, reads them
 * with what follows them in one.  touch's jumps:64
 * (64-page runs from random places over pages evicted by earlier runs)
 * sent 1476 read requests for 1143 windows under own, 333 of them from
 * windows split this way (235 by jumps of 256 slots and more), where
 * fixed:4's 16-slot blocks are one request each. */
#define RA_WINDOW_FAR 8
#define RA_WINDOW_MIN_STEPS 2

struct ra_item {
	uint64_t entry;
	struct page *page;      /* filled by the reader */
	uint16_t step;          /* its page's step in the logical window, RA_STEP_NONE or RA_STEP_FILL */
};

/* Entries to read.  v[0] is the faulting entry for a miss. */
struct ra_plan {
	uint32_t n, cap;
	bool has_fault;         /* v[0] is the fault's own entry */
	bool marker;            /* a confirmed stream's window: mark the first readahead page
				 * read (in v[] order) as its trigger, and vouch for its pages
				 * in reclaim (one more trip round the inactive list) */
	uint32_t nfill;         /* entries that only fill gaps between the window's
				 * slots (RA_STEP_FILL): read, not vouched for; the
				 * window is then in slot order (fill_gaps) */
	bool no_reclaim;        /* read-ahead pages from free memory only (ra_ops.no_reclaim:
				 * a confirmed stream's window) */
	void *space;            /* the policy state that chose a logical window, or NULL */
	struct spinlock *space_lock;    /* ... and the lock guarding it */
	uint64_t wstart;        /* ... and the window's first page (ra_window_cut) */
	struct ra_item v[];     /* cap <= RA_PLAN_MAX */
};

/* A major fault on f->entry: the plan to read (the caller gives it back
 * with ra_plan_free), or NULL: read the fault's page alone (no
 * readahead, or no memory for a plan). */
struct ra_plan *ra_miss(const struct ra_fault *f);
/* A fault found its page in the swap cache; readahead: the page was read
 * ahead and this is its first use; marker: it carried the marker.
 * Returns a plan to start reading without waiting, or NULL. */
struct ra_plan *ra_found(const struct ra_fault *f, bool readahead, bool marker);
/* Give a plan back (NULL: nothing).  Plans come from a small pool, not
 * the heap, so a fault's readahead costs no allocation. */
void ra_plan_free(struct ra_plan *p);
/* n pages were read only to fill gaps in a stream window's slots (plan
 * entries past n - nfill; the reader marks them PG_RA_FILL); a fault
 * found such a page: gap filling's feedback (ra_fill_room). */
void ra_filled(uint32_t n);
void ra_fill_hit(void);
/* A logical window was cut short: no memory for its pages from step
 * `steps` on (the reader trims it there), so the policy that chose it
 * learns what it really read. */
void ra_window_cut(const struct ra_plan *p, uint32_t steps);
/* A readahead page was reclaimed or dropped without being used (loose:
 * it was PG_RA_LOOSE); a fault found a PG_RA_LOOSE page.  The machine's
 * verdict on pages read outside streams (ra_loose_pays). */
void ra_waste(bool loose);
void ra_loose_hit(void);

/* "off", "fixed:N", "hugh", "shaohua", "vma", "own" (ra_policy.h).
 * fixed:N also sets page_cluster to N.  False on an unknown name. */
bool ra_set_policy(const char *spec);
const char *ra_policy_name(void);
/* Linux's vm.page-cluster (0..8): the bound of hugh, shaohua and vma. */
void ra_set_page_cluster(unsigned n);
unsigned ra_page_cluster(void);

/* Free an address space's or object's policy state. */
void ra_state_free(void *state);

#endif
