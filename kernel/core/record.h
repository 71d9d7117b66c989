/*
 * Machine-readable records: one JSON object per line on the console, each
 * starting with {"type":"...".  Tools and tests parse these lines.
 *
 *   struct json *j = rec_begin("boot");
 *   json_u64(j, "usable_bytes", n);
 *   rec_end();
 *
 * rec_begin takes the record lock (interrupts off) until rec_end, so build
 * records quickly and never sleep in between.
 *
 * Every line is also kept in memory for the results file (run/results.c),
 * which takes the kept lines at safe points and writes them to the disk.
 * Keeping starts at boot, so the first records are kept too, and stops
 * for good with rec_keep_stop() when there is no results file.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/json.h"

struct json *rec_begin(const char *type);
void rec_end(void);

/* What rec_end tells the results writer, after the record is out and the
 * lock dropped, in the context of whoever emitted the record. */
enum rec_event {
	REC_EVENT_UNIT,         /* a record closing a unit of work: result, table, script_end, selftest, vmstat */
	REC_EVENT_HALF_FULL,    /* the kept lines fill half the buffer */
	REC_EVENT_HALT,         /* the halt record: nothing follows */
};
typedef void (*rec_notify_fn)(enum rec_event ev);

/* Keep a record line printed by someone else (a workload's own
 * {"type":...} lines on stdout): whole lines starting with {"type": only.
 * Any context. */
void rec_keep_line(const char *s, size_t n);
/* Set once, by the results writer. */
void rec_keep_notify(rec_notify_fn fn);
/* Move the longest run of whole kept lines that fits in cap bytes to dst;
 * *more says whether lines remain.  Any context. */
size_t rec_keep_take(char *dst, size_t cap, bool *more);
/* Records that found the buffer full and were not kept. */
uint64_t rec_keep_lost(void);
/* Keep nothing from now on. */
void rec_keep_stop(void);

#endif
