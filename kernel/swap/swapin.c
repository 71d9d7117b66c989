/*
 * Swap-in.
 *
 * Reading: for a faulting entry not in the swap cache, the readahead
 * policy picks a window of slots around it; every slot of the window that
 * holds data and is not cached gets a fresh page, locked and added to the
 * swap cache (readahead pages marked PG_READAHEAD); runs of consecutive
 * slots go out as one request each.  The completion (interrupt context)
 * checks the optional CRC, puts the pages on the inactive list and unlocks
 * them.  The faulting thread waits for its page with mm->lock released,
 * then retries the fault, which now finds the page in the swap cache.
 *
 * Mapping a cached page: anonymous memory keeps its disk copy on a read
 * fault (mapped read-only: a later write drops the copy, see vm.c) and
 * drops it on a write fault; shmem always drops it, as Linux's shmem does.
 */
#include <string.h>
#include "swapin.h"
#include "swap.h"
#include "swapcache.h"
#include "readahead.h"
#include "vm/reclaim.h"
#include "vm/vm.h"
#include "vm/shmem.h"
#include "vm/lru.h"
#include "vm/lru_policy.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "mem/pgtable.h"
#include "mem/kmalloc.h"
#include "vm/vmstat.h"
#include "vm/workingset.h"
#include "vm/psi.h"
#include "core/console.h"
#include "lib/errno.h"
#include "core/sched.h"
#include "core/time.h"
#include "core/spinlock.h"
#include "lib/stats.h"
#include "lib/json.h"

#define P PAGE_SIZE

struct read_ctx {
	struct swap_io io;
	uint64_t entry0;        /* entry of pages[0] */
	uint32_t n;
	struct page *pages[];
};

static void submit_run(struct page **pages, uint64_t entry0, uint32_t n);

/* A page whose read failed on its own: its data is lost for the fault
 * that wants it (PG_ERROR, counted, read_failed retires the slot).  A
 * read-ahead page nobody asked for is only dropped from the cache: the
 * fault that needs its slot, if any, reads it again alone, and only that
 * read's failure counts and kills.  Interrupt context. */
static void page_read_failed(struct page *p, uint64_t e)
{
	if (page_test(p, PG_READAHEAD)) {
		kprintf("swap: %s: readahead of slot %lu failed: page dropped (a fault on it reads it again)\n",
			swap_dev_name(swp_area(e)), swp_offset(e));
		swapcache_drop(p);
		unlock_page(p);
		put_page(p);    /* the reader's reference: the page is free */
		return;
	}
	kprintf("swap: %s: read of slot %lu failed\n", swap_dev_name(swp_area(e)), swp_offset(e));
	page_set(p, PG_ERROR);
	vmstat_inc(SWAP_READ_ERRORS);
	lru_add(p, LRU_ANON, false);
	unlock_page(p);
	put_page(p);
}

/* Completion (interrupt context).  A failed run of several slots is one
 * bad sector as often as a bad device: each page is read again alone
 * (swap sends a run as one request, so the block layer's own per-request
 * retry does not split it), and only the pages that fail alone fail. */
static void read_done(struct swap_io *io)
{
	struct read_ctx *c = io->ctx;
	if (io->status && c->n > 1) {
		kprintf("swap: %s: read of slots %lu..%lu failed (error %d): reading each alone\n",
			swap_dev_name(swp_area(c->entry0)), swp_offset(c->entry0), swp_offset(c->entry0) + c->n - 1,
			io->status);
		for (uint32_t i = 0; i < c->n; i++)
			submit_run(&c->pages[i], c->entry0 + ((uint64_t)i << SWP_OFF_SHIFT), 1);
		kfree(c);
		return;
	}
	for (uint32_t i = 0; i < c->n; i++) {
		struct page *p = c->pages[i];
		uint64_t e = c->entry0 + ((uint64_t)i << SWP_OFF_SHIFT);
		if (io->status) {
			page_read_failed(p, e);
			continue;
		}
		if (!swap_crc_check(e, p))
			page_set(p, PG_ERROR);
		lru_add(p, LRU_ANON, false);
		unlock_page(p);
		put_page(p);            /* the reader's reference; the cache keeps one */
	}
	if (!io->status) {
		vmstat_add(PSWPIN, c->n);
		vmstat_add(PGPGIN, c->n * 4);
	}
	kfree(c);
}

/* Submit one run of consecutive slots (pages locked, cached).  May be
 * called from read_done (interrupt context): never sleeps. */
static void submit_run(struct page **pages, uint64_t entry0, uint32_t n)
{
	struct read_ctx *c = kmalloc(sizeof *c + n * sizeof c->pages[0]);
	if (c) {
		memcpy(c->pages, pages, n * sizeof pages[0]);
		c->n = n;
		c->entry0 = entry0;
		c->io = (struct swap_io){ .done = read_done, .ctx = c };
		if (!swap_read_run(swp_area(entry0), swp_offset(entry0), pages, n, &c->io))
			return;
		kfree(c);
	}
	/* Could not submit: fail the pages so their users see an error (a
	 * read-ahead page is just dropped). */
	kprintf("swap: %s: cannot submit a read of %u slots\n", swap_dev_name(swp_area(entry0)), n);
	for (uint32_t i = 0; i < n; i++) {
		if (page_test(pages[i], PG_READAHEAD)) {
			swapcache_drop(pages[i]);
		} else {
			page_set(pages[i], PG_ERROR);
			lru_add(pages[i], LRU_ANON, false);
		}
		unlock_page(pages[i]);
		put_page(pages[i]);
	}
}

/* How prepare allocates: a read-ahead page (else the fault's), one that
 * never reclaims (alloc_ra_page: no free frame above the low watermark is
 * *oom too), a page of an executable mapping (a code frame first, as
 * exec's text gets: pmm.c).  A text page read back from swap took an
 * ordinary frame, which joined the code frames at exit, so they grew by
 * a few frames per swapping run (35 after ten runs of touch, 20 now).
 * What a slot window reads is not known to be text and gets an ordinary
 * frame still. */
#define PREP_READAHEAD 1u
#define PREP_GENTLE 2u
#define PREP_CODE 4u

/* A locked, cached page for entry, or NULL: the slot is not in use or
 * already cached (*oom false), or there is no memory (*oom true).  how:
 * PREP_*; stream: the pages of a confirmed stream's window, for kswapd to
 * reclaim ahead of it (0: not a stream). */
static struct page *prepare(uint64_t entry, unsigned how, uint32_t stream, bool *oom)
{
	*oom = false;
	if (!swap_holds_data(entry))
		return NULL;
	bool readahead = how & PREP_READAHEAD;
	bool code = how & PREP_CODE;
	struct page *p = how & PREP_GENTLE ? (code ? alloc_ra_code_page(stream) : alloc_ra_page(stream))
					   : (code ? alloc_user_code_page(false) : alloc_user_page(false));
	if (!p) {
		*oom = true;
		return NULL;
	}
	page_set(p, PG_LOCKED | PG_ANON | (readahead ? PG_READAHEAD : 0));
	if (swapcache_add_read(p, entry)) {     /* the slot may have gone meanwhile */
		page_clear(p, PG_LOCKED | PG_ANON | PG_READAHEAD);
		put_page(p);
		return NULL;
	}
	workingset_refault(p);
	return p;
}

static bool entry_before(uint64_t a, uint64_t b)
{
	return swp_area(a) != swp_area(b) ? swp_area(a) < swp_area(b) : swp_offset(a) < swp_offset(b);
}

/* Read the plan's entries: every one that holds data and is not cached
 * gets a fresh locked page in the swap cache (read-ahead ones marked),
 * then runs of consecutive slots go out as one request each, under a
 * plug per area so adjacent runs merge.  All pages are prepared before
 * any I/O (allocating may reclaim, and reclaim writes to swap).  Returns
 * the fault's page (v[0] when plan->has_fault; code: of an executable
 * mapping) with an extra reference, or NULL (*oom: for want of memory).
 * Frees the plan. */
static struct page *read_plan(struct ra_plan *plan, struct mm *mm, bool code, bool *oom)
{
	struct page *mine = NULL;
	bool no_mem;
	*oom = false;
	bool marked = !plan->marker;
	uint32_t issued = 0, trimmed = 0, filled = 0;
	bool yielded = false;
	uint32_t stream = plan->marker ? plan->n - (plan->has_fault ? 1 : 0) : 0;
	for (uint32_t i = 0; i < plan->n; i++) {
		bool is_mine = plan->has_fault && i == 0;
		plan->v[i].page = NULL;
		if (!is_mine && trimmed) {      /* no free memory for read-ahead: the window ends here */
			/* Counted as planned: asking each slot whether it still
			 * holds data (as this did) cost touch's streams:4 under
			 * own at the ssd profile 131585 look-ups per run, 2.4 ms
			 * of its 301 (prof); a slot freed since the plan was made
			 * is rare. */
			trimmed++;
			continue;
		}
		/* A gap's slot that another window read already (K streams
		 * evicted together fill each other's gaps) needs no frame:
		 * allocating one to find that out, and freeing it, took
		 * touch's streams:4 from 321 to 383 ms of task stime.  The
		 * window's own such pages were left out before the gaps were
		 * filled (drop_cached), and other plans rarely meet a cached
		 * page, so only gap slots are asked: asking for every entry
		 * cost each policy's sequential pass 1.6%.  A stale answer is
		 * harmless: the insert in prepare still decides. */
		if (plan->v[i].step == RA_STEP_FILL && swapcache_cached(plan->v[i].entry))
			continue;
		/* A stream's next RA_STREAM_NEXT pages are no guess: the
		 * stream reaches them in a few touches, and a fault on one
		 * would reclaim for it anyway (and wait for the read).  So
		 * they are allocated like the fault's page; the rest of the
		 * window only from free memory. */
		bool gentle = !is_mine && plan->no_reclaim &&
			      !(plan->marker && plan->v[i].step < RA_STREAM_NEXT);
		/* The fault's page and its logical window's lie in its VMA. */
		unsigned text = code && (is_mine || plan->v[i].step < RA_STEP_FILL) ? PREP_CODE : 0;
		unsigned how = text | (is_mine ? 0 : PREP_READAHEAD | (gentle ? PREP_GENTLE : 0));
		struct page *p = prepare(plan->v[i].entry, how, stream, &no_mem);
		if (!p && no_mem && gentle && stream && !yielded) {
			/* A confirmed stream's window: kswapd is awake
			 * (alloc_ra_page) but, in our class, would only run at
			 * the end of this thread's slice.  Let it run now, once
			 * per window, then trim if it freed nothing.  Only for
			 * streams: a guess that is not one (a slot window, and
			 * swapoff's) is trimmed at once, never waits for
			 * kswapd, which may have nothing it can free. */
			yielded = true;
			sched_yield();
			p = prepare(plan->v[i].entry, text | PREP_READAHEAD | PREP_GENTLE, stream, &no_mem);
		}
		plan->v[i].page = p;
		if (!p) {
			if (is_mine) {
				*oom = no_mem;
			} else if (no_mem && gentle) {
				trimmed = 1;
				/* The window ends at its first page not read
				 * (in slot order when gaps were filled, so look
				 * at every entry left). */
				uint16_t cut = RA_STEP_FILL;
				for (uint32_t j = i; j < plan->n; j++)
					if (plan->v[j].step < cut)
						cut = plan->v[j].step;
				if (cut < RA_STEP_FILL)
					ra_window_cut(plan, cut);
			}
			continue;
		}
		if (is_mine) {
			get_page(p);
			mine = p;
			continue;
		}
		issued++;
		if (plan->v[i].step == RA_STEP_FILL) {
			page_set(p, PG_RA_FILL);        /* a gap's: its use is counted (ra_fill_hit) */
			filled++;
		} else if (plan->marker) {
			page_set(p, PG_REFERENCED);     /* a confirmed stream's: vouched for (lru_judge_inactive) */
		} else {
			page_set(p, PG_RA_LOOSE);       /* a slot or block window's: ra_loose_hit, ra_waste */
		}
		if (!marked) {
			page_set(p, PG_RA_MARK);
			marked = true;
		}
	}
	if (issued) {
		vmstat_add(SWAP_RA, issued);
		if (mm)
			__atomic_add_fetch(&mm->ra_issued, issued, __ATOMIC_RELAXED);   /* faults of mm race */
	}
	if (trimmed)
		vmstat_add(SWAP_RA_TRIMMED, trimmed);
	if (filled)
		ra_filled(filled);
	/* Drop the entries that need no read, then sort by area and slot
	 * (windows come mostly in order, or in reverse for a backward
	 * stream: reversed first, then insertion sort, linear on both). */
	uint32_t n = 0;
	bool down = true;
	for (uint32_t i = 0; i < plan->n; i++)
		if (plan->v[i].page) {
			if (n && !entry_before(plan->v[i].entry, plan->v[n - 1].entry))
				down = false;
			plan->v[n++] = plan->v[i];
		}
	for (uint32_t i = 0; down && i < n / 2; i++) {
		struct ra_item x = plan->v[i];
		plan->v[i] = plan->v[n - 1 - i];
		plan->v[n - 1 - i] = x;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct ra_item x = plan->v[i];
		uint32_t j = i;
		for (; j > 0 && entry_before(x.entry, plan->v[j - 1].entry); j--)
			plan->v[j] = plan->v[j - 1];
		plan->v[j] = x;
	}
	/* Runs of consecutive slots, each at most the device's read split
	 * (swap_read_max: blk_read_split=N; with N 16, on a disk where a
	 * command's transfer outweighs its fixed cost, a 64-page window goes
	 * as four 16-page reads, and the stream, meeting it page by page,
	 * waits for the first, not the whole window), submitted in the order
	 * the stream meets them: from the top for a backward one.  Each piece
	 * pays the fixed cost: a task that wants the whole window at once (a
	 * 64-page run after a jump) waits longer (README, "Read commands cut
	 * to the device").  The runs are cut first, then submitted, so v[] is
	 * read twice but never moved. */
	struct page *run[RA_PLAN_MAX];
	uint32_t runs = 0;
	uint16_t start[RA_PLAN_MAX], len[RA_PLAN_MAX];
	for (uint32_t i = 0; i < n; runs++) {
		unsigned area = swp_area(plan->v[i].entry);
		uint32_t max = swap_read_max(area);
		uint64_t first = plan->v[i].entry;
		start[runs] = (uint16_t)i;
		len[runs] = 0;
		while (i < n && swp_area(plan->v[i].entry) == area && len[runs] < max &&
		       swp_offset(plan->v[i].entry) == swp_offset(first) + len[runs]) {
			len[runs]++;
			i++;
		}
	}
	for (uint32_t k = 0; k < runs;) {
		unsigned area = swp_area(plan->v[start[down ? runs - 1 - k : k]].entry);
		swap_plug(area);
		for (; k < runs; k++) {
			uint32_t r = down ? runs - 1 - k : k;
			if (swp_area(plan->v[start[r]].entry) != area)
				break;
			for (uint32_t j = 0; j < len[r]; j++)
				run[j] = plan->v[start[r] + j].page;
			submit_run(run, plan->v[start[r]].entry, len[r]);
		}
		swap_unplug(area);
	}
	ra_plan_free(plan);
	return mine;
}

/* Read f->entry and the readahead window around it.  Returns the fault's
 * page with an extra reference (it may still be under I/O), or NULL
 * (*oom: for want of memory; else the slot went or got cached meanwhile). */
static struct page *read_window(const struct ra_fault *f, bool *oom)
{
	struct ra_plan *plan = ra_miss(f);
	if (plan)
		return read_plan(plan, f->mm, f->code, oom);
	/* No readahead: the page alone. */
	struct page *p = prepare(f->entry, f->code ? PREP_CODE : 0, 0, oom);
	if (p) {
		get_page(p);
		submit_run(&p, f->entry, 1);
	}
	return p;
}

static void ra_wait_record(uint64_t ns);

/* Wait for an in-flight page without holding mm->lock (the fault's
 * shared hold: vm_fault_unlock).  Another fault of the same mm on the
 * same entry may be the one reading it: both wait here, both retry, and
 * the retry that finds the PTE already mapped is done. */
static enum vm_fault_result wait_and_retry(struct mm *mm, struct page *p, bool *dropped)
{
	vm_fault_unlock(mm);
	*dropped = true;
	/* A refault of a page evicted while in use is a memory stall
	 * (PSI, as Linux's swap_readpage on a workingset page). */
	bool ws = page_test(p, PG_WORKINGSET);
	if (ws)
		psi_memstall_enter(false);
	sched_io_wait_begin();
	wait_on_page(p);
	sched_io_wait_end();
	if (ws)
		psi_memstall_leave(false);
	put_page(p);
	return VM_FAULT_RETRY;
}

/* The same for a read-ahead page still under read: the stream caught up
 * with its own window.  Counted and timed (swap_ra_wait, the ra_wait
 * histogram). */
static enum vm_fault_result wait_ra_and_retry(struct mm *mm, struct page *p, bool *dropped)
{
	vmstat_inc(SWAP_RA_WAIT);
	uint64_t t0 = time_ns();
	enum vm_fault_result r = wait_and_retry(mm, p, dropped);
	ra_wait_record(time_ns() - t0);
	return r;
}

/* Data lost: the slot is retired, the page dropped, the caller killed. */
static enum vm_fault_result read_failed(struct page *p)
{
	uint64_t e = p->private;
	swap_retire(e);
	swapcache_del(p);
	unlock_page(p);
	put_page(p);
	return VM_FAULT_SIGBUS;
}

/* The page for entry, locked, with a reference; or a retry/oom verdict, or
 * SIGBUS when its read failed (read_failed).  *async: a readahead plan to
 * start once the page is unlocked. */
static enum vm_fault_result get_locked(struct mm *mm, const struct ra_fault *f, struct fault_stats *st,
				       bool *dropped, struct page **out, struct ra_plan **async)
{
	*async = NULL;
	struct page *p = swapcache_lookup(f->entry, true);
	if (!p) {
		bool oom;
		p = read_window(f, &oom);
		if (!p)
			return oom ? VM_FAULT_OOM : VM_FAULT_RETRY;
		st->majflt++;
		vmstat_inc(PGMAJFAULT);
		return wait_and_retry(mm, p, dropped);
	}
	if (!trylock_page(p))
		return page_test(p, PG_READAHEAD) ? wait_ra_and_retry(mm, p, dropped) : wait_and_retry(mm, p, dropped);
	if (!page_test(p, PG_SWAPCACHE) || p->private != f->entry) {
		unlock_page(p);         /* it changed identity: look again */
		put_page(p);
		return VM_FAULT_RETRY;
	}
	bool marker = page_test_clear(p, PG_RA_MARK);
	bool readahead = page_test_clear(p, PG_READAHEAD);
	if (page_test_clear(p, PG_RA_FILL) && readahead)
		ra_fill_hit();
	if (page_test_clear(p, PG_RA_LOOSE) && readahead)
		ra_loose_hit();
	if (readahead) {
		vmstat_inc(SWAP_RA_HIT);
		__atomic_add_fetch(&mm->ra_hits, 1, __ATOMIC_RELAXED);
	}
	*async = ra_found(f, readahead, marker);
	st->swapflt++;
	if (page_test(p, PG_ERROR)) {
		ra_plan_free(*async);
		*async = NULL;
		return read_failed(p);
	}
	*out = p;
	return VM_FAULT_OK;
}

/* Start the next readahead window found by a hit (not waited for); code:
 * the hit's VMA is executable. */
static void start_async(struct ra_plan *plan, struct mm *mm, bool code)
{
	if (!plan)
		return;
	bool oom;
	struct page *p = read_plan(plan, mm, code, &oom);
	if (p)
		put_page(p);
}

enum vm_fault_result swapin_anon(struct mm *mm, const struct vma *v, uint64_t *ra_state, uint64_t va, uint64_t pte,
				 bool write, struct fault_stats *st, bool *dropped)
{
	struct ra_fault f = { .entry = pt_pte_swap_entry(pte), .mm = mm, .va = va, .vstate = ra_state,
			      .vlo = v->start / P, .vhi = v->end / P, .code = v->prot & VM_EXEC };
	struct page *p;
	struct ra_plan *async;
	enum vm_fault_result r = get_locked(mm, &f, st, dropped, &p, &async);
	if (r != VM_FAULT_OK)
		return r;
	/* Marked as used: with the default rule that only keeps an unused
	 * read-ahead page one more trip; with anon_used_once (Linux 5.9+) a
	 * swapped-in page is not marked, so, as in Linux, its fault's own
	 * reference does not activate it at its first scan. */
	page_set(p, PG_ANON | (reclaim_knobs.anon_used_once ? 0 : PG_REFERENCED));
	/* Keep the disk copy valid: map read-only unless this is a write, or
	 * swap is more than half full and this PTE is the slot's only user
	 * besides the cache (counts 2): then the slot is worth more free than
	 * as a copy (Linux's vm_swap_full in do_swap_page). */
	bool drop = write || (swap_count(f.entry) == 2 && reclaim_swap_full());
	unsigned prot = vm_pt_prot(drop ? v->prot : v->prot & ~(uint32_t)VM_WRITE);
	bool installed = vm_install(mm, va, pte, p, prot);     /* our reference -> the PTE */
	if (installed) {
		swap_free(f.entry);     /* the PTE's count; the cache keeps its own */
		if (drop) {
			swapcache_del(p);
			page_set(p, PG_DIRTY);
		}
	}
	unlock_page(p);
	if (!installed)
		put_page(p);
	start_async(async, mm, f.code);
	return VM_FAULT_OK;
}

/* Page p (locked, read back from entry) has just replaced entry in slot
 * idx of s: the object owns it now, and shmem keeps no disk copy. */
static void shmem_adopt(struct shmem *s, uint64_t idx, uint64_t entry, struct page *p)
{
	swap_free(entry);
	page_clear(p, PG_ANON);
	page_set(p, PG_SHMEM | PG_DIRTY);
	p->mapping = s;
	p->index = idx;
	swapcache_del(p);
	lru_del(p);
	lru_add(p, LRU_SHMEM, false);
}

/* The shmem page at idx, locked, with a reference, creating or reading it
 * back.  Locked so that it is mapped before reclaim can take it: reclaim
 * holds the page lock from unmapping through swap-out, so a page found in
 * the slot and still there once locked cannot be on its way out (else a
 * PTE installed after reclaim's unmap would map a page whose slot already
 * names its swap copy). */
static enum vm_fault_result shmem_page(struct mm *mm, const struct vma *v, uint64_t va, uint64_t idx,
				       struct fault_stats *st, bool *dropped, struct page **out,
				       struct ra_plan **async_out)
{
	struct shmem *s = v->obj;
	*async_out = NULL;
	for (;;) {
		uint64_t val = shmem_slot_get(s, idx);
		if (val && !swp_is_entry(val)) {
			struct page *p = (struct page *)val;    /* referenced by shmem_slot_get */
			if (!trylock_page(p))
				return wait_and_retry(mm, p, dropped);
			if (!shmem_slot_holds(s, idx, val)) {
				unlock_page(p);         /* reclaimed meanwhile: look again */
				put_page(p);
				continue;
			}
			*out = p;
			return VM_FAULT_OK;
		}
		if (!val) {
			if (shmem_slot_prepare(s, idx))
				return VM_FAULT_OOM;
			struct page *p = alloc_user_page(true);
			if (!p)
				return VM_FAULT_OOM;
			page_set(p, PG_SHMEM | PG_LOCKED);
			p->mapping = s;
			p->index = idx;
			if (!shmem_slot_replace(s, idx, 0, p)) {
				page_clear(p, PG_LOCKED);       /* nobody else saw it */
				put_page(p);
				continue;
			}
			lru_add(p, LRU_SHMEM, false);
			*out = p;
			return VM_FAULT_OK;
		}
		struct ra_fault f = { .entry = val, .mm = mm, .va = va, .obj = s, .idx = idx };
		struct page *p;
		struct ra_plan *async;
		enum vm_fault_result r = get_locked(mm, &f, st, dropped, &p, &async);
		if (r != VM_FAULT_OK)
			return r;
		if (!shmem_slot_replace(s, idx, val, p)) {
			unlock_page(p);
			put_page(p);
			ra_plan_free(async);
			continue;
		}
		shmem_adopt(s, idx, val, p);
		if (lru_shmem_fault_marks(reclaim_knobs.used_once_swapbacked))
			page_set(p, PG_REFERENCED);
		*async_out = async;
		*out = p;
		return VM_FAULT_OK;
	}
}

enum vm_fault_result swapin_shmem(struct mm *mm, const struct vma *v, uint64_t va, bool write,
				  struct fault_stats *st, bool *dropped)
{
	(void)write;
	struct page *p = NULL;          /* set when VM_FAULT_OK (gcc cannot tell) */
	struct ra_plan *async;
	uint64_t idx = v->pgoff + (va - v->start) / P;
	enum vm_fault_result r = shmem_page(mm, v, va, idx, st, dropped, &p, &async);
	if (r != VM_FAULT_OK)
		return r;
	if (lru_shmem_fault_marks(reclaim_knobs.used_once_swapbacked))
		page_set(p, PG_REFERENCED);
	bool installed = vm_install(mm, va, 0, p, vm_pt_prot(v->prot));
	unlock_page(p);
	if (!installed)
		put_page(p);
	start_async(async, mm, false);
	return VM_FAULT_OK;
}

void swapin_willneed(struct mm *mm, uint64_t start, uint64_t end)
{
	for (uint64_t va = start; va < end; va += P) {
		/* Over what has no page table in one step: MADV_WILLNEED over a
		 * 64 TiB reservation went page by page, under mm->lock. */
		if ((va = vm_walk_from(mm, va, end, va == start)) >= end)
			break;
		pte_t e = pt_get(mm->pml4, va);     /* no lock: a value used after it anyway (pgtable.h) */
		if (!pt_pte_is_swap(e))
			continue;
		uint64_t entry = pt_pte_swap_entry(e);
		struct page *p = swapcache_lookup(entry, false);
		if (!p) {
			struct ra_fault f = { .entry = entry, .va = va };
			bool oom;
			p = read_window(&f, &oom);      /* started, not waited for */
		}
		if (p)
			put_page(p);
	}
}

struct page *swapin_sync(uint64_t entry)
{
	struct page *p = swapcache_lookup(entry, false);
	if (!p) {
		struct ra_fault f = { .entry = entry };
		bool oom;
		p = read_window(&f, &oom);
		if (!p)
			return NULL;
	}
	wait_on_page(p);
	return p;
}

/* ---------------------------------------------------------------- latency */

static struct spinlock lat_lock = SPINLOCK_INIT("swapin-latency");
static struct stats_hist lat_major, lat_cached, lat_ra_wait;

static void ra_wait_record(uint64_t ns)
{
	bool on = spin_lock_irqsave(&lat_lock);
	stats_hist_add(&lat_ra_wait, ns);
	spin_unlock_irqrestore(&lat_lock, on);
}

void swapin_latency_record(uint64_t ns, bool major)
{
	bool on = spin_lock_irqsave(&lat_lock);
	stats_hist_add(major ? &lat_major : &lat_cached, ns);
	spin_unlock_irqrestore(&lat_lock, on);
}

void swapin_latency_reset(void)
{
	bool on = spin_lock_irqsave(&lat_lock);
	memset(&lat_major, 0, sizeof lat_major);
	memset(&lat_cached, 0, sizeof lat_cached);
	memset(&lat_ra_wait, 0, sizeof lat_ra_wait);
	spin_unlock_irqrestore(&lat_lock, on);
}

uint64_t swapin_latency_percentile(unsigned permille)
{
	static struct stats_hist all;   /* guarded by lat_lock */
	bool on = spin_lock_irqsave(&lat_lock);
	all = lat_major;
	all.count += lat_cached.count;
	all.sum += lat_cached.sum;
	if (lat_cached.max > all.max)
		all.max = lat_cached.max;
	for (int i = 0; i < STATS_HIST_BUCKETS; i++)
		all.bucket[i] += lat_cached.bucket[i];
	uint64_t v = stats_hist_percentile(&all, permille);
	spin_unlock_irqrestore(&lat_lock, on);
	return v;
}

struct lat_summary {
	uint64_t n, p50, p99, max, mean;
};

static struct lat_summary summarize(const struct stats_hist *h)
{
	return (struct lat_summary){ h->count, stats_hist_percentile(h, 500), stats_hist_percentile(h, 990), h->max,
				     h->count ? h->sum / h->count : 0 };
}

static void summary_json(struct json *j, const char *name, const struct lat_summary *s)
{
	json_obj_begin(j, name);
	json_u64(j, "n", s->n);
	json_u64(j, "p50_ns", s->p50);
	json_u64(j, "p99_ns", s->p99);
	json_u64(j, "max_ns", s->max);
	json_u64(j, "mean_ns", s->mean);
	json_obj_end(j);
}

void swapin_latency_json(struct json *j, const char *name)
{
	bool on = spin_lock_irqsave(&lat_lock);
	struct lat_summary major = summarize(&lat_major), cached = summarize(&lat_cached),
			   ra_wait = summarize(&lat_ra_wait);
	spin_unlock_irqrestore(&lat_lock, on);
	json_obj_begin(j, name);
	summary_json(j, "major", &major);
	summary_json(j, "cached", &cached);
	summary_json(j, "ra_wait", &ra_wait);      /* faults waiting for a read-ahead page under read */
	json_obj_end(j);
}

/* ---------------------------------------------------------------- swapoff */

/* A present page at va that still has a disk copy on `area`: drop it. */
static void forget_copy(struct mm *mm, uint64_t va, unsigned area)
{
	bool on = spin_lock_irqsave(mm_ptl(mm, va));
	pte_t e = pt_get(mm->pml4, va);
	struct page *p = pt_pte_present(e) ? phys_to_page(pt_pte_phys(e)) : NULL;
	if (p)
		get_page(p);
	spin_unlock_irqrestore(mm_ptl(mm, va), on);
	if (!p)
		return;
	lock_page(p);
	if (page_test(p, PG_SWAPCACHE) && swp_area(p->private) == area) {
		swapcache_del(p);
		page_set(p, PG_DIRTY);
	}
	unlock_page(p);
	put_page(p);
}

long swapin_unuse_mm(struct mm *mm, unsigned area)
{
	down_read(&mm->lock);
	uint32_t n = mm->vmas.n;
	struct vma *v = kmalloc((n ? n : 1) * sizeof *v);
	if (v)
		memcpy(v, mm->vmas.v, n * sizeof *v);
	up_read(&mm->lock);
	if (!v)
		return -ENOMEM;
	long back = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].flags & VM_SHARED)
			continue;               /* shmem pages live in their object */
		for (uint64_t va = v[i].start; va < v[i].end; va += P) {
			if ((va = vm_walk_from(mm, va, v[i].end, va == v[i].start)) >= v[i].end)
				break;
			pte_t e = pt_get(mm->pml4, va);     /* no lock: the fault re-checks it */
			if (!pt_pte_is_swap(e) || swp_area(pt_pte_swap_entry(e)) != area)
				continue;
			struct fault_stats st = { 0, 0, 0, 0 };
			if (vm_fault(mm, va, false, false, &st) != VM_FAULT_OK)
				continue;       /* the area went away meanwhile, or no memory */
			forget_copy(mm, va, area);
			back++;
		}
	}
	kfree(v);
	return back;
}

struct unuse_ctx {
	unsigned area;
	long back;
};

/* Bring slot idx of s (holding entry e) back.  reclaim_lock held. */
static void unuse_slot(struct shmem *s, uint64_t idx, uint64_t e, struct unuse_ctx *u)
{
	struct page *p = swapin_sync(e);
	if (!p)
		return;
	lock_page(p);
	if (!page_test(p, PG_ERROR) && page_test(p, PG_SWAPCACHE) && p->private == e &&
	    shmem_slot_replace(s, idx, e, p)) {
		shmem_adopt(s, idx, e, p);
		u->back++;
	}
	unlock_page(p);
	put_page(p);
}

static void unuse_object(struct shmem *s, void *ctx)
{
	struct unuse_ctx *u = ctx;
	for (uint64_t i = shmem_next_leaf(s, 0); i < s->npages; i = shmem_next_leaf(s, i + 1)) {
		uint64_t v = shmem_slot_peek(s, i);     /* racy read; unuse_slot re-checks */
		if (v && swp_area(v) == u->area)
			unuse_slot(s, i, v, u);
	}
}

long swapin_unuse_shmem(unsigned area)
{
	struct unuse_ctx u = { area, 0 };
	reclaim_lock();                 /* no object is destroyed meanwhile */
	shmem_for_each_object(unuse_object, &u);
	reclaim_unlock();
	return u.back;
}
