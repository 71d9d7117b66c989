/*
 * The page cache: file pages of block devices.  One cache per whole disk,
 * indexed by page offset on the disk (pagecache_idx.h); a partition's
 * file maps into its disk's cache at the partition's byte offset, so the
 * disk and its partitions never hold two copies of one block.
 *
 * Callers (the file layer, kernel/proc/file.c) open a `struct
 * pagecache_file` on a device and read and write through it at byte
 * offsets within the device.  Reads fill the cache with Linux's file
 * read-ahead (pagecache_policy.h); writes copy into cached pages and
 * mark them dirty; a flusher thread writes dirty pages back when they
 * expire (dirty_expire_centisecs) or when dirty memory passes
 * dirty_background_ratio, and writers past dirty_ratio wait for
 * writeback.  fsync writes and waits, and reports a failed write of the
 * file's bytes once per open file (-EIO), as Linux's errseq.
 *
 * Write safety: a device can be written through the cache only after
 * pagecache_allow_write() (data= on the command line, `data DEV` in a
 * script); write-back sends each dirty page only to the allowed devices
 * it overlaps, and only their blocks of it.
 *
 * File pages sit on the LRU_FILE lists (PG_FILE, mapping = the cache,
 * index = page offset); reclaim.c drops clean ones through
 * pagecache_reclaim_page and has dirty ones written first.
 *
 * Every call may sleep unless it says otherwise.
 */
#ifndef PAGECACHE_H
#define PAGECACHE_H

#include <stdint.h>
#include <stdbool.h>
#include "pagecache_policy.h"

struct blk_dev;
struct page;
struct pagecache;
struct json;

struct pagecache_file {
	struct blk_dev *dev;            /* as opened (a disk or a partition) */
	struct pagecache *pc;           /* its disk's cache */
	uint64_t base;                  /* byte offset of dev on the disk */
	uint64_t size;                  /* bytes */
	bool writable;
	uint64_t wb_err_seen;           /* the cache's error count when fsync last reported */
	uint64_t sb_err_seen;           /* ... when syncfs last reported (Linux's f_sb_err) */
	bool random;                    /* POSIX_FADV_RANDOM: no read-ahead */
	struct pagecache_ra ra;
};

/* Boot: caches for the registered disks, and data= applied. */
void pagecache_init(void);

/* Allow file writes to d (data=, `data DEV`): 0, or -EACCES with a
 * one-line console message naming d and why (the boot partition, the
 * boot disk, an active swap area). */
int pagecache_allow_write(struct blk_dev *d, const char *who);
bool pagecache_write_allowed(const struct blk_dev *d);

/* Open: fills f (writable as asked; the caller checked permission). */
int pagecache_open(struct pagecache_file *f, struct blk_dev *d, bool writable);

/* Buffered I/O between the device at byte `off` and user memory.
 * Return bytes done, or an error when nothing was (-EIO, -EFAULT,
 * -ENOMEM, -ENOSPC for a write at or past the end). */
long pagecache_read(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n);
long pagecache_write(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n);
/* O_DIRECT: the I/O goes between the device and user memory through
 * kernel bounce pages (user pages are not pinned: this kernel has no
 * get_user_pages), without caching.  off, ubuf and n must be multiples
 * of the device's logical block size (-EINVAL).  Dirty cached pages of
 * the range are written back first; after a write no cached page keeps
 * the old bytes.  Bytes done, or an error when nothing was. */
long pagecache_direct_io(struct pagecache_file *f, uint64_t off, uint64_t ubuf, uint64_t n, bool write);
/* Write f's dirty pages back and wait for the write-back of its range
 * started by then (not for the rest of the disk); -EIO once for a failed
 * write of its bytes since the last report (not another partition's). */
int pagecache_fsync(struct pagecache_file *f);
/* sync(2): write back every cache's dirty pages and wait for them (the
 * write-back started by then, as fsync); it reports no failed write, as
 * Linux's.  syncfs(2) on a device: the same for its disk only, then
 * -EIO once per open file for a failed write anywhere on the disk since
 * its last syncfs (or its open): a disk is our filesystem (Linux 5.8+
 * keeps one such count per filesystem, f_sb_err beside fsync's f_wb_err;
 * for block devices one for all of them, their pseudo-filesystem's). */
void pagecache_sync_all(void);
int pagecache_syncfs(struct pagecache_file *f);

/* posix_fadvise on [off, off+len) of the device (len 0: to its end):
 * WILLNEED (3) starts reading the range (pagecache_willneed), DONTNEED (4) starts write-back of its
 * dirty pages and drops its clean ones nobody uses, RANDOM (1) turns
 * read-ahead off for this open file, NORMAL (0) back on; SEQUENTIAL (2)
 * and NOREUSE (5) change nothing here.  Returns 0. */
int pagecache_fadvise(struct pagecache_file *f, uint64_t off, uint64_t len, int advice);

/* Reclaim (reclaim.c), on an isolated page of LRU_FILE: 1 when it was
 * dropped (the isolation reference is gone with it); 0 when it stays
 * (the caller puts it back: inactive when *activate is false).  Dirty
 * pages get their write-back started and stay. */
int pagecache_reclaim_page(struct page *p, bool *activate);
/* A buffered access to a cached page: Linux's mark_page_accessed (first
 * access: PG_REFERENCED; second while inactive: activate). */
void pagecache_mark_accessed(struct page *p);

/* Memory mappings of block devices (vm.c).  The page at offset idx of
 * pc's disk, read if need be: NORMAL reads around it (a window of 32
 * pages centred on it) while the area's *mmap_miss allows it
 * (pagecache_mmap_read_around; NORMAL faults count their misses and hits
 * there, and the page of the last miss in *mmap_last), else the page
 * only; SEQUENTIAL (MADV_SEQUENTIAL) the 32 pages from it on (Linux
 * 6.1's VM_SEQ_READ: a sync read-ahead of ra_pages forward);
 * both read the next window when the marker in the last quarter is
 * reached; RANDOM reads the page only.  *major when the page was not in
 * the cache (Linux's rule: finding it cached and still being read is a
 * minor fault).  A reference, or NULL with *err (-EIO: the read failed;
 * -ENOMEM). */
enum pagecache_fault_hint { PAGECACHE_FAULT_NORMAL, PAGECACHE_FAULT_RANDOM, PAGECACHE_FAULT_SEQUENTIAL };
struct page *pagecache_fault_page(struct pagecache *pc, uint64_t idx, enum pagecache_fault_hint hint,
				  uint32_t *mmap_miss, uint64_t *mmap_last, bool *major, int *err);
/* MADV_WILLNEED, POSIX_FADV_WILLNEED: start reading pages [from, to) of
 * pc's disk without waiting, as Linux's force_page_cache_ra: at most
 * max(the device's largest request, 32 pages) from `from` on, and only
 * while free memory is above the low watermark. */
void pagecache_willneed(struct pagecache *pc, uint64_t from, uint64_t to);
/* MADV_PAGEOUT after the caller unmapped [from, to) (page offsets): its
 * clean pages that nobody else holds or maps are dropped; dirty ones
 * stay (Linux's reclaim_pages writes no file page outside kswapd). */
void pagecache_pageout(struct pagecache *pc, uint64_t from, uint64_t to);
/* A shared mapping's PTE was dirty: the page is dirty (any context that
 * may take a spinlock; a page-table lock may be held). */
void pagecache_set_page_dirty(struct page *p);
/* The dirty limits for a task that has just dirtied pages (write(2), or
 * a write fault on a shared mapping): past the background limit the
 * flusher is woken, past dirty_ratio the caller waits for write-back.
 * May sleep; hold no lock. */
void pagecache_balance_dirty(void);
/* msync: write back pc's dirty pages in [from, to) (page offsets); wait
 * when asked.  -EIO when a write-back of pc failed meanwhile. */
int pagecache_sync_pages(struct pagecache *pc, uint64_t from, uint64_t to, bool wait);
/* Is obj a page cache (a file mapping's area object)? */
bool pagecache_is_cache(const void *obj);
/* The cache behind an open device file, and its first page on the disk
 * (-EINVAL when the device does not start on a page boundary). */
struct pagecache *pagecache_of_file(const struct pagecache_file *f);

/* drop_caches: write back what is dirty, wait, drop every clean page
 * nobody holds and every workingset shadow.  Returns pages dropped. */
uint64_t pagecache_drop_clean(void);

/* Gauges (pages). */
uint64_t pagecache_nr_pages(void);
uint64_t pagecache_nr_dirty(void);
uint64_t pagecache_nr_writeback(void);
/* Workingset shadows of evicted file pages kept in the caches' indexes. */
uint64_t pagecache_nr_shadows(void);

/* Knobs (knobs.c): Linux's names and defaults (10, 20, 3000). */
extern unsigned pagecache_dirty_background_ratio;
extern unsigned pagecache_dirty_ratio;
extern unsigned pagecache_dirty_expire_cs;
/* Knob dirty_mmap: shared file mappings mark pages dirty at the write
 * fault and write-back write-protects them (default on). */
extern bool pagecache_dirty_mmap;

#endif
