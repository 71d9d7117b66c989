/*
 * Radix tree of the page cache (pagecache_idx.h).  Level L of a tree of
 * height H uses bits [6*(H-1-L), 6*(H-L)) of the index; leaves (the
 * last level) hold the entries themselves.
 */
#include "pagecache_idx.h"
#include "lib/errno.h"

#define MAX_HEIGHT 11                   /* 66 bits: every uint64_t index */
#define MASK (PAGECACHE_IDX_FANOUT - 1)

static unsigned slot_of(uint64_t i, unsigned level_shift) { return (unsigned)(i >> level_shift) & MASK; }

/* Indices a tree of height h can hold: [0, 2^(6h)). */
static int fits(uint64_t i, unsigned h)
{
	return h * PAGECACHE_IDX_SHIFT >= 64 || (i >> (h * PAGECACHE_IDX_SHIFT)) == 0;
}

void *pagecache_idx_get(const struct pagecache_idx *x, uint64_t i)
{
	if (!x->height || !fits(i, x->height))
		return NULL;
	void *n = x->root;
	for (unsigned h = x->height; h && n; h--)
		n = ((struct pagecache_idx_node *)n)->slot[slot_of(i, (h - 1) * PAGECACHE_IDX_SHIFT)];
	return n;
}

static struct pagecache_idx_node *node_new(struct pagecache_idx *x)
{
	struct pagecache_idx_node *n = x->alloc(sizeof *n);
	if (n)
		x->nodes++;
	return n;
}

static void node_free(struct pagecache_idx *x, struct pagecache_idx_node *n)
{
	x->free(n);
	x->nodes--;
}

/* Grow until index i fits.  An empty tree gets one root at the height i
 * needs; a tree that holds entries gets new roots taking the old root as
 * slot 0 (a non-empty tree never has an empty node). */
static int grow(struct pagecache_idx *x, uint64_t i)
{
	if (!x->height) {
		unsigned h = 1;
		while (!fits(i, h))
			h++;
		if (!(x->root = node_new(x)))
			return -ENOMEM;
		x->height = h;
		return 0;
	}
	while (!fits(i, x->height)) {
		struct pagecache_idx_node *n = node_new(x);
		if (!n)
			return -ENOMEM;
		n->slot[0] = x->root;
		n->count = 1;
		n->tag = x->root->tag != 0;
		x->root = n;
		x->height++;
	}
	return 0;
}

/* Drop an empty root, and root levels that hold only slot 0. */
static void shrink(struct pagecache_idx *x)
{
	for (;;) {
		if (x->height && x->root->count == 0) {
			node_free(x, x->root);
			x->root = NULL;
			x->height = 0;
		} else if (x->height > 1 && x->root->count == 1 && x->root->slot[0]) {
			struct pagecache_idx_node *old = x->root;
			x->root = old->slot[0];
			x->height--;
			node_free(x, old);
		} else {
			return;
		}
	}
}

int pagecache_idx_set(struct pagecache_idx *x, uint64_t i, void *v)
{
	struct pagecache_idx_node *path[MAX_HEIGHT];
	unsigned depth = 0;
	if (grow(x, i))
		return shrink(x), -ENOMEM;
	struct pagecache_idx_node *n = x->root;
	for (unsigned h = x->height; h > 1; h--) {
		unsigned s = slot_of(i, (h - 1) * PAGECACHE_IDX_SHIFT);
		path[depth++] = n;
		if (!n->slot[s]) {
			struct pagecache_idx_node *c = node_new(x);
			if (!c)
				goto undo;
			n->slot[s] = c;
			n->count++;
		}
		n = n->slot[s];
	}
	unsigned s = slot_of(i, 0);
	if (n->slot[s])
		return -EEXIST;         /* the path existed: nothing was added */
	n->slot[s] = v;
	n->count++;
	x->entries++;
	x->values += pagecache_idx_is_value(v);
	return 0;
undo:
	/* Free the nodes made empty on the way down (none of them holds
	 * anything yet), then the root levels grow() added. */
	while (depth--) {
		struct pagecache_idx_node *p = path[depth];
		unsigned ps = slot_of(i, (x->height - 1 - depth) * PAGECACHE_IDX_SHIFT);
		struct pagecache_idx_node *c = p->slot[ps];
		if (c && c->count == 0) {
			node_free(x, c);
			p->slot[ps] = NULL;
			p->count--;
		}
	}
	shrink(x);
	return -ENOMEM;
}

/* The nodes from the root down to the leaf holding index i, in path[];
 * the leaf, or NULL when the path is absent. */
static struct pagecache_idx_node *walk(const struct pagecache_idx *x, uint64_t i, struct pagecache_idx_node **path)
{
	if (!x->height || !fits(i, x->height))
		return NULL;
	struct pagecache_idx_node *n = x->root;
	for (unsigned h = x->height, d = 0; h > 1 && n; h--) {
		path[d++] = n;
		n = n->slot[slot_of(i, (h - 1) * PAGECACHE_IDX_SHIFT)];
	}
	return n;
}

/* Untag slot i of leaf n (walk's path above it), and the bits above
 * that no longer have a tag below them. */
static void untag(struct pagecache_idx *x, uint64_t i, struct pagecache_idx_node *n,
		  struct pagecache_idx_node **path)
{
	unsigned s = slot_of(i, 0);
	if (!(n->tag >> s & 1))
		return;
	n->tag &= ~(1ull << s);
	x->tagged--;
	for (unsigned d = x->height - 1; d-- && !n->tag;) {
		n = path[d];
		n->tag &= ~(1ull << slot_of(i, (x->height - 1 - d) * PAGECACHE_IDX_SHIFT));
	}
}

void *pagecache_idx_replace(struct pagecache_idx *x, uint64_t i, void *v)
{
	struct pagecache_idx_node *path[MAX_HEIGHT];
	struct pagecache_idx_node *n = walk(x, i, path);
	void **s = n ? &n->slot[slot_of(i, 0)] : NULL;
	void *old = s ? *s : NULL;
	if (!old)
		return NULL;
	untag(x, i, n, path);
	*s = v;
	x->values += (uint64_t)pagecache_idx_is_value(v) - (uint64_t)pagecache_idx_is_value(old);
	return old;
}

void *pagecache_idx_del(struct pagecache_idx *x, uint64_t i)
{
	struct pagecache_idx_node *path[MAX_HEIGHT];
	struct pagecache_idx_node *n = walk(x, i, path);
	if (!n || !n->slot[slot_of(i, 0)])
		return NULL;
	untag(x, i, n, path);
	unsigned depth = x->height - 1;
	void *v = n->slot[slot_of(i, 0)];
	n->slot[slot_of(i, 0)] = NULL;
	n->count--;
	x->entries--;
	x->values -= pagecache_idx_is_value(v);
	/* Free empty nodes bottom up; the root is left to shrink(). */
	while (n->count == 0 && depth) {
		struct pagecache_idx_node *p = path[--depth];
		unsigned ps = slot_of(i, (x->height - 1 - depth) * PAGECACHE_IDX_SHIFT);
		node_free(x, n);
		p->slot[ps] = NULL;
		p->count--;
		n = p;
	}
	shrink(x);
	return v;
}

bool pagecache_idx_tag_set(struct pagecache_idx *x, uint64_t i, const void *v)
{
	struct pagecache_idx_node *path[MAX_HEIGHT];
	struct pagecache_idx_node *n = walk(x, i, path);
	unsigned s = slot_of(i, 0);
	if (!n || !n->slot[s] || (v && n->slot[s] != v))
		return false;
	if (n->tag >> s & 1)
		return true;
	n->tag |= 1ull << s;
	x->tagged++;
	/* Up while the parent's bit for this child was clear. */
	for (unsigned d = x->height - 1; d--;) {
		unsigned ps = slot_of(i, (x->height - 1 - d) * PAGECACHE_IDX_SHIFT);
		if (path[d]->tag >> ps & 1)
			break;
		path[d]->tag |= 1ull << ps;
	}
	return true;
}

void pagecache_idx_tag_clear(struct pagecache_idx *x, uint64_t i, const void *v)
{
	struct pagecache_idx_node *path[MAX_HEIGHT];
	struct pagecache_idx_node *n = walk(x, i, path);
	if (n && (!v || n->slot[slot_of(i, 0)] == v))
		untag(x, i, n, path);
}

bool pagecache_idx_tag_get(const struct pagecache_idx *x, uint64_t i)
{
	struct pagecache_idx_node *path[MAX_HEIGHT];
	struct pagecache_idx_node *n = walk(x, i, path);
	return n && (n->tag >> slot_of(i, 0) & 1);
}

/* The first entry at an index >= from below node n (level shift `sh`,
 * covering indices from `base`); tagged: the first tagged one, looking
 * only where the tag bits lead. */
static void *next_in(const struct pagecache_idx_node *n, unsigned sh, uint64_t base, uint64_t from, uint64_t *at,
		     bool tagged)
{
	unsigned first = from > base ? slot_of(from, sh) : 0;
	for (uint64_t m = (tagged ? n->tag : ~0ull) & (~0ull << first); m; m &= m - 1) {
		unsigned s = (unsigned)__builtin_ctzll(m);
		void *c = n->slot[s];
		uint64_t cbase = base + ((uint64_t)s << sh);
		if (!c)
			continue;
		if (!sh) {
			*at = cbase;
			return c;
		}
		void *v = next_in(c, sh - PAGECACHE_IDX_SHIFT, cbase, from > cbase ? from : cbase, at, tagged);
		if (v)
			return v;
	}
	return NULL;
}

static void *next(const struct pagecache_idx *x, uint64_t from, uint64_t *at, bool tagged)
{
	if (!x->height || !fits(from, x->height))
		return NULL;
	return next_in(x->root, (x->height - 1) * PAGECACHE_IDX_SHIFT, 0, from, at, tagged);
}

void *pagecache_idx_next(const struct pagecache_idx *x, uint64_t from, uint64_t *at)
{
	return next(x, from, at, false);
}

void *pagecache_idx_next_tagged(const struct pagecache_idx *x, uint64_t from, uint64_t *at)
{
	return next(x, from, at, true);
}

/* Entries below n; -1 when a node (other than the root) is empty, a
 * count is wrong, or a tag bit disagrees with what is below it. */
static int64_t check_node(const struct pagecache_idx_node *n, unsigned h, uint64_t *nodes, uint64_t *values,
			  uint64_t *tagged)
{
	int64_t sum = 0;
	uint32_t used = 0;
	(*nodes)++;
	for (unsigned s = 0; s < PAGECACHE_IDX_FANOUT; s++) {
		bool bit = n->tag >> s & 1;
		if (!n->slot[s]) {
			if (bit)
				return -1;
			continue;
		}
		used++;
		if (h == 1) {
			*values += pagecache_idx_is_value(n->slot[s]);
			*tagged += bit;
		} else if (bit != (((const struct pagecache_idx_node *)n->slot[s])->tag != 0)) {
			return -1;
		}
		int64_t below = h > 1 ? check_node(n->slot[s], h - 1, nodes, values, tagged) : 1;
		if (below <= 0)
			return -1;
		sum += below;
	}
	return used == n->count ? sum : -1;
}

int pagecache_idx_check(const struct pagecache_idx *x)
{
	if (!x->height)
		return x->root || x->entries || x->values || x->nodes || x->tagged ? -__LINE__ : 0;
	uint64_t nodes = 0, values = 0, tagged = 0;
	int64_t n = check_node(x->root, x->height, &nodes, &values, &tagged);
	if (n < 0 || (uint64_t)n != x->entries)
		return -__LINE__;
	if (nodes != x->nodes || values != x->values || tagged != x->tagged)
		return -__LINE__;
	if (x->height > 1 && x->root->count == 1 && x->root->slot[0])
		return -__LINE__;               /* should have shrunk */
	return 0;
}
