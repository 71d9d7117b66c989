/*
 * Command-line parsing.  cmdline_next takes the next (key, value)
 * pair off the line, checking only syntax; cmdline_apply matches them to the
 * caller's option table and converts values.  Later duplicates win, as on
 * Linux.  Every problem produces exactly one message naming the option (or
 * quoting the malformed token) and skips only that token: a typo early on
 * the line must not silently drop every option after it.
 */
#include <string.h>
#include "cmdline.h"
#include "suggest.h"
#include "printf.h"

static void report(cmdline_report_fn rep, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void report(cmdline_report_fn rep, void *ctx, const char *fmt, ...)
{
	char msg[CMDLINE_VAL_MAX + 160];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (rep)
		rep(ctx, msg);
}

_Static_assert(CMDLINE_KEY_MAX == 32 && CMDLINE_VAL_MAX == 512, "the messages below name these limits");

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* The end of the bad token at s: the next blank, except that a quoted
 * value (a quote right after the key's '=') with its closing quote is
 * skipped whole, blanks inside included.  Any other quote is an ordinary
 * character here, so a stray one never swallows the options after it. */
static const char *token_end(const char *s)
{
	while (key_char(*s))
		s++;
	if (s[0] == '=' && s[1] == '"') {
		const char *close = strchr(s + 2, '"');
		if (close)
			s = close + 1;
	}
	while (*s && !is_blank(*s))
		s++;
	return s;
}

/* Report a syntax error in the token starting at tok (column col), quoting
 * it, and skip it: *pos moves past it so the caller can go on. */
static int bad_token(const char *line, const char *tok, const char **pos, const char *what,
		     cmdline_report_fn rep, void *ctx)
{
	const char *end = token_end(tok);
	int n = (int)(end - tok);
	report(rep, ctx, "cmdline: column %d: %s in '%.*s%s'; ignored", (int)(tok - line) + 1, what,
	       n > 60 ? 60 : n, tok, n > 60 ? "..." : "");
	*pos = end;
	return -1;
}

/* Read one value starting at s; returns the position after it, or NULL
 * with what naming the problem. */
static const char *read_value(const char *s, struct cmdline_arg *a, const char **what)
{
	size_t n = 0;
	bool quoted = *s == '"';
	if (quoted)
		s++;
	for (; *s && (quoted ? *s != '"' : !is_blank(*s)); s++) {
		if (n + 1 >= CMDLINE_VAL_MAX) {
			*what = "value longer than 511 characters";
			return NULL;
		}
		a->val[n++] = *s;
	}
	a->val[n] = 0;
	if (quoted) {
		if (*s != '"') {
			*what = "unterminated quote";
			return NULL;
		}
		s++;
	}
	return s;
}

int cmdline_next(const char *line, const char **pos, struct cmdline_arg *a,
		 cmdline_report_fn rep, void *ctx)
{
	const char *s = *pos, *tok, *what = NULL;
	while (is_blank(*s))
		s++;
	*pos = tok = s;
	if (!*s)
		return 0;
	memset(a, 0, sizeof *a);
	a->col = (int)(s - line) + 1;
	size_t k = 0;
	for (; key_char(*s); s++) {
		if (k + 1 >= CMDLINE_KEY_MAX)
			return bad_token(line, tok, pos, "option name longer than 31 characters",
					 rep, ctx);
		a->key[k++] = *s;
	}
	a->key[k] = 0;
	if (k == 0 || (*s && *s != '=' && !is_blank(*s)))
		return bad_token(line, tok, pos, *s == '"' ? "a quote outside a value" : "unexpected character",
				 rep, ctx);
	if (*s == '=') {
		a->has_val = true;
		s = read_value(s + 1, a, &what);
		if (!s)
			return bad_token(line, tok, pos, what, rep, ctx);
		if (*s && !is_blank(*s))
			return bad_token(line, tok, pos, "junk after the value", rep, ctx);
	}
	*pos = s;
	return 1;
}

bool cmdline_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
		else return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool cmdline_parse_size(const char *s, uint64_t *out)
{
	char num[24];
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9') {
		if (n + 1 >= sizeof num)
			return false;
		num[n] = s[n];
		n++;
	}
	num[n] = 0;
	uint64_t v;
	if (n == 0 || !cmdline_parse_u64(num, &v))
		return false;
	unsigned shift = 0;
	switch (s[n]) {
	case 0: break;
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: return false;
	}
	if (s[n] && s[n + 1] && !((s[n + 1] == 'B' || s[n + 1] == 'b') && !s[n + 2]) &&
	    !(s[n + 1] == 'i' && (s[n + 2] == 'B') && !s[n + 3]))
		return false;
	if (shift && v > (UINT64_MAX >> shift))
		return false;
	*out = v << shift;
	return true;
}

bool cmdline_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "on", "yes", "true" };
	static const char *const no[] = { "0", "off", "no", "false" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcmp(s, yes[i])) { *out = true; return true; }
		if (!strcmp(s, no[i])) { *out = false; return true; }
	}
	return false;
}

static const char *type_hint(enum cmdline_type t)
{
	switch (t) {
	case CMDLINE_BOOL: return "expected on/off, yes/no, 1/0 or true/false";
	case CMDLINE_SIZE: return "expected a size such as 900M, 2G or 65536K";
	case CMDLINE_U64: return "expected a number";
	default: return "bad value";
	}
}

static bool refused(const struct cmdline_arg *a, const struct cmdline_option *o, const char *why,
		    cmdline_report_fn rep, void *ctx)
{
	report(rep, ctx, "cmdline: %s%s%s: %s; %s", a->key, a->has_val ? "=" : "", a->val, why,
	       o->dst ? "default kept" : "ignored");
	return false;
}

/* Convert one arg for its option; returns false after reporting.  The
 * option's own check (a range, say) runs first, so a value it refuses
 * never reaches dst and the default stays. */
static bool apply_one(const struct cmdline_arg *a, const struct cmdline_option *o, cmdline_check_fn check,
		      cmdline_report_fn rep, void *ctx)
{
	char why[160];
	bool ok = true;
	/* No dst: an option known only to say why it is refused, value or not. */
	if (o->type != CMDLINE_BOOL && !a->has_val && o->dst) {
		report(rep, ctx, "cmdline: option '%s' needs a value (%s); default kept", a->key, type_hint(o->type));
		return false;
	}
	if (check && !check(o, a->has_val ? a->val : "on", why, sizeof why))
		return refused(a, o, why, rep, ctx);
	if (!o->dst)
		return refused(a, o, "not supported", rep, ctx);
	switch (o->type) {
	case CMDLINE_BOOL:
		if (!a->has_val) *(bool *)o->dst = true;
		else ok = cmdline_parse_bool(a->val, (bool *)o->dst);
		break;
	case CMDLINE_SIZE: ok = cmdline_parse_size(a->val, (uint64_t *)o->dst); break;
	case CMDLINE_U64: ok = cmdline_parse_u64(a->val, (uint64_t *)o->dst); break;
	case CMDLINE_STR:
		if (strlen(a->val) >= o->cap) {
			report(rep, ctx, "cmdline: value of '%s' longer than %d characters; default kept", a->key, (int)o->cap - 1);
			return false;
		}
		memcpy(o->dst, a->val, strlen(a->val) + 1);
		break;
	}
	if (!ok) {
		report(rep, ctx, "cmdline: %s=%s: %s; default kept", a->key, a->val, type_hint(o->type));
		return false;
	}
	if (o->seen)
		*o->seen = true;
	return true;
}

/* The option name nearest a mistyped key (lib/suggest.h), or NULL. */
static const char *near_option(const char *key, const struct cmdline_option *opts, size_t nopts)
{
	const char *names[128];
	int n = 0;
	for (size_t j = 0; j < nopts && n < 128; j++)
		names[n++] = opts[j].name;
	return name_suggest(key, names, n);
}

int cmdline_apply(const char *line, const struct cmdline_option *opts, size_t nopts, cmdline_check_fn check,
		  cmdline_report_fn rep, void *ctx)
{
	struct cmdline_arg a;
	const char *pos = line;
	int r, problems = 0;
	while ((r = cmdline_next(line, &pos, &a, rep, ctx)) != 0) {
		const struct cmdline_option *o = NULL;
		if (r < 0) {            /* reported and skipped: go on with the next */
			problems++;
			continue;
		}
		for (size_t j = 0; j < nopts && !o; j++)
			if (!strcmp(opts[j].name, a.key))
				o = &opts[j];
		if (!o) {
			const char *near = near_option(a.key, opts, nopts);
			if (near)
				report(rep, ctx, "cmdline: unknown option '%s' ignored (did you mean %s?)", a.key, near);
			else
				report(rep, ctx, "cmdline: unknown option '%s' ignored", a.key);
			problems++;
		} else if (!apply_one(&a, o, check, rep, ctx)) {
			problems++;
		}
	}
	return problems;
}
