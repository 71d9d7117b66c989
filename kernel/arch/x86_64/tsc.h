/*
 * The time-stamp counter as the kernel's clock source.  tsc_calibrate
 * measures its rate against a fixed-frequency reference (ACPI PM timer, else
 * the PIT); conversions to ns are overflow-safe for centuries at 10 GHz.
 */
#ifndef TSC_H
#define TSC_H

#include <stdint.h>

/* Returns the measured frequency in Hz; source names what it was measured
 * against ("hpet", "pmtimer", "pit").  hpet: the mapped HPET registers or
 * NULL; pm_timer_port: 0 when absent. */
uint64_t tsc_calibrate(uint32_t pm_timer_port, void *hpet, const char **source);
uint64_t tsc_hz(void);
/* ticks -> ns, exact to within 1 ns, no overflow for any 64-bit tick count
 * at any frequency >= 1 MHz. */
uint64_t tsc_ticks_to_ns(uint64_t ticks, uint64_t hz);
uint64_t tsc_ns_to_ticks(uint64_t ns, uint64_t hz);
/* rdtsc converted with the calibrated rate, counted from calibration-time 0. */
uint64_t tsc_now_ns(void);

#endif
