/*
 * Swap slot allocation: which page slot of which swap area a page goes to
 * (Linux mm/swapfile.c, simplified but the same model).  Pure code: the
 * caller supplies the allocator that holds the maps, and serialises every
 * call with its swap lock; unit-tested and fuzzed on the host.
 *
 * An AREA is nslots page slots; slot 0 is the swap header and the mkswap
 * bad pages are excluded.  Each slot has a reference count (swap_map): 0 is
 * free, every PTE, shmem slot or swap-cache page holding the entry counts
 * one.  Slots are grouped in CLUSTERS of a power-of-two number of contiguous
 * slots; reclaim fills one cluster after another, so a batch of pages becomes
 * a few long RUNS of contiguous slots and one write per run.  Areas carry
 * priorities: higher first, equal ones take turns cluster by cluster.
 *
 * Each CPU has its own current cluster in every area (Linux's
 * percpu_cluster): CPUs swapping out at once fill different clusters, so
 * each one's batches stay sequential on the disk instead of interleaving
 * slot by slot.  The pool is told how many CPUs there are before any area
 * is added; one CPU is the classic single-cursor allocator.
 *
 * A swap ENTRY names a slot in one 64-bit word:
 *
 *   bit  0       1: "this is a swap entry" tag, so an entry is never 0 and
 *                never looks like a (8-byte aligned) struct page pointer
 *   bits 1..5    area index (0..SWAP_MAX_AREAS-1; 5 bits as in Linux's
 *                MAX_SWAPFILES_SHIFT, room to grow)
 *   bits 6..57   page offset within the area (< 2^32 in practice: mkswap's
 *                last_page is 32 bits)
 *   bits 58..63  0
 *
 * This packed form is stored as is in shmem slots.  It is not a PTE: bit 0
 * of an x86-64 PTE is Present, so the page-table module, the only one that
 * knows PTE bits, stores it shifted (e.g. pte = entry << 1: Present clear,
 * tag in bit 1, still clear of NX in bit 63).
 */
#ifndef SWAPALLOC_H
#define SWAPALLOC_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define SWAP_MAX_AREAS          8
#define SWAP_MAX_SLOTS          (1ull << 32)    /* mkswap: last_page is a u32 */
/* Slots per cluster.  256 (1 MiB) is Linux's SWAPFILE_CLUSTER since 2.2;
 * seed 004 (Zlatko, 1999) measured 512 against 128 KiB chunks on hogmem and
 * got 3x under thrashing; both are run here, hence a per-area knob. */
#define SWAP_CLUSTER_DEFAULT    256
#define SWAP_CLUSTER_MIN        8
#define SWAP_CLUSTER_MAX        65536

/* swap_map values */
#define SWAP_MAP_BAD            0xffffu /* header, mkswap bad page or retired */
#define SWAP_MAP_RETIRED        0x8000u /* flag: becomes BAD when the count drops to 0 */
/* flag: with a count, allocated but holding no data yet (swapalloc_settle
 * clears it: Linux's SWAP_HAS_CACHE at allocation); alone (count 0),
 * PENDING: the last count went (swapalloc_put) and the slot waits for
 * swapalloc_release to be free again. */
#define SWAP_MAP_FRESH          0x4000u
#define SWAP_MAP_PENDING        SWAP_MAP_FRESH
#define SWAP_MAP_COUNT          0x3fffu /* mask of the reference count */
#define SWAP_MAP_MAX            0x3ffeu /* highest count (all bits set is BAD) */

#define SWP_TAG                 1ull
#define SWP_AREA_SHIFT          1
#define SWP_AREA_BITS           5
#define SWP_OFF_SHIFT           6
#define SWP_OFF_BITS            52

static inline uint64_t swp_entry(unsigned area, uint64_t off)
{
	return SWP_TAG | (uint64_t)(area & ((1u << SWP_AREA_BITS) - 1)) << SWP_AREA_SHIFT |
	       (off & ((1ull << SWP_OFF_BITS) - 1)) << SWP_OFF_SHIFT;
}
static inline unsigned swp_area(uint64_t e)
{
	return (unsigned)(e >> SWP_AREA_SHIFT) & ((1u << SWP_AREA_BITS) - 1);
}
static inline uint64_t swp_offset(uint64_t e)
{
	return (e >> SWP_OFF_SHIFT) & ((1ull << SWP_OFF_BITS) - 1);
}
/* Is this word (a shmem slot, an unshifted PTE payload) a swap entry? */
static inline bool swp_is_entry(uint64_t v)
{
	return v & SWP_TAG;
}

/* Errors: the negated Linux errno values of kernel/lib/errno.h, so kernel
 * callers can pass them on. */
enum swapalloc_err {
	SWAPALLOC_ENOENT = -2,          /* dup of a free slot */
	SWAPALLOC_EAGAIN = -11,         /* swapalloc_put: take the lock (swapalloc_free) */
	SWAPALLOC_ENOMEM = -12,         /* the allocator callback failed */
	SWAPALLOC_EBUSY = -16,          /* area still has slots in use */
	SWAPALLOC_EINVAL = -22,         /* bad argument, bad entry, double free */
	SWAPALLOC_ENOSPC = -28,         /* no area index left / no usable slot */
	SWAPALLOC_EOVERFLOW = -75,      /* dup beyond SWAP_MAP_MAX */
};

/* A run of count contiguous slots off..off+count-1 of one area. */
struct swap_run {
	uint32_t area;
	uint32_t count;
	uint64_t off;
};

/* What swapalloc_area_add needs; the bad list is swaphdr's badpages. */
struct swap_area_conf {
	uint64_t nslots;                /* pages of the area, header included (last_page + 1) */
	const uint32_t *bad;            /* mkswap bad pages; 0 and >= nslots ignored */
	uint32_t nbad;
	int prio;                       /* higher is used first */
	uint32_t cluster;               /* slots per cluster, power of two; 0: default */
	uint32_t frag_min;              /* see struct swap_area; 0: cluster / 16 */
};

struct swap_area_stats {
	uint64_t clusters_taken;        /* fresh (entirely free) clusters started */
	uint64_t partial_reused;        /* partial clusters made current again */
	uint64_t fallback_scans;        /* swap_map scans for lack of any cluster */
	uint64_t slots_allocated;       /* count went 0 -> 1 by swapalloc_get */
	uint64_t slots_freed;           /* count went 1 -> 0 (freed or retired) */
	uint64_t retired;               /* slots swapalloc_retire'd */
	/* filled in by swapalloc_area_stats: */
	uint64_t free_slots;
	uint64_t used_slots;            /* slots with a reference count */
	uint64_t bad_slots;             /* header + mkswap bad + retired */
	uint32_t frag_permille;         /* 1000 * (1 - free in entirely free clusters / free) */
};

/* Cluster list links are cluster indices; SWAP_CL_NONE ends a list. */
#define SWAP_CL_NONE            UINT32_MAX

enum swap_cl_where { SWAP_CL_OFF, SWAP_CL_FREE, SWAP_CL_PARTIAL, SWAP_CL_CUR };

#define SWAP_MAX_CPUS           256

/* A CPU's place in one area. */
struct swap_cpu_cursor {
	uint32_t cur;                   /* its current cluster or SWAP_CL_NONE */
	uint64_t next;                  /* next slot to try in cur */
};

struct swap_cluster {
	uint32_t free;                  /* slots with swap_map 0 */
	uint32_t cap;                   /* slots not BAD: free + in use */
	uint32_t next, prev;            /* links in the list named by where */
	uint8_t where;                  /* enum swap_cl_where */
};

struct swap_cl_list {
	uint32_t head, tail, n;
};

/* All fields guarded by the owner's swap lock. */
struct swap_area {
	bool present;
	bool enabled;                   /* false: swapoff in progress, no new slots */
	int prio;
	uint64_t nslots;
	uint32_t cluster, shift;        /* slots per cluster = 1 << shift */
	/* A non-current cluster goes on the partial list only with at least
	 * frag_min free slots: fewer cannot hold one 16-page (RA=4) readahead
	 * window's run, so those slots are left for the fallback scan. */
	uint32_t frag_min;
	uint32_t nclusters;
	uint16_t *map;                  /* swap_map[nslots] */
	struct swap_cluster *cl;        /* [nclusters] */
	struct swap_cl_list free_list;  /* entirely free clusters, FIFO */
	struct swap_cl_list partial;    /* frag_min <= free < cap, FIFO */
	struct swap_cpu_cursor *cpu;    /* [pool ncpus]: each CPU's current cluster */
	uint64_t scan_next;             /* where the next fallback scan starts */
	uint64_t nfree, nused, nbad;
	uint64_t nbad_initial;          /* header + mkswap bad pages */
	struct swap_area_stats st;
};

struct swap_pool {
	struct swap_area area[SWAP_MAX_AREAS];
	/* Present areas by priority, highest first; equal priorities rotate:
	 * an area moves behind its equals each time it finishes a cluster. */
	uint8_t order[SWAP_MAX_AREAS];
	uint8_t norder;
	uint32_t ncpus;                 /* cursors per area, 1..SWAP_MAX_CPUS */
	void *(*alloc)(size_t);
	void (*free)(void *);
};

void swapalloc_init(struct swap_pool *p, void *(*alloc)(size_t), void (*free)(void *));
/* How many CPUs allocate (1 after init): each gets its own current
 * cluster per area.  Only while no area is present (-EBUSY otherwise);
 * -EINVAL outside 1..SWAP_MAX_CPUS. */
int swapalloc_set_cpus(struct swap_pool *p, uint32_t ncpus);
/* Drop every area, in use or not (teardown). */
void swapalloc_destroy(struct swap_pool *p);

/* Add an enabled area (calls alloc).  Returns its index or a negative
 * enum swapalloc_err; on error nothing changed. */
int swapalloc_area_add(struct swap_pool *p, const struct swap_area_conf *conf);
/* Change cluster size and frag_min (0: defaults) of an area with no slot
 * in use; -EBUSY otherwise. */
int swapalloc_area_set_cluster(struct swap_pool *p, int area, uint32_t cluster, uint32_t frag_min);

/*
 * Allocate up to want slots, each with count 1 and FRESH, as runs[0..return) of
 * contiguous slots, at most maxruns of them.  Returns the number of runs
 * (their counts add up to at most want; fewer when swap is short or runs
 * ran out; 0 when swap is full) or SWAPALLOC_EINVAL.  Never blocks.
 */
int swapalloc_get(struct swap_pool *p, int want, struct swap_run *runs, int maxruns);
/* The same for CPU cpu (0..ncpus-1, else -EINVAL): from its own current
 * clusters.  swapalloc_get is CPU 0's. */
int swapalloc_get_cpu(struct swap_pool *p, uint32_t cpu, int want, struct swap_run *runs, int maxruns);

/*
 * Slot counts.  The calls marked LOCK-FREE change one slot's map word
 * with an atomic compare-and-swap and touch nothing else, so the caller
 * need not hold its swap lock for them - as long as the area stays
 * present meanwhile (the caller holds a count of a slot of that area, or
 * otherwise keeps swapoff out).  They never change cluster or area
 * counts: only the calls that move a slot between free and in use do,
 * and those need the lock.  This keeps the fault path's count changes
 * off the pool's lock (Linux takes a per-cluster lock for them).
 */
/* One more reference to an allocated slot.  0 or a negative error.
 * LOCK-FREE. */
int swapalloc_dup(struct swap_pool *p, uint64_t entry);
/* One more reference only if the slot holds data (a count and not
 * FRESH): true when taken.  LOCK-FREE. */
bool swapalloc_dup_if_data(struct swap_pool *p, uint64_t entry);
/* The slot's data is in place (or at least findable: its page is in the
 * swap cache): clear FRESH.  LOCK-FREE. */
void swapalloc_settle(struct swap_pool *p, uint64_t entry);
/* Drop a reference; returns the count left (0: the slot is free, or BAD if
 * it was retired) or a negative error (free slot, bad entry). */
int swapalloc_free(struct swap_pool *p, uint64_t entry);
/* swapalloc_free without the lock: returns the count left; 0 when it was
 * the last, and the slot is now PENDING (count 0, not reusable) until the
 * caller hands it to swapalloc_release under its lock, in a batch with
 * others (Linux's swap slots cache returned freed slots 64 at a time);
 * SWAPALLOC_EAGAIN, nothing done, for the last count of a retired slot
 * (take the lock and swapalloc_free); or a negative error.  LOCK-FREE. */
int swapalloc_put(struct swap_pool *p, uint64_t entry);
/* A PENDING slot (swapalloc_put returned 0) is free again (or BAD, if
 * retired meanwhile).  SWAPALLOC_EINVAL when it is not pending. */
int swapalloc_release(struct swap_pool *p, uint64_t entry);
/* Never hand this slot out again (its write failed).  A slot in use keeps
 * its references and turns BAD when the last is dropped.  0 or error. */
int swapalloc_retire(struct swap_pool *p, uint64_t entry);
/* Reference count of the slot (0: free or pending), or a negative error.
 * LOCK-FREE (a snapshot). */
int swapalloc_count(const struct swap_pool *p, uint64_t entry);
/* The slot holds data: a count, not FRESH.  LOCK-FREE (a snapshot). */
bool swapalloc_has_data(const struct swap_pool *p, uint64_t entry);

/* swapoff: stop new allocations, wait for the users to go, remove. */
int swapalloc_area_disable(struct swap_pool *p, int area);
int swapalloc_area_enable(struct swap_pool *p, int area);
/* Slots of the area still referenced, or a negative error. */
int64_t swapalloc_area_used(const struct swap_pool *p, int area);
/* Remove an area none of whose slots is referenced (else -EBUSY). */
int swapalloc_area_remove(struct swap_pool *p, int area);

int swapalloc_area_stats(const struct swap_pool *p, int area, struct swap_area_stats *out);
/* An area's configuration, for callers outside the allocator (they never
 * read struct swap_area's fields).  false for an absent area. */
struct swap_area_shape {
	int prio;
	bool enabled;
	uint64_t nslots;
	uint32_t cluster;
};
bool swapalloc_area_shape(const struct swap_pool *p, int area, struct swap_area_shape *out);
/* The area's slots, header included (0: not present).  LOCK-FREE. */
uint64_t swapalloc_area_nslots(const struct swap_pool *p, unsigned area);
/* Usable (free + in use) and in-use slots over every present area, in
 * O(areas).  LOCK-FREE: a snapshot, each area's counts read apart (a call
 * racing with a get or free may see one without the other). */
void swapalloc_slots(const struct swap_pool *p, uint64_t *usable, uint64_t *used);
/* Free slots in enabled areas: 0 means reclaim cannot swap anything out. */
uint64_t swapalloc_free_slots(const struct swap_pool *p);

/* Check every invariant (counts vs. maps vs. lists).  NULL when all hold,
 * else the broken one.  O(slots): for tests and debug builds. */
const char *swapalloc_check(const struct swap_pool *p);

#endif
