; Application-processor trampoline (smpboot.c copies it to a page below
; 1 MiB and points the STARTUP IPI at it).
;
; The AP wakes in real mode at CS:0 = that page.  The blob only uses
; offsets from its start (it runs wherever it was copied): the 16-bit part
; finds its physical base from CS, fills in the GDT pointer and the two far
; jump pointers, enters protected mode; the 32-bit part enables PAE, loads
; the trampoline PML4 (params.cr3: below 4 GiB, it identity-maps this page
; and shares the kernel half), sets EFER.LME (and NXE: the kernel's pages
; carry NX bits), enables paging; the 64-bit part, still at the low
; address, takes its stack and jumps to smp_ap_entry64 in the kernel image,
; which switches to the kernel's own page tables.  No stack is used before
; the 64-bit part, so one AP at a time may run it with its own params.
;
; params must match struct tramp_params in smpboot.c (smp_tramp_params_end
; lets it check the size).

bits 16
default abs

%define OFF(x) ((x) - smp_tramp_start)

section .rodata
align 4096
global smp_tramp_start, smp_tramp_end, smp_tramp_params, smp_tramp_params_end
smp_tramp_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4                              ; ebx = this page's physical address
	lea eax, [ebx + OFF(tramp_gdt)]
	mov [OFF(tramp_gdtr) + 2], eax
	lea eax, [ebx + OFF(pm32)]
	mov [OFF(far32)], eax
	lea eax, [ebx + OFF(lm64)]
	mov [OFF(far64)], eax
	o32 lgdt [OFF(tramp_gdtr)]
	mov eax, cr0
	or eax, 1                               ; PE
	mov cr0, eax
	jmp dword far [OFF(far32)]

bits 32
pm32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5                          ; PAE
	mov cr4, eax
	mov eax, [ebx + OFF(p_cr3)]
	mov cr3, eax
	mov ecx, 0xc0000080                     ; EFER
	rdmsr
	or eax, [ebx + OFF(p_efer)]
	wrmsr
	mov eax, cr0
	and eax, 0x9fffffff                     ; INIT leaves CD and NW set: caches on
	or eax, 0x80000001                      ; PG, PE
	mov cr0, eax
	jmp far [ebx + OFF(far64)]

bits 64
lm64:
	mov ebx, ebx                            ; the upper halves are undefined after the switch
	mov rsp, [rbx + OFF(p_stack)]
	mov rdi, [rbx + OFF(p_arg)]
	mov rsi, [rbx + OFF(p_kernel_cr3)]
	mov rax, [rbx + OFF(p_entry)]
	jmp rax

align 8
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff                   ; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff                   ; 0x10: data, flat
	dq 0x00af9a000000ffff                   ; 0x18: 64-bit code
tramp_gdt_end:
tramp_gdtr:
	dw tramp_gdt_end - tramp_gdt - 1
	dd 0                                    ; base: filled in at run time
far32:
	dd 0
	dw 0x08
far64:
	dd 0
	dw 0x18

align 8
smp_tramp_params:
p_cr3:        dq 0
p_efer:       dq 0
p_stack:      dq 0
p_entry:      dq 0
p_arg:        dq 0
p_kernel_cr3: dq 0
smp_tramp_params_end:
smp_tramp_end:

; In the kernel image: the AP leaves the trampoline's tables for the
; kernel's (rsi) and calls smp_ap_main(rdi) with a zero return address
; (ends backtraces), on the stack the trampoline set.
section .text
extern smp_ap_main
global smp_ap_entry64
smp_ap_entry64:
	mov cr3, rsi
	xor ebp, ebp
	push rbp
	jmp smp_ap_main
