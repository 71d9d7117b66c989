/*
 * Swap areas and swap page I/O.
 *
 * An area is a block device (normally a GPT partition typed Linux swap, or
 * a whole disk) whose first page carries the mkswap v1 header; slot k is
 * the k-th 4 KiB page of the device (slot 0 is the header).  The kernel
 * writes only to devices it found that header on, or that the command line
 * named in swapformat= (DESIGN.md: the rule that never bends).
 *
 * Locking: S.lock ("swap", irqsave) guards the slot allocator; it is the
 * innermost lock of the swap code (taken inside the swap cache's).
 */
#include <string.h>
#include "swap.h"
#include "swaphdr.h"
#include "swapcache.h"
#include "swapin.h"
#include "vm/vm.h"
#include "core/time.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "mem/kmalloc.h"
#include "vm/vmstat.h"
#include "core/console.h"
#include "core/record.h"
#include "core/config.h"
#include "core/knob_table.h"
#include "lib/crc32.h"
#include "lib/errno.h"
#include "lib/json.h"
#include "lib/printf.h"
#include "drivers/blk.h"
#include "drivers/gpt.h"
#include "core/spinlock.h"
#include "core/wait.h"
#include "lib/cmdline.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/percpu.h"

#define PAGE 4096u

static struct {
	struct spinlock lock;
	struct swap_pool pool;          /* guarded by lock */
	struct blk_dev *dev[SWAP_MAX_AREAS];
	uint32_t *crc[SWAP_MAX_AREAS];
	char label[SWAP_MAX_AREAS][20];
	int nareas;
} S = { .lock = SPINLOCK_INIT("swap") };

bool swap_enabled(void) { return S.nareas > 0; }
const char *swap_dev_name(unsigned a) { return a < SWAP_MAX_AREAS && S.dev[a] ? blk_name(S.dev[a]) : "?"; }
uint32_t swap_max_run(unsigned a) { return a < SWAP_MAX_AREAS && S.dev[a] ? blk_max_pages(S.dev[a]) : 1; }
uint32_t swap_read_max(unsigned a) { return a < SWAP_MAX_AREAS && S.dev[a] ? blk_read_pages(S.dev[a]) : 1; }

/* ------------------------------------------------------------ slots */

/* Slots handed out by swap_alloc whose pages are not yet in the swap
 * cache count as in use but hold no data: read-ahead on another CPU must
 * not read them (it would cache what the disk held there before, and
 * take the slot from the page that was given it).  The allocator marks
 * them FRESH (Linux marks them SWAP_HAS_CACHE at allocation for this
 * reason) until swapcache_add settles them.
 *
 * Freed slots: the last count of a slot, dropped on the fault path (a
 * write fault freeing its swap copy, an exit), leaves the slot PENDING in
 * this CPU's return buffer; a full buffer goes back to the allocator in
 * one hold of S.lock (Linux's swap slots cache returned freed slots 64 at
 * a time the same way).  So the fault path's count changes (dup, free,
 * count, holds_data) take no global lock.  Pending slots count as free in
 * swap_used_slots, and swap_alloc flushes every buffer before it reports
 * swap short. */
#define RET_MAX 64
struct ret_buf {
	struct spinlock lock;           /* "swap-ret": its CPU, and flushes */
	int n;
	uint64_t e[RET_MAX];
};
static struct ret_buf *ret[SWAP_MAX_CPUS];      /* a CPU's, made at its first deferred free */
static uint64_t npending;                       /* slots in return buffers (atomic) */

/* Give the slots back to the allocator.  Any context; no lock held. */
static void release(const uint64_t *e, int n)
{
	if (!n)
		return;
	bool on = spin_lock_irqsave(&S.lock);
	for (int i = 0; i < n; i++)
		if (swapalloc_release(&S.pool, e[i]) < 0)
			kprintf("swap: release of entry area %u slot %lu: not pending\n", swp_area(e[i]), swp_offset(e[i]));
	spin_unlock_irqrestore(&S.lock, on);
	__atomic_sub_fetch(&npending, (uint64_t)n, __ATOMIC_RELAXED);
}

/* Empty buffer b into out (RET_MAX entries); returns how many.  b's
 * lock held. */
static int take_locked(struct ret_buf *b, uint64_t *out)
{
	int n = b->n;
	memcpy(out, b->e, (size_t)n * sizeof out[0]);
	b->n = 0;
	return n;
}

static int ret_take(struct ret_buf *b, uint64_t *out)
{
	bool on = spin_lock_irqsave(&b->lock);
	int n = take_locked(b, out);
	spin_unlock_irqrestore(&b->lock, on);
	return n;
}

/* Every CPU's buffer back to the allocator. */
static void flush_pending(void)
{
	if (!__atomic_load_n(&npending, __ATOMIC_RELAXED))
		return;
	uint64_t e[RET_MAX];
	for (uint32_t c = 0; c < SWAP_MAX_CPUS; c++) {
		struct ret_buf *b = __atomic_load_n(&ret[c], __ATOMIC_ACQUIRE);
		if (b)
			release(e, ret_take(b, e));
	}
}

/* A slot swapalloc_put left PENDING: into this CPU's buffer. */
static void defer(uint64_t e)
{
	__atomic_add_fetch(&npending, 1, __ATOMIC_RELAXED);
	bool on = irq_save();           /* stay on this CPU */
	uint32_t cpu = this_cpu()->id % SWAP_MAX_CPUS;
	struct ret_buf *b = ret[cpu];
	if (!b && (b = kmalloc(sizeof *b))) {
		spin_init(&b->lock, "swap-ret");
		b->n = 0;
		__atomic_store_n(&ret[cpu], b, __ATOMIC_RELEASE);
	}
	if (!b) {
		irq_restore(on);
		release(&e, 1);
		return;
	}
	uint64_t out[RET_MAX];
	int n = 0;
	spin_lock(&b->lock);
	if (b->n == RET_MAX)
		n = take_locked(b, out);
	b->e[b->n++] = e;
	spin_unlock(&b->lock);
	irq_restore(on);
	release(out, n);
}

int swap_alloc(int want, struct swap_run *runs, int maxruns)
{
	/* This CPU's own clusters (swapalloc.h). */
	uint32_t cpu = this_cpu()->id % S.pool.ncpus;
	bool on = spin_lock_irqsave(&S.lock);
	int n = swapalloc_get_cpu(&S.pool, cpu, want, runs, maxruns);
	spin_unlock_irqrestore(&S.lock, on);
	if (n < 0)
		n = 0;
	int got = 0;
	for (int i = 0; i < n; i++)
		got += (int)runs[i].count;
	if (got < want && n < maxruns && __atomic_load_n(&npending, __ATOMIC_RELAXED)) {
		/* Short: the slots waiting in return buffers first. */
		flush_pending();
		on = spin_lock_irqsave(&S.lock);
		int m = swapalloc_get_cpu(&S.pool, cpu, want - got, runs + n, maxruns - n);
		spin_unlock_irqrestore(&S.lock, on);
		n += m > 0 ? m : 0;
	}
	return n;
}

bool swap_holds_data(uint64_t e) { return swapalloc_has_data(&S.pool, e); }

static void report(int r, uint64_t e, const char *what)
{
	if (r < 0)
		kprintf("swap: %s of entry area %u slot %lu failed (%d)\n", what, swp_area(e), swp_offset(e), r);
}

void swap_dup(uint64_t e) { report(swapalloc_dup(&S.pool, e), e, "dup"); }
bool swap_dup_if_data(uint64_t e) { return swapalloc_dup_if_data(&S.pool, e); }
void swap_settle(uint64_t e) { swapalloc_settle(&S.pool, e); }

/* A slot whose last count goes (free, or bad once retired) must not keep
 * the workingset shadow of the page that was there: the next page given
 * the slot is another.  The shadow goes before the slot can be reused. */
void swap_free(uint64_t e)
{
	int r = swapalloc_put(&S.pool, e);
	if (r == 0) {
		swapcache_forget_shadow(e);
		defer(e);
		return;
	}
	if (r == SWAPALLOC_EAGAIN) {    /* the last count of a retired slot */
		bool on = spin_lock_irqsave(&S.lock);
		r = swapalloc_free(&S.pool, e);
		spin_unlock_irqrestore(&S.lock, on);
		if (r == 0)
			swapcache_forget_shadow(e);
	}
	report(r, e, "free");
}

void swap_retire(uint64_t e)
{
	bool on = spin_lock_irqsave(&S.lock);
	int r = swapalloc_retire(&S.pool, e);
	spin_unlock_irqrestore(&S.lock, on);
	report(r, e, "retire");
}

int swap_count(uint64_t e) { return swapalloc_count(&S.pool, e); }

/* The area's shape under the lock; false when it is not present. */
static bool area_shape(unsigned a, struct swap_area_shape *sh)
{
	bool on = spin_lock_irqsave(&S.lock);
	bool present = swapalloc_area_shape(&S.pool, (int)a, sh);
	spin_unlock_irqrestore(&S.lock, on);
	return present;
}

bool swap_entry_valid(uint64_t e)
{
	struct swap_area_shape sh;
	return swp_is_entry(e) && area_shape(swp_area(e), &sh) && swp_offset(e) && swp_offset(e) < sh.nslots;
}

/* Read-ahead asks at every fault: no lock. */
uint64_t swap_area_slots(unsigned a) { return swapalloc_area_nslots(&S.pool, a); }

/* Usable (used) slots over every present area: O(areas) and no lock,
 * since the fault path asks (reclaim_swap_full, the workingset size). */
static uint64_t sum_slots(bool used)
{
	uint64_t usable, inuse;
	swapalloc_slots(&S.pool, &usable, &inuse);
	return used ? inuse : usable;
}

uint64_t swap_total_slots(void) { return sum_slots(false); }

/* Slots waiting in return buffers are as good as free. */
static uint64_t less_pending(uint64_t used)
{
	uint64_t pending = __atomic_load_n(&npending, __ATOMIC_RELAXED);
	return used > pending ? used - pending : 0;
}

uint64_t swap_used_slots(void) { return less_pending(sum_slots(true)); }

void swap_slot_counts(uint64_t *total, uint64_t *used)
{
	swapalloc_slots(&S.pool, total, used);
	*used = less_pending(*used);
}

/* ------------------------------------------------------------ I/O */

struct run_req {
	struct blk_req r;
	struct blk_seg segs[BLK_MAX_SEGS];
	struct swap_io *io;
};

static void run_done(struct blk_req *r)
{
	struct run_req *rr = r->priv;
	struct swap_io *io = rr->io;
	io->status = r->status;
	kfree(rr);
	io->done(io);
}

static int run_io(enum blk_op op, unsigned area, uint64_t off, struct page **pages, uint32_t n, struct swap_io *io)
{
	struct blk_dev *d = area < SWAP_MAX_AREAS ? S.dev[area] : NULL;
	if (!d || !n || n > BLK_MAX_SEGS)
		return -EINVAL;
	struct run_req *rr = kmalloc(sizeof *rr);
	if (!rr)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		rr->segs[i] = (struct blk_seg){ page_to_phys(pages[i]), PAGE };
	rr->io = io;
	rr->r = (struct blk_req){ .op = op, .lba = off * (PAGE / blk_block_size(d)), .nsegs = n, .segs = rr->segs,
				  .done = run_done, .priv = rr };
	int err = blk_submit(d, &rr->r);
	if (err)
		kfree(rr);
	else
		vmstat_inc(op == BLK_WRITE ? SWAP_WRITE_REQS : SWAP_READ_REQS);
	return err;
}

int swap_write_run(unsigned a, uint64_t off, struct page **p, uint32_t n, struct swap_io *io)
{
	return run_io(BLK_WRITE, a, off, p, n, io);
}

int swap_read_run(unsigned a, uint64_t off, struct page **p, uint32_t n, struct swap_io *io)
{
	return run_io(BLK_READ, a, off, p, n, io);
}

void swap_plug(unsigned a)
{
	if (a < SWAP_MAX_AREAS && S.dev[a])
		blk_plug(S.dev[a]);
}

void swap_unplug(unsigned a)
{
	if (a < SWAP_MAX_AREAS && S.dev[a])
		blk_unplug(S.dev[a]);
}

/* ------------------------------------------------------------ integrity */

void swap_crc_store(uint64_t e, const struct page *p)
{
	unsigned a = swp_area(e);
	if (kcfg.swapcrc && S.crc[a])
		S.crc[a][swp_offset(e)] = crc32(0, page_address(p), PAGE);
}

bool swap_crc_check(uint64_t e, const struct page *p)
{
	unsigned a = swp_area(e);
	if (!kcfg.swapcrc || !S.crc[a])
		return true;
	uint32_t want = S.crc[a][swp_offset(e)], got = crc32(0, page_address(p), PAGE);
	if (want == got)
		return true;
	vmstat_inc(SWAP_CRC_MISMATCH);
	kprintf("swap: %s slot %lu: checksum mismatch (wrote %08x, read %08x)\n", swap_dev_name(a), swp_offset(e),
		want, got);
	return false;
}

/* ------------------------------------------------------------ areas */

/* Read and parse d's first page.  Returns 0, a negative errno from the
 * read (*io set), or a negative enum swaphdr_err (*io clear). */
static int read_header(struct blk_dev *d, struct swaphdr *h, bool *io)
{
	struct page *pg = pmm_alloc(0, PMM_KERNEL);
	*io = true;
	if (!pg)
		return -ENOMEM;
	int err = blk_rw(d, BLK_READ, 0, page_address(pg), PAGE);
	if (!err) {
		*io = false;
		err = swaphdr_parse(page_address(pg), PAGE, blk_blocks(d) * blk_block_size(d) / PAGE, h);
	}
	pmm_free(pg, 0);
	return err;
}

static const char *header_problem(int err, bool io)
{
	if (!io)
		return swaphdr_strerror(err);
	return err == -ENOMEM ? "header not read: out of memory" : "header unreadable: read failed";
}

int swapon(struct blk_dev *d, int prio, uint32_t cluster)
{
	static struct swaphdr h;
	bool io;
	int err = read_header(d, &h, &io);
	if (err) {
		kprintf("swap: %s: %s\n", blk_name(d), header_problem(err, io));
		return -EINVAL;
	}
	if (h.clamped)
		kprintf("swap: %s: header claims %u pages, the device has fewer; using %u\n", blk_name(d),
			h.hdr_last_page, h.last_page);
	if (!blk_set_writable(d, true))
		return -EROFS;
	struct swap_area_conf c = { h.last_page + 1ull, h.badpages, h.nr_badpages, prio, cluster, 0 };
	bool on = spin_lock_irqsave(&S.lock);
	int a = swapalloc_area_add(&S.pool, &c);
	spin_unlock_irqrestore(&S.lock, on);
	if (a < 0) {
		kprintf("swap: %s: cannot add area (%d)\n", blk_name(d), a);
		blk_set_writable(d, false);
		return a;
	}
	S.dev[a] = d;
	S.nareas++;
	if (kcfg.swapcrc)
		S.crc[a] = kzalloc((h.last_page + 1ull) * sizeof(uint32_t));
	memcpy(S.label[a], h.label, sizeof S.label[a] - 1);
	struct swap_area_shape sh;
	kprintf("swap: %s: %lu MiB (%lu slots, %u bad), priority %d, cluster %u slots%s%s\n", blk_name(d),
		h.usable * PAGE >> 20, h.usable, h.nr_badpages, prio, area_shape((unsigned)a, &sh) ? sh.cluster : 0,
		h.label[0] ? ", label " : "", h.label);
	return a;
}

static int format(struct blk_dev *d)
{
	if (!blk_set_writable(d, true))
		return -EROFS;
	struct page *pg = pmm_alloc(0, PMM_KERNEL | PMM_ZERO);
	if (!pg)
		return -ENOMEM;
	uint8_t uuid[16];
	uint64_t x = rdtsc();
	for (int i = 0; i < 16; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
		uuid[i] = (uint8_t)(x >> 56);
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);  /* version 4 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
	int err = swaphdr_format(page_address(pg), blk_blocks(d) * blk_block_size(d) / PAGE, uuid, "mmkernel");
	if (!err)
		err = blk_rw(d, BLK_WRITE, 0, page_address(pg), PAGE);
	pmm_free(pg, 0);
	blk_set_writable(d, false);
	kprintf("swap: %s: %s\n", blk_name(d), err ? "formatting failed" : "formatted as swap (mkswap v1 header)");
	return err;
}

/* One item of swap=: DEV[:prio=N][:cluster=N]. */
static void swapon_spec(char *item, int default_prio)
{
	int prio = default_prio;
	uint64_t v;
	char why[128];
	uint32_t cluster = (uint32_t)kcfg.swap_cluster;
	char *opt = strchr(item, ':');
	if (opt)
		*opt++ = 0;
	while (opt && *opt) {
		char *next = strchr(opt, ':');
		if (next)
			*next++ = 0;
		if (!strncmp(opt, "prio=", 5) && cmdline_parse_u64(opt + 5, &v))
			prio = (int)v;
		else if (!strncmp(opt, "cluster=", 8) && !knob_check(knob_find("swap_cluster"), opt + 8, &v, why, sizeof why))
			cluster = (uint32_t)v;
		else if (!strncmp(opt, "cluster=", 8))
			kprintf("swap: %s: %s: %s; using %u\n", item, opt, why, cluster);
		else
			kprintf("swap: %s: unknown option '%s' ignored\n", item, opt);
		opt = next;
	}
	struct blk_dev *d = blk_find(item);
	if (!d)
		kprintf("swap: %s: no such block device\n", item);
	else
		swapon(d, prio, cluster);
}

static void for_each_item(const char *list, void (*fn)(char *item, int idx))
{
	char buf[sizeof kcfg.swap];
	size_t n = strnlen(list, sizeof buf - 1);
	memcpy(buf, list, n);
	buf[n] = 0;
	int idx = 0;
	for (char *p = buf; p && *p;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma++ = 0;
		if (*p)
			fn(p, idx++);
		p = comma;
	}
}

static void format_item(char *item, int idx)
{
	(void)idx;
	struct blk_dev *d = blk_find(item);
	if (!d)
		kprintf("swapformat: %s: no such block device\n", item);
	else
		format(d);
}

static void swapon_item(char *item, int idx)
{
	(void)idx;
	swapon_spec(item, 0);
}

/* swap=auto: every device that carries a valid swap header, except the
 * boot partition and whole disks whose partitions were found (their
 * partitions are probed, the boot disk's included).  One line for every
 * device left out that might have been meant as swap: the ESP, a signed
 * but bad header, an unreadable first page, a partition typed Linux swap
 * without the signature.  Devices with no signature and another type say
 * nothing (a PC's Windows and data partitions are not swap). */
static void autodetect_one(struct blk_dev *d)
{
	static struct swaphdr h;
	bool io;
	if (blk_is_boot_partition(d)) {
		kprintf("swap: %s: skipped: the boot partition (ESP) is never written\n", blk_name(d));
		return;
	}
	if (!blk_is_partition(d) && blk_has_partitions(d))
		return;         /* its partitions follow in the list */
	int err = read_header(d, &h, &io);
	const uint8_t *type = blk_part_type(d);
	bool swap_typed = type && !memcmp(type, GPT_TYPE_LINUX_SWAP, 16);
	if (!err)
		swapon(d, 0, (uint32_t)kcfg.swap_cluster);
	else if (io || err != SWAPHDR_ENOMAGIC)
		kprintf("swap: %s: skipped: %s\n", blk_name(d), header_problem(err, io));
	else if (swap_typed)
		kprintf("swap: %s: skipped: typed Linux swap but no swap signature (run mkswap on it)\n",
			blk_name(d));
}

static void autodetect(void)
{
	for (int i = 0; i < blk_count(); i++)
		autodetect_one(blk_at(i));
}

void swap_init(void)
{
	swapalloc_init(&S.pool, kmalloc, kfree);
	/* One cursor per CPU that may come online: the APs start after
	 * swap_init, so smp_cpus_online() (1 here) would make them all share
	 * the boot CPU's cluster.  A cursor costs 16 bytes per area, and only
	 * a CPU that swaps out takes a cluster for it. */
	uint64_t cpus = kcfg.cpus && kcfg.cpus < SWAP_MAX_CPUS ? kcfg.cpus : SWAP_MAX_CPUS;
	swapalloc_set_cpus(&S.pool, (uint32_t)cpus);    /* no area yet: cannot fail */
	struct pmm_stats st;
	pmm_get_stats(&st);
	swapcache_init(st.total_pages, (uint32_t)cpus);
	if (kcfg.swapformat[0])
		for_each_item(kcfg.swapformat, format_item);
	if (!strcmp(kcfg.swap, "none"))
		return;
	if (!kcfg.swap[0] || !strcmp(kcfg.swap, "auto"))
		autodetect();
	else
		for_each_item(kcfg.swap, swapon_item);
	if (!S.nareas)
		kprintf("swap: no swap areas: memory pressure ends in OOM kills\n");
}

/* ------------------------------------------------------------ swapoff */

struct unuse_mm_ctx {
	struct mm *mm[64];
	int n;
};

static void grab_mm(struct mm *mm, void *ctx)
{
	struct unuse_mm_ctx *c = ctx;
	if (c->n < 64 && __atomic_load_n(&mm->refs, __ATOMIC_ACQUIRE) > 0) {
		mm_get(mm);
		c->mm[c->n++] = mm;
	}
}

int swap_set_cluster(uint32_t cluster)
{
	int err = 0;
	bool on = spin_lock_irqsave(&S.lock);
	struct swap_area_shape sh;
	for (int a = 0; a < SWAP_MAX_AREAS && !err; a++)
		if (swapalloc_area_shape(&S.pool, a, &sh))
			err = swapalloc_area_set_cluster(&S.pool, a, cluster, 0);
	spin_unlock_irqrestore(&S.lock, on);
	if (!err)
		kcfg.swap_cluster = cluster;
	return err ? -EBUSY : 0;
}

uint32_t swap_cluster_size(void) { return (uint32_t)kcfg.swap_cluster; }

/* Cached pages whose slot nothing else references: drop them. */
void swap_drop_unused_cache(void)
{
	struct page *pages[64];
	for (int a = 0; a < SWAP_MAX_AREAS; a++) {
		if (!S.dev[a])
			continue;
		/* A walk, not repeated collects: the first 64 pages may all be
		 * mapped (kept), and stopping there left the unused ones behind
		 * them in the cache. */
		struct swapcache_walk w = { 0 };
		int n;
		while ((n = swapcache_walk((unsigned)a, &w, pages, 64)) > 0) {
			for (int i = 0; i < n; i++) {
				struct page *p = pages[i];
				if (trylock_page(p)) {
					if (page_test(p, PG_SWAPCACHE) && !p->mapcount && swap_count(p->private) == 1 &&
					    !page_test(p, PG_WRITEBACK)) {
						swapcache_del(p);
					}
					unlock_page(p);
				}
				put_page(p);
			}
		}
	}
}

/* Cached pages of the area nobody maps any more: drop them. */
static void drop_orphans(unsigned a)
{
	struct page *pages[64];
	int n;
	while ((n = swapcache_collect(a, pages, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			struct page *p = pages[i];
			lock_page(p);
			if (page_test(p, PG_SWAPCACHE) && swp_area(p->private) == a) {
				swapcache_del(p);
				page_set(p, PG_DIRTY);
			}
			unlock_page(p);
			put_page(p);
		}
	}
}

int swapoff(int a)
{
	struct swap_area_shape sh;
	if (a < 0 || a >= SWAP_MAX_AREAS || !area_shape((unsigned)a, &sh))
		return -EINVAL;
	const char *name = swap_dev_name((unsigned)a);
	bool on = spin_lock_irqsave(&S.lock);
	swapalloc_area_disable(&S.pool, a);
	spin_unlock_irqrestore(&S.lock, on);
	uint64_t t0 = time_ns();
	long back = 0;
	for (int pass = 0; pass < 8; pass++) {
		struct unuse_mm_ctx c = { .n = 0 };
		vm_for_each_mm(grab_mm, &c);
		for (int i = 0; i < c.n; i++) {
			long r = swapin_unuse_mm(c.mm[i], (unsigned)a);
			back += r > 0 ? r : 0;
			mm_put(c.mm[i]);
		}
		long r = swapin_unuse_shmem((unsigned)a);
		back += r > 0 ? r : 0;
		drop_orphans((unsigned)a);
		flush_pending();        /* slots freed on the way, waiting in return buffers */
		on = spin_lock_irqsave(&S.lock);
		int64_t used = swapalloc_area_used(&S.pool, a);
		if (!used) {
			swapalloc_area_remove(&S.pool, a);
			struct blk_dev *d = S.dev[a];
			S.dev[a] = NULL;
			S.nareas--;
			spin_unlock_irqrestore(&S.lock, on);
			blk_set_writable(d, false);
			kfree(S.crc[a]);
			S.crc[a] = NULL;
			kprintf("swapoff: %s: %ld pages brought back in %lu ms\n", name, back, (time_ns() - t0) / 1000000);
			return 0;
		}
		spin_unlock_irqrestore(&S.lock, on);
	}
	on = spin_lock_irqsave(&S.lock);
	swapalloc_area_enable(&S.pool, a);
	spin_unlock_irqrestore(&S.lock, on);
	kprintf("swapoff: %s: pages still in use after 8 passes; the area stays on\n", name);
	return -EBUSY;
}

int swap_area_of(const char *devname)
{
	for (int a = 0; a < SWAP_MAX_AREAS; a++)
		if (S.dev[a] && !strcmp(blk_name(S.dev[a]), devname))
			return a;
	return -1;
}

/* ------------------------------------------------------------ reports */

bool swap_area_info(unsigned a, struct swap_area_info *out)
{
	struct swap_area_stats st;
	struct swap_area_shape sh;
	if (a >= SWAP_MAX_AREAS)
		return false;
	flush_pending();                /* exact counts for the report */
	bool on = spin_lock_irqsave(&S.lock);
	bool present = swapalloc_area_shape(&S.pool, (int)a, &sh) && !swapalloc_area_stats(&S.pool, (int)a, &st);
	spin_unlock_irqrestore(&S.lock, on);
	if (!present)
		return false;
	out->dev = swap_dev_name(a);
	out->prio = sh.prio;
	out->usable = st.free_slots + st.used_slots;
	out->used = st.used_slots;
	return true;
}

void swap_json(struct json *j)
{
	flush_pending();                /* exact counts for the record */
	json_arr_begin(j, "swap_areas");
	for (int a = 0; a < SWAP_MAX_AREAS; a++) {
		struct swap_area_stats st;
		struct swap_area_shape sh;
		bool on = spin_lock_irqsave(&S.lock);
		bool present = swapalloc_area_shape(&S.pool, a, &sh) && !swapalloc_area_stats(&S.pool, a, &st);
		spin_unlock_irqrestore(&S.lock, on);
		if (!present)
			continue;
		json_obj_begin(j, NULL);
		json_str(j, "device", swap_dev_name((unsigned)a));
		json_i64(j, "prio", sh.prio);
		json_u64(j, "cluster", sh.cluster);
		json_u64(j, "slots", sh.nslots);
		json_u64(j, "used", st.used_slots);
		json_u64(j, "free", st.free_slots);
		json_u64(j, "bad", st.bad_slots);
		json_u64(j, "clusters_taken", st.clusters_taken);
		json_u64(j, "partial_reused", st.partial_reused);
		json_u64(j, "fallback_scans", st.fallback_scans);
		json_u64(j, "retired", st.retired);
		json_u64(j, "frag_permille", st.frag_permille);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void swap_report(void)
{
	struct json *j = rec_begin("swap");
	swap_json(j);
	uint64_t finds = vmstat_get(SWAPCACHE_FIND), hits = vmstat_get(SWAPCACHE_FIND_HIT);
	json_u64(j, "swapcache_add", vmstat_get(SWAPCACHE_ADD));
	json_u64(j, "swapcache_find", finds);
	json_u64(j, "swapcache_find_hit", hits);
	json_u64(j, "swapcache_hit_permille", finds ? hits * 1000 / finds : 0);
	rec_end();
	kprintf("swap cache: add %lu find %lu/%lu (%lu.%lu%% hit rate)\n", vmstat_get(SWAPCACHE_ADD), hits, finds,
		finds ? hits * 100 / finds : 0, finds ? hits * 1000 / finds % 10 : 0);
}
