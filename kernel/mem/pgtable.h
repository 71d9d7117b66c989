/*
 * Page tables.  The only code that knows x86-64 PTE bits.  Everything else
 * speaks in PT_* flags and calls these functions.
 *
 * Tables are addressed by the physical address of their PML4.  Intermediate
 * tables are allocated through pt_set_table_allocator (early boot allocator,
 * later the page allocator).  Callers serialise changes to one address
 * space (kernel: kmem lock; processes: their mm lock).
 */
#ifndef PGTABLE_H
#define PGTABLE_H

#include <stdint.h>
#include <stdbool.h>

typedef uint64_t pte_t;

enum pt_flags {
	PT_WRITE  = 1u << 0,
	PT_USER   = 1u << 1,
	PT_EXEC   = 1u << 2,    /* without it the page is NX */
	PT_GLOBAL = 1u << 3,
	PT_UC     = 1u << 4,    /* uncached (MMIO) */
	PT_WC     = 1u << 5,    /* write-combining (framebuffer) */
};

/* Returns the physical address of a zeroed 4 KiB page, or 0. */
typedef uint64_t (*pt_alloc_fn)(void);
void pt_set_table_allocator(pt_alloc_fn fn);
void pt_set_table_free(void (*fn)(uint64_t phys));

/* Map one 4 KiB page / one 2 MiB page / one 1 GiB page (only when the
 * CPU has pdpe1gb).  -ENOMEM when a table cannot be allocated, -EEXIST
 * when something is already mapped there. */
int pt_map(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags);
int pt_map_2m(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags);
int pt_map_1g(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags);
/* Clear va's 4 KiB PTE; returns the old value (0 if none; it may be a
 * swap PTE, see below).  No TLB flush. */
pte_t pt_unmap(uint64_t pml4, uint64_t va);
/* Physical address va maps to, or PT_NOT_MAPPED. */
#define PT_NOT_MAPPED (~0ull)
uint64_t pt_translate(uint64_t pml4, uint64_t va);
/* The flags of va's mapping (PT_*), or -1 when unmapped. */
int pt_flags(uint64_t pml4, uint64_t va);

/* Change the permissions of va's 4 KiB mapping, keeping the frame.
 * -ENOENT when nothing is mapped there.  No TLB flush. */
int pt_protect(uint64_t pml4, uint64_t va, unsigned flags);
/* Free every table of the user half (PML4 slots 0..255), calling leaf(e,
 * va, ctx) for each nonzero 4 KiB PTE first (present or swap).  The kernel
 * half is shared and untouched.  Returns the number of table pages freed. */
uint64_t pt_free_user(uint64_t pml4, void (*leaf)(pte_t e, uint64_t va, void *ctx), void *ctx);
/* A fresh PML4 sharing the kernel half of `kernel_pml4`; 0 on ENOMEM. */
uint64_t pt_new_user_root(uint64_t kernel_pml4);
/* Is the PTE value present? */
bool pt_pte_present(pte_t e);

/* --- PTE-level access for user pages: a change is made holding the
 * PTE's lock (vm.h's mm_ptl); pt_get and pt_get_many read each PTE once,
 * whole, so a reader without the lock gets a value the PTE held --- */

/* va when a page table (the last level) covers it; else the start of the
 * next range the first missing entry on the way down would cover (0 past
 * the top of the address space).  Walks over a range call it to step
 * over what was never mapped: an area of TiBs with a few pages in it. */
#define PT_TABLE_SPAN (1ull << 21)      /* what one page table maps */
uint64_t pt_skip_absent(uint64_t pml4, uint64_t va);
/* The 4 KiB PTE for va, or 0 when there is none (no table or empty). */
pte_t pt_get(uint64_t pml4, uint64_t va);
/* One walk for several looks at va's PTE: its slot, or NULL when no page
 * table covers va (user tables are freed only with their address space,
 * so a slot found stays while it lives).  Read it with one load; change
 * it with these, holding its lock: clear the accessed bit of a present
 * PTE (true if it was set); store v, returning the old value. */
pte_t *pt_leaf(uint64_t pml4, uint64_t va);
bool pt_leaf_test_clear_young(pte_t *e);
pte_t pt_leaf_xchg(pte_t *e, pte_t v);
/* The PTEs of n pages from va, `step` bytes apart (a multiple of 4 KiB,
 * negative going down), into out[]: pt_get of each, but one walk per
 * page table they lie in, not one per page. */
void pt_get_many(uint64_t pml4, uint64_t va, int64_t step, uint32_t n, pte_t *out);
/* Replace va's PTE by `e` (any value, present or not), creating tables;
 * returns the old value, or PT_NOMEM when a table cannot be allocated. */
#define PT_NOMEM (~0ull)
pte_t pt_set(uint64_t pml4, uint64_t va, pte_t e);
/* pt_set, adding the tables it makes to *tables (an address space's count). */
pte_t pt_set_counted(uint64_t pml4, uint64_t va, pte_t e, uint64_t *tables);
/* A present PTE for frame pa with PT_* flags. */
pte_t pt_make(uint64_t pa, unsigned flags);
/* Clear the accessed bit; true if it was set. */
bool pt_test_clear_young(uint64_t pml4, uint64_t va);
/* Clear the dirty bit; true if it was set (msync of a shared file page). */
bool pt_test_clear_dirty(uint64_t pml4, uint64_t va);
/* Clear the write and dirty bits (Linux's page_mkclean, for a shared
 * file page about to be written back: the next write faults).  The old
 * PTE; 0 when nothing is present. */
pte_t pt_mkclean(uint64_t pml4, uint64_t va);
bool pt_pte_dirty(pte_t e);
bool pt_pte_young(pte_t e);
bool pt_pte_writable(pte_t e);
/* Swap entries in non-present PTEs: bit 0 (present) clear, the entry
 * (whose own bit 0 is always 1) shifted up by one. */
pte_t pt_swap_pte(uint64_t entry);
bool pt_pte_is_swap(pte_t e);
uint64_t pt_pte_swap_entry(pte_t e);

/* Physical address held in a PTE returned by pt_unmap. */
uint64_t pt_pte_phys(pte_t e);

/* Flush va from this CPU's TLB (shootdown comes with SMP). */
void pt_flush(uint64_t va);

#endif
