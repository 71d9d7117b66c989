/*
 * Command-line parsing.  cmdline_next takes the next (key, value)
 * pair off the line, checking only syntax; cmdline_apply matches them to the
 * caller's option table and converts values.  Later duplicates win, as on
 * Linux.  Every problem produces exactly one message naming the option.
 */
#include <string.h>
#include "cmdline.h"
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

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Read one value starting at s; returns the position after it or NULL. */
static const char *read_value(const char *line, const char *s, struct cmdline_arg *a,
			      cmdline_report_fn rep, void *ctx)
{
	size_t n = 0;
	bool quoted = *s == '"';
	if (quoted)
		s++;
	for (; *s && (quoted ? *s != '"' : !is_blank(*s)); s++) {
		if (n + 1 >= CMDLINE_VAL_MAX) {
			report(rep, ctx, "cmdline: column %d: value of '%s' longer than %d characters",
			       a->col, a->key, CMDLINE_VAL_MAX - 1);
			return NULL;
		}
		a->val[n++] = *s;
	}
	a->val[n] = 0;
	if (quoted) {
		if (*s != '"') {
			report(rep, ctx, "cmdline: column %d: unterminated quote in value of '%s'",
			       (int)(s - line) + 1, a->key);
			return NULL;
		}
		s++;
	}
	return s;
}

int cmdline_next(const char *line, const char **pos, struct cmdline_arg *a,
		 cmdline_report_fn rep, void *ctx)
{
	const char *s = *pos;
	while (is_blank(*s))
		s++;
	*pos = s;
	if (!*s)
		return 0;
	memset(a, 0, sizeof *a);
	a->col = (int)(s - line) + 1;
	size_t k = 0;
	for (; key_char(*s); s++) {
		if (k + 1 >= CMDLINE_KEY_MAX) {
			report(rep, ctx, "cmdline: column %d: option name longer than %d characters", a->col, CMDLINE_KEY_MAX - 1);
			return -1;
		}
		a->key[k++] = *s;
	}
	a->key[k] = 0;
	if (k == 0 || (*s && *s != '=' && !is_blank(*s))) {
		report(rep, ctx, "cmdline: column %d: unexpected character '%c'", (int)(s - line) + 1, *s ? *s : '=');
		return -1;
	}
	if (*s == '=') {
		a->has_val = true;
		s = read_value(line, s + 1, a, rep, ctx);
		if (!s)
			return -1;
		if (*s && !is_blank(*s)) {
			report(rep, ctx, "cmdline: column %d: junk after the value of '%s'", (int)(s - line) + 1, a->key);
			return -1;
		}
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

/* Convert one arg for its option; returns false after reporting. */
static bool apply_one(const struct cmdline_arg *a, const struct cmdline_option *o,
		      cmdline_report_fn rep, void *ctx)
{
	bool ok = true;
	if (o->type != CMDLINE_BOOL && !a->has_val) {
		report(rep, ctx, "cmdline: option '%s' needs a value (%s); default kept", a->key, type_hint(o->type));
		return false;
	}
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

int cmdline_apply(const char *line, const struct cmdline_option *opts, size_t nopts,
		  cmdline_report_fn rep, void *ctx)
{
	struct cmdline_arg a;
	const char *pos = line;
	int r, problems = 0;
	while ((r = cmdline_next(line, &pos, &a, rep, ctx)) > 0) {
		const struct cmdline_option *o = NULL;
		for (size_t j = 0; j < nopts && !o; j++)
			if (!strcmp(opts[j].name, a.key))
				o = &opts[j];
		if (!o) {
			report(rep, ctx, "cmdline: unknown option '%s' ignored", a.key);
			problems++;
		} else if (!apply_one(&a, o, rep, ctx)) {
			problems++;
		}
	}
	/* A syntax error ends parsing: what follows cannot be trusted. */
	return problems + (r < 0);
}
