/*
 * sysfuzz: random system calls with hostile arguments, to show that no
 * argument a program passes can crash the kernel or leak its memory.
 * sysfuzz SEED CALLS
 * sysfuzz areas: a 64 TiB area with a few pages (mprotect, madvise and
 * munmap of all of it), brk up by 1 TiB and back, and one munmap over 200
 * areas; each must succeed, quickly.
 *
 * Each call picks a system call number (mostly ones the kernel knows,
 * some it does not) and six arguments, each one of: 0, a small number,
 * -1, a random 64-bit value, a pointer into a scratch mapping (which
 * holds a few real paths), a kernel address, an address in the last page
 * below 2^47 (never mapped) or past it, a page-aligned address above the
 * program, or an open file descriptor.  Calls that would end or
 * stall the program (exit, execve, clone, kill, sleeps, futex, wait4,
 * arch_prctl, rseq) are left out, and console descriptors are never
 * written to, so the log stays readable.  The program may still die of
 * what it did to itself (a call that wrote over its own data): the
 * kernel must not.
 *
 * Refuses to run anywhere but our kernel: random system calls as root
 * would harm a Linux host.  Prints a record with the calls made and
 * how many failed, and exits 0.
 */
#include "rt/rt.h"

static uint64_t rng;

static bool differs(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return true;
	return false;
}

static bool contains(const char *s, const char *w)
{
	size_t n = rt_strlen(w);
	for (; *s; s++)
		if (!differs(s, w, n))
			return true;
	return false;
}

static uint64_t next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

/* The system calls the kernel serves (kernel/proc/syscall.c), minus
 * those that would end or stall the program. */
static const int known[] = {
	0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 24, 26, 28,
	39, 40, 63, 74, 75, 77, 89, 96, 98, 99, 102, 104, 105, 106, 107, 108, 110, 115,
	118, 120, 131, 157, 186, 201, 203, 204, 217, 218, 221, 228, 257, 262, 267, 269,
	273, 280, 302, 309, 318, 332, 439,
};

/* Never called: exit, exit_group, execve, clone, fork, kill, nanosleep,
 * clock_nanosleep, futex, wait4, arch_prctl, rseq. */
static bool excluded(long nr)
{
	static const int no[] = { 60, 231, 59, 56, 57, 62, 35, 230, 202, 61, 158, 334 };
	for (unsigned i = 0; i < sizeof no / sizeof no[0]; i++)
		if (nr == no[i])
			return true;
	return false;
}

/* Calls whose first argument is a descriptor they write to. */
static bool writes_fd0(long nr) { return nr == 1 || nr == 18 || nr == 20; }

#define SCRATCH (64 * 4096)
#define NFDS 8

static char *scratch;
static int fds[NFDS];
static unsigned nfds;

static long arg(void)
{
	switch (next() % 9) {
	case 0: return 0;
	case 1: return (long)(next() % 64);
	case 2: return -1;
	case 3: return (long)next();
	case 4: return (long)(scratch + next() % SCRATCH);
	case 5: return (long)(0xffff800000000000ull + (next() % (1ull << 40)));
	case 6: return (long)(0x7ffffffff000ull + next() % 8192);        /* the page never mapped, then non-canonical */
	case 7: return (long)(0x10000000ull + (next() % 4096) * 4096);     /* page-aligned, above the program */
	default: return nfds ? fds[next() % nfds] : 3;
	}
}

static int fails;

static void expect0(long r, const char *what)
{
	if (r != 0) {
		rt_dprintf(2, "sysfuzz: %s returned %ld\n", what, r);
		fails++;
	}
}

/* sysfuzz areas: calls whose cost must follow what is mapped, not the
 * size of the range, and an munmap over many areas. */
static int areas(void)
{
	struct rt_json j;
	uint64_t t0 = rt_now_ns();
	uint64_t len = 64ull << 40;             /* 64 TiB of address space, nothing in it */
	char *p = rt_mmap(0, len, RT_PROT_NONE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | RT_MAP_NORESERVE, -1, 0);
	if (rt_mmap_failed(p)) {
		rt_dprintf(2, "sysfuzz: mmap of 64 TiB PROT_NONE failed (error %d)\n", rt_mmap_error(p));
		return 3;
	}
	char *w = p + (1ull << 40);
	expect0(rt_syscall3(10, (long)w, 64 << 20, RT_PROT_READ | RT_PROT_WRITE), "mprotect of 64 MiB inside");
	for (int i = 0; i < 16; i++)
		w[(uint64_t)i << 22] = 1;
	expect0(rt_syscall3(28, (long)p, (long)len, 20), "madvise(MADV_COLD) of 64 TiB");
	expect0(rt_syscall3(10, (long)p, (long)len, RT_PROT_READ), "mprotect of 64 TiB");
	expect0(rt_syscall2(11, (long)p, (long)len), "munmap of 64 TiB");
	uint64_t t1 = rt_now_ns();
	/* Linux refuses this (overcommit): then only the way down is tried. */
	long cur = rt_syscall1(12, 0);
	long big = cur + (1l << 40);
	bool up = rt_syscall1(12, big) == big;
	if (up)
		*(volatile char *)(big - 1) = 1;
	if (rt_syscall1(12, cur) != cur) {
		rt_dprintf(2, "sysfuzz: brk back down refused\n");
		fails++;
	}
	uint64_t t2 = rt_now_ns();
	/* 200 one-page areas side by side, every other one read-only so none
	 * merge, then one munmap over all of them. */
	char *base = (char *)0x200000000000ul;
	for (int i = 0; i < 200; i++) {
		char *q = rt_mmap(base + i * 4096l, 4096, RT_PROT_READ | (i & 1 ? 0 : RT_PROT_WRITE),
				  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | 0x10 /* MAP_FIXED */, -1, 0);
		if (rt_mmap_failed(q)) {
			rt_dprintf(2, "sysfuzz: mmap of area %d failed\n", i);
			return 3;
		}
		if (!(i & 1))
			q[0] = (char)i;
	}
	expect0(rt_syscall2(11, (long)base, 200 * 4096l), "munmap over 200 areas");
	uint64_t t3 = rt_now_ns();
	rt_report_begin(&j, "sysfuzz");
	rt_json_str(&j, "mode", "areas");
	rt_json_u64(&j, "huge_area_ns", t1 - t0);
	rt_json_u64(&j, "brk_ns", t2 - t1);
	rt_json_bool(&j, "brk_up_1tib", up);
	rt_json_u64(&j, "many_areas_ns", t3 - t2);
	rt_json_u64(&j, "failures", (uint64_t)fails);
	rt_report_usage(&j, t0, t3);
	if (rt_json_end(&j, 1) < 0)
		return 3;
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char usage[] = "sysfuzz SEED CALLS | sysfuzz areas";
	if (argc == 2 && !rt_strcmp(argv[1], "areas"))
		return areas();
	if (argc != 3)
		rt_usage_error(usage, "sysfuzz: expected SEED and CALLS, or areas");
	rng = rt_arg_u64("sysfuzz", usage, "SEED", argv[1], 0, UINT64_MAX) * 0x9e3779b97f4a7c15ull + 1;
	uint64_t calls = rt_arg_u64("sysfuzz", usage, "CALLS", argv[2], 1, 100000000);
	char u[6][65];
	if (rt_syscall1(63, (long)u) != 0 || !contains(u[2], "mmkernel")) {
		rt_dprintf(2, "sysfuzz: runs only on mmkernel (random system calls as root would harm this host)\n");
		return 2;
	}
	scratch = rt_mmap(0, SCRATCH, RT_PROT_READ | RT_PROT_WRITE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(scratch)) {
		rt_dprintf(2, "sysfuzz: mmap of the scratch area failed\n");
		return 3;
	}
	/* Real paths for the calls that take one, at page starts. */
	static const char *const paths[] = {
		"/proc/self/status", "/proc/meminfo", "/proc/vmstat", "/bin/hello", "/dev/nvme0n1", "/", "/proc",
	};
	for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		rt_memcpy(scratch + i * 4096, paths[i], rt_strlen(paths[i]) + 1);
		long fd = rt_syscall4(257, -100, (long)paths[i], 0, 0);   /* openat(AT_FDCWD, path, O_RDONLY) */
		if (fd >= 0 && nfds < NFDS)
			fds[nfds++] = (int)fd;
	}
	uint64_t t0 = rt_now_ns(), failed = 0, randnr = 0;
	for (uint64_t i = 0; i < calls; i++) {
		long nr;
		if (next() % 64 == 0) {
			nr = (long)(next() % 1024);     /* mostly numbers the kernel does not serve */
			if (excluded(nr))
				continue;
			randnr++;
		} else {
			nr = known[next() % (sizeof known / sizeof known[0])];
		}
		long a[6];
		for (int k = 0; k < 6; k++)
			a[k] = arg();
		if (writes_fd0(nr) && a[0] >= 0 && a[0] <= 2)
			a[0] = 3;
		if (nr == 40 && a[0] >= 0 && a[0] <= 2)          /* sendfile's out_fd */
			a[0] = 3;
		/* mmap, mprotect, munmap and madvise keep off the program and
		 * its stack (else the first munmap(0, huge) ends the run). */
		if (nr == 9 || nr == 10 || nr == 11 || nr == 28) {
			uint64_t lo = (uint64_t)a[0], n = (uint64_t)a[1];
			if (lo < 0x10000000ull || lo + n < lo || lo + n > 0x7f0000000000ull)
				a[0] = (long)(0x10000000ull + (next() % 4096) * 4096);
			if ((uint64_t)a[0] + n > 0x7f0000000000ull || (uint64_t)a[0] + n < (uint64_t)a[0])
				a[1] = (long)(next() % (1ull << 32));
		}
		if (rt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]) < 0)
			failed++;
	}
	uint64_t t1 = rt_now_ns();
	struct rt_json j;
	rt_report_begin(&j, "sysfuzz");
	rt_json_u64(&j, "seed", rt_arg_u64("sysfuzz", usage, "SEED", argv[1], 0, UINT64_MAX));
	rt_json_u64(&j, "calls", calls);
	rt_json_u64(&j, "failed", failed);
	rt_json_u64(&j, "random_numbers", randnr);
	rt_json_u64(&j, "files_open", nfds);
	rt_report_usage(&j, t0, t1);
	return rt_json_end(&j, 1) < 0 ? 3 : 0;
}
