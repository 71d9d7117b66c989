/*
 * Console multiplexer.  One lock serialises whole writes so lines from two
 * contexts never interleave mid-line.  Formatting happens into a small
 * stack buffer in chunks, so kprintf needs no heap and works before mm.
 */
#include "console.h"
#include "lib/printf.h"
#include "spinlock.h"
#include "platform/serial.h"
#include "platform/fbcon.h"
#include "record.h"
#include "smp.h"
#include "time.h"

static struct spinlock console_lock = SPINLOCK_INIT("console");
static volatile int panicking;
static volatile bool sync_writes;       /* the machine is stopping: nothing may wait in the UART's queue */

/* After console_panic_mode the console lock is not taken (its holder may
 * be the CPU that is stuck), and COM1 is written straight, past its
 * queue, whose indexes two writers would tangle (a record came out
 * twice).  An NMI report carries on with the run, so writes still go one
 * whole write at a time through raw_owner (a record written beside a
 * report came out torn), with a bounded wait: a CPU whose NMI came in
 * the middle of its own write does not wait for itself, nor for an owner
 * that is itself in an NMI handler (its write goes on only when that
 * returns: a report's CPU that interrupted its own record waited for an
 * answer from the CPU waiting for that record, and the answer came after
 * the report gave up), and once a wait has run out (the owner stopped for
 * good by a panic) no one waits again. */
static volatile uint32_t raw_owner;     /* CPU id + 1 of the writer; 0: none */
static volatile bool raw_owner_lost;
static volatile bool cpu_stopped[SMP_MAX_CPUS];        /* in an NMI handler (console_cpu_stopped) */

void console_cpu_stopped(bool stopped)
{
	unsigned id = this_cpu()->id;
	if (id < SMP_MAX_CPUS)
		__atomic_store_n(&cpu_stopped[id], stopped, __ATOMIC_RELEASE);
}

static bool this_cpu_stopped(void)
{
	unsigned id = this_cpu()->id;
	return id < SMP_MAX_CPUS && __atomic_load_n(&cpu_stopped[id], __ATOMIC_ACQUIRE);
}

/* Who holds console_lock (CPU id + 1; 0: no one): a report on that CPU
 * interrupted its own write and must not wait for it. */
static volatile uint32_t lock_owner;

/* Reports of where every CPU is (an NMI, or trap_report_all_cpus) do not
 * write to the console: what a CPU prints while console_cpu_stopped
 * waits in nmi_buf, and goes out whole, through the console lock, in
 * order with what was queued before it.  Before, a report switched the
 * console to panic mode and wrote straight to COM1: into the middle of
 * the line its own CPU (or a CPU it stopped) was writing (a task_exit
 * record came out as '"pid":NMI: where every CPU is'), and past the
 * queued output, which was then never sent (panic mode does not drain the
 * queue whose lock it could not take).  The buffer goes out at the end of
 * the report if the lock can be had, else at the end of the write it
 * interrupted (every unlock of the console looks), or at the next tick;
 * if the lock's holder never lets go (it is what hangs), the report
 * falls back to panic mode after a bounded wait.
 *
 * nmi_state packs the bytes reserved (high half) and the bytes copied in
 * (low half): appends from several CPUs at once each take their own
 * range, and the buffer is written out only when every reserved byte is
 * in.  It starts again from 0 once all of it is out. */
#define NMI_BUF_BYTES (256u << 10)
static char nmi_buf[NMI_BUF_BYTES];
static volatile uint64_t nmi_state;
static uint32_t nmi_out;                /* bytes of nmi_buf on the console; under nmi_flusher */
/* The CPU (id + 1) writing nmi_buf out, 0: none.  The console lock is
 * not enough: a report that gave up waiting for a stuck holder writes
 * straight, and the holder, resuming then, would write the same bytes
 * from its release. */
static volatile uint32_t nmi_flusher;
static volatile uint32_t nmi_dropped;   /* bytes that found the buffer full */

static void nmi_append(const char *s, size_t n)
{
	uint64_t st = __atomic_load_n(&nmi_state, __ATOMIC_RELAXED);
	for (;;) {
		uint32_t res = (uint32_t)(st >> 32);
		if (n > NMI_BUF_BYTES - res) {
			__atomic_add_fetch(&nmi_dropped, (uint32_t)n, __ATOMIC_RELAXED);
			return;
		}
		if (__atomic_compare_exchange_n(&nmi_state, &st, st + ((uint64_t)n << 32), false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	uint32_t at = (uint32_t)(st >> 32);
	for (size_t i = 0; i < n; i++)
		nmi_buf[at + i] = s[i];
	__atomic_add_fetch(&nmi_state, (uint64_t)n, __ATOMIC_RELEASE);
}

#define RAW_WAIT_SPINS 20000000L

static bool raw_enter(void)
{
	uint32_t me = this_cpu()->id + 1;
	if (raw_owner_lost || __atomic_load_n(&raw_owner, __ATOMIC_RELAXED) == me)
		return false;
	for (long i = 0; i < RAW_WAIT_SPINS; i++) {
		uint32_t none = 0;
		if (__atomic_compare_exchange_n(&raw_owner, &none, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		uint32_t owner = none;          /* what the exchange found */
		if (owner && owner <= SMP_MAX_CPUS && __atomic_load_n(&cpu_stopped[owner - 1], __ATOMIC_ACQUIRE))
			return false;
		cpu_relax();
	}
	raw_owner_lost = true;
	return false;
}

static void raw_leave(bool took)
{
	if (took)
		__atomic_store_n(&raw_owner, 0, __ATOMIC_RELEASE);
}

static void raw_write(const char *s, size_t n)
{
	if (panicking) {
		serial_write_sync(s, n);
	} else {
		serial_write(s, n);
		if (sync_writes)
			serial_flush();
	}
	fbcon_write(s, n);
	if (panicking || sync_writes)
		fbcon_flush();
}

/* Write out what waits in nmi_buf: all of it at the end of a report,
 * else (a write's release while a report may still be printing) only
 * whole lines, so a write after it does not land in a report's line.
 * console_lock held (or, in panic mode, the console is the caller's). */
static void nmi_flush_locked(bool all)
{
	uint32_t me = this_cpu()->id + 1, none = 0;
	bool took = __atomic_compare_exchange_n(&nmi_flusher, &none, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	if (!took && !all)
		return;         /* the other writer writes all of it */
	/* All of it (a report's end, panic mode): wait for the other
	 * writer, unless it is this CPU (interrupted in its own write) or
	 * it does not finish (stuck again): then write anyway. */
	for (long i = 0; !took && none != me && i < RAW_WAIT_SPINS; i++) {
		cpu_relax();
		none = 0;
		took = __atomic_compare_exchange_n(&nmi_flusher, &none, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	}
	long spins = 0;
	for (;;) {
		uint64_t st = __atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE);
		uint32_t res = (uint32_t)(st >> 32), in = (uint32_t)st;
		if (in != res) {
			/* Another CPU is copying its part in: a moment. */
			if (++spins > RAW_WAIT_SPINS)
				break;
			cpu_relax();
			continue;
		}
		uint32_t end = res;
		while (!all && end > nmi_out && nmi_buf[end - 1] != '\n')
			end--;
		if (nmi_out < end) {
			raw_write(nmi_buf + nmi_out, end - nmi_out);
			nmi_out = end;
			continue;
		}
		if (nmi_out < res)
			break;          /* a line still being printed */
		/* All out: start again from the beginning, unless a CPU
		 * reserved more meanwhile (then that goes out first). */
		if (!res || __atomic_compare_exchange_n(&nmi_state, &st, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			nmi_out = 0;
			break;
		}
	}
	uint32_t lost = __atomic_exchange_n(&nmi_dropped, 0, __ATOMIC_RELAXED);
	if (lost) {
		char line[96];
		size_t k = (size_t)ksnprintf(line, sizeof line, "console: %u bytes of a report did not fit its %u KiB buffer\n",
					     lost, NMI_BUF_BYTES >> 10);
		raw_write(line, k < sizeof line ? k : sizeof line - 1);
	}
	if (took)
		__atomic_store_n(&nmi_flusher, 0, __ATOMIC_RELEASE);
}

static bool console_lock_take(void)
{
	bool on = spin_lock_irqsave(&console_lock);
	__atomic_store_n(&lock_owner, this_cpu()->id + 1, __ATOMIC_RELAXED);
	return on;
}

/* Every release writes out a report that waited (one that came in the
 * middle of this write goes out after it). */
static void console_lock_give(bool on)
{
	if (__atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE))
		nmi_flush_locked(false);
	__atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&console_lock, on);
}

/* The lock if it is free, interrupts left as they are (the tick, a report). */
static bool console_lock_try(void)
{
	if (!spin_trylock(&console_lock))
		return false;
	__atomic_store_n(&lock_owner, this_cpu()->id + 1, __ATOMIC_RELAXED);
	return true;
}

static void console_lock_untry(void)
{
	__atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
	spin_unlock_nosched(&console_lock);
}

/* What waits in nmi_buf goes out straight (panic mode). */
static void nmi_flush_straight(void)
{
	if (!__atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE))
		return;
	bool took = raw_enter();
	nmi_flush_locked(true);
	raw_leave(took);
}

void console_report_done(void)
{
	if (panicking || !__atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE))
		return;
	uint32_t me = this_cpu()->id + 1;
	/* About a second, by the clock once there is one. */
	uint64_t since = time_tsc_hz() ? time_ns() : 0;
	for (long i = 0; since ? time_ns() - since < 1000000000ull : i < RAW_WAIT_SPINS; i++) {
		/* Written out by the release of the write that held the lock. */
		if (!__atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE))
			return;
		/* This CPU's own write: its release writes the report out once
		 * the write goes on (the CPU cannot wait for itself). */
		if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == me)
			return;
		if (console_lock_try()) {
			nmi_flush_locked(true);
			console_lock_untry();
			return;
		}
		cpu_relax();
	}
	/* The holder never let go: the hang this reports may be its own.
	 * The report matters more than that write; what waits in COM1's
	 * queue stays there (its writer may be in the middle of it). */
	panicking = 1;
	nmi_flush_straight();
	fbcon_flush();
}

bool console_selftest_hold(uint64_t ms)
{
	bool on = console_lock_take();
	uint64_t end = time_ns() + ms * 1000000ull;
	bool waiting = false, out = false;
	while (time_ns() < end) {
		if (__atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE))
			waiting = true;
		else if (waiting)
			out = true;
		cpu_relax();
	}
	console_lock_give(on);
	return out;
}

bool console_in_panic_mode(void) { return panicking; }

void console_panic_mode(void)
{
	if (panicking)
		return;
	/* What waits in COM1's queue goes first, if the lock comes free in
	 * about a second (a CPU stuck holding it would keep it for ever);
	 * else it stays unsent. */
	bool got = false;
	for (long i = 0; i < 100000000L && !(got = spin_trylock(&console_lock)); i++)
		cpu_relax();
	if (got)
		serial_flush();
	panicking = 1;                  /* before the lock goes: a writer waiting for it must see this */
	if (got)
		spin_unlock_nosched(&console_lock);
	nmi_flush_straight();           /* a report still waiting */
	fbcon_flush();
}

void console_sync_mode(void)
{
	if (panicking)
		return;                 /* already so, and the lock may never come free */
	bool on = console_lock_take();
	sync_writes = true;
	serial_flush();
	fbcon_flush();
	console_lock_give(on);
}

void console_poll(void)
{
	bool report = __atomic_load_n(&nmi_state, __ATOMIC_ACQUIRE) != 0;
	if (panicking || (!serial_pending() && !fbcon_pending() && !report) || !console_lock_try())
		return;
	if (report)
		nmi_flush_locked(false);
	serial_poll();
	fbcon_poll();
	console_lock_untry();
}

void console_write(const char *s, size_t n)
{
	if (panicking) {
		bool on = irq_save();           /* not preempted while others wait */
		bool took = raw_enter();
		raw_write(s, n);
		raw_leave(took);
		irq_restore(on);
		return;
	}
	if (this_cpu_stopped()) {
		nmi_append(s, n);
		return;
	}
	bool on = console_lock_take();
	raw_write(s, n);
	console_lock_give(on);
}

struct chunk {
	char buf[256];
	size_t len;
	bool report;                    /* into nmi_buf */
};

static void chunk_out(struct chunk *c)
{
	if (c->report)
		nmi_append(c->buf, c->len);
	else
		raw_write(c->buf, c->len);
	c->len = 0;
}

static void chunk_sink(void *ctx, const char *s, size_t n)
{
	struct chunk *c = ctx;
	while (n) {
		size_t room = sizeof c->buf - c->len;
		size_t k = n < room ? n : room;
		for (size_t i = 0; i < k; i++)
			c->buf[c->len + i] = s[i];
		c->len += k;
		s += k;
		n -= k;
		if (c->len == sizeof c->buf)
			chunk_out(c);
	}
}

int kvprintf(const char *fmt, va_list ap)
{
	struct chunk c;
	c.len = 0;
	c.report = false;
	bool on = false, locked = !panicking;  /* panicking may be set while we wait */
	bool took = false;
	if (locked && this_cpu_stopped()) {
		c.report = true;
		int n = fmt_vformat(chunk_sink, &c, fmt, ap);
		chunk_out(&c);
		return n;
	}
	if (locked) {
		on = console_lock_take();
	} else {
		on = irq_save();                /* not preempted while others wait */
		took = raw_enter();
	}
	int n = fmt_vformat(chunk_sink, &c, fmt, ap);
	chunk_out(&c);
	if (locked) {
		console_lock_give(on);
	} else {
		raw_leave(took);
		irq_restore(on);
	}
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}

void console_report(void)
{
	const struct serial_stats *s = serial_stats();
	struct json *j = rec_begin("console");
	json_bool(j, "serial", s->present);
	if (s->present) {
		json_u64(j, "fifo", s->fifo);
		json_u64(j, "bytes", s->bytes);
		json_u64(j, "queued_max", s->queued_max);
		json_u64(j, "full_waits", s->full_waits);
		json_u64(j, "polled", s->polled);
		json_u64(j, "timeouts", s->timeouts);
		json_bool(j, "wedged", s->wedged);
	}
	rec_end();
}
