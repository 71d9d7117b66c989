/*
 * APIC programming.
 *
 * Local APIC: x2APIC mode when CPUID says so (registers are MSRs 0x800 +
 * offset/16), else xAPIC through an uncached mapping of the MADT's address.
 * The spurious-vector register enables the APIC; LVT entries we do not use
 * stay masked; LINT1 gets NMI when the MADT names it.
 *
 * I/O APIC: every redirection entry starts masked; ioapic_route programs
 * one entry for physical destination = this CPU's APIC id.
 *
 * 8259 PICs: remapped to vectors 0x20..0x2f (so a stray legacy interrupt
 * is recognisable, never mistaken for an exception), then masked.
 */
#include "apic.h"
#include "x86.h"
#include "cpu.h"
#include "core/console.h"
#include "lib/errno.h"
#include "mem/kmem.h"
#include "mem/pgtable.h"
#include "core/time.h"

#define LAPIC_ID       0x020
#define LAPIC_TPR      0x080
#define LAPIC_PPR      0x0a0
#define LAPIC_EOI      0x0b0
#define LAPIC_ISR      0x100            /* 8 words, 0x10 apart */
#define LAPIC_IRR      0x200
#define LAPIC_SVR      0x0f0
#define LAPIC_ESR      0x280
#define LAPIC_ICR_LO   0x300
#define LAPIC_ICR_HI   0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR 0x390
#define LAPIC_TIMER_DIV 0x3e0
#define LVT_MASKED     (1u << 16)
#define LVT_PERIODIC   (1u << 17)
#define LVT_NMI        (4u << 8)
#define APIC_BASE_ENABLE (1ull << 11)
#define APIC_BASE_X2   (1ull << 10)

#define IOAPIC_REGSEL  0x00
#define IOAPIC_WIN     0x10
#define IOAPIC_VER     0x01
#define IOAPIC_REDTBL  0x10

static struct {
	bool x2;
	volatile uint32_t *mmio;
	int nio;
	struct { volatile uint32_t *base; uint32_t gsi_base, count; } io[ACPI_MAX_IOAPICS];
} apic;

bool apic_x2(void) { return apic.x2; }

static uint32_t lapic_read(uint32_t reg)
{
	if (apic.x2)
		return (uint32_t)rdmsr(0x800 + (reg >> 4));
	return apic.mmio[reg / 4];
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (apic.x2)
		wrmsr(0x800 + (reg >> 4), v);
	else
		apic.mmio[reg / 4] = v;
}

uint32_t apic_id(void)
{
	uint32_t id = lapic_read(LAPIC_ID);
	return apic.x2 ? id : id >> 24;
}

void apic_eoi(void) { lapic_write(LAPIC_EOI, 0); }

static void pic_disable(void)
{
	/* ICW1..ICW4: remap master to 0x20, slave to 0x28, then mask all. */
	outb(0x20, 0x11); outb(0xa0, 0x11);
	outb(0x21, 0x20); outb(0xa1, 0x28);
	outb(0x21, 0x04); outb(0xa1, 0x02);
	outb(0x21, 0x01); outb(0xa1, 0x01);
	outb(0x21, 0xff); outb(0xa1, 0xff);
}

static uint32_t io_read(int i, uint32_t reg)
{
	apic.io[i].base[IOAPIC_REGSEL / 4] = reg;
	return apic.io[i].base[IOAPIC_WIN / 4];
}

static void io_write(int i, uint32_t reg, uint32_t v)
{
	apic.io[i].base[IOAPIC_REGSEL / 4] = reg;
	apic.io[i].base[IOAPIC_WIN / 4] = v;
}

static void ioapic_init(const struct acpi_madt *m)
{
	for (int i = 0; i < m->nioapics && apic.nio < ACPI_MAX_IOAPICS; i++) {
		volatile uint32_t *b = kmem_ioremap(m->ioapic[i].addr, 4096, PT_UC);
		if (!b) {
			kprintf("apic: cannot map I/O APIC %d at 0x%x\n", m->ioapic[i].id, m->ioapic[i].addr);
			continue;
		}
		int n = apic.nio++;
		apic.io[n].base = b;
		apic.io[n].gsi_base = m->ioapic[i].gsi_base;
		apic.io[n].count = ((io_read(n, IOAPIC_VER) >> 16) & 0xff) + 1;
		for (uint32_t pin = 0; pin < apic.io[n].count; pin++) {
			io_write(n, IOAPIC_REDTBL + 2 * pin, LVT_MASKED);
			io_write(n, IOAPIC_REDTBL + 2 * pin + 1, 0);
		}
	}
}

int apic_init(const struct acpi_madt *m)
{
	if (!cpu.apic)
		return -ENODEV;
	pic_disable();
	uint64_t base = rdmsr(MSR_APIC_BASE);
	if (cpu.x2apic) {
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE | APIC_BASE_X2);
		apic.x2 = true;
	} else {
		uint64_t phys = m && m->lapic_addr ? m->lapic_addr : (base & ~0xfffull);
		apic.mmio = kmem_ioremap(phys, 4096, PT_UC);
		if (!apic.mmio)
			return -ENOMEM;
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
	}
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, m && m->lapic_nmi_lint == 1 ? LVT_NMI : LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, VEC_APIC_ERROR);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_SVR, 0x100 | VEC_SPURIOUS);   /* enable + spurious vector */
	apic_eoi();
	if (m)
		ioapic_init(m);
	return 0;
}

static int find_ioapic(uint32_t gsi, uint32_t *pin)
{
	for (int i = 0; i < apic.nio; i++)
		if (gsi >= apic.io[i].gsi_base && gsi < apic.io[i].gsi_base + apic.io[i].count) {
			*pin = gsi - apic.io[i].gsi_base;
			return i;
		}
	return -1;
}

/* One redirection entry: lo's delivery mode and vector, level/polarity
 * added, to this CPU. */
static int route(uint32_t gsi, uint32_t lo, bool level, bool active_low)
{
	uint32_t pin;
	int i = find_ioapic(gsi, &pin);
	if (i < 0)
		return -ENOENT;
	lo |= (level ? 1u << 15 : 0) | (active_low ? 1u << 13 : 0);
	io_write(i, IOAPIC_REDTBL + 2 * pin + 1, apic_id() << 24);
	io_write(i, IOAPIC_REDTBL + 2 * pin, lo);
	return 0;
}

int ioapic_route(uint32_t gsi, uint8_t vector, bool level, bool active_low)
{
	return route(gsi, vector, level, active_low);
}

int ioapic_route_nmi(uint32_t gsi, bool level, bool active_low) { return route(gsi, LVT_NMI, level, active_low); }

void ioapic_mask(uint32_t gsi, bool masked)
{
	uint32_t pin;
	int i = find_ioapic(gsi, &pin);
	if (i < 0)
		return;
	uint32_t lo = io_read(i, IOAPIC_REDTBL + 2 * pin);
	io_write(i, IOAPIC_REDTBL + 2 * pin, masked ? lo | LVT_MASKED : lo & ~LVT_MASKED);
}

int ioapic_count(void) { return apic.nio; }

uint32_t ioapic_gsi_count(void)
{
	uint32_t n = 0;
	for (int i = 0; i < apic.nio; i++)
		n += apic.io[i].count;
	return n;
}

void apic_timer_start(uint32_t initial, bool periodic)
{
	lapic_write(LAPIC_TIMER_DIV, 0x3);              /* divide by 16 */
	lapic_write(LAPIC_LVT_TIMER, VEC_TIMER | (periodic ? LVT_PERIODIC : 0));
	lapic_write(LAPIC_TIMER_INIT, initial);
}

void apic_timer_rearm(uint32_t initial)
{
	lapic_write(LAPIC_TIMER_INIT, initial);
}

void apic_timer_stop(void)
{
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INIT, 0);
}

uint32_t apic_timer_count(void) { return lapic_read(LAPIC_TIMER_CUR); }

void apic_timer_regs(uint8_t vector, struct apic_timer_regs *r)
{
	uint32_t word = (uint32_t)(vector / 32) * 0x10, bit = 1u << (vector % 32);
	r->lvt = lapic_read(LAPIC_LVT_TIMER);
	r->initial = lapic_read(LAPIC_TIMER_INIT);
	r->current = lapic_read(LAPIC_TIMER_CUR);
	r->divide = lapic_read(LAPIC_TIMER_DIV);
	r->tpr = lapic_read(LAPIC_TPR);
	r->ppr = lapic_read(LAPIC_PPR);
	r->isr = (lapic_read(LAPIC_ISR + word) & bit) != 0;
	r->irr = (lapic_read(LAPIC_IRR + word) & bit) != 0;
}

void apic_self_ipi(uint8_t vector)
{
	if (apic.x2) {
		wrmsr(0x83f, vector);                   /* x2APIC SELF IPI register */
		return;
	}
	lapic_write(LAPIC_ICR_HI, 0);
	lapic_write(LAPIC_ICR_LO, vector | (1u << 18));  /* shorthand: self */
}

/* An AP's own local APIC (on the AP, before it parks): the BSP's mode,
 * every LVT masked (no timer, no LINT0/LINT1 NMI, no error interrupt), so
 * nothing reaches a parked CPU; then enabled through the SVR. */
void apic_init_ap(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE | (apic.x2 ? APIC_BASE_X2 : 0));
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_SVR, 0x100 | VEC_SPURIOUS);
}

#define ICR_INIT       (5u << 8)
#define ICR_STARTUP    (6u << 8)
#define ICR_PENDING    (1u << 12)
#define ICR_ASSERT     (1u << 14)
#define ICR_LEVEL      (1u << 15)

/* Send one IPI to a physical APIC id.  x2APIC writes the 64-bit ICR in one
 * MSR write and has no delivery status; xAPIC waits (1 ms at most) for
 * the previous send to leave the ICR.  Returns false when it never did. */
static bool send_ipi(uint32_t dest, uint32_t lo)
{
	if (apic.x2) {
		wrmsr(0x830, ((uint64_t)dest << 32) | lo);
		return true;
	}
	lapic_write(LAPIC_ICR_HI, dest << 24);
	lapic_write(LAPIC_ICR_LO, lo);
	for (int i = 0; i < 1000; i++) {
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_PENDING))
			return true;
		udelay(1);
	}
	return false;
}

bool apic_send_init(uint32_t dest)
{
	/* Assert, then (xAPIC only) the de-assert that pre-Pentium 4 parts
	 * needed and later ones ignore, as the MP specification's B.4
	 * sequence; an x2APIC does not support the INIT de-assert. */
	bool ok = send_ipi(dest, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
	if (apic.x2)
		return ok;
	return send_ipi(dest, ICR_INIT | ICR_LEVEL) && ok;
}

bool apic_send_ipi(uint32_t dest, uint8_t vector)
{
	/* Interrupts off: a handler on this CPU sending its own IPI between
	 * the two xAPIC ICR writes would change the destination of ours. */
	bool on = irq_save();
	bool ok = send_ipi(dest, vector);
	irq_restore(on);
	return ok;
}

void apic_nmi_others(void)
{
	/* Shorthand "all excluding self" (bits 19:18 = 11), NMI delivery. */
	if (apic.x2) {
		wrmsr(0x830, (3u << 18) | (4u << 8));
		return;
	}
	lapic_write(LAPIC_ICR_HI, 0);
	lapic_write(LAPIC_ICR_LO, (3u << 18) | (4u << 8));
}

void apic_nmi_from_nmi(uint32_t dest)
{
	if (apic.x2) {
		wrmsr(0x830, ((uint64_t)dest << 32) | LVT_NMI);
		return;
	}
	/* The code this NMI interrupted may be between its two ICR writes
	 * (its destination in ICR_HI, ICR_LO not yet written) or waiting
	 * for its send to leave: let a send in progress go, and put its
	 * destination back after ours. */
	for (int i = 0; i < 1000 && (lapic_read(LAPIC_ICR_LO) & ICR_PENDING); i++)
		udelay(1);
	uint32_t hi = lapic_read(LAPIC_ICR_HI);
	lapic_write(LAPIC_ICR_HI, dest << 24);
	lapic_write(LAPIC_ICR_LO, LVT_NMI);
	for (int i = 0; i < 1000 && (lapic_read(LAPIC_ICR_LO) & ICR_PENDING); i++)
		udelay(1);
	lapic_write(LAPIC_ICR_HI, hi);
}

void apic_nmi_self(void)
{
	send_ipi(apic_id(), 4u << 8);
}

bool apic_send_sipi(uint32_t dest, uint8_t page)
{
	return send_ipi(dest, ICR_STARTUP | page);
}
