/*
 * filews.c - a file-cache working set beside a used-once stream, the
 * case Linux's workingset detection was made for (commit a528910e12ec,
 * "mm: thrash detection-based file cache sizing"):
 *
 *   filews DEV OLD_MIB WS_MIB STREAM_MIB PASSES
 *
 * Phase 1 reads DEV's first OLD_MIB twice: a working set that was hot
 * once (the second read activates its pages) and is never read again.
 * Phase 2 reads the next WS_MIB PASSES times; after every 256 KiB of the
 * working set it reads the next 256 KiB of the STREAM_MIB after it (a
 * stream read once per wrap, at the working set's pace).  When the
 * working set plus the stream's share exceed the inactive file list,
 * plain LRU with used-once rules evicts each working-set page before its
 * second read, so it never reaches the active list, while the old set
 * sits there unused; refault-distance activation recognises it.
 *
 * All reads are pread64 on DEV opened read-only; nothing is verified
 * (the data is whatever the device holds).  The record gives the bytes
 * and elapsed time of each phase; the kernel's pgpgin says how many had
 * to come from the disk.  Exit status: 0, 2 bad arguments (DEV smaller
 * than the three regions too), 3 a system call failed (one line naming
 * it).
 */
#include "rt/rt.h"
#include "wlio.h"

#define FILEWS_USAGE "filews DEV OLD_MIB WS_MIB STREAM_MIB PASSES"
#define FILEWS_CHUNK (256UL * 1024)

static char filews_buf[FILEWS_CHUNK];

static void filews_read(int fd, const char *path, uint64_t off)
{
	for (uint64_t done = 0; done < FILEWS_CHUNK;) {
		long n = rt_syscall4(WLIO_SYS_pread64, fd, (long)(filews_buf + done), (long)(FILEWS_CHUNK - done),
				     (long)(off + done));
		if (n == -RT_EINTR)
			continue;
		if (n <= 0) {
			rt_dprintf(2, "filews: pread64(%s, %lu bytes at %llu) failed: %s (%ld)\n", path,
				   FILEWS_CHUNK - done, (unsigned long long)(off + done),
				   wlio_errno_name(n ? n : -RT_EINVAL), n ? -n : RT_EINVAL);
			rt_exit_group(3);
		}
		done += (uint64_t)n;
	}
}

int main(int argc, char **argv)
{
	if (argc != 6)
		rt_usage_error(FILEWS_USAGE, "filews: expected 5 arguments, got %d", argc - 1);
	const char *path = argv[1];
	uint64_t old = rt_arg_u64("filews", FILEWS_USAGE, "OLD_MIB", argv[2], 0, 1 << 20) * RT_MIB;
	uint64_t ws = rt_arg_u64("filews", FILEWS_USAGE, "WS_MIB", argv[3], 1, 1 << 20) * RT_MIB;
	uint64_t stream = rt_arg_u64("filews", FILEWS_USAGE, "STREAM_MIB", argv[4], 1, 1 << 24) * RT_MIB;
	uint64_t passes = rt_arg_u64("filews", FILEWS_USAGE, "PASSES", argv[5], 1, 1 << 20);
	int fd = wlio_open("filews", path, false, old + ws + stream);
	if (fd < 0)
		return -fd;
	uint64_t t0 = rt_now_ns();
	for (int round = 0; round < 2; round++)
		for (uint64_t off = 0; off < old; off += FILEWS_CHUNK)
			filews_read(fd, path, off);
	uint64_t t1 = rt_now_ns(), spos = 0;
	for (uint64_t p = 0; p < passes; p++)
		for (uint64_t off = 0; off < ws; off += FILEWS_CHUNK) {
			filews_read(fd, path, old + off);
			filews_read(fd, path, old + ws + spos);
			spos = spos + FILEWS_CHUNK < stream ? spos + FILEWS_CHUNK : 0;
		}
	uint64_t t2 = rt_now_ns();
	rt_syscall1(WLIO_SYS_close, fd);
	struct rt_json j;
	rt_report_begin(&j, "filews");
	rt_json_str(&j, "dev", path);
	rt_json_u64(&j, "old_mib", old / RT_MIB);
	rt_json_u64(&j, "ws_mib", ws / RT_MIB);
	rt_json_u64(&j, "stream_mib", stream / RT_MIB);
	rt_json_u64(&j, "passes", passes);
	rt_json_u64(&j, "old_elapsed_ns", t1 - t0);
	rt_json_u64(&j, "ws_elapsed_ns", t2 - t1);
	rt_json_u64(&j, "bytes_read", 2 * old + 2 * passes * ws);
	rt_report_usage(&j, t0, t2);
	rt_json_end(&j, 1);
	rt_dprintf(2, "filews %s: old %llu MiB x2, working set %llu MiB x%llu beside %llu MiB of stream: %llu ms\n",
		   path, (unsigned long long)(old / RT_MIB), (unsigned long long)(ws / RT_MIB),
		   (unsigned long long)passes, (unsigned long long)(stream / RT_MIB),
		   (unsigned long long)((t2 - t0) / 1000000));
	return 0;
}
