/*
 * Workload scripts: a small line-based language that says what memory an
 * experiment expects, which swap areas and knobs it uses, and which
 * programs to run (one after the other, together, repeated), grouped into
 * the columns of a result table.  README.md, "Workload scripts", is the
 * user's reference.
 *
 * This is the pure half: script_parse() turns the text into a flat,
 * checked program (struct script) or one error naming file, line and
 * column, e.g. `seq.mm:7:12: unknown knob 'swap_clster' (did you mean
 * swap_cluster?)`.  It touches no kernel service, so the host tests and the
 * fuzzer build it as is.  script_run.c executes a program in the kernel.
 *
 * A program is the statements in text order.  Blocks (repeat, parallel)
 * are an opener whose `end` field indexes the matching SCRIPT_END, so an
 * executor walks a range and skips a block by jumping past its end.  Every
 * run (or parallel group) carries the index of its table column; columns
 * are numbered in order of first appearance, which, since every statement
 * runs at least once, is also the order the table prints them in.
 */
#ifndef SCRIPT_H
#define SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCRIPT_MAX_STMTS    256
#define SCRIPT_MAX_DEPTH    8           /* nested repeat/parallel blocks */
#define SCRIPT_MAX_COLUMNS  32
#define SCRIPT_MAX_PARALLEL 16          /* runs in one parallel group */
#define SCRIPT_MAX_TOKENS   64          /* words on one line */
#define SCRIPT_LINE_MAX     512         /* bytes on one line, without the newline */
#define SCRIPT_NAME_MAX     64
#define SCRIPT_LABEL_MAX    64          /* a column label, with its NUL */
#define SCRIPT_CMD_MAX      256         /* a run's command line (task cmdline), with its NUL */
#define SCRIPT_DEV_MAX      24          /* a block device name, with its NUL */
#define SCRIPT_POOL_SIZE    16384       /* strings of one program */
#define SCRIPT_ERR_MAX      256
#define SCRIPT_REPEAT_MAX   1000000
#define SCRIPT_MS_MAX       86400000ull /* sleep and vmstat: one day */
#define SCRIPT_MEM_MIN      (8ull << 20) /* the kernel raises smaller mem= to this */
#define SCRIPT_MAX_ROWS     8           /* `row` statements: workload figures in the table */
#define SCRIPT_ROW_NAME_MAX 48          /* PROGRAM.FIELD, with its NUL */

enum script_op {
	SCRIPT_MEM,             /* n = bytes */
	SCRIPT_SWAP,            /* a = device | "auto" | "none", n = prio, cluster */
	SCRIPT_SET,             /* a = knob, b = value */
	SCRIPT_COLUMN,          /* a = label (NULL: back to the default) */
	SCRIPT_RUN,             /* a = command line, column */
	SCRIPT_PARALLEL,        /* end, column; a = the step's text (run=), else NULL */
	SCRIPT_REPEAT,          /* n = count, end */
	SCRIPT_END,             /* end = index of its opener */
	SCRIPT_VMSTAT,          /* n = interval ms, 0 stops */
	SCRIPT_SWAPOFF,         /* a = device */
	SCRIPT_SWAPON,          /* a = device */
	SCRIPT_SLEEP,           /* n = ms */
	SCRIPT_DROP_CACHES,
	SCRIPT_PROBE,           /* n = 1 on, 0 off */
	SCRIPT_DATA,            /* a = device files may write (vm/pagecache.h) */
	SCRIPT_ROW,             /* a = "PROGRAM.FIELD" (the row's name), b = FIELD, n = strlen(PROGRAM) */
	SCRIPT_NOPS
};

struct script_stmt {
	enum script_op op;
	int line, col;          /* 1-based, of the statement's first word */
	int arg_col;            /* of its first argument (run-time messages) */
	const char *a, *b;      /* strings in the program's pool, see enum script_op */
	uint64_t n;
	uint32_t cluster;       /* SWAP: slots per cluster, 0 = the kernel's default */
	int end;                /* REPEAT/PARALLEL: index of the END; END: of the opener */
	int column;             /* RUN outside a group, PARALLEL: table column; else -1 */
};

/* A compiled program.  Strings point into pool: never copy the struct. */
struct script {
	char name[SCRIPT_NAME_MAX];
	struct script_stmt stmt[SCRIPT_MAX_STMTS];
	int nstmts;
	uint64_t mem;           /* from `mem`; 0 when the script has none */
	const char *column[SCRIPT_MAX_COLUMNS];
	int ncolumns;
	bool from_run;          /* compiled from run= (script_compile_run) */
	char pool[SCRIPT_POOL_SIZE];
	size_t pool_used;
	int err_line, err_col;  /* where script_parse failed */
};

/* Parse len bytes of text (no NUL needed) from the file `name`.  Returns 0
 * with *s filled, or -EINVAL with a one-line message in err (up to errlen
 * bytes) of the form "NAME:LINE:COL: what is wrong" (LINE and COL also in
 * s->err_line, s->err_col); the program in *s is then unusable. */
int script_parse(const char *name, const char *text, size_t len, struct script *s, char *err, size_t errlen);

/* Compile a run= value (README.md, "Kernel command line") into *s, the
 * program script_parse would give for the same steps, so that one
 * executor runs both.  ';' separates steps, '&' the parts of a step; a
 * part is a program and its arguments (as `run`) or a built-in: "@set
 * KNOB VALUE", "@sleep MS", "@swapon DEV", "@swapoff DEV", "@vmstat MS",
 * "@probe on|off" (as set, sleep, swapon, swapoff, vmstat, probe).  Each
 * step becomes one PARALLEL group, its parts
 * inside in order: the group's `a` is the step's text (trimmed), `line`
 * of every statement is the step's number (from 1, empty steps counted)
 * and `col` the column in spec.  Unlike a script's group, a step may hold
 * set, swapon, vmstat and probe, and no run at all (its record is still
 * wanted).  Every
 * group is in column 0, "run=".
 *
 * A bad step or part is left out and reported once through on_error
 * (may be NULL), in the style of script errors, naming the step:
 * "run=: step 3 '@sleepy 5': unknown built-in '@sleepy' (expected @set,
 * @sleep, @swapon, @swapoff, @vmstat or @probe)"; the rest still compiles (the command
 * line's rule).  Returns the number of errors; *s is always a program,
 * with s->from_run set. */
typedef void script_error_fn(void *ctx, int step, int col, const char *msg);
int script_compile_run(const char *spec, struct script *s, script_error_fn *on_error, void *ctx);

/* Where statement i is, for a run-time message: "FILE:LINE:COL" (COL of
 * its first argument) or, for run=, "run=: step N 'TEXT'". */
void script_where(const struct script *s, int i, char *buf, size_t n);

/* The statement keyword of an op ("run", "repeat", ...). */
const char *script_op_name(enum script_op op);

/* A workload's result line ({"type":"workload",...,"mismatches":N,...}):
 * true and N in *out when line (n bytes) is one and carries the count. */
bool script_workload_mismatches(const char *line, size_t n, uint64_t *out);

/* What a workload line says about the figure `field` of the program
 * whose records are named `prog` (plen bytes, no NUL needed). */
enum script_field {
	SCRIPT_FIELD_OTHER,     /* not a workload record of that program */
	SCRIPT_FIELD_FOUND,     /* its record, with an unsigned integer there: *out */
	SCRIPT_FIELD_NOT_INT,   /* its record, but no such field or not an unsigned integer */
};
enum script_field script_workload_field(const char *line, size_t n, const char *prog, size_t plen, const char *field,
					uint64_t *out);

/* ---- Kernel side (script_run.c) ----
 * A problem that stops (a script) or skips (run=) something: one
 * console line and a {"type":"script_error"} record; line 0 when none.
 * phase: parse, check, swap or run. */
void script_report_error(const char *script, int line, int col, const char *phase, const char *msg);

/* Run a program: script_parse's (what script_run does after loading) or
 * script_compile_run's.  A script runs whole or not at all: a statement
 * that does not fit the machine stops it before anything runs, and a run-
 * time error stops it there.  A run= program skips what does not fit and
 * goes on after a run-time error, each reported naming the step; its
 * records are a `vmstat` one per step (label: the step's text) instead of
 * a script's `script`, `result`, `table` and `script_end`.  Either way the
 * program is bracketed by mem_balance records.  Blocks until done; called
 * from kmain.  Returns the number of failed runs (script) or steps
 * (run=), or -EINVAL when a script did not start. */
int script_execute(struct script *s, uint64_t usable_bytes);

/* Load the boot file at path, parse and check it, run it, print a result
 * record per run and the table at the end.  Nothing runs when the script
 * has an error or does not fit the machine (memory size, programs, swap
 * devices).  usable_bytes: the RAM the kernel manages after mem= (the
 * boot record's usable_bytes), checked against the script's `mem`.
 * Blocks until done; called from kmain.  Returns the number of failed
 * runs, or a negative errno when the script did not start. */
int script_run(const char *path, uint64_t usable_bytes);

#endif
