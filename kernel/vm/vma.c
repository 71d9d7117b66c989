/*
 * Sorted-array VMA set.
 *
 * Invariants: v[0..n) sorted by start, pairwise disjoint, every area page
 * aligned and non-empty; no two adjacent areas are mergeable (same prot,
 * flags, object and contiguous pgoff, touching).  Every operation restores
 * them before returning, also on error (failures happen before changes).
 * o[0..on) holds one entry per area with an object, sorted by (obj,
 * pgoff, start); the areas' arrays change only in insert_at, remove_at
 * and vma_remove's run removal, which keep it so.
 */
#include <string.h>
#include "vma.h"
#include "lib/errno.h"

void vma_set_init(struct vma_set *s, void *(*alloc)(size_t), void (*free)(void *))
{
	s->v = NULL;
	s->n = s->cap = 0;
	s->o = NULL;
	s->on = 0;
	s->o_max_pages = 0;
	s->alloc = alloc;
	s->free = free;
	s->obj_get = NULL;
	s->obj_put = NULL;
	s->owner = NULL;
}

void vma_set_destroy(struct vma_set *s)
{
	if (s->v)
		s->free(s->v);
	if (s->o)
		s->free(s->o);
	s->v = NULL;
	s->o = NULL;
	s->n = s->cap = s->on = 0;
	s->o_max_pages = 0;
}

uint32_t vma_lower_bound(const struct vma_set *s, uint64_t addr)
{
	uint32_t lo = 0, hi = s->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int vma_find(const struct vma_set *s, uint64_t addr)
{
	uint32_t i = vma_lower_bound(s, addr);
	return i < s->n && s->v[i].start <= addr ? (int)i : -1;
}

static int reserve(struct vma_set *s, uint32_t extra)
{
	if (s->n + extra <= s->cap)
		return 0;
	/* Half as much again each time: the sizes stay under the 4 MiB the
	 * page allocator gives at once up to 52597 areas (doubling stopped at
	 * 32768, the next size being 4.7 MB). */
	uint32_t cap = s->cap ? s->cap + s->cap / 2 : 16;
	while (cap < s->n + extra)
		cap += cap / 2;
	struct vma *nv = s->alloc(cap * sizeof *nv);
	if (!nv)
		return -ENOMEM;
	struct vma_oref *no = s->alloc(cap * sizeof *no);
	if (!no) {
		s->free(nv);
		return -ENOMEM;
	}
	if (s->v) {
		memcpy(nv, s->v, s->n * sizeof *nv);
		s->free(s->v);
	}
	if (s->o) {
		memcpy(no, s->o, s->on * sizeof *no);
		s->free(s->o);
	}
	s->v = nv;
	s->o = no;
	s->cap = cap;
	return 0;
}

static int oref_cmp(const void *obj, uint64_t pgoff, uint64_t start, const struct vma_oref *e)
{
	if (obj != e->obj)
		return (uintptr_t)obj < (uintptr_t)e->obj ? -1 : 1;
	if (pgoff != e->pgoff)
		return pgoff < e->pgoff ? -1 : 1;
	return start < e->start ? -1 : start > e->start;
}

/* Index of the first entry not below (obj, pgoff, start). */
static uint32_t oref_lower_bound(const struct vma_set *s, const void *obj, uint64_t pgoff, uint64_t start)
{
	uint32_t lo = 0, hi = s->on;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (oref_cmp(obj, pgoff, start, &s->o[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void oref_grow(struct vma_set *s, const struct vma *v)
{
	uint64_t pages = (v->end - v->start) / VMA_PAGE;
	if (pages > s->o_max_pages)
		s->o_max_pages = pages;
}

/* The index has room: it never holds more entries than the areas' array. */
static void oref_add(struct vma_set *s, const struct vma *v)
{
	uint32_t i = oref_lower_bound(s, v->obj, v->pgoff, v->start);
	memmove(&s->o[i + 1], &s->o[i], (s->on - i) * sizeof s->o[0]);
	s->o[i] = (struct vma_oref){ v->obj, v->pgoff, v->start };
	s->on++;
	oref_grow(s, v);
}

static void oref_del(struct vma_set *s, const struct vma *v)
{
	uint32_t i = oref_lower_bound(s, v->obj, v->pgoff, v->start);
	if (i < s->on && !oref_cmp(v->obj, v->pgoff, v->start, &s->o[i])) {
		memmove(&s->o[i], &s->o[i + 1], (s->on - i - 1) * sizeof s->o[0]);
		s->on--;
	}
	if (!s->on)
		s->o_max_pages = 0;
}

void vma_for_each_on(const struct vma_set *s, const void *obj, uint64_t idx,
		     void (*fn)(const struct vma *v, void *ctx), void *ctx)
{
	if (!obj)
		return;
	/* Entries of obj with pgoff <= idx end just below k; none of those
	 * whose pgoff is o_max_pages or more below idx can reach it. */
	uint32_t k = oref_lower_bound(s, obj, idx, UINT64_MAX);
	while (k > 0) {
		const struct vma_oref *e = &s->o[--k];
		if (e->obj != obj || idx - e->pgoff >= s->o_max_pages)
			break;
		int i = vma_find(s, e->start);
		if (i < 0)
			continue;       /* cannot happen: every entry has its area */
		const struct vma *v = &s->v[i];
		if (idx < v->pgoff + (v->end - v->start) / VMA_PAGE)
			fn(v, ctx);
	}
}

static bool mergeable(const struct vma *a, const struct vma *b)
{
	/* Stacks and image segments keep their identity. */
	uint32_t keep = VM_STACK | VM_IMAGE;
	return a->end == b->start && a->prot == b->prot && a->flags == b->flags && !(a->flags & keep) &&
	       a->obj == b->obj && (!a->obj || a->pgoff + (a->end - a->start) / VMA_PAGE == b->pgoff);
}

static void remove_at(struct vma_set *s, uint32_t i)
{
	if (s->v[i].obj)
		oref_del(s, &s->v[i]);
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof s->v[0]);
	s->n--;
}

static void insert_at(struct vma_set *s, uint32_t i, const struct vma *v)
{
	memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof s->v[0]);
	s->v[i] = *v;
	s->n++;
	if (v->obj)
		oref_add(s, v);
}

/* Merge v[i] with its neighbours where possible. */
static void drop_obj(struct vma_set *s, struct vma *v)
{
	if (v->obj && s->obj_put)
		s->obj_put(s->owner, v->obj);
}

static void merge_around(struct vma_set *s, uint32_t i)
{
	if (i + 1 < s->n && mergeable(&s->v[i], &s->v[i + 1])) {
		s->v[i].end = s->v[i + 1].end;
		drop_obj(s, &s->v[i + 1]);
		remove_at(s, i + 1);
		if (s->v[i].obj)
			oref_grow(s, &s->v[i]);
	}
	if (i > 0 && mergeable(&s->v[i - 1], &s->v[i])) {
		s->v[i - 1].end = s->v[i].end;
		drop_obj(s, &s->v[i]);
		remove_at(s, i);
		if (s->v[i - 1].obj)
			oref_grow(s, &s->v[i - 1]);
	}
}

bool vma_range_free(const struct vma_set *s, uint64_t start, uint64_t end)
{
	uint32_t i = vma_lower_bound(s, start);
	return i == s->n || s->v[i].start >= end;
}

/* How many areas [start, end)'s ends fall strictly inside (0-2), and,
 * when same is given, whether both fall inside one area (cutting a hole
 * adds an area). */
static uint32_t splits(const struct vma_set *s, uint64_t start, uint64_t end, bool *same)
{
	int a = vma_find(s, start), b = vma_find(s, end);
	bool sa = a >= 0 && s->v[a].start < start, sb = b >= 0 && s->v[b].start < end;
	if (same)
		*same = sa && sb && a == b;
	return (uint32_t)sa + (uint32_t)sb;
}

int vma_insert(struct vma_set *s, const struct vma *v)
{
	if (v->start >= v->end || (v->start | v->end) & (VMA_PAGE - 1))
		return -EINVAL;
	if (!vma_range_free(s, v->start, v->end))
		return -EEXIST;
	if (s->n >= VMA_MAX_COUNT || reserve(s, 1))
		return -ENOMEM;
	uint32_t i = vma_lower_bound(s, v->start);
	insert_at(s, i, v);
	merge_around(s, i);
	return 0;
}

/* Split so that no area straddles addr.  Needs one free slot. */
static void split_at(struct vma_set *s, uint64_t addr)
{
	int i = vma_find(s, addr);
	if (i < 0 || s->v[i].start == addr)
		return;
	struct vma right = s->v[i];
	right.start = addr;
	if (right.obj) {
		right.pgoff += (addr - s->v[i].start) / VMA_PAGE;
		if (s->obj_get)
			s->obj_get(s->owner, right.obj);
	}
	s->v[i].end = addr;
	insert_at(s, (uint32_t)i + 1, &right);
}

static int check_range(uint64_t start, uint64_t end)
{
	return (start >= end || (start | end) & (VMA_PAGE - 1)) ? -EINVAL : 0;
}

int vma_remove(struct vma_set *s, uint64_t start, uint64_t end, vma_piece_fn fn, void *ctx)
{
	if (check_range(start, end))
		return -EINVAL;
	/* Room only for the splits it makes: with none, removing never
	 * fails (a program at its limit could unmap nothing). */
	bool same;
	uint32_t need = splits(s, start, end, &same);
	if ((same && s->n >= VMA_MAX_COUNT) || reserve(s, need))
		return -ENOMEM;
	split_at(s, start);
	split_at(s, end);
	/* One move for the whole run of areas: removing them one at a time
	 * moved the areas above once each (an munmap over 32763 areas took
	 * 87 s under TCG). */
	uint32_t i = vma_lower_bound(s, start), j = i, objs = 0, with_obj = 0;
	for (; j < s->n && s->v[j].start < end; j++) {
		if (s->v[j].obj)
			objs++, with_obj = j;
		if (fn)
			fn(ctx, &s->v[j]);
	}
	/* Their index entries: one search for one, one pass for more (the
	 * areas of [start, end) are exactly those starting in it). */
	if (objs == 1) {
		oref_del(s, &s->v[with_obj]);
	} else if (objs > 1) {
		uint32_t kept = 0;
		for (uint32_t k = 0; k < s->on; k++)
			if (s->o[k].start < start || s->o[k].start >= end)
				s->o[kept++] = s->o[k];
		s->on = kept;
		if (!kept)
			s->o_max_pages = 0;
	}
	if (j > i)
		memmove(&s->v[i], &s->v[j], (s->n - j) * sizeof s->v[0]);
	s->n -= j - i;
	return 0;
}

static bool fully_mapped(const struct vma_set *s, uint64_t start, uint64_t end)
{
	uint64_t at = start;
	for (uint32_t i = vma_lower_bound(s, start); i < s->n && at < end; i++) {
		if (s->v[i].start > at)
			return false;
		at = s->v[i].end;
	}
	return at >= end;
}

/* Split at both ends, apply change() to each area inside, re-merge. */
static int modify(struct vma_set *s, uint64_t start, uint64_t end,
		  void (*change)(struct vma *, const void *), const void *how, vma_piece_fn fn, void *ctx)
{
	if (check_range(start, end))
		return -EINVAL;
	if (!fully_mapped(s, start, end))
		return -ENOMEM;
	uint32_t need = splits(s, start, end, NULL);
	if (s->n + need > VMA_MAX_COUNT || reserve(s, need))
		return -ENOMEM;
	split_at(s, start);
	split_at(s, end);
	uint32_t first = vma_lower_bound(s, start), i;
	for (i = first; i < s->n && s->v[i].start < end; i++) {
		if (fn)
			fn(ctx, &s->v[i]);
		change(&s->v[i], how);
	}
	/* Re-merge from the right so indices below stay valid. */
	uint32_t last = i < s->n ? i : s->n - 1;
	for (int k = (int)last; k >= (int)first && k >= 0; k--)
		if ((uint32_t)k < s->n)
			merge_around(s, (uint32_t)k);
	return 0;
}

static void set_prot(struct vma *v, const void *how) { v->prot = *(const uint32_t *)how; }

int vma_protect(struct vma_set *s, uint64_t start, uint64_t end, uint32_t prot, vma_piece_fn fn, void *ctx)
{
	return modify(s, start, end, set_prot, &prot, fn, ctx);
}

struct flag_change { uint32_t set, clear; };

static void change_flags(struct vma *v, const void *how)
{
	const struct flag_change *c = how;
	v->flags = (v->flags | c->set) & ~c->clear;
}

int vma_set_flags(struct vma_set *s, uint64_t start, uint64_t end, uint32_t set, uint32_t clear)
{
	struct flag_change c = { set, clear };
	return modify(s, start, end, change_flags, &c, NULL, NULL);
}

uint64_t vma_find_gap(const struct vma_set *s, uint64_t len, uint64_t lo, uint64_t hi)
{
	if (!len || lo >= hi || len > hi - lo)
		return 0;
	/* Areas [0, k) start below hi; walk the gaps between them top-down. */
	uint32_t k = vma_lower_bound(s, hi);
	if (k < s->n && s->v[k].start < hi)
		k++;
	uint64_t gap_end = hi;
	for (int i = (int)k - 1;; i--) {
		uint64_t gap_start = i >= 0 && s->v[i].end > lo ? s->v[i].end : lo;
		if (gap_end > gap_start && gap_end - gap_start >= len)
			return gap_end - len;
		if (i < 0)
			return 0;
		if (s->v[i].start < gap_end)
			gap_end = s->v[i].start;
		if (gap_end <= lo)
			return 0;
	}
}
