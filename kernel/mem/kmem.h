/*
 * The kernel's address space: its own page tables (built from the memory
 * map, replacing the loader's), the direct map of RAM, the kernel image
 * with per-section permissions, MMIO mappings and guarded kernel stacks.
 * See layout.h for the map.
 */
#ifndef KMEM_H
#define KMEM_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "memmap.h"
#include "boot/boot_info.h"

/* 0 while the loader's identity map is live, DIRECT_MAP afterwards. */
extern uint64_t kmem_phys_offset;

static inline void *phys_to_virt(uint64_t pa) { return (void *)(pa + kmem_phys_offset); }
uint64_t virt_to_phys(const void *va);

/* Build the kernel's tables from m and switch to them.  Runs once, early,
 * with interrupts off.  Panics when the tables cannot be built. */
void kmem_init(const struct memmap *m, const struct boot_info *bi);

/* Early page allocator (before pmm): zeroed pages from the top of the
 * largest usable range.  kmem_early_window tells pmm what was taken. */
uint64_t kmem_early_alloc(uint64_t pages);
/* The same without zeroing, for tables that are initialised piecemeal
 * later (the struct page array: zeroing it would touch 1/64 of RAM). */
uint64_t kmem_early_alloc_raw(uint64_t pages);
void kmem_early_window(uint64_t *lo, uint64_t *hi);
/* From now on page tables come from the page allocator. */
void kmem_early_done(void);

/* Map physical [phys, phys+len) for the kernel.  cache: 0 (write-back),
 * PT_UC or PT_WC.  Returns NULL when out of tables or address space. */
void *kmem_ioremap(uint64_t phys, uint64_t len, unsigned cache);
/* RAM through the direct map, anything else through a cached ioremap. */
void *kmem_map_phys(uint64_t phys, uint64_t len);

/* Is va mapped in the current address space? (Used by backtraces.) */
bool kmem_readable(uint64_t va);
bool kmem_nx_enabled(void);
uint64_t kmem_kernel_pml4(void);

/* Allocate a kernel stack of `size` bytes (page multiple) with an unmapped
 * guard page below it.  Returns the top, or 0. */
uint64_t kmem_stack_alloc(size_t size);
/* The stack is unmapped at once; its frames are freed with the next
 * flush of freed stacks' pages (one IPI round per TLB_BATCH_VAS pages). */
void kmem_stack_free(uint64_t top, size_t size);
/* Flush the freed stacks' pages now and free their frames (for a count
 * of free memory that should not miss them). */
void kmem_stack_flush(void);
/* Bytes of the stack area ever handed out (freed ranges are reused). */
uint64_t kmem_stack_area_used(void);

/* Print the kernel sections and their protections (boot report). */
void kmem_report(void);

#endif
