/*
 * Kernel command line: `key`, `key=value` and `key="value with spaces"`
 * separated by blanks.  Pure code; the kernel passes a table of typed
 * options and a reporter for messages.  Unknown or malformed options are
 * reported by name and otherwise ignored, so a typo never stops a boot; a
 * syntax error (a stray quote, junk after a value) costs only its own token.
 */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CMDLINE_KEY_MAX 32
#define CMDLINE_VAL_MAX 512

struct cmdline_arg {
	char key[CMDLINE_KEY_MAX];
	char val[CMDLINE_VAL_MAX];
	bool has_val;
	int col;                /* 1-based column of the key */
};

enum cmdline_type {
	CMDLINE_BOOL,           /* bare key = true; 0/1 on/off yes/no true/false */
	CMDLINE_SIZE,           /* bytes with K/M/G/T suffix (binary), Linux memparse style */
	CMDLINE_U64,            /* decimal or 0x hex */
	CMDLINE_STR,            /* copied, NUL terminated, into dst[cap] */
};

struct cmdline_option {
	const char *name;
	enum cmdline_type type;
	void *dst;              /* bool*, uint64_t*, or char[cap]; NULL: check always refuses */
	size_t cap;             /* CMDLINE_STR only */
	bool *seen;             /* optional: set when the option was given and valid */
	const char *help;       /* one line for the README/boot report */
};

typedef void (*cmdline_report_fn)(void *ctx, const char *msg);
/* The caller's further check of a value (a range, a set of words), run
 * before it is converted: false refuses it with a reason in why ("'7' is
 * not a number in 8..64") and dst keeps its default.  A bare BOOL key is
 * checked as "on". */
typedef bool (*cmdline_check_fn)(const struct cmdline_option *o, const char *val, char *why, size_t whylen);

/* Take the next arg off the line at *pos.  Returns 1 and fills *a, 0 at
 * the end, or -1 after reporting a syntax error; *pos then points past the
 * bad token (the next blank outside quotes), so the caller can go on. */
int cmdline_next(const char *line, const char **pos, struct cmdline_arg *a,
		 cmdline_report_fn rep, void *ctx);

/* Parse line against opts (check may be NULL).  Returns the number of
 * problems reported. */
int cmdline_apply(const char *line, const struct cmdline_option *opts, size_t nopts, cmdline_check_fn check,
		  cmdline_report_fn rep, void *ctx);

/* "900M" -> 943718400.  Returns false on junk or overflow. */
bool cmdline_parse_size(const char *s, uint64_t *out);
bool cmdline_parse_u64(const char *s, uint64_t *out);
bool cmdline_parse_bool(const char *s, bool *out);

#endif
