/*
 * The page allocator's cost (test=pmmbench): order-0 allocations and
 * frees timed with the TSC, as a burst (1024 pages out, then back: the
 * per-CPU lists refill and spill in batches) and as hot pairs (one page
 * out and straight back).  Read under -icount (tools/qemu-run --icount),
 * where guest time counts instructions; the free count must be the same
 * after as before.
 *
 * test=pgtable: the page-table helpers on a fresh user root, as the
 * fault path and the reverse map use them: pt_leaf finds a slot only
 * where a page table is, one walk per look and change; pt_get_many
 * agrees with pt_get across a table boundary; pt_free_user gives back
 * every table it made.
 */
#include "selftest.h"
#include "core/console.h"
#include "core/time.h"
#include "mem/pmm.h"
#include "mem/kmem.h"
#include "mem/pgtable.h"
#include "lib/json.h"
#include "lib/timemath.h"
#include "arch/x86_64/x86.h"

static int failures;

#define BURST 1024
#define ROUNDS 64

static uint64_t ns_per(uint64_t ticks, uint64_t n)
{
	return ticks_to_ns(ticks, time_tsc_hz()) / n;
}

static void test_pmmbench(struct json *r)
{
	static struct page *pages[BURST];
	uint64_t before = pmm_free_pages();
	uint64_t t0 = rdtsc();
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < BURST; i++)
			if (!(pages[i] = pmm_alloc(0, 0)))
				failures++;
		for (int i = 0; i < BURST; i++)
			if (pages[i])
				pmm_free(pages[i], 0);
	}
	uint64_t t1 = rdtsc();
	for (int i = 0; i < ROUNDS * BURST; i++) {
		struct page *p = pmm_alloc(0, 0);
		if (!p) {
			failures++;
			break;
		}
		pmm_free(p, 0);
	}
	uint64_t t2 = rdtsc();
	json_u64(r, "burst_ns_per_alloc_free", ns_per(t1 - t0, ROUNDS * BURST));
	json_u64(r, "hot_ns_per_alloc_free", ns_per(t2 - t1, ROUNDS * BURST));
	json_u64(r, "free_before", before);
	json_u64(r, "free_after", pmm_free_pages());
	if (pmm_free_pages() != before) {
		failures++;
		kprintf("selftest: FAILED: free pages %lu before, %lu after\n", before, pmm_free_pages());
	}
}

static void pt_check(bool ok, const char *what)
{
	if (!ok) {
		failures++;
		kprintf("selftest: pgtable: FAILED: %s\n", what);
	}
}

struct leaves { unsigned n; uint64_t last_va; };

static void count_leaf(pte_t e, uint64_t va, void *ctx)
{
	struct leaves *l = ctx;
	(void)e;
	l->n++;
	l->last_va = va;
}

static void test_pgtable(struct json *r)
{
	uint64_t before = pmm_free_pages();
	uint64_t root = pt_new_user_root(kmem_kernel_pml4());
	struct page *pg = pmm_alloc(0, 0);
	if (!root || !pg) {
		pt_check(false, "no memory for the root or the page");
		return;
	}
	const uint64_t span = 1ull << 21, va = 0x40000000ull + span - 2 * 4096;   /* 2 pages below a table's end */
	pte_t present = pt_make(page_to_phys(pg), PT_USER | PT_WRITE);
	uint64_t tables = 0;
	pt_check(!pt_leaf(root, va) && pt_get(root, va) == 0, "a slot before any table");
	pt_check(pt_skip_absent(root, va) > va, "pt_skip_absent does not step over the missing tables");
	pt_check(pt_set_counted(root, va, present, &tables) == 0 && tables == 3, "the first PTE did not make 3 tables");
	pte_t *s = pt_leaf(root, va);
	pt_check(s && *s == present && pt_get(root, va) == present, "pt_leaf's slot is not the PTE set");
	pt_check(pt_leaf(root, va + 4096) == s + 1 && pt_get(root, va + 4096) == 0, "the next slot of the same table");
	pt_check(!pt_leaf(root, va + 2 * 4096), "a slot in the next 2 MiB, which has no table");
	pt_check(!pt_leaf_test_clear_young(pt_leaf(root, va + 4096)), "an empty PTE was young");
	pt_check(!pt_leaf_test_clear_young(s), "a PTE never used was young");
	pte_t swp = pt_swap_pte(0x1235);          /* a swap entry's bit 0 is always set */
	pt_check(pt_leaf_xchg(s, swp) == present && pt_get(root, va) == swp && pt_pte_is_swap(pt_get(root, va)),
		 "pt_leaf_xchg to a swap PTE");
	pt_check(pt_set_counted(root, va + 3 * 4096, present, &tables) == 0 && tables == 4,
		 "a PTE in the next 2 MiB did not make one table");
	pte_t many[4], want[4] = { swp, 0, 0, present };
	pt_get_many(root, va, 4096, 4, many);
	for (int k = 0; k < 4; k++)
		pt_check(many[k] == want[k] && many[k] == pt_get(root, va + (uint64_t)k * 4096), "pt_get_many across tables");
	pt_get_many(root, va + 3 * 4096, -4096, 4, many);
	for (int k = 0; k < 4; k++)
		pt_check(many[k] == want[3 - k], "pt_get_many going down");
	pt_check(pt_unmap(root, va + 3 * 4096) == present && !pt_get(root, va + 3 * 4096), "pt_unmap");
	pt_check(pt_set(root, va + 3 * 4096, present) == 0, "set again");
	struct leaves l = { 0, 0 };
	uint64_t freed = pt_free_user(root, count_leaf, &l);
	pt_check(freed == tables && l.n == 2 && l.last_va == va + 3 * 4096, "pt_free_user's tables or leaves");
	pmm_free(phys_to_page(root), 0);
	pmm_free(pg, 0);
	json_u64(r, "tables", tables);
	json_u64(r, "freed", freed);
	json_u64(r, "free_before", before);
	json_u64(r, "free_after", pmm_free_pages());
	pt_check(pmm_free_pages() == before, "free pages before and after");
}

/* test=pmmcode: a frame that held user code (PG_CODE) goes to the code
 * frames when freed, still counted as free; an allocation for code
 * (PMM_CODE) takes it back first, any other takes it only when nothing
 * else is free (here there is plenty). */
static void test_pmmcode(struct json *r)
{
	struct pmm_stats s0, s1;
	pmm_get_stats(&s0);
	struct page *p = pmm_alloc(0, PMM_ZERO);
	pt_check(p != NULL, "no page");
	if (!p)
		return;
	page_set(p, PG_CODE);
	pmm_free(p, 0);
	pmm_get_stats(&s1);
	pt_check(s1.code_pages == s0.code_pages + 1 && s1.free_pages == s0.free_pages, "the code frame is not free, or not on its list");
	pt_check(pmm_free_pages() == s1.free_pages, "pmm_free_pages leaves the code frames out");
	struct page *q[64];
	bool other = true;
	for (int i = 0; i < 64; i++) {
		q[i] = pmm_alloc(0, 0);
		other &= q[i] && q[i] != p;
	}
	pt_check(other, "an ordinary allocation took a code frame while others were free");
	for (int i = 0; i < 64; i++)
		if (q[i])
			pmm_free(q[i], 0);
	struct page *c = pmm_alloc(0, PMM_CODE | PMM_ZERO);
	pt_check(c == p && !page_test(c, PG_CODE_FREE) && c->refcount == 1, "PMM_CODE did not take the code frame");
	const uint8_t *b = c ? page_address(c) : NULL;
	bool zero = b != NULL;
	for (unsigned i = 0; b && i < PAGE_SIZE; i++)
		zero &= b[i] == 0;
	pt_check(zero, "the code frame came back not zeroed");
	if (c)
		pmm_free(c, 0);         /* no PG_CODE now: an ordinary free */
	pmm_get_stats(&s1);
	json_u64(r, "code_before", s0.code_pages);
	json_u64(r, "code_after", s1.code_pages);
	json_u64(r, "free_before", s0.free_pages);
	json_u64(r, "free_after", s1.free_pages);
	pt_check(s1.code_pages == s0.code_pages && s1.free_pages == s0.free_pages, "counts before and after");
}

static const struct selftest tests[] = {
	{ "pmmbench", test_pmmbench },
	{ "pgtable", test_pgtable },
	{ "pmmcode", test_pmmcode },
};

bool pmm_selftest(const char *name)
{
	return selftest_suite(name, tests, sizeof tests / sizeof tests[0], &failures);
}
