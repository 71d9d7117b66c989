/*
 * The kernel console: every line goes to COM1 and, when the firmware gave
 * us a framebuffer, to the screen.  kprintf is safe from any context; after
 * a panic starts, the console lock is ignored so the report always gets out.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>

void console_write(const char *s, size_t n);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);
/* Called by panic: stop honouring the console lock; every write reaches
 * COM1 before it returns. */
void console_panic_mode(void);
/* This CPU is in (true) or leaves (false) an NMI handler or a report of
 * where every CPU is: what it prints meanwhile waits in a buffer (a write
 * it owned cannot go on, and no lock may be waited for), and another
 * CPU's panic-mode write does not wait for it. */
void console_cpu_stopped(bool stopped);
/* The end of this CPU's part of a report: write out what waits, if the
 * console can be had; else the write it interrupted does so at its end.
 * Call before console_cpu_stopped(false). */
void console_report_done(void);
/* The machine is about to stop (halt): what waits for COM1 goes out now,
 * and every later write before it returns. */
void console_sync_mode(void);
/* The boot CPU's tick, interrupts off: hand COM1 what it takes of the
 * console's queued output and redraw a row of the screen a scroll left
 * (neither if another CPU is writing). */
void console_poll(void);
/* The "console" record (halt): COM1's queue - how full it got, and how
 * many bytes had to wait for the line. */
void console_report(void);

#endif
