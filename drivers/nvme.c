/*
 * NVMe driver (NVM Express Base Specification 1.4; layouts in nvme_regs.h).
 *
 * Model.  One struct nvme_ctrl per PCI function, with an admin queue pair
 * (qid 0) and an I/O queue pair per CPU (qids 1..n, at most NVME_MAX_IOQ
 * and what the controller and its MSI-X table give: CPU i submits on
 * queue i % n, whose interrupt goes to CPU i), as Linux's blk-mq does.  A
 * controller without MSI-X for them (one MSI-X entry, MSI, INTx, polling)
 * gets one I/O queue pair.  Every active namespace with a
 * plain LBA format (no metadata, 512 B to 4 KiB blocks) is a block device,
 * nvme<C>n<N>, whose ops->submit turns one struct blk_cmd into one NVMe
 * Read or Write.
 *
 * Command slots.  The I/O command IDs are slots, split between the
 * namespaces: namespace k owns slots slot_base .. slot_base + queue_depth
 * - 1, and the block layer's command i on it always uses slot slot_base +
 * i.  The layer never has more than queue_depth commands of a device out,
 * so a slot is always free when its command arrives, the submission queue
 * (more entries than slots) cannot overflow, and submit allocates nothing.
 * Each slot owns a preallocated page for its PRP list (4.3): one command
 * moves up to 2 MiB (512 list entries, never chained), less under MDTS.
 *
 * Completion.  A queue's vector handler (the shared one under MSI or INTx
 * reaps every queue) reaps its completion queue under the queue's lock,
 * moves finished slots to a private chain, drops the lock and then calls
 * blk_complete(): the block layer may submit the next command from
 * inside it, which takes a queue lock again.  A slot is freed before its
 * blk_complete() for the same reason.
 *
 * Lost interrupts, timeouts, resets.  While anything is outstanding a
 * ktimer reaps both queues every NVME_POLL_NS (every 1 ms when there is no
 * interrupt at all), so a lost interrupt costs latency, not a hang, and is
 * counted (completions_polled in the halt record).  The same timer finds
 * commands older than the I/O timeout (nvme_cmd_timeout_ns) or a controller in fatal status;
 * it marks the controller RESETTING (new commands wait as PENDING) and
 * wakes the driver's worker thread, which disables the controller (once
 * CSTS.RDY is 0 it does no more DMA), fails every command that was in
 * flight, enables it again, recreates the I/O queues and issues the
 * pending commands.  A controller that does not come back is DEAD: bus
 * mastering off, every command fails with -EIO.  Admin commands run one
 * at a time from threads and wait in slices, polling after each.
 *
 * Locking.  c->lock (spinlock, irqsave) guards the admin queue and
 * command state, c->state's changes and the reset fields.  Each I/O
 * queue's q->lock guards that queue and the slots on it (s->q): a submit
 * takes only its CPU's queue lock, so CPUs submitting at once do not wait
 * for each other.  c->state is read under a queue lock: a change to LIVE
 * or DEAD is stored before the queues are walked under their locks, so a
 * submit either sees it or left its slot PENDING for that walk; a change
 * to RESETTING only matters once the worker has disabled the controller,
 * and fail_inflight then takes every queue lock.  c->admin_lock (mutex)
 * serialises admin commands and is held across a whole reset.  Lock order:
 *     c->admin_lock  ->  c->lock  ->  q->lock  ->  the timer lock (ktimer_arm)
 * No spinlock here is held while calling blk_complete(), waking a waitq
 * or sleeping, and I/O failures are printed after it is dropped (only a
 * protocol violation, a completion for an idle command ID, prints under
 * it).  The block layer does not hold its own lock when it calls submit.
 */
#include <string.h>
#include "nvme.h"
#include "nvme_regs.h"
#include "blk_driver.h"
#include "pci.h"
#include "pci_regs.h"
#include "core/config.h"
#include "core/console.h"
#include "core/record.h"
#include "core/panic.h"
#include "core/time.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "mem/kmalloc.h"
#include "mem/pmm.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smpboot.h"
#include "core/sched.h"
#include "core/wait.h"

#define NVME_PAGE               4096u
#define NVME_ADMIN_ENTRIES      32
#define NVME_IO_ENTRIES_MAX     256
/* Commands in flight per controller, shared by its namespaces.  The block
 * self-test keeps 40 requests in flight and blkbench 32; each slot costs a
 * PRP page here plus, in the block layer, a small struct blk_cmd and a
 * page for its segment list, so 64 slots are about 0.5 MiB per controller. */
#define NVME_MAX_CMDS           64
#define NVME_PRP_PER_PAGE       (NVME_PAGE / 8)
#define NVME_MAX_XFER           (NVME_PRP_PER_PAGE * NVME_PAGE)        /* 2 MiB */
#define NVME_MAX_CTRLS          16
/* I/O queue pairs per controller: one per CPU up to this many (CPU i
 * uses queue i % n).  Each costs 20 KiB of queue memory at 256 entries. */
#define NVME_MAX_IOQ            16
#define NVME_MAX_NS             16
#define NS_PER_S                1000000000ul
/* Linux's default I/O timeout (nvme_core.io_timeout); nvme_timeout=MS
 * overrides it, for a slow device or a test that wants its timeout soon. */
#define NVME_CMD_TIMEOUT_NS     (30 * NS_PER_S)
#define NVME_ADMIN_TIMEOUT_NS   (30 * NS_PER_S)
#define NVME_ADMIN_SLICE_NS     (20 * 1000000ul)      /* poll the admin CQ this often */
#define NVME_POLL_NS            (50 * 1000000ul)      /* lost-interrupt sweep */
#define NVME_POLL_NOIRQ_NS      (1000000ul)           /* no interrupt at all */
#define NVME_WORKER_IDLE_NS     (10 * NS_PER_S)
#define NVME_SHUTDOWN_DEFAULT_NS (5 * NS_PER_S)        /* when RTD3E is 0 */
#define NVME_SHUTDOWN_MAX_NS    (10 * NS_PER_S)
#define NVME_ERROR_LINES        32                     /* per controller, then counted only */

enum nvme_state { NVME_LIVE, NVME_RESETTING, NVME_DEAD };
enum nvme_irq_mode { IRQ_POLL, IRQ_INTX, IRQ_MSI, IRQ_MSIX };
static const char *const irq_mode_name[] = { "poll", "intx", "msi", "msix" };
enum slot_state { SLOT_FREE, SLOT_PENDING, SLOT_ISSUED, SLOT_DONE };

struct nvme_sq {
	struct nvme_sqe *e;
	struct page *pg;
	unsigned order;
	uint16_t entries, tail;
	uint32_t db;                    /* doorbell register offset */
};

struct nvme_cq {
	volatile struct nvme_cqe *e;
	struct page *pg;
	unsigned order;
	uint16_t entries, head, phase;
	uint32_t db;
};

struct nvme_ns;
struct nvme_ctrl;

/* One I/O queue pair. */
struct nvme_ioq {
	struct spinlock lock;           /* guards what follows and the slots on it */
	struct nvme_ctrl *c;
	struct nvme_sq sq;
	struct nvme_cq cq;
	uint16_t qid;                   /* 1.. */
	uint16_t iv;                    /* MSI-X entry of its CQ (0: the shared vector) */
	bool up;                        /* created on the controller */
	uint32_t inflight;              /* ISSUED slots on it (the poll timer reads it unlocked) */
	int vec;                        /* its own interrupt vector, or -1 */
	uint32_t cpu;                   /* the CPU its interrupt goes to */
	char irq_name[16];
	uint64_t cmds, max_bytes, irqs, polled;
};

/* One I/O command ID.  From its submit on, its fields are guarded by the
 * lock of the queue it went to (q), except that a DONE slot belongs to
 * whoever took it off the queue until it is freed. */
struct nvme_slot {
	struct blk_cmd *cmd;
	struct nvme_ns *ns;
	struct nvme_ioq *q;
	int state;                      /* enum slot_state */
	bool timed_out;
	uint16_t status;                /* DONE: the CQE status field */
	int err;                        /* DONE: failed by the driver, not the device */
	uint64_t deadline;
	uint64_t prp1, prp2;
	uint64_t *prp;                  /* this slot's PRP list page */
	uint64_t prp_phys;
	struct page *prp_pg;
	struct nvme_slot *next;         /* on a completion chain */
};

struct nvme_ns {
	struct blk_dev blk;
	struct nvme_ctrl *c;
	uint32_t nsid;
	uint32_t slot_base;
};

/* The I/O queues count their commands, interrupts and polled completions. */
struct nvme_stats {
	uint64_t errors;                /* atomic */
	uint64_t resets;
	uint64_t timeouts;              /* commands past their deadline (each starts a reset) */
	uint64_t irqs, polled;          /* admin (or shared) handler calls; admin completions found by polling */
};

struct nvme_ctrl {
	/* Set at probe, read-only afterwards. */
	int index;
	char name[12];
	char irq_name[16];              /* the admin (or shared) vector's */
	struct pci_dev *pci;
	volatile uint8_t *regs;
	uint64_t cap;
	uint32_t dstrd, vs;
	uint64_t ready_timeout_ns;
	char model[41], serial[21], firmware[9];
	uint8_t mdts;
	uint32_t max_xfer, rtd3e_us;
	enum nvme_irq_mode irq_mode;
	int vec;                        /* the admin (or shared) interrupt vector */
	uint64_t poll_ns;
	uint16_t io_entries;            /* per I/O queue */
	struct nvme_ioq ioq[NVME_MAX_IOQ];
	uint32_t nioq;                  /* set at probe */
	struct nvme_slot *slots;
	uint32_t nslots;
	struct nvme_ns *ns[NVME_MAX_NS];
	int nns;

	struct spinlock lock;
	enum nvme_state state;          /* changed under lock; read under a queue lock or unlocked */
	volatile bool reset_wanted;     /* lock */
	const char *reset_reason;       /* lock */
	struct nvme_sq asq;             /* lock */
	struct nvme_cq acq;             /* lock */
	bool poll_armed;                /* atomic: the poll timer is armed */
	struct ktimer poll;
	struct nvme_stats st;           /* lock (errors, error_lines: atomic) */
	uint32_t error_lines;

	struct mutex admin_lock;        /* one admin command at a time; whole resets */
	struct waitq admin_wq;
	uint16_t admin_cid;             /* lock */
	bool admin_busy;                /* lock */
	volatile bool admin_done;       /* lock; polled unlocked by the waiter */
	struct nvme_cqe admin_cqe;      /* lock */
};

static struct {
	struct nvme_ctrl *ctrls[NVME_MAX_CTRLS];
	volatile int n;
	struct waitq wq;                /* the worker waits here for resets */
} nv;

/* ------------------------------------------------------------ status codes */

struct status_name {
	uint16_t code;                  /* SCT << 8 | SC */
	const char *name;
};

/* 4.6.1.2: generic (SCT 0), command specific (1), media and data
 * integrity (2), path related (3). */
static const struct status_name status_names[] = {
	{ 0x001, "invalid command opcode" }, { 0x002, "invalid field in command" },
	{ 0x003, "command ID conflict" }, { 0x004, "data transfer error" },
	{ 0x005, "aborted: power loss notification" }, { 0x006, "internal error" },
	{ 0x007, "command abort requested" }, { 0x008, "aborted: SQ deletion" },
	{ 0x009, "aborted: failed fused command" }, { 0x00a, "aborted: missing fused command" },
	{ 0x00b, "invalid namespace or format" }, { 0x00c, "command sequence error" },
	{ 0x00d, "invalid SGL segment descriptor" }, { 0x00e, "invalid number of SGL descriptors" },
	{ 0x00f, "data SGL length invalid" }, { 0x013, "PRP offset invalid" },
	{ 0x014, "atomic write unit exceeded" }, { 0x015, "operation denied" },
	{ 0x01b, "aborted: preempt and abort" }, { 0x01d, "sanitize in progress" },
	{ 0x020, "namespace is write protected" }, { 0x021, "command interrupted" },
	{ 0x022, "transient transport error" },
	{ 0x080, "LBA out of range" }, { 0x081, "capacity exceeded" },
	{ 0x082, "namespace not ready" }, { 0x083, "reservation conflict" },
	{ 0x084, "format in progress" },
	{ 0x100, "completion queue invalid" }, { 0x101, "invalid queue identifier" },
	{ 0x102, "invalid queue size" }, { 0x108, "invalid interrupt vector" },
	{ 0x10a, "invalid format" }, { 0x180, "conflicting attributes" },
	{ 0x181, "invalid protection information" }, { 0x182, "write to a read-only range" },
	{ 0x280, "write fault" }, { 0x281, "unrecovered read error" },
	{ 0x282, "end-to-end guard check error" }, { 0x283, "end-to-end application tag check error" },
	{ 0x284, "end-to-end reference tag check error" }, { 0x285, "compare failure" },
	{ 0x286, "access denied" }, { 0x287, "deallocated or unwritten logical block" },
	{ 0x300, "internal path error" }, { 0x360, "controller pathing error" },
	{ 0x370, "host pathing error" }, { 0x371, "command aborted by host" },
};

static const char *const sct_names[8] = {
	"generic error", "command error", "media error", "path error",
	"reserved status type 4", "reserved status type 5", "reserved status type 6", "vendor specific error",
};

/* "media error: unrecovered read error (sct 2 sc 0x81)" for a status field. */
static uint64_t nvme_cmd_timeout_ns(void)
{
	return kcfg.nvme_timeout ? kcfg.nvme_timeout * 1000000ul : NVME_CMD_TIMEOUT_NS;
}

static void status_str(uint16_t st, char *buf, size_t cap)
{
	uint16_t code = (uint16_t)(NVME_STATUS_SCT(st) << 8 | NVME_STATUS_SC(st));
	const char *name = "unknown status";
	for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
		if (status_names[i].code == code)
			name = status_names[i].name;
	ksnprintf(buf, cap, "%s: %s (sct %u sc 0x%x%s)", sct_names[NVME_STATUS_SCT(st)], name,
		  NVME_STATUS_SCT(st), NVME_STATUS_SC(st), (st & NVME_STATUS_DNR) ? ", do not retry" : "");
}

static bool status_ok(uint16_t st) { return (st & 0x7ff) == 0; }

/* ------------------------------------------------------------ registers, queues */

static uint32_t rd32(const struct nvme_ctrl *c, uint32_t off) { return *(volatile uint32_t *)(c->regs + off); }
static void wr32(struct nvme_ctrl *c, uint32_t off, uint32_t v) { *(volatile uint32_t *)(c->regs + off) = v; }

/* 64-bit registers as two dword accesses, low first (3.1: allowed for all). */
static uint64_t rd64(const struct nvme_ctrl *c, uint32_t off)
{
	uint64_t lo = rd32(c, off);
	return lo | (uint64_t)rd32(c, off + 4) << 32;
}

static void wr64(struct nvme_ctrl *c, uint32_t off, uint64_t v)
{
	wr32(c, off, (uint32_t)v);
	wr32(c, off + 4, (uint32_t)(v >> 32));
}

static void *alloc_pages(size_t bytes, struct page **pg, unsigned *order)
{
	*order = 0;
	while ((NVME_PAGE << *order) < bytes)
		(*order)++;
	*pg = pmm_alloc(*order, PMM_KERNEL);           /* queues are zeroed when (re)created */
	return *pg ? page_address(*pg) : NULL;
}

static void free_pages(struct page **pg, unsigned order)
{
	if (*pg)
		pmm_free(*pg, order);
	*pg = NULL;
}

static int sq_alloc(struct nvme_ctrl *c, struct nvme_sq *q, uint16_t qid, uint16_t entries)
{
	q->entries = entries;
	q->db = NVME_SQ_TDBL(qid, c->dstrd);
	q->e = alloc_pages(entries * sizeof *q->e, &q->pg, &q->order);
	return q->e ? 0 : -ENOMEM;
}

static int cq_alloc(struct nvme_ctrl *c, struct nvme_cq *q, uint16_t qid, uint16_t entries)
{
	q->entries = entries;
	q->db = NVME_CQ_HDBL(qid, c->dstrd);
	q->e = alloc_pages(entries * sizeof *q->e, &q->pg, &q->order);
	return q->e ? 0 : -ENOMEM;
}

/* Empty a queue for a (re)created controller queue.  c->lock held. */
static void sq_reset(struct nvme_sq *q)
{
	memset(q->e, 0, q->entries * sizeof *q->e);
	q->tail = 0;
}

static void cq_reset(struct nvme_cq *q)
{
	memset((void *)q->e, 0, q->entries * sizeof *q->e);
	q->head = 0;
	q->phase = 1;                   /* the controller's first pass writes phase 1 */
}

/* Copy e to the tail and ring the doorbell.  c->lock held. */
static void sq_push(struct nvme_ctrl *c, struct nvme_sq *q, const struct nvme_sqe *e)
{
	q->e[q->tail] = *e;
	if (++q->tail == q->entries)
		q->tail = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);        /* entry in memory before the doorbell */
	wr32(c, q->db, q->tail);
}

/* Take the entry at the head if the controller has posted it (its phase
 * tag matches this pass).  c->lock held. */
static bool cq_pop(struct nvme_cq *q, struct nvme_cqe *out)
{
	volatile struct nvme_cqe *e = &q->e[q->head];
	uint16_t st = e->status;
	if ((st & NVME_CQE_PHASE) != q->phase)
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);        /* the rest of the entry after its phase */
	out->dw0 = e->dw0;
	out->sq_head = e->sq_head;
	out->sq_id = e->sq_id;
	out->cid = e->cid;
	out->status = st;
	if (++q->head == q->entries) {
		q->head = 0;
		q->phase ^= 1;
	}
	return true;
}

/* ------------------------------------------------------------ completions */

struct chain {
	struct nvme_slot *head, **tail;
};

static void chain_init(struct chain *ch)
{
	ch->head = NULL;
	ch->tail = &ch->head;
}

static void chain_add(struct chain *ch, struct nvme_slot *s)
{
	s->next = NULL;
	*ch->tail = s;
	ch->tail = &s->next;
}

/* "nvme1n1: write of blocks 0..423 failed: why" (outcome "failed"). */
static void print_outcome(struct nvme_ctrl *c, const struct nvme_slot *s, const char *outcome, const char *why)
{
	uint32_t n = __atomic_fetch_add(&c->error_lines, 1, __ATOMIC_RELAXED);
	const struct blk_cmd *cmd = s->cmd;
	if (n < NVME_ERROR_LINES)
		kprintf("%s: %s of blocks %lu..%lu %s: %s\n", s->ns->blk.name,
			cmd->op == BLK_WRITE ? "write" : "read", cmd->lba, cmd->lba + cmd->nblocks - 1, outcome, why);
	else if (n == NVME_ERROR_LINES)
		kprintf("%s: more I/O errors: counted in the halt record, no longer printed\n", c->name);
}

static void print_failure(struct nvme_ctrl *c, const struct nvme_slot *s, const char *why)
{
	print_outcome(c, s, "failed", why);
}

/* The errno a DONE slot ends with; explains failures on the console. */
static int slot_result(struct nvme_ctrl *c, const struct nvme_slot *s)
{
	char why[112];
	if (s->err == -ETIMEDOUT) {
		ksnprintf(why, sizeof why, "timed out (no completion in %lu ms); failed by the controller reset",
			  nvme_cmd_timeout_ns() / 1000000);
		print_failure(c, s, why);
	} else if (s->timed_out && !s->err) {
		/* Its completion came after the deadline but before the reset
		 * disabled the controller: it stands (Linux's reset reaps such
		 * completions too). */
		ksnprintf(why, sizeof why, "past its %lu ms deadline, before the controller reset",
			  nvme_cmd_timeout_ns() / 1000000);
		print_outcome(c, s, "completed", why);
	} else if (s->err == -EIO)
		print_failure(c, s, c->state == NVME_DEAD ? "the controller is dead"
							  : "aborted by a controller reset");
	else if (s->err)
		print_failure(c, s, "rejected by the driver");
	if (s->err)
		return s->err;
	if (status_ok(s->status))
		return 0;
	status_str(s->status, why, sizeof why);
	print_failure(c, s, why);
	return -EIO;
}

/* Hand finished slots back to the block layer.  No locks held. */
static void finish_chain(struct nvme_ctrl *c, struct nvme_slot *s)
{
	while (s) {
		struct nvme_slot *next = s->next;
		struct blk_cmd *cmd = s->cmd;
		int err = slot_result(c, s);
		if (err)
			__atomic_add_fetch(&c->st.errors, 1, __ATOMIC_RELAXED);
		bool on = spin_lock_irqsave(&s->q->lock);
		s->cmd = NULL;
		s->state = SLOT_FREE;
		spin_unlock_irqrestore(&s->q->lock, on);
		blk_complete(cmd, err);
		s = next;
	}
}

/* Is s on q in this state?  q->lock held.  A slot FREE on another queue
 * may be submitted to a third meanwhile: submit stores its queue before
 * its state (release), so the state is read first (acquire), and a slot
 * that just went ISSUED elsewhere shows its new queue. */
static bool slot_on(const struct nvme_slot *s, const struct nvme_ioq *q, int state)
{
	return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == state && s->q == q;
}

/* Move q's completed commands to done; returns how many.  q->lock held. */
static uint32_t reap_io(struct nvme_ioq *q, struct chain *done)
{
	struct nvme_ctrl *c = q->c;
	struct nvme_cqe e;
	uint32_t n = 0;
	while (q->up && cq_pop(&q->cq, &e)) {
		n++;
		struct nvme_slot *s = e.cid < c->nslots ? &c->slots[e.cid] : NULL;
		if (!s || !slot_on(s, q, SLOT_ISSUED)) {
			kprintf("%s: completion on queue %u for command id %u, which is not in flight there: ignored\n",
				c->name, q->qid, e.cid);
			continue;
		}
		s->state = SLOT_DONE;
		s->status = NVME_STATUS(e.status);
		s->err = 0;
		__atomic_store_n(&q->inflight, q->inflight - 1, __ATOMIC_SEQ_CST);
		chain_add(done, s);
	}
	if (n)
		wr32(c, q->cq.db, q->cq.head);
	return n;
}

/* Take admin completions; true when the waiting command's arrived.
 * c->lock held. */
static bool reap_admin(struct nvme_ctrl *c)
{
	struct nvme_cqe e;
	bool any = false, done = false;
	while (cq_pop(&c->acq, &e)) {
		any = true;
		if (c->admin_busy && !c->admin_done && e.cid == c->admin_cid) {
			c->admin_cqe = e;
			c->admin_done = done = true;
		} else {
			kprintf("%s: stale admin completion (command id %u) ignored\n", c->name, e.cid);
		}
	}
	if (any)
		wr32(c, c->acq.db, c->acq.head);
	return done;
}

/* Failed at probe or in a reset, no admin command waiting: the admin
 * queue may be freed.  c->lock held. */
static bool gone(const struct nvme_ctrl *c) { return c->state == NVME_DEAD && !c->admin_busy; }

/* Who is reaping: a queue's own interrupt, the shared one, the timer. */
enum reaper { BY_OWN_IRQ, BY_SHARED_IRQ, BY_POLL };

/* Reap the admin queue.  Any context. */
static void service_admin(struct nvme_ctrl *c, enum reaper by)
{
	bool on = spin_lock_irqsave(&c->lock);
	if (gone(c)) {
		spin_unlock_irqrestore(&c->lock, on);
		return;
	}
	bool woke = reap_admin(c);
	if (by == BY_POLL)
		c->st.polled += woke;
	else
		c->st.irqs++;
	spin_unlock_irqrestore(&c->lock, on);
	if (woke)
		waitq_wake_all(&c->admin_wq);
}

/* Reap an I/O queue and finish what it held.  Any context. */
static void service_queue(struct nvme_ioq *q, enum reaper by)
{
	struct chain done;
	chain_init(&done);
	bool on = spin_lock_irqsave(&q->lock);
	uint32_t n = reap_io(q, &done);
	if (by == BY_POLL)
		q->polled += n;
	else if (by == BY_OWN_IRQ)
		q->irqs++;
	spin_unlock_irqrestore(&q->lock, on);
	finish_chain(q->c, done.head);
}

static void irq_admin(struct trap_frame *f, void *arg) { (void)f; service_admin(arg, BY_OWN_IRQ); }
static void irq_queue(struct trap_frame *f, void *arg) { (void)f; service_queue(arg, BY_OWN_IRQ); }

static void irq_shared(struct trap_frame *f, void *arg)
{
	(void)f;
	struct nvme_ctrl *c = arg;
	service_admin(c, BY_SHARED_IRQ);
	for (uint32_t i = 0; i < c->nioq; i++)
		service_queue(&c->ioq[i], BY_SHARED_IRQ);
}

/* ------------------------------------------------------------ timer: polling, timeouts */

/* Any context, any lock of the driver held or none.  The timer clears
 * the flag before it looks for work, so a command issued meanwhile
 * either finds it clear and arms, or is seen by the timer, which arms. */
static void arm_poll(struct nvme_ctrl *c)
{
	if (!__atomic_exchange_n(&c->poll_armed, true, __ATOMIC_SEQ_CST))
		ktimer_arm(&c->poll, time_ns() + c->poll_ns);
}

/* Commands in flight on every queue (unlocked: a hint for the timer). */
static uint32_t inflight_all(const struct nvme_ctrl *c)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->nioq; i++)
		n += __atomic_load_n(&c->ioq[i].inflight, __ATOMIC_SEQ_CST);
	return n;
}

/* Mark q's commands past their deadline; returns how many.  Takes q->lock. */
static uint32_t mark_late(struct nvme_ctrl *c, struct nvme_ioq *q, uint64_t now)
{
	uint32_t late = 0;
	bool on = spin_lock_irqsave(&q->lock);
	for (uint32_t i = 0; q->inflight && i < c->nslots; i++) {
		struct nvme_slot *s = &c->slots[i];
		if (slot_on(s, q, SLOT_ISSUED) && now >= s->deadline && !s->timed_out) {
			s->timed_out = true;
			late++;
		}
	}
	spin_unlock_irqrestore(&q->lock, on);
	return late;
}

/* Timed-out commands or a failed controller: ask the worker for a reset.
 * c->lock held; returns true when it did. */
static bool check_health(struct nvme_ctrl *c)
{
	if (c->state != NVME_LIVE || !inflight_all(c))
		return false;
	uint64_t now = time_ns();
	uint32_t late = 0;
	for (uint32_t i = 0; i < c->nioq; i++)
		late += mark_late(c, &c->ioq[i], now);
	c->st.timeouts += late;
	uint32_t csts = rd32(c, NVME_REG_CSTS);
	if (csts == 0xffffffffu)
		c->reset_reason = "the controller stopped answering (CSTS reads all ones)";
	else if (csts & NVME_CSTS_CFS)
		c->reset_reason = "the controller reports a fatal error (CSTS.CFS)";
	else if (late)
		c->reset_reason = "command timeout";
	else
		return false;
	__atomic_store_n(&c->state, NVME_RESETTING, __ATOMIC_RELEASE);
	c->reset_wanted = true;
	return true;
}

/* Interrupt context (the tick).  Re-arms itself while work is outstanding. */
static void poll_timer(void *arg)
{
	struct nvme_ctrl *c = arg;
	__atomic_store_n(&c->poll_armed, false, __ATOMIC_SEQ_CST);
	service_admin(c, BY_POLL);
	for (uint32_t i = 0; i < c->nioq; i++)
		service_queue(&c->ioq[i], BY_POLL);
	bool on = spin_lock_irqsave(&c->lock);
	bool reset = check_health(c);
	bool again = (inflight_all(c) || c->admin_busy) && c->state != NVME_DEAD;
	spin_unlock_irqrestore(&c->lock, on);
	if (again)
		arm_poll(c);
	if (reset)
		waitq_wake_all(&nv.wq);
}

/* ------------------------------------------------------------ I/O submission */

/* PRP1/PRP2 and the list for cmd's segments (4.3): only the first may
 * start inside a page, only the last may end inside one.  Its queue's lock held.
 * Returns 0, or -EINVAL with *bad the offending segment. */
static int build_prps(struct nvme_slot *s, const struct blk_cmd *cmd, uint32_t *bad)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < cmd->nsegs; i++) {
		uint64_t p = cmd->segs[i].phys, end = p + cmd->segs[i].len;
		*bad = i;
		if ((i > 0 && (p & (NVME_PAGE - 1))) || (i + 1 < cmd->nsegs && (end & (NVME_PAGE - 1))))
			return -EINVAL;
		uint64_t page = i == 0 ? (p & ~(uint64_t)(NVME_PAGE - 1)) + NVME_PAGE : p;
		for (; page < end; page += NVME_PAGE) {
			if (n == NVME_PRP_PER_PAGE)
				return -EINVAL;
			s->prp[n++] = page;
		}
	}
	s->prp1 = cmd->segs[0].phys;
	s->prp2 = n == 0 ? 0 : n == 1 ? s->prp[0] : s->prp_phys;
	return 0;
}

/* Put a slot's command on its queue.  q->lock held, state LIVE. */
static void issue(struct nvme_ctrl *c, struct nvme_slot *s)
{
	struct nvme_ioq *q = s->q;
	const struct blk_cmd *cmd = s->cmd;
	struct nvme_sqe e = {
		.opc = cmd->op == BLK_WRITE ? NVME_CMD_WRITE : NVME_CMD_READ,
		.cid = (uint16_t)(s - c->slots),
		.nsid = s->ns->nsid,
		.prp1 = s->prp1,
		.prp2 = s->prp2,
		.cdw10 = (uint32_t)cmd->lba,
		.cdw11 = (uint32_t)(cmd->lba >> 32),
		.cdw12 = cmd->nblocks - 1,      /* NLB, 0's based */
	};
	s->timed_out = false;
	s->deadline = time_ns() + nvme_cmd_timeout_ns();
	__atomic_store_n(&s->state, SLOT_ISSUED, __ATOMIC_RELEASE);
	__atomic_store_n(&q->inflight, q->inflight + 1, __ATOMIC_SEQ_CST);
	q->cmds++;
	if ((uint64_t)cmd->nblocks * s->ns->blk.block_size > q->max_bytes)
		q->max_bytes = (uint64_t)cmd->nblocks * s->ns->blk.block_size;
	sq_push(c, &q->sq, &e);
	arm_poll(c);
}

/* ops->submit: never sleeps; any context. */
static int nvme_submit(struct blk_dev *d, struct blk_cmd *cmd)
{
	struct nvme_ns *ns = d->drv;
	struct nvme_ctrl *c = ns->c;
	struct nvme_slot *s = &c->slots[ns->slot_base + (uint32_t)(cmd - d->cmds)];
	uint32_t bad = 0;
	int err = 0;
	if (cmd->nblocks > d->max_blocks) {
		kprintf("%s: command of %u blocks exceeds the device's limit of %u (MDTS): rejected\n", d->name,
			cmd->nblocks, d->max_blocks);
		return -EINVAL;
	}
	/* This CPU's queue: interrupts off first, so the CPU is the one
	 * that submits (a move to another CPU before it only picks another
	 * queue, which is as correct). */
	bool on = irq_save();
	struct nvme_ioq *q = &c->ioq[this_cpu()->id % c->nioq];
	spin_lock(&q->lock);
	enum nvme_state state = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
	if (s->state != SLOT_FREE)
		err = -EBUSY;
	else if (state == NVME_DEAD)
		err = -EIO;
	else if (!(err = build_prps(s, cmd, &bad))) {
		s->cmd = cmd;
		s->ns = ns;
		s->q = q;
		if (state == NVME_LIVE && q->up)
			issue(c, s);
		else
			__atomic_store_n(&s->state, SLOT_PENDING, __ATOMIC_RELEASE);   /* issued when the reset is over */
	}
	spin_unlock_irqrestore(&q->lock, on);
	if (err == -EBUSY)
		kprintf("%s: command slot %u is busy (driver bug): command failed\n", d->name, (uint32_t)(s - c->slots));
	else if (err == -EINVAL)
		kprintf("%s: segment %u (0x%lx, %u bytes) cannot be described by PRPs: command rejected\n", d->name,
			bad, cmd->segs[bad].phys, cmd->segs[bad].len);
	return err;
}

static const struct blk_ops nvme_blk_ops = { .submit = nvme_submit };

/* ------------------------------------------------------------ admin commands */

static bool admin_finished(void *arg) { return ((struct nvme_ctrl *)arg)->admin_done; }

/* Run one admin command and wait for it.  Thread context, admin_lock
 * held.  Returns 0, -EIO (the device failed it; printed) or -ETIMEDOUT;
 * *dw0 (if not NULL) gets the completion's command-specific word. */
static int admin_exec_dw0(struct nvme_ctrl *c, struct nvme_sqe *e, const char *what, uint32_t *dw0)
{
	bool on = spin_lock_irqsave(&c->lock);
	e->cid = ++c->admin_cid;
	c->admin_busy = true;
	c->admin_done = false;
	sq_push(c, &c->asq, e);
	arm_poll(c);
	spin_unlock_irqrestore(&c->lock, on);
	uint64_t end = time_ns() + NVME_ADMIN_TIMEOUT_NS;
	while (!c->admin_done && time_ns() < end) {
		wait_event_timeout(&c->admin_wq, admin_finished, c, NVME_ADMIN_SLICE_NS);
		if (!c->admin_done)
			service_admin(c, BY_POLL);      /* the interrupt may be lost */
	}
	on = spin_lock_irqsave(&c->lock);
	bool done = c->admin_done;
	struct nvme_cqe cqe = c->admin_cqe;
	c->admin_busy = false;
	spin_unlock_irqrestore(&c->lock, on);
	if (!done) {
		kprintf("%s: %s: no completion in %lu s\n", c->name, what, NVME_ADMIN_TIMEOUT_NS / NS_PER_S);
		return -ETIMEDOUT;
	}
	uint16_t st = NVME_STATUS(cqe.status);
	if (!status_ok(st)) {
		char why[112];
		status_str(st, why, sizeof why);
		kprintf("%s: %s failed: %s\n", c->name, what, why);
		return -EIO;
	}
	if (dw0)
		*dw0 = cqe.dw0;
	return 0;
}

static int admin_exec(struct nvme_ctrl *c, struct nvme_sqe *e, const char *what)
{
	return admin_exec_dw0(c, e, what, NULL);
}

static int identify(struct nvme_ctrl *c, uint32_t cns, uint32_t nsid, uint64_t buf_phys, const char *what)
{
	struct nvme_sqe e = { .opc = NVME_ADM_IDENTIFY, .nsid = nsid, .prp1 = buf_phys, .cdw10 = cns };
	return admin_exec(c, &e, what);
}

/* Ask for the I/O queue pairs (5.21.1.7), then create each one's CQ and
 * SQ.  At probe the controller may grant fewer than asked: c->nioq
 * shrinks to that.  A reset must get them all back.  admin_lock held. */
static int create_io_queues(struct nvme_ctrl *c, bool probing)
{
	for (uint32_t i = 0; i < c->nioq; i++) {
		struct nvme_ioq *q = &c->ioq[i];
		bool on = spin_lock_irqsave(&q->lock);
		sq_reset(&q->sq);
		cq_reset(&q->cq);
		spin_unlock_irqrestore(&q->lock, on);
	}
	uint32_t want = c->nioq - 1, granted = 0;       /* 0's based */
	struct nvme_sqe e = { .opc = NVME_ADM_SET_FEATURES, .cdw10 = NVME_FEAT_NUM_QUEUES, .cdw11 = want << 16 | want };
	int err = admin_exec_dw0(c, &e, "Set Features (number of queues)", &granted);
	if (err)
		return err;
	uint32_t n = (granted & 0xffff) < (granted >> 16) ? (granted & 0xffff) + 1 : (granted >> 16) + 1;
	if (n < c->nioq) {
		if (!probing) {
			kprintf("%s: %u I/O queue pairs granted after the reset, %u before\n", c->name, n, c->nioq);
			return -EIO;
		}
		c->nioq = n;
	}
	uint32_t ien = c->irq_mode == IRQ_POLL ? 0 : NVME_CQ_FLAGS_IEN;
	for (uint32_t i = 0; i < c->nioq; i++) {
		struct nvme_ioq *q = &c->ioq[i];
		e = (struct nvme_sqe){ .opc = NVME_ADM_CREATE_CQ, .prp1 = page_to_phys(q->cq.pg),
				       .cdw10 = NVME_QUEUE_CDW10(q->qid, q->cq.entries),
				       .cdw11 = (uint32_t)q->iv << 16 | ien | NVME_CQ_FLAGS_PC };
		if ((err = admin_exec(c, &e, "Create I/O Completion Queue")))
			return err;
		e = (struct nvme_sqe){ .opc = NVME_ADM_CREATE_SQ, .prp1 = page_to_phys(q->sq.pg),
				       .cdw10 = NVME_QUEUE_CDW10(q->qid, q->sq.entries),
				       .cdw11 = (uint32_t)q->qid << 16 | NVME_SQ_FLAGS_PC };
		if ((err = admin_exec(c, &e, "Create I/O Submission Queue")))
			return err;
		bool on = spin_lock_irqsave(&q->lock);
		q->up = true;
		spin_unlock_irqrestore(&q->lock, on);
	}
	return 0;
}

/* ------------------------------------------------------------ enable, disable */

/* Wait for (CSTS & mask) == want, up to CAP.TO.  Sleeps when allowed
 * (busy-waits the first 2 ms, where QEMU and most devices are done). */
static int wait_csts(struct nvme_ctrl *c, uint32_t mask, uint32_t want, uint64_t timeout_ns, bool sleep,
		     const char *what)
{
	uint64_t start = time_ns();
	for (;;) {
		uint32_t s = rd32(c, NVME_REG_CSTS);
		if (s == 0xffffffffu) {
			kprintf("%s: CSTS reads all ones: the controller is gone\n", c->name);
			return -ENODEV;
		}
		if ((s & mask) == want)
			return 0;
		if ((s & NVME_CSTS_CFS) && want) {
			kprintf("%s: fatal controller status (CSTS 0x%x) while waiting for %s\n", c->name, s, what);
			return -EIO;
		}
		uint64_t t = time_ns() - start;
		if (t >= timeout_ns) {
			kprintf("%s: no %s after %lu ms (CSTS 0x%x)\n", c->name, what, t / 1000000, s);
			return -ETIMEDOUT;
		}
		if (sleep && t > 2000000)
			sleep_ms(1);
		else
			udelay(10);
	}
}

/* CC.EN = 0 and wait for CSTS.RDY = 0: the controller is reset, its
 * queues are gone and it does no more DMA (7.6.1, 3.1.5). */
static int ctrl_disable(struct nvme_ctrl *c)
{
	wr32(c, NVME_REG_CC, 0);
	return wait_csts(c, NVME_CSTS_RDY, 0, c->ready_timeout_ns, true, "CSTS.RDY = 0 (disable)");
}

/* Program the admin queue and set CC.EN (7.6.1).  admin_lock held. */
static int ctrl_enable(struct nvme_ctrl *c)
{
	bool on = spin_lock_irqsave(&c->lock);
	sq_reset(&c->asq);
	cq_reset(&c->acq);
	c->admin_busy = false;
	spin_unlock_irqrestore(&c->lock, on);
	wr32(c, NVME_REG_AQA, NVME_AQA(c->asq.entries, c->acq.entries));
	wr64(c, NVME_REG_ASQ, page_to_phys(c->asq.pg));
	wr64(c, NVME_REG_ACQ, page_to_phys(c->acq.pg));
	wr32(c, NVME_REG_CC, NVME_CC_EN | NVME_CC_CSS_NVM | NVME_CC_MPS(12) | NVME_CC_AMS_RR |
				     NVME_CC_IOSQES(6) | NVME_CC_IOCQES(4));
	return wait_csts(c, NVME_CSTS_RDY, NVME_CSTS_RDY, c->ready_timeout_ns, true, "CSTS.RDY = 1 (enable)");
}

/* ------------------------------------------------------------ reset (worker thread) */

/* Fail every command the (now disabled) controller had.  admin_lock held. */
static void fail_inflight(struct nvme_ctrl *c)
{
	struct chain done;
	chain_init(&done);
	uint32_t n = 0, late = 0;
	for (uint32_t k = 0; k < c->nioq; k++) {
		struct nvme_ioq *q = &c->ioq[k];
		bool on = spin_lock_irqsave(&q->lock);
		q->up = false;
		for (uint32_t i = 0; i < c->nslots; i++) {
			struct nvme_slot *s = &c->slots[i];
			if (!slot_on(s, q, SLOT_ISSUED))
				continue;
			s->state = SLOT_DONE;
			s->err = s->timed_out ? -ETIMEDOUT : -EIO;
			late += s->timed_out;
			n++;
			chain_add(&done, s);
		}
		__atomic_store_n(&q->inflight, 0, __ATOMIC_SEQ_CST);
		spin_unlock_irqrestore(&q->lock, on);
	}
	if (n)
		kprintf("%s: failing %u command(s) that were in flight, %u of them timed out\n", c->name, n, late);
	finish_chain(c, done.head);
}

/* After a reset: go LIVE and issue what waited, or go DEAD and fail it. */
static void restart(struct nvme_ctrl *c, int err)
{
	struct chain failed;
	chain_init(&failed);
	uint32_t n = 0;
	if (err)
		pci_enable(c->pci, true, false, false);         /* no more DMA, whatever state it is in */
	/* The state first, then each queue under its lock: a submit either
	 * sees the new state or left its slot PENDING for this walk. */
	bool on = spin_lock_irqsave(&c->lock);
	__atomic_store_n(&c->state, err ? NVME_DEAD : NVME_LIVE, __ATOMIC_SEQ_CST);
	c->reset_wanted = false;
	spin_unlock_irqrestore(&c->lock, on);
	for (uint32_t k = 0; k < c->nioq; k++) {
		struct nvme_ioq *q = &c->ioq[k];
		on = spin_lock_irqsave(&q->lock);
		for (uint32_t i = 0; i < c->nslots; i++) {
			struct nvme_slot *s = &c->slots[i];
			if (!slot_on(s, q, SLOT_PENDING))
				continue;
			n++;
			if (!err && q->up) {
				issue(c, s);
			} else {
				s->state = SLOT_DONE;
				s->err = -EIO;
				chain_add(&failed, s);
			}
		}
		spin_unlock_irqrestore(&q->lock, on);
	}
	if (err)
		kprintf("%s: the controller did not come back from the reset: all its I/O fails from now on\n",
			c->name);
	else
		kprintf("%s: controller reset done, queues up again; %u waiting command(s) issued\n", c->name, n);
	finish_chain(c, failed.head);
}

static void reset_controller(struct nvme_ctrl *c)
{
	mutex_lock(&c->admin_lock);
	kprintf("%s: %s: resetting the controller\n", c->name, c->reset_reason);
	bool on = spin_lock_irqsave(&c->lock);
	c->st.resets++;
	spin_unlock_irqrestore(&c->lock, on);
	int err = ctrl_disable(c);
	if (err)
		pci_enable(c->pci, true, false, false);         /* before its buffers go back */
	fail_inflight(c);
	if (!err)
		err = ctrl_enable(c);
	if (!err)
		err = create_io_queues(c, false);
	restart(c, err);
	mutex_unlock(&c->admin_lock);
}

static bool any_reset_wanted(void *arg)
{
	(void)arg;
	for (int i = 0; i < nv.n; i++)
		if (nv.ctrls[i]->reset_wanted)
			return true;
	return false;
}

/* The worker: resets controllers on the poll timer's request.  The wakeup
 * comes from our own timer and cannot be lost (wait.h); the timeout only
 * bounds how long a missed flag could go unseen. */
static void worker(void *arg)
{
	(void)arg;
	for (;;) {
		wait_event_timeout(&nv.wq, any_reset_wanted, NULL, NVME_WORKER_IDLE_NS);
		for (int i = 0; i < nv.n; i++)
			if (nv.ctrls[i]->reset_wanted)
				reset_controller(nv.ctrls[i]);
	}
}

/* ------------------------------------------------------------ probe */

/* An I/O queue pair per CPU when MSI-X has an entry for each (entry 0:
 * the admin queue, on this CPU; entry i: queue i, on CPU i - 1), at most
 * NVME_MAX_IOQ; else one pair on one shared vector (a one-entry MSI-X
 * table, MSI, INTx) or, failing all, polling. */
static void setup_irqs(struct nvme_ctrl *c)
{
	struct pci_dev *d = c->pci;
	ksnprintf(c->irq_name, sizeof c->irq_name, "%s admin", c->name);
	c->vec = -1;
	c->nioq = 1;
	c->poll_ns = NVME_POLL_NS;
	uint32_t cpus = (uint32_t)smp_cpus_online();
	uint32_t want = cpus < NVME_MAX_IOQ ? cpus : NVME_MAX_IOQ;
	if (want < 1)
		want = 1;
	if (d->msix_cap && d->msix_nvec >= 2) {
		uint32_t n = want < (uint32_t)d->msix_nvec - 1 ? want : (uint32_t)d->msix_nvec - 1;
		int vectors[NVME_MAX_IOQ + 1];
		uint32_t apics[NVME_MAX_IOQ + 1];
		bool ok = (vectors[0] = c->vec = irq_alloc(c->irq_name, irq_admin, c)) >= 0;
		apics[0] = this_cpu()->apic_id;
		for (uint32_t i = 0; i < n; i++) {
			struct nvme_ioq *q = &c->ioq[i];
			ksnprintf(q->irq_name, sizeof q->irq_name, "%s io%u", c->name, q->qid);
			q->iv = (uint16_t)(i + 1);
			q->cpu = i;
			apics[i + 1] = percpu_get(i)->apic_id;
			ok &= (vectors[i + 1] = q->vec = irq_alloc(q->irq_name, irq_queue, q)) >= 0;
		}
		if (ok && !pci_msix_enable(d, (int)n + 1, vectors, apics)) {
			c->irq_mode = IRQ_MSIX;
			c->nioq = n;
			return;
		}
		for (uint32_t i = 0; i <= n; i++)
			if (vectors[i] >= 0)
				irq_free(vectors[i]);
		c->vec = -1;
		for (uint32_t i = 0; i < n; i++) {
			c->ioq[i].vec = -1;
			c->ioq[i].iv = 0;
			c->ioq[i].cpu = 0;
		}
	}
	/* One vector for the admin queue and one I/O queue pair. */
	c->vec = irq_alloc(c->name, irq_shared, c);
	if (c->vec >= 0 && d->msix_cap && !pci_msix_enable(d, 1, &c->vec, NULL)) {
		c->irq_mode = IRQ_MSIX;
		return;
	}
	if (c->vec >= 0 && !pci_msi_enable(d, c->vec)) {
		c->irq_mode = IRQ_MSI;
		return;
	}
	if (c->vec >= 0)
		irq_free(c->vec);
	c->vec = pci_intx_route(d, irq_shared, c, c->name);
	if (c->vec >= 0) {
		c->irq_mode = IRQ_INTX;
		return;
	}
	c->irq_mode = IRQ_POLL;
	c->poll_ns = NVME_POLL_NOIRQ_NS;
	kprintf("%s: no usable interrupt (MSI-X, MSI, INTx): polling every millisecond\n", c->name);
}

/* Printable ASCII of a space-padded identify field. */
static void id_string(char *dst, const uint8_t *src, size_t len)
{
	size_t n;
	for (size_t i = 0; i < len; i++)
		dst[i] = !src[i] ? ' ' : src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	for (n = len; n && dst[n - 1] == ' '; n--)
		;
	dst[n] = 0;
}

static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static int identify_controller(struct nvme_ctrl *c, uint8_t *buf, uint64_t phys)
{
	int err = identify(c, NVME_ID_CNS_CTRL, 0, phys, "Identify Controller");
	if (err)
		return err;
	id_string(c->serial, buf + NVME_IDC_SN, NVME_IDC_SN_LEN);
	id_string(c->model, buf + NVME_IDC_MN, NVME_IDC_MN_LEN);
	id_string(c->firmware, buf + NVME_IDC_FR, NVME_IDC_FR_LEN);
	c->mdts = buf[NVME_IDC_MDTS];
	c->rtd3e_us = get32(buf + NVME_IDC_RTD3E);
	uint64_t mdts_bytes = (uint64_t)NVME_PAGE << NVME_CAP_MPSMIN(c->cap) << (c->mdts < 24 ? c->mdts : 24);
	c->max_xfer = c->mdts && mdts_bytes < NVME_MAX_XFER ? (uint32_t)mdts_bytes : NVME_MAX_XFER;
	uint16_t maxcmd = (uint16_t)(buf[NVME_IDC_MAXCMD] | buf[NVME_IDC_MAXCMD + 1] << 8);
	c->nslots = c->io_entries - 1u;
	if (c->nslots > NVME_MAX_CMDS)
		c->nslots = NVME_MAX_CMDS;
	if (maxcmd && c->nslots > maxcmd)
		c->nslots = maxcmd;
	return 0;
}

/* One namespace: keep it when its LBA format is one we can drive. */
static void add_namespace(struct nvme_ctrl *c, uint32_t nsid, const uint8_t *id)
{
	uint64_t nsze = get64(id + NVME_IDN_NSZE);
	uint32_t fmt = id[NVME_IDN_FLBAS] & 0xf;
	uint32_t lbaf = get32(id + NVME_IDN_LBAF0 + 4 * fmt);
	uint32_t shift = NVME_LBAF_LBADS(lbaf);
	if (!nsze)
		return;                         /* allocated but not attached: inactive */
	if (NVME_LBAF_MS(lbaf) || shift < 9 || shift > 12 || fmt > id[NVME_IDN_NLBAF]) {
		kprintf("%sn%u: LBA format %u (%u-byte blocks, %u bytes of metadata) not supported: skipped\n",
			c->name, nsid, fmt, 1u << (shift & 31), NVME_LBAF_MS(lbaf));
		return;
	}
	if (c->nns == NVME_MAX_NS || (uint32_t)c->nns == c->nslots) {
		kprintf("%sn%u: more namespaces than the driver takes (%d): skipped\n", c->name, nsid, c->nns);
		return;
	}
	struct nvme_ns *ns = kzalloc(sizeof *ns);
	if (!ns)
		return;
	ns->c = c;
	ns->nsid = nsid;
	struct blk_dev *b = &ns->blk;
	ksnprintf(b->name, sizeof b->name, "%sn%u", c->name, nsid);
	b->nblocks = nsze;
	b->block_size = 1u << shift;
	b->max_blocks = c->max_xfer >> shift;
	b->max_segs = BLK_MAX_SEGS;
	b->ops = &nvme_blk_ops;
	b->drv = ns;
	memcpy(b->model, c->model, strlen(c->model) + 1);     /* 40 characters at most */
	c->ns[c->nns++] = ns;
}

/* The active namespace list (CNS 2, NVMe 1.1+), else IDs 1..NN. */
static int find_namespaces(struct nvme_ctrl *c, uint8_t *buf, uint64_t phys, uint32_t nn)
{
	static uint32_t ids[NVME_ID_NSLIST_MAX];        /* probes run one at a time */
	uint32_t n = 0;
	int err = c->vs >= 0x10100 ? identify(c, NVME_ID_CNS_NS_ACTIVE, 0, phys, "Identify (active namespaces)") : -EIO;
	if (err == -ETIMEDOUT)
		return err;
	if (!err)
		for (; n < NVME_ID_NSLIST_MAX && get32(buf + 4 * n); n++)
			ids[n] = get32(buf + 4 * n);
	else
		for (; n < nn && n < NVME_ID_NSLIST_MAX; n++)
			ids[n] = n + 1;
	for (uint32_t i = 0; i < n && c->nns < NVME_MAX_NS; i++) {
		err = identify(c, NVME_ID_CNS_NS, ids[i], phys, "Identify Namespace");
		if (err == -ETIMEDOUT)
			return err;
		if (!err)
			add_namespace(c, ids[i], buf);
	}
	return 0;
}

/* Slots and PRP pages; namespaces share the slots evenly. */
static int setup_slots(struct nvme_ctrl *c)
{
	c->slots = kzalloc(c->nslots * sizeof *c->slots);
	if (!c->slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->nslots; i++) {
		struct nvme_slot *s = &c->slots[i];
		unsigned order;
		s->prp = alloc_pages(NVME_PAGE, &s->prp_pg, &order);
		if (!s->prp)
			return -ENOMEM;
		s->prp_phys = page_to_phys(s->prp_pg);
	}
	uint32_t per = c->nns ? c->nslots / (uint32_t)c->nns : 0;
	for (int i = 0; i < c->nns; i++) {
		c->ns[i]->slot_base = (uint32_t)i * per;
		c->ns[i]->blk.queue_depth = per;
	}
	return 0;
}

/* Short: under QEMU's TCG every console byte costs microseconds of boot. */
static void probe_text(const struct nvme_ctrl *c)
{
	kprintf("%s: %s \"%s\" serial \"%s\" fw \"%s\", NVMe %u.%u, %s, queue %u/%u, %u I/O queue pair(s), "
		"max %u KiB (MDTS %u)\n", c->name, c->pci->name, c->model, c->serial, c->firmware, NVME_VS_MJR(c->vs),
		NVME_VS_MNR(c->vs), irq_mode_name[c->irq_mode], c->nslots, c->io_entries, c->nioq, c->max_xfer >> 10,
		c->mdts);
	for (int i = 0; i < c->nns; i++) {
		const struct blk_dev *b = &c->ns[i]->blk;
		kprintf("%s: %lu x %u-byte blocks (%lu MiB)\n", b->name, b->nblocks, b->block_size,
			(b->nblocks * b->block_size) >> 20);
	}
}

static void probe_record(const struct nvme_ctrl *c, const char *error)
{
	char ver[12];
	ksnprintf(ver, sizeof ver, "%u.%u", NVME_VS_MJR(c->vs), NVME_VS_MNR(c->vs));
	struct json *j = rec_begin("nvme");
	json_str(j, "name", c->name);
	json_str(j, "pci", c->pci->name);
	json_bool(j, "ok", error == NULL);
	if (error)
		json_str(j, "error", error);
	json_str(j, "model", c->model);
	json_str(j, "serial", c->serial);
	json_str(j, "firmware", c->firmware);
	json_str(j, "version", ver);
	json_str(j, "interrupts", irq_mode_name[c->irq_mode]);
	json_u64(j, "queue_entries", c->io_entries);
	json_u64(j, "io_queues", c->nioq);
	json_u64(j, "queue_depth", c->nslots);
	json_u64(j, "mdts", c->mdts);
	json_u64(j, "max_transfer", c->max_xfer);
	json_arr_begin(j, "namespaces");
	for (int i = 0; i < c->nns; i++) {
		const struct blk_dev *b = &c->ns[i]->blk;
		json_obj_begin(j, NULL);
		json_u64(j, "nsid", c->ns[i]->nsid);
		json_str(j, "name", b->name);
		json_u64(j, "blocks", b->nblocks);
		json_u64(j, "block_size", b->block_size);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

/* Map BAR0 and check what CAP offers.  NULL, or why not. */
static const char *probe_regs(struct nvme_ctrl *c)
{
	pci_enable(c->pci, true, false, true);
	c->regs = pci_map_bar(c->pci, 0);
	if (!c->regs)
		return "BAR0 cannot be mapped";
	c->cap = rd64(c, NVME_REG_CAP);
	c->vs = rd32(c, NVME_REG_VS);
	if (c->cap == ~0ull)
		return "registers read all ones";
	if (!(c->cap & NVME_CAP_CSS_NVM))
		return "no NVM command set (CAP.CSS)";
	if (NVME_CAP_MPSMIN(c->cap) > 0)
		return "4 KiB memory pages not supported (CAP.MPSMIN)";
	c->dstrd = NVME_CAP_DSTRD(c->cap);
	c->ready_timeout_ns = (NVME_CAP_TO(c->cap) ? NVME_CAP_TO(c->cap) : 1) * 500000000ull;
	uint32_t entries = NVME_CAP_MQES(c->cap) + 1u;
	if (entries < 2)
		return "CAP.MQES below 2 entries";
	c->io_entries = (uint16_t)(entries < NVME_IO_ENTRIES_MAX ? entries : NVME_IO_ENTRIES_MAX);
	if (sq_alloc(c, &c->asq, 0, (uint16_t)(entries < NVME_ADMIN_ENTRIES ? entries : NVME_ADMIN_ENTRIES)) ||
	    cq_alloc(c, &c->acq, 0, c->asq.entries))
		return "out of memory for the queues";
	return NULL;
}

/* The I/O queues' memory, for the c->nioq setup_irqs chose; short of
 * memory, fewer queues (CPUs share them), at least one. */
static const char *alloc_io_queues(struct nvme_ctrl *c)
{
	for (uint32_t i = 0; i < c->nioq; i++) {
		struct nvme_ioq *q = &c->ioq[i];
		if (!sq_alloc(c, &q->sq, q->qid, c->io_entries) && !cq_alloc(c, &q->cq, q->qid, c->io_entries))
			continue;
		if (!i)
			return "out of memory for the queues";
		free_pages(&q->sq.pg, q->sq.order);
		free_pages(&q->cq.pg, q->cq.order);
		kprintf("%s: memory for %u of %u I/O queue pairs only\n", c->name, i, c->nioq);
		c->nioq = i;
	}
	return NULL;
}

/* Bring the controller up to LIVE with its namespaces found.  NULL, or
 * why not.  buf/phys: one page for identify data. */
static const char *probe_ctrl(struct nvme_ctrl *c, uint8_t *buf, uint64_t phys)
{
	const char *why = probe_regs(c);
	if (why)
		return why;
	setup_irqs(c);
	if ((why = alloc_io_queues(c)))
		return why;
	if (ctrl_disable(c))
		return "the controller does not reset (CSTS.RDY stays 1)";
	mutex_lock(&c->admin_lock);
	int err = ctrl_enable(c);
	why = err ? "the controller does not become ready" : NULL;
	if (!why && identify_controller(c, buf, phys))
		why = "Identify Controller failed";
	uint32_t nn = why ? 0 : get32(buf + NVME_IDC_NN);
	if (!why && create_io_queues(c, true))
		why = "the I/O queues cannot be created";
	if (!why && find_namespaces(c, buf, phys, nn))
		why = "Identify Namespace timed out";
	mutex_unlock(&c->admin_lock);
	if (!why && setup_slots(c))
		why = "out of memory for command slots";
	return why;
}

/* Undo a failed probe: device quiet first (no DMA, no interrupts), then
 * memory.  c itself stays allocated: an INTx handler may still see it. */
static void probe_undo(struct nvme_ctrl *c)
{
	bool on = spin_lock_irqsave(&c->lock);
	__atomic_store_n(&c->state, NVME_DEAD, __ATOMIC_SEQ_CST);
	c->admin_busy = false;
	spin_unlock_irqrestore(&c->lock, on);
	for (uint32_t i = 0; i < NVME_MAX_IOQ; i++) {
		on = spin_lock_irqsave(&c->ioq[i].lock);
		c->ioq[i].up = false;
		spin_unlock_irqrestore(&c->ioq[i].lock, on);
	}
	ktimer_cancel(&c->poll);
	if (c->regs)
		wr32(c, NVME_REG_CC, 0);
	pci_enable(c->pci, true, false, false);
	if (c->irq_mode == IRQ_MSIX)
		pci_msix_disable(c->pci);
	else if (c->irq_mode == IRQ_MSI)
		pci_msi_disable(c->pci);
	else if (c->irq_mode == IRQ_INTX)
		pci_intx_disable(c->pci, true);
	if (c->irq_mode == IRQ_MSIX || c->irq_mode == IRQ_MSI) {
		irq_free(c->vec);
		for (uint32_t i = 0; i < NVME_MAX_IOQ; i++)
			if (c->ioq[i].vec >= 0)
				irq_free(c->ioq[i].vec);
	}
	for (uint32_t i = 0; c->slots && i < c->nslots; i++)
		free_pages(&c->slots[i].prp_pg, 0);
	kfree(c->slots);
	c->slots = NULL;
	for (int i = 0; i < c->nns; i++)
		kfree(c->ns[i]);
	c->nns = 0;
	free_pages(&c->asq.pg, c->asq.order);
	free_pages(&c->acq.pg, c->acq.order);
	for (uint32_t i = 0; i < NVME_MAX_IOQ; i++) {
		free_pages(&c->ioq[i].sq.pg, c->ioq[i].sq.order);
		free_pages(&c->ioq[i].cq.pg, c->ioq[i].cq.order);
	}
}

static struct nvme_ctrl *ctrl_new(struct pci_dev *d, int index)
{
	struct nvme_ctrl *c = kzalloc(sizeof *c);
	if (!c)
		return NULL;
	c->index = index;
	c->pci = d;
	ksnprintf(c->name, sizeof c->name, "nvme%d", index);
	spin_init(&c->lock, "nvme");
	for (uint32_t i = 0; i < NVME_MAX_IOQ; i++) {
		struct nvme_ioq *q = &c->ioq[i];
		spin_init(&q->lock, "nvme-queue");
		q->c = c;
		q->qid = (uint16_t)(i + 1);
		q->vec = -1;
	}
	mutex_init(&c->admin_lock, "nvme-admin");
	waitq_init(&c->admin_wq, "nvme-admin");
	ktimer_init(&c->poll, poll_timer, c);
	c->poll_ns = NVME_POLL_NS;
	c->state = NVME_LIVE;
	return c;
}

static void probe(struct pci_dev *d, int index)
{
	struct nvme_ctrl *c = ctrl_new(d, index);
	struct page *idpg = pmm_alloc(0, PMM_ZERO | PMM_KERNEL);
	if (!c || !idpg || nv.n == NVME_MAX_CTRLS) {
		kprintf("nvme%d: %s: not used: out of memory or too many controllers\n", index, d->name);
		kfree(c);
		if (idpg)
			pmm_free(idpg, 0);
		return;
	}
	const char *why = probe_ctrl(c, page_address(idpg), page_to_phys(idpg));
	pmm_free(idpg, 0);
	if (why) {
		kprintf("%s: %s: not used: %s\n", c->name, d->name, why);
		probe_undo(c);
		probe_record(c, why);
		return;
	}
	probe_text(c);
	probe_record(c, NULL);
	nv.ctrls[nv.n] = c;
	__atomic_store_n(&nv.n, nv.n + 1, __ATOMIC_RELEASE);    /* visible to the worker */
	for (int i = 0; i < c->nns; i++)
		if (blk_register_disk(&c->ns[i]->blk))
			kprintf("%s: cannot register with the block layer\n", c->ns[i]->blk.name);
}

/* ------------------------------------------------------------ halt */

/* Normal shutdown (7.6.2) so the device flushes its cache and does not
 * count an unsafe power-off.  Busy-waits: the system is going down. */
static void shutdown(struct nvme_ctrl *c)
{
	bool on = spin_lock_irqsave(&c->lock);
	bool idle = c->state == NVME_LIVE && !inflight_all(c);
	if (idle)
		__atomic_store_n(&c->state, NVME_DEAD, __ATOMIC_SEQ_CST);
	spin_unlock_irqrestore(&c->lock, on);
	if (!idle) {
		kprintf("%s: busy or failed at halt: no shutdown notification\n", c->name);
		return;
	}
	uint32_t cc = rd32(c, NVME_REG_CC);
	if (!(cc & NVME_CC_EN) || !(rd32(c, NVME_REG_CSTS) & NVME_CSTS_RDY))
		return;                         /* disabled behind our back (the msix self-test) */
	uint64_t t = c->rtd3e_us ? c->rtd3e_us * 1000ull : NVME_SHUTDOWN_DEFAULT_NS;
	wr32(c, NVME_REG_CC, (cc & ~NVME_CC_SHN_MASK) | NVME_CC_SHN_NORMAL);
	wait_csts(c, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_DONE, t < NVME_SHUTDOWN_MAX_NS ? t : NVME_SHUTDOWN_MAX_NS,
		  false, "shutdown complete (CSTS.SHST)");
}

static void stats_record(const struct nvme_ctrl *c)
{
	uint64_t cmds = 0, max = 0, irqs = c->st.irqs, polled = c->st.polled;
	for (uint32_t i = 0; i < c->nioq; i++) {
		cmds += c->ioq[i].cmds;
		max = c->ioq[i].max_bytes > max ? c->ioq[i].max_bytes : max;
		irqs += c->ioq[i].irqs;
		polled += c->ioq[i].polled;
	}
	struct json *j = rec_begin("nvme_stats");
	json_str(j, "name", c->name);
	json_u64(j, "commands", cmds);
	json_u64(j, "max_command_bytes", max);
	json_u64(j, "errors", c->st.errors);
	json_u64(j, "timeouts", c->st.timeouts);
	json_u64(j, "resets", c->st.resets);
	json_u64(j, "interrupts", irqs);
	json_u64(j, "completions_polled", polled);
	/* Per I/O queue: the CPU its interrupt goes to, what it carried. */
	json_arr_begin(j, "queues");
	for (uint32_t i = 0; i < c->nioq; i++) {
		const struct nvme_ioq *q = &c->ioq[i];
		json_obj_begin(j, NULL);
		json_u64(j, "qid", q->qid);
		json_u64(j, "cpu", q->cpu);
		json_u64(j, "commands", q->cmds);
		json_u64(j, "interrupts", q->irqs);
		json_u64(j, "completions_polled", q->polled);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

static void nvme_halt(void)
{
	for (int i = 0; i < nv.n; i++) {
		shutdown(nv.ctrls[i]);
		stats_record(nv.ctrls[i]);
	}
}

void nvme_init(void)
{
	int found = 0;
	for (struct pci_dev *d = NULL; (d = pci_find_class(PCI_CLASS_STORAGE, 0x08, 0x02, d));)
		found++;
	if (!found)
		return;
	waitq_init(&nv.wq, "nvme-reset");
	if (!thread_create("nvme", worker, NULL, SCHED_NORMAL))
		kprintf("nvme: no worker thread: timed-out commands will not be recovered\n");
	int index = 0;
	for (struct pci_dev *d = NULL; (d = pci_find_class(PCI_CLASS_STORAGE, 0x08, 0x02, d));)
		probe(d, index++);
	halt_register_shutdown_hook(nvme_halt);
}
