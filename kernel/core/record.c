/*
 * Record output.  One static buffer under one lock: records are rare and
 * bounded, and a static buffer keeps them off small kernel stacks.  A record
 * that does not fit is replaced by an error record naming its type, so the
 * stream stays valid JSON, line by line.
 *
 * Each finished line also goes to the keep buffer, for the results file.
 * Records are emitted from any context (interrupt handlers, under other
 * locks), where no disk write may be started; so rec_end only copies and,
 * once the lock is dropped, tells the results writer (rec_notify), which
 * decides whether it can write now or must leave it to its thread.  A line
 * that finds the keep buffer full is counted (rec_keep_lost), never split.
 */
#include <string.h>
#include "record.h"
#include "console.h"
#include "spinlock.h"

#define REC_MAX 16384
#define REC_KEEP_MAX (256u << 10)       /* many runs' records; the writer drains it after each */

static struct spinlock rec_lock = SPINLOCK_INIT("record");
static bool rec_irq;
static char rec_buf[REC_MAX];           /* rec_lock, and rec_type, rec_json */
static char rec_type[32];
static struct json rec_json;

static char rec_keep[REC_KEEP_MAX];     /* rec_lock, and the three below */
static size_t rec_keep_len;
static bool rec_keep_off;
static uint64_t rec_lost;
static rec_notify_fn rec_notify;        /* set once, before it is read */

struct json *rec_begin(const char *type)
{
	rec_irq = spin_lock_irqsave(&rec_lock);
	size_t n = strnlen(type, sizeof rec_type - 1);
	memcpy(rec_type, type, n);
	rec_type[n] = 0;
	json_init(&rec_json, rec_buf, sizeof rec_buf - 2);
	json_obj_begin(&rec_json, NULL);
	json_str(&rec_json, "type", type);
	return &rec_json;
}

/* Records after which the results file should be brought up to date: a
 * script run's result, its table and end, a self-test's verdict, a run=
 * step's vmstat record. */
static bool closes_unit(const char *type)
{
	static const char *const units[] = { "result", "table", "script_end", "selftest", "vmstat" };
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(type, units[i]))
			return true;
	return false;
}

/* Keep the finished line; returns what to tell the writer (-1: nothing).
 * Lock held. */
static int keep_line(const char *line, size_t n)
{
	if (rec_keep_off)
		return -1;
	if (rec_keep_len + n <= REC_KEEP_MAX) {
		memcpy(rec_keep + rec_keep_len, line, n);
		rec_keep_len += n;
	} else {
		rec_lost++;
	}
	if (!strcmp(rec_type, "halt"))
		return REC_EVENT_HALT;
	if (closes_unit(rec_type))
		return REC_EVENT_UNIT;
	return rec_keep_len > REC_KEEP_MAX / 2 ? REC_EVENT_HALF_FULL : -1;
}

void rec_end(void)
{
	json_obj_end(&rec_json);
	if (rec_json.overflow || rec_json.depth != 0) {
		json_init(&rec_json, rec_buf, sizeof rec_buf - 2);
		json_obj_begin(&rec_json, NULL);
		json_str(&rec_json, "type", "error");
		json_str(&rec_json, "what", "record too large or malformed");
		json_str(&rec_json, "record", rec_type);
		json_obj_end(&rec_json);
	}
	rec_buf[rec_json.len++] = '\n';
	console_write(rec_buf, rec_json.len);
	int ev = keep_line(rec_buf, rec_json.len);
	rec_notify_fn fn = rec_notify;
	bool on = rec_irq;
	spin_unlock_irqrestore(&rec_lock, on);
	if (ev >= 0 && fn)
		fn((enum rec_event)ev);
}

void rec_keep_line(const char *s, size_t n)
{
	static const char head[] = "{\"type\":";
	if (n < sizeof head || memcmp(s, head, sizeof head - 1) || s[n - 1] != '\n')
		return;
	bool on = spin_lock_irqsave(&rec_lock);
	rec_type[0] = 0;                /* someone else's record: never closes a unit */
	int ev = keep_line(s, n);
	rec_notify_fn fn = rec_notify;
	spin_unlock_irqrestore(&rec_lock, on);
	if (ev >= 0 && fn)
		fn((enum rec_event)ev);
}

void rec_keep_notify(rec_notify_fn fn)
{
	bool on = spin_lock_irqsave(&rec_lock);
	rec_notify = fn;
	spin_unlock_irqrestore(&rec_lock, on);
}

size_t rec_keep_take(char *dst, size_t cap, bool *more)
{
	bool on = spin_lock_irqsave(&rec_lock);
	size_t n = rec_keep_len < cap ? rec_keep_len : cap;
	while (n && rec_keep[n - 1] != '\n')
		n--;                    /* whole lines only */
	memcpy(dst, rec_keep, n);
	/* Interrupts are off for this copy: at most REC_KEEP_MAX bytes, tens
	 * of microseconds, and only when the writer could not take it all. */
	memmove(rec_keep, rec_keep + n, rec_keep_len - n);
	rec_keep_len -= n;
	*more = rec_keep_len != 0;
	spin_unlock_irqrestore(&rec_lock, on);
	return n;
}

uint64_t rec_keep_lost(void)
{
	bool on = spin_lock_irqsave(&rec_lock);
	uint64_t n = rec_lost;
	spin_unlock_irqrestore(&rec_lock, on);
	return n;
}

void rec_keep_stop(void)
{
	bool on = spin_lock_irqsave(&rec_lock);
	rec_keep_off = true;
	rec_keep_len = 0;
	rec_notify = NULL;
	spin_unlock_irqrestore(&rec_lock, on);
}
