/*
 * rt_string.c - the few string, memory and number-parsing helpers we need.
 *
 * rt_memset/rt_memcpy use the string instructions (rep stosb/movsb), which
 * are fast on every CPU since Ivy Bridge and cannot be turned back into a
 * call to themselves by the compiler. Parsing is strict: a workload argument
 * that is not exactly a number in range is a usage error, never a silent 0.
 */
#include "rt.h"

size_t rt_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

int rt_strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (int)(unsigned char)*a - (int)(unsigned char)*b;
}

void *rt_memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb"
			 : "+D"(d), "+c"(n)
			 : "a"(c)
			 : "memory");
	return dst;
}

void *rt_memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb"
			 : "+D"(d), "+S"(src), "+c"(n)
			 :
			 : "memory");
	return dst;
}

static int rt_digit_value(char c, unsigned base)
{
	unsigned v;

	if (c >= '0' && c <= '9')
		v = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		v = (unsigned)(c - 'a') + 10;
	else if (c >= 'A' && c <= 'F')
		v = (unsigned)(c - 'A') + 10;
	else
		return -1;
	return v < base ? (int)v : -1;
}

/*
 * Parses a whole string as an unsigned decimal, or hexadecimal after "0x".
 * Returns 0, -RT_EINVAL (empty, sign, stray character) or -RT_ERANGE.
 */
int rt_parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0')
		return -RT_EINVAL;
	for (; *s != '\0'; s++) {
		int d = rt_digit_value(*s, base);

		if (d < 0)
			return -RT_EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -RT_ERANGE;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int rt_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int err = rt_parse_u64(s, &v);

	if (err < 0)
		return err;
	if (v < min || v > max)
		return -RT_ERANGE;
	*out = v;
	return 0;
}
