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
	fbcon_flush();
}

void console_sync_mode(void)
{
	if (panicking)
		return;                 /* already so, and the lock may never come free */
	bool on = spin_lock_irqsave(&console_lock);
	sync_writes = true;
	serial_flush();
	fbcon_flush();
	spin_unlock_irqrestore(&console_lock, on);
}

void console_poll(void)
{
	if (panicking || (!serial_pending() && !fbcon_pending()) || !spin_trylock(&console_lock))
		return;
	serial_poll();
	fbcon_poll();
	spin_unlock_nosched(&console_lock);
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
	bool on = spin_lock_irqsave(&console_lock);
	raw_write(s, n);
	spin_unlock_irqrestore(&console_lock, on);
}

struct chunk {
	char buf[256];
	size_t len;
};

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
		if (c->len == sizeof c->buf) {
			raw_write(c->buf, c->len);
			c->len = 0;
		}
	}
}

int kvprintf(const char *fmt, va_list ap)
{
	struct chunk c;
	c.len = 0;
	bool on = false, locked = !panicking;  /* panicking may be set while we wait */
	bool took = false;
	if (locked) {
		on = spin_lock_irqsave(&console_lock);
	} else {
		on = irq_save();                /* not preempted while others wait */
		took = raw_enter();
	}
	int n = fmt_vformat(chunk_sink, &c, fmt, ap);
	raw_write(c.buf, c.len);
	if (locked) {
		spin_unlock_irqrestore(&console_lock, on);
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
