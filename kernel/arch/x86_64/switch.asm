; Kernel thread context switch.
;
; switch_stack(uint64_t *save_rsp, uint64_t new_rsp): push the callee-saved
; registers on the current stack, store rsp in *save_rsp, load new_rsp, pop
; the next thread's callee-saved registers and return into it.  Everything
; else (caller-saved registers, rflags.IF, the scheduler lock) is the C
; caller's business: see schedule() in proc/sched.c.
;
; A new thread's stack is prepared by thread_create so that the first
; switch "returns" into thread_entry with r12 = function, r13 = argument.

bits 64
default rel

extern sched_thread_start

section .text

global switch_stack
switch_stack:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

global thread_entry
thread_entry:
	xor ebp, ebp            ; ends backtraces
	mov rdi, r12
	mov rsi, r13
	call sched_thread_start ; never returns
	ud2
