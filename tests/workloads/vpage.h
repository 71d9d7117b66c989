/*
 * vpage.h - verified page touches, shared by the touch and threads workloads.
 *
 * A vpage set is a mapped region plus one 32-bit touch counter per page. A
 * touch reads the page's two check words, compares them with what the last
 * touch wrote (0 for a page never touched), then writes the next value. The
 * value depends on the page number and its touch count, and the second copy
 * sits at a page-dependent offset, so a page lost, swapped in from the wrong
 * slot, or only partly restored is caught on its next touch (in a mapped
 * file, from its second: the first finds what the file held).
 * A set belongs to one thread, except through vpage_touch_shared: threads
 * that touch one set only with it take a lock bit (VPAGE_LOCKED) in the
 * page's counter for the check-and-write, so their touches of one page are
 * serialised and each still verifies what the last one wrote, whoever made
 * it. Do not mix the two kinds of touch on one set while threads run.
 */
#ifndef VPAGE_H
#define VPAGE_H

#include "rt/rt.h"

#define VPAGE_REPORT_MAX 5	/* mismatches described on stderr per set */
#define VPAGE_LOCKED (1u << 31)	/* vpage_touch_shared's lock bit in counts[] */

struct vpage_set {
	char *base;		/* the region under test */
	uint32_t *counts;	/* touches per page; its own anonymous mapping */
	uint64_t pages;
	uint64_t touched;	/* distinct pages touched at least once */
	uint64_t mismatches;
	const char *who;	/* names the workload in mismatch reports */
	bool file;		/* vpage_map_file: untouched pages are not judged */
};

int vpage_map(struct vpage_set *s, uint64_t pages, bool shared, const char *who);
/* fd's first pages, MAP_SHARED (a file or a device): a page's first touch
 * reads it but does not judge it (the file holds whatever it held), the
 * touches after it are verified as in an anonymous set. */
int vpage_map_file(struct vpage_set *s, uint64_t pages, int fd, const char *who);
void vpage_unmap(struct vpage_set *s);
void vpage_touch(struct vpage_set *s, uint64_t page);
void vpage_touch_shared(struct vpage_set *s, uint64_t page);
void vpage_verify_all(struct vpage_set *s);

#endif /* VPAGE_H */
