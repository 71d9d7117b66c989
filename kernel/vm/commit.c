/* Overcommit accounting: see commit.h and commit_policy.h. */
#include "commit.h"
#include "mem/pmm.h"
#include "swap/swap.h"

/* user_reserve_kbytes ~0: Linux's default, from RAM (commit_ram). */
struct commit_knobs commit_knobs = { OVERCOMMIT_GUESS, 50, 0, ~0ull };

static uint64_t committed;      /* pages; atomic */

/* RAM as the judge sees it: the pages the allocator manages, or the
 * mem_limit_mib limit when lower. */
static uint64_t commit_ram(void)
{
	uint64_t ram = pmm_total_pages(), limit = pmm_limit();
	return limit && limit < ram ? limit : ram;
}

/* A copy of the knobs with the reserve's default filled in: the knobs
 * change at run time while a charge reads them. */
static struct commit_knobs knobs_now(uint64_t ram)
{
	struct commit_knobs k = commit_knobs;
	if (k.user_reserve_kbytes == ~0ull)
		k.user_reserve_kbytes = commit_default_user_reserve_kbytes(ram);
	return k;
}

bool commit_charge(uint64_t pages, uint64_t total_vm)
{
	uint64_t c = __atomic_add_fetch(&committed, pages, __ATOMIC_RELAXED);
	uint64_t ram = commit_ram();
	struct commit_knobs k = knobs_now(ram);
	if (commit_allows(&k, c, pages, ram, swap_total_slots(), total_vm))
		return true;
	commit_uncharge(pages);
	return false;
}

void commit_uncharge(uint64_t pages) { __atomic_sub_fetch(&committed, pages, __ATOMIC_RELAXED); }

uint64_t commit_committed_pages(void) { return __atomic_load_n(&committed, __ATOMIC_RELAXED); }

uint64_t commit_limit_pages(void)
{
	uint64_t ram = commit_ram();
	struct commit_knobs k = knobs_now(ram);
	return commit_limit(&k, ram, swap_total_slots());
}
