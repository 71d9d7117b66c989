/*
 * wlio.h - what the table and disk workloads (shmdb, stream, mmap001) share:
 * the size-or-percentage argument, the shmdb row format and its checksum,
 * stamped disk blocks, rate pacing, and opening a device or file with a
 * one-line error.
 *
 * Model: every byte these workloads write can be checked later without
 * keeping a copy. A shmdb row carries its own index, version and a checksum
 * over all its other words. A disk block (4 KiB) carries a magic word, its
 * own byte offset on the device and a generation; its other words derive
 * from those, so a block read back from the wrong place, from an older
 * generation, or only partly written is told apart from a good one, and a
 * block no workload wrote (foreign) from a damaged one.
 *
 * The pure parts (parse, row, block, pace, errno names) touch no syscall,
 * so selftest.c tests them on the host under ASan/UBSan.
 */
#ifndef WLIO_H
#define WLIO_H

#include "rt/rt.h"

/* ---- "N" or "P%" arguments ---- */
struct wlio_share {
	uint64_t value;		/* N, or P when percent */
	bool percent;
};

int wlio_parse_share(const char *s, uint64_t max, uint64_t max_pct,
		     struct wlio_share *out);
uint64_t wlio_share_of(const struct wlio_share *s, uint64_t whole);
uint64_t wlio_arg_share(const char *prog, const char *usage, const char *name,
			const char *s, uint64_t max, uint64_t max_pct,
			struct wlio_share *out);

/* ---- shmdb rows: [id, version, balance, checksum, payload...] ---- */
#define WLIO_ROW_ID      0
#define WLIO_ROW_VERSION 1
#define WLIO_ROW_BALANCE 2
#define WLIO_ROW_SUM     3
#define WLIO_ROW_MIN_WORDS 8	/* header plus at least 4 payload words */

enum wlio_row_verdict { WLIO_ROW_OK, WLIO_ROW_BAD_ID, WLIO_ROW_BAD_SUM };

uint64_t wlio_row_sum(const uint64_t *row, size_t words);
void wlio_row_write(uint64_t *row, size_t words, uint64_t id, uint64_t version,
		    uint64_t balance);
enum wlio_row_verdict wlio_row_check(const uint64_t *row, size_t words, uint64_t id);

/* ---- stamped 4 KiB disk blocks ---- */
#define WLIO_BLOCK 4096UL
#define WLIO_BLOCK_WORDS (WLIO_BLOCK / sizeof(uint64_t))
#define WLIO_BLOCK_MAGIC 0x314b4c424f494c57ULL	/* "WLIOBLK1" little-endian */

enum wlio_block_verdict {
	WLIO_BLOCK_OK,		/* ours, intact; *gen says which generation */
	WLIO_BLOCK_FOREIGN,	/* no magic: never written by these workloads */
	WLIO_BLOCK_MISPLACED,	/* ours, but stamped for another offset */
	WLIO_BLOCK_DAMAGED,	/* ours, right place, words not as stamped */
};

void wlio_block_fill(uint64_t *blk, uint64_t off, uint64_t gen);
enum wlio_block_verdict wlio_block_check(const uint64_t *blk, uint64_t off, uint64_t *gen);
const char *wlio_block_verdict_name(enum wlio_block_verdict v);

/* ---- pacing: how long to sleep to hold `rate` bytes/s ---- */
#define WLIO_MAX_RATE (1ULL << 40)	/* bytes/s; keeps the maths in 64 bits */
uint64_t wlio_pace_us(uint64_t bytes, uint64_t rate, uint64_t elapsed_us);

/* ---- /proc text: "name value" (vmstat) or "Name: value kB" (meminfo) ---- */
bool wlio_proc_field(const char *text, const char *name, char sep, uint64_t *out);
/* A small file's text (a /proc file) into buf, NUL-terminated (empty on
 * error): its length, or -errno. */
long wlio_read_text(const char *path, char *buf, size_t cap);

/* ---- errors and devices ---- */
const char *wlio_errno_name(long err);
int wlio_open(const char *prog, const char *path, bool write, uint64_t need_bytes);
long wlio_ram_mib(void);

#define WLIO_SYS_pread64   17
#define WLIO_SYS_pwrite64  18
#define WLIO_SYS_close     3
#define WLIO_SYS_lseek     8
#define WLIO_SYS_fdatasync 75
#define WLIO_SYS_openat    257
#define WLIO_AT_FDCWD (-100)
#define WLIO_O_RDONLY 0
#define WLIO_O_RDWR 2
#define WLIO_MS_SYNC       4
#define WLIO_SEEK_END      2

#endif /* WLIO_H */
