/*
 * Halt and panic.
 *
 * Power-off order: under a hypervisor a panic first writes 1 to QEMU's
 * isa-debug-exit port (0xf4), which ends QEMU with status 3 so a test runner
 * can tell a panic from a clean exit; then ACPI S5 through the FADT; then, if
 * both fail (real hardware without ACPI S5), the CPU halts with interrupts
 * off and the screen says it is safe to switch off.
 */
#include <string.h>
#include "panic.h"
#include "console.h"
#include "record.h"
#include "ksyms.h"
#include "lib/printf.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "drivers/acpi.h"

#define MAX_HOOKS 16
#define QEMU_DEBUG_EXIT 0xf4

static halt_hook_fn hooks[MAX_HOOKS];
static int nhooks;
static volatile int panicking;

void halt_register_hook(halt_hook_fn fn)
{
	if (nhooks < MAX_HOOKS)
		hooks[nhooks++] = fn;
}

bool panic_in_progress(void) { return panicking != 0; }

static __attribute__((noreturn)) void power_off(bool ok)
{
	irq_disable();
	if (!ok && cpu.hypervisor[0])
		outb(QEMU_DEBUG_EXIT, 0x01);
	acpi_poweroff();
	kprintf("System halted. It is safe to switch off the machine.\n");
	for (;;)
		hlt();
}

static void halt_record(const char *status, const char *reason)
{
	struct json *j = rec_begin("halt");
	json_str(j, "status", status);
	if (reason)
		json_str(j, "reason", reason);
	rec_end();
}

void halt_ok(void)
{
	for (int i = 0; i < nhooks; i++)
		hooks[i]();
	kprintf("halt: all done, powering off\n");
	halt_record("ok", NULL);
	power_off(true);
}

static void panic_records(const char *reason, uint64_t rip, uint64_t rbp, const struct trap_frame *f, uint64_t cr2)
{
	struct json *j = rec_begin("panic");
	json_str(j, "reason", reason);
	json_hex(j, "rip", rip);
	if (f) {
		json_u64(j, "vector", f->vector);
		json_str(j, "exception", trap_vector_name((unsigned)f->vector));
		json_hex(j, "error_code", f->error);
		json_hex(j, "cr2", cr2);
	}
	(void)rbp;
	rec_end();
	halt_record("panic", reason);
}

/* regs: the caller's callee-saved registers (panic) or NULL (exception,
 * whose report trap.c has already printed). */
static __attribute__((noreturn)) void panic_common(const char *reason, uint64_t rip, uint64_t rbp,
						   const struct trap_frame *f, uint64_t cr2,
						   const struct trap_frame *regs)
{
	irq_disable();
	console_panic_mode();
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_SEQ_CST)) {
		kprintf("\n*** nested panic: %s\n", reason);
		power_off(false);
	}
	kprintf("%s*** PANIC: %s\n", f ? "" : "\n", reason);
	if (regs) {
		kprintf("RIP %016lx (caller)  RBP %016lx  CR3 %016lx\n"
			"RBX %016lx  R12 %016lx  R13 %016lx  R14 %016lx  R15 %016lx\n",
			rip, rbp, read_cr3(), regs->rbx, regs->r12, regs->r13, regs->r14, regs->r15);
		trap_backtrace(rip, rbp, true);
	}
	panic_records(reason, rip, rbp, f, cr2);
	power_off(false);
}

void panic(const char *fmt, ...)
{
	char reason[256];
	struct trap_frame regs;
	memset(&regs, 0, sizeof regs);
	__asm__ volatile("mov %%rbx, %0; mov %%r12, %1; mov %%r13, %2; mov %%r14, %3; mov %%r15, %4"
			 : "=m"(regs.rbx), "=m"(regs.r12), "=m"(regs.r13), "=m"(regs.r14), "=m"(regs.r15));
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	uint64_t rbp = (uint64_t)__builtin_frame_address(0);
	panic_common(reason, (uint64_t)__builtin_return_address(0), ((uint64_t *)rbp)[0], NULL, 0, &regs);
}

void panic_exception(const struct trap_frame *f, uint64_t cr2)
{
	char reason[192];
	uint64_t off = 0;
	const char *sym = ksym_lookup(f->rip, &off);
	if (f->vector == 14)
		ksnprintf(reason, sizeof reason, "%s at address 0x%lx in kernel mode, rip %s+0x%lx",
			  trap_vector_name(14), cr2, sym ? sym : "?", off);
	else
		ksnprintf(reason, sizeof reason, "%s in kernel mode, rip %s+0x%lx",
			  trap_vector_name((unsigned)f->vector), sym ? sym : "?", off);
	panic_common(reason, f->rip, f->rbp, f, cr2, NULL);
}
