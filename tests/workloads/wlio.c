/*
 * wlio.c - the parts shmdb, stream and mmap001 share (model: wlio.h).
 *
 * Everything above "devices" is pure and host-tested by selftest.c; the
 * device part is the one place these workloads open what they write, so its
 * errors are written once: one line naming the syscall, the path and the
 * errno by name (our kernel today has no block-device files, and a run
 * there must say exactly that).
 */
#include "wlio.h"

#define WLIO_GOLDEN 0x9E3779B97F4A7C15ULL
#define WLIO_ROW_SEED 0x243F6A8885A308D3ULL

/* ------------------------------------------------------------ arguments */

/*
 * "N" (1..max) or "P%" (1..max_pct). Returns 0, -RT_EINVAL when s is not
 * of either form, -RT_ERANGE when the number is out of its range.
 */
int wlio_parse_share(const char *s, uint64_t max, uint64_t max_pct,
		     struct wlio_share *out)
{
	char num[24];
	size_t n = rt_strlen(s);
	bool pct = n > 0 && s[n - 1] == '%';

	if (pct) {
		if (n - 1 >= sizeof(num) || max_pct == 0)
			return -RT_EINVAL;
		rt_memcpy(num, s, n - 1);
		num[n - 1] = '\0';
		s = num;
	}
	int err = rt_parse_u64_range(s, 1, pct ? max_pct : max, &out->value);
	if (err < 0)
		return err;
	out->percent = pct;
	return 0;
}

/* The share of `whole` (rounded down), or the plain value. */
uint64_t wlio_share_of(const struct wlio_share *s, uint64_t whole)
{
	if (!s->percent)
		return s->value;
	/* whole <= 2^44 MiB-or-MB units in practice; split to stay in 64 bits. */
	return whole / 100 * s->value + whole % 100 * s->value / 100;
}

/* wlio_parse_share or a usage error (exit 2) naming the argument. */
uint64_t wlio_arg_share(const char *prog, const char *usage, const char *name,
			const char *s, uint64_t max, uint64_t max_pct,
			struct wlio_share *out)
{
	int err = wlio_parse_share(s, max, max_pct, out);

	if (err == -RT_EINVAL)
		rt_usage_error(usage, "%s: bad %s '%s': not a number or a percentage",
			       prog, name, s);
	if (err < 0)
		rt_usage_error(usage, "%s: bad %s '%s': must be 1..%llu or 1%%..%llu%%",
			       prog, name, s, (unsigned long long)max,
			       (unsigned long long)max_pct);
	return out->value;
}

/* ------------------------------------------------------------ rows */

/* Over every word but the checksum itself, chained so order matters. */
uint64_t wlio_row_sum(const uint64_t *row, size_t words)
{
	uint64_t h = WLIO_ROW_SEED;

	for (size_t i = 0; i < words; i++)
		if (i != WLIO_ROW_SUM)
			h = rt_mix64(h ^ row[i]);
	return h;
}

/* A whole row as a database write would leave it: payload from id and
 * version, so every update rewrites every word. */
void wlio_row_write(uint64_t *row, size_t words, uint64_t id, uint64_t version,
		    uint64_t balance)
{
	uint64_t base = rt_mix64(id ^ (version * WLIO_GOLDEN));

	row[WLIO_ROW_ID] = id;
	row[WLIO_ROW_VERSION] = version;
	row[WLIO_ROW_BALANCE] = balance;
	for (size_t i = WLIO_ROW_SUM + 1; i < words; i++)
		row[i] = base + i;
	row[WLIO_ROW_SUM] = wlio_row_sum(row, words);
}

enum wlio_row_verdict wlio_row_check(const uint64_t *row, size_t words, uint64_t id)
{
	if (row[WLIO_ROW_ID] != id)
		return WLIO_ROW_BAD_ID;
	return row[WLIO_ROW_SUM] == wlio_row_sum(row, words) ? WLIO_ROW_OK : WLIO_ROW_BAD_SUM;
}

/* ------------------------------------------------------------ blocks */

static uint64_t wlio_block_base(uint64_t off, uint64_t gen)
{
	return rt_mix64(off ^ rt_mix64(gen));
}

void wlio_block_fill(uint64_t *blk, uint64_t off, uint64_t gen)
{
	uint64_t base = wlio_block_base(off, gen);

	blk[0] = WLIO_BLOCK_MAGIC;
	blk[1] = off;
	blk[2] = gen;
	for (size_t i = 3; i < WLIO_BLOCK_WORDS; i++)
		blk[i] = base + i * WLIO_GOLDEN;
}

/* The verdict on a block read at byte offset off; *gen its generation
 * when the verdict is OK (or DAMAGED: the generation it claims). */
enum wlio_block_verdict wlio_block_check(const uint64_t *blk, uint64_t off, uint64_t *gen)
{
	if (blk[0] != WLIO_BLOCK_MAGIC)
		return WLIO_BLOCK_FOREIGN;
	if (blk[1] != off)
		return WLIO_BLOCK_MISPLACED;
	*gen = blk[2];
	uint64_t base = wlio_block_base(off, blk[2]);
	for (size_t i = 3; i < WLIO_BLOCK_WORDS; i++)
		if (blk[i] != base + i * WLIO_GOLDEN)
			return WLIO_BLOCK_DAMAGED;
	return WLIO_BLOCK_OK;
}

const char *wlio_block_verdict_name(enum wlio_block_verdict v)
{
	static const char *const names[] = { "ok", "foreign", "misplaced", "damaged" };

	return (unsigned)v < 4 ? names[v] : "?";
}

/* ------------------------------------------------------------ pacing */

/*
 * Microseconds to sleep so that `bytes` moved since the pace started
 * (elapsed_us ago) do not exceed `rate` bytes/s; 0 when behind or rate 0.
 * rate <= WLIO_MAX_RATE (2^40) keeps (bytes % rate) * 10^6 below 2^60.
 */
uint64_t wlio_pace_us(uint64_t bytes, uint64_t rate, uint64_t elapsed_us)
{
	if (rate == 0)
		return 0;
	uint64_t due = bytes / rate * 1000000ULL + bytes % rate * 1000000ULL / rate;
	return due > elapsed_us ? due - elapsed_us : 0;
}

/* ------------------------------------------------------------ /proc */

/*
 * The number after `name` and `sep` (then blanks) at the start of a line
 * of text: Linux's /proc/vmstat ("nr_active_anon 123", sep ' ') and
 * /proc/meminfo ("MemFree:  456 kB", sep ':'). False when no line has
 * it, or its value is not a number.
 */
bool wlio_proc_field(const char *text, const char *name, char sep, uint64_t *out)
{
	size_t n = rt_strlen(name);

	for (const char *l = text; *l;) {
		size_t i = 0;
		while (i < n && l[i] == name[i])
			i++;
		if (i == n && l[n] == sep) {
			const char *p = l + n + 1;
			uint64_t v = 0;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				return false;
			while (*p >= '0' && *p <= '9')
				v = v * 10 + (uint64_t)(*p++ - '0');
			*out = v;
			return true;
		}
		while (*l && *l != '\n')
			l++;
		if (*l)
			l++;
	}
	return false;
}

long wlio_read_text(const char *path, char *buf, size_t cap)
{
	long fd = rt_syscall3(WLIO_SYS_openat, WLIO_AT_FDCWD, (long)path, WLIO_O_RDONLY);
	long n = fd < 0 ? fd : rt_syscall4(WLIO_SYS_pread64, fd, (long)buf, (long)cap - 1, 0);
	if (fd >= 0)
		rt_syscall1(WLIO_SYS_close, fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* ------------------------------------------------------------ errors */

const char *wlio_errno_name(long err)
{
	static const struct { int n; const char *name; } tab[] = {
		{ 1, "EPERM" }, { 2, "ENOENT" }, { 5, "EIO" }, { 6, "ENXIO" },
		{ 9, "EBADF" }, { 12, "ENOMEM" }, { 13, "EACCES" }, { 14, "EFAULT" },
		{ 16, "EBUSY" }, { 19, "ENODEV" }, { 20, "ENOTDIR" }, { 21, "EISDIR" },
		{ 22, "EINVAL" }, { 24, "EMFILE" }, { 27, "EFBIG" }, { 28, "ENOSPC" },
		{ 29, "ESPIPE" }, { 30, "EROFS" }, { 38, "ENOSYS" }, { 95, "EOPNOTSUPP" },
	};

	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].n == err)
			return tab[i].name;
	return "error";
}

/* ------------------------------------------------------------ devices */

/*
 * Opens path (a block device or a regular file) for reading, or reading
 * and writing, and checks it holds need_bytes. Returns the fd, or the
 * negated exit status after one line on stderr: -3 when a syscall failed
 * (ENOENT on a kernel without device files, EACCES on a device not named
 * writable), -2 when the device is smaller than asked (a bad argument).
 */
int wlio_open(const char *prog, const char *path, bool write, uint64_t need_bytes)
{
	const char *mode = write ? "O_RDWR" : "O_RDONLY";
	long fd = rt_syscall3(WLIO_SYS_openat, WLIO_AT_FDCWD, (long)path,
			      write ? WLIO_O_RDWR : WLIO_O_RDONLY);

	if (fd < 0) {
		rt_dprintf(2, "%s: openat(%s, %s) failed: %s (%ld)\n", prog, path, mode,
			   wlio_errno_name(fd), -fd);
		return -3;
	}
	long size = rt_syscall3(WLIO_SYS_lseek, fd, 0, WLIO_SEEK_END);
	if (size < 0) {
		rt_dprintf(2, "%s: lseek(%s, 0, SEEK_END) failed: %s (%ld)\n", prog, path,
			   wlio_errno_name(size), -size);
		rt_syscall1(WLIO_SYS_close, fd);
		return -3;
	}
	if ((uint64_t)size < need_bytes) {
		rt_dprintf(2, "%s: %s holds %ld bytes, fewer than the %llu asked for\n", prog,
			   path, size, (unsigned long long)need_bytes);
		rt_syscall1(WLIO_SYS_close, fd);
		return -2;
	}
	return (int)fd;
}

/* Linux's struct sysinfo on x86-64 (fill.c has the same). */
struct wlio_sysinfo {
	int64_t uptime;
	uint64_t loads[3];
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char reserved[4];
};
_Static_assert(offsetof(struct wlio_sysinfo, mem_unit) == 104, "sysinfo layout");

/* Total RAM in MiB from sysinfo(2), or -errno. */
long wlio_ram_mib(void)
{
	struct wlio_sysinfo si;

	rt_memset(&si, 0, sizeof(si));
	long ret = rt_syscall1(RT_SYS_sysinfo, (long)&si);
	if (ret < 0)
		return ret;
	if (si.mem_unit == 0)
		return -RT_EINVAL;
	return (long)(si.totalram * si.mem_unit / RT_MIB);
}
