/*
 * The kernel console: every line goes to COM1 and, when the firmware gave
 * us a framebuffer, to the screen.  kprintf is safe from any context; after
 * a panic starts, the console lock is ignored so the report always gets out.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stddef.h>
#include <stdarg.h>

void console_write(const char *s, size_t n);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);
/* Called by panic: stop honouring the console lock. */
void console_panic_mode(void);

#endif
