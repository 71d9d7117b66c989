/*
 * Memory pressure stall information: /proc/pressure/memory (Linux's PSI
 * for memory).  A thread marks the stretches where it cannot go on for
 * want of memory; "some" is the time at least one thread was so stalled,
 * "full" the time one was and no other thread could run.
 *
 * What is measured here (and what is not): a user allocation's direct
 * reclaim (alloc_user_page: reclaiming, and its short sleeps waiting for
 * writes), and waits for a refaulting page to be read back: swap-in of a
 * page marked PG_WORKINGSET and a file page read with PG_WORKINGSET set
 * (Linux: folio_wait_bit_common and swap_readpage on workingset pages).
 * Not measured: kswapd's own work (Linux counts it), dirty throttling
 * (Linux counts it as I/O pressure, not memory), compaction (none here).
 * "full" is judged whenever the stalled count changes and at each read:
 * no runnable thread (sched_counts: user and kernel threads, idle ones
 * excluded) besides those stalled in direct reclaim; between two such
 * moments the verdict holds, so a thread waking up elsewhere meanwhile is
 * seen late.  Linux tracks every task's state change instead.
 */
#ifndef PSI_H
#define PSI_H

#include <stdint.h>
#include <stdbool.h>

/* Bracket a memory stall.  running: the thread works meanwhile (direct
 * reclaim), else it sleeps (a read it waits for).  Thread context; the
 * two calls pair up on one thread. */
void psi_memstall_enter(bool running);
void psi_memstall_leave(bool running);

struct psi_memory {
	uint64_t some_us, full_us;      /* totals since boot */
	uint64_t some_avg[3], full_avg[3];      /* psi_avg.h fixed point: 10, 60, 300 s */
};
void psi_memory_read(struct psi_memory *m);

#endif
