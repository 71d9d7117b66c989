/*
 * Kernel time: a monotonic nanosecond clock from the calibrated TSC, the
 * periodic LAPIC timer tick (HZ from the command line, default 1000), and
 * one-shot kernel timers that fire from the tick.
 */
#ifndef TIME_H
#define TIME_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/list.h"
#include "lib/timemath.h"

/* Calibrate the TSC (HPET, else ACPI PM timer, else PIT) and start the
 * clock at 0.  Runs before interrupts are on. */
void time_init(void);
/* Calibrate the LAPIC timer against the TSC and start the tick, periodic
 * or (oneshot) re-armed for the next tick or ktimer deadline. */
void time_start_tick(unsigned hz, bool oneshot);
bool time_oneshot(void);
/* On an AP: its own LAPIC timer, periodic at the boot CPU's HZ, driving
 * only the scheduler (ktimers fire on the boot CPU). */
void time_start_tick_ap(void);

uint64_t time_ns(void);                 /* monotonic since time_init */
uint64_t time_tsc_hz(void);
const char *time_tsc_source(void);
unsigned time_hz(void);
uint64_t time_ticks(void);
uint64_t time_lapic_hz(void);           /* LAPIC timer input clock / 16 */
uint64_t time_rescues(void);            /* timer IPIs APs sent the boot CPU for an overdue tick */
/* Rescues the boot CPU took (fewer than sent: IPIs sent while it is not
 * running coalesce into one), by what they found (timer_rescue_kind in
 * lib/timemath.h), and each kind's name for records ("held_off", ...). */
uint64_t time_rescues_of(enum timer_rescue_kind kind);
const char *time_rescue_kind_name(enum timer_rescue_kind kind);

/* Busy-wait; for short device delays and before the scheduler runs. */
void udelay(uint64_t us);

struct ktimer {
	struct list_node link;          /* guarded by timer_lock (time.c) */
	uint64_t expires_ns;
	void (*fn)(void *arg);          /* runs in interrupt context */
	void *arg;
	bool armed;
	volatile bool running;          /* fn is running (on the boot CPU) */
	uint64_t fired_ns;              /* when the interrupt that last ran fn came (time_ns) */
};

void ktimer_init(struct ktimer *t, void (*fn)(void *), void *arg);
/* Arm (or re-arm) to fire at time_ns() >= at_ns.  Tick granularity. */
void ktimer_arm(struct ktimer *t, uint64_t at_ns);
/* Returns true when the timer was still pending.  When it returns, fn is
 * not running and will not run (it waits for a run under way on another
 * CPU), so the caller may free or reuse t.  Never from fn itself, nor
 * holding a lock fn takes. */
bool ktimer_cancel(struct ktimer *t);

#endif
