; Kernel entry and interrupt stubs.
;
; _start: the loader jumps here with interrupts off, on its own page tables
; (identity map + this image at its link address), RDI = boot_info
; (physical = identity-mapped address).  We switch to the boot stack and
; call kmain; kmain never returns.
;
; isr_N: one stub per vector.  Each pushes a zero error code where the CPU
; pushes none, then the vector number, and jumps to isr_common, which saves
; the general registers into a struct trap_frame (see trap.h, same order)
; and calls trap_dispatch(frame).  swapgs happens only when the interrupted
; code ran in ring 3.
;
; NMI, double fault and machine check come through isr_paranoid instead:
; they can arrive in the kernel while GS is still (or again) the user's,
; between syscall_entry and its swapgs, between trap_return's swapgs and
; its iretq, or on isr_common's first instruction.  The interrupted CS
; says kernel there, so isr_common would run C code with the user's GS
; base (0): this_cpu() reads address 0, the page-fault handler does the
; same, and the recursion ends in a double fault.  isr_paranoid asks the
; MSR instead, as Linux's paranoid_entry does: the kernel's GS base is a
; kernel address (bit 63 set) and the user's never is (always 0 here).

bits 64
default abs

%include "kernel/arch/x86_64/frame.inc"

extern kmain
extern trap_dispatch

section .text.entry
global _start
_start:
	cli
	mov rsp, boot_stack_top
	xor ebp, ebp
	push rbp                ; a zero return address ends backtraces
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .text

%macro ISR_NOERR 2
isr_%1:
	push qword 0
	push qword %1
	jmp %2
%endmacro

%macro ISR_ERR 2
isr_%1:
	push qword %1
	jmp %2
%endmacro

; Vectors where the CPU pushes an error code.
%assign v 0
%rep 256
%if v == 2 || v == 18
	ISR_NOERR v, isr_paranoid
%elif v == 8
	ISR_ERR v, isr_paranoid
%elif v == 10 || v == 11 || v == 12 || v == 13 || v == 14 || v == 17 || v == 21 || v == 29 || v == 30
	ISR_ERR v, isr_common
%else
	ISR_NOERR v, isr_common
%endif
%assign v v + 1
%endrep

; Frame offsets after the two pushes above: vector 0, error 8, rip 16, cs 24.
isr_common:
	test qword [rsp + 24], 3
	jz .from_kernel
	swapgs
.from_kernel:
	PUSH_GPRS
	cld
	mov rdi, rsp
	call trap_dispatch
global trap_return
trap_return:
	POP_GPRS
	test qword [rsp + 24], 3
	jz .to_kernel
	swapgs
.to_kernel:
	add rsp, 16
	iretq

; The same trap_frame; ebx (callee-saved, so trap_dispatch keeps it)
; remembers whether GS was swapped on the way in, to swap it back.
isr_paranoid:
	PUSH_GPRS
	cld
	mov ecx, 0xc0000101     ; MSR_GS_BASE
	rdmsr
	xor ebx, ebx
	test edx, edx
	js .kernel_gs
	swapgs
	mov ebx, 1
.kernel_gs:
	mov rdi, rsp
	call trap_dispatch
	test ebx, ebx
	jz .restore
	swapgs
.restore:
	POP_GPRS
	add rsp, 16
	iretq

section .rodata
global isr_table
isr_table:
%assign v 0
%rep 256
	dq isr_ %+ v
%assign v v + 1
%endrep

; Stacks that exist before the heap: the boot stack and the IST stacks for
; double fault, NMI and machine check.  Each has an unmapped guard page
; below it (kmem leaves the *_guard pages out of the kernel's tables), so an
; overflow faults instead of silently corrupting the next stack.
section .bss.stack nobits alloc write align=4096
global boot_stack_guard, boot_stack_top
global df_stack_guard, df_stack_top
global nmi_stack_guard, nmi_stack_top
global mc_stack_guard, mc_stack_top
boot_stack_guard: resb 4096
	resb 32768
boot_stack_top:
df_stack_guard: resb 4096
	resb 16384
df_stack_top:
nmi_stack_guard: resb 4096
	resb 8192
nmi_stack_top:
mc_stack_guard: resb 4096
	resb 8192
mc_stack_top:
