/*
 * The time-stamp counter as the kernel's clock source.  tsc_calibrate
 * measures its rate against a fixed-frequency reference (ACPI PM timer, else
 * the PIT); conversions to ns are overflow-safe for centuries at 10 GHz.
 */
#ifndef TSC_H
#define TSC_H

#include <stdbool.h>
#include <stdint.h>

/* What calibration found; rates in Hz, 0 where a reference is absent. */
struct tsc_calibration {
	uint64_t hz;                    /* the answer: the source's median */
	const char *source;             /* "hpet", "pmtimer" or "pit" */
	unsigned windows, outliers;     /* the source's windows, and those >1% off its median */
	uint32_t spread_ppm;            /* (max - min) / median over the source's windows */
	uint64_t hpet_hz, pmtimer_hz;   /* each reference's median */
	uint64_t cpuid_hz;              /* CPUID's statement of the rate */
	const char *cpuid_leaf;         /* "0x15", "0x16" or NULL */
	uint32_t disagree_ppm;          /* largest gap between hz and any other reference */
	bool warn;                      /* disagree_ppm over 1% */
};

/* Measures the TSC against every present reference (hpet: the mapped HPET
 * registers or NULL; pm_timer_port: 0 when absent) and sets the rate the
 * conversions below use.  Boot CPU, interrupts off, about 10 ms. */
const struct tsc_calibration *tsc_calibrate(uint32_t pm_timer_port, void *hpet);
const struct tsc_calibration *tsc_calibration(void);
uint64_t tsc_hz(void);
/* ticks -> ns, exact to within 1 ns, no overflow for any 64-bit tick count
 * at any frequency >= 1 MHz. */
uint64_t tsc_ticks_to_ns(uint64_t ticks, uint64_t hz);
uint64_t tsc_ns_to_ticks(uint64_t ns, uint64_t hz);
/* ticks at the calibrated rate -> ns, with multiplies only (tick_rate_ns:
 * within 1 ns of tsc_ticks_to_ns); 0 before calibration.  For the hot
 * paths: accounting, latencies. */
uint64_t tsc_to_ns(uint64_t ticks);
/* rdtsc converted with the calibrated rate, counted from calibration-time 0. */
uint64_t tsc_now_ns(void);

#endif
