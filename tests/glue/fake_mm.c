/*
 * Fakes of the memory layer under reclaim and swap-in: the frame
 * allocator (a pool of FAKE_FRAMES frames, of which a test says how many
 * are free), page tables (a map from (root, va) to a PTE word), what
 * vm.c gives the swap code (vm_install, vm_pt_prot, and vm_fault as far
 * as a swap PTE or an empty shared PTE goes).  Shmem objects are the real
 * shmem.c.
 *
 * The PTE word: bit 0 present, 1 writable, 5 accessed, 6 dirty, frame
 * address from bit 12, as on x86-64; a swap PTE is the entry shifted up
 * by one (pgtable.h's rule: bit 0 clear, never zero).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_kernel.h"
#include "mem/pmm.h"
#include "mem/pgtable.h"
#include "vm/page_ref.h"
#include "vm/lru.h"
#include "vm/commit.h"
#include "vm/vm.h"
#include "vm/pagecache.h"
#include "core/panic.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "swap/readahead.h"
#include "swap/swapin.h"

#define PTE_P 1ull
#define PTE_W 2ull
#define PTE_A (1ull << 5)
#define PTE_D (1ull << 6)
#define PTE_FRAME 0x000ffffffffff000ull
#define PHYS_BASE 0x100000ull   /* frame i sits at PHYS_BASE + i pages */

/* ---------------------------------------------------------------- frames */

static struct page frames[FAKE_FRAMES];
static uint64_t frame_data[FAKE_FRAMES];
static int free_stack[FAKE_FRAMES], nfree;
static uint64_t held;           /* free frames the allocator must not hand out */

bool fake_is_frame(const struct page *p) { return p >= frames && p < frames + FAKE_FRAMES; }

static long frame_no(const struct page *p)
{
	if (!fake_is_frame(p))
		panic("fake pmm: %p is not a frame of the pool", (const void *)p);
	return p - frames;
}

uint64_t *fake_page_data(struct page *p) { return &frame_data[frame_no(p)]; }

uint64_t page_to_phys(const struct page *p)
{
	if (!fake_is_frame(p))          /* a test's own page (swapcache test): any stable number */
		return (uint64_t)(uintptr_t)p & ~0xfffull;
	return PHYS_BASE + (uint64_t)frame_no(p) * PAGE_SIZE;
}

struct page *phys_to_page(uint64_t pa)
{
	uint64_t i = (pa - PHYS_BASE) / PAGE_SIZE;
	if (pa < PHYS_BASE || i >= FAKE_FRAMES)
		panic("fake pmm: no frame at 0x%lx", pa);
	return &frames[i];
}

uint64_t pmm_free_pages(void) { return (uint64_t)nfree - held; }

/* Overcommit: the shmem objects of these tests are never charged
 * (vm.c charges at mmap), so a charge given back is a bug. */
void commit_uncharge(uint64_t pages)
{
	if (pages) {
		fprintf(stderr, "commit_uncharge(%lu): nothing was charged\n", (unsigned long)pages);
		abort();
	}
}
/* The fake has no per-CPU lists: every free frame is on free_stack. */
void pmm_drain_all(void) { }
uint64_t fake_pmm_used(void) { return FAKE_FRAMES - (uint64_t)nfree; }

void fake_pmm_set_free(uint64_t n)
{
	if (n > (uint64_t)nfree)
		panic("fake pmm: %lu frames free asked, the pool has %d", n, nfree);
	held = (uint64_t)nfree - n;
}

struct page *pmm_alloc(unsigned order, unsigned flags)
{
	if (order)
		panic("fake pmm: order %u", order);
	if (pmm_free_pages() == 0)
		return NULL;
	struct page *p = &frames[free_stack[--nfree]];
	if (p->flags != PG_BUDDY)
		panic("fake pmm: frame %ld on the free list has flags 0x%x", frame_no(p), p->flags);
	memset(p, 0, sizeof *p);
	p->refcount = 1;
	frame_data[frame_no(p)] = (flags & PMM_ZERO) ? 0 : 0xa5a5a5a5a5a5a5a5ull;
	return p;
}

void pmm_free(struct page *p, unsigned order)
{
	long i = frame_no(p);
	/* Stricter than the buddy allocator: a frame still mapped, referenced
	 * or listed would be a dangling PTE or list entry. */
	if (order || p->refcount || p->mapcount || (p->flags & (PG_BUDDY | PG_LRU | PG_LOCKED | PG_SWAPCACHE)))
		panic("fake pmm: freeing frame %ld: order %u refcount %d mapcount %d flags 0x%x", i, order,
		      p->refcount, p->mapcount, p->flags);
	p->flags = PG_BUDDY;
	frame_data[i] = 0x6b6b6b6b6b6b6b6bull;
	free_stack[nfree++] = (int)i;
}

void pmm_get_stats(struct pmm_stats *s)
{
	memset(s, 0, sizeof *s);
	s->total_pages = FAKE_FRAMES;
	s->free_pages = pmm_free_pages();
}

/* ---------------------------------------------------------------- page tables */

#define PT_SLOTS 8192
static struct { uint64_t root, va; pte_t e; bool used; } pt[PT_SLOTS];

static pte_t *pt_slot(uint64_t root, uint64_t va, bool create)
{
	uint64_t h = ((root * 31 + va / PAGE_SIZE) * 0x9e3779b97f4a7c15ull) >> 51;
	for (int probes = 0; probes < PT_SLOTS; probes++, h = (h + 1) % PT_SLOTS) {
		if (pt[h].used && pt[h].root == root && pt[h].va == va)
			return &pt[h].e;
		if (!pt[h].used) {
			if (!create)
				return NULL;
			pt[h].used = true;
			pt[h].root = root;
			pt[h].va = va;
			pt[h].e = 0;
			return &pt[h].e;
		}
	}
	panic("fake page tables full");
}

pte_t pt_get(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_slot(pml4, va, false);
	return e ? *e : 0;
}

void pt_get_many(uint64_t pml4, uint64_t va, int64_t step, uint32_t n, pte_t *out)
{
	for (uint32_t k = 0; k < n; k++)
		out[k] = pt_get(pml4, va + (uint64_t)((int64_t)k * step));
}

pte_t pt_set(uint64_t pml4, uint64_t va, pte_t v)
{
	pte_t *e = pt_slot(pml4, va, true), old = *e;
	*e = v;
	return old;
}

pte_t pt_unmap(uint64_t pml4, uint64_t va) { return pt_set(pml4, va, 0); }

/* A slot stands in for a page table: none until the PTE was first set. */
pte_t *pt_leaf(uint64_t pml4, uint64_t va) { return pt_slot(pml4, va, false); }

pte_t pt_leaf_xchg(pte_t *e, pte_t v)
{
	pte_t old = *e;
	*e = v;
	return old;
}

bool pt_leaf_test_clear_young(pte_t *e)
{
	if (!(*e & PTE_P) || !(*e & PTE_A))
		return false;
	*e &= ~PTE_A;
	return true;
}

pte_t pt_make(uint64_t pa, unsigned flags) { return (pa & PTE_FRAME) | PTE_P | ((flags & PT_WRITE) ? PTE_W : 0); }

bool pt_test_clear_young(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_slot(pml4, va, false);
	return e && pt_leaf_test_clear_young(e);
}

pte_t pt_mkclean(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_slot(pml4, va, false);
	if (!e || !(*e & PTE_P))
		return 0;
	pte_t old = *e;
	*e &= ~(PTE_W | PTE_D);
	return old;
}

bool pt_pte_present(pte_t e) { return e & PTE_P; }
bool pt_pte_dirty(pte_t e) { return (e & PTE_P) && (e & PTE_D); }
bool pt_pte_young(pte_t e) { return (e & PTE_P) && (e & PTE_A); }
bool pt_pte_writable(pte_t e) { return (e & PTE_P) && (e & PTE_W); }
bool fake_pte_writable(uint64_t e) { return pt_pte_writable(e); }
pte_t pt_swap_pte(uint64_t entry) { return entry << 1; }
bool pt_pte_is_swap(pte_t e) { return e && !(e & PTE_P); }
uint64_t pt_pte_swap_entry(pte_t e) { return e >> 1; }
uint64_t pt_pte_phys(pte_t e) { return e & PTE_FRAME; }
void pt_flush(uint64_t va) { (void)va; }

/* TLB batches: counted, so a test can see that reclaim flushed what it
 * took away before it wrote the pages out. */
void tlb_batch_add(struct tlb_batch *b, const struct cpumask *mm_cpus, uint64_t va)
{
	(void)mm_cpus;
	(void)va;
	b->pages++;
	fake.tlb_unflushed++;
}

void vm_tlb_flush(struct tlb_batch *b)
{
	if (b->pages)
		fake.tlb_flushes++;
	tlb_batch_init(b);
	fake.tlb_unflushed = 0;
}

/* ---------------------------------------------------------------- vm.c */

bool vm_install(struct mm *mm, uint64_t va, uint64_t expect, struct page *p, unsigned ptflags)
{
	if (pt_get(mm->pml4, va) != expect)
		return false;
	pt_set(mm->pml4, va, pt_make(page_to_phys(p), ptflags));
	p->mapcount++;
	mm->rss++;
	if (pt_pte_is_swap(expect))
		mm->swap_ents--;
	if (page_test(p, PG_ANON)) {
		p->mapping = mm;
		p->index = va;
	}
	return true;
}

unsigned vm_pt_prot(uint32_t prot)
{
	return PT_USER | ((prot & VM_WRITE) ? PT_WRITE : 0) | ((prot & VM_EXEC) ? PT_EXEC : 0);
}

bool vm_is_active(struct mm *mm) { (void)mm; return false; }

/* The fake tables have no levels to skip: every page is looked at. */
uint64_t vm_walk_from(struct mm *mm, uint64_t va, uint64_t end, bool first)
{
	(void)mm;
	(void)first;
	return va < end ? va : end;
}


/* vm.c's: a fault's shared hold of mm->lock ends. */
void vm_fault_unlock(struct mm *mm) { up_read(&mm->lock); }

/* vm_fault for a page of v, as vm.c does it: under mm->lock, retried
 * while the swap-in dropped the lock (it waited for I/O). */
enum vm_fault_result fake_fault(struct mm *mm, struct vma *v, uint64_t va, bool write, struct fault_stats *st)
{
	for (int tries = 0; tries < 16; tries++) {
		down_read(&mm->lock);
		pte_t e = pt_get(mm->pml4, va);
		bool shared = !e && (v->flags & VM_SHARED);
		if (!pt_pte_is_swap(e) && !shared) {
			up_read(&mm->lock);
			return pt_pte_present(e) ? VM_FAULT_OK : VM_FAULT_MAPERR;
		}
		bool dropped = false;
		enum vm_fault_result r = shared ? swapin_shmem(mm, v, va, write, st, &dropped)
						: swapin_anon(mm, v, v->ra_state, va, e, write, st, &dropped);
		if (!dropped)
			up_read(&mm->lock);
		if (r != VM_FAULT_RETRY)
			return r;
	}
	panic("fake_fault: 0x%lx still retrying after 16 tries", va);
}

/* vm.c's vm_fault, for swapoff (swapin_unuse_mm): the test mm's areas
 * are mm->vmas.v[0..n). */
enum vm_fault_result vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec, struct fault_stats *st)
{
	(void)exec;
	for (uint32_t i = 0; i < mm->vmas.n; i++)
		if (addr >= mm->vmas.v[i].start && addr < mm->vmas.v[i].end)
			return fake_fault(mm, &mm->vmas.v[i], addr, write, st);
	return VM_FAULT_MAPERR;
}

/* ---------------------------------------------------------------- test mm */

static uint64_t next_root = 0x1000;

/* The live test mms, for vm_for_each_mm (rmap's walk of file pages). */
#define FAKE_MMS 16
static struct mm *live_mm[FAKE_MMS];

struct mm *fake_mm_new(void)
{
	struct mm *mm = calloc(1, sizeof *mm);
	for (int i = 0; i < FAKE_MMS; i++)
		if (!live_mm[i]) {
			live_mm[i] = mm;
			break;
		}
	rwsem_init(&mm->lock, "mm");
	spin_init(&mm->vmas_lock, "mm-vmas");
	for (unsigned i = 0; i < MM_PTL_STRIPES; i++)
		spin_init(&mm->ptl[i], "ptl");
	mm->pml4 = next_root += 0x1000;
	mm->refs = 1;
	return mm;
}

uint64_t fake_pte(struct mm *mm, uint64_t va) { return pt_get(mm->pml4, va); }
void fake_set_pte(struct mm *mm, uint64_t va, uint64_t e) { pt_set(mm->pml4, va, e); }

void fake_touch(struct mm *mm, uint64_t va, bool write)
{
	pte_t *e = pt_slot(mm->pml4, va, false);
	if (!e || !(*e & PTE_P))
		panic("fake_touch: nothing mapped at 0x%lx", va);
	*e |= PTE_A | (write ? PTE_D : 0);
}

struct page *fake_map_anon(struct mm *mm, uint64_t va, uint64_t data)
{
	struct page *p = pmm_alloc(0, PMM_ZERO);
	if (!p)
		panic("fake_map_anon: no free frame");
	*fake_page_data(p) = data;
	page_set(p, PG_ANON);
	vm_install(mm, va, 0, p, PT_USER | PT_WRITE);
	*pt_slot(mm->pml4, va, false) |= PTE_D;         /* written: that is how it got its data */
	lru_add(p, LRU_ANON, false);
	return p;
}

/* vm.c's release_pte. */
static void release(pte_t e)
{
	if (pt_pte_is_swap(e)) {
		swapcache_free_entry(pt_pte_swap_entry(e));
		return;
	}
	if (!pt_pte_present(e))
		return;
	struct page *p = phys_to_page(pt_pte_phys(e));
	if (page_test(p, PG_ANON))
		p->mapping = NULL;
	p->mapcount--;
	put_page(p);
}

void fake_unmap(struct mm *mm, uint64_t va)
{
	pte_t e = pt_unmap(mm->pml4, va);
	if (pt_pte_present(e))
		mm->rss--;
	release(e);
}

/* swap.c's swap_drop_unused_cache: swap-cache pages nobody maps whose
 * slot only the cache holds. */
static void drop_unused_cache(void)
{
	struct page *out[64];
	for (unsigned a = 0; a < SWAP_MAX_AREAS; a++) {
		struct swapcache_walk w = { 0 };
		int n;
		while ((n = swapcache_walk(a, &w, out, 64)) > 0) {
			for (int i = 0; i < n; i++) {
				struct page *p = out[i];
				lock_page(p);
				if (page_test(p, PG_SWAPCACHE) && !p->mapcount && swap_count(p->private) == 1)
					swapcache_drop(p);
				unlock_page(p);
				put_page(p);
			}
		}
	}
}

/* mm's areas are the test's own array v[0..n) (tests keep changing it),
 * with the object index rmap searches built here as vma.c keeps it. */
void fake_mm_areas(struct mm *mm, struct vma *v, uint32_t n)
{
	struct vma_set *s = &mm->vmas;
	free(s->o);
	s->v = v;
	s->n = s->cap = n;
	s->o = calloc(n ? n : 1, sizeof *s->o);
	s->on = 0;
	s->o_max_pages = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!v[i].obj)
			continue;
		struct vma_oref e = { v[i].obj, v[i].pgoff, v[i].start };
		uint32_t k = s->on++;
		for (; k > 0 && ((uintptr_t)s->o[k - 1].obj > (uintptr_t)e.obj ||
				 (s->o[k - 1].obj == e.obj && s->o[k - 1].pgoff > e.pgoff)); k--)
			s->o[k] = s->o[k - 1];
		s->o[k] = e;
		uint64_t pages = (v[i].end - v[i].start) / VMA_PAGE;
		if (pages > s->o_max_pages)
			s->o_max_pages = pages;
	}
}

void fake_mm_free(struct mm *mm)
{
	free(mm->vmas.o);
	for (int i = 0; i < PT_SLOTS; i++)
		if (pt[i].used && pt[i].root == mm->pml4) {
			pte_t e = pt[i].e;
			pt[i].e = 0;
			release(e);
		}
	ra_state_free(mm->ra);
	for (int i = 0; i < FAKE_MMS; i++)
		if (live_mm[i] == mm)
			live_mm[i] = NULL;
	free(mm);
	drop_unused_cache();
}

void fake_mm_reset(void)
{
	for (int i = 0; i < FAKE_FRAMES; i++)
		if (frames[i].flags & PG_LRU)
			lru_del(&frames[i]);
	memset(frames, 0, sizeof frames);
	nfree = 0;
	for (int i = FAKE_FRAMES - 1; i >= 0; i--) {
		frames[i].flags = PG_BUDDY;
		free_stack[nfree++] = i;
	}
	held = 0;
	memset(pt, 0, sizeof pt);
	memset(live_mm, 0, sizeof live_mm);     /* a test that did not free its mm */
}

/* ------------------------------------------------------------ page cache */

struct page *fake_file_page(uint64_t data, bool dirty)
{
	struct page *p = pmm_alloc(0, PMM_ZERO);
	if (!p)
		panic("fake_file_page: no free frame");
	*fake_page_data(p) = data;
	page_set(p, PG_FILE | (dirty ? PG_DIRTY : 0));
	lru_add(p, LRU_FILE, false);
	return p;
}

void fake_file_drop(struct page *p)
{
	if (!page_test(p, PG_FILE))
		return;
	page_clear(p, PG_FILE | PG_DIRTY);
	lru_del(p);
	put_page(p);
}

/* pagecache.c's contract: an isolated page (one extra reference); a
 * clean one is dropped with its cache reference, a dirty one has its
 * write started (here: it is clean at once) and stays. */
int pagecache_reclaim_page(struct page *p, bool *activate)
{
	*activate = false;
	if (page_test_clear(p, PG_DIRTY)) {
		fake.file_writebacks++;
		return 0;
	}
	page_clear(p, PG_FILE);
	put_page(p);                    /* the cache's */
	put_page(p);                    /* the isolation's */
	fake.file_dropped++;
	return 1;
}

/* vm.c's walk of every address space: the live test mms (a file page
 * is found in those whose areas map its cache, mm->vmas.v[0..n)). */
void vm_for_each_mm(void (*fn)(struct mm *mm, void *ctx), void *ctx)
{
	for (int i = 0; i < FAKE_MMS; i++)
		if (live_mm[i])
			fn(live_mm[i], ctx);
}

void pagecache_set_page_dirty(struct page *p) { page_set(p, PG_DIRTY); }
