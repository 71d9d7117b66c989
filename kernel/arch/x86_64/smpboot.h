/*
 * Starting the application processors (issue 14): each AP is brought to
 * long mode on the kernel's page tables with its own stack, GDT/TSS,
 * struct cpu and local APIC, counts itself online and joins the
 * scheduler with its own LAPIC tick.  Device interrupts stay routed to
 * the boot CPU.
 */
#ifndef SMPBOOT_H
#define SMPBOOT_H

#include <stdint.h>
#include <stdbool.h>
#include "mem/memmap.h"
#include "platform/acpi_tables.h"

struct json;

/* Take the trampoline's two pages below 1 MiB out of m (before kmem and
 * pmm see it).  Skipped when want is false (cpus=1: not one byte changes). */
void smp_reserve_trampoline(struct memmap *m, bool want);

/* Start the MADT's enabled APs, at most cap CPUs in all (0: no cap), one
 * at a time; prints "smp: N of M CPUs online".  BSP only, once, with
 * interrupts off, after the page allocator and udelay work. */
void smp_start_aps(const struct acpi_madt *m, uint64_t cap);

/* Is this an AP?  Asks the local APIC, not GS (an NMI may arrive in the
 * syscall entry window with the user's GS).  False before APs start. */
bool smp_on_ap(void);

/* Panic: stop every other online CPU (an NMI; its handler halts for good
 * once a panic is in progress), so only the panicking CPU prints. */
void smp_stop_others(void);

/* From an NMI handler: an NMI to every other CPU that answered at its
 * start (by its id, not a shorthand: a CPU never started, or one that
 * did not answer and was sent back to wait for SIPI, must get none),
 * each after mark(its CPU index). */
void smp_nmi_online(void (*mark)(int id));

/* The boot CPU's APIC id (the boot thread may since run on another). */
uint32_t smp_boot_apic_id(void);
int smp_cpus_online(void);
int smp_cpus_found(void);
/* cpus_online, cpus_found and the APIC ids (found, online) for the boot record. */
void smp_record(struct json *j);

#endif
