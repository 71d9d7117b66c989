/*
 * Reclaim: the LRU scanner, swap-out, kswapd, direct reclaim, OOM.
 *
 * One round (shrink): if an inactive list is short of its target
 * (lru_inactive_is_low), age the active list's tail: referenced pages
 * rotate, the others move to the inactive list.  Then isolate a batch from
 * the inactive tails (swap-backed against file pages by swappiness and
 * each side's recent cost, lru_scan_balance; anon and shmem in proportion
 * to their sizes) and
 * judge each page (lru_judge_inactive: second chance, activation, or
 * eviction).  Evicted pages that still have a valid disk copy (clean
 * swap-cache pages) are freed at once; the others get slots from the
 * current cluster (swap_alloc hands out runs of consecutive slots), are
 * unmapped (their PTEs or shmem slots now name the swap entry), and go out
 * as one write per run.  The round waits for its writes, then frees the
 * written pages; a failed write retires the slot and maps the page back,
 * so nothing is lost.  File pages go to the page cache
 * (pagecache_reclaim_page): clean ones are dropped, dirty ones have their
 * write started and are dropped at a later pass.
 *
 * Who runs it: kswapd, woken below the low watermark, until free memory is
 * back above the high one; and any task allocating below the min watermark
 * that waiting once for kswapd (woken or in its round: waited_for_kswapd)
 * did not help (direct reclaim), which stops at DIRECT_TARGET pages as
 * Linux's nr_to_reclaim does and retries its allocation.  Rounds run
 * concurrently, as Linux's do: each isolates its batch from the LRU under
 * the LRU lock and works on it in a context of its own (struct
 * reclaim_ctx), so no two rounds hold the same page.  They hold
 * reclaim_lock shared only: it keeps address spaces and shmem objects from
 * being torn down (exclusive holders) while a round follows reverse maps
 * into them.  Direct reclaimers beyond one per CPU wait for a context and
 * then look at free memory again: the one they waited for has usually
 * freed what they need (reclaim_direct_waited/_skipped).  kswapd steps back
 * while every CPU has a direct reclaimer in a round.
 *
 * Swap full: a page without a slot cannot go, so what a round can free is
 * the clean swap-cache pages nobody is about to use (a swap-cache page
 * someone holds a reference to, e.g. the page a fault is waiting for, is
 * never dropped: dropping it would make that fault read it again, and at
 * swap full that loop was a livelock).  When swap is more than half full
 * (reclaim_swap_full, Linux's vm_swap_full) a mapped page that stays keeps
 * no disk copy: its slot is freed for a page that has to go.  When a
 * round frees nothing, the allocation fails after a few tries and the
 * largest task is OOM-killed.
 *
 * Locks on the fault path (issue 14: a fault on one address space must
 * not wait for another's unless they share a page), in the order a
 * swap-in fault that ends in direct reclaim takes them:
 *
 *   lock             scope            held across I/O?
 *   mm->lock         per mm (rwsem)   no: swap-in drops it and waits for
 *                                     the page, then retries the fault
 *   page lock        per page         yes, the page's own read or write
 *   mm->vmas_lock    per mm           no (spinlock): reverse-map walks
 *   mm_ptl           per page table   no (spinlock; 64 stripes per mm)
 *   shmem s->lock    per object       no (spinlock)
 *   readahead lock   GLOBAL           no: the policies' state, short
 *   ra-plans         GLOBAL           no: a free-list of plans, short
 *   swapcache        GLOBAL           no: one hash table, short holds
 *   swap (S.lock)    GLOBAL           no: slot counts and the per-CPU
 *                                     cluster cursors (swapalloc.h): a
 *                                     batch's slots in one short hold
 *   lru              GLOBAL           no: isolation and putback of a
 *                                     batch, list operations only
 *   pcp list         per CPU          no; pmm (buddy) GLOBAL, once per
 *                                     pcp batch and at drains
 *   reclaim-excl     GLOBAL, SHARED   rounds hold it across their writes,
 *                                     but shared: only teardown (exit,
 *                                     munmap of a whole mm, shmem destroy,
 *                                     swapoff's walk) excludes them
 *   reclaim-pool     GLOBAL           no: takes or returns a context
 *   blk d->lock      per disk         no: queueing and completion
 *   swapin-latency   GLOBAL           no: a histogram update
 *
 * Until issue 14 reclaim was one mutex held across each round's writes,
 * so every direct reclaimer waited for the round in progress whatever
 * address space it faulted in; with two CPUs or more the waiters then
 * each reclaimed a full batch on top of what that round had freed.  The
 * global spinlocks left are short and never held across I/O; the "locks"
 * record shows their contention per class.
 */
#include <string.h>
#include "reclaim.h"
#include "lru.h"
#include "lru_policy.h"
#include "rmap.h"
#include "vm.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "shmem.h"
#include "pagecache.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vmstat.h"
#include "psi.h"
#include "workingset.h"
#include "core/console.h"
#include "core/record.h"
#include "core/config.h"
#include "core/panic.h"
#include "core/sched.h"
#include "core/wait.h"
#include "core/spinlock.h"
#include "mem/kmalloc.h"
#include "arch/x86_64/smpboot.h"
#include "lib/errno.h"

#define MAX_BATCH 256
#define MAX_RA_AHEAD 512        /* pages: two of the largest read-ahead windows */
/* Linux's SWAP_CLUSTER_MAX: what one direct reclaim call frees before it
 * lets its caller try the allocation again (nr_to_reclaim). */
#define DIRECT_TARGET 32
/* Direct reclaimers at once: one per online CPU, at most this many (each
 * holds a context of ~50 KiB; Linux throttles in too_many_isolated). */
#define MAX_DIRECT 64
#define MAX_FRESH_RUNS 16

struct reclaim_knobs reclaim_knobs;

/* Lock tags: [X] X.lock (the exclusion state), [P] P.lock (the context
 * pool), [C] the context's owner (the one reclaimer using it), [A]
 * atomic or single-word flag read without a lock, [I] set once at init,
 * read-only after. */
static struct {
	struct waitq kswapd_wq;
	volatile bool kswapd_wake;      /* [A] */
	volatile bool kswapd_busy;      /* [A] woken, until free memory is back above high */
	uint64_t kswapd_rounds;         /* [A] rounds (shrink calls) kswapd finished */
	struct waitq progress_wq;       /* allocations waiting for kswapd (kswapd_progress) */
	struct thread *kswapd;          /* [I] */
	uint64_t total_pages;           /* [I] */
	bool warned_write_error;        /* [A] exchanged once */
	/* [A] recent activations and refaults of each side (Linux's lru
	 * cost); updated with atomics by concurrent rounds; a decay racing
	 * an increment may lose that one increment, which the balance does
	 * not notice. */
	struct lru_scan_cost cost;
	uint64_t refault_cost[2];       /* [A] restores since split_file took them: [0] anon+shmem, [1] file */
	volatile int rounds;            /* [A] rounds in progress */
	volatile int direct;            /* [A] direct reclaimers in a round */
} R;

/* Teardown exclusion (reclaim_lock): rounds hold it shared, so any number
 * of them run at once; address-space and shmem teardown (and swapoff's
 * walk of the objects) hold it exclusively, so the mm or object a page's
 * reverse map names cannot vanish under a round.  A writer waiting keeps
 * new rounds out (teardown is what frees memory at OOM).  The exclusive
 * holder nests, and a round inside it (its allocation reclaims) runs as
 * part of it. */
static struct {
	struct spinlock lock;
	int readers;                    /* [X] rounds holding it */
	int writers_waiting;            /* [X] */
	struct thread *writer;          /* [X] the exclusive holder */
	int depth;                      /* [X] its nesting */
	struct waitq wq;
} X = { .lock = SPINLOCK_INIT("reclaim-excl") };

/* One page on its way out. */
struct victim {
	struct page *p;
	uint64_t entry;
	bool fresh;             /* its slot was allocated in this round */
	struct mm *mm;          /* anon: where it was mapped */
	uint64_t va, saved_pte;
};

struct reclaim_ctx;

struct wb {
	struct swap_io io;
	int status;
	struct reclaim_ctx *c;
};

/* Everything one round works on: the pages it isolated are its own (off
 * the LRU, PG_LRU clear), so rounds in different contexts never touch the
 * same page.  All fields [C]; wb_pending also written by completions. */
struct reclaim_ctx {
	struct victim batch[MAX_BATCH];
	struct page *iso[MAX_BATCH];
	bool victim_dirty[MAX_BATCH];
	/* PTEs made old or taken away by the rmap calls; flushed on every
	 * CPU that may cache them before the pages are judged again, written
	 * out or freed (one IPI round per batch: vm_tlb_flush). */
	struct tlb_batch tlb;
	/* The slot runs swap_alloc gave the batch being evicted (room for
	 * them off the stack). */
	struct swap_run fresh_runs[MAX_FRESH_RUNS];
	volatile int wb_pending;        /* [A] */
	struct waitq wb_wq;
	struct wb wbs[MAX_BATCH];
	int wb_of[MAX_BATCH];
	struct victim outgoing[MAX_BATCH];
	/* Pages judged to stay, on their way back to the lists (putback). */
	struct page *back[LRU_PUTBACK_MAX];
	uint32_t back_active;           /* bit i: back[i] goes on the active list */
	uint32_t nback;
	bool direct;
	bool busy;                      /* [P] */
};

/* Contexts: kswapd's own, and a pool for direct reclaimers with one per
 * online CPU (MAX_DIRECT at most), made at boot.  A direct reclaimer finding
 * none free waits for one, then looks at free memory again before it
 * scans: the reclaimer it waited for has usually freed enough. */
static struct reclaim_ctx kswapd_ctx;
static struct {
	struct spinlock lock;
	struct reclaim_ctx *ctx[MAX_DIRECT];    /* [P] */
	int n;                                  /* [P] */
	struct waitq wq;
} P = { .lock = SPINLOCK_INIT("reclaim-pool") };

/* ---------------------------------------------------------------- lock */

static bool excl_try(void *arg)
{
	struct thread *me = arg;
	bool on = spin_lock_irqsave(&X.lock);
	bool ok = !X.writer && !X.readers;
	if (ok) {
		X.writer = me;
		X.depth = 1;
		X.writers_waiting--;
	}
	spin_unlock_irqrestore(&X.lock, on);
	return ok;
}

void reclaim_lock(void)
{
	struct thread *me = current_thread();
	bool on = spin_lock_irqsave(&X.lock);
	if (X.writer == me) {
		X.depth++;
		spin_unlock_irqrestore(&X.lock, on);
		return;
	}
	X.writers_waiting++;
	spin_unlock_irqrestore(&X.lock, on);
	wait_event_timeout(&X.wq, excl_try, me, 0);
}

void reclaim_unlock(void)
{
	bool on = spin_lock_irqsave(&X.lock);
	bool last = --X.depth == 0;
	if (last)
		X.writer = NULL;
	spin_unlock_irqrestore(&X.lock, on);
	if (last)
		waitq_wake_all(&X.wq);
}

/* Shared hold for a round.  *nested: the caller holds it exclusively
 * already (nothing to take or drop). */
static bool shared_try(void *arg)
{
	bool *nested = arg;
	struct thread *me = current_thread();
	bool on = spin_lock_irqsave(&X.lock);
	bool ok = X.writer == me || (!X.writer && !X.writers_waiting);
	*nested = X.writer == me;
	if (ok && !*nested)
		X.readers++;
	spin_unlock_irqrestore(&X.lock, on);
	return ok;
}

static bool shared_lock(void)
{
	bool nested;
	wait_event_timeout(&X.wq, shared_try, &nested, 0);
	return nested;
}

static void shared_unlock(bool nested)
{
	if (nested)
		return;
	bool on = spin_lock_irqsave(&X.lock);
	bool last = --X.readers == 0;
	spin_unlock_irqrestore(&X.lock, on);
	if (last)
		waitq_wake_all(&X.wq);
}

/* ---------------------------------------------------------------- contexts */

static void ctx_init(struct reclaim_ctx *c)
{
	waitq_init(&c->wb_wq, "writeback");
	tlb_batch_init(&c->tlb);
}

/* A free pool context, or NULL. */
static struct reclaim_ctx *ctx_take(void)
{
	struct reclaim_ctx *c = NULL;
	bool on = spin_lock_irqsave(&P.lock);
	for (int i = 0; i < P.n && !c; i++)
		if (!P.ctx[i]->busy) {
			c = P.ctx[i];
			c->busy = true;
		}
	spin_unlock_irqrestore(&P.lock, on);
	return c;
}

/* Grow the pool to n contexts (MAX_DIRECT at most).  At boot only: a
 * context made during a run would count against that run's memory
 * balance (the frames it took never come back). */
static void ctx_add(int n)
{
	while (P.n < n && P.n < MAX_DIRECT) {
		struct reclaim_ctx *c = kzalloc(sizeof *c);
		if (!c)
			panic("reclaim: no memory for reclaim context %d", P.n);
		ctx_init(c);
		bool on = spin_lock_irqsave(&P.lock);
		P.ctx[P.n++] = c;
		spin_unlock_irqrestore(&P.lock, on);
	}
}

void reclaim_init_cpus(void)
{
	ctx_add(smp_cpus_online());
}

static void ctx_put(struct reclaim_ctx *c)
{
	bool on = spin_lock_irqsave(&P.lock);
	c->busy = false;
	spin_unlock_irqrestore(&P.lock, on);
	waitq_wake_all(&P.wq);
}

static bool ctx_free_or_memory(void *arg)
{
	struct reclaim_ctx **out = arg;
	if (pmm_free_pages() > reclaim_knobs.wm_min)
		return true;
	*out = ctx_take();
	return *out != NULL;
}

/* A context for a direct reclaimer, or NULL when free memory rose above
 * the min watermark while it waited (someone else reclaimed). */
static struct reclaim_ctx *ctx_get_direct(void)
{
	struct reclaim_ctx *c = ctx_take();
	if (c)
		return c;
	vmstat_inc(RECLAIM_DIRECT_WAITED);
	wait_event_timeout(&P.wq, ctx_free_or_memory, &c, 0);
	return c;
}

bool reclaim_swap_full(void)
{
	uint64_t total, used;
	if (!swap_enabled())
		return false;
	swap_slot_counts(&total, &used);
	return used * 2 > total;
}

/* ---------------------------------------------------------------- aging */

/* The pages a round keeps go back to the lists LRU_PUTBACK_MAX (32) at a
 * time, in one hold of the LRU lock (lru_putback_many), not one by one
 * through the CPU's add batch with a reference taken and dropped for
 * each.  Every round flushes before it ends (putback_flush at the end of
 * age_active, shrink_chunk and reclaim_pageout), within its hold of the
 * exclusion: shmem's destruction, which takes the exclusion, then finds
 * every page of a round on a list or in an add batch. */
static void putback_flush(struct reclaim_ctx *c)
{
	if (c->nback)
		lru_putback_many(c->back, c->back_active, c->nback);
	c->nback = 0;
	c->back_active = 0;
}

static void putback(struct reclaim_ctx *c, struct page *p, bool active)
{
	c->back_active |= (uint32_t)active << c->nback;
	c->back[c->nback++] = p;
	if (c->nback == LRU_PUTBACK_MAX)
		putback_flush(c);
}

/* Age up to `n` pages at the active tail: lru_judge_active says which
 * rotate (referenced ones; of file pages only those mapped executable)
 * and which move to the inactive list. */
static void age_active(struct reclaim_ctx *c, enum lru_kind kind, int n)
{
	uint64_t scanned = 0;
	struct page **iso = c->iso;
	n = lru_isolate(kind, true, iso, n < MAX_BATCH ? n : MAX_BATCH, &scanned);
	vmstat_add(PGREFILL, scanned);
	for (int i = 0; i < n; i++) {
		struct page *p = iso[i];
		if (!trylock_page(p)) {
			putback(c, p, true);    /* busy (I/O, a fault): leave it */
			continue;
		}
		bool exec;
		unsigned refs = rmap_referenced_exec(p, &c->tlb, &exec);
		unlock_page(p);
		if (lru_judge_active(refs, page_test(p, PG_FILE), exec) == LRU_ROTATE) {
			vmstat_inc(PGROTATED);
			putback(c, p, true);
		} else {
			if (!lru_deactivate_keeps_mark(page_test(p, PG_SHMEM), reclaim_knobs.used_once_swapbacked))
				page_clear(p, PG_REFERENCED);
			page_set(p, PG_WORKINGSET);     /* evicted later: a restore if it refaults */
			page_clear(p, PG_AGED | PG_AGE_REF);    /* back on the inactive list: looked at afresh */
			vmstat_inc(PGDEACTIVATE);
			putback(c, p, false);
		}
	}
	vm_tlb_flush(&c->tlb);
	putback_flush(c);       /* the inactive list gets them before it is scanned */
}

/* Keep each inactive list at its target size (lru_inactive_is_low). */
static void refill(struct reclaim_ctx *c, enum lru_kind kind, int chunk)
{
	if (lru_inactive_is_low(lru_size(kind, false), lru_size(kind, true), R.total_pages))
		age_active(c, kind, chunk);
}

/* ---------------------------------------------------------------- evict */

/* A locked, isolated page with a valid disk copy and no mapping left:
 * drop it.  Returns 1 (a page freed). */
static uint64_t drop_clean(struct page *p)
{
	swapcache_evict(p, workingset_eviction(p));     /* its slot keeps a shadow */
	unlock_page(p);
	put_page(p);
	return 1;
}

/* A locked swap-cache page that stays in memory, mapped, while swap is
 * more than half full: free its slot for a page that has to go (Linux's
 * try_to_free_swap on activation).  Its PTEs are read-only (vm.c): a
 * write now just makes them writable.  Only when the cache holds the
 * slot's last count (no swap PTE elsewhere still names it). */
static void free_swap_of_kept(struct page *p)
{
	if (page_test(p, PG_SWAPCACHE) && p->mapcount && !page_test(p, PG_WRITEBACK | PG_SHMEM) &&
	    swap_count(p->private) == 1 && reclaim_swap_full()) {
		swapcache_del(p);
		page_set(p, PG_DIRTY);
	}
}

static uint64_t queue_victim(struct reclaim_ctx *c, struct page *p, int *nb);

/* Lock an isolated page that is not under writeback, or put it back
 * on its list (someone holds it, or its write is still in flight). */
static bool lock_idle_or_putback(struct reclaim_ctx *c, struct page *p)
{
	if (!trylock_page(p)) {
		putback(c, p, false);
		return false;
	}
	if (page_test(p, PG_WRITEBACK)) {
		unlock_page(p);
		putback(c, p, false);
		return false;
	}
	return true;
}

/* Judge one isolated page.  Returns pages freed now; queues a page that
 * needs writing in batch[*nb]. */
static uint64_t judge(struct reclaim_ctx *c, struct page *p, int *nb)
{
	/* Reclaim's own look from now on; one the look ahead found
	 * referenced gets its extra trip (lru_judge_aged). */
	bool age_ref = page_test(p, PG_AGE_REF);
	page_clear(p, PG_AGED | PG_AGE_REF);
	if (!lock_idle_or_putback(c, p))
		return 0;
	unsigned refs = rmap_referenced(p, &c->tlb);
	bool shmem = page_test(p, PG_SHMEM);
	bool more = lru_used_more_than_once(!shmem, shmem, reclaim_knobs.used_once_swapbacked, reclaim_knobs.anon_used_once);
	enum lru_verdict v = lru_judge_aged(lru_judge_inactive(refs, page_test_clear(p, PG_REFERENCED), more,
							       page_test(p, PG_READAHEAD)), age_ref);
	if (v != LRU_RECLAIM) {
		if (v == LRU_ACTIVATE) {
			vmstat_inc(PGACTIVATE);
			__atomic_add_fetch(&R.cost.anon, 1, __ATOMIC_RELAXED);
			workingset_activation();
		}
		/* Second chance (an unused readahead page gets one only); a
		 * shmem page with the knob off keeps it when activated. */
		if (lru_inactive_marks(refs, more))
			page_set(p, PG_REFERENCED);
		free_swap_of_kept(p);
		unlock_page(p);
		putback(c, p, v == LRU_ACTIVATE);
		return 0;
	}
	return queue_victim(c, p, nb);
}

/* A locked, isolated swap-backed page that is to go: freed now (its disk
 * copy is valid and nobody maps it, or it is garbage), queued in
 * batch[*nb] for slots and a write, or put back (in use, no swap).
 * Returns pages freed now. */
static uint64_t queue_victim(struct reclaim_ctx *c, struct page *p, int *nb)
{
	if (page_test(p, PG_SHMEM) && !p->mapping) {
		/* Its object is gone (shmem's destroy clears the mapping of
		 * the pages it drops) while another reference kept the page,
		 * which then reached the lists: no slot names it, nobody can
		 * find it again.  Isolated and off the lists, it leaves as an
		 * orphan below; evicted as shmem it took kswapd to a #PF at
		 * address 0 in shmem_slot_to_swap (test_same_pages_smp2). */
		page_clear(p, PG_SHMEM);
		vmstat_inc(SHMEM_ORPHANS);
	}
	if (page_test(p, PG_SWAPCACHE) && !p->mapcount && !page_test(p, PG_SHMEM)) {
		/* References: ours (isolation) and the cache's; any other is
		 * a fault or swapoff about to map it. */
		if (__atomic_load_n(&p->refcount, __ATOMIC_ACQUIRE) > 2) {
			unlock_page(p);
			putback(c, p, false);
			return 0;
		}
		return drop_clean(p);           /* unused readahead, or its owner unmapped it */
	}
	if (!p->mapcount && !page_test(p, PG_SHMEM | PG_SWAPCACHE)) {
		unlock_page(p);                 /* unmapped while we held it: garbage */
		put_page(p);
		return 1;
	}
	if (!swap_enabled()) {
		unlock_page(p);
		putback(c, p, true);            /* nowhere to put it */
		return 0;
	}
	c->batch[*nb] = (struct victim){ .p = p, .entry = page_test(p, PG_SWAPCACHE) ? p->private : 0 };
	(*nb)++;
	return 0;
}

/* Give the pages without a slot one each, in as few runs as swap allows.
 * Returns how many of batch[] can go (the rest: swap is full). */
static int assign_slots(struct reclaim_ctx *c, int nb)
{
	struct victim *batch = c->batch;
	int need = 0;
	for (int i = 0; i < nb; i++)
		need += !batch[i].entry;
	struct swap_run *runs = c->fresh_runs;
	int nr = need ? swap_alloc(need, runs, MAX_FRESH_RUNS) : 0;
	int r = 0;
	uint32_t used = 0;
	for (int i = 0; i < nb; i++) {
		if (batch[i].entry)
			continue;
		if (r == nr) {
			/* Out of slots: move the pages that have one up front. */
			int k = i;
			for (int j = i + 1; j < nb; j++)
				if (batch[j].entry) {
					struct victim t = batch[k];
					batch[k++] = batch[j];
					batch[j] = t;
				}
			return k;
		}
		batch[i].entry = swp_entry(runs[r].area, runs[r].off + used);
		batch[i].fresh = true;
		if (++used == runs[r].count) {
			r++;
			used = 0;
		}
	}
	return nb;
}

static void give_back(struct reclaim_ctx *c, struct victim *v)
{
	if (v->fresh) {
		if (page_test(v->p, PG_SWAPCACHE))
			swapcache_del(v->p);
		swap_free(v->entry);
	}
	unlock_page(v->p);
	putback(c, v->p, true);
}

/* Unmap a batch page so that only the swap cache and our isolation hold
 * it, and its PTE or shmem slot names the swap entry.  Returns 0, or -1
 * when it has to stay (given back).
 *
 * Slot counts: a fresh slot comes with one count from the allocator,
 * which the PTE or shmem slot takes over; swapcache_add takes one for the
 * cache.  A page already cached gets a new count for its PTE or slot. */
static int unmap_victim(struct reclaim_ctx *c, struct victim *v, bool *dirty)
{
	struct page *p = v->p;
	*dirty = page_test_clear(p, PG_DIRTY) || v->fresh;
	if (v->fresh && swapcache_add(p, v->entry)) {
		give_back(c, v);
		return -1;
	}
	if (page_test(p, PG_SHMEM)) {
		bool d;
		rmap_unmap_shmem(p, &d, &c->tlb);
		*dirty |= d;
		if (!v->fresh)
			swap_dup(v->entry);
		if (!shmem_slot_to_swap(p->mapping, p->index, p, v->entry)) {
			if (!v->fresh)
				swap_free(v->entry);
			give_back(c, v);
			return -1;
		}
		put_page(p);                    /* the slot's page reference */
		return 0;
	}
	if (!p->mapcount) {
		if (v->fresh)
			swap_free(v->entry);    /* no PTE will hold the allocation's count */
		return 0;
	}
	bool d = false;
	if (!v->fresh)
		swap_dup(v->entry);
	if (rmap_unmap_anon(p, v->entry, &v->mm, &v->va, &v->saved_pte, &d, &c->tlb)) {
		if (!v->fresh)
			swap_free(v->entry);
		give_back(c, v);
		return -1;
	}
	*dirty |= d;
	return 0;
}

static void write_done(struct swap_io *io)
{
	struct wb *w = io->ctx;
	struct reclaim_ctx *c = w->c;
	w->status = io->status;
	__atomic_sub_fetch(&c->wb_pending, 1, __ATOMIC_ACQ_REL);
	waitq_wake_all(&c->wb_wq);
}

static bool writes_done(void *arg)
{
	struct reclaim_ctx *c = arg;
	return __atomic_load_n(&c->wb_pending, __ATOMIC_ACQUIRE) == 0;
}

static bool consecutive(uint64_t a, uint64_t b)
{
	return swp_area(a) == swp_area(b) && swp_offset(b) == swp_offset(a) + 1;
}

/* Submit w[] (sorted by entry) as one write per run; wait for them all. */
static void write_batch(struct reclaim_ctx *c, struct victim *w, int n)
{
	struct page *pages[MAX_BATCH];
	int nw = 0;
	c->wb_pending = 0;
	for (int i = 0; i < n;) {
		int j = i + 1, max = (int)swap_max_run(swp_area(w[i].entry));
		while (j < n && j - i < max && consecutive(w[j - 1].entry, w[j].entry))
			j++;
		for (int k = i; k < j; k++) {
			pages[k - i] = w[k].p;
			c->wb_of[k] = nw;
		}
		struct wb *b = &c->wbs[nw++];
		*b = (struct wb){ .io = { .done = write_done, .ctx = b }, .c = c };
		__atomic_add_fetch(&c->wb_pending, 1, __ATOMIC_ACQ_REL);
		if (swap_write_run(swp_area(w[i].entry), swp_offset(w[i].entry), pages, (uint32_t)(j - i), &b->io)) {
			b->status = -EIO;
			__atomic_sub_fetch(&c->wb_pending, 1, __ATOMIC_ACQ_REL);
		}
		i = j;
	}
	sched_io_wait_begin();
	wait_event_timeout(&c->wb_wq, writes_done, c, 0);
	sched_io_wait_end();
}

static void write_failed(struct reclaim_ctx *c, struct victim *v)
{
	struct page *p = v->p;
	vmstat_inc(SWAP_WRITE_ERRORS);
	if (!__atomic_exchange_n(&R.warned_write_error, true, __ATOMIC_RELAXED)) {
		kprintf("swap: %s: write of slot %lu failed: slot retired, page kept in memory "
			"(further write errors are only counted)\n", swap_dev_name(swp_area(v->entry)), swp_offset(v->entry));
	}
	swap_retire(v->entry);
	if (page_test(p, PG_SHMEM)) {
		if (shmem_slot_replace(p->mapping, p->index, v->entry, p))
			swap_free(v->entry);
	} else if (v->mm && rmap_restore_anon(v->mm, v->va, p, v->entry, v->saved_pte)) {
		swap_free(v->entry);
	}
	swapcache_del(p);
	page_set(p, PG_DIRTY);
	unlock_page(p);
	putback(c, p, true);
}

/* After its write: free the page unless someone took it back meanwhile. */
static uint64_t written(struct reclaim_ctx *c, struct victim *v)
{
	struct page *p = v->p;
	vmstat_inc(PSWPOUT);
	vmstat_add(PGPGOUT, 4);
	/* References now: ours (isolation) and the cache's. */
	if (!p->mapcount && __atomic_load_n(&p->refcount, __ATOMIC_ACQUIRE) == 2)
		return drop_clean(p);
	if (page_test(p, PG_SHMEM)) {
		/* Its slot names the swap copy now: the page is the swap
		 * cache's alone (a fault takes it back through the cache),
		 * so it must not point back at an object that may die. */
		page_clear(p, PG_SHMEM);
		page_set(p, PG_ANON);
		p->mapping = NULL;
		p->index = 0;
	}
	unlock_page(p);
	putback(c, p, true);
	return 0;
}

static void sort_by_entry(struct victim *v, int n)
{
	for (int i = 1; i < n; i++) {
		struct victim t = v[i];
		int j = i - 1;
		for (; j >= 0 && v[j].entry > t.entry; j--)
			v[j + 1] = v[j];
		v[j + 1] = t;
	}
}

/* Slots, unmapping and writes for batch[0..nb).  Returns pages freed. */
static uint64_t evict(struct reclaim_ctx *c, int nb)
{
	struct victim *batch = c->batch, *outgoing = c->outgoing;
	int ok = assign_slots(c, nb);
	for (int i = ok; i < nb; i++) {
		unlock_page(batch[i].p);
		putback(c, batch[i].p, true);
	}
	int nw = 0;
	uint64_t freed = 0;
	/* Unmap all, flush the TLBs once, then look at the contents: a CPU
	 * could write through a stale entry until the flush. */
	for (int i = 0; i < ok; i++)
		if (unmap_victim(c, &batch[i], &c->victim_dirty[i]))
			batch[i].p = NULL;      /* given back */
	vm_tlb_flush(&c->tlb);
	for (int i = 0; i < ok; i++) {
		bool dirty = c->victim_dirty[i];
		if (!batch[i].p)
			continue;
		if (!dirty) {
			freed += drop_clean(batch[i].p);
			continue;
		}
		swap_crc_store(batch[i].entry, batch[i].p);
		page_set(batch[i].p, PG_WRITEBACK);
		outgoing[nw++] = batch[i];
	}
	sort_by_entry(outgoing, nw);
	if (nw)
		write_batch(c, outgoing, nw);
	for (int i = 0; i < nw; i++) {
		page_clear(outgoing[i].p, PG_WRITEBACK);
		if (c->wbs[c->wb_of[i]].status)
			write_failed(c, &outgoing[i]);
		else
			freed += written(c, &outgoing[i]);
	}
	return freed;
}

/* ---------------------------------------------------------------- rounds */

/* An isolated inactive file page: dropped (1) or put back.  Mapped ones
 * (a device's mmap) are judged by their accessed bits with the file
 * rules of lru_judge_inactive (used once: another trip; twice: active),
 * and unmapped before they go; unmapped ones were judged when read
 * (pagecache_mark_accessed) and go. */
static uint64_t judge_file(struct reclaim_ctx *c, struct page *p)
{
	bool activate;
	if (p->mapcount) {
		if (!trylock_page(p)) {
			putback(c, p, false);
			return 0;
		}
		unsigned refs = rmap_referenced(p, &c->tlb);
		enum lru_verdict v = lru_judge_inactive(refs, page_test_clear(p, PG_REFERENCED), false, false);
		if (v != LRU_RECLAIM) {
			if (v == LRU_ACTIVATE) {
				vmstat_inc(PGACTIVATE);
				__atomic_add_fetch(&R.cost.file, 1, __ATOMIC_RELAXED);
				workingset_activation();
			} else {
				page_set(p, PG_REFERENCED);
			}
			unlock_page(p);
			putback(c, p, v == LRU_ACTIVATE);
			return 0;
		}
		bool dirty;
		rmap_unmap_file(p, &dirty, &c->tlb);
		/* No CPU may write through a stale entry once the page is
		 * dropped or its write-back starts. */
		vm_tlb_flush(&c->tlb);
		if (dirty)
			pagecache_set_page_dirty(p);
		unlock_page(p);
	}
	if (pagecache_reclaim_page(p, &activate))
		return 1;
	putback(c, p, activate);
	return 0;
}

void reclaim_note_refault_cost(bool file) { __atomic_add_fetch(&R.refault_cost[file], 1, __ATOMIC_RELAXED); }

static uint64_t kind_size(enum lru_kind k) { return lru_size(k, false) + lru_size(k, true); }

/* How many of `chunk` go to the swap-backed lists (the rest: file).
 * The costs decay as Linux's lru_note_cost does, halved once they pass a
 * quarter of the lists, so old history fades. */
static uint64_t split_file(int chunk)
{
	uint64_t sb, sf, backed = kind_size(LRU_ANON) + kind_size(LRU_SHMEM), file = kind_size(LRU_FILE);
	/* Refaults are noted apart; fold them in here. */
	uint64_t ra = __atomic_exchange_n(&R.refault_cost[0], 0, __ATOMIC_RELAXED);
	uint64_t rf = __atomic_exchange_n(&R.refault_cost[1], 0, __ATOMIC_RELAXED);
	struct lru_scan_cost cost = { __atomic_add_fetch(&R.cost.anon, ra, __ATOMIC_RELAXED),
				      __atomic_add_fetch(&R.cost.file, rf, __ATOMIC_RELAXED) };
	if (cost.anon + cost.file > (backed + file) / 4) {
		cost.anon /= 2;
		cost.file /= 2;
		__atomic_store_n(&R.cost.anon, cost.anon, __ATOMIC_RELAXED);
		__atomic_store_n(&R.cost.file, cost.file, __ATOMIC_RELAXED);
	}
	/* Linux's can_reclaim_anon_pages: free swap slots, not just swap. */
	uint64_t total = 0, used = 0;
	if (swap_enabled())
		swap_slot_counts(&total, &used);
	bool may_swap = used < total;
	lru_scan_balance(backed, file, reclaim_knobs.swappiness, cost, may_swap, (uint64_t)chunk, &sb, &sf);
	return sb;
}

/* One chunk: age the active lists if needed, then judge up to `chunk`
 * inactive pages.  Returns pages freed; adds to *scanned. */
static uint64_t shrink_chunk(struct reclaim_ctx *c, int chunk, uint64_t *scanned)
{
	bool direct = c->direct;
	struct page **iso = c->iso;
	refill(c, LRU_ANON, chunk);
	refill(c, LRU_SHMEM, chunk);
	refill(c, LRU_FILE, chunk);
	uint64_t sb = split_file(chunk), sf = (uint64_t)chunk - sb, fscan = 0;
	int nf = sf ? lru_isolate(LRU_FILE, false, iso, (int)sf, &fscan) : 0;
	if (!nf && sf && lru_size(LRU_FILE, true))
		age_active(c, LRU_FILE, (int)sf);
	vmstat_add(PGSCAN_FILE, fscan);
	vmstat_add(direct ? PGSCAN_DIRECT : PGSCAN_KSWAPD, fscan);
	uint64_t ffreed = 0;
	for (int i = 0; i < nf; i++)
		ffreed += judge_file(c, iso[i]);
	putback_flush(c);
	vmstat_add(PGSTEAL_FILE, ffreed);
	vmstat_add(direct ? PGSTEAL_DIRECT : PGSTEAL_KSWAPD, ffreed);
	*scanned += fscan;
	chunk = (int)sb;
	if (!chunk)
		return ffreed;
	uint64_t sa, ss, sc = 0;
	/* Split by each kind's whole size, not its inactive list's: anon and
	 * shmem are one pool (Linux keeps them on one list), and a kind whose
	 * pages are mostly active (refaults activated by workingset.c) must
	 * not push the scan onto the other's few inactive pages: by inactive
	 * sizes, a shmem run near its fit evicted the program's own hot anon
	 * pages and took 4% more major faults with workingset on. */
	lru_scan_split(lru_size(LRU_ANON, false) + lru_size(LRU_ANON, true),
		       lru_size(LRU_SHMEM, false) + lru_size(LRU_SHMEM, true), (uint64_t)chunk, &sa, &ss);
	int n = lru_isolate(LRU_ANON, false, iso, (int)sa, &sc);
	n += lru_isolate(LRU_SHMEM, false, iso + n, (int)ss, &sc);
	if (!n && (lru_size(LRU_ANON, true) || lru_size(LRU_SHMEM, true))) {
		/* Nothing inactive: everything was promoted; age harder. */
		age_active(c, LRU_ANON, chunk);
		age_active(c, LRU_SHMEM, chunk);
	}
	vmstat_add(direct ? PGSCAN_DIRECT : PGSCAN_KSWAPD, sc);
	*scanned += sc;
	uint64_t freed = 0;
	int nb = 0;
	for (int i = 0; i < n; i++)
		freed += judge(c, iso[i], &nb);
	vm_tlb_flush(&c->tlb);
	putback_flush(c);       /* the kept ones back before evict waits for its writes */
	if (nb)
		freed += evict(c, nb);
	putback_flush(c);
	vmstat_add(direct ? PGSTEAL_DIRECT : PGSTEAL_KSWAPD, freed);
	return freed + ffreed;
}

/* Reclaim `want` pages, scanning harder as Linux's priority falls from 12
 * (1/4096 of the lists per pass) to 0 (all of them).  The caller holds
 * the exclusion shared (shared_lock): rounds in other contexts run at the
 * same time, each on the pages it isolated. */
static uint64_t shrink(struct reclaim_ctx *c, uint64_t want)
{
	if (__atomic_fetch_add(&R.rounds, 1, __ATOMIC_ACQ_REL))
		vmstat_inc(RECLAIM_OVERLAP);
	uint64_t freed = 0;
	/* Isolate no more than the round wants: a direct reclaimer's 32
	 * pages (Linux isolates SWAP_CLUSTER_MAX at a time), kswapd's batch. */
	int chunk = (int)(want < reclaim_knobs.batch ? want : reclaim_knobs.batch);
	for (int prio = 12; prio >= 0 && freed < want; prio--) {
		uint64_t lists = kind_size(LRU_ANON) + kind_size(LRU_SHMEM) + kind_size(LRU_FILE);
		uint64_t target = lists >> prio, scanned = 0;
		if (target < (uint64_t)chunk)
			target = (uint64_t)chunk;
		while (scanned < target && freed < want) {
			uint64_t before = scanned;
			freed += shrink_chunk(c, chunk, &scanned);
			if (scanned == before)
				break;          /* nothing to scan */
		}
	}
	__atomic_sub_fetch(&R.rounds, 1, __ATOMIC_ACQ_REL);
	return freed;
}

/* Direct reclaim for an allocation below the min watermark: at most
 * DIRECT_TARGET pages (Linux's nr_to_reclaim), in a context of its own,
 * next to kswapd and other direct reclaimers.  Returns pages freed, or 1
 * when free memory was back above min before it scanned (someone else
 * reclaimed meanwhile: the caller just retries its allocation).
 *
 * The exclusion is taken before a pool context, never after: a teardown
 * holding it exclusively may itself reclaim (its allocation), and must
 * then find the pool's contexts free, not held by rounds waiting for it. */
static uint64_t shrink_direct(void)
{
	lru_drain_local();              /* this CPU's new pages onto the lists first */
	bool nested = shared_lock();
	struct reclaim_ctx *c = ctx_get_direct();
	if (c && pmm_free_pages() > reclaim_knobs.wm_min) {
		ctx_put(c);
		c = NULL;
	}
	if (!c) {
		shared_unlock(nested);
		vmstat_inc(RECLAIM_DIRECT_SKIPPED);
		return 1;
	}
	c->direct = true;
	uint64_t want = DIRECT_TARGET < reclaim_knobs.batch ? DIRECT_TARGET : reclaim_knobs.batch;
	__atomic_add_fetch(&R.direct, 1, __ATOMIC_ACQ_REL);
	uint64_t freed = shrink(c, want);
	__atomic_sub_fetch(&R.direct, 1, __ATOMIC_ACQ_REL);
	ctx_put(c);
	shared_unlock(nested);
	return freed;
}

/* Called by reclaim_pages (tests, swapoff), which are not kswapd: a pool
 * context, waited for if need be, whatever free memory says. */
static struct reclaim_ctx *ctx_get_any(void)
{
	struct reclaim_ctx *c = ctx_take();
	while (!c) {
		sleep_ms(1);
		c = ctx_take();
	}
	return c;
}

uint64_t reclaim_pages(uint64_t pages)
{
	uint64_t total = 0;
	lru_drain_all();
	for (int idle = 0; pmm_free_pages() < pages && idle < 8;) {
		bool nested = shared_lock();    /* before the context: shrink_direct says why */
		struct reclaim_ctx *c = ctx_get_any();
		c->direct = false;
		uint64_t got = shrink(c, reclaim_knobs.batch);
		ctx_put(c);
		shared_unlock(nested);
		total += got;
		idle = got ? 0 : idle + 1;
	}
	return total;
}

/* One page advised out: locked and queued whatever its references (the
 * caller cleared them), or put back when busy.  Returns pages freed now. */
static uint64_t pageout_one(struct reclaim_ctx *c, struct page *p, int *nb)
{
	if (!lock_idle_or_putback(c, p))
		return 0;
	page_clear(p, PG_REFERENCED);
	return queue_victim(c, p, nb);
}

uint64_t reclaim_pageout(struct page **pages, int n)
{
	bool nested = shared_lock();    /* before the context: shrink_direct says why */
	struct reclaim_ctx *c = ctx_get_any();
	c->direct = false;
	uint64_t freed = 0;
	for (int i = 0; i < n;) {
		int nb = 0;
		for (; i < n && nb < MAX_BATCH; i++)
			freed += pageout_one(c, pages[i], &nb);
		vm_tlb_flush(&c->tlb);
		putback_flush(c);
		if (nb)
			freed += evict(c, nb);
	}
	putback_flush(c);
	ctx_put(c);
	shared_unlock(nested);
	return freed;
}

/* ---------------------------------------------------------------- kswapd */

/* [A] Pages a read-ahead stream is about to take (alloc_ra_page): kswapd
 * reclaims that much beyond the high watermark, so the stream's next
 * window finds free frames instead of being trimmed. */
static volatile uint64_t ra_ahead;

static bool kswapd_wanted(void *arg)
{
	(void)arg;
	return R.kswapd_wake;
}

static void kswapd(void *arg)
{
	(void)arg;
	for (;;) {
		wait_event_timeout(&R.kswapd_wq, kswapd_wanted, NULL, 0);
		R.kswapd_busy = true;
		R.kswapd_wake = false;
		vmstat_inc(KSWAPD_WAKEUPS);
		/* Pages waiting to go on the lists, for the scan.  Free pages
		 * on the CPUs' lists stay there: they count as free, and an
		 * allocation the buddy cannot serve drains every list first
		 * (pmm_alloc), as Linux drains them only when an allocation
		 * fails after reclaim.  Drained at every wake-up, a swapping
		 * run's frees went through the buddy again and again: busy
		 * time -1% without (bench ra at none, fixed:4 and own, seq,
		 * random, streams:4, jumps:64, seeds 1-3: all eight cells). */
		lru_drain_all();
		for (int idle = 0; pmm_free_pages() < reclaim_knobs.wm_high + ra_ahead && idle < 3;) {
			/* Scanning is CPU work: with a direct reclaimer on every
			 * CPU, kswapd's round would only slow theirs down.  At
			 * swap full on one CPU, where every round scans the whole
			 * lists for nothing, the two side by side took the OOM
			 * kill past hangcheck's 5 s (test_oom_swap_full_random). */
			while (__atomic_load_n(&R.direct, __ATOMIC_ACQUIRE) >= smp_cpus_online())
				sleep_ms(1);
			bool nested = shared_lock();
			uint64_t got = shrink(&kswapd_ctx, reclaim_knobs.batch);
			shared_unlock(nested);
			__atomic_add_fetch(&R.kswapd_rounds, 1, __ATOMIC_RELEASE);
			waitq_wake_all(&R.progress_wq);
			if (got) {
				idle = 0;
			} else {
				idle++;
				sleep_ms(5);
			}
		}
		R.kswapd_busy = false;
		waitq_wake_all(&R.progress_wq);
	}
}

static void wake_kswapd(void)
{
	if (!R.kswapd_wake && R.kswapd) {
		R.kswapd_busy = true;
		R.kswapd_wake = true;
		waitq_wake_all(&R.kswapd_wq);
	}
}

/* An allocation below the min watermark while kswapd is woken or in its
 * round, but not on a CPU, first waits until kswapd finishes a round (or
 * free memory is back above min, or kswapd is done) before it reclaims
 * itself.  kswapd is woken at the low watermark, but on a busy CPU it
 * runs only when the allocating thread's 10 ms slice ends (Linux's
 * wake-up preemption would run it at once), and a task filling memory
 * reached min long before.  Who then did the first round, the one that
 * clears every page's accessed bit of its fault (the whole inactive
 * list: about 11000 pages in 48 MiB), was a race between the slice, the
 * task's allocations and kswapd's first write: the task's kernel CPU in
 * `touch 72 30000 random anon` moved between 68 and 79 ms over the runs
 * of one boot (-icount exact, the same busy time), and the faults with
 * it.  Waiting, the task lets kswapd have the CPU: no page scanned by
 * direct reclaim.  kswapd running on another CPU is not waited for:
 * reclaiming beside it is what several CPUs are for.  Once per
 * allocation, and at most KSWAPD_WAIT_NS: a round may wait long for a
 * slow disk. */
#define KSWAPD_WAIT_NS 100000000ull

static bool kswapd_progress(void *arg)
{
	uint64_t rounds = *(const uint64_t *)arg;
	return pmm_free_pages() > reclaim_knobs.wm_min || !R.kswapd_busy ||
	       __atomic_load_n(&R.kswapd_rounds, __ATOMIC_ACQUIRE) != rounds;
}

static bool waited_for_kswapd(void)
{
	struct thread *k = R.kswapd;
	if (!R.kswapd_busy || !k || current_thread() == k || __atomic_load_n(&k->on_cpu, __ATOMIC_RELAXED))
		return false;
	uint64_t rounds = __atomic_load_n(&R.kswapd_rounds, __ATOMIC_ACQUIRE);
	vmstat_inc(RECLAIM_KSWAPD_WAITED);
	return wait_event_timeout(&R.progress_wq, kswapd_progress, &rounds, KSWAPD_WAIT_NS) == 0;
}

/* ---------------------------------------------------------------- aging */

/* First looks ahead of need (lru_age_ahead_looks says why and how many).
 * An allocating task, above the floor, looks at that many pages of each
 * swap-backed inactive list from the tail, in place, and marks each
 * PG_AGED (looked at: the next looks pass over it and go on from the last
 * page looked at).  One referenced since its fault has the accessed bits
 * cleared and PG_AGE_REF: reclaim's look there then finds whether it was
 * used again since (activated) or not (one more trip: lru_judge_aged).
 * Nothing moves, so the list keeps its order.  Holding the teardown
 * exclusion shared, as a round does while it follows reverse maps.
 *
 * Every allocating task looks at its own share, several at once on
 * several CPUs: a page is marked as it is pinned, so the others pass
 * over it.  One task at a time, with the others skipping, lost most of
 * the looks on SMP: two threads faulting on two CPUs (touch ... hot
 * threads=2 shared, -icount) found a task looking in 505 of 512
 * allocations (its TLB flush waits for the other CPU), 110 pages were
 * found referenced instead of about 10500 on one CPU, and the hot set
 * went as if nothing had been looked at (1145 major faults against 969
 * on one CPU; 5000 pages read ahead by own's windows, set off by the hot
 * set's refaults, against 20). */
#define AGE_SKIP_MAX 1024       /* marked pages passed over in one look */
static struct page *age_cursor[LRU_KINDS];      /* [L.lock, lru.c] */

/* Looks go in chunks of one TLB batch's worth: each allocation adds its
 * share to kind's count and looks at a chunk for each multiple of
 * AGE_CHUNK its share crosses, so the pages cleared per shootdown round
 * are about a batch, not one allocation's share (about 15 on a list
 * about the size of memory).  The hot set shared by four threads on
 * four CPUs (3 seeds, -icount): 3395 shootdown IPIs with a round per
 * allocation, 2105 in chunks (age_ahead off: about 1400-1800). */
#define AGE_CHUNK TLB_BATCH_VAS
static uint64_t age_asked[LRU_KINDS];           /* [A] looks asked for since boot */

static uint32_t age_chunks(enum lru_kind kind, uint32_t n)
{
	if (!n)
		return 0;       /* outside the window: no shared write */
	uint64_t to = __atomic_add_fetch(&age_asked[kind], n, __ATOMIC_RELAXED);
	uint64_t k = to / AGE_CHUNK - (to - n) / AGE_CHUNK;
	return (uint32_t)(k * AGE_CHUNK < LRU_AGE_MAX ? k * AGE_CHUNK : LRU_AGE_MAX);
}

/* Pages passed over: looked at already, unused read-ahead, and pages a
 * reclaim look marked for another trip (PG_REFERENCED).  But a shmem
 * page carries PG_REFERENCED from its fault while used_once_swapbacked
 * is on (lru_shmem_fault_marks), and there the mark changes no verdict
 * (a shmem page found referenced is activated either way): skipping it
 * skipped every shmem page, and the hot set on shmem (touch 72 100000
 * hot:2048:75 shmem) found 25 pages referenced instead of about 10500. */
static uint32_t age_skip(enum lru_kind kind)
{
	bool fault_marks = kind == LRU_SHMEM && lru_shmem_fault_marks(reclaim_knobs.used_once_swapbacked);
	return PG_AGED | PG_READAHEAD | (fault_marks ? 0 : PG_REFERENCED);
}

static void age_kind(enum lru_kind kind, uint32_t n)
{
	struct page *pg[LRU_AGE_MAX];
	struct tlb_batch tlb;
	tlb_batch_init(&tlb);
	int got = lru_pin_unflagged(kind, age_skip(kind), PG_AGED, pg, (int)n, &age_cursor[kind], AGE_SKIP_MAX);
	for (int i = 0; i < got; i++) {
		struct page *p = pg[i];
		unsigned refs = 0;
		if (trylock_page(p)) {
			if (!page_test(p, PG_WRITEBACK))
				refs = rmap_referenced(p, &tlb);
			unlock_page(p);
		}
		if (refs) {
			vmstat_inc(PGAGE_AHEAD);
			page_set(p, PG_AGE_REF);
		}
	}
	/* The cleared bits count only once no CPU caches them set. */
	vm_tlb_flush(&tlb);
	for (int i = 0; i < got; i++)
		put_page(pg[i]);
}

/* Free memory while reclaim runs stays under the high watermark plus
 * kswapd's read-ahead allowance and one of its batches: looks ahead
 * start above that. */
static void age_ahead(uint64_t free)
{
	if (!reclaim_knobs.age_ahead)
		return;
	uint64_t floor = reclaim_knobs.wm_high + MAX_RA_AHEAD + reclaim_knobs.batch;
	uint32_t na = lru_age_ahead_looks(free, floor, R.total_pages, lru_size(LRU_ANON, false));
	uint32_t ns = lru_age_ahead_looks(free, floor, R.total_pages, lru_size(LRU_SHMEM, false));
	na = age_chunks(LRU_ANON, na);
	ns = age_chunks(LRU_SHMEM, ns);
	if (!na && !ns)
		return;
	bool nested = shared_lock();
	if (na)
		age_kind(LRU_ANON, na);
	if (ns)
		age_kind(LRU_SHMEM, ns);
	shared_unlock(nested);
}

/* ---------------------------------------------------------------- alloc */

static struct reclaim_oom_policy oom;

void reclaim_set_oom_policy(const struct reclaim_oom_policy *p) { oom = *p; }

static struct page *alloc_user(unsigned flags)
{
	bool drained = false;
	for (int tries = 0;; tries++) {
		uint64_t free = pmm_free_pages();
		if (free < reclaim_knobs.wm_low)
			wake_kswapd();
		else if (!tries)
			age_ahead(free);
		bool reserve = !oom.may_use_reserve || oom.may_use_reserve();
		if (free > reclaim_knobs.wm_min || reserve) {
			struct page *p = pmm_alloc(0, flags);
			if (p || reserve)
				return p;
		}
		psi_memstall_enter(true);       /* /proc/pressure/memory: this thread waits for memory */
		if (!tries && waited_for_kswapd()) {
			psi_memstall_leave(true);
			continue;
		}
		vmstat_inc(ALLOCSTALL);
		bool freed = shrink_direct();
		if (!freed && tries < 8)
			sleep_ms(2);            /* writes may be completing */
		psi_memstall_leave(true);
		if (freed || tries < 8)
			continue;
		if (!drained) {
			drained = true;         /* pages waiting in add batches are reclaimable too */
			if (lru_drain_all())
				continue;
		}
		if (oom.kill()) {
			tries = 0;
			sleep_ms(10);           /* let the victim go */
			continue;
		}
		return pmm_alloc(0, flags);     /* nothing left to kill: take the reserve */
	}
}

struct page *alloc_user_page(bool zero) { return alloc_user(zero ? PMM_ZERO : 0); }

struct page *alloc_user_code_page(bool zero) { return alloc_user((zero ? PMM_ZERO : 0) | PMM_CODE); }

/* Read-ahead allocates as Linux's readahead gfp does (no retry, no
 * direct reclaim): a read-ahead page is a guess, and a guess must not
 * make the faulting task reclaim.  So only above the low watermark, and
 * kswapd is woken as soon as a stream's window (`window` pages) would
 * take free memory under it, with a target raised by that much. */
static struct page *ra_page(uint64_t window, unsigned flags)
{
	uint64_t free = pmm_free_pages();
	if (window > MAX_RA_AHEAD)
		window = MAX_RA_AHEAD;
	if (ra_ahead != window)
		ra_ahead = window;      /* the last window's size: no stream, no extra */
	if (free < reclaim_knobs.wm_low + window)
		wake_kswapd();
	if (free <= reclaim_knobs.wm_low)
		return NULL;
	return pmm_alloc(0, flags);
}

struct page *alloc_ra_page(uint64_t window) { return ra_page(window, 0); }
struct page *alloc_ra_code_page(uint64_t window) { return ra_page(window, PMM_CODE); }

void reclaim_init(void)
{
	waitq_init(&R.kswapd_wq, "kswapd");
	waitq_init(&R.progress_wq, "kswapd-progress");
	waitq_init(&X.wq, "reclaim-excl");
	waitq_init(&P.wq, "reclaim-pool");
	ctx_init(&kswapd_ctx);
	ra_ahead = 0;
	struct pmm_stats st;
	pmm_get_stats(&st);
	R.total_pages = st.total_pages;
	/* Linux's min_free_kbytes = 4 * sqrt(lowmem in KiB), at least 128
	 * pages here; low and high are min + 1/4 and min + 1/2 of it. */
	uint64_t kb = st.total_pages * 4, root = 1;
	while ((root + 1) * (root + 1) <= kb)
		root++;
	uint64_t min = root;            /* 4 * sqrt(kb) KiB = sqrt(kb) pages */
	if (min < 128)
		min = 128;
	reclaim_knobs.wm_min = kcfg.wm_min ? kcfg.wm_min : min;
	reclaim_knobs.wm_low = kcfg.wm_low ? kcfg.wm_low : reclaim_knobs.wm_min * 5 / 4;
	reclaim_knobs.wm_high = kcfg.wm_high ? kcfg.wm_high : reclaim_knobs.wm_min * 3 / 2;
	reclaim_knobs.batch = kcfg.reclaim_batch ? (unsigned)kcfg.reclaim_batch : 64;
	if (reclaim_knobs.batch > MAX_BATCH)
		reclaim_knobs.batch = MAX_BATCH;
	reclaim_knobs.swappiness = kcfg.swappiness_set ? (unsigned)kcfg.swappiness : 60;
	reclaim_knobs.used_once_swapbacked = kcfg.used_once_set ? kcfg.used_once_swapbacked : true;
	reclaim_knobs.anon_used_once = kcfg.anon_used_once;
	reclaim_knobs.age_ahead = kcfg.age_ahead_set ? kcfg.age_ahead : true;
	ctx_add(1);             /* the boot CPU's; reclaim_init_cpus adds the APs' */
	R.kswapd = thread_create("kswapd", kswapd, NULL, SCHED_NORMAL);
}
