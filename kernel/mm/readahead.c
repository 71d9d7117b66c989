/*
 * Readahead policies.  The window logic of each policy is a pure function
 * of its inputs and its saved state (tested on the host through
 * ra_policy.c in a later step); this file holds the state and applies it.
 *
 *   off      the faulting slot only
 *   fixed:N  2^N slots around the fault, aligned to 2^N: Linux's
 *            page-cluster (swap_cluster_readahead); default N = 3
 */
#include <string.h>
#include "readahead.h"
#include "swap.h"
#include "vmstat.h"
#include "lib/cmdline.h"

static struct {
	int kind;               /* 0 off, 1 fixed */
	unsigned cluster;       /* fixed: page_cluster */
	char name[16];
} R = { 1, 3, "fixed:3" };

bool ra_set_policy(const char *spec)
{
	uint64_t n;
	if (!strcmp(spec, "off")) {
		R.kind = 0;
	} else if (!strncmp(spec, "fixed:", 6) && cmdline_parse_u64(spec + 6, &n) && n <= 8) {
		R.kind = 1;
		R.cluster = (unsigned)n;
	} else {
		return false;
	}
	size_t len = strnlen(spec, sizeof R.name - 1);
	memcpy(R.name, spec, len);
	R.name[len] = 0;
	return true;
}

const char *ra_policy_name(void) { return R.name; }

void ra_window(const struct ra_fault *f, struct ra_window *w)
{
	uint64_t off = swp_offset(f->entry);
	w->off = off;
	w->count = 1;
	if (R.kind == 0 || R.cluster == 0)
		return;
	uint64_t size = 1ull << R.cluster;
	uint64_t start = off & ~(size - 1), end = start + size;
	uint64_t limit = swap_area_slots(swp_area(f->entry));
	if (start == 0)
		start = 1;              /* slot 0 is the header */
	if (end > limit)
		end = limit;
	w->off = start;
	w->count = (uint32_t)(end - start);
}

void ra_hit(uint64_t entry)
{
	(void)entry;
	vmstat_inc(SWAP_RA_HIT);
}

void ra_waste(uint64_t entry)
{
	(void)entry;
	vmstat_inc(SWAP_RA_WASTE);
}
