/*
 * Loading a static x86-64 ELF program into a fresh address space and
 * building its initial stack (argv, envp, auxv) as Linux does.
 */
#ifndef EXEC_H
#define EXEC_H

#include <stdint.h>
#include <stddef.h>

struct mm;

#define EXEC_MAX_ARGS 64

struct exec_image {
	uint64_t entry;         /* initial rip */
	uint64_t rsp;           /* initial rsp (points at argc) */
	uint64_t brk;           /* end of the highest segment, page aligned */
};

/* On failure returns a negative errno and writes a one-line reason naming
 * the file into err.  The mm may then hold partial mappings: discard it. */
int exec_load(struct mm *mm, const char *path, const void *img, uint64_t size, int argc,
	      const char *const *argv, struct exec_image *out, char *err, size_t errlen);

/* Split "prog a b" into argv (at most max); quotes group words.  Writes
 * the strings into buf.  Returns argc, or -1 when it does not fit. */
int exec_split_args(const char *cmdline, char *buf, size_t buflen, const char **argv, int max);

#endif
