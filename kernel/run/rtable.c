/*
 * Result tables (see rtable.h).  Widths are display columns (the ± is one
 * column, two bytes), so labels and cells line up on a terminal; a cell is
 * right-aligned in the widest of its column's label and cells, plus two.
 */
#include <string.h>
#include "rtable.h"
#include "lib/json.h"
#include "lib/printf.h"
#include "lib/stats.h"

#define NS_PER_MS 1000000ul
#define ROW_NAME_WIDTH 17       /* the kernel's longest row name and a blank */

struct line {
	char buf[RTABLE_LINE_MAX];
	size_t len;
};

static void summarize_cell(const struct rtable *t, int row, int column, struct stats_summary *s)
{
	static uint64_t v[RTABLE_MAX_SAMPLES];  /* one table at a time: scripts run one by one */
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nsamples && n < RTABLE_MAX_SAMPLES; i++)
		if (t->samples[i].column == column && !(t->samples[i].missing >> row & 1))
			v[n++] = t->samples[i].v[row];
	stats_summarize(v, n, s);
}

static uint32_t failed_in(const struct rtable *t, int column)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nsamples; i++)
		n += t->samples[i].column == column && t->samples[i].failed;
	return n;
}

/* Append text right-aligned in width display columns. */
static void put_cell(struct line *l, const char *text, size_t width)
{
	size_t w = stats_width(text), n = strlen(text);
	for (; w < width && l->len + 1 < sizeof l->buf; w++)
		l->buf[l->len++] = ' ';
	if (l->len + n + 1 < sizeof l->buf) {
		memcpy(l->buf + l->len, text, n);
		l->len += n;
	}
	l->buf[l->len] = 0;
}

/* The name column: ROW_NAME_WIDTH, or wider for a script's long `row`
 * name (shmdb.transactions), so every cell still lines up. */
static int name_width(const struct rtable *t)
{
	int w = ROW_NAME_WIDTH;
	for (int r = 0; r < t->nrows; r++)
		if ((int)stats_width(t->rows[r].name) + 1 > w)
			w = (int)stats_width(t->rows[r].name) + 1;
	return w;
}

static void put_name(struct line *l, int width, const char *name)
{
	l->len = (size_t)ksnprintf(l->buf, sizeof l->buf, "%-*s", width, name);
}

static void format_cell(const struct rtable *t, int row, int c, char *buf, size_t n)
{
	struct stats_summary s;
	summarize_cell(t, row, c, &s);
	const struct rtable_row *r = &t->rows[row];
	stats_format(buf, n, &s, r->us ? 1000 : r->time ? NS_PER_MS : 1, r->time);
}

static void column_widths(const struct rtable *t, size_t *width)
{
	char cell[64];
	for (int c = 0; c < t->ncolumns; c++) {
		width[c] = stats_width(t->columns[c]);
		for (int r = 0; r < t->nrows; r++) {
			format_cell(t, r, c, cell, sizeof cell);
			width[c] = stats_width(cell) > width[c] ? stats_width(cell) : width[c];
		}
		width[c] += 2;
	}
}

static void count_line(const struct rtable *t, const size_t *width, const char *name, bool failed,
		       void (*emit)(void *, const char *), void *ctx)
{
	static struct line l;
	char cell[16];
	put_name(&l, name_width(t), name);
	for (int c = 0; c < t->ncolumns; c++) {
		ksnprintf(cell, sizeof cell, "%u", failed ? failed_in(t, c) : t->column_runs[c]);
		put_cell(&l, cell, width[c]);
	}
	emit(ctx, l.buf);
}

void rtable_print(const struct rtable *t, void (*emit)(void *ctx, const char *line), void *ctx)
{
	static struct line l;
	size_t width[RTABLE_MAX_COLUMNS];
	char cell[64];
	column_widths(t, width);
	emit(ctx, "");
	ksnprintf(l.buf, sizeof l.buf, "script %s: mean\xc2\xb1stderr over the runs of each column; times in ms",
		  t->title);
	emit(ctx, l.buf);
	put_name(&l, name_width(t), "");
	for (int c = 0; c < t->ncolumns; c++)
		put_cell(&l, t->columns[c], width[c]);
	emit(ctx, l.buf);
	count_line(t, width, "runs", false, emit, ctx);
	if (t->failed)
		count_line(t, width, "failed runs", true, emit, ctx);
	for (int r = 0; r < t->nrows; r++) {
		put_name(&l, name_width(t), t->rows[r].name);
		for (int c = 0; c < t->ncolumns; c++) {
			format_cell(t, r, c, cell, sizeof cell);
			put_cell(&l, cell, width[c]);
		}
		emit(ctx, l.buf);
	}
}

static void cell_json(struct json *j, const struct rtable *t, int r, int c)
{
	struct stats_summary s;
	summarize_cell(t, r, c, &s);
	/* x100 figures: ns -> us or ms with 3 decimals, counts with 2. */
	uint64_t unit = t->rows[r].us ? 100 : t->rows[r].time ? 100000 : 0;
	int decimals = unit ? 3 : 2;
	json_obj_begin(j, NULL);
	json_u64(j, "n", s.n);
	if (!s.n) {
		json_null(j, "mean");
		json_null(j, "stderr");
		json_null(j, "sd");
	} else {
		json_fixed(j, "mean", (int64_t)(unit ? stats_scale_x100(s.mean_x100, unit) : s.mean_x100), decimals);
		json_fixed(j, "stderr", (int64_t)(unit ? stats_scale_x100(s.se_x100, unit) : s.se_x100), decimals);
		json_fixed(j, "sd", (int64_t)(unit ? stats_scale_x100(s.sd_x100, unit) : s.sd_x100), decimals);
	}
	json_obj_end(j);
}

void rtable_json(const struct rtable *t, struct json *j)
{
	json_str(j, "script", t->title);
	json_arr_begin(j, "columns");
	for (int c = 0; c < t->ncolumns; c++)
		json_str(j, NULL, t->columns[c]);
	json_arr_end(j);
	json_arr_begin(j, "rows");
	for (int r = 0; r < t->nrows; r++) {
		json_obj_begin(j, NULL);
		json_str(j, "name", t->rows[r].name);
		json_str(j, "unit", t->rows[r].us ? "us" : t->rows[r].time ? "ms" : "count");
		json_arr_begin(j, "cells");
		for (int c = 0; c < t->ncolumns; c++)
			cell_json(j, t, r, c);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}
