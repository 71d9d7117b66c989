/*
 * stream.c - background I/O on a block device (or a regular file), the
 * "IO in the background (20%)" beside seed 003's shmem database.
 *
 *   stream DEV SIZE_MIB read|write|rw|mmap-read|mmap-rw [MIBPS|P% [SECONDS]]
 *
 * Walks the first SIZE_MIB of DEV in 256 KiB requests (pread64/pwrite64):
 * `read` reads, `write` writes stamped blocks (wlio.h), `rw` reads each
 * chunk and then writes it back with the next generation.
 *
 * `mmap-read` and `mmap-rw` do the same through a MAP_SHARED mapping of
 * the region instead: each page is read (and, for mmap-rw, rewritten in
 * place) by touching it, so the stream's pages are MAPPED file pages.
 * That is what seed 003's regression needed: commit 64574746 judged
 * mapped file pages by their PTE references, and a read(2) stream never
 * has any.  The mapping covers the whole region and stays for every pass
 * (regions above STREAM_MAP_WINDOW are mapped a window at a time), so a
 * page reclaim looks at is still mapped, as a reader's would be.  mmap-rw
 * ends with msync(MS_SYNC) before the fdatasync.  MIBPS caps the
 * rate (MiB/s read plus written, 0 = none) by sleeping once a request is
 * ahead of schedule; `P%` first runs flat out for a second to measure the
 * device (that second counts in the totals), then holds P% of what it
 * measured. SECONDS: repeat passes until that much
 * guest time has gone (0, the default: one pass).
 *
 * Data is verified wherever it can be: a block read that carries the
 * stamp must be intact and at its own offset (another run's stamps are
 * fine; blocks never stamped are counted as foreign), and in `rw` and
 * `mmap-rw` every pass after the first must read exactly what the
 * previous pass wrote. `write`, `rw` and `mmap-rw` end with fdatasync.
 * DEV is opened read-only for `read` and `mmap-read` (a PROT_READ
 * mapping), so a device nobody may write can still be read.
 *
 * Exit status: 0 clean, 1 a stamped block was wrong, 2 bad arguments
 * (DEV smaller than SIZE_MIB too), 3 a system call failed: one line naming
 * the call, the path and the errno.
 */
#include "rt/rt.h"
#include "wlio.h"

#define STREAM_USAGE "stream DEV SIZE_MIB read|write|rw|mmap-read|mmap-rw [MIBPS|P% [SECONDS]]"
#define STREAM_CHUNK (256UL * 1024)
#define STREAM_MAX_MIB (1ULL << 24)		/* 16 TiB */
#define STREAM_MAX_MIBPS (WLIO_MAX_RATE / RT_MIB)
#define STREAM_CALIBRATE_NS 1000000000ULL
#define STREAM_REPORT_MAX 5

/* Mappings are at most this long: 64 GiB keeps every disk up to that
 * one mapping for the whole run, and a 16 TiB one within any address
 * space. */
#define STREAM_MAP_WINDOW (64ULL << 30)

enum stream_mode {
	STREAM_READ = 1, STREAM_WRITE = 2, STREAM_RW = 3,
	STREAM_MMAP = 4,		/* through a MAP_SHARED mapping */
	STREAM_MMAP_READ = 5, STREAM_MMAP_RW = 7,
};

struct stream {
	int fd;
	const char *path;
	enum stream_mode mode;
	uint64_t size;
	uint64_t *buf;			/* one chunk */
	char *map;			/* mmap modes: the mapped window */
	uint64_t map_off, map_len;	/* its device offset and length */
	uint64_t gen0;			/* this run's first generation */
	uint64_t pass;
	uint64_t passes;		/* completed */
	uint64_t bytes_read, bytes_written;
	uint64_t stamped, foreign, mismatches;
	/* pacing: rate in bytes/s (0 = none) since pace_ns, pace_bytes ago */
	uint64_t rate, pace_ns, pace_bytes;
	uint64_t calibrate_pct, calibrated;	/* bytes/s measured */
	uint64_t sleeps, sleep_ns;
};

static _Noreturn void stream_fail(const struct stream *s, const char *call, uint64_t off, long err)
{
	rt_dprintf(2, "stream: %s(%s, %lu bytes at %llu) failed: %s (%ld)\n", call, s->path,
		   STREAM_CHUNK, (unsigned long long)off, wlio_errno_name(err), -err);
	rt_exit_group(3);
}

static void stream_mismatch(struct stream *s, uint64_t off, const char *what)
{
	if (s->mismatches++ >= STREAM_REPORT_MAX)
		return;
	rt_dprintf(2, "stream: MISMATCH %s block at byte %llu: %s\n", s->path,
		   (unsigned long long)off, what);
}

/* Checks a chunk just read from off (into s->buf, or mapped at chunk). */
static void stream_check(struct stream *s, const uint64_t *chunk, uint64_t off)
{
	for (uint64_t b = 0; b < STREAM_CHUNK / WLIO_BLOCK; b++) {
		uint64_t at = off + b * WLIO_BLOCK, gen = 0;
		enum wlio_block_verdict v = wlio_block_check(chunk + b * WLIO_BLOCK_WORDS, at, &gen);

		s->stamped += v != WLIO_BLOCK_FOREIGN;
		s->foreign += v == WLIO_BLOCK_FOREIGN;
		if (v == WLIO_BLOCK_MISPLACED || v == WLIO_BLOCK_DAMAGED)
			stream_mismatch(s, at, wlio_block_verdict_name(v));
		else if ((s->mode & STREAM_RW) == STREAM_RW && s->pass > 0 &&
			 (v != WLIO_BLOCK_OK || gen != s->gen0 + s->pass - 1))
			stream_mismatch(s, at, "not what the previous pass wrote");
	}
}

static void stream_read(struct stream *s, uint64_t off)
{
	for (uint64_t done = 0; done < STREAM_CHUNK;) {
		long n = rt_syscall4(WLIO_SYS_pread64, s->fd, (long)((char *)s->buf + done),
				     (long)(STREAM_CHUNK - done), (long)(off + done));
		if (n == -RT_EINTR)
			continue;
		if (n <= 0)
			stream_fail(s, "pread64", off, n == 0 ? -RT_EINVAL : n);
		done += (uint64_t)n;
	}
	s->bytes_read += STREAM_CHUNK;
	stream_check(s, s->buf, off);
}

static void stream_write(struct stream *s, uint64_t off)
{
	for (uint64_t b = 0; b < STREAM_CHUNK / WLIO_BLOCK; b++)
		wlio_block_fill(s->buf + b * WLIO_BLOCK_WORDS, off + b * WLIO_BLOCK, s->gen0 + s->pass);
	for (uint64_t done = 0; done < STREAM_CHUNK;) {
		long n = rt_syscall4(WLIO_SYS_pwrite64, s->fd, (long)((char *)s->buf + done),
				     (long)(STREAM_CHUNK - done), (long)(off + done));
		if (n == -RT_EINTR)
			continue;
		if (n <= 0)
			stream_fail(s, "pwrite64", off, n == 0 ? -5 /* EIO: no progress */ : n);
		done += (uint64_t)n;
	}
	s->bytes_written += STREAM_CHUNK;
}

static _Noreturn void stream_map_fail(const struct stream *s, const char *call, uint64_t off,
				      uint64_t len, long err)
{
	rt_dprintf(2, "stream: %s(%s, %llu bytes at %llu) failed: %s (%ld)\n", call, s->path,
		   (unsigned long long)len, (unsigned long long)off, wlio_errno_name(err), -err);
	rt_exit_group(3);
}

/* mmap-rw: write the window's dirty pages back before it goes. */
static void stream_map_sync(struct stream *s)
{
	if (!s->map || !(s->mode & STREAM_WRITE))
		return;
	long err = rt_syscall3(RT_SYS_msync, (long)s->map, (long)s->map_len, WLIO_MS_SYNC);
	if (err < 0)
		stream_map_fail(s, "msync MS_SYNC", s->map_off, s->map_len, err);
}

static void stream_unmap(struct stream *s)
{
	if (!s->map)
		return;
	stream_map_sync(s);
	int err = rt_munmap(s->map, s->map_len);
	if (err < 0)
		stream_map_fail(s, "munmap", s->map_off, s->map_len, err);
	s->map = NULL;
}

/* The mapped chunk at off: maps the window holding it when the current
 * one does not. */
static uint64_t *stream_mapped(struct stream *s, uint64_t off)
{
	if (s->map && off >= s->map_off && off - s->map_off < s->map_len)
		return (uint64_t *)(s->map + (off - s->map_off));
	stream_unmap(s);
	s->map_off = off / STREAM_MAP_WINDOW * STREAM_MAP_WINDOW;
	s->map_len = s->size - s->map_off < STREAM_MAP_WINDOW ? s->size - s->map_off : STREAM_MAP_WINDOW;
	int prot = RT_PROT_READ | (s->mode & STREAM_WRITE ? RT_PROT_WRITE : 0);
	char *p = rt_mmap(NULL, s->map_len, prot, RT_MAP_SHARED, s->fd, (long)s->map_off);
	if (rt_mmap_failed(p))
		stream_map_fail(s, "mmap MAP_SHARED", s->map_off, s->map_len, -rt_mmap_error(p));
	s->map = p;
	return (uint64_t *)(s->map + (off - s->map_off));
}

/* mmap-read and mmap-rw: check the chunk where it is mapped (the
 * loads fault it in), then for mmap-rw stamp it with this pass's
 * generation in place. */
static void stream_map_chunk(struct stream *s, uint64_t off)
{
	uint64_t *chunk = stream_mapped(s, off);

	stream_check(s, chunk, off);
	s->bytes_read += STREAM_CHUNK;
	if (!(s->mode & STREAM_WRITE))
		return;
	for (uint64_t b = 0; b < STREAM_CHUNK / WLIO_BLOCK; b++)
		wlio_block_fill(chunk + b * WLIO_BLOCK_WORDS, off + b * WLIO_BLOCK, s->gen0 + s->pass);
	s->bytes_written += STREAM_CHUNK;
}

/* After each chunk (`moved` bytes: read plus written): end the
 * calibration, or sleep off any lead. */
static void stream_pace(struct stream *s, uint64_t now, uint64_t moved)
{
	s->pace_bytes += moved;
	if (s->calibrate_pct && now - s->pace_ns >= STREAM_CALIBRATE_NS) {
		uint64_t us = (now - s->pace_ns) / 1000;
		s->calibrated = s->pace_bytes * 1000000ULL / (us ? us : 1);
		s->rate = s->calibrated / 100 * s->calibrate_pct;
		s->rate = s->rate ? s->rate : 1;
		s->calibrate_pct = 0;
		s->pace_ns = now;
		s->pace_bytes = 0;
		return;
	}
	if (s->calibrate_pct)
		return;
	uint64_t us = wlio_pace_us(s->pace_bytes, s->rate, (now - s->pace_ns) / 1000);
	if (us == 0)
		return;
	struct rt_timespec ts = { (int64_t)(us / 1000000), (int64_t)(us % 1000000 * 1000) };
	rt_nanosleep(&ts, NULL);
	s->sleeps++;
	s->sleep_ns += us * 1000;
}

/* Passes until the deadline (0: one pass). */
static void stream_run(struct stream *s, uint64_t deadline)
{
	for (;; s->pass++) {
		for (uint64_t off = 0; off < s->size; off += STREAM_CHUNK) {
			if (s->mode & STREAM_MMAP)
				stream_map_chunk(s, off);
			else if (s->mode & STREAM_READ)
				stream_read(s, off);
			if ((s->mode & STREAM_MMAP) == 0 && (s->mode & STREAM_WRITE))
				stream_write(s, off);
			uint64_t now = rt_now_ns();
			stream_pace(s, now, (s->mode & STREAM_RW) == STREAM_RW ? 2 * STREAM_CHUNK : STREAM_CHUNK);
			if (deadline && now >= deadline)
				return;
		}
		s->passes++;
		if (!deadline)
			return;
	}
}

static uint64_t stream_mibps_x100(uint64_t bytes, uint64_t ns)
{
	uint64_t us = ns / 1000 ? ns / 1000 : 1;

	return bytes / RT_MIB * 100000000ULL / us + bytes % RT_MIB * 100000000ULL / RT_MIB / us;
}

static void stream_report(const struct stream *s, const char *mode, const char *rate_arg,
			  uint64_t seconds, uint64_t t0, uint64_t t1)
{
	uint64_t rate = stream_mibps_x100(s->bytes_read + s->bytes_written, t1 - t0);
	struct rt_json j;

	rt_dprintf(2, "stream %s %s: %llu MiB read, %llu MiB written, %llu.%02llu MiB/s "
		   "(limit %llu KiB/s), %llu stamped, %llu foreign blocks, %llu mismatches\n",
		   s->path, mode, (unsigned long long)(s->bytes_read / RT_MIB),
		   (unsigned long long)(s->bytes_written / RT_MIB), (unsigned long long)(rate / 100),
		   (unsigned long long)(rate % 100), (unsigned long long)(s->rate / 1024),
		   (unsigned long long)s->stamped, (unsigned long long)s->foreign,
		   (unsigned long long)s->mismatches);
	rt_report_begin(&j, "stream");
	rt_json_str(&j, "dev", s->path);
	rt_json_str(&j, "mode", mode);
	rt_json_u64(&j, "size_mib", s->size / RT_MIB);
	rt_json_str(&j, "rate", rate_arg);
	rt_json_u64(&j, "limit_bytes_per_s", s->rate);
	rt_json_u64(&j, "calibrated_bytes_per_s", s->calibrated);
	rt_json_u64(&j, "seconds", seconds);
	rt_json_u64(&j, "passes", s->passes);
	rt_json_u64(&j, "gen_first", s->gen0);	/* pass N stamps gen_first + N */
	rt_json_u64(&j, "bytes_read", s->bytes_read);
	rt_json_u64(&j, "bytes_written", s->bytes_written);
	rt_json_u64(&j, "mb_per_s_x100", rate);
	rt_json_u64(&j, "stamped_blocks", s->stamped);
	rt_json_u64(&j, "foreign_blocks", s->foreign);
	rt_json_u64(&j, "sleeps", s->sleeps);
	rt_json_u64(&j, "sleep_ns", s->sleep_ns);
	rt_report_usage(&j, t0, t1);
	rt_json_u64(&j, "mismatches", s->mismatches);
	rt_json_end(&j, 1);
}

static enum stream_mode stream_parse_mode(const char *m)
{
	if (rt_strcmp(m, "read") == 0)
		return STREAM_READ;
	if (rt_strcmp(m, "write") == 0)
		return STREAM_WRITE;
	if (rt_strcmp(m, "rw") == 0)
		return STREAM_RW;
	if (rt_strcmp(m, "mmap-read") == 0)
		return STREAM_MMAP_READ;
	if (rt_strcmp(m, "mmap-rw") == 0)
		return STREAM_MMAP_RW;
	rt_usage_error(STREAM_USAGE, "stream: bad mode '%s': read, write, rw, mmap-read or mmap-rw", m);
}

int main(int argc, char **argv, char **envp)
{
	struct stream s = { 0 };
	struct wlio_share rate = { 0, false };
	uint64_t seconds = 0;

	(void)envp;
	if (argc < 4 || argc > 6)
		rt_usage_error(STREAM_USAGE, "stream: expected 3 to 5 arguments, got %d", argc - 1);
	s.path = argv[1];
	s.size = rt_arg_u64("stream", STREAM_USAGE, "SIZE_MIB", argv[2], 1, STREAM_MAX_MIB) * RT_MIB;
	s.mode = stream_parse_mode(argv[3]);
	if (argc > 4 && rt_strcmp(argv[4], "0") != 0)
		wlio_arg_share("stream", STREAM_USAGE, "MIBPS", argv[4], STREAM_MAX_MIBPS, 100, &rate);
	if (argc > 5)
		seconds = rt_arg_u64("stream", STREAM_USAGE, "SECONDS", argv[5], 0, 86400 * 365);
	s.rate = rate.percent ? 0 : rate.value * RT_MIB;
	s.calibrate_pct = rate.percent ? rate.value : 0;
	void *buf = rt_mmap(NULL, STREAM_CHUNK, RT_PROT_READ | RT_PROT_WRITE,
			    RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(buf)) {
		rt_dprintf(2, "stream: mmap of its %lu-byte buffer failed: %s\n", STREAM_CHUNK,
			   wlio_errno_name(rt_mmap_error(buf)));
		return 3;
	}
	s.buf = buf;
	s.fd = wlio_open("stream", s.path, (s.mode & STREAM_WRITE) != 0, s.size);
	if (s.fd < 0)
		return -s.fd;
	uint64_t t0 = rt_now_ns();
	/* Generations differ between runs, so a lost write cannot pass for
	 * an earlier run's identical one. */
	s.gen0 = rt_mix64(t0) << 20;
	s.pace_ns = t0;
	stream_run(&s, seconds ? t0 + seconds * 1000000000ULL : 0);
	stream_unmap(&s);
	if (s.mode & STREAM_WRITE) {
		long err = rt_syscall1(WLIO_SYS_fdatasync, s.fd);
		if (err < 0) {
			rt_dprintf(2, "stream: fdatasync(%s) failed: %s (%ld)\n", s.path,
				   wlio_errno_name(err), -err);
			return 3;
		}
	}
	stream_report(&s, argv[3], argc > 4 ? argv[4] : "0", seconds, t0, rt_now_ns());
	rt_syscall1(WLIO_SYS_close, s.fd);
	return s.mismatches != 0 ? 1 : 0;
}
