/*
 * libFuzzer target: the workload script parser on arbitrary bytes.  A
 * parse either fails with one "f.mm:LINE:COL: ..." message or yields a
 * program whose blocks, columns and strings are consistent; the workload
 * line scanners (mismatches, and the fields `row` statements name), the run= compiler (its program checked the same way, plus
 * run='s shape: only step groups) and the statistics run on the same
 * bytes.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "run/script.h"
#include "lib/stats.h"

static struct script prog;

static bool in_pool(const char *s)
{
	return !s || (s >= prog.pool && s < prog.pool + prog.pool_used &&
		      memchr(s, 0, (size_t)(prog.pool + prog.pool_used - s)));
}

static void check_program(void)
{
	int depth = 0;
	for (int i = 0; i < prog.nstmts; i++) {
		const struct script_stmt *s = &prog.stmt[i];
		if (s->op >= SCRIPT_NOPS || s->line < 1 || s->col < 1 || !in_pool(s->b))
			__builtin_trap();
		if (s->op != SCRIPT_SET && !in_pool(s->a))
			__builtin_trap();
		if (s->op == SCRIPT_REPEAT || s->op == SCRIPT_PARALLEL) {
			if (s->end <= i || s->end >= prog.nstmts || prog.stmt[s->end].end != i)
				__builtin_trap();
			depth++;
		}
		if (s->op == SCRIPT_END && depth-- == 0)
			__builtin_trap();
		if ((s->op == SCRIPT_PARALLEL || (s->op == SCRIPT_RUN && s->column >= 0)) &&
		    (s->column < 0 || s->column >= prog.ncolumns))
			__builtin_trap();
		if (depth > SCRIPT_MAX_DEPTH)
			__builtin_trap();
		/* row: a = PROGRAM.FIELD, n = strlen(PROGRAM), b = FIELD inside a */
		if (s->op == SCRIPT_ROW && (!s->a || !s->n || s->a[s->n] != '.' || s->b != s->a + s->n + 1 ||
					    !*s->b || strlen(s->a) >= SCRIPT_ROW_NAME_MAX))
			__builtin_trap();
	}
	if (depth)
		__builtin_trap();
	for (int i = 0; i < prog.ncolumns; i++)
		if (!in_pool(prog.column[i]))
			__builtin_trap();
}

static void check_stats(const uint8_t *data, size_t size)
{
	uint64_t v[64];
	uint32_t n = (uint32_t)(size / 8 < 64 ? size / 8 : 64);
	memcpy(v, data, n * 8);
	struct stats_summary s;
	if (stats_summarize(v, n, &s) == 0 && (s.mean_x100 / 100 < s.min || s.mean_x100 / 100 > s.max))
		__builtin_trap();
	char buf[96];
	stats_format(buf, sizeof buf, &s, n ? v[0] % 1000000 : 1, size & 1);
	static struct stats_hist h;
	memset(&h, 0, sizeof h);
	for (uint32_t i = 0; i < n; i++)
		stats_hist_add(&h, v[i]);
	if (n && stats_hist_percentile(&h, 1000) != h.max)
		__builtin_trap();
}

static int run_errors;

static void on_run_error(void *ctx, int step, int col, const char *msg)
{
	(void)ctx;
	if (strncmp(msg, "run=: ", 6) || !memchr(msg, 0, SCRIPT_ERR_MAX) || step < 0 || col < 1)
		__builtin_trap();
	run_errors++;
}

/* run= compiles to groups only: every top-level statement a step's
 * group (programs and the built-ins @set, @sleep, @swapon, @swapoff,
 * @vmstat, @probe), its runs at most SCRIPT_MAX_PARALLEL, all in column 0. */
static void check_run_program(void)
{
	for (int i = 0; i < prog.nstmts; i = prog.stmt[i].end + 1) {
		const struct script_stmt *g = &prog.stmt[i];
		int runs = 0;
		if (g->op != SCRIPT_PARALLEL || g->column != 0 || !g->a)
			__builtin_trap();
		for (int k = i + 1; k < g->end; k++) {
			enum script_op op = prog.stmt[k].op;
			runs += op == SCRIPT_RUN;
			if (op != SCRIPT_RUN && op != SCRIPT_SET && op != SCRIPT_SLEEP && op != SCRIPT_SWAPON &&
			    op != SCRIPT_SWAPOFF && op != SCRIPT_VMSTAT && op != SCRIPT_PROBE)
				__builtin_trap();
			if (prog.stmt[k].line != g->line)
				__builtin_trap();
		}
		if (runs > SCRIPT_MAX_PARALLEL)
			__builtin_trap();
	}
}

/* The bytes up to a NUL as a run= value, in a heap buffer of exactly its
 * size so ASan sees any read past its end. */
static void check_run_spec(const uint8_t *data, size_t size)
{
	size_t max = size < 600 ? size : 600;
	const uint8_t *nul = memchr(data, 0, max);
	size_t n = nul ? (size_t)(nul - data) : max;
	char *spec = malloc(n + 1);
	memcpy(spec, data, n);
	spec[n] = 0;
	run_errors = 0;
	int errors = script_compile_run(spec, &prog, on_run_error, NULL);
	if (errors != run_errors || !prog.from_run || prog.ncolumns != 1)
		__builtin_trap();
	check_program();
	check_run_program();
	char where[128];
	for (int i = 0; i < prog.nstmts; i++) {
		script_where(&prog, i, where, sizeof where);
		if (strncmp(where, "run=: step ", 11))
			__builtin_trap();
	}
	free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[SCRIPT_ERR_MAX];
	bool parsed = script_parse("f.mm", (const char *)data, size, &prog, err, sizeof err) == 0;
	if (parsed)
		check_program();
	else if (strncmp(err, "f.mm:", 5) || !memchr(err, 0, sizeof err))
		__builtin_trap();
	uint64_t m;
	script_workload_mismatches((const char *)data, size, &m);
	/* Every row the bytes declared, scanned over the bytes themselves (in
	 * the first program, before check_run_spec reuses prog). */
	for (int i = 0; parsed && i < prog.nstmts; i++)
		if (prog.stmt[i].op == SCRIPT_ROW)
			script_workload_field((const char *)data, size, prog.stmt[i].a, prog.stmt[i].n, prog.stmt[i].b, &m);
	script_workload_field((const char *)data, size, "shmdb", 5, "tps", &m);
	check_stats(data, size);
	check_run_spec(data, size);
	return 0;
}
