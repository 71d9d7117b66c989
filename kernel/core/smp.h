/*
 * Multiprocessor bring-up, first step (issue 14): the application
 * processors (APs) are started and parked; nothing is scheduled on them
 * and every interrupt still goes to the boot CPU (BSP).
 *
 * This is the pure part (which CPUs to start, from the MADT and cpus=),
 * tested on the host; arch/x86_64/smpboot.c starts them.
 */
#ifndef SMP_H
#define SMP_H

#include <stdint.h>
#include <stdbool.h>
#include "platform/acpi_tables.h"

#define SMP_MAX_CPUS ACPI_MAX_CPUS

struct smp_plan {
	int nfound;                     /* CPUs usable now or later, the BSP included */
	uint32_t found[SMP_MAX_CPUS];   /* their APIC ids, MADT order, BSP first */
	int nstart;                     /* APs to start: enabled, within cpus= */
	uint32_t start[SMP_MAX_CPUS];
	int capped;                     /* enabled APs left out by cpus= */
	int offline;                    /* online-capable but not enabled: not started */
	int duplicates;                 /* APIC ids listed twice (xAPIC and x2APIC entries) */
	int unreachable;                /* ids above max_id (x2APIC ids with an xAPIC) */
};

/* Which APs to start.  bsp_apic: the boot CPU's id (counted whether or not
 * the MADT lists it); cap: cpus= (the BSP counts, so cap 1 starts none;
 * 0 = no cap); max_id: the highest id an INIT/SIPI can address (254 with
 * an xAPIC: 0xff is the broadcast id).  Pure. */
void smp_plan(const struct acpi_madt *m, uint32_t bsp_apic, uint64_t cap, uint32_t max_id,
	      struct smp_plan *p);

#endif
