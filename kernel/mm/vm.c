/*
 * Address spaces and demand paging.
 *
 * An mm starts with a PML4 whose kernel half is copied from the kernel's
 * (layout.h: those PML4 entries never change after boot) and an empty VMA
 * set.  User pages appear on first touch: vm_fault finds the VMA, checks
 * the access against its protection, and maps a zeroed anonymous frame or
 * the shmem object's page.  Nothing is copied on write: there is no fork.
 *
 * TLB: a change to the page tables of the running mm is flushed with
 * invlpg (pt_flush); other mms are not loaded on any CPU (one CPU today;
 * SMP will turn pt_flush into a shootdown over the CPUs running the mm).
 */
#include <string.h>
#include "vm.h"
#include "page.h"
#include "pmm.h"
#include "pgtable.h"
#include "kmem.h"
#include "kmalloc.h"
#include "shmem.h"
#include "layout.h"
#include "panic.h"
#include "lib/errno.h"
#include "arch/x86_64/x86.h"

#define P PAGE_SIZE

static struct spinlock mm_list_lock = SPINLOCK_INIT("mm-list");
static struct list_node mm_list = LIST_INIT(mm_list);

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
	mutex_init(&mm->lock, "mm");
	vma_set_init(&mm->vmas, kmalloc, kfree);
	mm->vmas.obj_get = shmem_get;
	mm->vmas.obj_put = shmem_put;
	mm->vmas.owner = mm;
	mm->refs = 1;
	bool on = spin_lock_irqsave(&mm_list_lock);
	list_add_tail(&mm->all, &mm_list);
	spin_unlock_irqrestore(&mm_list_lock, on);
	return mm;
}

void mm_get(struct mm *mm) { __atomic_add_fetch(&mm->refs, 1, __ATOMIC_RELAXED); }

static bool is_active(struct mm *mm) { return (read_cr3() & ~0xfffull) == mm->pml4; }

void mm_activate(struct mm *mm)
{
	uint64_t want = mm ? mm->pml4 : kmem_kernel_pml4();
	if ((read_cr3() & ~0xfffull) != want)
		write_cr3(want);
}

/* Drop one mapping of the frame at pa. */
static void put_mapped(uint64_t pa)
{
	struct page *p = phys_to_page(pa);
	if (p->flags & PG_SHMEM) {
		p->mapcount--;
		return;
	}
	pmm_free(p, 0);
}

static void free_leaf(uint64_t pa, uint64_t va, void *ctx)
{
	(void)va;
	(void)ctx;
	put_mapped(pa);
}

void mm_put(struct mm *mm)
{
	if (__atomic_sub_fetch(&mm->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (is_active(mm))
		mm_activate(NULL);
	bool on = spin_lock_irqsave(&mm_list_lock);
	list_del(&mm->all);
	spin_unlock_irqrestore(&mm_list_lock, on);
	/* Pages first (shmem mapcounts), then the objects' references. */
	pt_free_user(mm->pml4, free_leaf, NULL);
	for (uint32_t i = 0; i < mm->vmas.n; i++)
		if (mm->vmas.v[i].obj)
			shmem_put(mm, mm->vmas.v[i].obj);
	vma_set_destroy(&mm->vmas);
	pmm_free(phys_to_page(mm->pml4), 0);
	kfree(mm);
}

static unsigned pt_prot(uint32_t prot)
{
	return PT_USER | ((prot & VM_WRITE) ? PT_WRITE : 0) | ((prot & VM_EXEC) ? PT_EXEC : 0);
}

const char *vm_fault_name(enum vm_fault_result r)
{
	switch (r) {
	case VM_FAULT_OK: return "ok";
	case VM_FAULT_MAPERR: return "no mapping at that address";
	case VM_FAULT_ACCERR: return "access not permitted by the mapping";
	default: return "out of memory";
	}
}

/* The frame for va in v, new or shared.  mm->lock held. */
static struct page *new_page(struct mm *mm, const struct vma *v, uint64_t va)
{
	if (v->flags & VM_SHARED) {
		bool fresh;
		struct page *p = shmem_get_page(v->obj, v->pgoff + (va - v->start) / P, &fresh);
		if (p)
			p->mapcount++;
		return p;
	}
	struct page *p = pmm_alloc(0, PMM_ZERO);
	if (p) {
		p->flags |= PG_ANON;
		p->mapping = mm;
		p->index = va;
		p->mapcount = 1;
	}
	return p;
}

static enum vm_fault_result map_new(struct mm *mm, const struct vma *v, uint64_t va)
{
	struct page *p = new_page(mm, v, va);
	if (!p)
		return VM_FAULT_OOM;
	if (pt_map(mm->pml4, va, page_to_phys(p), pt_prot(v->prot))) {
		put_mapped(page_to_phys(p));
		return VM_FAULT_OOM;
	}
	mm->rss++;
	return VM_FAULT_OK;
}

enum vm_fault_result vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec, struct fault_stats *st)
{
	mutex_lock(&mm->lock);
	enum vm_fault_result r = VM_FAULT_MAPERR;
	int i = vma_find(&mm->vmas, addr);
	if (i < 0)
		goto out;
	const struct vma *v = &mm->vmas.v[i];
	r = VM_FAULT_ACCERR;
	if ((write && !(v->prot & VM_WRITE)) || (exec && !(v->prot & VM_EXEC)) || !v->prot)
		goto out;
	uint64_t va = addr & ~(P - 1);
	r = VM_FAULT_OK;
	if (pt_flags(mm->pml4, va) >= 0)
		goto out;               /* already mapped (another thread won) */
	r = map_new(mm, v, va);
	if (r == VM_FAULT_OK && st)
		st->minflt++;
out:
	mutex_unlock(&mm->lock);
	return r;
}

/* ---------------------------------------------------------------- unmap */

/* Remove the mappings of [start, end); keeps the VMAs.  mm->lock held. */
static void zap(struct mm *mm, uint64_t start, uint64_t end)
{
	bool active = is_active(mm);
	for (uint64_t va = start; va < end; va += P) {
		pte_t old = pt_unmap(mm->pml4, va);
		if (!pt_pte_present(old))
			continue;
		if (active)
			pt_flush(va);
		put_mapped(pt_pte_phys(old));
		mm->rss--;
	}
}

static void unmap_piece(void *ctx, const struct vma *piece)
{
	struct mm *mm = ctx;
	zap(mm, piece->start, piece->end);
	if (piece->obj)
		shmem_put(mm, piece->obj);
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

int vm_munmap(struct mm *mm, uint64_t addr, uint64_t len)
{
	uint64_t end;
	int err = check_range(addr, len, &end);
	if (err)
		return err;
	mutex_lock(&mm->lock);
	err = vma_remove(&mm->vmas, addr, end, unmap_piece, mm);
	mutex_unlock(&mm->lock);
	return err;
}

/* ---------------------------------------------------------------- mmap */

_Static_assert(PROT_READ == VM_READ && PROT_WRITE == VM_WRITE && PROT_EXEC == VM_EXEC, "prot values");

static uint32_t vm_prot(int prot)
{
	return ((prot & PROT_READ) ? VM_READ : 0) | ((prot & PROT_WRITE) ? VM_WRITE | VM_READ : 0) |
	       ((prot & PROT_EXEC) ? VM_EXEC | VM_READ : 0);
}

/* Choose the address for a new mapping.  mm->lock held. */
static long place(struct mm *mm, uint64_t addr, uint64_t len, int flags)
{
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & (P - 1))
			return -EINVAL;
		if (addr < USER_MMAP_MIN / 16 || addr + len > USER_TOP || addr + len < addr)
			return -ENOMEM;
		if (vma_range_free(&mm->vmas, addr, addr + len))
			return (long)addr;
		if (flags & MAP_FIXED_NOREPLACE)
			return -EEXIST;
		int err = vma_remove(&mm->vmas, addr, addr + len, unmap_piece, mm);
		return err ? err : (long)addr;
	}
	addr &= ~(P - 1);
	if (addr >= USER_MMAP_MIN && addr + len <= USER_MMAP_TOP && addr + len > addr &&
	    vma_range_free(&mm->vmas, addr, addr + len))
		return (long)addr;
	uint64_t a = vma_find_gap(&mm->vmas, len, USER_MMAP_MIN, USER_MMAP_TOP);
	return a ? (long)a : -ENOMEM;
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
	struct vma v = { .prot = vm_prot(prot) };
	struct shmem *obj = NULL;
	if (type == MAP_SHARED) {
		obj = shmem_create(len / P);
		if (!obj)
			return -ENOMEM;
		v.flags = VM_SHARED;
		v.obj = obj;
	}
	mutex_lock(&mm->lock);
	long at = place(mm, addr, len, flags);
	if (at >= 0) {
		v.start = (uint64_t)at;
		v.end = v.start + len;
		if (obj)
			shmem_get(mm, obj);
		int err = vma_insert(&mm->vmas, &v);
		if (err) {
			if (obj)
				shmem_put(mm, obj);     /* the last reference: destroys it */
			at = err;
		}
	} else if (obj) {
		shmem_get(mm, obj);
		shmem_put(mm, obj);
	}
	mutex_unlock(&mm->lock);
	return at;
}

/* ---------------------------------------------------------------- mprotect */

struct reprotect {
	struct mm *mm;
	unsigned flags;
};

static void reprotect_piece(void *ctx, const struct vma *piece)
{
	struct reprotect *r = ctx;
	bool active = is_active(r->mm);
	for (uint64_t va = piece->start; va < piece->end; va += P)
		if (!pt_protect(r->mm->pml4, va, r->flags) && active)
			pt_flush(va);
}

int vm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
	uint64_t end;
	int err = check_range(addr, len, &end);
	if (err)
		return err;
	struct reprotect r = { mm, pt_prot(vm_prot(prot)) };
	mutex_lock(&mm->lock);
	err = vma_protect(&mm->vmas, addr, end, vm_prot(prot), reprotect_piece, &r);
	mutex_unlock(&mm->lock);
	return err;
}

/* ---------------------------------------------------------------- madvise */

int vm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice)
{
	uint64_t end;
	if (!len)
		return 0;
	int err = check_range(addr, len, &end);
	if (err)
		return err;
	mutex_lock(&mm->lock);
	switch (advice) {
	case MADV_DONTNEED:
		/* Anonymous pages are dropped (next touch: zero); shared pages
		 * stay in their object, only this mapping goes. */
		err = vma_set_flags(&mm->vmas, addr, end, 0, 0);
		if (!err)
			zap(mm, addr, end);
		break;
	case MADV_RANDOM:
		err = vma_set_flags(&mm->vmas, addr, end, VM_RANDOM, VM_SEQ);
		break;
	case MADV_SEQUENTIAL:
		err = vma_set_flags(&mm->vmas, addr, end, VM_SEQ, VM_RANDOM);
		break;
	case MADV_NORMAL:
		err = vma_set_flags(&mm->vmas, addr, end, 0, VM_SEQ | VM_RANDOM);
		break;
	default:
		/* WILLNEED and the rest: accepted; nothing to do without swap. */
		err = vma_set_flags(&mm->vmas, addr, end, 0, 0);
		break;
	}
	mutex_unlock(&mm->lock);
	return err;
}

/* ---------------------------------------------------------------- brk */

uint64_t vm_brk(struct mm *mm, uint64_t newbrk)
{
	mutex_lock(&mm->lock);
	uint64_t cur = mm->brk;
	if (newbrk < mm->brk_start || newbrk > USER_MMAP_TOP)
		goto out;
	uint64_t old_end = (cur + P - 1) & ~(P - 1), new_end = (newbrk + P - 1) & ~(P - 1);
	if (new_end > old_end) {
		struct vma v = { old_end, new_end, VM_READ | VM_WRITE, VM_HEAP, NULL, 0, 0 };
		if (vma_insert(&mm->vmas, &v))
			goto out;
	} else if (new_end < old_end) {
		vma_remove(&mm->vmas, new_end, old_end, unmap_piece, mm);
	}
	mm->brk = cur = newbrk;
out:
	mutex_unlock(&mm->lock);
	return cur;
}

/* ---------------------------------------------------------------- loader */

int vm_write(struct mm *mm, uint64_t va, const void *src, uint64_t n)
{
	const uint8_t *s = src;
	while (n) {
		uint64_t off = va & (P - 1), chunk = P - off < n ? P - off : n;
		uint64_t pa = pt_translate(mm->pml4, va & ~(P - 1));
		if (pa == PT_NOT_MAPPED) {
			int i = vma_find(&mm->vmas, va);
			if (i < 0 || map_new(mm, &mm->vmas.v[i], va & ~(P - 1)) != VM_FAULT_OK)
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
	struct vma v = { start, end, prot, flags, NULL, 0, 0 };
	mutex_lock(&mm->lock);
	int err = vma_insert(&mm->vmas, &v);
	if (!err && n)
		err = vm_write(mm, start + skip, data, n);
	mutex_unlock(&mm->lock);
	return err;
}
