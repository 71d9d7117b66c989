/*
 * The block layer, as drivers see it.  A driver fills a struct blk_dev
 * (name, geometry, limits, ops) and registers it; the layer queues and
 * merges requests and hands the driver one command at a time through
 * ops->submit, never more than queue_depth at once.  The driver reports
 * each command's end with blk_complete(), from any context; the layer may
 * call ops->submit again from inside blk_complete (drivers must not hold
 * their own locks across it).
 */
#ifndef BLK_DRIVER_H
#define BLK_DRIVER_H

#include "blk.h"
#include "core/spinlock.h"

/* One device command: consecutive blocks, possibly several requests. */
struct blk_cmd {
	enum blk_op op;
	uint64_t lba;
	uint32_t nblocks;
	uint32_t nsegs;
	struct blk_seg *segs;           /* max_segs entries, allocated at registration */
	struct blk_req *reqs;           /* the merged requests, chained by ->chain */
	struct blk_dev *dev;
	void *drv;                      /* free for the driver (its slot, tag, ...) */
	bool busy;
};

struct blk_ops {
	/* Start cmd.  Must not sleep; may be called from interrupt context.
	 * Returns 0, or an error (the layer completes the command with it). */
	int (*submit)(struct blk_dev *d, struct blk_cmd *cmd);
	/* Make the writes completed so far durable (the device's volatile
	 * write cache to the medium).  Thread context, sleeps; 0 or -EIO.
	 * NULL: nothing to do (no cache, or one the driver flushes itself). */
	int (*flush)(struct blk_dev *d);
};

#define BLK_HIST_BUCKETS 24     /* latency histogram: [2^k, 2^(k+1)) us */

/* A disk's statistics and those of its partitions are guarded by the
 * disk's lock. */
struct blk_stats {
	uint64_t reqs[2], blocks[2], cmds[2];
	uint64_t merges, rejected;
	uint64_t errors;                /* disk: failed commands; partition: failed requests */
	uint64_t failed_reqs;           /* requests completed with an error */
	uint64_t retried_alone;         /* requests retried alone after a merged command failed */
	uint64_t flushes;               /* blk_flush calls that reached a driver's flush */
	uint64_t inflight, max_inflight;
	uint64_t lat_hist[BLK_HIST_BUCKETS];
	uint64_t lat_sum_ns, lat_max_ns;
};

struct blk_dev {
	char name[BLK_NAME_MAX];
	uint64_t nblocks;
	uint32_t block_size;
	uint32_t max_blocks;            /* per command */
	uint32_t max_segs;              /* per command, <= BLK_MAX_SEGS */
	uint32_t queue_depth;
	const struct blk_ops *ops;
	void *drv;
	char model[48];                 /* for the report */
	/* Set by the layer. */
	struct spinlock lock;           /* disks: guards queue..merge and the stats of the disk and its partitions */
	struct list_node queue;         /* struct blk_req waiting for a command */
	uint32_t queued;
	struct blk_cmd *cmds;           /* queue_depth commands */
	int plugged;
	bool dispatching;               /* someone is running the queue and will look again before leaving */
	struct blk_merge_scratch *merge; /* build_cmd/blk_complete work space (off the interrupt stack) */
	bool writable;                  /* write_refusal() said nothing when it was set */
	bool boot_disk;                 /* the disk holding the boot partition, or one of its partitions */
	bool boot_part;                 /* partitions: the boot partition itself (the ESP, by GUID) */
	bool gpt_unknown;               /* disks: the partition table could not be read */
	uint32_t gpt_reads;             /* disks: device reads the GPT scan took */
	uint64_t gpt_scan_ns;
	struct blk_dev *parent;         /* partitions: the disk */
	uint64_t part_start;            /* partitions: first LBA on the disk */
	uint8_t part_type[16], part_uuid[16];
	char part_label[40];
	struct blk_stats st;
	int index;
};

/* Register a whole disk: scans its GPT and registers the partitions.
 * Sleeps (reads the partition table).  Returns 0 or -ENOMEM. */
int blk_register_disk(struct blk_dev *d);
/* The command is finished; status 0 or -errno.  Any context, no driver
 * lock held (it may call ops->submit for the next command). */
void blk_complete(struct blk_cmd *cmd, int status);
/* The boot partition's unique GUID from the loader (all-zero: unknown). */
void blk_set_boot_partition(const uint8_t guid[16]);

#endif
