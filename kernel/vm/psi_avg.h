/*
 * PSI's running averages, pure (Linux's kernel/sched/psi.c calc_avgs):
 * every 2 s period the share of it spent stalled, as a percentage, is
 * folded into three exponentially decaying averages over 10, 60 and 300
 * seconds, in 11-bit fixed point (loadavg's FIXED_1 and EXP_* factors).
 * Host-tested.
 */
#ifndef PSI_AVG_H
#define PSI_AVG_H

#include <stdint.h>

#define PSI_AVG_PERIOD_NS 2000000000ull        /* Linux's PSI_FREQ */
#define PSI_AVG_FIXED_1 2048u

/* Fold in one period of period_ns with stall_ns stalled, after `missed`
 * whole periods with nothing recorded (each decays the averages as a 0%
 * sample).  avg[i]: percent * PSI_AVG_FIXED_1, for 10 s, 60 s, 300 s. */
void psi_avg_update(uint64_t avg[3], uint64_t stall_ns, uint64_t period_ns, uint64_t missed);

/* An average as Linux prints it: whole percent and hundredths. */
void psi_avg_split(uint64_t avg, unsigned *whole, unsigned *hundredths);

#endif
