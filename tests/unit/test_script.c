/*
 * Workload script parser (kernel/run/script.c): good scripts compile to
 * the expected statements, blocks and columns; every kind of mistake stops
 * with one exact FILE:LINE:COL message; run= values compile to the same
 * statements, one group per step, and every bad step or part is reported
 * once, naming the step, and left out while the rest compiles; the knob
 * list matches the kernel's knob table; the workload-line scanner finds
 * mismatch counts.
 */
#include <dirent.h>
#include <stdlib.h>
#include "test.h"
#include "run/script.h"
#include "core/knob_table.h"
#include "swap/swapalloc.h"
#include "swap/ra_policy.h"
#include "lib/errno.h"

static struct script prog;
static char err[SCRIPT_ERR_MAX];

static int parse(const char *text)
{
	return script_parse("t.mm", text, strlen(text), &prog, err, sizeof err);
}

/* The message a bad script gives (or "OK"). */
static const char *error_of(const char *text)
{
	return parse(text) ? err : "OK";
}

TEST(script_seed000_table_script)
{
	const char *text =
		"# Konstantin's table, rerun\n"
		"mem 48M\n"
		"swap nvme1n1 prio=5 cluster=512\n"
		"\n"
		"column \"RA=3\"\n"
		"set ra fixed:3\n"
		"repeat 10\n"
		"    drop_caches\n"
		"    run touch 72 30000 seq anon   # Hugh's sequential touch\n"
		"end\n"
		"column \"RA=0\"\n"
		"set page_cluster 0\n"
		"repeat 10\n"
		"\trun touch 72 30000 seq anon\n"
		"end\n";
	CHECK_EQ(parse(text), 0);
	CHECK_STR(err, "");
	CHECK_STR(prog.name, "t.mm");
	CHECK_EQ(prog.mem, 48ull << 20);
	CHECK_EQ(prog.nstmts, 13);
	CHECK_EQ(prog.ncolumns, 2);
	CHECK_STR(prog.column[0], "RA=3");
	CHECK_STR(prog.column[1], "RA=0");
	const struct script_stmt *s = prog.stmt;
	CHECK_EQ(s[0].op, SCRIPT_MEM);
	CHECK_EQ(s[1].op, SCRIPT_SWAP);
	CHECK_STR(s[1].a, "nvme1n1");
	CHECK_EQ(s[1].n, 5);
	CHECK_EQ(s[1].cluster, 512);
	CHECK_EQ(s[2].op, SCRIPT_COLUMN);
	CHECK_EQ(s[3].op, SCRIPT_SET);
	CHECK_STR(s[3].a, "ra");
	CHECK_STR(s[3].b, "fixed:3");
	CHECK_EQ(s[3].line, 6);
	CHECK_EQ(s[3].col, 1);
	CHECK_EQ(s[3].arg_col, 5);
	CHECK_EQ(s[4].op, SCRIPT_REPEAT);
	CHECK_EQ(s[4].n, 10);
	CHECK_EQ(s[4].end, 7);
	CHECK_EQ(s[5].op, SCRIPT_DROP_CACHES);
	CHECK_EQ(s[6].op, SCRIPT_RUN);
	CHECK_STR(s[6].a, "touch 72 30000 seq anon");
	CHECK_EQ(s[6].column, 0);
	CHECK_EQ(s[6].col, 5);
	CHECK_EQ(s[7].op, SCRIPT_END);
	CHECK_EQ(s[7].end, 4);
	CHECK_EQ(s[12].op, SCRIPT_END);
	CHECK_EQ(s[12].end, 10);
	CHECK_EQ(s[11].column, 1);
	CHECK_EQ(s[11].line, 14);
	CHECK_EQ(s[11].col, 2);
}

TEST(script_parallel_groups_and_default_columns)
{
	const char *text =
		"swap auto\n"
		"run hello\n"
		"parallel\n"
		"  run touch 8 100 seq anon\n"
		"  sleep 100\n"
		"  run hogmem 8 1\n"
		"  swapoff nvme1n1\n"
		"end\n"
		"repeat 2\n"
		"  run hello\n"
		"end\n"
		"column \"mixed\"\n"
		"parallel\n"
		"  run hello\n"
		"end\n"
		"column\n"
		"run hello x\n";
	CHECK_EQ(parse(text), 0);
	CHECK_EQ(prog.ncolumns, 4);
	CHECK_STR(prog.column[0], "hello");
	CHECK_STR(prog.column[1], "touch 8 100 seq anon & hogmem 8 1");
	CHECK_STR(prog.column[2], "mixed");
	CHECK_STR(prog.column[3], "hello x");
	const struct script_stmt *s = prog.stmt;
	CHECK_EQ(s[2].op, SCRIPT_PARALLEL);
	CHECK_EQ(s[2].column, 1);
	CHECK_EQ(s[2].end, 7);
	CHECK_EQ(s[3].column, -1);             /* runs in a group: the group's column */
	CHECK_EQ(s[4].op, SCRIPT_SLEEP);
	CHECK_EQ(s[4].n, 100);
	CHECK_EQ(s[6].op, SCRIPT_SWAPOFF);
	CHECK_STR(s[6].a, "nvme1n1");
	CHECK_EQ(s[9].column, 0);              /* the same command, the same column */
	CHECK_EQ(s[12].column, 2);
	CHECK_EQ(s[16].column, 3);
}

TEST(script_statements_and_arguments)
{
	const char *text =
		"vmstat 1000\nvmstat 0\nprobe on\nprobe off\nsleep 0\ndrop_caches\n"
		"set swapcrc on\nset reclaim_batch \"100\"\n"
		"run fill 50 \"two words\" \"\"\n"
		"repeat 3 # three times\nrun hello\nend\n";
	CHECK_EQ(parse(text), 0);
	const struct script_stmt *s = prog.stmt;
	CHECK_EQ(s[0].op, SCRIPT_VMSTAT);
	CHECK_EQ(s[0].n, 1000);
	CHECK_EQ(s[2].op, SCRIPT_PROBE);
	CHECK_EQ(s[2].n, 1);
	CHECK_EQ(s[3].n, 0);
	CHECK_STR(s[7].b, "100");
	CHECK_STR(s[8].a, "fill 50 \"two words\" \"\"");
	CHECK_EQ(s[9].n, 3);
	CHECK_STR(script_op_name(SCRIPT_DROP_CACHES), "drop_caches");
}

TEST(script_crlf_blank_lines_and_no_final_newline)
{
	CHECK_EQ(parse("mem 64M\r\n\r\n   \t\n# only a comment\nrun hello"), 0);
	CHECK_EQ(prog.nstmts, 2);
	CHECK_STR(prog.stmt[1].a, "hello");
	CHECK_EQ(parse(""), 0);
	CHECK_EQ(prog.nstmts, 0);
	CHECK_EQ(prog.mem, 0);
}

TEST(script_error_messages)
{
	CHECK_STR(error_of("mem 48M\nswap auto\n\n\n\n\nset     swapines 60\n"),
		  "t.mm:7:9: unknown knob 'swapines' (did you mean swappiness?)");
	CHECK_EQ(prog.err_line, 7);
	CHECK_EQ(prog.err_col, 9);
	CHECK_STR(error_of("rnu hello\n"), "t.mm:1:1: unknown statement 'rnu' (did you mean run?)");
	CHECK_STR(error_of("  frobnicate\n"), "t.mm:1:3: unknown statement 'frobnicate'");
	CHECK_STR(error_of("\"run\" hello\n"), "t.mm:1:1: a statement starts with its name, not a quoted string");
	CHECK_STR(error_of("run hello\nend\n"), "t.mm:2:1: 'end' without 'repeat' or 'parallel'");
	CHECK_STR(error_of("column \"RA=3\n"), "t.mm:1:8: unterminated quote");
	CHECK_STR(error_of("column \"a\"b\n"), "t.mm:1:11: expected a blank after the closing quote");
	CHECK_STR(error_of("run a\"b\n"), "t.mm:1:6: a quote may only start a word");
	CHECK_STR(error_of("repeat 3\nrun hello\n"), "t.mm:1:1: 'repeat' without 'end'");
	CHECK_STR(error_of("repeat 2\n  parallel\n  end\nend\n"),
		  "t.mm:2:3: empty 'parallel' group (it needs at least one run)");
	CHECK_STR(error_of("repeat\n"), "t.mm:1:7: 'repeat' needs more: repeat N");
	CHECK_STR(error_of("repeat 0\nend\n"), "t.mm:1:8: repeat: '0' is not a number in 1..1000000");
	CHECK_STR(error_of("repeat 2 3\n"), "t.mm:1:10: too many arguments: repeat N");
	CHECK_STR(error_of("drop_caches now\n"), "t.mm:1:13: too many arguments: drop_caches");
	CHECK_STR(error_of("mem lots\n"), "t.mm:1:5: 'lots' is not a size (e.g. 48M)");
	CHECK_STR(error_of("mem 4M\n"), "t.mm:1:5: mem 4M is below the 8 MiB the kernel needs");
	CHECK_STR(error_of("mem 48M\nmem 64M\n"), "t.mm:2:1: mem given twice (first on line 1)");
	CHECK_STR(error_of("run hello\nmem 48M\n"),
		  "t.mm:2:1: 'mem' must come before other statements (line 1 has 'run')");
	CHECK_STR(error_of("swap nvme1n1 prio=x\n"), "t.mm:1:19: prio: 'x' is not a number in 0..32767");
	CHECK_STR(error_of("swap nvme1n1 cluster=100\n"), "t.mm:1:22: cluster: '100' is not a power of two in 8..65536");
	CHECK_STR(error_of("swap nvme1n1 cluster=100000\n"),
		  "t.mm:1:22: cluster: '100000' is not a power of two in 8..65536");
	/* Knob values are checked against the knob table when parsed. */
	CHECK_STR(error_of("set swap_clster 256\n"), "t.mm:1:5: unknown knob 'swap_clster' (did you mean swap_cluster?)");
	CHECK_STR(error_of("set reclaim_batch 0\n"), "t.mm:1:19: reclaim_batch: '0' is not a number in 1..256");
	CHECK_STR(error_of("set swap_cluster 7\n"), "t.mm:1:18: swap_cluster: '7' is not a power of two in 8..65536");
	CHECK_STR(error_of("set swapcrc maybe\n"), "t.mm:1:13: swapcrc: 'maybe' is not on or off");
	CHECK_STR(error_of("set swappiness 201\n"), "t.mm:1:16: swappiness: '201' is not a number in 0..200");
	CHECK_STR(error_of("set swappiness 60\n"), "OK");
	CHECK_STR(error_of("swap nvme1n1 speed=9\n"),
		  "t.mm:1:14: unknown swap option 'speed=9' (expected prio=N or cluster=N)");
	CHECK_STR(error_of("swap auto prio=1\n"), "t.mm:1:11: 'swap auto' takes no options");
	CHECK_STR(error_of("swap nvme1n1\nswap none\n"),
		  "t.mm:2:6: 'swap none' conflicts with the swap line on line 1");
	CHECK_STR(error_of("swap nvme1n1\nswap nvme1n1\n"), "t.mm:2:6: swap nvme1n1 given twice (first on line 1)");
	CHECK_STR(error_of("swap averyveryverylongdevicename0\n"),
		  "t.mm:1:6: 'averyveryverylongdevicename0' is not a device name (1..23 characters)");
	CHECK_STR(error_of("parallel\nrun hello\nset ra off\nend\n"),
		  "t.mm:3:1: 'set' is not allowed inside 'parallel' (only run, sleep, swapon and swapoff are)");
	CHECK_STR(error_of("parallel\nrepeat 2\n"),
		  "t.mm:2:1: 'repeat' is not allowed inside 'parallel' (only run, sleep, swapon and swapoff are)");
	CHECK_STR(error_of("probe maybe\n"), "t.mm:1:7: probe: expected on or off, not 'maybe'");
	CHECK_STR(error_of("vmstat 5\n"), "t.mm:1:8: vmstat: an interval of 5 ms is below 10 ms");
	CHECK_STR(error_of("sleep -1\n"), "t.mm:1:7: sleep: '-1' is not a number in 0..86400000");
	CHECK_STR(error_of("column \"\"\n"), "t.mm:1:8: empty column label");
	CHECK_STR(error_of("run fill 'x'\n"), "t.mm:1:10: quotes inside a program argument are not supported");
	CHECK_STR(error_of("set ra\n"), "t.mm:1:7: 'set' needs more: set KNOB VALUE");
	CHECK_STR(error_of("run hello\x01\n"), "t.mm:1:10: control character 0x01");
	CHECK(script_parse("t.mm", "run hello\n\0", 11, &prog, err, sizeof err) < 0);
	CHECK_STR(err, "t.mm:2:1: control character 0x00");
}

TEST(script_error_stops_at_the_first_problem)
{
	CHECK_STR(error_of("run hello\nbogus\nend\n"), "t.mm:2:1: unknown statement 'bogus'");
}

TEST(script_limits)
{
	static char big[64 * 1024];
	char line[SCRIPT_LINE_MAX + 8];
	memset(line, 'x', sizeof line);
	memcpy(line, "run ", 4);
	line[SCRIPT_LINE_MAX + 1] = 0;
	CHECK_STR(error_of(line), "t.mm:1:513: line longer than 512 characters");
	/* Nesting. */
	big[0] = 0;
	for (int i = 0; i < SCRIPT_MAX_DEPTH + 1; i++)
		strcat(big, "repeat 2\n");
	CHECK_STR(error_of(big), "t.mm:9:1: blocks nested deeper than 8");
	/* Statements. */
	big[0] = 0;
	for (int i = 0; i < SCRIPT_MAX_STMTS + 1; i++)
		strcat(big, "drop_caches\n");
	CHECK_STR(error_of(big), "t.mm:257:1: more than 256 statements");
	/* Columns. */
	big[0] = 0;
	for (int i = 0; i < SCRIPT_MAX_COLUMNS + 1; i++)
		sprintf(big + strlen(big), "run hello %d\n", i);
	CHECK_STR(error_of(big), "t.mm:33:5: more than 32 table columns");
	/* Runs in a group. */
	strcpy(big, "parallel\n");
	for (int i = 0; i < SCRIPT_MAX_PARALLEL + 1; i++)
		strcat(big, "run hello\n");
	CHECK_STR(error_of(big), "t.mm:18:1: more than 16 runs in one parallel group");
	/* Command length. */
	memset(line, 'y', sizeof line);
	memcpy(line, "run ", 4);
	line[4 + SCRIPT_CMD_MAX] = 0;
	CHECK_STR(error_of(line), "t.mm:1:5: command longer than 255 characters");
}

TEST(script_group_label_too_long_needs_a_column)
{
	char text[2048] = "parallel\n";
	for (int i = 0; i < 4; i++)
		strcat(text, "run touch 64 100000 seq anon 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n");
	strcat(text, "end\n");
	CHECK_STR(error_of(text), "t.mm:1:1: the group's commands exceed 255 characters; give it a column");
	char with[2100] = "column \"four\"\n";
	strcat(with, text);
	CHECK_EQ(parse(with), 0);
}

TEST(script_knob_table_matches_the_kernel_setters)
{
	/* Every implemented knob of the table has a setter in
	 * kernel/vm/knobs.c, and every setter a row; the unit tests run from
	 * the source tree. */
	FILE *f = fopen("kernel/vm/knobs.c", "r");
	if (!f) {
		printf("skip: kernel/vm/knobs.c not found (run from the source tree)\n");
		return;
	}
	static char src[65536];
	size_t n = fread(src, 1, sizeof src - 1, f);
	fclose(f);
	src[n] = 0;
	const char *table = strstr(src, "knobs[] = {");
	CHECK(table != NULL);
	if (!table)
		return;
	int found = 0, implemented = 0;
	for (const char *p = table; (p = strstr(p, "{ \"")) && p < strstr(table, "};"); p += 3) {
		char name[32];
		CHECK_EQ(sscanf(p + 3, "%31[a-z_]", name), 1);
		const struct knob_def *d = knob_find(name);
		if (!d || d->missing)
			test_fail(__FILE__, __LINE__, "knobs.c sets '%s', which the knob table lacks or marks missing", name);
		found++;
	}
	for (int i = 0; i < knob_ndefs; i++)
		implemented += !knob_defs[i].missing;
	CHECK_EQ(found, implemented);
}

TEST(knob_table_ranges)
{
	char why[128];
	uint64_t v = 0;
	const struct knob_def *c = knob_find("swap_cluster");
	CHECK(c != NULL);
	/* The limits swapalloc itself accepts. */
	CHECK_EQ(c->min, SWAP_CLUSTER_MIN);
	CHECK_EQ(c->max, SWAP_CLUSTER_MAX);
	CHECK_EQ(knob_check(c, "512", &v, why, sizeof why), 0);
	CHECK_EQ(v, 512);
	CHECK_EQ(knob_check(c, "0x100", &v, why, sizeof why), 0);
	CHECK_EQ(v, 256);
	CHECK_EQ(knob_check(c, "100", &v, why, sizeof why), -EINVAL);
	CHECK_STR(why, "'100' is not a power of two in 8..65536");
	CHECK_EQ(knob_check(c, "1", &v, why, sizeof why), -EINVAL);
	CHECK_EQ(knob_check(c, "100000", &v, why, sizeof why), -EINVAL);
	CHECK_STR(why, "'100000' is not a power of two in 8..65536");
	CHECK_EQ(knob_check(c, "", &v, why, sizeof why), -EINVAL);
	CHECK_EQ(v, 256);                       /* untouched on refusal */
	const struct knob_def *pc = knob_find("page_cluster");
	CHECK_EQ(pc->max, RA_MAX_ORDER);
	CHECK_EQ(knob_check(knob_find("reclaim_batch"), "0", NULL, why, sizeof why), -EINVAL);
	CHECK_STR(why, "'0' is not a number in 1..256");
	CHECK_EQ(knob_check(knob_find("reclaim_batch"), "256", NULL, why, sizeof why), 0);
	CHECK_EQ(knob_check(knob_find("reclaim_batch"), "257", NULL, why, sizeof why), -EINVAL);
	CHECK_EQ(knob_check(knob_find("wm_low"), "15", NULL, why, sizeof why), -EINVAL);
	CHECK_EQ(knob_check(knob_find("swapcrc"), "on", &v, why, sizeof why), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(knob_check(knob_find("swapcrc"), "maybe", &v, why, sizeof why), -EINVAL);
	CHECK_EQ(knob_check(knob_find("ra"), "own", NULL, why, sizeof why), 0);
	/* A knob that does nothing yet is refused whatever the value, saying
	 * so (none is left in the table since swappiness was implemented,
	 * issue 13: a row of the same shape stands in). */
	const struct knob_def stub = { "stub", KNOB_U64, 0, 200, false, "not implemented yet (why)", "" };
	CHECK_EQ(knob_check(&stub, "60", NULL, why, sizeof why), -EINVAL);
	CHECK_STR(why, "not implemented yet (why)");
	CHECK_EQ(knob_check(knob_find("swappiness"), "60", &v, why, sizeof why), 0);
	CHECK_EQ(v, 60);
	CHECK(knob_find("hz") == NULL);
	CHECK(knob_find("") == NULL);
}

/* ------------------------------------------------------------ run= */

#define MAX_RUN_ERRORS 8
static char run_err[MAX_RUN_ERRORS][SCRIPT_ERR_MAX];
static int run_err_step[MAX_RUN_ERRORS], run_err_col[MAX_RUN_ERRORS], run_nerr;

static void on_run_error(void *ctx, int step, int col, const char *msg)
{
	CHECK(ctx == &run_nerr);
	if (run_nerr < MAX_RUN_ERRORS) {
		snprintf(run_err[run_nerr], sizeof run_err[0], "%s", msg);
		run_err_step[run_nerr] = step;
		run_err_col[run_nerr] = col;
	}
	run_nerr++;
}

/* Compile spec; the number of errors (each also counted by the callback). */
static int compile(const char *spec)
{
	run_nerr = 0;
	memset(run_err, 0, sizeof run_err);
	int n = script_compile_run(spec, &prog, on_run_error, &run_nerr);
	CHECK_EQ(n, run_nerr);
	CHECK(prog.from_run);
	CHECK_STR(prog.name, "run=");
	CHECK_EQ(prog.ncolumns, 1);
	return n;
}

/* The one message a spec with one mistake gives (or "OK", or "MANY"). */
static const char *run_error_of(const char *spec)
{
	int n = compile(spec);
	return n == 0 ? "OK" : n == 1 ? run_err[0] : "MANY";
}

/* Statement i is step `step`'s group with these parts' ops. */
static void check_step(int i, int step, const char *text, int nparts)
{
	const struct script_stmt *g = &prog.stmt[i];
	CHECK_EQ(g->op, SCRIPT_PARALLEL);
	CHECK_EQ(g->line, step);
	CHECK_STR(g->a, text);
	CHECK_EQ(g->column, 0);
	CHECK_EQ(g->end, i + nparts + 1);
	CHECK_EQ(prog.stmt[g->end].op, SCRIPT_END);
	CHECK_EQ(prog.stmt[g->end].end, i);
	for (int k = i; k <= g->end; k++)
		CHECK_EQ(prog.stmt[k].line, step);
}

TEST(script_run_spec_compiles_to_groups)
{
	const char *spec = "touch 8 1000 seq anon & hogmem 8 1 ; @set ra off ;@sleep 250 & hello x;"
			   "  @swapon nvme1n1 ; @swapoff nvme1n1\t";
	CHECK_EQ(compile(spec), 0);
	CHECK_STR(prog.column[0], "run=");
	CHECK_EQ(prog.nstmts, 17);
	const struct script_stmt *s = prog.stmt;
	check_step(0, 1, "touch 8 1000 seq anon & hogmem 8 1", 2);
	CHECK_EQ(s[0].col, 1);
	CHECK_EQ(s[1].op, SCRIPT_RUN);
	CHECK_STR(s[1].a, "touch 8 1000 seq anon");
	CHECK_EQ(s[1].col, 1);
	CHECK_EQ(s[1].column, -1);              /* the group's column */
	CHECK_EQ(s[2].op, SCRIPT_RUN);
	CHECK_STR(s[2].a, "hogmem 8 1");
	CHECK_EQ(s[2].col, 25);
	check_step(4, 2, "@set ra off", 1);
	CHECK_EQ(s[4].col, 38);
	CHECK_EQ(s[5].op, SCRIPT_SET);
	CHECK_STR(s[5].a, "ra");
	CHECK_STR(s[5].b, "off");
	CHECK_EQ(s[5].arg_col, 43);
	check_step(7, 3, "@sleep 250 & hello x", 2);
	CHECK_EQ(s[8].op, SCRIPT_SLEEP);
	CHECK_EQ(s[8].n, 250);
	CHECK_EQ(s[9].op, SCRIPT_RUN);
	CHECK_STR(s[9].a, "hello x");
	check_step(11, 4, "@swapon nvme1n1", 1);
	CHECK_EQ(s[12].op, SCRIPT_SWAPON);
	CHECK_STR(s[12].a, "nvme1n1");
	check_step(14, 5, "@swapoff nvme1n1", 1);
	CHECK_EQ(s[15].op, SCRIPT_SWAPOFF);
	CHECK_STR(s[15].a, "nvme1n1");
	/* The sampler and the probe, in a step with a program or alone. */
	CHECK_EQ(compile("@vmstat 100 & hello ; @probe on ; @vmstat 0 & @probe off"), 0);
	check_step(0, 1, "@vmstat 100 & hello", 2);
	CHECK_EQ(s[1].op, SCRIPT_VMSTAT);
	CHECK_EQ(s[1].n, 100);
	CHECK_EQ(s[2].op, SCRIPT_RUN);
	check_step(4, 2, "@probe on", 1);
	CHECK_EQ(s[5].op, SCRIPT_PROBE);
	CHECK_EQ(s[5].n, 1);
	check_step(7, 3, "@vmstat 0 & @probe off", 2);
	CHECK_EQ(s[8].op, SCRIPT_VMSTAT);
	CHECK_EQ(s[8].n, 0);
	CHECK_EQ(s[9].op, SCRIPT_PROBE);
	CHECK_EQ(s[9].n, 0);
	/* Blanks: the step's text keeps its inner ones, a command its words. */
	CHECK_EQ(compile("  hello   a\t ;\thello b "), 0);
	check_step(0, 1, "hello   a", 1);
	CHECK_STR(prog.stmt[1].a, "hello a");
	check_step(3, 2, "hello b", 1);
	/* '#' is no comment in run=. */
	CHECK_EQ(compile("hello #1"), 0);
	CHECK_STR(prog.stmt[1].a, "hello #1");
	/* Sixteen programs in one step. */
	char many[512] = "hello";
	for (int i = 1; i < SCRIPT_MAX_PARALLEL; i++)
		strcat(many, " & hello");
	CHECK_EQ(compile(many), 0);
	CHECK_EQ(prog.nstmts, SCRIPT_MAX_PARALLEL + 2);
	/* A script file is never from run=. */
	CHECK_EQ(parse("run hello\n"), 0);
	CHECK(!prog.from_run);
}

TEST(script_run_spec_errors_name_the_step)
{
	CHECK_STR(run_error_of("@sleepy 5"),
		  "run=: step 1 '@sleepy 5': unknown built-in '@sleepy' (expected @set, @sleep, @swapon, @swapoff, @vmstat or @probe)");
	CHECK_EQ(run_err_step[0], 1);
	CHECK_EQ(run_err_col[0], 1);
	CHECK_STR(run_error_of("hello ; @swaponx nvme1n1"),
		  "run=: step 2 '@swaponx nvme1n1': unknown built-in '@swaponx' (expected @set, @sleep, @swapon, @swapoff, @vmstat or @probe)");
	CHECK_EQ(run_err_step[0], 2);
	CHECK_EQ(run_err_col[0], 9);
	CHECK_STR(run_error_of("@"), "run=: step 1 '@': unknown built-in '@' (expected @set, @sleep, @swapon, @swapoff, @vmstat or @probe)");
	CHECK_STR(run_error_of("@sleep"), "run=: step 1 '@sleep': missing argument (usage: @sleep MS)");
	CHECK_EQ(run_err_col[0], 7);
	CHECK_STR(run_error_of("@swapon"), "run=: step 1 '@swapon': missing argument (usage: @swapon DEV)");
	CHECK_STR(run_error_of("@swapoff"), "run=: step 1 '@swapoff': missing argument (usage: @swapoff DEV)");
	CHECK_STR(run_error_of("@set ra"), "run=: step 1 '@set ra': missing argument (usage: @set KNOB VALUE)");
	CHECK_STR(run_error_of("@vmstat"), "run=: step 1 '@vmstat': missing argument (usage: @vmstat MS)");
	CHECK_STR(run_error_of("@vmstat 5"), "run=: step 1 '@vmstat 5': vmstat: an interval of 5 ms is below 10 ms");
	CHECK_STR(run_error_of("@probe maybe"), "run=: step 1 '@probe maybe': probe: expected on or off, not 'maybe'");
	CHECK_STR(run_error_of("@probe on off"), "run=: step 1 '@probe on off': too many arguments (usage: @probe on|off)");
	CHECK_STR(run_error_of("@sleep 5 6"), "run=: step 1 '@sleep 5 6': too many arguments (usage: @sleep MS)");
	CHECK_EQ(run_err_col[0], 10);
	/* Values: the script statements' own checks and words. */
	CHECK_STR(run_error_of("@sleep soon"), "run=: step 1 '@sleep soon': sleep: 'soon' is not a number in 0..86400000");
	CHECK_EQ(run_err_col[0], 8);
	CHECK_STR(run_error_of("@set reclaim_batch 0"),
		  "run=: step 1 '@set reclaim_batch 0': reclaim_batch: '0' is not a number in 1..256");
	CHECK_STR(run_error_of("@set swappiness 300"),
		  "run=: step 1 '@set swappiness 300': swappiness: '300' is not a number in 0..200");
	CHECK_STR(run_error_of("@set swap_clster 8"),
		  "run=: step 1 '@set swap_clster 8': unknown knob 'swap_clster' (did you mean swap_cluster?)");
	CHECK_STR(run_error_of("@set nosuch 1"), "run=: step 1 '@set nosuch 1': unknown knob 'nosuch'");
	CHECK_STR(run_error_of("@swapon abcdefghijabcdefghijabcdefghij"),
		  "run=: step 1 '@swapon abcdefghijabcdefghijabcdefghij': "
		  "'abcdefghijabcdefghijabcdefghij' is not a device name (1..23 characters)");
	CHECK_STR(run_error_of("fill 'x'"), "run=: step 1 'fill 'x'': quotes inside a program argument are not supported");
	/* Shape. */
	CHECK_STR(run_error_of("hello ;"), "run=: step 2 '': empty step (nothing between ';'s)");
	CHECK_EQ(run_err_col[0], 8);
	CHECK_STR(run_error_of(" ; hello"), "run=: step 1 '': empty step (nothing between ';'s)");
	CHECK_STR(run_error_of("   "), "run=: step 1 '': empty step (nothing between ';'s)");
	CHECK_EQ(prog.nstmts, 0);
	CHECK_STR(run_error_of("hello & "), "run=: step 1 'hello &': an empty part ('&' with nothing on one side)");
	CHECK_STR(run_error_of("& hello"), "run=: step 1 '& hello': an empty part ('&' with nothing on one side)");
	CHECK_STR(run_error_of("hello\x01 ; hello"), "run=: step 1 'hello?': control character 0x01");
	CHECK_EQ(run_err_col[0], 6);
	CHECK_EQ(prog.nstmts, 3);               /* step 1 left out whole */
	CHECK_STR(run_error_of("hello\x7f"), "run=: step 1 'hello?': control character 0x7f");
}

TEST(script_run_spec_bad_parts_left_out_rest_compiles)
{
	/* Every mistake reported once, in order; the good parts stay, and a
	 * step whose parts all failed stays as an empty group (its record). */
	CHECK_EQ(compile("@sleepy 5 ; @swapon ; hello & @sleep x & hogmem 8 1 ; hello after"), 3);
	CHECK_STR(run_err[0],
		  "run=: step 1 '@sleepy 5': unknown built-in '@sleepy' (expected @set, @sleep, @swapon, @swapoff, @vmstat or @probe)");
	CHECK_STR(run_err[1], "run=: step 2 '@swapon': missing argument (usage: @swapon DEV)");
	CHECK_STR(run_err[2], "run=: step 3 'hello & @sleep x & hogmem 8 1': sleep: 'x' is not a number in 0..86400000");
	CHECK_EQ(run_err_step[2], 3);
	CHECK_EQ(run_err_col[2], 38);
	check_step(0, 1, "@sleepy 5", 0);
	check_step(2, 2, "@swapon", 0);
	check_step(4, 3, "hello & @sleep x & hogmem 8 1", 2);
	CHECK_STR(prog.stmt[5].a, "hello");
	CHECK_STR(prog.stmt[6].a, "hogmem 8 1");
	check_step(8, 4, "hello after", 1);
	CHECK_EQ(prog.nstmts, 11);
	/* The callback may be NULL: the count still says. */
	CHECK_EQ(script_compile_run("@sleepy 5 ; hello", &prog, NULL, NULL), 1);
	CHECK_EQ(prog.nstmts, 5);
}

TEST(script_run_spec_limits)
{
	static char spec[2048];
	/* Programs in one step: the 17th is left out. */
	strcpy(spec, "hello");
	for (int i = 1; i <= SCRIPT_MAX_PARALLEL; i++)
		strcat(spec, " & hello");
	CHECK_EQ(compile(spec), 1);
	CHECK_CONTAINS(run_err[0], "': more than 16 programs in one step");
	CHECK_EQ(prog.nstmts, SCRIPT_MAX_PARALLEL + 2);
	/* A long step is quoted cut, so the message still says what is wrong. */
	memset(spec, 0, sizeof spec);
	strcpy(spec, "@sleep ");
	memset(spec + 7, '9', 100);
	CHECK_EQ(compile(spec), 1);
	CHECK_CONTAINS(run_err[0], "run=: step 1 '@sleep 99999");
	CHECK_CONTAINS(run_err[0], "999...': sleep: '999");
	CHECK(strlen(run_err[0]) < SCRIPT_ERR_MAX - 1);
	/* Command length. */
	memset(spec, 0, sizeof spec);
	memset(spec, 'y', SCRIPT_CMD_MAX);
	CHECK_EQ(compile(spec), 1);
	CHECK_CONTAINS(run_err[0], "': command longer than 255 characters");
	/* The whole value: at most a script line (the command line holds 511). */
	memset(spec, 0, sizeof spec);
	memset(spec, 'h', SCRIPT_LINE_MAX + 1);
	CHECK_STR(run_error_of(spec), "run=: longer than 512 characters; nothing runs");
	CHECK_EQ(prog.nstmts, 0);
	spec[SCRIPT_LINE_MAX] = 0;
	CHECK_EQ(compile(spec), 1);             /* 512 is fine; the command is not */
	CHECK_CONTAINS(run_err[0], "command longer than 255");
	/* Statements: 85 one-program steps fill 255 of 256; the 86th and all
	 * after it are left out, with one message. */
	memset(spec, 0, sizeof spec);
	strcpy(spec, "a");
	for (int i = 1; i < 100; i++)
		strcat(spec, ";a");
	CHECK_EQ(compile(spec), 1);
	CHECK_STR(run_err[0], "run=: step 86 'a': more than 256 statements; this step and the ones after it are left out");
	CHECK_EQ(prog.nstmts, 255);
	/* Words in one part. */
	memset(spec, 0, sizeof spec);
	strcpy(spec, "hello");
	for (int i = 0; i < SCRIPT_MAX_TOKENS; i++)
		strcat(spec, " a");
	CHECK_EQ(compile(spec), 1);
	CHECK_CONTAINS(run_err[0], "': more than 63 words in one part");
}

TEST(script_where_names_a_statement)
{
	char where[128];
	CHECK_EQ(parse("run hello\nset  ra off\n"), 0);
	script_where(&prog, 1, where, sizeof where);
	CHECK_STR(where, "t.mm:2:6");
	CHECK_EQ(compile("hello ; @set ra off & hello x"), 0);
	script_where(&prog, 4, where, sizeof where);
	CHECK_STR(where, "run=: step 2 '@set ra off & hello x'");
	script_where(&prog, 1, where, sizeof where);
	CHECK_STR(where, "run=: step 1 'hello'");
	/* swapon is a script statement too, allowed in a group. */
	CHECK_EQ(parse("swapoff nvme1n1\nparallel\nrun hello\nswapon nvme1n1\nend\n"), 0);
	CHECK_EQ(prog.stmt[3].op, SCRIPT_SWAPON);
	CHECK_STR(prog.stmt[3].a, "nvme1n1");
	CHECK_STR(script_op_name(SCRIPT_SWAPON), "swapon");
	CHECK_STR(error_of("swapon\n"), "t.mm:1:7: 'swapon' needs more: swapon DEV");
}

TEST(script_workload_line_scan)
{
	uint64_t m = 99;
	const char *ok = "{\"type\":\"workload\",\"name\":\"touch\",\"mismatches\":3,\"x\":1}\n";
	CHECK(script_workload_mismatches(ok, strlen(ok), &m));
	CHECK_EQ(m, 3);
	const char *zero = "  {\"type\":\"workload\",\"mismatches\": 0}";
	CHECK(script_workload_mismatches(zero, strlen(zero), &m));
	CHECK_EQ(m, 0);
	const char *other = "{\"type\":\"boot\",\"mismatches\":3}";
	CHECK(!script_workload_mismatches(other, strlen(other), &m));
	const char *none = "{\"type\":\"workload\",\"name\":\"hello\"}";
	CHECK(!script_workload_mismatches(none, strlen(none), &m));
	const char *junk = "{\"type\":\"workload\",\"mismatches\":x}";
	CHECK(!script_workload_mismatches(junk, strlen(junk), &m));
	/* The count is cut off by n: not found. */
	CHECK(!script_workload_mismatches(ok, 30, &m));
	CHECK(!script_workload_mismatches("", 0, &m));
}

static bool parse_file(const char *dir, const char *file)
{
	char path[512];
	static char text[65536];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("skip: %s not found (run from the source tree)\n", path);
		return false;
	}
	size_t n = fread(text, 1, sizeof text, f);
	fclose(f);
	if (script_parse(file, text, n, &prog, err, sizeof err)) {
		test_fail(__FILE__, __LINE__, "%s", err);
		return false;
	}
	return true;
}

TEST(script_example_scripts_parse)
{
	/* Every script shipped in tests/workloads/scripts (README's examples,
	 * the seed workloads, make run's default.mm) compiles. */
	const char *dir = "tests/workloads/scripts";
	DIR *d = opendir(dir);
	int parsed = 0;
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".mm"))
				parsed += parse_file(dir, e->d_name);
		closedir(d);
		CHECK(parsed >= 10);
	}
	if (parse_file(dir, "seed000.mm")) {
		CHECK_EQ(prog.ncolumns, 7);    /* seed000.mm: RA=3 RA=0..4 Hugh Shaohua */
		CHECK_STR(prog.column[6], "Shaohua");
	}
}

TEST(script_row_statements)
{
	CHECK_EQ(parse("row shmdb.tps\nrow touch.thread_elapsed_us\nrun shmdb 20 2\n"), 0);
	CHECK_EQ(prog.stmt[0].op, SCRIPT_ROW);
	CHECK_STR(prog.stmt[0].a, "shmdb.tps");
	CHECK_STR(prog.stmt[0].b, "tps");
	CHECK_EQ(prog.stmt[0].n, 5);
	CHECK_STR(prog.stmt[1].b, "thread_elapsed_us");
	CHECK_EQ(prog.stmt[1].n, 5);
	CHECK_STR(script_op_name(SCRIPT_ROW), "row");
	/* A row may follow runs, but not sit inside a group. */
	CHECK_STR(error_of("run hello\nrow hello-2.argc\n"), "OK");
	CHECK_STR(error_of("parallel\nrun hello\nrow shmdb.tps\nend\n"),
		  "t.mm:3:1: 'row' is not allowed inside 'parallel' (only run, sleep, swapon and swapoff are)");
	CHECK_STR(error_of("row shmdb\n"), "t.mm:1:5: row: expected PROGRAM.FIELD (as in shmdb.tps), not 'shmdb'");
	CHECK_STR(error_of("row .tps\n"), "t.mm:1:5: row: expected PROGRAM.FIELD (as in shmdb.tps), not '.tps'");
	CHECK_STR(error_of("row shmdb.\n"), "t.mm:1:5: row: expected PROGRAM.FIELD (as in shmdb.tps), not 'shmdb.'");
	CHECK_STR(error_of("row a.b.c\n"), "t.mm:1:5: row: expected PROGRAM.FIELD (as in shmdb.tps), not 'a.b.c'");
	CHECK_STR(error_of("row \"shm db.tps\"\n"), "t.mm:1:9: row: ' ' in 'shm db.tps': names are letters, digits, _ and -");
	CHECK_STR(error_of("row shm/db.tps\n"), "t.mm:1:8: row: '/' in 'shm/db.tps': names are letters, digits, _ and -");
	CHECK_STR(error_of("row shmdb.tps\n\nrow shmdb.tps\n"), "t.mm:3:5: row shmdb.tps: already a row (line 1)");
	CHECK_STR(error_of("row\n"), "t.mm:1:4: 'row' needs more: row PROGRAM.FIELD");
	CHECK_STR(error_of("row a.b c.d\n"), "t.mm:1:9: too many arguments: row PROGRAM.FIELD");
	char text[512] = "";
	for (int i = 0; i <= SCRIPT_MAX_ROWS; i++)
		sprintf(text + strlen(text), "row p.f%d\n", i);
	CHECK_STR(error_of(text), "t.mm:9:5: row p.f8: more than 8 rows");
	char name[SCRIPT_ROW_NAME_MAX + 8];
	memset(name, 'x', sizeof name);
	memcpy(name, "row p.", 6);
	name[4 + SCRIPT_ROW_NAME_MAX] = 0;
	snprintf(text, sizeof text, "%s\n", name);
	CHECK_CONTAINS(error_of(text), "is longer than 47 characters");
}

TEST(script_workload_field_scan)
{
	uint64_t v = 99;
	const char *rec = "{\"type\":\"workload\",\"name\":\"shmdb\",\"tps\":1234,\"tps_x100\":123456,"
			  "\"tps_series\":\"1 2\",\"ratio\":1.5,\"neg\":-3,\"last\":7}\n";
	size_t n = strlen(rec);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "tps", &v), SCRIPT_FIELD_FOUND);
	CHECK_EQ(v, 1234);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "tps_x100", &v), SCRIPT_FIELD_FOUND);
	CHECK_EQ(v, 123456);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "last", &v), SCRIPT_FIELD_FOUND);
	CHECK_EQ(v, 7);
	/* Strings, fractions, negatives and absent keys are not figures. */
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "tps_series", &v), SCRIPT_FIELD_NOT_INT);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "ratio", &v), SCRIPT_FIELD_NOT_INT);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "neg", &v), SCRIPT_FIELD_NOT_INT);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "tp", &v), SCRIPT_FIELD_NOT_INT);
	CHECK_EQ(script_workload_field(rec, n, "shmdb", 5, "x100", &v), SCRIPT_FIELD_NOT_INT);
	/* Another program's record, a prefix of the name, not a workload. */
	CHECK_EQ(script_workload_field(rec, n, "shm", 3, "tps", &v), SCRIPT_FIELD_OTHER);
	CHECK_EQ(script_workload_field(rec, n, "touch", 5, "tps", &v), SCRIPT_FIELD_OTHER);
	/* The program name is plen bytes of a longer string (st->a, "shmdb.tps"). */
	CHECK_EQ(script_workload_field(rec, n, "shmdb.tps", 5, "tps", &v), SCRIPT_FIELD_FOUND);
	const char *boot = "{\"type\":\"boot\",\"name\":\"shmdb\",\"tps\":1}";
	CHECK_EQ(script_workload_field(boot, strlen(boot), "shmdb", 5, "tps", &v), SCRIPT_FIELD_OTHER);
	/* Cut short by n. */
	CHECK_EQ(script_workload_field(rec, 20, "shmdb", 5, "tps", &v), SCRIPT_FIELD_OTHER);
	CHECK_EQ(script_workload_field(rec, 40, "shmdb", 5, "tps", &v), SCRIPT_FIELD_NOT_INT);
	CHECK_EQ(script_workload_field("", 0, "shmdb", 5, "tps", &v), SCRIPT_FIELD_OTHER);
}
