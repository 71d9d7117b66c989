/*
 * Page-cache policy, pure: file read-ahead windows (Linux's on-demand
 * read-ahead, mm/readahead.c), when a mapping reads around a fault, and
 * the dirty-page limits (Linux's
 * dirty_background_ratio / dirty_ratio over dirtyable memory, and the
 * three states of balance_dirty_pages).  pagecache.c applies them; host
 * tests drive them.
 */
#ifndef PAGECACHE_POLICY_H
#define PAGECACHE_POLICY_H

#include <stdint.h>
#include <stdbool.h>

/* Read-ahead state of one open file (Linux's file_ra_state). */
struct pagecache_ra {
	uint64_t start;                 /* first page of the current window */
	uint32_t size;                  /* its pages */
	uint32_t async_size;            /* the last async_size pages of it: the marker sits at their first */
	uint64_t prev;                  /* the last page read + 1 (0: nothing read yet) */
};

/* What to read now. */
struct pagecache_ra_io {
	uint64_t start;
	uint32_t n;                     /* 0: nothing */
	uint64_t mark;                  /* page to mark (async read-ahead starts when it is read); ~0: none */
};

/* A buffered read wants pages [index, index+req) and found page `index`
 * missing (marker_hit false: synchronous read-ahead), or found it cached
 * with the read-ahead marker (marker_hit true: asynchronous, the next
 * window).  max: the largest window (Linux's ra_pages, 32 = 128 KiB).
 * Updates ra and says which pages to read (missing ones only are read).
 *
 * Sequential (index at the window's expected next page, or right after
 * the previous read): the window moves on and grows (x4 while small, x2,
 * then max); a miss at the start of a file or after a sequential read
 * starts a window of about 2-4x the request; a random miss reads just
 * what was asked, no read-ahead. */
struct pagecache_ra_io pagecache_ra_next(struct pagecache_ra *ra, uint64_t index, uint32_t req, bool marker_hit,
					 uint32_t max);

/* The largest window (pagecache_ra_next's max) for a read of req pages:
 * ra_max (read_ahead_kb), unless the read asks for more and the device
 * takes larger commands (io_pages); then the read, up to io_pages, as
 * Linux's ondemand_readahead lets a request that exceeds the window grow
 * to the optimal I/O size (bdi->io_pages). */
uint32_t pagecache_ra_max(uint32_t req, uint32_t ra_max, uint32_t io_pages);

/* mmap read-around, Linux's mmap_miss (mm/filemap.c): a fault on a
 * mapped file that misses the cache counts up (to 10x the limit), one
 * that finds its page counts down; read-around (the pages about the
 * fault) only while the count is at most PAGECACHE_MMAP_LOTSAMISS.  A
 * mapping touched at random misses far more than it hits and then reads
 * only the page it faults on.  The count starts at 0 for each area.
 *
 * Not in Linux: a miss within PAGECACHE_MMAP_NEAR pages of the area's
 * previous miss (last_miss) counts down too.  The read-around about that
 * miss would have brought the page had memory allowed: read-ahead pages
 * are taken only above the low watermark, so under pressure a sequential
 * pass misses where its windows were cut short, and counted as misses
 * those turned read-around off for good (in one boot of five, a pass and
 * a bit over a mapped area 1.5x memory took 28956 major faults instead
 * of 300 to 1900). */
#define PAGECACHE_MMAP_LOTSAMISS 100
#define PAGECACHE_MMAP_NEAR 16
uint32_t pagecache_mmap_miss(uint32_t miss, bool hit, uint64_t idx, uint64_t last_miss);
static inline bool pagecache_mmap_read_around(uint32_t miss) { return miss <= PAGECACHE_MMAP_LOTSAMISS; }

/* Dirty limits in pages over dirtyable memory (free pages plus file
 * pages), as Linux's domain_dirty_limits: background = bg_ratio %,
 * throttle = ratio %; a background limit at or above the throttle one
 * becomes half of it. */
void pagecache_dirty_limits(uint64_t dirtyable, unsigned bg_ratio, unsigned ratio, uint64_t *bg, uint64_t *thresh);

enum pagecache_dirty_state {
	PAGECACHE_DIRTY_FREE,           /* at most bg: the flusher only writes what expired */
	PAGECACHE_DIRTY_BACKGROUND,     /* above bg: the flusher writes until below it; writers run free */
	PAGECACHE_DIRTY_THROTTLE,       /* above thresh: writers wait for writeback */
};

/* nr: dirty + under writeback. */
enum pagecache_dirty_state pagecache_dirty_state(uint64_t nr, uint64_t bg, uint64_t thresh);

/* Failed write-back, remembered by the bytes of the disk each failure
 * was to write.  Linux keeps an error per file (errseq); here partitions
 * share their disk's cache, so a failure is told to the files whose
 * bytes it was to write, not to every file of the disk.  Failure number
 * seq (1, 2, ...) sits at ring[seq % PAGECACHE_ERR_RING]. */
#define PAGECACHE_ERR_RING 16
struct pagecache_err {
	uint64_t seq;
	uint64_t start, end;            /* disk bytes, end exclusive */
};

/* Record failure number n + 1 (n: the failures so far); returns n + 1. */
uint64_t pagecache_err_note(struct pagecache_err *ring, uint64_t n, uint64_t start, uint64_t end);
/* Did a write of [start, end) fail after failure number seen, with n
 * failures so far?  More than PAGECACHE_ERR_RING since seen: their ranges
 * are gone, so yes, to be safe. */
bool pagecache_err_since(const struct pagecache_err *ring, uint64_t n, uint64_t seen, uint64_t start, uint64_t end);

#endif
