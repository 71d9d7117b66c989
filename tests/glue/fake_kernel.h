/* What the fakes in fake_kernel.c count, for the glue tests to judge. */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <stdint.h>
#include "vm/vmstat.h"

struct fake_state {
	long live_allocs;               /* kmalloc'd blocks not yet freed */
	int fail_allocs;                /* the n-th kmalloc from now fails (0: none) */
	long pages_freed;               /* put_page dropped a page to 0 */
	long ra_waste;
	uint64_t vmstat[VMSTAT_NITEMS];
};
extern struct fake_state fake;

#endif
