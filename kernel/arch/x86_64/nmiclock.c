/*
 * The NMI sampling clock (nmiclock.h).
 *
 * The PIT's channel 0 counts down in mode 0 (interrupt on terminal
 * count): its output goes high at the end of the count and stays high
 * until the count is written again.  The rising edge reaches the I/O
 * APIC pin of ISA IRQ 0 (its GSI from the MADT), programmed for NMI
 * delivery to the boot CPU.
 *
 * Telling the clock's NMIs from others (a PC's NMI button or QEMU's
 * `nmi`, a report asking every CPU where it is, a panic stopping the
 * others): on the boot CPU, the output pin read back (a read-back
 * command latching channel 0's status) is high only between the clock's
 * terminal count and the write that starts the next count, which the
 * handler does; on another CPU, a per-CPU flag set before the boot CPU
 * sent it the NMI.  NMIs do not queue: one from elsewhere that arrives
 * together with the clock's is taken as the clock's.
 *
 * One-shot and set again in the handler, less the clocks the NMI took to
 * arrive (the counter goes on down past the end of the count), so the
 * period keeps to the count while NMIs arrive within one (under -icount
 * they do; under plain TCG QEMU's timer is often hundreds of us late);
 * what really fired, nmiclock_fired counts.
 * Writing the next count at once (rather than a periodic mode, whose
 * pulse lasts one PIT clock) is what lets the pin tell.
 */
#include "nmiclock.h"
#include "apic.h"
#include "irq.h"
#include "percpu.h"
#include "smpboot.h"
#include "x86.h"
#include "core/smp.h"

#define PIT_CH0 0x40
#define PIT_CMD 0x43
#define PIT_CH0_MODE0 0x30      /* channel 0, low then high byte, mode 0, binary */
#define PIT_READBACK_CH0 0xc2   /* read-back: latch channel 0's status, then its count */
#define PIT_STATUS_OUT 0x80

static struct {
	bool on;
	uint16_t count;
	uint32_t gsi;
	uint64_t fired;                 /* boot CPU only (in its NMI handler) */
} clk;
static uint8_t pending[SMP_MAX_CPUS];   /* [atomic] the boot CPU sent this CPU the clock's NMI */

static void arm(uint16_t count)
{
	outb(PIT_CMD, PIT_CH0_MODE0);
	outb(PIT_CH0, (uint8_t)count);
	outb(PIT_CH0, (uint8_t)(count >> 8));
}

/* Is the output high (the count ended)?  *late: PIT clocks since it
 * ended (in mode 0 the counter goes on down past 0, from 0xffff). */
static bool out_high(uint16_t *late)
{
	outb(PIT_CMD, PIT_READBACK_CH0);
	bool high = (inb(PIT_CH0) & PIT_STATUS_OUT) != 0;
	uint16_t c = inb(PIT_CH0);
	c |= (uint16_t)(inb(PIT_CH0) << 8);
	*late = (uint16_t)(0 - c);
	return high;
}

static void mark(int id) { __atomic_store_n(&pending[id], 1, __ATOMIC_RELEASE); }

bool nmiclock_start(uint32_t hz)
{
	if (hz < 19)
		hz = 19;
	uint64_t n = PIT_HZ / hz;
	clk.count = (uint16_t)(n < 2 ? 2 : n > 0xffff ? 0xffff : n);
	/* Counting our way (mode 0, output low) before the pin is routed:
	 * the firmware leaves channel 0 running (mode 3, 18.2 Hz), and an
	 * edge of that must not arrive as an NMI nobody claims. */
	__atomic_store_n(&clk.on, true, __ATOMIC_RELEASE);
	arm(clk.count);
	bool level, low;
	clk.gsi = irq_isa_to_gsi(0, &level, &low);
	if (ioapic_route_nmi(clk.gsi, level, low)) {
		__atomic_store_n(&clk.on, false, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

void nmiclock_stop(void)
{
	if (!clk.on)
		return;
	ioapic_mask(clk.gsi, true);
	__atomic_store_n(&clk.on, false, __ATOMIC_RELEASE);
}

bool nmiclock_claim(void)
{
	if (!__atomic_load_n(&clk.on, __ATOMIC_ACQUIRE))
		return false;
	uint32_t id = this_cpu()->id;
	if (id != 0)
		return __atomic_exchange_n(&pending[id], 0, __ATOMIC_ACQ_REL) != 0;
	uint16_t late;
	if (!out_high(&late))
		return false;
	/* The next count less what the NMI took to arrive, so samples keep
	 * to about hz; one later than a whole count starts afresh rather
	 * than sample the same place twice. */
	arm(late < clk.count ? (uint16_t)(clk.count - late) : clk.count);
	__atomic_add_fetch(&clk.fired, 1, __ATOMIC_RELAXED);
	smp_nmi_online(mark);
	return true;
}

uint64_t nmiclock_fired(void) { return __atomic_load_n(&clk.fired, __ATOMIC_RELAXED); }
