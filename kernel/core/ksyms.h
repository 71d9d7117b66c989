/*
 * The kernel's own symbol table, embedded at build time (see Makefile and
 * tools/gen-ksyms.py), for symbolic backtraces.  Text symbols only.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint32_t name;          /* offset into ksyms_names */
	uint32_t size;
};

extern const struct ksym ksyms_table[];
extern const char ksyms_names[];
extern const uint32_t ksyms_count;

/* Name of the function containing addr and the offset into it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);
/* Index into ksyms_table of the function containing addr, or -1. */
int64_t ksym_index(uint64_t addr);

#endif
