/*
 * User address spaces: page tables (sharing the kernel half), the VMA
 * set, demand paging, and the memory system calls' implementations.
 *
 * Reverse map: an anonymous page records its mm and virtual address
 * (page->mapping = mm with PG_ANON, page->index = va); a shmem page records
 * its object and slot, and the object lists the mms that map it.
 *
 * Locking (issue 14: threads of one process fault in parallel):
 *  - mm->lock is a reader/writer sleeping lock (struct rwsem, core/wait.h).
 *    Faults take it shared: the VMA set cannot change under them, but
 *    other faults of the same mm run at once.  Whatever changes the VMA
 *    set or brk, or zaps PTEs (mmap, munmap, mprotect, brk, madvise, exec's
 *    loader) takes it exclusive; readers of the VMA set alone (msync,
 *    /proc, swapoff's copy of the areas) take it shared.
 *  - A fault therefore never owns a PTE: every PTE change (install, COW,
 *    write upgrade) re-reads the PTE under its page-table lock and gives
 *    up when it moved on (the loser of two faults on one page frees what
 *    it allocated and returns OK; the retry, if any, finds the winner's
 *    PTE).
 *  - Page-table locks are split, as Linux splits its PTE locks per page
 *    table: the PTEs of one page table (2 MiB) are guarded by one of
 *    MM_PTL_STRIPES spinlocks of the mm, chosen by the table's index
 *    (mm_ptl; tables 64 apart share one), so threads faulting
 *    in different parts of an address space do not wait for each other.
 *    One mm-wide lock stopped four threads on 2 CPUs at one acquisition
 *    in nine.  A missing table level goes in with a compare-and-swap
 *    (pgtable.c), so two faults under different stripes cannot both fill
 *    it; tables are freed only with the mm.  rss, swap_ents and
 *    table_pages are atomic.  No code holds two stripes at once.
 *  - mm->vmas_lock guards writes to the VMA array (made with mm->lock
 *    held exclusive too) for reclaim's reverse-map readers, which cannot
 *    take the sleeping mm->lock; they take a stripe inside it.
 *  - Two faults on one swap entry meet in the swap cache: one reads the
 *    page (locked for the read), the other finds it there and sleeps on
 *    the page lock with mm->lock dropped, then retries (VM_FAULT_RETRY).
 *  - Per-mm state a fault updates outside the page-table locks is atomic
 *    (ra_issued, ra_hits) or the readahead policy's, under its own lock
 *    (readahead.c).
 *  - A reader must never take mm->lock again while holding it (the lock
 *    is writer-preferring): never copy to or from user memory while
 *    holding it, since the copy may fault.
 */
#ifndef VM_H
#define VM_H

#include <stdint.h>
#include <stdbool.h>
#include "vma.h"
#include "core/wait.h"
#include "core/spinlock.h"
#include "arch/x86_64/tlb.h"

struct page;

/* The last page below 2^47 is never mapped (Linux's TASK_SIZE_MAX): a
 * syscall instruction in its last two bytes would return to the first
 * non-canonical address, and iretq faults on that in the kernel, after
 * its swapgs. */
#define USER_MAP_TOP     0x00007ffffffff000ul
#define USER_STACK_TOP   0x00007ffffffff000ul
#define USER_STACK_SIZE  (8ul << 20)
#define USER_MMAP_TOP    0x00007f0000000000ul
#define USER_MMAP_MIN    0x0000000010000000ul
#define USER_PIE_BASE    0x0000555555554000ul

/* Page-table lock stripes per mm (a power of two): 2.5 KiB of locks. */
#define MM_PTL_STRIPES 64

struct mm {
	struct rwsem lock;              /* shared: faults; exclusive: VMA/brk changes, zaps */
	struct spinlock vmas_lock;      /* VMA array writes (with lock exclusive): reverse-map readers */
	uint64_t pml4;                  /* physical; immutable */
	struct vma_set vmas;            /* written under lock (exclusive) and vmas_lock */
	uint64_t brk_start, brk;        /* guarded by lock (exclusive) */
	uint64_t total_vm;              /* pages in its areas (Linux's total_vm), guarded by lock (exclusive) */
	uint64_t rss;                   /* pages mapped (atomic) */
	uint64_t swap_ents;             /* PTEs holding a swap entry (Linux's MM_SWAPENTS; atomic) */
	uint64_t table_pages;           /* page-table pages below the root (Linux's pgtables_bytes / 4096; atomic) */
	int refs;                       /* atomic */
	unsigned faults_in;             /* faults holding lock now (atomic): fault_overlap */
	void *ra;                       /* readahead policy state (readahead.c) */
	struct spinlock ra_lock;        /* guards *ra and the VMAs' ra_state (readahead.c) */
	uint64_t ra_issued, ra_hits;    /* pages read ahead by its faults, and used by them; atomic */
	struct list_node all;           /* global mm list (vm.c) */
	struct cpumask cpus;            /* CPUs with pml4 loaded (arch/x86_64/tlb.h; atomic) */
	struct spinlock ptl[MM_PTL_STRIPES];    /* PTEs, by page table: mm_ptl */
};

/* The lock of va's PTE. */
static inline struct spinlock *mm_ptl(struct mm *mm, uint64_t va)
{
	return &mm->ptl[(va >> 21) & (MM_PTL_STRIPES - 1)];
}

/* A walk over PTEs holds the stripe of the page it is at: ptl_at takes
 * va's (letting go of the one held when it differs), ptl_done lets go.
 * Start from PTL_HOLD_INIT. */
struct ptl_hold {
	struct spinlock *l;
	bool on;
};
#define PTL_HOLD_INIT { NULL, false }

static inline void ptl_at(struct mm *mm, struct ptl_hold *h, uint64_t va)
{
	struct spinlock *l = mm_ptl(mm, va);
	if (l == h->l)
		return;
	if (h->l)
		spin_unlock_irqrestore(h->l, h->on);
	h->l = l;
	h->on = spin_lock_irqsave(l);
}

static inline void ptl_done(struct ptl_hold *h)
{
	if (h->l)
		spin_unlock_irqrestore(h->l, h->on);
	h->l = NULL;
}

static inline void mm_count(uint64_t *counter, int64_t delta)
{
	__atomic_add_fetch(counter, (uint64_t)delta, __ATOMIC_RELAXED);
}

struct mm *mm_create(void);
void mm_get(struct mm *mm);
void mm_put(struct mm *mm);
/* Load mm's page tables (NULL: kernel only). */
void mm_activate(struct mm *mm);
/* Flush a batch of this mm's (and others') changed PTEs on every CPU
 * that may cache them, counting the IPIs and pages in vmstat.  Before
 * the pages go (freed, written out). */
void vm_tlb_flush(struct tlb_batch *b);

enum vm_fault_result {
	VM_FAULT_OK = 0,
	VM_FAULT_MAPERR,        /* no mapping there (SIGSEGV, SEGV_MAPERR) */
	VM_FAULT_ACCERR,        /* mapping forbids the access (SIGSEGV, SEGV_ACCERR) */
	VM_FAULT_OOM,           /* no memory for the page */
	VM_FAULT_SIGBUS,        /* swapped-out data could not be read */
	VM_FAULT_RETRY,         /* internal: try again (mm->lock may have been dropped) */
};

struct fault_stats {
	uint64_t minflt, majflt;
	uint64_t swapflt;       /* faults that took their page from swap (major or swap cache) */
	uint64_t dirtied;       /* shared file pages a write fault marked dirty: the caller
				 * throttles the writer (pagecache_balance_dirty) */
};

/* Resolve a fault at addr.  May sleep.  Counts into *st. */
enum vm_fault_result vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec, struct fault_stats *st);
/* Faults finished so far (resolved or failed for good; not retries) and
 * threads inside vm_fault now: hangcheck's view of tasks waiting for
 * memory.  vm_fault brackets itself with enter/leave; a test standing in
 * for a stuck fault may too. */
void vm_fault_counts(uint64_t *done, unsigned *inside);
void vm_fault_enter(void);
void vm_fault_leave(bool finished);
const char *vm_fault_name(enum vm_fault_result r);

/* Linux semantics and error codes (negative errno).  A request that
 * would commit memory is charged against overcommit (vm/commit.h) and
 * refused with -ENOMEM when the knobs say so. */

long vm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags);
/* Where a per-page walk of [va, end) goes on: va, or the first page
 * past it that a page table covers, or end.  Looked up when `first` or
 * at a page table's first page: tables are not freed while an area
 * exists, so one found stays for its 512 pages.  Walks over an area of
 * TiBs with a few pages in it take it to step over the rest. */
uint64_t vm_walk_from(struct mm *mm, uint64_t va, uint64_t end, bool first);
int vm_munmap(struct mm *mm, uint64_t addr, uint64_t len);
int vm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot);
int vm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice);
uint64_t vm_brk(struct mm *mm, uint64_t newbrk);
/* A block device's page cache mapped from page pgoff of its disk
 * (vm/pagecache.h); the caller checked the file's access mode. */
struct pagecache;
long vm_mmap_file(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags, struct pagecache *pc,
		  uint64_t pgoff);
/* msync: shared device areas' dirty PTEs to their pages, then written
 * back (MS_SYNC waits: -EIO for a failed write); -ENOMEM for a hole. */
int vm_msync(struct mm *mm, uint64_t addr, uint64_t len, int flags);

/* Internal to mm/: a fault's shared hold of mm->lock ends (swap-in
 * drops it to wait for I/O; vm_fault otherwise). */
void vm_fault_unlock(struct mm *mm);
/* Internal to mm/: map p at va if the PTE still holds `expect` (the
 * caller's page reference becomes the PTE's); false if it changed. */
bool vm_install(struct mm *mm, uint64_t va, uint64_t expect, struct page *p, unsigned ptflags);
unsigned vm_pt_prot(uint32_t prot);
bool vm_is_active(struct mm *mm);
void vm_for_each_mm(void (*fn)(struct mm *mm, void *ctx), void *ctx);

/* Map [start, end) with prot and fill it from data (n bytes at offset
 * `skip` into the first page; the rest is zero).  For the ELF loader. */
int vm_map_copy(struct mm *mm, uint64_t start, uint64_t end, uint32_t prot, uint32_t flags,
		const void *data, uint64_t n, uint64_t skip);
/* Copy bytes into an mm that is not (necessarily) current. */
int vm_write(struct mm *mm, uint64_t va, const void *src, uint64_t n);

/* Linux's mmap flag and advice values.  PROT_* equal VM_* (vma.h). */
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_POPULATE 0x8000
#define MAP_FIXED_NOREPLACE 0x100000
#define MS_ASYNC 1
#define MS_INVALIDATE 2
#define MS_SYNC 4
#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED 3
#define MADV_DONTNEED 4
#define MADV_COLD 20
#define MADV_PAGEOUT 21

#endif
