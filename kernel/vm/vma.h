/*
 * Virtual memory areas of one address space: a sorted array of disjoint
 * [start, end) ranges with protections and backing.  Pure code (the caller
 * supplies the allocator), unit-tested on the host.
 *
 * Lookup is a binary search, O(log n).  Insert and removal move array
 * entries, O(n); address spaces here hold tens of areas, and adjacent
 * anonymous areas with equal attributes merge, so even `fill`'s thousands
 * of 1 MiB mmaps collapse into a handful.
 *
 * The reverse map asks the other way round: which areas map page idx of
 * an object (a shmem object or a page cache)?  A second sorted array
 * answers that, one entry per area with an object, ordered by (object,
 * pgoff, start): a binary search, then the entries of that object whose
 * pgoff lies within the longest such area's length below idx (many areas
 * of one object at nearby offsets beside one long one make that a longer
 * scan).  Before it the walk went through every area of the address
 * space, under the page-table lock with interrupts off, for every page
 * reclaim looked at: paging out 24 MiB of shmem beside 30000 one-page
 * areas held that lock 1.70 s (6153 holds over 100 us; -icount exact);
 * with the index 46 ms (9).
 *
 * The owner (struct mm) serialises all calls with its lock.
 */
#ifndef VMA_H
#define VMA_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define VMA_PAGE 4096ull
/* Areas per address space, as Linux's vm.max_map_count default: an mmap,
 * mprotect or munmap that would make more fails with -ENOMEM (the array
 * is 72 bytes an area, and inserting is a move of the areas above).  The
 * array itself stops growing at 52597 areas (3.8 MB; the next size is
 * past the 4 MiB the page allocator gives at once), so in the kernel that
 * comes first. */
#define VMA_MAX_COUNT 65530

enum vma_prot { VM_READ = 1, VM_WRITE = 2, VM_EXEC = 4 };
enum vma_flags {
	VM_SHARED = 1u << 0,    /* MAP_SHARED: backed by a shmem object */
	VM_STACK  = 1u << 1,    /* the main thread's stack */
	VM_HEAP   = 1u << 2,    /* brk area */
	VM_IMAGE  = 1u << 3,    /* loaded from the executable */
	VM_RANDOM = 1u << 4,    /* madvise(MADV_RANDOM) */
	VM_SEQ    = 1u << 5,    /* madvise(MADV_SEQUENTIAL) */
	VM_FILE   = 1u << 6,    /* a block device mapped: obj is its page cache (vm/pagecache.h), pgoff a disk page */
	VM_FSHARED = 1u << 7,   /* with VM_FILE: MAP_SHARED (writes reach the cache); without: MAP_PRIVATE (copy on write) */
	VM_ACCOUNT = 1u << 8,   /* private and charged against overcommit (mmap writable, brk, mprotect to writable) */
	VM_NORESERVE = 1u << 9, /* MAP_NORESERVE: never charged */
};

struct vma {
	uint64_t start, end;    /* page aligned, start < end */
	uint32_t prot;          /* enum vma_prot */
	uint32_t flags;         /* enum vma_flags */
	void *obj;              /* shmem object when VM_SHARED, page cache when VM_FILE, else NULL */
	uint64_t pgoff;         /* page offset of start within obj */
	uint64_t ra_state[2];   /* per-area readahead state (swap readahead: RA_VSTATE_WORDS) */
	uint32_t mmap_miss;     /* VM_FILE: page-cache misses less hits of its faults (pagecache_mmap_miss) */
	uint64_t mmap_last;     /* VM_FILE: the page of its last miss */
};

/* An area with an object, in the object index.  An area's start and
 * pgoff never change while it exists (a split makes a new right part, a
 * merge grows the left one), so an entry only comes and goes. */
struct vma_oref {
	const void *obj;
	uint64_t pgoff, start;
};

struct vma_set {
	struct vma *v;
	uint32_t n, cap;
	struct vma_oref *o;     /* object index, cap entries, on in use */
	uint32_t on;
	uint64_t o_max_pages;   /* no area with an object is longer (grows only; 0 when on is) */
	void *(*alloc)(size_t);
	void (*free)(void *);
	/* Object references follow the areas: a split takes one more, a
	 * merge drops one (NULL hooks: objects are not counted). */
	void (*obj_get)(void *owner, void *obj);
	void (*obj_put)(void *owner, void *obj);
	void *owner;            /* passed to the hooks (the struct mm) */
};

void vma_set_init(struct vma_set *s, void *(*alloc)(size_t), void (*free)(void *));
void vma_set_destroy(struct vma_set *s);

/* Index of the area containing addr, or -1. */
int vma_find(const struct vma_set *s, uint64_t addr);
/* Index of the first area with end > addr, or n. */
uint32_t vma_lower_bound(const struct vma_set *s, uint64_t addr);

/* Add an area; it must not overlap any other (-EEXIST), and gets merged
 * with compatible neighbours.  -ENOMEM when the array cannot grow. */
int vma_insert(struct vma_set *s, const struct vma *v);

/* Called for every piece [start, end) of an area that a removal or
 * protection change affects, before the change. */
typedef void (*vma_piece_fn)(void *ctx, const struct vma *piece);

/* Remove [start, end), splitting areas that straddle it.  fn gets each
 * removed piece and owns its object reference from then on. */
int vma_remove(struct vma_set *s, uint64_t start, uint64_t end, vma_piece_fn fn, void *ctx);
/* Set prot on [start, end); every page in it must be mapped (-ENOMEM). */
int vma_protect(struct vma_set *s, uint64_t start, uint64_t end, uint32_t prot, vma_piece_fn fn, void *ctx);
/* OR/clear flags on [start, end) (madvise), splitting as needed. */
int vma_set_flags(struct vma_set *s, uint64_t start, uint64_t end, uint32_t set, uint32_t clear);

/* fn(area, ctx) for every area on obj whose range covers page idx of
 * obj (order unspecified).  fn must not change the set. */
void vma_for_each_on(const struct vma_set *s, const void *obj, uint64_t idx,
		     void (*fn)(const struct vma *v, void *ctx), void *ctx);

/* Highest free gap of len bytes within [lo, hi), below hint if hint is
 * free-able, else anywhere (top-down).  Returns 0 when none. */
uint64_t vma_find_gap(const struct vma_set *s, uint64_t len, uint64_t lo, uint64_t hi);
/* Is [start, end) entirely free? */
bool vma_range_free(const struct vma_set *s, uint64_t start, uint64_t end);

#endif
