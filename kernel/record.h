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
 */
#ifndef RECORD_H
#define RECORD_H

#include "lib/json.h"

struct json *rec_begin(const char *type);
void rec_end(void);

#endif
