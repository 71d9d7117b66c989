/*
 * The page cache's index: page offset -> pointer, a radix tree of 64-way
 * nodes (Linux's xarray with one mark).  Pure: nodes come from the
 * caller's allocator, so host tests build the real file.
 *
 * Size follows what it holds, never the device: a tree is only as tall as
 * its largest index needs (6 levels cover 2^36 pages, a 256 TiB disk) and
 * holds a node only on the path to a present entry; deleting the last
 * entry below a node frees it, and the root shrinks when only its first
 * slot is left.  Empty: no node at all.
 *
 * Value entries (Linux's xa_mk_value): an entry whose bit 0 is set is a
 * word, not a pointer (pointers stored here are at least 2-aligned).  The
 * page cache keeps workingset shadows of evicted pages so, in the slot the
 * page left; the tree counts them apart (`values`) and treats them like
 * any entry otherwise.
 *
 * One tag per entry (Linux's xarray mark; the page cache's: dirty): each
 * node keeps a bit per slot, set for a tagged entry in a leaf and, above,
 * for a child with any tag below it, so the next tagged entry is found
 * without visiting untagged ones (a write-back pass costs what is dirty,
 * not what is cached).  An entry is stored untagged, replace leaves the
 * new entry untagged, and del drops the tag with the entry.
 *
 * Locking: none here; the owner (pagecache.c) holds its cache lock.
 */
#ifndef PAGECACHE_IDX_H
#define PAGECACHE_IDX_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define PAGECACHE_IDX_SHIFT 6
#define PAGECACHE_IDX_FANOUT (1u << PAGECACHE_IDX_SHIFT)

struct pagecache_idx_node {
	void *slot[PAGECACHE_IDX_FANOUT];
	uint64_t tag;                   /* bit s: slot s tagged (leaf), or tags below it */
	uint32_t count;                 /* non-NULL slots */
};

struct pagecache_idx {
	struct pagecache_idx_node *root;
	unsigned height;                /* levels; 0: empty, root NULL */
	uint64_t entries;               /* values included */
	uint64_t values;                /* entries with bit 0 set */
	uint64_t tagged;                /* tagged entries */
	uint64_t nodes;
	void *(*alloc)(size_t);         /* zeroed memory or NULL; never sleeps under the owner's lock */
	void (*free)(void *);
};

static inline bool pagecache_idx_is_value(const void *e) { return (uintptr_t)e & 1; }

/* The entry at index i, or NULL. */
void *pagecache_idx_get(const struct pagecache_idx *x, uint64_t i);
/* Store v (non-NULL) at an empty index i: 0, -EEXIST, -ENOMEM (nothing
 * changed). */
int pagecache_idx_set(struct pagecache_idx *x, uint64_t i, void *v);
/* Put v (non-NULL) in place of the entry at i and return that entry;
 * NULL (nothing changed) when i is empty.  Never allocates. */
void *pagecache_idx_replace(struct pagecache_idx *x, uint64_t i, void *v);
/* Remove and return the entry at i (NULL if none); frees empty nodes. */
void *pagecache_idx_del(struct pagecache_idx *x, uint64_t i);
/* The first entry at an index >= from (its index in *at), or NULL. */
void *pagecache_idx_next(const struct pagecache_idx *x, uint64_t from, uint64_t *at);
/* Tag the entry at i if it is v (any entry: v NULL): false (nothing
 * changed) when it is not. */
bool pagecache_idx_tag_set(struct pagecache_idx *x, uint64_t i, const void *v);
/* Untag the entry at i if it is v (any: v NULL); nothing when it is not,
 * or is untagged. */
void pagecache_idx_tag_clear(struct pagecache_idx *x, uint64_t i, const void *v);
bool pagecache_idx_tag_get(const struct pagecache_idx *x, uint64_t i);
/* The first tagged entry at an index >= from (its index in *at), or NULL. */
void *pagecache_idx_next_tagged(const struct pagecache_idx *x, uint64_t from, uint64_t *at);
/* Invariants (counts, tags, no empty node kept); 0 or a negative line
 * number. */
int pagecache_idx_check(const struct pagecache_idx *x);

#endif
