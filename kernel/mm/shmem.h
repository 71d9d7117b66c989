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
#include "proc/spinlock.h"

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
	uint64_t *slots;                /* struct page * or swap entry (bit 0 set) */
	struct list_node mappers;       /* struct shmem_mapper */
	uint32_t refs;                  /* VMAs referring to the object, all mms */
	uint64_t resident;
	struct list_node all;           /* every live object */
};

struct shmem *shmem_create(uint64_t npages);
/* VMA reference hooks (struct vma_set obj_get/obj_put): owner is the mm. */
void shmem_get(void *owner, void *obj);
void shmem_put(void *owner, void *obj);

/* The page at idx, allocating a zeroed one on first use.  Returns NULL
 * when memory is exhausted.  *fresh: it was just created.  May sleep. */
struct page *shmem_get_page(struct shmem *s, uint64_t idx, bool *fresh);

/* Call fn for every mm mapping s (reverse map); s->lock held during. */
void shmem_for_each_mapper(struct shmem *s, void (*fn)(struct mm *mm, void *ctx), void *ctx);
uint64_t shmem_total_resident(void);

#endif
