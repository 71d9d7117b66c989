/*
 * mmap001.c - seed 002's mmap001: map a file-backed region, write every
 * page, msync, munmap, LOOPS times.
 *
 *   mmap001 DEV SIZE_MIB LOOPS
 *
 * Randy Hron ran LTP's mmap001 ("mmap, touch, msync, and munmap 500000
 * pages 5 times") on 1 GiB of RAM; the region being larger than RAM is
 * what made it a VM test. Here DEV is a block device (or a regular file)
 * opened read-write; its first SIZE_MIB are mapped MAP_SHARED.
 *
 * Every page is written whole as a stamped block (wlio.h) of this loop's
 * generation; from the second loop on, each page is first checked to hold
 * the previous loop's stamp, so a page that msync or munmap failed to
 * write back, or that came back from the wrong place, is caught. After the
 * last loop the region is read back with pread64 (not through a mapping):
 * what the mappings wrote must be what read(2) sees.
 *
 * The record gives time per phase and, from getrusage, the major and minor
 * faults the seed's table reported.
 *
 * MM_TRACE=FILE: the page trace (wtrace.h) for tools/min.  Pages are
 * traced by file offset, not by address: the page cache keeps a file page
 * across munmap, so every loop's mapping and the read-back touch the same
 * pages (a page number per 4 KiB of DEV, from MMAP001_TRACE_BASE).  A file
 * page's first access is a read from DEV in the kernel (a major fault or
 * file read-ahead, counted in pgpgin), where tools/min calls it
 * compulsory: compare the kernel's pages read with MIN's compulsory plus
 * major faults.
 *
 * Exit status: 0 clean, 1 a page held the wrong data, 2 bad arguments
 * (DEV smaller than SIZE_MIB too), 3 a system call failed: one line
 * naming the call, the path and the errno (or the trace file).
 */
#include "rt/rt.h"
#include "wlio.h"
#include "wtrace.h"

#define MMAP001_USAGE "mmap001 DEV SIZE_MIB LOOPS"
#define MMAP001_MAX_MIB (1ULL << 24)
#define MMAP001_MAX_LOOPS 100000ULL
#define MMAP001_READ_CHUNK (256UL * 1024)
#define MMAP001_REPORT_MAX 5
#define MMAP001_TRACE_BASE (1ULL << 40)	/* byte 0 of DEV in the trace */

/* The trace's entry for DEV's page at byte off (MM_TRACE). */
static void mm_trace(uint64_t off)
{
	wtrace_page((const void *)(uintptr_t)(MMAP001_TRACE_BASE + off));
}

struct mmap001 {
	int fd;
	const char *path;
	uint64_t size;
	uint64_t gen0;
	uint64_t mismatches;
	uint64_t touch_ns, msync_ns, munmap_ns, verify_ns;
};

static _Noreturn void mm_fail(const struct mmap001 *m, const char *call, long err)
{
	rt_dprintf(2, "mmap001: %s(%s, %llu bytes) failed: %s (%ld)\n", call, m->path,
		   (unsigned long long)m->size, wlio_errno_name(err), -err);
	rt_exit_group(3);
}

static void mm_check(struct mmap001 *m, const uint64_t *blk, uint64_t off, uint64_t want)
{
	uint64_t gen = 0;
	enum wlio_block_verdict v = wlio_block_check(blk, off, &gen);

	if (v == WLIO_BLOCK_OK && gen == want)
		return;
	if (m->mismatches++ >= MMAP001_REPORT_MAX)
		return;
	rt_dprintf(2, "mmap001: MISMATCH %s page at byte %llu: %s\n", m->path,
		   (unsigned long long)off,
		   v == WLIO_BLOCK_OK ? "an older generation" : wlio_block_verdict_name(v));
}

/* One loop: map, check the last loop's pages and stamp this one's, msync,
 * munmap. */
static void mm_loop(struct mmap001 *m, uint64_t loop)
{
	uint64_t t0 = rt_now_ns();
	char *p = rt_mmap(NULL, m->size, RT_PROT_READ | RT_PROT_WRITE, RT_MAP_SHARED, m->fd, 0);

	if (rt_mmap_failed(p))
		mm_fail(m, "mmap MAP_SHARED", -rt_mmap_error(p));
	for (uint64_t off = 0; off < m->size; off += WLIO_BLOCK) {
		uint64_t *blk = (uint64_t *)(p + off);

		mm_trace(off);
		if (loop > 0)
			mm_check(m, blk, off, m->gen0 + loop - 1);
		wlio_block_fill(blk, off, m->gen0 + loop);
	}
	uint64_t t1 = rt_now_ns();
	long err = rt_syscall3(RT_SYS_msync, (long)p, (long)m->size, WLIO_MS_SYNC);
	if (err < 0)
		mm_fail(m, "msync MS_SYNC", err);
	uint64_t t2 = rt_now_ns();
	err = rt_munmap(p, m->size);
	if (err < 0)
		mm_fail(m, "munmap", err);
	uint64_t t3 = rt_now_ns();
	m->touch_ns += t1 - t0;
	m->msync_ns += t2 - t1;
	m->munmap_ns += t3 - t2;
	rt_dprintf(2, "mmap001: loop %llu: touch %llu ms, msync %llu ms, munmap %llu ms\n",
		   (unsigned long long)loop + 1, (unsigned long long)((t1 - t0) / 1000000),
		   (unsigned long long)((t2 - t1) / 1000000), (unsigned long long)((t3 - t2) / 1000000));
}

/* The last loop's stamps through read(2). */
static void mm_verify(struct mmap001 *m, uint64_t *buf, uint64_t gen)
{
	for (uint64_t off = 0; off < m->size; off += MMAP001_READ_CHUNK) {
		for (uint64_t done = 0; done < MMAP001_READ_CHUNK;) {
			long n = rt_syscall4(WLIO_SYS_pread64, m->fd, (long)((char *)buf + done),
					     (long)(MMAP001_READ_CHUNK - done), (long)(off + done));
			if (n == -RT_EINTR)
				continue;
			if (n <= 0)
				mm_fail(m, "pread64", n == 0 ? -RT_EINVAL : n);
			done += (uint64_t)n;
		}
		for (uint64_t b = 0; b < MMAP001_READ_CHUNK / WLIO_BLOCK; b++) {
			mm_trace(off + b * WLIO_BLOCK);
			mm_check(m, buf + b * WLIO_BLOCK_WORDS, off + b * WLIO_BLOCK, gen);
		}
	}
}

static void mm_report(const struct mmap001 *m, uint64_t loops, uint64_t t0, uint64_t t1)
{
	struct rt_json j;

	rt_dprintf(2, "mmap001 %s: %llu MiB x %llu loops in %llu ms (touch %llu, msync %llu, "
		   "munmap %llu, verify %llu ms), %llu mismatches\n", m->path,
		   (unsigned long long)(m->size / RT_MIB), (unsigned long long)loops,
		   (unsigned long long)((t1 - t0) / 1000000), (unsigned long long)(m->touch_ns / 1000000),
		   (unsigned long long)(m->msync_ns / 1000000), (unsigned long long)(m->munmap_ns / 1000000),
		   (unsigned long long)(m->verify_ns / 1000000), (unsigned long long)m->mismatches);
	rt_report_begin(&j, "mmap001");
	rt_json_str(&j, "dev", m->path);
	rt_json_u64(&j, "size_mib", m->size / RT_MIB);
	rt_json_u64(&j, "loops", loops);
	rt_json_u64(&j, "pages", m->size / WLIO_BLOCK);
	rt_json_u64(&j, "touch_ns", m->touch_ns);
	rt_json_u64(&j, "msync_ns", m->msync_ns);
	rt_json_u64(&j, "munmap_ns", m->munmap_ns);
	rt_json_u64(&j, "verify_ns", m->verify_ns);
	rt_report_usage(&j, t0, t1);
	rt_json_u64(&j, "mismatches", m->mismatches);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	struct mmap001 m = { 0 };

	if (argc != 4)
		rt_usage_error(MMAP001_USAGE, "mmap001: expected 3 arguments, got %d", argc - 1);
	m.path = argv[1];
	m.size = rt_arg_u64("mmap001", MMAP001_USAGE, "SIZE_MIB", argv[2], 1, MMAP001_MAX_MIB) * RT_MIB;
	uint64_t loops = rt_arg_u64("mmap001", MMAP001_USAGE, "LOOPS", argv[3], 1, MMAP001_MAX_LOOPS);
	if (wtrace_init("mmap001", envp) < 0)
		return 3;
	void *buf = rt_mmap(NULL, MMAP001_READ_CHUNK, RT_PROT_READ | RT_PROT_WRITE,
			    RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(buf)) {
		rt_dprintf(2, "mmap001: mmap of its %lu-byte buffer failed: %s\n",
			   MMAP001_READ_CHUNK, wlio_errno_name(rt_mmap_error(buf)));
		return 3;
	}
	m.fd = wlio_open("mmap001", m.path, true, m.size);
	if (m.fd < 0)
		return -m.fd;
	uint64_t t0 = rt_now_ns();
	/* Generations differ between runs: an earlier run's page cannot pass. */
	m.gen0 = rt_mix64(t0) << 20;
	for (uint64_t l = 0; l < loops; l++)
		mm_loop(&m, l);
	uint64_t t1 = rt_now_ns();
	mm_verify(&m, buf, m.gen0 + loops - 1);
	m.verify_ns = rt_now_ns() - t1;
	mm_report(&m, loops, t0, rt_now_ns());
	rt_syscall1(WLIO_SYS_close, m.fd);
	int err = wtrace_finish();
	return m.mismatches != 0 ? 1 : err < 0 ? 3 : 0;
}
