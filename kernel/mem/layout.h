/*
 * The kernel's virtual memory map (4-level paging, 48-bit addresses).
 *
 *   0x0000000000000000 .. 0x00007fffffffffff  user space (128 TiB), per process
 *   0xffff800000000000 .. 0xffffbfffffffffff  direct map of physical RAM (64 TiB),
 *                                             phys P at DIRECT_MAP + P, NX, 1 GiB/2 MiB
 *                                             pages where alignment allows
 *   0xffffc00000000000 .. 0xffffc07fffffffff  kernel stacks, each with an unmapped
 *                                             guard page below it (512 GiB)
 *   0xffffd00000000000 .. 0xffffd07fffffffff  MMIO and other ioremap mappings (512 GiB)
 *   0xffffffff80000000 .. 0xffffffffbfffffff  the kernel image (-mcmodel=kernel)
 *
 * PML4 slots 256..511 form the kernel half.  Every PML4 entry the kernel
 * half will ever use is created at boot (kmem_init), so each process's
 * page tables can copy those entries once and stay in sync forever.
 */
#ifndef LAYOUT_H
#define LAYOUT_H

#define USER_TOP        0x0000800000000000ul
#define DIRECT_MAP      0xffff800000000000ul
#define DIRECT_MAP_SIZE 0x0000400000000000ul
#define KSTACK_BASE     0xffffc00000000000ul
#define KSTACK_AREA_SIZE 0x0000008000000000ul
#define IOMAP_BASE      0xffffd00000000000ul
#define IOMAP_SIZE      0x0000008000000000ul
#define KERNEL_VMA      0xffffffff80000000ul

/* Section boundaries defined by linker.ld. */
extern char _kernel_start[], _kernel_end[];
extern char _text_start[], _text_end[];
extern char _rodata_start[], _rodata_end[];
extern char _data_start[], _data_end[];
extern char _extable_start[], _extable_end[];

#endif
