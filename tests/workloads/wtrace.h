/*
 * wtrace.h - the page-access trace of a workload (MM_TRACE=FILE).
 *
 * With MM_TRACE=FILE in the environment a workload writes, besides its
 * normal output, the sequence of pages its memory loops access, in order,
 * to FILE; tools/min replays it through Belady's MIN and LRU (README,
 * "The optimum: tools/min"). Without MM_TRACE nothing changes: the hooks
 * are one test of a global flag. The trace is a host feature (it needs
 * openat(2), which our kernel does not serve): on our kernel MM_TRACE is
 * never set, and if it were, wtrace_init would fail with ENOSYS.
 *
 * What is traced: every access of the workload's own data regions (touch's
 * and threads' vpage pages, hogmem's sweeps, fill's chunks), as virtual page
 * numbers (address >> 12), so several mappings share one number space. Not
 * traced: the program's text, stack and bookkeeping (vpage's counters, fill's
 * chunk table) - a few dozen pages. A run of accesses to the same page is
 * one entry: it costs no policy a fault after the first.
 *
 * Format (tools/mmtools/min.py reads it):
 *   "MMTRACE1"                        8 bytes of magic
 *   per entry: zigzag varint of (page - previous page), previous starting
 *              at 0; never 0, since runs are collapsed
 *   0x00 0x01 varint page, varint n   an unmap of n pages from page: the
 *              numbers may come back as other memory (a thread's region
 *              mapped after another thread's went); previous is 0 again
 *   0x00 0x00                         end of entries
 *   entries, little-endian u64        what was written, to catch a cut file
 *
 * Threads: every thread appends to the one trace under a spinlock, so the
 * trace holds the interleaving this run happened to have.
 */
#ifndef WTRACE_H
#define WTRACE_H

#include "rt/rt.h"

extern bool wtrace_on;		/* set once by wtrace_init, read-only after */

/* Opens MM_TRACE's file if the variable is set. Returns 0 (also when
 * it is not set), or -errno after one line on stderr naming prog and file. */
int wtrace_init(const char *prog, char **envp);

/* Appends the page of p. Any thread; spins on a lock. */
void wtrace_page_slow(const void *p);

static inline void wtrace_page(const void *p)
{
	if (__builtin_expect(wtrace_on, 0))
		wtrace_page_slow(p);
}

/* Records that [p, p + len) is unmapped (a no-op without a trace). */
void wtrace_unmap(const void *p, size_t len);

/* Writes the end marker and closes. Returns 0 or -errno (said on stderr). */
int wtrace_finish(void);

#endif /* WTRACE_H */
