/*
 * AHCI driver: SATA disks (AHCI 1.3.1, ATA8-ACS) as block devices.
 *
 * Model.  Every AHCI function PCI finds is one struct ahci_hba; every
 * port with an ATA disk is one struct ahci_port holding a blk_dev named
 * sata<P>.  The block layer hands a port up to queue_depth commands at a
 * time (ahci_submit, any context, never sleeps).  A command waits in the
 * port's FIFO until it can be issued, then owns a command slot; the slot
 * number is also its NCQ tag.  With NCQ (CAP.SNCQ and IDENTIFY word 76)
 * commands go out as READ/WRITE FPDMA QUEUED through PxSACT then PxCI,
 * up to min(CAP.NCS, device queue depth) at once; without it, as READ/
 * WRITE DMA EXT one at a time.  A non-queued command always runs alone.
 *
 * Completion.  One interrupt per controller (MSI, else INTx), and a poll
 * timer every AHCI_POLL_MS; both run port_service(), which reaps the
 * slots whose PxCI and PxSACT bits have cleared, and looks for errors and
 * commands older than AHCI_CMD_TIMEOUT_NS.  A lost interrupt therefore
 * costs one poll period, and shows up as "completed_by_poll" on halt.
 *
 * Errors.  An error (PxIS.TFES/HBFS/HBDS/IFS/..., ERR in PxTFD, bits in
 * PxSERR) or a timeout freezes the port: PxIE is cleared and nothing more
 * is issued.  The controller's recovery thread then owns the port's
 * registers: it stops the port, resets the link (COMRESET through
 * PxSCTL.DET) and restarts it, and decides what happened to each command
 * that was in flight:
 *   - a timed-out command completes with -ETIMEDOUT;
 *   - the command that failed completes with -EIO and one log line, when
 *     it is known: it was alone in flight, or the NCQ error log (READ LOG
 *     EXT page 10h) names its tag;
 *   - otherwise every command in flight is retried alone, non-queued, so
 *     the next failure names its command (QEMU's disk has no NCQ error
 *     log: IDENTIFY word 84 lacks general purpose logging);
 *   - the rest are resubmitted.  Nothing is dropped: a command leaves the
 *     driver only through blk_complete.
 * Interface errors are retried up to AHCI_MAX_TRIES times.  When the port
 * does not come back, or times out again before any command finishes,
 * the disk goes offline and all its I/O fails.
 *
 * Locking.  port->lock (irqsave) guards the fields marked [L] and, while
 * the port runs, its registers.  While the port is frozen only the
 * recovery thread touches its registers, and submissions just queue.  The
 * lock is a leaf: blk_complete and waking the recovery thread happen
 * after it is dropped (blk_complete may call straight back into
 * ahci_submit), and the block layer calls ahci_submit without its own
 * lock.  hba->eh_pending is updated with atomics.
 */
#include <string.h>
#include "ahci.h"
#include "ahci_regs.h"
#include "blk_driver.h"
#include "pci.h"
#include "core/console.h"
#include "core/panic.h"
#include "core/record.h"
#include "core/time.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "mem/kmalloc.h"
#include "mem/pmm.h"
#include "core/sched.h"
#include "core/wait.h"
#include "arch/x86_64/irq.h"

/* Linux's default for ATA/SCSI commands.  A disk retrying a weak sector
 * internally can take most of this before it answers. */
#define AHCI_CMD_TIMEOUT_NS     (30ull * 1000000000ull)
/* Reaps what a lost interrupt left behind and checks for timeouts; short
 * enough that a lost interrupt is a hiccup, long enough to cost nothing.
 * Without any interrupt the timer is the only completion path. */
#define AHCI_POLL_MS            100
#define AHCI_POLL_ONLY_MS       2
#define AHCI_MAX_TRIES          3       /* attempts after interface errors */
/* A disk that times out again after a reset, with nothing finishing in
 * between, is taken offline: otherwise the commands still waiting (one
 * at a time, when they are being isolated) would each wait out a timeout
 * of their own, for many minutes. */
#define AHCI_MAX_TIMEOUT_STREAK 2
#define AHCI_MAX_SLOTS          32
#define AHCI_MAX_HBAS           4
#define AHCI_MAX_BYTES          (1u << 20)      /* per command: 256 pages */
/* Waits, in ms.  The spec's HBA reset bound is 1 s; PxCMD.CR/FR must
 * clear within 500 ms (10.3.2); a spun-down disk may need seconds to
 * clear BSY after COMRESET. */
#define HBA_RESET_MS            1000
#define PORT_STOP_MS            500
#define LINK_UP_MS              1000
#define DEVICE_READY_MS         10000
#define SYNC_CMD_MS             10000
/* Ports with no device at probe are watched this long for a late link
 * (a disk still powering up); their disks register when it comes. */
#define LATE_LINK_MS            2000
#define LATE_LINK_POLL_MS       50

#define PAGE                    4096u
#define TABLE_BLOCK_ORDER       3       /* 32 KiB: 7 command tables of 4224 B */
#define TABLES_PER_BLOCK        ((PAGE << TABLE_BLOCK_ORDER) / sizeof(struct ahci_cmd_table))
#define MAX_TABLE_BLOCKS        ((AHCI_MAX_SLOTS + TABLES_PER_BLOCK - 1) / TABLES_PER_BLOCK)

/* Layout of the page each port gets for its small DMA structures. */
#define PAGE_OFF_CLIST          0       /* 1 KiB, 1 KiB aligned */
#define PAGE_OFF_RFIS           1024    /* 256 B, 256 B aligned */
#define PAGE_OFF_SCRATCH        2048    /* 512 B: IDENTIFY data, NCQ error log */
_Static_assert(PAGE_OFF_CLIST % AHCI_CMD_LIST_ALIGN == 0 && PAGE_OFF_RFIS % AHCI_RX_FIS_ALIGN == 0 &&
	       PAGE_OFF_RFIS >= PAGE_OFF_CLIST + AHCI_CMD_LIST_BYTES, "port page layout");

#define PORT_IE (AHCI_PxIS_COMPLETION | AHCI_PxIS_ERRORS)

enum port_state {
	PORT_OFF,               /* not set up, or handed back */
	PORT_RUNNING,
	PORT_FROZEN,            /* the recovery thread owns it */
	PORT_DEAD,              /* reset failed: every command fails */
};

/* Why a command failed or the port froze. */
enum cause {
	CAUSE_NONE,
	CAUSE_DEVICE,           /* the device reported an error (ERR in status) */
	CAUSE_HOST,             /* host bus error, PRDT overflow */
	CAUSE_LINK,             /* interface error: worth retrying */
	CAUSE_TIMEOUT,
	CAUSE_OFFLINE,          /* the port could not be restarted */
};

static const char *const cause_name[] = {
	"none", "a device error", "a host bus error", "an interface error", "a command timeout", "disk offline",
};

struct ata_ident {
	char model[41];
	uint64_t sectors;
	uint32_t sector_size;
	uint32_t ncq_depth;             /* 0: no NCQ */
	bool lba48, gpl;
};

/* A command the driver holds, waiting or in a slot. */
struct ahci_io {
	struct blk_cmd *cmd;
	uint8_t tries;                  /* attempts lost to errors that were not its own */
	bool isolate;                   /* retry alone, non-queued: did it fail? */
};

struct ahci_port_stats {
	uint64_t cmds, ncq_cmds, by_poll, device_errors, host_errors, link_errors;
	uint64_t timeouts, retries, resets;
	uint64_t max_issued, max_bytes;         /* most commands at the device at once; largest command */
};

struct ahci_hba;

struct ahci_port {
	struct blk_dev blk;             /* first: blk.drv points back here */
	struct ahci_hba *hba;
	int no;
	volatile struct ahci_port_regs *r;
	/* Set up at bring-up, read-only while the port runs. */
	struct page *mem;               /* command list, received FIS, scratch */
	struct ahci_cmd_header *clist;
	struct ahci_rx_fis *rfis;
	void *scratch;
	uint64_t scratch_phys;
	struct page *table_block[MAX_TABLE_BLOCKS];
	struct ahci_cmd_table *table[AHCI_MAX_SLOTS];
	uint64_t table_phys[AHCI_MAX_SLOTS];
	uint32_t nslots;
	bool ncq;                       /* queued commands in use */
	struct ata_ident id;
	const char *absent;             /* why there is no disk: NULL when there is */

	struct spinlock lock;
	enum port_state state;                  /* [L] */
	uint32_t issued;                        /* [L] slots written to PxCI */
	bool issued_ncq;                        /* [L] and they are queued commands */
	struct ahci_io slot[AHCI_MAX_SLOTS];    /* [L] */
	uint64_t deadline[AHCI_MAX_SLOTS];      /* [L] time_ns when the slot times out */
	struct ahci_io fifo[AHCI_MAX_SLOTS];    /* [L] ring: waiting to be issued */
	uint32_t fifo_head, fifo_n;             /* [L] */
	enum cause eh_cause;                    /* [L] why it froze */
	uint32_t eh_is, eh_tfd, eh_serr;        /* [L] registers when it froze */
	uint32_t eh_timedout;                   /* [L] slots past their deadline */
	uint32_t timeout_streak;                /* [L] timeouts with no completion in between */
	struct ahci_port_stats st;              /* [L] */
};

struct ahci_hba {
	char name[8];                   /* "ahci0" */
	struct pci_dev *pci;
	volatile struct ahci_hba_regs *r;
	uint32_t cap, cap2, pi, vs;
	uint32_t nports;                /* ports whose registers lie inside the BAR */
	int name_base;                  /* sata<name_base + port> */
	const char *irq_mode;           /* "msi", "intx", "poll" */
	int vector;
	uint64_t irqs;
	struct ahci_port *port[AHCI_MAX_PORTS];
	struct ktimer poll;
	struct waitq eh_wq;
	uint32_t eh_pending;            /* atomic: ports frozen, waiting for recovery */
	uint32_t late;                  /* recovery thread only: ports watched for a link */
	uint64_t late_until;
};

static struct ahci_hba *hbas[AHCI_MAX_HBAS];
static int nhbas;

static inline void io_barrier(void) { __asm__ volatile("" ::: "memory"); }

/* No libgcc in the kernel, so no __builtin_popcount. */
static int bit_count(uint32_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* ---- waiting on registers (thread context) ---------------------------- */

/* Poll until (*reg & mask) == want or timeout_ms passes.  Spins for the
 * first 100 us (QEMU and most HBAs answer at once), then sleeps 1 ms
 * between looks.  0 or -ETIMEDOUT. */
static int wait_reg(volatile uint32_t *reg, uint32_t mask, uint32_t want, uint64_t timeout_ms)
{
	uint64_t t0 = time_ns(), limit = timeout_ms * 1000000ull;
	for (;;) {
		if ((*reg & mask) == want)
			return 0;
		uint64_t dt = time_ns() - t0;
		if (dt > limit)
			return (*reg & mask) == want ? 0 : -ETIMEDOUT;
		if (dt < 100000)
			udelay(5);
		else
			sleep_ms(1);
	}
}

/* ---- IDENTIFY DEVICE (pure) -------------------------------------------- */

static void ata_string(const uint16_t *w, int words, char *out)
{
	int n = 0;
	for (int i = 0; i < words; i++) {
		out[n++] = (char)(w[i] >> 8);
		out[n++] = (char)(w[i] & 0xff);
	}
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == 0))
		n--;
	out[n] = 0;
	for (int i = 0; i < n; i++)
		if (out[i] < 0x20 || out[i] > 0x7e)
			out[i] = '?';
}

/* Decode the 256 words of IDENTIFY DEVICE data (ATA8-ACS 7.16.7). */
static void ata_parse_identify(const uint16_t *id, struct ata_ident *out)
{
	memset(out, 0, sizeof *out);
	ata_string(id + ATA_ID_MODEL, ATA_ID_MODEL_WORDS, out->model);
	out->lba48 = (id[ATA_ID_CMDSET2] & (1u << 10)) != 0;
	if (out->lba48)
		out->sectors = (uint64_t)id[ATA_ID_LBA48_SECTORS] | (uint64_t)id[ATA_ID_LBA48_SECTORS + 1] << 16 |
			       (uint64_t)id[ATA_ID_LBA48_SECTORS + 2] << 32 | (uint64_t)id[ATA_ID_LBA48_SECTORS + 3] << 48;
	else
		out->sectors = (uint32_t)id[ATA_ID_LBA28_SECTORS] | (uint32_t)id[ATA_ID_LBA28_SECTORS + 1] << 16;
	out->sector_size = 512;
	uint16_t w106 = id[ATA_ID_SECTOR_SIZE];
	if ((w106 & 0xc000) == 0x4000 && (w106 & (1u << 12)))
		out->sector_size = 2 * ((uint32_t)id[ATA_ID_LOGICAL_WORDS] | (uint32_t)id[ATA_ID_LOGICAL_WORDS + 1] << 16);
	uint16_t w76 = id[ATA_ID_SATA_CAP];
	if (w76 != 0 && w76 != 0xffff && (w76 & (1u << 8)))
		out->ncq_depth = (id[ATA_ID_QUEUE_DEPTH] & 0x1f) + 1u;
	uint16_t w84 = id[ATA_ID_CMDSET_EXT];
	out->gpl = (w84 & 0xc000) == 0x4000 && (w84 & (1u << 5));
}

/* "aborted", "uncorrectable data, ID not found", ... */
static void ata_error_text(uint8_t err, char *buf, size_t cap)
{
	static const struct { uint8_t bit; const char *name; } bits[] = {
		{ ATA_ERR_ICRC, "interface CRC" }, { ATA_ERR_UNC, "uncorrectable data" },
		{ ATA_ERR_IDNF, "ID not found" }, { ATA_ERR_ABRT, "aborted" }, { ATA_ERR_AMNF, "address mark" },
	};
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (err & bits[i].bit)
			n += (size_t)ksnprintf(buf + n, cap - n, "%s%s", n ? ", " : "", bits[i].name);
	if (!n)
		ksnprintf(buf, cap, "no error bits");
}

/* ---- command construction --------------------------------------------- */

static void fis_lba(struct fis_reg_h2d *f, uint64_t lba)
{
	f->lba0 = (uint8_t)lba;
	f->lba1 = (uint8_t)(lba >> 8);
	f->lba2 = (uint8_t)(lba >> 16);
	f->lba3 = (uint8_t)(lba >> 24);
	f->lba4 = (uint8_t)(lba >> 32);
	f->lba5 = (uint8_t)(lba >> 40);
}

/* READ/WRITE FPDMA QUEUED (count in the feature field, tag in count 7:3)
 * or READ/WRITE DMA EXT. */
static void fis_rw(struct fis_reg_h2d *f, const struct blk_cmd *c, bool ncq, unsigned tag)
{
	bool wr = c->op == BLK_WRITE;
	memset(f, 0, sizeof *f);
	f->type = FIS_TYPE_REG_H2D;
	f->flags = FIS_H2D_COMMAND;
	f->device = ATA_DEV_LBA;
	fis_lba(f, c->lba);
	if (ncq) {
		f->command = wr ? ATA_CMD_WRITE_FPDMA : ATA_CMD_READ_FPDMA;
		f->feature_lo = (uint8_t)c->nblocks;
		f->feature_hi = (uint8_t)(c->nblocks >> 8);
		f->count_lo = (uint8_t)(tag << 3);
	} else {
		f->command = wr ? ATA_CMD_WRITE_DMA_EXT : ATA_CMD_READ_DMA_EXT;
		f->count_lo = (uint8_t)c->nblocks;
		f->count_hi = (uint8_t)(c->nblocks >> 8);
	}
}

/* The block layer's segments as PRDT entries; the entry count. */
static uint32_t fill_prdt(struct ahci_cmd_table *t, const struct blk_cmd *c)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->nsegs; i++) {
		uint64_t pa = c->segs[i].phys;
		uint32_t left = c->segs[i].len;
		while (left) {
			uint32_t len = left < AHCI_PRD_MAX_BYTES ? left : AHCI_PRD_MAX_BYTES;
			ASSERT(n < AHCI_MAX_PRDT && !(len & 1) && !(pa & 1));
			t->prdt[n].dba = pa;
			t->prdt[n].reserved = 0;
			t->prdt[n].dbc = len - 1;
			n++;
			pa += len;
			left -= len;
		}
	}
	return n;
}

static void set_header(struct ahci_port *p, unsigned slot, bool write, uint32_t nprd)
{
	struct ahci_cmd_header *h = &p->clist[slot];
	h->flags = (uint16_t)(AHCI_HDR_CFL(FIS_H2D_DWORDS) | (write ? AHCI_HDR_WRITE : 0));
	h->prdtl = (uint16_t)nprd;
	h->prdbc = 0;
	h->ctba = p->table_phys[slot];
}

/* ---- issuing (port->lock held) ------------------------------------------ */

static void fifo_push(struct ahci_port *p, struct ahci_io io, bool front)
{
	ASSERT(p->fifo_n < AHCI_MAX_SLOTS);
	if (front) {
		p->fifo_head = (p->fifo_head + AHCI_MAX_SLOTS - 1) % AHCI_MAX_SLOTS;
		p->fifo[p->fifo_head] = io;
	} else {
		p->fifo[(p->fifo_head + p->fifo_n) % AHCI_MAX_SLOTS] = io;
	}
	p->fifo_n++;
}

static struct ahci_io fifo_pop(struct ahci_port *p)
{
	struct ahci_io io = p->fifo[p->fifo_head];
	p->fifo_head = (p->fifo_head + 1) % AHCI_MAX_SLOTS;
	p->fifo_n--;
	return io;
}

static int free_slot(const struct ahci_port *p)
{
	for (uint32_t s = 0; s < p->nslots; s++)
		if (!(p->issued & (1u << s)))
			return (int)s;
	return -1;
}

static void issue_slot(struct ahci_port *p, unsigned slot, struct ahci_io io, bool ncq)
{
	struct blk_cmd *c = io.cmd;
	struct ahci_cmd_table *t = p->table[slot];
	fis_rw((struct fis_reg_h2d *)t->cfis, c, ncq, slot);
	set_header(p, slot, c->op == BLK_WRITE, fill_prdt(t, c));
	p->slot[slot] = io;
	p->deadline[slot] = time_ns() + AHCI_CMD_TIMEOUT_NS;
	p->issued |= 1u << slot;
	p->issued_ncq = ncq;
	p->st.cmds++;
	p->st.ncq_cmds += ncq;
	uint64_t bytes = (uint64_t)c->nblocks * p->blk.block_size, n = (uint64_t)bit_count(p->issued);
	if (bytes > p->st.max_bytes)
		p->st.max_bytes = bytes;
	if (n > p->st.max_issued)
		p->st.max_issued = n;
	io_barrier();           /* table and header in memory before the HBA looks */
	if (ncq)
		p->r->sact = 1u << slot;
	p->r->ci = 1u << slot;
}

/* Issue what waits, in order, as far as slots and the rules allow: a
 * non-queued command runs alone, queued ones only beside queued ones. */
static void issue_waiting(struct ahci_port *p)
{
	while (p->fifo_n && p->state == PORT_RUNNING) {
		struct ahci_io io = p->fifo[p->fifo_head];
		bool ncq = p->ncq && !io.isolate;
		if (p->issued && (!ncq || !p->issued_ncq))
			break;
		int slot = free_slot(p);
		if (slot < 0)
			break;
		fifo_pop(p);
		issue_slot(p, (unsigned)slot, io, ncq);
	}
}

/* ---- completion ---------------------------------------------------------- */

/* Commands finished under port->lock, completed after it is dropped. */
struct done {
	struct blk_cmd *cmd;
	int status;
	uint8_t cause, ata_status, ata_error, tries;
	uint32_t detail;                /* PxIS or PxSERR, for the message */
};

struct donelist {
	int n;
	struct done e[AHCI_MAX_SLOTS];
};

static void done_add(struct donelist *dl, struct blk_cmd *c, int status, enum cause cause, uint32_t tfd,
		     uint32_t detail, uint8_t tries)
{
	ASSERT(dl->n < AHCI_MAX_SLOTS);
	dl->e[dl->n++] = (struct done){ c, status, (uint8_t)cause, (uint8_t)AHCI_TFD_STATUS(tfd),
					(uint8_t)AHCI_TFD_ERROR(tfd), tries, detail };
}

static void report_failure(const struct ahci_port *p, const struct done *e)
{
	const struct blk_cmd *c = e->cmd;
	const char *op = c->op == BLK_WRITE ? "write" : "read";
	uint64_t last = c->lba + c->nblocks - 1;
	char why[96];
	switch (e->cause) {
	case CAUSE_DEVICE: {
		char bits[64];
		ata_error_text(e->ata_error, bits, sizeof bits);
		ksnprintf(why, sizeof why, "device error (status 0x%02x error 0x%02x: %s)", e->ata_status,
			  e->ata_error, bits);
		break;
	}
	case CAUSE_HOST:
		ksnprintf(why, sizeof why, "host bus error (PxIS 0x%08x)", e->detail);
		break;
	case CAUSE_LINK:
		ksnprintf(why, sizeof why, "interface error (PxSERR 0x%08x), %u tries", e->detail, e->tries);
		break;
	case CAUSE_TIMEOUT:
		ksnprintf(why, sizeof why, "timed out after %llu s", AHCI_CMD_TIMEOUT_NS / 1000000000ull);
		break;
	default:
		ksnprintf(why, sizeof why, "disk offline");
		break;
	}
	kprintf("%s: %s of blocks %lu..%lu failed: %s\n", p->blk.name, op, c->lba, last, why);
}

static void finish(const struct ahci_port *p, struct donelist *dl)
{
	for (int i = 0; i < dl->n; i++) {
		if (dl->e[i].status)
			report_failure(p, &dl->e[i]);
		blk_complete(dl->e[i].cmd, dl->e[i].status);
	}
	dl->n = 0;
}

static void reap(struct ahci_port *p, uint32_t done, bool polled, struct donelist *dl)
{
	for (uint32_t m = done; m; m &= m - 1) {
		unsigned s = (unsigned)__builtin_ctz(m);
		done_add(dl, p->slot[s].cmd, 0, CAUSE_NONE, 0, 0, 0);
		p->slot[s].cmd = NULL;
	}
	p->issued &= ~done;
	if (done)
		p->timeout_streak = 0;
	if (polled)
		p->st.by_poll += (uint64_t)bit_count(done);
}

/* What the registers say went wrong, if anything.  Besides TFES, ERR in
 * PxTFD and bits in PxSERR count: QEMU before its 2023 AHCI fixes (8.1,
 * backported to 7.2 stable) reported an NCQ error only through the set
 * device bits FIS's status (PxTFD, until the next FIS) and the failed
 * tag's bit in PxSERR. */
static enum cause error_cause(struct ahci_port *p, uint32_t is, uint32_t tfd, uint32_t serr)
{
	if (!p->issued) {
		if (serr)
			p->r->serr = serr;      /* stale: nothing it could have hurt */
		return CAUSE_NONE;
	}
	if (is & AHCI_PxIS_HOST_ERR)
		return CAUSE_HOST;
	if ((is & AHCI_PxIS_TFES) || (AHCI_TFD_STATUS(tfd) & ATA_STS_ERR))
		return CAUSE_DEVICE;
	if ((is & AHCI_PxIS_LINK_ERR) || serr)
		return CAUSE_LINK;
	return CAUSE_NONE;
}

static uint32_t timed_out(const struct ahci_port *p)
{
	uint64_t now = time_ns();
	uint32_t late = 0;
	for (uint32_t m = p->issued; m; m &= m - 1) {
		unsigned s = (unsigned)__builtin_ctz(m);
		if (now >= p->deadline[s])
			late |= 1u << s;
	}
	return late;
}

static void freeze(struct ahci_port *p, enum cause cause, uint32_t is, uint32_t tfd, uint32_t serr, uint32_t late)
{
	p->r->ie = 0;
	p->state = PORT_FROZEN;
	p->eh_cause = cause;
	p->eh_is = is;
	p->eh_tfd = tfd;
	p->eh_serr = serr;
	p->eh_timedout = late;
	__atomic_or_fetch(&p->hba->eh_pending, 1u << p->no, __ATOMIC_RELEASE);
}

/* Reap finished slots, look for errors and timeouts, issue what waits.
 * Interrupt handler and poll timer; takes port->lock.  Returns true when
 * the port froze (the caller wakes the recovery thread). */
static bool port_service(struct ahci_port *p, bool polled, struct donelist *dl)
{
	bool on = spin_lock_irqsave(&p->lock), froze = false;
	if (p->state == PORT_RUNNING) {
		volatile struct ahci_port_regs *r = p->r;
		/* Busy bits before status: a command whose bit has cleared
		 * and whose error is not yet visible cannot exist. */
		uint32_t active = r->ci | r->sact;
		uint32_t is = r->is;
		if (is)
			r->is = is;
		uint32_t tfd = r->tfd, serr = r->serr;
		enum cause cause = error_cause(p, is, tfd, serr);
		/* A queued command's SActive bit clears only on success; a
		 * non-queued one in error may have left PxCI (older QEMU). */
		uint32_t done = p->issued & ~active;
		reap(p, cause && !p->issued_ncq ? 0 : done, polled, dl);
		uint32_t late = cause ? 0 : timed_out(p);
		if (cause || late) {
			freeze(p, cause ? cause : CAUSE_TIMEOUT, is, tfd, serr, late);
			froze = true;
		} else {
			issue_waiting(p);
		}
	}
	spin_unlock_irqrestore(&p->lock, on);
	return froze;
}

static void service_and_finish(struct ahci_port *p, bool polled)
{
	struct donelist dl;
	dl.n = 0;
	bool froze = port_service(p, polled, &dl);
	finish(p, &dl);
	if (froze)
		waitq_wake_all(&p->hba->eh_wq);
}

/* Clear PxIS (in port_service), then the port's IS bit, then complete:
 * so an event raised by a resubmission sets IS again (10.7.2). */
static void ahci_irq(struct trap_frame *f, void *arg)
{
	(void)f;
	struct ahci_hba *h = arg;
	uint32_t is = h->r->is;
	if (!is)
		return;                 /* a shared INTx line: not ours */
	h->irqs++;
	for (uint32_t m = is; m; m &= m - 1) {
		unsigned n = (unsigned)__builtin_ctz(m);
		struct ahci_port *p = h->port[n];
		struct donelist dl;
		dl.n = 0;
		bool froze = p && port_service(p, false, &dl);
		h->r->is = 1u << n;
		if (p)
			finish(p, &dl);
		if (froze)
			waitq_wake_all(&h->eh_wq);
	}
}

static void poll_timer(void *arg)
{
	struct ahci_hba *h = arg;
	for (uint32_t n = 0; n < h->nports; n++)
		if (h->port[n] && h->port[n]->state != PORT_OFF)
			service_and_finish(h->port[n], true);
	uint64_t ms = h->vector >= 0 ? AHCI_POLL_MS : AHCI_POLL_ONLY_MS;
	ktimer_arm(&h->poll, time_ns() + ms * 1000000ull);
}

/* ---- the block device ---------------------------------------------------- */

/* ops->submit: any context, never sleeps. */
static int ahci_submit(struct blk_dev *d, struct blk_cmd *c)
{
	struct ahci_port *p = d->drv;
	if (!(p->hba->cap & AHCI_CAP_S64A))
		for (uint32_t i = 0; i < c->nsegs; i++)
			if (c->segs[i].phys + c->segs[i].len > (1ull << 32)) {
				kprintf("%s: buffer above 4 GiB and the HBA has 32-bit DMA only\n", d->name);
				return -EIO;
			}
	if ((uint64_t)c->nblocks * d->block_size > AHCI_MAX_BYTES || c->nsegs > AHCI_MAX_PRDT)
		return -EINVAL;
	bool on = spin_lock_irqsave(&p->lock);
	int err = 0;
	if (p->state == PORT_DEAD) {
		err = -EIO;
	} else {
		fifo_push(p, (struct ahci_io){ c, 0, false }, false);
		issue_waiting(p);
	}
	spin_unlock_irqrestore(&p->lock, on);
	return err;
}

static const struct blk_ops ahci_ops = { .submit = ahci_submit };

/* ---- port bring-up and reset (thread context, port owned) ---------------- */

static int port_stop(struct ahci_port *p)
{
	volatile struct ahci_port_regs *r = p->r;
	r->cmd &= ~AHCI_PxCMD_ST;
	int err = wait_reg(&r->cmd, AHCI_PxCMD_CR, 0, PORT_STOP_MS);
	r->cmd &= ~AHCI_PxCMD_FRE;
	return err ? err : wait_reg(&r->cmd, AHCI_PxCMD_FR, 0, PORT_STOP_MS);
}

static void comreset(struct ahci_port *p)
{
	volatile struct ahci_port_regs *r = p->r;
	uint32_t sctl = (r->sctl & ~AHCI_SCTL_DET_MASK) | AHCI_SCTL_IPM_NONE;
	r->sctl = sctl | AHCI_SCTL_DET_COMRESET;
	udelay(1500);                   /* held >= 1 ms (10.4.2) */
	r->sctl = sctl;
}

/* Link up and device ready: FRE on, PxTFD BSY and DRQ clear (the
 * device's first D2H FIS arrived), errors cleared, then ST. */
static int port_start(struct ahci_port *p)
{
	volatile struct ahci_port_regs *r = p->r;
	if (wait_reg(&r->ssts, 0xf, AHCI_DET_ESTABLISHED, LINK_UP_MS))
		return -ENODEV;
	r->serr = ~0u;
	r->cmd |= AHCI_PxCMD_FRE;
	if (wait_reg(&r->tfd, ATA_STS_BSY | ATA_STS_DRQ, 0, DEVICE_READY_MS))
		return -ETIMEDOUT;
	r->serr = ~0u;
	r->is = ~0u;
	r->cmd |= AHCI_PxCMD_ST;
	return 0;
}

/* Stop, COMRESET, restart (10.4.2).  PxCMD.ST off clears PxCI and PxSACT;
 * COMRESET aborts whatever the device still had. */
static int port_reset(struct ahci_port *p)
{
	volatile struct ahci_port_regs *r = p->r;
	r->cmd &= ~AHCI_PxCMD_ST;
	if (wait_reg(&r->cmd, AHCI_PxCMD_CR, 0, PORT_STOP_MS))
		kprintf("%s: port did not stop (PxCMD 0x%08x); resetting the link anyway\n", p->blk.name, r->cmd);
	comreset(p);
	int err = port_start(p);
	p->st.resets++;
	return err;
}

/* Taking the disk offline: stop the port and reset the link, so nothing
 * still queued in the device moves data into buffers handed back. */
static int port_halt(struct ahci_port *p)
{
	port_stop(p);
	comreset(p);
	return -EIO;
}

/* One non-queued PIO data-in command in slot 0, polled: IDENTIFY and
 * READ LOG EXT.  The port must run with nothing else in flight. */
static int sync_cmd(struct ahci_port *p, const struct fis_reg_h2d *fis, uint32_t len)
{
	volatile struct ahci_port_regs *r = p->r;
	struct ahci_cmd_table *t = p->table[0];
	memcpy(t->cfis, fis, sizeof *fis);
	t->prdt[0] = (struct ahci_prd){ p->scratch_phys, 0, len - 1 };
	set_header(p, 0, false, 1);
	r->is = ~0u;
	io_barrier();
	r->ci = 1;
	uint64_t t0 = time_ns();
	for (;;) {
		uint32_t ci = r->ci, is = r->is, tfd = r->tfd;
		if ((is & AHCI_PxIS_ERRORS) || (AHCI_TFD_STATUS(tfd) & ATA_STS_ERR))
			return -EIO;
		if (!(ci & 1) && !(AHCI_TFD_STATUS(tfd) & ATA_STS_BSY))
			return 0;
		if (time_ns() - t0 > SYNC_CMD_MS * 1000000ull)
			return -ETIMEDOUT;
		if (time_ns() - t0 < 100000)
			udelay(5);
		else
			sleep_ms(1);
	}
}

static int identify(struct ahci_port *p)
{
	struct fis_reg_h2d f = { .type = FIS_TYPE_REG_H2D, .flags = FIS_H2D_COMMAND, .command = ATA_CMD_IDENTIFY };
	int err = sync_cmd(p, &f, 512);
	if (!err)
		ata_parse_identify(p->scratch, &p->id);
	p->r->is = ~0u;
	return err;
}

/* The failed tag from the NCQ command error log, or -1. */
static int read_ncq_log(struct ahci_port *p, uint32_t *tfd)
{
	struct fis_reg_h2d f = { .type = FIS_TYPE_REG_H2D, .flags = FIS_H2D_COMMAND, .command = ATA_CMD_READ_LOG_EXT,
				 .lba0 = ATA_LOG_NCQ_ERROR, .count_lo = 1 };
	if (sync_cmd(p, &f, 512))
		return -1;
	p->r->is = ~0u;
	const uint8_t *log = p->scratch;
	if (log[0] & ATA_NCQ_LOG_NQ)
		return -1;
	*tfd = (uint32_t)log[2] | (uint32_t)log[3] << 8;
	return log[0] & 0x1f;
}

/* ---- error recovery (the controller's recovery thread) ------------------- */

struct eh_state {
	enum cause cause;
	uint32_t outstanding, timedout, tfd, is, serr;
	int bad;                        /* slot known to have failed, or -1 */
	int failed, requeued, isolated;
};

/* Decide the fate of the command in slot s (port->lock held). */
static void eh_settle(struct ahci_port *p, unsigned s, struct eh_state *e, struct donelist *dl, bool dead)
{
	struct ahci_io io = p->slot[s];
	p->slot[s].cmd = NULL;
	bool definite = e->cause == CAUSE_DEVICE || e->cause == CAUSE_HOST;
	uint32_t detail = e->cause == CAUSE_HOST ? e->is : e->serr;
	if (e->timedout & (1u << s)) {
		done_add(dl, io.cmd, -ETIMEDOUT, CAUSE_TIMEOUT, 0, 0, io.tries);
		p->st.timeouts++;
	} else if (dead) {
		done_add(dl, io.cmd, -EIO, CAUSE_OFFLINE, 0, 0, io.tries);
	} else if (e->cause == CAUSE_TIMEOUT || (e->bad >= 0 && (unsigned)e->bad != s)) {
		fifo_push(p, io, true);                 /* a bystander */
	} else if (e->bad >= 0 || (definite && bit_count(e->outstanding) == 1)) {
		done_add(dl, io.cmd, -EIO, e->cause, e->tfd, detail, io.tries);
	} else if (++io.tries > AHCI_MAX_TRIES) {
		done_add(dl, io.cmd, -EIO, e->cause, e->tfd, detail, io.tries);
	} else {
		io.isolate = true;                      /* which one was it? */
		fifo_push(p, io, true);
		p->st.retries++;
		e->isolated++;
	}
}

static void eh_count(struct ahci_port *p, enum cause c)
{
	if (c == CAUSE_DEVICE)
		p->st.device_errors++;
	else if (c == CAUSE_HOST)
		p->st.host_errors++;
	else if (c == CAUSE_LINK)
		p->st.link_errors++;
}

static void eh_say(const struct ahci_port *p, const struct eh_state *e, int err)
{
	const char *n = p->blk.name, *why = cause_name[e->cause];
	if (err) {
		kprintf("%s: %s: disk offline, its I/O fails from now on\n", n,
			err == -ENODEV ? "no link after the port reset" :
			err == -ETIMEDOUT ? "the device stays busy after the port reset" :
					    "commands time out again after the last port reset");
		return;
	}
	kprintf("%s: port reset (COMRESET) after %s (PxIS 0x%08x PxTFD 0x%04x PxSERR 0x%08x): %d failed, %d resubmitted\n",
		n, why, e->is, e->tfd & 0xffff, e->serr, e->failed, e->requeued);
	if (e->isolated)
		kprintf("%s: the failed command is not known: retrying the %d that were in flight one at a time\n", n,
			e->isolated);
}

/* Find the failed command of an NCQ error with several in flight: the
 * log names it (its own read errors are recovered by another reset).
 * Returns the reset error, if any. */
static int eh_find_tag(struct ahci_port *p, struct eh_state *e)
{
	uint32_t tfd = e->tfd;
	int tag = read_ncq_log(p, &tfd);
	if (tag >= 0 && (e->outstanding & (1u << tag))) {
		e->bad = tag;
		e->tfd = tfd;
		return 0;
	}
	kprintf("%s: the NCQ error log does not name a command in flight\n", p->blk.name);
	return tag >= 0 ? 0 : port_reset(p);
}

static void port_recover(struct ahci_port *p)
{
	struct eh_state e = { .bad = -1 };
	bool on = spin_lock_irqsave(&p->lock);
	if (p->state != PORT_FROZEN) {
		spin_unlock_irqrestore(&p->lock, on);
		return;
	}
	e.cause = p->eh_cause;
	e.outstanding = p->issued;
	e.timedout = p->eh_timedout;
	e.tfd = p->eh_tfd;
	e.is = p->eh_is;
	e.serr = p->eh_serr;
	eh_count(p, e.cause);
	bool ncq = p->issued_ncq;
	bool give_up = e.cause == CAUSE_TIMEOUT && ++p->timeout_streak >= AHCI_MAX_TIMEOUT_STREAK;
	spin_unlock_irqrestore(&p->lock, on);

	int err = give_up ? port_halt(p) : port_reset(p);
	bool definite = e.cause == CAUSE_DEVICE || e.cause == CAUSE_HOST;
	if (!err && ncq && definite && bit_count(e.outstanding) > 1 && p->id.gpl)
		err = eh_find_tag(p, &e);

	struct donelist dl;
	dl.n = 0;
	on = spin_lock_irqsave(&p->lock);
	for (int s = AHCI_MAX_SLOTS - 1; s >= 0; s--)   /* pushed to the front: lowest slot first */
		if (e.outstanding & (1u << s))
			eh_settle(p, (unsigned)s, &e, &dl, err != 0);
	p->issued = 0;
	e.failed = dl.n;
	e.requeued = bit_count(e.outstanding) - dl.n;
	if (err) {
		while (p->fifo_n)
			done_add(&dl, fifo_pop(p).cmd, -EIO, CAUSE_OFFLINE, 0, 0, 0);
		p->state = PORT_DEAD;
	} else {
		p->state = PORT_RUNNING;
		p->r->ie = PORT_IE;
		issue_waiting(p);
	}
	spin_unlock_irqrestore(&p->lock, on);
	finish(p, &dl);
	eh_say(p, &e, err);
}

/* ---- probe ------------------------------------------------------------- */

static void free_port_mem(struct ahci_port *p)
{
	for (int i = 0; i < (int)MAX_TABLE_BLOCKS; i++)
		if (p->table_block[i]) {
			pmm_free(p->table_block[i], TABLE_BLOCK_ORDER);
			p->table_block[i] = NULL;
		}
	if (p->mem)
		pmm_free(p->mem, 0);
	p->mem = NULL;
}

static bool dma_ok(const struct ahci_port *p, uint64_t pa, uint64_t len)
{
	return (p->hba->cap & AHCI_CAP_S64A) || pa + len <= (1ull << 32);
}

/* Command list, received-FIS area and scratch in one page; command
 * tables packed TABLES_PER_BLOCK to a 32 KiB block. */
static int alloc_port_mem(struct ahci_port *p, uint32_t nslots)
{
	p->mem = pmm_alloc(0, PMM_ZERO | PMM_KERNEL);
	if (!p->mem || !dma_ok(p, page_to_phys(p->mem), PAGE))
		return -ENOMEM;
	uint8_t *va = page_address(p->mem);
	uint64_t pa = page_to_phys(p->mem);
	p->clist = (struct ahci_cmd_header *)(va + PAGE_OFF_CLIST);
	p->rfis = (struct ahci_rx_fis *)(va + PAGE_OFF_RFIS);
	p->scratch = va + PAGE_OFF_SCRATCH;
	p->scratch_phys = pa + PAGE_OFF_SCRATCH;
	for (uint32_t s = 0; s < nslots; s++) {
		uint32_t b = s / TABLES_PER_BLOCK, i = s % TABLES_PER_BLOCK;
		if (!p->table_block[b]) {
			/* Not zeroed (it costs milliseconds under TCG): every
			 * field the HBA reads is written before each use. */
			p->table_block[b] = pmm_alloc(TABLE_BLOCK_ORDER, PMM_KERNEL);
			if (!p->table_block[b] || !dma_ok(p, page_to_phys(p->table_block[b]), PAGE << TABLE_BLOCK_ORDER))
				return -ENOMEM;
		}
		p->table[s] = (struct ahci_cmd_table *)page_address(p->table_block[b]) + i;
		p->table_phys[s] = page_to_phys(p->table_block[b]) + i * sizeof(struct ahci_cmd_table);
	}
	volatile struct ahci_port_regs *r = p->r;
	r->clb = (uint32_t)(pa + PAGE_OFF_CLIST);
	r->clbu = (uint32_t)((pa + PAGE_OFF_CLIST) >> 32);
	r->fb = (uint32_t)(pa + PAGE_OFF_RFIS);
	r->fbu = (uint32_t)((pa + PAGE_OFF_RFIS) >> 32);
	return 0;
}

/* Is there an ATA disk we can drive?  Sets p->absent when not. */
static bool usable_disk(struct ahci_port *p)
{
	uint32_t sig = p->r->sig;
	if (sig == AHCI_SIG_ATAPI)
		p->absent = "ATAPI device (not supported)";
	else if (sig == AHCI_SIG_PM || sig == AHCI_SIG_SEMB)
		p->absent = "port multiplier or enclosure (not supported)";
	else if (sig != AHCI_SIG_ATA)
		p->absent = "unknown device signature";
	else if (identify(p))
		p->absent = "IDENTIFY DEVICE failed";
	else if (!p->id.lba48)
		p->absent = "disk without 48-bit LBA (not supported)";
	else if (p->id.sector_size < 512 || p->id.sector_size > PAGE || (p->id.sector_size & (p->id.sector_size - 1)))
		p->absent = "unsupported logical sector size";
	else
		return true;
	return false;
}

/* The link is up: allocate, start, identify.  0, or an error with
 * p->absent saying why the port has no disk. */
static int port_bringup(struct ahci_port *p)
{
	struct ahci_hba *h = p->hba;
	bool ncq = (h->cap & AHCI_CAP_SNCQ) != 0;
	uint32_t nslots = ncq ? AHCI_CAP_NCS(h->cap) : 1;
	if (alloc_port_mem(p, nslots)) {
		p->absent = "out of memory for its command tables";
		goto fail;
	}
	int err = port_start(p);
	if (err == -ETIMEDOUT) {                /* a device that never sent its signature */
		comreset(p);
		err = port_start(p);
	}
	if (err) {
		p->absent = err == -ENODEV ? NULL : "device stays busy";
		goto fail;
	}
	if (!usable_disk(p))
		goto fail;
	p->ncq = ncq && p->id.ncq_depth > 1;
	p->nslots = p->ncq ? (p->id.ncq_depth < nslots ? p->id.ncq_depth : nslots) : 1;
	return 0;
fail:
	port_stop(p);
	free_port_mem(p);
	return -ENODEV;
}

static void fill_blk(struct ahci_port *p)
{
	struct blk_dev *d = &p->blk;
	ksnprintf(d->name, sizeof d->name, "sata%d", p->hba->name_base + p->no);
	ksnprintf(d->model, sizeof d->model, "%s", p->id.model);
	d->block_size = p->id.sector_size;
	d->nblocks = p->id.sectors;
	d->max_blocks = AHCI_MAX_BYTES / d->block_size;
	d->max_segs = AHCI_MAX_PRDT;
	d->queue_depth = p->nslots;
	d->ops = &ahci_ops;
	d->drv = p;
}

/* Running, interrupts on, registered with the block layer (sleeps: the
 * layer reads the partition table). */
static void port_go(struct ahci_port *p)
{
	bool on = spin_lock_irqsave(&p->lock);
	p->state = PORT_RUNNING;
	p->r->is = ~0u;
	p->r->ie = PORT_IE;
	spin_unlock_irqrestore(&p->lock, on);
	if (blk_register_disk(&p->blk))
		kprintf("%s: block layer out of memory; disk not registered\n", p->blk.name);
}

/* Brought up with a usable disk (registered or about to be). */
static bool has_disk(const struct ahci_port *p) { return p && p->mem && !p->absent; }

static void say_port(const struct ahci_port *p)
{
	const struct ahci_hba *h = p->hba;
	if (p->absent) {
		kprintf("%s: port %d: %s\n", h->name, p->no, p->absent);
		return;
	}
	const struct ata_ident *id = &p->id;
	kprintf("%s: port %d: %s \"%s\", %lu sectors of %u bytes (%lu MiB), link %s Gb/s, ", h->name, p->no,
		p->blk.name, id->model, id->sectors, id->sector_size, id->sectors * id->sector_size >> 20,
		(const char *[]){ "?", "1.5", "3", "6" }[AHCI_SSTS_SPD(p->r->ssts) & 3]);
	if (p->ncq)
		kprintf("NCQ depth %u (device %u, HBA %u)\n", p->nslots, id->ncq_depth, AHCI_CAP_NCS(h->cap));
	else
		kprintf("no NCQ: one command at a time\n");
}

/* ---- the controller ---------------------------------------------------- */

/* Take the HBA from the firmware (10.6), reset it (10.4.3), AHCI on. */
static int hba_reset(struct ahci_hba *h)
{
	volatile struct ahci_hba_regs *r = h->r;
	if ((r->cap2 & AHCI_CAP2_BOH) && (r->bohc & AHCI_BOHC_BOS)) {
		r->bohc |= AHCI_BOHC_OOS;
		if (wait_reg(&r->bohc, AHCI_BOHC_BOS, 0, 25) == 0 && (r->bohc & AHCI_BOHC_BB))
			wait_reg(&r->bohc, AHCI_BOHC_BB, 0, 2000);
	}
	uint32_t cap = r->cap, pi = r->pi;      /* some of it is write-once, lost in reset */
	r->ghc |= AHCI_GHC_AE;
	r->ghc |= AHCI_GHC_HR;
	if (wait_reg(&r->ghc, AHCI_GHC_HR, 0, HBA_RESET_MS))
		return -ETIMEDOUT;
	r->ghc |= AHCI_GHC_AE;
	if (r->cap != cap)
		r->cap = cap;
	if (r->pi != pi)
		r->pi = pi;
	return 0;
}

static void setup_irq(struct ahci_hba *h)
{
	h->vector = irq_alloc(h->name, ahci_irq, h);
	if (h->vector >= 0 && pci_msi_enable(h->pci, h->vector) == 0) {
		h->irq_mode = "msi";
		return;
	}
	if (h->vector >= 0)
		irq_free(h->vector);
	h->vector = pci_intx_route(h->pci, ahci_irq, h, h->name);
	if (h->vector >= 0) {
		h->irq_mode = "intx";
		return;
	}
	h->irq_mode = "poll";
	kprintf("%s: no MSI and no INTx route: completions by polling every %d ms\n", h->name, AHCI_POLL_ONLY_MS);
}

static struct ahci_port *new_port(struct ahci_hba *h, int no)
{
	struct ahci_port *p = kzalloc(sizeof *p);
	if (!p)
		return NULL;
	p->hba = h;
	p->no = no;
	p->r = &h->r->port[no];
	spin_init(&p->lock, "ahci-port");
	p->state = PORT_OFF;
	ksnprintf(p->blk.name, sizeof p->blk.name, "sata%d", h->name_base + no);
	return p;
}

/* Stop every implemented port and spin it up, so the links train in
 * parallel. */
static void ports_power_up(struct ahci_hba *h)
{
	for (uint32_t n = 0; n < h->nports; n++) {
		struct ahci_port *p = h->port[n];
		if (!p)
			continue;
		if (port_stop(p))
			kprintf("%s: port %d does not stop (PxCMD 0x%08x)\n", h->name, p->no, p->r->cmd);
		p->r->serr = ~0u;
		p->r->is = ~0u;
		p->r->ie = 0;
		if (h->cap & AHCI_CAP_SSS)
			p->r->cmd |= AHCI_PxCMD_SUD | AHCI_PxCMD_POD;
	}
}

/* Wait (all ports at once, up to LINK_UP_MS) while some link is still
 * training (DET 1).  Ports with no device at all are not waited for: the
 * recovery thread watches them for a while instead. */
static void ports_wait_links(struct ahci_hba *h)
{
	uint64_t t0 = time_ns();
	for (;;) {
		bool training = false;
		for (uint32_t n = 0; n < h->nports; n++)
			if (h->port[n] && AHCI_SSTS_DET(h->port[n]->r->ssts) == AHCI_DET_PRESENT)
				training = true;
		if (!training || time_ns() - t0 > LINK_UP_MS * 1000000ull)
			return;
		sleep_ms(1);
	}
}

static void ports_bringup(struct ahci_hba *h)
{
	for (uint32_t n = 0; n < h->nports; n++) {
		struct ahci_port *p = h->port[n];
		if (!p)
			continue;
		if (AHCI_SSTS_DET(p->r->ssts) != AHCI_DET_ESTABLISHED) {
			h->late |= 1u << n;
			continue;
		}
		port_bringup(p);
	}
	h->late_until = time_ns() + LATE_LINK_MS * 1000000ull;
}

static void hba_record(const struct ahci_hba *h)
{
	struct json *j = rec_begin("ahci");
	json_str(j, "controller", h->pci->name);
	char id[12];
	ksnprintf(id, sizeof id, "%04x:%04x", h->pci->vendor, h->pci->device);
	json_str(j, "id", id);
	char vs[16];
	ksnprintf(vs, sizeof vs, "%x.%x", h->vs >> 16, h->vs & 0xffff);
	json_str(j, "version", vs);
	json_hex(j, "ports_implemented", h->pi);
	json_u64(j, "slots", AHCI_CAP_NCS(h->cap));
	json_bool(j, "ncq", (h->cap & AHCI_CAP_SNCQ) != 0);
	json_bool(j, "dma64", (h->cap & AHCI_CAP_S64A) != 0);
	json_bool(j, "staggered_spinup", (h->cap & AHCI_CAP_SSS) != 0);
	json_str(j, "interrupt", h->irq_mode);
	json_arr_begin(j, "ports");
	for (uint32_t n = 0; n < h->nports; n++) {
		const struct ahci_port *p = h->port[n];
		if (!p || !(p->absent || has_disk(p)))
			continue;
		json_obj_begin(j, NULL);
		json_u64(j, "port", (uint64_t)p->no);
		if (p->absent) {
			json_str(j, "status", p->absent);
		} else {
			json_str(j, "name", p->blk.name);
			json_str(j, "model", p->id.model);
			json_u64(j, "sectors", p->id.sectors);
			json_u64(j, "sector_size", p->id.sector_size);
			json_u64(j, "ncq_depth", p->ncq ? p->id.ncq_depth : 0);
			json_bool(j, "ncq_error_log", p->id.gpl);
			json_u64(j, "queue_depth", p->nslots);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

static void hba_say(const struct ahci_hba *h)
{
	kprintf("%s: %s %04x:%04x AHCI %x.%x, %u ports (implemented 0x%x), %u command slots%s%s%s, interrupts: %s\n",
		h->name, h->pci->name, h->pci->vendor, h->pci->device, h->vs >> 16, h->vs & 0xffff,
		AHCI_CAP_NP(h->cap), h->pi, AHCI_CAP_NCS(h->cap), (h->cap & AHCI_CAP_SNCQ) ? ", NCQ" : "",
		(h->cap & AHCI_CAP_S64A) ? ", 64-bit DMA" : ", 32-bit DMA", (h->cap & AHCI_CAP_SSS) ? ", staggered spin-up" : "",
		h->irq_mode);
	for (uint32_t n = 0; n < h->nports; n++)
		if (h->port[n] && (h->port[n]->absent || has_disk(h->port[n])))
			say_port(h->port[n]);
}

static void late_register(void *arg) { port_go(arg); }

/* A port that had no link at probe got one: bring it up, and register
 * it from a thread of its own, since reading its partition table may
 * need this (the recovery) thread. */
static void late_link(struct ahci_hba *h, struct ahci_port *p)
{
	h->late &= ~(1u << p->no);
	if (port_bringup(p)) {
		if (p->absent)
			kprintf("%s: port %d: link came up late, but: %s\n", h->name, p->no, p->absent);
		return;
	}
	fill_blk(p);
	say_port(p);
	if (!thread_create("ahci-late", late_register, p, SCHED_NORMAL))
		kprintf("%s: cannot start a thread to register it\n", p->blk.name);
}

static void check_late_links(struct ahci_hba *h)
{
	for (uint32_t m = h->late; m; m &= m - 1) {
		struct ahci_port *p = h->port[__builtin_ctz(m)];
		if (AHCI_SSTS_DET(p->r->ssts) == AHCI_DET_ESTABLISHED)
			late_link(h, p);
	}
	if (time_ns() > h->late_until)
		h->late = 0;            /* empty ports, as far as we care */
}

static bool eh_work(void *arg)
{
	struct ahci_hba *h = arg;
	return __atomic_load_n(&h->eh_pending, __ATOMIC_ACQUIRE) != 0;
}

/* The controller's recovery thread: recovers frozen ports, and watches
 * ports with no link for a while after probe. */
static void eh_thread(void *arg)
{
	struct ahci_hba *h = arg;
	for (;;) {
		uint64_t wait_ms = h->late ? LATE_LINK_POLL_MS : 1000;  /* the timeout is a fallback */
		wait_event_timeout(&h->eh_wq, eh_work, h, wait_ms * 1000000ull);
		uint32_t pend = __atomic_exchange_n(&h->eh_pending, 0, __ATOMIC_ACQ_REL);
		for (uint32_t m = pend; m; m &= m - 1)
			if (h->port[__builtin_ctz(m)])
				port_recover(h->port[__builtin_ctz(m)]);
		if (h->late)
			check_late_links(h);
	}
}

static int name_base_next;

static struct ahci_hba *hba_new(struct pci_dev *d)
{
	struct ahci_hba *h = kzalloc(sizeof *h);
	if (!h)
		return NULL;
	ksnprintf(h->name, sizeof h->name, "ahci%d", nhbas);
	h->pci = d;
	h->vector = -1;
	waitq_init(&h->eh_wq, "ahci-eh");
	ktimer_init(&h->poll, poll_timer, h);
	pci_enable(d, true, false, true);
	h->r = pci_map_bar(d, AHCI_ABAR);
	if (!h->r) {
		kfree(h);
		return NULL;
	}
	return h;
}

static void hba_ports(struct ahci_hba *h)
{
	uint64_t bar = h->pci->bar[AHCI_ABAR].size;
	h->nports = 0;
	for (uint32_t n = 0; n < AHCI_MAX_PORTS; n++) {
		if (!(h->pi & (1u << n)))
			continue;
		if (offsetof(struct ahci_hba_regs, port) + (n + 1) * sizeof(struct ahci_port_regs) > bar) {
			kprintf("%s: port %u lies outside the %lu-byte register BAR; ignored\n", h->name, n, bar);
			continue;
		}
		h->port[n] = new_port(h, (int)n);
		h->nports = n + 1;
	}
}

static void probe(struct pci_dev *d)
{
	struct ahci_hba *h = hba_new(d);
	if (!h) {
		kprintf("ahci: %s: cannot map ABAR (BAR5); controller skipped\n", d->name);
		return;
	}
	if (hba_reset(h)) {
		kprintf("%s: %s: HBA reset did not finish within %d ms; controller skipped\n", h->name, d->name,
			HBA_RESET_MS);
		return;
	}
	h->cap = h->r->cap;
	h->cap2 = h->r->cap2;
	h->pi = h->r->pi;
	h->vs = h->r->vs;
	h->name_base = name_base_next;
	hba_ports(h);
	name_base_next += (int)h->nports;
	hbas[nhbas++] = h;
	setup_irq(h);
	ports_power_up(h);
	ports_wait_links(h);
	ports_bringup(h);
	for (uint32_t n = 0; n < h->nports; n++)
		if (has_disk(h->port[n]))
			fill_blk(h->port[n]);
	h->r->ghc |= AHCI_GHC_IE;
	hba_say(h);
	hba_record(h);
	if (!thread_create("ahci-eh", eh_thread, h, SCHED_RT))
		kprintf("%s: cannot start the recovery thread: errors will hang commands until their timeout\n", h->name);
	ktimer_arm(&h->poll, time_ns() + AHCI_POLL_MS * 1000000ull);
	for (uint32_t n = 0; n < h->nports; n++)
		if (has_disk(h->port[n]))
			port_go(h->port[n]);
}

static void ahci_report(void)
{
	for (int i = 0; i < nhbas; i++)
		for (uint32_t n = 0; n < hbas[i]->nports; n++) {
			const struct ahci_port *p = hbas[i]->port[n];
			if (!p || p->state == PORT_OFF)
				continue;
			const struct ahci_port_stats *s = &p->st;
			struct json *j = rec_begin("ahci_port");
			json_str(j, "name", p->blk.name);
			json_str(j, "state", p->state == PORT_DEAD ? "offline" : "running");
			json_u64(j, "commands", s->cmds);
			json_u64(j, "ncq_commands", s->ncq_cmds);
			json_u64(j, "max_in_flight", s->max_issued);
			json_u64(j, "max_command_bytes", s->max_bytes);
			json_u64(j, "completed_by_poll", s->by_poll);
			json_u64(j, "device_errors", s->device_errors);
			json_u64(j, "host_errors", s->host_errors);
			json_u64(j, "interface_errors", s->link_errors);
			json_u64(j, "timeouts", s->timeouts);
			json_u64(j, "retries", s->retries);
			json_u64(j, "port_resets", s->resets);
			json_u64(j, "controller_interrupts", hbas[i]->irqs);
			rec_end();
		}
}

void ahci_init(void)
{
	struct pci_dev *d = NULL;
	while ((d = pci_find_class(AHCI_PCI_CLASS, AHCI_PCI_SUBCLASS, AHCI_PCI_PROGIF, d)) && nhbas < AHCI_MAX_HBAS)
		probe(d);
	if (nhbas)
		halt_register_hook(ahci_report);
}
