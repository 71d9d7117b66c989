/*
 * In-kernel tests of PCI interrupt delivery, run with test=msi|intx|msix.
 * Each raises an interrupt through a device ROUNDS times, waits for it
 * with a 1 s timeout, and reports how many arrived and the latency from
 * the raising write to the handler.
 *
 *   msi   QEMU's teaching device (-device edu, PCI 1234:11e8; QEMU
 *         docs/specs/edu.rst, hw/misc/edu.c) with one MSI vector
 *   intx  the same with MSI off, its pin routed by pci_intx_route; with
 *         a second edu on the same line, both share it
 *   msix  the last NVMe controller (give it a spare one: the test resets
 *         it): admin-queue commands complete on MSI-X vector 0; also
 *         checks that a masked entry holds its interrupt pending until
 *         unmasked
 */
#include <string.h>
#include "selftest.h"
#include "drivers/pci.h"
#include "drivers/pci_regs.h"
#include "core/console.h"
#include "core/time.h"
#include "core/wait.h"
#include "core/sched.h"
#include "mem/pmm.h"
#include "mem/kmem.h"
#include "arch/x86_64/irq.h"
#include "lib/json.h"

#define ROUNDS          100
#define TIMEOUT_NS      1000000000ull

static int failures;

static void check(bool ok, const char *what)
{
	if (!ok) {
		failures++;
		kprintf("selftest: FAILED: %s\n", what);
	}
}

/* ---- rounds and statistics -------------------------------------------- */

struct stats {
	int got, lost;
	uint64_t lat[ROUNDS];           /* sorted after run_rounds */
	uint64_t sum;
};

/* One interrupt: raise it, wait, check; the latency in ns or -1. */
typedef int64_t (*round_fn)(void *ctx, int i);

static void sort_u64(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* ROUNDS rounds, or fewer: three timeouts in a row mean the route is
 * wrong, and waiting out the rest would take minutes. */
static void run_rounds(const char *who, round_fn fn, void *ctx, struct stats *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0, miss = 0; i < ROUNDS && miss < 3; i++) {
		int64_t ns = fn(ctx, i);
		if (ns < 0) {
			s->lost++, miss++;
			continue;
		}
		miss = 0;
		s->lat[s->got++] = (uint64_t)ns;
		s->sum += (uint64_t)ns;
	}
	sleep_ms(10);                   /* let any extra (re-delivered) interrupt show up */
	sort_u64(s->lat, s->got);
	kprintf("selftest: %s: %d/%d interrupts, latency min %lu ns, median %lu ns, max %lu ns\n", who, s->got,
		ROUNDS, s->got ? s->lat[0] : 0, s->got ? s->lat[s->got / 2] : 0, s->got ? s->lat[s->got - 1] : 0);
	check(s->got == ROUNDS, "every raised interrupt was delivered");
}

static void put_stats(struct json *r, const struct stats *s, uint64_t calls, uint64_t not_ours)
{
	int n = s->got;
	json_u64(r, "rounds", ROUNDS);
	json_u64(r, "delivered", (uint64_t)n);
	json_u64(r, "lost", (uint64_t)s->lost);
	json_u64(r, "handler_calls", calls);
	json_u64(r, "not_ours", not_ours);
	json_u64(r, "latency_min_ns", n ? s->lat[0] : 0);
	json_u64(r, "latency_median_ns", n ? s->lat[n / 2] : 0);
	json_u64(r, "latency_mean_ns", n ? s->sum / (uint64_t)n : 0);
	json_u64(r, "latency_max_ns", n ? s->lat[n - 1] : 0);
}

/* ---- the edu device ----------------------------------------------------- */

/* edu BAR0 registers (32-bit accesses only below 0x80) */
#define EDU_VENDOR      0x1234
#define EDU_DEVICE      0x11e8
#define EDU_ID          0x00    /* 0xMMmm00ed: major, minor version */
#define EDU_LIVENESS    0x04    /* reads back the complement of the last write */
#define EDU_IRQ_STATUS  0x24    /* pending interrupt bits */
#define EDU_IRQ_RAISE   0x60    /* status |= value; interrupt */
#define EDU_IRQ_ACK     0x64    /* status &= ~value; INTx drops at 0 */

struct edu {
	struct pci_dev *d;
	volatile uint32_t *regs;
	struct completion done;
	volatile uint64_t t_irq;        /* time_ns() on entry to the handler */
	volatile uint32_t seen;         /* status the handler acknowledged */
	volatile uint64_t irqs;         /* handler calls that found our status set */
	volatile uint64_t not_ours;     /* calls with status 0 (a shared line) */
};

static uint32_t edu_read(struct edu *e, unsigned reg) { return e->regs[reg / 4]; }
static void edu_write(struct edu *e, unsigned reg, uint32_t v) { e->regs[reg / 4] = v; }

/* Interrupt context.  Acknowledge before returning: INTx is level
 * triggered, and the EOI after this returns would otherwise re-deliver. */
static void edu_irq(struct trap_frame *f, void *arg)
{
	(void)f;
	struct edu *e = arg;
	uint64_t now = time_ns();
	uint32_t st = edu_read(e, EDU_IRQ_STATUS);
	if (!st) {
		e->not_ours++;
		return;
	}
	edu_write(e, EDU_IRQ_ACK, st);
	e->t_irq = now;
	e->seen = st;
	e->irqs++;
	complete(&e->done);
}

static bool edu_setup(struct edu *e, struct pci_dev *d)
{
	memset(e, 0, sizeof *e);
	e->d = d;
	if (!d) {
		kprintf("selftest: no edu device (PCI 1234:11e8); run QEMU with -device edu\n");
		check(false, "edu device present");
		return false;
	}
	pci_enable(d, true, false, false);
	e->regs = pci_map_bar(d, 0);
	check(e->regs != NULL, "edu BAR0 mapped");
	if (!e->regs)
		return false;
	check((edu_read(e, EDU_ID) & 0xff) == 0xed, "edu identification register reads 0x..ed");
	edu_write(e, EDU_LIVENESS, 0x12345678u);
	check(edu_read(e, EDU_LIVENESS) == ~0x12345678u, "edu liveness register inverts");
	edu_write(e, EDU_IRQ_ACK, 0xffffffffu);         /* nothing pending from before */
	completion_init(&e->done);
	return true;
}

static int64_t edu_round(void *ctx, int i)
{
	struct edu *e = ctx;
	uint32_t tag = 0x100u | (uint32_t)i;
	uint64_t t0 = time_ns();
	edu_write(e, EDU_IRQ_RAISE, tag);
	if (completion_wait_timeout(&e->done, TIMEOUT_NS)) {
		uint32_t st = edu_read(e, EDU_IRQ_STATUS);
		kprintf("selftest: %s: interrupt 0x%x lost: edu status 0x%x (%s)\n", e->d->name, tag, st,
			st ? "raised, never delivered" : "not raised");
		edu_write(e, EDU_IRQ_ACK, 0xffffffffu);
		return -1;
	}
	check(e->seen == tag, "handler saw the status that was raised");
	return (int64_t)(e->t_irq - t0);
}

static void edu_rounds(struct edu *e, struct stats *s)
{
	run_rounds(e->d->name, edu_round, e, s);
	check(e->irqs == (uint64_t)s->got, "no interrupt was delivered twice");
}

static void test_msi(struct json *r)
{
	static struct edu e;
	static struct stats s;
	if (!edu_setup(&e, pci_find_id(EDU_VENDOR, EDU_DEVICE, NULL)))
		return;
	json_str(r, "device", e.d->name);
	check(e.d->msi_cap != 0, "edu has an MSI capability");
	int v = irq_alloc("edu-msi", edu_irq, &e);
	check(v >= 0, "vector allocated");
	if (v < 0)
		return;
	int err = pci_msi_enable(e.d, v);
	check(err == 0, "pci_msi_enable");
	if (err)
		return;
	uint16_t ctrl = pci_config_read16(e.d, e.d->msi_cap + PCI_MSI_CTRL);
	json_u64(r, "vector", (uint64_t)v);
	json_bool(r, "msi_64bit", (ctrl & PCI_MSI_CTRL_64BIT) != 0);
	json_bool(r, "msi_per_vector_mask", (ctrl & PCI_MSI_CTRL_PVM) != 0);
	edu_rounds(&e, &s);
	put_stats(r, &s, e.irqs, e.not_ours);
	check(irq_count(v) == e.irqs, "the vector counted each interrupt");
	pci_msi_disable(e.d);
}

/* Route one edu's INTx and describe the route; the vector, or < 0. */
static int intx_setup(struct edu *e, struct json *r)
{
	pci_msi_disable(e->d);
	bool level = false, low = false;
	int gsi = pci_intx_gsi(e->d, &level, &low);
	int v = pci_intx_route(e->d, edu_irq, e, "edu-intx");
	check(v >= 0, "pci_intx_route");
	json_str(r, "device", e->d->name);
	json_u64(r, "pin", e->d->irq_pin);
	json_u64(r, "line", e->d->irq_line);
	json_i64(r, "gsi", gsi);
	json_bool(r, "level", level);
	json_bool(r, "active_low", low);
	json_i64(r, "vector", v);
	return v;
}

/* With a second edu on the same I/O APIC input (QEMU: -device edu twice,
 * slots 4 apart), both handlers run for every interrupt on the line and
 * each must tell its own device's interrupts from the other's. */
static void test_intx(struct json *r)
{
	static struct edu a, b;
	static struct stats s;
	if (!edu_setup(&a, pci_find_id(EDU_VENDOR, EDU_DEVICE, NULL)))
		return;
	struct pci_dev *second = pci_find_id(EDU_VENDOR, EDU_DEVICE, a.d);
	if (intx_setup(&a, r) < 0)
		return;
	if (second && edu_setup(&b, second)) {
		json_obj_begin(r, "second");
		int v = intx_setup(&b, r);
		json_obj_end(r);
		if (v < 0)
			return;
	}
	edu_rounds(&a, &s);
	put_stats(r, &s, a.irqs, a.not_ours);
	if (!second) {
		pci_intx_disable(a.d, true);
		return;
	}
	uint64_t a_calls = a.irqs + a.not_ours;
	edu_rounds(&b, &s);
	json_obj_begin(r, "second_stats");
	put_stats(r, &s, b.irqs, b.not_ours);
	json_obj_end(r);
	check(b.d->intx_gsi != a.d->intx_gsi ||
	      (b.not_ours >= (uint64_t)ROUNDS && a.irqs + a.not_ours - a_calls >= (uint64_t)ROUNDS),
	      "both handlers ran for each interrupt on the shared line");
	pci_intx_disable(a.d, true);
	pci_intx_disable(b.d, true);
}

/* ---- MSI-X through an NVMe admin queue ---------------------------------
 * Just enough NVMe (NVM Express 1.4) to make a controller interrupt: the
 * admin queue pair (3.1 registers, 4.2 submission and 4.6 completion
 * entries) and Get Features (5.21), which needs no data buffer.  The admin
 * completion queue always signals MSI-X vector 0. */
#define NVME_CAP        0x00    /* 64: DSTRD 35:32, TO 31:24 (500 ms units) */
#define NVME_CC         0x14
#define NVME_CSTS       0x1c
#define NVME_AQA        0x24
#define NVME_ASQ        0x28
#define NVME_ACQ        0x30
#define NVME_DB         0x1000  /* SQ0 tail, then CQ0 head at 4 << DSTRD */
#define NVME_CC_ENABLE  (1u | 6u << 16 | 4u << 20)      /* EN, 64-byte SQEs, 16-byte CQEs */
#define NVME_CSTS_RDY   1u
#define NVME_QLEN       8
#define NVME_GET_FEATURES 0x0a
#define NVME_FEAT_NQUEUES 0x07

struct nvme {
	struct pci_dev *d;
	volatile uint32_t *regs;
	struct page *pages;             /* SQ in the first, CQ in the second */
	uint32_t *sq;
	volatile uint32_t *cq;
	unsigned dstrd, tail, head, phase;
	uint64_t timeout_ns;
	struct completion done;
	volatile uint64_t t_irq, irqs;
};

static void nvme_irq(struct trap_frame *f, void *arg)
{
	(void)f;
	struct nvme *n = arg;
	n->t_irq = time_ns();
	n->irqs++;
	complete(&n->done);
}

static bool nvme_wait_ready(struct nvme *n, bool ready)
{
	uint64_t end = time_ns() + n->timeout_ns;
	while (((n->regs[NVME_CSTS / 4] & NVME_CSTS_RDY) != 0) != ready) {
		if (time_ns() > end)
			return false;
		udelay(50);
	}
	return true;
}

/* Reset the controller and bring it up with an admin queue pair. */
static bool nvme_start(struct nvme *n)
{
	pci_enable(n->d, true, false, true);
	n->regs = pci_map_bar(n->d, 0);
	if (!n->regs)
		return false;
	uint32_t cap_hi = n->regs[NVME_CAP / 4 + 1], cap_lo = n->regs[NVME_CAP / 4];
	n->dstrd = cap_hi & 0xf;
	n->timeout_ns = ((cap_lo >> 24) & 0xff) * 500000000ull + 500000000ull;
	n->regs[NVME_CC / 4] = 0;
	if (!nvme_wait_ready(n, false))
		return false;
	n->pages = pmm_alloc(1, PMM_ZERO | PMM_KERNEL);
	if (!n->pages)
		return false;
	uint64_t phys = page_to_phys(n->pages);
	n->sq = phys_to_virt(phys);
	n->cq = phys_to_virt(phys + 4096);
	n->tail = n->head = 0;
	n->phase = 1;
	n->regs[NVME_AQA / 4] = (NVME_QLEN - 1) | (NVME_QLEN - 1) << 16;
	n->regs[NVME_ASQ / 4] = (uint32_t)phys, n->regs[NVME_ASQ / 4 + 1] = (uint32_t)(phys >> 32);
	n->regs[NVME_ACQ / 4] = (uint32_t)(phys + 4096), n->regs[NVME_ACQ / 4 + 1] = (uint32_t)((phys + 4096) >> 32);
	n->regs[NVME_CC / 4] = NVME_CC_ENABLE;
	return nvme_wait_ready(n, true);
}

static void nvme_stop(struct nvme *n)
{
	if (n->regs) {
		n->regs[NVME_CC / 4] = 0;
		nvme_wait_ready(n, false);
	}
	pci_msix_disable(n->d);
	if (n->pages)
		pmm_free(n->pages, 1);
}

static void nvme_submit(struct nvme *n, uint16_t cid)
{
	uint32_t *e = n->sq + n->tail * 16;
	memset(e, 0, 64);
	e[0] = NVME_GET_FEATURES | (uint32_t)cid << 16;
	e[10] = NVME_FEAT_NQUEUES;
	n->tail = (n->tail + 1) % NVME_QLEN;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	n->regs[NVME_DB / 4] = n->tail;
}

/* Is the completion for cid at the head?  Consume it if so. */
static bool nvme_reap(struct nvme *n, uint16_t cid)
{
	volatile uint32_t *c = n->cq + n->head * 4;
	uint32_t dw3 = c[3];
	if (((dw3 >> 16) & 1) != n->phase)
		return false;
	check((dw3 & 0xffff) == cid && (dw3 >> 17) == 0, "NVMe command completed without error");
	if (++n->head == NVME_QLEN)
		n->head = 0, n->phase ^= 1;
	n->regs[(NVME_DB + (4u << n->dstrd)) / 4] = n->head;
	return true;
}

static int64_t nvme_round(void *ctx, int i)
{
	struct nvme *n = ctx;
	uint64_t t0 = time_ns();
	nvme_submit(n, (uint16_t)i);
	if (completion_wait_timeout(&n->done, TIMEOUT_NS)) {
		kprintf("selftest: %s: no MSI-X interrupt for command %d (completion %s)\n", n->d->name, i,
			nvme_reap(n, (uint16_t)i) ? "posted" : "not posted");
		return -1;
	}
	check(nvme_reap(n, (uint16_t)i), "completion entry present when the interrupt arrived");
	return (int64_t)(n->t_irq - t0);
}

/* Mask entry 0, complete a command, see no interrupt; unmask, see the
 * pending one delivered (LB 6.8.2.9: the function remembers it). */
static void nvme_mask_test(struct nvme *n, struct json *r)
{
	pci_msix_mask(n->d, 0, true);
	uint64_t before = n->irqs;
	nvme_submit(n, 1000);
	sleep_ms(20);
	bool held = n->irqs == before;
	bool reaped = nvme_reap(n, 1000);
	pci_msix_mask(n->d, 0, false);
	bool released = completion_wait_timeout(&n->done, TIMEOUT_NS) == 0 && n->irqs == before + 1;
	json_bool(r, "masked_held", held);
	json_bool(r, "unmask_delivered", released);
	check(reaped, "command completed while its vector was masked");
	check(held, "a masked MSI-X entry sends nothing");
	check(released, "unmasking delivers the pending interrupt");
}

static void test_msix(struct json *r)
{
	static struct nvme n;
	static struct stats s;
	memset(&n, 0, sizeof n);
	completion_init(&n.done);
	/* The last NVMe: QEMU gives command-line devices slots in order, so a
	 * spare controller added for this test comes after the boot disk. */
	for (struct pci_dev *d = NULL; (d = pci_find_class(PCI_CLASS_STORAGE, 0x08, 0x02, d));)
		n.d = d;
	if (!n.d || !n.d->msix_cap) {
		kprintf("selftest: no NVMe controller with MSI-X\n");
		check(false, "NVMe controller with MSI-X present");
		return;
	}
	json_str(r, "device", n.d->name);
	json_u64(r, "msix_table_size", n.d->msix_nvec);
	json_hex(r, "bar0", n.d->bar[0].base);
	int v = irq_alloc("nvme-msix", nvme_irq, &n);
	check(v >= 0, "vector allocated");
	if (v < 0)
		return;
	int err = pci_msix_enable(n.d, 1, &v, NULL);
	check(err == 0, "pci_msix_enable");
	bool up = !err && nvme_start(&n);
	check(up, "NVMe controller ready with an admin queue");
	if (up) {
		json_u64(r, "vector", (uint64_t)v);
		run_rounds(n.d->name, nvme_round, &n, &s);
		put_stats(r, &s, n.irqs, 0);
		check(n.irqs == (uint64_t)s.got, "no interrupt was delivered twice");
		nvme_mask_test(&n, r);
	}
	nvme_stop(&n);
}

static const struct selftest tests[] = {
	{ "msi", test_msi },
	{ "intx", test_intx },
	{ "msix", test_msix },
};

bool pci_selftest(const char *name)
{
	return selftest_suite(name, tests, sizeof tests / sizeof tests[0], &failures);
}
