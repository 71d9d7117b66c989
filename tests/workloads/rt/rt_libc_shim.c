/*
 * rt_libc_shim.c - plain memset/memcpy/memmove/memcmp for the no-libc build.
 *
 * GCC may emit calls to these four even with -ffreestanding (struct copies,
 * large initialisers), so the -nostdlib link needs them. They are the only
 * unprefixed names in the runtime and live alone in this object so that the
 * musl build can leave it out and use musl's own.
 */
#include "rt.h"

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memset(void *dst, int c, size_t n)
{
	return rt_memset(dst, c, n);
}

void *memcpy(void *dst, const void *src, size_t n)
{
	return rt_memcpy(dst, src, n);
}

/* Overlap-safe: copy backwards (std/rep movsb/cld) when dst is above src. */
void *memmove(void *dst, const void *src, size_t n)
{
	if ((uintptr_t)dst <= (uintptr_t)src || (uintptr_t)dst >= (uintptr_t)src + n)
		return rt_memcpy(dst, src, n);
	if (n == 0)
		return dst;

	void *d = (char *)dst + n - 1;
	const void *s = (const char *)src + n - 1;

	__asm__ volatile("std\n\trep movsb\n\tcld"
			 : "+D"(d), "+S"(s), "+c"(n)
			 :
			 : "memory");
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != q[i])
			return (int)p[i] - (int)q[i];
	}
	return 0;
}
