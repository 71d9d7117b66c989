/*
 * AP bring-up (see smpboot.h for the model).
 *
 * The trampoline (trampoline.asm) needs two pages below 1 MiB: the STARTUP
 * IPI names a real-mode page, and the 32-bit code can load only a CR3
 * below 4 GiB.  Page 0 holds the code, page 1 a PML4 whose kernel half is
 * the kernel's (every kernel PML4 entry exists from boot on, layout.h) and
 * whose user half identity-maps page 0 only while APs start; the
 * identity map's tables are freed afterwards.  The pages stay reserved.
 *
 * APs start one at a time (they share the trampoline's params): INIT,
 * 10 ms, STARTUP, 200 us, STARTUP (the MP specification's B.4 sequence;
 * a running CPU ignores the second), then up to AP_TIMEOUT_US for the AP
 * to say it is online.  One that does not is reported by APIC id, sent
 * INIT again (so it cannot wake later on params meant for the next) and
 * its memory freed.
 *
 * What an AP owns (never freed once online): struct ap (its struct cpu
 * inside), a 16 KiB stack (which becomes its idle thread's), its GDT/TSS
 * with three IST stacks.  Once online it joins the scheduler
 * (sched_ap_enter) and runs threads like the boot CPU.
 */
#include <string.h>
#include "smpboot.h"
#include "apic.h"
#include "cpu.h"
#include "percpu.h"
#include "tlb.h"
#include "x86.h"
#include "core/console.h"
#include "core/panic.h"
#include "core/smp.h"
#include "core/sched.h"
#include "core/time.h"
#include "lib/json.h"
#include "mem/kmalloc.h"
#include "mem/kmem.h"
#include "mem/pgtable.h"

#define TRAMP_PAGES   2
#define LOW_LIMIT     0x100000ull       /* the STARTUP vector is a page number below 1 MiB */
#define AP_STACK      16384
/* Linux's do_boot_cpu waits 10 s too.  Hardware answers in microseconds;
 * QEMU's TCG on a loaded host may leave the AP's thread unscheduled for
 * a long while (one test_smp boot on a shared 2-core host failed once
 * with a 1 s limit, cause not captured, not reproduced in 70 boots).
 * Only a CPU that really fails costs the wait. */
#define AP_TIMEOUT_US 10000000

/* Must match the params block in trampoline.asm. */
struct tramp_params {
	uint64_t cr3;           /* the trampoline PML4 (page 1) */
	uint64_t efer;          /* bits OR-ed into EFER: LME, NXE */
	uint64_t stack;         /* the AP's stack top */
	uint64_t entry;         /* smp_ap_entry64 */
	uint64_t arg;           /* struct ap * */
	uint64_t kernel_cr3;
};

extern char smp_tramp_start[], smp_tramp_end[], smp_tramp_params[], smp_tramp_params_end[];
extern char smp_ap_entry64[];
struct ap {
	struct cpu cpu;
	struct cpu_desc *desc;
	uint64_t stack_top;
	uint32_t online;        /* set by the AP, release */
	/* The boot CPU's syscall MSRs (syscall_init ran before APs start):
	 * each CPU has its own, and user code on an AP runs `syscall`. */
	uint64_t star, lstar, fmask, efer_sce;
};

void smp_ap_main(struct ap *a) __attribute__((noreturn));

static struct {
	uint64_t tramp;         /* physical address of the two pages; 0: none */
	struct smp_plan plan;
	int nonline;            /* the BSP included */
	uint32_t online[SMP_MAX_CPUS];  /* the ids online CPUs read from their own LAPIC */
} smp = { .nonline = 1 };

/* CPUs that have reported themselves online, the BSP included: each AP
 * adds itself (atomically: later steps start them in parallel). */
static uint32_t cpus_online = 1;

void smp_reserve_trampoline(struct memmap *m, bool want)
{
	if (want)
		smp.tramp = memmap_reserve_low(m, TRAMP_PAGES, LOW_LIMIT);
}

/* On the AP, on its own stack, on the kernel's page tables. */
void smp_ap_main(struct ap *a)
{
	cpu_init_ap(a->desc, &a->cpu);
	wrmsr(MSR_STAR, a->star);
	wrmsr(MSR_LSTAR, a->lstar);
	wrmsr(MSR_FMASK, a->fmask);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | a->efer_sce);
	apic_init_ap();
	a->cpu.apic_id = apic_id();
	__atomic_fetch_add(&cpus_online, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&a->online, 1, __ATOMIC_RELEASE);
	percpu_register(&a->cpu);
	sched_ap_enter(a->stack_top);
}

static struct ap *ap_alloc(uint32_t index)
{
	struct ap *a = kzalloc(sizeof *a);
	if (!a)
		return NULL;
	a->cpu.self = &a->cpu;
	a->cpu.id = index;
	a->star = rdmsr(MSR_STAR);
	a->lstar = rdmsr(MSR_LSTAR);
	a->fmask = rdmsr(MSR_FMASK);
	a->efer_sce = rdmsr(MSR_EFER) & EFER_SCE;
	a->desc = cpu_desc_alloc();
	a->stack_top = kmem_stack_alloc(AP_STACK);
	if (a->desc && a->stack_top)
		return a;
	if (a->stack_top)
		kmem_stack_free(a->stack_top, AP_STACK);
	if (a->desc)
		cpu_desc_free(a->desc);
	kfree(a);
	return NULL;
}

static bool wait_online(struct ap *a, uint64_t us)
{
	for (uint64_t t = 0; t < us; t += 50) {
		if (__atomic_load_n(&a->online, __ATOMIC_ACQUIRE))
			return true;
		udelay(50);
	}
	return __atomic_load_n(&a->online, __ATOMIC_ACQUIRE);
}

/* INIT-SIPI-SIPI one AP; true once it reported itself online. */
static bool start_one(uint32_t apic, struct ap *a, struct tramp_params *p)
{
	uint8_t page = (uint8_t)(smp.tramp >> 12);
	p->stack = a->stack_top;
	p->arg = (uint64_t)a;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!apic_send_init(apic))
		return false;
	udelay(10000);
	for (int i = 0; i < 2; i++) {
		if (!apic_send_sipi(apic, page))
			return false;
		udelay(200);
	}
	return wait_online(a, AP_TIMEOUT_US);
}

/* The trampoline's PML4 (page 1): the kernel half shared, page 0 mapped
 * at its own address.  -ENOMEM when a table cannot be had. */
static int tramp_tables(uint64_t pml4)
{
	uint64_t *dst = phys_to_virt(pml4);
	const uint64_t *src = phys_to_virt(kmem_kernel_pml4());
	memset(dst, 0, 4096);
	memcpy(dst + 256, src + 256, 256 * sizeof *dst);
	return pt_map(pml4, smp.tramp, smp.tramp, PT_WRITE | PT_EXEC);
}

static void tramp_tables_free(uint64_t pml4)
{
	pt_unmap(pml4, smp.tramp);
	pt_free_user(pml4, NULL, NULL);
}

static void start_all(void)
{
	uint64_t pml4 = smp.tramp + 4096;
	if ((size_t)(smp_tramp_params_end - smp_tramp_params) != sizeof(struct tramp_params) ||
	    (size_t)(smp_tramp_end - smp_tramp_start) > 4096)
		panic("smp: trampoline.asm and struct tramp_params disagree");
	memcpy(phys_to_virt(smp.tramp), smp_tramp_start, (size_t)(smp_tramp_end - smp_tramp_start));
	if (tramp_tables(pml4)) {
		kprintf("smp: no memory for the trampoline's page tables; APs not started\n");
		tramp_tables_free(pml4);
		return;
	}
	struct tramp_params *p = phys_to_virt(smp.tramp + (uint64_t)(smp_tramp_params - smp_tramp_start));
	*p = (struct tramp_params){
		.cr3 = pml4,
		.efer = EFER_LME | (cpu.nx ? EFER_NXE : 0),
		.entry = (uint64_t)smp_ap_entry64,
		.kernel_cr3 = kmem_kernel_pml4(),
	};
	for (int i = 0; i < smp.plan.nstart; i++) {
		uint32_t id = smp.plan.start[i];
		struct ap *a = ap_alloc((uint32_t)smp.nonline);
		if (!a) {
			kprintf("smp: no memory for the CPU with APIC id %u; not started\n", id);
			continue;
		}
		if (start_one(id, a, p)) {
			/* The AP's own reading, so the record shows who answered. */
			if (a->cpu.apic_id != id)
				kprintf("smp: the CPU started as APIC id %u reads its id as %u\n", id, a->cpu.apic_id);
			/* The id before the count: an NMI on this CPU may read
			 * both (smp_nmi_online). */
			smp.online[smp.nonline] = a->cpu.apic_id;
			__atomic_store_n(&smp.nonline, smp.nonline + 1, __ATOMIC_RELEASE);
			continue;
		}
		kprintf("smp: the CPU with APIC id %u did not come online within %u ms; skipped\n",
			id, AP_TIMEOUT_US / 1000);
		/* Back to wait-for-SIPI: it will not touch a, nor wake on the
		 * next AP's params. */
		apic_send_init(id);
		udelay(10000);
		cpu_desc_free(a->desc);
		kmem_stack_free(a->stack_top, AP_STACK);
		kfree(a);
	}
	tramp_tables_free(pml4);
}

void smp_start_aps(const struct acpi_madt *m, uint64_t cap)
{
	smp_plan(m, apic_id(), cap, apic_x2() ? 0xfffffffeu : 254, &smp.plan);
	smp.online[0] = apic_id();
	if (smp.plan.unreachable)
		kprintf("smp: %d CPU(s) with APIC ids above 254 need x2APIC mode; not started\n", smp.plan.unreachable);
	if (m->cpus_dropped)
		kprintf("smp: the MADT lists %d more CPU(s) than the %d this kernel handles; not started\n",
			m->cpus_dropped, ACPI_MAX_CPUS);
	if (smp.plan.offline)
		kprintf("smp: %d CPU(s) online-capable but not enabled by the firmware; not started\n", smp.plan.offline);
	if (smp.plan.capped)
		kprintf("smp: cpus=%lu: %d more CPU(s) not started\n", cap, smp.plan.capped);
	if (smp.plan.nstart && !smp.tramp)
		kprintf("smp: no free page below 1 MiB for the AP trampoline; %d CPU(s) not started\n",
			smp.plan.nstart);
	else if (smp.plan.nstart) {
		tlb_init();
		start_all();
	}
	if ((int)__atomic_load_n(&cpus_online, __ATOMIC_ACQUIRE) != smp.nonline)
		kprintf("smp: %u CPUs counted themselves online, %d answered in time\n", cpus_online, smp.nonline);
	kprintf("smp: %d of %d CPUs online\n", smp.nonline, smp.plan.nfound);
}

bool smp_on_ap(void)
{
	return smp.nonline > 1 && apic_id() != smp.online[0];
}

uint32_t smp_boot_apic_id(void) { return smp.nonline ? smp.online[0] : apic_id(); }

void smp_stop_others(void)
{
	if (smp.nonline > 1)
		apic_nmi_others();
}

void smp_nmi_online(void (*mark)(int id))
{
	int n = __atomic_load_n(&smp.nonline, __ATOMIC_ACQUIRE);
	uint32_t me = this_cpu()->id;
	for (int i = 0; i < n; i++) {
		if ((uint32_t)i == me)
			continue;
		mark(i);
		apic_nmi_from_nmi(smp.online[i]);
	}
}

int smp_cpus_online(void) { return (int)__atomic_load_n(&cpus_online, __ATOMIC_ACQUIRE); }
int smp_cpus_found(void) { return smp.plan.nfound ? smp.plan.nfound : 1; }

void smp_record(struct json *j)
{
	json_u64(j, "cpus_online", (uint64_t)smp_cpus_online());
	json_u64(j, "cpus_found", (uint64_t)smp_cpus_found());
	json_arr_begin(j, "cpu_apic_ids");
	for (int i = 0; i < smp.plan.nfound; i++)
		json_u64(j, NULL, smp.plan.found[i]);
	json_arr_end(j);
	json_arr_begin(j, "cpu_apic_ids_online");
	for (int i = 0; i < smp.nonline; i++)
		json_u64(j, NULL, smp.online[i]);
	json_arr_end(j);
}
