/*
 * Readahead policies applied: state, locking, windows turned into swap
 * entries.  Every decision is the policy's struct ra_ops (ra_policy.c),
 * the same code the unit simulator runs; this file holds no switch over
 * the policies.
 *
 * Locking follows the state a policy keeps (ra_ops.scope): the own
 * policy's stream tables and the VMA state (vma->ra_state, changed
 * inside miss/found since faults of one mm run in parallel) are the
 * address space's, under its mm->ra_lock (a shmem object's ra_lock for
 * its own table); only a policy whose state is one window for the
 * machine (hugh's, and vma's for shmem as in Linux) takes the global
 * "readahead" lock; off and fixed take none.  So faults on different
 * address spaces do not meet here.  The fault's shared hold of the
 * owner's mm->lock keeps the VMA, and so that state's address, in place.
 * Gap filling's feedback (shared by every task: a fill page is used by
 * whichever task owns it) is one word changed by compare-and-swap, as is
 * the machine's verdict on pages read outside streams (ra_loose_pays), and
 * plans come from a pool taken the same way.
 */
#include <string.h>
#include "readahead.h"
#include "ra_policy.h"
#include "swap.h"
#include "swapcache.h"
#include "vm/shmem.h"
#include "vm/vm.h"
#include "mem/pgtable.h"
#include "mem/pmm.h"
#include "mem/kmalloc.h"
#include "vm/vmstat.h"
#include "core/spinlock.h"

#define P 4096ull
#define OWN_BUDGET_MAX 64       /* pages: 256 KiB windows */

static struct spinlock lock = SPINLOCK_INIT("readahead");
static struct ra_spec spec = { RA_FIXED, 3 };
static unsigned page_cluster = 3;
static struct ra_hugh hugh;             /* guarded by lock */
static uint64_t fill_word;              /* gap filling's feedback: struct ra_fill packed (fill_apply) */
static uint64_t loose_word;             /* pages read outside streams: struct ra_loose packed (loose_apply) */
static char name[16] = "fixed:3";

bool ra_set_policy(const char *s)
{
	struct ra_spec sp;
	if (!ra_parse(s, &sp))
		return false;
	bool on = spin_lock_irqsave(&lock);
	spec = sp;
	if (sp.kind == RA_FIXED)
		page_cluster = sp.order;
	hugh = (struct ra_hugh){ 0, 0, 0 };
	__atomic_store_n(&fill_word, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&loose_word, 0, __ATOMIC_RELAXED);
	ra_format(&spec, name, sizeof name);
	spin_unlock_irqrestore(&lock, on);
	return true;
}

const char *ra_policy_name(void) { return name; }

void ra_set_page_cluster(unsigned n)
{
	if (n > RA_MAX_ORDER)
		n = RA_MAX_ORDER;
	bool on = spin_lock_irqsave(&lock);
	page_cluster = n;
	if (spec.kind == RA_FIXED) {
		spec.order = n;
		ra_format(&spec, name, sizeof name);
	}
	spin_unlock_irqrestore(&lock, on);
}

unsigned ra_page_cluster(void) { return page_cluster; }

void ra_state_free(void *state) { kfree(state); }

/* Gap filling's feedback, lock-free: struct ra_fill in one word (21 bits
 * per field: read stays under RA_FILL_FORGET plus a window, used under
 * read, and windows matters only modulo RA_FILL_PROBE, a power of two
 * that divides 2^21), updated by op on a copy and put back by
 * compare-and-swap.  Returns op's result. */
#define FILL_BITS 21
#define FILL_MASK ((1ull << FILL_BITS) - 1)
static uint32_t fill_apply(uint32_t (*op)(struct ra_fill *f, uint32_t n), uint32_t n)
{
	uint64_t old = __atomic_load_n(&fill_word, __ATOMIC_RELAXED), new;
	uint32_t r;
	do {
		struct ra_fill f = { (uint32_t)(old & FILL_MASK), (uint32_t)(old >> FILL_BITS & FILL_MASK),
				     (uint32_t)(old >> 2 * FILL_BITS & FILL_MASK) };
		r = op(&f, n);
		new = (f.read & FILL_MASK) | (uint64_t)(f.used & FILL_MASK) << FILL_BITS |
		      (uint64_t)(f.windows & FILL_MASK) << 2 * FILL_BITS;
	} while (!__atomic_compare_exchange_n(&fill_word, &old, new, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return r;
}

/* The machine's verdict on pages read outside streams, lock-free the
 * same way: struct ra_loose in one word (each count stays under
 * RA_LOOSE_FORGET + 1). */
static struct ra_loose loose_of(uint64_t w) { return (struct ra_loose){ (uint32_t)w, (uint32_t)(w >> 32) }; }
static void loose_apply(void (*op)(struct ra_loose *l))
{
	uint64_t old = __atomic_load_n(&loose_word, __ATOMIC_RELAXED), new;
	do {
		struct ra_loose l = loose_of(old);
		op(&l);
		new = l.used | (uint64_t)l.wasted << 32;
	} while (!__atomic_compare_exchange_n(&loose_word, &old, new, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static bool loose_pays(void)
{
	struct ra_loose l = loose_of(__atomic_load_n(&loose_word, __ATOMIC_RELAXED));
	return ra_loose_pays(&l);
}

static uint32_t fill_room(struct ra_fill *f, uint32_t n) { return ra_fill_room(f, n); }
static uint32_t fill_read(struct ra_fill *f, uint32_t n)
{
	ra_fill_read(f, n);
	return 0;
}
static uint32_t fill_used(struct ra_fill *f, uint32_t n)
{
	(void)n;
	ra_fill_used(f);
	return 0;
}

/* The own policy's largest window: 1/64 of memory, 8..64 pages.  Memory
 * does not change size: computed on first use (a racing first use
 * computes the same value). */
static uint32_t own_budget(void)
{
	static uint32_t budget;
	uint32_t b = __atomic_load_n(&budget, __ATOMIC_RELAXED);
	if (!b) {
		struct pmm_stats st;
		pmm_get_stats(&st);
		uint64_t x = st.total_pages / 64;
		b = x < 8 ? 8 : x > OWN_BUDGET_MAX ? OWN_BUDGET_MAX : (uint32_t)x;
		__atomic_store_n(&budget, b, __ATOMIC_RELAXED);
	}
	return b;
}

/* Plans: a fault holds one from ra_miss or ra_found until its reads are
 * submitted (read_plan), which may sleep in the allocator.  POOL of them
 * serve the usual number of concurrent faults without the heap; more
 * at once (a many-threaded burst) fall back to kmalloc. */
#define POOL 8
static struct {
	struct ra_plan head;
	struct ra_item v[RA_PLAN_MAX];
} pool[POOL];
static uint32_t pool_busy;              /* bit i: pool[i] handed out (atomic) */

/* A plan for up to cap (<= RA_PLAN_MAX) entries. */
static struct ra_plan *plan_new(uint32_t cap)
{
	struct ra_plan *p = NULL;
	uint32_t busy = __atomic_load_n(&pool_busy, __ATOMIC_RELAXED);
	while (busy != (1u << POOL) - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(~busy);
		if (__atomic_compare_exchange_n(&pool_busy, &busy, busy | 1u << i, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			p = &pool[i].head;
			break;
		}
	}
	if (!p)
		p = kmalloc(sizeof *p + cap * sizeof p->v[0]);
	if (p) {
		p->n = 0;
		p->cap = cap;
		p->has_fault = false;
		p->marker = false;
		p->nfill = 0;
		p->no_reclaim = false;
		p->space = NULL;
		p->space_lock = NULL;
		p->wstart = 0;
	}
	return p;
}

void ra_plan_free(struct ra_plan *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < POOL; i++)
		if (p == &pool[i].head) {
			__atomic_and_fetch(&pool_busy, ~(1u << i), __ATOMIC_RELEASE);
			return;
		}
	kfree(p);
}

static void add(struct ra_plan *p, uint64_t entry)
{
	if (p->n < p->cap) {
		p->v[p->n].entry = entry;
		p->v[p->n].page = NULL;
		p->v[p->n].step = RA_STEP_NONE;
		p->n++;
	}
}

/* Every slot of the pages-aligned block around the fault (besides it). */
static void add_slots(struct ra_plan *p, uint64_t entry, const struct ra_slots *w)
{
	unsigned area = swp_area(entry);
	for (uint64_t off = w->start; off < w->start + w->count; off++) {
		uint64_t e = swp_entry(area, off);
		if (e != entry)
			add(p, e);
	}
}

/* A stream's window whose slots lie in one area, close but not adjacent:
 * add the slots between them (ra_fill_gaps), up to the window's size, so
 * the window goes out in one request rather than one per slot. */
static void fill_gaps(struct ra_plan *p)
{
	enum { FILL_MAX = 1 + OWN_BUDGET_MAX };
	uint32_t n = p->n;
	if (n < 2 || n > FILL_MAX || p->cap <= n)
		return;
	unsigned area = swp_area(p->v[0].entry);
	uint64_t off[FILL_MAX], gap[RA_PLAN_MAX];
	bool down = true;
	for (uint32_t i = 0; i < n; i++) {
		if (swp_area(p->v[i].entry) != area)
			return;
		off[i] = swp_offset(p->v[i].entry);
		if (i && off[i] > off[i - 1])
			down = false;
	}
	/* A window comes in slot order, or reversed (a backward stream):
	 * reverse that, then insertion sort, linear on both. */
	for (uint32_t i = 0; down && i < n / 2; i++) {
		uint64_t x = off[i];
		off[i] = off[n - 1 - i];
		off[n - 1 - i] = x;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = off[i];
		uint32_t j = i;
		for (; j > 0 && off[j - 1] > x; j--)
			off[j] = off[j - 1];
		off[j] = x;
	}
	/* Every gap may be filled: K streams evicted together leave K - 1
	 * slots of the others between two of each one's (touch's streams:4,
	 * 3), and with room for only one fill slot per page a window went out
	 * as a run of about a third of it and single-slot requests: 14839
	 * requests for 21804 pages read ahead (fixed:4: 1365 for 20355), 6.1x
	 * its elapsed time at the ssd profile's 700 IOPS. */
	uint32_t room = p->cap - n < RA_FILL_GAP * n ? p->cap - n : RA_FILL_GAP * n;
	uint32_t m = ra_fill_gaps(off, n, room, gap);
	if (m)
		m = fill_apply(fill_room, m);
	if (!m)
		return;
	/* The window's entries (the fault's stays first: it is read in any
	 * case) and the gaps' in slot order along the window, descending for
	 * a backward one, so that a window trimmed for want of memory
	 * (read_plan) still goes out as one run up to where it stops; with
	 * the gaps last, trimming dropped them first and left the window's
	 * pages as single-slot requests.  The gaps lie between the window's
	 * slots, so a merge from the back does it in place. */
	uint32_t first = p->has_fault ? 1 : 0;
	struct ra_item *v = p->v;
	for (uint32_t i = first; down && i < first + (n - first) / 2; i++) {
		struct ra_item x = v[i];
		v[i] = v[n - 1 - (i - first)];
		v[n - 1 - (i - first)] = x;
	}
	for (uint32_t i = first + 1; i < n; i++) {
		struct ra_item x = v[i];
		uint32_t j = i;
		for (; j > first && swp_offset(v[j - 1].entry) > swp_offset(x.entry); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	uint32_t i = n, k = n + m, j = m;
	while (j > 0) {
		if (i > first && swp_offset(v[i - 1].entry) > gap[j - 1])
			v[--k] = v[--i];
		else
			v[--k] = (struct ra_item){ swp_entry(area, gap[--j]), NULL, RA_STEP_FILL };
	}
	p->n = n + m;
	for (uint32_t a = first, b = p->n - 1; down && a < b; a++, b--) {
		struct ra_item x = v[a];
		v[a] = v[b];
		v[b] = x;
	}
	p->nfill = m;
}

/* Drop the plan's read-ahead entries whose pages are cached already:
 * with K streams evicted together, one stream's gap filling reads the
 * others' next pages, so their own windows find most of theirs in the
 * cache, and filling around those would read nothing new for a plan of
 * up to four times the window.  A stale answer is harmless (the insert
 * in swapin.c's prepare decides).
 * Not under the page-table lock: the swap cache's shard locks are not
 * taken inside it. */
static void drop_cached(struct ra_plan *p)
{
	enum { CHUNK = 64 };
	uint64_t e[CHUNK];
	bool cached[CHUNK];
	uint32_t n = p->has_fault ? 1 : 0;
	for (uint32_t i = n; i < p->n; i += CHUNK) {
		uint32_t m = p->n - i < CHUNK ? p->n - i : CHUNK;
		for (uint32_t j = 0; j < m; j++)
			e[j] = p->v[i + j].entry;
		swapcache_cached_many(e, m, cached);
		for (uint32_t j = 0; j < m; j++)
			if (!cached[j])
				p->v[n++] = p->v[i + j];
	}
	p->n = n;
}

/* Whether swap entries a and b (a window's neighbours) lie too far apart
 * to be one request: RA_WINDOW_FAR (readahead.h). */
static bool slots_far(uint64_t a, uint64_t b)
{
	uint64_t x = swp_offset(a), y = swp_offset(b);
	return swp_area(a) != swp_area(b) || (x > y ? x - y : y - x) > RA_WINDOW_FAR;
}

/* The swap entries of a logical window's pages, in window order.  One
 * page-table walk per CHUNK pages (pt_get_many), not one per page: a
 * walk per page was 140 ns of the 1 us a stream's hit cost under own
 * (bench ra streams:4, -icount).  The PTEs are read without their locks,
 * as Linux's swap_vma_readahead reads them: an entry that changes under
 * the read is a slot read for nothing (prepare skips a slot no longer in
 * use), never a wrong page, since the swap cache is keyed by slot.  A
 * run's window (w->run) ends at its first jump in the slots
 * (RA_WINDOW_FAR); a stream hears where (ra_window_cut). */
static void add_logical(struct ra_plan *p, const struct ra_fault *f, const struct ra_lwin *w)
{
	enum { CHUNK = 64 };
	pte_t pte[CHUNK];
	bool look = w->run;             /* a run's next pages: they end at a jump (RA_WINDOW_FAR) */
	uint64_t last = 0;              /* the window's last entry so far (0: none; slot 0 is a header) */
	uint32_t cut = w->count;
	for (uint32_t k = 0; k < w->count; k++) {
		uint64_t pg = w->start + (uint64_t)((int64_t)k * w->stride);
		uint64_t e = 0;
		if (f->obj) {
			e = shmem_slot_peek(f->obj, pg);
		} else {
			if (k % CHUNK == 0)
				pt_get_many(f->mm->pml4, pg * P, w->stride * (int64_t)P,
					    w->count - k < CHUNK ? w->count - k : CHUNK, pte);
			if (pt_pte_is_swap(pte[k % CHUNK]))
				e = pt_pte_swap_entry(pte[k % CHUNK]);
		}
		if (e && e != f->entry && p->n < p->cap) {
			if (look && last && slots_far(last, e)) {
				look = false;
				if (k >= RA_WINDOW_MIN_STEPS) {
					cut = k;
					break;
				}
			}
			last = e;
			add(p, e);
			p->v[p->n - 1].step = (uint16_t)k;
		}
	}
	p->marker = w->marker;
	p->wstart = w->start;
	if (cut < w->count) {
		vmstat_inc(SWAP_RA_SPLIT);
		if (w->marker)          /* a stream's: its next window starts at the jump */
			ra_window_cut(p, cut);
	}
	if (w->marker) {
		drop_cached(p);
		fill_gaps(p);
	}
}

/* Where a fault's per-space state lives (the mm's or the shmem object's),
 * or NULL: not a fault in a VMA or object, so no logical space. */
static void **space_slot(const struct ra_fault *f)
{
	if (!f->mm || !(f->obj || f->vstate))
		return NULL;
	return f->obj ? &f->obj->ra : &f->mm->ra;
}

/* The fault's logical page: the object's index, or the virtual page. */
static uint64_t logical_idx(const struct ra_fault *f) { return f->obj ? f->idx : f->va / P; }

/* The policy's per-space state for the fault's address space or shmem
 * object (ops->space_size bytes, ops->space_init), allocated on first
 * use; NULL: no memory, or not a fault.  Only own has such state, so
 * mm->ra and shmem->ra always hold its kind.  Called without the lock. */
static void *space_state(const struct ra_fault *f, const struct ra_ops *ops)
{
	void **slot = space_slot(f);
	if (!slot)
		return NULL;
	if (!__atomic_load_n(slot, __ATOMIC_ACQUIRE)) {
		void *o = kmalloc(ops->space_size);
		if (!o)
			return NULL;
		ops->space_init(o);
		void *expect = NULL;
		if (!__atomic_compare_exchange_n(slot, &expect, o, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			kfree(o);
	}
	return *slot;
}

/* The fault as the policies see it: its slot and logical page. */
static void event_of(const struct ra_fault *f, struct ra_event *e)
{
	e->slot = swp_offset(f->entry);
	e->slots = swap_area_slots(swp_area(f->entry));
	e->idx = logical_idx(f);
	e->lo = f->obj ? 0 : f->vlo;
	e->hi = f->obj ? f->obj->npages : f->vhi;
}

/* The state ops decide from.  want_space: a miss, or a hit on a
 * readahead page (the only events that start per-space state).  Called
 * without any lock: may allocate. */
static void ctx_of(const struct ra_fault *f, const struct ra_ops *ops, bool want_space, struct ra_ctx *c)
{
	c->global = &hugh;
	c->vstate = f->obj ? NULL : f->vstate;
	c->space = ops->space_size && want_space ? space_state(f, ops) : NULL;
	c->budget = c->space ? own_budget() : 0;
	c->loose_pays = c->space && loose_pays();       /* only own, with its state, reads it */
	/* Set under the global lock by a policy switch; a switch racing
	 * with a fault applies from the next one. */
	c->order = __atomic_load_n(&spec.order, __ATOMIC_RELAXED);
	c->max_pages = 1u << __atomic_load_n(&page_cluster, __ATOMIC_RELAXED);
}

/* The lock guarding the state ops change for this fault (ra_ops.scope),
 * or NULL: none.  Not a fault (no mm): the global one. */
static struct spinlock *state_lock(const struct ra_fault *f, const struct ra_ops *ops, const struct ra_ctx *c)
{
	switch (ops->scope) {
	case RA_SCOPE_NONE:
		return NULL;
	case RA_SCOPE_VSTATE_OR_GLOBAL:
		if (!c->vstate)
			return &lock;
		/* fall through */
	case RA_SCOPE_SPACE:
		return f->obj ? &f->obj->ra_lock : f->mm ? &f->mm->ra_lock : &lock;
	case RA_SCOPE_GLOBAL:
	default:
		return &lock;
	}
}

/* Plain spinlocks: faults and policy switches take them, never an
 * interrupt, so interrupts stay on (irq_save's trace of the section cost
 * about 80 ns of each of own's hits). */
static void state_enter(struct spinlock *l)
{
	if (l)
		spin_lock(l);
}
static void state_exit(struct spinlock *l)
{
	if (l)
		spin_unlock(l);
}

/* Slots of the plan's slot window besides the fault's that hold data. */
static uint32_t slots_in_use(const struct ra_plan *p)
{
	uint32_t used = 0;
	for (uint32_t i = 1; i < p->n; i++)
		used += swap_count(p->v[i].entry) > 0;
	return used;
}

/* The policy's ops, read without the lock (state may be allocated for
 * them): a switch racing with a fault applies from the next one. */
static const struct ra_ops *cur_ops(void) { return ra_ops_of(__atomic_load_n(&spec.kind, __ATOMIC_RELAXED)); }

struct ra_plan *ra_miss(const struct ra_fault *f)
{
	const struct ra_ops *ops = cur_ops();
	struct ra_ctx c;
	struct ra_event e;
	struct ra_window w;
	ctx_of(f, ops, true, &c);
	event_of(f, &e);
	struct spinlock *l = state_lock(f, ops, &c);
	state_enter(l);
	ops->miss(&c, &e, &w);
	state_exit(l);
	/* The fault's page alone needs no plan. */
	if (w.slots.count <= 1 && w.lwin.count == 0)
		return NULL;
	/* Room for the gap slots of a stream's window (fill_gaps). */
	uint32_t lcap = w.lwin.marker ? (1 + RA_FILL_GAP) * w.lwin.count : w.lwin.count;
	uint32_t cap = 1 + (w.slots.count > lcap ? w.slots.count : lcap);
	struct ra_plan *p = plan_new(cap < RA_PLAN_MAX ? cap : RA_PLAN_MAX);
	if (!p)
		return NULL;
	p->no_reclaim = ops->no_reclaim && w.lwin.marker;
	add(p, f->entry);
	p->has_fault = true;
	if (w.slots.count <= 1) {
		p->space = c.space;
		p->space_lock = l;
		add_logical(p, f, &w.lwin);
		return p;
	}
	add_slots(p, f->entry, &w.slots);
	if (ops->slot_read) {
		uint32_t used = slots_in_use(p);
		state_enter(l);
		ops->slot_read(&c, used);
		state_exit(l);
	}
	return p;
}

struct ra_plan *ra_found(const struct ra_fault *f, bool readahead, bool marker)
{
	const struct ra_ops *ops = cur_ops();
	/* A hit the policy takes without its lock (own: a stream's next
	 * page before its window's halfway, most of a stream's hits). */
	void **slot = readahead && ops->fast_hit ? space_slot(f) : NULL;
	if (slot) {
		void *space = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (space && ops->fast_hit(space, logical_idx(f)))
			return NULL;
	}
	struct ra_ctx c;
	struct ra_event e;
	struct ra_lwin w;
	ctx_of(f, ops, readahead, &c);
	/* A policy whose state is the space's decides nothing without it:
	 * a hit on a page that was not read ahead (most swap-cache hits on
	 * random access) costs no lock. */
	if (ops->space_size && !c.space)
		return NULL;
	event_of(f, &e);
	struct spinlock *l = state_lock(f, ops, &c);
	state_enter(l);
	ops->found(&c, &e, readahead, marker, &w);
	state_exit(l);
	if (!w.count)
		return NULL;
	uint32_t cap = w.marker ? (1 + RA_FILL_GAP) * w.count : w.count;
	struct ra_plan *p = plan_new(cap < RA_PLAN_MAX ? cap : RA_PLAN_MAX);
	if (p) {
		p->no_reclaim = ops->no_reclaim && w.marker;
		p->space = c.space;
		p->space_lock = l;
		add_logical(p, f, &w);
	}
	if (p && !p->n) {
		ra_plan_free(p);
		p = NULL;
	}
	return p;
}

void ra_window_cut(const struct ra_plan *p, uint32_t steps)
{
	const struct ra_ops *ops = cur_ops();
	if (!p->space || !ops->window_cut)
		return;
	state_enter(p->space_lock);
	ops->window_cut(p->space, p->wstart, steps);
	state_exit(p->space_lock);
}

void ra_filled(uint32_t n)
{
	vmstat_add(SWAP_RA_FILL, n);
	fill_apply(fill_read, n);
}

void ra_fill_hit(void)
{
	vmstat_inc(SWAP_RA_FILL_HIT);
	fill_apply(fill_used, 0);
}

void ra_waste(bool loose)
{
	vmstat_inc(SWAP_RA_WASTE);
	if (loose)
		loose_apply(ra_loose_wasted);
}

void ra_loose_hit(void) { loose_apply(ra_loose_used); }
