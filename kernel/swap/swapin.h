/*
 * Bringing pages back from swap: the fault paths for anonymous and shmem
 * memory, and the reads with readahead behind them.
 */
#ifndef SWAPIN_H
#define SWAPIN_H

#include <stdint.h>
#include <stdbool.h>
#include "vm/vm.h"

/* Fault on a swap PTE.  Called with mm->lock held; sets *dropped when it
 * released it (then the fault is retried). */
enum vm_fault_result swapin_anon(struct mm *mm, const struct vma *v, uint64_t *ra_state, uint64_t va, uint64_t pte,
				 bool write, struct fault_stats *st, bool *dropped);
/* Fault on an empty PTE of a shared area: the object's page, from swap if
 * need be. */
enum vm_fault_result swapin_shmem(struct mm *mm, const struct vma *v, uint64_t va, bool write,
				  struct fault_stats *st, bool *dropped);
/* Swap-in fault latency, from the fault's entry to its page mapped, in
 * two histograms: major faults (read from disk) and faults that found the
 * page in the swap cache (maybe waiting for it).  vm_fault records. */
void swapin_latency_record(uint64_t ns, bool major);
void swapin_latency_reset(void);
/* The latency (ns) at or below which permille/1000 of all swap-in faults
 * (major and cached together) lie since the last reset; 0 when none. */
uint64_t swapin_latency_percentile(unsigned permille);
/* {"major":{"n":..,"p50_ns":..,"p99_ns":..,"max_ns":..},"cached":{...}} as member `name` of j. */
struct json;
void swapin_latency_json(struct json *j, const char *name);

/* MADV_WILLNEED: start reading the swapped-out pages of [start, end). */
void swapin_willneed(struct mm *mm, uint64_t start, uint64_t end);
/* Bring one swapped page back for swapoff: read it if need be and wait.
 * Returns the page with a reference (unlocked), or NULL. */
struct page *swapin_sync(uint64_t entry);

/* swapoff: bring every page of `area` used by mm / by shmem objects back
 * into memory, without a disk copy.  Return pages brought back, or a
 * negative errno. */
long swapin_unuse_mm(struct mm *mm, unsigned area);
long swapin_unuse_shmem(unsigned area);

#endif
