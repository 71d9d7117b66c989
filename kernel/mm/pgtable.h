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

/* Map one 4 KiB page / one 2 MiB page.  -ENOMEM when a table cannot be
 * allocated, -EEXIST when something is already mapped there. */
int pt_map(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags);
int pt_map_2m(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags);
/* Remove a 4 KiB mapping; returns the old PTE (0 if none).  No TLB flush. */
pte_t pt_unmap(uint64_t pml4, uint64_t va);
/* Physical address va maps to, or PT_NOT_MAPPED. */
#define PT_NOT_MAPPED (~0ull)
uint64_t pt_translate(uint64_t pml4, uint64_t va);
/* The flags of va's mapping (PT_*), or -1 when unmapped. */
int pt_flags(uint64_t pml4, uint64_t va);

/* Change the permissions of va's 4 KiB mapping, keeping the frame.
 * -ENOENT when nothing is mapped there.  No TLB flush. */
int pt_protect(uint64_t pml4, uint64_t va, unsigned flags);
/* Free every table of the user half (PML4 slots 0..255), calling leaf(pa,
 * va, ctx) for each present 4 KiB mapping first.  The kernel half is shared
 * and untouched.  Returns the number of table pages freed. */
uint64_t pt_free_user(uint64_t pml4, void (*leaf)(uint64_t pa, uint64_t va, void *ctx), void *ctx);
/* A fresh PML4 sharing the kernel half of `kernel_pml4`; 0 on ENOMEM. */
uint64_t pt_new_user_root(uint64_t kernel_pml4);
/* Is the PTE value present? */
bool pt_pte_present(pte_t e);

/* Physical address held in a PTE returned by pt_unmap. */
uint64_t pt_pte_phys(pte_t e);

/* Flush va from this CPU's TLB (shootdown comes with SMP). */
void pt_flush(uint64_t va);

#endif
