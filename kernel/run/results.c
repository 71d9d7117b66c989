/*
 * The results file: the kernel's records kept on the ESP it booted from,
 * for machines without a serial port.
 *
 * Model.  The loader pre-allocated results/NNNN.jsonl, full of newlines,
 * and handed over the disk blocks that hold it (boot_info).  record.c
 * keeps every record line in memory as it is printed; this writer takes
 * the kept lines at safe points and writes them after those already in
 * the file:
 *   - at once, in the emitting thread, after a record that closes a unit
 *     of work (a run's result, a table, the end of a script or self-test,
 *     a run= step's vmstat record),
 *     when that thread may sleep; so a run's records are on disk before
 *     the next run starts, and no write overlaps a measurement;
 *   - at halt, from a halt hook registered before the disk drivers' (the
 *     NVMe driver shuts its controllers down in its own hook): the last
 *     write, with "final":true.  The reports later hooks print (the NVMe,
 *     AHCI, swap and final vmstat records) and the halt record itself are
 *     on the console only;
 *   - from the "results" thread when the kept lines pass half the buffer
 *     (a records-heavy run, or a unit record emitted where no one may
 *     sleep).
 * The file's layout (records, one trailer {"type":"results_file",
 * "valid_bytes":N,...,"final":...}, newlines; valid JSONL at every moment)
 * and what each write covers are pure logic in results_log.c, which the
 * host tests replay against a fake disk.
 *
 * Safety.  Writes go only to the loader's runs, mapped piece by piece,
 * and the block layer checks every request against the same list
 * (blk_allow_results): the ESP's other blocks are never written.  Before
 * the first write the runs are read back and must hold nothing but the
 * newlines the loader wrote (a wrong partition start, a misread FAT or
 * another disk with the same partition GUID would show here).  When the
 * file is full, one line says so and writing stops.
 *
 * Panic.  Nothing is written: the block layer completes requests by
 * interrupt and has no polled path, and a panic runs with interrupts off
 * and the machine in an unknown state.  The records since the last write
 * (at most those of the unit that was running) are then only on the
 * console; one line says so.
 *
 * Locking: R.lock (a mutex) serialises writers and guards R.log (offsets
 * and the stage buffer) and R.stopped; the rest is set once in
 * results_init.
 */
#include <string.h>
#include "results.h"
#include "core/record.h"
#include "core/console.h"
#include "core/panic.h"
#include "lib/errno.h"
#include "results_log.h"
#include "drivers/blk.h"
#include "mem/pmm.h"
#include "core/sched.h"
#include "core/wait.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/percpu.h"

#define STAGE_ORDER 6                   /* 256 KiB: as much as record.c keeps */
#define STAGE_BYTES (4096u << STAGE_ORDER)
#define PAGE 4096u

static struct {
	struct blk_dev *disk;
	struct boot_extent ext[BOOT_RESULTS_MAX_EXTENTS];
	int next;
	char name[BOOT_RESULTS_NAME_MAX];
	struct mutex lock;
	struct thread *owner;           /* writing now (lock), to ignore its own records */
	struct rlog log;                /* lock: the file's layout and the stage buffer */
	bool stopped;                   /* lock: full or failed; atomic reads */
	struct waitq wq;
	volatile bool wanted;           /* the thread should write */
} R;

/* Move stage[0..len) to or from file offset off (both multiples of the
 * block size), split at run ends and at the device's largest request.
 * Sleeps. */
static int file_io(enum blk_op op, uint64_t off, size_t len)
{
	uint64_t max = (uint64_t)blk_max_pages(R.disk) * PAGE;
	for (size_t done = 0; done < len;) {
		uint64_t left;
		uint64_t lba = rlog_map(R.ext, R.next, R.log.bs, off + done, &left);
		uint64_t n = len - done;
		if (!left)
			return -ERANGE;         /* never past the file's last block */
		if (n > left)
			n = left;
		if (n > max)
			n = max;
		int err = blk_rw(R.disk, op, lba, R.log.stage + done, (size_t)n);
		if (err)
			return err;
		done += (size_t)n;
	}
	return 0;
}

/* The blocks must hold what the loader wrote, newlines only: proof that
 * they are this boot's file on this disk before anything is written
 * there.  Returns 0, or -EIO (unreadable), or the first offset + 1 of a
 * byte that is not a newline. */
static int64_t check_fresh(void)
{
	for (uint64_t off = 0; off < R.log.file_bytes; off += STAGE_BYTES) {
		uint64_t n = R.log.file_bytes - off < STAGE_BYTES ? R.log.file_bytes - off : STAGE_BYTES;
		if (file_io(BLK_READ, off, (size_t)n))
			return -EIO;
		for (uint64_t i = 0; i < n; i++)
			if (R.log.stage[i] != '\n')
				return (int64_t)(off + i + 1);
	}
	return 0;
}

/* Full or failed: say so once and keep nothing more. */
static void stop(long err)
{
	R.stopped = true;
	rec_keep_stop();
	if (err)
		kprintf("results: %s: write failed (error %ld): later records are on the console only\n", R.name, err);
	else
		kprintf("results: %s is full (%lu KiB): later records are on the console only\n", R.name,
			R.log.file_bytes >> 10);
}

static size_t take_kept(void *ctx, char *dst, size_t cap, bool *more)
{
	(void)ctx;
	return rec_keep_take(dst, cap, more);
}

/* One write.  Returns true when more lines remain; *wrote: a write went
 * out.  R.lock held. */
static bool write_some(bool final, bool *wrote)
{
	struct rlog_write w;
	R.log.lost = rec_keep_lost();
	if (rlog_prepare(&R.log, take_kept, NULL, final, &w)) {
		stop(0);
		return false;
	}
	int err = file_io(BLK_WRITE, w.base, w.len);
	if (err) {
		stop(err);
		return false;
	}
	*wrote = true;
	rlog_commit(&R.log, &w);
	return w.more;
}

static void flush(bool final)
{
	mutex_lock(&R.lock);
	R.owner = current_thread();
	bool wrote = false;
	while (!R.stopped && write_some(final, &wrote))
		;
	/* On the medium, not in the disk's write cache (USB sticks cache
	 * writes and may be pulled right after the run). */
	if (wrote)
		blk_flush(R.disk);
	R.owner = NULL;
	mutex_unlock(&R.lock);
}

static bool may_sleep(void)
{
	return irqs_enabled() && !this_cpu()->preempt_count && !this_cpu()->irq_depth && !panic_in_progress();
}

static void wake_writer(void)
{
	R.wanted = true;
	waitq_wake_all(&R.wq);
}

/* rec_end's notification: in the emitter's context, lock dropped. */
static void on_record(enum rec_event ev)
{
	if (__atomic_load_n(&R.stopped, __ATOMIC_RELAXED) || R.owner == current_thread())
		return;
	if (ev == REC_EVENT_HALT) {     /* only a panic gets here: results_halt stops keeping */
		kprintf("results: panic: records since the last write are not in %s (no polled disk path)\n", R.name);
		return;
	}
	if (ev == REC_EVENT_UNIT && may_sleep())
		flush(false);
	else
		wake_writer();
}

void results_halt(void)
{
	if (!R.disk || __atomic_load_n(&R.stopped, __ATOMIC_RELAXED))
		return;
	if (!may_sleep()) {
		kprintf("results: halted where the disk cannot be written: %s lacks the last records\n", R.name);
		return;
	}
	flush(true);
	mutex_lock(&R.lock);
	if (!R.stopped)
		kprintf("results: %s: %lu bytes of records; the reports below are on the console only\n", R.name,
			R.log.off);
	R.stopped = true;
	mutex_unlock(&R.lock);
	rec_keep_stop();
}

static void writer_thread(void *arg)
{
	(void)arg;
	for (;;) {
		WAIT_EVENT(&R.wq, R.wanted);
		R.wanted = false;
		if (!R.stopped)
			flush(false);
	}
}

/* The loader's runs, checked: they must cover exactly the file. */
static int take_runs(const struct boot_info *bi, struct blk_extent *ext)
{
	uint64_t blocks = 0;
	uint32_t n = bi->results_extent_count, bs = bi->results_block_size;
	if (n < 1 || n > BOOT_RESULTS_MAX_EXTENTS || n > BLK_RESULTS_MAX || !bs || (bs & (bs - 1)) || bs > PAGE)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		R.ext[i] = bi->results_extents[i];
		ext[i] = (struct blk_extent){ R.ext[i].lba, R.ext[i].blocks };
		blocks += R.ext[i].blocks;
	}
	R.next = (int)n;
	R.log.bs = bs;
	R.log.file_bytes = bi->results_bytes;
	return blocks * bs == bi->results_bytes && bi->results_bytes > RLOG_TRAILER_MAX ? 0 : -EINVAL;
}

static const char *allow_error(int err)
{
	if (err == -ENODEV)
		return "no disk driver here reaches the boot disk (a USB stick?): the results file is not reachable";
	if (err == -ERANGE)
		return "its blocks are not inside the boot partition; not written";
	if (err == -EEXIST)
		return "two disks hold a partition with the boot partition's GUID (one image written twice?); "
		       "which one was booted is unknown, so neither is written";
	return "the loader's block list is malformed; not written";
}

static int setup(const struct boot_info *bi)
{
	struct blk_dev *disk = NULL;
	struct blk_extent ext[BLK_RESULTS_MAX];
	int err = take_runs(bi, ext);
	if (!err)
		err = blk_allow_results(ext, R.next, &disk);
	if (err) {
		kprintf("results: %s: %s\n", R.name, allow_error(err));
		return err;
	}
	if (blk_block_size(disk) != R.log.bs) {
		kprintf("results: %s: the loader counted %u-byte blocks, %s has %u; not written\n", R.name, R.log.bs,
			blk_name(disk), blk_block_size(disk));
		return -EINVAL;
	}
	struct page *pg = pmm_alloc(STAGE_ORDER, PMM_KERNEL);
	if (!pg) {
		kprintf("results: %s: no memory for the write buffer; not written\n", R.name);
		return -ENOMEM;
	}
	R.log.stage = page_address(pg);
	R.log.stage_cap = STAGE_BYTES;
	R.log.name = R.name;
	R.disk = disk;
	int64_t bad = check_fresh();
	R.disk = NULL;
	if (bad) {
		if (bad < 0)
			kprintf("results: %s on %s: cannot read it back; not written\n", R.name, blk_name(disk));
		else
			kprintf("results: %s on %s: byte %ld is not what the loader wrote; not written\n", R.name,
				blk_name(disk), (long)(bad - 1));
		pmm_free(pg, STAGE_ORDER);
		return -EIO;
	}
	mutex_init(&R.lock, "results");
	waitq_init(&R.wq, "results");
	if (!thread_create("results", writer_thread, NULL, SCHED_NORMAL)) {
		kprintf("results: %s: no memory for the writer thread; not written\n", R.name);
		pmm_free(pg, STAGE_ORDER);
		return -ENOMEM;
	}
	R.disk = disk;
	return 0;
}

void results_init(const struct boot_info *bi)
{
	memcpy(R.name, bi->results_name, sizeof R.name);
	R.name[sizeof R.name - 1] = 0;
	if (!bi->results_valid) {
		char why[BOOT_RESULTS_WHY_MAX];
		memcpy(why, bi->results_why, sizeof why);
		why[sizeof why - 1] = 0;
		kprintf("results: no results file: %s\n", why[0] ? why : "the loader made none");
		rec_keep_stop();
		return;
	}
	if (setup(bi)) {
		rec_keep_stop();
		return;
	}
	kprintf("results: records also go to %s on %s (%lu KiB in %d piece%s)\n", R.name, blk_name(R.disk),
		R.log.file_bytes >> 10, R.next, R.next == 1 ? "" : "s");
	rec_keep_notify(on_record);
	flush(false);                   /* the boot's records so far */
}
