/*
 * What a disk's reads cost, learnt from its own commands, and the read
 * split that follows from it.  Pure: the block layer feeds it under the
 * disk's lock; tests feed it numbers.
 *
 * A read command of n pages keeps the device busy about a + b*n: a per
 * command (seek, the device's and our per-command work, an IOPS limit),
 * b per page (transfer).  A caller that needs the first pages of a long
 * run soon (a read-ahead stream that caught up with its window) waits for
 * the whole command they are in.  Where a command's transfer time b*n
 * exceeds its fixed cost a, cutting it in two costs little device time
 * and brings its first half sooner; where a dominates (a disk that
 * seeks, or one bound by commands per second), every cut costs a more.
 * So the split is the power of two pages nearest a/b, the size at which
 * the fixed and the per-page part of a command are equal.  QEMU's ssd
 * profile (700 IOPS, 50 MiB/s; measured a 0.7-0.9 ms, b 32-56 us) gets
 * 16; its hdd profile (150 IOPS, so a 64-page read costs what a 1-page
 * one does) none.
 *
 * The fit: per size class (pages 1, 2-3, 4-7, ... 256) a moving average
 * of service time and of size; a and b from the smallest class of at
 * most 7 pages and the largest class at least 8x its size that both have
 * BLK_COST_MIN_SAMPLES.  Until both exist the split is 0 (no split: the
 * disk's own limit), and it stays at its last value when they go quiet.
 * A device whose fixed cost is a seek's (BLK_COST_SEEK_NS), or too
 * small to tell (BLK_COST_RATIO_MIN), is never split.
 */
#ifndef BLK_COST_H
#define BLK_COST_H

#include <stdint.h>

#define BLK_COST_CLASSES 9      /* log2 of the pages: 1 .. 256 */
#define BLK_COST_MIN_SAMPLES 8
/* The smallest split.  On one device (QEMU's ssd profile) the fit's
 * ratio ranged 10 to 24 between boots and within one, so a split below
 * 16 came and went; at 8 it cost stride:4 4% and fixed:4's back scan 13%
 * (its 16-page reads cut in two), where 16 won 12% on scans. */
#define BLK_COST_SPLIT_MIN 16
/* A fixed cost this large is a seek (a rotating disk: 3-10 ms; flash
 * takes well under 1 ms): never split there.  The fit alone cannot tell:
 * under QEMU's hdd profile, whose 64-page reads cost what 1-page ones
 * do, writes queued between reads gave a ratio of 45-60 at times, and a
 * split of 32 cost a sequential scan 10%. */
#define BLK_COST_SEEK_NS 2000000
/* A fixed cost under 8 pages' transfer is no signal: QEMU with no
 * throttle (a 0-26 us, b 2.5-76 us: a/b 0-4.7, from emulation) cut at
 * 16 gained nothing and cost streams:4 3% more task stime.  A device
 * with no fixed cost gains little from a cut either: its first pages
 * come no sooner than their share of the bandwidth allows. */
#define BLK_COST_RATIO_MIN 8

struct blk_cost {
	uint32_t n[BLK_COST_CLASSES];           /* samples (saturating) */
	uint64_t ns[BLK_COST_CLASSES];          /* moving average of service time */
	uint64_t pages16[BLK_COST_CLASSES];     /* moving average of pages, x16 */
	uint64_t cmd_ns;                        /* the fit's a; 0 when there is none */
	uint64_t page_ps;                       /* the fit's b, in picoseconds per page */
	uint32_t split;                         /* pages per read command worth sending; 0: no split */
};

/* A read command of pages pages kept the device busy ns. */
void blk_cost_sample(struct blk_cost *c, uint32_t pages, uint64_t ns);

#endif
