/* libFuzzer target: the swap slot allocator driven by the input bytes as a
 * sequence of operations - get n slots, free / dup / retire / settle the
 * k-th held reference or drop it lock-free (put: the last leaves the slot
 * pending until a release), add an area, disable / enable / remove one,
 * swapoff it, re-cluster it, poke it with garbage entries.  Oracles:
 * swapalloc_check after every operation, and a shadow copy of every
 * slot's state (count, pending, bad, retired, fresh) that each result must
 * agree with; at the end every
 * reference is dropped and all slots must be free again, with no block of
 * the allocator left live. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "swap/swapalloc.h"

#define FZ_SLOTS 2048                   /* largest area the fuzzer makes */
#define FZ_HELD 4096
#define FZ_RUNS 16
#define SH_BAD 0xffffu
#define SH_PEND 0xfffeu                 /* put its last count; not yet released */

static struct swap_pool pool;
static uint16_t shadow[SWAP_MAX_AREAS][FZ_SLOTS];       /* count, or SH_BAD */
static uint8_t retired[SWAP_MAX_AREAS][FZ_SLOTS];
static uint8_t fresh_[SWAP_MAX_AREAS][FZ_SLOTS];        /* handed out, not settled */
static uint64_t held[FZ_HELD];
static uint32_t nheld;
static uint64_t pend[FZ_HELD];                          /* pending slots */
static uint32_t npend;
static const uint8_t *in;
static size_t in_left;
static int live, fail_at;

#define ORACLE(c) do { if (!(c)) { fprintf(stderr, "oracle failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

static void *fz_alloc(size_t n)
{
	if (fail_at && --fail_at == 0)
		return NULL;
	live++;
	return malloc(n);
}

static void fz_free(void *p)
{
	if (p)
		live--;
	free(p);
}

static uint8_t next(void)
{
	if (!in_left)
		return 0;
	in_left--;
	return *in++;
}

/* Little-endian; every read is its own statement, so the byte order does
 * not depend on the compiler's order of evaluation. */
static uint16_t next16(void)
{
	uint16_t lo = next();
	return (uint16_t)(lo | next() << 8);
}

static const struct swap_area *area(unsigned i)
{
	return &pool.area[i % SWAP_MAX_AREAS];
}

/* Counts the shadow says area i must report. */
static void shadow_counts(unsigned i, uint64_t *free, uint64_t *used, uint64_t *bad)
{
	*free = *used = *bad = 0;
	for (uint64_t off = 0; off < area(i)->nslots; off++) {
		uint16_t v = shadow[i][off];
		*free += v == 0;
		*used += v && v != SH_BAD;
		*bad += v == SH_BAD;
	}
}

static void check_all(void)
{
	const char *err = swapalloc_check(&pool);
	if (err) {
		fprintf(stderr, "swapalloc_check: %s\n", err);
		abort();
	}
	for (unsigned i = 0; i < SWAP_MAX_AREAS; i++) {
		struct swap_area_stats st;
		uint64_t free, used, bad;
		if (!area(i)->present) {
			ORACLE(swapalloc_area_stats(&pool, (int)i, &st) == SWAPALLOC_EINVAL);
			continue;
		}
		ORACLE(swapalloc_area_stats(&pool, (int)i, &st) == 0);
		shadow_counts(i, &free, &used, &bad);
		ORACLE(st.free_slots == free && st.used_slots == used && st.bad_slots == bad);
		ORACLE(st.frag_permille <= 1000);
		ORACLE(swapalloc_area_used(&pool, (int)i) == (int64_t)used);
	}
}

static void hold(uint64_t e)
{
	ORACLE(nheld < FZ_HELD);
	held[nheld++] = e;
}

static void op_get(void)
{
	int want = next();
	want |= (next() & 3) << 8;
	int maxruns = next() % (FZ_RUNS + 1);
	struct swap_run runs[FZ_RUNS];
	if (want > (int)(FZ_HELD - nheld))
		want = (int)(FZ_HELD - nheld);
	/* One of the pool's CPUs (each with its own current clusters). */
	int nr = swapalloc_get_cpu(&pool, next() % pool.ncpus, want, runs, maxruns);
	ORACLE(nr >= 0 && nr <= maxruns);
	uint64_t got = 0;
	int lowest = 1 << 30;
	for (int r = 0; r < nr; r++) {
		unsigned a = runs[r].area;
		ORACLE(a < SWAP_MAX_AREAS && area(a)->present && area(a)->enabled);
		ORACLE(runs[r].count > 0 && runs[r].off + runs[r].count <= area(a)->nslots);
		for (uint64_t off = runs[r].off; off < runs[r].off + runs[r].count; off++) {
			ORACLE(shadow[a][off] == 0);
			shadow[a][off] = 1;
			fresh_[a][off] = 1;
			hold(swp_entry(a, off));
		}
		got += runs[r].count;
		if (area(a)->prio < lowest)
			lowest = area(a)->prio;
		/* Adjacent runs would have been one. */
		ORACLE(!r || runs[r - 1].area != a || runs[r - 1].off + runs[r - 1].count != runs[r].off);
	}
	ORACLE(got <= (uint64_t)want);
	if (got < (uint64_t)want && nr < maxruns)
		ORACLE(swapalloc_free_slots(&pool) == 0);
	/* A lower priority only when every higher one is full. */
	for (unsigned i = 0; nr && i < SWAP_MAX_AREAS; i++)
		if (area(i)->present && area(i)->enabled && area(i)->prio > lowest)
			ORACLE(area(i)->nfree == 0);
}

static void drop(uint32_t k)
{
	uint64_t e = held[k];
	unsigned a = swp_area(e);
	uint64_t off = swp_offset(e);
	int left = swapalloc_free(&pool, e);
	ORACLE(left == shadow[a][off] - 1);
	shadow[a][off]--;
	if (!shadow[a][off])
		fresh_[a][off] = 0;
	if (!shadow[a][off] && retired[a][off])
		shadow[a][off] = SH_BAD;
	held[k] = held[--nheld];
}

/* The lock-free drop of the k-th held reference. */
static void op_put(void)
{
	if (!nheld)
		return;
	uint32_t k = next16() % nheld;
	uint64_t e = held[k];
	unsigned a = swp_area(e);
	uint64_t off = swp_offset(e);
	int r = swapalloc_put(&pool, e);
	if (shadow[a][off] > 1) {
		ORACLE(r == shadow[a][off] - 1);
		shadow[a][off]--;
		held[k] = held[--nheld];
		return;
	}
	if (retired[a][off]) {
		ORACLE(r == SWAPALLOC_EAGAIN);
		drop(k);                /* the locked free, as swap.c does */
		return;
	}
	ORACLE(r == 0);
	shadow[a][off] = SH_PEND;
	fresh_[a][off] = 0;
	pend[npend++] = e;
	held[k] = held[--nheld];
	ORACLE(swapalloc_count(&pool, e) == 0 && !swapalloc_has_data(&pool, e));
	ORACLE(swapalloc_dup(&pool, e) == SWAPALLOC_ENOENT && !swapalloc_dup_if_data(&pool, e));
}

static void release_k(uint32_t k)
{
	uint64_t e = pend[k];
	unsigned a = swp_area(e);
	uint64_t off = swp_offset(e);
	ORACLE(swapalloc_release(&pool, e) == 0);
	shadow[a][off] = retired[a][off] ? SH_BAD : 0;
	pend[k] = pend[--npend];
}

/* Give pending slots back, as a full return buffer does. */
static void op_release(void)
{
	uint32_t n = next() % 65;
	while (n-- && npend)
		release_k(npend - 1);
}

static void op_settle(void)
{
	if (!nheld)
		return;
	uint64_t e = held[next16() % nheld];
	swapalloc_settle(&pool, e);
	fresh_[swp_area(e)][swp_offset(e)] = 0;
}

static void op_free(void)
{
	if (nheld)
		drop(next16() % nheld);
}

static void op_dup(void)
{
	if (!nheld || nheld == FZ_HELD)
		return;
	uint64_t e = held[next16() % nheld];
	uint16_t *s = &shadow[swp_area(e)][swp_offset(e)];
	int err = swapalloc_dup(&pool, e);
	if (*s == SWAP_MAP_MAX) {
		ORACLE(err == SWAPALLOC_EOVERFLOW);
		return;
	}
	ORACLE(err == 0);
	(*s)++;
	hold(e);
}

/* Count and dup an arbitrary slot of an area: free, bad or in use. */
static void op_poke(void)
{
	unsigned a = next() & 7;
	if (!area(a)->present)
		return;
	uint64_t off = next16() % area(a)->nslots, e = swp_entry(a, off);
	uint16_t s = shadow[a][off];
	if (s == SH_PEND)
		s = 0;                  /* pending: no count to take */
	ORACLE(swapalloc_count(&pool, e) == (s == SH_BAD ? SWAPALLOC_EINVAL : s));
	bool data = s && s != SH_BAD && !fresh_[a][off];
	ORACLE(swapalloc_has_data(&pool, e) == data);
	if (nheld == FZ_HELD)
		return;
	if (next() & 1) {
		bool took = swapalloc_dup_if_data(&pool, e);
		ORACLE(took == (data && s != SWAP_MAP_MAX));
		if (took) {
			shadow[a][off]++;
			hold(e);
		}
		return;
	}
	int err = swapalloc_dup(&pool, e);
	if (s == SH_BAD || s == 0 || s == SWAP_MAP_MAX) {
		ORACLE(err == (s == SH_BAD ? SWAPALLOC_EINVAL : s ? SWAPALLOC_EOVERFLOW : SWAPALLOC_ENOENT));
		return;
	}
	ORACLE(err == 0);
	shadow[a][off]++;
	hold(e);
}

static void op_retire(void)
{
	uint8_t how = next();
	unsigned a;
	uint64_t off;
	if (how & 1 && nheld) {
		uint64_t e = held[next16() % nheld];
		a = swp_area(e);
		off = swp_offset(e);
	} else {
		a = how >> 1 & 7;
		if (!area(a)->present)
			return;
		off = next16() % area(a)->nslots;
	}
	int err = swapalloc_retire(&pool, swp_entry(a, off));
	if (shadow[a][off] == SH_BAD) {
		ORACLE(err == SWAPALLOC_EINVAL);
		return;
	}
	ORACLE(err == 0);
	if (shadow[a][off] == 0)
		shadow[a][off] = SH_BAD;
	else
		retired[a][off] = 1;
}

static void clear_area(unsigned a)
{
	memset(shadow[a], 0, sizeof shadow[a]);
	memset(retired[a], 0, sizeof retired[a]);
	memset(fresh_[a], 0, sizeof fresh_[a]);
}

static void op_add(void)
{
	uint32_t bad[8];
	struct swap_area_conf c = { .bad = bad };
	c.nslots = next16() % (FZ_SLOTS + 1);
	c.prio = (int)(next() % 4) - 1;
	c.nbad = next() % 9;
	uint8_t g = next();
	c.cluster = g & 0x80 ? 8u << (g % 7) : g & 0x40 ? (uint32_t)next16() : 0;  /* some invalid */
	c.frag_min = next() % 2 ? next() % 70 : 0;
	for (uint32_t i = 0; i < c.nbad; i++)
		bad[i] = next16() % (c.nslots + 16);
	fail_at = next() % 8 == 0 ? 1 + next() % 2 : 0;
	bool geometry_ok = c.nslots >= 2;
	uint32_t cl = c.cluster ? c.cluster : SWAP_CLUSTER_DEFAULT;
	geometry_ok &= cl >= SWAP_CLUSTER_MIN && cl <= SWAP_CLUSTER_MAX && !(cl & (cl - 1));
	geometry_ok &= c.frag_min <= cl;
	int free_idx = -1;
	for (int i = SWAP_MAX_AREAS - 1; i >= 0; i--)
		if (!area((unsigned)i)->present)
			free_idx = i;
	bool inject = fail_at != 0;
	int r = swapalloc_area_add(&pool, &c);
	fail_at = 0;
	if (!geometry_ok) {
		ORACLE(r == SWAPALLOC_EINVAL);
		return;
	}
	if (free_idx < 0) {
		ORACLE(r == SWAPALLOC_ENOSPC);
		return;
	}
	ORACLE((r == SWAPALLOC_ENOMEM) == inject);     /* both maps come before any check */
	if (inject)
		return;
	uint64_t usable = c.nslots - 1;
	static uint8_t isbad[FZ_SLOTS];
	memset(isbad, 0, sizeof isbad);
	for (uint32_t i = 0; i < c.nbad; i++)
		if (bad[i] && bad[i] < c.nslots && !isbad[bad[i]]++)
			usable--;
	if (!usable) {
		ORACLE(r == SWAPALLOC_ENOSPC);
		return;
	}
	ORACLE(r == free_idx);
	unsigned a = (unsigned)r;
	clear_area(a);
	shadow[a][0] = SH_BAD;
	for (uint64_t off = 1; off < c.nslots; off++)
		if (isbad[off])
			shadow[a][off] = SH_BAD;
}

static uint64_t used_of(unsigned a)
{
	uint64_t free, used, bad;
	shadow_counts(a, &free, &used, &bad);
	return used;
}

static void op_toggle(void)
{
	uint8_t b = next();
	unsigned a = b & 7;
	int err = b & 8 ? swapalloc_area_enable(&pool, (int)a) : swapalloc_area_disable(&pool, (int)a);
	ORACLE(err == (area(a)->present ? 0 : SWAPALLOC_EINVAL));
}

static void op_remove(void)
{
	unsigned a = next() & 7;
	bool present = area(a)->present;
	uint64_t used = present ? used_of(a) : 0;
	int err = swapalloc_area_remove(&pool, (int)a);
	if (!present) {
		ORACLE(err == SWAPALLOC_EINVAL);
		return;
	}
	ORACLE(err == (used ? SWAPALLOC_EBUSY : 0));
	if (!err)
		clear_area(a);
}

/* swapoff: disable, drop every reference into the area, remove. */
static void op_swapoff(void)
{
	unsigned a = next() & 7;
	if (!area(a)->present)
		return;
	ORACLE(swapalloc_area_disable(&pool, (int)a) == 0);
	for (uint32_t k = nheld; k-- > 0;)
		if (swp_area(held[k]) == a)
			drop(k);
	for (uint32_t k = npend; k-- > 0;)
		if (swp_area(pend[k]) == a)
			release_k(k);
	ORACLE(swapalloc_area_used(&pool, (int)a) == 0);
	ORACLE(swapalloc_area_remove(&pool, (int)a) == 0);
	clear_area(a);
}

static void op_recluster(void)
{
	unsigned a = next() & 7;
	uint32_t cluster = 4u << (next() % 8);
	uint32_t frag_min = next() % 40;
	fail_at = next() % 8 == 0 ? 1 : 0;
	bool inject = fail_at != 0;
	int err = swapalloc_area_set_cluster(&pool, (int)a, cluster, frag_min);
	fail_at = 0;
	uint32_t cl = cluster;
	if (!area(a)->present || cl < SWAP_CLUSTER_MIN || cl > SWAP_CLUSTER_MAX || frag_min > cl)
		ORACLE(err == SWAPALLOC_EINVAL);
	else if (used_of(a))
		ORACLE(err == SWAPALLOC_EBUSY);
	else
		ORACLE(err == (inject ? SWAPALLOC_ENOMEM : 0));
}

/* A word that names no slot must be refused by every entry call. */
static void op_garbage(void)
{
	uint64_t e = 0;
	for (int i = 0; i < 8; i++)
		e = e << 8 | next();
	unsigned a = swp_area(e);
	bool names_slot = (e & 1) && !(e >> (SWP_OFF_SHIFT + SWP_OFF_BITS)) && a < SWAP_MAX_AREAS &&
			  area(a)->present && swp_offset(e) < area(a)->nslots;
	if (names_slot)
		return;
	ORACLE(swapalloc_free(&pool, e) == SWAPALLOC_EINVAL);
	ORACLE(swapalloc_dup(&pool, e) == SWAPALLOC_EINVAL);
	ORACLE(swapalloc_retire(&pool, e) == SWAPALLOC_EINVAL);
	ORACLE(swapalloc_count(&pool, e) == SWAPALLOC_EINVAL);
	ORACLE(swapalloc_put(&pool, e) == SWAPALLOC_EINVAL);
	ORACLE(swapalloc_release(&pool, e) == SWAPALLOC_EINVAL);
	ORACLE(!swapalloc_has_data(&pool, e) && !swapalloc_dup_if_data(&pool, e));
	swapalloc_settle(&pool, e);     /* nothing to settle: must not crash */
}

static void final_checks(void)
{
	for (unsigned a = 0; a < SWAP_MAX_AREAS; a++)
		for (uint64_t off = 0; area(a)->present && off < area(a)->nslots; off++) {
			int c = swapalloc_count(&pool, swp_entry(a, off));
			uint16_t s = shadow[a][off] == SH_PEND ? 0 : shadow[a][off];
			ORACLE(s == SH_BAD ? c == SWAPALLOC_EINVAL : c == s);
		}
	while (nheld)
		drop(nheld - 1);
	while (npend)
		release_k(npend - 1);
	check_all();
	for (unsigned a = 0; a < SWAP_MAX_AREAS; a++) {
		struct swap_area_stats st;
		if (!area(a)->present)
			continue;
		ORACLE(swapalloc_area_stats(&pool, (int)a, &st) == 0);
		ORACLE(st.used_slots == 0 && st.slots_allocated == st.slots_freed && st.frag_permille == 0);
		ORACLE(swapalloc_area_remove(&pool, (int)a) == 0);
	}
	ORACLE(live == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const ops[])(void) = {
		op_get, op_get, op_get, op_free, op_free, op_free, op_dup, op_retire,
		op_add, op_add, op_toggle, op_remove, op_swapoff, op_recluster, op_garbage, op_poke,
		op_put, op_put, op_release, op_settle,
	};
	in = data;
	in_left = size;
	nheld = 0;
	npend = 0;
	fail_at = 0;
	memset(shadow, 0, sizeof shadow);
	memset(retired, 0, sizeof retired);
	memset(fresh_, 0, sizeof fresh_);
	swapalloc_init(&pool, fz_alloc, fz_free);
	ORACLE(swapalloc_set_cpus(&pool, 1 + next() % 4) == 0);
	while (in_left) {
		ops[next() % (sizeof ops / sizeof ops[0])]();
		check_all();
	}
	final_checks();
	swapalloc_destroy(&pool);
	return 0;
}
