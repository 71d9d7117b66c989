/*
 * 16550 UART on COM1, polled.  Used from any context, including exception
 * handlers and panic, so it never blocks on anything but the UART itself.
 */
#ifndef SERIAL_H
#define SERIAL_H

#include <stddef.h>
#include <stdbool.h>

void serial_init(void);
bool serial_present(void);
void serial_write(const char *s, size_t n);
/* Non-blocking read of one byte; returns -1 when none is waiting. */
int serial_getc(void);

#endif
