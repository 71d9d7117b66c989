/*
 * Block layer core.
 *
 * Requests wait on the disk's queue until a command slot is free (at
 * most queue_depth commands in flight) and the queue is not plugged; then
 * the head request and every queued request adjacent to it (same op,
 * blocks continuing at either end, within the device's per-command limits)
 * become one command (blk_merge.c).  Only requests made of whole,
 * page-aligned pages merge, so a merged command is always a clean page
 * list for the driver's scatter/gather format.
 *
 * A failed command that merged several requests is taken apart: its
 * requests go back to the head of the queue marked BLK_REQ_ALONE and are
 * retried one command each; only those that fail alone report the error
 * (blk_merge_split).  So one bad sector costs its own request, not the
 * megabyte of neighbours merged with it.
 *
 * Partitions have no queue: their requests are checked against the
 * partition, shifted by its start, and queued on the disk.
 *
 * Running the queue.  Whoever finds d->dispatching clear sets it and runs
 * the queue: builds commands and hands them to the driver until nothing
 * more can go, looking again under the lock before it clears the flag.
 * Anyone who queues a request or frees a command meanwhile leaves the rest
 * to that runner.  So a completion callback that resubmits, or a driver
 * that refuses a command at once, nests at most one level deep instead of
 * once per request.  The runner keeps preemption off: a queue must never
 * wait for a runner that was switched away.
 *
 * Stack: this code runs in interrupt handlers (blk_complete, and
 * blk_submit from callbacks), on the interrupted thread's 16 KiB stack.
 * The merge work space therefore lives in the disk (d->merge), and a
 * command's segment list is allocated at registration.
 *
 * Locking: the disk's d->lock (irqsave) guards the queue, the command
 * slots, the plug count, d->dispatching, d->merge and the statistics of
 * the disk and of its partitions.  Driver submit and request callbacks
 * run without it.  devs_lock guards registration; devs[] is read without
 * it, up to ndevs loaded with acquire (entries are never removed).
 */
#include <string.h>
#include "blk_driver.h"
#include "blk_merge.h"
#include "gpt.h"
#include "core/console.h"
#include "core/record.h"
#include "core/panic.h"
#include "core/time.h"
#include "lib/cmdline.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/timemath.h"
#include "mem/kmalloc.h"
#include "mem/kmem.h"
#include "mem/pmm.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/tsc.h"
#include "core/wait.h"

#define MAX_DEVS 256            /* disks and partitions */
#define MAX_PARTS 128           /* per disk: every entry of a standard GPT array */
#define MERGE_WINDOW 64         /* queued requests looked at for one command */
#define GPT_BUF (64u << 10)     /* GPT read cache: a 16 KiB entry array in one read, with room */
#define RW_STACK_SEGS 8         /* blk_rw: segments on the stack, more from the heap */
#define PAGE 4096u

_Static_assert(MERGE_WINDOW <= BLK_MERGE_MAX, "merge window");

/* build_cmd and blk_complete work space; one per disk, under d->lock. */
struct blk_merge_scratch {
	struct blk_merge_item items[MERGE_WINDOW];
	struct blk_req *reqs[MERGE_WINDOW];
	int idx[MERGE_WINDOW];
	bool retry[MERGE_WINDOW];
};

static struct blk_dev *devs[MAX_DEVS];
static int ndevs;                       /* devs_lock; read with acquire */
static struct spinlock devs_lock = SPINLOCK_INIT("blk-devs");
static uint8_t boot_guid[16];           /* set before the first disk registers */
static bool boot_found;                 /* a disk holds the boot partition (atomic) */

/* The loader's results file: the only blocks of the boot disk ever
 * written.  Filled once by blk_allow_results, then published by a release
 * store of results_disk; read without a lock. */
static struct blk_extent results_ext[BLK_RESULTS_MAX];
static int results_n;
static struct blk_dev *results_disk;

static int dev_count(void) { return __atomic_load_n(&ndevs, __ATOMIC_ACQUIRE); }
static struct blk_dev *disk_of(struct blk_dev *d) { return d->parent ? d->parent : d; }

const char *blk_name(const struct blk_dev *d) { return d->name; }
uint64_t blk_blocks(const struct blk_dev *d) { return d->nblocks; }
uint32_t blk_block_size(const struct blk_dev *d) { return d->block_size; }
bool blk_is_partition(const struct blk_dev *d) { return d->parent != NULL; }
const uint8_t *blk_part_type(const struct blk_dev *d) { return d->parent ? d->part_type : NULL; }
bool blk_writable(const struct blk_dev *d) { return d->writable; }
struct blk_dev *blk_disk_of(struct blk_dev *d) { return disk_of(d); }
uint64_t blk_part_start(const struct blk_dev *d) { return d->parent ? d->part_start : 0; }

uint32_t blk_max_pages(const struct blk_dev *d)
{
	const struct blk_dev *disk = d->parent ? d->parent : d;
	uint64_t by_blocks = (uint64_t)disk->max_blocks * disk->block_size / PAGE;
	uint32_t n = disk->max_segs < BLK_MAX_SEGS ? disk->max_segs : BLK_MAX_SEGS;
	return by_blocks < n ? (uint32_t)by_blocks : n;
}

/* blk_read_split: 0 off, else pages.  Read without a lock. */
static uint32_t read_split;

uint32_t blk_read_pages(const struct blk_dev *d)
{
	uint32_t max = blk_max_pages(d);
	uint32_t split = __atomic_load_n(&read_split, __ATOMIC_RELAXED);
	return split && split < max ? split : max;
}

bool blk_set_read_split(const char *v)
{
	uint64_t n;
	uint32_t split;
	if (!strcmp(v, "off"))
		split = 0;
	else if (cmdline_parse_u64(v, &n) && n >= 8 && n <= BLK_MAX_SEGS && !(n & (n - 1)))
		split = (uint32_t)n;
	else
		return false;
	__atomic_store_n(&read_split, split, __ATOMIC_RELAXED);
	return true;
}

void blk_get_read_split(char *buf, size_t n)
{
	uint32_t split = __atomic_load_n(&read_split, __ATOMIC_RELAXED);
	if (!split)
		ksnprintf(buf, n, "off");
	else
		ksnprintf(buf, n, "%u", split);
}

bool blk_has_partitions(const struct blk_dev *d)
{
	for (int i = 0, n = dev_count(); i < n; i++)
		if (devs[i]->parent == d)
			return true;
	return false;
}
int blk_count(void) { return dev_count(); }
struct blk_dev *blk_at(int i) { return i >= 0 && i < dev_count() ? devs[i] : NULL; }

void blk_set_boot_partition(const uint8_t guid[16]) { memcpy(boot_guid, guid, 16); }

struct blk_dev *blk_find(const char *name)
{
	for (int i = 0, n = dev_count(); i < n; i++)
		if (!strcmp(devs[i]->name, name))
			return devs[i];
	return NULL;
}

/* The k-th (0-based) whole disk that is not NVMe: Linux's sd numbering. */
static struct blk_dev *sd_disk(int k)
{
	for (int i = 0, n = dev_count(); i < n; i++)
		if (!devs[i]->parent && strncmp(devs[i]->name, "nvme", 4) && k-- == 0)
			return devs[i];
	return NULL;
}

struct blk_dev *blk_find_linux(const char *name)
{
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	struct blk_dev *d = blk_find(name);
	if (d || strncmp(name, "sd", 2) || name[2] < 'a' || name[2] > 'z')
		return d;
	d = sd_disk(name[2] - 'a');
	const char *num = name + 3;
	if (!d || !*num)
		return d;
	for (const char *c = num; *c; c++)
		if (*c < '0' || *c > '9' || c - num > 3)
			return NULL;
	char part[BLK_NAME_MAX + 8];
	ksnprintf(part, sizeof part, "%sp%s", d->name, num);
	return blk_find(part);
}

static int add_dev(struct blk_dev *d)
{
	bool on = spin_lock_irqsave(&devs_lock);
	int n = ndevs;
	bool ok = n < MAX_DEVS;
	if (ok) {
		d->index = n;
		devs[n] = d;
		__atomic_store_n(&ndevs, n + 1, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&devs_lock, on);
	if (!ok)
		kprintf("blk: %s: not registered: already %d block devices\n", d->name, MAX_DEVS);
	return ok ? 0 : -ENOSPC;
}

/* A boot partition GUID is known and no disk registered so far holds it. */
static bool boot_disk_missing(void)
{
	return !gpt_guid_is_zero(boot_guid) && !__atomic_load_n(&boot_found, __ATOMIC_ACQUIRE);
}

/*
 * The write rule, in one place: why d may not be written, or NULL.
 *  - The boot partition (the ESP the loader ran from, by its GUID) never.
 *  - The boot disk as a whole never: its partition table and the ESP lie
 *    in it.  Its other partitions are devices like any other.
 *  - A disk whose partition table could not be read, while the boot disk
 *    has not turned up elsewhere: it may be the boot disk (fail closed).
 * Callers ask only for devices that carry a swap signature or that the
 * command line names (swap.c, the block self-tests); a device nobody
 * asked for is never writable.  A later, narrower permission (a file's
 * extents inside the ESP) belongs in check_req, beside d->writable, not
 * here: this rule is about whole devices.
 */
static const char *write_refusal(const struct blk_dev *d)
{
	if (d->boot_part)
		return " holds the boot partition: it is never written";
	if (d->boot_disk && !d->parent)
		return " is the boot disk: the whole disk is never written (only partitions other than the ESP may be)";
	if ((d->parent ? d->parent : d)->gpt_unknown && boot_disk_missing())
		return ": partition table unreadable and the boot disk not found: it may be the boot disk, "
		       "so it is not written";
	return NULL;
}

bool blk_set_writable(struct blk_dev *d, bool w)
{
	const char *why = w ? write_refusal(d) : NULL;
	if (why) {
		kprintf("blk: %s%s\n", d->name, why);
		return false;
	}
	d->writable = w;
	return true;
}

bool blk_is_boot_partition(const struct blk_dev *d) { return d->boot_part; }
bool blk_on_boot_disk(const struct blk_dev *d) { return d->boot_disk; }

/* The boot partition: the one partition whose unique GUID is the
 * loader's.  NULL when none, or (*twice set) when two carry it (an image
 * written to two disks: which one was booted is unknown). */
static struct blk_dev *boot_partition(bool *twice)
{
	struct blk_dev *p = NULL;
	*twice = false;
	if (gpt_guid_is_zero(boot_guid))
		return NULL;
	for (int i = 0, n = dev_count(); i < n; i++) {
		if (!devs[i]->parent || memcmp(devs[i]->part_uuid, boot_guid, 16))
			continue;
		*twice = p != NULL;
		if (p)
			return NULL;
		p = devs[i];
	}
	return p;
}

int blk_allow_results(const struct blk_extent *ext, int n, struct blk_dev **disk)
{
	bool twice;
	struct blk_dev *p = boot_partition(&twice);
	if (!p)
		return twice ? -EEXIST : -ENODEV;
	if (n < 1 || n > BLK_RESULTS_MAX || __atomic_load_n(&results_disk, __ATOMIC_ACQUIRE))
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		const struct blk_extent *e = &ext[i];
		if (e->lba < p->part_start || !e->blocks || e->blocks > p->nblocks ||
		    e->lba - p->part_start > p->nblocks - e->blocks)
			return -ERANGE;     /* not inside the boot partition */
		results_ext[i] = *e;
	}
	results_n = n;
	__atomic_store_n(&results_disk, p->parent, __ATOMIC_RELEASE);
	*disk = p->parent;
	return 0;
}

/* A write to the whole boot disk lying inside one results-file extent. */
static bool results_write_ok(const struct blk_dev *d, const struct blk_req *r)
{
	if (d != __atomic_load_n(&results_disk, __ATOMIC_ACQUIRE))
		return false;
	for (int i = 0; i < results_n; i++)
		if (r->lba >= results_ext[i].lba && r->nblocks <= results_ext[i].blocks &&
		    r->lba - results_ext[i].lba <= results_ext[i].blocks - r->nblocks)
			return true;
	return false;
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
	if ((r->op != BLK_READ && r->op != BLK_WRITE) || !r->nsegs || r->nsegs > BLK_MAX_SEGS)
		return -EINVAL;
	for (uint32_t i = 0; i < r->nsegs; i++) {
		const struct blk_seg *s = &r->segs[i];
		if (!s->len || s->len % d->block_size || (s->phys & 3) ||
		    ((s->phys & (PAGE - 1)) + s->len > PAGE && (s->phys & (PAGE - 1))))
			return -EINVAL;
		bytes += s->len;
	}
	r->nblocks = (uint32_t)(bytes / d->block_size);
	struct blk_dev *disk = disk_of(d);
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
	if (r->op == BLK_WRITE && !d->writable && !results_write_ok(d, r)) {
		kprintf("blk: %s: write to a device not marked writable rejected\n", d->name);
		return -EROFS;
	}
	return 0;
}

static struct blk_cmd *free_cmd(struct blk_dev *d)
{
	for (uint32_t i = 0; i < d->queue_depth; i++)
		if (!d->cmds[i].busy)
			return &d->cmds[i];
	return NULL;
}

static struct blk_merge_item merge_item(const struct blk_req *r)
{
	return (struct blk_merge_item){ r->op, r->lba, r->nblocks, r->nsegs, (r->flags & BLK_REQ_ALONE) != 0 };
}

/* Move the head request and its merge partners into cmd.  Lock held. */
static void build_cmd(struct blk_dev *d, struct blk_cmd *c)
{
	struct blk_merge_scratch *m = d->merge;
	int n = 0;
	list_for_each(it, &d->queue) {
		if (n == MERGE_WINDOW)
			break;
		struct blk_req *r = list_entry(it, struct blk_req, link);
		m->reqs[n] = r;
		m->items[n++] = merge_item(r);
	}
	/* Reads merge up to the read split, no further (blk_read_pages). */
	uint32_t max_blocks = d->max_blocks;
	if (m->items[0].op == BLK_READ) {
		uint64_t split = (uint64_t)blk_read_pages(d) * (PAGE / d->block_size);
		if (split && split < max_blocks)
			max_blocks = (uint32_t)split;
	}
	int k = blk_merge_pick(m->items, n, max_blocks, d->max_segs, m->idx);
	c->op = m->reqs[0]->op;
	c->lba = m->reqs[m->idx[0]]->lba;
	c->nblocks = 0;
	c->nsegs = 0;
	c->reqs = NULL;
	struct blk_req **tail = &c->reqs;
	for (int i = 0; i < k; i++) {
		struct blk_req *r = m->reqs[m->idx[i]];
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

/* Hand commands to the driver while there is work, room and no plug.
 * Lock held on entry and exit, dropped around ops->submit; the caller is
 * the queue's runner. */
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
			blk_complete(c, rc);    /* finishes or requeues; leaves running the queue to us */
		*on = spin_lock_irqsave(&d->lock);
	}
}

/* Become the queue's runner unless someone already is.  Lock held. */
static bool claim_queue(struct blk_dev *d)
{
	if (d->dispatching)
		return false;
	d->dispatching = true;
	preempt_disable();
	return true;
}

/* Lock held: whatever was queued meanwhile has been looked at. */
static void release_queue(struct blk_dev *d)
{
	d->dispatching = false;
	preempt_enable();
}

static void run_queue(struct blk_dev *d, bool *on)
{
	if (claim_queue(d)) {
		dispatch(d, on);
		release_queue(d);
	}
}

static void count_req(struct blk_stats *st, const struct blk_req *r)
{
	st->reqs[r->op]++;
	st->blocks[r->op] += r->nblocks;
}

int blk_submit(struct blk_dev *d, struct blk_req *r)
{
	struct blk_dev *disk = disk_of(d);
	int err = check_req(d, r);
	bool pages = !err && whole_pages(r);
	bool on = spin_lock_irqsave(&disk->lock);
	if (err) {
		d->st.rejected++;
		spin_unlock_irqrestore(&disk->lock, on);
		return err;
	}
	r->dev = d;
	r->submit_tsc = rdtsc();
	r->status = 0;
	r->chain = NULL;
	r->flags = pages ? 0 : BLK_REQ_ALONE;
	count_req(&d->st, r);
	if (d != disk) {
		r->lba += d->part_start;
		count_req(&disk->st, r);
	}
	list_add_tail(&r->link, &disk->queue);
	disk->queued++;
	run_queue(disk, &on);
	spin_unlock_irqrestore(&disk->lock, on);
	return 0;
}

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
	run_queue(d, &on);
	spin_unlock_irqrestore(&d->lock, on);
}

/* ------------------------------------------------------------ completion */

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

/* r is done with status: account it, give it back its partition LBA.
 * Disk lock held. */
static void finish_req(struct blk_dev *d, struct blk_req *r, int status, uint64_t now)
{
	uint64_t ns = tsc_to_ns(now - r->submit_tsc);
	r->status = status;
	account_latency(&d->st, ns);
	d->st.failed_reqs += status != 0;
	if (r->dev != d) {
		account_latency(&r->dev->st, ns);
		r->dev->st.errors += status != 0;
		r->dev->st.failed_reqs += status != 0;
		r->lba -= r->dev->part_start;
	}
}

/* Sort the requests of a finished command: those to retry alone go back
 * to the head of the queue, in order; the others are finished and
 * returned, chained by ->chain, for their callbacks.  Lock held. */
static struct blk_req *finish_cmd(struct blk_dev *d, struct blk_cmd *c, int status)
{
	struct blk_merge_scratch *m = d->merge;
	uint64_t now = rdtsc();
	int n = 0;
	for (struct blk_req *x = c->reqs; x; x = x->chain) {
		ASSERT(n < MERGE_WINDOW);       /* build_cmd looks at no more */
		m->reqs[n] = x;
		m->items[n++] = merge_item(x);
	}
	d->st.retried_alone += (uint64_t)blk_merge_split(m->items, n, status, m->retry);
	for (int i = n - 1; i >= 0; i--) {
		if (m->retry[i]) {
			m->reqs[i]->flags |= BLK_REQ_ALONE;
			list_add(&m->reqs[i]->link, &d->queue);
			d->queued++;
		}
	}
	struct blk_req *done = NULL, **tail = &done;
	for (int i = 0; i < n; i++) {
		if (!m->retry[i]) {
			finish_req(d, m->reqs[i], status, now);
			*tail = m->reqs[i];
			tail = &m->reqs[i]->chain;
		}
	}
	*tail = NULL;
	return done;
}

void blk_complete(struct blk_cmd *c, int status)
{
	struct blk_dev *d = c->dev;
	bool on = spin_lock_irqsave(&d->lock);
	d->st.inflight--;
	d->st.errors += status != 0;
	struct blk_req *r = finish_cmd(d, c, status);
	c->busy = false;
	bool runner = claim_queue(d);
	spin_unlock_irqrestore(&d->lock, on);
	while (r) {
		struct blk_req *next = r->chain;
		r->done(r);
		r = next;
	}
	if (runner) {
		on = spin_lock_irqsave(&d->lock);
		dispatch(d, &on);
		release_queue(d);
		spin_unlock_irqrestore(&d->lock, on);
	}
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
	size_t n = (((uintptr_t)buf & (PAGE - 1)) + len + PAGE - 1) / PAGE;
	if (!len || n > BLK_MAX_SEGS)
		return -EINVAL;
	struct blk_seg few[RW_STACK_SEGS];
	struct blk_seg *segs = n <= RW_STACK_SEGS ? few : kmalloc(n * sizeof *segs);
	if (!segs)
		return -ENOMEM;
	uint8_t *p = buf;
	for (size_t i = 0; i < n; i++) {
		uint64_t pa = virt_to_phys(p);
		uint32_t chunk = PAGE - (uint32_t)(pa & (PAGE - 1));
		if (chunk > len)
			chunk = (uint32_t)len;
		segs[i] = (struct blk_seg){ pa, chunk };
		p += chunk;
		len -= chunk;
	}
	int err = blk_rw_segs(d, op, lba, segs, (uint32_t)n);
	if (segs != few)
		kfree(segs);
	return err;
}

int blk_flush(struct blk_dev *d)
{
	struct blk_dev *disk = disk_of(d);
	if (!disk->ops->flush)
		return 0;
	int err = disk->ops->flush(disk);
	bool on = spin_lock_irqsave(&disk->lock);
	disk->st.flushes++;
	spin_unlock_irqrestore(&disk->lock, on);
	return err;
}

/* ------------------------------------------------------------ registration */

static void init_dev(struct blk_dev *d)
{
	spin_init(&d->lock, "blk");
	list_init(&d->queue);
	d->queued = 0;
	d->plugged = 0;
	d->dispatching = false;
	memset(&d->st, 0, sizeof d->st);
}

static void free_cmds(struct blk_dev *d)
{
	for (uint32_t i = 0; d->cmds && i < d->queue_depth; i++)
		kfree(d->cmds[i].segs);
	kfree(d->cmds);
	kfree(d->merge);
	d->cmds = NULL;
	d->merge = NULL;
}

/* queue_depth small commands, each with its own max_segs segment list
 * (4 KiB at most: one page each, never one large block for all). */
static int alloc_cmds(struct blk_dev *d)
{
	d->cmds = kzalloc(d->queue_depth * sizeof *d->cmds);
	d->merge = kmalloc(sizeof *d->merge);
	if (!d->cmds || !d->merge)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->queue_depth; i++)
		if (!(d->cmds[i].segs = kmalloc(d->max_segs * sizeof(struct blk_seg))))
			return -ENOMEM;
	return 0;
}

/* Everything one partition-table scan needs, off the stack. */
struct gpt_scan {
	struct gpt_disk g;
	struct gpt_cache cache;
	struct gpt_part parts[MAX_PARTS];
};

static int dev_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct blk_dev *d = ctx;
	return blk_rw(d, BLK_READ, lba, buf, (size_t)count * d->block_size);
}

/* The scan's read buffer: GPT_BUF bytes of contiguous pages, fewer when
 * the device takes smaller commands or memory is fragmented. */
static struct page *scan_buf_alloc(const struct blk_dev *d, unsigned *order)
{
	unsigned o = 0;
	while ((PAGE << (o + 1)) <= GPT_BUF && (1u << (o + 1)) <= blk_max_pages(d))
		o++;
	for (;; o--) {
		struct page *pg = pmm_alloc(o, PMM_KERNEL);
		if (pg || !o) {
			*order = o;
			return pg;
		}
	}
}

static void add_partition(struct blk_dev *disk, const struct gpt_part *gp)
{
	struct blk_dev *p = kzalloc(sizeof *p);
	if (!p) {
		kprintf("blk: %s: partition %u not registered: out of memory\n", disk->name, gp->index + 1);
		return;
	}
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
	p->boot_part = !gpt_guid_is_zero(boot_guid) && !memcmp(gp->uuid, boot_guid, 16);
	if (add_dev(p))
		kfree(p);
}

/* Say what the table held and register its partitions. */
static void take_table(struct blk_dev *d, const struct gpt_scan *s)
{
	const struct gpt_disk *g = &s->g;
	int shown = g->nbad < GPT_MAX_BAD ? g->nbad : GPT_MAX_BAD;
	if (g->used_backup)
		kprintf("blk: %s: primary GPT rejected (%s); using the backup\n", d->name,
			gpt_strerror(g->primary_error));
	for (int i = 0; i < shown; i++)
		kprintf("blk: %s: partition entry %u dropped: %s\n", d->name, g->bad[i].index,
			gpt_strerror(g->bad[i].err));
	if (g->nbad > shown)
		kprintf("blk: %s: %d more partition entries dropped\n", d->name, g->nbad - shown);
	if (g->unlisted)
		kprintf("blk: %s: %d partitions beyond the first %d not registered\n", d->name, g->unlisted,
			MAX_PARTS);
	for (int i = 0; i < g->nparts; i++)
		if (!gpt_guid_is_zero(boot_guid) && !memcmp(s->parts[i].uuid, boot_guid, 16))
			d->boot_disk = true;
	if (d->boot_disk)
		__atomic_store_n(&boot_found, true, __ATOMIC_RELEASE);
	for (int i = 0; i < g->nparts; i++)
		add_partition(d, &s->parts[i]);
}

static void scan_result(struct blk_dev *d, int n, const struct gpt_scan *s)
{
	if (n >= 0) {
		take_table(d, s);
	} else if (n == GPT_ENOGPT) {
		kprintf("blk: %s: no GPT partition table\n", d->name);
	} else {
		/* Unread or unusable: for the boot-disk rule, unknown. */
		d->gpt_unknown = n != GPT_ESMALL;
		if (n == GPT_EBOTHBAD)
			kprintf("blk: %s: partition table unusable: primary: %s; backup: %s\n", d->name,
				gpt_strerror(s->g.primary_error), gpt_strerror(s->g.backup_error));
		else
			kprintf("blk: %s: partition table unusable: %s\n", d->name, gpt_strerror(n));
	}
}

/* Read the GPT through gpt_cache: 4 device reads for a standard table
 * instead of the parser's 67 one-sector reads.  Sleeps. */
static void scan_partitions(struct blk_dev *d)
{
	uint64_t t0 = time_ns();
	unsigned order = 0;
	struct gpt_scan *s = kmalloc(sizeof *s);
	struct page *pg = s ? scan_buf_alloc(d, &order) : NULL;
	if (!pg) {
		d->gpt_unknown = true;
		kprintf("blk: %s: partition table not read: out of memory\n", d->name);
		kfree(s);
		return;
	}
	uint32_t cap = (PAGE << order) / d->block_size;
	gpt_cache_init(&s->cache, dev_read, d, d->nblocks, d->block_size, page_address(pg),
		       cap < d->max_blocks ? cap : d->max_blocks);
	int n = gpt_parse(gpt_cache_read, &s->cache, d->nblocks, d->block_size, &s->g, s->parts, MAX_PARTS);
	scan_result(d, n, s);
	d->gpt_reads = s->cache.reads;
	d->gpt_scan_ns = time_ns() - t0;
	pmm_free(pg, order);
	kfree(s);
}

int blk_register_disk(struct blk_dev *d)
{
	init_dev(d);
	if (d->max_segs > BLK_MAX_SEGS || !d->max_segs)
		d->max_segs = BLK_MAX_SEGS;
	if (alloc_cmds(d) || add_dev(d)) {
		free_cmds(d);
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
		json_bool(j, "boot_partition", d->boot_part);
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
		json_bool(j, "gpt_unreadable", d->gpt_unknown);
		json_u64(j, "gpt_reads", d->gpt_reads);
		json_u64(j, "gpt_scan_us", d->gpt_scan_ns / 1000);
	}
}

void blk_list(void)
{
	int count = dev_count();
	for (int i = 0; i < count; i++) {
		struct blk_dev *d = devs[i];
		uint64_t mib = d->nblocks * d->block_size >> 20;
		if (d->parent)
			kprintf("  %-12s %8lu MiB  %s \"%s\"%s\n", d->name, mib, gpt_type_name(d->part_type), d->part_label,
				d->boot_part ? " (boot partition)" : d->boot_disk ? " (boot disk)" : "");
		else
			kprintf("disk %-12s %8lu MiB  %u-byte blocks, queue depth %u, %u KiB per command  %s%s\n",
				d->name, mib, d->block_size, d->queue_depth, d->max_blocks * d->block_size / 1024,
				d->model, d->boot_disk ? " (boot disk)" : "");
	}
	if (boot_disk_missing()) {
		char guid[GPT_GUID_STR_LEN];
		gpt_guid_str(boot_guid, guid);
		kprintf("blk: the boot disk (ESP %s) is not reachable: no driver here for the device the machine "
			"booted from (a USB stick on EHCI?); nothing on it is used, swap partitions included\n", guid);
	}
	struct json *j = rec_begin("disks");
	json_arr_begin(j, "devices");
	for (int i = 0; i < count; i++) {
		json_obj_begin(j, NULL);
		dev_json(j, devs[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

/* A consistent copy of d's statistics. */
static void stats_of(struct blk_dev *d, struct blk_stats *out)
{
	struct blk_dev *disk = disk_of(d);
	bool on = spin_lock_irqsave(&disk->lock);
	*out = d->st;
	spin_unlock_irqrestore(&disk->lock, on);
}

void blk_report(void)
{
	static struct blk_stats snap;   /* halt hook: one caller */
	for (int i = 0, n = dev_count(); i < n; i++) {
		struct blk_dev *d = devs[i];
		struct blk_stats *s = &snap;
		stats_of(d, s);
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
		json_u64(j, "failed_reqs", s->failed_reqs);
		json_u64(j, "retried_alone", s->retried_alone);
		json_u64(j, "flushes", s->flushes);
		json_u64(j, "rejected", s->rejected);
		json_u64(j, "max_inflight", s->max_inflight);
		json_u64(j, "mean_latency_us", reqs ? s->lat_sum_ns / reqs / 1000 : 0);
		json_u64(j, "max_latency_us", s->lat_max_ns / 1000);
		json_u64(j, "read_pages", blk_read_pages(d));
		json_arr_begin(j, "latency_hist_log2_us");
		for (int b = 0; b < BLK_HIST_BUCKETS; b++)
			json_u64(j, NULL, s->lat_hist[b]);
		json_arr_end(j);
		rec_end();
	}
}
