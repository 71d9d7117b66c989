/* Interrupt-off sections (irqtrace.h).  Runs with interrupts off. */
#include <string.h>
#include "irqtrace.h"
#include "mem/kmem.h"

struct irqtrace irqtrace[IRQTRACE_CPUS];
bool irqtrace_gs_ready;
bool irqtrace_timing = true;

uint64_t irqtrace_cyc_100us, irqtrace_cyc_1ms;

void irqtrace_set_tsc_hz(uint64_t hz)
{
	irqtrace_cyc_100us = hz / 10000;
	irqtrace_cyc_1ms = hz / 1000;
}

void irqtrace_end_slow(struct irqtrace *t, uint64_t site, uint64_t now)
{
	uint64_t d = now - t->since;
	t->since = 0;
	t->sections++;
	t->last_end = now;
	t->last_cycles = d;
	t->last_from = t->since_site;
	t->last_to = site;
	t->off_cycles += d;
	unsigned over = irqtrace_long(d);
	t->over_100us += over >= 1;
	t->over_1ms += over == 2;
	if (d > t->max_cycles) {
		t->max_cycles = d;
		t->max_from = t->since_site;
		t->max_to = site;
	}
}

/* Each CPU's open section, latest section and total off time go on.
 * Another CPU may be updating its slot meanwhile: a figure may be off by
 * one section (statistics). */
void irqtrace_reset(void)
{
	for (int i = 0; i < IRQTRACE_CPUS; i++) {
		struct irqtrace *t = &irqtrace[i];
		*t = (struct irqtrace){ .since = t->since, .since_site = t->since_site,
			.last_end = t->last_end, .last_cycles = t->last_cycles, .last_from = t->last_from,
			.last_to = t->last_to, .off_cycles = t->off_cycles };
	}
}

void irqtrace_total(struct irqtrace *out)
{
	*out = (struct irqtrace){ 0 };
	for (int i = 0; i < IRQTRACE_CPUS; i++) {
		const struct irqtrace *t = &irqtrace[i];
		out->sections += t->sections;
		out->over_100us += t->over_100us;
		out->over_1ms += t->over_1ms;
		if (t->max_cycles > out->max_cycles) {
			out->max_cycles = t->max_cycles;
			out->max_from = t->max_from;
			out->max_to = t->max_to;
		}
	}
}

/* The sites irqtrace_timed leaves: its no-op's address and the address
 * of its `off` label (linker.ld). */
extern const uint64_t _patch_sites_start[], _patch_sites_end[];

unsigned irqtrace_untime(void)
{
	unsigned n = 0;
	for (const uint64_t *s = _patch_sites_start; s + 2 <= _patch_sites_end; s += 2, n++) {
		uint64_t site = s[0], off = s[1];
		uint8_t jmp[5] = { 0xe9 };                      /* jmp rel32 */
		int32_t rel = (int32_t)(int64_t)(off - (site + 5));
		memcpy(jmp + 1, &rel, sizeof rel);
		/* Kernel text is mapped read-only: write through the direct map
		 * (the image is physically contiguous). */
		memcpy(kmem_map_phys(virt_to_phys((const void *)site), sizeof jmp), jmp, sizeof jmp);
	}
	/* Serialize before the patched code runs (cross-modifying code on
	 * one CPU: a serializing instruction suffices). */
	uint32_t a = 0, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) :: "memory");
	irqtrace_timing = false;
	return n;
}
