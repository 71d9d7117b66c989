/*
 * A sampling clock whose interrupts reach code that runs with interrupts
 * off: the PIT's channel 0, one-shot, through the I/O APIC as an NMI to
 * the boot CPU, which passes each one on to the other online CPUs (the
 * profiler, core/kprof.h).  Linux's old I/O APIC NMI watchdog took the
 * same path from the same timer.
 */
#ifndef NMICLOCK_H
#define NMICLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Route the PIT's interrupt to this CPU (the boot CPU) as an NMI and
 * start counting: about hz a second (19..100000).  False, with nothing
 * changed, when no I/O APIC serves its GSI.  Whether NMIs then arrive
 * (a PC may have no PIT, or the firmware may route it elsewhere) the
 * caller finds out from nmiclock_fired. */
bool nmiclock_start(uint32_t hz);
/* Stop it for good: no NMI from it after this returns. */
void nmiclock_stop(void);
/* From the NMI handler: true when this NMI is the clock's (then the
 * caller samples what it interrupted).  On the boot CPU it sets the
 * next one going and sends one to each other online CPU. */
bool nmiclock_claim(void);
/* NMIs the clock has fired on the boot CPU since it started. */
uint64_t nmiclock_fired(void);

#endif
