/*
 * The results file's layout, as pure logic (results.c does the I/O).
 *
 * The file is a fixed number of bytes (a multiple of the block size) in
 * runs of disk blocks.  It holds record lines from its start, then one
 * trailer record {"type":"results_file",...} saying how many bytes of
 * records precede it, then newlines to its end: valid JSONL at every
 * moment.  Each write rewrites the block holding the end of the records
 * so far (its head bytes are kept in the stage buffer) and goes on with
 * new lines, the trailer and newline padding to a block boundary; so a
 * write never touches a byte of an earlier record except to write the
 * same byte again.
 *
 *   rlog_prepare(&l, take, ctx, final, &w);   // fills l.stage[0..w.len)
 *   write w.len bytes of l.stage at file offset w.base (rlog_map)
 *   rlog_commit(&l, &w);                      // only when the write worked
 */
#ifndef RESULTS_LOG_H
#define RESULTS_LOG_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "boot/boot_info.h"

#define RLOG_TRAILER_MAX 256

/* Move whole lines, at most cap bytes, to dst; *more: lines remain. */
typedef size_t (*rlog_take_fn)(void *ctx, char *dst, size_t cap, bool *more);

struct rlog {
	/* Set by the caller. */
	uint64_t file_bytes;    /* a multiple of bs */
	uint32_t bs;            /* block size, a power of two */
	char *stage;            /* stage_cap bytes, >= bs + RLOG_TRAILER_MAX */
	size_t stage_cap;
	const char *name;       /* for the trailer */
	uint64_t lost;          /* for the trailer: records never kept */
	/* Kept by rlog_commit. */
	uint64_t off;           /* bytes of records in the file */
	size_t head;            /* off % bs: stage[0..head) holds them */
};

struct rlog_write {
	uint64_t base;          /* file offset, a multiple of bs */
	size_t len;             /* bytes of stage to write, a multiple of bs */
	size_t taken;           /* record bytes in it that are new */
	bool more;              /* lines remain to be taken */
};

enum { RLOG_FULL = -1 };

/* One write's worth: as many lines as fit in the stage and in the file
 * (leaving room for the trailer).  Returns 0, or RLOG_FULL when lines
 * remain but none fits. */
int rlog_prepare(struct rlog *l, rlog_take_fn take, void *ctx, bool final, struct rlog_write *w);
/* The write is on disk: advance past its records. */
void rlog_commit(struct rlog *l, const struct rlog_write *w);
/* The disk block of file offset off, and the bytes from off to the end
 * of its run (0: off is past the file). */
uint64_t rlog_map(const struct boot_extent *runs, int nruns, uint32_t bs, uint64_t off, uint64_t *run_left);

#endif
