/*
 * Block-device self-test and benchmark, run with test=blk or test=blkbench
 * on the scratch device named by blkdev=NAME (which this marks writable:
 * naming it is the permission; the boot disk is refused).
 *
 *   blk:      write-then-verify passes over the first blktest_mib MiB:
 *             sequential with sizes 4 KiB..1 MiB and 32+ requests in flight,
 *             then random offsets and sizes at queue depth 32; every block
 *             carries a pattern derived from its number and the pass, so a
 *             misplaced, stale or torn block is caught.
 *   blkbench: 4 KiB random reads at queue depth 1 and 32 (IOPS), 128 KiB
 *             sequential reads and writes at depth 1 and 32 (MB/s).
 *   blkedge:  the checks at the edges: a write before the device is marked
 *             writable, requests past the end and malformed ones are all
 *             refused by blk_submit (no callback); the last block reads,
 *             and writes and reads back.
 *   blksplit: 32 one-page requests over the first 128 KiB, submitted
 *             plugged so they merge into one command, written and then
 *             read back the same way.  With a bad sector injected under
 *             one of them (QEMU blkdebug), only that request may fail:
 *             the others merged with it must succeed and read back intact.
 *             Then the batch is read again as a chain, each request
 *             submitted from the previous one's callback.  The record
 *             lists the failed request numbers per pass.
 * All print a selftest record; the engine keeps `depth` requests in
 * flight and refills from the completion wakeups.
 */
#include <string.h>
#include "selftest.h"
#include "drivers/blk_driver.h"
#include "core/console.h"
#include "core/time.h"
#include "core/config.h"
#include "lib/json.h"
#include "lib/errno.h"
#include "mem/pmm.h"
#include "mem/kmalloc.h"
#include "core/wait.h"

#define SLOTS 64
#define MAX_REQ_PAGES 256       /* 1 MiB */
#define BUF_BUDGET_PAGES 4096   /* 16 MiB of buffers at most */

struct slot {
	struct blk_req req;
	struct blk_seg segs[MAX_REQ_PAGES];
	struct page *pages[MAX_REQ_PAGES];
	uint32_t npages;
	volatile bool done;
	bool busy;
};

static struct {
	struct blk_dev *dev;
	struct slot *slots;
	int nslots;
	struct waitq wq;
	volatile int completed;
	uint64_t verify_errors, io_errors, ops, bytes;
	uint64_t rng;
	int failures;
} T;

static void check(bool ok, const char *what)
{
	if (!ok) {
		T.failures++;
		kprintf("selftest: FAILED: %s\n", what);
	}
}

static uint64_t rnd(void)
{
	T.rng ^= T.rng << 13;
	T.rng ^= T.rng >> 7;
	T.rng ^= T.rng << 17;
	return T.rng;
}

static uint64_t pattern(uint64_t byte_off, uint64_t pass)
{
	uint64_t x = (byte_off >> 3) * 0x9e3779b97f4a7c15ull ^ (pass + 1) * 0xbf58476d1ce4e5b9ull;
	x ^= x >> 31;
	return x * 0x94d049bb133111ebull;
}

static void on_done(struct blk_req *r)
{
	struct slot *s = r->priv;
	if (r->status)
		T.io_errors++;
	s->done = true;
	__atomic_add_fetch(&T.completed, 1, __ATOMIC_RELAXED);
	waitq_wake_all(&T.wq);
}

static bool any_done(void *arg)
{
	(void)arg;
	return T.completed > 0;
}

/* Wait until some slot completes; returns it, or NULL on timeout. */
static struct slot *reap(void)
{
	for (;;) {
		for (int i = 0; i < T.nslots; i++) {
			struct slot *s = &T.slots[i];
			if (s->busy && s->done) {
				s->busy = false;
				__atomic_sub_fetch(&T.completed, 1, __ATOMIC_RELAXED);
				return s;
			}
		}
		if (wait_event_timeout(&T.wq, any_done, NULL, 30000000000ull))
			return NULL;
	}
}

static void fill(struct slot *s, uint64_t off, uint64_t pass)
{
	for (uint32_t p = 0; p < s->npages; p++) {
		uint64_t *w = page_address(s->pages[p]);
		for (int i = 0; i < 512; i++)
			w[i] = pattern(off + p * 4096ull + i * 8ull, pass);
	}
}

static void verify(struct slot *s, uint64_t off, uint64_t pass)
{
	for (uint32_t p = 0; p < s->npages; p++) {
		uint64_t *w = page_address(s->pages[p]);
		for (int i = 0; i < 512; i++)
			if (w[i] != pattern(off + p * 4096ull + i * 8ull, pass)) {
				if (T.verify_errors++ < 4)
					kprintf("selftest: %s: mismatch at byte %lu\n", T.dev->name, (uint64_t)(off + p * 4096ul + i * 8ul));
				break;
			}
	}
}

static int issue(struct slot *s, enum blk_op op, uint64_t off, uint32_t pages)
{
	s->npages = pages;
	for (uint32_t p = 0; p < pages; p++)
		s->segs[p] = (struct blk_seg){ page_to_phys(s->pages[p]), 4096 };
	s->req = (struct blk_req){ .op = op, .lba = off / blk_block_size(T.dev), .nsegs = pages,
				   .segs = s->segs, .done = on_done, .priv = s };
	s->done = false;
	s->busy = true;
	int err = blk_submit(T.dev, &s->req);
	if (err)
		s->busy = false;
	T.ops++;
	T.bytes += pages * 4096ull;
	return err;
}

struct pass {
	enum blk_op op;
	bool random;
	uint32_t min_pages, max_pages;  /* request size range */
	int depth;
	uint64_t span;                  /* bytes of the device used */
	uint64_t total;                 /* bytes to move */
	uint64_t seed;                  /* pattern pass: same for a write and its verify */
	bool check_data;
};

/* Run one pass; returns elapsed ns, or 0 on failure. */
static uint64_t run_pass(const struct pass *ps)
{
	uint64_t t0 = time_ns(), moved = 0, seq = 0;
	uint64_t offs[SLOTS];
	int inflight = 0;
	T.rng = ps->seed * 7919 + 1;
	while (moved < ps->total || inflight) {
		struct slot *s = NULL;
		for (int i = 0; i < ps->depth && !s && moved < ps->total; i++)
			if (!T.slots[i].busy && !T.slots[i].done)
				s = &T.slots[i];
		if (s) {
			uint32_t pages = ps->min_pages + (uint32_t)(rnd() % (ps->max_pages - ps->min_pages + 1));
			uint64_t len = pages * 4096ull, off;
			if (ps->random)
				off = (rnd() % (ps->span / len)) * len;
			else {
				if (seq + len > ps->span)
					seq = 0;
				off = seq;
				seq += len;
			}
			s->npages = pages;      /* fill() and verify() use it */
			if (ps->op == BLK_WRITE && ps->check_data)
				fill(s, off, ps->seed);
			offs[s - T.slots] = off;
			if (issue(s, ps->op, off, pages)) {
				check(false, "request rejected");
				return 0;
			}
			moved += len;
			inflight++;
			continue;
		}
		s = reap();
		if (!s) {
			check(false, "requests did not complete within 30 s");
			return 0;
		}
		s->done = false;
		inflight--;
		if (ps->op == BLK_READ && ps->check_data && !s->req.status)
			verify(s, offs[s - T.slots], ps->seed);
	}
	return time_ns() - t0;
}

static bool setup(uint32_t pages_per_slot, int nslots)
{
	T.dev = kcfg.blkdev[0] ? blk_find(kcfg.blkdev) : NULL;
	if (!T.dev) {
		kprintf("selftest: blkdev=%s: no such block device\n", kcfg.blkdev[0] ? kcfg.blkdev : "(not given)");
		return false;
	}
	if (!blk_set_writable(T.dev, true))
		return false;
	waitq_init(&T.wq, "blktest");
	T.slots = kzalloc(nslots * sizeof *T.slots);
	if (!T.slots)
		return false;
	T.nslots = nslots;
	for (int i = 0; i < nslots; i++)
		for (uint32_t p = 0; p < pages_per_slot; p++) {
			T.slots[i].pages[p] = pmm_alloc(0, PMM_KERNEL);
			if (!T.slots[i].pages[p])
				return false;
		}
	return true;
}

static void teardown(void)
{
	for (int i = 0; i < T.nslots; i++)
		for (uint32_t p = 0; p < MAX_REQ_PAGES && T.slots[i].pages[p]; p++)
			pmm_free(T.slots[i].pages[p], 0);
	kfree(T.slots);
	T.slots = NULL;
	T.nslots = 0;
}

static uint64_t span_of(void)
{
	uint64_t dev = blk_blocks(T.dev) * blk_block_size(T.dev);
	uint64_t want = (kcfg.blktest_mib ? kcfg.blktest_mib : 64) << 20;
	return (want < dev ? want : dev) & ~((1ull << 20) - 1);
}

static void pass_record(struct json *r, const char *name, const struct pass *p, uint64_t ns)
{
	json_obj_begin(r, name);
	json_u64(r, "bytes", p->total);
	json_u64(r, "depth", (uint64_t)p->depth);
	json_u64(r, "ns", ns);
	json_u64(r, "mb_per_s", ns ? p->total * 1000 / ns : 0);
	json_u64(r, "iops", ns ? (p->total / (p->min_pages * 4096ull)) * 1000000000ull / ns : 0);
	json_obj_end(r);
}

static void test_verify(struct json *r)
{
	/* 40 slots of up to 64 pages: 32+ in flight with requests up to
	 * 256 KiB; a second set of passes uses 1 MiB requests. */
	if (!setup(MAX_REQ_PAGES / 4, 40)) {
		check(false, "setup");
		return;
	}
	uint64_t span = span_of();
	struct pass seqw = { BLK_WRITE, false, 1, 64, 40, span, span, 1, true };
	struct pass seqr = seqw;
	seqr.op = BLK_READ;
	struct pass rndw = { BLK_WRITE, true, 1, 32, 32, span, span / 2, 2, true };
	struct pass rndr = rndw;
	rndr.op = BLK_READ;
	pass_record(r, "seq_write", &seqw, run_pass(&seqw));
	pass_record(r, "seq_read_verify", &seqr, run_pass(&seqr));
	pass_record(r, "rnd_write", &rndw, run_pass(&rndw));
	pass_record(r, "rnd_read_verify", &rndr, run_pass(&rndr));
	teardown();
	if (setup(MAX_REQ_PAGES, 4)) {
		struct pass bigw = { BLK_WRITE, false, 256, 256, 4, span, span, 3, true };
		struct pass bigr = bigw;
		bigr.op = BLK_READ;
		pass_record(r, "mib_write", &bigw, run_pass(&bigw));
		pass_record(r, "mib_read_verify", &bigr, run_pass(&bigr));
	} else {
		check(false, "setup for 1 MiB requests");
	}
	teardown();
	json_str(r, "device", T.dev ? T.dev->name : "");
	json_u64(r, "verify_errors", T.verify_errors);
	json_u64(r, "io_errors", T.io_errors);
	json_u64(r, "ops", T.ops);
	check(!T.verify_errors, "data read back matches what was written");
	check(!T.io_errors, "no I/O errors");
}

static void test_bench(struct json *r)
{
	if (!setup(32, 32)) {
		check(false, "setup");
		return;
	}
	uint64_t span = span_of();
	struct pass fillw = { BLK_WRITE, false, 32, 32, 32, span, span, 9, false };
	run_pass(&fillw);               /* so reads hit written blocks */
	static const struct { const char *name; enum blk_op op; bool rnd; uint32_t pages; int depth; } b[] = {
		{ "rand4k_read_qd1", BLK_READ, true, 1, 1 }, { "rand4k_read_qd32", BLK_READ, true, 1, 32 },
		{ "seq128k_read_qd1", BLK_READ, false, 32, 1 }, { "seq128k_read_qd32", BLK_READ, false, 32, 32 },
		{ "seq128k_write_qd1", BLK_WRITE, false, 32, 1 }, { "seq128k_write_qd32", BLK_WRITE, false, 32, 32 },
	};
	for (unsigned i = 0; i < sizeof b / sizeof b[0]; i++) {
		struct pass p = { b[i].op, b[i].rnd, b[i].pages, b[i].pages, b[i].depth, span,
				  b[i].pages == 1 ? 16ull << 20 : span, 9, false };
		pass_record(r, b[i].name, &p, run_pass(&p));
	}
	teardown();
	json_str(r, "device", T.dev->name);
	json_u64(r, "io_errors", T.io_errors);
	check(!T.io_errors, "no I/O errors");
}

/* ---- blkedge ---- */

static struct {
	struct blk_req req;             /* static: a wrongly accepted request must outlive its caller */
	struct blk_seg seg;
	struct completion done;
	volatile int callbacks;
} E;

static void edge_done(struct blk_req *r)
{
	(void)r;
	E.callbacks++;
	complete(&E.done);
}

/* Submit one request of one segment; a request that should have been
 * refused but was queued is waited for, so it never outlives E. */
static int edge_submit(enum blk_op op, uint64_t lba, uint64_t phys, uint32_t len, uint32_t nsegs)
{
	E.seg = (struct blk_seg){ phys, len };
	E.req = (struct blk_req){ .op = op, .lba = lba, .nsegs = nsegs, .segs = &E.seg, .done = edge_done };
	int err = blk_submit(T.dev, &E.req);
	if (!err && completion_wait_timeout(&E.done, 30000000000ull))
		check(false, "an accepted request completed within 30 s");
	return err;
}

static void edge_refused(struct json *r, const char *key, const char *what, int err)
{
	json_i64(r, key, err);
	check(err < 0, what);
}

static void edge_last_block(struct json *r, struct page *a, struct page *b)
{
	uint32_t bs = blk_block_size(T.dev);
	uint64_t last = blk_blocks(T.dev) - 1;
	memset(page_address(a), 0x5a, bs);
	memcpy(page_address(a), &last, sizeof last);
	memset(page_address(b), 0, bs);
	int rd = blk_rw(T.dev, BLK_READ, last, page_address(b), bs);
	int wr = blk_rw(T.dev, BLK_WRITE, last, page_address(a), bs);
	int back = blk_rw(T.dev, BLK_READ, last, page_address(b), bs);
	bool same = !memcmp(page_address(a), page_address(b), bs);
	json_i64(r, "last_block_read", rd);
	json_i64(r, "last_block_write", wr);
	json_bool(r, "last_block_read_back", !back && same);
	check(!rd, "the last block reads");
	check(!wr && !back && same, "the last block writes and reads back");
}

static void test_edge(struct json *r)
{
	T.dev = kcfg.blkdev[0] ? blk_find(kcfg.blkdev) : NULL;
	struct page *a = pmm_alloc(0, PMM_KERNEL), *b = pmm_alloc(0, PMM_KERNEL);
	completion_init(&E.done);
	E.callbacks = 0;
	if (!T.dev || !a || !b) {
		kprintf("selftest: blkdev=%s: no such block device (or no memory)\n", kcfg.blkdev);
		check(false, "setup");
		goto out;
	}
	uint64_t n = blk_blocks(T.dev), pa = page_to_phys(a);
	uint32_t bs = blk_block_size(T.dev);
	uint64_t rejected = T.dev->st.rejected;
	json_str(r, "device", T.dev->name);
	json_u64(r, "blocks", n);
	check(!blk_writable(T.dev), "the device starts out not writable");
	edge_refused(r, "write_not_writable", "a write to a device not marked writable is refused",
		     edge_submit(BLK_WRITE, 0, pa, bs, 1));
	if (!blk_set_writable(T.dev, true)) {
		check(false, "blk_set_writable");
		goto out;
	}
	edge_refused(r, "read_at_end", "a read at block n is refused", edge_submit(BLK_READ, n, pa, bs, 1));
	edge_refused(r, "write_at_end", "a write at block n is refused", edge_submit(BLK_WRITE, n, pa, bs, 1));
	edge_refused(r, "read_across_end", "a read of blocks n-1..n is refused",
		     edge_submit(BLK_READ, n - 1, pa, 2 * bs, 1));
	edge_refused(r, "read_far_past_end", "a read at block 2^64-1 is refused",
		     edge_submit(BLK_READ, ~0ull, pa, bs, 1));
	edge_refused(r, "no_segments", "a request without segments is refused", edge_submit(BLK_READ, 0, pa, bs, 0));
	edge_refused(r, "misaligned", "a segment at an odd address is refused", edge_submit(BLK_READ, 0, pa + 1, bs, 1));
	edge_refused(r, "partial_block", "a segment not a multiple of the block size is refused",
		     edge_submit(BLK_READ, 0, pa, bs / 2, 1));
	json_u64(r, "rejected", T.dev->st.rejected - rejected);
	json_u64(r, "callbacks", (uint64_t)E.callbacks);
	check(E.callbacks == 0, "refused requests get no callback");
	edge_last_block(r, a, b);
out:
	if (a)
		pmm_free(a, 0);
	if (b)
		pmm_free(b, 0);
}

/* ---- blksplit ---- */

#define SPLIT_REQS 32
#define SPLIT_SEED 5

/* One plugged batch of SPLIT_REQS adjacent one-page requests; returns how
 * many failed and lists them in r under key. */
static int split_pass(struct json *r, const char *key, enum blk_op op)
{
	int issued = 0;
	blk_plug(T.dev);
	for (int i = 0; i < SPLIT_REQS; i++) {
		T.slots[i].npages = 1;
		if (op == BLK_WRITE)
			fill(&T.slots[i], i * 4096ull, SPLIT_SEED);
		if (issue(&T.slots[i], op, i * 4096ull, 1))
			check(false, "request rejected");
		else
			issued++;
	}
	blk_unplug(T.dev);
	for (int k = 0; k < issued; k++) {
		struct slot *s = reap();
		if (!s) {
			check(false, "requests did not complete within 30 s");
			break;
		}
		s->done = false;
	}
	int failed = 0;
	json_arr_begin(r, key);
	for (int i = 0; i < SPLIT_REQS; i++)
		if (T.slots[i].req.status) {
			json_u64(r, NULL, (uint64_t)i);
			failed++;
		}
	json_arr_end(r);
	return failed;
}

/* Read the batch again as a chain: each request's callback (interrupt
 * context) submits the next one, as the block layer allows; nesting
 * stays at one callback deep. */
static struct {
	int next, depth, max_depth;
	struct completion all;
} C;

static void chain_done(struct blk_req *r);

static void chain_submit(int i)
{
	struct slot *s = &T.slots[i];
	s->segs[0] = (struct blk_seg){ page_to_phys(s->pages[0]), 4096 };
	s->req = (struct blk_req){ .op = BLK_READ, .lba = i * 4096ull / blk_block_size(T.dev), .nsegs = 1,
				   .segs = s->segs, .done = chain_done, .priv = s };
	if (blk_submit(T.dev, &s->req)) {
		s->req.status = -1;
		complete(&C.all);
	}
}

static void chain_done(struct blk_req *r)
{
	(void)r;
	if (++C.depth > C.max_depth)
		C.max_depth = C.depth;
	if (++C.next < SPLIT_REQS)
		chain_submit(C.next);
	else
		complete(&C.all);
	C.depth--;
}

static int chain_pass(struct json *r)
{
	for (int i = 0; i < SPLIT_REQS; i++)
		memset(page_address(T.slots[i].pages[0]), 0, 4096);
	C.next = C.depth = C.max_depth = 0;
	completion_init(&C.all);
	chain_submit(0);
	if (completion_wait_timeout(&C.all, 60000000000ull)) {
		check(false, "the callback chain did not finish within 60 s");
		return SPLIT_REQS;
	}
	int failed = 0;
	json_arr_begin(r, "chain_failed");
	for (int i = 0; i < SPLIT_REQS; i++)
		if (T.slots[i].req.status) {
			json_u64(r, NULL, (uint64_t)i);
			failed++;
		}
	json_arr_end(r);
	json_u64(r, "chain_max_depth", (uint64_t)C.max_depth);
	check(C.max_depth == 1, "a submission from a callback does not nest callbacks");
	return failed;
}

static void test_split(struct json *r)
{
	if (!setup(1, SPLIT_REQS)) {
		check(false, "setup");
		if (T.slots)
			teardown();
		return;
	}
	struct blk_dev *disk = T.dev->parent ? T.dev->parent : T.dev;
	uint64_t merges = disk->st.merges, alone = disk->st.retried_alone;
	bool wrote[SPLIT_REQS];
	int wfail = split_pass(r, "write_failed", BLK_WRITE);
	for (int i = 0; i < SPLIT_REQS; i++)
		wrote[i] = !T.slots[i].req.status;
	uint64_t wmerges = disk->st.merges - merges;
	for (int i = 0; i < SPLIT_REQS; i++)
		memset(page_address(T.slots[i].pages[0]), 0, 4096);
	int rfail = split_pass(r, "read_failed", BLK_READ);
	uint64_t verified = 0, before = T.verify_errors;
	for (int i = 0; i < SPLIT_REQS; i++)
		if (wrote[i] && !T.slots[i].req.status) {
			verify(&T.slots[i], i * 4096ull, SPLIT_SEED);
			verified++;
		}
	int cfail = chain_pass(r);
	for (int i = 0; i < SPLIT_REQS; i++)
		if (wrote[i] && !T.slots[i].req.status)
			verify(&T.slots[i], i * 4096ull, SPLIT_SEED);
	json_str(r, "device", T.dev->name);
	json_u64(r, "write_merges", wmerges);
	json_u64(r, "read_merges", disk->st.merges - merges - wmerges);
	json_u64(r, "retried_alone", disk->st.retried_alone - alone);
	json_u64(r, "verified", verified);
	json_u64(r, "verify_errors", T.verify_errors - before);
	teardown();
	check(wmerges >= SPLIT_REQS - 1, "the plugged writes merged into one command");
	check(wfail <= 1 && rfail <= 1 && cfail <= 1, "a bad sector fails at most the one request that holds it");
	check(T.verify_errors == before, "every request that was written and read back matches");
}

static const struct selftest tests[] = {
	{ "blk", test_verify },
	{ "blkbench", test_bench },
	{ "blkedge", test_edge },
	{ "blksplit", test_split },
};

bool blk_selftest(const char *name)
{
	T.failures = 0;
	return selftest_suite(name, tests, sizeof tests / sizeof tests[0], &T.failures);
}
