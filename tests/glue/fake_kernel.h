/*
 * The fakes the glue tests build the real kernel files against, and what
 * they count for the tests to judge.  Three files, each standing in for
 * one side of the code under test:
 *
 *   fake_kernel.c  heap, console, vmstat, panic, and the scheduler seen
 *                  from one thread: a wait that would sleep runs the
 *                  pending I/O completions instead (an interrupt arriving),
 *                  and dies if none is pending (a sleep for ever);
 *   fake_mm.c      the frame allocator (a pool of frames with a settable
 *                  number free), page tables (a map from (root, va) to a
 *                  PTE word with present/write/accessed/dirty bits),
 *                  vm_install, a test address space;
 *   fake_swap.c    slot counts, swap areas with a slot allocator, a "disk"
 *                  keeping one tag word per slot, and asynchronous page I/O
 *                  that completes on demand, with injectable errors.
 *
 * fake_mm.c also stands in for the page cache (pagecache.h) as reclaim
 * sees it: pagecache_reclaim_page.
 *
 * Real and linked with them: swapcache.c, swapin.c, readahead.c,
 * ra_policy.c, reclaim.c, lru.c, lru_policy.c, rmap.c, page_ref.c,
 * shmem.c.
 */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include "vm/vmstat.h"
#include "vm/vm.h"
#include "swap/ra_policy.h"

struct page;

#define FAKE_FRAMES 2048        /* the frame pool */
#define FAKE_AREAS 4
#define FAKE_IO_MAX 512         /* requests in flight */
#define FAKE_RUN_MAX 256        /* pages per request */

struct fake_state {
	long live_allocs;               /* kmalloc'd blocks not yet freed */
	int fail_allocs;                /* the n-th kmalloc from now fails (0: none) */
	uint64_t vmstat[VMSTAT_NITEMS];
	char last_msg[256];             /* the last kprintf line */
	long msgs;
	/* scheduler */
	long sleeps, io_waits_open;     /* sleep_ms calls; sched_io_wait begin - end */
	long kswapd_wakes;              /* waitq_wake_all on the "kswapd" queue */
	void (*thread_fn)(void *);      /* the last thread_create'd */
	void *escape;                   /* jmp_buf *: a wait that would sleep for ever jumps there */
	/* swap I/O */
	long read_reqs, write_reqs;     /* requests submitted */
	long read_pages, write_pages;
	uint32_t max_run;               /* swap_max_run (default 64) */
	uint32_t read_max;              /* swap_read_max (default 0: max_run) */
	bool crc_on;                    /* swapcrc=on */
	int fail_submit;                /* the n-th submit from now fails (0: none) */
	long plugs, unplugs;
	bool plugged[FAKE_AREAS];
	/* TLB (fake_mm.c) */
	long tlb_unflushed;             /* PTE changes added to a tlb_batch, not flushed yet */
	long tlb_flushes;               /* vm_tlb_flush calls that had something */
	long tlb_writes_unflushed;      /* swap writes submitted while tlb_unflushed > 0 */
	/* readahead */
	bool ra_spy;                    /* readahead.c gets fake_ra_spy_ops */
	/* the page cache (fake_mm.c) */
	long file_dropped, file_writebacks;     /* pagecache_reclaim_page: pages dropped, writes started */
};
extern struct fake_state fake;

/* Everything back to a clean machine: no frames in use, no slots, no
 * PTEs, no I/O, counters zero; the swap cache and reclaim initialised
 * (once).  total frames: the machine's size as pmm_get_stats reports it. */
void fake_reset(void);
/* Leaks after a test: frames not free, slots with a count, swap-cache
 * pages, heap blocks, I/O in flight.  Returns how many (0: clean) and
 * prints each kind. */
long fake_leaks(void);

/* ---- fake_mm.c */
/* Exactly n frames free from now on (the rest held back). */
void fake_pmm_set_free(uint64_t n);
uint64_t fake_pmm_used(void);
/* Each frame's contents, reduced to one word. */
uint64_t *fake_page_data(struct page *p);
bool fake_is_frame(const struct page *p);
/* A test address space (not on the heap: only the code's own allocations
 * are counted). */
struct mm *fake_mm_new(void);
void fake_mm_free(struct mm *mm);
struct vma;
void fake_mm_areas(struct mm *mm, struct vma *v, uint32_t n);
/* The PTE at va; set it; mark it accessed (and dirty). */
uint64_t fake_pte(struct mm *mm, uint64_t va);
void fake_set_pte(struct mm *mm, uint64_t va, uint64_t pte);
void fake_touch(struct mm *mm, uint64_t va, bool write);
/* A fresh anonymous page holding `data`, mapped at va (PTE dirty), on the
 * inactive anon list, as a first-touch fault leaves it. */
struct page *fake_map_anon(struct mm *mm, uint64_t va, uint64_t data);
/* Unmap va and drop the page (as munmap). */
void fake_unmap(struct mm *mm, uint64_t va);
/* A fault at va of v (a swap PTE there: swapin_anon; an empty one in a
 * shared area: swapin_shmem), retried as vm.c retries it; a present PTE
 * is OK, an empty private one MAPERR. */
enum vm_fault_result fake_fault(struct mm *mm, struct vma *v, uint64_t va, bool write, struct fault_stats *st);
/* A page-cache page holding `data` (the cache's reference), on the
 * inactive file list; dirty when asked.  pagecache_reclaim_page (the
 * fake) drops clean ones and counts a write started for dirty ones. */
struct page *fake_file_page(uint64_t data, bool dirty);
/* Drop a file page the fake cache still holds (as drop_caches). */
void fake_file_drop(struct page *p);
/* pt flags of a present PTE */
bool fake_pte_writable(uint64_t pte);
/* Reset the frames and page tables (fake_reset calls it). */
void fake_mm_reset(void);

/* ---- fake_swap.c */
/* An area of `slots` slots (slot 0 is the header and never used). */
void fake_swap_add_area(unsigned area, uint64_t slots);
/* A slot holding data (count 1, for its PTE) and the disk word `data`. */
void fake_swap_store(uint64_t entry, uint64_t data);
uint64_t fake_swap_data(uint64_t entry);
/* Change the disk word behind the CRC's back. */
void fake_swap_corrupt(uint64_t entry);
/* Every request touching the slot fails (-EIO): reads, writes. */
void fake_swap_bad(uint64_t entry, bool reads, bool writes);
bool fake_swap_retired(uint64_t entry);
/* How often the slot was read / written (each request counts). */
int fake_swap_reads(uint64_t entry);
int fake_swap_writes(uint64_t entry);
/* The n-th request submitted since the reset: area, first slot, pages. */
bool fake_io_req(long n, bool write, unsigned *area, uint64_t *off, uint32_t *pages);
/* Complete the oldest request in flight; false when none.  All of them. */
bool fake_io_complete_one(void);
long fake_io_complete_all(void);
long fake_io_in_flight(void);
uint64_t fake_swap_used(void);
/* Reset the swap side (fake_reset calls it). */
void fake_swap_reset(void);

/* ---- the readahead spy (--wrap=ra_ops_of): what readahead.c asked the
 * policy and what it answers */
struct fake_ra_call {
	char what;                      /* 'm' miss, 'f' found, 's' slot_read, 'c' window_cut
					 * (ev.idx: the window's start, in_use: its steps read) */
	struct ra_ctx ctx;
	struct ra_event ev;
	bool readahead, marker;
	uint32_t in_use;
};
#define FAKE_RA_CALLS 64
extern struct fake_ra_call fake_ra_calls[FAKE_RA_CALLS];
extern int fake_ra_ncalls;
extern struct ra_window fake_ra_answer;         /* miss's window */
extern struct ra_lwin fake_ra_found_answer;     /* found's window */
extern size_t fake_ra_space_size;               /* the spy's space_size (0: none) */
extern bool fake_ra_no_reclaim;                 /* the spy's no_reclaim */

#endif
