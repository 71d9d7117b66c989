/*
 * filecheck.c - buffered I/O on a block device, verified.
 *
 *   filecheck DEV SIZE_MIB MODE [SEED [LINGER_S]]
 *
 * write:  opens DEV read-write, writes SIZE_MIB of a pattern from the
 *         start with write(2) in 64 KiB pieces, fsync(2)s.
 * writenf: the same without fsync (write-back is left to the kernel).
 * verify: opens DEV read-only, reads SIZE_MIB back with read(2) and checks
 *         every 8-byte word against the pattern.
 * both:   write, then lseek(2) to 0 on the same descriptor and verify.
 * bothdrop: the same with posix_fadvise(POSIX_FADV_DONTNEED) of the whole
 *         range between the write and the verify (so it reads the disk).
 * openw:  only tries to open DEV read-write and reports the errno (a
 *         device not named in data= must give EACCES on our kernel).
 * mmap:   maps SIZE_MIB of DEV MAP_SHARED, writes the pattern into the
 *         mapping, msync(MS_SYNC)s, munmaps, then reads it back with
 *         read(2) and checks it.
 * mmapu:  the same without msync: munmap, then fsync(2) on the fd.
 * mmapfs: the same with fsync(2) while still mapped, then reads the device
 *         back with O_DIRECT on a second descriptor before munmap: the
 *         fsync must have written what the mapping wrote (Linux counts
 *         a written shared page dirty at its write fault).
 * mmapdn: the same as mmapu with madvise(MADV_DONTNEED) of the whole
 *         mapping before munmap: the written pages must stay in the page
 *         cache (the mapping reads them back; no word may be lost), and
 *         the fsync after munmap writes them.
 * mmapp:  maps MAP_PRIVATE, writes the pattern, checks the mapping holds
 *         it, munmaps, then reads DEV with read(2): no word may hold the
 *         pattern (`leaked`): private writes never reach the device.
 * dwrite, dverify: write and verify with O_DIRECT (64 KiB pieces from a
 *         page-aligned buffer): the I/O bypasses the page cache.
 * dmix:   the cache and O_DIRECT on two descriptors of DEV: a buffered
 *         write of SEED's pattern (no fsync), read back with O_DIRECT (the
 *         kernel must write the dirty pages first); a buffered read (now
 *         cached); an O_DIRECT write of SEED+1's pattern, read back
 *         buffered (no stale cached page may be seen).  The device ends
 *         up holding SEED+1's pattern.
 * dmisalign: O_DIRECT reads at a misaligned offset, into a misaligned
 *         buffer and of a misaligned length: each must fail with EINVAL
 *         (a success or another error counts as a mismatch); then the
 *         same reads after fcntl(F_SETFL, 0) go through the cache and
 *         succeed, and after F_SETFL O_DIRECT fail again.
 * mnormal, mrandom, msequential, mwillneed: map SIZE_MIB read-only
 *         MAP_SHARED, madvise the whole range (NORMAL, RANDOM, SEQUENTIAL,
 *         WILLNEED), then read one word in every 16th page and check it
 *         (the read-ahead and fault counters show what the advice did).
 * mpageout: the same reads twice, with madvise(MADV_PAGEOUT) of the whole
 *         mapping between them: the second pass has to read the pages
 *         again (major faults) if the first one's were dropped.
 * mhot, mhotx: map SIZE_MIB read-only MAP_SHARED (mhotx: PROT_EXEC too)
 *         and, FC_HOT_PASSES times, read a word of every page of it, then
 *         stream half SIZE_MIB of DEV past the mapped range through the
 *         cache with pread(2) (cycling through the rest of DEV): the
 *         mapped pages stay hot while reclaim ages the file lists.  The
 *         mapped words are checked (SEED's pattern must be there).
 *
 * commits: write and fsync the pattern (a clean cache of SIZE_MIB), then
 *         FC_COMMITS times rewrite one page of it, picked from SEED, with
 *         the same words (pwrite64) and fsync(2): a database's commits
 *         beside a large cache; `commits`, `fsync_ns` (their total),
 *         `commit_max_ns` (the slowest) and `fill_fsync_ns` (the first
 *         fsync, of the whole pattern) in the record.  Then verify.
 * writesync, writesyncfs: write the pattern, then sync(2) or syncfs(2) on
 *         the device instead of fsync (fsync_ns is the call's time),
 *         then verify.
 * wrace:  write(2) another pattern, then the pattern over it, from a
 *         shared anonymous buffer of 1 MiB (refilled for each MiB) while
 *         a second thread drops the buffer's
 *         page-table entries (MADV_DONTNEED: the pages stay in their
 *         object) over and over: the kernel's copy from the buffer into
 *         the page cache then finds source pages gone after it faulted
 *         them in.  fsync, drop the range from the cache, verify.
 *         `race_drops` counts the madvise calls.
 * sharedpos: write and fsync the pattern, drop it from the cache, then
 *         FC_POS_THREADS threads read the device through ONE descriptor,
 *         4 KiB per read(2), until end of file.  Each piece names its
 *         offset (its first word), so every block must arrive exactly
 *         once: a block read twice (`pos_dups`) or never (`pos_missing`)
 *         means two reads used the same file position.  The threads
 *         read to the end of the device, so SIZE_MIB must be its size,
 *         at most FC_POS_MAX_MIB.  Our kernel keeps
 *         the position under a per-file lock for devices too; Linux locks
 *         it (FMODE_ATOMIC_POS) only for regular files and directories,
 *         so on a Linux block device this mode may report duplicates.
 *
 * After each fsync(2), sync(2), syncfs(2) or msync(2) (and writenf's
 * writes) the record's `unwritten_kib` is what
 * /proc/meminfo then called Dirty plus Writeback (absent if unreadable):
 * on a machine where nothing else writes files, 0 when the sync did its
 * job (on Linux it counts every file's dirty pages).
 *
 * The pattern of word w (byte offset 8w) is mix64(SEED) ^ 8w, so a page
 * written at the wrong place or a stale page both show.  The device size
 * comes from ioctl(BLKGETSIZE64), as a Linux tool gets it; SIZE_MIB must
 * fit.  LINGER_S: sleep that long before closing DEV and exiting (to
 * watch the kernel's write-back of what writenf left dirty).  Runs
 * unchanged on Linux (give it a scratch device).
 *
 * Exit status: 0 clean, 1 data mismatch, 2 bad arguments, 3 an I/O call
 * failed (open, write, fsync, read: the record names which and errno).
 */
#include "rt/rt.h"
#include "wlio.h"

#define FC_USAGE "filecheck DEV SIZE_MIB write|writenf|writesync|writesyncfs|wrace|verify|both|bothdrop|openw|mmap|mmapu|mmapfs|mmapdn|mmapp|dwrite|dverify|dmisalign|" \
	"mnormal|mrandom|msequential|mwillneed|mpageout|mhot|mhotx|sharedpos|commits [SEED [LINGER_S]]"
#define FC_CHUNK (64 * 1024)
#define FC_REPORT_MAX 5
#define FC_MAX_MIB (1ULL << 24)

#define NR_LSEEK 8
#define NR_IOCTL 16
#define NR_CLOSE 3
#define NR_FSYNC 74
#define NR_SYNC 162
#define NR_SYNCFS 306
#define NR_OPENAT 257
#define AT_FDCWD (-100)
#define O_RDONLY 0
#define O_RDWR 2
#define O_DIRECT 040000
#define NR_FCNTL 72
#define F_SETFL 4
#define NR_PREAD64 17
#define EINVAL 22
#define PROT_READ 1
#define FC_STRIDE 16                   /* madvise modes: pages between two reads */
#define FC_HOT_PASSES 8
#define PROT_EXEC 4
#define BLKGETSIZE64 0x80081272UL
#define NR_MSYNC 26
#define NR_FADVISE64 221
#define POSIX_FADV_DONTNEED 4
#define PROT_RW 3
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MS_SYNC 4

/* Page-aligned: O_DIRECT needs the buffer aligned to the logical block size. */
static uint64_t buf[FC_CHUNK / 8] __attribute__((aligned(4096)));

struct fc {
	const char *dev;
	uint64_t bytes, tag, mismatches;
	const char *failed;             /* the call that failed, or NULL */
	long err;                       /* its -errno */
	uint64_t dev_bytes;
	uint64_t write_ns, fsync_ns, read_ns;
	uint64_t leaked;                /* mmapp: pattern words found on the device */
	uint64_t pos_dups, pos_missing; /* sharedpos: blocks read twice, never */
	uint64_t race_drops;            /* wrace: the second thread's madvise calls */
	bool count_leaks;               /* fc_check counts matches instead of mismatches */
	bool have_unwritten;
	uint64_t unwritten_kib;         /* Dirty + Writeback after the last sync */
	uint64_t commits;               /* commits: fsyncs done */
	uint64_t commit_max_ns, fill_fsync_ns;
};

/* Dirty + Writeback of /proc/meminfo, after a sync: what it left. */
static void fc_note_unwritten(struct fc *c)
{
	static char text[4096];
	uint64_t d, w;
	wlio_read_text("/proc/meminfo", text, sizeof text);
	c->have_unwritten = wlio_proc_field(text, "Dirty", ':', &d) && wlio_proc_field(text, "Writeback", ':', &w);
	c->unwritten_kib = c->have_unwritten ? d + w : 0;
}

static int fc_fail(struct fc *c, const char *call, long err)
{
	if (!c->failed) {
		c->failed = call;
		c->err = err;
		rt_dprintf(2, "filecheck: %s %s: error %ld\n", call, c->dev, -err);
	}
	return -1;
}

static void fc_fill(const struct fc *c, uint64_t off)
{
	for (uint64_t w = 0; w < FC_CHUNK / 8; w++)
		buf[w] = c->tag ^ (off + w * 8);
}

enum fc_sync { FC_NOSYNC, FC_FSYNC, FC_SYNC, FC_SYNCFS };

static int fc_write(struct fc *c, int fd, enum fc_sync sync)
{
	uint64_t t0 = rt_now_ns();
	for (uint64_t off = 0; off < c->bytes; off += FC_CHUNK) {
		fc_fill(c, off);
		long r = rt_write_all(fd, buf, FC_CHUNK);
		if (r != FC_CHUNK)
			return fc_fail(c, "write", r < 0 ? r : -5);
	}
	uint64_t t1 = rt_now_ns();
	long r = sync == FC_FSYNC ? rt_syscall1(NR_FSYNC, fd) : sync == FC_SYNCFS ? rt_syscall1(NR_SYNCFS, fd) :
		 sync == FC_SYNC ? rt_syscall0(NR_SYNC) : 0;
	uint64_t t2 = rt_now_ns();
	fc_note_unwritten(c);           /* writenf: what the writes left */
	c->write_ns = t1 - t0;
	c->fsync_ns = t2 - t1;
	return r ? fc_fail(c, sync == FC_SYNCFS ? "syncfs" : "fsync", r) : 0;
}

static void fc_check(struct fc *c, uint64_t off, uint64_t n)
{
	for (uint64_t w = 0; w < n / 8; w++) {
		uint64_t want = c->tag ^ (off + w * 8);
		if (c->count_leaks) {
			c->leaked += buf[w] == want;
			continue;
		}
		if (buf[w] == want)
			continue;
		if (c->mismatches++ < FC_REPORT_MAX)
			rt_dprintf(2, "filecheck: MISMATCH at byte %llu: got 0x%llx want 0x%llx\n",
				   (unsigned long long)(off + w * 8), (unsigned long long)buf[w],
				   (unsigned long long)want);
	}
}

static int fc_verify(struct fc *c, int fd)
{
	uint64_t t0 = rt_now_ns();
	for (uint64_t off = 0; off < c->bytes;) {
		long r = rt_read(fd, (char *)buf, FC_CHUNK);
		if (r <= 0 || r % 8)
			return fc_fail(c, "read", r < 0 ? r : -5);
		fc_check(c, off, (uint64_t)r);
		off += (uint64_t)r;
	}
	c->read_ns = rt_now_ns() - t0;
	return 0;
}

#define FC_COMMITS 128
#define FC_PAGE 4096

/* commits (see the top): fsync_ns becomes the commits' total. */
static int fc_commits(struct fc *c, int fd, uint64_t seed)
{
	uint64_t r = rt_mix64(seed + 0x2b), total = 0, pages = c->bytes / FC_PAGE;
	c->fill_fsync_ns = c->fsync_ns;
	for (unsigned k = 0; k < FC_COMMITS; k++) {
		r = rt_mix64(r);
		uint64_t off = r % pages * FC_PAGE;
		for (uint64_t w = 0; w < FC_PAGE / 8; w++)
			buf[w] = c->tag ^ (off + w * 8);
		long n = rt_syscall4(WLIO_SYS_pwrite64, fd, (long)buf, FC_PAGE, (long)off);
		if (n != FC_PAGE)
			return fc_fail(c, "pwrite64", n < 0 ? n : -5);
		uint64_t t0 = rt_now_ns();
		n = rt_syscall1(NR_FSYNC, fd);
		uint64_t t = rt_now_ns() - t0;
		total += t;
		if (t > c->commit_max_ns)
			c->commit_max_ns = t;
		if (n)
			return fc_fail(c, "fsync", n);
		c->commits++;
	}
	c->fsync_ns = total;
	return 0;
}

#define FC_POS_THREADS 4
#define FC_POS_MAX_MIB 64
#define FC_BLOCK 4096

static struct fc_pos {
	struct fc *c;
	int fd;
	uint64_t bad;                   /* pieces short, misplaced or wrong */
	uint16_t seen[(FC_POS_MAX_MIB << 20) / FC_BLOCK];
	uint64_t pbuf[FC_POS_THREADS][FC_BLOCK / 8];
} pos;

static int fc_pos_reader(void *arg)
{
	uint64_t *b = pos.pbuf[(long)arg];
	const struct fc *c = pos.c;
	for (;;) {
		long r = rt_read(pos.fd, (char *)b, FC_BLOCK);
		if (r == 0)
			return 0;
		if (r != FC_BLOCK) {
			__atomic_add_fetch(&pos.bad, 1, __ATOMIC_RELAXED);
			return r < 0 ? 3 : 1;
		}
		uint64_t off = b[0] ^ c->tag;
		bool ok = off % FC_BLOCK == 0 && off < c->bytes;
		for (uint64_t w = 1; ok && w < FC_BLOCK / 8; w++)
			ok = b[w] == (c->tag ^ (off + w * 8));
		if (!ok) {
			__atomic_add_fetch(&pos.bad, 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_add_fetch(&pos.seen[off / FC_BLOCK], 1, __ATOMIC_RELAXED);
	}
}

static int fc_shared_pos(struct fc *c, int fd)
{
	pos.c = c;
	pos.fd = fd;
	uint64_t t0 = rt_now_ns();
	struct rt_thread *t[FC_POS_THREADS];
	long n = 0, err = 0;
	for (; n < FC_POS_THREADS && !err; n++)
		err = rt_thread_create(&t[n], fc_pos_reader, (void *)n, 64 * 1024);
	if (err)
		n--;
	for (long i = 0; i < n; i++)
		rt_thread_join(t[i], NULL);
	if (err)
		return fc_fail(c, "clone", err);
	c->read_ns = rt_now_ns() - t0;
	for (uint64_t b = 0; b < c->bytes / FC_BLOCK; b++) {
		c->pos_dups += pos.seen[b] > 1 ? pos.seen[b] - 1u : 0;
		c->pos_missing += pos.seen[b] == 0;
	}
	c->mismatches += pos.bad + c->pos_dups + c->pos_missing;
	if (pos.bad + c->pos_dups + c->pos_missing)
		rt_dprintf(2, "filecheck: sharedpos: %llu blocks read twice, %llu never, %llu pieces wrong\n",
			   (unsigned long long)c->pos_dups, (unsigned long long)c->pos_missing,
			   (unsigned long long)pos.bad);
	return 0;
}

#define MADV_DONTNEED 4

/* wrace */
#define FC_RACE_BYTES (1u << 20)
static struct {
	uint64_t *src;
	volatile int stop;
	uint64_t drops;
} race;

static int fc_race_dropper(void *arg)
{
	(void)arg;
	while (!race.stop) {
		rt_madvise(race.src, FC_RACE_BYTES, MADV_DONTNEED);
		race.drops++;
	}
	return 0;
}

static int fc_write_race(struct fc *c, int fd)
{
	race.src = rt_mmap(0, FC_RACE_BYTES, PROT_RW, RT_MAP_SHARED | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(race.src))
		return fc_fail(c, "mmap", -rt_mmap_error(race.src));
	struct rt_thread *t;
	long err = rt_thread_create(&t, fc_race_dropper, NULL, 64 * 1024);
	if (err)
		return fc_fail(c, "clone", err);
	uint64_t t0 = rt_now_ns();
	long r = 0;
	/* Twice: first another pattern into new cache pages, then the
	 * pattern over the cached ones (a short copy into a page that holds
	 * data keeps what it copied; one into a new page drops the page). */
	for (int pass = 0; pass < 2 && !r; pass++) {
		r = rt_syscall3(NR_LSEEK, fd, 0, 0);
		uint64_t tag = pass ? c->tag : ~c->tag;
		for (uint64_t off = 0; off < c->bytes && !r; off += FC_RACE_BYTES) {
			for (uint64_t w = 0; w < FC_RACE_BYTES / 8; w++)
				race.src[w] = tag ^ (off + w * 8);
			long n = rt_write_all(fd, (const char *)race.src, FC_RACE_BYTES);
			if (n != FC_RACE_BYTES)
				r = n < 0 ? n : -5;
		}
	}
	race.stop = 1;
	rt_thread_join(t, NULL);
	c->race_drops = race.drops;
	if (r)
		return fc_fail(c, "write", r);
	uint64_t t1 = rt_now_ns();
	r = rt_syscall1(NR_FSYNC, fd);
	c->write_ns = t1 - t0;
	c->fsync_ns = rt_now_ns() - t1;
	return r ? fc_fail(c, "fsync", r) : 0;
}

/* mmapdn: after MADV_DONTNEED a shared mapping shows the cache's pages:
 * what was written through it must still be there. */
static int fc_dontneed(struct fc *c, uint64_t *m)
{
	int r = rt_madvise(m, c->bytes, MADV_DONTNEED);
	if (r)
		return fc_fail(c, "madvise", r);
	for (uint64_t w = 0; w < c->bytes / 8; w++)
		if (m[w] != (c->tag ^ (w * 8)) && c->mismatches++ < FC_REPORT_MAX)
			rt_dprintf(2, "filecheck: MISMATCH after MADV_DONTNEED at byte %llu\n", (unsigned long long)(w * 8));
	return 0;
}

static int fc_open(struct fc *c, int flags);

/* Write the pattern through a mapping (shared: then msync or not; or,
 * fsync_mapped, fsync while mapped and an O_DIRECT read-back). */
static int fc_mmap_write(struct fc *c, int fd, int type, bool do_msync, bool dontneed, bool fsync_mapped)
{
	uint64_t t0 = rt_now_ns();
	uint64_t *m = rt_mmap(0, c->bytes, PROT_RW, type, fd, 0);
	if (rt_mmap_failed(m))
		return fc_fail(c, "mmap", -rt_mmap_error(m));
	for (uint64_t w = 0; w < c->bytes / 8; w++)
		m[w] = c->tag ^ (w * 8);
	uint64_t t1 = rt_now_ns();
	long r = 0;
	if (type == MAP_PRIVATE)
		for (uint64_t w = 0; w < c->bytes / 8; w++)
			if (m[w] != (c->tag ^ (w * 8)) && c->mismatches++ < FC_REPORT_MAX)
				rt_dprintf(2, "filecheck: MISMATCH in the private map at byte %llu\n",
					   (unsigned long long)(w * 8));
	if (dontneed && fc_dontneed(c, m)) {
		rt_munmap(m, c->bytes);
		return -1;
	}
	if (do_msync)
		r = rt_syscall3(NR_MSYNC, (long)m, (long)c->bytes, MS_SYNC);
	if (fsync_mapped) {
		r = rt_syscall1(NR_FSYNC, fd);
		int dfd = r ? -1 : fc_open(c, O_RDONLY | O_DIRECT);
		if (dfd >= 0) {
			fc_note_unwritten(c);
			fc_verify(c, dfd);      /* the disk: what fsync wrote */
			rt_syscall1(NR_CLOSE, dfd);
		}
	}
	int u = rt_munmap(m, c->bytes);
	if (!r && !do_msync && !fsync_mapped && type == MAP_SHARED)
		r = rt_syscall1(NR_FSYNC, fd);
	c->write_ns = t1 - t0;
	c->fsync_ns = rt_now_ns() - t1;
	if (type == MAP_SHARED && !fsync_mapped)
		fc_note_unwritten(c);   /* mmapfs noted it after its fsync */
	if (r)
		return fc_fail(c, do_msync ? "msync" : "fsync", r);
	if (u)
		return fc_fail(c, "munmap", u);
	return rt_syscall3(NR_LSEEK, fd, 0, 0) ? fc_fail(c, "lseek", -22) : 0;
}

/* O_DIRECT misuse: each of three misaligned reads must give EINVAL. */
static void fc_misalign(struct fc *c, int fd)
{
	static const struct { long off, len, skew; } bad[] = { { 100, 4096, 0 }, { 0, 4096, 8 }, { 0, 100, 0 } };
	/* With O_DIRECT, then without it (fcntl F_SETFL 0: the same reads go
	 * through the cache and succeed), then with it again. */
	for (int pass = 0; pass < 3; pass++) {
		bool direct = pass != 1;
		long set = rt_syscall3(NR_FCNTL, fd, F_SETFL, direct ? O_DIRECT : 0);
		if (set != 0 && c->mismatches++ < FC_REPORT_MAX)
			rt_dprintf(2, "filecheck: fcntl(F_SETFL, %s) gave %ld\n", direct ? "O_DIRECT" : "0", set);
		for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			long r = rt_syscall4(NR_PREAD64, fd, (long)((char *)buf + bad[k].skew), bad[k].len, bad[k].off);
			if ((direct ? r != -EINVAL : r != bad[k].len) && c->mismatches++ < FC_REPORT_MAX)
				rt_dprintf(2, "filecheck: %s pread(off %ld, len %ld, buffer +%ld) gave %ld, want %s\n",
					   direct ? "O_DIRECT" : "buffered", bad[k].off, bad[k].len, bad[k].skew, r,
					   direct ? "EINVAL" : "the length");
		}
	}
}

static int fc_rewind(struct fc *c, int fd)
{
	return rt_syscall3(NR_LSEEK, fd, 0, 0) ? fc_fail(c, "lseek", -22) : 0;
}

/* dmix: fd is the buffered descriptor; a second, O_DIRECT one is opened. */
static void fc_mix(struct fc *c, int fd, uint64_t seed)
{
	int dfd = fc_open(c, O_RDWR | O_DIRECT);
	if (dfd < 0)
		return;
	if (!fc_write(c, fd, FC_NOSYNC) && !fc_verify(c, dfd) && !fc_rewind(c, fd) && !fc_verify(c, fd)) {
		c->tag = rt_mix64(seed + 1 + 0x13);
		if (!fc_rewind(c, fd) && !fc_rewind(c, dfd) && !fc_write(c, dfd, FC_FSYNC))
			fc_verify(c, fd);
	}
	rt_syscall1(NR_CLOSE, dfd);
}

#define MADV_PAGEOUT 21

static void fc_stride_check(struct fc *c, const uint64_t *m)
{
	for (uint64_t off = 0; off < c->bytes; off += FC_STRIDE * 4096) {
		uint64_t want = c->tag ^ off;
		if (m[off / 8] != want && c->mismatches++ < FC_REPORT_MAX)
			rt_dprintf(2, "filecheck: MISMATCH in the map at byte %llu\n", (unsigned long long)off);
	}
}

/* Map read-only, advise, read one word in every FC_STRIDE-th page
 * (MADV_PAGEOUT: read, advise, read again). */
static int fc_madvise_read(struct fc *c, int fd, int advice)
{
	uint64_t t0 = rt_now_ns();
	uint64_t *m = rt_mmap(0, c->bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (rt_mmap_failed(m))
		return fc_fail(c, "mmap", -rt_mmap_error(m));
	if (advice == MADV_PAGEOUT)
		fc_stride_check(c, m);
	int r = rt_madvise(m, c->bytes, advice);
	if (r) {
		rt_munmap(m, c->bytes);
		return fc_fail(c, "madvise", r);
	}
	fc_stride_check(c, m);
	c->read_ns = rt_now_ns() - t0;
	return rt_munmap(m, c->bytes) ? fc_fail(c, "munmap", -22) : 0;
}

/* mhot, mhotx: a hot mapping beside a stream through the cache. */
static int fc_hot(struct fc *c, int fd, bool exec)
{
	uint64_t t0 = rt_now_ns();
	uint64_t *m = rt_mmap(0, c->bytes, PROT_READ | (exec ? PROT_EXEC : 0), MAP_SHARED, fd, 0);
	if (rt_mmap_failed(m))
		return fc_fail(c, "mmap", -rt_mmap_error(m));
	uint64_t at = c->bytes, span = c->dev_bytes - c->bytes;
	for (int pass = 0; pass < FC_HOT_PASSES && span >= FC_CHUNK; pass++) {
		for (uint64_t off = 0; off < c->bytes; off += 4096)
			if (m[off / 8] != (c->tag ^ off) && c->mismatches++ < FC_REPORT_MAX)
				rt_dprintf(2, "filecheck: MISMATCH in the map at byte %llu\n", (unsigned long long)off);
		for (uint64_t n = 0; n < c->bytes / 2; n += FC_CHUNK) {
			if (at + FC_CHUNK > c->dev_bytes)
				at = c->bytes;
			long r = rt_syscall4(NR_PREAD64, fd, (long)buf, FC_CHUNK, (long)at);
			if (r != FC_CHUNK) {
				rt_munmap(m, c->bytes);
				return fc_fail(c, "read", r < 0 ? r : -5);
			}
			at += FC_CHUNK;
		}
	}
	c->read_ns = rt_now_ns() - t0;
	return rt_munmap(m, c->bytes) ? fc_fail(c, "munmap", -22) : 0;
}

static int fc_open(struct fc *c, int flags)
{
	long fd = rt_syscall4(NR_OPENAT, AT_FDCWD, (long)c->dev, flags, 0);
	if (fd < 0)
		return fc_fail(c, flags & O_RDWR ? "open_rw" : "open", fd);
	long r = rt_syscall3(NR_IOCTL, fd, (long)BLKGETSIZE64, (long)&c->dev_bytes);
	if (r)
		return fc_fail(c, "ioctl", r);
	if (c->dev_bytes < c->bytes) {
		rt_dprintf(2, "filecheck: %s holds %llu bytes, fewer than asked\n", c->dev,
			   (unsigned long long)c->dev_bytes);
		return fc_fail(c, "size", -28);
	}
	return (int)fd;
}

static void fc_report(const struct fc *c, const char *mode, uint64_t seed, uint64_t start, uint64_t end)
{
	struct rt_json j;
	rt_report_begin(&j, "filecheck");
	rt_json_str(&j, "dev", c->dev);
	rt_json_str(&j, "mode", mode);
	rt_json_u64(&j, "size_mib", c->bytes >> 20);
	rt_json_u64(&j, "seed", seed);
	rt_json_u64(&j, "dev_bytes", c->dev_bytes);
	rt_json_u64(&j, "write_ns", c->write_ns);
	rt_json_u64(&j, "fsync_ns", c->fsync_ns);
	rt_json_u64(&j, "read_ns", c->read_ns);
	rt_json_str(&j, "failed", c->failed ? c->failed : "");
	rt_json_u64(&j, "errno", (uint64_t)-c->err);
	rt_json_u64(&j, "mismatches", c->mismatches);
	rt_json_u64(&j, "leaked", c->leaked);
	rt_json_u64(&j, "pos_dups", c->pos_dups);
	rt_json_u64(&j, "pos_missing", c->pos_missing);
	if (!rt_strcmp(mode, "commits")) {
		rt_json_u64(&j, "commits", c->commits);
		rt_json_u64(&j, "commit_max_ns", c->commit_max_ns);
		rt_json_u64(&j, "fill_fsync_ns", c->fill_fsync_ns);
	}
	if (!rt_strcmp(mode, "wrace"))
		rt_json_u64(&j, "race_drops", c->race_drops);
	if (c->have_unwritten)
		rt_json_u64(&j, "unwritten_kib", c->unwritten_kib);
	rt_report_usage(&j, start, end);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc < 4 || argc > 6)
		rt_usage_error(FC_USAGE, "expected 3 to 5 arguments");
	struct fc c = { .dev = argv[1] };
	c.bytes = rt_arg_u64("filecheck", FC_USAGE, "SIZE_MIB", argv[2], 1, FC_MAX_MIB) << 20;
	const char *mode = argv[3];
	uint64_t seed = argc >= 5 ? rt_arg_u64("filecheck", FC_USAGE, "SEED", argv[4], 0, ~0ULL) : 1;
	uint64_t linger = argc == 6 ? rt_arg_u64("filecheck", FC_USAGE, "LINGER_S", argv[5], 0, 3600) : 0;
	c.tag = rt_mix64(seed + 0x13);
	bool nf = !rt_strcmp(mode, "writenf");
	enum fc_sync how = nf ? FC_NOSYNC : !rt_strcmp(mode, "writesync") ? FC_SYNC :
			   !rt_strcmp(mode, "writesyncfs") ? FC_SYNCFS : FC_FSYNC;
	bool spos = !rt_strcmp(mode, "sharedpos");
	bool commits = !rt_strcmp(mode, "commits");
	bool wrace = !rt_strcmp(mode, "wrace");
	bool drop = !rt_strcmp(mode, "bothdrop") || spos || wrace;
	bool w = !rt_strcmp(mode, "write") || !rt_strcmp(mode, "both") || nf || drop || commits || how >= FC_SYNC;
	bool v = !rt_strcmp(mode, "verify") || !rt_strcmp(mode, "both") || drop || commits ||    /* sharedpos: its own */
		 how >= FC_SYNC;
	bool openw = !rt_strcmp(mode, "openw");
	bool mdn = !rt_strcmp(mode, "mmapdn");
	bool mfs = !rt_strcmp(mode, "mmapfs");
	int mtype = !rt_strcmp(mode, "mmap") || !rt_strcmp(mode, "mmapu") || mdn || mfs ? MAP_SHARED :
		    !rt_strcmp(mode, "mmapp") ? MAP_PRIVATE : 0;
	bool dw = !rt_strcmp(mode, "dwrite"), dmis = !rt_strcmp(mode, "dmisalign");
	bool direct = dw || dmis || !rt_strcmp(mode, "dverify");
	bool mix = !rt_strcmp(mode, "dmix");
	bool hot = !rt_strcmp(mode, "mhot"), hotx = !rt_strcmp(mode, "mhotx");
	v |= direct && !dw && !dmis;
	w |= dw;
	static const char *const advs[] = { "mnormal", "mrandom", "msequential", "mwillneed" };
	int advice = -1;
	for (int k = 0; k < 4; k++)
		if (!rt_strcmp(mode, advs[k]))
			advice = k;             /* MADV_NORMAL 0, RANDOM 1, SEQUENTIAL 2, WILLNEED 3 */
	if (!rt_strcmp(mode, "mpageout"))
		advice = MADV_PAGEOUT;
	if (!w && !v && !openw && !mtype && !dmis && !mix && !hot && !hotx && advice < 0)
		rt_usage_error(FC_USAGE, "mode '%s' is not one of those listed", mode);
	uint64_t start = rt_now_ns();
	int fd = fc_open(&c, (w || openw || mix || mtype == MAP_SHARED ? O_RDWR : O_RDONLY) | (direct ? O_DIRECT : 0));
	/* Before anything is written. */
	if (spos && c.bytes > (uint64_t)FC_POS_MAX_MIB << 20)
		rt_usage_error(FC_USAGE, "sharedpos: SIZE_MIB is over the mode's limit");
	if (fd >= 0 && spos && c.bytes != c.dev_bytes)
		rt_usage_error(FC_USAGE, "sharedpos: the threads read to the end of the device: SIZE_MIB must be its whole size");
	if (fd >= 0 && mix)
		fc_mix(&c, fd, seed);
	if (fd >= 0 && dmis)
		fc_misalign(&c, fd);
	if (fd >= 0 && advice >= 0)
		fc_madvise_read(&c, fd, advice);
	if (fd >= 0 && (hot || hotx))
		fc_hot(&c, fd, hotx);
	if (fd >= 0 && mtype && fc_mmap_write(&c, fd, mtype, !rt_strcmp(mode, "mmap"), mdn, mfs) == 0) {
		c.count_leaks = mtype == MAP_PRIVATE;
		v = true;
	}
	if (fd >= 0 && wrace && fc_write_race(&c, fd) == 0) {
		long r = rt_syscall4(NR_FADVISE64, fd, 0, (long)c.bytes, POSIX_FADV_DONTNEED);
		if (r)
			fc_fail(&c, "fadvise", r);
		r = rt_syscall3(NR_LSEEK, fd, 0, 0);
		if (r)
			fc_fail(&c, "lseek", r);
	}
	if (fd >= 0 && w && !wrace && fc_write(&c, fd, how) == 0 && (!commits || fc_commits(&c, fd, seed) == 0) && v) {
		long r = drop ? rt_syscall4(NR_FADVISE64, fd, 0, (long)c.bytes, POSIX_FADV_DONTNEED) : 0;
		if (r)
			fc_fail(&c, "fadvise", r);
		r = rt_syscall3(NR_LSEEK, fd, 0, 0);
		if (r)
			fc_fail(&c, "lseek", r);
	}
	if (fd >= 0 && v && !c.failed)
		spos ? fc_shared_pos(&c, fd) : fc_verify(&c, fd);
	if (linger) {
		struct rt_timespec ts = { .tv_sec = (long)linger, .tv_nsec = 0 };
		rt_nanosleep(&ts, 0);
	}
	if (fd >= 0)
		rt_syscall1(NR_CLOSE, fd);
	fc_report(&c, mode, seed, start, rt_now_ns());
	return c.mismatches || c.leaked ? 1 : c.failed ? 3 : 0;
}
