/*
 * The text of the /proc files, as pure functions of numbers the caller
 * gathered (procfs.c), so host tests judge the exact Linux shape: field
 * names, order, units (meminfo in kB, vmstat in pages or events), and the
 * path normaliser that turns what a program passed to open() into a
 * name without "." , ".." or repeated slashes.
 *
 * Every formatter writes at most cap bytes (always NUL-terminated when
 * cap > 0) and returns the length the full text needs; the caller sizes
 * its buffer so the two agree (procfs.c checks).
 */
#ifndef PROCFS_TEXT_H
#define PROCFS_TEXT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/* All in 4 KiB pages.  Our kernel has no file-backed page cache: shmem
 * (which Linux also counts under Cached and on the anon lists) is the
 * only "cached" memory, so the file lists are truthfully 0. */
struct procfs_meminfo {
	uint64_t total, free, available;
	uint64_t shmem, swap_cached;
	uint64_t active_anon, inactive_anon;    /* anon + shmem, as Linux counts */
	uint64_t swap_total, swap_free;
	/* The page cache: block-device pages, which Linux shows as Buffers. */
	uint64_t buffers, active_file, inactive_file, dirty, writeback;
	uint64_t commit_limit, committed;       /* overcommit accounting (vm/commit.h) */
};
size_t procfs_meminfo_text(char *buf, size_t cap, const struct procfs_meminfo *m);

/* "name value\n" lines, in the order given. */
size_t procfs_vmstat_text(char *buf, size_t cap, const char *const *names, const uint64_t *vals, int n);

struct procfs_swap {
	const char *dev;                /* "nvme0n1p2": printed as /dev/<dev> */
	uint64_t size_pages, used_pages;
	int prio;
};
size_t procfs_swaps_text(char *buf, size_t cap, const struct procfs_swap *areas, int n);

/* /proc/pressure/memory: Linux's two lines, "some" and "full", each
 * avg10/avg60/avg300 as percent with two decimals (whole, hundredths)
 * and total in microseconds. */
struct procfs_pressure_line {
	unsigned avg[3][2];             /* [10 s, 60 s, 300 s][whole, hundredths] */
	uint64_t total_us;
};
size_t procfs_pressure_text(char *buf, size_t cap, const struct procfs_pressure_line *some,
			    const struct procfs_pressure_line *full);

/* What /proc/self/status and /proc/self/stat show of a task. */
struct procfs_task {
	int pid, ppid, threads;
	const char *name;               /* comm: up to 15 characters shown */
	uint64_t vm_pages, rss_pages, hwm_pages, swap_pages, pt_pages;
	uint64_t minflt, majflt;
	uint64_t utime_ns, stime_ns, start_ns;
	uint64_t nvcsw, nivcsw;
};
size_t procfs_status_text(char *buf, size_t cap, const struct procfs_task *t);
size_t procfs_stat_text(char *buf, size_t cap, const struct procfs_task *t);

/* Normalise an absolute or cwd-relative (cwd is "/") path into out
 * without the leading slash: "/proc//self/./stat" -> "proc/self/stat",
 * "/" -> "".  ".." above the root stays at the root, as Linux does.
 * False when the result would not fit in cap bytes. */
bool procfs_path_norm(const char *in, char *out, size_t cap);

#endif
