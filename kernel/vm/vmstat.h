/*
 * Memory-management counters under Linux's /proc/vmstat names, so tables
 * line up column for column with Linux's.  Event counters only grow;
 * gauges (nr_*) are read on demand.
 */
#ifndef VMSTAT_H
#define VMSTAT_H

#include <stdint.h>

enum vmstat_item {
	PGFAULT, PGMAJFAULT, PGPGIN, PGPGOUT, PSWPIN, PSWPOUT,
	PGSCAN_KSWAPD, PGSCAN_DIRECT, PGSTEAL_KSWAPD, PGSTEAL_DIRECT,
	PGACTIVATE, PGDEACTIVATE, PGROTATED, PGREFILL,
	SWAP_RA, SWAP_RA_HIT, SWAP_RA_WASTE, SWAP_RA_TRIMMED, SWAP_RA_WAIT, SWAP_RA_FILL, SWAP_RA_FILL_HIT,
	SWAP_RA_SPLIT,
	SWAPCACHE_ADD, SWAPCACHE_FIND, SWAPCACHE_FIND_HIT, SWAPCACHE_DEL,
	/* In enum ws_kind's order (workingset.c indexes them by kind). */
	WORKINGSET_REFAULT_ANON, WORKINGSET_REFAULT_SHMEM, WORKINGSET_REFAULT_FILE,
	WORKINGSET_ACTIVATE_ANON, WORKINGSET_ACTIVATE_SHMEM, WORKINGSET_ACTIVATE_FILE,
	WORKINGSET_RESTORE_ANON, WORKINGSET_RESTORE_SHMEM, WORKINGSET_RESTORE_FILE,
	SWAP_WRITE_ERRORS, SWAP_READ_ERRORS, SWAP_CRC_MISMATCH,
	OOM_KILL, ALLOCSTALL, KSWAPD_WAKEUPS,
	SWAP_WRITE_REQS, SWAP_READ_REQS,
	PGSCAN_FILE, PGSTEAL_FILE,
	TLB_SHOOTDOWN_IPIS, TLB_SHOOTDOWN_PAGES,
	/* Concurrent reclaim (reclaim.c): rounds begun while another ran;
	 * direct reclaimers that waited for a context; direct reclaim calls
	 * that found free memory back above min and scanned nothing. */
	RECLAIM_OVERLAP, RECLAIM_DIRECT_WAITED, RECLAIM_DIRECT_SKIPPED,
	/* Faults that took mm->lock while another fault of the same mm held
	 * it (vm.c): 0 while faults of one address space were serialised. */
	FAULT_OVERLAP,
	/* First looks ahead of need (reclaim.c, age_ahead): pages found
	 * referenced (bits cleared, PG_AGE_REF) before memory ran short. */
	PGAGE_AHEAD,
	/* Shmem pages reclaim found after their object was destroyed (another
	 * reference had kept them): let go as orphans (reclaim.c). */
	SHMEM_ORPHANS,
	/* Allocations below the min watermark that waited for kswapd's
	 * round instead of reclaiming themselves (reclaim.c, alloc_user). */
	RECLAIM_KSWAPD_WAITED,
	VMSTAT_NITEMS
};

void vmstat_add(enum vmstat_item i, uint64_t n);
static inline void vmstat_inc(enum vmstat_item i) { vmstat_add(i, 1); }
uint64_t vmstat_get(enum vmstat_item i);
const char *vmstat_name(enum vmstat_item i);
void vmstat_snapshot(uint64_t out[VMSTAT_NITEMS]);

struct json;
/* All counters and gauges as members of the current JSON object. */
void vmstat_json(struct json *j);
/* Counters since `base` (a snapshot) as members. */
void vmstat_json_delta(struct json *j, const uint64_t base[VMSTAT_NITEMS]);
/* A {"type":"vmstat",...} record (label may be NULL). */
void vmstat_record(const char *label);

/* The whole-run vmstat record (a halt hook). */
void vmstat_final(void);

/* `vmstat 1`: a line every interval_ms with free, swpd, si, so, bi, bo,
 * runnable, blocked.  0 stops it. */
void vmstat_sampler(uint64_t interval_ms);

#endif
