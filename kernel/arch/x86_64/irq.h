/*
 * Interrupt vectors: allocation, routing and dispatch.
 *
 *   vector = irq_alloc("nvme0 q1", handler, arg);     // MSI / MSI-X
 *   irq_msi_message(vector, &addr, &data);            // program the device
 *   vector = irq_route_gsi(gsi, level, active_low, "ahci", handler, arg);
 *   vector = irq_route_isa(irq, "com1", handler, arg); // applies MADT overrides
 *
 * Handlers run with interrupts off on the interrupted thread's stack; they
 * may wake threads but never sleep.  The EOI is sent after the handler
 * returns.  Every vector's deliveries are counted; interrupts on vectors
 * with no handler are counted as unexpected and reported on halt.
 */
#ifndef IRQ_H
#define IRQ_H

#include <stdint.h>
#include <stdbool.h>
#include "trap.h"
#include "platform/acpi_tables.h"

#define IRQ_VEC_FIRST 0x30      /* dynamic vectors: 0x30 .. 0xee */
#define IRQ_VEC_LAST  0xee

/* LAPIC, IOAPICs, PIC masking; installs the spurious/error handlers. */
void irq_init(const struct acpi_madt *madt);

int irq_alloc(const char *name, irq_handler_fn fn, void *arg);
void irq_free(int vector);
/* Install a handler on a fixed vector (timer, IPIs). */
void irq_set_fixed(int vector, const char *name, irq_handler_fn fn, void *arg);

/* MSI/MSI-X message that delivers vector to this CPU (fixed, edge). */
void irq_msi_message(int vector, uint64_t *addr, uint32_t *data);
/* The same, delivered to the CPU with local APIC id `apic`. */
void irq_msi_message_to(int vector, uint32_t apic, uint64_t *addr, uint32_t *data);

int irq_route_gsi(uint32_t gsi, bool level, bool active_low, const char *name, irq_handler_fn fn, void *arg);
int irq_route_isa(uint8_t isa_irq, const char *name, irq_handler_fn fn, void *arg);
/* ISA IRQ -> GSI with polarity/trigger from the MADT overrides. */
uint32_t irq_isa_to_gsi(uint8_t isa_irq, bool *level, bool *active_low);

/* Called by trap_dispatch for vectors >= 32. */
void irq_dispatch(struct trap_frame *f);

uint64_t irq_count(int vector);
/* Print a {"type":"irq",...} record of every vector that fired. */
void irq_report(void);

#endif
