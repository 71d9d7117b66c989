/* Overcommit accounting, the pure part: see commit_policy.h. */
#include "commit_policy.h"

#define KIB_PER_PAGE 4ull

uint64_t commit_limit(const struct commit_knobs *k, uint64_t ram_pages, uint64_t swap_pages)
{
	uint64_t ram = k->kbytes ? k->kbytes / KIB_PER_PAGE : ram_pages / 100 * k->ratio + ram_pages % 100 * k->ratio / 100;
	return ram + swap_pages;
}

bool commit_allows(const struct commit_knobs *k, uint64_t committed, uint64_t pages, uint64_t ram_pages,
		   uint64_t swap_pages, uint64_t total_vm)
{
	if (k->mode == OVERCOMMIT_ALWAYS)
		return true;
	if (k->mode == OVERCOMMIT_GUESS)
		return pages <= ram_pages + swap_pages;
	uint64_t allowed = commit_limit(k, ram_pages, swap_pages);
	uint64_t reserve = k->user_reserve_kbytes / KIB_PER_PAGE;
	if (total_vm / 32 < reserve)
		reserve = total_vm / 32;
	return allowed > reserve && committed < allowed - reserve;
}

uint64_t commit_default_user_reserve_kbytes(uint64_t pages)
{
	uint64_t kb = pages / 32 * KIB_PER_PAGE;
	return kb < (1ull << 17) ? kb : 1ull << 17;
}
