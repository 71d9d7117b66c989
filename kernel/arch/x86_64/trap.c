/*
 * Trap dispatch and the exception report.
 *
 * Vectors 0..31 are CPU exceptions.  A page fault first goes to the mm
 * hook (demand paging, user copies); anything not resolved there, and every
 * other exception raised in the kernel, produces the report below and a
 * panic.  Vectors 32..255 go to irq.c; after an interrupt, a pending
 * reschedule (timer slice over, higher-priority thread woken) happens here,
 * unless the interrupted code holds a spinlock (preempt_count > 0).
 *
 * The report: vector name and number, error code decoded, CR2, all
 * registers, and a frame-pointer backtrace with symbol names.  The kernel
 * is built with -fno-omit-frame-pointer so the rbp chain is complete; every
 * frame is checked to be mapped before it is read.
 */
#include <stdarg.h>
#include "trap.h"
#include "nmiclock.h"
#include "lib/printf.h"
#include "x86.h"
#include "core/console.h"
#include "core/ksyms.h"
#include "core/panic.h"
#include "mem/kmem.h"
#include "mem/layout.h"
#include "irq.h"
#include "percpu.h"
#include "smpboot.h"
#include "apic.h"
#include "tsc.h"
#include "core/sched.h"
#include "core/smp.h"

static const char *const names[32] = {
	"Divide error (#DE)", "Debug (#DB)", "NMI", "Breakpoint (#BP)", "Overflow (#OF)",
	"BOUND range exceeded (#BR)", "Invalid opcode (#UD)", "Device not available (#NM)",
	"Double fault (#DF)", "Coprocessor segment overrun", "Invalid TSS (#TS)",
	"Segment not present (#NP)", "Stack-segment fault (#SS)", "General protection (#GP)",
	"Page fault (#PF)", "Reserved 15", "x87 FP error (#MF)", "Alignment check (#AC)",
	"Machine check (#MC)", "SIMD FP error (#XM)", "Virtualization (#VE)",
	"Control protection (#CP)", "Reserved 22", "Reserved 23", "Reserved 24", "Reserved 25",
	"Reserved 26", "Reserved 27", "Hypervisor injection (#HV)", "VMM communication (#VC)",
	"Security (#SX)", "Reserved 31",
};

static page_fault_fn pf_hook;

const char *trap_vector_name(unsigned v) { return v < 32 ? names[v] : "interrupt"; }

void trap_set_page_fault_handler(page_fault_fn fn) { pf_hook = fn; }

static void (*nmi_sampler)(const struct trap_frame *f);

void trap_set_nmi_sampler(void (*fn)(const struct trap_frame *f)) { nmi_sampler = fn; }

static void print_sym(uint64_t addr)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);
	if (name)
		kprintf("%s+0x%lx", name, off);
	else
		kprintf("?");
}

void trap_backtrace(uint64_t rip, uint64_t rbp, bool rip_is_return)
{
	kprintf("Backtrace:\n  #0  %016lx ", rip);
	print_sym(rip_is_return ? rip - 1 : rip);
	kprintf("\n");
	for (int depth = 1; depth < 32 && rbp; depth++) {
		/* Kernel frames only.  rbp is still (or again) the user's in
		 * the instructions around swapgs on entry and return; an NMI
		 * there would read user memory, which SMAP turns into a page
		 * fault in the middle of the report. */
		if (rbp < DIRECT_MAP) {
			kprintf("  (frame pointer %016lx is not a kernel address, backtrace ends)\n", rbp);
			return;
		}
		if ((rbp & 7) || !kmem_readable(rbp) || !kmem_readable(rbp + 8)) {
			kprintf("  (frame pointer %016lx unreadable, backtrace ends)\n", rbp);
			return;
		}
		uint64_t next = ((uint64_t *)rbp)[0], ret = ((uint64_t *)rbp)[1];
		if (!ret)
			return;
		kprintf("  #%-2d %016lx ", depth, ret);
		print_sym(ret - 1);     /* the call, not the instruction after it */
		kprintf("\n");
		if (next <= rbp)
			return;         /* stacks grow down: a frame above must be higher */
		rbp = next;
	}
}

static void describe_pf(uint64_t err)
{
	kprintf(" [%s, %s, %s%s%s]", err & PF_WRITE ? "write" : (err & PF_FETCH ? "instruction fetch" : "read"),
		err & PF_PRESENT ? "protection violation" : "not present",
		err & PF_USER ? "user" : "kernel", err & PF_RSVD ? ", reserved bit set" : "",
		err & PF_PK ? ", protection key" : "");
}

void trap_report(const struct trap_frame *f, uint64_t cr2)
{
	kprintf("\n*** EXCEPTION: %s, vector %lu, error code 0x%lx", trap_vector_name((unsigned)f->vector),
		f->vector, f->error);
	if (f->vector == 14)
		describe_pf(f->error);
	kprintf("\nRIP %016lx ", f->rip);
	print_sym(f->rip);
	kprintf("\nCR2 %016lx  CR3 %016lx  RFLAGS %016lx\n", cr2, read_cr3(), f->rflags);
	kprintf("RAX %016lx  RBX %016lx  RCX %016lx  RDX %016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
	kprintf("RSI %016lx  RDI %016lx  RBP %016lx  RSP %016lx\n", f->rsi, f->rdi, f->rbp, f->rsp);
	kprintf("R8  %016lx  R9  %016lx  R10 %016lx  R11 %016lx\n", f->r8, f->r9, f->r10, f->r11);
	kprintf("R12 %016lx  R13 %016lx  R14 %016lx  R15 %016lx\n", f->r12, f->r13, f->r14, f->r15);
	kprintf("CS %04lx  SS %04lx\n", f->cs, f->ss);
	if (f->vector == 8 && !kmem_readable(f->rsp - 8))
		kprintf("The stack pointer sits just above an unmapped page: a kernel stack overflow ran into its guard page.\n");
	trap_backtrace(f->rip, f->rbp, false);
}

static struct trap_user_hooks user;

void trap_set_user_hooks(const struct trap_user_hooks *h) { user = *h; }

/* Where every CPU is: for a hang that leaves no thread able to print.
 * Two ways in: an NMI from outside (QEMU's `nmi` monitor command, a PC's
 * NMI button), which reaches the boot CPU only (the APs' LINT1 is
 * masked), and trap_report_all_cpus from a CPU that found another stuck
 * (sched.c's lockup check).  The CPU that starts a report prints its own
 * place, sends an NMI to the others, each of which prints its own place
 * and answers, one at a time, and then dumps the threads not on a CPU.
 * Everything here is lockless and every wait is bounded: the CPU that
 * holds the console or a run-queue lock may be the one stuck.  What the
 * report prints waits in the console's report buffer and goes out whole
 * once the console lock can be had (console_report_done), so it neither
 * lands in the middle of a line a stopped CPU was writing nor overtakes
 * what was queued before it. */
static volatile uint32_t nmi_printing;  /* one CPU prints at a time */
static volatile uint32_t nmi_answered;  /* CPUs done with their part */
static volatile uint32_t nmi_reporting; /* a report is asking the others */
static volatile uint32_t nmi_round;     /* reports that asked the others so far */
static uint32_t answered_round[SMP_MAX_CPUS];   /* the last report each CPU answered */

/* TSC ticks in about `seconds` s (before calibration: as at 4 GHz). */
static uint64_t nmi_ticks(unsigned seconds)
{
	uint64_t hz = tsc_hz();
	return (hz ? hz : 4000000000ull) * seconds;
}

static void print_place(const char *mode, uint64_t rip, uint64_t rbp, bool irqs_on, bool rip_is_return)
{
	uint64_t give_up = rdtsc() + nmi_ticks(1);      /* never wait forever */
	while (__atomic_exchange_n(&nmi_printing, 1, __ATOMIC_ACQUIRE) && rdtsc() < give_up)
		__asm__ volatile("pause");
	/* GS is the user's if the NMI came between syscall and swapgs: trust
	 * it only if it points at a struct cpu that points at itself. */
	struct cpu *c = (struct cpu *)rdmsr(MSR_GS_BASE);
	if ((uint64_t)c < DIRECT_MAP || !kmem_readable((uint64_t)c) || c->self != c)
		c = NULL;
	struct thread *t = c ? c->current : NULL;
	if (c)
		kprintf("NMI: cpu %u (APIC id %u) ", c->id, apic_id());
	else
		kprintf("NMI: cpu ? (APIC id %u, GS not the kernel's) ", apic_id());
	kprintf("in %s, thread %s, rip %016lx, interrupts %s\n", mode, t ? t->name : "?", rip,
		irqs_on ? "on" : "off");
	if (rbp)
		trap_backtrace(rip, rbp, rip_is_return);
	__atomic_store_n(&nmi_printing, 0, __ATOMIC_RELEASE);
}

static void print_frame_place(const struct trap_frame *f)
{
	bool user = (f->cs & 3) != 0;
	print_place(user ? "user mode" : "the kernel", f->rip, user ? 0 : f->rbp,
		    (f->rflags & RFLAGS_IF) != 0, false);
}

/* The others' places and the thread dump, after the caller printed its own. */
static void ask_others(void)
{
	int others = smp_cpus_online() - 1;
	if (others > 0) {
		uint32_t base = __atomic_load_n(&nmi_answered, __ATOMIC_ACQUIRE);
		/* The reporter has printed its own place: the clock's NMIs
		 * meanwhile must not print it again. */
		answered_round[this_cpu()->id % SMP_MAX_CPUS] = __atomic_add_fetch(&nmi_round, 1, __ATOMIC_RELEASE);
		apic_nmi_others();
		uint64_t give_up = rdtsc() + nmi_ticks(2);
		while (__atomic_load_n(&nmi_answered, __ATOMIC_ACQUIRE) - base < (uint32_t)others &&
		       rdtsc() < give_up)
			__asm__ volatile("pause");
		uint32_t got = __atomic_load_n(&nmi_answered, __ATOMIC_ACQUIRE) - base;
		if (got < (uint32_t)others)
			kprintf("NMI: %u of %d other CPU(s) did not answer\n", (uint32_t)others - got, others);
	}
	sched_dump_threads();
	__atomic_store_n(&nmi_reporting, 0, __ATOMIC_RELEASE);
}

void trap_report_all_cpus(const char *why, const char *fmt, ...)
{
	char line[200];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	console_cpu_stopped(true);
	kprintf("%s: %s\n", why, line);
	if (__atomic_exchange_n(&nmi_reporting, 1, __ATOMIC_ACQUIRE)) {
		/* Another CPU is reporting: its NMI will reach us, and it
		 * writes out this line with its report. */
		console_cpu_stopped(false);
		return;
	}
	kprintf("%s: where every CPU is, then the threads\n", why);
	struct cpu *c = this_cpu();
	if (c->irq_depth && c->irq_frame)
		print_frame_place(c->irq_frame);        /* what the interrupt found */
	else
		print_place("the kernel", (uint64_t)trap_report_all_cpus, (uint64_t)__builtin_frame_address(0),
			    irqs_enabled(), false);
	ask_others();
	console_report_done();
	console_cpu_stopped(false);
}

/* clock: the NMI was the profiler's sampling clock's (nmiclock.h); one
 * from a report or from outside may have arrived with it (NMIs do not
 * queue). */
static void nmi_report(const struct trap_frame *f, bool clock)
{
	if (__atomic_load_n(&nmi_reporting, __ATOMIC_ACQUIRE)) {
		/* Asked by a report: once per report, so the clock's next NMI
		 * does not print again. */
		uint32_t id = this_cpu()->id % SMP_MAX_CPUS, round = __atomic_load_n(&nmi_round, __ATOMIC_ACQUIRE);
		if (answered_round[id] == round)
			return;
		answered_round[id] = round;
		console_cpu_stopped(true);
		print_frame_place(f);
		__atomic_add_fetch(&nmi_answered, 1, __ATOMIC_RELEASE);
		console_cpu_stopped(false);
		return;
	}
	/* The clock's alone; or on an AP (its LINT1 is masked: only an IPI
	 * gets here), one a report that gave up on it sent late. */
	if (clock || smp_on_ap())
		return;
	console_cpu_stopped(true);
	__atomic_store_n(&nmi_reporting, 1, __ATOMIC_RELEASE);
	kprintf("NMI: where every CPU is, then the threads\n");
	print_frame_place(f);
	ask_others();
	console_report_done();
	console_cpu_stopped(false);
}

struct trap_nmi_probe trap_nmi_probe;

static void exception(struct trap_frame *f)
{
	if (f->vector == 2 && panic_in_progress()) {
		/* Another CPU panicked and stops us (smp_stop_others). */
		if (!panic_on_this_cpu())
			for (;;)
				__asm__ volatile("cli; hlt" ::: "memory");
		/* The panicking CPU goes on with its report: an NMI from
		 * outside is ignored, and the sampling clock's is not set
		 * going again, so it stops. */
		return;
	}
	if (f->vector == 2) {
		bool clock = nmi_sampler && nmiclock_claim();
		if (clock)
			nmi_sampler(f);
		else if (trap_nmi_probe.armed) {
			trap_nmi_probe.cpu = this_cpu();
			__atomic_add_fetch(&trap_nmi_probe.hits, 1, __ATOMIC_RELEASE);
			return;
		}
		nmi_report(f, clock);
		return;
	}
	uint64_t cr2 = f->vector == 14 ? read_cr2() : 0;
	if (f->vector == 14 && pf_hook && pf_hook(f, cr2))
		return;
	if ((f->cs & 3) && user.exception)
		user.exception(f, cr2);
	console_panic_mode();
	trap_report(f, cr2);
	panic_exception(f, cr2);
}

void trap_dispatch(struct trap_frame *f)
{
	/* Time in ring 3 ends here; the kernel's share ends on the way out.
	 * Not for an NMI: it returns through isr_paranoid, not trap_return,
	 * and user.leave may end the thread (a kill) on the NMI's stack. */
	bool from_user = (f->cs & 3) && user.enter && f->vector != 2;
	/* Interrupt gates turned interrupts off at entry; iret turns them
	 * back on if the interrupted code had them on: a section, timed
	 * unless lockstat=off. */
	bool timed = (f->rflags & RFLAGS_IF) != 0 && irqtrace_timed();
	if (timed)
		irqtrace_begin(f->rip, rdtsc());
	if (from_user)
		user.enter();
	if (f->vector < 32) {
		exception(f);
	} else {
		struct cpu *c = this_cpu();
		struct trap_frame *outer = c->irq_frame;
		uint64_t t0 = c->irq_depth ? 0 : rdtsc();
		c->irq_depth++;
		c->irq_frame = f;
		irq_dispatch(f);
		c->irq_frame = outer;
		if (!--c->irq_depth) {
			uint64_t dt = rdtsc() - t0;
			c->stats.irq_tsc += dt;
			if (c->current == c->idle)
				c->stats.idle_irq_tsc += dt;
		}
		sched_preempt_point();
	}
	if (from_user)
		user.leave();
	if (timed)
		irqtrace_end(f->rip, rdtsc());
}
