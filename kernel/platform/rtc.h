/* CMOS real-time clock: read once at boot for CLOCK_REALTIME. */
#ifndef RTC_H
#define RTC_H

#include <stdint.h>
#include <stdbool.h>

/* Seconds since 1970-01-01 UTC (the RTC is assumed to run in UTC, as
 * QEMU's does by default), or false when the clock reads garbage. */
bool rtc_read_unix(uint64_t *secs);

#endif
