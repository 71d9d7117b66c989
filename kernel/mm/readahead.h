/*
 * Swap-in readahead: which swap slots to read along with a faulting one.
 * The fault path asks for a window [off, off + count) of slots on the
 * faulting entry's area (it always includes the faulting slot), reads the
 * slots of it that hold data and are not cached, and reports back which
 * readahead pages get used (hits) or are reclaimed unused (waste).
 *
 * Policies are selected at run time (ra_set_policy); this layer keeps the
 * per-policy state and the counters swap_ra / swap_ra_hit / swap_ra_waste.
 */
#ifndef READAHEAD_H
#define READAHEAD_H

#include <stdint.h>
#include <stdbool.h>

struct vma;
struct mm;

struct ra_fault {
	uint64_t entry;         /* the faulting swap entry */
	uint64_t va;            /* faulting address */
	struct mm *mm;
	const struct vma *vma;  /* a copy of its area (pgoff etc.) */
	bool shmem;
};

struct ra_window {
	uint64_t off;           /* first slot */
	uint32_t count;         /* slots, >= 1 */
};

void ra_window(const struct ra_fault *f, struct ra_window *w);
/* Feedback: a page brought in by readahead was used by a fault. */
void ra_hit(uint64_t entry);
/* ...or was reclaimed without ever being used. */
void ra_waste(uint64_t entry);

/* "off", "fixed:N" (N = page_cluster, 0..8)... false on an unknown name. */
bool ra_set_policy(const char *spec);
const char *ra_policy_name(void);

#endif
