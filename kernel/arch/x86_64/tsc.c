/*
 * TSC calibration and conversion.
 *
 * Reference clocks: the HPET (MMIO, a 64-bit counter with its period in the
 * capabilities register), the ACPI PM timer (3.579545 MHz, every ACPI PC
 * has it, and it keeps running where the PIT may be gated off) and, only
 * when neither exists, the PIT (1.193182 MHz, channel 2, gate via port
 * 0x61).
 *
 * One window can lie: a stall between reading the reference and reading
 * the TSC (an SMI on a PC, the host descheduling a VM) stretches one side
 * only.  A single 4 ms window once read 4020 MHz on a 2000 MHz host.  So
 * every present reference is measured over TSC_WINDOWS short windows and
 * the median taken (rate_summarise); the HPET's median is the answer when
 * it exists (100 ns resolution), else the PM timer's (280 ns), else the
 * PIT's.  The other references and CPUID's own statement of the rate
 * (leaf 0x15: crystal x ratio, exact; leaf 0x16: the nominal base clock)
 * are cross-checks: when one disagrees with the answer by more than
 * TSC_DISAGREE_PPM the boot says so loudly, because every time and tick
 * the kernel reports would then be suspect.
 *
 * Under QEMU TCG the TSC follows the host clock, so the measured rate is
 * the host's and figures in guest time are host-time figures (see the
 * README on -icount).
 */
#include <stddef.h>
#include "tsc.h"
#include "x86.h"
#include "lib/timemath.h"

#define PMTIMER_HZ 3579545ull
#define TSC_WINDOWS 5
#define TSC_WINDOW_US 1000u             /* 1 ms: 100 ppm at the HPET's 100 ns, 280 at the PM timer's */
#define TSC_DISAGREE_PPM 10000u         /* 1% */

static struct tsc_calibration cal;
static struct tick_rate rate;           /* cal.hz's, for tsc_to_ns */

uint64_t tsc_hz(void) { return cal.hz; }
const struct tsc_calibration *tsc_calibration(void) { return &cal; }

uint64_t tsc_ticks_to_ns(uint64_t ticks, uint64_t f) { return ticks_to_ns(ticks, f); }
uint64_t tsc_ns_to_ticks(uint64_t ns, uint64_t f) { return ns_to_ticks(ns, f); }

static uint64_t pmtimer_window(uint16_t port)
{
	/* Use 24 bits: every PM timer has at least that many. */
	uint32_t want = (uint32_t)(PMTIMER_HZ * TSC_WINDOW_US / 1000000u), now;
	uint32_t start = inl(port) & 0xffffff;
	uint64_t t0 = rdtsc();
	do
		now = inl(port) & 0xffffff;
	while (((now - start) & 0xffffff) < want);
	uint64_t t1 = rdtsc();
	return muldiv64(t1 - t0, PMTIMER_HZ, (now - start) & 0xffffff);
}

static uint64_t pit_window(void)
{
	uint16_t count = (uint16_t)(PIT_HZ * TSC_WINDOW_US * 2 / 1000000u);
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);  /* gate on, speaker off */
	outb(0x43, 0xb0);                         /* channel 2, lo/hi, mode 0 */
	outb(0x42, count & 0xff);
	outb(0x42, count >> 8);
	uint64_t t0 = rdtsc();
	for (int i = 0; i < 100000000 && !(inb(0x61) & 0x20); i++)
		;
	uint64_t t1 = rdtsc();
	return muldiv64(t1 - t0, PIT_HZ, count);
}

static uint64_t hpet_window(volatile uint64_t *hpet)
{
	uint64_t period_fs = hpet[0] >> 32;             /* capabilities: counter period */
	uint64_t want = TSC_WINDOW_US * 1000000000ull / period_fs;
	uint64_t start = hpet[30], now;                  /* main counter at 0xf0 */
	uint64_t t0 = rdtsc();
	do
		now = hpet[30];
	while (now - start < want);
	uint64_t t1 = rdtsc();
	/* hz = tsc ticks / seconds; seconds = (now-start) * period_fs / 1e15 */
	return muldiv64(t1 - t0, 1000000000000000ull / period_fs, now - start);
}

/* The median of TSC_WINDOWS windows of one reference (0: absent). */
static uint64_t measure(int ref, volatile uint64_t *hpet, uint16_t port, struct rate_summary *s)
{
	uint64_t v[TSC_WINDOWS];
	for (unsigned i = 0; i < TSC_WINDOWS; i++)
		v[i] = ref == 0 ? hpet_window(hpet) : ref == 1 ? pmtimer_window(port) : pit_window();
	rate_summarise(v, TSC_WINDOWS, s);
	return s->median;
}

/* CPUID's own word on the TSC rate: leaf 0x15 exactly when it names the
 * crystal, else leaf 0x16's base clock (nominal, what the TSC runs at on
 * Intel parts that have it).  AMD parts and most VMs have neither. */
static void cpuid_rate(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	uint32_t max = r[0];
	if (max >= 0x15) {
		cpuid(0x15, 0, r);              /* eax: denominator, ebx: numerator, ecx: crystal Hz */
		if (r[0] && r[1] && r[2]) {
			cal.cpuid_hz = muldiv64(r[2], r[1], r[0]);
			cal.cpuid_leaf = "0x15";
			return;
		}
	}
	if (max >= 0x16) {
		cpuid(0x16, 0, r);              /* eax: base MHz */
		if (r[0] & 0xffff) {
			cal.cpuid_hz = (uint64_t)(r[0] & 0xffff) * 1000000u;
			cal.cpuid_leaf = "0x16";
		}
	}
}

/* The largest disagreement between the answer and any other reference. */
static void cross_check(void)
{
	uint64_t other[] = { cal.hpet_hz, cal.pmtimer_hz, cal.cpuid_hz };
	for (unsigned i = 0; i < 3; i++) {
		if (!other[i])
			continue;
		uint32_t d = rate_diff_ppm(other[i], cal.hz);
		if (d > cal.disagree_ppm)
			cal.disagree_ppm = d;
	}
	cal.warn = cal.disagree_ppm > TSC_DISAGREE_PPM;
}

const struct tsc_calibration *tsc_calibrate(uint32_t pm_timer_port, void *hpet_regs)
{
	volatile uint64_t *hpet = hpet_regs;
	struct rate_summary s = { 0 }, pm;
	if (hpet && (hpet[0] >> 32) != 0) {
		hpet[2] |= 1;                            /* general config: enable */
		cal.hpet_hz = measure(0, hpet, 0, &s);
		cal.source = "hpet";
	}
	if (pm_timer_port) {
		cal.pmtimer_hz = measure(1, NULL, (uint16_t)pm_timer_port, &pm);
		if (!cal.source) {
			s = pm;
			cal.source = "pmtimer";
		}
	}
	if (!cal.source) {
		measure(2, NULL, 0, &s);
		cal.source = "pit";
	}
	cal.hz = s.median;
	tick_rate_set(&rate, cal.hz);
	cal.windows = s.n;
	cal.spread_ppm = s.spread_ppm;
	cal.outliers = s.outliers;
	cpuid_rate();
	cross_check();
	return &cal;
}

uint64_t tsc_to_ns(uint64_t ticks) { return tick_rate_ns(&rate, ticks); }
uint64_t tsc_now_ns(void) { return tsc_to_ns(rdtsc()); }
