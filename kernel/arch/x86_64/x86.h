/*
 * x86-64 instructions the rest of the kernel needs, as inline functions.
 * Nothing here keeps state; callers own the meaning.
 */
#ifndef X86_H
#define X86_H

#include <stdint.h>
#include <stdbool.h>
#include "irqtrace.h"

#define MSR_EFER          0xc0000080
#define MSR_STAR          0xc0000081
#define MSR_LSTAR         0xc0000082
#define MSR_FMASK         0xc0000084
#define MSR_SYSENTER_CS   0x174
#define MSR_FS_BASE       0xc0000100
#define MSR_GS_BASE       0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_PAT           0x277
#define MSR_APIC_BASE     0x1b

#define EFER_SCE  (1u << 0)
#define EFER_LME  (1u << 8)
#define EFER_NXE  (1u << 11)

#define CR0_WP    (1ul << 16)
#define CR4_PGE   (1ul << 7)
#define CR4_OSFXSR (1ul << 9)
#define CR4_OSXMMEXCPT (1ul << 10)
#define CR4_FSGSBASE (1ul << 16)
#define CR4_SMEP  (1ul << 20)
#define CR4_SMAP  (1ul << 21)

#define RFLAGS_IF (1ul << 9)
#define RFLAGS_AC (1ul << 18)

/* The 8254 PIT's input clock (tsc.c calibrates against it, nmiclock.c
 * samples with it). */
#define PIT_HZ 1193182ull

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

#define DEFINE_CR(n) \
	static inline uint64_t read_cr##n(void) { uint64_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
	static inline void write_cr##n(uint64_t v) { __asm__ volatile("mov %0, %%cr" #n :: "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(uint64_t va) { __asm__ volatile("invlpg (%0)" :: "r"(va) : "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }

static inline void stac(void) { __asm__ volatile(".byte 0x0f,0x01,0xcb" ::: "memory"); }
static inline void clac(void) { __asm__ volatile(".byte 0x0f,0x01,0xca" ::: "memory"); }

/* FXSAVE/FXRSTOR of user FPU/SSE state (area: 512 bytes, 16-aligned). */
static inline void fxsave_area(void *a) { __asm__ volatile("fxsave64 (%0)" :: "r"(a) : "memory"); }
static inline void fxrstor_area(const void *a) { __asm__ volatile("fxrstor64 (%0)" :: "r"(a) : "memory"); }

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) :: "memory");
	return f;
}

static inline bool irqs_enabled(void) { return (read_rflags() & RFLAGS_IF) != 0; }

/* The address of the code it is inlined into, for irqtrace's sites. */
static inline __attribute__((always_inline)) uint64_t irq_here(void)
{
	uint64_t ip;
	__asm__ volatile("lea 0(%%rip), %0" : "=r"(ip));
	return ip;
}

/* cli and sti, each edge timed (irqtrace.h) unless lockstat=off.  The timestamp is taken with
 * interrupts off on both edges, so no handler runs between it and cli/sti. */
static inline __attribute__((always_inline)) void irq_disable(void)
{
	bool on = irqs_enabled();
	__asm__ volatile("cli" ::: "memory");
	if (on && irqtrace_timed())
		irqtrace_begin(irq_here(), rdtsc());
}

static inline __attribute__((always_inline)) void irq_enable(void)
{
	if (irqtrace_timed() && !irqs_enabled())
		irqtrace_end(irq_here(), rdtsc());
	__asm__ volatile("sti" ::: "memory");
}

/* Disable interrupts and return whether they were on. */
static inline __attribute__((always_inline)) bool irq_save(void)
{
	bool on = irqs_enabled();
	__asm__ volatile("cli" ::: "memory");
	if (on && irqtrace_timed())
		irqtrace_begin(irq_here(), rdtsc());
	return on;
}

static inline __attribute__((always_inline)) void irq_restore(bool on)
{
	if (on) {
		if (irqtrace_timed())
			irqtrace_end(irq_here(), rdtsc());
		__asm__ volatile("sti" ::: "memory");
	}
}

/* cli and sti around a section of a few instructions on the hottest
 * path, not timed: the CPU-time marks at every user/kernel boundary
 * (proc/task.c), where irqtrace's two TSC reads and its bookkeeping cost
 * about 110 ns per system call under -icount, half a getpid.  Nothing in
 * such a section may call out or spin. */
static inline __attribute__((always_inline)) bool irq_save_brief(void)
{
	bool on = irqs_enabled();
	__asm__ volatile("cli" ::: "memory");
	return on;
}

static inline __attribute__((always_inline)) void irq_restore_brief(bool on)
{
	if (on)
		__asm__ volatile("sti" ::: "memory");
}

#endif
