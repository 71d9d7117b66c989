/*
 * Record output.  One static buffer under one lock: records are rare and
 * bounded, and a static buffer keeps them off small kernel stacks.  A record
 * that does not fit is replaced by an error record naming its type, so the
 * stream stays valid JSON, line by line.
 */
#include <string.h>
#include "record.h"
#include "console.h"
#include "proc/spinlock.h"

#define REC_MAX 16384

static struct spinlock rec_lock = SPINLOCK_INIT("record");
static bool rec_irq;
static char rec_buf[REC_MAX];
static char rec_type[32];
static struct json rec_json;

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
	bool on = rec_irq;
	spin_unlock_irqrestore(&rec_lock, on);
}
