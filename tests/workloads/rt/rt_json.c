/*
 * rt_json.c - one JSON object per line, written with a single write(2).
 *
 * Every workload ends by printing exactly one such line on stdout; the
 * kernel's runner and the Linux peer runner parse it, so it must be valid
 * JSON even when something went wrong. Fields are appended into a fixed
 * buffer; a field that does not fit sets `overflow`, and rt_json_end then
 * writes an error record instead of a truncated, unparsable line.
 * Keys are trusted literals; string values are escaped.
 */
#include "rt.h"

static void rt_json_raw(struct rt_json *j, const char *s, size_t n)
{
	/* Keep room for the closing "}\n". */
	if (j->overflow || j->len + n + 2 > sizeof(j->buf)) {
		j->overflow = true;
		return;
	}
	rt_memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static void rt_json_text(struct rt_json *j, const char *s)
{
	rt_json_raw(j, s, rt_strlen(s));
}

/* Appends s as a JSON string, escaping quotes, backslashes and controls. */
static void rt_json_quoted(struct rt_json *j, const char *s)
{
	char esc[8];

	rt_json_raw(j, "\"", 1);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			rt_json_raw(j, esc, 2);
		} else if (c < 0x20) {
			rt_snprintf(esc, sizeof(esc), "\\u%04x", c);
			rt_json_raw(j, esc, 6);
		} else {
			rt_json_raw(j, (const char *)&c, 1);
		}
	}
	rt_json_raw(j, "\"", 1);
}

static void rt_json_key(struct rt_json *j, const char *key)
{
	if (j->len > 1)
		rt_json_raw(j, ",", 1);
	rt_json_quoted(j, key);
	rt_json_raw(j, ":", 1);
}

void rt_json_begin(struct rt_json *j)
{
	j->len = 0;
	j->overflow = false;
	rt_json_raw(j, "{", 1);
}

void rt_json_u64(struct rt_json *j, const char *key, uint64_t v)
{
	char num[24];
	int n = rt_snprintf(num, sizeof(num), "%llu", (unsigned long long)v);

	rt_json_key(j, key);
	rt_json_raw(j, num, (size_t)n);
}

void rt_json_str(struct rt_json *j, const char *key, const char *v)
{
	rt_json_key(j, key);
	rt_json_quoted(j, v);
}

void rt_json_bool(struct rt_json *j, const char *key, bool v)
{
	rt_json_key(j, key);
	rt_json_text(j, v ? "true" : "false");
}

/* Closes the object and writes it with its newline; returns write's result. */
int rt_json_end(struct rt_json *j, int fd)
{
	static const char overflow[] =
		"{\"type\":\"error\",\"error\":\"json record overflow\"}\n";

	if (j->overflow)
		return (int)rt_write(fd, overflow, sizeof(overflow) - 1);
	j->buf[j->len++] = '}';
	j->buf[j->len++] = '\n';
	return (int)rt_write(fd, j->buf, j->len);
}

void rt_report_begin(struct rt_json *j, const char *name)
{
	rt_json_begin(j);
	rt_json_str(j, "type", "workload");
	rt_json_str(j, "name", name);
}

/*
 * Adds elapsed wall time and this process's CPU times and fault counts
 * (getrusage(RUSAGE_SELF) covers all threads, including joined ones).
 */
void rt_report_usage(struct rt_json *j, uint64_t start_ns, uint64_t end_ns)
{
	struct rt_rusage ru;

	rt_memset(&ru, 0, sizeof(ru));
	rt_getrusage(RT_RUSAGE_SELF, &ru);
	rt_json_u64(j, "elapsed_ns", end_ns - start_ns);
	rt_json_u64(j, "utime_us", rt_timeval_us(&ru.ru_utime));
	rt_json_u64(j, "stime_us", rt_timeval_us(&ru.ru_stime));
	rt_json_u64(j, "minflt", (uint64_t)ru.ru_minflt);
	rt_json_u64(j, "majflt", (uint64_t)ru.ru_majflt);
	rt_json_u64(j, "maxrss_kib", (uint64_t)ru.ru_maxrss);
	rt_json_u64(j, "nvcsw", (uint64_t)ru.ru_nvcsw);
	rt_json_u64(j, "nivcsw", (uint64_t)ru.ru_nivcsw);
}
