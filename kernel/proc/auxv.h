/*
 * The initial user stack of a new process, laid out as Linux lays it out
 * (fs/exec.c and create_elf_tables in fs/binfmt_elf.c), so a static libc's
 * _start finds what it expects.  Pure: writes into a caller-supplied byte
 * buffer that stands for the top of the stack region, whose end is user
 * address top_uva.  From the top down:
 *
 *   top_uva - 8      8 zero bytes (Linux's end marker)
 *                    argv strings, envp strings, execfn: ascending, so
 *                    argv[0] lowest; aligned down to 16 below them
 *                    platform string ("x86_64"), then AT_RANDOM's 16 bytes
 *                    (padding so that rsp % 16 == 0)
 *                    auxv pairs ... AT_NULL, 0
 *                    envp[0..envc-1], NULL
 *                    argv[0..argc-1], NULL
 *   rsp ->           argc
 *
 * The builder appends AT_RANDOM, AT_EXECFN (when execfn is given),
 * AT_PLATFORM (when platform is given) and AT_NULL to the caller's auxv
 * list, each pointing at the bytes it placed.
 */
#ifndef AUXV_H
#define AUXV_H

#include <stdint.h>
#include <stddef.h>

/* Auxiliary vector types (Linux include/uapi/linux/auxvec.h). */
#define AT_NULL         0
#define AT_IGNORE       1
#define AT_EXECFD       2
#define AT_PHDR         3
#define AT_PHENT        4
#define AT_PHNUM        5
#define AT_PAGESZ       6
#define AT_BASE         7
#define AT_FLAGS        8
#define AT_ENTRY        9
#define AT_NOTELF       10
#define AT_UID          11
#define AT_EUID         12
#define AT_GID          13
#define AT_EGID         14
#define AT_PLATFORM     15
#define AT_HWCAP        16
#define AT_CLKTCK       17
#define AT_SECURE       23
#define AT_BASE_PLATFORM 24
#define AT_RANDOM       25
#define AT_HWCAP2       26
#define AT_EXECFN       31
#define AT_SYSINFO_EHDR 33
#define AT_MINSIGSTKSZ  51

enum auxv_err {
	AUXV_OK = 0,
	AUXV_E2BIG = -1,        /* does not fit in the buffer */
	AUXV_EINVAL = -2,       /* negative count, NULL string or random, top_uva below the buffer size */
	AUXV_ERESERVED = -3,    /* the auxv list holds AT_NULL, AT_RANDOM, AT_EXECFN or AT_PLATFORM */
};

struct auxv_pair {
	uint64_t type, value;
};

struct auxv_args {
	int argc;
	const char *const *argv;        /* argc strings */
	int envc;
	const char *const *envp;        /* envc strings */
	const struct auxv_pair *auxv;   /* nauxv entries, without AT_NULL */
	int nauxv;
	const uint8_t *random;          /* 16 bytes for AT_RANDOM */
	const char *platform;           /* AT_PLATFORM string ("x86_64"), or NULL */
	const char *execfn;             /* AT_EXECFN string (the path run), or NULL */
};

/*
 * Build the stack in buf[0..size), which user space will see at
 * [top_uva - size, top_uva).  On success stores the user rsp (16-byte
 * aligned, pointing at argc) in *rsp and returns 0; bytes of buf below
 * rsp are untouched.  Returns a negative enum auxv_err otherwise.
 */
int auxv_build_stack(const struct auxv_args *a, void *buf, size_t size, uint64_t top_uva, uint64_t *rsp);
const char *auxv_strerror(int err);

#endif
