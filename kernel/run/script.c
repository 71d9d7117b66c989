/*
 * Workload script parser (pure; see script.h for the model).
 *
 * Lines are split into words: blanks separate them, `#` at the start of a
 * word starts a comment, and a word may be a "quoted string" (\" and \\
 * escape).  The first word names the statement; the statement table below
 * gives its argument count, where it may appear and its argument parser.
 * Adding a statement: an op in script.h, a row here, an executor in
 * script_run.c, a line in README.md.
 *
 * Rules checked here, so that a script either runs whole or not at all:
 *   - declarations (mem, swap) come before every other statement;
 *   - blocks nest at most SCRIPT_MAX_DEPTH deep and each has its `end`;
 *   - a parallel group holds only run, sleep, swapon and swapoff, and
 *     >= 1 run;
 *   - `set` names a knob the kernel has and implements, with a value in
 *     its range (knob_table.h, the table the command line checks too);
 *     what only the running kernel knows (ra's policy names, whether swap
 *     slots are in use) is checked when the statement runs, by
 *     vm_set_knob, whose message names the line.
 * The first problem stops parsing with one message: FILE:LINE:COL: what.
 *
 * run= (script_compile_run) is compiled by the same statement parsers:
 * each '&'-separated part of a step is split into words, a program
 * becomes the words of a `run` line, "@set"/"@sleep"/"@swapon"/"@swapoff"/
 * "@vmstat"/"@probe" those of set/sleep/swapon/swapoff/vmstat/probe, and
 * the statement's row parses it, so
 * values are checked and worded exactly as in scripts.  Only the prefix of
 * a message differs ("run=: step N 'TEXT': "), and a bad part is left out
 * and reported while the rest goes on, as for any command-line option.
 */
#include <stdarg.h>
#include <string.h>
#include "script.h"
#include "core/knob_table.h"
#include "lib/cmdline.h"
#include "lib/suggest.h"
#include "lib/printf.h"
#include "lib/errno.h"

/* A run= step quoted in a message: longer ones are cut to this (with
 * "..."), so that what is wrong still fits in SCRIPT_ERR_MAX. */
#define SCRIPT_QUOTE_MAX 64

struct script_tok {
	const char *s;          /* NUL-terminated, quotes and escapes removed */
	int col;                /* 1-based column of its first character */
	bool quoted;
};

struct parser {
	struct script *s;
	int line;
	char *err;
	size_t errlen;
	int open[SCRIPT_MAX_DEPTH];     /* indices of the open blocks' openers */
	int depth;
	int group;                      /* the open PARALLEL, or -1 */
	int column;                     /* set by `column`, -1: the default */
	int first_stmt_line;            /* first non-declaration statement, 0: none yet */
	const char *first_stmt_name;
	int mem_line, swap_none_line, swap_dev_line;
	struct script_tok tok[SCRIPT_MAX_TOKENS];
	int ntok;
	int eol_col;                    /* column just past the last word */
	char words[SCRIPT_LINE_MAX + SCRIPT_MAX_TOKENS + 1];
	/* run=: the step being compiled (line is its number), as quoted in
	 * messages; empty for a script file. */
	char step_quote[SCRIPT_QUOTE_MAX];
};

/* ------------------------------------------------------------ errors */

static int fail(struct parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, int col, const char *fmt, ...)
{
	p->s->err_line = p->line;
	p->s->err_col = col;
	if (!p->errlen)
		return -EINVAL;
	int n = p->s->from_run ? ksnprintf(p->err, p->errlen, "run=: step %d '%s': ", p->line, p->step_quote)
			       : ksnprintf(p->err, p->errlen, "%s:%d:%d: ", p->s->name, p->line, col);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_list ap;
		va_start(ap, fmt);
		kvsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* strnlen, which strict C11 host headers do not declare. */
static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

/* ------------------------------------------------------------ words */

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* A quoted word starting at line[*i] == '"'; copies it to *out. */
static int quoted_word(struct parser *p, const char *line, int len, int *i, char **out)
{
	int start = *i, j = *i + 1;
	char *o = *out;
	while (j < len && line[j] != '"') {
		if (line[j] == '\\' && j + 1 < len && (line[j + 1] == '"' || line[j + 1] == '\\'))
			j++;
		*o++ = line[j++];
	}
	if (j == len)
		return fail(p, start + 1, "unterminated quote");
	j++;
	if (j < len && !is_blank(line[j]) && line[j] != '#')
		return fail(p, j + 1, "expected a blank after the closing quote");
	*o++ = 0;
	*out = o;
	*i = j;
	return 0;
}

static int bare_word(struct parser *p, const char *line, int len, int *i, char **out)
{
	int j = *i;
	char *o = *out;
	for (; j < len && !is_blank(line[j]); j++) {
		if (line[j] == '"')
			return fail(p, j + 1, "a quote may only start a word");
		*o++ = line[j];
	}
	*o++ = 0;
	*out = o;
	*i = j;
	return 0;
}

static int check_chars(struct parser *p, const char *line, int len)
{
	for (int i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(p, i + 1, "control character 0x%02x", c);
	}
	return 0;
}

/* Split one line (without its newline) into p->tok. */
static int split_words(struct parser *p, const char *line, int len)
{
	char *out = p->words;
	int i = 0, err;
	p->ntok = 0;
	if (len > SCRIPT_LINE_MAX)
		return fail(p, SCRIPT_LINE_MAX + 1, "line longer than %d characters", SCRIPT_LINE_MAX);
	if ((err = check_chars(p, line, len)))
		return err;
	for (;;) {
		while (i < len && is_blank(line[i]))
			i++;
		if (i == len || line[i] == '#')
			break;
		if (p->ntok == SCRIPT_MAX_TOKENS)
			return fail(p, i + 1, "more than %d words on one line", SCRIPT_MAX_TOKENS);
		struct script_tok *t = &p->tok[p->ntok++];
		t->s = out;
		t->col = i + 1;
		t->quoted = line[i] == '"';
		err = t->quoted ? quoted_word(p, line, len, &i, &out) : bare_word(p, line, len, &i, &out);
		if (err)
			return err;
	}
	p->eol_col = i + 1;
	while (p->eol_col > 1 && is_blank(line[p->eol_col - 2]))
		p->eol_col--;
	return 0;
}

/* ------------------------------------------------------------ helpers */

static const char *pool_add(struct parser *p, const char *str, size_t n, int col)
{
	struct script *s = p->s;
	if (n + 1 > sizeof s->pool - s->pool_used) {
		fail(p, col, "script too large (its strings exceed %d bytes)", SCRIPT_POOL_SIZE);
		return NULL;
	}
	char *d = s->pool + s->pool_used;
	memcpy(d, str, n);
	d[n] = 0;
	s->pool_used += n + 1;
	return d;
}

/* The column with this label, added when new; -1 after an error. */
static int column_of(struct parser *p, const char *label, int col)
{
	struct script *s = p->s;
	for (int i = 0; i < s->ncolumns; i++)
		if (!strcmp(s->column[i], label))
			return i;
	if (s->ncolumns == SCRIPT_MAX_COLUMNS) {
		fail(p, col, "more than %d table columns", SCRIPT_MAX_COLUMNS);
		return -1;
	}
	const char *c = pool_add(p, label, strlen(label), col);
	if (!c)
		return -1;
	s->column[s->ncolumns] = c;
	return s->ncolumns++;
}

static int number(struct parser *p, const struct script_tok *t, uint64_t lo, uint64_t hi, const char *what,
		  uint64_t *out)
{
	if (!cmdline_parse_u64(t->s, out) || *out < lo || *out > hi)
		return fail(p, t->col, "%s: '%s' is not a number in %llu..%llu", what, t->s, (unsigned long long)lo,
			    (unsigned long long)hi);
	return 0;
}

static int device(struct parser *p, const struct script_tok *t, struct script_stmt *st)
{
	size_t n = strlen(t->s);
	if (!n || n >= SCRIPT_DEV_MAX)
		return fail(p, t->col, "'%s' is not a device name (1..%d characters)", t->s, SCRIPT_DEV_MAX - 1);
	st->a = pool_add(p, t->s, n, t->col);
	return st->a ? 0 : -EINVAL;
}

/* ------------------------------------------------------------ statements */

static int parse_mem(struct parser *p, struct script_stmt *st)
{
	const struct script_tok *t = &p->tok[1];
	if (p->mem_line)
		return fail(p, p->tok[0].col, "mem given twice (first on line %d)", p->mem_line);
	if (!cmdline_parse_size(t->s, &st->n))
		return fail(p, t->col, "'%s' is not a size (e.g. 48M)", t->s);
	if (st->n < SCRIPT_MEM_MIN)
		return fail(p, t->col, "mem %s is below the %llu MiB the kernel needs", t->s, SCRIPT_MEM_MIN >> 20);
	p->mem_line = p->line;
	p->s->mem = st->n;
	return 0;
}

static int swap_option(struct parser *p, const struct script_tok *t, struct script_stmt *st)
{
	uint64_t v;
	if (!strncmp(t->s, "prio=", 5)) {
		struct script_tok num = { t->s + 5, t->col + 5, false };
		if (number(p, &num, 0, 32767, "prio", &v))
			return -EINVAL;
		st->n = v;
		return 0;
	}
	if (!strncmp(t->s, "cluster=", 8)) {
		char why[128];
		/* The range of the swap_cluster knob: one check for both. */
		if (knob_check(knob_find("swap_cluster"), t->s + 8, &v, why, sizeof why))
			return fail(p, t->col + 8, "cluster: %s", why);
		st->cluster = (uint32_t)v;
		return 0;
	}
	return fail(p, t->col, "unknown swap option '%s' (expected prio=N or cluster=N)", t->s);
}

static int swap_seen(struct parser *p, const char *dev)
{
	for (int i = 0; i < p->s->nstmts; i++) {
		const struct script_stmt *o = &p->s->stmt[i];
		if (o->op == SCRIPT_SWAP && !strcmp(o->a, dev))
			return o->line;
	}
	return 0;
}

static int parse_swap(struct parser *p, struct script_stmt *st)
{
	const struct script_tok *t = &p->tok[1];
	bool keyword = !strcmp(t->s, "none") || !strcmp(t->s, "auto");
	int first = swap_seen(p, t->s);
	if (first)
		return fail(p, t->col, "swap %s given twice (first on line %d)", t->s, first);
	if (keyword && p->ntok > 2)
		return fail(p, p->tok[2].col, "'swap %s' takes no options", t->s);
	if (!strcmp(t->s, "none") ? p->swap_dev_line : p->swap_none_line)
		return fail(p, t->col, "'swap none' conflicts with the swap line on line %d",
			    p->swap_dev_line ? p->swap_dev_line : p->swap_none_line);
	if (!strcmp(t->s, "none"))
		p->swap_none_line = p->line;
	else
		p->swap_dev_line = p->line;
	for (int i = 2; i < p->ntok; i++)
		if (swap_option(p, &p->tok[i], st))
			return -EINVAL;
	return device(p, t, st);
}

static int unknown_knob(struct parser *p, const struct script_tok *k)
{
	const char *names[32];
	int n = 0;
	for (int i = 0; i < knob_ndefs && n < 32; i++)
		names[n++] = knob_defs[i].name;
	const char *near = name_suggest(k->s, names, n);
	if (near)
		return fail(p, k->col, "unknown knob '%s' (did you mean %s?)", k->s, near);
	return fail(p, k->col, "unknown knob '%s'", k->s);
}

static int parse_set(struct parser *p, struct script_stmt *st)
{
	const struct script_tok *k = &p->tok[1], *v = &p->tok[2];
	const struct knob_def *d = knob_find(k->s);
	char why[128];
	if (!d)
		return unknown_knob(p, k);
	if (d->missing)
		return fail(p, k->col, "%s: %s", d->name, d->missing);
	if (knob_check(d, v->s, NULL, why, sizeof why))
		return fail(p, v->col, "%s: %s", d->name, why);
	st->a = d->name;
	st->b = pool_add(p, v->s, strlen(v->s), v->col);
	return st->b ? 0 : -EINVAL;
}

static int parse_column(struct parser *p, struct script_stmt *st)
{
	if (p->ntok == 1) {
		p->column = -1;
		return 0;
	}
	const struct script_tok *t = &p->tok[1];
	size_t n = strlen(t->s);
	if (!n)
		return fail(p, t->col, "empty column label");
	if (n >= SCRIPT_LABEL_MAX)
		return fail(p, t->col, "column label longer than %d characters", SCRIPT_LABEL_MAX - 1);
	p->column = column_of(p, t->s, t->col);
	if (p->column < 0)
		return -EINVAL;
	st->a = p->s->column[p->column];
	return 0;
}

/* One program argument appended to the command line at *o. */
static int command_word(struct parser *p, const struct script_tok *t, char *cmd, size_t *o)
{
	bool wrap = !*t->s;
	for (const char *c = t->s; *c; c++) {
		if (*c == '"' || *c == '\'')
			return fail(p, t->col, "quotes inside a program argument are not supported");
		wrap |= is_blank(*c);
	}
	size_t n = strlen(t->s), need = n + (wrap ? 2 : 0) + (*o ? 1 : 0);
	if (*o + need >= SCRIPT_CMD_MAX)
		return fail(p, t->col, "command longer than %d characters", SCRIPT_CMD_MAX - 1);
	if (*o)
		cmd[(*o)++] = ' ';
	if (wrap)
		cmd[(*o)++] = '"';
	memcpy(cmd + *o, t->s, n);
	*o += n;
	if (wrap)
		cmd[(*o)++] = '"';
	cmd[*o] = 0;
	return 0;
}

static int parse_run(struct parser *p, struct script_stmt *st)
{
	char cmd[SCRIPT_CMD_MAX];
	size_t o = 0;
	cmd[0] = 0;
	for (int i = 1; i < p->ntok; i++)
		if (command_word(p, &p->tok[i], cmd, &o))
			return -EINVAL;
	if (!(st->a = pool_add(p, cmd, o, p->tok[1].col)))
		return -EINVAL;
	if (p->group >= 0) {
		int runs = 0;
		for (int i = p->group + 1; i < p->s->nstmts; i++)
			runs += p->s->stmt[i].op == SCRIPT_RUN;
		if (runs == SCRIPT_MAX_PARALLEL)
			return fail(p, p->tok[0].col, "more than %d %s", SCRIPT_MAX_PARALLEL,
				    p->s->from_run ? "programs in one step" : "runs in one parallel group");
		return 0;
	}
	st->column = p->column >= 0 ? p->column : column_of(p, st->a, p->tok[1].col);
	return st->column < 0 ? -EINVAL : 0;
}

static int open_block(struct parser *p, struct script_stmt *st)
{
	if (p->depth == SCRIPT_MAX_DEPTH)
		return fail(p, st->col, "blocks nested deeper than %d", SCRIPT_MAX_DEPTH);
	p->open[p->depth++] = p->s->nstmts;
	return 0;
}

static int parse_parallel(struct parser *p, struct script_stmt *st)
{
	p->group = p->s->nstmts;
	return open_block(p, st);
}

static int parse_repeat(struct parser *p, struct script_stmt *st)
{
	if (number(p, &p->tok[1], 1, SCRIPT_REPEAT_MAX, "repeat", &st->n))
		return -EINVAL;
	return open_block(p, st);
}

/* The default column of a parallel group: its commands joined by " & ". */
static int group_label(struct parser *p, int opener, char *label, size_t cap)
{
	size_t o = 0;
	label[0] = 0;
	for (int i = opener + 1; i < p->s->nstmts; i++) {
		const char *c = p->s->stmt[i].a;
		if (p->s->stmt[i].op != SCRIPT_RUN)
			continue;
		int n = ksnprintf(label + o, cap - o, "%s%s", o ? " & " : "", c);
		if (n < 0 || o + (size_t)n >= cap)
			return fail(p, p->s->stmt[opener].col, "the group's commands exceed %d characters; give it a column",
				    (int)cap - 1);
		o += (size_t)n;
	}
	return 0;
}

static int close_group(struct parser *p, int opener)
{
	struct script_stmt *g = &p->s->stmt[opener];
	bool any = false;
	for (int i = opener + 1; i < p->s->nstmts; i++)
		any |= p->s->stmt[i].op == SCRIPT_RUN;
	p->group = -1;
	if (!any) {
		p->line = g->line;      /* parsing stops here */
		return fail(p, g->col, "empty 'parallel' group (it needs at least one run)");
	}
	if (p->column >= 0) {
		g->column = p->column;
		return 0;
	}
	char label[SCRIPT_CMD_MAX];
	int line = p->line;
	p->line = g->line;              /* errors name the group's first line */
	if (group_label(p, opener, label, sizeof label))
		return -EINVAL;
	g->column = column_of(p, label, g->col);
	p->line = line;
	return g->column < 0 ? -EINVAL : 0;
}

static int parse_end(struct parser *p, struct script_stmt *st)
{
	if (!p->depth)
		return fail(p, st->col, "'end' without 'repeat' or 'parallel'");
	int opener = p->open[--p->depth];
	st->end = opener;
	p->s->stmt[opener].end = p->s->nstmts;
	if (p->s->stmt[opener].op == SCRIPT_PARALLEL)
		return close_group(p, opener);
	return 0;
}

static int parse_ms(struct parser *p, struct script_stmt *st)
{
	if (number(p, &p->tok[1], 0, SCRIPT_MS_MAX, script_op_name(st->op), &st->n))
		return -EINVAL;
	if (st->op == SCRIPT_VMSTAT && st->n && st->n < 10)
		return fail(p, p->tok[1].col, "vmstat: an interval of %llu ms is below 10 ms", (unsigned long long)st->n);
	return 0;
}

/* swapoff and swapon. */
static int parse_device(struct parser *p, struct script_stmt *st) { return device(p, &p->tok[1], st); }
static int parse_none(struct parser *p, struct script_stmt *st) { (void)p; (void)st; return 0; }

static int parse_probe(struct parser *p, struct script_stmt *st)
{
	const struct script_tok *t = &p->tok[1];
	if (strcmp(t->s, "on") && strcmp(t->s, "off"))
		return fail(p, t->col, "probe: expected on or off, not '%s'", t->s);
	st->n = !strcmp(t->s, "on");
	return 0;
}

enum {
	ST_GROUP = 1u << 0,     /* allowed inside parallel */
	ST_DECL = 1u << 1,      /* declaration: top level, before other statements */
};

struct script_syntax {
	const char *name;
	enum script_op op;
	int min_args, max_args;
	unsigned flags;
	const char *usage;
	int (*parse)(struct parser *p, struct script_stmt *st);
};

static bool row_name_char(char c, bool dot_ok)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || (dot_ok && c == '.');
}

/* row PROGRAM.FIELD: PROGRAM as its records name it ("name"), FIELD a key
 * of those records; once each, at most SCRIPT_MAX_ROWS. */
static int parse_row(struct parser *p, struct script_stmt *st)
{
	const struct script_tok *t = &p->tok[1];
	const char *dot = strchr(t->s, '.');
	size_t n = strlen(t->s), rows = 0;
	if (!dot || dot == t->s || !dot[1] || strchr(dot + 1, '.'))
		return fail(p, t->col, "row: expected PROGRAM.FIELD (as in shmdb.tps), not '%s'", t->s);
	for (size_t i = 0; i < n; i++)
		if (!row_name_char(t->s[i], t->s + i == dot))
			return fail(p, t->col + t->quoted + (int)i, "row: '%c' in '%s': names are letters, digits, _ and -", t->s[i],
				    t->s);
	if (n >= SCRIPT_ROW_NAME_MAX)
		return fail(p, t->col, "row: '%s' is longer than %d characters", t->s, SCRIPT_ROW_NAME_MAX - 1);
	for (int i = 0; i < p->s->nstmts; i++) {
		const struct script_stmt *o = &p->s->stmt[i];
		if (o->op != SCRIPT_ROW)
			continue;
		if (!strcmp(o->a, t->s))
			return fail(p, t->col, "row %s: already a row (line %d)", t->s, o->line);
		rows++;
	}
	if (rows == SCRIPT_MAX_ROWS)
		return fail(p, t->col, "row %s: more than %d rows", t->s, SCRIPT_MAX_ROWS);
	if (!(st->a = pool_add(p, t->s, n, t->col)))
		return -EINVAL;
	st->n = (uint64_t)(dot - t->s);
	st->b = st->a + st->n + 1;
	return 0;
}

static const struct script_syntax syntax[] = {
	{ "mem", SCRIPT_MEM, 1, 1, ST_DECL, "mem SIZE", parse_mem },
	{ "swap", SCRIPT_SWAP, 1, 3, ST_DECL, "swap DEV|auto|none [prio=N] [cluster=N]", parse_swap },
	{ "set", SCRIPT_SET, 2, 2, 0, "set KNOB VALUE", parse_set },
	{ "column", SCRIPT_COLUMN, 0, 1, 0, "column [\"LABEL\"]", parse_column },
	{ "run", SCRIPT_RUN, 1, SCRIPT_MAX_TOKENS, ST_GROUP, "run PROGRAM [ARGS...]", parse_run },
	{ "parallel", SCRIPT_PARALLEL, 0, 0, 0, "parallel", parse_parallel },
	{ "repeat", SCRIPT_REPEAT, 1, 1, 0, "repeat N", parse_repeat },
	{ "end", SCRIPT_END, 0, 0, ST_GROUP, "end", parse_end },
	{ "vmstat", SCRIPT_VMSTAT, 1, 1, 0, "vmstat MS", parse_ms },
	{ "swapoff", SCRIPT_SWAPOFF, 1, 1, ST_GROUP, "swapoff DEV", parse_device },
	{ "swapon", SCRIPT_SWAPON, 1, 1, ST_GROUP, "swapon DEV", parse_device },
	{ "sleep", SCRIPT_SLEEP, 1, 1, ST_GROUP, "sleep MS", parse_ms },
	{ "drop_caches", SCRIPT_DROP_CACHES, 0, 0, 0, "drop_caches", parse_none },
	{ "probe", SCRIPT_PROBE, 1, 1, 0, "probe on|off", parse_probe },
	{ "data", SCRIPT_DATA, 1, 1, 0, "data DEV", parse_device },
	{ "row", SCRIPT_ROW, 1, 1, 0, "row PROGRAM.FIELD", parse_row },
};

#define NSYNTAX ((int)(sizeof syntax / sizeof syntax[0]))
_Static_assert(sizeof syntax / sizeof syntax[0] == SCRIPT_NOPS, "one syntax row per op");

const char *script_op_name(enum script_op op)
{
	for (int i = 0; i < NSYNTAX; i++)
		if (syntax[i].op == op)
			return syntax[i].name;
	return "?";
}

static const struct script_syntax *lookup(struct parser *p)
{
	const struct script_tok *w = &p->tok[0];
	if (w->quoted) {
		fail(p, w->col, "a statement starts with its name, not a quoted string");
		return NULL;
	}
	const char *names[NSYNTAX];
	for (int i = 0; i < NSYNTAX; i++) {
		if (!strcmp(w->s, syntax[i].name))
			return &syntax[i];
		names[i] = syntax[i].name;
	}
	const char *near = name_suggest(w->s, names, NSYNTAX);
	if (near)
		fail(p, w->col, "unknown statement '%s' (did you mean %s?)", w->s, near);
	else
		fail(p, w->col, "unknown statement '%s'", w->s);
	return NULL;
}

/* Where the statement stands: inside a group, before or after declarations. */
static int check_place(struct parser *p, const struct script_syntax *sx)
{
	int col = p->tok[0].col;
	if (p->group >= 0 && !(sx->flags & ST_GROUP))
		return fail(p, col, "'%s' is not allowed inside 'parallel' (only run, sleep, swapon and swapoff are)", sx->name);
	if (!(sx->flags & ST_DECL)) {
		if (!p->first_stmt_line) {
			p->first_stmt_line = p->line;
			p->first_stmt_name = sx->name;
		}
		return 0;
	}
	if (p->first_stmt_line)
		return fail(p, col, "'%s' must come before other statements (line %d has '%s')", sx->name,
			    p->first_stmt_line, p->first_stmt_name);
	return 0;
}

static int check_args(struct parser *p, const struct script_syntax *sx)
{
	int nargs = p->ntok - 1;
	if (nargs < sx->min_args)
		return fail(p, p->eol_col, "'%s' needs more: %s", sx->name, sx->usage);
	if (nargs > sx->max_args)
		return fail(p, p->tok[sx->max_args + 1].col, "too many arguments: %s", sx->usage);
	return 0;
}

/* The next statement, blank; it counts once its parser accepts it. */
static struct script_stmt *new_stmt(struct parser *p, enum script_op op, int col, int arg_col)
{
	if (p->s->nstmts == SCRIPT_MAX_STMTS) {
		fail(p, col, "more than %d statements", SCRIPT_MAX_STMTS);
		return NULL;
	}
	struct script_stmt *st = &p->s->stmt[p->s->nstmts];
	memset(st, 0, sizeof *st);
	st->op = op;
	st->line = p->line;
	st->col = col;
	st->arg_col = arg_col;
	st->end = -1;
	st->column = -1;
	return st;
}

/* The statement in p->tok (its name in tok[0]), parsed by its row. */
static int emit(struct parser *p, const struct script_syntax *sx)
{
	struct script_stmt *st = new_stmt(p, sx->op, p->tok[0].col, p->ntok > 1 ? p->tok[1].col : p->eol_col);
	if (!st || sx->parse(p, st))
		return -EINVAL;
	p->s->nstmts++;
	return 0;
}

static int statement(struct parser *p)
{
	const struct script_syntax *sx = lookup(p);
	if (!sx || check_args(p, sx) || check_place(p, sx))
		return -EINVAL;
	return emit(p, sx);
}

/* ------------------------------------------------------------ files */

static int unclosed(struct parser *p)
{
	const struct script_stmt *o = &p->s->stmt[p->open[p->depth - 1]];
	p->line = o->line;
	return fail(p, o->col, "'%s' without 'end'", script_op_name(o->op));
}

int script_parse(const char *name, const char *text, size_t len, struct script *s, char *err, size_t errlen)
{
	struct parser p;
	memset(&p, 0, sizeof p);
	memset(s, 0, offsetof(struct script, pool));       /* from_run too */
	s->pool_used = 0;
	s->err_line = s->err_col = 0;
	size_t n = bounded_len(name, sizeof s->name - 1);
	memcpy(s->name, name, n);
	p.s = s;
	p.err = err;
	p.errlen = errlen;
	p.group = p.column = -1;
	if (errlen)
		err[0] = 0;
	for (size_t pos = 0; pos < len;) {
		size_t e = pos;
		while (e < len && text[e] != '\n')
			e++;
		size_t l = e - pos;
		if (l && text[pos + l - 1] == '\r')
			l--;
		p.line++;
		int w = l > SCRIPT_LINE_MAX + 1 ? SCRIPT_LINE_MAX + 1 : (int)l;
		if (split_words(&p, text + pos, w) || (p.ntok && statement(&p)))
			return -EINVAL;
		pos = e + 1;
	}
	return p.depth ? unclosed(&p) : 0;
}

/* ------------------------------------------------------------ run= */

static const struct {
	const char *name;
	enum script_op op;
	int nargs;
	const char *usage;
} builtins[] = {
	{ "@set", SCRIPT_SET, 2, "@set KNOB VALUE" },
	{ "@sleep", SCRIPT_SLEEP, 1, "@sleep MS" },
	{ "@swapon", SCRIPT_SWAPON, 1, "@swapon DEV" },
	{ "@swapoff", SCRIPT_SWAPOFF, 1, "@swapoff DEV" },
	{ "@vmstat", SCRIPT_VMSTAT, 1, "@vmstat MS" },
	{ "@probe", SCRIPT_PROBE, 1, "@probe on|off" },
};

#define NBUILTINS ((int)(sizeof builtins / sizeof builtins[0]))

static const struct script_syntax *syntax_of(enum script_op op)
{
	for (int i = 0; i < NSYNTAX; i++)
		if (syntax[i].op == op)
			return &syntax[i];
	return NULL;
}

/* text (len bytes) as messages quote a step: blanks and control
 * characters shown as ' ' and '?', cut with "..." to SCRIPT_QUOTE_MAX. */
static void quote(char *out, const char *text, size_t len)
{
	size_t n = len < SCRIPT_QUOTE_MAX ? len : SCRIPT_QUOTE_MAX - 4;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		out[i] = c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (n < len) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = 0;
}

/* Narrow [*from, *to) of spec past blanks at both ends. */
static void trim_range(const char *spec, int *from, int *to)
{
	while (*from < *to && is_blank(spec[*from]))
		(*from)++;
	while (*to > *from && is_blank(spec[*to - 1]))
		(*to)--;
}

/* Split spec[from, to) into p->tok[1..], leaving tok[0] for the
 * statement's name; columns are spec's. */
static int part_words(struct parser *p, const char *spec, int from, int to)
{
	char *out = p->words;
	p->ntok = 1;
	for (int i = from; i < to;) {
		if (is_blank(spec[i])) {
			i++;
			continue;
		}
		if (p->ntok == SCRIPT_MAX_TOKENS)
			return fail(p, i + 1, "more than %d words in one part", SCRIPT_MAX_TOKENS - 1);
		struct script_tok *t = &p->tok[p->ntok++];
		t->s = out;
		t->col = i + 1;
		t->quoted = false;
		while (i < to && !is_blank(spec[i]))
			*out++ = spec[i++];
		*out++ = 0;
	}
	p->eol_col = to + 1;
	return 0;
}

/* A built-in in p->tok: its name exact, its argument count right, its
 * values checked by the statement's own parser. */
static int run_builtin(struct parser *p)
{
	int nargs = p->ntok - 1;
	for (int i = 0; i < NBUILTINS; i++) {
		if (strcmp(p->tok[0].s, builtins[i].name))
			continue;
		if (nargs < builtins[i].nargs)
			return fail(p, p->eol_col, "missing argument (usage: %s)", builtins[i].usage);
		if (nargs > builtins[i].nargs)
			return fail(p, p->tok[builtins[i].nargs + 1].col, "too many arguments (usage: %s)",
				    builtins[i].usage);
		return emit(p, syntax_of(builtins[i].op));
	}
	/* The names from the table: "@set, @sleep, ... or @probe". */
	char names[NBUILTINS * 12];
	size_t n = 0;
	for (int i = 0; i < NBUILTINS && n < sizeof names; i++)
		n += (size_t)ksnprintf(names + n, sizeof names - n, "%s%s", i == 0 ? "" : i == NBUILTINS - 1 ? " or " : ", ",
				       builtins[i].name);
	return fail(p, p->tok[0].col, "unknown built-in '%s' (expected %s)", p->tok[0].s, names);
}

/* One '&'-separated part, spec[from, to): a program or a built-in. */
static int run_part(struct parser *p, const char *spec, int from, int to)
{
	trim_range(spec, &from, &to);
	if (from == to)
		return fail(p, from + 1, "an empty part ('&' with nothing on one side)");
	if (part_words(p, spec, from, to))
		return -EINVAL;
	if (p->tok[1].s[0] != '@') {
		p->tok[0] = (struct script_tok){ "run", p->tok[1].col, false };
		return emit(p, syntax_of(SCRIPT_RUN));
	}
	memmove(p->tok, p->tok + 1, (size_t)--p->ntok * sizeof p->tok[0]);
	return run_builtin(p);
}

static int report(struct parser *p, script_error_fn *on_error, void *ctx)
{
	if (on_error)
		on_error(ctx, p->s->err_line, p->s->err_col, p->err);
	return 1;
}

/* The statements a step needs at most: its group, its end, a part per
 * '&' and one more. */
static int step_room(const char *spec, int from, int to)
{
	int n = 3;
	for (int i = from; i < to; i++)
		n += spec[i] == '&';
	return n;
}

/* One step, spec[from, to): a PARALLEL group of its good parts.  Returns
 * the errors reported, or -1 (one reported) when the program is full. */
static int run_step(struct parser *p, const char *spec, int from, int to, script_error_fn *on_error, void *ctx)
{
	int errors = 0;
	trim_range(spec, &from, &to);
	quote(p->step_quote, spec + from, (size_t)(to - from));
	if (from == to) {
		fail(p, from + 1, "empty step (nothing between ';'s)");
		return report(p, on_error, ctx);
	}
	for (int i = from; i < to; i++) {
		unsigned char c = (unsigned char)spec[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			fail(p, i + 1, "control character 0x%02x", c);
			return report(p, on_error, ctx);
		}
	}
	if (p->s->nstmts + step_room(spec, from, to) > SCRIPT_MAX_STMTS) {
		fail(p, from + 1, "more than %d statements; this step and the ones after it are left out",
		     SCRIPT_MAX_STMTS);
		report(p, on_error, ctx);
		return -1;
	}
	/* Room checked: new_stmt cannot fail, and the pool holds far more
	 * than a run= line's SCRIPT_LINE_MAX bytes. */
	int g = p->s->nstmts;
	struct script_stmt *st = new_stmt(p, SCRIPT_PARALLEL, from + 1, from + 1);
	st->a = pool_add(p, spec + from, (size_t)(to - from), from + 1);
	st->column = 0;
	p->s->nstmts++;
	p->group = g;
	for (int a = from; a <= to;) {
		int e = a;
		while (e < to && spec[e] != '&')
			e++;
		if (run_part(p, spec, a, e))
			errors += report(p, on_error, ctx);
		a = e + 1;
	}
	p->group = -1;
	st = new_stmt(p, SCRIPT_END, to + 1, to + 1);
	st->end = g;
	p->s->stmt[g].end = p->s->nstmts++;
	return errors;
}

int script_compile_run(const char *spec, struct script *s, script_error_fn *on_error, void *ctx)
{
	struct parser p;
	char err[SCRIPT_ERR_MAX];
	memset(&p, 0, sizeof p);
	memset(s, 0, offsetof(struct script, pool));
	s->pool_used = 0;
	s->err_line = s->err_col = 0;
	memcpy(s->name, "run=", 5);
	s->from_run = true;
	p.s = s;
	p.err = err;
	p.errlen = sizeof err;
	p.group = p.column = -1;
	column_of(&p, "run=", 1);       /* the first column: cannot fail */
	int len = (int)bounded_len(spec, SCRIPT_LINE_MAX + 1), errors = 0;
	if (len > SCRIPT_LINE_MAX) {
		ksnprintf(err, sizeof err, "run=: longer than %d characters; nothing runs", SCRIPT_LINE_MAX);
		s->err_col = SCRIPT_LINE_MAX + 1;
		return report(&p, on_error, ctx);
	}
	for (int from = 0; from <= len;) {
		int to = from;
		while (to < len && spec[to] != ';')
			to++;
		p.line++;
		int n = run_step(&p, spec, from, to, on_error, ctx);
		if (n < 0)
			return errors + 1;
		errors += n;
		from = to + 1;
	}
	return errors;
}

void script_where(const struct script *s, int i, char *buf, size_t n)
{
	const struct script_stmt *st = &s->stmt[i];
	char q[SCRIPT_QUOTE_MAX];
	if (!s->from_run) {
		ksnprintf(buf, n, "%s:%d:%d", s->name, st->line, st->arg_col);
		return;
	}
	while (i > 0 && s->stmt[i].op != SCRIPT_PARALLEL)       /* the step's group */
		i--;
	const char *text = s->stmt[i].op == SCRIPT_PARALLEL && s->stmt[i].a ? s->stmt[i].a : "";
	quote(q, text, strlen(text));
	ksnprintf(buf, n, "run=: step %d '%s'", st->line, q);
}

/* ------------------------------------------------------------ workload lines */

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(s, prefix, k);
}

bool script_workload_mismatches(const char *line, size_t n, uint64_t *out)
{
	static const char key[] = "\"mismatches\":";
	size_t i = 0;
	while (i < n && is_blank(line[i]))
		i++;
	if (!starts_with(line + i, n - i, "{\"type\":\"workload\""))
		return false;
	for (; i + sizeof key - 1 <= n; i++) {
		if (!starts_with(line + i, n - i, key))
			continue;
		size_t j = i + sizeof key - 1, digits = 0;
		uint64_t v = 0;
		while (j < n && line[j] == ' ')
			j++;
		for (; j < n && line[j] >= '0' && line[j] <= '9' && digits < 19; j++, digits++)
			v = v * 10 + (uint64_t)(line[j] - '0');
		if (!digits)
			return false;
		*out = v;
		return true;
	}
	return false;
}

/* The value after `"field":` at or after from, if that key is a key (after
 * '{' or ','): its digits up to ',', '}' or a blank. */
static enum script_field field_value(const char *line, size_t n, const char *field, uint64_t *out)
{
	size_t k = strlen(field);
	for (size_t i = 1; i + k + 3 <= n; i++) {
		if (line[i] != '"' || (line[i - 1] != '{' && line[i - 1] != ',') || memcmp(line + i + 1, field, k) ||
		    line[i + 1 + k] != '"' || line[i + 2 + k] != ':')
			continue;
		size_t j = i + k + 3, digits = 0;
		uint64_t v = 0;
		for (; j < n && line[j] >= '0' && line[j] <= '9' && digits < 19; j++, digits++)
			v = v * 10 + (uint64_t)(line[j] - '0');
		if (!digits || (j < n && line[j] != ',' && line[j] != '}' && !is_blank(line[j]) && line[j] != '\n'))
			return SCRIPT_FIELD_NOT_INT;
		*out = v;
		return SCRIPT_FIELD_FOUND;
	}
	return SCRIPT_FIELD_NOT_INT;
}

enum script_field script_workload_field(const char *line, size_t n, const char *prog, size_t plen, const char *field,
					uint64_t *out)
{
	static const char head[] = "{\"type\":\"workload\",\"name\":\"";
	size_t i = 0;
	while (i < n && is_blank(line[i]))
		i++;
	line += i;
	n -= i;
	size_t h = sizeof head - 1;
	if (!starts_with(line, n, head) || n < h + plen + 1 || memcmp(line + h, prog, plen) || line[h + plen] != '"')
		return SCRIPT_FIELD_OTHER;
	return field_value(line, n, field, out);
}
