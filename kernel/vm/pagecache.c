/*
 * The page cache (pagecache.h).
 *
 * A cached page: PG_FILE, mapping = its cache, index = its page offset on
 * the disk, one reference held by the index, on an LRU_FILE list.  A page
 * being read is inserted locked and unlocked by the read's completion
 * (PG_ERROR when the read failed: whoever finds it so takes it out and
 * reports -EIO).  A page under write-back has PG_WRITEBACK and one more
 * reference, dropped by the completion.
 *
 * Workingset shadows (workingset.h): a page reclaim evicts leaves its
 * shadow word in the index slot it held (a value entry, bit 0 set, as
 * Linux's xarray); a page inserted there later is a refault.  Only
 * reclaim leaves shadows; drop_caches drops them all (as Linux's
 * `echo 3`, whose slab shrink runs the shadow shrinker); fadvise
 * DONTNEED and failed reads leave none.  Their number is capped
 * (trim_shadows): stale ones go a few per eviction, and past
 * workingset_max_shadows any go.  Memory follows what was cached and
 * evicted lately, never the disk's size.
 *
 * Dirty accounting: PG_DIRTY is set under the page lock by a write and
 * cleared under the page lock when its write-back starts; the cache's
 * nr_dirty, the global counter and the index's tag (which write-back
 * walks, so a pass costs the dirty pages, not the cached ones) follow
 * the bit's transitions only, under pc->lock.
 *
 * Write-back of a page goes to every write-allowed device (data=) that
 * overlaps it, with only that device's blocks: a partition whose ends are
 * not page-aligned shares its first and last pages with its neighbours,
 * and those are never written unless they are allowed too.  Reads always
 * fill whole pages from the disk (reading is harmless), so the shared
 * pages hold the neighbours' real contents.
 *
 * Lock order: the page lock, then pc->lock (a spinlock: index, nr_dirty,
 * dirtied_ns), then the LRU lock.  G.lock (a mutex) guards the list of
 * caches and each cache's writers[]; it is never taken under the others.
 * Completions run in interrupt context: they touch page flags, atomics,
 * wait queues and, under pc->lock, the dirty bit of a page whose write
 * failed to start and the cache's list of batches in flight.
 *
 * Waiting for write-back: each batch is on its cache's in-flight list,
 * numbered, from the moment its first page stops being dirty until it
 * ends; fsync, msync and O_DIRECT wait for the batches numbered before
 * their wait began that cover their range (wait_range), never for the
 * whole disk.
 */
#include <string.h>
#include "pagecache.h"
#include "pagecache_idx.h"
#include "lru.h"
#include "reclaim.h"
#include "workingset.h"
#include "vmstat.h"
#include "psi.h"
#include "page_ref.h"
#include "rmap.h"
#include "vm.h"
#include "arch/x86_64/tlb.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "mem/pmm.h"
#include "mem/kmalloc.h"
#include "drivers/blk.h"
#include "core/config.h"
#include "core/console.h"
#include "core/sched.h"
#include "core/spinlock.h"
#include "core/time.h"
#include "core/wait.h"
#include "lib/errno.h"
#include "lib/list.h"
#include "arch/x86_64/uaccess.h"

#define PC_MAX_WRITERS 16               /* data devices per disk */
#define PC_IO_PAGES 64                  /* pages per request we build (256 KiB) */
#define PC_RA_MAX 32                    /* Linux's default read_ahead_kb 128 */
/* The largest window a read(2) larger than PC_RA_MAX gets (ra_window),
 * and the most pages read_pages takes at once: 512 KiB. */
#define PC_RA_IO_MAX 128
#define PC_STREAM_NEXT 4                /* a stream window's first missing pages may reclaim (ra_page) */
#define PC_TRIM_SCAN 8                  /* index entries looked at per eviction for stale shadows */
#define PC_FLUSH_INTERVAL_NS (5ull * 1000000000ull)     /* dirty_writeback_centisecs 500 */
#define PC_BG_CHUNK 1024                /* Linux's MIN_WRITEBACK_PAGES: background write-back looks at the limit every 4 MiB */
#define PC_BG_DEPTH 4                   /* the flusher's batches in flight per disk (wait_depth) */

unsigned pagecache_dirty_background_ratio = 10;
unsigned pagecache_dirty_ratio = 20;
unsigned pagecache_dirty_expire_cs = 3000;
bool pagecache_dirty_mmap = true;

struct pagecache {
	struct pagecache *next;         /* [G] */
	struct blk_dev *disk;           /* [I] */
	uint32_t bs;                    /* [I] block size */
	uint64_t bytes;                 /* [I] */
	struct spinlock lock;
	struct pagecache_idx idx;       /* [lock] page offset -> page (one reference) */
	uint64_t nr_dirty;              /* [lock] */
	uint64_t trim_at;               /* [lock] where trim_shadows goes on */
	uint64_t dirtied_ns;            /* [lock] when nr_dirty last left 0 */
	uint64_t wb_next;               /* [flusher] where background write-back goes on */
	uint64_t nr_writeback;          /* [A] pages under write-back */
	uint64_t wb_err;                /* [lock, A to peek] failed write-back requests so far */
	struct pagecache_err errs[PAGECACHE_ERR_RING];  /* [lock] the last failures (pagecache_err_since) */
	struct list_node wb_inflight;   /* [lock] batches from their first page to their end, oldest first */
	uint64_t wb_seq;                /* [lock] the last batch's number */
	uint32_t wb_batches;            /* [lock, A to peek] batches on wb_inflight */
	struct blk_dev *writers[PC_MAX_WRITERS];        /* [G] appended only */
	int nwriters;                   /* [A] published after the entry */
};

static struct {
	struct mutex lock;
	struct pagecache *caches;
	struct waitq wb_wq;             /* write-back completions */
	struct waitq flush_wq;
	volatile bool flush_kick;       /* [A] */
	uint64_t nr_pages, nr_dirty, nr_writeback;      /* [A] */
	uint64_t nr_shadows;            /* [A] workingset shadows in every cache's index */
} G;

/* One block request over consecutive pages. */
struct pc_io {
	struct blk_req req;
	struct pagecache *pc;
	struct pc_wb *wb;               /* writes: the batch it belongs to */
	uint64_t start, end;            /* writes: the bytes of the disk it writes */
	uint32_t n;
	bool pooled;                    /* from io_pool, not the heap */
	struct page *pages[PC_IO_PAGES];
	struct blk_seg segs[PC_IO_PAGES];
};

/* A write-back batch: its pages and the requests still out. */
struct pc_wb {
	struct pagecache *pc;
	int pending;                    /* [A] requests not completed, +1 while building */
	bool redirty;                   /* [A] a request could not be built: the pages stay dirty */
	bool may_wait;                  /* for a request structure (not reclaim's nowait) */
	bool pooled;
	uint32_t n;
	/* On pc->wb_inflight from its first page's dirty bit cleared to its
	 * end (seq 0: not yet), covering pages first..last: what a wait for
	 * a range looks at (wait_range). */
	struct list_node link;          /* [pc->lock] */
	uint64_t seq, first, last;      /* [pc->lock] */
	struct page *pages[PC_IO_PAGES];
};

/* Reserves of request structures for when kmalloc fails: memory is
 * lowest exactly when reclaim needs write-back (Linux's mempools).
 * Measured: mmap of 64 MiB at mem=48M lost 441 pages' writes to failed
 * kmallocs before these existed.  A caller that may sleep waits for a
 * request in flight to give its structure back (pool_get_wait), as
 * mempool_alloc does; reclaim's nowait write-back and read-ahead take
 * what there is and leave the rest. */
#define PC_POOL 8
#define PC_POOL_RETRY_NS 10000000ull   /* look at the heap again after 10 ms */
struct pc_pool {
	struct spinlock lock;
	struct waitq wq;                /* pool_put wakes pool_get_wait */
	size_t size;
	int n;                          /* [lock]; pool_has peeks without it */
	void *free[PC_POOL];
};

static struct pc_pool io_pool = { .lock = SPINLOCK_INIT("pc-pool"), .size = sizeof(struct pc_io) };
static struct pc_pool wb_pool = { .lock = SPINLOCK_INIT("pc-pool"), .size = sizeof(struct pc_wb) };

/* Zeroed memory from the heap, else from the reserve (*pooled), else NULL. */
static void *pool_get(struct pc_pool *pl, bool *pooled)
{
	void *p = kzalloc(pl->size);
	*pooled = false;
	if (p)
		return p;
	bool on = spin_lock_irqsave(&pl->lock);
	if (pl->n)
		p = pl->free[--pl->n];
	spin_unlock_irqrestore(&pl->lock, on);
	if (p) {
		memset(p, 0, pl->size);
		*pooled = true;
	}
	return p;
}

static bool pool_has(void *arg)
{
	struct pc_pool *pl = arg;
	return __atomic_load_n(&pl->n, __ATOMIC_ACQUIRE) > 0;
}

/* pool_get that sleeps until it has one: the reserve is only ever short
 * while requests are in flight, and each gives its structure back when
 * it completes.  The timeout looks at the heap again (kfree'd memory
 * does not wake us).  The caller holds no page lock a writer could be
 * waiting for, and no plug on a disk that has our reserve's requests. */
static void *pool_get_wait(struct pc_pool *pl, bool *pooled)
{
	void *p;
	while (!(p = pool_get(pl, pooled))) {
		sched_io_wait_begin();
		wait_event_timeout(&pl->wq, pool_has, pl, PC_POOL_RETRY_NS);
		sched_io_wait_end();
	}
	return p;
}

/* Any context. */
static void pool_put(struct pc_pool *pl, void *p, bool pooled)
{
	if (!pooled) {
		kfree(p);
		return;
	}
	bool on = spin_lock_irqsave(&pl->lock);
	pl->free[pl->n] = p;
	__atomic_store_n(&pl->n, pl->n + 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&pl->lock, on);
	waitq_wake_all(&pl->wq);
}

static void pool_fill(struct pc_pool *pl, const char *name)
{
	waitq_init(&pl->wq, name);
	while (pl->n < PC_POOL) {
		void *p = kzalloc(pl->size);
		if (!p)
			break;
		pl->free[pl->n++] = p;
	}
}

/* Index nodes: the heap, else a reserve (a page must be insertable when
 * kmalloc has nothing left, or a fault on a mapped device could only
 * fail).  Called under pc->lock. */
#define PC_NODE_RESERVE 16
static struct pagecache_idx_node node_reserve[PC_NODE_RESERVE];
static uint32_t node_reserve_used;     /* [node_lock] bit i: node_reserve[i] handed out */
static struct spinlock node_lock = SPINLOCK_INIT("pc-nodes");

static void *idx_alloc(size_t n)
{
	void *p = kzalloc(n);
	if (p || n != sizeof(struct pagecache_idx_node))
		return p;
	bool on = spin_lock_irqsave(&node_lock);
	for (int i = 0; i < PC_NODE_RESERVE && !p; i++)
		if (!(node_reserve_used & (1u << i))) {
			node_reserve_used |= 1u << i;
			p = memset(&node_reserve[i], 0, sizeof node_reserve[i]);
		}
	spin_unlock_irqrestore(&node_lock, on);
	return p;
}

static void idx_free(void *p)
{
	struct pagecache_idx_node *n = p;
	if (n < node_reserve || n >= node_reserve + PC_NODE_RESERVE) {
		kfree(p);
		return;
	}
	bool on = spin_lock_irqsave(&node_lock);
	node_reserve_used &= ~(1u << (n - node_reserve));
	spin_unlock_irqrestore(&node_lock, on);
}

static uint64_t pc_pages(const struct pagecache *pc) { return (pc->bytes + PAGE_SIZE - 1) >> PAGE_SHIFT; }

/* A device's first byte on its disk. */
static uint64_t dev_base(const struct blk_dev *d) { return blk_part_start(d) * blk_block_size(d); }

/* ---------------------------------------------------------------- caches */

/* The cache of d's disk, made on first use.  G.lock held. */
static struct pagecache *cache_of_locked(struct blk_dev *d)
{
	struct blk_dev *disk = blk_disk_of(d);
	for (struct pagecache *pc = G.caches; pc; pc = pc->next)
		if (pc->disk == disk)
			return pc;
	struct pagecache *pc = kzalloc(sizeof *pc);
	if (!pc)
		return NULL;
	pc->disk = disk;
	pc->bs = blk_block_size(disk);
	pc->bytes = blk_blocks(disk) * pc->bs;
	spin_init(&pc->lock, "pagecache");
	list_init(&pc->wb_inflight);
	pc->idx = (struct pagecache_idx){ .alloc = idx_alloc, .free = idx_free };
	pc->next = G.caches;
	__atomic_store_n(&G.caches, pc, __ATOMIC_RELEASE);     /* read without G.lock: pagecache_is_cache */
	return pc;
}

static struct pagecache *cache_of(struct blk_dev *d)
{
	mutex_lock(&G.lock);
	struct pagecache *pc = cache_of_locked(d);
	mutex_unlock(&G.lock);
	return pc;
}

static const char *write_refusal(struct blk_dev *d)
{
	if (blk_is_boot_partition(d))
		return "the boot partition (ESP) is never written";
	if (!blk_is_partition(d) && blk_on_boot_disk(d))
		return "the boot disk as a whole is never written (name a partition)";
	if (swap_area_of(blk_name(d)) >= 0)
		return "an active swap area";
	for (int i = 0; i < blk_count(); i++) {
		struct blk_dev *o = blk_at(i);
		if (o != d && blk_disk_of(o) == blk_disk_of(d) && swap_area_of(blk_name(o)) >= 0 &&
		    (!blk_is_partition(d) || !blk_is_partition(o)))
			return "it holds an active swap area";
	}
	return NULL;
}

int pagecache_allow_write(struct blk_dev *d, const char *who)
{
	const char *why = write_refusal(d);
	if (why) {
		kprintf("%s: %s: not writable: %s\n", who, blk_name(d), why);
		return -EACCES;
	}
	mutex_lock(&G.lock);
	struct pagecache *pc = cache_of_locked(d);
	int err = pc ? 0 : -ENOMEM;
	bool known = false;
	for (int i = 0; pc && i < pc->nwriters; i++)
		known |= pc->writers[i] == d;
	if (pc && !known && pc->nwriters == PC_MAX_WRITERS)
		err = -ENOSPC;
	if (!err && !known && !blk_set_writable(d, true))
		err = -EACCES;          /* blk said why */
	if (!err && !known) {
		pc->writers[pc->nwriters] = d;
		__atomic_store_n(&pc->nwriters, pc->nwriters + 1, __ATOMIC_RELEASE);
	}
	mutex_unlock(&G.lock);
	if (err == -ENOSPC || err == -ENOMEM)
		kprintf("%s: %s: not writable: %s\n", who, blk_name(d),
			err == -ENOMEM ? "out of memory" : "more than 16 data devices on one disk");
	return err == -ENOSPC ? -EACCES : err;
}

bool pagecache_write_allowed(const struct blk_dev *d)
{
	bool ok = false;
	mutex_lock(&G.lock);
	for (struct pagecache *pc = G.caches; pc && !ok; pc = pc->next)
		for (int i = 0; i < pc->nwriters; i++)
			ok |= pc->writers[i] == d;
	mutex_unlock(&G.lock);
	return ok;
}

int pagecache_open(struct pagecache_file *f, struct blk_dev *d, bool writable)
{
	memset(f, 0, sizeof *f);
	f->pc = cache_of(d);
	if (!f->pc)
		return -ENOMEM;
	f->dev = d;
	f->base = dev_base(d);
	f->size = blk_blocks(d) * blk_block_size(d);
	f->writable = writable;
	f->wb_err_seen = f->sb_err_seen = __atomic_load_n(&f->pc->wb_err, __ATOMIC_ACQUIRE);
	return 0;
}

/* ---------------------------------------------------------------- index */

static struct page *find_get(struct pagecache *pc, uint64_t i)
{
	bool pc_on = spin_lock_irqsave(&pc->lock);
	struct page *p = pagecache_idx_get(&pc->idx, i);
	if (pagecache_idx_is_value(p))
		p = NULL;               /* a shadow: not cached */
	if (p)
		get_page(p);
	spin_unlock_irqrestore(&pc->lock, pc_on);
	return p;
}

/* The first page (not shadow) at an index >= from.  pc->lock held. */
static struct page *next_page(struct pagecache *pc, uint64_t from, uint64_t *at)
{
	for (;;) {
		void *e = pagecache_idx_next(&pc->idx, from, at);
		if (!pagecache_idx_is_value(e))
			return e;
		from = *at + 1;
	}
}

/* Keep G.nr_shadows in step with pc's index after a change.  pc->lock
 * held; `before` is idx.values before the change. */
static void shadows_changed(struct pagecache *pc, uint64_t before)
{
	uint64_t now = pc->idx.values;
	if (now > before)
		__atomic_add_fetch(&G.nr_shadows, now - before, __ATOMIC_RELAXED);
	else if (now < before)
		__atomic_sub_fetch(&G.nr_shadows, before - now, __ATOMIC_RELAXED);
}

/* Drop stale shadows, a few index entries per eviction from where the
 * last call stopped (wrapping once), so their number follows what could
 * still activate; past the cap (workingset_max_shadows, counting the
 * swap cache's too) every shadow met goes.  Linux's shadow shrinker
 * frees whole nodes of shadows from a node LRU; a cursor needs no list
 * and pagecache_idx_del frees a node with its last entry. */
static void trim_shadows(struct pagecache *pc)
{
	struct workingset_now now;
	workingset_now_file(&now);      /* takes the swap lock: not under ours */
	bool pc_on = spin_lock_irqsave(&pc->lock);
	uint64_t before = pc->idx.values, from = pc->trim_at, at;
	bool over = __atomic_load_n(&G.nr_shadows, __ATOMIC_RELAXED) + swapcache_shadows() > workingset_max_shadows();
	bool wrapped = false;
	for (int k = 0; k < PC_TRIM_SCAN && pc->idx.values; k++) {
		void *e = pagecache_idx_next(&pc->idx, from, &at);
		if (!e) {
			if (wrapped)
				break;
			wrapped = true;
			from = 0;
			continue;
		}
		from = at + 1;
		if (pagecache_idx_is_value(e) && (over || workingset_shadow_stale((uint64_t)(uintptr_t)e, &now)))
			pagecache_idx_del(&pc->idx, at);
	}
	pc->trim_at = from;
	shadows_changed(pc, before);
	spin_unlock_irqrestore(&pc->lock, pc_on);
}

/* Insert a new locked page (the caller's reference stays the caller's).
 * 0, -EEXIST (someone was first), -ENOMEM. */
static int insert(struct pagecache *pc, uint64_t i, struct page *p)
{
	p->mapping = pc;
	p->index = i;
	page_set(p, PG_FILE);
	uint64_t shadow = 0;
	bool pc_on = spin_lock_irqsave(&pc->lock);
	void *old = pagecache_idx_get(&pc->idx, i);
	int err = 0;
	if (pagecache_idx_is_value(old)) {
		shadow = (uint64_t)(uintptr_t)pagecache_idx_replace(&pc->idx, i, p);
		__atomic_sub_fetch(&G.nr_shadows, 1, __ATOMIC_RELAXED);
	} else {
		err = pagecache_idx_set(&pc->idx, i, p);
	}
	if (!err)
		get_page(p);
	spin_unlock_irqrestore(&pc->lock, pc_on);
	if (err) {
		page_clear(p, PG_FILE);
		p->mapping = NULL;
		return err;
	}
	__atomic_add_fetch(&G.nr_pages, 1, __ATOMIC_RELAXED);
	/* Read-ahead pages count too, as in Linux (filemap_add_folio). */
	lru_add(p, LRU_FILE, shadow && workingset_refault_file(p, shadow));
	return 0;
}

/* Take p out of its cache if only `refs` references are left (the
 * index's among them) and it is clean; `evict` (reclaim): leave its
 * workingset shadow in the slot.  The page lock is held. */
static bool remove_if(struct pagecache *pc, struct page *p, int refs, bool evict)
{
	bool gone = false;
	uint64_t shadow = 0;
	bool pc_on = spin_lock_irqsave(&pc->lock);
	if (pagecache_idx_get(&pc->idx, p->index) == p && !page_test(p, PG_DIRTY | PG_WRITEBACK) &&
	    __atomic_load_n(&p->refcount, __ATOMIC_ACQUIRE) == refs) {
		if (evict && (shadow = workingset_eviction(p)))
			pagecache_idx_replace(&pc->idx, p->index, (void *)(uintptr_t)shadow);
		else
			pagecache_idx_del(&pc->idx, p->index);
		gone = true;
	}
	spin_unlock_irqrestore(&pc->lock, pc_on);
	if (shadow) {
		__atomic_add_fetch(&G.nr_shadows, 1, __ATOMIC_RELAXED);
		trim_shadows(pc);
	}
	if (!gone)
		return false;
	__atomic_sub_fetch(&G.nr_pages, 1, __ATOMIC_RELAXED);
	page_clear(p, PG_FILE | PG_REFERENCED | PG_RA_MARK | PG_ERROR | PG_WORKINGSET);
	p->mapping = NULL;
	lru_del(p);
	put_page(p);                    /* the index's reference */
	return true;
}

/* A page whose read failed: out of the cache (once), so the next read
 * tries the device again. */
static void drop_failed(struct pagecache *pc, struct page *p)
{
	bool pc_on = spin_lock_irqsave(&pc->lock);
	bool mine = pagecache_idx_get(&pc->idx, p->index) == p;
	if (mine)
		pagecache_idx_del(&pc->idx, p->index);
	spin_unlock_irqrestore(&pc->lock, pc_on);
	if (!mine)
		return;
	__atomic_sub_fetch(&G.nr_pages, 1, __ATOMIC_RELAXED);
	lru_del(p);
	page_clear(p, PG_FILE);
	p->mapping = NULL;
	put_page(p);
}

/* A page whose read failed (PG_ERROR, after the wait): dropped from the
 * cache and the caller's reference put; *err = -EIO. */
static bool read_failed(struct pagecache *pc, struct page *p, int *err)
{
	if (!page_test(p, PG_ERROR))
		return false;
	lock_page(p);
	drop_failed(pc, p);
	unlock_page(p);
	put_page(p);
	*err = -EIO;
	return true;
}

/* ---------------------------------------------------------------- reads */

/* Wait for p's read.  A page evicted while in use and read back again
 * (PG_WORKINGSET) makes the wait a memory stall (PSI), as Linux's
 * folio_wait_bit_common on a workingset folio. */
static void wait_read(struct page *p)
{
	if (!page_test(p, PG_LOCKED))
		return;
	bool ws = page_test(p, PG_WORKINGSET);
	if (ws)
		psi_memstall_enter(false);
	wait_on_page(p);
	if (ws)
		psi_memstall_leave(false);
}

/* A page found in the cache, once its read (or a write making it) is
 * over: 1 to use it; 0 when a write dropped it meanwhile (a short copy
 * into a page made for it: pagecache_write), the reference put, to look
 * again; -1 when its read failed (read_failed: *err, reference put). */
static int settle(struct pagecache *pc, struct page *p, int *err)
{
	wait_read(p);
	if (read_failed(pc, p, err))
		return -1;
	if (__atomic_load_n(&p->mapping, __ATOMIC_ACQUIRE) == pc)
		return 1;
	put_page(p);
	return 0;
}

/* Blocks of the disk in page i (a disk's last page may be partial). */
static uint32_t page_bytes(const struct pagecache *pc, uint64_t i)
{
	uint64_t start = i << PAGE_SHIFT;
	return pc->bytes - start >= PAGE_SIZE ? PAGE_SIZE : (uint32_t)(pc->bytes - start);
}

static void read_done(struct blk_req *r)
{
	struct pc_io *io = r->priv;
	for (uint32_t k = 0; k < io->n; k++) {
		struct page *p = io->pages[k];
		if (r->status)
			page_set(p, PG_ERROR);
		unlock_page(p);
		put_page(p);            /* the reference the read held */
	}
	pool_put(&io_pool, io, io->pooled);
}

/* Submit a read of io's pages (consecutive, from io->pages[0]->index). */
static void submit_read(struct pagecache *pc, struct pc_io *io)
{
	uint64_t first = io->pages[0]->index;
	for (uint32_t k = 0; k < io->n; k++) {
		uint32_t len = page_bytes(pc, first + k);
		if (len < PAGE_SIZE)
			memset((char *)page_address(io->pages[k]) + len, 0, PAGE_SIZE - len);
		io->segs[k] = (struct blk_seg){ page_to_phys(io->pages[k]), len };
	}
	io->req = (struct blk_req){ .op = BLK_READ, .lba = (first << PAGE_SHIFT) / pc->bs, .nsegs = io->n,
				    .segs = io->segs, .done = read_done, .priv = io };
	vmstat_add(PGPGIN, (uint64_t)io->n * 4);
	int err = blk_submit(pc->disk, &io->req);
	if (err) {
		io->req.status = err;
		read_done(&io->req);
	}
}

/* A read-ahead page ahead of the reader, for a window of n pages.
 * sure > 0: the reader is sequential, so the pages ahead are the ones it
 * touches next (a window asked for at the last one's marker, read around
 * a miss, or the pages a read(2) asked for).  Their first `sure` missing
 * pages (PC_STREAM_NEXT, or all that read(2) asked for) are no guess, and
 * a fault on them would reclaim anyway, so they may reclaim (*asked
 * counts them), as swap's stream windows do (swapin.c, read_plan).  For
 * the rest, a refused page (free memory at the low watermark) lets
 * kswapd run once per window (*yielded) before the window is cut:
 * alloc_ra_page woke it, but on this CPU it would run only at the end of
 * the reader's slice.  touch 72 40000 seq on a mapped device at 48 MiB
 * took 439-456 major faults, each a trimmed window's end; with the yield
 * alone 4-5 on one CPU (-icount, 3 boots) but 283 and 289 on two (plain
 * TCG, kswapd then runs elsewhere and the yield waits for nothing); with
 * the reclaimed pages and the marker moved (read_pages) 5 and 5. */
static struct page *ra_page(uint32_t n, uint32_t sure, bool *yielded, uint32_t *asked)
{
	if (*asked < sure) {
		(*asked)++;
		return alloc_user_page(false);
	}
	struct page *p = alloc_ra_page(n);
	if (!p && sure && !*yielded) {
		*yielded = true;
		sched_yield();
		p = alloc_ra_page(n);
	}
	return p;
}

/* Read the missing pages of [start, start+n) (clipped to the disk); the
 * page `mark` gets the read-ahead marker.  `sync_page` is the page a
 * reader waits for (allocated with reclaim allowed); the others are
 * read-ahead (see ra_page; the pages behind sync_page only above the low
 * watermark).
 *
 * The window ahead of the reader ends at its first refused page, as
 * Linux's page_cache_ra_unbounded does.  Taking the pages after it
 * whenever kswapd on another CPU had just freed some left holes, each a
 * major fault whose read-around got only its own page (memory was still
 * low), and so on to the next hole: touch 72 40000 seq on a mapped
 * device at 48 MiB on 2 CPUs, a busy loop on the host, took 3-244 major
 * faults in 20 boots (4 over 50); cut at the first refusal, and with a
 * read-around's pages ahead of the miss taken as a stream's, 3 (one per
 * pass) in 23 of 24 boots and 4 in one.  A stream's window (sure > 0)
 * cut before its marker's page gives the marker to its last page, so the
 * next window still goes out when the reader gets there (without, it met
 * the cut as a major fault).  Pages are allocated before the disk is
 * plugged: an allocation may reclaim, and reclaim may wait for writes to
 * this disk, which a plug holds back. */
static void read_pages(struct pagecache *pc, uint64_t start, uint32_t n, uint64_t mark, uint64_t sync_page,
		       uint32_t sure)
{
	struct page *got[PC_RA_IO_MAX];
	uint64_t end = start + (n < PC_RA_IO_MAX ? n : PC_RA_IO_MAX);
	if (end > pc_pages(pc))
		end = pc_pages(pc);
	/* The waited-for page first: if it has to reclaim, the read-ahead
	 * pages after it find memory above the low watermark.  Taken after
	 * them, the pages a miss read around it were refused whenever memory
	 * was at the watermark, and a stream missed again at the next page
	 * (touch 72 40000 seq on a mapped device, 6 boots each, -icount:
	 * median 2611 -> 1198 major faults; stream 120 mmap-read 1803 -> 971;
	 * busy time within 1%). */
	bool has_sync = sync_page >= start && sync_page < end;
	struct page *sync = has_sync ? alloc_user_page(false) : NULL;
	uint64_t ahead = has_sync ? sync_page + 1 : start;      /* the first page ahead of the reader */
	bool yielded = false, cut = false;
	uint32_t asked = 0;
	struct page *last = NULL;       /* the last page read ahead of the reader before the marker */
	for (uint64_t i = start; i < end; i++) {
		struct page *p = NULL;
		bool pc_on = spin_lock_irqsave(&pc->lock);
		void *e = pagecache_idx_get(&pc->idx, i);
		bool have = e && !pagecache_idx_is_value(e);
		spin_unlock_irqrestore(&pc->lock, pc_on);
		if (i == sync_page) {
			if (!have)
				p = sync;
			else if (sync)
				put_page(sync);         /* cached meanwhile: not needed */
		} else if (have || cut) {
			p = NULL;
		} else if (i < ahead) {
			p = alloc_ra_page(n);
		} else if (!(p = ra_page(n, sure, &yielded, &asked))) {
			cut = true;
		}
		if (p) {
			page_set(p, PG_LOCKED | (i == mark ? PG_RA_MARK : 0));
			if (insert(pc, i, p)) {
				page_clear(p, PG_LOCKED | PG_RA_MARK);
				put_page(p);
				p = NULL;
			}
		}
		if (i == mark && p)
			last = NULL;
		else if (i < mark && i >= ahead && p)
			last = p;
		got[i - start] = p;
	}
	if (sure && last && mark >= start && mark < end && !got[mark - start])
		page_set(last, PG_RA_MARK);     /* locked and ours until its read ends */
	struct pc_io *io = NULL;
	blk_plug(pc->disk);
	for (uint64_t i = start; i < end; i++) {
		struct page *p = got[i - start];
		if (io && (!p || io->n == PC_IO_PAGES)) {
			submit_read(pc, io);
			io = NULL;
		}
		if (!p)
			continue;
		bool pooled;
		if (!io && (io = pool_get(&io_pool, &pooled)))
			io->pooled = pooled;
		if (!io && i == sync_page) {
			/* A reader waits for this page: wait for a request
			 * in flight to give its structure back (unplugged:
			 * ours may be among them).  Given up, the reader got
			 * -EIO and a fault SIGBUS for want of memory. */
			blk_unplug(pc->disk);
			io = pool_get_wait(&io_pool, &pooled);
			io->pooled = pooled;
			blk_plug(pc->disk);
		}
		if (!io) {
			drop_failed(pc, p);     /* nobody can have used it: it is locked */
			page_set(p, PG_ERROR);
			unlock_page(p);
			put_page(p);
			continue;
		}
		io->pages[io->n++] = p;
	}
	if (io)
		submit_read(pc, io);
	blk_unplug(pc->disk);
}

/* The largest window for a read of `want` pages (pagecache_ra_max):
 * up to the device's largest command and PC_RA_IO_MAX when the read asks
 * for more than PC_RA_MAX.  Before, a 256 KiB read(2) went out as two
 * 128 KiB windows. */
static uint32_t ra_window(const struct pagecache *pc, uint32_t want)
{
	uint32_t io = blk_max_pages(pc->disk);
	return pagecache_ra_max(want, PC_RA_MAX, io < PC_RA_IO_MAX ? io : PC_RA_IO_MAX);
}

/* A stream reached its marker at i: the next window (want: the pages
 * the read asked for, from i). */
static void read_async(struct pagecache_file *f, uint64_t i, uint32_t want)
{
	struct pagecache_ra_io io = pagecache_ra_next(&f->ra, i, want, true, ra_window(f->pc, want));
	if (io.n)
		read_pages(f->pc, io.start, io.n, io.mark, ~0ull, PC_STREAM_NEXT);
}

/* The page at i, read if need be (read-ahead as the file's state says;
 * want: the pages the read asked for, from i).  A reference, or NULL
 * with *err. */
static struct page *get_read(struct pagecache_file *f, uint64_t i, uint32_t want, int *err)
{
	struct pagecache *pc = f->pc;
again:;
	struct page *p = find_get(pc, i);
	if (!p && f->random) {
		read_pages(pc, i, 1, ~0ull, i, 0);
		p = find_get(pc, i);
	} else if (!p) {
		struct pagecache_ra_io io = pagecache_ra_next(&f->ra, i, want, false, ra_window(pc, want));
		if (!io.n || i < io.start || i >= io.start + io.n)
			io = (struct pagecache_ra_io){ .start = i, .n = 1, .mark = ~0ull };
		/* The pages the read asked for are no guess; a sequential
		 * window's first pages ahead are the stream's. */
		uint32_t sure = want > 1 ? want - 1 : 0;
		if (io.mark != ~0ull && sure < PC_STREAM_NEXT)
			sure = PC_STREAM_NEXT;
		read_pages(pc, io.start, io.n, io.mark, i, sure);
		p = find_get(pc, i);
		/* A read of a window or more gets its marker on its first
		 * page (Linux's initial window: async_size = size): the next
		 * window goes out now, as Linux's read finds the marker in the
		 * pages it just read.  Before, each window waited for its own
		 * read: `stream 72 read` (256 KiB reads) had one request in
		 * flight at a time. */
		if (p && page_test_clear(p, PG_RA_MARK))
			read_async(f, i, want);
	} else if (page_test_clear(p, PG_RA_MARK)) {
		read_async(f, i, want);
	} else {
		f->ra.prev = i + 1;
	}
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	int s = settle(pc, p, err);
	if (!s)
		goto again;
	return s > 0 ? p : NULL;
}

void pagecache_mark_accessed(struct page *p)
{
	if (page_test(p, PG_ACTIVE))
		page_set(p, PG_REFERENCED);
	else if (page_test_clear(p, PG_REFERENCED)) {
		lru_activate(p);        /* second access while inactive */
		workingset_activation();        /* it left the inactive list: the clock ticks */
	}
	else
		page_set(p, PG_REFERENCED);
}

long pagecache_read(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n)
{
	if (off >= f->size)
		return 0;
	if (n > f->size - off)
		n = f->size - off;
	uint64_t done = 0;
	while (done < n) {
		uint64_t at = f->base + off + done;
		uint64_t i = at >> PAGE_SHIFT, in = at & (PAGE_SIZE - 1);
		uint64_t chunk = PAGE_SIZE - in < n - done ? PAGE_SIZE - in : n - done;
		uint64_t left = (in + (n - done) + PAGE_SIZE - 1) >> PAGE_SHIFT;
		int err = 0;
		struct page *p = get_read(f, i, left > 1024 ? 1024 : (uint32_t)left, &err);
		if (!p)
			return done ? (long)done : err;
		pagecache_mark_accessed(p);
		err = copy_to_user(ubuf + done, (char *)page_address(p) + in, chunk);
		put_page(p);
		if (err)
			return done ? (long)done : -EFAULT;
		done += chunk;
	}
	return (long)done;
}

/* ---------------------------------------------------------------- writes */

static void set_dirty(struct pagecache *pc, struct page *p)
{
	if (page_test(p, PG_DIRTY))
		return;
	bool pc_on = spin_lock_irqsave(&pc->lock);
	if (!page_test(p, PG_DIRTY)) {
		page_set(p, PG_DIRTY);
		pagecache_idx_tag_set(&pc->idx, p->index, p);
		if (!pc->nr_dirty++)
			pc->dirtied_ns = time_ns();
		__atomic_add_fetch(&G.nr_dirty, 1, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&pc->lock, pc_on);
}

/* Clear p's dirty bit for write-back batch wb, which then covers p on
 * the cache's in-flight list, in the same section: a range wait never
 * finds a page that is neither dirty nor in a batch it can see. */
static bool clear_dirty_into(struct pagecache *pc, struct page *p, struct pc_wb *wb)
{
	bool was = false;
	bool pc_on = spin_lock_irqsave(&pc->lock);
	if (page_test(p, PG_DIRTY)) {
		page_clear(p, PG_DIRTY);
		pagecache_idx_tag_clear(&pc->idx, p->index, p);
		pc->nr_dirty--;
		__atomic_sub_fetch(&G.nr_dirty, 1, __ATOMIC_RELAXED);
		if (!wb->seq) {
			wb->seq = ++pc->wb_seq;
			wb->first = p->index;
			list_add_tail(&wb->link, &pc->wb_inflight);
			__atomic_store_n(&pc->wb_batches, pc->wb_batches + 1, __ATOMIC_RELEASE);
		}
		wb->last = p->index;    /* pages come in index order */
		was = true;
	}
	spin_unlock_irqrestore(&pc->lock, pc_on);
	return was;
}

/* The page at i for a write of [in, in+len): a whole-page write needs no
 * read.  Locked and referenced, or NULL with *err.  *fresh: made for this
 * write and not read, so it holds no data until the write's copy. */
static struct page *get_write(struct pagecache_file *f, uint64_t i, uint64_t in, uint64_t len, int *err,
			      bool *fresh)
{
	*fresh = false;
	struct pagecache *pc = f->pc;
	for (;;) {
		struct page *p = find_get(pc, i);
		if (p) {
			lock_page(p);
			if (page_test(p, PG_ERROR)) {
				drop_failed(pc, p);
				unlock_page(p);
				put_page(p);
				*err = -EIO;
				return NULL;
			}
			if (p->mapping == pc)
				return p;
			unlock_page(p);         /* dropped meanwhile: look again */
			put_page(p);
			continue;
		}
		if (in || len < page_bytes(pc, i)) {
			p = get_read(f, i, 1, err);
			if (!p)
				return NULL;
			put_page(p);
			continue;
		}
		/* Not cleared: the write's copy fills it, else it leaves the
		 * cache before anyone sees it (pagecache_write).  Past a
		 * disk's partial last page: zeros, as a read leaves it. */
		p = alloc_user_page(false);
		if (!p) {
			*err = -ENOMEM;
			return NULL;
		}
		if (len < PAGE_SIZE)
			memset((char *)page_address(p) + len, 0, PAGE_SIZE - len);
		page_set(p, PG_LOCKED);
		int r = insert(pc, i, p);
		if (!r) {
			*fresh = true;
			return p;
		}
		page_clear(p, PG_LOCKED);
		put_page(p);
		if (r != -EEXIST) {
			*err = r;
			return NULL;
		}
	}
}

static bool dirty_below_thresh(void *arg);

long pagecache_write(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n)
{
	if (!f->writable)
		return -EBADF;
	if (!n)
		return 0;
	if (off >= f->size)
		return -ENOSPC;
	if (n > f->size - off)
		n = f->size - off;
	/* Linux's generic_perform_write: the source is faulted in before the
	 * cache page is locked, then copied with faults off (a source mapped
	 * from the same device could fault on the very page held locked).
	 * A source page reclaimed in between makes the copy short: what was
	 * copied into a page that held data counts; a fresh page, which holds
	 * nothing else, leaves the cache; the next step faults the rest in.
	 * A step that copied nothing twice at the same place (the source
	 * reclaimed again each time) copies through a bounce page, with
	 * faults on and no lock held, so the write always moves on.  (Before:
	 * every byte went through the bounce page, two copies.) */
	uint64_t done = 0, stuck_at = ~0ull;
	char *bounce = NULL;
	long r = 0;
	while (done < n) {
		uint64_t at = f->base + off + done;
		uint64_t i = at >> PAGE_SHIFT, in = at & (PAGE_SIZE - 1);
		uint64_t chunk = PAGE_SIZE - in < n - done ? PAGE_SIZE - in : n - done;
		int err = 0;
		bool fresh, bounced = at == stuck_at;
		if (bounced && !bounce && !(bounce = kmalloc(PAGE_SIZE))) {
			r = -ENOMEM;
			break;
		}
		if (bounced ? copy_from_user(bounce, ubuf + done, chunk) : fault_in_user(ubuf + done, chunk)) {
			r = -EFAULT;
			break;
		}
		struct page *p = get_write(f, i, in, chunk, &err, &fresh);
		if (!p) {
			r = err;
			break;
		}
		uint64_t left = 0;
		if (bounced)
			memcpy((char *)page_address(p) + in, bounce, chunk);
		else
			left = copy_from_user_nofault((char *)page_address(p) + in, ubuf + done, chunk);
		if (left == chunk)
			stuck_at = at;
		if (left && fresh) {
			drop_failed(f->pc, p);  /* nothing of it is on the disk: it goes */
			unlock_page(p);
			put_page(p);
			stuck_at = at;
			continue;
		}
		if (left < chunk)
			set_dirty(f->pc, p);
		unlock_page(p);
		pagecache_mark_accessed(p);
		put_page(p);
		done += chunk - left;
		if ((done & ((64 << PAGE_SHIFT) - 1)) < chunk - left)
			pagecache_balance_dirty();          /* every 64 pages, as Linux's ratelimit */
	}
	kfree(bounce);
	pagecache_balance_dirty();
	return done ? (long)done : r;
}

/* ---------------------------------------------------------------- write-back */

static void wb_finish(struct pc_wb *wb)
{
	struct pagecache *pc = wb->pc;
	bool redirty = __atomic_load_n(&wb->redirty, __ATOMIC_ACQUIRE);
	for (uint32_t k = 0; k < wb->n; k++) {
		struct page *p = wb->pages[k];
		if (redirty)
			set_dirty(pc, p);       /* not written: the next write-back takes it */
		/* Linux's end_page_writeback with an error: the page is
		 * clean and keeps the data; the error goes to fsync. */
		page_clear(p, PG_WRITEBACK);
		put_page(p);
	}
	__atomic_sub_fetch(&pc->nr_writeback, wb->n, __ATOMIC_ACQ_REL);
	__atomic_sub_fetch(&G.nr_writeback, wb->n, __ATOMIC_ACQ_REL);
	bool pc_on = spin_lock_irqsave(&pc->lock);
	list_del(&wb->link);
	__atomic_store_n(&pc->wb_batches, pc->wb_batches - 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&pc->lock, pc_on);
	pool_put(&wb_pool, wb, wb->pooled);
	waitq_wake_all(&G.wb_wq);
}

static void wb_put(struct pc_wb *wb)
{
	if (__atomic_sub_fetch(&wb->pending, 1, __ATOMIC_ACQ_REL) == 0)
		wb_finish(wb);
}

/* A write of the disk's bytes [start, end) failed: remembered for the
 * files that cover them (failed_since). */
static void note_write_error(struct pagecache *pc, uint64_t start, uint64_t end)
{
	bool pc_on = spin_lock_irqsave(&pc->lock);
	__atomic_store_n(&pc->wb_err, pagecache_err_note(pc->errs, pc->wb_err, start, end), __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&pc->lock, pc_on);
}

/* Did a write of the disk's bytes [start, end) fail after failure number
 * seen (pagecache_err_since)?  *now: the latest number, for the next
 * question. */
static bool failed_since(struct pagecache *pc, uint64_t seen, uint64_t start, uint64_t end, uint64_t *now)
{
	bool pc_on = spin_lock_irqsave(&pc->lock);
	uint64_t n = pc->wb_err;
	bool hit = pagecache_err_since(pc->errs, n, seen, start, end);
	spin_unlock_irqrestore(&pc->lock, pc_on);
	*now = n;
	return hit;
}

static void write_done(struct blk_req *r)
{
	struct pc_io *io = r->priv;
	struct pc_wb *wb = io->wb;
	if (r->status)
		note_write_error(io->pc, io->start, io->end);
	pool_put(&io_pool, io, io->pooled);
	wb_put(wb);
}

/* One request to writer d for the part of wb's pages inside d. */
static void submit_write_to(struct pc_wb *wb, struct blk_dev *d)
{
	struct pagecache *pc = wb->pc;
	uint64_t first = wb->pages[0]->index << PAGE_SHIFT;
	uint64_t end = (wb->pages[wb->n - 1]->index << PAGE_SHIFT) + page_bytes(pc, wb->pages[wb->n - 1]->index);
	uint64_t ds = dev_base(d), de = ds + blk_blocks(d) * pc->bs;
	uint64_t s = first > ds ? first : ds, e = end < de ? end : de;
	if (s >= e)
		return;
	bool pooled;
	struct pc_io *io = wb->may_wait ? pool_get_wait(&io_pool, &pooled) : pool_get(&io_pool, &pooled);
	if (!io) {
		__atomic_store_n(&wb->redirty, true, __ATOMIC_RELEASE);
		return;
	}
	io->pooled = pooled;
	io->pc = pc;
	io->wb = wb;
	io->start = s;
	io->end = e;
	for (uint64_t at = s; at < e;) {
		struct page *p = wb->pages[(at - first) >> PAGE_SHIFT];
		uint64_t in = at & (PAGE_SIZE - 1), len = PAGE_SIZE - in;
		if (len > e - at)
			len = e - at;
		io->segs[io->n++] = (struct blk_seg){ page_to_phys(p) + in, (uint32_t)len };
		at += len;
	}
	io->req = (struct blk_req){ .op = BLK_WRITE, .lba = (s - ds) / pc->bs, .nsegs = io->n, .segs = io->segs,
				    .done = write_done, .priv = io };
	__atomic_add_fetch(&wb->pending, 1, __ATOMIC_ACQ_REL);
	vmstat_add(PGPGOUT, (e - s) >> 10);
	int err = blk_submit(d, &io->req);
	if (err) {
		io->req.status = err;
		write_done(&io->req);
	}
}

/* Submit wb once the PTEs its pages' mkclean changed are flushed: a CPU
 * still writing through a stale entry writes before the disk reads.
 * Each block once: when the whole disk may be written (data= names it),
 * it takes the batch alone, else each partition allowed takes its part.
 * Before, data=nvme2n1,nvme2n1p2 wrote every page of p2 twice, through
 * the disk and through the partition (1607168 KiB sent for a stream that
 * wrote 741 MB, at half its speed). */
static void submit_wb(struct pc_wb *wb, struct tlb_batch *tlb)
{
	vm_tlb_flush(tlb);
	struct pagecache *pc = wb->pc;
	int nw = __atomic_load_n(&pc->nwriters, __ATOMIC_ACQUIRE);
	bool whole = false;
	for (int k = 0; k < nw; k++)
		whole |= pc->writers[k] == pc->disk;
	for (int k = 0; k < nw; k++)
		if (!whole || pc->writers[k] == pc->disk)
			submit_write_to(wb, pc->writers[k]);
	wb_put(wb);                     /* the building reference */
}

struct depth_wait {
	struct pagecache *pc;
	uint32_t depth;
};

static bool depth_ok(void *arg)
{
	struct depth_wait *w = arg;
	return __atomic_load_n(&w->pc->wb_batches, __ATOMIC_ACQUIRE) < w->depth;
}

/* Linux's writeback throttling (blk-wbt) in its simplest form: the
 * flusher keeps at most PC_BG_DEPTH batches of a disk in flight, so a
 * write someone waits for (an fsync's, a commit's) queues behind at most
 * that much background write-back, not behind everything dirty.  The
 * device stays busy: the next batch goes out as soon as one ends. */
static void wait_depth(struct pagecache *pc, uint32_t depth)
{
	struct depth_wait w = { pc, depth };
	if (depth_ok(&w))
		return;
	sched_io_wait_begin();
	wait_event_timeout(&G.wb_wq, depth_ok, &w, 0);
	sched_io_wait_end();
}

/* Start write-back of the dirty pages in [from, to); returns pages
 * started.  Pages being written already are left alone.  nowait (reclaim,
 * holding the reclaim lock): a locked page is skipped, since its holder
 * may be waiting for that lock (a writer whose copy faulted).  Never
 * plugs the disk: a batch is one request already, and sleeping on a page
 * lock while plugged would hold back the very read that unlocks it.
 * depth (not 0): before each new batch, wait until fewer than depth
 * batches of the cache are in flight (the flusher's: wait_depth). */
static uint64_t writeback_some(struct pagecache *pc, uint64_t from, uint64_t to, bool nowait, uint64_t max,
			       uint64_t *next, uint32_t depth)
{
	uint64_t started = 0, i = from;
	struct pc_wb *wb = NULL;
	struct tlb_batch tlb;
	tlb_batch_init(&tlb);
	while (i < to && started < max) {
		bool pc_on = spin_lock_irqsave(&pc->lock);
		uint64_t at;
		struct page *p = pagecache_idx_next_tagged(&pc->idx, i, &at);     /* the next dirty page */
		if (p && at < to)
			get_page(p);
		spin_unlock_irqrestore(&pc->lock, pc_on);
		if (!p || at >= to) {
			i = to;
			break;
		}
		i = at + 1;
		if (wb && wb->n && (wb->n == PC_IO_PAGES || wb->pages[wb->n - 1]->index + 1 != at)) {
			submit_wb(wb, &tlb);
			wb = NULL;
		}
		if (depth && !wb)
			wait_depth(pc, depth);
		if (nowait ? !trylock_page(p) : (lock_page(p), false)) {
			put_page(p);
			continue;
		}
		if (p->mapping != pc || page_test(p, PG_WRITEBACK) || !page_test(p, PG_DIRTY)) {
			unlock_page(p);
			put_page(p);
			continue;
		}
		bool pooled;
		if (!wb && (wb = pool_get(&wb_pool, &pooled)))
			wb->pooled = pooled;
		if (!wb) {
			unlock_page(p);
			put_page(p);
			if (nowait)
				break;
			/* Wait for a batch in flight to end, with no page
			 * locked, then take this page again.  Giving up here
			 * left 1934 of about 10000 pages dirty after
			 * drop_caches at 48 MiB (plain TCG under host load;
			 * none under -icount), and fsync and msync come the
			 * same way. */
			wb = pool_get_wait(&wb_pool, &pooled);
			wb->pooled = pooled;
			i = at;
			continue;
		}
		wb->pc = pc;
		wb->pending = 1;
		wb->may_wait = !nowait;
		if (!clear_dirty_into(pc, p, wb)) {
			unlock_page(p);
			put_page(p);
			continue;
		}
		/* Mapped: write-protect it, so a write from now on faults and
		 * marks it dirty again (vm.c's shared file faults). */
		if (pagecache_dirty_mmap && __atomic_load_n(&p->mapcount, __ATOMIC_ACQUIRE))
			rmap_mkclean_file(p, &tlb);
		page_set(p, PG_WRITEBACK);
		__atomic_add_fetch(&pc->nr_writeback, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&G.nr_writeback, 1, __ATOMIC_ACQ_REL);
		unlock_page(p);
		wb->pages[wb->n++] = p; /* our reference goes with the write */
		started++;
	}
	if (wb && wb->n)
		submit_wb(wb, &tlb);
	else if (wb)
		pool_put(&wb_pool, wb, wb->pooled);     /* waited for, then nothing to write */
	if (next)
		*next = i;
	return started;
}

static uint64_t writeback_range(struct pagecache *pc, uint64_t from, uint64_t to, bool nowait)
{
	return writeback_some(pc, from, to, nowait, UINT64_MAX, NULL, 0);
}

static bool pc_idle(void *arg)
{
	struct pagecache *pc = arg;
	return __atomic_load_n(&pc->nr_writeback, __ATOMIC_ACQUIRE) == 0;
}

static void wait_writeback(struct pagecache *pc)
{
	sched_io_wait_begin();
	wait_event_timeout(&G.wb_wq, pc_idle, pc, 0);
	sched_io_wait_end();
}

struct range_wait {
	struct pagecache *pc;
	uint64_t from, to;              /* page indices, to exclusive */
	uint64_t seq;                   /* batches numbered up to this one count */
};

/* No batch started by the time of the snapshot and covering a page of
 * the range is still in flight.  The list is in batch order, so the walk
 * stops at the first batch too young. */
static bool range_idle(void *arg)
{
	struct range_wait *w = arg;
	bool idle = true;
	bool pc_on = spin_lock_irqsave(&w->pc->lock);
	list_for_each(it, &w->pc->wb_inflight) {
		struct pc_wb *wb = list_entry(it, struct pc_wb, link);
		if (wb->seq > w->seq)
			break;
		if (wb->first < w->to && wb->last >= w->from) {
			idle = false;
			break;
		}
	}
	spin_unlock_irqrestore(&w->pc->lock, pc_on);
	return idle;
}

/* Wait for the write-back of [from, to) that has started by now (Linux's
 * filemap_fdatawait_range): not for writes that start later, nor for
 * other ranges of the disk.  Waiting for the whole disk's write-back
 * to end, as before, let a writer elsewhere on the disk hold an fsync
 * for as long as it kept writing. */
static void wait_range(struct pagecache *pc, uint64_t from, uint64_t to)
{
	struct range_wait w = { pc, from, to, 0 };
	bool pc_on = spin_lock_irqsave(&pc->lock);
	w.seq = pc->wb_seq;
	spin_unlock_irqrestore(&pc->lock, pc_on);
	if (range_idle(&w))
		return;
	sched_io_wait_begin();
	wait_event_timeout(&G.wb_wq, range_idle, &w, 0);
	sched_io_wait_end();
}

/* Write the range's dirty pages and wait for them (Linux's
 * filemap_write_and_wait_range, as fsync uses it).  Twice: a page
 * dirtied again while an earlier write of it was in flight is skipped by
 * the first pass (Linux waits on it instead). */
static void write_and_wait_range(struct pagecache *pc, uint64_t from, uint64_t to)
{
	writeback_range(pc, from, to, false);
	wait_range(pc, from, to);
	writeback_range(pc, from, to, false);
	wait_range(pc, from, to);
}

void pagecache_sync_all(void)
{
	mutex_lock(&G.lock);
	struct pagecache *list = G.caches;
	mutex_unlock(&G.lock);
	for (struct pagecache *pc = list; pc; pc = pc->next)    /* all writes first, then the waits */
		writeback_range(pc, 0, pc_pages(pc), false);
	for (struct pagecache *pc = list; pc; pc = pc->next)
		write_and_wait_range(pc, 0, pc_pages(pc));
}

int pagecache_syncfs(struct pagecache_file *f)
{
	struct pagecache *pc = f->pc;
	write_and_wait_range(pc, 0, pc_pages(pc));
	uint64_t now = __atomic_load_n(&pc->wb_err, __ATOMIC_ACQUIRE);
	bool failed = now != f->sb_err_seen;
	f->sb_err_seen = now;
	return failed ? -EIO : 0;
}

int pagecache_fsync(struct pagecache_file *f)
{
	uint64_t from = f->base >> PAGE_SHIFT, to = (f->base + f->size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	struct pagecache *pc = f->pc;
	write_and_wait_range(pc, from, to);
	uint64_t now;
	bool failed = failed_since(pc, f->wb_err_seen, f->base, f->base + f->size, &now);
	f->wb_err_seen = now;           /* each failure once, as Linux's errseq */
	return failed ? -EIO : 0;
}

/* ---------------------------------------------------------------- dirty limits */

static void limits(uint64_t *bg, uint64_t *thresh)
{
	uint64_t dirtyable = pmm_free_pages() + __atomic_load_n(&G.nr_pages, __ATOMIC_RELAXED);
	pagecache_dirty_limits(dirtyable, pagecache_dirty_background_ratio, pagecache_dirty_ratio, bg, thresh);
}

static uint64_t nr_unwritten(void)
{
	return __atomic_load_n(&G.nr_dirty, __ATOMIC_RELAXED) + __atomic_load_n(&G.nr_writeback, __ATOMIC_RELAXED);
}

static enum pagecache_dirty_state dirty_state(void)
{
	uint64_t bg, th;
	limits(&bg, &th);
	return pagecache_dirty_state(nr_unwritten(), bg, th);
}

static void kick_flusher(void)
{
	if (!G.flush_kick) {
		G.flush_kick = true;
		waitq_wake_all(&G.flush_wq);
	}
}

static bool dirty_below_thresh(void *arg)
{
	(void)arg;
	return dirty_state() != PAGECACHE_DIRTY_THROTTLE;
}

/* Linux's balance_dirty_pages in spirit: past the background limit the
 * flusher is woken; past dirty_ratio the writer waits for write-back to
 * bring the count down (it does not write itself: one writer, the
 * flusher, keeps the disk's writes sequential). */
void pagecache_balance_dirty(void)
{
	enum pagecache_dirty_state s = dirty_state();
	if (s == PAGECACHE_DIRTY_FREE)
		return;
	kick_flusher();
	while (dirty_state() == PAGECACHE_DIRTY_THROTTLE) {
		kick_flusher();
		sched_io_wait_begin();
		wait_event_timeout(&G.wb_wq, dirty_below_thresh, NULL, 100000000ull);
		sched_io_wait_end();
	}
}

/* ---------------------------------------------------------------- flusher */

static bool flush_wanted(void *arg)
{
	(void)arg;
	return G.flush_kick;
}

static bool over_background(void)
{
	uint64_t bg, th;
	limits(&bg, &th);
	return __atomic_load_n(&G.nr_dirty, __ATOMIC_RELAXED) > bg;
}

/* Past the background limit the flusher writes until the cache's dirty
 * pages are under it again, PC_BG_CHUNK pages at a time, going on where
 * its last pass stopped (Linux's wb_writeback for_background, with the
 * inode's writeback_index): pages dirtied again soon after - a mapped
 * writer's hot set - wait for the next round, not every one.  Only
 * dirty pages count here, not those under write-back (Linux's
 * wb_over_bg_thresh): they are on their way.  Once the cache has been
 * dirty for dirty_expire, it is written whole, as Linux writes an
 * expired inode (a block device is one inode). */
static void flush_cache(struct pagecache *pc, bool background)
{
	bool pc_on = spin_lock_irqsave(&pc->lock);
	uint64_t dirty = pc->nr_dirty, since = pc->dirtied_ns;
	spin_unlock_irqrestore(&pc->lock, pc_on);
	uint64_t expire = (uint64_t)pagecache_dirty_expire_cs * 10000000ull;
	bool expired = time_ns() - since >= expire;
	if (!dirty || (!background && !expired))
		return;
	if (expired) {
		writeback_some(pc, 0, pc_pages(pc), false, UINT64_MAX, NULL, PC_BG_DEPTH);
		return;
	}
	uint64_t end = pc_pages(pc), at = pc->wb_next < end ? pc->wb_next : 0, stop = at;
	bool wrapped = false;
	while (over_background()) {
		uint64_t to = wrapped ? stop : end;
		writeback_some(pc, at, to, false, PC_BG_CHUNK, &at, PC_BG_DEPTH);
		if (at < to)
			continue;
		if (wrapped || !stop)
			break;          /* once round */
		wrapped = true;
		at = 0;
	}
	pc->wb_next = at;
}

static void flusher(void *arg)
{
	(void)arg;
	for (;;) {
		wait_event_timeout(&G.flush_wq, flush_wanted, NULL, PC_FLUSH_INTERVAL_NS);
		G.flush_kick = false;
		bool background = dirty_state() != PAGECACHE_DIRTY_FREE;
		mutex_lock(&G.lock);
		struct pagecache *list = G.caches;
		mutex_unlock(&G.lock);
		for (struct pagecache *pc = list; pc; pc = pc->next)
			flush_cache(pc, background);
	}
}

/* ---------------------------------------------------------------- reclaim */

int pagecache_reclaim_page(struct page *p, bool *activate)
{
	struct pagecache *pc = p->mapping;
	*activate = false;
	if (!trylock_page(p))
		return 0;
	if (!page_test(p, PG_FILE) || !pc || page_test(p, PG_WRITEBACK)) {
		unlock_page(p);
		return 0;
	}
	if (page_test(p, PG_DIRTY)) {
		/* Dirty pages are written first (Linux's pageout of a file
		 * page): start it, keep the page inactive, drop it next time. */
		unlock_page(p);
		writeback_range(pc, p->index, p->index + 1, true);
		return 0;
	}
	/* References: the index's and our isolation's; any other is a
	 * reader or writer about to use it. */
	bool gone = remove_if(pc, p, 2, true);
	unlock_page(p);
	if (gone)
		put_page(p);            /* the isolation reference: the page is freed */
	return gone;
}

uint64_t pagecache_drop_clean(void)
{
	uint64_t dropped = 0;
	mutex_lock(&G.lock);
	struct pagecache *list = G.caches;
	mutex_unlock(&G.lock);
	for (struct pagecache *pc = list; pc; pc = pc->next) {
		/* Again while pages are dirty, at most 3 passes: a page
		 * kswapd was writing when the pass came by is skipped, and
		 * kswapd's nowait write gives it back dirty if it found no
		 * request structure (as fsync's second pass). */
		for (int pass = 0; pass < 3 && __atomic_load_n(&pc->nr_dirty, __ATOMIC_ACQUIRE); pass++) {
			writeback_range(pc, 0, pc_pages(pc), false);
			wait_writeback(pc);
		}
		for (uint64_t i = 0, at;; i = at + 1) {
			bool pc_on = spin_lock_irqsave(&pc->lock);
			struct page *p = pagecache_idx_next(&pc->idx, i, &at);
			if (pagecache_idx_is_value(p)) {
				pagecache_idx_del(&pc->idx, at);        /* shadows go too */
				__atomic_sub_fetch(&G.nr_shadows, 1, __ATOMIC_RELAXED);
				spin_unlock_irqrestore(&pc->lock, pc_on);
				continue;
			}
			if (p)
				get_page(p);
			spin_unlock_irqrestore(&pc->lock, pc_on);
			if (!p)
				break;
			if (trylock_page(p)) {
				dropped += remove_if(pc, p, 2, false);
				unlock_page(p);
			}
			put_page(p);
		}
	}
	return dropped;
}

/* ---------------------------------------------------------------- fadvise */

/* Drop the clean pages of [from, to) that only the index holds. */
static void drop_range(struct pagecache *pc, uint64_t from, uint64_t to)
{
	for (uint64_t i = from, at; i < to; i = at + 1) {
		bool pc_on = spin_lock_irqsave(&pc->lock);
		struct page *p = next_page(pc, i, &at);
		if (p && at < to)
			get_page(p);
		spin_unlock_irqrestore(&pc->lock, pc_on);
		if (!p || at >= to)
			break;
		if (trylock_page(p)) {
			remove_if(pc, p, 2, false);
			unlock_page(p);
		}
		put_page(p);
	}
}

void pagecache_willneed(struct pagecache *pc, uint64_t from, uint64_t to)
{
	uint64_t max = blk_max_pages(pc->disk) > PC_RA_MAX ? blk_max_pages(pc->disk) : PC_RA_MAX;
	if (to > pc_pages(pc))
		to = pc_pages(pc);
	if (to > from && to - from > max)
		to = from + max;        /* Linux 6.1 reads no more, however large the range */
	for (uint64_t i = from; i < to; i += PC_RA_MAX)
		read_pages(pc, i, (uint32_t)(to - i < PC_RA_MAX ? to - i : PC_RA_MAX), ~0ull, ~0ull, 0);
}

void pagecache_pageout(struct pagecache *pc, uint64_t from, uint64_t to)
{
	drop_range(pc, from, to);
}

int pagecache_fadvise(struct pagecache_file *f, uint64_t off, uint64_t len, int advice)
{
	struct pagecache *pc = f->pc;
	if (off >= f->size)
		return 0;
	uint64_t end = !len || len > f->size - off ? f->size : off + len;
	uint64_t from = (f->base + off) >> PAGE_SHIFT, to = (f->base + end + PAGE_SIZE - 1) >> PAGE_SHIFT;
	switch (advice) {
	case 0:
		f->random = false;
		break;
	case 1:
		f->random = true;
		break;
	case 3:
		pagecache_willneed(pc, from, to);
		break;
	case 4:
		writeback_range(pc, from, to, false);
		drop_range(pc, from, to);
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------- direct I/O */

#define PC_DIO_PAGES 16                 /* bounce pages per request (64 KiB) */

/* After a direct write of disk bytes [at, at+len): no cached page may
 * keep the old bytes.  A clean page only the index holds is dropped
 * (Linux's invalidate_inode_pages2_range); one that stays (mapped, in
 * use, dirtied again meanwhile) gets the new bytes copied in, so readers
 * of the cache and the disk agree.  Linux instead falls back to a
 * buffered write when it cannot invalidate; the result for a reader is
 * the same.  src: the bytes written. */
static void dio_invalidate(struct pagecache *pc, uint64_t at, uint64_t len, const char *const *src)
{
	for (uint64_t i = at >> PAGE_SHIFT, at_end = at + len; (i << PAGE_SHIFT) < at_end; i++) {
		struct page *p = find_get(pc, i);
		if (!p)
			continue;
		lock_page(p);
		if (p->mapping == pc && !page_test(p, PG_ERROR) && !remove_if(pc, p, 2, false)) {
			uint64_t s = i << PAGE_SHIFT > at ? i << PAGE_SHIFT : at;
			uint64_t e = (i + 1) << PAGE_SHIFT < at_end ? (i + 1) << PAGE_SHIFT : at_end;
			for (uint64_t b = s; b < e;) {
				/* src is one bounce page per PAGE_SIZE of the request */
				uint64_t k = (b - at) >> PAGE_SHIFT, in = (b - at) & (PAGE_SIZE - 1);
				uint64_t n = PAGE_SIZE - in < e - b ? PAGE_SIZE - in : e - b;
				memcpy((char *)page_address(p) + (b & (PAGE_SIZE - 1)), src[k] + in, n);
				b += n;
			}
		}
		unlock_page(p);
		put_page(p);
	}
}

/* One direct request of up to PC_DIO_PAGES bounce pages at device byte
 * off.  Returns 0 or an error. */
static int dio_chunk(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n, bool write,
		     struct page **bounce)
{
	struct blk_seg segs[PC_DIO_PAGES];
	const char *src[PC_DIO_PAGES];
	uint32_t ns = 0;
	for (uint64_t done = 0; done < n; done += PAGE_SIZE, ns++) {
		uint64_t len = n - done < PAGE_SIZE ? n - done : PAGE_SIZE;
		src[ns] = page_address(bounce[ns]);
		segs[ns] = (struct blk_seg){ page_to_phys(bounce[ns]), (uint32_t)len };
		if (write && copy_from_user(page_address(bounce[ns]), ubuf + done, len))
			return -EFAULT;
	}
	uint32_t bs = blk_block_size(f->dev);
	int err = blk_rw_segs(f->dev, write ? BLK_WRITE : BLK_READ, off / bs, segs, ns);
	/* Linux's submit_bio counts every bio, direct ones too. */
	vmstat_add(write ? PGPGOUT : PGPGIN, n >> 10);
	if (err)
		return -EIO;
	if (write) {
		dio_invalidate(f->pc, f->base + off, n, src);
		return 0;
	}
	for (uint32_t k = 0; k < ns; k++) {
		uint64_t len = n - (uint64_t)k * PAGE_SIZE < PAGE_SIZE ? n - (uint64_t)k * PAGE_SIZE : PAGE_SIZE;
		if (copy_to_user(ubuf + (uint64_t)k * PAGE_SIZE, src[k], len))
			return -EFAULT;
	}
	return 0;
}

long pagecache_direct_io(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n, bool write)
{
	uint64_t bs = blk_block_size(f->dev);
	if ((off | ubuf | n) & (bs - 1))
		return -EINVAL;
	if (write && !f->writable)
		return -EBADF;
	if (!n)
		return 0;
	if (off >= f->size)
		return write ? -ENOSPC : 0;
	if (n > f->size - off)
		n = f->size - off;
	/* Cached data the disk has not seen yet goes there first, so the
	 * direct read sees it and the direct write is not overwritten by it
	 * later (Linux's filemap_write_and_wait_range). */
	uint64_t from = (f->base + off) >> PAGE_SHIFT, to = (f->base + off + n + PAGE_SIZE - 1) >> PAGE_SHIFT;
	writeback_range(f->pc, from, to, false);
	wait_range(f->pc, from, to);
	struct page *bounce[PC_DIO_PAGES];
	uint32_t nb = 0;
	uint64_t want = (n + PAGE_SIZE - 1) >> PAGE_SHIFT;
	for (; nb < PC_DIO_PAGES && nb < want; nb++)
		if (!(bounce[nb] = alloc_user_page(false)))
			break;
	long r = nb ? 0 : -ENOMEM;
	uint64_t done = 0;
	while (!r && done < n) {
		uint64_t chunk = n - done < (uint64_t)nb * PAGE_SIZE ? n - done : (uint64_t)nb * PAGE_SIZE;
		r = dio_chunk(f, off + done, ubuf + done, chunk, write, bounce);
		if (!r)
			done += chunk;
	}
	for (uint32_t k = 0; k < nb; k++)
		put_page(bounce[k]);
	return done ? (long)done : r;
}

/* ---------------------------------------------------------------- mappings */

#define PC_FAULT_AROUND 32              /* Linux's mmap read-around: ra_pages */

/* Racy as Linux's READ_ONCE/WRITE_ONCE of mmap_miss: faults of one mm
 * on several CPUs may lose a count now and then. */
static void count_mmap_miss(uint32_t *miss, uint64_t *last, uint64_t idx, bool hit)
{
	uint32_t m = __atomic_load_n(miss, __ATOMIC_RELAXED);
	uint32_t n = pagecache_mmap_miss(m, hit, idx, __atomic_load_n(last, __ATOMIC_RELAXED));
	if (n != m)
		__atomic_store_n(miss, n, __ATOMIC_RELAXED);
	if (!hit)
		__atomic_store_n(last, idx, __ATOMIC_RELAXED);
}

struct page *pagecache_fault_page(struct pagecache *pc, uint64_t idx, enum pagecache_fault_hint hint,
				  uint32_t *mmap_miss, uint64_t *mmap_last, bool *major, int *err)
{
	*major = false;
	if (idx >= pc_pages(pc)) {
		*err = -EFAULT;
		return NULL;
	}
	bool normal = hint == PAGECACHE_FAULT_NORMAL;
again:;
	struct page *p = find_get(pc, idx);
	if (normal)
		count_mmap_miss(mmap_miss, mmap_last, idx, p != NULL);
	if (!p) {
		bool around = normal && pagecache_mmap_read_around(__atomic_load_n(mmap_miss, __ATOMIC_RELAXED));
		bool one = hint == PAGECACHE_FAULT_RANDOM || (normal && !around);
		uint64_t start = !around || idx < PC_FAULT_AROUND / 2 ? idx : idx - PC_FAULT_AROUND / 2;
		uint32_t n = one ? 1 : PC_FAULT_AROUND;
		read_pages(pc, start, n, one ? ~0ull : start + n - n / 4, idx, one ? 0 : PC_STREAM_NEXT);
		p = find_get(pc, idx);
		*major = true;
	} else if (page_test_clear(p, PG_RA_MARK)) {
		/* The stream reached the window's last quarter: the next
		 * window, read while this one is used. */
		read_pages(pc, idx + 1, PC_FAULT_AROUND, idx + 1 + PC_FAULT_AROUND - PC_FAULT_AROUND / 4, ~0ull,
			   PC_STREAM_NEXT);
	}
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	int s = settle(pc, p, err);
	if (!s)
		goto again;
	return s > 0 ? p : NULL;
}

void pagecache_set_page_dirty(struct page *p)
{
	struct pagecache *pc = p->mapping;
	if (page_test(p, PG_FILE) && pc)
		set_dirty(pc, p);
}

int pagecache_sync_pages(struct pagecache *pc, uint64_t from, uint64_t to, bool wait)
{
	uint64_t errs = __atomic_load_n(&pc->wb_err, __ATOMIC_ACQUIRE);
	if (!wait) {
		writeback_range(pc, from, to, false);
		return 0;
	}
	write_and_wait_range(pc, from, to);
	uint64_t now;
	return failed_since(pc, errs, from << PAGE_SHIFT, to << PAGE_SHIFT, &now) ? -EIO : 0;
}

/* Without G.lock (the VMA hooks run under an mm's vmas_lock): caches are only ever
 * added, at the head, published with a release store. */
bool pagecache_is_cache(const void *obj)
{
	for (struct pagecache *pc = __atomic_load_n(&G.caches, __ATOMIC_ACQUIRE); pc; pc = pc->next)
		if (pc == obj)
			return true;
	return false;
}

struct pagecache *pagecache_of_file(const struct pagecache_file *f) { return f->pc; }

uint64_t pagecache_nr_pages(void) { return __atomic_load_n(&G.nr_pages, __ATOMIC_RELAXED); }
uint64_t pagecache_nr_dirty(void) { return __atomic_load_n(&G.nr_dirty, __ATOMIC_RELAXED); }
uint64_t pagecache_nr_shadows(void) { return __atomic_load_n(&G.nr_shadows, __ATOMIC_RELAXED); }
uint64_t pagecache_nr_writeback(void) { return __atomic_load_n(&G.nr_writeback, __ATOMIC_RELAXED); }

/* ---------------------------------------------------------------- init */

static void allow_item(char *item)
{
	struct blk_dev *d = blk_find_linux(item);
	if (!d)
		kprintf("data: %s: no such block device; ignored\n", item);
	else
		pagecache_allow_write(d, "data");
}

void pagecache_init(void)
{
	mutex_init(&G.lock, "pagecache");
	waitq_init(&G.wb_wq, "pc-writeback");
	waitq_init(&G.flush_wq, "flusher");
	char buf[sizeof kcfg.data];
	memcpy(buf, kcfg.data, sizeof buf);
	for (char *p = buf; p && *p;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma++ = 0;
		if (*p)
			allow_item(p);
		p = comma;
	}
	pool_fill(&io_pool, "pc-io-pool");
	pool_fill(&wb_pool, "pc-wb-pool");
	thread_create("flusher", flusher, NULL, SCHED_NORMAL);
}
