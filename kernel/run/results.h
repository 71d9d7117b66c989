/*
 * The results file on the ESP (see results.c): the kernel's records,
 * written to the blocks the loader pre-allocated, for machines without a
 * serial port.
 */
#ifndef RESULTS_H
#define RESULTS_H

#include "boot/boot_info.h"

/* After the block drivers have registered their disks; thread context.
 * Says in one line where records go, or why they stay on the console. */
void results_init(const struct boot_info *bi);
/* Halt hook: the last write.  Register it before the disk drivers
 * register theirs (NVMe shuts its controllers down at halt). */
void results_halt(void);

#endif
