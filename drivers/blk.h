/*
 * The block layer, as its users see it (swap, the self-test).
 *
 * A device (a disk or one of its GPT partitions) takes asynchronous
 * requests: an operation, a starting logical block, and a list of
 * physically contiguous segments (normally whole pages).  The callback
 * runs when the request is done, with r->status 0 or a negative errno
 * (-EIO device error, -ETIMEDOUT, -EINVAL).
 *
 * Callbacks.  done() runs in interrupt context, or in a driver thread
 * (a controller reset), or inside blk_submit/blk_unplug when the driver
 * refused a command at once; never with a block-layer or driver lock
 * held.  It must not sleep (no blk_rw), but it may call blk_submit,
 * blk_plug and blk_unplug on any device, this one included: while a
 * device's queue is being run, a submission from inside a callback only
 * queues, and the caller already running the queue dispatches it, so the
 * stack does not grow with the number of resubmissions.  The request
 * belongs to the caller again from the moment done() is called (it may
 * free or resubmit it).
 *
 * Errors and merging.  Adjacent requests may be merged into one device
 * command.  When such a command fails, each of its requests is retried
 * once on its own (never merged again), and only those that fail alone
 * see an error; one bad block does not fail its neighbours.
 *
 * Safety: a device accepts writes only after blk_set_writable(), which
 * refuses the boot partition (the ESP the loader ran from), the boot disk
 * as a whole, and, while the boot disk has not been found, any disk whose
 * partition table could not be read (it might be the boot disk).  The boot
 * disk's other partitions are ordinary devices; callers ask only for
 * swap-signed or explicitly named ones.  The one exception to the whole-
 * disk rule: the blocks of the loader's results file, named by
 * blk_allow_results(), checked per request.
 */
#ifndef BLK_H
#define BLK_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "lib/list.h"

#define BLK_MAX_SEGS 256        /* 1 MiB of 4 KiB pages per request */
#define BLK_NAME_MAX 24

struct blk_dev;

enum blk_op { BLK_READ = 0, BLK_WRITE = 1 };

struct blk_seg {
	uint64_t phys;          /* 4-byte aligned; a page boundary may only be crossed at its start */
	uint32_t len;           /* a multiple of the device's block size */
};

struct blk_req {
	enum blk_op op;
	uint64_t lba;
	uint32_t nsegs;
	const struct blk_seg *segs;     /* owned by the caller until done() */
	void (*done)(struct blk_req *r);
	void *priv;
	int status;
	/* Block layer private. */
	struct blk_dev *dev;
	struct list_node link;
	uint32_t nblocks;
	uint64_t submit_tsc;
	struct blk_req *chain;          /* next request merged into the same command */
	uint32_t flags;                 /* BLK_REQ_* */
};

/* Request flags (block layer private). */
#define BLK_REQ_ALONE   1u      /* never merged: not whole pages, or being retried alone */

/* Queue r; done() reports the result.  Returns 0, or an error without
 * calling done() when r is rejected up front (-EINVAL bounds or malformed
 * segments, -EROFS write protection).  Any context, never sleeps. */
int blk_submit(struct blk_dev *d, struct blk_req *r);

/* Hold submissions back so a batch can merge, then dispatch them. */
void blk_plug(struct blk_dev *d);
void blk_unplug(struct blk_dev *d);

/* Synchronous wrappers; sleep (thread context only, never from done()).
 * buf: kernel memory (direct map or heap) whose pieces within each page
 * are multiples of the block size. */
int blk_rw_segs(struct blk_dev *d, enum blk_op op, uint64_t lba, const struct blk_seg *segs, uint32_t nsegs);
int blk_rw(struct blk_dev *d, enum blk_op op, uint64_t lba, void *buf, size_t len);

/* The writes completed so far made durable: the device's write cache
 * flushed (on a partition, its disk's).  Sleeps.  0 when the driver has
 * nothing to flush, or -EIO. */
int blk_flush(struct blk_dev *d);

struct blk_dev *blk_find(const char *name);
int blk_count(void);
struct blk_dev *blk_at(int i);

const char *blk_name(const struct blk_dev *d);
uint64_t blk_blocks(const struct blk_dev *d);
uint32_t blk_block_size(const struct blk_dev *d);
bool blk_is_partition(const struct blk_dev *d);
/* The largest request in whole pages the device takes (its limits). */
uint32_t blk_max_pages(const struct blk_dev *d);
/* The largest read worth sending to the device when its first pages are
 * wanted soon: blk_read_split's pages if set and under blk_max_pages,
 * else blk_max_pages.  Queued reads merge up to it, no further. */
uint32_t blk_read_pages(const struct blk_dev *d);
/* The blk_read_split knob: "off" (the default: merge to the device's
 * limits) or a power of two 8..256 (pages).  False: not one. */
bool blk_set_read_split(const char *v);
void blk_get_read_split(char *buf, size_t n);
/* A whole disk on which partitions were found. */
bool blk_has_partitions(const struct blk_dev *d);
/* A partition's disk (a disk: itself), and its first block on that disk
 * (a disk: 0). */
struct blk_dev *blk_disk_of(struct blk_dev *d);
uint64_t blk_part_start(const struct blk_dev *d);
/* A device by our name (nvme0n1p2, sata1) or Linux's, with or without
 * "/dev/": nvmeXnY[pZ] are the same; sdX[N] is the X-th disk that is not
 * NVMe (SATA, then USB, in registration order, as Linux probes them) and
 * its partition N.  NULL when none matches. */
struct blk_dev *blk_find_linux(const char *name);
/* GPT type GUID (on-disk bytes) of a partition; NULL for a whole disk. */
const uint8_t *blk_part_type(const struct blk_dev *d);

/* Allow writes (false + a message naming the device when refused: the
 * boot partition, the boot disk as a whole, or a disk whose partition
 * table could not be read while the boot disk is not found). */
bool blk_set_writable(struct blk_dev *d, bool writable);
bool blk_writable(const struct blk_dev *d);
/* The ESP the loader ran from (matched by its partition GUID). */
bool blk_is_boot_partition(const struct blk_dev *d);
/* The boot disk or one of its partitions. */
bool blk_on_boot_disk(const struct blk_dev *d);

/* The loader's results file on the boot partition: writes to the whole
 * disk holding it are let through when they lie inside one of these runs
 * of disk blocks, and nowhere else.  Once.  Returns 0 and the disk, or
 * -ENODEV (no registered disk holds the boot partition), -EEXIST (two
 * do), -ERANGE (a run outside it), -EINVAL. */
#define BLK_RESULTS_MAX 32
struct blk_extent {
	uint64_t lba;
	uint64_t blocks;
};
int blk_allow_results(const struct blk_extent *ext, int n, struct blk_dev **disk);

/* One {"type":"blk",...} record per device (halt hook). */
void blk_report(void);
/* Print disks and partitions (text and a {"type":"disks"} record). */
void blk_list(void);

#endif
