/*
 * The two ways a run ends.  halt_ok() prints the final {"type":"halt",
 * "status":"ok"} record and powers off (QEMU exits 0).  panic() prints the
 * reason, registers and a backtrace, a {"type":"panic"} record and a
 * {"type":"halt","status":"panic"} record, then powers off with a failure
 * status (QEMU with isa-debug-exit exits 3).  Either way halt= decides
 * what "powers off" means: wait for a key first (the default on bare
 * metal), power off (the default under a hypervisor), or reboot.
 */
#ifndef PANIC_H
#define PANIC_H

#include <stdint.h>
#include <stdbool.h>

struct trap_frame;

/* Run before the halt record, in registration order (reports on halt). */
typedef void (*halt_hook_fn)(void);
void halt_register_hook(halt_hook_fn fn);
/* Run after every report hook, in registration order: the last write of
 * the results file, then drivers shutting their controllers down. */
void halt_register_shutdown_hook(halt_hook_fn fn);

/* Decide the halt mode (halt=, else by hypervisor), say it, and find the
 * keyboard when it will be waited for.  After acpi_init. */
void halt_init(void);
/* "wait", "poweroff" or "reboot" (for the boot record). */
const char *halt_mode_name(void);
__attribute__((noreturn)) void halt_ok(void);
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);
__attribute__((noreturn)) void panic_exception(const struct trap_frame *f, uint64_t cr2);
bool panic_in_progress(void);
/* This CPU is the one that panicked (it goes on with the report). */
bool panic_on_this_cpu(void);
/* halt_ok's reports and shutdown hooks have started, or a panic has
 * (the boot CPU may then keep interrupts off for long: no alarms). */
bool halt_in_progress(void);

#define ASSERT(c) do { if (!(c)) panic("assertion failed: %s (%s:%d)", #c, __FILE__, __LINE__); } while (0)

#endif
