/*
 * cpio "newc" archives (`cpio -o -H newc`, the format of Linux's initramfs):
 * the file list of a PVH boot's initrd (kernel/arch/x86_64/pvh.c).
 *
 * Pure: no allocation, the archive is read in place and untrusted (every
 * length is checked against the buffer; tests/fuzz/fuzz_cpio.c).
 */
#ifndef LIB_CPIO_H
#define LIB_CPIO_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

struct cpio_entry {
	const char *name;       /* NUL terminated, inside the archive */
	uint32_t mode;          /* st_mode: type and permission bits */
	const uint8_t *data;    /* size bytes, inside the archive */
	uint64_t size;
	uint64_t offset;        /* of the header, for messages */
};

#define CPIO_S_IFMT  0170000u
#define CPIO_S_IFREG 0100000u

enum cpio_error {
	CPIO_OK = 0,
	CPIO_EMAGIC,            /* a header without "070701" */
	CPIO_EHEX,              /* a header field that is not 8 hex digits */
	CPIO_ENAME,             /* name size 0, or no NUL where it should end */
	CPIO_ETRUNC,            /* a header, name or data past the end */
	CPIO_ENOTRAILER,        /* the archive ends without "TRAILER!!!" */
};

/* Calls fn for every entry before the trailer, in archive order; fn
 * returns false to stop early (cpio_walk then returns CPIO_OK).  On a
 * malformed archive returns the error and sets *err_off to the offset of
 * the header at fault (entries before it were delivered). */
enum cpio_error cpio_walk(const void *buf, uint64_t len, bool (*fn)(void *ctx, const struct cpio_entry *e),
			  void *ctx, uint64_t *err_off);
const char *cpio_strerror(enum cpio_error e);

#endif
