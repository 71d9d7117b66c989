/*
 * The i8042 PS/2 controller, polled, for one purpose: waiting for a key
 * at halt (halt=wait) on a PC without a serial port.  A PS/2 keyboard,
 * and on most PCs a USB keyboard through the firmware's legacy
 * emulation, reaches the kernel through it.  No interrupts, no scan-code
 * tables: any key pressed is enough.
 */
#ifndef I8042_H
#define I8042_H

#include <stdbool.h>

/* The first call looks for the controller (after acpi_init: the FADT may
 * say there is none) and says in one line when it is absent; every call
 * then drops the bytes waiting (keys pressed before the question).
 * Returns whether the controller is there.  Any context. */
bool i8042_init(void);
/* Non-blocking: true when a key press arrived since the last call.  Any
 * context, interrupts on or off. */
bool i8042_key_pressed(void);
/* Pulse the CPU reset line through the controller (command 0xfe).
 * Returns only when nothing happened. */
void i8042_reset_pulse(void);

#endif
