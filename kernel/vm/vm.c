/*
 * Address spaces, demand paging and swap-in.
 *
 * An mm starts with a PML4 whose kernel half is copied from the kernel's
 * (layout.h: those entries never change after boot) and an empty VMA set.
 * A user page appears on first touch: vm_fault finds the VMA, checks the
 * access against its protection, then by what the PTE holds:
 *   nothing     -> a zeroed anonymous page, or the shmem object's page
 *                  (which may have to come back from swap);
 *   a swap PTE  -> the swap cache's page, read from swap when absent
 *                  (with readahead), waiting for the read with mm->lock
 *                  dropped and then retrying;
 *   a present read-only PTE in a writable area -> a swap-cache page mapped
 *                  read-only to keep its disk copy valid: the write drops
 *                  the disk copy and makes the page writable.
 *
 * Block devices mapped (VM_FILE, vm_mmap_file): the area's object is the
 * device's page cache.  MAP_SHARED maps the cache's pages themselves (a
 * write sets the PTE's dirty bit, which goes to the page when the PTE
 * goes: munmap, exit, reclaim, or msync, which then writes back);
 * MAP_PRIVATE maps them read-only and a write copies the page into an
 * anonymous one (copy on write), so nothing written reaches the cache.
 *
 * References (page.h): a present PTE holds one page reference and one
 * mapcount; a swap PTE holds one swap-slot count; an anonymous page's
 * mapping/index name its mm and address while it is mapped (cleared when
 * the mapping goes, under the PTE's lock), the reverse map reclaim follows.
 *
 * Locking, outermost first: mm->lock (rwsem: faults shared; VMA, brk
 * and zap changes exclusive; vm.h says why that is safe) -> page lock ->
 * mm->vmas_lock (the VMA array, for reclaim's reverse-map readers) ->
 * a page-table lock (mm_ptl: the PTEs of va's page table; one at a time)
 * -> shmem object lock -> LRU/swap cache/swap pool.  Teardown
 * of a whole mm also holds reclaim_lock.  Never copy to or from user
 * memory holding mm->lock: the copy may fault, and a second shared hold
 * deadlocks behind a waiting writer.
 *
 * TLB: a PTE that gains a page or a permission is flushed here only
 * (another CPU's stale entry faults, and the fault finds the PTE fine);
 * one that loses them (unmap, mprotect, reclaim) goes into a tlb_batch
 * flushed on every CPU in mm->cpus (vm_tlb_flush) before its pages are
 * freed or written out.
 */
#include <string.h>
#include "vm.h"
#include "core/console.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "mem/pgtable.h"
#include "mem/kmem.h"
#include "mem/kmalloc.h"
#include "shmem.h"
#include "commit.h"
#include "pagecache.h"
#include "lru.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "swap/swapin.h"
#include "swap/readahead.h"
#include "reclaim.h"
#include "vmstat.h"
#include "mem/layout.h"
#include "core/panic.h"
#include "core/time.h"
#include "core/sched.h"
#include "lib/errno.h"
#include "arch/x86_64/x86.h"

#define P PAGE_SIZE

static struct spinlock mm_list_lock = SPINLOCK_INIT("mm-list");
static struct list_node mm_list = LIST_INIT(mm_list);

_Static_assert(PROT_READ == VM_READ && PROT_WRITE == VM_WRITE && PROT_EXEC == VM_EXEC, "prot values");

/* Area objects: shmem objects are counted; page caches live for ever. */
static void obj_get(void *mm, void *obj)
{
	if (!pagecache_is_cache(obj))
		shmem_get(mm, obj);
}

static void obj_put(void *mm, void *obj)
{
	if (!pagecache_is_cache(obj))
		shmem_put(mm, obj);
}

struct mm *mm_create(void)
{
	struct mm *mm = kzalloc(sizeof *mm);
	if (!mm)
		return NULL;
	mm->pml4 = pt_new_user_root(kmem_kernel_pml4());
	if (!mm->pml4) {
		kfree(mm);
		return NULL;
	}
	rwsem_init(&mm->lock, "mm");
	spin_init(&mm->vmas_lock, "mm-vmas");
	for (unsigned i = 0; i < MM_PTL_STRIPES; i++)
		spin_init(&mm->ptl[i], "ptl");
	spin_init(&mm->ra_lock, "readahead-space");
	vma_set_init(&mm->vmas, kmalloc, kfree);
	mm->vmas.obj_get = obj_get;
	mm->vmas.obj_put = obj_put;
	mm->vmas.owner = mm;
	mm->refs = 1;
	bool on = spin_lock_irqsave(&mm_list_lock);
	list_add_tail(&mm->all, &mm_list);
	spin_unlock_irqrestore(&mm_list_lock, on);
	return mm;
}

void mm_get(struct mm *mm) { __atomic_add_fetch(&mm->refs, 1, __ATOMIC_RELAXED); }

bool vm_is_active(struct mm *mm) { return (read_cr3() & ~0xfffull) == mm->pml4; }

void mm_activate(struct mm *mm)
{
	uint64_t want = mm ? mm->pml4 : kmem_kernel_pml4();
	bool on = irq_save();
	if ((read_cr3() & ~0xfffull) != want)
		tlb_load_root(want, mm ? &mm->cpus : NULL);
	irq_restore(on);
}

void vm_tlb_flush(struct tlb_batch *b)
{
	unsigned pages = b->pages;
	unsigned ipis = tlb_batch_flush(b);
	if (ipis) {
		vmstat_add(TLB_SHOOTDOWN_IPIS, ipis);
		vmstat_add(TLB_SHOOTDOWN_PAGES, pages);
	}
}

/* Drop what a PTE held: a page reference and mapcount, or a swap count.
 * The PTE's lock held (or the mm is private to the caller). */
static void release_pte(pte_t e)
{
	if (pt_pte_is_swap(e)) {
		swapcache_free_entry(pt_pte_swap_entry(e));
		return;
	}
	if (!pt_pte_present(e))
		return;
	struct page *p = phys_to_page(pt_pte_phys(e));
	if (page_test(p, PG_ANON))
		p->mapping = NULL;      /* the reverse map ends here */
	else if (page_test(p, PG_FILE) && pt_pte_dirty(e))
		pagecache_set_page_dirty(p);    /* a shared mapping wrote it */
	page_map_sub(p);
	put_page(p);
}

/* Teardown frees one leaf at a time under its page-table lock, and lets
 * go of it every TEARDOWN_BATCH leaves so a big address space does not keep
 * interrupts and preemption off for its whole size (a 176 MiB mm took
 * tens of ms).  Nothing else walks these tables meanwhile: the mm is off
 * mm_list, its last reference is gone and reclaim is excluded. */
#define TEARDOWN_BATCH 64

struct teardown {
	struct mm *mm;
	struct ptl_hold h;
	unsigned n;
	uint64_t swap_ptes;
};

static void free_leaf(pte_t e, uint64_t va, void *ctx)
{
	struct teardown *t = ctx;
	ptl_at(t->mm, &t->h, va);
	t->swap_ptes += pt_pte_is_swap(e);
	release_pte(e);
	if (++t->n % TEARDOWN_BATCH == 0)
		ptl_done(&t->h);
}

void mm_put(struct mm *mm)
{
	if (__atomic_sub_fetch(&mm->refs, 1, __ATOMIC_ACQ_REL))
		return;
	/* No CPU may keep the root loaded (a kernel thread keeps the last
	 * user root it found) once its page is freed. */
	tlb_drop_root(mm->pml4, &mm->cpus);
	bool on = spin_lock_irqsave(&mm_list_lock);
	list_del(&mm->all);
	spin_unlock_irqrestore(&mm_list_lock, on);
	/* Pages first (shmem mapcounts), then the objects' references. */
	reclaim_lock();
	struct teardown t = { .mm = mm, .h = PTL_HOLD_INIT };
	uint64_t tables = pt_free_user(mm->pml4, free_leaf, &t);
	ptl_done(&t.h);
	/* The counts the OOM killer weighs its choice by, checked against the
	 * tables once they are read anyway. */
	if (t.swap_ptes != mm->swap_ents)
		kprintf("vm: swap entry count off: %lu counted, %lu in the page tables\n", mm->swap_ents, t.swap_ptes);
	if (tables != mm->table_pages)
		kprintf("vm: page table count off: %lu counted, %lu freed\n", mm->table_pages, tables);
	uint64_t charged = 0;
	for (uint32_t i = 0; i < mm->vmas.n; i++) {
		const struct vma *v = &mm->vmas.v[i];
		if (v->flags & VM_ACCOUNT)
			charged += (v->end - v->start) / P;
		if (v->obj && !(v->flags & VM_FILE))
			shmem_put(mm, v->obj);
	}
	commit_uncharge(charged);
	vma_set_destroy(&mm->vmas);
	reclaim_unlock();
	pmm_free(phys_to_page(mm->pml4), 0);
	ra_state_free(mm->ra);
	kfree(mm);
}

unsigned vm_pt_prot(uint32_t prot)
{
	return PT_USER | ((prot & VM_WRITE) ? PT_WRITE : 0) | ((prot & VM_EXEC) ? PT_EXEC : 0);
}

const char *vm_fault_name(enum vm_fault_result r)
{
	switch (r) {
	case VM_FAULT_OK: return "ok";
	case VM_FAULT_MAPERR: return "no mapping at that address";
	case VM_FAULT_ACCERR: return "access not permitted by the mapping";
	case VM_FAULT_SIGBUS: return "its swapped-out data could not be read back";
	default: return "out of memory";
	}
}

/* ---------------------------------------------------------------- faults */

/* Install a present PTE for p at va if the PTE still holds `expect`.
 * The caller's page reference becomes the PTE's.  Returns false (nothing
 * changed) when the PTE moved on. */
bool vm_install(struct mm *mm, uint64_t va, pte_t expect, struct page *p, unsigned ptflags)
{
	struct spinlock *ptl = mm_ptl(mm, va);
	bool on = spin_lock_irqsave(ptl);
	pte_t *s = pt_leaf(mm->pml4, va);       /* one walk when the table is there */
	bool ok = (s ? __atomic_load_n(s, __ATOMIC_RELAXED) : 0) == expect;
	pte_t e = pt_make(page_to_phys(p), ptflags);
	if (ok && s)
		pt_leaf_xchg(s, e);
	else if (ok && pt_set_counted(mm->pml4, va, e, &mm->table_pages) == PT_NOMEM)
		ok = false;
	if (ok) {
		page_map_add(p);
		if (ptflags & PT_EXEC)
			page_set(p, PG_CODE);   /* freed, it joins the code frames (pmm.c) */
		mm_count(&mm->rss, 1);
		if (pt_pte_is_swap(expect))
			mm_count(&mm->swap_ents, -1);
		if (page_test(p, PG_ANON)) {
			p->mapping = mm;
			p->index = va;
		}
		if (vm_is_active(mm))
			pt_flush(va);
	}
	spin_unlock_irqrestore(ptl, on);
	return ok;
}

static enum vm_fault_result fault_anon_zero(struct mm *mm, const struct vma *v, uint64_t va)
{
	struct page *p = v->prot & VM_EXEC ? alloc_user_code_page(true) : alloc_user_page(true);
	if (!p)
		return VM_FAULT_OOM;
	page_set(p, PG_ANON);
	if (!vm_install(mm, va, 0, p, vm_pt_prot(v->prot))) {
		put_page(p);            /* another thread mapped it first */
		return VM_FAULT_OK;
	}
	lru_add(p, LRU_ANON, false);
	return VM_FAULT_OK;
}

/* MAP_PRIVATE of a device: copy the cache page `src` into a new anonymous
 * page mapped writable at va in place of `expect` (0 or the PTE of src). */
static enum vm_fault_result cow_file(struct mm *mm, const struct vma *v, uint64_t va, pte_t expect, struct page *src)
{
	struct page *p = alloc_user_page(false);
	if (!p)
		return VM_FAULT_OOM;
	memcpy(page_address(p), page_address(src), P);
	page_set(p, PG_ANON);
	struct tlb_batch tlb;
	tlb_batch_init(&tlb);
	bool on = spin_lock_irqsave(mm_ptl(mm, va));
	bool ok = pt_get(mm->pml4, va) == expect;
	if (ok && expect) {
		pt_unmap(mm->pml4, va);                 /* the cache page's PTE goes */
		tlb_batch_add(&tlb, &mm->cpus, va);
		mm_count(&mm->rss, -1);
		page_map_sub(src);
		put_page(src);
	}
	spin_unlock_irqrestore(mm_ptl(mm, va), on);
	/* Other CPUs must not go on reading the cache page through a stale
	 * entry once this thread's copy is what va means. */
	vm_tlb_flush(&tlb);
	if (!ok || !vm_install(mm, va, 0, p, vm_pt_prot(v->prot))) {
		put_page(p);            /* another thread got there first */
		return VM_FAULT_OK;
	}
	lru_add(p, LRU_ANON, false);
	return VM_FAULT_OK;
}

/* A fault on a device mapping with nothing mapped at va.  area: the
 * area itself in mm->vmas (its read-around counts), v the caller's copy. */
static enum vm_fault_result fault_file(struct mm *mm, const struct vma *v, struct vma *area, uint64_t va,
				       bool write, struct fault_stats *st)
{
	bool major;
	int err;
	uint64_t idx = v->pgoff + (va - v->start) / P;
	enum pagecache_fault_hint hint = v->flags & VM_RANDOM ? PAGECACHE_FAULT_RANDOM :
					 v->flags & VM_SEQ ? PAGECACHE_FAULT_SEQUENTIAL : PAGECACHE_FAULT_NORMAL;
	struct page *p = pagecache_fault_page(v->obj, idx, hint, &area->mmap_miss, &area->mmap_last, &major, &err);
	if (!p)
		return err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	if (major) {
		st->majflt++;
		vmstat_inc(PGMAJFAULT);
	}
	if (write && !(v->flags & VM_FSHARED)) {
		enum vm_fault_result r = cow_file(mm, v, va, 0, p);
		put_page(p);
		return r;
	}
	/* Shared: a write maps it writable and marks it dirty now, so the
	 * dirty limits see it and the writer is throttled (Linux's
	 * do_shared_fault); a read maps it read-only, so the first write
	 * faults (fault_write_upgrade), as Linux does for a mapping whose
	 * dirty pages are counted.  Write-back write-protects it again
	 * (rmap_mkclean_file).  Private: read-only, a write copies. */
	bool dirty = write && (v->flags & VM_FSHARED) && pagecache_dirty_mmap;
	bool ro = !dirty && (!(v->flags & VM_FSHARED) || pagecache_dirty_mmap);
	uint32_t prot = ro ? v->prot & ~VM_WRITE : v->prot;
	/* Under the page lock, as write-back's clean and write-protect: a
	 * writable PTE never maps a page it has just taken as clean. */
	if (dirty) {
		lock_page(p);
		pagecache_set_page_dirty(p);
		st->dirtied++;
	}
	bool mapped = vm_install(mm, va, 0, p, vm_pt_prot(prot));
	if (dirty)
		unlock_page(p);         /* the PTE's reference keeps it */
	if (!mapped)
		put_page(p);            /* another thread mapped it first */
	return VM_FAULT_OK;
}

/* A present PTE without write permission in a writable area: a swap-cache
 * page mapped read-only (drop its disk copy; map it writable), or a
 * device's cache page (a private mapping copies it; a shared one, mapped
 * read-only until written or since write-back, marks the page dirty and
 * maps it writable).  p is e's page, referenced by
 * the caller under the PTE's lock while e still mapped it (taken after
 * the lock is dropped, reclaim could unmap and free it first: a double free seen
 * when read(2) faulted on a buffer being swapped); the reference is
 * dropped here. */
static enum vm_fault_result fault_write_upgrade(struct mm *mm, const struct vma *v, uint64_t va, pte_t e,
						struct page *p, struct fault_stats *st)
{
	if (page_test(p, PG_FILE) && (v->flags & VM_FILE)) {
		enum vm_fault_result r = VM_FAULT_OK;
		if (v->flags & VM_FSHARED) {
			/* Dirty, then writable, under the page lock:
			 * write-back cleans and write-protects under it. */
			lock_page(p);
			if (pagecache_dirty_mmap) {
				pagecache_set_page_dirty(p);
				st->dirtied++;
			}
			bool on = spin_lock_irqsave(mm_ptl(mm, va));
			if (pt_get(mm->pml4, va) == e && !pt_protect(mm->pml4, va, vm_pt_prot(v->prot)) &&
			    vm_is_active(mm))
				pt_flush(va);
			spin_unlock_irqrestore(mm_ptl(mm, va), on);
			unlock_page(p);
		} else {
			r = cow_file(mm, v, va, e, p);
		}
		put_page(p);
		return r;
	}
	lock_page(p);
	if (page_test(p, PG_SWAPCACHE) && !page_test(p, PG_WRITEBACK))
		swapcache_del(p);
	page_set(p, PG_DIRTY);
	bool on = spin_lock_irqsave(mm_ptl(mm, va));
	if (pt_get(mm->pml4, va) == e && !page_test(p, PG_SWAPCACHE)) {
		pt_protect(mm->pml4, va, vm_pt_prot(v->prot));
		if (vm_is_active(mm))
			pt_flush(va);
	}
	spin_unlock_irqrestore(mm_ptl(mm, va), on);
	unlock_page(p);
	put_page(p);
	return VM_FAULT_OK;
}

static enum vm_fault_result fault_once(struct mm *mm, uint64_t addr, bool write, bool exec, struct fault_stats *st,
				       bool *dropped)
{
	int i = vma_find(&mm->vmas, addr);
	if (i < 0)
		return VM_FAULT_MAPERR;
	struct vma v = mm->vmas.v[i];
	if ((write && !(v.prot & VM_WRITE)) || (exec && !(v.prot & VM_EXEC)) || !v.prot)
		return VM_FAULT_ACCERR;
	uint64_t va = addr & ~(P - 1);
	struct page *held = NULL;
	/* Read without the PTE's lock, as Linux's handle_pte_fault reads it:
	 * whatever is done with the value re-checks it under the lock
	 * (vm_install's expect), so a stale one costs a retry, never a wrong
	 * mapping.  Only a reference to the page it maps needs the lock. */
	pte_t e = pt_get(mm->pml4, va);
	if (pt_pte_present(e) && write && !pt_pte_writable(e)) {
		bool on = spin_lock_irqsave(mm_ptl(mm, va));
		e = pt_get(mm->pml4, va);
		if (pt_pte_present(e) && !pt_pte_writable(e)) {
			held = phys_to_page(pt_pte_phys(e));
			get_page(held);         /* under the PTE's lock: its page cannot go meanwhile */
		}
		spin_unlock_irqrestore(mm_ptl(mm, va), on);
	}
	if (pt_pte_present(e)) {
		if (held)
			return fault_write_upgrade(mm, &v, va, e, held, st);
		return VM_FAULT_OK;     /* another thread won the race */
	}
	st->minflt++;
	vmstat_inc(PGFAULT);
	if (pt_pte_is_swap(e))
		return swapin_anon(mm, &v, mm->vmas.v[i].ra_state, va, e, write, st, dropped);
	if (v.flags & VM_FILE)
		return fault_file(mm, &v, &mm->vmas.v[i], va, write, st);
	if (v.flags & VM_SHARED)
		return swapin_shmem(mm, &v, va, write, st, dropped);
	return fault_anon_zero(mm, &v, va);
}

static struct {
	volatile uint64_t done;
	volatile unsigned inside;
} faults;

void vm_fault_enter(void) { __atomic_add_fetch(&faults.inside, 1, __ATOMIC_RELAXED); }

void vm_fault_leave(bool finished)
{
	if (finished)
		__atomic_add_fetch(&faults.done, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&faults.inside, 1, __ATOMIC_RELAXED);
}

void vm_fault_counts(uint64_t *done, unsigned *inside)
{
	*done = __atomic_load_n(&faults.done, __ATOMIC_RELAXED);
	*inside = __atomic_load_n(&faults.inside, __ATOMIC_RELAXED);
}

/* Shared: faults of one mm run in parallel (vm.h).  faults_in counts the
 * holders, so that a fault finding another inside is counted
 * (fault_overlap): never while mm->lock was a mutex. */
static void fault_lock(struct mm *mm)
{
	down_read(&mm->lock);
	if (__atomic_add_fetch(&mm->faults_in, 1, __ATOMIC_RELAXED) > 1)
		vmstat_inc(FAULT_OVERLAP);
}

void vm_fault_unlock(struct mm *mm)
{
	__atomic_sub_fetch(&mm->faults_in, 1, __ATOMIC_RELAXED);
	up_read(&mm->lock);
}

enum vm_fault_result vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec, struct fault_stats *st)
{
	uint64_t t0 = time_ns(), majflt = st->majflt, swapflt = st->swapflt;
	vm_fault_enter();
	for (int tries = 0;; tries++) {
		bool dropped = false;
		fault_lock(mm);
		enum vm_fault_result r = fault_once(mm, addr, write, exec, st, &dropped);
		if (!dropped)
			vm_fault_unlock(mm);
		if (r == VM_FAULT_OK && st->swapflt != swapflt)
			swapin_latency_record(time_ns() - t0, st->majflt != majflt);
		if (r != VM_FAULT_RETRY) {
			vm_fault_leave(true);
			return r;
		}
		if (tries == 1000)
			panic("vm_fault: no progress at 0x%lx after 1000 retries", addr);
	}
}

/* ---------------------------------------------------------------- unmap */

uint64_t vm_walk_from(struct mm *mm, uint64_t va, uint64_t end, bool first)
{
	if (!first && (va & (PT_TABLE_SPAN - 1)))
		return va;
	while (va < end) {
		uint64_t nx = pt_skip_absent(mm->pml4, va);
		if (nx == va)
			return va;
		if (nx < va)
			return end;             /* past the top */
		va = nx;
	}
	return end;
}

/* Remove the mappings of [start, end); keeps the VMAs.  mm->lock held exclusive.
 * TLB_BATCH_VAS pages at a time: unmapped under their page-table locks,
 * flushed on every CPU with one IPI round, then their pages released
 * (another CPU could write through a stale entry until the flush). */
static void zap(struct mm *mm, uint64_t start, uint64_t end)
{
	rwsem_assert_write_held(&mm->lock);
	pte_t old[TLB_BATCH_VAS];
	uint64_t at[TLB_BATCH_VAS];
	struct tlb_batch b;
	tlb_batch_init(&b);
	for (uint64_t va = start; va < end;) {
		unsigned n = 0;
		struct ptl_hold h = PTL_HOLD_INIT;
		for (bool first = true; va < end && n < TLB_BATCH_VAS; va += P, first = false) {
			if ((va = vm_walk_from(mm, va, end, first)) >= end)
				break;
			ptl_at(mm, &h, va);
			pte_t e = pt_unmap(mm->pml4, va);
			if (!e)
				continue;
			if (pt_pte_present(e)) {
				tlb_batch_add(&b, &mm->cpus, va);
				mm_count(&mm->rss, -1);
			} else if (pt_pte_is_swap(e)) {
				mm_count(&mm->swap_ents, -1);
			}
			at[n] = va;
			old[n++] = e;
		}
		ptl_done(&h);
		vm_tlb_flush(&b);
		for (unsigned i = 0; i < n; i++) {
			ptl_at(mm, &h, at[i]);
			release_pte(old[i]);
		}
		ptl_done(&h);
	}
}

/* Pieces removed from the VMA set under vmas_lock, dealt with after it. */
struct removed {
	struct vma v[64];
	int n, lost;
};

static void collect_piece(void *ctx, const struct vma *piece)
{
	struct removed *r = ctx;
	if (r->n < 64)
		r->v[r->n++] = *piece;
	else
		r->lost++;
}

static void finish_removed(struct mm *mm, struct removed *r)
{
	for (int i = 0; i < r->n; i++) {
		uint64_t pages = (r->v[i].end - r->v[i].start) / P;
		zap(mm, r->v[i].start, r->v[i].end);
		mm->total_vm -= pages;
		if (r->v[i].flags & VM_ACCOUNT)
			commit_uncharge(pages);
		if (r->v[i].obj && !(r->v[i].flags & VM_FILE))
			shmem_put(mm, r->v[i].obj);
	}
	if (r->lost)
		panic("vm: more than 64 areas removed at once");
}

static int check_range(uint64_t addr, uint64_t len, uint64_t *end)
{
	if ((addr & (P - 1)) || !len)
		return -EINVAL;
	*end = (addr + len + P - 1) & ~(P - 1);
	if (*end <= addr || *end > USER_TOP)
		return -EINVAL;
	return 0;
}

/* Remove [start, end) from the VMA set and its pages.  mm->lock held exclusive. */
static int remove_range(struct mm *mm, uint64_t start, uint64_t end)
{
	rwsem_assert_write_held(&mm->lock);
	struct removed *r = kmalloc(sizeof *r);
	if (!r)
		return -ENOMEM;
	int err = 0;
	while (!err && start < end) {
		/* At most 64 areas a pass (struct removed; an munmap over 65
		 * areas panicked here), from the top of the range down: a pass
		 * then moves only the areas above the range in the array.  From
		 * the bottom up, each pass moved the rest of the range too: an
		 * munmap over 52592 areas made 822 moves of up to 3.8 MB, with
		 * interrupts off, 4.3 s under TCG. */
		r->n = r->lost = 0;
		bool on = spin_lock_irqsave(&mm->vmas_lock);
		const struct vma_set *vs = &mm->vmas;
		uint64_t from = start;
		uint32_t k = vma_lower_bound(vs, end);  /* areas below k end at or before `end` */
		int last = k < vs->n && vs->v[k].start < end ? (int)k : (int)k - 1;
		if (last >= 63 && vs->v[last - 63].start > start)
			from = vs->v[last - 63].start;
		err = vma_remove(&mm->vmas, from, end, collect_piece, r);
		spin_unlock_irqrestore(&mm->vmas_lock, on);
		finish_removed(mm, r);
		end = from;
	}
	kfree(r);
	return err;
}

int vm_munmap(struct mm *mm, uint64_t addr, uint64_t len)
{
	uint64_t end;
	int err = check_range(addr, len, &end);
	if (err)
		return err;
	down_write(&mm->lock);
	err = remove_range(mm, addr, end);
	up_write(&mm->lock);
	return err;
}

/* ---------------------------------------------------------------- mmap */

static uint32_t vm_prot(int prot)
{
	return ((prot & PROT_READ) ? VM_READ : 0) | ((prot & PROT_WRITE) ? VM_WRITE | VM_READ : 0) |
	       ((prot & PROT_EXEC) ? VM_EXEC | VM_READ : 0);
}

/* Choose the address for a new mapping.  mm->lock held exclusive. */
static long place(struct mm *mm, uint64_t addr, uint64_t len, int flags)
{
	rwsem_assert_write_held(&mm->lock);
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & (P - 1))
			return -EINVAL;
		if (addr < USER_MMAP_MIN / 16 || addr + len > USER_MAP_TOP || addr + len < addr)
			return -ENOMEM;
		if (vma_range_free(&mm->vmas, addr, addr + len))
			return (long)addr;
		if (flags & MAP_FIXED_NOREPLACE)
			return -EEXIST;
		int err = remove_range(mm, addr, addr + len);
		return err ? err : (long)addr;
	}
	addr &= ~(P - 1);
	if (addr >= USER_MMAP_MIN && addr + len <= USER_MMAP_TOP && addr + len > addr &&
	    vma_range_free(&mm->vmas, addr, addr + len))
		return (long)addr;
	uint64_t a = vma_find_gap(&mm->vmas, len, USER_MMAP_MIN, USER_MMAP_TOP);
	return a ? (long)a : -ENOMEM;
}

/* mm->lock held exclusive. */
static int insert_vma(struct mm *mm, const struct vma *v)
{
	bool on = spin_lock_irqsave(&mm->vmas_lock);
	int err = vma_insert(&mm->vmas, v);
	spin_unlock_irqrestore(&mm->vmas_lock, on);
	if (!err)
		mm->total_vm += (v->end - v->start) / P;
	return err;
}

/* A refusal on the console, as Linux's __vm_enough_memory warns ("not
 * enough memory for the allocation"), at most 10 lines in 5 s (Linux's
 * default ratelimit); the next line says how many were left out. */
static void say_refused(uint64_t pages)
{
	static struct spinlock lock = SPINLOCK_INIT("overcommit-say");
	static uint64_t window_end;
	static unsigned lines, suppressed;
	bool on = spin_lock_irqsave(&lock);
	uint64_t now = time_ns();
	if (now >= window_end) {
		window_end = now + 5000000000ull;
		lines = 0;
	}
	bool say = lines < 10;
	unsigned left_out = say ? suppressed : 0;
	if (say) {
		lines++;
		suppressed = 0;
	} else {
		suppressed++;
	}
	spin_unlock_irqrestore(&lock, on);
	if (!say)
		return;
	struct thread *t = current_thread();
	if (left_out)
		kprintf("vm: overcommit: %u refusals not shown\n", left_out);
	kprintf("vm: overcommit: %s (tid %d): not enough memory for %lu KiB (overcommit_memory %u, "
		"Committed_AS %lu KiB, CommitLimit %lu KiB)\n", t ? t->name : "?", t ? t->tid : 0, pages * 4,
		commit_knobs.mode, commit_committed_pages() * 4, commit_limit_pages() * 4);
}

/* Charge `pages` of mm against overcommit (commit.h): false when
 * refused.  Only requests that would need memory are charged: a new
 * VM_ACCOUNT area (insert_area: private writable mappings, brk, the
 * image's writable parts), a shared anonymous mapping's object (vm_mmap)
 * and mprotect to writable (charged_by_write).  mm->lock held exclusive. */
static bool charge(struct mm *mm, uint64_t pages)
{
	rwsem_assert_write_held(&mm->lock);
	if (commit_charge(pages, mm->total_vm))
		return true;
	say_refused(pages);
	return false;
}

/* Insert v at [at, at + len), charged first when it is VM_ACCOUNT: at,
 * -ENOMEM when the charge is refused, or the insert's error (the charge
 * given back).  A shared anonymous area's charge is its object's, taken
 * by vm_mmap.  mm->lock held exclusive. */
static long insert_area(struct mm *mm, struct vma *v, uint64_t at, uint64_t len)
{
	bool acct = v->flags & VM_ACCOUNT;
	if (acct && !charge(mm, len / P))
		return -ENOMEM;
	v->start = at;
	v->end = at + len;
	int err = insert_vma(mm, v);
	if (!err)
		return (long)at;
	if (acct)
		commit_uncharge(len / P);
	return err;
}

/* A private area's charge flags at mmap, Linux's accountable mapping:
 * VM_ACCOUNT if it takes memory or swap (writable), VM_NORESERVE if it
 * never will be charged.  Shared areas: none (a shared file mapping's
 * pages go back to the file; a shared anonymous one's object is charged
 * instead). */
static uint32_t charge_flags(int prot, int flags)
{
	if (!(flags & MAP_PRIVATE))
		return 0;
	if (flags & MAP_NORESERVE)
		return VM_NORESERVE;
	return prot & PROT_WRITE ? VM_ACCOUNT : 0;
}

long vm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags)
{
	int type = flags & (MAP_SHARED | MAP_PRIVATE);
	if (!len || (type != MAP_SHARED && type != MAP_PRIVATE))
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS))
		return -EBADF;          /* no files: only anonymous memory */
	len = (len + P - 1) & ~(P - 1);
	if (!len || len > USER_TOP)
		return -ENOMEM;
	struct vma v = { .prot = vm_prot(prot), .flags = charge_flags(prot, flags) };
	bool acct = type == MAP_SHARED && !(flags & MAP_NORESERVE);    /* the object's charge */
	struct shmem *obj = NULL;
	down_write(&mm->lock);
	/* The charge after place: a MAP_FIXED mapping's predecessor is gone,
	 * and gave its charge back, as in Linux's mmap_region. */
	long at = place(mm, addr, len, flags);
	if (at >= 0 && acct && !charge(mm, len / P))
		at = -ENOMEM;
	if (at >= 0 && type == MAP_SHARED) {
		/* The object carries the charge (Linux's shmem_acct_size) and
		 * gives it back when it goes. */
		obj = shmem_create(len / P);
		if (!obj) {
			if (acct)
				commit_uncharge(len / P);
			at = -ENOMEM;
		} else {
			obj->charged = acct ? len / P : 0;
			shmem_get(mm, obj);     /* the new area's reference */
			v.flags |= VM_SHARED;
			v.obj = obj;
		}
	}
	if (at >= 0)
		at = insert_area(mm, &v, (uint64_t)at, len);
	up_write(&mm->lock);
	if (at < 0 && obj)
		shmem_put(mm, obj);     /* the last reference: destroys it */
	return at;
}

long vm_mmap_file(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags, struct pagecache *pc,
		  uint64_t pgoff)
{
	int type = flags & (MAP_SHARED | MAP_PRIVATE);
	if (!len || (type != MAP_SHARED && type != MAP_PRIVATE))
		return -EINVAL;
	len = (len + P - 1) & ~(P - 1);
	if (!len || len > USER_TOP)
		return -ENOMEM;
	uint32_t share = type == MAP_SHARED ? VM_FSHARED : charge_flags(prot, flags);
	struct vma v = { .prot = vm_prot(prot), .flags = VM_FILE | share, .obj = pc, .pgoff = pgoff };
	down_write(&mm->lock);
	long at = place(mm, addr, len, flags);
	if (at >= 0)
		at = insert_area(mm, &v, (uint64_t)at, len);
	up_write(&mm->lock);
	return at;
}

/* Dirty PTEs of a shared device area in [start, end) to their pages;
 * the page offsets touched in *lo, *hi.  mm->lock held, shared (only
 * PTE bits change, under their locks: a fault racing with it maps a page whose
 * dirty bit a later msync harvests).  A cleared dirty bit is flushed on
 * every CPU that may cache it before its page is marked for write-back:
 * a CPU writing through a stale entry that still says dirty would not
 * set the bit again, and its write could miss the disk. */
static void harvest_dirty(struct mm *mm, const struct vma *v, uint64_t start, uint64_t end, uint64_t *lo, uint64_t *hi)
{
	struct page *cleared[TLB_BATCH_VAS];
	struct tlb_batch tlb;
	tlb_batch_init(&tlb);
	for (uint64_t va = start; va < end;) {
		unsigned n = 0;
		struct ptl_hold h = PTL_HOLD_INIT;
		for (bool first = true; va < end && n < TLB_BATCH_VAS; va += P, first = false) {
			if ((va = vm_walk_from(mm, va, end, first)) >= end)
				break;
			ptl_at(mm, &h, va);
			pte_t e = pt_get(mm->pml4, va);
			if (!pt_pte_present(e))
				continue;
			struct page *p = phys_to_page(pt_pte_phys(e));
			if (page_test(p, PG_FILE) && pt_test_clear_dirty(mm->pml4, va)) {
				tlb_batch_add(&tlb, &mm->cpus, va);
				get_page(p);
				cleared[n++] = p;
			}
		}
		ptl_done(&h);
		vm_tlb_flush(&tlb);
		for (unsigned i = 0; i < n; i++) {
			pagecache_set_page_dirty(cleared[i]);
			put_page(cleared[i]);
		}
	}
	uint64_t a = v->pgoff + (start - v->start) / P, b = v->pgoff + (end - v->start) / P;
	*lo = a < *lo ? a : *lo;
	*hi = b > *hi ? b : *hi;
}

int vm_msync(struct mm *mm, uint64_t addr, uint64_t len, int flags)
{
	if ((addr & (P - 1)) || (flags & ~7) || ((flags & MS_SYNC) && (flags & MS_ASYNC)))
		return -EINVAL;
	uint64_t end = (addr + len + P - 1) & ~(P - 1);
	if (end < addr)
		return -ENOMEM;
	int r = 0;
	/* One area at a time: its dirty PTEs to the pages under mm->lock,
	 * then (lock dropped) MS_ASYNC starts the writes (Linux leaves them
	 * to the flusher), MS_SYNC waits and reports a failed write;
	 * MS_INVALIDATE: the cache is the only copy, nothing to drop. */
	for (uint64_t a = addr; a < end;) {
		down_read(&mm->lock);
		int i = vma_find(&mm->vmas, a);
		struct vma v = i >= 0 ? mm->vmas.v[i] : (struct vma){ 0 };
		uint64_t e = v.end < end ? v.end : end, lo = ~0ull, hi = 0;
		if (i >= 0 && (v.flags & VM_FSHARED))
			harvest_dirty(mm, &v, a, e, &lo, &hi);
		up_read(&mm->lock);
		if (i < 0)
			return -ENOMEM;
		if (lo < hi && (flags & (MS_SYNC | MS_ASYNC))) {
			int err = pagecache_sync_pages(v.obj, lo, hi, flags & MS_SYNC);
			r = r ? r : err;
		}
		a = e;
	}
	return r;
}

/* ---------------------------------------------------------------- mprotect */

struct reprotect {
	struct mm *mm;
	unsigned flags;
	struct ptl_hold h;              /* the PTEs' locks, inside vmas_lock */
	struct tlb_batch tlb;           /* flushed after the locks are dropped */
};

static void reprotect_piece(void *ctx, const struct vma *piece)
{
	struct reprotect *r = ctx;
	bool cow = (piece->flags & (VM_FILE | VM_FSHARED)) == VM_FILE;
	for (uint64_t va = piece->start; va < piece->end; va += P) {
		if ((va = vm_walk_from(r->mm, va, piece->end, va == piece->start)) >= piece->end)
			break;
		unsigned flags = r->flags;
		ptl_at(r->mm, &r->h, va);
		pte_t e = piece->flags & VM_FILE ? pt_get(r->mm->pml4, va) : 0;
		/* A private mapping never writes the cache page; a shared
		 * one's first write faults, to mark the page dirty. */
		if (pt_pte_present(e) && page_test(phys_to_page(pt_pte_phys(e)), PG_FILE) &&
		    (cow || (pagecache_dirty_mmap && !page_test(phys_to_page(pt_pte_phys(e)), PG_DIRTY))))
			flags &= ~PT_WRITE;
		if (!pt_protect(r->mm->pml4, va, flags))
			tlb_batch_add(&r->tlb, &r->mm->cpus, va);
	}
}

/* A private area not charged yet, and not exempt (MAP_NORESERVE). */
static bool uncharged(const struct vma *v)
{
	return !(v->flags & (VM_ACCOUNT | VM_NORESERVE | VM_SHARED | VM_FSHARED));
}

/* A private area never charged, becoming writable: Linux's mprotect_fixup
 * charges it then (and marks it VM_ACCOUNT). */
static bool charged_by_write(const struct vma *v)
{
	return !(v->prot & VM_WRITE) && uncharged(v);
}

/* mprotect to writable: each area of [start, end) that charged_by_write
 * is charged, as Linux charges each area, before anything changes; the
 * pages charged in *pages.  A refusal gives back what the areas before
 * it took.  mm->lock held exclusive. */
static int charge_areas(struct mm *mm, uint64_t start, uint64_t end, uint64_t *pages)
{
	const struct vma_set *vs = &mm->vmas;
	*pages = 0;
	for (uint32_t i = vma_lower_bound(vs, start); i < vs->n && vs->v[i].start < end; i++) {
		const struct vma *v = &vs->v[i];
		uint64_t a = v->start > start ? v->start : start, b = v->end < end ? v->end : end;
		if (!charged_by_write(v))
			continue;
		if (!charge(mm, (b - a) / P)) {
			commit_uncharge(*pages);
			*pages = 0;
			return -ENOMEM;
		}
		*pages += (b - a) / P;
	}
	return 0;
}

/* After mprotect to writable: the areas that were charged are marked
 * VM_ACCOUNT; the pages marked are returned.  An area whose protection
 * changed was split at start and end, so only areas wholly inside are
 * looked at (one reaching out was writable already), and marking one
 * splits nothing.  Every other writable private area is VM_ACCOUNT or
 * VM_NORESERVE already (mmap, brk, the image; the stack), so what is
 * marked is what charge_areas charged.  vmas_lock held. */
static uint64_t charge_mark(struct mm *mm, uint64_t start, uint64_t end)
{
	const struct vma_set *vs = &mm->vmas;
	uint64_t marked = 0;
	for (uint64_t a = start; a < end;) {
		uint32_t i = vma_lower_bound(vs, a);
		if (i >= vs->n || vs->v[i].start >= end)
			break;
		struct vma v = vs->v[i];
		if (v.start >= start && v.end <= end && (v.prot & VM_WRITE) && uncharged(&v) &&
		    !vma_set_flags(&mm->vmas, v.start, v.end, VM_ACCOUNT, 0))
			marked += (v.end - v.start) / P;
		a = v.end;
	}
	return marked;
}

int vm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
	uint64_t end;
	int err = check_range(addr, len, &end);
	if (err)
		return err;
	struct reprotect r = { .mm = mm, .flags = vm_pt_prot(vm_prot(prot)), .h = PTL_HOLD_INIT };
	tlb_batch_init(&r.tlb);
	uint64_t charged = 0, marked = 0;
	down_write(&mm->lock);
	if ((prot & PROT_WRITE) && (err = charge_areas(mm, addr, end, &charged))) {
		up_write(&mm->lock);
		return err;
	}
	bool on = spin_lock_irqsave(&mm->vmas_lock);
	err = vma_protect(&mm->vmas, addr, end, vm_prot(prot), reprotect_piece, &r);
	ptl_done(&r.h);
	if (!err && (prot & PROT_WRITE))
		marked = charge_mark(mm, addr, end);
	spin_unlock_irqrestore(&mm->vmas_lock, on);
	if (marked != charged) {
		/* Only the marked pages are given back when they go. */
		if (!err)
			kprintf("vm: overcommit charge off: mprotect charged %lu pages, marked %lu\n", charged, marked);
		if (charged > marked)
			commit_uncharge(charged - marked);
	}
	/* Before returning: the caller may rely on the new protection. */
	vm_tlb_flush(&r.tlb);
	up_write(&mm->lock);
	return err;
}

/* ---------------------------------------------------------------- madvise */

static int set_flags(struct mm *mm, uint64_t start, uint64_t end, uint32_t set, uint32_t clear)
{
	bool on = spin_lock_irqsave(&mm->vmas_lock);
	int err = vma_set_flags(&mm->vmas, start, end, set, clear);
	spin_unlock_irqrestore(&mm->vmas_lock, on);
	return err;
}

/* Linux 6.1's madvise_behavior_valid, less the values handled by name. */
static bool madvise_known(int advice)
{
	return (advice >= 8 && advice <= 25) || advice == 100 || advice == 101;
}

/* MADV_WILLNEED on the device areas in [start, end): each area's pages
 * read ahead without waiting (Linux's madvise_willneed -> vfs_fadvise,
 * one call per area), with mm->lock dropped for the I/O as Linux does. */
static void file_willneed(struct mm *mm, uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a < end;) {
		down_read(&mm->lock);
		uint32_t i = vma_lower_bound(&mm->vmas, a);
		struct vma v = i < mm->vmas.n ? mm->vmas.v[i] : (struct vma){ 0 };
		up_read(&mm->lock);
		if (!v.end || v.start >= end)
			break;
		uint64_t s = v.start > a ? v.start : a, e = v.end < end ? v.end : end;
		if (v.flags & VM_FILE)
			pagecache_willneed(v.obj, v.pgoff + (s - v.start) / P, v.pgoff + (e - v.start) / P);
		a = e;
	}
}

/* MADV_PAGEOUT on the shared device areas in [start, end): their PTEs
 * go (dirty bits to the cache pages first, as MADV_DONTNEED), then the
 * cache drops the clean pages nobody else holds (Linux's
 * madvise_pageout -> reclaim_pages: clean file pages mapped only here
 * are freed, dirty ones stay; Linux leaves those mapped, here they are
 * unmapped and stay cached).  A private device area's cache pages are
 * left alone (Linux pages file pages out only for the file's owner or
 * a writer); its copied pages are anonymous, lru_advise's. */
static void file_pageout(struct mm *mm, uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a < end;) {
		down_write(&mm->lock);
		uint32_t i = vma_lower_bound(&mm->vmas, a);
		struct vma v = i < mm->vmas.n ? mm->vmas.v[i] : (struct vma){ 0 };
		uint64_t s = v.start > a ? v.start : a, e = v.end < end ? v.end : end;
		bool shared = v.end && v.start < end && (v.flags & VM_FSHARED);
		if (shared)
			zap(mm, s, e);
		up_write(&mm->lock);
		if (!v.end || v.start >= end)
			break;
		if (shared)
			pagecache_pageout(v.obj, v.pgoff + (s - v.start) / P, v.pgoff + (e - v.start) / P);
		a = e;
	}
}

/* MADV_COLD and MADV_PAGEOUT on the pages mapped in [start, end) (Linux
 * 5.4's madvise_cold_or_pageout_pte_range): a page mapped by more than
 * this one PTE is skipped (another mapping may still want it); the
 * others lose their accessed bit and PG_REFERENCED.  COLD then moves
 * the active ones to the inactive list (lru_deactivate: pgdeactivate),
 * anonymous, shmem and device pages alike, with no I/O.  PAGEOUT
 * isolates the anonymous and shmem ones and has reclaim swap them out
 * now (reclaim_pageout: pswpout); device pages are file_pageout's.
 * mm->lock held shared throughout, across the writes too, as Linux holds
 * mmap_lock: the area cannot go, faults of other threads go on. */
#define ADVISE_BATCH 256        /* pages handed to reclaim at once: one reclaim batch */

struct lru_advice {
	struct page *pages[ADVISE_BATCH];
	int n;
	bool pageout;
};

/* Pages at [va, end) (up to TLB_BATCH_VAS PTEs) taken into a->pages
 * with a reference each; their accessed bits cleared and flushed. */
static uint64_t advise_collect(struct mm *mm, uint64_t va, uint64_t end, struct lru_advice *a)
{
	struct tlb_batch tlb;
	tlb_batch_init(&tlb);
	struct ptl_hold h = PTL_HOLD_INIT;
	for (unsigned k = 0; va < end && k < TLB_BATCH_VAS && a->n < ADVISE_BATCH; va += P, k++) {
		if ((va = vm_walk_from(mm, va, end, k == 0)) >= end)
			break;
		ptl_at(mm, &h, va);
		pte_t e = pt_get(mm->pml4, va);
		if (!pt_pte_present(e))
			continue;
		struct page *p = phys_to_page(pt_pte_phys(e));
		if (p->mapcount != 1 || (a->pageout && !page_test(p, PG_ANON | PG_SHMEM)))
			continue;
		if (pt_test_clear_young(mm->pml4, va))
			tlb_batch_add(&tlb, &mm->cpus, va);
		get_page(p);
		a->pages[a->n++] = p;
	}
	ptl_done(&h);
	/* A CPU writing through a stale young entry would not set the bit
	 * again: the page would look unused to reclaim. */
	vm_tlb_flush(&tlb);
	return va;
}

/* The collected pages: COLD deactivates them, PAGEOUT sends them out. */
static void advise_apply(struct lru_advice *a)
{
	int out = 0;
	lru_drain_all();                /* a page waiting in an add batch is on no list yet */
	for (int i = 0; i < a->n; i++) {
		struct page *p = a->pages[i];
		page_clear(p, PG_REFERENCED);
		if (!a->pageout) {
			lru_deactivate(p);
			put_page(p);
		} else if (lru_isolate_page(p)) {
			a->pages[out++] = p;    /* our reference is the isolation's now */
		} else {
			put_page(p);            /* another reclaimer has it */
		}
	}
	if (out)
		reclaim_pageout(a->pages, out);
	a->n = 0;
}

static int lru_advise(struct mm *mm, uint64_t start, uint64_t end, bool pageout)
{
	struct lru_advice *a = kmalloc(sizeof *a);
	if (!a)
		return -ENOMEM;
	a->n = 0;
	a->pageout = pageout;
	down_read(&mm->lock);
	for (uint64_t va = start; va < end;) {
		uint32_t i = vma_lower_bound(&mm->vmas, va);
		if (i >= mm->vmas.n || mm->vmas.v[i].start >= end)
			break;
		uint64_t s = mm->vmas.v[i].start > va ? mm->vmas.v[i].start : va;
		uint64_t e = mm->vmas.v[i].end < end ? mm->vmas.v[i].end : end;
		while (s < e) {
			s = advise_collect(mm, s, e, a);
			if (a->n == ADVISE_BATCH)
				advise_apply(a);
		}
		va = e;
	}
	advise_apply(a);
	up_read(&mm->lock);
	kfree(a);
	return 0;
}

int vm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice)
{
	uint64_t end;
	if (!len)
		return 0;
	int err = check_range(addr, len, &end);
	if (err)
		return err;
	/* Exclusive: the flags change the VMA set, and zap wants no fault
	 * mapping pages into the range meanwhile. */
	down_write(&mm->lock);
	switch (advice) {
	case MADV_DONTNEED:
		/* Anonymous pages are dropped (next touch: zero); shared pages
		 * stay in their object (shmem, the page cache), only this
		 * mapping goes; a dirty PTE's bit goes to its cache page first
		 * (release_pte), so nothing written is lost. */
		err = set_flags(mm, addr, end, 0, 0);
		if (!err)
			zap(mm, addr, end);
		break;
	case MADV_RANDOM:
		err = set_flags(mm, addr, end, VM_RANDOM, VM_SEQ);
		break;
	case MADV_SEQUENTIAL:
		/* Device areas: forward read-ahead on faults, and references
		 * through the area do not count for reclaim (rmap.c). */
		err = set_flags(mm, addr, end, VM_SEQ, VM_RANDOM);
		break;
	case MADV_NORMAL:
		err = set_flags(mm, addr, end, 0, VM_SEQ | VM_RANDOM);
		break;
	case MADV_WILLNEED:
		err = set_flags(mm, addr, end, 0, 0);
		if (!err)
			swapin_willneed(mm, addr, end);
		break;
	case MADV_COLD:
	case MADV_PAGEOUT:
		err = set_flags(mm, addr, end, 0, 0);   /* the range must be mapped */
		break;
	default:
		/* Linux's other advice (FREE, fork and dump flags, huge pages,
		 * merging, populate...): accepted as hints that change nothing
		 * here; any other value is EINVAL, as in Linux. */
		err = madvise_known(advice) ? set_flags(mm, addr, end, 0, 0) : -EINVAL;
		break;
	}
	up_write(&mm->lock);
	if (!err && advice == MADV_WILLNEED)
		file_willneed(mm, addr, end);
	if (!err && (advice == MADV_COLD || advice == MADV_PAGEOUT))
		err = lru_advise(mm, addr, end, advice == MADV_PAGEOUT);
	if (!err && advice == MADV_PAGEOUT)
		file_pageout(mm, addr, end);
	return err;
}

/* ---------------------------------------------------------------- brk */

uint64_t vm_brk(struct mm *mm, uint64_t newbrk)
{
	down_write(&mm->lock);
	uint64_t cur = mm->brk;
	if (newbrk < mm->brk_start || newbrk > USER_MMAP_TOP)
		goto out;
	uint64_t old_end = (cur + P - 1) & ~(P - 1), new_end = (newbrk + P - 1) & ~(P - 1);
	if (new_end > old_end) {
		struct vma v = { .prot = VM_READ | VM_WRITE, .flags = VM_HEAP | VM_ACCOUNT };
		if (insert_area(mm, &v, old_end, new_end - old_end) < 0)
			goto out;
	} else if (new_end < old_end) {
		remove_range(mm, new_end, old_end);
	}
	mm->brk = cur = newbrk;
out:
	up_write(&mm->lock);
	return cur;
}

/* ---------------------------------------------------------------- loader */

/* mm->lock held exclusive; mm not yet running. */
int vm_write(struct mm *mm, uint64_t va, const void *src, uint64_t n)
{
	rwsem_assert_write_held(&mm->lock);
	const uint8_t *s = src;
	while (n) {
		uint64_t off = va & (P - 1), chunk = P - off < n ? P - off : n;
		uint64_t pa = pt_translate(mm->pml4, va & ~(P - 1));
		if (pa == PT_NOT_MAPPED) {
			int i = vma_find(&mm->vmas, va);
			if (i < 0 || fault_anon_zero(mm, &mm->vmas.v[i], va & ~(P - 1)) != VM_FAULT_OK)
				return -ENOMEM;
			pa = pt_translate(mm->pml4, va & ~(P - 1));
		}
		memcpy((uint8_t *)phys_to_virt(pa) + off, s, chunk);
		va += chunk;
		s += chunk;
		n -= chunk;
	}
	return 0;
}

int vm_map_copy(struct mm *mm, uint64_t start, uint64_t end, uint32_t prot, uint32_t flags,
		const void *data, uint64_t n, uint64_t skip)
{
	/* Writable parts are charged, as Linux's loader charges the
	 * image's private writable mappings and bss.  The stack is not:
	 * Linux charges the pages a stack grows by (at exec about 33), ours
	 * is one fixed 8 MiB area. */
	if (flags & VM_STACK)
		flags |= VM_NORESERVE;
	else if (prot & VM_WRITE)
		flags |= VM_ACCOUNT;
	struct vma v = { .prot = prot, .flags = flags };
	down_write(&mm->lock);
	long at = insert_area(mm, &v, start, end - start);
	int err = at < 0 ? (int)at : 0;
	if (!err && n)
		err = vm_write(mm, start + skip, data, n);
	up_write(&mm->lock);
	return err;
}

/* ---------------------------------------------------------------- rmap walks */

void vm_for_each_mm(void (*fn)(struct mm *mm, void *ctx), void *ctx)
{
	bool on = spin_lock_irqsave(&mm_list_lock);
	list_for_each(it, &mm_list)
		fn(list_entry(it, struct mm, all), ctx);
	spin_unlock_irqrestore(&mm_list_lock, on);
}
