/*
 * TSC calibration and conversion.
 *
 * Reference clocks, best first: the HPET (MMIO, a 64-bit counter with its
 * period in the capabilities register), the ACPI PM timer (3.579545 MHz, every ACPI PC has it,
 * and it keeps running where the PIT may be gated off) or the PIT
 * (1.193182 MHz, channel 2, gate via port 0x61).  We count TSC ticks over
 * 4 ms of the HPET or PM timer (100 ns and 280 ns resolution: 25 and 70
 * ppm), 10 ms of the PIT.  Under QEMU TCG the TSC follows the host clock,
 * so the measured rate is the host's, and figures in guest time are
 * host-time figures (see the README on -icount).
 */
#include "tsc.h"
#include "x86.h"
#include "lib/timemath.h"

#define PMTIMER_HZ 3579545ull
#define PIT_HZ     1193182ull

static uint64_t hz;

uint64_t tsc_hz(void) { return hz; }

#define muldiv muldiv64

uint64_t tsc_ticks_to_ns(uint64_t ticks, uint64_t f) { return ticks_to_ns(ticks, f); }
uint64_t tsc_ns_to_ticks(uint64_t ns, uint64_t f) { return ns_to_ticks(ns, f); }

static uint64_t by_pmtimer(uint16_t port)
{
	/* Use 24 bits: every PM timer has at least that many. */
	uint32_t start = inl(port) & 0xffffff, want = (uint32_t)(PMTIMER_HZ / 250), now;
	uint64_t t0 = rdtsc();
	do
		now = inl(port) & 0xffffff;
	while (((now - start) & 0xffffff) < want);
	uint64_t t1 = rdtsc();
	return muldiv(t1 - t0, PMTIMER_HZ, (now - start) & 0xffffff);
}

static uint64_t by_pit(void)
{
	uint16_t count = (uint16_t)(PIT_HZ / 100);
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);  /* gate on, speaker off */
	outb(0x43, 0xb0);                         /* channel 2, lo/hi, mode 0 */
	outb(0x42, count & 0xff);
	outb(0x42, count >> 8);
	uint64_t t0 = rdtsc();
	for (int i = 0; i < 100000000 && !(inb(0x61) & 0x20); i++)
		;
	uint64_t t1 = rdtsc();
	return muldiv(t1 - t0, PIT_HZ, count);
}

static uint64_t by_hpet(volatile uint64_t *hpet)
{
	uint64_t period_fs = hpet[0] >> 32;             /* capabilities: counter period */
	hpet[2] |= 1;                                    /* general config: enable */
	uint64_t want = 4000000000000ull / period_fs;    /* 4 ms in counter ticks */
	uint64_t start = hpet[30], now;                  /* main counter at 0xf0 */
	uint64_t t0 = rdtsc();
	do
		now = hpet[30];
	while (now - start < want);
	uint64_t t1 = rdtsc();
	/* hz = tsc ticks / seconds; seconds = (now-start) * period_fs / 1e15 */
	return muldiv(t1 - t0, 1000000000000000ull / period_fs, now - start);
}

uint64_t tsc_calibrate(uint32_t pm_timer_port, void *hpet, const char **source)
{
	if (hpet && (((volatile uint64_t *)hpet)[0] >> 32) != 0) {
		hz = by_hpet(hpet);
		*source = "hpet";
	} else if (pm_timer_port) {
		hz = by_pmtimer((uint16_t)pm_timer_port);
		*source = "pmtimer";
	} else {
		hz = by_pit();
		*source = "pit";
	}
	return hz;
}

uint64_t tsc_now_ns(void) { return tsc_ticks_to_ns(rdtsc(), hz); }
