; Ring 3 entry and exit.
;
; syscall_entry (IA32_LSTAR): the CPU left rip in rcx, rflags in r11, and
; cleared IF/DF/AC/TF through IA32_FMASK.  We swap to the kernel GS, park
; the user rsp in the per-CPU scratch slot, switch to this thread's kernel
; stack (per-CPU kernel_rsp, set at every context switch) and build the
; same struct trap_frame an interrupt would (vector 256 marks a syscall),
; so every way back to user space is trap_return's iretq.
;
; enter_user(frame): start or resume user mode from a prepared trap_frame.
;
; uaccess_*: the only instructions that touch user memory.  Each faulting
; instruction has an entry in .extable; the page-fault handler, finding no
; way to resolve a fault at such an address, resumes at the fixup, which
; reports how much was left undone.  SMAP is lifted (stac) only around them.

bits 64
default abs

%include "kernel/arch/x86_64/frame.inc"

extern syscall_dispatch
extern trap_return

%define SEL_UDATA_RPL3 0x23
%define SEL_UCODE_RPL3 0x2b

extern uaccess_smap

; stac/clac only where the CPU has SMAP: elsewhere they raise #UD.
%macro STAC 0
	test byte [uaccess_smap], 1
	jz %%skip
	STAC
%%skip:
%endmacro
%macro CLAC 0
	test byte [uaccess_smap], 1
	jz %%skip
	CLAC
%%skip:
%endmacro

section .text

global syscall_entry
syscall_entry:
	swapgs
	mov [gs:8], rsp
	mov rsp, [gs:16]
	push qword SEL_UDATA_RPL3
	push qword [gs:8]
	push r11
	push qword SEL_UCODE_RPL3
	push rcx
	push qword 0
	push qword 256
	PUSH_GPRS
	cld
	xor ebp, ebp
	mov rdi, rsp
	sti
	call syscall_dispatch
	cli
	jmp trap_return

global enter_user
enter_user:
	mov rsp, rdi
	jmp trap_return

; size_t uaccess_copy(void *dst, const void *src, size_t n): bytes not copied
; (a word that faults counts whole).  Eight bytes a step, then the tail:
; the same on hardware with fast strings, and an eighth of the steps
; under emulation, where each step of a rep counts (-icount: a 4 KiB
; rep movsb was 4096 instructions, as long as the rest of a fault).
global uaccess_copy
uaccess_copy:
	mov rcx, rdx
	shr rcx, 3
	and edx, 7
	STAC
.copyq:
	rep movsq
	mov ecx, edx
.copy:
	rep movsb
	CLAC
	xor eax, eax
	ret
.faultq:
	CLAC
	lea rax, [rdx + rcx * 8]
	ret
.fault:
	CLAC
	mov rax, rcx
	ret

; long uaccess_strncpy(char *dst, const char *src, size_t max):
; length copied (without the NUL, which is stored), max if no NUL within
; max bytes, or -1 on a fault.
global uaccess_strncpy
uaccess_strncpy:
	xor eax, eax
	STAC
.loop:
	cmp rax, rdx
	je .full
.load:
	mov cl, [rsi + rax]
	mov [rdi + rax], cl
	test cl, cl
	jz .done
	inc rax
	jmp .loop
.full:
.done:
	CLAC
	ret
.sfault:
	CLAC
	mov rax, -1
	ret

; int uaccess_cmpxchg32(uint32_t *uaddr, uint32_t old, uint32_t new, uint32_t *seen):
; 0 and *seen = previous value, or -1 on a fault.
global uaccess_cmpxchg32
uaccess_cmpxchg32:
	mov eax, esi
	STAC
.cx:
	lock cmpxchg [rdi], edx
	CLAC
	mov [rcx], eax
	xor eax, eax
	ret
.cxfault:
	CLAC
	mov eax, -1
	ret

section .extable alloc
	dq uaccess_copy.copyq, uaccess_copy.faultq
	dq uaccess_copy.copy, uaccess_copy.fault
	dq uaccess_strncpy.load, uaccess_strncpy.sfault
	dq uaccess_cmpxchg32.cx, uaccess_cmpxchg32.cxfault
