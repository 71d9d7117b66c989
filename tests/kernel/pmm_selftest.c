/*
 * The page allocator's cost (test=pmmbench): order-0 allocations and
 * frees timed with the TSC, as a burst (1024 pages out, then back: the
 * per-CPU lists refill and spill in batches) and as hot pairs (one page
 * out and straight back).  Read under -icount (tools/qemu-run --icount),
 * where guest time counts instructions; the free count must be the same
 * after as before.
 */
#include "selftest.h"
#include "core/console.h"
#include "core/time.h"
#include "mem/pmm.h"
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

static const struct selftest tests[] = {
	{ "pmmbench", test_pmmbench },
};

bool pmm_selftest(const char *name)
{
	return selftest_suite(name, tests, sizeof tests / sizeof tests[0], &failures);
}
