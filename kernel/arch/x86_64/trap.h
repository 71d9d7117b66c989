/*
 * Traps: CPU exceptions and interrupts arrive in trap_dispatch with a
 * struct trap_frame laid out by isr_common in entry.asm (same order).
 */
#ifndef TRAP_H
#define TRAP_H

#include <stdint.h>
#include <stdbool.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;      /* pushed by the CPU */
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "must match isr_common in entry.asm");

#define PF_PRESENT (1u << 0)
#define PF_WRITE   (1u << 1)
#define PF_USER    (1u << 2)
#define PF_RSVD    (1u << 3)
#define PF_FETCH   (1u << 4)
#define PF_PK      (1u << 5)

typedef void (*irq_handler_fn)(struct trap_frame *f, void *arg);
/* Page-fault hook: returns true when it resolved the fault.  Kernel-mode
 * faults it does not resolve end in the exception report and a panic. */
typedef bool (*page_fault_fn)(struct trap_frame *f, uint64_t addr);

/* Ring-3 hooks, set by the process layer (arch knows no tasks):
 *   enter: the kernel was entered from user mode (time accounting);
 *   exception: an exception raised in user mode that the page-fault hook
 *     did not resolve (kills the task and does not return when the thread
 *     belongs to one; returns otherwise, to the exception report);
 *   leave: the last step before returning to user mode (a killed task's
 *     thread exits there; time accounting). */
struct trap_user_hooks {
	void (*enter)(void);
	void (*exception)(struct trap_frame *f, uint64_t cr2);
	void (*leave)(void);
};

void trap_dispatch(struct trap_frame *f);
void trap_set_page_fault_handler(page_fault_fn fn);
void trap_set_user_hooks(const struct trap_user_hooks *h);
const char *trap_vector_name(unsigned v);
/* The NMI sampling clock's NMIs (nmiclock.h) go to fn (the profiler),
 * with the frame they interrupted; NULL: none. */
void trap_set_nmi_sampler(void (*fn)(const struct trap_frame *f));

/* Print the standard exception report for f (registers, backtrace). */
void trap_report(const struct trap_frame *f, uint64_t cr2);
/* Print a backtrace starting at rip, then the rbp (frame-pointer) chain.
 * rip_is_return: rip is a return address (look up the call before it). */
void trap_backtrace(uint64_t rip, uint64_t rbp, bool rip_is_return);
/* Print "WHY: <fmt ...>" (what was found), then where every online CPU
 * is (an NMI to the others) and the thread dump, headed by `why`; then
 * carry on.  Any CPU, any context; a second report while one runs prints
 * only its first line.  All of it goes through the console's report
 * buffer, so a stuck CPU holding the console lock does not silence it. */
void trap_report_all_cpus(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Test hook (selftest nmi_user_gs): while armed, an NMI on any CPU only
 * records the struct cpu its handler found through GS and returns. */
struct cpu;
struct trap_nmi_probe {
	volatile uint32_t armed, hits;
	struct cpu *volatile cpu;
};
extern struct trap_nmi_probe trap_nmi_probe;

#endif
