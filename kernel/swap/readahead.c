/*
 * Readahead policies applied: state, locking, windows turned into swap
 * entries.  The window logic is in ra_policy.c.
 *
 * One spinlock guards every policy's state (the global hugh window, the
 * own policy's stream tables); VMA state (vma->ra_state) changes under
 * the owner's mm->lock, which every fault holds.
 */
#include <string.h>
#include "readahead.h"
#include "ra_policy.h"
#include "swap.h"
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
static struct ra_hugh hugh;
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

/* The own policy's largest window: 1/64 of memory, 8..64 pages. */
static uint32_t own_budget(void)
{
	struct pmm_stats st;
	pmm_get_stats(&st);
	uint64_t b = st.total_pages / 64;
	return b < 8 ? 8 : b > OWN_BUDGET_MAX ? OWN_BUDGET_MAX : (uint32_t)b;
}

/* A plan for up to cap entries. */
static struct ra_plan *plan_new(uint32_t cap)
{
	struct ra_plan *p = kmalloc(sizeof *p + cap * sizeof p->v[0]);
	if (p) {
		p->n = 0;
		p->cap = cap;
		p->has_fault = false;
		p->marker = false;
		p->nfill = 0;
	}
	return p;
}

static void add(struct ra_plan *p, uint64_t entry)
{
	if (p->n < p->cap) {
		p->v[p->n].entry = entry;
		p->v[p->n].page = NULL;
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
	uint64_t off[FILL_MAX], gap[FILL_MAX];
	for (uint32_t i = 0; i < n; i++) {
		if (swp_area(p->v[i].entry) != area)
			return;
		uint64_t x = swp_offset(p->v[i].entry);
		uint32_t j = i;
		for (; j > 0 && off[j - 1] > x; j--)
			off[j] = off[j - 1];
		off[j] = x;
	}
	uint32_t room = p->cap - n < n ? p->cap - n : n;
	uint32_t m = ra_fill_gaps(off, n, room, gap);
	for (uint32_t i = 0; i < m; i++)
		add(p, swp_entry(area, gap[i]));
	p->nfill = m;
}

/* The swap entries of a logical window's pages, in window order. */
static void add_logical(struct ra_plan *p, const struct ra_fault *f, const struct ra_lwin *w)
{
	for (uint32_t k = 0; k < w->count; k++) {
		uint64_t pg = w->start + (uint64_t)((int64_t)k * w->stride);
		uint64_t e = 0;
		if (f->obj) {
			e = shmem_slot_peek(f->obj, pg);
		} else {
			bool on = spin_lock_irqsave(&f->mm->ptl);
			pte_t pte = pt_get(f->mm->pml4, pg * P);
			spin_unlock_irqrestore(&f->mm->ptl, on);
			if (pt_pte_is_swap(pte))
				e = pt_pte_swap_entry(pte);
		}
		if (e && e != f->entry)
			add(p, e);
	}
	p->marker = w->marker;
	if (w->marker)
		fill_gaps(p);
}

/* The own policy's state for the fault's space, allocated on first use
 * (NULL: no memory, or not a fault).  Called without the lock. */
static struct ra_own *own_state(const struct ra_fault *f)
{
	void **slot = f->obj ? &f->obj->ra : f->mm ? &f->mm->ra : NULL;
	if (!slot)
		return NULL;
	if (!__atomic_load_n(slot, __ATOMIC_ACQUIRE)) {
		struct ra_own *o = kmalloc(sizeof *o);
		if (!o)
			return NULL;
		memset(o, 0, sizeof *o);
		void *expect = NULL;
		if (!__atomic_compare_exchange_n(slot, &expect, o, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			kfree(o);
	}
	return *slot;
}

/* The logical space of the fault: page number and bounds. */
static void space(const struct ra_fault *f, uint64_t *idx, uint64_t *lo, uint64_t *hi)
{
	if (f->obj) {
		*idx = f->idx;
		*lo = 0;
		*hi = f->obj->npages;
	} else {
		*idx = f->va / P;
		*lo = f->vlo;
		*hi = f->vhi;
	}
}

/* The slot window of `pages` around the fault. */
static void slot_window(const struct ra_fault *f, uint32_t pages, struct ra_slots *w)
{
	ra_slot_window(swp_offset(f->entry), pages, swap_area_slots(swp_area(f->entry)), w);
}

struct ra_plan *ra_miss(const struct ra_fault *f)
{
	bool logical_ok = f->mm && (f->obj || f->vstate);
	struct ra_own *own = spec.kind == RA_OWN && logical_ok ? own_state(f) : NULL;
	uint32_t budget = own ? own_budget() : 0;
	struct ra_slots sw = { 0, 0 };          /* a slot window, or */
	struct ra_lwin lw = { 0, 1, 0, false }; /* a logical one */
	uint64_t idx, lo, hi;
	bool on = spin_lock_irqsave(&lock);
	uint32_t maxp = 1u << page_cluster;
	switch (spec.kind) {
	case RA_OFF:
		break;
	case RA_FIXED:
		slot_window(f, 1u << spec.order, &sw);
		break;
	case RA_SHAOHUA:
		/* his detector had no state for shmem: the full window there */
		slot_window(f, f->vstate && !f->obj ? ra_shaohua_miss(f->vstate, maxp) : maxp, &sw);
		break;
	case RA_VMA:
		if (f->vstate && !f->obj) {
			ra_vma_miss(f->vstate, f->va / P, f->vlo, f->vhi, maxp, &lw);
			if (lw.count == 1)
				lw.count = 0;   /* the fault's page only */
			break;
		}
		/* shmem reads the global window, as in Linux */
		__attribute__((fallthrough));
	case RA_HUGH:
		slot_window(f, ra_hugh_pages(&hugh, swp_offset(f->entry), maxp), &sw);
		break;
	case RA_OWN:
		if (own) {
			space(f, &idx, &lo, &hi);
			ra_own_miss(own, idx, lo, hi, budget, &lw);
			if (!lw.count)
				slot_window(f, ra_own_slot_pages(own), &sw);
		}
		break;
	}
	spin_unlock_irqrestore(&lock, on);
	/* The fault's page alone needs no plan. */
	if (sw.count <= 1 && lw.count == 0)
		return NULL;
	/* Room for the gap slots of a stream's window (fill_gaps). */
	uint32_t lcap = lw.marker ? 2 * lw.count : lw.count;
	struct ra_plan *p = plan_new(1 + (sw.count > lcap ? sw.count : lcap));
	if (!p)
		return NULL;
	add(p, f->entry);
	p->has_fault = true;
	if (sw.count)
		add_slots(p, f->entry, &sw);
	else
		add_logical(p, f, &lw);
	if (own && sw.count) {
		uint32_t used = 0;
		for (uint32_t i = 1; i < p->n; i++)
			used += swap_count(p->v[i].entry) > 0;
		on = spin_lock_irqsave(&lock);
		ra_own_slot_read(own, used);
		spin_unlock_irqrestore(&lock, on);
	}
	return p;
}

struct ra_plan *ra_found(const struct ra_fault *f, bool readahead, bool marker)
{
	struct ra_lwin w = { 0, 1, 0, false };
	bool logical_ok = f->mm && (f->obj || f->vstate);
	struct ra_own *own = NULL;
	uint32_t budget = 0;
	if (spec.kind == RA_OWN && readahead && logical_ok) {
		own = own_state(f);
		budget = own_budget();
	}
	bool on = spin_lock_irqsave(&lock);
	uint64_t idx, lo, hi;
	switch (spec.kind) {
	case RA_OFF:
	case RA_FIXED:
		break;
	case RA_HUGH:
		if (readahead)
			ra_hugh_hit(&hugh);
		break;
	case RA_SHAOHUA:
		if (readahead && f->vstate && !f->obj)
			ra_shaohua_hit(f->vstate);
		break;
	case RA_VMA:
		if (f->vstate && !f->obj)
			ra_vma_lookup(f->vstate, f->va / P, readahead);
		else if (readahead)
			ra_hugh_hit(&hugh);
		break;
	case RA_OWN:
		if (own) {
			space(f, &idx, &lo, &hi);
			ra_own_hit(own, idx, marker, lo, hi, budget, &w);
		}
		break;
	}
	spin_unlock_irqrestore(&lock, on);
	if (!w.count)
		return NULL;
	struct ra_plan *p = plan_new(w.marker ? 2 * w.count : w.count);
	if (p)
		add_logical(p, f, &w);
	if (p && !p->n) {
		kfree(p);
		p = NULL;
	}
	return p;
}

void ra_waste(uint64_t entry)
{
	(void)entry;
	vmstat_inc(SWAP_RA_WASTE);
}
