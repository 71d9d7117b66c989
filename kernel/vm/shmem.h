/*
 * Shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS): an object of npages
 * slots that several mappings share, so every mapper sees one frame per
 * page.  A slot holds nothing, a resident page, or (once swap exists) a
 * swap entry.  The object's mapper list is the reverse map from its pages
 * to the address spaces that may map them.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/list.h"
#include "core/spinlock.h"

struct page;
struct mm;

struct shmem_mapper {
	struct list_node link;
	struct mm *mm;
	uint32_t areas;                 /* VMAs of mm referring to the object */
};

struct shmem {
	struct spinlock lock;           /* guards slots, mappers, refs, resident */
	uint64_t npages;
	uint64_t **slots;               /* leaves of 512: struct page * or swap entry (bit 0 set) */
	struct list_node mappers;       /* struct shmem_mapper */
	uint32_t refs;                  /* VMAs referring to the object, all mms */
	uint64_t resident;
	uint64_t charged;               /* pages charged against overcommit (vm/commit.h), given back at its end */
	struct list_node all;           /* every live object */
	void *ra;                       /* readahead policy state (readahead.c) */
	struct spinlock ra_lock;        /* guards *ra (readahead.c) */
};

struct shmem *shmem_create(uint64_t npages);
/* VMA reference hooks (struct vma_set obj_get/obj_put): owner is the mm. */
void shmem_get(void *owner, void *obj);
void shmem_put(void *owner, void *obj);

/* Make room for a first store at idx (its leaf); -ENOMEM.  An empty
 * slot needs this before shmem_slot_replace(s, idx, 0, p). */
int shmem_slot_prepare(struct shmem *s, uint64_t idx);
/* The first index at or past idx whose leaf exists (npages if none):
 * walks over the slots skip what was never used. */
uint64_t shmem_next_leaf(struct shmem *s, uint64_t idx);
/* What slot idx holds: 0, a swap entry, or a page (returned with a new
 * reference). */
uint64_t shmem_slot_get(struct shmem *s, uint64_t idx);
/* The swap entry slot idx holds, or 0 (empty, a page, out of range). */
uint64_t shmem_slot_peek(struct shmem *s, uint64_t idx);
/* Whether slot idx holds val (0, a swap entry or a page) right now. */
bool shmem_slot_holds(struct shmem *s, uint64_t idx, uint64_t val);
/* Replace slot idx's `old` value (0 or a swap entry) by page p, which
 * gains the slot's reference; or a page by a swap entry (p = NULL, then
 * `entry` is stored and the slot's page reference passes to the caller).
 * False when the slot no longer holds `old`. */
bool shmem_slot_replace(struct shmem *s, uint64_t idx, uint64_t old, struct page *p);
bool shmem_slot_to_swap(struct shmem *s, uint64_t idx, struct page *p, uint64_t entry);


/* Call fn for every mm mapping s (reverse map); s->lock held during. */
void shmem_for_each_mapper(struct shmem *s, void (*fn)(struct mm *mm, void *ctx), void *ctx);
uint64_t shmem_total_resident(void);
/* fn(s) for every live object, 64 at a time without the list lock held.
 * The caller holds reclaim_lock: no object is destroyed meanwhile, so the
 * batches cover every one. */
void shmem_for_each_object(void (*fn)(struct shmem *s, void *ctx), void *ctx);

#endif
