/*
 * Symbols defined in entry.asm.
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stdint.h>

extern const uint64_t isr_table[256];   /* one stub per vector */
extern char boot_stack_guard[], boot_stack_top[];
extern char df_stack_guard[], df_stack_top[];
extern char nmi_stack_guard[], nmi_stack_top[];
extern char mc_stack_guard[], mc_stack_top[];

#endif
