/*
 * 16550 UART on COM1, polled.  Used from any context, including exception
 * handlers and panic, so it never blocks on anything but the UART itself.
 * Writes are queued and handed to the UART as it takes them (serial.c);
 * callers serialise (the console lock).
 */
#ifndef SERIAL_H
#define SERIAL_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

void serial_init(void);
bool serial_present(void);
void serial_write(const char *s, size_t n);
/* Bytes written but not yet handed to the UART?  (A racy peek.) */
bool serial_pending(void);
/* Hand the UART what it takes now (the tick), or everything, waiting for
 * the line (before the machine stops). */
void serial_poll(void);
void serial_flush(void);
/* Straight to the UART, past the queue, waiting for it byte by byte (a
 * panic's report: callers may not serialise). */
void serial_write_sync(const char *s, size_t n);

struct serial_stats {
	bool present;
	unsigned fifo;                  /* bytes handed at once: 16 with a 16550A's FIFO, else 1 */
	uint64_t bytes;                 /* written */
	uint32_t queued_max;            /* most bytes left waiting in the ring after a write */
	uint64_t full_waits;            /* bytes that found the ring full and waited for the line */
	uint64_t polled;                /* bytes the tick handed over (serial_poll) */
	uint64_t timeouts;              /* bursts handed after WAIT_POLLS polls without THRE */
	bool wedged;                    /* stopped taking bytes: COM1 written no more */
};
const struct serial_stats *serial_stats(void);
/* Non-blocking read of one byte; returns -1 when none is waiting. */
int serial_getc(void);

#endif
