/*
 * Kernel page tables.
 *
 * kmem_init runs on the loader's tables (identity map + kernel at its link
 * address).  It takes pages from an early bump allocator at the top of the
 * largest usable range, builds a fresh PML4 with
 *   - every kernel-half PML4 slot the kernel will ever use (so process page
 *     tables can share them by copying PML4 entries once),
 *   - the direct map of RAM: NX, writable, global, 1 GiB pages (when the
 *     CPU has them) or 2 MiB pages where a whole aligned chunk of that size
 *     lies in one RAM range, 4 KiB elsewhere,
 *   - the kernel image: text RX, rodata R+NX, data/bss RW+NX, the stack
 *     guard pages left out,
 * then loads CR3.  From that moment the loader's tables and its identity
 * map are gone; physical memory is reached only through the direct map.
 *
 * Locking: kmem_lock guards the MMIO and stack address-space cursors and
 * changes to the kernel half of the tables after boot.
 */
#include <string.h>
#include "kmem.h"
#include "layout.h"
#include "pgtable.h"
#include "pmm.h"
#include "page.h"
#include "core/console.h"
#include "core/panic.h"
#include "core/spinlock.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/entry.h"
#include "arch/x86_64/tlb.h"

#define MB2 (2ull << 20)
#define GB1 (1ull << 30)


uint64_t kmem_phys_offset;

/* Kernel stack addresses.  A thread's stack range is reused only after
 * KSTACK_QUARANTINE later frees, so a stale pointer into a dead stack
 * still faults for a while; without reuse every thread ever created took
 * 20 KiB of the 512 GiB area for good, and a page table per 100 threads
 * (a program making threads all day ran the area out, then past it). */
#define KSTACK_RING        4096
#define KSTACK_QUARANTINE  256

static struct {
	struct spinlock lock;
	uint64_t pml4;                  /* physical */
	uint64_t kernel_phys, kernel_virt;
	uint64_t early_lo, early_hi;    /* [lo, hi) taken by the early allocator */
	uint64_t early_floor;           /* start of the range it carves from */
	bool early_done;
	uint64_t iomap_next;            /* guarded by lock */
	uint64_t kstack_next;           /* guarded by lock */
	/* Freed stack ranges, oldest first, guarded by lock: reused once
	 * KSTACK_QUARANTINE younger ones wait behind them. */
	struct { uint64_t top, size; } kstack_freed[KSTACK_RING];
	unsigned kstack_head, kstack_nfreed;
	uint64_t direct_1g, direct_2m, direct_4k;      /* direct-map pages, for the report */
	const struct memmap *map;
} km = { .lock = SPINLOCK_INIT("kmem") };

bool kmem_nx_enabled(void) { return cpu.nx; }
uint64_t kmem_kernel_pml4(void) { return km.pml4; }

uint64_t kmem_early_alloc_raw(uint64_t pages)
{
	uint64_t bytes = pages * PAGE_SIZE;
	if (km.early_done || pages > (km.early_lo - km.early_floor) / PAGE_SIZE)
		panic("kmem: early allocator exhausted (%lu pages wanted, %lu left)", pages,
		      (km.early_lo - km.early_floor) / PAGE_SIZE);
	km.early_lo -= bytes;
	return km.early_lo;
}

uint64_t kmem_early_alloc(uint64_t pages)
{
	uint64_t pa = kmem_early_alloc_raw(pages);
	memset(phys_to_virt(pa), 0, pages * PAGE_SIZE);
	return pa;
}

void kmem_early_window(uint64_t *lo, uint64_t *hi)
{
	*lo = km.early_lo;
	*hi = km.early_hi;
}

static uint64_t early_table(void) { return kmem_early_alloc(1); }

static uint64_t pmm_table(void)
{
	struct page *p = pmm_alloc(0, PMM_ZERO | PMM_KERNEL);
	return p ? page_to_phys(p) : 0;
}

static void pmm_table_free(uint64_t phys) { pmm_free(phys_to_page(phys), 0); }

void kmem_early_done(void)
{
	km.early_done = true;
	pt_set_table_allocator(pmm_table);
	pt_set_table_free(pmm_table_free);
}

static void pick_early_range(const struct memmap *m)
{
	uint64_t best = 0;
	for (int i = 0; i < m->n; i++) {
		const struct memmap_range *r = &m->r[i];
		if (r->type == MEMMAP_FREE && r->end - r->start > best) {
			best = r->end - r->start;
			km.early_floor = r->start;
			km.early_lo = km.early_hi = r->end;
		}
	}
}

static void map_or_die(int rc, uint64_t va)
{
	if (rc)
		panic("kmem: cannot map %016lx (error %d)", va, rc);
}

/* 1 GiB pages where the CPU has them: a terabyte then takes 1024 entries
 * and no page directories, instead of 512 Ki entries in 512 tables. */
static void map_direct_range(uint64_t s, uint64_t e)
{
	unsigned f = PT_WRITE | PT_GLOBAL;
	while (s < e) {
		if (cpu.pdpe1gb && !(s & (GB1 - 1)) && e - s >= GB1) {
			map_or_die(pt_map_1g(km.pml4, DIRECT_MAP + s, s, f), DIRECT_MAP + s);
			s += GB1;
			km.direct_1g++;
		} else if (!(s & (MB2 - 1)) && e - s >= MB2) {
			map_or_die(pt_map_2m(km.pml4, DIRECT_MAP + s, s, f), DIRECT_MAP + s);
			s += MB2;
			km.direct_2m++;
		} else {
			map_or_die(pt_map(km.pml4, DIRECT_MAP + s, s, f), DIRECT_MAP + s);
			s += PAGE_SIZE;
			km.direct_4k++;
		}
	}
}

static bool is_guard(uint64_t va)
{
	return va == (uint64_t)boot_stack_guard || va == (uint64_t)df_stack_guard ||
	       va == (uint64_t)nmi_stack_guard || va == (uint64_t)mc_stack_guard;
}

static unsigned section_flags(uint64_t va)
{
	if (va >= (uint64_t)_text_start && va < (uint64_t)_text_end)
		return PT_EXEC | PT_GLOBAL;
	if (va >= (uint64_t)_rodata_start && va < (uint64_t)_rodata_end)
		return PT_GLOBAL;
	return PT_WRITE | PT_GLOBAL;
}

static void map_kernel_image(void)
{
	for (uint64_t va = (uint64_t)_kernel_start; va < (uint64_t)_kernel_end; va += PAGE_SIZE) {
		if (is_guard(va))
			continue;
		map_or_die(pt_map(km.pml4, va, va - km.kernel_virt + km.kernel_phys, section_flags(va)), va);
	}
}

/* Create the kernel-half PML4 slots now; see the file comment. */
static void prealloc_kernel_half(uint64_t direct_top)
{
	uint64_t *pml4 = phys_to_virt(km.pml4);
	uint64_t slots[] = { KSTACK_BASE, IOMAP_BASE, KERNEL_VMA };
	for (uint64_t va = DIRECT_MAP; va < DIRECT_MAP + direct_top; va += 1ull << 39)
		pml4[(va >> 39) & 511] = early_table() | 3;
	for (unsigned i = 0; i < 3; i++) {
		unsigned s = (unsigned)(slots[i] >> 39) & 511;
		if (!pml4[s])
			pml4[s] = early_table() | 3;
	}
}

void kmem_init(const struct memmap *m, const struct boot_info *bi)
{
	km.map = m;
	km.kernel_phys = bi->kernel_phys;
	km.kernel_virt = bi->kernel_virt;
	km.iomap_next = IOMAP_BASE;
	km.kstack_next = KSTACK_BASE;
	pick_early_range(m);
	pt_set_table_allocator(early_table);
	km.pml4 = early_table();
	uint64_t top = 0;
	for (int i = 0; i < m->n; i++)
		if (memmap_is_ram(m->r[i].type) && m->r[i].type != MEMMAP_CAPPED)
			top = m->r[i].end;
	if (top > DIRECT_MAP_SIZE)
		panic("kmem: %lu GiB of RAM exceeds the direct map", top >> 30);
	prealloc_kernel_half(top);
	for (int i = 0; i < m->n; i++)
		if (memmap_is_ram(m->r[i].type) && m->r[i].type != MEMMAP_CAPPED)
			map_direct_range(m->r[i].start, m->r[i].end);
	map_kernel_image();
	write_cr3(km.pml4);
	kmem_phys_offset = DIRECT_MAP;
}

uint64_t virt_to_phys(const void *p)
{
	uint64_t va = (uint64_t)p;
	if (va >= DIRECT_MAP && va < DIRECT_MAP + DIRECT_MAP_SIZE)
		return va - DIRECT_MAP;
	if (va >= KERNEL_VMA)
		return va - km.kernel_virt + km.kernel_phys;
	return pt_translate(km.pml4, va);
}

bool kmem_readable(uint64_t va)
{
	return pt_translate(read_cr3() & ~0xfffull, va) != PT_NOT_MAPPED;
}

static bool direct_mapped(uint64_t phys, uint64_t len)
{
	for (int i = 0; i < km.map->n; i++) {
		const struct memmap_range *r = &km.map->r[i];
		if (memmap_is_ram(r->type) && r->type != MEMMAP_CAPPED && phys >= r->start && phys + len <= r->end)
			return true;
	}
	return false;
}

void *kmem_ioremap(uint64_t phys, uint64_t len, unsigned cache)
{
	uint64_t off = phys & (PAGE_SIZE - 1);
	uint64_t base = phys - off, size = (len + off + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	bool on = spin_lock_irqsave(&km.lock);
	uint64_t va = km.iomap_next;
	if (va + size > IOMAP_BASE + IOMAP_SIZE) {
		spin_unlock_irqrestore(&km.lock, on);
		return NULL;
	}
	km.iomap_next += size + PAGE_SIZE;     /* a hole between mappings catches overruns */
	for (uint64_t o = 0; o < size; o += PAGE_SIZE)
		if (pt_map(km.pml4, va + o, base + o, PT_WRITE | PT_GLOBAL | cache)) {
			spin_unlock_irqrestore(&km.lock, on);
			return NULL;
		}
	spin_unlock_irqrestore(&km.lock, on);
	return (void *)(va + off);
}

void *kmem_map_phys(uint64_t phys, uint64_t len)
{
	if (direct_mapped(phys, len))
		return phys_to_virt(phys);
	return kmem_ioremap(phys, len, 0);
}

/* The range waits for reuse; with the ring full (thousands of threads
 * ended at once) its addresses are not used again. */
static void queue_freed_stack(uint64_t top, size_t size)
{
	bool on = spin_lock_irqsave(&km.lock);
	if (km.kstack_nfreed < KSTACK_RING) {
		unsigned i = (km.kstack_head + km.kstack_nfreed) % KSTACK_RING;
		km.kstack_freed[i].top = top;
		km.kstack_freed[i].size = size;
		km.kstack_nfreed++;
	}
	spin_unlock_irqrestore(&km.lock, on);
}

/* Stack pages unmapped but perhaps still in other CPUs' TLBs, with their
 * old PTEs: the frames are freed after one flush for the lot.  Flushing
 * each dead thread's stack at once cost an IPI round to every CPU per
 * thread exit (on a many-CPU PC with threads coming and going, that many
 * rounds); now a round takes TLB_BATCH_VAS pages, eight stacks.  Guarded
 * by km.lock.  A range goes back into use only KSTACK_QUARANTINE frees
 * later, long after its batch went; kmem_stack_alloc checks all the same. */
struct stale_pages {
	uint64_t va[TLB_BATCH_VAS];
	pte_t pte[TLB_BATCH_VAS];
	unsigned n;
};
static struct stale_pages stale;

/* Move the batch to out (km.lock held). */
static void take_stale(struct stale_pages *out)
{
	*out = stale;
	stale.n = 0;
}

static void flush_stale(struct stale_pages *b)
{
	if (!b->n)
		return;
	tlb_flush_kernel_pages(b->va, b->n);
	for (unsigned i = 0; i < b->n; i++)
		if (b->pte[i])
			pmm_free(phys_to_page(pt_pte_phys(b->pte[i])), 0);
	b->n = 0;
}

void kmem_stack_flush(void)
{
	struct stale_pages out;
	bool on = spin_lock_irqsave(&km.lock);
	take_stale(&out);
	spin_unlock_irqrestore(&km.lock, on);
	flush_stale(&out);
}

/* Unmap [start, end) of the stack area; its pages join the batch, which
 * is flushed (and its frames freed) whenever the next ones would not fit. */
static void unmap_stack_pages(uint64_t start, uint64_t end)
{
	for (uint64_t va = start; va < end;) {
		pte_t old[TLB_BATCH_VAS];
		uint64_t first = va;
		unsigned n = 0;
		for (; va < end && n < TLB_BATCH_VAS; va += PAGE_SIZE)
			old[n++] = pt_unmap(km.pml4, va);
		struct stale_pages out;
		out.n = 0;
		bool on = spin_lock_irqsave(&km.lock);
		if (stale.n + n > TLB_BATCH_VAS)
			take_stale(&out);
		for (unsigned i = 0; i < n; i++) {
			stale.va[stale.n] = first + i * PAGE_SIZE;
			stale.pte[stale.n++] = old[i];
		}
		spin_unlock_irqrestore(&km.lock, on);
		flush_stale(&out);
	}
}

uint64_t kmem_stack_alloc(size_t size)
{
	size = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	bool on = spin_lock_irqsave(&km.lock);
	uint64_t base = 0;
	while (km.kstack_nfreed > KSTACK_QUARANTINE && !base) {
		unsigned oldest = km.kstack_head;
		if (km.kstack_freed[oldest].size == size)
			base = km.kstack_freed[oldest].top - size;
		/* else a stack of another size (a CPU that did not come up):
		 * its addresses are not used again */
		km.kstack_head = (oldest + 1) % KSTACK_RING;
		km.kstack_nfreed--;
	}
	struct stale_pages out;
	out.n = 0;
	for (unsigned i = 0; base && i < stale.n; i++)
		if (stale.va[i] >= base && stale.va[i] < base + size) {
			take_stale(&out);       /* not flushed yet: it is now */
			break;
		}
	if (!base && km.kstack_next + size + PAGE_SIZE <= KSTACK_BASE + KSTACK_AREA_SIZE) {
		base = km.kstack_next + PAGE_SIZE;      /* after its guard page */
		km.kstack_next += size + PAGE_SIZE;
	}
	spin_unlock_irqrestore(&km.lock, on);
	flush_stale(&out);
	if (!base)
		return 0;
	for (uint64_t o = 0; o < size; o += PAGE_SIZE) {
		struct page *p = pmm_alloc(0, PMM_KERNEL);
		if (!p || pt_map(km.pml4, base + o, page_to_phys(p), PT_WRITE | PT_GLOBAL)) {
			if (p)
				pmm_free(p, 0);
			unmap_stack_pages(base, base + o);
			queue_freed_stack(base + size, size);
			return 0;
		}
	}
	return base + size;
}

void kmem_stack_free(uint64_t top, size_t size)
{
	size = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	unmap_stack_pages(top - size, top);
	queue_freed_stack(top, size);
}

uint64_t kmem_stack_area_used(void)
{
	bool on = spin_lock_irqsave(&km.lock);
	uint64_t used = km.kstack_next - KSTACK_BASE;
	spin_unlock_irqrestore(&km.lock, on);
	return used;
}

void kmem_report(void)
{
	kprintf("kernel: image %016lx-%016lx at phys %016lx\n", (uint64_t)_kernel_start,
		(uint64_t)_kernel_end, km.kernel_phys);
	kprintf("  .text    %016lx-%016lx  r-x\n", (uint64_t)_text_start, (uint64_t)_text_end);
	kprintf("  .rodata  %016lx-%016lx  r-- nx\n", (uint64_t)_rodata_start, (uint64_t)_rodata_end);
	kprintf("  .data/.bss %016lx-%016lx  rw- nx (stack guard pages unmapped)\n", (uint64_t)_data_start,
		(uint64_t)_kernel_end);
	kprintf("  direct map at %016lx: %lu x 1 GiB + %lu x 2 MiB + %lu x 4 KiB pages, rw- nx\n", DIRECT_MAP,
		km.direct_1g, km.direct_2m, km.direct_4k);
	kprintf("  early allocator used %lu KiB\n", (km.early_hi - km.early_lo) >> 10);
}
