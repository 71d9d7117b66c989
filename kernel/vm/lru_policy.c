/*
 * LRU verdicts.  The referenced information is read (and cleared) by the
 * caller through the reverse map; here only the decision lives.
 */
#include "lru_policy.h"

enum lru_verdict lru_judge_inactive(unsigned refs, bool was_referenced, bool swap_backed, bool unused_readahead)
{
	if (!refs)
		return unused_readahead && was_referenced ? LRU_KEEP : LRU_RECLAIM;
	/* Swap-backed (anonymous, shmem) pages referenced through a mapping
	 * are promoted at once, as Linux does: every mapped page starts with
	 * its accessed bit set, and evicting one costs a write.  The active
	 * list's aging then sends back those not used since. */
	if (swap_backed)
		return LRU_ACTIVATE;
	/* File pages: referenced while already marked, or through several
	 * mappings: promote; referenced for the first time: one more trip
	 * round the inactive list (used-once pages never get promoted). */
	if (was_referenced || refs > 1)
		return LRU_ACTIVATE;
	return LRU_KEEP;
}

enum lru_verdict lru_judge_active(unsigned refs, bool file, bool exec)
{
	if (file)
		return refs && exec ? LRU_ROTATE : LRU_DEACTIVATE;
	return refs ? LRU_ROTATE : LRU_DEACTIVATE;
}

static uint64_t isqrt(uint64_t v)
{
	uint64_t r = 0;
	while ((r + 1) * (r + 1) <= v)
		r++;
	return r;
}

bool lru_inactive_is_low(uint64_t inactive, uint64_t active, uint64_t total_pages)
{
	uint64_t gib = total_pages >> 18;
	uint64_t ratio = gib ? isqrt(10 * gib) : 1;
	return inactive * ratio < active;
}

void lru_scan_split(uint64_t anon, uint64_t shmem, uint64_t want, uint64_t *scan_anon, uint64_t *scan_shmem)
{
	uint64_t total = anon + shmem;
	if (!total) {
		*scan_anon = *scan_shmem = 0;
		return;
	}
	*scan_anon = want * anon / total;
	*scan_shmem = want - *scan_anon;
	if (!shmem)
		*scan_anon = want, *scan_shmem = 0;
	if (!anon)
		*scan_shmem = want, *scan_anon = 0;
}

enum lru_verdict lru_judge_aged(enum lru_verdict v, bool age_referenced)
{
	return v == LRU_RECLAIM && age_referenced ? LRU_KEEP : v;
}

uint32_t lru_age_ahead_looks(uint64_t free, uint64_t floor, uint64_t total_pages, uint64_t inactive)
{
	uint64_t window = total_pages / LRU_AGE_WINDOW_DIV;
	if (!window || free <= floor || free - floor > window || !inactive)
		return 0;
	uint64_t n = 1 + inactive / window;
	return n > LRU_AGE_MAX ? LRU_AGE_MAX : (uint32_t)n;
}

bool lru_used_more_than_once(bool anon, bool shmem, bool used_once_swapbacked, bool anon_used_once)
{
	return (anon && !anon_used_once) || (shmem && used_once_swapbacked);
}

bool lru_inactive_marks(unsigned referenced_ptes, bool used_more_than_once)
{
	return referenced_ptes && !used_more_than_once;
}

bool lru_deactivate_keeps_mark(bool shmem, bool used_once_swapbacked)
{
	return shmem && !used_once_swapbacked;
}

bool lru_shmem_fault_marks(bool used_once_swapbacked)
{
	return used_once_swapbacked;
}

void lru_scan_balance(uint64_t swapbacked, uint64_t file, unsigned swappiness, struct lru_scan_cost cost,
		      bool may_swap, uint64_t want, uint64_t *scan_swapbacked, uint64_t *scan_file)
{
	if (swappiness > 200)
		swappiness = 200;
	if (!file || !may_swap || !swapbacked) {
		*scan_swapbacked = file ? 0 : want;
		*scan_file = want - *scan_swapbacked;
		return;
	}
	/* Linux's weights: each side's cost is the total plus its own, so a
	 * side that refaults much is scanned less but never not at all. */
	uint64_t total = cost.anon + cost.file;
	uint64_t acost = total + cost.anon, fcost = total + cost.file;
	total = acost + fcost;
	uint64_t ap = swappiness * (total + 1) / (acost + 1);
	uint64_t fp = (200 - swappiness) * (total + 1) / (fcost + 1);
	if (!ap && !fp)
		fp = 1;
	/* Weights in 1/1024ths, list sizes up to 2^40 pages. */
	uint64_t an = ap * 1024 / (ap + fp), fn = 1024 - an;
	uint64_t wa = swapbacked * an, wf = file * fn;
	while ((wa | wf) >> 40) {               /* keep want * wa in 64 bits (want < 2^20) */
		wa >>= 1;
		wf >>= 1;
	}
	*scan_swapbacked = wa + wf ? want * wa / (wa + wf) : 0;
	if (*scan_swapbacked > want)
		*scan_swapbacked = want;
	*scan_file = want - *scan_swapbacked;
}
