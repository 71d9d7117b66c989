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
#include "reclaim.h"
#include "shmem.h"
#include "lru.h"
#include "page.h"
#include "pmm.h"
#include "pgtable.h"
#include "kmalloc.h"
#include "vmstat.h"
#include "console.h"
#include "lib/errno.h"
#include "proc/sched.h"

#define P PAGE_SIZE
#define MAX_WINDOW 256

struct read_ctx {
	struct swap_io io;
	uint64_t entry0;        /* entry of pages[0] */
	uint32_t n;
	struct page *pages[];
};

static void read_done(struct swap_io *io)
{
	struct read_ctx *c = io->ctx;
	for (uint32_t i = 0; i < c->n; i++) {
		struct page *p = c->pages[i];
		uint64_t e = c->entry0 + ((uint64_t)i << SWP_OFF_SHIFT);
		if (io->status) {
			page_set(p, PG_ERROR);
			vmstat_inc(SWAP_READ_ERRORS);
		} else if (!swap_crc_check(e, p)) {
			page_set(p, PG_ERROR);
		}
		lru_add(p, LRU_ANON, false);
		unlock_page(p);
		put_page(p);            /* the reader's reference; the cache keeps one */
	}
	if (io->status)
		kprintf("swap: %s: read of slots %lu..%lu failed (error %d)\n", swap_dev_name(swp_area(c->entry0)),
			swp_offset(c->entry0), swp_offset(c->entry0) + c->n - 1, io->status);
	else {
		vmstat_add(PSWPIN, c->n);
		vmstat_add(PGPGIN, c->n * 4);
	}
	kfree(c);
}

/* Submit one run of consecutive slots (pages locked, cached). */
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
	/* Could not submit: fail the pages so their users see an error. */
	kprintf("swap: %s: cannot submit a read of %u slots\n", swap_dev_name(swp_area(entry0)), n);
	for (uint32_t i = 0; i < n; i++) {
		page_set(pages[i], PG_ERROR);
		unlock_page(pages[i]);
		put_page(pages[i]);
	}
}

/* A locked, cached page for entry, or NULL (not in use, already cached,
 * no memory). */
static struct page *prepare(uint64_t entry, bool readahead)
{
	if (swap_count(entry) <= 0)
		return NULL;
	struct page *p = alloc_user_page(false);
	if (!p)
		return NULL;
	page_set(p, PG_LOCKED | PG_ANON | (readahead ? PG_READAHEAD : 0));
	if (swapcache_add(p, entry)) {
		page_clear(p, PG_LOCKED | PG_ANON | PG_READAHEAD);
		put_page(p);
		return NULL;
	}
	return p;
}

/* Read the window around f->entry.  Returns the faulting entry's page with
 * an extra reference (it may still be under I/O), or NULL.  All pages are
 * prepared first (allocating may reclaim, and reclaim writes to swap),
 * then the reads go out together under a plug so adjacent runs merge. */
static struct page *read_window(const struct ra_fault *f)
{
	struct ra_window w;
	ra_window(f, &w);
	if (w.count > MAX_WINDOW)
		w.count = MAX_WINDOW;
	unsigned area = swp_area(f->entry);
	struct page *pages[MAX_WINDOW], *mine = NULL;
	for (uint32_t i = 0; i < w.count; i++) {
		uint64_t e = swp_entry(area, w.off + i);
		bool is_mine = e == f->entry;
		pages[i] = prepare(e, !is_mine);
		if (pages[i] && is_mine) {
			get_page(pages[i]);
			mine = pages[i];
		} else if (pages[i]) {
			vmstat_inc(SWAP_RA);
		}
	}
	swap_plug(area);
	for (uint32_t i = 0; i < w.count;) {
		if (!pages[i]) {
			i++;
			continue;
		}
		uint32_t j = i + 1, max = swap_max_run(area);
		while (j < w.count && pages[j] && j - i < max)
			j++;
		submit_run(&pages[i], swp_entry(area, w.off + i), j - i);
		i = j;
	}
	swap_unplug(area);
	return mine;
}

/* Wait for an in-flight page without holding mm->lock. */
static enum vm_fault_result wait_and_retry(struct mm *mm, struct page *p, bool *dropped)
{
	mutex_unlock(&mm->lock);
	*dropped = true;
	sched_io_wait_begin();
	wait_on_page(p);
	sched_io_wait_end();
	put_page(p);
	return VM_FAULT_RETRY;
}

/* The page for entry, locked, with a reference; or a retry/oom verdict. */
static enum vm_fault_result get_locked(struct mm *mm, const struct ra_fault *f, struct fault_stats *st,
				       bool *dropped, struct page **out)
{
	struct page *p = swapcache_lookup(f->entry, true);
	if (!p) {
		p = read_window(f);
		if (!p)
			return swap_count(f->entry) > 0 ? VM_FAULT_OOM : VM_FAULT_RETRY;
		st->majflt++;
		vmstat_inc(PGMAJFAULT);
		return wait_and_retry(mm, p, dropped);
	}
	if (!trylock_page(p))
		return wait_and_retry(mm, p, dropped);
	if (!page_test(p, PG_SWAPCACHE) || p->private != f->entry) {
		unlock_page(p);         /* it changed identity: look again */
		put_page(p);
		return VM_FAULT_RETRY;
	}
	if (page_test_clear(p, PG_READAHEAD))
		ra_hit(f->entry);
	*out = p;
	return VM_FAULT_OK;
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

enum vm_fault_result swapin_anon(struct mm *mm, const struct vma *v, uint64_t va, uint64_t pte, bool write,
				 struct fault_stats *st, bool *dropped)
{
	struct ra_fault f = { pt_pte_swap_entry(pte), va, mm, v, false };
	struct page *p;
	enum vm_fault_result r = get_locked(mm, &f, st, dropped, &p);
	if (r != VM_FAULT_OK)
		return r;
	if (page_test(p, PG_ERROR))
		return read_failed(p);
	page_set(p, PG_ANON | PG_REFERENCED);
	/* Keep the disk copy valid: map read-only unless this is a write. */
	unsigned prot = vm_pt_prot(write ? v->prot : v->prot & ~(uint32_t)VM_WRITE);
	bool installed = vm_install(mm, va, pte, p, prot);     /* our reference -> the PTE */
	if (installed) {
		swap_free(f.entry);     /* the PTE's count; the cache keeps its own */
		if (write) {
			swapcache_del(p);
			page_set(p, PG_DIRTY);
		}
	}
	unlock_page(p);
	if (!installed)
		put_page(p);
	return VM_FAULT_OK;
}

/* The shmem page at idx with a reference, creating or reading it back. */
static enum vm_fault_result shmem_page(struct mm *mm, const struct vma *v, uint64_t va, uint64_t idx,
				       struct fault_stats *st, bool *dropped, struct page **out)
{
	struct shmem *s = v->obj;
	for (;;) {
		uint64_t val = shmem_slot_get(s, idx);
		if (val && !swp_is_entry(val)) {
			*out = (struct page *)val;      /* referenced by shmem_slot_get */
			return VM_FAULT_OK;
		}
		if (!val) {
			struct page *p = alloc_user_page(true);
			if (!p)
				return VM_FAULT_OOM;
			page_set(p, PG_SHMEM);
			p->mapping = s;
			p->index = idx;
			if (!shmem_slot_replace(s, idx, 0, p)) {
				put_page(p);
				continue;
			}
			lru_add(p, LRU_SHMEM, false);
			*out = p;
			return VM_FAULT_OK;
		}
		struct ra_fault f = { val, va, mm, v, true };
		struct page *p;
		enum vm_fault_result r = get_locked(mm, &f, st, dropped, &p);
		if (r != VM_FAULT_OK)
			return r;
		if (page_test(p, PG_ERROR))
			return read_failed(p);
		if (!shmem_slot_replace(s, idx, val, p)) {
			unlock_page(p);
			put_page(p);
			continue;
		}
		/* The object owns the page now; shmem keeps no disk copy. */
		swap_free(val);
		page_clear(p, PG_ANON);
		page_set(p, PG_SHMEM | PG_DIRTY | PG_REFERENCED);
		p->mapping = s;
		p->index = idx;
		swapcache_del(p);
		lru_del(p);
		lru_add(p, LRU_SHMEM, false);
		unlock_page(p);
		*out = p;
		return VM_FAULT_OK;
	}
}

enum vm_fault_result swapin_shmem(struct mm *mm, const struct vma *v, uint64_t va, bool write,
				  struct fault_stats *st, bool *dropped)
{
	(void)write;
	struct page *p;
	uint64_t idx = v->pgoff + (va - v->start) / P;
	enum vm_fault_result r = shmem_page(mm, v, va, idx, st, dropped, &p);
	if (r != VM_FAULT_OK)
		return r;
	page_set(p, PG_REFERENCED);
	if (!vm_install(mm, va, 0, p, vm_pt_prot(v->prot)))
		put_page(p);
	return VM_FAULT_OK;
}

void swapin_willneed(struct mm *mm, uint64_t start, uint64_t end)
{
	for (uint64_t va = start; va < end; va += P) {
		bool on = spin_lock_irqsave(&mm->ptl);
		pte_t e = pt_get(mm->pml4, va);
		spin_unlock_irqrestore(&mm->ptl, on);
		if (!pt_pte_is_swap(e))
			continue;
		uint64_t entry = pt_pte_swap_entry(e);
		struct page *p = swapcache_lookup(entry, false);
		if (!p) {
			struct ra_fault f = { entry, va, mm, NULL, false };
			p = read_window(&f);    /* started, not waited for */
		}
		if (p)
			put_page(p);
	}
}

struct page *swapin_sync(uint64_t entry)
{
	struct page *p = swapcache_lookup(entry, false);
	if (!p) {
		struct ra_fault f = { entry, 0, NULL, NULL, false };
		p = read_window(&f);
		if (!p)
			return NULL;
	}
	wait_on_page(p);
	return p;
}

/* ---------------------------------------------------------------- swapoff */

/* A present page at va that still has a disk copy on `area`: drop it. */
static void forget_copy(struct mm *mm, uint64_t va, unsigned area)
{
	bool on = spin_lock_irqsave(&mm->ptl);
	pte_t e = pt_get(mm->pml4, va);
	struct page *p = pt_pte_present(e) ? phys_to_page(pt_pte_phys(e)) : NULL;
	if (p)
		get_page(p);
	spin_unlock_irqrestore(&mm->ptl, on);
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
	mutex_lock(&mm->lock);
	uint32_t n = mm->vmas.n;
	struct vma *v = kmalloc((n ? n : 1) * sizeof *v);
	if (v)
		memcpy(v, mm->vmas.v, n * sizeof *v);
	mutex_unlock(&mm->lock);
	if (!v)
		return -ENOMEM;
	long back = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].flags & VM_SHARED)
			continue;               /* shmem pages live in their object */
		for (uint64_t va = v[i].start; va < v[i].end; va += P) {
			bool on = spin_lock_irqsave(&mm->ptl);
			pte_t e = pt_get(mm->pml4, va);
			spin_unlock_irqrestore(&mm->ptl, on);
			if (!pt_pte_is_swap(e) || swp_area(pt_pte_swap_entry(e)) != area)
				continue;
			struct fault_stats st = { 0, 0 };
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
		swap_free(e);
		page_clear(p, PG_ANON);
		page_set(p, PG_SHMEM | PG_DIRTY);
		p->mapping = s;
		p->index = idx;
		swapcache_del(p);
		lru_del(p);
		lru_add(p, LRU_SHMEM, false);
		u->back++;
	}
	unlock_page(p);
	put_page(p);
}

static void unuse_object(struct shmem *s, void *ctx)
{
	struct unuse_ctx *u = ctx;
	for (uint64_t i = 0; i < s->npages; i++) {
		uint64_t v = s->slots[i];       /* racy read; unuse_slot re-checks */
		if (v && swp_is_entry(v) && swp_area(v) == u->area)
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
