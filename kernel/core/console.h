/*
 * The kernel console: every line goes to COM1 and, when the firmware gave
 * us a framebuffer, to the screen.  kprintf is safe from any context; after
 * a panic starts, the console lock is ignored so the report always gets out.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdbool.h>
#include <stdint.h>
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
/* The end of a report, on the CPU that made it: write out what waits,
 * once the console lock can be had; if this CPU interrupted its own
 * write, that write's end does so; if the holder never lets go, straight
 * in panic mode.  (A CPU that only answered leaves its part to the
 * reporting CPU.)  Call before console_cpu_stopped(false). */
void console_report_done(void);
/* Selftest: hold the console lock with interrupts off for ms, as a CPU
 * stuck in a write; true if a report waited and was written out
 * meanwhile (by another CPU, past the lock). */
bool console_selftest_hold(uint64_t ms);
bool console_in_panic_mode(void);
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
