/*
 * struct page: one descriptor per 4 KiB physical frame, for all RAM from
 * physical address 0 to the top of the highest RAM range.  It is the home
 * of everything the memory manager knows about a frame: buddy state while
 * free, LRU links and reverse-map pointers while in use.
 *
 * References (refcount; the page is freed when it drops to 0): each
 * present PTE, a shmem object slot, the swap cache, and anyone working on
 * the page (a fault, reclaim after isolating it, I/O) holds one.  LRU list
 * membership holds none.  mapcount counts the present PTEs.
 *
 * Locking: a free page belongs to the page allocator (pmm lock, or the
 * CPU list's lock while PG_PCP); the lru
 * field and PG_LRU/PG_ACTIVE belong to the LRU lock; flags change with
 * atomic bit operations (pmm.h); PG_LOCKED is the page lock, held across
 * I/O and while reclaim or a fault changes what the page is.
 */
#ifndef PAGE_H
#define PAGE_H

#include <stdint.h>
#include "lib/list.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)

enum page_flag {
	PG_RESERVED   = 1u << 0,   /* never handed out: firmware, kernel image, holes */
	PG_BUDDY      = 1u << 1,   /* head of a free buddy block; order in ->order */
	PG_SLAB       = 1u << 2,   /* kmalloc slab page; class in ->order */
	PG_LRU        = 1u << 3,   /* on an LRU list */
	PG_ACTIVE     = 1u << 4,
	PG_REFERENCED = 1u << 5,
	PG_DIRTY      = 1u << 6,
	PG_WRITEBACK  = 1u << 7,
	PG_LOCKED     = 1u << 8,
	PG_SWAPCACHE  = 1u << 9,
	PG_ANON       = 1u << 10,
	PG_SHMEM      = 1u << 11,
	PG_READAHEAD  = 1u << 12,  /* brought in by swap readahead, not yet used */
	PG_KERNEL     = 1u << 13,  /* allocated to the kernel (page tables, heap) */
	PG_HEAD       = 1u << 14,  /* first page of a multi-page allocation; order in ->order */
	PG_ERROR      = 1u << 15,  /* its swap read failed: the data is lost */
	PG_RA_MARK    = 1u << 16,  /* readahead marker: its first use starts the next window */
	PG_WORKINGSET = 1u << 17,  /* was on an active list (aged off it, or restored at refault) */
	/* A refault inside the working set (workingset.c): the page's first
	 * lru_add to a list of that kind puts it on the active list.  A shmem
	 * page read back sits on the anon list until its fault adopts it, so
	 * it is activated only then and never crowds the anon active list. */
	PG_ACTIVATE_ANON  = 1u << 18,
	PG_ACTIVATE_SHMEM = 1u << 19,
	PG_FILE       = 1u << 20,  /* in a page cache (vm/pagecache.c): mapping is the cache, index the page offset */
	PG_PCP        = 1u << 21,  /* free, on a CPU's free-page list (mem/pcp.h) */
	PG_RA_FILL    = 1u << 22,  /* read ahead only to fill a gap in a stream's window's slots
				    * (readahead.c): its first use feeds gap filling's feedback */
	PG_LRU_BATCH  = 1u << 23,  /* waiting in a CPU's LRU add batch (vm/lru_batch.c) to go on a list */
	PG_AGED       = 1u << 24,  /* looked at or passed over by a first look ahead of need (reclaim.c,
				    * age_ahead); reclaim's own look clears it */
	PG_AGE_REF    = 1u << 25,  /* that look found it referenced (and cleared the bits): reclaim gives
				    * it one more trip if it finds it unreferenced */
	PG_RA_LOOSE   = 1u << 26,  /* read ahead outside a stream (a slot or block window): its first use,
				    * or its reclaim unused, feeds the machine's verdict (ra_loose_pays) */
	PG_CODE       = 1u << 27,  /* mapped executable in user space: freed, it goes to the code
				    * frames (pmm.c), reused for code first and for anything else last */
	PG_CODE_FREE  = 1u << 28,  /* free, on the code frames' list (pmm.c) */
};

/* Lock tags: [A] atomic operations only; [B] the page allocator's lock
 * while free (PG_BUDDY); [S] the kmalloc heap lock (PG_SLAB); [L] the LRU
 * lock while PG_LRU; [P] the page lock (PG_LOCKED) plus the PTE's lock
 * (vm.h's mm_ptl) or shmem object lock to change; [C] the swap cache lock while
 * PG_SWAPCACHE.  kernel/vm/README.md has the lock order. */
struct page {
	uint32_t flags;         /* [A] enum page_flag */
	uint8_t order;          /* [B][S] buddy order (PG_BUDDY/PG_HEAD) or slab class (PG_SLAB) */
	uint8_t kind;           /* [L] LRU kind when PG_LRU */
	uint16_t inuse;         /* [S] slab: objects handed out */
	int32_t refcount;       /* [A] 0 when free */
	int32_t mapcount;       /* [A] page-table entries mapping this frame */
	struct list_node lru;   /* [B][L][S] buddy or per-CPU free list, LRU list or slab list */
	void *mapping;          /* [P] anon owner, shmem object, page cache; [S] slab cache */
	uint64_t index;         /* [P] offset within mapping, or user address */
	uint64_t private;       /* [C] swap entry while in the swap cache; [S] slab free list */
};

_Static_assert(sizeof(struct page) <= 64, "struct page should fit one cache line");

#endif
