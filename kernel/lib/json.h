/*
 * A JSON writer into a fixed buffer.  Pure code.  The caller opens and
 * closes objects and arrays; commas and string escaping are handled here.
 * On overflow the writer stops appending and sets ->overflow, so the
 * caller can replace the output with an error instead of emitting half an
 * object.
 */
#ifndef JSON_H
#define JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 8

struct json {
	char *buf;
	size_t cap, len;
	int depth;
	bool first[JSON_MAX_DEPTH];     /* no member written yet at this depth */
	bool overflow;
};

void json_init(struct json *j, char *buf, size_t cap);
/* key is NULL inside arrays, non-NULL inside objects. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_str(struct json *j, const char *key, const char *s);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* An address or other bit pattern as a "0x..." string (JSON numbers lose
 * precision above 2^53). */
void json_hex(struct json *j, const char *key, uint64_t v);
/* A complete JSON value produced elsewhere, inserted as is. */
void json_raw(struct json *j, const char *key, const char *json_text);
/* v / 10^decimals printed as a decimal number, e.g. (12345, 2) -> 123.45 */
void json_fixed(struct json *j, const char *key, int64_t v, unsigned decimals);

#endif
