/*
 * Swap slot allocator: swap_map reference counts, clusters, priorities.
 *
 * Model (Linux mm/swapfile.c): reclaim asks swapalloc_get for a batch of
 * slots.  The chosen area fills the calling CPU's CURRENT cluster from
 * that CPU's cursor upwards, so its consecutive batches land on
 * consecutive slots whatever other CPUs do (Linux's percpu_cluster); when
 * the cursor leaves the cluster, the CPU takes the head of the area's
 * FREE list (a fresh cluster), else the head of its PARTIAL list, else it
 * scans swap_map for whatever free slots are left (a fallback scan: swap
 * is fragmented; it may take slots in other CPUs' current clusters).  Runs that
 * touch across a cluster boundary merge, so one batch is as few writes as
 * the map allows.
 *
 * Areas are kept in pool->order by priority.  The highest priority with an
 * enabled, non-full area is used; among equal priorities the first in order
 * that still has a cluster to give goes, and an area moves behind its equals
 * whenever it finishes a cluster or does a fallback scan - the rotation of
 * Linux's swap_avail list, at cluster granularity, so two equal disks each
 * get whole clusters in turn.
 *
 * Invariants (swapalloc_check verifies all of them):
 *  - swap_map[off] is 0 (free), 1..SWAP_MAP_MAX (in use), FRESH|count
 *    (in use, no data yet), PENDING (in use: its last count went, it
 *    waits for swapalloc_release), RETIRED|any of these (BAD once it
 *    would be free) or BAD.  Slot 0 is BAD.
 *  - cluster c covers slots [c << shift, min((c + 1) << shift, nslots));
 *    c.free counts its 0 entries, c.cap its non-BAD ones; so cap - free is
 *    the slots in use.
 *  - area nfree / nused / nbad are the sums over the map; their total is
 *    nslots.  slots_allocated - slots_freed == nused.
 *  - every cluster but the current ones is where its counts say
 *    (cl_want): on the FREE list iff free == cap > 0, on the PARTIAL list
 *    iff frag_min <= free < cap, else on no list (full, all bad, or too few
 *    free slots to be worth a cluster: only a fallback scan finds those).
 *    A current cluster (where == CUR) is some CPU's, exactly one CPU's,
 *    and on no list whatever its counts: frees into it do not move it; it
 *    leaves when that CPU's cursor reaches its end or it has no free slot
 *    left, and the cursor lies inside it.
 *  - Hence: a free slot is in a current cluster, in a FREE or PARTIAL
 *    cluster, or below frag_min in an unlisted one - the fallback scan
 *    finds all of them - and pick() only chooses areas with nfree > 0, so
 *    every get step but one per current cluster of the calling CPU makes
 *    progress: swapalloc_get never spins.
 *
 * The caller serialises all calls (the kernel's swap lock) but the ones
 * swapalloc.h marks LOCK-FREE: those change one map word by atomic
 * compare-and-swap, never between 0 and non-zero, so the counts and lists
 * above stay the lock's alone.  Nothing here blocks.  Only area add / set_cluster / remove / destroy call the
 * allocator hooks.
 */
#include <string.h>
#include "swapalloc.h"

/* A map word, read once: lock-free callers may change in-use words under
 * a lock holder's feet (never to or from 0). */
static uint16_t mapv(const struct swap_area *a, uint64_t off) { return __atomic_load_n(&a->map[off], __ATOMIC_RELAXED); }

/* Replace the map word old by new; false if it changed meanwhile. */
static bool map_cas(struct swap_area *a, uint64_t off, uint16_t *old, uint16_t new)
{
	return __atomic_compare_exchange_n(&a->map[off], old, new, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static uint64_t cl_start(const struct swap_area *a, uint32_t c)
{
	return (uint64_t)c << a->shift;
}

static uint64_t cl_end(const struct swap_area *a, uint32_t c)
{
	uint64_t end = ((uint64_t)c + 1) << a->shift;
	return end < a->nslots ? end : a->nslots;
}

/* ------------------------------------------------------------ cluster lists */

static struct swap_cl_list *list_of(struct swap_area *a, uint8_t where)
{
	return where == SWAP_CL_FREE ? &a->free_list : &a->partial;
}

static void cl_push(struct swap_area *a, uint32_t c, uint8_t where)
{
	struct swap_cl_list *l = list_of(a, where);
	a->cl[c].where = where;
	a->cl[c].next = SWAP_CL_NONE;
	a->cl[c].prev = l->tail;
	if (l->tail == SWAP_CL_NONE)
		l->head = c;
	else
		a->cl[l->tail].next = c;
	l->tail = c;
	l->n++;
}

static void cl_del(struct swap_area *a, uint32_t c)
{
	struct swap_cluster *x = &a->cl[c];
	struct swap_cl_list *l = list_of(a, x->where);
	if (x->prev == SWAP_CL_NONE)
		l->head = x->next;
	else
		a->cl[x->prev].next = x->next;
	if (x->next == SWAP_CL_NONE)
		l->tail = x->prev;
	else
		a->cl[x->next].prev = x->prev;
	l->n--;
	x->next = x->prev = SWAP_CL_NONE;
	x->where = SWAP_CL_OFF;
}

/* The list a non-current cluster belongs on, by its counts. */
static uint8_t cl_want(const struct swap_area *a, const struct swap_cluster *c)
{
	if (c->free == 0)
		return SWAP_CL_OFF;
	if (c->free == c->cap)
		return SWAP_CL_FREE;
	return c->free >= a->frag_min ? SWAP_CL_PARTIAL : SWAP_CL_OFF;
}

/* Restore the list invariant after cluster c's counts changed. */
static void cl_update(struct swap_area *a, uint32_t c)
{
	uint8_t where = a->cl[c].where, want = cl_want(a, &a->cl[c]);
	if (where == SWAP_CL_CUR || where == want)
		return;
	if (where != SWAP_CL_OFF)
		cl_del(a, c);
	if (want != SWAP_CL_OFF)
		cl_push(a, c, want);
}

/* Recount every cluster from the map and rebuild the lists, in address
 * order so fresh clusters are handed out bottom-up. */
static void build_clusters(struct swap_area *a, uint32_t ncpus)
{
	a->free_list = a->partial = (struct swap_cl_list){ SWAP_CL_NONE, SWAP_CL_NONE, 0 };
	a->nfree = a->nused = a->nbad = 0;
	for (uint32_t c = 0; c < a->nclusters; c++) {
		struct swap_cluster *x = &a->cl[c];
		*x = (struct swap_cluster){ 0, 0, SWAP_CL_NONE, SWAP_CL_NONE, SWAP_CL_OFF };
		for (uint64_t off = cl_start(a, c); off < cl_end(a, c); off++) {
			x->cap += mapv(a, off) != SWAP_MAP_BAD;
			x->free += mapv(a, off) == 0;
		}
		a->nfree += x->free;
		a->nused += x->cap - x->free;
		a->nbad += (cl_end(a, c) - cl_start(a, c)) - x->cap;
		cl_update(a, c);
	}
	for (uint32_t i = 0; i < ncpus; i++)
		a->cpu[i] = (struct swap_cpu_cursor){ SWAP_CL_NONE, 0 };
	a->scan_next = 1;
}

/* ------------------------------------------------------------ pool order */

static void order_insert(struct swap_pool *p, uint8_t ai)
{
	int prio = p->area[ai].prio;
	uint8_t i = 0;
	while (i < p->norder && p->area[p->order[i]].prio >= prio)
		i++;
	memmove(&p->order[i + 1], &p->order[i], p->norder - i);
	p->order[i] = ai;
	p->norder++;
}

static uint8_t order_index(const struct swap_pool *p, unsigned ai)
{
	uint8_t i = 0;
	while (p->order[i] != ai)
		i++;
	return i;
}

static void order_remove(struct swap_pool *p, unsigned ai)
{
	uint8_t i = order_index(p, ai);
	memmove(&p->order[i], &p->order[i + 1], p->norder - i - 1);
	p->norder--;
}

/* Move area ai behind the other areas of its priority: its turn is over. */
static void requeue(struct swap_pool *p, unsigned ai)
{
	uint8_t i = order_index(p, ai);
	while (i + 1 < p->norder && p->area[p->order[i + 1]].prio == p->area[ai].prio) {
		p->order[i] = p->order[i + 1];
		p->order[++i] = (uint8_t)ai;
	}
}

static bool has_cluster(const struct swap_area *a, uint32_t cpu)
{
	return a->cpu[cpu].cur != SWAP_CL_NONE || a->free_list.n || a->partial.n;
}

/* The area CPU cpu's next slots come from, or -1 when swap is full. */
static int pick(const struct swap_pool *p, uint32_t cpu)
{
	uint8_t i = 0;
	while (i < p->norder) {
		int prio = p->area[p->order[i]].prio, scan = -1;
		for (; i < p->norder && p->area[p->order[i]].prio == prio; i++) {
			const struct swap_area *a = &p->area[p->order[i]];
			if (!a->enabled || !a->nfree)
				continue;
			if (has_cluster(a, cpu))
				return p->order[i];
			if (scan < 0)
				scan = p->order[i];
		}
		if (scan >= 0)
			return scan;
	}
	return -1;
}

/* ------------------------------------------------------------ allocation */

struct batch {
	struct swap_run *runs;
	int nr, maxruns;
	uint64_t left;
	bool full;                      /* runs[] full and the next slot not contiguous */
};

static bool run_extends(const struct batch *b, unsigned ai, uint64_t off)
{
	if (!b->nr)
		return false;
	const struct swap_run *r = &b->runs[b->nr - 1];
	return r->area == ai && r->off + r->count == off;
}

/* Append slot off of area ai to the batch: extend the last run if it is
 * contiguous, else start a run if there is room. */
static bool run_add(struct batch *b, unsigned ai, uint64_t off)
{
	if (run_extends(b, ai, off)) {
		b->runs[b->nr - 1].count++;
		return true;
	}
	if (b->nr == b->maxruns) {
		b->full = true;
		return false;
	}
	b->runs[b->nr++] = (struct swap_run){ .area = ai, .count = 1, .off = off };
	return true;
}

static bool take(struct swap_area *a, unsigned ai, uint64_t off, struct batch *b)
{
	uint32_t c = (uint32_t)(off >> a->shift);
	if (!run_add(b, ai, off))
		return false;
	__atomic_store_n(&a->map[off], 1 | SWAP_MAP_FRESH, __ATOMIC_RELAXED);
	a->cl[c].free--;
	a->nfree--;
	a->nused++;
	a->st.slots_allocated++;
	b->left--;
	cl_update(a, c);                /* a current cluster stays put */
	return true;
}

static bool start_cluster(struct swap_area *a, struct swap_cpu_cursor *k)
{
	uint32_t c;
	if (a->free_list.n) {
		c = a->free_list.head;
		a->st.clusters_taken++;
	} else if (a->partial.n) {
		c = a->partial.head;
		a->st.partial_reused++;
	} else {
		return false;
	}
	cl_del(a, c);
	a->cl[c].where = SWAP_CL_CUR;
	k->cur = c;
	k->next = cl_start(a, c);
	return true;
}

static void end_cluster(struct swap_area *a, struct swap_cpu_cursor *k)
{
	uint32_t c = k->cur;
	k->cur = SWAP_CL_NONE;
	a->cl[c].where = SWAP_CL_OFF;
	cl_update(a, c);
}

/* Take free slots of the CPU's current cluster from its cursor up. */
static uint64_t fill_current(struct swap_pool *p, unsigned ai, struct swap_cpu_cursor *k, struct batch *b)
{
	struct swap_area *a = &p->area[ai];
	uint32_t c = k->cur;
	uint64_t off = k->next, end = cl_end(a, c), n = 0;
	for (; off < end && b->left; off++) {
		if (mapv(a, off))
			continue;
		if (!take(a, ai, off, b))
			break;
		n++;
	}
	k->next = off;
	if (off == end || !a->cl[c].free) {
		end_cluster(a, k);
		requeue(p, ai);
	}
	return n;
}

/* No cluster to start: scan the map from where the last scan stopped,
 * skipping clusters with nothing free, at most once round. */
static uint64_t fallback(struct swap_pool *p, unsigned ai, struct batch *b)
{
	struct swap_area *a = &p->area[ai];
	uint64_t off = a->scan_next, scanned = 0, n = 0;
	a->st.fallback_scans++;
	while (scanned < a->nslots && b->left) {
		if (off >= a->nslots)
			off = 0;
		uint32_t c = (uint32_t)(off >> a->shift);
		if (!a->cl[c].free) {
			scanned += cl_end(a, c) - off;
			off = cl_end(a, c);
			continue;
		}
		if (!mapv(a, off)) {
			if (!take(a, ai, off, b))
				break;
			n++;
		}
		off++;
		scanned++;
	}
	a->scan_next = off;
	requeue(p, ai);
	return n;
}

/* With runs[] full, is the cluster start_cluster would take worth taking:
 * does its first free slot extend the last run (cluster k + 1 after k)? */
static bool next_cluster_extends(const struct swap_area *a, unsigned ai, const struct batch *b)
{
	uint32_t c = a->free_list.n ? a->free_list.head : a->partial.n ? a->partial.head : SWAP_CL_NONE;
	if (c == SWAP_CL_NONE)
		return false;
	for (uint64_t off = cl_start(a, c); off < cl_end(a, c); off++)
		if (!mapv(a, off))
			return run_extends(b, ai, off);
	return false;
}

static uint64_t area_step(struct swap_pool *p, unsigned ai, uint32_t cpu, struct batch *b)
{
	struct swap_area *a = &p->area[ai];
	struct swap_cpu_cursor *k = &a->cpu[cpu];
	if (k->cur == SWAP_CL_NONE) {
		if (b->nr == b->maxruns && !next_cluster_extends(a, ai, b)) {
			b->full = true;
			return 0;
		}
		if (!start_cluster(a, k))
			return fallback(p, ai, b);
	}
	return fill_current(p, ai, k, b);
}

int swapalloc_get(struct swap_pool *p, int want, struct swap_run *runs, int maxruns)
{
	return swapalloc_get_cpu(p, 0, want, runs, maxruns);
}

int swapalloc_get_cpu(struct swap_pool *p, uint32_t cpu, int want, struct swap_run *runs, int maxruns)
{
	if (!p || cpu >= p->ncpus || want < 0 || maxruns < 0 || (want && maxruns && !runs))
		return SWAPALLOC_EINVAL;
	if (!want || !maxruns)
		return 0;
	struct batch b = { .runs = runs, .nr = 0, .maxruns = maxruns, .left = (uint64_t)want };
	int idle = 0;
	/* Runs may fill up mid-cluster: go on while slots still extend the
	 * last run, even into the next cluster. */
	while (b.left && !b.full) {
		int ai = pick(p, cpu);
		if (ai < 0)
			break;
		/* A step without a slot only retires a used-up current
		 * cluster, at most once per area in a row (see invariants). */
		if (area_step(p, (unsigned)ai, cpu, &b))
			idle = 0;
		else if (++idle > 2 * SWAP_MAX_AREAS)
			break;
	}
	return b.nr;
}

/* ------------------------------------------------------------ references */

static struct swap_area *entry_area(const struct swap_pool *p, uint64_t e, uint64_t *off)
{
	if (!p || !swp_is_entry(e) || e >> (SWP_OFF_SHIFT + SWP_OFF_BITS))
		return NULL;
	unsigned ai = swp_area(e);
	if (ai >= SWAP_MAX_AREAS || !p->area[ai].present)
		return NULL;
	*off = swp_offset(e);
	if (*off >= p->area[ai].nslots)
		return NULL;
	return (struct swap_area *)&p->area[ai];
}

int swapalloc_count(const struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	const struct swap_area *a = entry_area(p, entry, &off);
	uint16_t v = a ? mapv(a, off) : SWAP_MAP_BAD;
	if (v == SWAP_MAP_BAD)
		return SWAPALLOC_EINVAL;
	return v & SWAP_MAP_COUNT;
}

bool swapalloc_has_data(const struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	const struct swap_area *a = entry_area(p, entry, &off);
	uint16_t v = a ? mapv(a, off) : SWAP_MAP_BAD;
	return v != SWAP_MAP_BAD && (v & SWAP_MAP_COUNT) && !(v & SWAP_MAP_FRESH);
}

int swapalloc_dup(struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	struct swap_area *a = entry_area(p, entry, &off);
	if (!a)
		return SWAPALLOC_EINVAL;
	uint16_t v = mapv(a, off);
	do {
		if (v == SWAP_MAP_BAD)
			return SWAPALLOC_EINVAL;
		if (!(v & SWAP_MAP_COUNT))
			return SWAPALLOC_ENOENT;
		if ((v & SWAP_MAP_COUNT) == SWAP_MAP_MAX)
			return SWAPALLOC_EOVERFLOW;
	} while (!map_cas(a, off, &v, v + 1));
	return 0;
}

bool swapalloc_dup_if_data(struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	struct swap_area *a = entry_area(p, entry, &off);
	if (!a)
		return false;
	uint16_t v = mapv(a, off);
	do {
		if (v == SWAP_MAP_BAD || !(v & SWAP_MAP_COUNT) || (v & SWAP_MAP_FRESH) ||
		    (v & SWAP_MAP_COUNT) == SWAP_MAP_MAX)
			return false;
	} while (!map_cas(a, off, &v, v + 1));
	return true;
}

void swapalloc_settle(struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	struct swap_area *a = entry_area(p, entry, &off);
	uint16_t v = a ? mapv(a, off) : SWAP_MAP_BAD;
	while (v != SWAP_MAP_BAD && (v & SWAP_MAP_COUNT) && (v & SWAP_MAP_FRESH))
		if (map_cas(a, off, &v, v & ~SWAP_MAP_FRESH))
			break;
}

/* The last reference to off went (its map word now reads v, count 0:
 * PENDING or RETIRED|PENDING, or about to be cleared by the caller): the
 * slot is free again, or BAD. */
static void slot_release(struct swap_area *a, uint64_t off, uint16_t v)
{
	uint32_t c = (uint32_t)(off >> a->shift);
	a->nused--;
	a->st.slots_freed++;
	if (v & SWAP_MAP_RETIRED) {
		__atomic_store_n(&a->map[off], SWAP_MAP_BAD, __ATOMIC_RELAXED);
		a->cl[c].cap--;
		a->nbad++;
	} else {
		__atomic_store_n(&a->map[off], 0, __ATOMIC_RELAXED);
		a->cl[c].free++;
		a->nfree++;
	}
	cl_update(a, c);
}

/* Drop one count of entry's slot.  The last count claims the word
 * first, PENDING (with RETIRED kept), so a lock-free dup racing with us
 * either came before (and we see count 2) or finds a count of 0; then
 * `locked` (the caller holds the swap lock) frees the slot at once, else
 * it is left pending - but for a retired slot, whose last count needs
 * the lock (SWAPALLOC_EAGAIN). */
static int drop_count(struct swap_pool *p, uint64_t entry, bool locked)
{
	uint64_t off;
	struct swap_area *a = entry_area(p, entry, &off);
	if (!a)
		return SWAPALLOC_EINVAL;
	uint16_t v = mapv(a, off);
	for (;;) {
		if (v == SWAP_MAP_BAD || !(v & SWAP_MAP_COUNT))
			return SWAPALLOC_EINVAL;
		if ((v & SWAP_MAP_COUNT) > 1) {
			if (map_cas(a, off, &v, v - 1))
				return (v - 1) & SWAP_MAP_COUNT;
			continue;
		}
		if (!locked && (v & SWAP_MAP_RETIRED))
			return SWAPALLOC_EAGAIN;
		uint16_t gone = (v & SWAP_MAP_RETIRED) | SWAP_MAP_PENDING;
		if (map_cas(a, off, &v, gone)) {
			if (locked)
				slot_release(a, off, gone);
			return 0;
		}
	}
}

int swapalloc_free(struct swap_pool *p, uint64_t entry) { return drop_count(p, entry, true); }
int swapalloc_put(struct swap_pool *p, uint64_t entry) { return drop_count(p, entry, false); }

int swapalloc_release(struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	struct swap_area *a = entry_area(p, entry, &off);
	uint16_t v = a ? mapv(a, off) : SWAP_MAP_BAD;
	/* Nothing lock-free changes a word whose count is 0; retire (locked,
	 * like us) may have added RETIRED. */
	if (v == SWAP_MAP_BAD || (v & ~SWAP_MAP_RETIRED) != SWAP_MAP_PENDING)
		return SWAPALLOC_EINVAL;
	slot_release(a, off, v);
	return 0;
}

int swapalloc_retire(struct swap_pool *p, uint64_t entry)
{
	uint64_t off;
	struct swap_area *a = entry_area(p, entry, &off);
	if (!a)
		return SWAPALLOC_EINVAL;
	uint16_t v = mapv(a, off);
	if (v == SWAP_MAP_BAD)
		return SWAPALLOC_EINVAL;
	if (v & SWAP_MAP_RETIRED)
		return 0;
	a->st.retired++;
	if (v) {
		while (!map_cas(a, off, &v, v | SWAP_MAP_RETIRED))
			;
		return 0;
	}
	uint32_t c = (uint32_t)(off >> a->shift);
	__atomic_store_n(&a->map[off], SWAP_MAP_BAD, __ATOMIC_RELAXED);
	a->cl[c].free--;
	a->cl[c].cap--;
	a->nfree--;
	a->nbad++;
	cl_update(a, c);
	return 0;
}

/* ------------------------------------------------------------ areas */

void swapalloc_init(struct swap_pool *p, void *(*alloc)(size_t), void (*free)(void *))
{
	memset(p, 0, sizeof *p);
	p->ncpus = 1;
	p->alloc = alloc;
	p->free = free;
}

int swapalloc_set_cpus(struct swap_pool *p, uint32_t ncpus)
{
	if (!p || !ncpus || ncpus > SWAP_MAX_CPUS)
		return SWAPALLOC_EINVAL;
	for (unsigned i = 0; i < SWAP_MAX_AREAS; i++)
		if (p->area[i].present)
			return SWAPALLOC_EBUSY;
	p->ncpus = ncpus;
	return 0;
}

static struct swap_area *area_get(const struct swap_pool *p, int ai)
{
	if (!p || ai < 0 || ai >= SWAP_MAX_AREAS || !p->area[ai].present)
		return NULL;
	return (struct swap_area *)&p->area[ai];
}

/* Validate a cluster size and frag_min (0: defaults). */
static int cluster_conf(uint32_t *cluster, uint32_t *frag_min, uint32_t *shift)
{
	if (!*cluster)
		*cluster = SWAP_CLUSTER_DEFAULT;
	if (*cluster < SWAP_CLUSTER_MIN || *cluster > SWAP_CLUSTER_MAX || (*cluster & (*cluster - 1)))
		return SWAPALLOC_EINVAL;
	if (!*frag_min)
		*frag_min = *cluster / 16 ? *cluster / 16 : 1;
	if (*frag_min > *cluster)
		return SWAPALLOC_EINVAL;
	for (*shift = 0; (1u << *shift) < *cluster; (*shift)++)
		;
	return 0;
}

static int free_index(const struct swap_pool *p)
{
	for (int i = 0; i < SWAP_MAX_AREAS; i++)
		if (!p->area[i].present)
			return i;
	return -1;
}

static void mark_bad(uint16_t *map, uint64_t nslots, const uint32_t *bad, uint32_t nbad)
{
	map[0] = SWAP_MAP_BAD;
	for (uint32_t i = 0; i < nbad; i++)
		if (bad[i] && bad[i] < nslots)
			map[bad[i]] = SWAP_MAP_BAD;
}

int swapalloc_area_add(struct swap_pool *p, const struct swap_area_conf *conf)
{
	if (!p || !conf || conf->nslots < 2 || conf->nslots > SWAP_MAX_SLOTS || (conf->nbad && !conf->bad))
		return SWAPALLOC_EINVAL;
	uint32_t cluster = conf->cluster, frag_min = conf->frag_min, shift;
	if (cluster_conf(&cluster, &frag_min, &shift))
		return SWAPALLOC_EINVAL;
	int ai = free_index(p);
	if (ai < 0)
		return SWAPALLOC_ENOSPC;
	uint32_t ncl = (uint32_t)((conf->nslots + cluster - 1) >> shift);
	uint16_t *map = p->alloc(conf->nslots * sizeof *map);
	if (!map)
		return SWAPALLOC_ENOMEM;
	struct swap_cluster *cl = p->alloc(ncl * sizeof *cl);
	if (!cl)
		goto free_map;
	struct swap_cpu_cursor *cpu = p->alloc(p->ncpus * sizeof *cpu);
	if (!cpu)
		goto free_cl;
	memset(map, 0, conf->nslots * sizeof *map);
	mark_bad(map, conf->nslots, conf->bad, conf->nbad);

	struct swap_area *a = &p->area[ai];
	*a = (struct swap_area){ .present = false, .enabled = true, .prio = conf->prio,
				 .nslots = conf->nslots, .cluster = cluster, .shift = shift,
				 .frag_min = frag_min, .nclusters = ncl, .map = map, .cl = cl, .cpu = cpu };
	build_clusters(a, p->ncpus);
	if (!a->nfree) {
		*a = (struct swap_area){ 0 };
		p->free(cpu);
		p->free(cl);
		p->free(map);
		return SWAPALLOC_ENOSPC;
	}
	a->nbad_initial = a->nbad;
	__atomic_store_n(&a->present, true, __ATOMIC_RELEASE);     /* lock-free readers: all set */
	order_insert(p, (uint8_t)ai);
	return ai;

free_cl:
	p->free(cl);
free_map:
	p->free(map);
	return SWAPALLOC_ENOMEM;
}

int swapalloc_area_set_cluster(struct swap_pool *p, int area, uint32_t cluster, uint32_t frag_min)
{
	struct swap_area *a = area_get(p, area);
	uint32_t shift;
	if (!a || cluster_conf(&cluster, &frag_min, &shift))
		return SWAPALLOC_EINVAL;
	if (a->nused)
		return SWAPALLOC_EBUSY;
	uint32_t ncl = (uint32_t)((a->nslots + cluster - 1) >> shift);
	struct swap_cluster *cl = p->alloc(ncl * sizeof *cl);
	if (!cl)
		return SWAPALLOC_ENOMEM;
	p->free(a->cl);
	a->cl = cl;
	a->cluster = cluster;
	a->shift = shift;
	a->frag_min = frag_min;
	a->nclusters = ncl;
	build_clusters(a, p->ncpus);
	return 0;
}

int swapalloc_area_disable(struct swap_pool *p, int area)
{
	struct swap_area *a = area_get(p, area);
	if (!a)
		return SWAPALLOC_EINVAL;
	a->enabled = false;
	return 0;
}

int swapalloc_area_enable(struct swap_pool *p, int area)
{
	struct swap_area *a = area_get(p, area);
	if (!a)
		return SWAPALLOC_EINVAL;
	a->enabled = true;
	return 0;
}

int64_t swapalloc_area_used(const struct swap_pool *p, int area)
{
	const struct swap_area *a = area_get(p, area);
	return a ? (int64_t)a->nused : SWAPALLOC_EINVAL;
}

static void area_drop(struct swap_pool *p, unsigned ai)
{
	struct swap_area *a = &p->area[ai];
	p->free(a->cpu);
	p->free(a->cl);
	p->free(a->map);
	order_remove(p, ai);
	*a = (struct swap_area){ 0 };
}

int swapalloc_area_remove(struct swap_pool *p, int area)
{
	struct swap_area *a = area_get(p, area);
	if (!a)
		return SWAPALLOC_EINVAL;
	if (a->nused)
		return SWAPALLOC_EBUSY;
	area_drop(p, (unsigned)area);
	return 0;
}

void swapalloc_destroy(struct swap_pool *p)
{
	for (unsigned i = 0; i < SWAP_MAX_AREAS; i++)
		if (p->area[i].present)
			area_drop(p, i);
}

bool swapalloc_area_shape(const struct swap_pool *p, int area, struct swap_area_shape *out)
{
	const struct swap_area *a = area_get(p, area);
	if (!a)
		return false;
	*out = (struct swap_area_shape){ .prio = a->prio, .enabled = a->enabled, .nslots = a->nslots,
					 .cluster = a->cluster };
	return true;
}

int swapalloc_area_stats(const struct swap_pool *p, int area, struct swap_area_stats *out)
{
	const struct swap_area *a = area_get(p, area);
	if (!a || !out)
		return SWAPALLOC_EINVAL;
	uint64_t whole = 0;
	for (uint32_t c = 0; c < a->nclusters; c++)
		if (a->cl[c].cap && a->cl[c].free == a->cl[c].cap)
			whole += a->cl[c].free;
	*out = a->st;
	out->free_slots = a->nfree;
	out->used_slots = a->nused;
	out->bad_slots = a->nbad;
	out->frag_permille = a->nfree ? (uint32_t)(1000 * (a->nfree - whole) / a->nfree) : 0;
	return 0;
}

uint64_t swapalloc_area_nslots(const struct swap_pool *p, unsigned area)
{
	if (area >= SWAP_MAX_AREAS || !__atomic_load_n(&p->area[area].present, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_load_n(&p->area[area].nslots, __ATOMIC_RELAXED);
}

void swapalloc_slots(const struct swap_pool *p, uint64_t *usable, uint64_t *used)
{
	*usable = *used = 0;
	for (unsigned i = 0; i < SWAP_MAX_AREAS; i++) {
		const struct swap_area *a = &p->area[i];
		if (!__atomic_load_n(&a->present, __ATOMIC_ACQUIRE))
			continue;
		uint64_t f = __atomic_load_n(&a->nfree, __ATOMIC_RELAXED), u = __atomic_load_n(&a->nused, __ATOMIC_RELAXED);
		*usable += f + u;
		*used += u;
	}
}

uint64_t swapalloc_free_slots(const struct swap_pool *p)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < SWAP_MAX_AREAS; i++)
		if (p->area[i].present && p->area[i].enabled)
			n += p->area[i].nfree;
	return n;
}

/* ------------------------------------------------------------ checker */

struct tally {
	uint64_t free, used, bad, pending;
	uint32_t where[4];
};

static const char *check_cluster(const struct swap_area *a, uint32_t c, struct tally *t)
{
	const struct swap_cluster *x = &a->cl[c];
	uint32_t free = 0, cap = 0;
	for (uint64_t off = cl_start(a, c); off < cl_end(a, c); off++) {
		uint16_t v = a->map[off];
		if (v == SWAP_MAP_BAD) {
			t->bad++;
			continue;
		}
		cap++;
		if (!v) {
			free++;
			continue;
		}
		if (!(v & SWAP_MAP_COUNT) && !(v & SWAP_MAP_PENDING))
			return "retired flag on a free slot";
		t->used++;
		t->pending += !!(v & SWAP_MAP_RETIRED);
	}
	if (x->free != free || x->cap != cap)
		return "cluster free/cap differ from the map";
	t->free += free;
	if (x->where > SWAP_CL_CUR)
		return "cluster where out of range";
	t->where[x->where]++;
	if (x->where == SWAP_CL_CUR)
		return NULL;            /* check_cursors: whose it is */
	return x->where == cl_want(a, x) ? NULL : "cluster not on the list its counts call for";
}

static const char *check_list(const struct swap_area *a, const struct swap_cl_list *l, uint8_t where)
{
	uint32_t n = 0, prev = SWAP_CL_NONE;
	for (uint32_t c = l->head; c != SWAP_CL_NONE; c = a->cl[c].next) {
		if (c >= a->nclusters || ++n > a->nclusters)
			return "cluster list link out of range or cyclic";
		if (a->cl[c].where != where || a->cl[c].prev != prev)
			return "cluster list member mislabelled or back link wrong";
		prev = c;
	}
	return n == l->n && l->tail == prev ? NULL : "cluster list count or tail wrong";
}

/* Every CPU's current cluster is marked current, its cursor inside it,
 * no two CPUs share one, and no cluster is marked current without a CPU. */
static const char *check_cursors(const struct swap_area *a, uint32_t ncpus, uint32_t marked)
{
	uint32_t owned = 0;
	for (uint32_t i = 0; i < ncpus; i++) {
		const struct swap_cpu_cursor *k = &a->cpu[i];
		if (k->cur == SWAP_CL_NONE)
			continue;
		if (k->cur >= a->nclusters || k->next < cl_start(a, k->cur) || k->next >= cl_end(a, k->cur))
			return "current cluster or its cursor out of range";
		if (a->cl[k->cur].where != SWAP_CL_CUR)
			return "a CPU's current cluster is not marked current";
		for (uint32_t j = 0; j < i; j++)
			if (a->cpu[j].cur == k->cur)
				return "two CPUs share a current cluster";
		owned++;
	}
	return owned == marked ? NULL : "a cluster marked current is no CPU's";
}

static const char *check_area(const struct swap_area *a, uint32_t ncpus)
{
	const char *err;
	struct tally t = { 0 };
	if (!a->map || !a->cl || a->shift > 16 || a->cluster != 1u << a->shift ||
	    a->nclusters != (a->nslots + a->cluster - 1) >> a->shift || !a->frag_min || a->frag_min > a->cluster)
		return "area geometry";
	if (a->map[0] != SWAP_MAP_BAD)
		return "slot 0 not reserved";
	for (uint32_t c = 0; c < a->nclusters; c++)
		if ((err = check_cluster(a, c, &t)))
			return err;
	if (t.free != a->nfree || t.used != a->nused || t.bad != a->nbad || a->nfree + a->nused + a->nbad != a->nslots)
		return "area free/used/bad differ from the map";
	if (!a->cpu)
		return "area has no CPU cursors";
	if ((err = check_cursors(a, ncpus, t.where[SWAP_CL_CUR])))
		return err;
	if (t.where[SWAP_CL_FREE] != a->free_list.n || t.where[SWAP_CL_PARTIAL] != a->partial.n)
		return "clusters marked listed but not on the list";
	if ((err = check_list(a, &a->free_list, SWAP_CL_FREE)) || (err = check_list(a, &a->partial, SWAP_CL_PARTIAL)))
		return err;
	if (a->st.slots_allocated - a->st.slots_freed != a->nused)
		return "allocated - freed != used";
	if (a->st.retired != a->nbad - a->nbad_initial + t.pending)
		return "retired count differs from the map";
	return a->scan_next <= a->nslots ? NULL : "scan cursor out of range";
}

const char *swapalloc_check(const struct swap_pool *p)
{
	uint8_t seen = 0, present = 0;
	if (!p->ncpus || p->ncpus > SWAP_MAX_CPUS)
		return "CPU count out of range";
	for (unsigned i = 0; i < p->norder; i++) {
		unsigned ai = p->order[i];
		if (ai >= SWAP_MAX_AREAS || !p->area[ai].present || (seen & 1u << ai))
			return "order lists a missing area or one twice";
		if (i && p->area[p->order[i - 1]].prio < p->area[ai].prio)
			return "order not by priority";
		seen |= (uint8_t)(1u << ai);
	}
	for (unsigned ai = 0; ai < SWAP_MAX_AREAS; ai++) {
		const struct swap_area *a = &p->area[ai];
		const char *err;
		if (!a->present) {
			if (a->map || a->cl || a->cpu)
				return "removed area keeps its maps";
			continue;
		}
		present |= (uint8_t)(1u << ai);
		if ((err = check_area(a, p->ncpus)))
			return err;
	}
	return present == seen && p->norder <= SWAP_MAX_AREAS ? NULL : "order misses a present area";
}
