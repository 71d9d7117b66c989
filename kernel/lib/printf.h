/*
 * Formatted output without a C library.  One engine (fmt_vformat) feeds a
 * caller-supplied sink; ksnprintf formats into a buffer.  Conversions:
 * %d %i %u %x %X %o %p %s %c %%, modifiers hh h l ll z, flags - 0 +,
 * width and precision (also as *).  No floating point: the kernel is built
 * with -mgeneral-regs-only; print fixed-point with integers.
 */
#ifndef PRINTF_H
#define PRINTF_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*fmt_sink)(void *ctx, const char *s, size_t n);

int fmt_vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap);
int kvsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
