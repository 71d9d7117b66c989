/*
 * rt_sys.c - named wrappers round the raw syscalls.
 *
 * Each wrapper is one syscall with C types; it returns what the kernel
 * returned (-errno on failure) and never retries, except rt_write_all, which
 * exists because a write to a pipe or console may legally be short.
 */
#include "rt.h"

long rt_read(int fd, void *buf, size_t len)
{
	return rt_syscall3(RT_SYS_read, fd, (long)buf, (long)len);
}

long rt_write(int fd, const void *buf, size_t len)
{
	return rt_syscall3(RT_SYS_write, fd, (long)buf, (long)len);
}

/* Returns len, or -errno if a write failed or made no progress. */
long rt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;

	while (done < len) {
		long n = rt_write(fd, p + done, len - done);

		if (n == -RT_EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			return -RT_EAGAIN;
		done += (size_t)n;
	}
	return (long)len;
}

void *rt_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	return (void *)rt_syscall6(RT_SYS_mmap, (long)addr, (long)len, prot,
				   flags, fd, off);
}

/* The kernel returns -errno as an address in the last page of the space. */
bool rt_mmap_failed(const void *p)
{
	return (uintptr_t)p >= (uintptr_t)-4095;
}

int rt_mmap_error(const void *p)
{
	return rt_mmap_failed(p) ? -(int)(intptr_t)p : 0;
}

int rt_munmap(void *addr, size_t len)
{
	return (int)rt_syscall2(RT_SYS_munmap, (long)addr, (long)len);
}

int rt_mprotect(void *addr, size_t len, int prot)
{
	return (int)rt_syscall3(RT_SYS_mprotect, (long)addr, (long)len, prot);
}

int rt_madvise(void *addr, size_t len, int advice)
{
	return (int)rt_syscall3(RT_SYS_madvise, (long)addr, (long)len, advice);
}

int rt_clock_gettime(int clock, struct rt_timespec *ts)
{
	return (int)rt_syscall2(RT_SYS_clock_gettime, clock, (long)ts);
}

int rt_nanosleep(const struct rt_timespec *req, struct rt_timespec *rem)
{
	return (int)rt_syscall2(RT_SYS_nanosleep, (long)req, (long)rem);
}

int rt_sched_yield(void)
{
	return (int)rt_syscall0(RT_SYS_sched_yield);
}

int rt_getpid(void)
{
	return (int)rt_syscall0(RT_SYS_getpid);
}

int rt_gettid(void)
{
	return (int)rt_syscall0(RT_SYS_gettid);
}

int rt_getrusage(int who, struct rt_rusage *ru)
{
	return (int)rt_syscall2(RT_SYS_getrusage, who, (long)ru);
}

/*
 * Sleeps while *addr == val, at most *timeout (relative) if timeout is set.
 * A shared (non-private) wait is needed to hear CLONE_CHILD_CLEARTID's wake,
 * which Linux issues as a shared futex wake.
 */
int rt_futex_wait(volatile int *addr, int val, const struct rt_timespec *timeout,
		  bool private_futex)
{
	int op = RT_FUTEX_WAIT | (private_futex ? RT_FUTEX_PRIVATE_FLAG : 0);

	return (int)rt_syscall4(RT_SYS_futex, (long)addr, op, val, (long)timeout);
}

int rt_futex_wake(volatile int *addr, int count, bool private_futex)
{
	int op = RT_FUTEX_WAKE | (private_futex ? RT_FUTEX_PRIVATE_FLAG : 0);

	return (int)rt_syscall3(RT_SYS_futex, (long)addr, op, count);
}

int rt_arch_prctl(int code, unsigned long addr)
{
	return (int)rt_syscall2(RT_SYS_arch_prctl, code, (long)addr);
}

_Noreturn void rt_exit(int status)
{
	for (;;)
		rt_syscall1(RT_SYS_exit, status);
}

_Noreturn void rt_exit_group(int status)
{
	for (;;)
		rt_syscall1(RT_SYS_exit_group, status);
}
