; The PVH entry: QEMU's `-kernel build/kernel.elf` (no UEFI, no loader)
; finds the Xen PHYS32_ENTRY note below and enters pvh_start32 in 32-bit
; protected mode, paging off, EBX = the physical address of an
; hvm_start_info (memory map, command line, the initrd module).  A test-rig
; boot path: it skips the firmware's 4-5 s (70 s under -icount) per QEMU
; boot; real PCs boot through the UEFI loader (boot/loader.c).
;
; Here: page tables like the loader's (an identity map of the first
; 512 GiB with 1 GiB pages, or of 4 GiB with 2 MiB pages on a CPU without
; them; the image at its link address), long mode, the boot stack, then
; pvh_main (pvh.c) builds a boot_info and calls kmain.

bits 32
default abs

KERNEL_VMA equ 0xffffffff80000000
KERNEL_LMA equ 0x200000         ; where QEMU loads the image (linker.ld's AT)
global pvh_kernel_lma           ; linker.ld checks the two agree
pvh_kernel_lma equ KERNEL_LMA
extern boot_stack_top
extern pvh_main

%define PHYS(x) ((x) - KERNEL_VMA + KERNEL_LMA)

section .note.pvh note alloc noexec nowrite align=4
	dd 4                    ; name size ("Xen\0")
	dd 8                    ; descriptor size
	dd 18                   ; XEN_ELFNOTE_PHYS32_ENTRY
	db 'Xen', 0
	dq PHYS(pvh_start32)    ; 8 bytes: QEMU 7.2 reads a size_t here

; LARGE_PAGES table, n, shift: entries 0..n-1 of table map page i at
; physical i << shift (present, writable, large), identity from 0.
%macro LARGE_PAGES 3
	xor ecx, ecx
%%next:
	mov eax, ecx
	shl eax, %3
	or eax, 0x83
	mov edx, ecx
	shr edx, 32 - %3                ; bits 32+ of (ecx << shift)
	mov [PHYS(%1) + ecx * 8], eax
	mov [PHYS(%1) + ecx * 8 + 4], edx
	inc ecx
	cmp ecx, %2
	jb %%next
%endmacro

section .text
pvh_start32:
	cli
	cld
	mov esi, ebx                    ; start_info, kept for pvh_main
	rdtsc
	mov [PHYS(pvh_entry_tsc)], eax
	mov [PHYS(pvh_entry_tsc) + 4], edx
	lgdt [PHYS(pvh_gdt_desc)]

	; Zero the tables (QEMU loads .bss zeroed; do not count on it).
	mov edi, PHYS(pvh_tables)
	mov ecx, PVH_TABLE_PAGES * 1024
	xor eax, eax
	rep stosd

	; PML4[0] -> identity PDPT; PML4[511] -> the image's PDPT.
	mov eax, PHYS(pvh_id_pdpt) + 3
	mov [PHYS(pvh_pml4)], eax
	mov eax, PHYS(pvh_k_pdpt) + 3
	mov [PHYS(pvh_pml4) + 511 * 8], eax
	; Identity: 1 GiB pages over the first 512 GiB where the CPU has them
	; (kmem's early allocator takes its page tables from the largest free
	; range, above 4 GiB on a big guest), else 2 MiB pages over 4 GiB.
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .id_2m
	mov eax, 0x80000001
	cpuid
	bt edx, 26                      ; PDPE1GB
	jnc .id_2m
	LARGE_PAGES pvh_id_pdpt, 512, 30        ; 1 GiB each
	jmp .image
.id_2m:
	xor ecx, ecx
.id_pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, PHYS(pvh_id_pd) + 3
	mov [PHYS(pvh_id_pdpt) + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jb .id_pdpt
	LARGE_PAGES pvh_id_pd, 2048, 21         ; 2 MiB each
	; The image: KERNEL_VMA (PML4 511, PDPT 510) -> KERNEL_LMA, 1 GiB of it.
.image:
	mov eax, PHYS(pvh_k_pd) + 3
	mov [PHYS(pvh_k_pdpt) + 510 * 8], eax
	xor ecx, ecx
.k_pd:
	mov eax, ecx
	shl eax, 21
	add eax, KERNEL_LMA
	or eax, 0x83
	mov [PHYS(pvh_k_pd) + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jb .k_pd

	mov eax, cr4
	or eax, 1 << 5                  ; PAE
	mov cr4, eax
	mov eax, PHYS(pvh_pml4)
	mov cr3, eax
	mov ecx, 0xc0000080             ; EFER
	rdmsr
	or eax, 1 << 8                  ; LME
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1       ; PG, WP, PE
	mov cr0, eax
	jmp 0x08:PHYS(pvh_start64)

bits 64
pvh_start64:
	mov eax, 0x10
	mov ds, eax
	mov es, eax
	mov ss, eax
	xor eax, eax
	mov fs, eax
	mov gs, eax
	mov rax, .high
	jmp rax
.high:
	mov rsp, boot_stack_top
	xor ebp, ebp
	push rbp                        ; a zero return address ends backtraces
	mov edi, esi                    ; pvh_main(start_info_phys, entry_tsc)
	mov rsi, [pvh_entry_tsc]
	call pvh_main
.hang:
	cli
	hlt
	jmp .hang

section .data
align 16
pvh_gdt:
	dq 0
	dq 0x00209a0000000000           ; 0x08: 64-bit code
	dq 0x0000920000000000           ; 0x10: data
pvh_gdt_end:
pvh_gdt_desc:
	dw pvh_gdt_end - pvh_gdt - 1
	dd PHYS(pvh_gdt)
align 8
pvh_entry_tsc:
	dq 0

PVH_TABLE_PAGES equ 8
section .bss
alignb 4096
global pvh_pml4
pvh_tables:
pvh_pml4:    resb 4096
pvh_id_pdpt: resb 4096
pvh_id_pd:   resb 4 * 4096
pvh_k_pdpt:  resb 4096
pvh_k_pd:    resb 4096
