/* Interrupt-off sections (irqtrace.h).  Runs with interrupts off. */
#include "irqtrace.h"

struct irqtrace irqtrace;

/* TSC cycles in 100 us and 1 ms; set from the calibrated TSC rate
 * (0 until then: nothing counts as long before time_init). */
static uint64_t cyc_100us, cyc_1ms;

void irqtrace_set_tsc_hz(uint64_t hz)
{
	cyc_100us = hz / 10000;
	cyc_1ms = hz / 1000;
}

unsigned irqtrace_long(uint64_t cycles)
{
	if (!cyc_100us || cycles <= cyc_100us)
		return 0;
	return cycles > cyc_1ms ? 2 : 1;
}

void irqtrace_end_slow(uint64_t site, uint64_t now)
{
	uint64_t d = now - irqtrace.since;
	irqtrace.since = 0;
	irqtrace.sections++;
	unsigned over = irqtrace_long(d);
	irqtrace.over_100us += over >= 1;
	irqtrace.over_1ms += over == 2;
	if (d > irqtrace.max_cycles) {
		irqtrace.max_cycles = d;
		irqtrace.max_from = irqtrace.since_site;
		irqtrace.max_to = site;
	}
}

void irqtrace_reset(void)
{
	uint64_t since = irqtrace.since, site = irqtrace.since_site;
	irqtrace = (struct irqtrace){ .since = since, .since_site = site };
}
