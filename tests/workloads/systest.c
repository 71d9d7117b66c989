/*
 * systest: every system call of the kernel's subset, normal and error
 * paths, checked against Linux's documented results.  It runs the same on
 * Linux (make test runs it there too), so a difference from Linux shows up
 * as a failed check on our kernel only.  Prints one line per failure and a
 * JSON record {"type":"workload","name":"systest","checks":N,"failed":N};
 * exit status 1 when anything failed.
 */
#include "rt/rt.h"

/* From rt/rt_internal.h, which is not included: it declares main with three arguments. */
long rt_clone_raw(unsigned long flags, void *child_sp, volatile int *parent_tid,
		  volatile int *child_tid, void *tls);

#define EFAULT 14
#define EBADF 9
#define EEXIST 17
#define ENOTTY 25
#define EPERM 1
#define EACCES 13
#define ENODEV 19

static int checks, failed;

static void check(bool ok, const char *what, long got)
{
	checks++;
	if (!ok) {
		failed++;
		rt_dprintf(2, "systest: FAIL %s (got %ld)\n", what, got);
	}
}

#define EXPECT(expr, cond) do { long r_ = (long)(expr); check(r_ cond, #expr " " #cond, r_); } while (0)

static long sys(long nr, long a, long b, long c, long d, long e, long f)
{
	return rt_syscall6(nr, a, b, c, d, e, f);
}

static int prefix_differs(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 1;
	return 0;
}

static void test_io(void)
{
	static const char msg[] = "systest: write ok\n";
	EXPECT(rt_write(1, msg, sizeof msg - 1), == (long)sizeof msg - 1);
	EXPECT(rt_write(1, (void *)16, 10), == -EFAULT);
	EXPECT(rt_write(1, (void *)0xffffffff80000000ul, 10), == -EFAULT);
	EXPECT(rt_write(99, msg, 4), == -EBADF);
	struct { const void *base; size_t len; } iov[2] = { { "systest: ", 9 }, { "writev ok\n", 10 } };
	EXPECT(sys(RT_SYS_writev, 1, (long)iov, 2, 0, 0, 0), == 19);
	/* Linux checks the whole vector first: a length negative as ssize_t
	 * is -EINVAL, a range past user space -EFAULT (so no total can pass
	 * SSIZE_MAX), and nothing is written. */
	struct { const void *base; size_t len; } bad[2] = { { "systest: FAIL writev wrote\n", (size_t)-1 },
							     { "x", 1 } };
	EXPECT(sys(RT_SYS_writev, 1, (long)bad, 2, 0, 0, 0), == -RT_EINVAL);
	bad[0].len = 27;
	bad[1].len = ~(size_t)0 >> 1;           /* SSIZE_MAX: the total would overflow */
	EXPECT(sys(RT_SYS_writev, 1, (long)bad, 2, 0, 0, 0), == -EFAULT);
	EXPECT(sys(RT_SYS_writev, 1, (long)iov, 1025, 0, 0, 0), == -RT_EINVAL);  /* > IOV_MAX */
	char buf[8];
	EXPECT(rt_read(0, buf, sizeof buf), == 0);
	EXPECT(sys(RT_SYS_ioctl, 1, 0x5401, (long)buf, 0, 0, 0), == -ENOTTY);
}

static void test_mmap(void)
{
	char *p = rt_mmap(0, 3 * RT_PAGE_SIZE, 3, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	check(!rt_mmap_failed(p), "mmap anon private", (long)p);
	if (rt_mmap_failed(p))
		return;
	check(p[0] == 0 && p[2 * RT_PAGE_SIZE + 5] == 0, "fresh pages read zero", p[0]);
	p[0] = 1;
	p[RT_PAGE_SIZE] = 2;
	p[2 * RT_PAGE_SIZE] = 3;
	EXPECT(rt_munmap(p + RT_PAGE_SIZE, RT_PAGE_SIZE), == 0);           /* split */
	check(p[0] == 1 && p[2 * RT_PAGE_SIZE] == 3, "neighbours survive a partial munmap", p[0]);
	EXPECT(rt_munmap(p + 1, RT_PAGE_SIZE), == -RT_EINVAL);
	EXPECT(rt_mprotect(p, RT_PAGE_SIZE, RT_PROT_READ), == 0);
	check(p[0] == 1, "readable after mprotect(PROT_READ)", p[0]);
	EXPECT(rt_mprotect(p + RT_PAGE_SIZE, RT_PAGE_SIZE, 3), == -RT_ENOMEM);   /* the hole */
	EXPECT(rt_mprotect(p + 3, RT_PAGE_SIZE, 3), == -RT_EINVAL);
	EXPECT(sys(RT_SYS_msync, (long)p, RT_PAGE_SIZE, 4, 0, 0, 0), == 0);
	EXPECT(sys(RT_SYS_msync, (long)p + 1, RT_PAGE_SIZE, 4, 0, 0, 0), == -RT_EINVAL);
	EXPECT(sys(RT_SYS_msync, (long)p + RT_PAGE_SIZE, RT_PAGE_SIZE, 4, 0, 0, 0), == -RT_ENOMEM);
	EXPECT(rt_munmap(p, 3 * RT_PAGE_SIZE), == 0);
	EXPECT((long)rt_mmap(0, 0, 3, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0), == -RT_EINVAL);
	EXPECT((long)rt_mmap(0, 4096, 3, RT_MAP_PRIVATE, -1, 0), == -EBADF);
	EXPECT((long)rt_mmap(0, 4096, 3, RT_MAP_ANONYMOUS, -1, 0), == -RT_EINVAL);
	/* MAP_FIXED over an existing mapping replaces it; NOREPLACE refuses. */
	char *q = rt_mmap(0, 2 * RT_PAGE_SIZE, 3, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(q))
		return;
	q[0] = 7;
	char *r = rt_mmap(q, RT_PAGE_SIZE, 3, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | 0x10, -1, 0);
	check(r == q && q[0] == 0, "MAP_FIXED replaces with a fresh page", (long)r);
	EXPECT((long)rt_mmap(q, RT_PAGE_SIZE, 3, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | 0x100000, -1, 0), == -EEXIST);
	rt_munmap(q, 2 * RT_PAGE_SIZE);
}

static void test_madvise_shared(void)
{
	char *a = rt_mmap(0, 2 * RT_PAGE_SIZE, 3, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	char *s = rt_mmap(0, 2 * RT_PAGE_SIZE, 3, RT_MAP_SHARED | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(a) || rt_mmap_failed(s)) {
		check(false, "mmap for madvise", 0);
		return;
	}
	a[0] = 5;
	s[0] = 6;
	EXPECT(rt_madvise(a, RT_PAGE_SIZE, 4), == 0);                 /* DONTNEED */
	EXPECT(rt_madvise(s, RT_PAGE_SIZE, 4), == 0);
	check(a[0] == 0, "MADV_DONTNEED zeroes private anonymous memory", a[0]);
	check(s[0] == 6, "MADV_DONTNEED keeps shared memory", s[0]);
	EXPECT(rt_madvise(a, RT_PAGE_SIZE, 3), == 0);                 /* WILLNEED */
	EXPECT(rt_madvise(a, RT_PAGE_SIZE, 1), == 0);                 /* RANDOM */
	EXPECT(rt_madvise(a + 1, RT_PAGE_SIZE, 4), == -RT_EINVAL);
	a[0] = 9;
	EXPECT(rt_madvise(a, 2 * RT_PAGE_SIZE, 20), == 0);             /* COLD */
	EXPECT(rt_madvise(s, 2 * RT_PAGE_SIZE, 21), == 0);             /* PAGEOUT */
	check(a[0] == 9, "MADV_COLD keeps the data", a[0]);
	check(s[0] == 6, "MADV_PAGEOUT keeps the data", s[0]);
	EXPECT(rt_madvise(a, RT_PAGE_SIZE, 7), == -RT_EINVAL);          /* no such advice */
	EXPECT(rt_madvise(a, RT_PAGE_SIZE, 1000), == -RT_EINVAL);
	rt_munmap(a, 2 * RT_PAGE_SIZE);
	EXPECT(rt_madvise(a, RT_PAGE_SIZE, 4), == -RT_ENOMEM);
	rt_munmap(s, 2 * RT_PAGE_SIZE);
}

static void test_brk(void)
{
	long cur = sys(RT_SYS_brk, 0, 0, 0, 0, 0, 0);
	check(cur > 0, "brk(0) returns the break", cur);
	long grown = sys(RT_SYS_brk, cur + 65536, 0, 0, 0, 0, 0);
	check(grown == cur + 65536, "brk grows", grown);
	if (grown == cur + 65536) {
		((volatile char *)cur)[65535] = 1;
		check(((volatile char *)cur)[65535] == 1, "new heap is usable", 0);
	}
	EXPECT(sys(RT_SYS_brk, cur, 0, 0, 0, 0, 0), == cur);
}

static void test_time(void)
{
	struct rt_timespec a, b;
	EXPECT(rt_clock_gettime(1, &a), == 0);
	EXPECT(rt_clock_gettime(1, &b), == 0);
	check(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec), "MONOTONIC never goes back", 0);
	EXPECT(rt_clock_gettime(0, &a), == 0);
	check(a.tv_sec > 1577836800, "REALTIME is after 2020", a.tv_sec);
	EXPECT(rt_clock_gettime(2, &a), == 0);
	EXPECT(rt_clock_gettime(3, &a), == 0);
	EXPECT(rt_clock_gettime(100, &a), == -RT_EINVAL);
	EXPECT(rt_clock_gettime(1, (void *)8), == -EFAULT);
	struct rt_timespec ten = { 0, 10000000 }, bad = { 0, 2000000000 };
	uint64_t t0 = rt_now_ns();
	EXPECT(rt_nanosleep(&ten, 0), == 0);
	uint64_t dt = rt_now_ns() - t0;
	check(dt >= 10000000, "nanosleep(10 ms) sleeps at least 10 ms", (long)dt);
	EXPECT(rt_nanosleep(&bad, 0), == -RT_EINVAL);
	EXPECT(sys(RT_SYS_clock_nanosleep, 1, 0, (long)&ten, 0, 0, 0), == 0);
	struct rt_timespec abs;
	rt_clock_gettime(1, &abs);
	abs.tv_nsec += 5000000;
	if (abs.tv_nsec >= 1000000000) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000;
	}
	EXPECT(sys(RT_SYS_clock_nanosleep, 1, 1, (long)&abs, 0, 0, 0), == 0);
	struct rt_timespec now;
	rt_clock_gettime(1, &now);
	check(now.tv_sec > abs.tv_sec || (now.tv_sec == abs.tv_sec && now.tv_nsec >= abs.tv_nsec),
	      "TIMER_ABSTIME sleeps until the deadline", 0);
}

static void test_identity(void)
{
	EXPECT(rt_getpid(), > 0);
	EXPECT(rt_gettid() == rt_getpid(), == 1);
	EXPECT(sys(RT_SYS_getppid, 0, 0, 0, 0, 0, 0), >= 0);
	EXPECT(rt_sched_yield(), == 0);
	char u[6][65];
	EXPECT(sys(RT_SYS_uname, (long)u, 0, 0, 0, 0, 0), == 0);
	check(u[0][0] != 0 && u[4][0] == 'x', "uname fills sysname and machine", 0);
	EXPECT(sys(RT_SYS_uname, 8, 0, 0, 0, 0, 0), == -EFAULT);
	uint8_t rnd[16];
	EXPECT(sys(RT_SYS_getrandom, (long)rnd, sizeof rnd, 0, 0, 0, 0), == 16);
	uint64_t lim[2];
	EXPECT(sys(RT_SYS_prlimit64, 0, 3, 0, (long)lim, 0, 0), == 0);
	check(lim[0] > 0, "RLIMIT_STACK is set", (long)lim[0]);
	struct rt_rusage ru;
	EXPECT(rt_getrusage(0, &ru), == 0);
	check(ru.ru_minflt > 0, "getrusage counts minor faults", ru.ru_minflt);
	EXPECT(rt_getrusage(7, &ru), == -RT_EINVAL);
	uint64_t mask = 0;
	EXPECT(sys(RT_SYS_sched_getaffinity, 0, sizeof mask, (long)&mask, 0, 0, 0), > 0);
	check(mask & 1, "CPU 0 is in the affinity mask", (long)mask);
}

/* Files, /proc and the calls tools make: only what Linux answers the same
 * way for root and for a user (systest also runs on a Linux host). */
#define AT_FDCWD (-100)
#define ENOENT 2
#define ESPIPE 29

static void test_files(void)
{
	char buf[64];
	uint64_t st[18];
	long fd = sys(257, AT_FDCWD, (long)"/proc/meminfo", 0, 0, 0, 0);     /* openat */
	EXPECT(fd, >= 3);
	EXPECT(rt_read((int)fd, buf, 9), == 9);
	check(!prefix_differs(buf, "MemTotal:", 9), "/proc/meminfo starts with MemTotal:", 0);
	EXPECT(sys(8, fd, 0, 1, 0, 0, 0), == 9);                           /* lseek SEEK_CUR */
	EXPECT(sys(8, fd, -1, 0, 0, 0, 0), == -RT_EINVAL);
	EXPECT(sys(17, fd, (long)buf, 9, 0, 0, 0), == 9);                  /* pread64 at 0 */
	EXPECT(sys(5, fd, (long)st, 0, 0, 0, 0), == 0);                    /* fstat */
	check((st[3] & 0170000) == 0100000, "fstat: /proc/meminfo is a regular file", (long)st[3]);
	EXPECT(rt_write((int)fd, "x", 1), == -EBADF);
	EXPECT(sys(3, fd, 0, 0, 0, 0, 0), == 0);                           /* close */
	EXPECT(sys(3, fd, 0, 0, 0, 0, 0), == -EBADF);
	EXPECT(rt_read((int)fd, buf, 1), == -EBADF);
	EXPECT(sys(8, 1, 0, 0, 0, 0, 0), == -ESPIPE);
	EXPECT(sys(257, AT_FDCWD, (long)"/proc/no-such-file", 0, 0, 0, 0), == -ENOENT);
	EXPECT(sys(257, AT_FDCWD, 8, 0, 0, 0, 0), == -EFAULT);
	EXPECT(sys(262, AT_FDCWD, (long)"/proc/self", (long)st, 0, 0, 0), == 0);      /* newfstatat */
	check((st[3] & 0170000) == 0040000, "newfstatat: /proc/self is a folder", (long)st[3]);
	long n = sys(89, (long)"/proc/self/exe", (long)buf, sizeof buf, 0, 0, 0);      /* readlink */
	check(n > 1 && buf[0] == '/', "readlink /proc/self/exe gives an absolute path", n);
	EXPECT(sys(89, (long)"/proc/meminfo", (long)buf, sizeof buf, 0, 0, 0), == -RT_EINVAL);
	uint8_t stx[256];
	EXPECT(sys(332, AT_FDCWD, (long)"/proc/meminfo", 0, 0x7ff, (long)stx, 0), == 0);   /* statx */
	check((stx[0x1d] & 0xf0) == 0x80, "statx: /proc/meminfo is a regular file", stx[0x1d]);
}

/* dup, dup2, dup3, fcntl: one open file under several numbers, sharing
 * its position; dup2 onto stdin and back; /dev/null and /dev/zero. */
static void test_dup(void)
{
	char buf[16];
	long fd = sys(257, AT_FDCWD, (long)"/proc/meminfo", 0, 0, 0, 0);
	EXPECT(fd, >= 3);
	long d = sys(32, fd, 0, 0, 0, 0, 0);                                /* dup */
	check(d > 2 && d != fd, "dup gives a new fd", d);
	EXPECT(rt_read((int)fd, buf, 3), == 3);
	EXPECT(sys(8, d, 0, 1, 0, 0, 0), == 3);                             /* the position is shared */
	EXPECT(sys(33, fd, 9, 0, 0, 0, 0), == 9);                           /* dup2 */
	EXPECT(sys(8, 9, 0, 1, 0, 0, 0), == 3);
	EXPECT(sys(33, fd, fd, 0, 0, 0, 0), == fd);
	EXPECT(sys(292, fd, fd, 0, 0, 0, 0), == -RT_EINVAL);                /* dup3 onto itself */
	EXPECT(sys(292, fd, 10, 1, 0, 0, 0), == -RT_EINVAL);                /* dup3: a flag it does not take */
	EXPECT(sys(292, fd, 10, 02000000, 0, 0, 0), == 10);                 /* dup3 O_CLOEXEC */
	EXPECT(sys(72, 10, 1, 0, 0, 0, 0), == 1);                           /* F_GETFD: FD_CLOEXEC */
	EXPECT(sys(72, 9, 1, 0, 0, 0, 0), == 0);
	EXPECT(sys(72, 9, 2, 1, 0, 0, 0), == 0);                            /* F_SETFD */
	EXPECT(sys(72, 9, 1, 0, 0, 0, 0), == 1);
	EXPECT(sys(72, fd, 0, 20, 0, 0, 0), == 20);                         /* F_DUPFD: lowest free >= 20 */
	EXPECT(sys(72, fd, 3, 0, 0, 0, 0) & 3, == 0);                       /* F_GETFL: O_RDONLY */
	/* F_SETFL: the flags it may change (O_NONBLOCK, O_APPEND...) for
	 * F_GETFL, other bits ignored; O_DIRECT needs a file that can; a
	 * refusal changes nothing; the console takes them too. */
	EXPECT(sys(72, fd, 4, 04000 | 02000 | 0100, 0, 0, 0), == 0);       /* O_NONBLOCK|O_APPEND, O_CREAT ignored */
	EXPECT(sys(72, fd, 3, 0, 0, 0, 0) & 06103, == 06000);
	EXPECT(sys(72, fd, 4, 040000, 0, 0, 0), == -RT_EINVAL);            /* O_DIRECT on /proc */
	EXPECT(sys(72, fd, 3, 0, 0, 0, 0) & 046003, == 06000);
	EXPECT(sys(72, fd, 4, 0, 0, 0, 0), == 0);
	EXPECT(sys(72, fd, 3, 0, 0, 0, 0) & 046003, == 0);
	EXPECT(sys(72, 1, 4, 04000, 0, 0, 0), == 0);                        /* stdout */
	EXPECT(sys(72, 1, 3, 0, 0, 0, 0) & 04000, == 04000);
	EXPECT(rt_write(1, "", 0), == 0);
	EXPECT(sys(72, 1, 4, 0, 0, 0, 0), == 0);
	EXPECT(sys(72, 1, 3, 0, 0, 0, 0) & 04000, == 0);
	long ce = sys(257, AT_FDCWD, (long)"/proc/meminfo", 02000000, 0, 0, 0);    /* O_CLOEXEC */
	EXPECT(sys(72, ce, 1, 0, 0, 0, 0), == 1);
	EXPECT(sys(3, ce, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(33, fd, -1, 0, 0, 0, 0), == -EBADF);
	EXPECT(sys(33, 99, 5, 0, 0, 0, 0), == -EBADF);
	EXPECT(sys(72, 99, 1, 0, 0, 0, 0), == -EBADF);
	/* The file onto stdin, read there, and the saved stdin back. */
	long saved = sys(32, 0, 0, 0, 0, 0, 0);
	EXPECT(saved, > 2);
	EXPECT(sys(8, fd, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(33, fd, 0, 0, 0, 0, 0), == 0);
	EXPECT(rt_read(0, buf, 9), == 9);
	check(!prefix_differs(buf, "MemTotal:", 9), "read(0) after dup2 reads the file", 0);
	EXPECT(sys(33, saved, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(3, saved, 0, 0, 0, 0, 0), == 0);
	/* Closing stdin leaves fd 0 closed; the next open takes the number;
	 * dup2 of a saved duplicate gives stdin back. */
	long keep = sys(32, 0, 0, 0, 0, 0, 0);
	EXPECT(keep, > 2);
	EXPECT(sys(3, 0, 0, 0, 0, 0, 0), == 0);
	EXPECT(rt_read(0, buf, 1), == -EBADF);
	EXPECT(sys(3, 0, 0, 0, 0, 0, 0), == -EBADF);
	EXPECT(sys(72, 0, 1, 0, 0, 0, 0), == -EBADF);                      /* F_GETFD */
	EXPECT(sys(257, AT_FDCWD, (long)"/proc/meminfo", 0, 0, 0, 0), == 0);
	EXPECT(rt_read(0, buf, 9), == 9);
	check(!prefix_differs(buf, "MemTotal:", 9), "the open that took fd 0 reads the file", 0);
	EXPECT(sys(3, 0, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(72, keep, 0, 0, 0, 0, 0), == 0);                        /* F_DUPFD from 0: the closed 0 */
	EXPECT(sys(3, 0, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(33, keep, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(3, keep, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(72, 0, 1, 0, 0, 0, 0), == 0);                            /* stdin is open again */
	/* Closing one number leaves the others open. */
	EXPECT(sys(3, fd, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(8, d, 0, 1, 0, 0, 0), == 9);
	static const long more[] = { 9, 10, 20 };
	EXPECT(sys(3, d, 0, 0, 0, 0, 0), == 0);
	for (unsigned k = 0; k < 3; k++)
		EXPECT(sys(3, more[k], 0, 0, 0, 0, 0), == 0);
	/* /dev/null swallows writes and reads nothing; /dev/zero reads zeros. */
	long nul = sys(257, AT_FDCWD, (long)"/dev/null", 2, 0, 0, 0);
	EXPECT(nul, >= 3);
	EXPECT(rt_write((int)nul, "gone", 4), == 4);
	EXPECT(rt_read((int)nul, buf, sizeof buf), == 0);
	EXPECT(sys(3, nul, 0, 0, 0, 0, 0), == 0);
	long zero = sys(257, AT_FDCWD, (long)"/dev/zero", 0, 0, 0, 0);
	EXPECT(zero, >= 3);
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = 'x';
	EXPECT(rt_read((int)zero, buf, sizeof buf), == (long)sizeof buf);
	check(buf[0] == 0 && buf[sizeof buf - 1] == 0, "/dev/zero reads zeros", buf[0]);
	/* Mapped: private is anonymous memory; shared wants a read-write
	 * open for PROT_WRITE; /dev/null maps nothing. */
	long pm = sys(9, 0, 8192, 3, 2, zero, 0);                          /* PROT_READ|WRITE, MAP_PRIVATE */
	EXPECT(pm, > 0);
	if (pm > 0) {
		volatile char *m = (volatile char *)pm;
		check(m[0] == 0 && m[8191] == 0, "a private /dev/zero map reads zeros", m[0]);
		m[4096] = 7;
		EXPECT(m[4096], == 7);
		EXPECT(sys(11, pm, 8192, 0, 0, 0, 0), == 0);
	}
	EXPECT(sys(9, 0, 4096, 3, 1, zero, 0), == -EACCES);                /* MAP_SHARED, PROT_WRITE, O_RDONLY */
	EXPECT(sys(3, zero, 0, 0, 0, 0, 0), == 0);
	zero = sys(257, AT_FDCWD, (long)"/dev/zero", 2, 0, 0, 0);
	long sm = sys(9, 0, 4096, 3, 1, zero, 0);
	EXPECT(sm, > 0);
	if (sm > 0) {
		*(volatile long *)sm = 42;
		EXPECT(*(volatile long *)sm, == 42);
		EXPECT(sys(11, sm, 4096, 0, 0, 0, 0), == 0);
	}
	EXPECT(sys(3, zero, 0, 0, 0, 0, 0), == 0);
	nul = sys(257, AT_FDCWD, (long)"/dev/null", 2, 0, 0, 0);
	EXPECT(sys(9, 0, 4096, 3, 2, nul, 0), == -ENODEV);
	EXPECT(sys(3, nul, 0, 0, 0, 0, 0), == 0);
}

/* sysinfo, time, gettimeofday, the ids, prctl's name. */
static void test_system(void)
{
	uint64_t si[14];
	EXPECT(sys(99, (long)si, 0, 0, 0, 0, 0), == 0);
	uint32_t unit = (uint32_t)si[13];
	check(unit && si[4] > 0 && si[5] <= si[4] && si[9] <= si[8], "sysinfo: free <= total", (long)si[5]);
	EXPECT(sys(99, 8, 0, 0, 0, 0, 0), == -EFAULT);
	struct rt_timespec rt;
	rt_clock_gettime(0, &rt);
	long t = sys(201, 0, 0, 0, 0, 0, 0);                               /* time */
	check(t >= rt.tv_sec && t <= rt.tv_sec + 5, "time() agrees with CLOCK_REALTIME", t - rt.tv_sec);
	int64_t tv[2];
	EXPECT(sys(96, (long)tv, 0, 0, 0, 0, 0), == 0);                    /* gettimeofday */
	check(tv[0] >= rt.tv_sec && tv[0] <= rt.tv_sec + 5 && tv[1] < 1000000, "gettimeofday agrees", tv[0] - rt.tv_sec);
	long uid = sys(102, 0, 0, 0, 0, 0, 0), gid = sys(104, 0, 0, 0, 0, 0, 0);
	EXPECT(sys(107, 0, 0, 0, 0, 0, 0) == uid, == 1);                  /* geteuid */
	EXPECT(sys(108, 0, 0, 0, 0, 0, 0) == gid, == 1);                  /* getegid */
	EXPECT(sys(105, uid, 0, 0, 0, 0, 0), == 0);                        /* setuid to itself */
	EXPECT(sys(106, gid, 0, 0, 0, 0, 0), == 0);
	EXPECT(sys(105, -1, 0, 0, 0, 0, 0), == -RT_EINVAL);
	char name[16];
	EXPECT(sys(157, 15, (long)"systest-renamed-long", 0, 0, 0, 0), == 0);   /* PR_SET_NAME */
	EXPECT(sys(157, 16, (long)name, 0, 0, 0, 0), == 0);                /* PR_GET_NAME */
	check(!rt_strcmp(name, "systest-renamed"), "PR_GET_NAME returns the first 15 characters", 0);
	EXPECT(sys(157, 0x7fff, 0, 0, 0, 0, 0), == -RT_EINVAL);
}

static void test_signals_and_tls(void)
{
	uint8_t old[32];
	EXPECT(sys(RT_SYS_rt_sigaction, 10, 0, (long)old, 8, 0, 0), == 0);
	uint64_t oldmask;
	EXPECT(sys(RT_SYS_rt_sigprocmask, 0, 0, (long)&oldmask, 8, 0, 0), == 0);
	uint64_t ss[3];
	EXPECT(sys(RT_SYS_sigaltstack, 0, (long)ss, 0, 0, 0, 0), == 0);
	unsigned long fs = 0;
	EXPECT(rt_arch_prctl(0x1003, (unsigned long)&fs), == 0);
	check(fs != 0, "ARCH_GET_FS returns the TLS base crt0 set", (long)fs);
	EXPECT(rt_arch_prctl(0x1234, 0), == -RT_EINVAL);
	static int robust[6];
	EXPECT(sys(RT_SYS_set_robust_list, (long)robust, 24, 0, 0, 0, 0), == 0);
	EXPECT(sys(RT_SYS_set_robust_list, (long)robust, 7, 0, 0, 0, 0), == -RT_EINVAL);
	static int ctid;
	EXPECT(sys(RT_SYS_set_tid_address, (long)&ctid, 0, 0, 0, 0, 0), == rt_gettid());
}

static volatile int flag;

static int waker(void *arg)
{
	(void)arg;
	struct rt_timespec t = { 0, 20000000 };
	rt_nanosleep(&t, 0);
	flag = 1;
	rt_futex_wake(&flag, 1, true);
	return 42;
}

static void test_futex_and_threads(void)
{
	static volatile int word = 5;
	struct rt_timespec ten = { 0, 10000000 };
	EXPECT(rt_futex_wait(&word, 4, 0, true), == -RT_EAGAIN);
	EXPECT(rt_futex_wait(&word, 5, &ten, true), == -RT_ETIMEDOUT);
	EXPECT(rt_futex_wake(&word, 1, true), == 0);
	EXPECT(rt_futex_wait((volatile int *)8, 0, 0, true), == -EFAULT);
	struct rt_thread *t;
	EXPECT(rt_thread_create(&t, waker, 0, 65536), == 0);
	while (!flag)
		rt_futex_wait(&flag, 0, 0, true);
	int res = 0;
	EXPECT(rt_thread_join(t, &res), == 0);
	check(res == 42, "thread result comes back through join", res);
}

/* A futex wait of "never": 18446744074 s is 2^64 ns and 0.29 s more,
 * so a kernel that multiplies without care waits 0.29 s.  It must wait
 * until it is woken. */
static volatile int far_word, far_state;
static long far_result;

static int far_waiter(void *arg)
{
	(void)arg;
	struct rt_timespec never = { 18446744074ll, 0 };
	far_state = 1;
	far_result = rt_futex_wait(&far_word, 0, &never, true);
	far_state = 2;
	return 0;
}

static void test_far_timeouts(void)
{
	struct rt_timespec huge = { 0x7fffffffffffffffll, 999999999 }, half = { 0, 500000000 };
	static volatile int other = 1;
	EXPECT(rt_futex_wait(&other, 0, &huge, true), == -RT_EAGAIN);
	struct rt_thread *t;
	EXPECT(rt_thread_create(&t, far_waiter, 0, 65536), == 0);
	rt_nanosleep(&half, 0);
	check(far_state == 1, "a futex wait of 2^64 ns + 0.29 s is still waiting after 0.5 s", far_state);
	far_word = 1;
	rt_futex_wake(&far_word, 1, true);
	EXPECT(rt_thread_join(t, 0), == 0);
	check(far_result == 0, "the far futex wait ends by its wake", far_result);
}

/* A TLS base at or past TASK_SIZE_MAX (0x7ffffffff000): -EPERM from
 * clone(CLONE_SETTLS) as from arch_prctl(ARCH_SET_FS).  A non-canonical
 * base taken as it was would fault in the kernel's wrmsr. */
static int clone_child(void *arg)
{
	(void)arg;
	return 0;
}

static void test_bad_tls(void)
{
	static const unsigned long bad[] = { 0x7ffffffff000ul, 0x800000000000ul, 0xffff800000001000ul };
	static uint64_t stacks[3][512] __attribute__((aligned(16)));
	const unsigned long flags = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000;
	for (int i = 0; i < 3; i++) {
		uint64_t *sp = &stacks[i][510];
		sp[0] = (uint64_t)(uintptr_t)clone_child;       /* popped first: the function */
		sp[1] = 0;                                     /* its argument */
		long r = rt_clone_raw(flags, sp, 0, 0, (void *)bad[i]);
		check(r == -EPERM, "clone(CLONE_SETTLS) with a TLS base at or past TASK_SIZE_MAX: -EPERM", r);
	}
	unsigned long fs = 0;
	EXPECT(rt_arch_prctl(0x1003, (unsigned long)&fs), == 0);
	long r = rt_arch_prctl(0x1002, 0x7ffffffff000ul);
	check(r == -EPERM, "arch_prctl(ARCH_SET_FS, TASK_SIZE_MAX): -EPERM", r);
	if (r == 0)
		rt_arch_prctl(0x1002, fs);
	EXPECT(rt_arch_prctl(0x1002, 0x800000000000ul), == -EPERM);
}

/* Unknown numbers called again and again, below and far above the
 * syscall table: -ENOSYS every time (the kernel logs each number once). */
static void test_enosys_repeated(void)
{
	int wrong = 0;
	for (int i = 0; i < 200; i++)
		wrong += sys(500, 0, 0, 0, 0, 0, 0) != -RT_ENOSYS || sys(100000, 0, 0, 0, 0, 0, 0) != -RT_ENOSYS;
	check(wrong == 0, "unknown syscalls 500 and 100000 called 200 times: -ENOSYS", wrong);
}

int main(void)
{
	test_io();
	test_mmap();
	test_madvise_shared();
	test_brk();
	test_time();
	test_identity();
	test_files();
	test_dup();
	test_system();
	test_signals_and_tls();
	test_futex_and_threads();
	test_far_timeouts();
	test_bad_tls();
	EXPECT(sys(500, 0, 0, 0, 0, 0, 0), == -RT_ENOSYS);     /* unassigned on x86-64 (335 is uretprobe since Linux 6.11) */
	test_enosys_repeated();
	struct rt_json j;
	rt_report_begin(&j, "systest");
	rt_json_u64(&j, "checks", (uint64_t)checks);
	rt_json_u64(&j, "failed", (uint64_t)failed);
	rt_json_end(&j, 1);
	return failed ? 1 : 0;
}
