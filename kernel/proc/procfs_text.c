/*
 * /proc text formatters (see procfs_text.h).  The shapes follow Linux's
 * fs/proc/meminfo.c, mm/vmstat.c, mm/swapfile.c (swap_show) and
 * fs/proc/array.c: tools parse these by field name and column, so the
 * spelling, order and units matter more than anything else here.
 */
#include <string.h>
#include "procfs_text.h"
#include "lib/printf.h"

/* An appending writer that keeps counting past cap (for the size check). */
struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->cap ? o->cap - o->len : 0;
	int n = kvsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static size_t done(struct out *o)
{
	if (o->cap)
		o->buf[o->len < o->cap ? o->len : o->cap - 1] = 0;
	return o->len;
}

/* Linux: "%-15s %8lu kB" via show_val_kb (name with colon padded to 16). */
static void kb(struct out *o, const char *name, uint64_t pages)
{
	char label[24];
	ksnprintf(label, sizeof label, "%s:", name);
	put(o, "%-15s %8lu kB\n", label, (unsigned long)(pages * 4));
}

size_t procfs_meminfo_text(char *buf, size_t cap, const struct procfs_meminfo *m)
{
	struct out o = { buf, cap, 0 };
	kb(&o, "MemTotal", m->total);
	kb(&o, "MemFree", m->free);
	kb(&o, "MemAvailable", m->available);
	kb(&o, "Buffers", m->buffers);
	kb(&o, "Cached", m->shmem);
	kb(&o, "SwapCached", m->swap_cached);
	kb(&o, "Active", m->active_anon + m->active_file);
	kb(&o, "Inactive", m->inactive_anon + m->inactive_file);
	kb(&o, "Active(anon)", m->active_anon);
	kb(&o, "Inactive(anon)", m->inactive_anon);
	kb(&o, "Active(file)", m->active_file);
	kb(&o, "Inactive(file)", m->inactive_file);
	kb(&o, "Unevictable", 0);       /* no mlock, no ramfs */
	kb(&o, "Mlocked", 0);
	kb(&o, "SwapTotal", m->swap_total);
	kb(&o, "SwapFree", m->swap_free);
	kb(&o, "Dirty", m->dirty);
	kb(&o, "Writeback", m->writeback);
	kb(&o, "Shmem", m->shmem);
	kb(&o, "CommitLimit", m->commit_limit);
	kb(&o, "Committed_AS", m->committed);
	return done(&o);
}

size_t procfs_vmstat_text(char *buf, size_t cap, const char *const *names, const uint64_t *vals, int n)
{
	struct out o = { buf, cap, 0 };
	for (int i = 0; i < n; i++)
		put(&o, "%s %lu\n", names[i], (unsigned long)vals[i]);
	return done(&o);
}

/* Linux's swap_show: the path padded to 40 columns, then tab-separated
 * columns with an extra tab after short numbers. */
size_t procfs_swaps_text(char *buf, size_t cap, const struct procfs_swap *a, int n)
{
	struct out o = { buf, cap, 0 };
	put(&o, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	for (int i = 0; i < n; i++) {
		char path[64];
		int len = ksnprintf(path, sizeof path, "/dev/%s", a[i].dev);
		unsigned long size = (unsigned long)(a[i].size_pages * 4), used = (unsigned long)(a[i].used_pages * 4);
		put(&o, "%s%*s%s\t%lu\t%s%lu\t%s%d\n", path, len < 40 ? 40 - len : 1, " ", "partition", size,
		    size < 10000000 ? "\t" : "", used, used < 10000000 ? "\t" : "", a[i].prio);
	}
	return done(&o);
}

static void pressure_line(struct out *o, const char *kind, const struct procfs_pressure_line *l)
{
	put(o, "%s avg10=%u.%02u avg60=%u.%02u avg300=%u.%02u total=%llu\n", kind, l->avg[0][0], l->avg[0][1],
	    l->avg[1][0], l->avg[1][1], l->avg[2][0], l->avg[2][1], (unsigned long long)l->total_us);
}

size_t procfs_pressure_text(char *buf, size_t cap, const struct procfs_pressure_line *some,
			    const struct procfs_pressure_line *full)
{
	struct out o = { buf, cap, 0 };
	pressure_line(&o, "some", some);
	pressure_line(&o, "full", full);
	return done(&o);
}

size_t procfs_status_text(char *buf, size_t cap, const struct procfs_task *t)
{
	struct out o = { buf, cap, 0 };
	put(&o, "Name:\t%.15s\n", t->name);
	put(&o, "Umask:\t0022\n");
	put(&o, "State:\tR (running)\n");   /* the reader itself is running */
	put(&o, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", t->pid, t->pid, t->ppid);
	put(&o, "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
	put(&o, "Groups:\t\n");
	put(&o, "VmSize:\t%8lu kB\n", (unsigned long)(t->vm_pages * 4));
	put(&o, "VmHWM:\t%8lu kB\n", (unsigned long)(t->hwm_pages * 4));
	put(&o, "VmRSS:\t%8lu kB\n", (unsigned long)(t->rss_pages * 4));
	put(&o, "VmPTE:\t%8lu kB\n", (unsigned long)(t->pt_pages * 4));
	put(&o, "VmSwap:\t%8lu kB\n", (unsigned long)(t->swap_pages * 4));
	put(&o, "Threads:\t%d\n", t->threads);
	put(&o, "voluntary_ctxt_switches:\t%lu\n", (unsigned long)t->nvcsw);
	put(&o, "nonvoluntary_ctxt_switches:\t%lu\n", (unsigned long)t->nivcsw);
	return done(&o);
}

/* Clock ticks at USER_HZ (100), as times(2) and /proc/PID/stat count. */
static unsigned long ticks(uint64_t ns) { return (unsigned long)(ns / 10000000ull); }

/* fs/proc/array.c do_task_stat: 52 fields.  Those we do not track are 0,
 * as Linux shows them for a task without that feature (no tty, no
 * children, no real-time priority, no signals pending). */
size_t procfs_stat_text(char *buf, size_t cap, const struct procfs_task *t)
{
	struct out o = { buf, cap, 0 };
	put(&o, "%d (%.15s) R %d %d %d 0 -1 4194560 ", t->pid, t->name, t->ppid, t->pid, t->pid);
	put(&o, "%lu 0 %lu 0 %lu %lu 0 0 20 0 %d 0 %lu ", (unsigned long)t->minflt, (unsigned long)t->majflt,
	    ticks(t->utime_ns), ticks(t->stime_ns), t->threads, ticks(t->start_ns));
	put(&o, "%lu %lu 18446744073709551615 ", (unsigned long)(t->vm_pages * 4096), (unsigned long)t->rss_pages);
	/* startcode .. kstkeip: 0, as Linux shows them to other readers; then
	 * signals, wchan, nswap, cnswap, exit_signal, processor, rt_priority,
	 * policy, delayacct, guest times, data/brk/arg/env bounds, exit code. */
	put(&o, "0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	return done(&o);
}

bool procfs_path_norm(const char *in, char *out, size_t cap)
{
	size_t len = 0;
	if (!cap)
		return false;
	while (*in) {
		while (*in == '/')
			in++;
		const char *c = in;
		while (*in && *in != '/')
			in++;
		size_t n = (size_t)(in - c);
		if (!n || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (len && out[len - 1] != '/')
				len--;
			if (len)
				len--;          /* the slash before the dropped component */
			continue;
		}
		size_t need = (len ? 1 : 0) + n;
		if (len + need >= cap)
			return false;
		if (len)
			out[len++] = '/';
		memcpy(out + len, c, n);
		len += n;
	}
	out[len] = 0;
	return true;
}
