/*
 * Block layer core.
 *
 * Requests wait on the device's queue until a command slot is free (at
 * most queue_depth commands in flight) and the queue is not plugged; then
 * the head request and every queued request adjacent to it (same op,
 * blocks continuing at either end, within the device's per-command limits)
 * become one command (blk_merge.c).  Only requests made of whole,
 * page-aligned pages merge, so a merged command is always a clean page
 * list for the driver's scatter/gather format.
 *
 * Partitions have no queue: their requests are checked against the
 * partition, shifted by its start, and queued on the disk.
 *
 * Locking: d->lock (irqsave) guards the queue, the command slots, the plug
 * count and the statistics.  Driver submit and request callbacks run
 * without it.
 */
#include <string.h>
#include "blk_driver.h"
#include "blk_merge.h"
#include "gpt.h"
#include "console.h"
#include "record.h"
#include "lib/errno.h"
#include "lib/timemath.h"
#include "lib/printf.h"
#include "mm/kmalloc.h"
#include "mm/kmem.h"
#include "mm/pmm.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/tsc.h"
#include "proc/wait.h"

#define MAX_DEVS 64
#define MERGE_WINDOW 64
#define PAGE 4096u

static struct blk_dev *devs[MAX_DEVS];
static int ndevs;
static struct spinlock devs_lock = SPINLOCK_INIT("blk-devs");
static uint8_t boot_guid[16];

const char *blk_name(const struct blk_dev *d) { return d->name; }
uint64_t blk_blocks(const struct blk_dev *d) { return d->nblocks; }
uint32_t blk_block_size(const struct blk_dev *d) { return d->block_size; }
bool blk_is_partition(const struct blk_dev *d) { return d->parent != NULL; }
const uint8_t *blk_part_type(const struct blk_dev *d) { return d->parent ? d->part_type : NULL; }
bool blk_writable(const struct blk_dev *d) { return d->writable; }

uint32_t blk_max_pages(const struct blk_dev *d)
{
	const struct blk_dev *disk = d->parent ? d->parent : d;
	uint64_t by_blocks = (uint64_t)disk->max_blocks * disk->block_size / PAGE;
	uint32_t n = disk->max_segs < BLK_MAX_SEGS ? disk->max_segs : BLK_MAX_SEGS;
	return by_blocks < n ? (uint32_t)by_blocks : n;
}

bool blk_has_partitions(const struct blk_dev *d)
{
	for (int i = 0; i < ndevs; i++)
		if (devs[i]->parent == d)
			return true;
	return false;
}
int blk_count(void) { return ndevs; }
struct blk_dev *blk_at(int i) { return i >= 0 && i < ndevs ? devs[i] : NULL; }

void blk_set_boot_partition(const uint8_t guid[16]) { memcpy(boot_guid, guid, 16); }

struct blk_dev *blk_find(const char *name)
{
	for (int i = 0; i < ndevs; i++)
		if (!strcmp(devs[i]->name, name))
			return devs[i];
	return NULL;
}

static int add_dev(struct blk_dev *d)
{
	bool on = spin_lock_irqsave(&devs_lock);
	int ok = ndevs < MAX_DEVS;
	if (ok) {
		d->index = ndevs;
		devs[ndevs++] = d;
	}
	spin_unlock_irqrestore(&devs_lock, on);
	return ok ? 0 : -ENOSPC;
}

bool blk_set_writable(struct blk_dev *d, bool w)
{
	if (w && d->boot_disk) {
		kprintf("blk: %s holds the boot partition: it is never written\n", d->name);
		return false;
	}
	d->writable = w;
	return true;
}

/* ------------------------------------------------------------ submit */

static bool whole_pages(const struct blk_req *r)
{
	for (uint32_t i = 0; i < r->nsegs; i++)
		if ((r->segs[i].phys & (PAGE - 1)) || r->segs[i].len != PAGE)
			return false;
	return true;
}

static int check_req(struct blk_dev *d, struct blk_req *r)
{
	uint64_t bytes = 0;
	if (!r->nsegs || r->nsegs > BLK_MAX_SEGS)
		return -EINVAL;
	for (uint32_t i = 0; i < r->nsegs; i++) {
		const struct blk_seg *s = &r->segs[i];
		if (!s->len || s->len % d->block_size || (s->phys & 3) ||
		    ((s->phys & (PAGE - 1)) + s->len > PAGE && (s->phys & (PAGE - 1))))
			return -EINVAL;
		bytes += s->len;
	}
	r->nblocks = (uint32_t)(bytes / d->block_size);
	struct blk_dev *disk = d->parent ? d->parent : d;
	if (r->nblocks > disk->max_blocks || r->nsegs > disk->max_segs) {
		kprintf("blk: %s: request of %u blocks in %u segments exceeds the device's %u blocks, %u segments\n",
			d->name, r->nblocks, r->nsegs, disk->max_blocks, disk->max_segs);
		return -EINVAL;
	}
	if (r->lba >= d->nblocks || r->nblocks > d->nblocks - r->lba) {
		kprintf("blk: %s: request past the end (block %lu + %u > %lu) rejected\n", d->name, r->lba,
			r->nblocks, d->nblocks);
		return -EINVAL;
	}
	if (r->op == BLK_WRITE && !d->writable) {
		kprintf("blk: %s: write to a device not marked writable rejected\n", d->name);
		return -EROFS;
	}
	if (r->op != BLK_READ && r->op != BLK_WRITE)
		return -EINVAL;
	return 0;
}

static struct blk_cmd *free_cmd(struct blk_dev *d)
{
	for (uint32_t i = 0; i < d->queue_depth; i++)
		if (!d->cmds[i].busy)
			return &d->cmds[i];
	return NULL;
}

/* Move the head request and its merge partners into cmd.  Lock held. */
static void build_cmd(struct blk_dev *d, struct blk_cmd *c)
{
	struct blk_merge_item items[MERGE_WINDOW];
	struct blk_req *reqs[MERGE_WINDOW];
	int idx[MERGE_WINDOW], n = 0;
	list_for_each(it, &d->queue) {
		if (n == MERGE_WINDOW)
			break;
		struct blk_req *r = list_entry(it, struct blk_req, link);
		bool pages = whole_pages(r);
		reqs[n] = r;
		/* Unmergeable requests get an op nothing else has. */
		items[n] = (struct blk_merge_item){ pages ? r->op : 100u + (unsigned)n, r->lba, r->nblocks, r->nsegs };
		n++;
	}
	int k = whole_pages(reqs[0]) ? blk_merge_pick(items, n, d->max_blocks, d->max_segs, idx) : (idx[0] = 0, 1);
	c->op = reqs[0]->op;
	c->lba = reqs[idx[0]]->lba;
	c->nblocks = 0;
	c->nsegs = 0;
	c->reqs = NULL;
	struct blk_req **tail = &c->reqs;
	for (int i = 0; i < k; i++) {
		struct blk_req *r = reqs[idx[i]];
		list_del(&r->link);
		d->queued--;
		memcpy(&c->segs[c->nsegs], r->segs, r->nsegs * sizeof r->segs[0]);
		c->nsegs += r->nsegs;
		c->nblocks += r->nblocks;
		r->chain = NULL;
		*tail = r;
		tail = &r->chain;
	}
	d->st.merges += (uint64_t)(k - 1);
	d->st.cmds[c->op]++;
}

static void dispatch(struct blk_dev *d, bool *on)
{
	struct blk_cmd *c;
	while (!d->plugged && d->queued && (c = free_cmd(d))) {
		build_cmd(d, c);
		c->busy = true;
		c->dev = d;
		if (++d->st.inflight > d->st.max_inflight)
			d->st.max_inflight = d->st.inflight;
		spin_unlock_irqrestore(&d->lock, *on);
		int rc = d->ops->submit(d, c);
		if (rc)
			blk_complete(c, rc);
		*on = spin_lock_irqsave(&d->lock);
	}
}

int blk_submit(struct blk_dev *d, struct blk_req *r)
{
	int err = check_req(d, r);
	if (err) {
		d->st.rejected++;
		return err;
	}
	r->dev = d;
	r->submit_tsc = rdtsc();
	r->status = 0;
	d->st.reqs[r->op]++;
	d->st.blocks[r->op] += r->nblocks;
	if (d->parent) {
		struct blk_dev *disk = d->parent;
		r->lba += d->part_start;
		d = disk;
		d->st.reqs[r->op]++;
		d->st.blocks[r->op] += r->nblocks;
	}
	bool on = spin_lock_irqsave(&d->lock);
	list_add_tail(&r->link, &d->queue);
	d->queued++;
	dispatch(d, &on);
	spin_unlock_irqrestore(&d->lock, on);
	return 0;
}

static struct blk_dev *disk_of(struct blk_dev *d) { return d->parent ? d->parent : d; }

void blk_plug(struct blk_dev *d)
{
	d = disk_of(d);
	bool on = spin_lock_irqsave(&d->lock);
	d->plugged++;
	spin_unlock_irqrestore(&d->lock, on);
}

void blk_unplug(struct blk_dev *d)
{
	d = disk_of(d);
	bool on = spin_lock_irqsave(&d->lock);
	if (d->plugged)
		d->plugged--;
	dispatch(d, &on);
	spin_unlock_irqrestore(&d->lock, on);
}

static void account_latency(struct blk_stats *st, uint64_t ns)
{
	uint64_t us = ns / 1000;
	int b = 0;
	while (b + 1 < BLK_HIST_BUCKETS && us >= (2ull << b))
		b++;
	st->lat_hist[us ? b : 0]++;
	st->lat_sum_ns += ns;
	if (ns > st->lat_max_ns)
		st->lat_max_ns = ns;
}

void blk_complete(struct blk_cmd *c, int status)
{
	struct blk_dev *d = c->dev;
	struct blk_req *r = c->reqs;
	uint64_t now = rdtsc();
	bool on = spin_lock_irqsave(&d->lock);
	d->st.inflight--;
	if (status)
		d->st.errors++;
	for (struct blk_req *x = r; x; x = x->chain) {
		uint64_t ns = ticks_to_ns(now - x->submit_tsc, tsc_hz());
		account_latency(&d->st, ns);
		if (x->dev != d)
			account_latency(&x->dev->st, ns);
	}
	c->busy = false;
	spin_unlock_irqrestore(&d->lock, on);
	while (r) {
		struct blk_req *next = r->chain;
		r->status = status;
		if (status && r->dev != d)
			r->dev->st.errors++;
		if (r->dev != d)
			r->lba -= r->dev->part_start;
		r->done(r);
		r = next;
	}
	on = spin_lock_irqsave(&d->lock);
	dispatch(d, &on);
	spin_unlock_irqrestore(&d->lock, on);
}

/* ------------------------------------------------------------ sync */

static void sync_done(struct blk_req *r) { complete(r->priv); }

int blk_rw_segs(struct blk_dev *d, enum blk_op op, uint64_t lba, const struct blk_seg *segs, uint32_t nsegs)
{
	struct completion c;
	completion_init(&c);
	struct blk_req r = { .op = op, .lba = lba, .nsegs = nsegs, .segs = segs, .done = sync_done, .priv = &c };
	int err = blk_submit(d, &r);
	if (err)
		return err;
	/* No timeout here: the request lives on this stack until done() runs,
	 * and drivers time out (and complete) their own commands. */
	completion_wait(&c);
	return r.status;
}

int blk_rw(struct blk_dev *d, enum blk_op op, uint64_t lba, void *buf, size_t len)
{
	struct blk_seg segs[BLK_MAX_SEGS];
	uint32_t n = 0;
	uint8_t *p = buf;
	while (len) {
		uint64_t pa = virt_to_phys(p);
		uint32_t chunk = PAGE - (uint32_t)(pa & (PAGE - 1));
		if (chunk > len)
			chunk = (uint32_t)len;
		if (n == BLK_MAX_SEGS)
			return -EINVAL;
		segs[n++] = (struct blk_seg){ pa, chunk };
		p += chunk;
		len -= chunk;
	}
	return blk_rw_segs(d, op, lba, segs, n);
}

/* ------------------------------------------------------------ registration */

static void init_dev(struct blk_dev *d)
{
	spin_init(&d->lock, "blk");
	list_init(&d->queue);
	d->queued = 0;
	d->plugged = 0;
	memset(&d->st, 0, sizeof d->st);
}

struct gpt_io {
	struct blk_dev *d;
	uint8_t *bounce;        /* one page, page aligned */
};

static int gpt_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct gpt_io *io = ctx;
	uint32_t per = PAGE / io->d->block_size;
	while (count) {
		uint32_t n = count < per ? count : per;
		if (blk_rw(io->d, BLK_READ, lba, io->bounce, (size_t)n * io->d->block_size))
			return -1;
		memcpy(buf, io->bounce, (size_t)n * io->d->block_size);
		buf = (uint8_t *)buf + (size_t)n * io->d->block_size;
		lba += n;
		count -= n;
	}
	return 0;
}

static void add_partition(struct blk_dev *disk, const struct gpt_part *gp)
{
	struct blk_dev *p = kzalloc(sizeof *p);
	if (!p)
		return;
	init_dev(p);
	ksnprintf(p->name, sizeof p->name, "%sp%u", disk->name, gp->index + 1);
	p->nblocks = gp->last_lba - gp->first_lba + 1;
	p->block_size = disk->block_size;
	p->max_blocks = disk->max_blocks;
	p->max_segs = disk->max_segs;
	p->queue_depth = disk->queue_depth;
	p->parent = disk;
	p->part_start = gp->first_lba;
	memcpy(p->part_type, gp->type, 16);
	memcpy(p->part_uuid, gp->uuid, 16);
	memcpy(p->part_label, gp->name, sizeof p->part_label - 1);
	p->boot_disk = disk->boot_disk;
	if (add_dev(p))
		kfree(p);
}

static void scan_partitions(struct blk_dev *d)
{
	static struct gpt_disk g;
	static struct gpt_part parts[32];
	static struct mutex scan_lock;
	static bool init;
	if (!init) {
		mutex_init(&scan_lock, "gpt-scan");
		init = true;
	}
	struct page *pg = pmm_alloc(0, PMM_KERNEL);
	if (!pg)
		return;
	mutex_lock(&scan_lock);
	struct gpt_io io = { d, page_address(pg) };
	int err = gpt_parse(gpt_read, &io, d->nblocks, d->block_size, &g, parts, 32);
	if (err >= 0)
		err = 0;                /* the number of partitions */
	if (err == GPT_ENOGPT) {
		kprintf("blk: %s: no GPT partition table\n", d->name);
	} else if (err) {
		kprintf("blk: %s: partition table unusable: %s\n", d->name, gpt_strerror(err));
	} else {
		if (g.used_backup)
			kprintf("blk: %s: primary GPT rejected (%s); using the backup\n", d->name,
				gpt_strerror(g.primary_error));
		for (int i = 0; i < g.nbad; i++)
			kprintf("blk: %s: partition entry %u dropped: %s\n", d->name, g.bad[i].index,
				gpt_strerror(g.bad[i].err));
		for (int i = 0; i < g.nparts; i++)
			if (!memcmp(parts[i].uuid, boot_guid, 16) && !gpt_guid_is_zero(boot_guid))
				d->boot_disk = true;
		for (int i = 0; i < g.nparts; i++)
			add_partition(d, &parts[i]);
	}
	mutex_unlock(&scan_lock);
	pmm_free(pg, 0);
}

int blk_register_disk(struct blk_dev *d)
{
	init_dev(d);
	if (d->max_segs > BLK_MAX_SEGS || !d->max_segs)
		d->max_segs = BLK_MAX_SEGS;
	d->cmds = kzalloc(d->queue_depth * sizeof *d->cmds);
	if (!d->cmds || add_dev(d)) {
		kfree(d->cmds);
		return -ENOMEM;
	}
	scan_partitions(d);
	return 0;
}

/* ------------------------------------------------------------ reports */

static void dev_json(struct json *j, const struct blk_dev *d)
{
	char guid[GPT_GUID_STR_LEN];
	json_str(j, "name", d->name);
	json_u64(j, "blocks", d->nblocks);
	json_u64(j, "block_size", d->block_size);
	json_u64(j, "bytes", d->nblocks * d->block_size);
	json_bool(j, "boot_disk", d->boot_disk);
	if (d->parent) {
		json_str(j, "disk", d->parent->name);
		json_u64(j, "start_lba", d->part_start);
		gpt_guid_str(d->part_type, guid);
		json_str(j, "type_guid", guid);
		json_str(j, "type", gpt_type_name(d->part_type));
		gpt_guid_str(d->part_uuid, guid);
		json_str(j, "uuid", guid);
		json_str(j, "label", d->part_label);
	} else {
		json_str(j, "model", d->model);
		json_u64(j, "queue_depth", d->queue_depth);
		json_u64(j, "max_transfer", (uint64_t)d->max_blocks * d->block_size);
	}
}

void blk_list(void)
{
	for (int i = 0; i < ndevs; i++) {
		struct blk_dev *d = devs[i];
		uint64_t mib = d->nblocks * d->block_size >> 20;
		if (d->parent)
			kprintf("  %-12s %8lu MiB  %s \"%s\"%s\n", d->name, mib, gpt_type_name(d->part_type), d->part_label,
				d->boot_disk ? " (boot disk)" : "");
		else
			kprintf("disk %-12s %8lu MiB  %u-byte blocks, queue depth %u, %u KiB per command  %s%s\n",
				d->name, mib, d->block_size, d->queue_depth, d->max_blocks * d->block_size / 1024,
				d->model, d->boot_disk ? " (boot disk)" : "");
	}
	struct json *j = rec_begin("disks");
	json_arr_begin(j, "devices");
	for (int i = 0; i < ndevs; i++) {
		json_obj_begin(j, NULL);
		dev_json(j, devs[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

void blk_report(void)
{
	for (int i = 0; i < ndevs; i++) {
		struct blk_dev *d = devs[i];
		struct blk_stats *s = &d->st;
		uint64_t reqs = s->reqs[0] + s->reqs[1];
		struct json *j = rec_begin("blk");
		json_str(j, "name", d->name);
		json_u64(j, "reads", s->reqs[BLK_READ]);
		json_u64(j, "writes", s->reqs[BLK_WRITE]);
		json_u64(j, "read_bytes", s->blocks[BLK_READ] * d->block_size);
		json_u64(j, "write_bytes", s->blocks[BLK_WRITE] * d->block_size);
		json_u64(j, "read_cmds", s->cmds[BLK_READ]);
		json_u64(j, "write_cmds", s->cmds[BLK_WRITE]);
		json_u64(j, "merges", s->merges);
		json_u64(j, "errors", s->errors);
		json_u64(j, "rejected", s->rejected);
		json_u64(j, "max_inflight", s->max_inflight);
		json_u64(j, "mean_latency_us", reqs ? s->lat_sum_ns / reqs / 1000 : 0);
		json_u64(j, "max_latency_us", s->lat_max_ns / 1000);
		json_arr_begin(j, "latency_hist_log2_us");
		for (int b = 0; b < BLK_HIST_BUCKETS; b++)
			json_u64(j, NULL, s->lat_hist[b]);
		json_arr_end(j);
		rec_end();
	}
}
