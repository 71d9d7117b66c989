/*
 * The C string functions the kernel uses.  Kernel builds find this header
 * for <string.h>; host tests of pure code get the C library's instead, so
 * pure files may use these names freely.
 */
#ifndef KSTRING_H
#define KSTRING_H

#include <stddef.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

#endif
