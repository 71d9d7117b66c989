/*
 * Freestanding string functions.  memcpy and memset also copy and clear
 * whole pages (the page cache's writes, copy on write, zeroed pages).  The
 * compiler may emit calls to memset/memcpy itself, hence the exact C names.
 */
#include <string.h>
#include <stdint.h>

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	if (((uintptr_t)p & 7) == 0 && n >= 8) {
		uint64_t v = (uint8_t)c * 0x0101010101010101ull;
		size_t q = n / 8;
		__asm__ volatile("rep stosq" : "+D"(p), "+c"(q) : "a"(v) : "memory");
		n &= 7;
	}
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

/* Eight bytes a step, then the tail (uaccess_copy says why). */
void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	void *ret = d;
	size_t q = n / 8;
	n &= 7;
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(q) :: "memory");
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) :: "memory");
	return ret;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (dp <= sp || dp >= sp + n)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}
