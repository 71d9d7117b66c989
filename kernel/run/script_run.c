/*
 * Running a workload script in the kernel (the language: script.h and
 * README.md, "Workload scripts").
 *
 * Phases, each of which may stop the script before anything runs:
 *   load    the boot file named by script= ;
 *   parse   script_parse(): a syntax error names FILE:LINE:COL;
 *   check   the machine fits the script: usable RAM within MEM_TOLERANCE
 *           of `mem` (else: which mem= to boot with), every program is a
 *           boot file, every swap/swapoff device exists;
 *   swap    the `swap` lines: swapon (areas already on stay on), or
 *           swapoff of every area for `swap none`;
 *   run     the statements in order.  A `set` whose value vm_set_knob
 *           rejects stops the script there, with the line in the message.
 *   table   the human table and a {"type":"table"} record.
 *
 * A run unit is one `run` or one `parallel` group.  Before it: caches
 * dropped (vm_drop_caches) and the kernel's own drained
 * (membal_drain_caches: else what they kept of one run's memory was
 * missing in the next), vmstat snapshot, probe window and swap-in
 * latency histograms restarted.  After it: one {"type":"result"} record
 * with the tasks' own figures (task_exit data: first start to last end,
 * CPU times and faults summed), every vmstat counter as a delta over the
 * unit, and the swap-in fault latency percentiles (swapin.h).
 *
 * Data mismatches: workloads end with a {"type":"workload",...,
 * "mismatches":N} line on stdout.  A stdout hook (task_set_stdout_hook)
 * sums N over the unit, so the result record carries it; the host tools
 * may cross-check from the workload records themselves.
 *
 * run= (runner.c) compiles to the same program (script_compile_run) and
 * runs here too, with two differences the program's from_run selects:
 *   - errors skip rather than stop: a statement that does not fit the
 *     machine is reported and left out, a run-time error is reported and
 *     the rest goes on (the command line's rule: the rest still applies);
 *   - its output is run='s own (struct script_output): per step one
 *     {"type":"vmstat","label":STEP} record with every counter as a delta
 *     over the step and the swap-in latency, and no result records, table
 *     or script records, which the host tools reading run= do not expect.
 * Messages name the statement by script_where: FILE:LINE:COL, or
 * run=: step N 'TEXT'.
 *
 * Runs in the kmain thread, which sleeps while programs run.  All state is
 * in one struct script_exec allocated for the run.
 */
#include <string.h>
#include "script.h"
#include "lib/stats.h"
#include "probe.h"
#include "core/lockstat.h"
#include "core/kprof.h"
#include "core/bootfs.h"
#include "core/console.h"
#include "core/record.h"
#include "membal.h"
#include "drivers/blk.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "rtable.h"
#include "vm/knobs.h"
#include "mem/kmalloc.h"
#include "mem/pmm.h"
#include "swap/swap.h"
#include "swap/swapin.h"
#include "vm/vmstat.h"
#include "vm/pagecache.h"
#include "core/sched.h"
#include "proc/task.h"

#define MEM_TOLERANCE_PCT 3     /* mem= rounding, firmware holes: a few % */
#define SCRIPT_MAX_RESULTS RTABLE_MAX_SAMPLES /* results kept for the table (records go on) */

/* Table rows, in seed 000's order, then the readahead waste, the swap
 * cache's hit rate (seed 004) and swap-in fault latency. */
enum row { ROW_REAL, ROW_USER, ROW_SYS, ROW_MAJFLT, ROW_PGPGIN, ROW_PGPGOUT, ROW_PSWPIN, ROW_PSWPOUT,
	   ROW_SWAP_RA, ROW_SWAP_RA_HIT, ROW_SWAP_RA_WASTE, ROW_SWAPCACHE_HIT, ROW_LAT_P50, ROW_LAT_P99, NROWS };

static const struct rtable_row rows[NROWS] = {
	[ROW_REAL] = { "real time", true, false },
	[ROW_USER] = { "user time", true, false },
	[ROW_SYS] = { "sys time", true, false },
	[ROW_MAJFLT] = { "pgmajfault", false, false },
	[ROW_PGPGIN] = { "pgpgin", false, false },
	[ROW_PGPGOUT] = { "pgpgout", false, false },
	[ROW_PSWPIN] = { "pswpin", false, false },
	[ROW_PSWPOUT] = { "pswpout", false, false },
	[ROW_SWAP_RA] = { "swap_ra", false, false },
	[ROW_SWAP_RA_HIT] = { "swap_ra_hit", false, false },
	[ROW_SWAP_RA_WASTE] = { "swap_ra_waste", false, false },
	[ROW_SWAPCACHE_HIT] = { "swapcache hit %", false, false },
	[ROW_LAT_P50] = { "swap-in p50 (us)", true, true },
	[ROW_LAT_P99] = { "swap-in p99 (us)", true, true },
};

/* The counter behind each count row (-1: computed). */
static const int row_vmstat[NROWS] = {
	[ROW_REAL] = -1, [ROW_USER] = -1, [ROW_SYS] = -1,
	[ROW_MAJFLT] = PGMAJFAULT, [ROW_PGPGIN] = PGPGIN, [ROW_PGPGOUT] = PGPGOUT,
	[ROW_PSWPIN] = PSWPIN, [ROW_PSWPOUT] = PSWPOUT, [ROW_SWAP_RA] = SWAP_RA,
	[ROW_SWAP_RA_HIT] = SWAP_RA_HIT, [ROW_SWAP_RA_WASTE] = SWAP_RA_WASTE,
	[ROW_SWAPCACHE_HIT] = -1, [ROW_LAT_P50] = -1, [ROW_LAT_P99] = -1,
};
_Static_assert(NROWS + SCRIPT_MAX_ROWS <= RTABLE_MAX_ROWS, "the table module holds RTABLE_MAX_ROWS rows");
_Static_assert(SCRIPT_MAX_COLUMNS <= RTABLE_MAX_COLUMNS, "the table module holds RTABLE_MAX_COLUMNS columns");

#define NS_PER_MS 1000000ul

struct script_exec;
struct script_unit;

/* What a program prints and records besides errors: a script's or run='s. */
struct script_output {
	const char *of;                 /* the mem_balance records' "of" */
	void (*begin)(struct script_exec *x);
	void (*unit)(struct script_exec *x, const struct script_unit *u, int column);
	void (*end)(struct script_exec *x);
};

struct script_exec {
	struct script *prog;
	const struct script_output *out;
	bool skip[SCRIPT_MAX_STMTS];    /* run=: left out by the check */
	int rep[SCRIPT_MAX_DEPTH];      /* iteration of each enclosing repeat */
	int nrep;
	bool stopped;                   /* a run-time error ended the script */
	bool vmstat_on;
	uint32_t results, failed;
	uint32_t column_runs[SCRIPT_MAX_COLUMNS];
	uint32_t nsamples;
	struct rtable_sample sample[SCRIPT_MAX_RESULTS];
	/* The table's rows: the kernel's NROWS, then one per `row` statement
	 * (wrow[k] is its statement, row NROWS + k). */
	struct rtable_row row[RTABLE_MAX_ROWS];
	int nrows;
	int wrow[SCRIPT_MAX_ROWS];
	int nwrows;
	bool wrow_warned[SCRIPT_MAX_ROWS];
};

/* One run or parallel group. */
struct script_unit {
	int stmt;                       /* the RUN or PARALLEL */
	int ntasks;
	const char *cmd[SCRIPT_MAX_PARALLEL];
	struct task *task[SCRIPT_MAX_PARALLEL];   /* NULL: did not start */
	uint64_t base[VMSTAT_NITEMS], end[VMSTAT_NITEMS];      /* counters before and after */
	uint64_t elapsed, utime, stime, minflt, majflt;
	uint64_t busy;                  /* sched_busy_ns at the start, then the unit's guest busy time */
	uint64_t free_before;           /* free pages at the start, after the caches were dropped */
	uint64_t dirty_before;          /* file pages the drop left dirty or under write-back */
	uint32_t failed;
};

static uint64_t unit_mismatches, unit_workload_lines;   /* atomic: the stdout hook */

/* `row PROGRAM.FIELD` figures of the running unit, summed over its
 * programs' records (two shmdb in a parallel group: their total), and how
 * many records had the field (found) or lacked it (bad).  Written by the
 * stdout hook (atomic); hook_exec is the script whose rows they are. */
static const struct script_exec *hook_exec;
static uint64_t unit_wrow_sum[SCRIPT_MAX_ROWS], unit_wrow_found[SCRIPT_MAX_ROWS], unit_wrow_bad[SCRIPT_MAX_ROWS];

/* ------------------------------------------------------------ messages */

void script_report_error(const char *script, int line, int col, const char *phase, const char *msg)
{
	kprintf("%s\n", msg);
	struct json *j = rec_begin("script_error");
	json_str(j, "script", script);
	json_str(j, "phase", phase);
	if (line) {
		json_u64(j, "line", (uint64_t)line);
		json_u64(j, "col", (uint64_t)col);
	}
	json_str(j, "message", msg);
	rec_end();
}

/* A problem with statement i, named by where it stands. */
static void stmt_error(struct script_exec *x, int i, const char *phase, const char *what)
{
	char msg[SCRIPT_ERR_MAX + 64], where[128];
	const struct script_stmt *st = &x->prog->stmt[i];
	script_where(x->prog, i, where, sizeof where);
	ksnprintf(msg, sizeof msg, "%s: %s", where, what);
	script_report_error(x->prog->name, st->line, st->arg_col, phase, msg);
}

/* ------------------------------------------------------------ checks */

static void size_text(char *buf, size_t n, uint64_t bytes)
{
	if (!(bytes & ((1ull << 20) - 1)))
		ksnprintf(buf, n, "%luM", bytes >> 20);
	else
		ksnprintf(buf, n, "%luK", bytes >> 10);
}

static int check_mem(struct script_exec *x, uint64_t have)
{
	uint64_t want = x->prog->mem;
	uint64_t diff = want > have ? want - have : have - want;
	if (!want || diff * 100 <= want * MEM_TOLERANCE_PCT)
		return 0;
	char w[24], msg[192];
	size_text(w, sizeof w, want);
	ksnprintf(msg, sizeof msg, "%s: the script expects mem %s but the kernel has %lu MiB of usable RAM; boot with mem=%s",
		  x->prog->name, w, have >> 20, w);
	script_report_error(x->prog->name, 0, 0, "check", msg);
	return -EINVAL;
}

/* The program (first word) of a command line, without quotes. */
static void program_of(const char *cmd, char *out, size_t n)
{
	size_t o = 0;
	for (; *cmd && *cmd != ' ' && o + 1 < n; cmd++)
		if (*cmd != '"')
			out[o++] = *cmd;
	out[o] = 0;
}

static int check_stmt(struct script_exec *x, int i)
{
	const struct script_stmt *st = &x->prog->stmt[i];
	char what[SCRIPT_CMD_MAX + 64], prog[SCRIPT_CMD_MAX];
	const void *data;
	uint64_t size;
	const char *path;
	if (st->op == SCRIPT_RUN) {
		program_of(st->a, prog, sizeof prog);
		if (bootfs_find(prog, &data, &size, &path))
			return 0;
		bootfs_no_program(prog, what, sizeof what);
	} else if (st->op == SCRIPT_DATA) {
		if (blk_find_linux(st->a))
			return 0;
		ksnprintf(what, sizeof what, "data %s: no such block device", st->a);
	} else if (st->op == SCRIPT_SWAPOFF || st->op == SCRIPT_SWAPON ||
		   (st->op == SCRIPT_SWAP && strcmp(st->a, "auto") && strcmp(st->a, "none"))) {
		if (blk_find(st->a))
			return 0;
		ksnprintf(what, sizeof what, "%s %s: no such block device", script_op_name(st->op), st->a);
	} else {
		return 0;
	}
	stmt_error(x, i, "check", what);
	return -EINVAL;
}

/* A script stops at the first misfit; run= leaves each one out. */
static int check_machine(struct script_exec *x, uint64_t usable_bytes)
{
	int err = check_mem(x, usable_bytes);
	for (int i = 0; i < x->prog->nstmts && !err; i++) {
		if (!check_stmt(x, i))
			continue;
		if (!x->prog->from_run)
			return -EINVAL;
		x->skip[i] = true;
	}
	return err;
}

/* ------------------------------------------------------------ swap lines */

static void swap_all_off(void)
{
	for (int i = 0; i < blk_count(); i++) {
		int a = swap_area_of(blk_name(blk_at(i)));
		if (a >= 0)
			swapoff(a);
	}
}

static int swap_line(struct script_exec *x, int i)
{
	const struct script_stmt *st = &x->prog->stmt[i];
	if (!strcmp(st->a, "auto"))
		return 0;
	if (!strcmp(st->a, "none")) {
		swap_all_off();
		return 0;
	}
	if (swap_area_of(st->a) >= 0) {
		kprintf("script: swap %s: already on; it stays on as it is\n", st->a);
		return 0;
	}
	uint32_t cluster = st->cluster ? st->cluster : swap_cluster_size();
	if (swapon(blk_find(st->a), (int)st->n, cluster) >= 0)
		return 0;
	char what[96];
	ksnprintf(what, sizeof what, "swap %s: swapon failed (see the line above)", st->a);
	stmt_error(x, i, "swap", what);
	return -EIO;
}

static int setup_swap_lines(struct script_exec *x)
{
	for (int i = 0; i < x->prog->nstmts; i++)
		if (x->prog->stmt[i].op == SCRIPT_SWAP && swap_line(x, i))
			return -EIO;
	return 0;
}

/* ------------------------------------------------------------ run units */

static void wrows_scan(const char *line, uint32_t n)
{
	const struct script_exec *x = hook_exec;
	for (int k = 0; x && k < x->nwrows; k++) {
		const struct script_stmt *st = &x->prog->stmt[x->wrow[k]];
		uint64_t v;
		enum script_field f = script_workload_field(line, n, st->a, st->n, st->b, &v);
		if (f == SCRIPT_FIELD_FOUND) {
			__atomic_add_fetch(&unit_wrow_sum[k], v, __ATOMIC_RELAXED);
			__atomic_add_fetch(&unit_wrow_found[k], 1, __ATOMIC_RELAXED);
		} else if (f == SCRIPT_FIELD_NOT_INT) {
			__atomic_add_fetch(&unit_wrow_bad[k], 1, __ATOMIC_RELAXED);
		}
	}
}

static void on_stdout(struct task *t, const char *line, uint32_t n)
{
	(void)t;
	uint64_t m;
	if (script_workload_mismatches(line, n, &m)) {
		__atomic_add_fetch(&unit_mismatches, m, __ATOMIC_RELAXED);
		__atomic_add_fetch(&unit_workload_lines, 1, __ATOMIC_RELAXED);
	}
	wrows_scan(line, n);
}

static void unit_start(struct script_unit *u)
{
	vm_drop_caches();
	membal_drain_caches();
	u->free_before = pmm_free_pages();
	u->dirty_before = pagecache_nr_dirty() + pagecache_nr_writeback();
	probe_window_begin();
	lockstat_reset();
	kprof_reset();
	swapin_latency_reset();
	__atomic_store_n(&unit_mismatches, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&unit_workload_lines, 0, __ATOMIC_RELAXED);
	for (int k = 0; k < SCRIPT_MAX_ROWS; k++) {
		__atomic_store_n(&unit_wrow_sum[k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&unit_wrow_found[k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&unit_wrow_bad[k], 0, __ATOMIC_RELAXED);
	}
	vmstat_snapshot(u->base);
	u->busy = sched_busy_ns();
}

/* Run statement i; one left out by the check counts as not started. */
static void unit_spawn(struct script_exec *x, struct script_unit *u, int i)
{
	const struct script_stmt *st = &x->prog->stmt[i];
	u->cmd[u->ntasks] = st->a;
	u->task[u->ntasks] = x->skip[i] ? NULL : task_spawn(st->a, 0);
	u->ntasks++;
}

/* Wait for every task; sum their figures from the task_exit data. */
static void unit_wait(struct script_unit *u)
{
	uint64_t first = UINT64_MAX, last = 0;
	for (int i = 0; i < u->ntasks; i++) {
		struct task *k = u->task[i];
		if (!k) {
			u->failed++;
			continue;
		}
		int code = task_wait(k);
		uint64_t ut, st;
		task_cpu_times(k, &ut, &st);
		u->utime += ut;
		u->stime += st;
		u->minflt += k->faults.minflt;
		u->majflt += k->faults.majflt;
		first = k->start_ns < first ? k->start_ns : first;
		last = k->end_ns > last ? k->end_ns : last;
		u->failed += code != 0 || k->killed;
	}
	u->elapsed = last > first ? last - first : 0;
	u->busy = sched_busy_ns() - u->busy;
	vmstat_snapshot(u->end);
}

static uint64_t delta(const struct script_unit *u, enum vmstat_item i) { return u->end[i] - u->base[i]; }

static void unit_put(struct script_unit *u)
{
	for (int i = 0; i < u->ntasks; i++)
		if (u->task[i])
			task_put(u->task[i]);
}

/* ------------------------------------------------------------ result records */

static void json_exits(struct json *j, const struct script_unit *u)
{
	json_arr_begin(j, "exits");
	for (int i = 0; i < u->ntasks; i++) {
		const struct task *k = u->task[i];
		json_obj_begin(j, NULL);
		json_str(j, "cmdline", u->cmd[i]);
		json_bool(j, "started", k != NULL);
		if (k) {
			json_u64(j, "pid", (uint64_t)k->pid);
			if (k->killed) {
				json_null(j, "exit_code");
				json_str(j, "signal", k->signal);
			} else {
				json_i64(j, "exit_code", k->exit_code);
				json_null(j, "signal");
			}
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_readahead(struct json *j, const struct script_unit *u)
{
	uint64_t ra = delta(u, SWAP_RA), hit = delta(u, SWAP_RA_HIT);
	json_obj_begin(j, "readahead");
	json_u64(j, "swap_ra", ra);
	json_u64(j, "swap_ra_hit", hit);
	json_u64(j, "swap_ra_waste", delta(u, SWAP_RA_WASTE));
	json_fixed(j, "hit_pct", ra ? (int64_t)((hit * 10000 + ra / 2) / ra) : 0, 2);
	json_obj_end(j);
}

/* Every counter as its delta over the unit (the snapshot the table uses
 * too, so record and table agree). */
static void json_vmstat(struct json *j, const struct script_unit *u)
{
	json_obj_begin(j, "vmstat");
	for (int i = 0; i < VMSTAT_NITEMS; i++)
		json_u64(j, vmstat_name(i), delta(u, i));
	json_obj_end(j);
}

static void result_head(struct json *j, struct script_exec *x, const struct script_stmt *st, int column)
{
	json_str(j, "script", x->prog->name);
	json_u64(j, "line", (uint64_t)st->line);
	json_str(j, "column", x->prog->column[column]);
	json_u64(j, "column_index", (uint64_t)column);
	json_u64(j, "run", x->column_runs[column]);
	json_u64(j, "rep", x->nrep ? (uint64_t)x->rep[x->nrep - 1] : 0);
	json_arr_begin(j, "reps");
	for (int i = 0; i < x->nrep; i++)
		json_u64(j, NULL, (uint64_t)x->rep[i]);
	json_arr_end(j);
	json_u64(j, "seq", x->results);
}

/* The `row` figures of this unit, null where its programs did not report
 * them: what the table's cells are made of. */
static void json_wrows(struct json *j, const struct script_exec *x)
{
	if (!x->nwrows)
		return;
	json_obj_begin(j, "rows");
	for (int k = 0; k < x->nwrows; k++) {
		const char *name = x->prog->stmt[x->wrow[k]].a;
		if (__atomic_load_n(&unit_wrow_found[k], __ATOMIC_RELAXED))
			json_u64(j, name, __atomic_load_n(&unit_wrow_sum[k], __ATOMIC_RELAXED));
		else
			json_null(j, name);
	}
	json_obj_end(j);
}

static void result_record(struct script_exec *x, const struct script_unit *u, int column)
{
	const struct script_stmt *st = &x->prog->stmt[u->stmt];
	struct probe_report pr;
	if (probe_running())
		probe_read(true, &pr);
	struct json *j = rec_begin("result");
	result_head(j, x, st, column);
	json_arr_begin(j, "commands");
	for (int i = 0; i < u->ntasks; i++)
		json_str(j, NULL, u->cmd[i]);
	json_arr_end(j);
	json_exits(j, u);
	json_u64(j, "failed", u->failed);
	json_u64(j, "elapsed_ns", u->elapsed);
	json_u64(j, "utime_ns", u->utime);
	json_u64(j, "stime_ns", u->stime);
	json_u64(j, "busy_ns", u->busy);
	json_u64(j, "minflt", u->minflt);
	json_u64(j, "majflt", u->majflt);
	json_u64(j, "mismatches", __atomic_load_n(&unit_mismatches, __ATOMIC_RELAXED));
	json_u64(j, "workload_records", __atomic_load_n(&unit_workload_lines, __ATOMIC_RELAXED));
	json_wrows(j, x);
	vm_knobs_json(j);
	json_readahead(j, u);
	swapin_latency_json(j, "swapin_latency");
	if (probe_running())
		probe_json(j, "probe", &pr);
	lockstat_json(j, "locks", 5);
	json_vmstat(j, u);
	rec_end();
}

/* A record of the program without the field (a typo, or a float): said
 * once per row, since the cell then stays empty. */
static void wrow_warn(struct script_exec *x, int k)
{
	const struct script_stmt *st = &x->prog->stmt[x->wrow[k]];
	char where[128];
	if (x->wrow_warned[k])
		return;
	x->wrow_warned[k] = true;
	script_where(x->prog, x->wrow[k], where, sizeof where);
	kprintf("%s: row %s: a %.*s record has no unsigned integer field '%s'; that cell stays empty\n", where,
		st->a, (int)st->n, st->a, st->b);
}

static void keep_wrows(struct script_exec *x, struct rtable_sample *s)
{
	s->missing = 0;
	for (int k = 0; k < x->nwrows; k++) {
		s->v[NROWS + k] = __atomic_load_n(&unit_wrow_sum[k], __ATOMIC_RELAXED);
		if (!__atomic_load_n(&unit_wrow_found[k], __ATOMIC_RELAXED))
			s->missing |= 1u << (NROWS + k);
		if (__atomic_load_n(&unit_wrow_bad[k], __ATOMIC_RELAXED))
			wrow_warn(x, k);
	}
}

static void keep_sample(struct script_exec *x, const struct script_unit *u, int column)
{
	if (x->nsamples == SCRIPT_MAX_RESULTS) {
		if (x->results == SCRIPT_MAX_RESULTS)
			kprintf("script: more than %d results; the table uses the first %d\n", SCRIPT_MAX_RESULTS,
				SCRIPT_MAX_RESULTS);
		return;
	}
	struct rtable_sample *s = &x->sample[x->nsamples++];
	s->column = column;
	s->failed = u->failed != 0;
	s->v[ROW_REAL] = u->elapsed;
	s->v[ROW_USER] = u->utime;
	s->v[ROW_SYS] = u->stime;
	for (int r = 0; r < NROWS; r++)
		if (row_vmstat[r] >= 0)
			s->v[r] = delta(u, row_vmstat[r]);
	uint64_t find = delta(u, SWAPCACHE_FIND);
	s->v[ROW_SWAPCACHE_HIT] = find ? delta(u, SWAPCACHE_FIND_HIT) * 100 / find : 0;
	s->v[ROW_LAT_P50] = swapin_latency_percentile(500);
	s->v[ROW_LAT_P99] = swapin_latency_percentile(990);
	keep_wrows(x, s);
}

/* A script's unit: a result record, a table sample, one console line. */
static void script_out_unit(struct script_exec *x, const struct script_unit *u, int column)
{
	result_record(x, u, column);
	keep_sample(x, u, column);
	kprintf("script: %s #%u: %lu ms%s\n", x->prog->column[column], x->column_runs[column],
		u->elapsed / NS_PER_MS, u->failed ? ", FAILED" : "");
}

/* A run= step: its counters as a vmstat record labelled with the step,
 * and one human line (the screen shows no records: on a PC without a
 * serial port this line is the progress of a long run). */
static void run_out_unit(struct script_exec *x, const struct script_unit *u, int column)
{
	(void)column;
	const struct script_stmt *st = &x->prog->stmt[u->stmt];
	kprintf("run=: step %d done in %lu ms, %lu major faults%s: %s\n", st->line, u->elapsed / NS_PER_MS, u->majflt,
		u->failed ? ", FAILED" : "", st->a ? st->a : "");
	struct json *j = rec_begin("vmstat");
	json_str(j, "label", x->prog->stmt[u->stmt].a);
	json_u64(j, "busy_ns", u->busy);
	json_u64(j, "free_before_pages", u->free_before);
	json_u64(j, "dirty_before_pages", u->dirty_before);
	vmstat_json_delta(j, u->base);
	swapin_latency_json(j, "swapin_latency");
	rec_end();
}

static void unit_finish(struct script_exec *x, struct script_unit *u, int column)
{
	unit_wait(u);
	x->out->unit(x, u, column);
	if (u->ntasks)
		kprof_record(x->prog->stmt[u->stmt].a);
	unit_put(u);
	x->results++;
	x->column_runs[column]++;
	x->failed += u->failed != 0;
}

/* ------------------------------------------------------------ statements */

typedef int (*exec_fn)(struct script_exec *x, int i);
static int exec_range(struct script_exec *x, int from, int to);

static int exec_run(struct script_exec *x, int i)
{
	static struct script_unit u;
	memset(&u, 0, sizeof u);
	u.stmt = i;
	unit_start(&u);
	unit_spawn(x, &u, i);
	unit_finish(x, &u, x->prog->stmt[i].column);
	return i + 1;
}

static int exec_parallel(struct script_exec *x, int i)
{
	static struct script_unit u;
	const struct script_stmt *g = &x->prog->stmt[i];
	memset(&u, 0, sizeof u);
	u.stmt = i;
	unit_start(&u);
	for (int k = i + 1; k < g->end; k++)
		if (x->prog->stmt[k].op == SCRIPT_RUN)
			unit_spawn(x, &u, k);
	/* The rest (sleep, swapoff; a run= step's set and swapon too), in
	 * order, once the programs have started. */
	for (int k = i + 1; k < g->end; k++)
		if (x->prog->stmt[k].op != SCRIPT_RUN)
			exec_range(x, k, k + 1);
	unit_finish(x, &u, g->column);
	return g->end + 1;
}

static int exec_repeat(struct script_exec *x, int i)
{
	const struct script_stmt *r = &x->prog->stmt[i];
	int level = x->nrep++;
	for (uint64_t k = 0; k < r->n && !x->stopped; k++) {
		x->rep[level] = (int)k;
		exec_range(x, i + 1, r->end);
	}
	x->nrep--;
	return r->end + 1;
}

/* A run-time error of statement i: a script stops there, run= goes on. */
static int exec_failed(struct script_exec *x, int i, const char *what)
{
	char msg[SCRIPT_ERR_MAX];
	ksnprintf(msg, sizeof msg, "%s%s", what, x->prog->from_run ? "" : "; the script stops here");
	stmt_error(x, i, "run", msg);
	x->stopped = !x->prog->from_run;
	return i + 1;
}

static int exec_set(struct script_exec *x, int i)
{
	const struct script_stmt *st = &x->prog->stmt[i];
	char err[128], what[224];
	if (!vm_set_knob(st->a, st->b, err, sizeof err)) {
		kprintf("%s: set %s %s\n", x->prog->from_run ? "run=" : "script", st->a, st->b);
		return i + 1;
	}
	ksnprintf(what, sizeof what, "set %s %s: %s", st->a, st->b, err);
	return exec_failed(x, i, what);
}

/* Nothing to do is no error: the area is already as asked. */
static int exec_swapoff(struct script_exec *x, int i)
{
	const struct script_stmt *st = &x->prog->stmt[i];
	char where[128];
	int a = swap_area_of(st->a);
	if (a >= 0) {
		swapoff(a);
		return i + 1;
	}
	script_where(x->prog, i, where, sizeof where);
	kprintf("%s: swapoff %s: not a swap area; nothing to do\n", where, st->a);
	return i + 1;
}

/* swapon() itself would add an active area a second time, over the same
 * slots: an area already on stays on as it is. */
static int exec_swapon(struct script_exec *x, int i)
{
	const struct script_stmt *st = &x->prog->stmt[i];
	char where[128], what[96];
	if (swap_area_of(st->a) >= 0) {
		script_where(x->prog, i, where, sizeof where);
		kprintf("%s: swapon %s: already a swap area; nothing to do\n", where, st->a);
		return i + 1;
	}
	int err = swapon(blk_find(st->a), 0, swap_cluster_size());
	if (err >= 0)
		return i + 1;
	ksnprintf(what, sizeof what, "swapon %s: failed (%d; see the line above)", st->a, err);
	return exec_failed(x, i, what);
}

/* Refused (the ESP, a swap area): the line is printed; the runs that
 * would write the device then fail with EACCES and say so. */
static int exec_data(struct script_exec *x, int i)
{
	char where[128];
	script_where(x->prog, i, where, sizeof where);
	pagecache_allow_write(blk_find_linux(x->prog->stmt[i].a), where);
	return i + 1;
}

static int exec_vmstat(struct script_exec *x, int i)
{
	x->vmstat_on = x->prog->stmt[i].n != 0;
	vmstat_sampler(x->prog->stmt[i].n);
	return i + 1;
}

static int exec_probe(struct script_exec *x, int i)
{
	if (!x->prog->stmt[i].n)
		probe_stop();
	else if (probe_start())
		kprintf("script: %s:%d: probe: out of memory; no probe\n", x->prog->name, x->prog->stmt[i].line);
	return i + 1;
}

static int exec_sleep(struct script_exec *x, int i)
{
	sleep_ms(x->prog->stmt[i].n);
	return i + 1;
}

static int exec_drop(struct script_exec *x, int i)
{
	(void)x;
	vm_drop_caches();
	return i + 1;
}

/* mem, swap (done before the run), column (resolved by the parser), row
 * (the table's, set up before the run). */
static int exec_nothing(struct script_exec *x, int i)
{
	(void)x;
	return i + 1;
}

static const exec_fn exec_ops[SCRIPT_NOPS] = {
	[SCRIPT_MEM] = exec_nothing,
	[SCRIPT_SWAP] = exec_nothing,
	[SCRIPT_SET] = exec_set,
	[SCRIPT_COLUMN] = exec_nothing,
	[SCRIPT_RUN] = exec_run,
	[SCRIPT_PARALLEL] = exec_parallel,
	[SCRIPT_REPEAT] = exec_repeat,
	[SCRIPT_END] = exec_nothing,
	[SCRIPT_VMSTAT] = exec_vmstat,
	[SCRIPT_SWAPOFF] = exec_swapoff,
	[SCRIPT_SWAPON] = exec_swapon,
	[SCRIPT_SLEEP] = exec_sleep,
	[SCRIPT_DROP_CACHES] = exec_drop,
	[SCRIPT_PROBE] = exec_probe,
	[SCRIPT_DATA] = exec_data,
	[SCRIPT_ROW] = exec_nothing,
};

/* Statements left out by the check are runs, swapons and swapoffs: none
 * opens a block, so skipping one is a step to the next. */
static int exec_range(struct script_exec *x, int from, int to)
{
	for (int i = from; i < to && !x->stopped;)
		i = x->skip[i] ? i + 1 : exec_ops[x->prog->stmt[i].op](x, i);
	return to;
}

/* ------------------------------------------------------------ the table */

static struct rtable table_of(const struct script_exec *x)
{
	return (struct rtable){ .title = x->prog->name, .rows = x->row, .nrows = x->nrows, .columns = x->prog->column,
				.ncolumns = x->prog->ncolumns, .column_runs = x->column_runs, .failed = x->failed,
				.samples = x->sample, .nsamples = x->nsamples };
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("%s\n", line);
}

static void print_table(const struct script_exec *x)
{
	struct rtable t = table_of(x);
	rtable_print(&t, print_line, NULL);
}

static void table_record(const struct script_exec *x)
{
	struct rtable t = table_of(x);
	struct json *j = rec_begin("table");
	rtable_json(&t, j);
	rec_end();
}

/* ------------------------------------------------------------ output */

static void script_begin(struct script_exec *x)
{
	kprintf("script: %s: %d statements, %d columns\n", x->prog->name, x->prog->nstmts, x->prog->ncolumns);
	struct json *j = rec_begin("script");
	json_str(j, "script", x->prog->name);
	json_u64(j, "statements", (uint64_t)x->prog->nstmts);
	if (x->prog->mem)
		json_u64(j, "mem_bytes", x->prog->mem);
	else
		json_null(j, "mem_bytes");
	json_arr_begin(j, "columns");
	for (int c = 0; c < x->prog->ncolumns; c++)
		json_str(j, NULL, x->prog->column[c]);
	json_arr_end(j);
	rec_end();
}

/* A row no run reported at all (a program name that no record carries). */
static void note_empty_rows(const struct script_exec *x)
{
	for (int k = 0; k < x->nwrows; k++) {
		uint32_t bit = 1u << (NROWS + k), i = 0;
		while (i < x->nsamples && (x->sample[i].missing & bit))
			i++;
		const struct script_stmt *st = &x->prog->stmt[x->wrow[k]];
		if (i == x->nsamples && !x->wrow_warned[k])
			kprintf("script: %s:%d: row %s: no run printed a %.*s record with it; the row stays empty\n",
				x->prog->name, st->line, st->a, (int)st->n, st->a);
	}
}

static void script_finish(struct script_exec *x)
{
	note_empty_rows(x);
	print_table(x);
	table_record(x);
	struct json *j = rec_begin("script_end");
	json_str(j, "script", x->prog->name);
	json_u64(j, "results", x->results);
	json_u64(j, "failed", x->failed);
	json_bool(j, "stopped", x->stopped);
	rec_end();
}

static void run_nothing(struct script_exec *x) { (void)x; }

static const struct script_output script_output = { "script", script_begin, script_out_unit, script_finish };
static const struct script_output run_output = { "run", run_nothing, run_out_unit, run_nothing };

/* ------------------------------------------------------------ entry */

static struct script *load(const char *path)
{
	const void *data;
	uint64_t size;
	const char *found;
	char err[SCRIPT_ERR_MAX];
	if (!bootfs_find(path, &data, &size, &found)) {
		ksnprintf(err, sizeof err, "script: no boot file '%s'; nothing runs", path);
		script_report_error(path, 0, 0, "load", err);
		return NULL;
	}
	struct script *s = kzalloc(sizeof *s);
	if (!s) {
		ksnprintf(err, sizeof err, "script: %s: out of memory; nothing runs", path);
		script_report_error(path, 0, 0, "load", err);
		return NULL;
	}
	if (script_parse(path, data, size, s, err, sizeof err)) {
		script_report_error(path, s->err_line, s->err_col, "parse", err);
		kprintf("script: %s has an error; nothing runs\n", path);
		kfree(s);
		return NULL;
	}
	return s;
}

/* The kernel's rows, then the script's `row`s in text order.  A figure
 * named *_ns is a time (shown in ms), as the kernel's time rows. */
static void setup_rows(struct script_exec *x)
{
	memcpy(x->row, rows, sizeof rows);
	x->nrows = NROWS;
	for (int i = 0; i < x->prog->nstmts && x->nwrows < SCRIPT_MAX_ROWS; i++) {
		const struct script_stmt *st = &x->prog->stmt[i];
		if (st->op != SCRIPT_ROW)
			continue;
		size_t n = strlen(st->b);
		x->wrow[x->nwrows++] = i;
		x->row[x->nrows++] = (struct rtable_row){ st->a, n > 3 && !strcmp(st->b + n - 3, "_ns"), false };
	}
}

int script_execute(struct script *s, uint64_t usable_bytes)
{
	struct script_exec *x = kzalloc(sizeof *x);
	char err[SCRIPT_ERR_MAX];
	if (!x) {
		ksnprintf(err, sizeof err, "%s: out of memory; nothing runs", s->name);
		script_report_error(s->name, 0, 0, "load", err);
		return -ENOMEM;
	}
	x->prog = s;
	x->out = s->from_run ? &run_output : &script_output;
	setup_rows(x);
	if (check_machine(x, usable_bytes) || setup_swap_lines(x)) {
		kprintf("script: %s does not fit this machine; nothing runs\n", s->name);
		kfree(x);
		return -EINVAL;
	}
	membal_record("start", x->out->of);
	x->out->begin(x);
	hook_exec = x;
	task_set_stdout_hook(on_stdout);
	exec_range(x, 0, s->nstmts);
	if (x->vmstat_on)
		vmstat_sampler(0);
	probe_stop();
	task_set_stdout_hook(NULL);
	hook_exec = NULL;
	x->out->end(x);
	/* Before kfree(x): x (and s) were allocated at the start record too. */
	membal_record("end", x->out->of);
	int failed = (int)x->failed;
	kfree(x);
	return failed;
}

int script_run(const char *path, uint64_t usable_bytes)
{
	struct script *s = load(path);
	if (!s)
		return -EINVAL;
	int failed = script_execute(s, usable_bytes);
	kfree(s);
	return failed;
}
