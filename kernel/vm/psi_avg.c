/*
 * PSI averages (psi_avg.h).  The decay factors are loadavg's:
 * FIXED_1 / e^(2 s / window) for windows of 10, 60 and 300 s.
 */
#include "psi_avg.h"

static const uint64_t exp_factor[3] = { 1677, 1981, 2034 };

/* One decay step towards `active` (loadavg's calc_load, rounding up
 * while rising so a steady 100% reaches 100.00). */
static uint64_t decay(uint64_t avg, uint64_t e, uint64_t active)
{
	uint64_t v = avg * e + active * (PSI_AVG_FIXED_1 - e);
	if (active >= avg)
		v += PSI_AVG_FIXED_1 - 1;
	return v / PSI_AVG_FIXED_1;
}

void psi_avg_update(uint64_t avg[3], uint64_t stall_ns, uint64_t period_ns, uint64_t missed)
{
	if (missed > 2000)
		missed = 2000;          /* 4000 s of silence: every average is 0 long before */
	for (uint64_t m = 0; m < missed; m++)
		for (int i = 0; i < 3; i++)
			avg[i] = decay(avg[i], exp_factor[i], 0);
	if (!period_ns)
		return;
	if (stall_ns > period_ns)
		stall_ns = period_ns;
	/* Percent in fixed point; stall_ns < 2^40 for any sane period, so
	 * the product stays far below 2^64. */
	uint64_t pct = stall_ns * 100 / period_ns * PSI_AVG_FIXED_1 +
		       stall_ns * 100 % period_ns * PSI_AVG_FIXED_1 / period_ns;
	for (int i = 0; i < 3; i++)
		avg[i] = decay(avg[i], exp_factor[i], pct);
}

void psi_avg_split(uint64_t avg, unsigned *whole, unsigned *hundredths)
{
	*whole = (unsigned)(avg / PSI_AVG_FIXED_1);
	*hundredths = (unsigned)((avg % PSI_AVG_FIXED_1) * 100 / PSI_AVG_FIXED_1);
}
