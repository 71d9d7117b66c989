/*
 * Overcommit accounting, the pure part (Linux 6.1 mm/util.c:
 * __vm_enough_memory, vm_commit_limit).  kernel/vm/commit.c keeps the
 * count of committed pages (Linux's Committed_AS); vm.c and shmem.c
 * charge it.
 *
 * What is charged (Linux's accountable memory): private writable
 * mappings, brk, private areas when mprotect first makes them writable,
 * and shared anonymous objects (shmem) while they exist; not
 * MAP_NORESERVE mappings, nor shared file mappings, whose pages go back
 * to the file.  A request is added to the count first and judged with
 * it, as Linux does:
 *
 *   mode 0 (heuristic): refused if the one request alone is more than
 *     RAM and swap together;
 *   mode 1 (always): granted;
 *   mode 2 (strict): refused unless the count stays below the commit
 *     limit, swap plus overcommit_ratio % of RAM (or overcommit_kbytes,
 *     when set), less the user reserve: total_vm / 32 of the address
 *     space asking, at most user_reserve_kbytes.
 *
 * The admin reserve is not taken: the workloads run as root, as they
 * do under tools/linux-peer.
 */
#ifndef COMMIT_POLICY_H
#define COMMIT_POLICY_H

#include <stdint.h>
#include <stdbool.h>

enum { OVERCOMMIT_GUESS = 0, OVERCOMMIT_ALWAYS = 1, OVERCOMMIT_NEVER = 2 };

struct commit_knobs {
	unsigned mode;                  /* OVERCOMMIT_* */
	uint64_t ratio;                 /* % of RAM in the limit (default 50) */
	uint64_t kbytes;                /* the limit's RAM part in KiB instead, if not 0 */
	uint64_t user_reserve_kbytes;   /* at most this much kept back for the asker to recover */
};

/* Linux's vm_commit_limit, in pages. */
uint64_t commit_limit(const struct commit_knobs *k, uint64_t ram_pages, uint64_t swap_pages);

/* Whether a request of `pages` is granted, `committed` counting it
 * already; total_vm: pages the asking address space maps now. */
bool commit_allows(const struct commit_knobs *k, uint64_t committed, uint64_t pages, uint64_t ram_pages,
		   uint64_t swap_pages, uint64_t total_vm);

/* Linux's init_user_reserve: 1/32 of the free memory at boot, at most
 * 128 MiB, in KiB (here 1/32 of `pages`). */
uint64_t commit_default_user_reserve_kbytes(uint64_t pages);

#endif
