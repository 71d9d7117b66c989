/*
 * Vector table and dispatch.
 *
 * Vectors 0x20..0x2f are where the masked 8259s would deliver; anything
 * arriving there is a stray legacy interrupt and is counted as such.
 * 0x30..0xee are handed out by irq_alloc; 0xef is the LAPIC timer, 0xfe
 * the APIC error interrupt, 0xff the spurious vector (which, by the APIC's
 * rules, gets no EOI).
 *
 * Locking: irq_lock (irqsave) guards allocation; dispatch reads the table
 * without it (a slot is filled before its vector is handed to a device and
 * cleared only after the device is told to stop).
 */
#include <string.h>
#include "irq.h"
#include "apic.h"
#include "x86.h"
#include "percpu.h"
#include "core/console.h"
#include "core/record.h"
#include "lib/errno.h"
#include "core/spinlock.h"

static struct {
	irq_handler_fn fn;
	void *arg;
	char name[24];
	uint64_t count;
} vec[256];

static struct spinlock irq_lock = SPINLOCK_INIT("irq");
static const struct acpi_madt *madt;
static uint64_t spurious, apic_errors, unexpected, stray_legacy;

static void set(int v, const char *name, irq_handler_fn fn, void *arg)
{
	size_t n = strnlen(name, sizeof vec[v].name - 1);
	memcpy(vec[v].name, name, n);
	vec[v].name[n] = 0;
	vec[v].arg = arg;
	__atomic_store_n(&vec[v].fn, fn, __ATOMIC_RELEASE);
}

void irq_set_fixed(int v, const char *name, irq_handler_fn fn, void *arg) { set(v, name, fn, arg); }

int irq_alloc(const char *name, irq_handler_fn fn, void *arg)
{
	bool on = spin_lock_irqsave(&irq_lock);
	for (int v = IRQ_VEC_FIRST; v <= IRQ_VEC_LAST; v++) {
		if (!vec[v].fn) {
			set(v, name, fn, arg);
			vec[v].count = 0;
			spin_unlock_irqrestore(&irq_lock, on);
			return v;
		}
	}
	spin_unlock_irqrestore(&irq_lock, on);
	kprintf("irq: out of vectors for %s\n", name);
	return -ENOSPC;
}

void irq_free(int v)
{
	if (v < IRQ_VEC_FIRST || v > IRQ_VEC_LAST)
		return;
	bool on = spin_lock_irqsave(&irq_lock);
	__atomic_store_n(&vec[v].fn, NULL, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&irq_lock, on);
}

void irq_msi_message_to(int vector, uint32_t apic, uint64_t *addr, uint32_t *data)
{
	/* Intel SDM 10.11: address 0xFEE, destination APIC id in bits 19:12,
	 * physical mode, no redirection hint; data: fixed delivery, edge.
	 * Eight bits of destination: an x2APIC id past 255 cannot be named
	 * (no interrupt remapping here), so this CPU takes it instead. */
	if (apic > 0xff)
		apic = apic_id();
	*addr = 0xfee00000ull | ((uint64_t)(apic & 0xff) << 12);
	*data = (uint32_t)vector;
}

void irq_msi_message(int vector, uint64_t *addr, uint32_t *data) { irq_msi_message_to(vector, apic_id(), addr, data); }

uint32_t irq_isa_to_gsi(uint8_t irq, bool *level, bool *active_low)
{
	*level = false;
	*active_low = false;
	for (int i = 0; madt && i < madt->nisos; i++) {
		if (madt->iso[i].source != irq)
			continue;
		if (!madt->iso[i].flags_default) {
			*level = madt->iso[i].level;
			*active_low = madt->iso[i].active_low;
		}
		return madt->iso[i].gsi;
	}
	return irq;
}

int irq_route_gsi(uint32_t gsi, bool level, bool active_low, const char *name, irq_handler_fn fn, void *arg)
{
	int v = irq_alloc(name, fn, arg);
	if (v < 0)
		return v;
	int err = ioapic_route(gsi, (uint8_t)v, level, active_low);
	if (err) {
		kprintf("irq: %s: no I/O APIC serves GSI %u\n", name, gsi);
		irq_free(v);
		return err;
	}
	return v;
}

int irq_route_isa(uint8_t irq, const char *name, irq_handler_fn fn, void *arg)
{
	bool level, low;
	uint32_t gsi = irq_isa_to_gsi(irq, &level, &low);
	return irq_route_gsi(gsi, level, low, name, fn, arg);
}

static void on_error(struct trap_frame *f, void *arg)
{
	(void)f;
	(void)arg;
	apic_errors++;
}

void irq_init(const struct acpi_madt *m)
{
	madt = m;
	int err = apic_init(m);
	if (err)
		kprintf("irq: no local APIC (error %d): no timer or device interrupts\n", err);
	set(VEC_APIC_ERROR, "apic-error", on_error, NULL);
}

void irq_dispatch(struct trap_frame *f)
{
	int v = (int)f->vector;
	this_cpu()->stats.irqs++;
	if (v == VEC_SPURIOUS) {
		__atomic_add_fetch(&spurious, 1, __ATOMIC_RELAXED);     /* no EOI for the spurious vector */
		return;
	}
	/* Atomic: the timer, reschedule and TLB vectors fire on every CPU. */
	__atomic_add_fetch(&vec[v].count, 1, __ATOMIC_RELAXED);
	irq_handler_fn fn = __atomic_load_n(&vec[v].fn, __ATOMIC_ACQUIRE);
	if (fn)
		fn(f, vec[v].arg);
	else if (v >= 0x20 && v < 0x30)
		__atomic_add_fetch(&stray_legacy, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&unexpected, 1, __ATOMIC_RELAXED);
	apic_eoi();
}

uint64_t irq_count(int v) { return v >= 0 && v < 256 ? vec[v].count : 0; }

void irq_report(void)
{
	struct json *j = rec_begin("irq");
	json_bool(j, "x2apic", apic_x2());
	json_u64(j, "ioapics", (uint64_t)ioapic_count());
	json_u64(j, "spurious", spurious);
	json_u64(j, "unexpected", unexpected);
	json_u64(j, "stray_legacy", stray_legacy);
	json_u64(j, "apic_errors", apic_errors);
	json_arr_begin(j, "vectors");
	for (int v = 0x20; v < 256; v++) {
		if (!vec[v].count)
			continue;
		json_obj_begin(j, NULL);
		json_u64(j, "vector", (uint64_t)v);
		json_str(j, "name", vec[v].fn ? vec[v].name : "unexpected");
		json_u64(j, "count", vec[v].count);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
	if (unexpected || stray_legacy || spurious)
		kprintf("irq: %lu unexpected, %lu stray legacy, %lu spurious interrupts\n", unexpected, stray_legacy, spurious);
}
