/*
 * xHCI host controller driver (xHCI 1.2; layouts in xhci_regs.h, ring and
 * context arithmetic in usb_proto.c).  Serves the devices on the root
 * ports to class drivers through usb.h; today that is USB mass storage
 * (usb_storage.c), on a root port or behind hubs (USB 2 and 3 hubs, up
 * to the five tiers a route string holds).
 *
 * Model.  One struct xhci_ctrl per PCI function (class 0C.03.30): taken
 * from the firmware (USB Legacy Support handoff), halted, reset, and
 * started with one command ring, one interrupter whose event ring is one
 * segment, and the DCBAA with its scratchpad buffers.  xhci_init then
 * scans the root ports once (no hot plug): a connected port is reset
 * (USB 2) or found enabled (USB 3), gets a slot (Enable Slot), an address
 * (Address Device with an input context of 32- or 64-byte entries per
 * HCCPARAMS1.CSZ), its device and configuration descriptors are read,
 * and the class driver is offered the device.
 *
 * Hubs.  A hub (class 9) is configured, told to the controller (the slot
 * context's Hub bit, port count and TT think time, by Configure
 * Endpoint), its ports powered, and each connected port reset with the
 * hub class requests (USB 2.0 11.24.2) and its device brought up like a
 * root port's: the slot context names the root port, the route string
 * (one nibble per hub tier, 8.9) and, for a low/full-speed device below a
 * high-speed hub, the hub's slot and port as its transaction translator.
 * The hub's status-change interrupt endpoint is not used: ports are
 * scanned once, like the root ports, and reset by control requests.
 *
 * Unplugging.  A Port Status Change Event for a root port that lost its
 * connection (PORTSC.CCS 0) marks every device on that port gone (a hub
 * and all below it): its waiters wake and, like every later transfer,
 * fail with -ENODEV at once (the controller may never report the TDs it
 * dropped with the device).  Nothing is attached on a later connect.  A
 * device pulled from a hub's port is not seen that way (no interrupt
 * endpoint): its transfers time out and recovery fails instead.
 *
 * Transfers.  Every transfer is synchronous: the caller (a thread) puts
 * one TD on the endpoint's ring, rings the doorbell and waits until the
 * event for it arrives.  At most one TD per endpoint is on its ring, so
 * a ring never fills and an event is matched to its TD by the TRB
 * address it names.  Commands likewise run one at a time (cmd_lock).
 *
 * Events.  The event ring is reaped under c->lock by whoever comes first:
 * the interrupt handler (MSI-X, MSI or INTx), or a waiter whose wait
 * slice ran out (XHCI_SLICE_NS; the only path without an interrupt), so
 * a lost interrupt costs a slice, not a hang, and is counted
 * (events_polled in the halt record).
 *
 * Errors.  A transfer that ends in an error, or gets no event within its
 * timeout, leaves its endpoint clean before the caller hears of it: Stop
 * Endpoint (running) or Reset Endpoint (halted), then Set TR Dequeue
 * Pointer past the TD.  When those commands fail the caller gets
 * -ENODEV and may try usb_reset_device (port reset, Reset Device,
 * Address Device, endpoints configured again).  A command with no
 * completion in XHCI_CMD_TIMEOUT_NS marks the controller dead: bus
 * mastering off, every transfer fails with -ENODEV.
 *
 * DMA.  Rings, contexts, the DCBAA and scratchpads are single pages (or a
 * pair, for a large scratchpad array), below 4 GiB unless AC64; caller
 * buffers above 4 GiB on a controller without AC64 go through bounce
 * pages of the device.
 *
 * Locking.  c->lock (spinlock, irqsave) guards the fields marked [L]:
 * the event ring's dequeue position, the command in flight, every
 * endpoint's TD state and ring enqueue position.  c->cmd_lock (mutex)
 * serialises commands; u->ctl_lock (mutex) serialises control transfers
 * of a device.  Lock order: u->ctl_lock -> c->cmd_lock -> c->lock.
 * c->lock is never held while sleeping or waking a waitq.
 */
#include <string.h>
#include "xhci.h"
#include "xhci_regs.h"
#include "usb.h"
#include "pci.h"
#include "pci_regs.h"
#include "core/console.h"
#include "core/record.h"
#include "core/panic.h"
#include "core/time.h"
#include "core/sched.h"
#include "core/wait.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "mem/kmalloc.h"
#include "mem/kmem.h"
#include "mem/pmm.h"
#include "arch/x86_64/irq.h"

#define PAGE                    4096u
#define RING_TRBS               (PAGE / sizeof(struct xhci_trb))        /* 256, the last a link */
#define EVENT_TRBS              (PAGE / sizeof(struct xhci_trb))
#define XHCI_MAX_CTRLS          4
#define XHCI_MAX_SLOTS          32      /* devices per controller we enable */
#define XHCI_MAX_PORTS          255
#define NS_PER_MS               1000000ul
/* Commands complete in microseconds; a second means the controller is wedged. */
#define XHCI_CMD_TIMEOUT_NS     (5000 * NS_PER_MS)
#define XHCI_CTRL_TIMEOUT_NS    (5000 * NS_PER_MS)     /* control transfers (USB 2.0 9.2.6.4: 5 s) */
#define XHCI_SLICE_NS           (2 * NS_PER_MS)        /* wait slice before polling the event ring */
#define XHCI_HALT_MS            100     /* 5.4.2: HCH within 16 ms of RS = 0 */
#define XHCI_RESET_MS           1000    /* HCRST and CNR clear; some Intel parts take ~100 ms */
#define XHCI_HANDOFF_MS         1000    /* BIOS gives up ownership */
#define XHCI_PORT_RESET_MS      500
#define XHCI_RESET_RECOVERY_MS  10      /* USB 2.0 7.1.7.5 TRSTRCY */
/* Per usb_bulk call: 128 pages, 128 TRBs at most (half the ring);
 * usb_storage.c cuts the block layer's 1 MiB commands to this. */
#define XHCI_MAX_XFER           (512u << 10)
#define XHCI_BOUNCE_PAGES       (XHCI_MAX_XFER / PAGE)
#define XHCI_MAX_TD_TRBS        (RING_TRBS - 8)
#define XHCI_ERROR_LINES        32

enum xhci_irq_mode { IRQ_POLL, IRQ_INTX, IRQ_MSI, IRQ_MSIX };
static const char *const irq_mode_name[] = { "poll", "intx", "msi", "msix" };

struct xhci_ring {
	struct xhci_trb *trb;
	uint64_t phys;
	struct page *pg;
	struct xhci_ring_pos enq;               /* [L] */
};

/* One endpoint (by DCI) of a device and the TD it has out. */
struct xhci_ep {
	struct xhci_ring ring;
	uint8_t addr, type, burst;
	uint16_t mps;
	bool busy;                              /* [L] a TD is on the ring */
	volatile bool done;                     /* [L] its event came; read unlocked by the waiter */
	uint32_t first, last;                   /* [L] ring indices of the TD */
	uint32_t td_bytes;                      /* [L] */
	uint32_t actual;                        /* [L] bytes moved, when done */
	bool short_seen;                        /* [L] a short packet set actual */
	uint8_t cc;                             /* [L] completion code, when done */
};

struct usb_device {
	struct xhci_ctrl *c;
	char name[32];                          /* xhci0-port1, below hubs xhci0-port1.3.2 */
	uint8_t port, slot;                     /* port: the root port, also below hubs */
	uint32_t speed;
	struct usb_device *hub;                 /* the hub it hangs off; NULL on a root port */
	uint8_t hub_port, tier;                 /* port on that hub; hubs above it */
	uint32_t route;                         /* route string (8.9) */
	uint8_t tt_slot, tt_port;               /* its transaction translator, 0 when none */
	uint8_t hub_nports;                     /* a hub: its downstream ports */
	struct usb_dev_desc desc;
	uint8_t *in_ctx, *out_ctx;
	uint64_t in_phys, out_phys;
	struct page *in_pg, *out_pg;
	uint8_t *buf;                           /* one DMA page for control data */
	uint64_t buf_phys;
	struct page *buf_pg;
	struct page *bounce[XHCI_BOUNCE_PAGES]; /* without AC64 only */
	struct xhci_ep ep[XHCI_MAX_DCI + 1];
	struct usb_bot_iface iface;
	bool configured;
	volatile bool gone;                     /* [L] written; unplugged: every transfer fails */
	struct mutex ctl_lock;
};

struct xhci_stats {
	uint64_t commands, transfers, bytes, errors, timeouts, stalls;
	uint64_t ep_resets, port_resets, device_resets;
	uint64_t irqs, events, events_polled, stale_events;
	uint64_t disconnects;
};

struct xhci_ctrl {
	/* Set at probe, read-only afterwards. */
	int index;
	char name[12];
	struct pci_dev *pci;
	volatile uint8_t *base, *op, *rt;
	volatile uint32_t *db;
	uint32_t hcs1, hcs2, hcc1, csz, max_slots, max_ports, nscratch;
	uint16_t version;
	bool ac64;
	uint8_t port_major[XHCI_MAX_PORTS + 1]; /* USB major revision of each port, 0 unknown */
	enum xhci_irq_mode irq_mode;
	int vec;
	uint64_t *dcbaa;
	uint64_t dcbaa_phys;
	struct page *dcbaa_pg, *scratch_arr_pg, **scratch_pg;
	unsigned scratch_arr_order;
	struct xhci_erst_entry *erst;
	uint64_t erst_phys;
	struct page *erst_pg;
	struct xhci_trb *evt;
	uint64_t evt_phys;
	struct page *evt_pg;
	struct usb_device *slots[XHCI_MAX_SLOTS + 1];   /* written before the slot's first transfer */
	int ndevs;

	struct spinlock lock;
	struct xhci_ring_pos evt_deq;           /* [L] */
	struct xhci_ring cmd;                   /* [L] enq */
	uint64_t cmd_trb;                       /* [L] the command in flight */
	volatile bool cmd_done;                 /* [L] */
	uint8_t cmd_cc, cmd_slot;               /* [L] */
	volatile bool dead;                     /* [L] written; read anywhere */
	struct xhci_stats st;                   /* [L] */
	uint32_t error_lines;                   /* atomic */
	struct waitq wq;                        /* event waiters */
	struct mutex cmd_lock;
};

static struct {
	struct xhci_ctrl *ctrls[XHCI_MAX_CTRLS];
	int n;
} xh;

/* ------------------------------------------------------------ registers */

static uint32_t cap_rd(const struct xhci_ctrl *c, uint32_t off) { return *(volatile uint32_t *)(c->base + off); }
static uint32_t op_rd(const struct xhci_ctrl *c, uint32_t off) { return *(volatile uint32_t *)(c->op + off); }
static void op_wr(struct xhci_ctrl *c, uint32_t off, uint32_t v) { *(volatile uint32_t *)(c->op + off) = v; }
static void rt_wr(struct xhci_ctrl *c, uint32_t off, uint32_t v) { *(volatile uint32_t *)(c->rt + off) = v; }

/* 64-bit registers as two dword writes, low first (5.1: allowed when the
 * controller is halted or the register is not live; true for all ours
 * but ERDP, whose low half is what the controller looks at). */
static void op_wr64(struct xhci_ctrl *c, uint32_t off, uint64_t v)
{
	op_wr(c, off, (uint32_t)v);
	op_wr(c, off + 4, (uint32_t)(v >> 32));
}

static void rt_wr64(struct xhci_ctrl *c, uint32_t off, uint64_t v)
{
	rt_wr(c, off, (uint32_t)v);
	rt_wr(c, off + 4, (uint32_t)(v >> 32));
}

/* Poll reg until (reg & mask) == want, up to ms milliseconds.  Sleeps. */
static int wait_reg(struct xhci_ctrl *c, bool op, uint32_t off, uint32_t mask, uint32_t want, uint32_t ms)
{
	uint64_t end = time_ns() + ms * NS_PER_MS;
	for (;;) {
		uint32_t v = op ? op_rd(c, off) : cap_rd(c, off);
		if (v == 0xffffffffu)
			return -ENODEV;
		if ((v & mask) == want)
			return 0;
		if (time_ns() >= end)
			return -ETIMEDOUT;
		sleep_ms(1);
	}
}

/* ------------------------------------------------------------ DMA memory */

/* order pages, zeroed, at an address the controller reaches.  Without
 * AC64 pages above 4 GiB are set aside and tried again (a few times:
 * most memory of small machines lies below). */
static struct page *dma_alloc(const struct xhci_ctrl *c, unsigned order)
{
	struct page *reject[16];
	int nrej = 0;
	struct page *pg;
	for (;;) {
		pg = pmm_alloc(order, PMM_ZERO | PMM_KERNEL);
		if (!pg || c->ac64 || page_to_phys(pg) + ((uint64_t)PAGE << order) <= 0x100000000ull)
			break;
		if (nrej == 16) {
			pmm_free(pg, order);
			pg = NULL;
			break;
		}
		reject[nrej++] = pg;
	}
	while (nrej)
		pmm_free(reject[--nrej], order);
	return pg;
}

static void *dma_page(const struct xhci_ctrl *c, struct page **pg, uint64_t *phys)
{
	*pg = dma_alloc(c, 0);
	if (!*pg)
		return NULL;
	*phys = page_to_phys(*pg);
	return page_address(*pg);
}

static void dma_free(struct page **pg, unsigned order)
{
	if (*pg)
		pmm_free(*pg, order);
	*pg = NULL;
}

/* A zeroed ring with its link TRB (toggle cycle) back to the start. */
static int ring_init(const struct xhci_ctrl *c, struct xhci_ring *r)
{
	if (!r->pg && !(r->trb = dma_page(c, &r->pg, &r->phys)))
		return -ENOMEM;
	memset(r->trb, 0, PAGE);
	r->trb[RING_TRBS - 1].param = r->phys;
	r->trb[RING_TRBS - 1].control = XHCI_TRB_TYPE(TRB_LINK) | XHCI_TRB_TC;
	r->enq = (struct xhci_ring_pos){ 0, true };
	return 0;
}

/* Write one TRB at the enqueue position; more: the TD goes on (a link
 * TRB passed now must chain).  c->lock held. */
static void ring_put(struct xhci_ring *r, uint64_t param, uint32_t status, uint32_t control, bool more)
{
	struct xhci_trb *t = &r->trb[r->enq.idx];
	t->param = param;
	t->status = status;
	__atomic_thread_fence(__ATOMIC_RELEASE);        /* the cycle bit last */
	t->control = (control & ~XHCI_TRB_CYCLE) | (r->enq.cycle ? XHCI_TRB_CYCLE : 0);
	bool wrapped;
	struct xhci_ring_pos old = r->enq;
	r->enq = xhci_ring_next(r->enq, RING_TRBS, &wrapped);
	if (wrapped) {
		struct xhci_trb *link = &r->trb[RING_TRBS - 1];
		__atomic_thread_fence(__ATOMIC_RELEASE);
		link->control = XHCI_TRB_TYPE(TRB_LINK) | XHCI_TRB_TC | (more ? XHCI_TRB_CH : 0) |
				(old.cycle ? XHCI_TRB_CYCLE : 0);
	}
}

static void doorbell(struct xhci_ctrl *c, uint32_t slot, uint32_t target)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);        /* TRBs in memory before the doorbell */
	c->db[slot] = target;
}

/* ------------------------------------------------------------ events */

/* True while error lines may still be printed (then counted only). */
static bool error_budget(struct xhci_ctrl *c)
{
	uint32_t n = __atomic_fetch_add(&c->error_lines, 1, __ATOMIC_RELAXED);
	if (n == XHCI_ERROR_LINES)
		kprintf("%s: more USB errors: counted in the halt record, no longer printed\n", c->name);
	return n < XHCI_ERROR_LINES;
}

/* Position of TRB address p in ring r's TD [first, last], or -1. */
static int td_offset(const struct xhci_ring *r, const struct xhci_ep *e, uint64_t p)
{
	if (p < r->phys || p >= r->phys + (RING_TRBS - 1) * sizeof(struct xhci_trb) || (p & 15))
		return -1;
	uint32_t idx = (uint32_t)((p - r->phys) / sizeof(struct xhci_trb)), n = RING_TRBS - 1;
	uint32_t off = (idx + n - e->first) % n, len = (e->last + n - e->first) % n + 1;
	return off < len ? (int)off : -1;
}

/* Bytes of the TD's TRBs before offset k (a short packet's position). */
static uint32_t td_bytes_before(const struct xhci_ep *e, int k)
{
	uint32_t sum = 0, n = RING_TRBS - 1;
	for (int i = 0; i < k; i++) {
		const struct xhci_trb *t = &e->ring.trb[(e->first + (uint32_t)i) % n];
		uint32_t type = XHCI_TRB_GET_TYPE(t->control);
		if (type == TRB_NORMAL || type == TRB_DATA)
			sum += t->status & 0x1ffff;
	}
	return sum;
}

/* A Transfer Event.  c->lock held; true when a waiter is to be woken. */
static bool transfer_event(struct xhci_ctrl *c, const struct xhci_trb *ev)
{
	uint32_t slot = XHCI_TRB_GET_SLOT(ev->control), dci = XHCI_TRB_GET_EP(ev->control);
	struct usb_device *u = slot && slot <= XHCI_MAX_SLOTS ? c->slots[slot] : NULL;
	struct xhci_ep *e = u && dci ? &u->ep[dci] : NULL;
	int k = e && e->busy && !e->done && !(ev->control & XHCI_EVT_ED) ? td_offset(&e->ring, e, ev->param) : -1;
	if (k < 0) {
		c->st.stale_events++;
		return false;
	}
	uint32_t cc = XHCI_EVT_CC(ev->status), resid = XHCI_EVT_LEN(ev->status);
	const struct xhci_trb *t = &e->ring.trb[(e->first + (uint32_t)k) % (RING_TRBS - 1)];
	uint32_t tlen = t->status & 0x1ffff;
	bool last = (uint32_t)k == (e->last + RING_TRBS - 1 - e->first) % (RING_TRBS - 1);
	if (cc == CC_SHORT_PACKET) {
		e->actual = td_bytes_before(e, k) + (resid < tlen ? tlen - resid : 0);
		e->short_seen = true;
		if (dci == 1 && !last)
			return false;   /* control: the status stage still runs and reports */
		e->cc = CC_SUCCESS;
	} else if (cc == CC_SUCCESS) {
		if (!last)
			return false;   /* only the last TRB asks for an event */
		if (!e->short_seen)
			e->actual = e->td_bytes - (resid < e->td_bytes ? resid : e->td_bytes);
		e->cc = CC_SUCCESS;
	} else {
		e->cc = (uint8_t)cc;
		e->actual = td_bytes_before(e, k);
	}
	e->done = true;
	return true;
}

/* A root port changed (4.19.2): a lost connection marks the devices on
 * it gone.  The change bits are left alone: a port reset in progress
 * waits for its PRC, and nothing here needs a second event from the
 * port.  c->lock held; true when waiters are to be woken. */
static bool port_event(struct xhci_ctrl *c, uint32_t port)
{
	if (port < 1 || port > c->max_ports)
		return false;
	if (op_rd(c, XHCI_OP_PORTSC(port)) & XHCI_PORTSC_CCS)
		return false;
	bool any = false;
	for (uint32_t i = 1; i <= XHCI_MAX_SLOTS; i++) {
		struct usb_device *u = c->slots[i];
		if (u && u->port == port && !u->gone) {
			u->gone = any = true;
			c->st.disconnects++;
		}
	}
	return any;
}

/* Take every event the controller has posted.  Any context. */
static void reap(struct xhci_ctrl *c, bool polled)
{
	bool wake = false;
	uint32_t n = 0;
	bool on = spin_lock_irqsave(&c->lock);
	for (;;) {
		volatile struct xhci_trb *v = &c->evt[c->evt_deq.idx];
		uint32_t control = v->control;
		if (((control & XHCI_TRB_CYCLE) != 0) != c->evt_deq.cycle)
			break;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);        /* the rest after its cycle bit */
		struct xhci_trb ev = { v->param, v->status, control };
		n++;
		switch (XHCI_TRB_GET_TYPE(control)) {
		case TRB_EV_TRANSFER:
			wake |= transfer_event(c, &ev);
			break;
		case TRB_EV_CMD_DONE:
			if (ev.param == c->cmd_trb && !c->cmd_done) {
				c->cmd_cc = (uint8_t)XHCI_EVT_CC(ev.status);
				c->cmd_slot = (uint8_t)XHCI_TRB_GET_SLOT(control);
				c->cmd_done = wake = true;
			} else {
				c->st.stale_events++;
			}
			break;
		case TRB_EV_PORT:
			wake |= port_event(c, (uint32_t)(ev.param >> 24) & 0xff);
			break;
		case TRB_EV_HOST:
			kprintf("%s: host controller event: %s\n", c->name, xhci_cc_name(XHCI_EVT_CC(ev.status)));
			break;
		default:
			break;
		}
		c->evt_deq = xhci_event_next(c->evt_deq, EVENT_TRBS);
	}
	if (n)
		rt_wr64(c, XHCI_RT_ERDP, (c->evt_phys + c->evt_deq.idx * sizeof(struct xhci_trb)) | XHCI_ERDP_EHB);
	c->st.events += n;
	if (polled)
		c->st.events_polled += n;
	spin_unlock_irqrestore(&c->lock, on);
	if (wake)
		waitq_wake_all(&c->wq);
}

static void xhci_irq(struct trap_frame *f, void *arg)
{
	(void)f;
	struct xhci_ctrl *c = arg;
	uint32_t sts = op_rd(c, XHCI_OP_USBSTS);
	if (sts == 0xffffffffu)
		return;
	op_wr(c, XHCI_OP_USBSTS, sts & (XHCI_STS_EINT | XHCI_STS_PCD));
	rt_wr(c, XHCI_RT_IMAN, XHCI_IMAN_IE | XHCI_IMAN_IP);   /* IP is write-1-to-clear */
	__atomic_fetch_add(&c->st.irqs, 1, __ATOMIC_RELAXED);
	reap(c, false);
}

/* Woken by completions and by unplugging alike; the waiter checks both. */
static bool flag_set(void *arg) { return *(volatile bool *)arg; }

/* Sleep until *flag, reaping the event ring after every slice in case the
 * interrupt was lost.  0, -ETIMEDOUT, or -ENODEV when the controller died
 * or u (may be NULL) was unplugged. */
static int wait_flag(struct xhci_ctrl *c, const struct usb_device *u, volatile bool *flag, uint64_t timeout_ns)
{
	uint64_t end = time_ns() + timeout_ns;
	while (!*flag) {
		if (c->dead || (u && u->gone))
			return -ENODEV;
		if (time_ns() >= end)
			return -ETIMEDOUT;
		wait_event_timeout(&c->wq, flag_set, (void *)flag, XHCI_SLICE_NS);
		if (!*flag)
			reap(c, true);
	}
	return 0;
}

/* ------------------------------------------------------------ commands */

static void mark_dead(struct xhci_ctrl *c, const char *why)
{
	bool on = spin_lock_irqsave(&c->lock);
	bool was = c->dead;
	c->dead = true;
	spin_unlock_irqrestore(&c->lock, on);
	if (was)
		return;
	kprintf("%s: %s: controller taken out of service, its devices fail from now on\n", c->name, why);
	pci_enable(c->pci, true, false, false);         /* no more DMA */
	waitq_wake_all(&c->wq);
}

/* Run one command; returns its completion code (0 when it got none:
 * the controller is then dead).  *slot: the event's slot ID.  Sleeps. */
static uint32_t command(struct xhci_ctrl *c, uint64_t param, uint32_t control, uint8_t *slot)
{
	mutex_lock(&c->cmd_lock);
	bool on = spin_lock_irqsave(&c->lock);
	if (c->dead) {
		spin_unlock_irqrestore(&c->lock, on);
		mutex_unlock(&c->cmd_lock);
		return 0;
	}
	c->cmd_trb = c->cmd.phys + c->cmd.enq.idx * sizeof(struct xhci_trb);
	c->cmd_done = false;
	ring_put(&c->cmd, param, 0, control, false);
	c->st.commands++;
	spin_unlock_irqrestore(&c->lock, on);
	doorbell(c, 0, 0);
	int err = wait_flag(c, NULL, &c->cmd_done, XHCI_CMD_TIMEOUT_NS);
	on = spin_lock_irqsave(&c->lock);
	uint32_t cc = err ? 0 : c->cmd_cc;
	if (slot)
		*slot = c->cmd_slot;
	spin_unlock_irqrestore(&c->lock, on);
	mutex_unlock(&c->cmd_lock);
	if (err == -ETIMEDOUT)
		mark_dead(c, "a command got no completion in 5 s");
	return cc;
}

static int command_ok(struct xhci_ctrl *c, struct usb_device *u, uint64_t param, uint32_t control, const char *what)
{
	uint32_t cc = command(c, param, control, NULL);
	if (cc == CC_SUCCESS)
		return 0;
	if (cc && error_budget(c))
		kprintf("%s: %s failed: %s (code %u)\n", u ? u->name : c->name, what, xhci_cc_name(cc), cc);
	return -EIO;
}

/* ------------------------------------------------------------ contexts */

static uint32_t *in_ctx(struct usb_device *u, uint32_t dci) { return (uint32_t *)(u->in_ctx + xhci_in_ctx_off(u->c->csz, dci)); }
static uint32_t *out_ctx(struct usb_device *u, uint32_t dci) { return (uint32_t *)(u->out_ctx + xhci_dev_ctx_off(u->c->csz, dci)); }
static uint32_t *in_control(struct usb_device *u) { return (uint32_t *)u->in_ctx; }

static uint32_t ep_state(struct usb_device *u, uint32_t dci) { return XHCI_EP0_STATE(__atomic_load_n(out_ctx(u, dci), __ATOMIC_ACQUIRE)); }

/* An endpoint context for e (fresh ring, dequeue cycle 1). */
static void fill_ep_ctx(uint32_t *ctx, const struct xhci_ep *e)
{
	memset(ctx, 0, 20);
	ctx[1] = XHCI_EP1_CERR(3) | XHCI_EP1_TYPE(e->type) | XHCI_EP1_BURST(e->burst) | XHCI_EP1_MPS(e->mps);
	ctx[2] = (uint32_t)e->ring.phys | 1;
	ctx[3] = (uint32_t)(e->ring.phys >> 32);
	/* 4.14.1.1: 8 for control, 3 KiB a good guess for bulk. */
	ctx[4] = XHCI_EP4_AVG_TRB(e->type == EPT_CONTROL ? 8 : 3072);
}

static int address_device(struct usb_device *u)
{
	struct xhci_ctrl *c = u->c;
	struct xhci_ep *e0 = &u->ep[1];
	if (ring_init(c, &e0->ring))
		return -ENOMEM;
	e0->type = EPT_CONTROL;
	e0->mps = (uint16_t)xhci_ep0_mps(u->speed);
	e0->busy = false;
	memset(u->in_ctx, 0, xhci_in_ctx_bytes(c->csz));
	in_control(u)[1] = 1u << 0 | 1u << 1;           /* add slot and EP0 */
	uint32_t *s = in_ctx(u, 0);
	s[0] = XHCI_SLOT0_SPEED(u->speed) | XHCI_SLOT0_ENTRIES(1) | XHCI_SLOT0_ROUTE(u->route);
	s[1] = XHCI_SLOT1_PORT(u->port);
	s[2] = XHCI_SLOT2_TT_SLOT(u->tt_slot) | XHCI_SLOT2_TT_PORT(u->tt_port);
	fill_ep_ctx(in_ctx(u, 1), e0);
	return command_ok(c, u, u->in_phys, XHCI_TRB_TYPE(TRB_ADDRESS_DEVICE) | XHCI_TRB_SLOT(u->slot),
			  "Address Device");
}

/* The bulk endpoints of u->iface into the slot (Configure Endpoint),
 * each with a fresh ring; drop: drop them first (a reset of their
 * sequence state). */
static int configure_bulk(struct usb_device *u, bool drop)
{
	struct xhci_ctrl *c = u->c;
	const struct usb_bot_iface *f = &u->iface;
	uint32_t din = xhci_dci(f->ep_in), dout = xhci_dci(f->ep_out);
	struct xhci_ep *in = &u->ep[din], *out = &u->ep[dout];
	*in = (struct xhci_ep){ .ring = in->ring, .addr = f->ep_in, .type = EPT_BULK_IN, .burst = f->burst_in,
				.mps = f->mps_in };
	*out = (struct xhci_ep){ .ring = out->ring, .addr = f->ep_out, .type = EPT_BULK_OUT,
				 .burst = f->burst_out, .mps = f->mps_out };
	if (ring_init(c, &in->ring) || ring_init(c, &out->ring))
		return -ENOMEM;
	memset(u->in_ctx, 0, xhci_in_ctx_bytes(c->csz));
	uint32_t flags = 1u << din | 1u << dout;
	in_control(u)[0] = drop ? flags : 0;
	in_control(u)[1] = 1u << 0 | flags;
	uint32_t *s = in_ctx(u, 0);
	memcpy(s, out_ctx(u, 0), 16);
	uint32_t entries = din > dout ? din : dout;
	s[0] = (s[0] & ~XHCI_SLOT0_ENTRIES(31)) | XHCI_SLOT0_ENTRIES(entries);
	s[3] = 0;
	fill_ep_ctx(in_ctx(u, din), in);
	fill_ep_ctx(in_ctx(u, dout), out);
	return command_ok(c, u, u->in_phys, XHCI_TRB_TYPE(TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(u->slot),
			  "Configure Endpoint");
}

/* Leave endpoint e clean after an error or a timeout: stopped or reset,
 * its dequeue pointer at the enqueue position.  The TD is abandoned. */
static int recover_ep(struct usb_device *u, uint32_t dci)
{
	struct xhci_ctrl *c = u->c;
	struct xhci_ep *e = &u->ep[dci];
	uint32_t epsel = XHCI_TRB_EP(dci) | XHCI_TRB_SLOT(u->slot);
	uint32_t st = ep_state(u, dci);
	int err = 0;
	c->st.ep_resets++;
	if (st == EPS_RUNNING)
		err = command_ok(c, u, 0, XHCI_TRB_TYPE(TRB_STOP_EP) | epsel, "Stop Endpoint");
	else if (st == EPS_HALTED)
		err = command_ok(c, u, 0, XHCI_TRB_TYPE(TRB_RESET_EP) | epsel, "Reset Endpoint");
	bool on = spin_lock_irqsave(&c->lock);
	e->busy = false;
	uint64_t deq = (e->ring.phys + e->ring.enq.idx * sizeof(struct xhci_trb)) | (e->ring.enq.cycle ? 1 : 0);
	spin_unlock_irqrestore(&c->lock, on);
	if (!err)
		err = command_ok(c, u, deq, XHCI_TRB_TYPE(TRB_SET_TR_DEQ) | epsel, "Set TR Dequeue Pointer");
	return err ? -ENODEV : 0;
}

/* ------------------------------------------------------------ transfers */

/* Wait for e's TD and turn its ending into an errno.  Sleeps. */
static int finish_td(struct usb_device *u, uint32_t dci, uint64_t timeout_ns, uint32_t *actual)
{
	struct xhci_ctrl *c = u->c;
	struct xhci_ep *e = &u->ep[dci];
	int err = wait_flag(c, u, &e->done, timeout_ns);
	bool on = spin_lock_irqsave(&c->lock);
	uint32_t cc = e->done ? e->cc : 0, got = e->actual;
	if (e->done)
		e->busy = false;
	c->st.transfers++;
	c->st.bytes += got;
	c->st.errors += cc != CC_SUCCESS;
	c->st.timeouts += err == -ETIMEDOUT;
	c->st.stalls += cc == CC_STALL;
	spin_unlock_irqrestore(&c->lock, on);
	if (actual)
		*actual = got;
	if (err == -ENODEV)
		return err;
	if (err == -ETIMEDOUT) {
		if (error_budget(c))
			kprintf("%s: endpoint 0x%02x: no completion in %lu ms; stopping it\n", u->name, e->addr,
				timeout_ns / NS_PER_MS);
		return recover_ep(u, dci) ? -ENODEV : -ETIMEDOUT;
	}
	if (cc == CC_SUCCESS)
		return 0;
	if (cc != CC_STALL && error_budget(c))
		kprintf("%s: endpoint 0x%02x: transfer failed: %s (code %u)\n", u->name, e->addr, xhci_cc_name(cc), cc);
	if (recover_ep(u, dci))
		return -ENODEV;
	return cc == CC_STALL ? -EPIPE : -EIO;
}

/* Start a TD on e.  c->lock held. */
static void td_begin(struct xhci_ep *e)
{
	e->busy = true;
	e->done = false;
	e->first = e->ring.enq.idx;
	e->actual = 0;
	e->short_seen = false;
	e->td_bytes = 0;
}

static void td_end(struct xhci_ep *e)
{
	e->last = (e->ring.enq.idx + RING_TRBS - 2) % (RING_TRBS - 1);  /* the one just written */
}

int usb_control(struct usb_device *u, const struct usb_setup *s, void *buf, uint32_t *actual, uint64_t timeout_ns)
{
	struct xhci_ctrl *c = u->c;
	struct xhci_ep *e = &u->ep[1];
	bool in = s->request_type & 0x80;
	if (s->length > PAGE)
		return -EINVAL;
	mutex_lock(&u->ctl_lock);
	if (usb_gone(u)) {
		mutex_unlock(&u->ctl_lock);
		return -ENODEV;
	}
	if (!in && s->length)
		memcpy(u->buf, buf, s->length);
	uint64_t setup = s->request_type | (uint32_t)s->request << 8 | (uint32_t)s->value << 16 |
			 (uint64_t)s->index << 32 | (uint64_t)s->length << 48;
	uint32_t trt = !s->length ? 0 : in ? 3 : 2;
	bool on = spin_lock_irqsave(&c->lock);
	td_begin(e);
	ring_put(&e->ring, setup, 8, XHCI_TRB_TYPE(TRB_SETUP) | XHCI_TRB_IDT | XHCI_TRB_TRT(trt), false);
	if (s->length)
		ring_put(&e->ring, u->buf_phys, s->length, XHCI_TRB_TYPE(TRB_DATA) | XHCI_TRB_ISP |
			 (in ? XHCI_TRB_DIR_IN : 0), false);
	/* The status stage goes the other way (IN when there is no data). */
	ring_put(&e->ring, 0, 0, XHCI_TRB_TYPE(TRB_STATUS) | XHCI_TRB_IOC | (in && s->length ? 0 : XHCI_TRB_DIR_IN),
		 false);
	e->td_bytes = s->length;
	td_end(e);
	spin_unlock_irqrestore(&c->lock, on);
	doorbell(c, u->slot, 1);
	uint32_t got = 0;
	int err = finish_td(u, 1, timeout_ns, &got);
	if (got > s->length)
		got = s->length;
	if (!err && in)
		memcpy(buf, u->buf, got);
	mutex_unlock(&u->ctl_lock);
	if (actual)
		*actual = got;
	return err;
}

/* Cut segs into TRB pieces (bouncing what the controller cannot reach).
 * Returns the count, or -EINVAL. */
static int bulk_pieces(struct usb_device *u, bool in, const struct usb_seg *segs, uint32_t nsegs,
		       struct xhci_piece *pc, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < nsegs; i++) {
		uint64_t p = segs[i].phys;
		if (!u->c->ac64 && p + segs[i].len > 0x100000000ull) {
			if (i >= XHCI_BOUNCE_PAGES || segs[i].len > PAGE || !u->bounce[i])
				return -EINVAL;
			p = page_to_phys(u->bounce[i]);
			if (!in)
				memcpy(page_address(u->bounce[i]), phys_to_virt(segs[i].phys), segs[i].len);
		}
		uint32_t k = xhci_split(p, segs[i].len, pc + n, max - n);
		if (k > max - n)
			return -EINVAL;
		n += k;
	}
	return (int)n;
}

static void bounce_back(struct usb_device *u, const struct usb_seg *segs, uint32_t nsegs)
{
	for (uint32_t i = 0; i < nsegs; i++)
		if (!u->c->ac64 && segs[i].phys + segs[i].len > 0x100000000ull)
			memcpy(phys_to_virt(segs[i].phys), page_address(u->bounce[i]), segs[i].len);
}

int usb_bulk(struct usb_device *u, uint8_t ep, const struct usb_seg *segs, uint32_t nsegs, uint32_t *actual,
	     uint64_t timeout_ns)
{
	struct xhci_ctrl *c = u->c;
	uint32_t dci = xhci_dci(ep);
	struct xhci_ep *e = dci ? &u->ep[dci] : NULL;
	bool in = ep & 0x80;
	if (actual)
		*actual = 0;
	if (!e || !e->ring.pg || e->addr != ep || !u->configured)
		return -EINVAL;
	struct xhci_piece *pc = kmalloc(XHCI_MAX_TD_TRBS * sizeof *pc);
	if (!pc)
		return -ENOMEM;
	int n = bulk_pieces(u, in, segs, nsegs, pc, XHCI_MAX_TD_TRBS);
	if (n <= 0) {
		kfree(pc);
		return n ? n : -EINVAL;
	}
	uint64_t total = 0, left;
	for (int i = 0; i < n; i++)
		total += pc[i].len;
	left = total;
	bool on = spin_lock_irqsave(&c->lock);
	if (e->busy || c->dead || u->gone) {
		spin_unlock_irqrestore(&c->lock, on);
		kfree(pc);
		return c->dead || u->gone ? -ENODEV : -EBUSY;
	}
	td_begin(e);
	for (int i = 0; i < n; i++) {
		bool more = i + 1 < n;
		left -= pc[i].len;
		uint32_t ctl = XHCI_TRB_TYPE(TRB_NORMAL) | (more ? XHCI_TRB_CH : XHCI_TRB_IOC) | (in ? XHCI_TRB_ISP : 0);
		ring_put(&e->ring, pc[i].phys, pc[i].len | XHCI_TRB_TD_SIZE(more ? xhci_td_size(left, e->mps) : 0),
			 ctl, more);
	}
	e->td_bytes = (uint32_t)total;
	td_end(e);
	spin_unlock_irqrestore(&c->lock, on);
	kfree(pc);
	doorbell(c, u->slot, dci);
	uint32_t got = 0;
	int err = finish_td(u, dci, timeout_ns, &got);
	if (!err && in)
		bounce_back(u, segs, nsegs);
	if (actual)
		*actual = got;
	return err;
}

uint32_t usb_max_transfer(const struct usb_device *u) { (void)u; return XHCI_MAX_XFER; }
const char *usb_name(const struct usb_device *u) { return u->name; }
bool usb_gone(const struct usb_device *u) { return u->gone || u->c->dead; }
uint32_t usb_speed(const struct usb_device *u) { return u->speed; }
const struct usb_dev_desc *usb_desc(const struct usb_device *u) { return &u->desc; }

static int alloc_bounce(struct usb_device *u)
{
	if (u->c->ac64)
		return 0;
	for (uint32_t i = 0; i < XHCI_BOUNCE_PAGES; i++)
		if (!u->bounce[i] && !(u->bounce[i] = dma_alloc(u->c, 0)))
			return -ENOMEM;
	return 0;
}

int usb_configure_bulk(struct usb_device *u, const struct usb_bot_iface *f)
{
	u->iface = *f;
	int err = alloc_bounce(u);
	if (!err)
		err = configure_bulk(u, false);
	if (err)
		return err;
	struct usb_setup s = { 0x00, 9, f->config_value, 0, 0 };       /* SET_CONFIGURATION */
	err = usb_control(u, &s, NULL, NULL, XHCI_CTRL_TIMEOUT_NS);
	u->configured = !err;
	return err;
}

int usb_clear_halt(struct usb_device *u, uint8_t ep)
{
	struct usb_setup s = { 0x02, 1, 0, ep, 0 };    /* CLEAR_FEATURE(ENDPOINT_HALT) */
	int err = usb_control(u, &s, NULL, NULL, XHCI_CTRL_TIMEOUT_NS);
	if (err)
		return err;
	/* The device's data toggle is now DATA0; the host's goes there by
	 * dropping and adding the endpoint (both bulk ones: simpler, and a
	 * recovery resets both anyway). */
	return configure_bulk(u, true);
}

/* ------------------------------------------------------------ ports */

static uint32_t portsc(struct xhci_ctrl *c, uint32_t port) { return op_rd(c, XHCI_OP_PORTSC(port)); }

/* Reset a port (hot reset) and wait for it to come back enabled.
 * Returns 0 or -EIO. */
static int port_reset(struct xhci_ctrl *c, uint32_t port)
{
	uint32_t v = portsc(c, port);
	op_wr(c, XHCI_OP_PORTSC(port), XHCI_PORTSC_KEEP(v) | XHCI_PORTSC_PR);
	uint64_t end = time_ns() + XHCI_PORT_RESET_MS * NS_PER_MS;
	while (!((v = portsc(c, port)) & XHCI_PORTSC_PRC) && time_ns() < end)
		sleep_ms(1);
	op_wr(c, XHCI_OP_PORTSC(port), XHCI_PORTSC_KEEP(v) | (v & XHCI_PORTSC_CHANGES));
	bool on = spin_lock_irqsave(&c->lock);
	c->st.port_resets++;
	spin_unlock_irqrestore(&c->lock, on);
	if (!(v & XHCI_PORTSC_PRC) || !(v & XHCI_PORTSC_PED))
		return -EIO;
	sleep_ms(XHCI_RESET_RECOVERY_MS);
	return 0;
}

/* The port connected and enabled, speed known; reset when needed (USB 2
 * ports always need one, USB 3 ports enable themselves on link
 * training).  0 or -EIO. */
static int port_ready(struct xhci_ctrl *c, uint32_t port)
{
	uint32_t v = portsc(c, port);
	if (!(v & XHCI_PORTSC_CCS))
		return -EIO;
	if (c->port_major[port] != 3 || !(v & XHCI_PORTSC_PED)) {
		if (port_reset(c, port))
			return -EIO;
	} else {
		op_wr(c, XHCI_OP_PORTSC(port), XHCI_PORTSC_KEEP(v) | (v & XHCI_PORTSC_CHANGES));
	}
	return 0;
}

/* ------------------------------------------------------------ devices */

static void device_free(struct usb_device *u)
{
	struct xhci_ctrl *c = u->c;
	if (u->slot) {
		c->slots[u->slot] = NULL;
		c->dcbaa[u->slot] = 0;
	}
	for (int i = 0; i <= XHCI_MAX_DCI; i++)
		dma_free(&u->ep[i].ring.pg, 0);
	for (uint32_t i = 0; i < XHCI_BOUNCE_PAGES; i++)
		dma_free(&u->bounce[i], 0);
	dma_free(&u->in_pg, 0);
	dma_free(&u->out_pg, 0);
	dma_free(&u->buf_pg, 0);
	kfree(u);
}

/* A device on root port port (hub NULL), or on port port of hub (its
 * route string must have room: hub->tier < 5, port 1..15). */
static struct usb_device *device_new(struct xhci_ctrl *c, struct usb_device *hub, uint32_t port)
{
	struct usb_device *u = kzalloc(sizeof *u);
	if (!u)
		return NULL;
	u->c = c;
	u->hub = hub;
	if (!hub) {
		u->port = (uint8_t)port;
		ksnprintf(u->name, sizeof u->name, "xhci%d-port%u", c->index, port);
	} else {
		u->port = hub->port;
		u->hub_port = (uint8_t)port;
		u->tier = (uint8_t)(hub->tier + 1);
		if (usb_route_child(hub->route, hub->tier, port, &u->route))
			ASSERT(!"hub tier or port out of range");
		ksnprintf(u->name, sizeof u->name, "%s.%u", hub->name, port);
	}
	mutex_init(&u->ctl_lock, "usb-ctl");
	if (!(u->in_ctx = dma_page(c, &u->in_pg, &u->in_phys)) || !(u->out_ctx = dma_page(c, &u->out_pg, &u->out_phys)) ||
	    !(u->buf = dma_page(c, &u->buf_pg, &u->buf_phys))) {
		device_free(u);
		return NULL;
	}
	return u;
}

/* Enable Slot, Address Device.  NULL, or why not. */
static const char *device_address(struct usb_device *u)
{
	struct xhci_ctrl *c = u->c;
	uint8_t slot = 0;
	uint32_t cc = command(c, 0, XHCI_TRB_TYPE(TRB_ENABLE_SLOT), &slot);
	if (cc != CC_SUCCESS || !slot)
		return cc == CC_NO_SLOTS ? "no device slot free (Enable Slot)" : "Enable Slot failed";
	if (slot > XHCI_MAX_SLOTS || slot > c->max_slots) {
		command(c, 0, XHCI_TRB_TYPE(TRB_DISABLE_SLOT) | XHCI_TRB_SLOT(slot), NULL);
		return "slot ID beyond the slots enabled";
	}
	u->slot = slot;
	c->dcbaa[slot] = u->out_phys;
	c->slots[slot] = u;
	return address_device(u) ? "Address Device failed" : NULL;
}

/* Full speed: EP0's packet size is 8, 16, 32 or 64 (USB 2.0 5.5.3) and
 * known only from the descriptor's first 8 bytes; until then packets of
 * 8 work.  Tell the slot with Evaluate Context (4.6.7). */
static int fix_ep0_mps(struct usb_device *u)
{
	uint8_t dd[8];
	uint32_t got = 0;
	struct usb_setup s = { 0x80, 6, 1u << 8, 0, sizeof dd };
	int err = usb_control(u, &s, dd, &got, XHCI_CTRL_TIMEOUT_NS);
	if (err || got < 8)
		return err ? err : -EIO;
	uint32_t mps = dd[7];
	if (mps != 8 && mps != 16 && mps != 32 && mps != 64)
		return -EIO;
	u->ep[1].mps = (uint16_t)mps;
	memset(u->in_ctx, 0, xhci_in_ctx_bytes(u->c->csz));
	in_control(u)[1] = 1u << 1;
	memcpy(in_ctx(u, 1), out_ctx(u, 1), 20);
	uint32_t *ep0 = in_ctx(u, 1);
	ep0[1] = (ep0[1] & 0xffffu) | XHCI_EP1_MPS(mps);
	return command_ok(u->c, u, u->in_phys, XHCI_TRB_TYPE(TRB_EVALUATE_CTX) | XHCI_TRB_SLOT(u->slot),
			  "Evaluate Context");
}

/* Device descriptor and the whole configuration descriptor set (into
 * cfg, PAGE bytes).  NULL, or why not. */
static const char *read_descriptors(struct usb_device *u, uint8_t *cfg, uint32_t *cfg_len)
{
	uint8_t dd[18];
	uint32_t got = 0;
	if (u->speed == XHCI_SPEED_FULL && fix_ep0_mps(u))
		return "the control endpoint's packet size cannot be set";
	struct usb_setup s = { 0x80, 6, 1u << 8, 0, sizeof dd };       /* GET_DESCRIPTOR(DEVICE) */
	if (usb_control(u, &s, dd, &got, XHCI_CTRL_TIMEOUT_NS))
		return "GET_DESCRIPTOR(device) failed";
	int err = usb_parse_device(dd, got, &u->desc);
	if (err)
		return usb_desc_strerror(err);
	s = (struct usb_setup){ 0x80, 6, 2u << 8, 0, 9 };               /* GET_DESCRIPTOR(CONFIGURATION 0) */
	uint16_t total = 0;
	if (usb_control(u, &s, cfg, &got, XHCI_CTRL_TIMEOUT_NS))
		return "GET_DESCRIPTOR(configuration) failed";
	if ((err = usb_config_total_len(cfg, got, &total)))
		return usb_desc_strerror(err);
	s.length = total < PAGE ? total : PAGE;
	if (usb_control(u, &s, cfg, &got, XHCI_CTRL_TIMEOUT_NS))
		return "GET_DESCRIPTOR(configuration set) failed";
	*cfg_len = got;
	return NULL;
}

static void device_record(const struct usb_device *u, const char *error, bool taken)
{
	struct json *j = rec_begin("usb_device");
	json_str(j, "name", u->name);
	json_str(j, "controller", u->c->name);
	json_u64(j, "port", u->port);
	json_u64(j, "usb_major", u->c->port_major[u->port]);
	json_str(j, "hub", u->hub ? u->hub->name : "");
	json_u64(j, "hub_port", u->hub_port);
	json_hex(j, "route", u->route);
	json_str(j, "speed", xhci_speed_name(u->speed));
	json_u64(j, "slot", u->slot);
	json_bool(j, "ok", error == NULL);
	if (error)
		json_str(j, "error", error);
	json_hex(j, "vendor", u->desc.vendor);
	json_hex(j, "product", u->desc.product);
	json_u64(j, "class", u->desc.cls);
	json_bool(j, "driver", taken);
	rec_end();
}

static bool hub_probe(struct usb_device *u, uint8_t *cfg, uint32_t cfg_len);

/* Address u (its port reset and speed known), read its descriptors and
 * offer it to a driver: the hub driver here, or the class drivers.  why:
 * the port could not be made ready (then only the record).  cfg: a
 * scratch page for the configuration descriptors. */
static void attach(struct usb_device *u, const char *why, uint8_t *cfg)
{
	struct xhci_ctrl *c = u->c;
	if (!why && !xhci_ep0_mps(u->speed))
		why = "unknown port speed";
	if (!why)
		why = device_address(u);
	uint32_t cfg_len = 0;
	if (!why)
		why = read_descriptors(u, cfg, &cfg_len);
	if (why) {
		kprintf("%s: device not used: %s\n", u->name, why);
		device_record(u, why, false);
		if (u->slot)
			command(c, 0, XHCI_TRB_TYPE(TRB_DISABLE_SLOT) | XHCI_TRB_SLOT(u->slot), NULL);
		device_free(u);
		return;
	}
	kprintf("%s: %04x:%04x USB %x.%02x, %s, slot %u\n", u->name, u->desc.vendor, u->desc.product,
		u->desc.bcd_usb >> 8, u->desc.bcd_usb & 0xff, xhci_speed_name(u->speed), u->slot);
	c->ndevs++;
	if (u->desc.cls == 9) {
		device_record(u, NULL, true);
		hub_probe(u, cfg, cfg_len);
		return;
	}
	bool taken = usb_storage_probe(u, cfg, cfg_len);
	device_record(u, NULL, taken);
	if (!taken)
		kprintf("%s: no driver here for this device (class %u); left unconfigured\n", u->name, u->desc.cls);
}

/* Bring up whatever is on a root port. */
static void probe_port(struct xhci_ctrl *c, uint32_t port, uint8_t *cfg)
{
	if (!(portsc(c, port) & XHCI_PORTSC_CCS))
		return;
	struct usb_device *u = device_new(c, NULL, port);
	if (!u) {
		kprintf("%s: port %u: out of memory for the device\n", c->name, port);
		return;
	}
	const char *why = port_ready(c, port) ? "the port does not enable after a reset" : NULL;
	u->speed = XHCI_PORTSC_SPEED(portsc(c, port));
	attach(u, why, cfg);
}

/* ------------------------------------------------------------ hubs */

#define HUB_PORT_RESET_MS       500     /* Linux waits 10 x 50 ms */
#define HUB_POWER_MIN_MS        100     /* USB 2.0 7.1.7.3: 100 ms for power to settle */

/* A hub class request with no data stage (feature to a port). */
static int hub_feature(struct usb_device *hub, bool set, uint16_t feature, uint16_t port)
{
	struct usb_setup s = { 0x23, set ? 3 : 1, feature, port, 0 };  /* SET_/CLEAR_FEATURE, other */
	return usb_control(hub, &s, NULL, NULL, XHCI_CTRL_TIMEOUT_NS);
}

/* GET_STATUS of a hub port: *status, *change.  0 or an errno. */
static int hub_port_status(struct usb_device *hub, uint16_t port, uint16_t *status, uint16_t *change)
{
	uint8_t b[4];
	uint32_t got = 0;
	struct usb_setup s = { 0xa3, 0, 0, port, 4 };
	int err = usb_control(hub, &s, b, &got, XHCI_CTRL_TIMEOUT_NS);
	if (!err && got < 4)
		err = -EIO;
	*status = err ? 0 : (uint16_t)(b[0] | b[1] << 8);
	*change = err ? 0 : (uint16_t)(b[2] | b[3] << 8);
	return err;
}

/* Reset hub port and wait for it to come back enabled (11.24.2.7.1.5).
 * *status: the port's status after.  0 or -EIO. */
static int hub_port_reset(struct usb_device *hub, uint16_t port, uint16_t *status)
{
	uint16_t change = 0;
	*status = 0;
	if (hub_feature(hub, true, USB_PORT_FEAT_RESET, port))
		return -EIO;
	bool on = spin_lock_irqsave(&hub->c->lock);
	hub->c->st.port_resets++;
	spin_unlock_irqrestore(&hub->c->lock, on);
	uint64_t end = time_ns() + HUB_PORT_RESET_MS * NS_PER_MS;
	do {
		sleep_ms(10);
		if (hub_port_status(hub, port, status, &change))
			return -EIO;
	} while (!(change & USB_PORT_STAT_C_RESET) && time_ns() < end);
	hub_feature(hub, false, USB_PORT_FEAT_C_RESET, port);
	hub_feature(hub, false, USB_PORT_FEAT_C_CONNECTION, port);
	if (!(change & USB_PORT_STAT_C_RESET) || !(*status & USB_PORT_STAT_ENABLE))
		return -EIO;
	sleep_ms(XHCI_RESET_RECOVERY_MS);
	return 0;
}

/* Configure the hub and tell the controller it is one (the slot's Hub
 * bit, port count, TT think time: 4.6.6, 6.2.2).  NULL or why not. */
static const char *hub_setup(struct usb_device *u, const uint8_t *cfg, uint32_t cfg_len)
{
	bool super = u->speed >= XHCI_SPEED_SUPER;
	struct usb_hub_desc h;
	uint32_t got = 0;
	if (cfg_len < 9)
		return "no configuration descriptor";
	struct usb_setup s = { 0x00, 9, cfg[5], 0, 0 };                /* SET_CONFIGURATION */
	if (usb_control(u, &s, NULL, NULL, XHCI_CTRL_TIMEOUT_NS))
		return "SET_CONFIGURATION failed";
	uint8_t d[16];
	s = (struct usb_setup){ 0xa0, 6, (super ? 0x2a : 0x29) << 8, 0, sizeof d };   /* GET_DESCRIPTOR(HUB) */
	if (usb_control(u, &s, d, &got, XHCI_CTRL_TIMEOUT_NS))
		return "GET_DESCRIPTOR(hub) failed";
	int err = usb_parse_hub_desc(d, got, super, &h);
	if (err)
		return usb_desc_strerror(err);
	u->hub_nports = h.nports > 15 ? 15 : h.nports;                 /* a route nibble holds 15 */
	if (h.nports > 15)
		kprintf("%s: hub has %u ports; only 1..15 are reachable through a route string\n", u->name, h.nports);
	s = (struct usb_setup){ 0x20, 12, u->tier, 0, 0 };              /* SET_HUB_DEPTH (USB 3.2 10.16.2.9) */
	if (super && usb_control(u, &s, NULL, NULL, XHCI_CTRL_TIMEOUT_NS))
		return "SET_HUB_DEPTH failed";
	struct xhci_ctrl *c = u->c;
	memset(u->in_ctx, 0, xhci_in_ctx_bytes(c->csz));
	in_control(u)[1] = 1u << 0;
	uint32_t *sl = in_ctx(u, 0);
	memcpy(sl, out_ctx(u, 0), 16);
	sl[0] |= XHCI_SLOT0_HUB;
	sl[1] = (sl[1] & 0x00ffffffu) | XHCI_SLOT1_NPORTS(u->hub_nports);
	if (u->speed == XHCI_SPEED_HIGH)
		sl[2] = (sl[2] & ~XHCI_SLOT2_TTT(3)) | XHCI_SLOT2_TTT((h.characteristics >> 5) & 3);
	sl[3] = 0;
	if (command_ok(c, u, u->in_phys, XHCI_TRB_TYPE(TRB_CONFIGURE_EP) | XHCI_TRB_SLOT(u->slot),
		       "Configure Endpoint (hub)"))
		return "the controller does not take the hub's slot context";
	u->configured = true;
	for (uint16_t p = 1; p <= u->hub_nports; p++)
		hub_feature(u, true, USB_PORT_FEAT_POWER, p);
	sleep_ms(h.power_good_ms > HUB_POWER_MIN_MS ? h.power_good_ms : HUB_POWER_MIN_MS);
	return NULL;
}

/* The device on hub port p, reset and brought up. */
static void hub_attach_port(struct usb_device *hub, uint16_t p, uint8_t *cfg)
{
	uint16_t st = 0, ch = 0;
	if (hub_port_status(hub, p, &st, &ch) || !(st & USB_PORT_STAT_CONNECTION))
		return;
	if (hub->tier >= 5) {   /* a sixth hub: no route nibble left for its child */
		kprintf("%s.%u: device not used: more than five hubs deep\n", hub->name, p);
		return;
	}
	struct usb_device *u = device_new(hub->c, hub, p);
	if (!u) {
		kprintf("%s: port %u: out of memory for the device\n", hub->name, p);
		return;
	}
	const char *why = NULL;
	if (hub->speed >= XHCI_SPEED_SUPER) {
		/* USB 3 hub ports: the link trains by itself; speed is SuperSpeed. */
		u->speed = XHCI_SPEED_SUPER;
		if (hub_port_reset(hub, p, &st))
			why = "the hub port does not enable after a reset";
	} else {
		if (hub_port_reset(hub, p, &st))
			why = "the hub port does not enable after a reset";
		u->speed = usb_hub_port_speed(st);
	}
	if (u->speed < XHCI_SPEED_HIGH && hub->speed == XHCI_SPEED_HIGH) {
		u->tt_slot = hub->slot;         /* the HS hub's TT talks to it */
		u->tt_port = (uint8_t)p;
	} else {
		u->tt_slot = hub->tt_slot;
		u->tt_port = hub->tt_port;
	}
	attach(u, why, cfg);
}

/* A hub: set up, then each connected port's device.  Returns true (the
 * hub is ours, even when it fails: no class driver takes hubs). */
static bool hub_probe(struct usb_device *u, uint8_t *cfg, uint32_t cfg_len)
{
	const char *why = hub_setup(u, cfg, cfg_len);
	if (why) {
		kprintf("%s: hub not used: %s\n", u->name, why);
		return true;
	}
	kprintf("%s: hub with %u ports, tier %u\n", u->name, u->hub_nports, u->tier + 1);
	/* cfg is free again: the hub's descriptors were read. */
	for (uint16_t p = 1; p <= u->hub_nports && !u->c->dead; p++)
		hub_attach_port(u, p, cfg);
	return true;
}

/* Reset the port the device is on: a root port, or its hub's port. */
static int device_port_reset(struct usb_device *u)
{
	uint16_t st;
	if (u->hub)
		return hub_port_reset(u->hub, u->hub_port, &st);
	return port_reset(u->c, u->port);
}

int usb_reset_device(struct usb_device *u)
{
	struct xhci_ctrl *c = u->c;
	if (usb_gone(u))
		return -ENODEV;
	kprintf("%s: resetting the device (port reset, addressed and configured again)\n", u->name);
	bool on = spin_lock_irqsave(&c->lock);
	c->st.device_resets++;
	for (int i = 0; i <= XHCI_MAX_DCI; i++)
		u->ep[i].busy = false;
	spin_unlock_irqrestore(&c->lock, on);
	u->configured = false;
	/* Reset Device takes the slot back to Default (4.6.11); a slot the
	 * controller already reset that way answers with a context error. */
	command(c, 0, XHCI_TRB_TYPE(TRB_RESET_DEVICE) | XHCI_TRB_SLOT(u->slot), NULL);
	if (device_port_reset(u) || address_device(u) || configure_bulk(u, false)) {
		kprintf("%s: the device did not come back from its reset\n", u->name);
		return -ENODEV;
	}
	struct usb_setup s = { 0x00, 9, u->iface.config_value, 0, 0 };
	if (usb_control(u, &s, NULL, NULL, XHCI_CTRL_TIMEOUT_NS))
		return -ENODEV;
	u->configured = true;
	return 0;
}

/* ------------------------------------------------------------ controller bring-up */

/* Extended capabilities: the BIOS handoff (7.1) and each port's
 * protocol (7.2). */
static void walk_xcaps(struct xhci_ctrl *c)
{
	uint64_t bar = c->pci->bar[0].size;
	uint32_t off = XHCI_HCC1_XECP(c->hcc1) * 4;
	for (int guard = 0; off && off + 12 <= bar && guard < 64; guard++) {
		volatile uint32_t *cap = (volatile uint32_t *)(c->base + off);
		uint32_t v = cap[0];
		if (XHCI_XCAP_ID(v) == XHCI_XCAP_LEGACY) {
			if (v & XHCI_LEGSUP_BIOS_OWNED) {
				cap[0] = v | XHCI_LEGSUP_OS_OWNED;
				uint64_t end = time_ns() + XHCI_HANDOFF_MS * NS_PER_MS;
				while ((cap[0] & XHCI_LEGSUP_BIOS_OWNED) && time_ns() < end)
					sleep_ms(1);
				if (cap[0] & XHCI_LEGSUP_BIOS_OWNED) {
					kprintf("%s: firmware keeps the controller after 1 s; taking it anyway\n", c->name);
					cap[0] = (cap[0] & ~XHCI_LEGSUP_BIOS_OWNED) | XHCI_LEGSUP_OS_OWNED;
				}
			}
			/* No more SMIs from the controller; clear pending ones. */
			cap[1] = (cap[1] & ~XHCI_LEGCTL_SMI_ENABLES) | XHCI_LEGCTL_SMI_EVENTS;
		} else if (XHCI_XCAP_ID(v) == XHCI_XCAP_PROTOCOL) {
			uint32_t p = cap[2], first = XHCI_PROTO_PORT_OFF(p), cnt = XHCI_PROTO_PORT_CNT(p);
			for (uint32_t i = first; cnt && i < first + cnt && i <= XHCI_MAX_PORTS; i++)
				c->port_major[i] = (uint8_t)XHCI_PROTO_MAJOR(v);
		}
		off = XHCI_XCAP_NEXT(v) ? off + XHCI_XCAP_NEXT(v) * 4 : 0;
	}
}

/* Halt, then reset (4.2, 5.4.1).  NULL or why not. */
static const char *ctrl_reset(struct xhci_ctrl *c)
{
	op_wr(c, XHCI_OP_USBCMD, op_rd(c, XHCI_OP_USBCMD) & ~(XHCI_CMD_RS | XHCI_CMD_INTE));
	if (wait_reg(c, true, XHCI_OP_USBSTS, XHCI_STS_HCH, XHCI_STS_HCH, XHCI_HALT_MS))
		return "the controller does not halt (USBSTS.HCH stays 0)";
	op_wr(c, XHCI_OP_USBCMD, XHCI_CMD_HCRST);
	if (wait_reg(c, true, XHCI_OP_USBCMD, XHCI_CMD_HCRST, 0, XHCI_RESET_MS) ||
	    wait_reg(c, true, XHCI_OP_USBSTS, XHCI_STS_CNR, 0, XHCI_RESET_MS))
		return "the controller does not come out of reset (HCRST or CNR stays 1)";
	return NULL;
}

static const char *alloc_scratchpads(struct xhci_ctrl *c)
{
	if (!c->nscratch)
		return NULL;
	c->scratch_arr_order = c->nscratch * 8 > PAGE ? 1 : 0;
	c->scratch_arr_pg = dma_alloc(c, c->scratch_arr_order);
	c->scratch_pg = kzalloc(c->nscratch * sizeof *c->scratch_pg);
	if (!c->scratch_arr_pg || !c->scratch_pg)
		return "out of memory for scratchpad buffers";
	uint64_t *arr = page_address(c->scratch_arr_pg);
	for (uint32_t i = 0; i < c->nscratch; i++) {
		if (!(c->scratch_pg[i] = dma_alloc(c, 0)))
			return "out of memory for scratchpad buffers";
		arr[i] = page_to_phys(c->scratch_pg[i]);
	}
	c->dcbaa[0] = page_to_phys(c->scratch_arr_pg);
	return NULL;
}

/* DCBAA, scratchpads, command ring, event ring and ERST.  NULL or why not. */
static const char *alloc_structures(struct xhci_ctrl *c)
{
	if (!(c->dcbaa = dma_page(c, &c->dcbaa_pg, &c->dcbaa_phys)) || ring_init(c, &c->cmd) ||
	    !(c->evt = dma_page(c, &c->evt_pg, &c->evt_phys)) || !(c->erst = dma_page(c, &c->erst_pg, &c->erst_phys)))
		return "out of memory for the rings";
	c->erst[0] = (struct xhci_erst_entry){ c->evt_phys, EVENT_TRBS, 0 };
	c->evt_deq = (struct xhci_ring_pos){ 0, true };
	return alloc_scratchpads(c);
}

/* Program the structures and run (4.2).  NULL or why not. */
static const char *ctrl_start(struct xhci_ctrl *c)
{
	op_wr(c, XHCI_OP_CONFIG, (op_rd(c, XHCI_OP_CONFIG) & ~0xffu) | c->max_slots);
	op_wr64(c, XHCI_OP_DCBAAP, c->dcbaa_phys);
	op_wr64(c, XHCI_OP_CRCR, c->cmd.phys | XHCI_CRCR_RCS);
	op_wr(c, XHCI_OP_DNCTRL, 0);
	rt_wr(c, XHCI_RT_ERSTSZ, 1);
	rt_wr64(c, XHCI_RT_ERDP, c->evt_phys);
	rt_wr64(c, XHCI_RT_ERSTBA, c->erst_phys);
	rt_wr(c, XHCI_RT_IMOD, 160);                    /* 40 us between interrupts at most */
	bool irq = c->irq_mode != IRQ_POLL;
	rt_wr(c, XHCI_RT_IMAN, XHCI_IMAN_IP | (irq ? XHCI_IMAN_IE : 0));
	op_wr(c, XHCI_OP_USBCMD, XHCI_CMD_RS | (irq ? XHCI_CMD_INTE : 0) | XHCI_CMD_HSEE);
	if (wait_reg(c, true, XHCI_OP_USBSTS, XHCI_STS_HCH, 0, XHCI_HALT_MS))
		return "the controller does not run (USBSTS.HCH stays 1)";
	/* Ports without power (HCCPARAMS1.PPC) get it now; 20 ms to settle. */
	bool powered = false;
	for (uint32_t p = 1; p <= c->max_ports; p++) {
		uint32_t v = portsc(c, p);
		if (!(v & XHCI_PORTSC_PP)) {
			op_wr(c, XHCI_OP_PORTSC(p), XHCI_PORTSC_KEEP(v) | XHCI_PORTSC_PP);
			powered = true;
		}
	}
	if (powered)
		sleep_ms(20);
	return NULL;
}

static void setup_irq(struct xhci_ctrl *c)
{
	struct pci_dev *d = c->pci;
	c->vec = irq_alloc(c->name, xhci_irq, c);
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
	c->vec = pci_intx_route(d, xhci_irq, c, c->name);
	c->irq_mode = c->vec >= 0 ? IRQ_INTX : IRQ_POLL;
	if (c->irq_mode == IRQ_POLL)
		kprintf("%s: no usable interrupt (MSI-X, MSI, INTx): waiting by polling\n", c->name);
}

/* Map the registers and read what the controller offers.  NULL or why not. */
static const char *probe_regs(struct xhci_ctrl *c)
{
	pci_enable(c->pci, true, false, true);
	c->base = pci_map_bar(c->pci, 0);
	if (!c->base)
		return "BAR0 cannot be mapped";
	uint32_t caplen = cap_rd(c, XHCI_CAP_CAPLENGTH);
	if (caplen == 0xffffffffu)
		return "registers read all ones";
	c->version = (uint16_t)(caplen >> 16);
	c->op = c->base + (caplen & 0xff);
	c->rt = c->base + (cap_rd(c, XHCI_CAP_RTSOFF) & ~0x1fu);
	c->db = (volatile uint32_t *)(c->base + (cap_rd(c, XHCI_CAP_DBOFF) & ~0x3u));
	c->hcs1 = cap_rd(c, XHCI_CAP_HCSPARAMS1);
	c->hcs2 = cap_rd(c, XHCI_CAP_HCSPARAMS2);
	c->hcc1 = cap_rd(c, XHCI_CAP_HCCPARAMS1);
	c->csz = xhci_ctx_size(c->hcc1);
	c->ac64 = c->hcc1 & XHCI_HCC1_AC64;
	c->nscratch = XHCI_HCS2_SCRATCH(c->hcs2);
	c->max_ports = XHCI_HCS1_MAX_PORTS(c->hcs1);
	c->max_slots = XHCI_HCS1_MAX_SLOTS(c->hcs1);
	if (c->max_slots > XHCI_MAX_SLOTS)
		c->max_slots = XHCI_MAX_SLOTS;
	if (!c->max_slots || !c->max_ports)
		return "no device slots or no ports (HCSPARAMS1)";
	if (!(op_rd(c, XHCI_OP_PAGESIZE) & 1))
		return "4 KiB pages not supported (PAGESIZE)";
	return NULL;
}

static void probe_record(const struct xhci_ctrl *c, const char *error)
{
	struct json *j = rec_begin("xhci");
	json_str(j, "name", c->name);
	json_str(j, "pci", c->pci->name);
	json_bool(j, "ok", error == NULL);
	if (error)
		json_str(j, "error", error);
	json_hex(j, "version", c->version);
	json_u64(j, "ports", c->max_ports);
	json_u64(j, "slots", c->max_slots);
	json_u64(j, "context_bytes", c->csz);
	json_bool(j, "ac64", c->ac64);
	json_u64(j, "scratchpads", c->nscratch);
	json_str(j, "interrupts", irq_mode_name[c->irq_mode]);
	json_u64(j, "devices", (uint64_t)c->ndevs);
	rec_end();
}

static const char *probe_ctrl(struct xhci_ctrl *c)
{
	const char *why = probe_regs(c);
	if (!why) {
		walk_xcaps(c);
		why = ctrl_reset(c);
	}
	if (!why)
		why = alloc_structures(c);
	if (!why) {
		setup_irq(c);
		why = ctrl_start(c);
	}
	return why;
}

static struct xhci_ctrl *ctrl_new(struct pci_dev *d, int index)
{
	struct xhci_ctrl *c = kzalloc(sizeof *c);
	if (!c)
		return NULL;
	c->index = index;
	c->pci = d;
	c->vec = -1;
	ksnprintf(c->name, sizeof c->name, "xhci%d", index);
	spin_init(&c->lock, "xhci");
	mutex_init(&c->cmd_lock, "xhci-cmd");
	waitq_init(&c->wq, "xhci");
	return c;
}

/* A failed probe leaves the controller halted and quiet; its memory is
 * kept (an INTx handler may still look at c, and a half-started
 * controller may hold addresses of the rings). */
static void probe_fail(struct xhci_ctrl *c, const char *why)
{
	kprintf("%s: %s: not used: %s\n", c->name, c->pci->name, why);
	if (c->op)
		op_wr(c, XHCI_OP_USBCMD, 0);
	c->dead = true;
	pci_enable(c->pci, true, false, false);
	probe_record(c, why);
}

static void probe(struct pci_dev *d, int index)
{
	struct xhci_ctrl *c = ctrl_new(d, index);
	struct page *cfg = pmm_alloc(0, PMM_ZERO | PMM_KERNEL);
	if (!c || !cfg || xh.n == XHCI_MAX_CTRLS) {
		kprintf("xhci%d: %s: not used: out of memory or too many controllers\n", index, d->name);
		kfree(c);
		if (cfg)
			pmm_free(cfg, 0);
		return;
	}
	const char *why = probe_ctrl(c);
	if (why) {
		pmm_free(cfg, 0);
		probe_fail(c, why);
		return;
	}
	xh.ctrls[xh.n++] = c;
	kprintf("%s: %s xHCI %x.%02x, %u ports, %u slots, %u-byte contexts, %s, %s, %u scratchpads\n", c->name,
		d->name, c->version >> 8, c->version & 0xff, c->max_ports, c->max_slots, c->csz,
		c->ac64 ? "64-bit DMA" : "32-bit DMA", irq_mode_name[c->irq_mode], c->nscratch);
	for (uint32_t p = 1; p <= c->max_ports && !c->dead; p++)
		probe_port(c, p, page_address(cfg));
	pmm_free(cfg, 0);
	probe_record(c, NULL);
}

/* ------------------------------------------------------------ halt */

static void xhci_halt(void)
{
	for (int i = 0; i < xh.n; i++) {
		struct xhci_ctrl *c = xh.ctrls[i];
		struct xhci_stats s;
		bool on = spin_lock_irqsave(&c->lock);
		s = c->st;
		spin_unlock_irqrestore(&c->lock, on);
		struct json *j = rec_begin("xhci_stats");
		json_str(j, "name", c->name);
		json_u64(j, "commands", s.commands);
		json_u64(j, "transfers", s.transfers);
		json_u64(j, "bytes", s.bytes);
		json_u64(j, "errors", s.errors);
		json_u64(j, "timeouts", s.timeouts);
		json_u64(j, "stalls", s.stalls);
		json_u64(j, "endpoint_resets", s.ep_resets);
		json_u64(j, "port_resets", s.port_resets);
		json_u64(j, "device_resets", s.device_resets);
		json_u64(j, "interrupts", s.irqs);
		json_u64(j, "events", s.events);
		json_u64(j, "events_polled", s.events_polled);
		json_u64(j, "stale_events", s.stale_events);
		json_u64(j, "disconnects", s.disconnects);
		rec_end();
	}
}

void xhci_init(void)
{
	int index = 0;
	for (struct pci_dev *d = NULL; (d = pci_find_class(0x0c, 0x03, 0x30, d));)
		probe(d, index++);
	if (xh.n)
		halt_register_hook(xhci_halt);
}
