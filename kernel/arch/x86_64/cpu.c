/*
 * CPU setup.
 *
 * GDT layout (selectors in cpu.h) is dictated by syscall/sysret: STAR's
 * kernel base 0x08 gives CS=0x08, SS=0x10 on syscall; its user base 0x18
 * gives SS=0x20|3 and CS=0x28|3 on a 64-bit sysret.  Entry 0x18 is the
 * unused 32-bit user code segment that layout requires.
 *
 * The TSS carries rsp0 (the stack the CPU switches to on a ring 3 -> 0
 * transition) and three IST stacks, so a double fault caused by a kernel
 * stack overflow still has a good stack to report on.
 */
#include <string.h>
#include "cpu.h"
#include "x86.h"
#include "entry.h"
#include "percpu.h"
#include "lib/printf.h"
#include "mem/kmalloc.h"
#include "mem/kmem.h"

struct cpu_features cpu;

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss) == 104, "TSS layout is fixed by hardware");

struct idt_gate {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate layout is fixed by hardware");

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static uint64_t gdt[8] __attribute__((aligned(16)));
_Static_assert(sizeof gdt == 8 * 8, "gdt_load's limit");
static struct tss tss __attribute__((aligned(16)));
static struct idt_gate idt[256] __attribute__((aligned(16)));


/* The vendor string is EBX,EDX,ECX; the hypervisor's is EBX,ECX,EDX. */
static void cpuid_string(uint32_t leaf, char *out, int i1, int i2, int i3)
{
	uint32_t r[4];
	cpuid(leaf, 0, r);
	memcpy(out, &r[i1], 4);
	memcpy(out + 4, &r[i2], 4);
	memcpy(out + 8, &r[i3], 4);
	out[12] = 0;
}

static void detect_brand(void)
{
	uint32_t r[4];
	if (cpu.max_ext_leaf < 0x80000004) {
		memcpy(cpu.brand, "unknown", 8);
		return;
	}
	for (uint32_t i = 0; i < 3; i++) {
		cpuid(0x80000002 + i, 0, r);
		memcpy(cpu.brand + 16 * i, r, 16);
	}
	cpu.brand[48] = 0;
	/* Trim the leading blanks some vendors pad with. */
	char *s = cpu.brand;
	while (*s == ' ')
		s++;
	memmove(cpu.brand, s, strlen(s) + 1);
}

void cpu_detect(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	cpu.max_leaf = r[0];
	cpuid_string(0, cpu.vendor, 1, 3, 2);
	cpuid(1, 0, r);
	cpu.stepping = r[0] & 0xf;
	cpu.model = (r[0] >> 4) & 0xf;
	cpu.family = (r[0] >> 8) & 0xf;
	if (cpu.family == 0xf)
		cpu.family += (r[0] >> 20) & 0xff;
	if (cpu.family >= 6)
		cpu.model |= ((r[0] >> 16) & 0xf) << 4;
	cpu.sse2 = r[3] & (1u << 26);
	cpu.tsc = r[3] & (1u << 4);
	cpu.apic = r[3] & (1u << 9);
	cpu.pge = r[3] & (1u << 13);
	cpu.pat = r[3] & (1u << 16);
	cpu.x2apic = r[2] & (1u << 21);
	cpu.tsc_deadline = r[2] & (1u << 24);
	cpu.xsave = r[2] & (1u << 26);
	cpu.rdrand = r[2] & (1u << 30);
	cpu.pcid = r[2] & (1u << 17);
	bool hv = r[2] & (1u << 31);
	cpu.hypervisor_bit = hv;
	if (cpu.max_leaf >= 7) {
		cpuid(7, 0, r);
		cpu.fsgsbase = r[1] & (1u << 0);
		cpu.smep = r[1] & (1u << 7);
		cpu.invpcid = r[1] & (1u << 10);
		cpu.rdseed = r[1] & (1u << 18);
		cpu.smap = r[1] & (1u << 20);
		cpu.umip = r[2] & (1u << 2);
		cpu.la57 = r[2] & (1u << 16);
	}
	cpuid(0x80000000, 0, r);
	cpu.max_ext_leaf = r[0];
	if (cpu.max_ext_leaf >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		cpu.nx = r[3] & (1u << 20);
		cpu.pdpe1gb = r[3] & (1u << 26);
	}
	if (cpu.max_ext_leaf >= 0x80000007) {
		cpuid(0x80000007, 0, r);
		cpu.tsc_invariant = r[3] & (1u << 8);
	}
	cpu.phys_addr_bits = 36;
	cpu.virt_addr_bits = 48;
	if (cpu.max_ext_leaf >= 0x80000008) {
		cpuid(0x80000008, 0, r);
		cpu.phys_addr_bits = r[0] & 0xff;
		cpu.virt_addr_bits = (r[0] >> 8) & 0xff;
	}
	detect_brand();
	if (hv)
		cpuid_string(0x40000000, cpu.hypervisor, 1, 2, 3);
}

void cpu_feature_string(char *buf, unsigned cap)
{
	static const struct { const char *name; size_t off; } f[] = {
#define F(x) { #x, offsetof(struct cpu_features, x) }
		F(nx), F(smep), F(smap), F(pge), F(pat), F(pdpe1gb), F(apic), F(x2apic), F(tsc),
		F(tsc_invariant), F(tsc_deadline), F(rdrand), F(rdseed), F(fsgsbase), F(sse2),
		F(xsave), F(pcid), F(invpcid), F(la57), F(umip),
#undef F
	};
	unsigned len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (*((const bool *)((const char *)&cpu + f[i].off)))
			len += (unsigned)ksnprintf(buf + len, cap > len ? cap - len : 0, "%s%s", len ? " " : "", f[i].name);
}

static uint64_t seg(uint32_t flags_access)
{
	/* base 0, limit 0xfffff; flags_access holds bits 40..55 of the descriptor */
	return 0xffffull | ((uint64_t)flags_access << 40) | (0xfull << 48);
}

/* A GDT and its TSS with the three IST stacks.  The TSS descriptor takes
 * two slots; its busy bit is set by ltr, so each CPU needs its own. */
static void gdt_build(uint64_t *g, struct tss *t, uint64_t df_top, uint64_t nmi_top, uint64_t mc_top)
{
	g[0] = 0;
	g[SEL_KCODE / 8] = seg(0xa09a);         /* L, P, DPL0, code r/x */
	g[SEL_KDATA / 8] = seg(0xc092);         /* P, DPL0, data r/w */
	g[SEL_UCODE32 / 8] = seg(0xc0fa);       /* 32-bit user code (sysret layout only) */
	g[SEL_UDATA / 8] = seg(0xc0f2);
	g[SEL_UCODE / 8] = seg(0xa0fa);
	uint64_t base = (uint64_t)t, limit = sizeof *t - 1;
	g[SEL_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
			 (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	g[SEL_TSS / 8 + 1] = base >> 32;

	t->ist[IST_DF - 1] = df_top;
	t->ist[IST_NMI - 1] = nmi_top;
	t->ist[IST_MC - 1] = mc_top;
	t->iomap_base = sizeof *t;              /* no I/O bitmap: ring 3 gets no ports */
}

static void gdt_load(uint64_t *g)
{
	struct desc_ptr p = { 8 * 8 - 1, (uint64_t)g };
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"xorl %%eax, %%eax\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t"
		"ltr %w3\n\t"
		:: "m"(p), "i"(SEL_KCODE), "r"(SEL_KDATA), "r"(SEL_TSS) : "rax", "memory");
}

static void gdt_init(void)
{
	gdt_build(gdt, &tss, (uint64_t)df_stack_top, (uint64_t)nmi_stack_top, (uint64_t)mc_stack_top);
	gdt_load(gdt);
}

void idt_set_gate(unsigned v, uint64_t handler, unsigned ist, unsigned dpl)
{
	idt[v] = (struct idt_gate){
		.off_lo = (uint16_t)handler,
		.sel = SEL_KCODE,
		.ist = (uint8_t)ist,
		.type_attr = (uint8_t)(0x8e | (dpl << 5)),      /* present, 64-bit interrupt gate */
		.off_mid = (uint16_t)(handler >> 16),
		.off_hi = (uint32_t)(handler >> 32),
	};
}

/* Every CPU shares the one IDT: the handlers find their CPU through GS. */
static void idt_load(void)
{
	struct desc_ptr p = { sizeof idt - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" :: "m"(p));
}

static void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		idt_set_gate(v, isr_table[v], 0, 0);
	idt_set_gate(2, isr_table[2], IST_NMI, 0);
	idt_set_gate(3, isr_table[3], 0, 3);            /* int3 from user is a breakpoint, not #GP */
	idt_set_gate(8, isr_table[8], IST_DF, 0);
	idt_set_gate(18, isr_table[18], IST_MC, 0);
	idt_load();
}

/* Interrupts or preemption off: the TSS is this CPU's. */
void cpu_set_kernel_stack(uint64_t rsp0) { ((struct tss *)this_cpu()->tss)->rsp[0] = rsp0; }

static void control_regs_init(void)
{
	if (cpu.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	/* WP: the kernel honours read-only pages too.  MP|NE, no EM/TS: user
	 * code may use x87/SSE directly (its state is switched eagerly). */
	write_cr0((read_cr0() | CR0_WP | (1ul << 1) | (1ul << 5)) & ~((1ul << 2) | (1ul << 3)));
	/* No FSGSBASE for user code: isr_paranoid (entry.asm) trusts that
	 * the user's GS base is never a kernel address, and wrgsbase would
	 * let a program set one.  Firmware may leave the bit on. */
	uint64_t cr4 = (read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT) & ~CR4_FSGSBASE;
	if (cpu.pge)
		cr4 |= CR4_PGE;
	if (cpu.smep)
		cr4 |= CR4_SMEP;
	if (cpu.smap)
		cr4 |= CR4_SMAP;
	write_cr4(cr4);
	/* SYSENTER, which Intel CPUs run in 64-bit mode too, enters ring 0
	 * at IA32_SYSENTER_EIP unless IA32_SYSENTER_CS is 0 (then #GP, a
	 * user fault): we use SYSCALL, and firmware may have left them set. */
	wrmsr(MSR_SYSENTER_CS, 0);
	if (cpu.pat) {
		/* PA1 becomes write-combining (PWT=1 -> WC) for the framebuffer;
		 * PA3 stays UC for MMIO.  Others keep their power-on values. */
		uint64_t pat = rdmsr(MSR_PAT);
		pat = (pat & ~(0xffull << 8)) | (0x01ull << 8);
		wrmsr(MSR_PAT, pat);
	}
}

static struct cpu boot_cpu;
static struct cpu *cpus_by_id[PERCPU_MAX] = { &boot_cpu };
static unsigned ncpus_registered = 1;

void percpu_register(struct cpu *c)
{
	if (c->id >= PERCPU_MAX)
		return;
	__atomic_store_n(&cpus_by_id[c->id], c, __ATOMIC_RELEASE);
	unsigned n = __atomic_load_n(&ncpus_registered, __ATOMIC_ACQUIRE);
	while (c->id >= n && !__atomic_compare_exchange_n(&ncpus_registered, &n, c->id + 1, false,
							  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

struct cpu *percpu_get(unsigned id)
{
	return id < PERCPU_MAX ? __atomic_load_n(&cpus_by_id[id], __ATOMIC_ACQUIRE) : NULL;
}

unsigned percpu_count(void) { return __atomic_load_n(&ncpus_registered, __ATOMIC_ACQUIRE); }

void percpu_init_boot(void)
{
	boot_cpu.self = &boot_cpu;
	boot_cpu.tss = &tss;
	wrmsr(MSR_GS_BASE, (uint64_t)&boot_cpu);
	wrmsr(MSR_KERNEL_GS_BASE, 0);           /* the user's GS, swapped in on return */
	irqtrace_gs_ready = true;
}

void cpu_init(void)
{
	gdt_init();
	percpu_init_boot();
	idt_init();
	control_regs_init();
}

/* An AP's own GDT and TSS, with IST stacks sized as the boot CPU's. */
struct cpu_desc {
	uint64_t gdt[8];
	struct tss tss;
} __attribute__((aligned(16)));

#define AP_DF_STACK  16384
#define AP_NMI_STACK 8192
#define AP_MC_STACK  8192

struct cpu_desc *cpu_desc_alloc(void)
{
	struct cpu_desc *d = kzalloc(sizeof *d);
	if (!d)
		return NULL;
	uint64_t df = kmem_stack_alloc(AP_DF_STACK);
	uint64_t nmi = kmem_stack_alloc(AP_NMI_STACK);
	uint64_t mc = kmem_stack_alloc(AP_MC_STACK);
	gdt_build(d->gdt, &d->tss, df, nmi, mc);
	if (df && nmi && mc)
		return d;
	cpu_desc_free(d);       /* frees the stacks it did get */
	return NULL;
}

void cpu_desc_free(struct cpu_desc *d)
{
	uint64_t df = d->tss.ist[IST_DF - 1], nmi = d->tss.ist[IST_NMI - 1], mc = d->tss.ist[IST_MC - 1];
	if (df)
		kmem_stack_free(df, AP_DF_STACK);
	if (nmi)
		kmem_stack_free(nmi, AP_NMI_STACK);
	if (mc)
		kmem_stack_free(mc, AP_MC_STACK);
	kfree(d);
}

void cpu_init_ap(struct cpu_desc *d, struct cpu *c)
{
	gdt_load(d->gdt);
	/* After gdt_load: loading GS zeroes the GS base. */
	c->self = c;
	c->tss = &d->tss;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	idt_load();
	control_regs_init();
}
