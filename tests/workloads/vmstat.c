/*
 * vmstat.c - `vmstat 1` from inside a workload: samples /proc/vmstat and
 * /proc/meminfo every INTERVAL_MS, COUNT times, and prints one line per
 * sample with the columns seed 002's vmstat showed (swpd, free in KiB;
 * si, so in KiB/s from pswpin/pswpout; bi, bo from pgpgin/pgpgout), plus
 * page faults.  Run it next to a swapping workload (`vmstat 500 10 &
 * hogmem 64 3`); the same binary works on Linux.
 *
 *   vmstat INTERVAL_MS COUNT
 *
 * The record: samples taken, and the counters at the first and the last
 * sample, so a test can hold them against the kernel's own vmstat record.
 * Counters that ever go backwards are mismatches.
 *
 * Exit status: 0 clean, 1 a counter went backwards, 2 bad arguments,
 * 3 /proc could not be read or parsed.
 */
#include "rt/rt.h"
#include "wlio.h"

#define VMSTAT_USAGE "vmstat INTERVAL_MS COUNT"
#define SYS_OPENAT 257
#define SYS_PREAD64 17
#define AT_FDCWD (-100)

enum { V_PSWPIN, V_PSWPOUT, V_PGPGIN, V_PGPGOUT, V_PGFAULT, V_PGMAJFAULT, V_FREE, V_N };
static const char *const vnames[V_N] = {
	"pswpin", "pswpout", "pgpgin", "pgpgout", "pgfault", "pgmajfault", "nr_free_pages",
};

static int open_ro(const char *path)
{
	long fd = rt_syscall3(SYS_OPENAT, AT_FDCWD, (long)path, 0);
	if (fd < 0)
		rt_dprintf(2, "vmstat: cannot open %s: error %ld\n", path, -fd);
	return (int)fd;
}

/* The whole file at offset 0 (pread: the fd stays open across samples,
 * as procps' vmstat keeps it). */
static long slurp(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	for (;;) {
		long n = rt_syscall4(SYS_PREAD64, fd, (long)(buf + len), (long)(cap - 1 - len), (long)len);
		if (n < 0)
			return n;
		if (n == 0 || len + (size_t)n >= cap - 1) {
			len += (size_t)n;
			break;
		}
		len += (size_t)n;
	}
	buf[len] = 0;
	return (long)len;
}

struct sample {
	uint64_t v[V_N];
	uint64_t swpd_kb;
	uint64_t t_ns;
};

static bool take(int vfd, int mfd, struct sample *s)
{
	static char text[8192];
	uint64_t total, free_kb;
	if (slurp(vfd, text, sizeof text) < 0)
		return false;
	for (int i = 0; i < V_N; i++)
		if (!wlio_proc_field(text, vnames[i], ' ', &s->v[i])) {
			rt_dprintf(2, "vmstat: /proc/vmstat has no %s\n", vnames[i]);
			return false;
		}
	if (slurp(mfd, text, sizeof text) < 0 || !wlio_proc_field(text, "SwapTotal", ':', &total) ||
	    !wlio_proc_field(text, "SwapFree", ':', &free_kb)) {
		rt_dprintf(2, "vmstat: /proc/meminfo has no SwapTotal/SwapFree\n");
		return false;
	}
	s->swpd_kb = total - free_kb;
	s->t_ns = rt_now_ns();
	return true;
}

static uint64_t per_s(uint64_t d, uint64_t dt_ns) { return dt_ns ? d * 1000000000ull / dt_ns : 0; }

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 3)
		rt_usage_error(VMSTAT_USAGE, "expected 2 arguments, got %d", argc - 1);
	uint64_t interval = rt_arg_u64("vmstat", VMSTAT_USAGE, "INTERVAL_MS", argv[1], 1, 3600000);
	uint64_t count = rt_arg_u64("vmstat", VMSTAT_USAGE, "COUNT", argv[2], 1, 1000000);
	int vfd = open_ro("/proc/vmstat"), mfd = open_ro("/proc/meminfo");
	struct sample first, prev, cur;
	uint64_t backwards = 0, max_swpd = 0;
	if (vfd < 0 || mfd < 0 || !take(vfd, mfd, &first))
		return 3;
	prev = first;
	max_swpd = first.swpd_kb;
	rt_dprintf(2, "%8s %8s %6s %6s %8s %8s %8s %6s\n", "swpd", "free", "si", "so", "bi", "bo", "flt", "majflt");
	for (uint64_t i = 1; i < count; i++) {
		struct rt_timespec ts = { (int64_t)(interval / 1000), (int64_t)(interval % 1000 * 1000000) };
		rt_nanosleep(&ts, NULL);
		if (!take(vfd, mfd, &cur))
			return 3;
		for (int k = 0; k < V_N; k++)
			backwards += k != V_FREE && cur.v[k] < prev.v[k];
		uint64_t dt = cur.t_ns - prev.t_ns;
		rt_dprintf(2, "%8lu %8lu %6lu %6lu %8lu %8lu %8lu %6lu\n", (unsigned long)cur.swpd_kb,
			   (unsigned long)(cur.v[V_FREE] * 4), (unsigned long)per_s((cur.v[V_PSWPIN] - prev.v[V_PSWPIN]) * 4, dt),
			   (unsigned long)per_s((cur.v[V_PSWPOUT] - prev.v[V_PSWPOUT]) * 4, dt),
			   (unsigned long)per_s(cur.v[V_PGPGIN] - prev.v[V_PGPGIN], dt),
			   (unsigned long)per_s(cur.v[V_PGPGOUT] - prev.v[V_PGPGOUT], dt),
			   (unsigned long)(cur.v[V_PGFAULT] - prev.v[V_PGFAULT]),
			   (unsigned long)(cur.v[V_PGMAJFAULT] - prev.v[V_PGMAJFAULT]));
		prev = cur;
		if (cur.swpd_kb > max_swpd)
			max_swpd = cur.swpd_kb;
	}
	struct rt_json j;
	rt_report_begin(&j, "vmstat");
	rt_json_u64(&j, "samples", count);
	rt_json_u64(&j, "interval_ms", interval);
	for (int k = 0; k < V_N; k++) {
		char key[40];
		rt_snprintf(key, sizeof key, "first_%s", vnames[k]);
		rt_json_u64(&j, key, first.v[k]);
		rt_snprintf(key, sizeof key, "last_%s", vnames[k]);
		rt_json_u64(&j, key, prev.v[k]);
	}
	rt_json_u64(&j, "max_swpd_kb", max_swpd);
	rt_json_u64(&j, "mismatches", backwards);
	return rt_json_end(&j, 1) < 0 ? 3 : backwards ? 1 : 0;
}
