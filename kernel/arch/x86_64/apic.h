/*
 * Local APIC (x2APIC when the CPU has it, else xAPIC MMIO), I/O APICs and
 * the legacy 8259 PICs (remapped, then fully masked).  Only irq.c and
 * time.c program these (smpboot.c only starts APs and sets up their own
 * local APIC); everyone else asks irq.c for vectors.
 */
#ifndef APIC_H
#define APIC_H

#include <stdint.h>
#include <stdbool.h>
#include "platform/acpi_tables.h"

#define VEC_SPURIOUS 0xff
#define VEC_APIC_ERROR 0xfe
#define VEC_TIMER 0xef
#define VEC_RESCHED 0xfd        /* another CPU queued a thread for this one */
#define VEC_TLB 0xfc            /* a TLB shootdown request (tlb.c) */
#define VEC_TIMER_RESCUE 0xfb   /* an AP pokes the boot CPU's stalled timer (time.c) */

/* Returns 0, or -ENODEV when there is no usable local APIC. */
int apic_init(const struct acpi_madt *madt);
bool apic_x2(void);
uint32_t apic_id(void);
void apic_eoi(void);

/* Route a global system interrupt to vector on this CPU.  -ENOENT when no
 * I/O APIC serves that GSI. */
int ioapic_route(uint32_t gsi, uint8_t vector, bool level, bool active_low);
/* The same as an NMI (no vector) to this CPU: an NMI arrives with
 * interrupts off too (nmiclock.c). */
int ioapic_route_nmi(uint32_t gsi, bool level, bool active_low);
void ioapic_mask(uint32_t gsi, bool masked);
int ioapic_count(void);
uint32_t ioapic_gsi_count(void);

/* Local APIC timer.  divide is fixed at 16. */
void apic_timer_start(uint32_t initial, bool periodic);
/* A new count for a timer apic_timer_start set up (mode, vector and
 * divide unchanged): one register write. */
void apic_timer_rearm(uint32_t initial);
void apic_timer_stop(void);
uint32_t apic_timer_count(void);

/* This CPU's timer registers and the in-service / requested bits of one
 * vector, read at once (for the stalled-timer report in time.c). */
struct apic_timer_regs {
	uint32_t lvt, initial, current, divide, tpr, ppr;
	bool isr, irr;                  /* of the vector asked about */
};
void apic_timer_regs(uint8_t vector, struct apic_timer_regs *r);

/* Application processors: set up an AP's own local APIC (on the AP; all
 * LVTs masked), and INIT / STARTUP IPIs to a physical APIC id (page: the
 * 4 KiB page below 1 MiB where the AP starts in real mode).  false when
 * the xAPIC never accepted the IPI. */
void apic_init_ap(void);
bool apic_send_init(uint32_t dest);
bool apic_send_sipi(uint32_t dest, uint8_t page);

/* A fixed-delivery interrupt on vector to the CPU with that APIC id.
 * Any context; false when an xAPIC never accepted it. */
bool apic_send_ipi(uint32_t dest, uint8_t vector);

/* An NMI to every CPU but this one (a panic stops the others). */
void apic_nmi_others(void);
/* An NMI to this CPU (by its APIC id: the self shorthand is for fixed
 * interrupts only).  Interrupts off; uses no per-CPU data. */
void apic_nmi_self(void);
/* An NMI to the CPU with that APIC id, from an NMI handler: the xAPIC's
 * two ICR writes of the code it interrupted are left as they were. */
void apic_nmi_from_nmi(uint32_t dest);

/* Send a self-IPI (for tests of the interrupt path). */
void apic_self_ipi(uint8_t vector);

#endif
