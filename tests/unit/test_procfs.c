/*
 * /proc text formatters and the path normaliser (kernel/proc/procfs_text.c):
 * the exact Linux shapes tools parse (field names, padding, units, column
 * counts), reading the text back the way free(1), vmstat(8) and swapon -s do.
 */
#include <stdlib.h>
#include "test.h"
#include "proc/procfs_text.h"

/* The value of "Name:  N kB" in meminfo text, or -1. */
static long long meminfo_kb(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		if (!strncmp(l, name, n) && l[n] == ':') {
			char *end;
			long long v = strtoll(l + n + 1, &end, 10);
			return strncmp(end, " kB\n", 4) ? -2 : v;
		}
		if (!strchr(l, '\n'))
			break;
	}
	return -1;
}

TEST(procfs_meminfo_linux_shape)
{
	struct procfs_meminfo m = { .total = 4075964, .free = 1000, .available = 900, .shmem = 7,
				    .swap_cached = 3, .active_anon = 11, .inactive_anon = 13,
				    .swap_total = 524287, .swap_free = 524000, .commit_limit = 1000, .committed = 17 };
	char buf[2048];
	size_t n = procfs_meminfo_text(buf, sizeof buf, &m);
	CHECK_EQ(n, strlen(buf));
	/* Byte for byte as Linux's show_val_kb pads it. */
	CHECK(!strncmp(buf, "MemTotal:       16303856 kB\nMemFree:            4000 kB\n", 55));
	CHECK_CONTAINS(buf, "\nInactive(anon):       52 kB\n");
	CHECK_EQ(meminfo_kb(buf, "MemAvailable"), 3600);
	CHECK_EQ(meminfo_kb(buf, "Cached"), 28);
	CHECK_EQ(meminfo_kb(buf, "Shmem"), 28);
	CHECK_EQ(meminfo_kb(buf, "SwapCached"), 12);
	CHECK_EQ(meminfo_kb(buf, "Active"), 44);
	CHECK_EQ(meminfo_kb(buf, "Inactive"), 52);
	CHECK_EQ(meminfo_kb(buf, "Active(file)"), 0);
	CHECK_EQ(meminfo_kb(buf, "SwapTotal"), 2097148);
	CHECK_EQ(meminfo_kb(buf, "SwapFree"), 2096000);
	CHECK_EQ(meminfo_kb(buf, "Buffers"), 0);
	CHECK_EQ(meminfo_kb(buf, "CommitLimit"), 4000);
	CHECK_EQ(meminfo_kb(buf, "Committed_AS"), 68);
	/* Block-device cache pages are Linux's Buffers; file LRU sizes add
	 * to Active/Inactive. */
	m.buffers = 100;
	m.active_file = 60;
	m.inactive_file = 40;
	m.dirty = 5;
	m.writeback = 2;
	procfs_meminfo_text(buf, sizeof buf, &m);
	CHECK_EQ(meminfo_kb(buf, "Buffers"), 400);
	CHECK_EQ(meminfo_kb(buf, "Active"), 44 + 240);
	CHECK_EQ(meminfo_kb(buf, "Inactive(file)"), 160);
	CHECK_EQ(meminfo_kb(buf, "Dirty"), 20);
	CHECK_EQ(meminfo_kb(buf, "Writeback"), 8);
	CHECK_EQ(meminfo_kb(buf, "Cached"), 28);
	/* Every line is "Name: N kB". */
	int lines = 0;
	for (const char *l = buf; *l; l = strchr(l, '\n') + 1, lines++)
		CHECK(strchr(l, ':') && strstr(l, " kB\n") && strchr(l, ':') < strstr(l, " kB\n"));
	CHECK_EQ(lines, 21);
}

TEST(procfs_text_truncates_but_counts)
{
	struct procfs_meminfo m = { .total = 1 };
	char full[2048], small[40];
	size_t n = procfs_meminfo_text(full, sizeof full, &m);
	size_t k = procfs_meminfo_text(small, sizeof small, &m);
	CHECK_EQ(k, n);                 /* the length the whole text needs */
	CHECK_EQ(strlen(small), sizeof small - 1);
	CHECK(!strncmp(small, full, sizeof small - 1));
	CHECK_EQ(procfs_meminfo_text(NULL, 0, &m), n);
}

TEST(procfs_vmstat_lines)
{
	const char *names[] = { "nr_free_pages", "pgfault", "pswpin" };
	uint64_t vals[] = { 60951, 18446744073709551615ull, 0 };
	char buf[256];
	procfs_vmstat_text(buf, sizeof buf, names, vals, 3);
	CHECK_STR(buf, "nr_free_pages 60951\npgfault 18446744073709551615\npswpin 0\n");
}

TEST(procfs_swaps_linux_columns)
{
	struct procfs_swap a[] = { { "sda2", 524287, 0, -2 }, { "nvme0n1p3", 2621440 * 2, 2621440, 5 } };
	char buf[512];
	procfs_swaps_text(buf, sizeof buf, a, 2);
	const char *want =
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/dev/sda2                               partition\t2097148\t\t0\t\t-2\n"
		"/dev/nvme0n1p3                          partition\t20971520\t10485760\t5\n";
	CHECK_STR(buf, want);
	procfs_swaps_text(buf, sizeof buf, a, 0);
	CHECK_STR(buf, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
}

static const struct procfs_task task = {
	.pid = 10, .ppid = 1, .threads = 3, .name = "a-very-long-program-name",
	.vm_pages = 2574, .rss_pages = 492, .hwm_pages = 500, .swap_pages = 7, .pt_pages = 3, .minflt = 30, .majflt = 2,
	.utime_ns = 1234567890, .stime_ns = 20000000, .start_ns = 490000000, .nvcsw = 4, .nivcsw = 5,
};

TEST(procfs_status_fields)
{
	char buf[1024];
	procfs_status_text(buf, sizeof buf, &task);
	CHECK(!strncmp(buf, "Name:\ta-very-long-pro\n", 21));   /* comm: 15 characters */
	CHECK_CONTAINS(buf, "\nPid:\t10\nPPid:\t1\n");
	CHECK_CONTAINS(buf, "\nUid:\t0\t0\t0\t0\n");
	CHECK_CONTAINS(buf, "\nVmSize:\t   10296 kB\n");
	CHECK_CONTAINS(buf, "\nVmRSS:\t    1968 kB\nVmPTE:\t      12 kB\nVmSwap:\t      28 kB\n");
	CHECK_CONTAINS(buf, "\nVmHWM:\t    2000 kB\n");
	CHECK_CONTAINS(buf, "\nThreads:\t3\n");
	CHECK_CONTAINS(buf, "\nnonvoluntary_ctxt_switches:\t5\n");
}

TEST(procfs_stat_52_fields)
{
	char buf[1024];
	procfs_stat_text(buf, sizeof buf, &task);
	CHECK(!strncmp(buf, "10 (a-very-long-pro) R 1 ", 25));
	/* After the ")" come fields 3..52, as proc(5) numbers them. */
	const char *p = strrchr(buf, ')') + 2;
	char *f[64];
	int n = 0;
	char copy[1024];
	strcpy(copy, p);
	for (char *t = strtok(copy, " \n"); t && n < 64; t = strtok(NULL, " \n"))
		f[n++] = t;
	CHECK_EQ(n, 50);
	CHECK_STR(f[10 - 3], "30");             /* minflt */
	CHECK_STR(f[12 - 3], "2");              /* majflt */
	CHECK_STR(f[14 - 3], "123");            /* utime, 100 Hz ticks */
	CHECK_STR(f[15 - 3], "2");              /* stime */
	CHECK_STR(f[20 - 3], "3");              /* num_threads */
	CHECK_STR(f[22 - 3], "49");             /* starttime */
	CHECK_STR(f[23 - 3], "10543104");       /* vsize, bytes */
	CHECK_STR(f[24 - 3], "492");            /* rss, pages */
	CHECK_STR(f[38 - 3], "17");             /* exit_signal SIGCHLD */
}

static const char *norm(const char *in, size_t cap)
{
	static char out[256];
	return procfs_path_norm(in, out, cap) ? out : "<too long>";
}

TEST(procfs_path_normalises)
{
	CHECK_STR(norm("/proc//self/./stat", 64), "proc/self/stat");
	CHECK_STR(norm("/", 64), "");
	CHECK_STR(norm("", 64), "");
	CHECK_STR(norm("//..//../proc/meminfo/", 64), "proc/meminfo");
	CHECK_STR(norm("/proc/self/../meminfo", 64), "proc/meminfo");
	CHECK_STR(norm("proc/a/b/../../vmstat", 64), "proc/vmstat");
	CHECK_STR(norm("/bin/.../x", 64), "bin/.../x");
	CHECK_STR(norm("/.hidden/..x", 64), ".hidden/..x");
	CHECK_STR(norm("/proc/meminfo", 13), "proc/meminfo");
	CHECK_STR(norm("/proc/meminfo", 12), "<too long>");
	CHECK_STR(norm("/a", 1), "<too long>");
	char out[4];
	CHECK(!procfs_path_norm("/x", out, 0));
}
