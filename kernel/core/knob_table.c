/*
 * The knob table (see knob_table.h).  Adding a knob: a row here, its
 * setter in mm/knobs.c (a unit test checks both name the same knobs), a
 * line in README.md.  Ranges say what the owning code can take, not what
 * is sensible: the experiments want to explore the edges.
 */
#include <string.h>
#include "knob_table.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/errno.h"

const struct knob_def knob_defs[] = {
	{ "ra", KNOB_WORD, 0, 0, false, NULL,
	  "swap-in readahead: off, fixed:N, hugh, shaohua, vma, own (default fixed:3)" },
	/* RA_MAX_ORDER (mm/ra_policy.h): a window of at most 2^8 pages. */
	{ "page_cluster", KNOB_U64, 0, 8, false, NULL,
	  "0..8: Linux's vm.page-cluster, the bound of ra=hugh|shaohua|vma (default 3)" },
	/* vm/lru_policy.c's lru_scan_balance: Linux 6.1's range. */
	{ "swappiness", KNOB_U64, 0, 200, false, NULL,
	  "0..200: reclaim pressure on anon+shmem against file pages, as Linux's get_scan_count (default 60)" },
	{ "used_once_swapbacked", KNOB_BOOL, 0, 1, false, NULL,
	  "on: every swap-backed page referenced counts as used more than once (Linux 3.4); off: only anon (64574746) (default on)" },
	{ "anon_used_once", KNOB_BOOL, 0, 1, false, NULL,
	  "on: an anonymous page needs a second reference on the inactive list to be activated (Linux 5.9+); "
	  "off: its first activates it (default off)" },
	{ "age_ahead", KNOB_BOOL, 0, 1, false, NULL,
	  "on: swap-backed pages get their first reclaim look while memory is still free, spread over the "
	  "last 1/16 of memory above the high watermark plus kswapd's read-ahead allowance; off: all at the "
	  "first reclaim (default on)" },
	{ "dirty_background_ratio", KNOB_U64, 0, 100, false, NULL,
	  "% of dirtyable memory dirty before the flusher writes back (default 10)" },
	{ "dirty_ratio", KNOB_U64, 1, 100, false, NULL,
	  "% of dirtyable memory dirty before writers wait for write-back (default 20)" },
	{ "dirty_expire_centisecs", KNOB_U64, 1, 8640000, false, NULL,
	  "age in 1/100 s at which dirty file pages are written back (default 3000)" },
	{ "dirty_mmap", KNOB_BOOL, 0, 1, false, NULL,
	  "on: a write to a shared file mapping marks the page dirty at its fault and counts against the dirty "
	  "limits, and write-back write-protects the page again (Linux since 2.6.19); off: the page is dirty "
	  "only once its PTE dirty bit is found at munmap, msync or reclaim (default on)" },
	/* SWAP_CLUSTER_MIN..MAX (mm/swapalloc.h), what swapalloc accepts;
	 * this layer may not include mm/, a unit test keeps them equal. */
	{ "swap_cluster", KNOB_U64, 8, 65536, true, NULL,
	  "swap slots per cluster, a power of two in 8..65536 (default 256)" },
	{ "wm_min", KNOB_U64, 16, 1ull << 30, false, NULL,
	  "min free-page watermark in pages, 16..2^30 (default: Linux's formula)" },
	{ "wm_low", KNOB_U64, 16, 1ull << 30, false, NULL,
	  "kswapd wakes below this many free pages, 16..2^30 (default wm_min*5/4)" },
	{ "wm_high", KNOB_U64, 16, 1ull << 30, false, NULL,
	  "kswapd sleeps above this many free pages, 16..2^30 (default wm_min*3/2)" },
	/* reclaim.c's MAX_BATCH: its victim array holds 256 pages. */
	{ "reclaim_batch", KNOB_U64, 1, 256, false, NULL, "pages per swap-out batch, 1..256 (default 64)" },
	{ "swapcrc", KNOB_BOOL, 0, 1, false, NULL, "crc32 of every page at swap-out, checked at swap-in" },
	{ "workingset", KNOB_BOOL, 0, 1, false, NULL,
	  "on/off: shadows of evicted pages, refault counts, activation of refaults within the working set (default off)" },
	/* drivers/blk.c: a fixed split of 8..BLK_MAX_SEGS pages. */
	{ "blk_read_split", KNOB_WORD, 0, 0, false, NULL,
	  "off: reads merge to the device's limits; or 8..256 pages, a power of two: no read command larger (default off)" },
	{ "overcommit_memory", KNOB_U64, 0, 2, false, NULL,
	  "0: refuse one mapping, brk growth or mprotect to writable larger than RAM and swap together (Linux's heuristic, default); "
	  "1: grant every request (Linux's always); 2: refuse what would take the committed total to the commit limit (Linux's never)" },
	/* vm/commit_policy.c: ratio times pages up to 1 TiB fits 64 bits. */
	{ "overcommit_ratio", KNOB_U64, 0, 1ull << 32, false, NULL,
	  "% of RAM in the commit limit of overcommit_memory 2, plus swap (default 50; setting it zeroes overcommit_kbytes)" },
	{ "overcommit_kbytes", KNOB_U64, 0, 1ull << 40, false, NULL,
	  "KiB of RAM in the commit limit instead of overcommit_ratio when not 0 (default 0; setting it zeroes overcommit_ratio)" },
	/* Run time only (scripts, @set): a mem= for a machine already booted. */
	{ "mem_limit_mib", KNOB_U64, 0, 1ull << 30, false, NULL,
	  "MiB the page allocator hands out, the rest held untouched (0: no limit)" },
};

const int knob_ndefs = sizeof knob_defs / sizeof knob_defs[0];

const struct knob_def *knob_find(const char *name)
{
	for (int i = 0; i < knob_ndefs; i++)
		if (!strcmp(knob_defs[i].name, name))
			return &knob_defs[i];
	return NULL;
}

static int refuse(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (n)
		kvsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int check_u64(const struct knob_def *k, const char *val, uint64_t *out, char *why, size_t n)
{
	uint64_t x;
	if (!cmdline_parse_u64(val, &x) || x < k->min || x > k->max)
		return refuse(why, n, "'%s' is not %s in %llu..%llu", val, k->pow2 ? "a power of two" : "a number",
			      (unsigned long long)k->min, (unsigned long long)k->max);
	if (k->pow2 && (x & (x - 1)))
		return refuse(why, n, "'%s' is not a power of two in %llu..%llu", val, (unsigned long long)k->min,
			      (unsigned long long)k->max);
	if (out)
		*out = x;
	return 0;
}

int knob_check(const struct knob_def *k, const char *val, uint64_t *out, char *why, size_t n)
{
	bool b;
	if (k->missing)
		return refuse(why, n, "%s", k->missing);
	switch (k->kind) {
	case KNOB_U64:
		return check_u64(k, val, out, why, n);
	case KNOB_BOOL:
		if (!cmdline_parse_bool(val, &b))
			return refuse(why, n, "'%s' is not on or off", val);
		if (out)
			*out = b;
		return 0;
	case KNOB_WORD:
		if (!*val)
			return refuse(why, n, "an empty value");
		return 0;
	}
	return refuse(why, n, "unknown kind of knob");
}
