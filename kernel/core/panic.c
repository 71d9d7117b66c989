/*
 * Halt and panic.
 *
 * How a run ends is halt=: wait, poweroff or reboot.  The default is wait
 * on bare metal and poweroff under a hypervisor (CPUID.1:ECX[31]): on a PC
 * without COM1 the screen is the only output, and powering off the moment
 * the script ends or the kernel panics would take the table or the panic
 * with it; under QEMU the tests want the machine to end by itself.
 *
 * wait: interrupts off (nothing else may print and scroll the table or
 * the panic off the screen), the i8042 and COM1 polled until a key
 * arrives, then power-off.  Without either, the CPU waits forever and the
 * screen says so.  A panic waits the same way.
 *
 * Power-off order: under a hypervisor a panic first writes 1 to QEMU's
 * isa-debug-exit port (0xf4), which ends QEMU with status 3 so a test runner
 * can tell a panic from a clean exit; then ACPI S5 through the FADT; then, if
 * both fail (real hardware without ACPI S5), the CPU halts with interrupts
 * off and the screen says it is safe to switch off.
 *
 * Reboot order: the FADT's reset register, then port 0xcf9 (the chipset's
 * reset control), then the keyboard controller's reset pulse, then a
 * triple fault (an empty IDT), which resets every PC.
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
#include "arch/x86_64/smpboot.h"
#include "config.h"
#include "spinlock.h"
#include "platform/acpi.h"
#include "platform/i8042.h"
#include "platform/serial.h"

#define MAX_HOOKS 16
#define QEMU_DEBUG_EXIT 0xf4

#define RESET_CONTROL 0xcf9
#define RESET_CPU 0x04
#define RESET_FULL 0x02

enum halt_mode { HALT_WAIT, HALT_POWEROFF, HALT_REBOOT };
static const char *const mode_names[] = { "wait", "poweroff", "reboot" };

static halt_hook_fn hooks[MAX_HOOKS];
static int nhooks;
static halt_hook_fn shutdown_hooks[MAX_HOOKS];
static int nshutdown;
static volatile int panicking;

/* halt= when given and valid (config.c checked it), else by hypervisor.
 * Read when needed, so a panic before halt_init still gets it right. */
static enum halt_mode halt_mode(void)
{
	for (int m = 0; m < 3; m++)
		if (!strcmp(kcfg.halt, mode_names[m]))
			return (enum halt_mode)m;
	return cpu.hypervisor_bit ? HALT_POWEROFF : HALT_WAIT;
}

const char *halt_mode_name(void) { return mode_names[halt_mode()]; }

void halt_init(void)
{
	enum halt_mode m = halt_mode();
	kprintf("halt: %s at the end and on panic (%s)\n", mode_names[m],
		kcfg.halt[0] ? "halt=" : cpu.hypervisor_bit ? "default under a hypervisor" : "default on bare metal");
	if (m == HALT_WAIT)
		(void)i8042_init();     /* says now, not at the end, when there is no keyboard */
}

void halt_register_hook(halt_hook_fn fn)
{
	if (nhooks < MAX_HOOKS)
		hooks[nhooks++] = fn;
	else
		kprintf("halt: no room for another report hook (%d)\n", MAX_HOOKS);
}

void halt_register_shutdown_hook(halt_hook_fn fn)
{
	if (nshutdown < MAX_HOOKS)
		shutdown_hooks[nshutdown++] = fn;
	else
		kprintf("halt: no room for another shutdown hook (%d)\n", MAX_HOOKS);
}

bool panic_in_progress(void) { return panicking != 0; }
bool panic_on_this_cpu(void) { return panicking == (int)this_cpu()->id + 1; }

static volatile bool halting;   /* halt_ok's hooks have started */

bool halt_in_progress(void) { return halting || panicking; }

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

static __attribute__((noreturn)) void reboot(void)
{
	irq_disable();
	const char *tried = acpi_reset();
	if (tried)
		kprintf("halt: %s did not reset the machine; trying port 0xcf9\n", tried);
	outb(RESET_CONTROL, RESET_FULL);
	outb(RESET_CONTROL, RESET_FULL | RESET_CPU);
	for (volatile int i = 0; i < 10000000; i++)
		cpu_relax();
	i8042_reset_pulse();
	kprintf("halt: no reset through ACPI, 0xcf9 or the keyboard controller; triple fault\n");
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) none = { 0, 0 };
	__asm__ volatile("lidt %0; int3" :: "m"(none));
	for (;;)
		hlt();
}

/* Poll until a key arrives (keyboard or COM1), or forever without either.
 * Interrupts off. */
static void wait_for_key(void)
{
	bool keyboard = i8042_init();   /* also drops keys pressed before the question */
	for (int i = 0; i < 64 && serial_getc() >= 0; i++)
		;                       /* the same on COM1 (bounded: a line may babble) */
	if (!keyboard && !serial_present()) {
		kprintf("halt: no keyboard and no serial port: the machine stays on; switch it off by hand\n");
		for (;;)
			hlt();
	}
	kprintf("halt: press any key to power off\n");
	while (!i8042_key_pressed() && serial_getc() < 0)
		for (int i = 0; i < 1000; i++)
			cpu_relax();
	kprintf("halt: key pressed\n");
}

/* The end of every run: ok for halt_ok, false for a panic. */
static __attribute__((noreturn)) void finish(bool ok)
{
	irq_disable();
	console_sync_mode();
	enum halt_mode m = halt_mode();
	if (m == HALT_REBOOT)
		reboot();
	if (m == HALT_WAIT)
		wait_for_key();
	power_off(ok);
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
	halting = true;
	for (int i = 0; i < nhooks; i++)
		hooks[i]();
	for (int i = 0; i < nshutdown; i++)
		shutdown_hooks[i]();
	enum halt_mode m = halt_mode();
	kprintf("halt: all done, %s\n", m == HALT_REBOOT ? "rebooting" : m == HALT_WAIT ? "waiting" : "powering off");
	halt_record("ok", NULL);
	finish(true);
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
	/* panicking: 1 + the panicking CPU's id.  A panic on another CPU
	 * meanwhile stops here quietly (the first one reports). */
	int me = (int)this_cpu()->id + 1, was = 0;
	if (!__atomic_compare_exchange_n(&panicking, &was, me, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (was != me)
			for (;;)
				__asm__ volatile("cli; hlt" ::: "memory");
		kprintf("\n*** nested panic: %s\n", reason);
		power_off(false);
	}
	smp_stop_others();
	kprintf("%s*** PANIC: %s\n", f ? "" : "\n", reason);
	if (regs) {
		kprintf("RIP %016lx (caller)  RBP %016lx  CR3 %016lx\n"
			"RBX %016lx  R12 %016lx  R13 %016lx  R14 %016lx  R15 %016lx\n",
			rip, rbp, read_cr3(), regs->rbx, regs->r12, regs->r13, regs->r14, regs->r15);
		trap_backtrace(rip, rbp, true);
	}
	panic_records(reason, rip, rbp, f, cr2);
	finish(false);
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

void lock_assert_failed(const char *lock, const char *fn)
{
	panic("%s: requires lock '%s' held, and it is not", fn, lock ? lock : "?");
}
