/*
 * COM1 at 115200 8N1, polled.  The UART is probed with its scratch register
 * so a PC without COM1 does not spin forever on the line-status register;
 * writes then become no-ops and the framebuffer console carries the output.
 *
 * At 115200 baud a character takes 87 us on the line, and the console is
 * written with interrupts off (console.c), so writing straight to the UART
 * held them off for as long as the line took: a 1 KiB result record 89 ms
 * on a PC with COM1 (QEMU's UART takes bytes at once, which hid it).  So
 * writes go to a ring and the UART gets what it takes without waiting (its
 * 16-byte FIFO once empty); the boot CPU's tick hands it more
 * (serial_poll: 16 bytes a tick at HZ 1000 outruns the line).  A full ring
 * waits for the line as before, so nothing is dropped; serial_flush empties
 * it before the machine stops.  After a panic or an NMI report the console
 * lock no longer serialises writers, and they go straight to the UART
 * (serial_write_sync), past the ring.  A wait for the transmitter lasts at most
 * WAIT_POLLS polls (about 2 s on a PC, where a burst takes the line 1.4
 * ms; under QEMU the host end of the console may stall): then the burst
 * goes anyway (counted: what the UART still held may be lost), and after
 * WEDGED_WAITS such waits in a row the UART counts as wedged and COM1
 * gets nothing more.  A wedged UART costs time once, never a hang.
 */
#include "serial.h"
#include "arch/x86_64/x86.h"

#define COM1 0x3f8
#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_LCR  3
#define REG_MCR  4
#define REG_IIR  2                  /* read; FCR when written */
#define REG_LSR  5
#define REG_SCR  7
#define LSR_DR   0x01
#define LSR_THRE 0x20

static bool present;
static unsigned tx_burst = 1;           /* bytes the UART takes once THRE is set */

/* Written bytes not yet handed to the UART (callers serialise: the
 * console lock).  Free-running indexes; the size divides 2^32. */
#define TX_RING 65536u
static char tx[TX_RING];
static uint32_t tx_head, tx_tail;
static struct serial_stats st;

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
	/* A 16550A's FIFO takes 16 bytes once THRE says it is empty.  Not
	 * under a hypervisor (CPUID.1:ECX[31]): there the UART is emulated
	 * and its bytes leave at once, and QEMU 7.2's drops bytes when several
	 * wait in its FIFO while the host end is full (a console read at
	 * 115200 baud's rate lost about 500 of 16000 bytes; one at a time, as
	 * before the queue, none). */
	uint32_t r[4];
	cpuid(1, 0, r);
	if ((inb(COM1 + REG_IIR) & 0xc0) == 0xc0 && !(r[2] >> 31))
		tx_burst = 16;
	present = true;
}

bool serial_present(void) { return present; }

#define WAIT_POLLS 2000000
#define WEDGED_WAITS 8

static bool thr_empty(void) { return inb(COM1 + REG_LSR) & LSR_THRE; }

static void hand_burst(void)
{
	for (unsigned i = 0; i < tx_burst && tx_head != tx_tail; i++)
		outb(COM1 + REG_DATA, (uint8_t)tx[tx_tail++ % TX_RING]);
}

/* Hand the UART what it takes now, without waiting. */
static void push(void)
{
	while (tx_head != tx_tail && thr_empty())
		hand_burst();
}

/* Wait for the transmitter (bounded), then hand it a burst. */
static void push_wait(void)
{
	static unsigned in_a_row;
	int i = 0;
	while (i < WAIT_POLLS && !thr_empty()) {
		cpu_relax();
		i++;
	}
	if (i < WAIT_POLLS) {
		in_a_row = 0;
	} else {
		st.timeouts++;
		if (++in_a_row == WEDGED_WAITS) {
			st.wedged = true;
			present = false;
			tx_tail = tx_head;
			return;
		}
	}
	hand_burst();
}

static void queue(char c)
{
	if (!present)
		return;                 /* wedged meanwhile */
	if (tx_head - tx_tail == TX_RING) {
		st.full_waits++;
		push_wait();
	}
	tx[tx_head++ % TX_RING] = c;
}

/* s to put a byte at a time, each newline as CR LF. */
static void crlf(const char *s, size_t n, void (*put)(char))
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			put('\r');
		put(s[i]);
	}
	st.bytes += n;
}

void serial_write(const char *s, size_t n)
{
	if (!present)
		return;
	crlf(s, n, queue);
	push();
	if (tx_head - tx_tail > st.queued_max)
		st.queued_max = tx_head - tx_tail;      /* what the line left waiting */
}

const struct serial_stats *serial_stats(void)
{
	st.present = present || st.wedged;
	st.fifo = tx_burst;
	return &st;
}

bool serial_pending(void) { return present && __atomic_load_n(&tx_head, __ATOMIC_RELAXED) != tx_tail; }

void serial_poll(void)
{
	if (!present)
		return;
	uint32_t before = tx_tail;
	push();
	st.polled += tx_tail - before;
}

/* A byte once the transmitter is empty, or after ~100k polls anyway. */
static void put_sync(char c)
{
	for (int p = 0; p < 100000 && !thr_empty(); p++)
		cpu_relax();
	outb(COM1 + REG_DATA, (uint8_t)c);
}

void serial_write_sync(const char *s, size_t n)
{
	if (present)
		crlf(s, n, put_sync);
}

void serial_flush(void)
{
	while (present && tx_head != tx_tail)
		push_wait();
}

int serial_getc(void)
{
	if (!present || !(inb(COM1 + REG_LSR) & LSR_DR))
		return -1;
	return inb(COM1 + REG_DATA);
}
