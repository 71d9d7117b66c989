/*
 * COM1 at 115200 8N1, polled.  The UART is probed with its scratch register
 * so a PC without COM1 does not spin forever on the line-status register;
 * writes then become no-ops and the framebuffer console carries the output.
 * Each byte waits at most ~100k polls for the transmitter: a wedged UART
 * costs time, never a hang.
 */
#include "serial.h"
#include "arch/x86_64/x86.h"

#define COM1 0x3f8
#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_LCR  3
#define REG_MCR  4
#define REG_LSR  5
#define REG_SCR  7
#define LSR_DR   0x01
#define LSR_THRE 0x20

static bool present;

void serial_init(void)
{
	outb(COM1 + REG_SCR, 0x5a);
	if (inb(COM1 + REG_SCR) != 0x5a)
		return;
	outb(COM1 + REG_IER, 0x00);         /* polled: no UART interrupts */
	outb(COM1 + REG_LCR, 0x80);         /* DLAB on */
	outb(COM1 + REG_DATA, 1);           /* divisor 1 = 115200 baud */
	outb(COM1 + REG_IER, 0);
	outb(COM1 + REG_LCR, 0x03);         /* 8N1, DLAB off */
	outb(COM1 + REG_FCR, 0x07);         /* FIFOs on and cleared */
	outb(COM1 + REG_MCR, 0x03);         /* DTR, RTS */
	present = true;
}

bool serial_present(void) { return present; }

static void put(char c)
{
	for (int i = 0; i < 100000 && !(inb(COM1 + REG_LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(COM1 + REG_DATA, (uint8_t)c);
}

void serial_write(const char *s, size_t n)
{
	if (!present)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			put('\r');
		put(s[i]);
	}
}

int serial_getc(void)
{
	if (!present || !(inb(COM1 + REG_LSR) & LSR_DR))
		return -1;
	return inb(COM1 + REG_DATA);
}
