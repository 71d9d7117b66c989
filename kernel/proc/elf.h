/*
 * Validation of static x86-64 ELF executables (ET_EXEC and static-PIE
 * ET_DYN) for the workload loader.  Pure: takes the whole file as a byte
 * buffer, reads nothing outside it, and fills a summary the loader acts on
 * without looking at the ELF structures again.  The struct layouts are our
 * own (no <elf.h>: the kernel has no libc); field offsets follow the
 * System V ABI, x86-64 supplement.
 *
 * The rules are Linux's (fs/binfmt_elf.c) where Linux has one, written out:
 * see elf.c for the list.  Loader contract, once elf_check returned 0:
 *  - map every load[i]: bytes [offset, offset+filesz) of the file at
 *    vaddr (+ bias), zeros up to vaddr+memsz;
 *  - load[] is sorted by address and byte ranges never overlap, but a
 *    segment may share its first page with the end of the one before
 *    (musl's RW segment starts mid-page right after the read-only data):
 *    copy both into the one frame and give the page the union of their
 *    protections;
 *  - for is_pie pick a bias that is a multiple of max_align with
 *    lo + bias >= 64 KiB and hi + bias <= ELF_USER_TOP; add it to entry,
 *    phdr_vaddr, tls_vaddr and every vaddr.
 */
#ifndef ELF_H
#define ELF_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define ELF_PAGE        4096ull
#define ELF_USER_TOP    0x00007ffffffff000ull   /* below the last page under 2^47 (vm.h's USER_MAP_TOP) */
#define ELF_MIN_VADDR   0x10000ull              /* Linux's default mmap_min_addr */
#define ELF_EHDR_SIZE   64
#define ELF_PHDR_SIZE   56
#define ELF_MAX_PHNUM   (4096 / ELF_PHDR_SIZE)  /* Linux: the table must fit in a page */
#define ELF_MAX_LOAD    16

#define ELF_PROT_R      1
#define ELF_PROT_W      2
#define ELF_PROT_X      4

enum elf_err {
	ELF_OK = 0,
	ELF_ETRUNC = -1,        /* shorter than an ELF header */
	ELF_EMAGIC = -2,        /* not an ELF file */
	ELF_ECLASS = -3,        /* not ELF64 */
	ELF_EDATA = -4,         /* not little-endian */
	ELF_EVERSION = -5,      /* ELF version is not 1 */
	ELF_ETYPE = -6,         /* neither ET_EXEC nor ET_DYN */
	ELF_EMACHINE = -7,      /* not x86-64 */
	ELF_EPHENT = -8,        /* e_phentsize is not 56 */
	ELF_EPHNUM = -9,        /* no program headers, or more than fit in a page */
	ELF_EPHOFF = -10,       /* program header table outside the file */
	ELF_EINTERP = -11,      /* PT_INTERP: dynamically linked */
	ELF_ESEGFILE = -12,     /* PT_LOAD file bytes outside the file */
	ELF_ESEGSIZE = -13,     /* PT_LOAD p_memsz < p_filesz */
	ELF_ESEGADDR = -14,     /* PT_LOAD address range wraps or reaches ELF_USER_TOP */
	ELF_ESEGALIGN = -15,    /* PT_LOAD p_align not 0, 1 or a power of two */
	ELF_ESEGOFF = -16,      /* PT_LOAD p_vaddr and p_offset differ modulo the page size */
	ELF_ESEGLOW = -17,      /* ET_EXEC PT_LOAD below ELF_MIN_VADDR */
	ELF_EOVERLAP = -18,     /* two PT_LOAD segments overlap in memory */
	ELF_ENOLOAD = -19,      /* no nonempty PT_LOAD segment */
	ELF_ETOOMANY = -20,     /* more than ELF_MAX_LOAD PT_LOAD segments */
	ELF_EENTRY = -21,       /* entry point not in an executable segment */
	ELF_ETLS = -22,         /* bad or second PT_TLS */
	ELF_EPHDR = -23,        /* PT_PHDR not inside a PT_LOAD */
	ELF_EORDER = -24,       /* PT_LOADs not in ascending address order */
};

struct elf_seg {
	uint64_t vaddr, memsz;  /* memory [vaddr, vaddr+memsz), before the bias */
	uint64_t offset, filesz;        /* file bytes copied to vaddr; rest zero */
	uint64_t align;         /* p_align */
	uint32_t prot;          /* ELF_PROT_* from p_flags */
};

struct elf_info {
	bool is_pie;            /* ET_DYN: needs a load bias */
	uint64_t entry;         /* e_entry, before the bias */
	int nload;
	struct elf_seg load[ELF_MAX_LOAD];      /* nonempty PT_LOADs, ascending: each starts
						 * at or after the end of the one before */
	uint64_t lo, hi;        /* page-rounded [lo, hi) covering every PT_LOAD */
	uint64_t span;          /* hi - lo: address space the image needs */
	uint64_t max_align;     /* largest PT_LOAD p_align, at least ELF_PAGE */
	uint64_t phoff;         /* e_phoff */
	uint16_t phnum;         /* e_phnum (AT_PHNUM) */
	uint64_t phdr_vaddr;    /* program headers in memory (AT_PHDR, + bias); 0: not loaded */
	bool has_tls;
	uint64_t tls_vaddr, tls_filesz, tls_memsz, tls_align;
	bool has_gnu_stack;     /* PT_GNU_STACK present */
	bool exec_stack;        /* PT_GNU_STACK asks for an executable stack */
	bool wx;                /* some page would be both writable and executable */
};

/* Check img (size bytes) and summarise it in *out.  Returns 0 or a
 * negative enum elf_err; elf_strerror gives the one-line reason. */
int elf_check(const void *img, size_t size, struct elf_info *out);
const char *elf_strerror(int err);

#endif
