/*
 * USB mass storage, Bulk-Only Transport (USB MSC BOT 1.0) with the SCSI
 * transparent command set: a stick as a block device usb<N> (N in probe
 * order from 0), its GPT partitions usb<N>p<K> as on any disk.
 *
 * Model.  The host driver (xhci.c, through usb.h) offers each addressed
 * device; one with a BOT interface is configured, asked INQUIRY, TEST
 * UNIT READY and READ CAPACITY (16 when 10 cannot say), and registered
 * with queue depth 1 and 1 MiB commands, each sent as SCSI commands of
 * up to usb_max_transfer() bytes.  BOT runs one command at a time and every USB
 * transfer sleeps, so ops->submit (any context) only hands the command
 * to the stick's worker thread, which runs CBW, data and CSW and calls
 * blk_complete() itself (a driver thread: allowed by blk.h).
 *
 * Errors (BOT 5.3, 6.6).  A CHECK CONDITION is followed by REQUEST SENSE
 * and one line naming the blocks and the sense; a unit attention or a
 * not-ready-becoming-ready is retried.  A stall in the data stage is
 * cleared and the CSW still read.  Anything else off protocol (a
 * transport error, a timeout, a bad or phase-error CSW) gets reset
 * recovery: Bulk-Only Mass Storage Reset, then CLEAR_FEATURE(HALT) on
 * both bulk endpoints; when that fails too, or the next command fails
 * again, the host driver resets the port and configures the device
 * again; when that fails, the stick is offline and every command fails
 * with -EIO.  A command is tried
 * USB_STOR_TRIES times in all.  A stick the host driver reports gone
 * (unplugged: usb_gone) is offline at once, without recovery.
 *
 * Write cache.  Sticks keep writes in a volatile cache; ops->flush
 * (blk_flush: the results file after each write) has the worker send
 * SYNCHRONIZE CACHE (10) when anything was written since the last one,
 * and the halt hook does the same for every stick before its record (the
 * results file's last write, later, is flushed by its writer).  A stick
 * that rejects the command (ILLEGAL REQUEST: no cache to flush) is not
 * asked again.
 *
 * Locking.  s->lock (spinlock, irqsave) guards s->pending, the one
 * command handed over and not yet taken by the worker, and s->flush_req.
 * s->flush_lock (mutex) lets one flush at a time be handed over.
 * Everything else belongs to the worker thread (and to the probing
 * thread before the worker starts).
 */
#include <string.h>
#include "usb.h"
#include "blk_driver.h"
#include "core/config.h"
#include "core/console.h"
#include "core/panic.h"
#include "core/record.h"
#include "core/sched.h"
#include "core/wait.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "mem/kmalloc.h"
#include "mem/pmm.h"
#include "arch/x86_64/x86.h"

#define NS_PER_MS               1000000ul
/* Linux's default for SCSI commands (sd); slow sticks flash-erase for seconds. */
#define USB_STOR_CMD_TIMEOUT_NS (30000 * NS_PER_MS)     /* usb_timeout= overrides it */
#define USB_STOR_CTL_TIMEOUT_NS (5000 * NS_PER_MS)
#define USB_STOR_TRIES          3
#define USB_STOR_READY_TRIES    20      /* TEST UNIT READY at probe, 100 ms apart */
/* One SCSI command moves at most this many pieces (each inside one
 * page, so the host driver can always bounce it); a block-layer command
 * of up to 1 MiB (BLK_MAX_SEGS pages, what NVMe and AHCI take) becomes
 * one or more of them. */
#define USB_STOR_CHUNK_SEGS     128
#define USB_STOR_MAX            8
#define USB_STOR_ERROR_LINES    32
#define PAGE                    4096u

/* The stick's small DMA page: the CBW, the CSW and short replies. */
#define IO_CBW                  0
#define IO_CSW                  64
#define IO_DATA                 512

struct usb_stor {
	struct blk_dev blk;
	struct usb_device *u;
	struct usb_bot_iface f;
	int index;
	uint32_t tag;
	uint8_t *io;
	uint64_t io_phys;
	struct page *io_pg;
	struct usb_seg segs[USB_STOR_CHUNK_SEGS];
	struct scsi_inquiry inq;
	bool offline;
	bool gone;                      /* offline because it was unplugged */
	uint32_t recover_streak;        /* recoveries since the last good command */
	uint32_t error_lines;
	struct {
		uint64_t cmds, errors, check_conditions, recoveries, device_resets, retries, syncs;
	} st;
	bool dirty;                     /* written since the last SYNCHRONIZE CACHE */
	bool no_sync;                   /* it said ILLEGAL REQUEST to SYNCHRONIZE CACHE */
	struct spinlock lock;
	struct blk_cmd *pending;        /* lock */
	struct completion *flush_req;   /* lock: a flush handed over */
	int flush_err;                  /* the handed-over flush's result, read after its completion */
	struct mutex flush_lock;
	struct waitq wq;
};

static struct usb_stor *sticks[USB_STOR_MAX];
static int nsticks;
static bool halt_hooked;

/* ------------------------------------------------------------ transport */

static bool error_budget(struct usb_stor *s)
{
	if (s->error_lines == USB_STOR_ERROR_LINES)
		kprintf("%s: more errors: counted in the halt record, no longer printed\n", s->blk.name);
	return s->error_lines++ < USB_STOR_ERROR_LINES;
}

/* A command's data and status stage each get this long. */
static uint64_t cmd_timeout(void)
{
	return kcfg.usb_timeout ? kcfg.usb_timeout * NS_PER_MS : USB_STOR_CMD_TIMEOUT_NS;
}

static int bulk(struct usb_stor *s, bool in, const struct usb_seg *seg, uint32_t n, uint32_t *got, uint64_t t)
{
	return usb_bulk(s->u, in ? s->f.ep_in : s->f.ep_out, seg, n, got, t);
}

/* The stick was pulled (or its controller died): offline at once, no
 * recovery to try, so every command fails with -EIO without waiting.
 * Returns -EIO. */
static int gone(struct usb_stor *s)
{
	if (!s->offline) {
		s->offline = s->gone = true;
		kprintf("%s: %s: the stick is gone (unplugged): offline, all its I/O fails from now on\n",
			s->blk.name, usb_name(s->u));
	}
	return -EIO;
}

/* Reset recovery (BOT 5.3.4); the port (the device reset and
 * configured again) when that fails, or when the last recovery was not
 * followed by one good command: a device that ignores the Bulk-Only
 * reset (QEMU's keeps the stuck command) only comes back that way.  0
 * when the stick is usable again. */
static int recover(struct usb_stor *s, const char *why)
{
	if (usb_gone(s->u))
		return gone(s);
	bool again = s->recover_streak++ > 0;
	s->st.recoveries++;
	if (error_budget(s))
		kprintf("%s: %s: %s\n", s->blk.name, why, again ? "port reset (reset recovery did not help)" :
								  "reset recovery");
	struct usb_setup rq = { 0x21, 0xff, 0, s->f.iface, 0 };        /* Bulk-Only Mass Storage Reset */
	if (!again && !usb_control(s->u, &rq, NULL, NULL, USB_STOR_CTL_TIMEOUT_NS) &&
	    !usb_clear_halt(s->u, s->f.ep_in) && !usb_clear_halt(s->u, s->f.ep_out))
		return 0;
	s->st.device_resets++;
	if (!usb_reset_device(s->u))
		return 0;
	if (usb_gone(s->u))
		return gone(s);
	s->offline = true;
	kprintf("%s: the stick does not recover: offline, all its I/O fails from now on\n", s->blk.name);
	return -EIO;
}

/* The CSW, once more after a stall (BOT 6.7.2, 6.7.3). */
static int read_csw(struct usb_stor *s, uint32_t *got)
{
	struct usb_seg seg = { s->io_phys + IO_CSW, USB_CSW_LEN };
	int err = bulk(s, true, &seg, 1, got, cmd_timeout());
	if (err == -EPIPE && !(err = usb_clear_halt(s->u, s->f.ep_in)))
		err = bulk(s, true, &seg, 1, got, cmd_timeout());
	return err;
}

/* One command: CBW, data, CSW.  Returns the CSW status (0 passed, 1
 * failed: CHECK CONDITION) or a negative errno after reset recovery. */
static int bot(struct usb_stor *s, const uint8_t *cdb, uint8_t cdb_len, bool in, const struct usb_seg *data,
	       uint32_t nsegs, uint32_t len, uint32_t *residue)
{
	if (s->offline)
		return -EIO;
	uint32_t tag = ++s->tag, got = 0;
	usb_bot_cbw(s->io + IO_CBW, tag, len, in, 0, cdb, cdb_len);
	struct usb_seg cbw = { s->io_phys + IO_CBW, USB_CBW_LEN };
	s->st.cmds++;
	int err = bulk(s, false, &cbw, 1, NULL, cmd_timeout());
	if (err)
		return recover(s, "command wrapper not taken") ? -EIO : err;
	if (len) {
		err = bulk(s, in, data, nsegs, &got, cmd_timeout());
		if (err == -EPIPE)
			err = usb_clear_halt(s->u, in ? s->f.ep_in : s->f.ep_out);
		if (err)
			return recover(s, err == -ETIMEDOUT ? "data stage timed out" : "data stage failed") ? -EIO : err;
	}
	memset(s->io + IO_CSW, 0, USB_CSW_LEN);
	if ((err = read_csw(s, &got)))
		return recover(s, "no status wrapper") ? -EIO : err;
	uint8_t status;
	int bad = usb_bot_csw(s->io + IO_CSW, got, tag, len, &status, residue);
	if (bad)
		return recover(s, usb_csw_strerror(bad)) ? -EIO : -EIO;
	if (status == USB_CSW_PHASE)
		return recover(s, "phase error") ? -EIO : -EIO;
	s->recover_streak = 0;          /* the transport works */
	return status;
}

/* A command with a short reply into s->io + IO_DATA. */
static int bot_small(struct usb_stor *s, uint8_t op, uint32_t len, uint32_t *got)
{
	uint8_t cdb[16];
	uint8_t n = scsi_cdb(cdb, op, len);
	struct usb_seg seg = { s->io_phys + IO_DATA, len };
	uint32_t residue = 0;
	memset(s->io + IO_DATA, 0, len);
	int st = bot(s, cdb, n, true, &seg, len ? 1 : 0, len, &residue);
	if (got)
		*got = residue < len ? len - residue : 0;
	return st;
}

static int request_sense(struct usb_stor *s, struct scsi_sense *sense)
{
	uint32_t got = 0;
	int st = bot_small(s, SCSI_REQUEST_SENSE, SCSI_SENSE_LEN, &got);
	if (st)
		return st < 0 ? st : -EIO;
	return scsi_parse_sense(s->io + IO_DATA, got, sense) ? 0 : -EIO;
}

/* ------------------------------------------------------------ block I/O */

/* Where the next chunk of a command starts. */
struct chunk_pos {
	uint32_t seg, off;
};

/* Fill s->segs with the next chunk from pos: pieces inside one page,
 * at most USB_STOR_CHUNK_SEGS of them and max bytes.  Returns the
 * chunk's bytes (a multiple of the block size: every segment is) and
 * the piece count in *n. */
static uint32_t next_chunk(struct usb_stor *s, const struct blk_cmd *cmd, struct chunk_pos *pos, uint32_t max,
			   uint32_t *n)
{
	uint32_t bytes = 0;
	*n = 0;
	while (pos->seg < cmd->nsegs && *n < USB_STOR_CHUNK_SEGS && bytes < max) {
		const struct blk_seg *g = &cmd->segs[pos->seg];
		uint64_t p = g->phys + pos->off;
		uint32_t len = PAGE - (uint32_t)(p & (PAGE - 1));
		if (len > g->len - pos->off)
			len = g->len - pos->off;
		if (len > max - bytes)
			len = max - bytes;
		s->segs[(*n)++] = (struct usb_seg){ p, len };
		bytes += len;
		pos->off += len;
		if (pos->off == g->len) {
			pos->seg++;
			pos->off = 0;
		}
	}
	return bytes;
}

static int rw_once(struct usb_stor *s, enum blk_op op, uint64_t lba, uint32_t len, uint32_t nsegs,
		   struct scsi_sense *sense)
{
	uint8_t cdb[16];
	uint32_t residue = 0;
	uint8_t n = scsi_rw_cdb(cdb, op == BLK_WRITE, lba, len / s->blk.block_size);
	sense->valid = false;
	int st = bot(s, cdb, n, op == BLK_READ, s->segs, nsegs, len, &residue);
	if (st == USB_CSW_FAILED) {
		s->st.check_conditions++;
		if (request_sense(s, sense))
			sense->valid = false;
		return -EIO;
	}
	if (st == 0 && residue) {
		sense->valid = false;
		return -EIO;            /* a read or write that moved less than asked */
	}
	return st;
}

/* Worth another try: a transport error the recovery mended, a unit
 * attention (media changed, reset), a device becoming ready. */
static bool retryable(int err, const struct scsi_sense *sense)
{
	if (err == -EIO && sense->valid)
		return sense->key == 6 || (sense->key == 2 && sense->asc == 0x04 && sense->ascq == 0x01);
	return err == -ETIMEDOUT || err == -EPIPE || err == -ENODEV || (err == -EIO && !sense->valid);
}

/* One chunk, retried while that may help; failures are printed. */
static int chunk_rw(struct usb_stor *s, enum blk_op op, uint64_t lba, uint32_t len, uint32_t nsegs)
{
	struct scsi_sense sense = { 0 };
	int err = -EIO;
	for (int t = 0; t < USB_STOR_TRIES && !s->offline; t++) {
		if (t)
			s->st.retries++;
		err = rw_once(s, op, lba, len, nsegs, &sense);
		if (!err || !retryable(err, &sense))
			break;
	}
	if (!err)
		return 0;
	s->st.errors++;
	if (error_budget(s)) {
		const char *what = op == BLK_WRITE ? "write" : "read";
		uint64_t last = lba + len / s->blk.block_size - 1;
		if (sense.valid)
			kprintf("%s: %s of blocks %lu..%lu failed: %s (asc 0x%02x ascq 0x%02x)\n", s->blk.name, what,
				lba, last, scsi_sense_key_name(sense.key), sense.asc, sense.ascq);
		else if (err == -ETIMEDOUT)
			kprintf("%s: %s of blocks %lu..%lu failed: no completion in %lu ms, %d tries\n", s->blk.name,
				what, lba, last, cmd_timeout() / NS_PER_MS, USB_STOR_TRIES);
		else
			kprintf("%s: %s of blocks %lu..%lu failed: %s\n", s->blk.name, what, lba, last,
				s->offline ? "the stick is offline" : "transport error");
	}
	return err == -ETIMEDOUT ? -ETIMEDOUT : -EIO;
}

static int do_rw(struct usb_stor *s, const struct blk_cmd *cmd)
{
	struct chunk_pos pos = { 0, 0 };
	if (cmd->op == BLK_WRITE)
		s->dirty = true;        /* even when it fails: part may have been written */
	uint64_t lba = cmd->lba;
	uint32_t max = usb_max_transfer(s->u), n;
	for (uint32_t len; (len = next_chunk(s, cmd, &pos, max, &n));) {
		int err = chunk_rw(s, cmd->op, lba, len, n);
		if (err)
			return err;
		lba += len / s->blk.block_size;
	}
	return 0;
}

/* SYNCHRONIZE CACHE (10) of the whole medium (SBC-3 5.22), when
 * something was written since the last one.  Worker context. */
static int do_sync(struct usb_stor *s)
{
	if (!s->dirty || s->no_sync)
		return s->offline ? -EIO : 0;
	struct scsi_sense sense = { 0 };
	int st = bot_small(s, SCSI_SYNC_CACHE_10, 0, NULL);
	if (st == USB_CSW_FAILED && !request_sense(s, &sense) && sense.key == 5) {
		s->no_sync = true;      /* ILLEGAL REQUEST: nothing cached, nothing to flush */
		kprintf("%s: SYNCHRONIZE CACHE not supported: writes are taken as durable\n", s->blk.name);
		return 0;
	}
	if (st) {
		s->st.errors++;
		if (error_budget(s))
			kprintf("%s: SYNCHRONIZE CACHE failed: %s\n", s->blk.name,
				s->offline ? "the stick is offline" : "the write cache may not be on the medium");
		return -EIO;
	}
	s->st.syncs++;
	s->dirty = false;
	return 0;
}

static bool has_pending(void *arg)
{
	struct usb_stor *s = arg;
	return __atomic_load_n(&s->pending, __ATOMIC_ACQUIRE) != NULL ||
	       __atomic_load_n(&s->flush_req, __ATOMIC_ACQUIRE) != NULL;
}

static void worker(void *arg)
{
	struct usb_stor *s = arg;
	for (;;) {
		wait_event_timeout(&s->wq, has_pending, s, 0);
		bool on = spin_lock_irqsave(&s->lock);
		struct blk_cmd *cmd = s->pending;
		struct completion *flush = s->flush_req;
		s->pending = NULL;
		s->flush_req = NULL;
		spin_unlock_irqrestore(&s->lock, on);
		if (cmd)
			blk_complete(cmd, do_rw(s, cmd));
		if (flush) {
			s->flush_err = do_sync(s);
			complete(flush);
		}
	}
}

/* ops->flush: the worker sends the command (it owns the transport).
 * Thread context, sleeps. */
static int stor_flush(struct blk_dev *d)
{
	struct usb_stor *s = d->drv;
	struct completion done;
	completion_init(&done);
	mutex_lock(&s->flush_lock);
	bool on = spin_lock_irqsave(&s->lock);
	__atomic_store_n(&s->flush_req, &done, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&s->lock, on);
	waitq_wake_all(&s->wq);
	completion_wait(&done);
	int err = s->flush_err;
	mutex_unlock(&s->flush_lock);
	return err;
}

/* ops->submit: hands the command to the worker.  Any context. */
static int stor_submit(struct blk_dev *d, struct blk_cmd *cmd)
{
	struct usb_stor *s = d->drv;
	if (cmd->nblocks > d->max_blocks)
		return -EINVAL;
	bool on = spin_lock_irqsave(&s->lock);
	bool busy = s->pending != NULL;
	if (!busy)
		__atomic_store_n(&s->pending, cmd, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&s->lock, on);
	if (busy) {
		kprintf("%s: a second command while one is queued (driver bug): failed\n", d->name);
		return -EBUSY;
	}
	waitq_wake_all(&s->wq);
	return 0;
}

static const struct blk_ops stor_ops = { .submit = stor_submit, .flush = stor_flush };

/* ------------------------------------------------------------ probe */

/* TEST UNIT READY until the stick says ready (it reports a unit
 * attention after every reset).  0 or -EIO. */
static int wait_ready(struct usb_stor *s)
{
	for (int i = 0; i < USB_STOR_READY_TRIES; i++) {
		int st = bot_small(s, SCSI_TEST_UNIT_READY, 0, NULL);
		if (st == 0)
			return 0;
		struct scsi_sense sense;
		if (st < 0 || request_sense(s, &sense))
			return -EIO;
		if (sense.key == 2 && sense.asc == 0x3a)
			return -ENOMEDIUM;      /* a card reader with no card */
		sleep_ms(100);
	}
	return -EIO;
}

/* READ CAPACITY (10), then (16) when the disk is 2 TiB or more.  NULL or why not. */
static const char *read_capacity(struct usb_stor *s, struct scsi_capacity *cap)
{
	uint32_t got = 0;
	if (bot_small(s, SCSI_READ_CAPACITY_10, SCSI_CAP10_LEN, &got))
		return "READ CAPACITY(10) failed";
	int err = scsi_parse_cap10(s->io + IO_DATA, got, cap);
	if (err == SCSI_CAP_NEED_16) {
		if (bot_small(s, SCSI_SERVICE_IN_16, SCSI_CAP16_LEN, &got))
			return "READ CAPACITY(16) failed";
		err = scsi_parse_cap16(s->io + IO_DATA, got, cap);
	}
	return err ? scsi_cap_strerror(err) : NULL;
}

/* Configure, identify, size.  NULL or why not. */
static const char *probe_stick(struct usb_stor *s, struct scsi_capacity *cap)
{
	if (usb_configure_bulk(s->u, &s->f))
		return "configuring its bulk endpoints failed";
	uint32_t got = 0;
	if (bot_small(s, SCSI_INQUIRY, SCSI_INQUIRY_LEN, &got) || !scsi_parse_inquiry(s->io + IO_DATA, got, &s->inq))
		return "INQUIRY failed";
	if (s->inq.peripheral != 0)
		return "not a direct-access block device (INQUIRY peripheral type)";
	int err = wait_ready(s);
	if (err)
		return err == -ENOMEDIUM ? "no medium" : "the unit does not become ready";
	return read_capacity(s, cap);
}

static void probe_record(const struct usb_stor *s, const char *error, const struct scsi_capacity *cap)
{
	struct json *j = rec_begin("usb_storage");
	json_str(j, "name", s->blk.name);
	json_str(j, "device", usb_name(s->u));
	json_bool(j, "ok", error == NULL);
	if (error)
		json_str(j, "error", error);
	json_str(j, "vendor", s->inq.vendor);
	json_str(j, "product", s->inq.product);
	json_bool(j, "removable", s->inq.removable);
	json_u64(j, "blocks", error ? 0 : cap->blocks);
	json_u64(j, "block_size", error ? 0 : cap->block_size);
	json_u64(j, "max_transfer", (uint64_t)s->blk.max_blocks * s->blk.block_size);
	rec_end();
}

static void stats_record(void)
{
	for (int i = 0; i < nsticks; i++) {
		struct usb_stor *s = sticks[i];
		struct json *j = rec_begin("usb_storage_stats");
		json_str(j, "name", s->blk.name);
		json_u64(j, "commands", s->st.cmds);
		json_u64(j, "errors", s->st.errors);
		json_u64(j, "check_conditions", s->st.check_conditions);
		json_u64(j, "retries", s->st.retries);
		json_u64(j, "recoveries", s->st.recoveries);
		json_u64(j, "device_resets", s->st.device_resets);
		json_u64(j, "syncs", s->st.syncs);
		json_bool(j, "offline", s->offline);
		json_bool(j, "gone", s->gone);
		rec_end();
	}
}

/* Halt (a report hook: thread context, the workers still run): each
 * stick's write cache to its medium, then the records. */
static void stor_halt(void)
{
	for (int i = 0; i < nsticks && irqs_enabled(); i++) {
		struct usb_stor *s = sticks[i];
		uint64_t before = s->st.syncs;
		if (!s->offline && !blk_flush(&s->blk) && s->st.syncs != before)
			kprintf("%s: write cache flushed at halt (SYNCHRONIZE CACHE)\n", s->blk.name);
	}
	stats_record();
}

static void fill_blk(struct usb_stor *s, const struct scsi_capacity *cap)
{
	struct blk_dev *b = &s->blk;
	b->nblocks = cap->blocks;
	b->block_size = cap->block_size;
	b->max_blocks = BLK_MAX_SEGS * PAGE / cap->block_size;
	b->max_segs = BLK_MAX_SEGS;
	b->queue_depth = 1;
	b->ops = &stor_ops;
	b->drv = s;
	ksnprintf(b->model, sizeof b->model, "%s %s", s->inq.vendor, s->inq.product);
}

bool usb_storage_probe(struct usb_device *u, const uint8_t *config, uint32_t config_len)
{
	struct usb_bot_iface f;
	if (usb_find_bot(config, config_len, &f))
		return false;
	struct usb_stor *s = nsticks < USB_STOR_MAX ? kzalloc(sizeof *s) : NULL;
	struct page *pg = s ? pmm_alloc(0, PMM_ZERO | PMM_KERNEL) : NULL;
	if (!pg) {
		kprintf("%s: mass storage not used: out of memory or more than %d sticks\n", usb_name(u), USB_STOR_MAX);
		kfree(s);
		return false;
	}
	s->u = u;
	s->f = f;
	s->io_pg = pg;
	s->io = page_address(pg);
	s->io_phys = page_to_phys(pg);
	s->index = nsticks;
	spin_init(&s->lock, "usb-stor");
	mutex_init(&s->flush_lock, "usb-stor-flush");
	waitq_init(&s->wq, "usb-stor");
	ksnprintf(s->blk.name, sizeof s->blk.name, "usb%d", s->index);
	struct scsi_capacity cap = { 0 };
	const char *why = probe_stick(s, &cap);
	if (!why)
		fill_blk(s, &cap);
	probe_record(s, why, &cap);
	if (why) {
		kprintf("%s: %s: mass storage not used: %s\n", s->blk.name, usb_name(u), why);
		pmm_free(pg, 0);        /* the endpoints stay configured: nothing is queued on them */
		kfree(s);
		return true;            /* ours, though unusable: no other driver takes it */
	}
	kprintf("%s: %s \"%s %s\"%s, %lu x %u-byte blocks (%lu MiB), %s\n", s->blk.name, usb_name(u), s->inq.vendor,
		s->inq.product, s->inq.removable ? " removable" : "", cap.blocks, cap.block_size,
		(cap.blocks * cap.block_size) >> 20, xhci_speed_name(usb_speed(u)));
	if (!thread_create(s->blk.name, worker, s, SCHED_NORMAL)) {
		kprintf("%s: no memory for its thread: not used\n", s->blk.name);
		return true;
	}
	sticks[nsticks++] = s;
	if (!halt_hooked) {
		halt_hooked = true;
		halt_register_hook(stor_halt);
	}
	if (blk_register_disk(&s->blk))
		kprintf("%s: cannot register with the block layer\n", s->blk.name);
	return true;
}
