/*
 * CPU setup: feature detection, GDT with TSS, IDT, control registers.
 * The GDT layout is fixed by syscall/sysret (see cpu.c).
 */
#ifndef CPU_H
#define CPU_H

#include <stdint.h>
#include <stdbool.h>

#define SEL_KCODE   0x08
#define SEL_KDATA   0x10
#define SEL_UCODE32 0x18
#define SEL_UDATA   0x20
#define SEL_UCODE   0x28
#define SEL_TSS     0x30

#define IST_DF  1
#define IST_NMI 2
#define IST_MC  3

struct cpu_features {
	char vendor[13];
	char brand[49];
	char hypervisor[13];            /* "" on bare metal */
	bool hypervisor_bit;            /* CPUID.1:ECX[31]: running under a hypervisor */
	uint32_t family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	uint8_t phys_addr_bits, virt_addr_bits;
	bool nx, smep, smap, pge, pat, pdpe1gb, x2apic, apic, tsc, tsc_invariant;
	bool tsc_deadline, rdrand, rdseed, fsgsbase, sse2, xsave, invpcid, pcid, la57, umip;
};

extern struct cpu_features cpu;

void cpu_detect(void);
/* GDT, TSS, IDT; then NXE, WP, PGE, PAT and SMEP/SMAP where present. */
void cpu_init(void);
void cpu_set_kernel_stack(uint64_t rsp0);

struct cpu;
struct cpu_desc;
/* An application processor's GDT, TSS and IST stacks (BSP, may allocate).
 * NULL when out of memory.  Kept for the CPU's lifetime. */
struct cpu_desc *cpu_desc_alloc(void);
/* Free d: only for a CPU that never loaded it, or was sent INIT since. */
void cpu_desc_free(struct cpu_desc *d);
/* On the AP itself: load d's GDT and TSS, make c its per-CPU struct (GS
 * base), load the shared IDT, set the control registers as cpu_init does. */
void cpu_init_ap(struct cpu_desc *d, struct cpu *c);
/* Install a gate for vector v; dpl 3 lets user code raise it with int. */
void idt_set_gate(unsigned v, uint64_t handler, unsigned ist, unsigned dpl);
/* A space-separated list of the features above that are present. */
void cpu_feature_string(char *buf, unsigned cap);

#endif
