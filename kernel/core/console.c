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

static struct spinlock console_lock = SPINLOCK_INIT("console");
static volatile int panicking;

void console_panic_mode(void) { panicking = 1; }

static void raw_write(const char *s, size_t n)
{
	serial_write(s, n);
	fbcon_write(s, n);
}

void console_write(const char *s, size_t n)
{
	if (panicking) {
		raw_write(s, n);
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
	bool on = false;
	if (!panicking)
		on = spin_lock_irqsave(&console_lock);
	int n = fmt_vformat(chunk_sink, &c, fmt, ap);
	raw_write(c.buf, c.len);
	if (!panicking)
		spin_unlock_irqrestore(&console_lock, on);
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
