/*
 * Reverse-map walks.  For shmem the mapper list is copied under the
 * object's lock and walked afterwards, so no page-table lock is ever taken
 * inside an object lock (vm.c's lock order: vmas_lock, then the PTE's
 * lock, then the object's).  Each PTE is looked at under its own lock
 * (mm_ptl); an area walk holds the mm's vmas_lock around them.
 *
 * TLB: a PTE this file takes away, or whose accessed bit it clears, is
 * added to the caller's tlb_batch; the caller flushes it (one IPI round
 * for the batch) before it writes out or frees the pages, or judges the
 * same pages' accessed bits again.
 */
#include "rmap.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "mem/pgtable.h"
#include "shmem.h"
#include "vm.h"
#include "lib/errno.h"

#define MAX_MAPPERS 32
#define P PAGE_SIZE

struct mappers {
	struct mm *mm[MAX_MAPPERS];
	int n;
};

static void add_mapper(struct mm *mm, void *ctx)
{
	struct mappers *m = ctx;
	if (m->n < MAX_MAPPERS)
		m->mm[m->n++] = mm;
}

/* File pages (PG_FILE, mapping = the page cache): every address space's
 * file areas on that cache covering the page's offset.  The walk runs
 * under the mm list's lock (vm_for_each_mm), each mm's areas under its
 * vmas_lock (the VMA array only changes under it); lock order mm list,
 * then vmas_lock, then the PTE's lock. */
struct file_walk {
	struct page *p;
	void (*fn)(struct mm *, const struct vma *, uint64_t, void *);
	void *ctx;
};

/* fn's arguments for vma_for_each_on's areas. */
struct on_area {
	struct mm *mm;
	uint64_t idx;
	void (*fn)(struct mm *, const struct vma *, uint64_t, void *);
	void *ctx;
};

static void on_area(const struct vma *v, void *arg)
{
	struct on_area *a = arg;
	uint64_t va = v->start + (a->idx - v->pgoff) * P;
	struct spinlock *ptl = mm_ptl(a->mm, va);
	bool on = spin_lock_irqsave(ptl);
	a->fn(a->mm, v, va, a->ctx);
	spin_unlock_irqrestore(ptl, on);
}

/* fn(mm, va) for each address at which mm maps page idx of obj (the
 * areas' object index: not every area of mm), under va's PTE lock.
 * vmas_lock held. */
static void each_va(struct mm *mm, const void *obj, uint64_t idx,
		    void (*fn)(struct mm *, const struct vma *, uint64_t, void *), void *ctx)
{
	struct on_area a = { mm, idx, fn, ctx };
	vma_for_each_on(&mm->vmas, obj, idx, on_area, &a);
}

static void file_mm(struct mm *mm, void *arg)
{
	struct file_walk *w = arg;
	bool on = spin_lock_irqsave(&mm->vmas_lock);
	each_va(mm, w->p->mapping, w->p->index, w->fn, w->ctx);
	spin_unlock_irqrestore(&mm->vmas_lock, on);
}

static void for_each_mapping(struct page *p, void (*fn)(struct mm *, const struct vma *, uint64_t, void *),
			     void *ctx)
{
	struct shmem *s = p->mapping;
	if (!s)
		return;
	if (page_test(p, PG_FILE)) {
		struct file_walk w = { p, fn, ctx };
		if (p->mapcount)
			vm_for_each_mm(file_mm, &w);
		return;
	}
	struct mappers m = { .n = 0 };
	shmem_for_each_mapper(s, add_mapper, &m);
	for (int i = 0; i < m.n; i++) {
		bool on = spin_lock_irqsave(&m.mm[i]->vmas_lock);
		each_va(m.mm[i], s, p->index, fn, ctx);
		spin_unlock_irqrestore(&m.mm[i]->vmas_lock, on);
	}
}

/* An anonymous page's address, read before taking its PTE's lock (which
 * lock depends on it): the caller checks, under that lock, that the page
 * is still mapped there (mapping and index change only under it). */
static uint64_t anon_va(struct page *p)
{
	return __atomic_load_n(&p->index, __ATOMIC_RELAXED);
}

struct ref_ctx {
	struct page *p;
	unsigned refs;
	bool dirty;
	struct tlb_batch *tlb;
	bool exec;                      /* a referencing mapping is executable */
};

/* va's PTE slot when its PTE maps p, else NULL: one walk for the look
 * and the change that follows (pgtable.h's pt_leaf). */
static pte_t *slot_mapping(struct mm *mm, uint64_t va, struct page *p)
{
	pte_t *s = pt_leaf(mm->pml4, va);
	pte_t e = s ? __atomic_load_n(s, __ATOMIC_RELAXED) : 0;
	return pt_pte_present(e) && pt_pte_phys(e) == page_to_phys(p) ? s : NULL;
}

/* v: the area of va (NULL: an anonymous page's own mapping).  A
 * reference through an area advised MADV_SEQUENTIAL does not count
 * (Linux 6.1's folio_referenced_one: a stream's pages are used once and
 * go early; a use through another mapping still counts). */
static void young_one(struct mm *mm, const struct vma *v, uint64_t va, void *ctx)
{
	struct ref_ctx *c = ctx;
	pte_t *s = slot_mapping(mm, va, c->p);
	if (s && pt_leaf_test_clear_young(s)) {
		if (!v || !(v->flags & VM_SEQ))
			c->refs++;
		if (v && (v->prot & VM_EXEC))
			c->exec = true;
		/* Else a CPU with the entry cached uses the page without
		 * setting the bit again, and the page looks unused. */
		tlb_batch_add(c->tlb, &mm->cpus, va);
	}
}

unsigned rmap_referenced_exec(struct page *p, struct tlb_batch *tlb, bool *exec)
{
	struct ref_ctx c = { p, 0, false, tlb, false };
	*exec = false;
	if (page_test(p, PG_SHMEM | PG_FILE)) {
		for_each_mapping(p, young_one, &c);
		*exec = c.exec;
		return c.refs;
	}
	struct mm *mm = p->mapping;
	if (!mm || !p->mapcount)
		return 0;
	uint64_t va = anon_va(p);
	bool on = spin_lock_irqsave(mm_ptl(mm, va));
	if (p->mapping == mm && p->index == va)
		young_one(mm, NULL, va, &c);
	spin_unlock_irqrestore(mm_ptl(mm, va), on);
	return c.refs;
}

unsigned rmap_referenced(struct page *p, struct tlb_batch *tlb)
{
	bool exec;
	return rmap_referenced_exec(p, tlb, &exec);
}

static void drop_pte(struct mm *mm, uint64_t va, struct page *p, struct tlb_batch *tlb)
{
	tlb_batch_add(tlb, &mm->cpus, va);
	mm_count(&mm->rss, -1);
	page_map_sub(p);
	put_page(p);
}

int rmap_unmap_anon(struct page *p, uint64_t entry, struct mm **mmp, uint64_t *vap, uint64_t *saved, bool *dirty,
		    struct tlb_batch *tlb)
{
	struct mm *mm = p->mapping;
	if (!mm)
		return -EBUSY;
	int r = -EBUSY;
	uint64_t va = anon_va(p);
	bool on = spin_lock_irqsave(mm_ptl(mm, va));
	pte_t *s = p->mapping == mm && p->index == va ? slot_mapping(mm, va, p) : NULL;
	if (s && !pt_pte_young(*s)) {
		*saved = pt_leaf_xchg(s, pt_swap_pte(entry));
		mm_count(&mm->swap_ents, 1);
		*dirty = pt_pte_dirty(*saved);
		*mmp = mm;
		*vap = va;
		p->mapping = NULL;
		drop_pte(mm, va, p, tlb);
		r = 0;
	}
	spin_unlock_irqrestore(mm_ptl(mm, va), on);
	return r;
}

bool rmap_restore_anon(struct mm *mm, uint64_t va, struct page *p, uint64_t entry, uint64_t saved)
{
	bool on = spin_lock_irqsave(mm_ptl(mm, va));
	bool ok = pt_get(mm->pml4, va) == pt_swap_pte(entry);
	if (ok) {
		pt_set(mm->pml4, va, saved);
		mm_count(&mm->swap_ents, -1);
		get_page(p);
		page_map_add(p);
		p->mapping = mm;
		p->index = va;
		mm_count(&mm->rss, 1);
		if (vm_is_active(mm))
			pt_flush(va);
	}
	spin_unlock_irqrestore(mm_ptl(mm, va), on);
	return ok;
}

static void unmap_one(struct mm *mm, const struct vma *v, uint64_t va, void *ctx)
{
	struct ref_ctx *c = ctx;
	(void)v;
	pte_t *s = slot_mapping(mm, va, c->p);
	if (!s)
		return;
	pte_t old = pt_leaf_xchg(s, 0);
	c->dirty |= pt_pte_dirty(old);
	drop_pte(mm, va, c->p, c->tlb);
}

static void clean_one(struct mm *mm, const struct vma *v, uint64_t va, void *ctx)
{
	struct ref_ctx *c = ctx;
	(void)v;
	if (!slot_mapping(mm, va, c->p))
		return;
	pte_t old = pt_mkclean(mm->pml4, va);
	if (pt_pte_writable(old) || pt_pte_dirty(old)) {
		c->refs += pt_pte_writable(old);
		tlb_batch_add(c->tlb, &mm->cpus, va);
	}
}

unsigned rmap_mkclean_file(struct page *p, struct tlb_batch *tlb)
{
	struct ref_ctx c = { p, 0, false, tlb, false };
	if (page_test(p, PG_FILE))
		for_each_mapping(p, clean_one, &c);
	return c.refs;
}

void rmap_unmap_file(struct page *p, bool *dirty, struct tlb_batch *tlb)
{
	rmap_unmap_shmem(p, dirty, tlb);        /* for_each_mapping knows a file page */
}

void rmap_unmap_shmem(struct page *p, bool *dirty, struct tlb_batch *tlb)
{
	struct ref_ctx c = { p, 0, false, tlb, false };
	for_each_mapping(p, unmap_one, &c);
	*dirty = c.dirty;
}
