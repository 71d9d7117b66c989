/*
 * x86-64 4-level page tables.
 *
 * Leaf entries carry the caller's permissions; intermediate entries are
 * always present+writable, and user-accessible when they cover user
 * addresses, so the leaf alone decides access.  Caching: PT_UC sets
 * PCD|PWT (PAT entry 3, UC); PT_WC sets PWT alone, which cpu.c reprograms
 * to mean write-combining (PAT entry 1).
 */
#include "pgtable.h"
#include "kmem.h"
#include "layout.h"
#include "lib/errno.h"
#include "arch/x86_64/x86.h"

#define P_PRESENT (1ull << 0)
#define P_WRITE   (1ull << 1)
#define P_USER    (1ull << 2)
#define P_PWT     (1ull << 3)
#define P_PCD     (1ull << 4)
#define P_ACCESSED (1ull << 5)
#define P_DIRTY   (1ull << 6)
#define P_PS      (1ull << 7)
#define P_GLOBAL  (1ull << 8)
#define P_NX      (1ull << 63)
#define P_ADDR    0x000ffffffffff000ull

static pt_alloc_fn alloc_table;
static void (*free_table)(uint64_t phys);

void pt_set_table_allocator(pt_alloc_fn fn) { alloc_table = fn; }
void pt_set_table_free(void (*fn)(uint64_t phys)) { free_table = fn; }

static void pt_free_table(uint64_t phys)
{
	if (free_table)
		free_table(phys);
}

static pte_t *table(uint64_t phys) { return phys_to_virt(phys); }

static unsigned idx(uint64_t va, int level) { return (unsigned)(va >> (12 + 9 * level)) & 511; }

static pte_t leaf_bits(unsigned flags)
{
	pte_t e = P_PRESENT;
	if (flags & PT_WRITE) e |= P_WRITE;
	if (flags & PT_USER) e |= P_USER;
	if (!(flags & PT_EXEC) && kmem_nx_enabled()) e |= P_NX;
	if (flags & PT_GLOBAL) e |= P_GLOBAL;
	if (flags & PT_UC) e |= P_PCD | P_PWT;
	else if (flags & PT_WC) e |= P_PWT;
	return e;
}

/* Walk down to the table at `level` (0 = PT) for va, creating tables.
 * A new table goes in with a compare-and-swap: the kernel half is mapped
 * from every CPU at once with no common lock (kernel stacks of threads
 * cloned on two CPUs), and a plain store let the second CPU's new table
 * hide the first one's, with the mapping just made in it.  Tables made
 * are added to *made when it is given. */
static pte_t *walk(uint64_t pml4, uint64_t va, int level, bool create, uint64_t *made)
{
	pte_t *t = table(pml4);
	for (int l = 3; l > level; l--) {
		pte_t *e = &t[idx(va, l)];
		pte_t cur = __atomic_load_n(e, __ATOMIC_ACQUIRE);
		if (!(cur & P_PRESENT)) {
			if (!create || !alloc_table)
				return 0;
			uint64_t p = alloc_table();
			if (!p)
				return 0;
			pte_t want = p | P_PRESENT | P_WRITE | (va < USER_TOP ? P_USER : 0);
			if (__atomic_compare_exchange_n(e, &cur, want, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				cur = want;
				if (made)
					__atomic_add_fetch(made, 1, __ATOMIC_RELAXED);
			} else
				pt_free_table(p);       /* another CPU's table went in first: use it */
		}
		if (cur & P_PS)
			return 0;       /* a large page covers this range */
		t = table(cur & P_ADDR);
	}
	return &t[idx(va, level)];
}

int pt_map(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags)
{
	pte_t *e = walk(pml4, va, 0, true, NULL);
	if (!e)
		return -ENOMEM;
	if (*e & P_PRESENT)
		return -EEXIST;
	*e = (pa & P_ADDR) | leaf_bits(flags);
	return 0;
}

/* A large-page leaf at walk level `level` (1: 2 MiB, 2: 1 GiB); pa is
 * aligned down to the page size.  In a large-page entry the PAT bit moves
 * to bit 12; we never set it. */
static int map_large(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags, int level, uint64_t size)
{
	pte_t *e = walk(pml4, va, level, true, NULL);
	if (!e)
		return -ENOMEM;
	if (*e & P_PRESENT)
		return -EEXIST;
	*e = (pa & P_ADDR & ~(size - 1)) | leaf_bits(flags) | P_PS;
	return 0;
}

int pt_map_2m(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags)
{
	return map_large(pml4, va, pa, flags, 1, 1ull << 21);
}

int pt_map_1g(uint64_t pml4, uint64_t va, uint64_t pa, unsigned flags)
{
	return map_large(pml4, va, pa, flags, 2, 1ull << 30);
}

pte_t *pt_leaf(uint64_t pml4, uint64_t va)
{
	const pte_t *t = table(pml4);
	for (int l = 3; l > 0; l--) {
		pte_t cur = __atomic_load_n(&t[idx(va, l)], __ATOMIC_ACQUIRE);
		if ((cur & (P_PRESENT | P_PS)) != P_PRESENT)
			return NULL;    /* no table below, or a large page covers va */
		t = table(cur & P_ADDR);
	}
	return (pte_t *)&t[idx(va, 0)];
}

bool pt_leaf_test_clear_young(pte_t *e)
{
	if (!(__atomic_load_n(e, __ATOMIC_RELAXED) & P_PRESENT))
		return false;
	return __atomic_fetch_and(e, ~P_ACCESSED, __ATOMIC_ACQ_REL) & P_ACCESSED;
}

pte_t pt_leaf_xchg(pte_t *e, pte_t v) { return __atomic_exchange_n(e, v, __ATOMIC_ACQ_REL); }

pte_t pt_unmap(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_leaf(pml4, va);
	if (!e || !*e)
		return 0;
	return __atomic_exchange_n(e, 0, __ATOMIC_ACQ_REL);
}

/* The leaf entry for va and its level, or NULL. */
static pte_t *find_leaf(uint64_t pml4, uint64_t va, int *level)
{
	pte_t *t = table(pml4);
	for (int l = 3; l >= 0; l--) {
		pte_t *e = &t[idx(va, l)];
		if (!(*e & P_PRESENT))
			return 0;
		if (l == 0 || (*e & P_PS)) {
			*level = l;
			return e;
		}
		t = table(*e & P_ADDR);
	}
	return 0;
}

uint64_t pt_translate(uint64_t pml4, uint64_t va)
{
	int level;
	pte_t *e = find_leaf(pml4, va, &level);
	if (!e)
		return PT_NOT_MAPPED;
	uint64_t mask = (1ull << (12 + 9 * level)) - 1;
	return ((*e & P_ADDR) & ~mask) | (va & mask);
}

int pt_flags(uint64_t pml4, uint64_t va)
{
	int level;
	pte_t *e = find_leaf(pml4, va, &level);
	if (!e)
		return -1;
	int f = 0;
	if (*e & P_WRITE) f |= PT_WRITE;
	if (*e & P_USER) f |= PT_USER;
	if (!(*e & P_NX)) f |= PT_EXEC;
	if (*e & P_GLOBAL) f |= PT_GLOBAL;
	if ((*e & (P_PCD | P_PWT)) == (P_PCD | P_PWT)) f |= PT_UC;
	else if (*e & P_PWT) f |= PT_WC;
	return f;
}

uint64_t pt_pte_phys(pte_t e) { return e & P_ADDR; }
bool pt_pte_present(pte_t e) { return e & P_PRESENT; }

int pt_protect(uint64_t pml4, uint64_t va, unsigned flags)
{
	pte_t *e = pt_leaf(pml4, va);
	if (!e || !(*e & P_PRESENT))
		return -ENOENT;
	/* Compare-and-swap: another CPU may set the accessed or dirty bit
	 * between our read and write, and a lost dirty bit loses data. */
	pte_t old = __atomic_load_n(e, __ATOMIC_ACQUIRE), want;
	do
		want = (old & (P_ADDR | P_ACCESSED | P_DIRTY)) | leaf_bits(flags);
	while (!__atomic_compare_exchange_n(e, &old, want, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return 0;
}

uint64_t pt_new_user_root(uint64_t kernel_pml4)
{
	uint64_t p = alloc_table ? alloc_table() : 0;
	if (!p)
		return 0;
	pte_t *dst = table(p), *src = table(kernel_pml4);
	for (int i = 256; i < 512; i++)
		dst[i] = src[i];
	return p;
}

/* Free the table at `phys` (level l) and everything below it. */
static uint64_t free_level(uint64_t phys, int l, uint64_t va_base,
			   void (*leaf)(pte_t, uint64_t, void *), void *ctx)
{
	pte_t *t = table(phys);
	uint64_t freed = 0;
	for (unsigned i = 0; i < 512; i++) {
		if (!t[i] || (l && !(t[i] & P_PRESENT)))
			continue;
		uint64_t va = va_base + ((uint64_t)i << (12 + 9 * l));
		if (l == 0)
			leaf(t[i], va, ctx);
		else
			freed += free_level(t[i] & P_ADDR, l - 1, va, leaf, ctx);
	}
	pt_free_table(phys);
	return freed + 1;
}

uint64_t pt_free_user(uint64_t pml4, void (*leaf)(pte_t e, uint64_t va, void *ctx), void *ctx)
{
	pte_t *t = table(pml4);
	uint64_t freed = 0;
	for (unsigned i = 0; i < 256; i++) {
		if (!(t[i] & P_PRESENT))
			continue;
		freed += free_level(t[i] & P_ADDR, 2, (uint64_t)i << 39, leaf, ctx);
		t[i] = 0;
	}
	return freed;
}

void pt_flush(uint64_t va) { invlpg(va); }

uint64_t pt_skip_absent(uint64_t pml4, uint64_t va)
{
	const pte_t *t = table(pml4);
	for (int l = 3; l > 0; l--) {
		pte_t e = t[idx(va, l)];
		if (!(e & P_PRESENT)) {
			uint64_t span = 1ull << (12 + 9 * l);
			return (va & ~(span - 1)) + span;       /* 0 past the top */
		}
		if (e & P_PS)
			return va;
		t = table(e & P_ADDR);
	}
	return va;
}

pte_t pt_get(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_leaf(pml4, va);
	return e ? __atomic_load_n(e, __ATOMIC_RELAXED) : 0;
}

void pt_get_many(uint64_t pml4, uint64_t va, int64_t step, uint32_t n, pte_t *out)
{
	const uint64_t span = 1ull << (12 + 9);         /* what one page table maps */
	const pte_t *tab = NULL;
	uint64_t base = 1;                              /* tab's range; 1: none walked yet */
	for (uint32_t k = 0; k < n; k++) {
		uint64_t a = va + (uint64_t)((int64_t)k * step);
		if ((a & ~(span - 1)) != base) {
			base = a & ~(span - 1);
			const pte_t *e = pt_leaf(pml4, a);
			tab = e ? e - idx(a, 0) : NULL;
		}
		out[k] = tab ? __atomic_load_n(&tab[idx(a, 0)], __ATOMIC_RELAXED) : 0;
	}
}

pte_t pt_set_counted(uint64_t pml4, uint64_t va, pte_t v, uint64_t *tables)
{
	pte_t *e = walk(pml4, va, 0, true, tables);
	if (!e)
		return PT_NOMEM;
	return __atomic_exchange_n(e, v, __ATOMIC_ACQ_REL);
}

pte_t pt_set(uint64_t pml4, uint64_t va, pte_t v) { return pt_set_counted(pml4, va, v, NULL); }

pte_t pt_make(uint64_t pa, unsigned flags) { return (pa & P_ADDR) | leaf_bits(flags); }

bool pt_test_clear_young(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_leaf(pml4, va);
	return e && pt_leaf_test_clear_young(e);
}

bool pt_test_clear_dirty(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_leaf(pml4, va);
	if (!e || !(*e & P_PRESENT))
		return false;
	return __atomic_fetch_and(e, ~P_DIRTY, __ATOMIC_ACQ_REL) & P_DIRTY;
}

pte_t pt_mkclean(uint64_t pml4, uint64_t va)
{
	pte_t *e = pt_leaf(pml4, va);
	if (!e || !(*e & P_PRESENT))
		return 0;
	return __atomic_fetch_and(e, ~(pte_t)(P_DIRTY | P_WRITE), __ATOMIC_ACQ_REL);
}

bool pt_pte_dirty(pte_t e) { return (e & (P_PRESENT | P_DIRTY)) == (P_PRESENT | P_DIRTY); }
bool pt_pte_young(pte_t e) { return (e & (P_PRESENT | P_ACCESSED)) == (P_PRESENT | P_ACCESSED); }
bool pt_pte_writable(pte_t e) { return (e & (P_PRESENT | P_WRITE)) == (P_PRESENT | P_WRITE); }
pte_t pt_swap_pte(uint64_t entry) { return entry << 1; }
bool pt_pte_is_swap(pte_t e) { return !(e & P_PRESENT) && (e & 2); }
uint64_t pt_pte_swap_entry(pte_t e) { return e >> 1; }
