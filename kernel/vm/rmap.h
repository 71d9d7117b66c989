/*
 * Reverse mapping: from a page to the page-table entries that map it.
 * An anonymous page is mapped once, at page->index in the mm
 * page->mapping; a shmem page at its slot page->index of the object
 * page->mapping, in every mm on the object's mapper list, at the address
 * each of that mm's areas of the object gives it.
 *
 * Callers hold reclaim_lock (so the mm or object cannot be torn down) and
 * the page lock; each function takes the page-table locks it needs.
 * Each PTE taken away or made old is added to tlb, which the caller
 * flushes (vm_tlb_flush) before the pages are written, freed or judged
 * again.
 */
#ifndef RMAP_H
#define RMAP_H

#include <stdint.h>
#include <stdbool.h>

struct page;
struct mm;
struct tlb_batch;

/* Test and clear the accessed bits of every PTE mapping p: how many were
 * set, not counting those in areas advised MADV_SEQUENTIAL (Linux 6.1). */
unsigned rmap_referenced(struct page *p, struct tlb_batch *tlb);
/* The same; *exec: one of the set bits was in an executable mapping
 * (Linux's VM_EXEC from folio_referenced, for the active list's aging). */
unsigned rmap_referenced_exec(struct page *p, struct tlb_batch *tlb, bool *exec);

/* Anonymous: replace the PTE mapping p by a swap PTE for entry.  Fails
 * (-EBUSY, nothing changed) if the PTE was accessed meanwhile or maps
 * something else.  *saved gets the old PTE (for rmap_restore_anon),
 * *dirty its dirty bit.  The PTE's page reference is dropped. */
int rmap_unmap_anon(struct page *p, uint64_t entry, struct mm **mm, uint64_t *va, uint64_t *saved, bool *dirty,
		    struct tlb_batch *tlb);
/* Undo it after a failed write: the PTE at (mm, va) gets the page back if
 * it still holds entry (returns true: the swap PTE's slot count is then
 * the caller's to drop, and a page reference was taken for the PTE). */
bool rmap_restore_anon(struct mm *mm, uint64_t va, struct page *p, uint64_t entry, uint64_t saved);

/* Shmem: clear every PTE mapping p (the object slot keeps it).  *dirty:
 * any of them was dirty. */
void rmap_unmap_shmem(struct page *p, bool *dirty, struct tlb_batch *tlb);
/* Unmap a page-cache page from every mapping of its device (shared or
 * private read-only); *dirty when a shared PTE had written it.  The page
 * lock is held; the caller marks the page dirty. */
void rmap_unmap_file(struct page *p, bool *dirty, struct tlb_batch *tlb);
/* Write-protect every PTE mapping a page-cache page and clear its dirty
 * bit (Linux's page_mkclean), before the page is written back: a write
 * after that faults and marks the page dirty again.  Returns how many
 * PTEs were writable.  The page lock is held; reclaim_lock is not needed
 * (file pages are found through the mm list, whose lock keeps an mm's
 * tables). */
unsigned rmap_mkclean_file(struct page *p, struct tlb_batch *tlb);

#endif
