/*
 * JSON writer.  Every value goes through member(), which writes the comma
 * and the key; strings are escaped per RFC 8259 (quote, backslash, control
 * characters as \u00XX).  Nesting deeper than JSON_MAX_DEPTH is a caller
 * bug and marks the output as overflowed.
 */
#include "json.h"
#include "printf.h"

static void put(struct json *j, const char *s, size_t n)
{
	if (j->overflow || j->len + n + 1 > j->cap) {
		j->overflow = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		j->buf[j->len++] = s[i];
	j->buf[j->len] = 0;
}

static void putc_(struct json *j, char c) { put(j, &c, 1); }

static void put_escaped(struct json *j, const char *s)
{
	putc_(j, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			put(j, e, 2);
		} else if (c == '\n') {
			put(j, "\\n", 2);
		} else if (c < 0x20 || c == 0x7f) {
			char e[8];
			ksnprintf(e, sizeof e, "\\u%04x", c);
			put(j, e, 6);
		} else {
			putc_(j, (char)c);
		}
	}
	putc_(j, '"');
}

static void member(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth - 1])
			putc_(j, ',');
		j->first[j->depth - 1] = false;
	}
	if (key) {
		put_escaped(j, key);
		putc_(j, ':');
	}
}

void json_init(struct json *j, char *buf, size_t cap)
{
	j->buf = buf;
	j->cap = cap;
	j->len = 0;
	j->depth = 0;
	j->overflow = cap == 0;
	if (cap)
		buf[0] = 0;
}

static void nest_open(struct json *j, const char *key, char c)
{
	member(j, key);
	putc_(j, c);
	if (j->depth == JSON_MAX_DEPTH) {
		j->overflow = true;
		return;
	}
	j->first[j->depth++] = true;
}

static void nest_close(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	putc_(j, c);
}

void json_obj_begin(struct json *j, const char *key) { nest_open(j, key, '{'); }
void json_obj_end(struct json *j) { nest_close(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { nest_open(j, key, '['); }
void json_arr_end(struct json *j) { nest_close(j, ']'); }

void json_u64(struct json *j, const char *key, uint64_t v)
{
	char b[24];
	member(j, key);
	put(j, b, (size_t)ksnprintf(b, sizeof b, "%llu", (unsigned long long)v));
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	char b[24];
	member(j, key);
	put(j, b, (size_t)ksnprintf(b, sizeof b, "%lld", (long long)v));
}

void json_str(struct json *j, const char *key, const char *s)
{
	member(j, key);
	if (s)
		put_escaped(j, s);
	else
		put(j, "null", 4);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	put(j, "null", 4);
}

void json_fixed(struct json *j, const char *key, int64_t v, unsigned decimals)
{
	char b[32];
	uint64_t scale = 1;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
	member(j, key);
	int n = decimals ? ksnprintf(b, sizeof b, "%s%llu.%0*llu", v < 0 ? "-" : "",
				     (unsigned long long)(a / scale), (int)decimals,
				     (unsigned long long)(a % scale))
			 : ksnprintf(b, sizeof b, "%lld", (long long)v);
	put(j, b, (size_t)n);
}

void json_hex(struct json *j, const char *key, uint64_t v)
{
	char b[24];
	ksnprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
	json_str(j, key, b);
}

void json_raw(struct json *j, const char *key, const char *text)
{
	size_t n = 0;
	while (text[n])
		n++;
	member(j, key);
	put(j, text, n);
}
