/*
 * Clock and timers.
 *
 * The clock is the TSC scaled by the calibrated rate; the tick comes from
 * the local APIC timer (divide-by-16, its input rate measured against the
 * TSC over 5 ms).  Two modes:
 *   periodic: the timer fires every 1/HZ; ktimers expire on the next tick;
 *   oneshot (default): the timer is re-armed after every interrupt for the
 *     next tick or the earliest ktimer, whichever is first, so a sleeper
 *     wakes within microseconds of its deadline instead of up to a tick
 *     late (the latency probe of the seed-002 workload needs that).
 * Each tick counts, fires expired ktimers, and lets the scheduler account
 * the running thread's time slice.
 *
 * Under QEMU TCG the TSC follows the host clock (or, with -icount, the
 * instruction count), so "guest time" means exactly that; see README.
 *
 * Locking: timer_lock (irqsave) guards the pending list.  Expired timers
 * are unlinked one at a time under the lock, marked running, and their
 * functions run after it is dropped; ktimer_cancel waits for a running
 * one (another CPU may cancel while the boot CPU runs fn), and a timer
 * re-armed meanwhile is linked anew (its node is already off the list).
 */
#include "time.h"
#include "console.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/irqtrace.h"
#include "ksyms.h"
#include "kprof.h"
#include "platform/acpi.h"
#include "lib/timemath.h"
#include "lib/string.h"
#include "mem/kmem.h"
#include "mem/pgtable.h"
#include "spinlock.h"
#include "sched.h"
#include "panic.h"

#define TRACE_EVENTS 12

/* What a rescue found (on_rescue, timer_rescue_kind): its name in
 * records, and what the console says of it. */
static const struct {
	const char *name, *says;
} rescue_kinds[RESCUE_KINDS] = {
	[RESCUE_HELD_OFF] = { "held_off", "held off: interrupts were off most of that time, or it ticked meanwhile "
			      "(under a hypervisor: or was not run)" },
	[RESCUE_ALL_LATE] = { "all_late", "all late: the rescuing CPU's own tick was as late "
			      "(under a hypervisor: the host did not run it)" },
	[RESCUE_NOT_RUN] = { "not_run", "not run: the rescue itself took over 1 ms to be taken "
			     "(under a hypervisor: the host did not run this CPU)" },
	[RESCUE_NOT_TAKEN] = { "not_taken", "not taken: interrupts on, the timer's interrupt requested but never taken" },
	[RESCUE_NOT_FIRED] = { "not_fired", "not fired: interrupts on, and the timer never fired" },
};

static struct {
	uint64_t tsc0, tsc_hz;
	const char *tsc_source;
	unsigned hz;
	uint64_t lapic_hz;
	volatile uint64_t ticks;
	bool oneshot;                   /* deadline mode: fire at ktimer expiries too */
	uint64_t period_ns;
	uint64_t next_tick_ns;          /* oneshot: when the next tick is due */
	uint64_t programmed_ns;         /* oneshot: when the timer will fire */
	uint32_t bsp_apic;              /* the CPU whose timer fires ktimers */
	volatile uint64_t rescues;      /* timer IPIs an AP sent it for an overdue tick */
	uint64_t last_rescue_ns;        /* [racy: APs] */
	uint64_t rescue_gap_ns;         /* the rescuing AP's own time since its previous tick */
	uint64_t prog_off;              /* the boot CPU's irq-off total at the last program_next */
	bool timer_set_up;              /* its LVT and divide written; re-arming writes the count only */
	volatile bool bsp_ticked;       /* the boot CPU took its first timer interrupt */
	uint64_t rescue_counts[RESCUE_KINDS];   /* [boot CPU] rescues taken, by what the timer looked like */
	struct spinlock lock;
	struct list_node pending;       /* sorted by expires_ns; guarded by lock */
	/* The last few things done to the boot CPU's timer, for the report a
	 * rescue prints (guarded by lock). */
	struct timer_event {
		uint64_t tsc, a, b;
		const char *what;
		uint32_t cpu;
	} trace[TRACE_EVENTS];
	unsigned trace_next;
} tm = { .lock = SPINLOCK_INIT("timer"), .pending = LIST_INIT(tm.pending) };

/* timer_lock held. */
static void trace(const char *what, uint64_t a, uint64_t b)
{
	struct timer_event *e = &tm.trace[tm.trace_next++ % TRACE_EVENTS];
	e->tsc = rdtsc();
	e->what = what;
	e->a = a;
	e->b = b;
	e->cpu = this_cpu()->id;
}

uint64_t time_ns(void) { return tsc_to_ns(rdtsc() - tm.tsc0); }
uint64_t time_tsc_hz(void) { return tm.tsc_hz; }
const char *time_tsc_source(void) { return tm.tsc_source; }
unsigned time_hz(void) { return tm.hz; }
uint64_t time_ticks(void) { return tm.ticks; }
uint64_t time_lapic_hz(void) { return tm.lapic_hz; }

void time_init(void)
{
	void *hpet = NULL;
	struct acpi_hpet h;
	const struct acpi_table *t = acpi_find("HPET", 0);
	if (t && acpi_parse_hpet(t->virt, t->length, &h) == ACPI_OK)
		hpet = kmem_ioremap(h.base, 1024, PT_UC);
	const struct acpi_fadt *f = acpi_fadt();
	const struct tsc_calibration *c = tsc_calibrate(f ? f->pm_timer : 0, hpet);
	tm.tsc_hz = c->hz;
	tm.tsc_source = c->source;
	tm.tsc0 = rdtsc();
	irqtrace_set_tsc_hz(tm.tsc_hz);
}

void udelay(uint64_t us)
{
	uint64_t end = rdtsc() + ns_to_ticks(us * 1000, tm.tsc_hz);
	while (rdtsc() < end)
		cpu_relax();
}

void ktimer_init(struct ktimer *t, void (*fn)(void *), void *arg)
{
	list_init(&t->link);
	t->fn = fn;
	t->arg = arg;
	t->armed = false;
	t->fired_ns = 0;
}

/* Oneshot mode: fire at the next tick or the earliest ktimer, whichever
 * comes first.  timer_lock held. */
static void program_next(uint64_t now, const char *why)
{
	spin_assert_held(&tm.lock);
	uint64_t next = tm.next_tick_ns;
	if (!list_empty(&tm.pending)) {
		uint64_t first = list_first(&tm.pending, struct ktimer, link)->expires_ns;
		if (first < next)
			next = first;
	}
	uint64_t delta = next > now + 2000 ? next - now : 2000;
	uint64_t count = ns_to_ticks(delta, tm.lapic_hz);
	tm.programmed_ns = now + delta;
	tm.prog_off = irqtrace_here()->off_cycles;
	trace(why, now, delta);
	uint32_t init = count ? (uint32_t)(count > 0xffffffffull ? 0xffffffffull : count) : 1;
	if (tm.timer_set_up) {
		apic_timer_rearm(init);
	} else {
		apic_timer_start(init, false);
		tm.timer_set_up = true;
	}
}

void ktimer_arm(struct ktimer *t, uint64_t at)
{
	bool on = spin_lock_irqsave(&tm.lock);
	if (t->armed)
		list_del(&t->link);
	t->expires_ns = at;
	t->armed = true;
	struct list_node *pos = &tm.pending;
	list_for_each(it, &tm.pending) {
		if (list_entry(it, struct ktimer, link)->expires_ns > at) {
			pos = it;
			break;
		}
	}
	list_add_tail(&t->link, pos);           /* before the first later timer */
	/* Only the boot CPU's timer fires ktimers: another CPU asks it to
	 * re-arm by sending it a tick (on_tick does program_next). */
	bool remote = false;
	if (tm.oneshot && at < tm.programmed_ns) {
		if (this_cpu()->id == 0) {
			program_next(time_ns(), "program (arm)");
		} else {
			remote = true;
			trace("remote arm: at, programmed", at, tm.programmed_ns);
		}
	}
	spin_unlock_irqrestore(&tm.lock, on);
	if (remote)
		apic_send_ipi(tm.bsp_apic, VEC_TIMER);
}

bool ktimer_cancel(struct ktimer *t)
{
	bool on = spin_lock_irqsave(&tm.lock);
	bool was = t->armed;
	if (was) {
		list_del(&t->link);
		t->armed = false;
	}
	spin_unlock_irqrestore(&tm.lock, on);
	while (__atomic_load_n(&t->running, __ATOMIC_ACQUIRE))
		cpu_relax();
	return was;
}

static void run_expired(uint64_t now)
{
	spin_lock(&tm.lock);
	trace("tick: now, programmed", now, tm.programmed_ns);
	if (tm.oneshot)
		program_next(now, "program (tick)");
	for (;;) {
		struct ktimer *t = list_empty(&tm.pending) ? NULL : list_first(&tm.pending, struct ktimer, link);
		if (!t || t->expires_ns > now)
			break;
		list_del(&t->link);
		list_init(&t->link);
		t->armed = false;
		t->running = true;
		t->fired_ns = now;
		spin_unlock_nosched(&tm.lock);
		t->fn(t->arg);
		__atomic_store_n(&t->running, false, __ATOMIC_RELEASE);
		spin_lock(&tm.lock);
	}
	spin_unlock_nosched(&tm.lock);
}

/* The boot CPU's one-shot timer fires every ktimer, so if it ever stops
 * being re-armed, every timed sleep in the machine waits for ever.  Under
 * QEMU TCG on 2 CPUs it happens (1 stress boot in about 40 hung so): QEMU's
 * own trace shows the timer firing on time while the boot CPU's vCPU
 * thread waits for QEMU's global lock or for a host CPU (seen: up to 0.3
 * s; one hang of 10 s ended when the other vCPU sent it an IPI; issue 14's
 * note).  On a PC a LAPIC interrupt wakes a halted CPU.  An AP's tick that finds
 * the programmed firing RESCUE_NS overdue sends the boot CPU a rescue IPI
 * (its own vector, so the timer vector's bits can be read): on_rescue
 * sorts what it finds and ticks, which re-arms.  Not before the boot CPU's
 * first tick (it boots with interrupts off after starting the APs), not
 * once halt has begun (its hooks may keep interrupts off for long). */
#define RESCUE_NS 50000000ull     /* irq-off sections reach 17 ms; a stopped timer is forever */
#define RESCUE_TRANSIT_NS 1000000ull    /* an IPI to a running CPU takes microseconds */

static void rescue_boot_cpu_timer(uint64_t now, uint64_t gap)
{
	uint64_t due = __atomic_load_n(&tm.programmed_ns, __ATOMIC_RELAXED);
	uint64_t last = __atomic_load_n(&tm.last_rescue_ns, __ATOMIC_RELAXED);
	if (!tm.oneshot || !tm.bsp_ticked || now < due + RESCUE_NS || now < last + RESCUE_NS ||
	    halt_in_progress())
		return;
	if (!__atomic_compare_exchange_n(&tm.last_rescue_ns, &last, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;                 /* another AP is at it */
	__atomic_add_fetch(&tm.rescues, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&tm.rescue_gap_ns, gap, __ATOMIC_RELAXED);
	apic_send_ipi(tm.bsp_apic, VEC_TIMER_RESCUE);
}

uint64_t time_rescues(void) { return tm.rescues; }

uint64_t time_rescues_of(enum timer_rescue_kind kind)
{
	return kind < RESCUE_KINDS ? __atomic_load_n(&tm.rescue_counts[kind], __ATOMIC_RELAXED) : 0;
}

const char *time_rescue_kind_name(enum timer_rescue_kind kind)
{
	return kind < RESCUE_KINDS ? rescue_kinds[kind].name : "?";
}

static void rescue_report(enum timer_rescue_kind kind, const struct apic_timer_regs *r, const struct trap_frame *f,
			  uint64_t tsc, uint64_t overdue_ns, uint64_t off_ns, uint64_t transit_ns)
{
	struct timer_event ev[TRACE_EVENTS];
	spin_lock(&tm.lock);
	unsigned next = tm.trace_next;
	memcpy(ev, tm.trace, sizeof ev);
	spin_unlock_nosched(&tm.lock);
	kprintf("time: the boot CPU's timer was %ld us overdue, %lu us of it with interrupts off, the rescuer's tick %lu us apart, "
		"the rescue %lu us on its way; rescued (%s)\n", (int64_t)overdue_ns / 1000, off_ns / 1000,
		tm.rescue_gap_ns / 1000, transit_ns / 1000, rescue_kinds[kind].says);
	uint64_t off_at, off_from, off_to;
	const struct irqtrace *it = irqtrace_here();
	const char *at = ksym_lookup(f->rip, &off_at);
	const char *from = ksym_lookup(it->last_from, &off_from), *to = ksym_lookup(it->last_to, &off_to);
	kprintf("time:   lvt %x initial %u current %u divide %x tpr %x ppr %x; vector 0x%x in service %d, "
		"requested %d; came at %s+0x%lx; the last irq-off section %lu us, %s+0x%lx to %s+0x%lx, ended %lu us before\n",
		r->lvt, r->initial, r->current, r->divide, r->tpr, r->ppr, VEC_TIMER, r->isr, r->irr,
		at ? at : "?", off_at, ticks_to_ns(it->last_cycles, tm.tsc_hz) / 1000,
		from ? from : "?", off_from, to ? to : "?", off_to,
		it->last_end ? ticks_to_ns(tsc - it->last_end, tm.tsc_hz) / 1000 : 0);
	for (unsigned i = 0; i < TRACE_EVENTS; i++) {
		const struct timer_event *e = &ev[(next + i) % TRACE_EVENTS];
		if (e->what)
			kprintf("time:   %lu us ago, cpu %u: %s %lu %lu\n",
				ticks_to_ns(tsc - e->tsc, tm.tsc_hz) / 1000, e->cpu, e->what, e->a, e->b);
	}
}

static void on_tick(struct trap_frame *f, void *arg);

/* The boot CPU takes an AP's rescue.  Which of five things happened
 * decides what to look for next: interrupts off for most of the overdue
 * time (a late tick, not a stall; under TCG also a vCPU the host did not
 * run); the rescuer's own tick as late (the whole machine was not run:
 * under QEMU TCG a loaded host delays every emulated timer alike); the
 * rescue itself slow to arrive (this CPU was not run); or, with the
 * rescue taken at once, interrupts on and the timer's interrupt requested
 * but not taken (delivery lost), or not requested (it never fired).
 * The first of each kind is said with the timer's registers and the last
 * things done to it; all are counted (the cpus record). */
static void on_rescue(struct trap_frame *f, void *arg)
{
	struct apic_timer_regs r;
	apic_timer_regs(VEC_TIMER, &r);
	uint64_t tsc = rdtsc(), now = time_ns();
	spin_lock(&tm.lock);
	uint64_t off_ns = ticks_to_ns(irqtrace_here()->off_cycles - tm.prog_off, tm.tsc_hz);
	uint64_t overdue_ns = now - tm.programmed_ns;
	spin_unlock_nosched(&tm.lock);
	uint64_t gap = __atomic_load_n(&tm.rescue_gap_ns, __ATOMIC_RELAXED);
	uint64_t sent = __atomic_load_n(&tm.last_rescue_ns, __ATOMIC_RELAXED);
	uint64_t transit = now > sent ? now - sent : 0;
	enum timer_rescue_kind kind = timer_rescue_kind((int64_t)overdue_ns, RESCUE_NS, off_ns, gap, transit,
							RESCUE_TRANSIT_NS, r.irr);
	if (__atomic_add_fetch(&tm.rescue_counts[kind], 1, __ATOMIC_RELAXED) == 1)
		rescue_report(kind, &r, f, tsc, overdue_ns, off_ns, transit);
	tm.timer_set_up = false;        /* the tick below sets the whole timer up again */
	on_tick(f, arg);
}

static void on_tick(struct trap_frame *f, void *arg)
{
	(void)arg;
	uint64_t now = time_ns();
	if (this_cpu()->id != 0) {
		/* An AP's periodic tick: its scheduler, and the boot CPU's
		 * timer looked after. */
		kprof_tick(f);
		struct cpu_stats *st = &this_cpu()->stats;
		uint64_t gap = st->last_tick_ns ? now - st->last_tick_ns : 0;
		st->last_tick_ns = now;
		st->ticks++;
		rescue_boot_cpu_timer(now, gap);
		sched_tick(now);
		return;
	}
	tm.bsp_ticked = true;
	bool tick = !tm.oneshot || now >= tm.next_tick_ns;
	if (tick && tm.oneshot) {
		tm.next_tick_ns += tm.period_ns;
		if (tm.next_tick_ns <= now)             /* fell behind: do not burst */
			tm.next_tick_ns = now + tm.period_ns;
	}
	if (tick) {
		tm.ticks++;
		this_cpu()->stats.ticks++;
		kprof_tick(f);
	}
	run_expired(now);
	if (tick) {
		console_poll();
		sched_tick(now);
	}
}

void time_start_tick(unsigned hz, bool oneshot)
{
	tm.hz = hz;
	tm.oneshot = oneshot;
	tm.bsp_apic = apic_id();
	tm.period_ns = 1000000000ull / hz;
	/* Measure the LAPIC timer's rate: count down from the top for 2 ms
	 * (its clock is exact to the ns in QEMU, and within ppm on hardware). */
	apic_timer_start(0xffffffffu, false);
	uint64_t t0 = rdtsc(), want = ns_to_ticks(2000000, tm.tsc_hz);
	while (rdtsc() - t0 < want)
		cpu_relax();
	uint32_t left = apic_timer_count();
	uint64_t t1 = rdtsc();
	apic_timer_stop();
	tm.lapic_hz = muldiv64(0xffffffffull - left, tm.tsc_hz, t1 - t0);
	irq_set_fixed(VEC_TIMER, "timer", on_tick, NULL);
	irq_set_fixed(VEC_TIMER_RESCUE, "timer-rescue", on_rescue, NULL);
	if (oneshot) {
		bool on = spin_lock_irqsave(&tm.lock);
		tm.next_tick_ns = time_ns() + tm.period_ns;
		program_next(time_ns(), "program (start)");
		spin_unlock_irqrestore(&tm.lock, on);
	} else {
		apic_timer_start((uint32_t)(tm.lapic_hz / hz), true);
	}
}

bool time_oneshot(void) { return tm.oneshot; }

void time_start_tick_ap(void)
{
	apic_timer_start((uint32_t)(tm.lapic_hz / tm.hz), true);
}
