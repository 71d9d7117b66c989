/*
 * Result tables: the human table a workload script prints (seed 000's
 * shape: one row per figure, one column per configuration, each cell
 * "mean±stderr" over that column's runs) and the same figures as the
 * cells of a {"type":"table"} record.  Pure: it formats what it is given
 * and prints through a callback, so the host tests check the real layout.
 */
#ifndef RTABLE_H
#define RTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json;

#define RTABLE_MAX_ROWS    24          /* the kernel's 14 and a script's `row`s */
#define RTABLE_MAX_COLUMNS 32
#define RTABLE_MAX_SAMPLES 1024
#define RTABLE_LINE_MAX    4096

struct rtable_row {
	const char *name;
	bool time;              /* ns, shown in ms (in us when us); else a count */
	bool us;
};

/* One run (or parallel group): its column and one value per row.  A row
 * whose bit is set in missing has no value in this run (a workload figure
 * its programs did not report): the cell's n leaves the run out. */
struct rtable_sample {
	int column;
	bool failed;
	uint64_t v[RTABLE_MAX_ROWS];
	uint32_t missing;
};
_Static_assert(RTABLE_MAX_ROWS <= 32, "rtable_sample.missing has a bit per row");

struct rtable {
	const char *title;                      /* the script's name */
	const struct rtable_row *rows;
	int nrows;                              /* <= RTABLE_MAX_ROWS */
	const char *const *columns;             /* labels */
	int ncolumns;                           /* <= RTABLE_MAX_COLUMNS */
	const uint32_t *column_runs;            /* runs per column */
	uint32_t failed;                        /* failed runs in all */
	const struct rtable_sample *samples;
	uint32_t nsamples;                      /* <= RTABLE_MAX_SAMPLES */
};

/* The table as text lines (without newlines), each handed to emit. */
void rtable_print(const struct rtable *t, void (*emit)(void *ctx, const char *line), void *ctx);
/* The record's fields: script, columns, rows with their cells (n, mean,
 * stderr, sd in the row's unit), into an open JSON object. */
void rtable_json(const struct rtable *t, struct json *j);

#endif
