/*
 * The Linux system calls workloads use, with Linux's numbers, arguments
 * and error codes.  Anything else returns -ENOSYS and is logged once per
 * task by name (the table below knows the names of common calls so the log
 * says "fork", not "57").
 *
 * Every user pointer goes through uaccess (copy_from_user...), never the
 * address space's lock held while copying.  Blocking calls (nanosleep,
 * futex) give up early with -EINTR when their task is exiting.
 */
#include <string.h>
#include "task.h"
#include "core/sched.h"
#include "futex.h"
#include "file.h"
#include "procfs.h"
#include "syscall.h"
#include "core/console.h"
#include "lib/errno.h"
#include "lib/timemath.h"
#include "vm/vm.h"
#include "vm/pagecache.h"
#include "mem/layout.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/percpu.h"

typedef long (*sys_fn)(struct trap_frame *f);

#define ARG0 (f->rdi)
#define ARG1 (f->rsi)
#define ARG2 (f->rdx)
#define ARG3 (f->r10)
#define ARG4 (f->r8)
#define ARG5 (f->r9)

static struct task *T(void) { return current_task(); }

/* ---------------------------------------------------------------- I/O */

static long do_write(int fd, uint64_t buf, uint64_t n)
{
	if (!file_is_console(fd))
		return file_write(fd, buf, n);
	if (fd != 1 && fd != 2)
		return -EBADF;
	return file_console_write(fd, buf, n);
}

static long sys_read(struct trap_frame *f) { return file_read((int)ARG0, ARG1, ARG2); }
static long sys_pread64(struct trap_frame *f) { return file_pread((int)ARG0, ARG1, ARG2, (int64_t)ARG3); }
static long sys_open(struct trap_frame *f) { return file_openat(AT_FDCWD, ARG0, (int)ARG1); }
static long sys_openat(struct trap_frame *f) { return file_openat((int)ARG0, ARG1, (int)ARG2); }
static long sys_close(struct trap_frame *f) { return file_close((int)ARG0); }
static long sys_lseek(struct trap_frame *f) { return file_lseek((int)ARG0, (int64_t)ARG1, (int)ARG2); }
static long sys_stat(struct trap_frame *f) { return file_fstatat(AT_FDCWD, ARG0, ARG1, 0); }
static long sys_lstat(struct trap_frame *f) { return file_fstatat(AT_FDCWD, ARG0, ARG1, 0x100); }
static long sys_fstat(struct trap_frame *f) { return file_fstat((int)ARG0, ARG1); }
static long sys_newfstatat(struct trap_frame *f) { return file_fstatat((int)ARG0, ARG1, ARG2, (int)ARG3); }
static long sys_statx(struct trap_frame *f) { return file_statx((int)ARG0, ARG1, (int)ARG2, ARG4); }
static long sys_readlink(struct trap_frame *f) { return file_readlinkat(AT_FDCWD, ARG0, ARG1, (int64_t)ARG2); }
static long sys_access(struct trap_frame *f) { return file_faccessat(AT_FDCWD, ARG0, (int)ARG1); }
static long sys_faccessat(struct trap_frame *f) { return file_faccessat((int)ARG0, ARG1, (int)ARG2); }

static long sys_faccessat2(struct trap_frame *f)
{
	/* AT_EACCESS (0x200) changes nothing for root; AT_SYMLINK_NOFOLLOW
	 * (0x100) nothing on our one link; AT_EMPTY_PATH is not offered. */
	return ARG3 & ~0x300ull ? -EINVAL : file_faccessat((int)ARG0, ARG1, (int)ARG2);
}

static long sys_utimensat(struct trap_frame *f) { return file_utimensat((int)ARG0, ARG1); }

static void console_out(int fd, const char *buf, uint64_t n) { task_output(T(), fd, buf, n); }
static long sys_sendfile(struct trap_frame *f) { return file_sendfile((int)ARG0, (int)ARG1, ARG2, ARG3, console_out); }

static long sys_readlinkat(struct trap_frame *f) { return file_readlinkat((int)ARG0, ARG1, ARG2, (int64_t)ARG3); }
static long sys_getdents64(struct trap_frame *f) { return file_getdents64((int)ARG0, ARG1, ARG2); }

static long sys_write(struct trap_frame *f) { return do_write((int)ARG0, ARG1, ARG2); }

/* Linux checks the whole vector before writing a byte (import_iovec):
 * more than IOV_MAX entries or a length negative as a ssize_t is -EINVAL,
 * an unreadable vector or a range outside user space -EFAULT.  So no
 * total can overflow: each length is below USER_TOP, at most 1024 of them. */
#define WRITEV_IOV_MAX 1024

static long writev_total(uint64_t iov, uint64_t cnt, uint64_t *total)
{
	*total = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t v[2];
		if (copy_from_user(v, iov + 16 * i, sizeof v))
			return -EFAULT;
		if ((int64_t)v[1] < 0)
			return -EINVAL;
		if (v[1] && !user_range_ok(v[0], v[1]))
			return -EFAULT;
		*total += v[1];
	}
	return 0;
}

static long sys_writev(struct trap_frame *f)
{
	uint64_t iov = ARG1, cnt = ARG2, total;
	long done = 0;
	if (cnt > WRITEV_IOV_MAX)
		return -EINVAL;
	long err = writev_total(iov, cnt, &total);
	if (err)
		return err;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t v[2];
		if (copy_from_user(v, iov + 16 * i, sizeof v))
			return done ? done : -EFAULT;
		/* Another thread may change the vector meanwhile: never write
		 * more than was checked. */
		if (v[1] > total - (uint64_t)done)
			return done ? done : -EINVAL;
		long r = do_write((int)ARG0, v[0], v[1]);
		if (r < 0)
			return done ? done : r;
		done += r;
	}
	return done;
}

static long sys_ioctl(struct trap_frame *f) { return file_ioctl((int)ARG0, ARG1, ARG2); }
static long sys_pwrite64(struct trap_frame *f) { return file_pwrite((int)ARG0, ARG1, ARG2, (int64_t)ARG3); }
static long sys_fsync(struct trap_frame *f) { return file_fsync((int)ARG0); }
static long sys_syncfs(struct trap_frame *f) { return file_syncfs((int)ARG0); }
static long sys_dup(struct trap_frame *f) { return file_dup_min((int)ARG0, 0, false); }
static long sys_dup2(struct trap_frame *f) { return file_dup_to((int)ARG0, (int)ARG1, -1); }
static long sys_dup3(struct trap_frame *f) { return file_dup_to((int)ARG0, (int)ARG1, (int)ARG2); }
static long sys_fcntl(struct trap_frame *f) { return file_fcntl((int)ARG0, (int)ARG1, ARG2); }

static long sys_sync(struct trap_frame *f)
{
	(void)f;
	pagecache_sync_all();
	return 0;
}
static long sys_ftruncate(struct trap_frame *f) { return file_ftruncate((int)ARG0, (int64_t)ARG1); }
static long sys_fadvise64(struct trap_frame *f) { return file_fadvise((int)ARG0, (int64_t)ARG1, (int64_t)ARG2, (int)ARG3); }

/* ---------------------------------------------------------------- memory */

static long sys_mmap(struct trap_frame *f)
{
	if ((ARG3 & MAP_ANONYMOUS) && ARG5 & 0xfff)
		return -EINVAL;
	if (!(ARG3 & MAP_ANONYMOUS))
		return file_mmap((int)ARG4, ARG0, ARG1, (int)ARG2, (int)ARG3, ARG5);
	return vm_mmap(T()->mm, ARG0, ARG1, (int)ARG2, (int)ARG3);
}

static long sys_munmap(struct trap_frame *f) { return vm_munmap(T()->mm, ARG0, ARG1); }
static long sys_mprotect(struct trap_frame *f) { return vm_mprotect(T()->mm, ARG0, ARG1, (int)ARG2); }
static long sys_madvise(struct trap_frame *f) { return vm_madvise(T()->mm, ARG0, ARG1, (int)ARG2); }
static long sys_brk(struct trap_frame *f) { return (long)vm_brk(T()->mm, ARG0); }

static long sys_msync(struct trap_frame *f) { return vm_msync(T()->mm, ARG0, ARG1, (int)ARG2); }

/* ---------------------------------------------------------------- time */

static uint64_t boot_wall_ns;       /* REALTIME at time_ns() == 0 */

void syscall_set_wall_clock(uint64_t unix_ns_at_boot) { boot_wall_ns = unix_ns_at_boot; }
uint64_t syscall_boot_wall_ns(void) { return boot_wall_ns; }

static int clock_ns(int clk, uint64_t *ns)
{
	struct thread *t = current_thread();
	uint64_t u, s;
	switch (clk) {
	case 0: case 5: case 8: *ns = boot_wall_ns + time_ns(); return 0;     /* REALTIME(_COARSE, _ALARM) */
	case 1: case 4: case 6: case 7: case 9: *ns = time_ns(); return 0;    /* MONOTONIC, RAW, COARSE, BOOTTIME */
	case 2:                                                                /* PROCESS_CPUTIME_ID */
		uacct_exit(t);
		task_cpu_times(T(), &u, &s);
		*ns = u + s;
		return 0;
	case 3:                                                                /* THREAD_CPUTIME_ID */
		uacct_exit(t);
		*ns = t->utime_ns + t->stime_ns;
		return 0;
	default:
		return -EINVAL;
	}
}

static long sys_clock_gettime(struct trap_frame *f)
{
	uint64_t ns;
	int err = clock_ns((int)ARG0, &ns);
	if (err)
		return err;
	uint64_t ts[2] = { ns / 1000000000ull, ns % 1000000000ull };
	return copy_to_user(ARG1, ts, sizeof ts);
}

static long sys_gettimeofday(struct trap_frame *f)
{
	uint64_t ns = boot_wall_ns + time_ns();
	uint64_t tv[2] = { ns / 1000000000ull, ns % 1000000000ull / 1000 };
	if (ARG0 && copy_to_user(ARG0, tv, sizeof tv))
		return -EFAULT;
	/* The obsolete timezone: UTC, no daylight saving (the RTC runs in UTC). */
	uint32_t tz[2] = { 0, 0 };
	return ARG1 && copy_to_user(ARG1, tz, sizeof tz) ? -EFAULT : 0;
}

static long sys_time(struct trap_frame *f)
{
	uint64_t secs = (boot_wall_ns + time_ns()) / 1000000000ull;
	return ARG0 && put_user_u64(ARG0, secs) ? -EFAULT : (long)secs;
}

/* Sleep until the monotonic time `until`; -EINTR if the task is exiting. */
static long sleep_until(uint64_t until)
{
	while (time_ns() < until) {
		sched_set_blocked();
		if (T()->exiting)
			break;
		sched_block_until(until);
	}
	sched_set_running();
	return time_ns() < until ? -EINTR : 0;
}

#define TIMESPEC_NEVER_NS (1ull << 62)   /* 146 years: far beyond any run, and time_ns() + it cannot wrap */

static int read_timespec(uint64_t uaddr, uint64_t *ns)
{
	int64_t ts[2];
	if (copy_from_user(ts, uaddr, sizeof ts))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	/* Past 2^32 seconds (136 years) a timeout is "never": the product
	 * would wrap, and so would now + ns (a wait of 2^64 ns + 0.29 s
	 * ended after 0.29 s). */
	if (ts[0] >= 1ll << 32) {
		*ns = TIMESPEC_NEVER_NS;
		return 0;
	}
	*ns = (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
	return 0;
}

static long sys_nanosleep(struct trap_frame *f)
{
	uint64_t ns;
	int err = read_timespec(ARG0, &ns);
	return err ? err : sleep_until(time_ns() + ns);
}

static long sys_clock_nanosleep(struct trap_frame *f)
{
	uint64_t ns, now;
	int err = read_timespec(ARG2, &ns);
	if (!err)
		err = clock_ns((int)ARG0, &now);
	if (err)
		return err;
	if ((int)ARG0 == 2 || (int)ARG0 == 3)
		return -EINVAL;         /* CPU-time clocks cannot be slept on */
	if (ARG1 & 1)                  /* TIMER_ABSTIME */
		return ns > now ? sleep_until(time_ns() + (ns - now)) : 0;
	return sleep_until(time_ns() + ns);
}

/* ---------------------------------------------------------------- identity */

static long sys_getpid(struct trap_frame *f) { (void)f; return T()->pid; }
static long sys_getppid(struct trap_frame *f) { (void)f; return T()->ppid; }
static long sys_gettid(struct trap_frame *f) { (void)f; return current_thread()->tid; }
static long sys_sched_yield(struct trap_frame *f) { (void)f; sched_yield(); return 0; }

static long sys_uname(struct trap_frame *f)
{
	char u[6][65];
	memset(u, 0, sizeof u);
	static const char *const v[6] = { "Linux", "mmkernel", "6.1.0-mmkernel", "#1 SMP", "x86_64", "(none)" };
	for (int i = 0; i < 6; i++)
		memcpy(u[i], v[i], strlen(v[i]));
	return copy_to_user(ARG0, u, sizeof u);
}

/* Every task runs as root: uid and gid 0, no supplementary groups;
 * becoming root again is allowed, becoming anyone else is not. */
static long sys_zero_id(struct trap_frame *f) { (void)f; return 0; }
static long sys_set_id(struct trap_frame *f)
{
	if ((uint32_t)ARG0 == 0xffffffffu)
		return -EINVAL;         /* (uid_t)-1 is not an id */
	return (uint32_t)ARG0 == 0 ? 0 : -EPERM;
}
static long sys_getgroups(struct trap_frame *f) { return (int)ARG0 < 0 ? -EINVAL : 0; }

static long sys_getresid(struct trap_frame *f)
{
	uint32_t zero = 0;
	for (int i = 0; i < 3; i++)
		if (copy_to_user(i == 0 ? ARG0 : i == 1 ? ARG1 : ARG2, &zero, sizeof zero))
			return -EFAULT;
	return 0;
}

#define PR_SET_NAME 15
#define PR_GET_NAME 16
#define PR_NAME_LEN 16                  /* TASK_COMM_LEN */

/* prctl: the thread's name (Linux's comm: 15 characters and a NUL);
 * every other option is -EINVAL, as Linux answers an unknown one. */
static long sys_prctl(struct trap_frame *f)
{
	struct thread *t = current_thread();
	char name[PR_NAME_LEN];
	switch (ARG0) {
	case PR_SET_NAME: {
		long n = strncpy_from_user(name, ARG1, sizeof name);
		if (n == -EFAULT)
			return -EFAULT;
		name[PR_NAME_LEN - 1] = 0;      /* longer names are cut, as Linux does */
		_Static_assert(sizeof t->name >= PR_NAME_LEN, "thread names hold a comm");
		memcpy(t->name, name, sizeof name);
		return 0;
	}
	case PR_GET_NAME:
		memset(name, 0, sizeof name);
		memcpy(name, t->name, strnlen(t->name, PR_NAME_LEN - 1));
		return copy_to_user(ARG1, name, sizeof name) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

/* sysinfo(2) from the same numbers as /proc/meminfo, in bytes
 * (mem_unit 1, as Linux uses whenever the totals fit).  No load
 * average is tracked: loads are 0. */
static long sys_sysinfo(struct trap_frame *f)
{
	struct procfs_mem m;
	procfs_mem(&m);
	uint64_t si[14] = { 0 };        /* struct sysinfo, x86-64: 112 bytes */
	si[0] = time_ns() / 1000000000ull;
	si[4] = m.total * 4096;
	si[5] = m.free * 4096;
	si[6] = m.shmem * 4096;         /* sharedram */
	si[7] = pagecache_nr_pages() * 4096;    /* bufferram: the block devices' page cache */
	si[8] = m.swap_total * 4096;
	si[9] = m.swap_free * 4096;
	unsigned procs = task_nr_threads();
	si[10] = procs > 0xffff ? 0xffff : procs;
	si[13] = 1;                     /* mem_unit (u32 at byte 104) */
	return copy_to_user(ARG0, si, sizeof si) ? -EFAULT : 0;
}

static long sys_getrandom(struct trap_frame *f)
{
	uint8_t buf[256];
	uint64_t n = ARG1 < sizeof buf ? ARG1 : sizeof buf;
	static uint64_t state;
	if (!state)
		state = rdtsc() | 1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = 0;
		if (cpu.rdrand)
			__asm__ volatile("rdrand %0" : "=r"(r) :: "cc");
		state ^= state << 13, state ^= state >> 7, state ^= state << 17;
		buf[i] = (uint8_t)(r ^ state);
	}
	return copy_to_user(ARG0, buf, n) ? -EFAULT : (long)n;
}

/* ---------------------------------------------------------------- signals (accepted) */

static long sys_rt_sigaction(struct trap_frame *f)
{
	uint8_t zero[32] = { 0 };
	if (ARG0 == 9 || ARG0 == 19)
		return -EINVAL;         /* SIGKILL, SIGSTOP */
	return ARG2 ? copy_to_user(ARG2, zero, sizeof zero) : 0;
}

static long sys_rt_sigprocmask(struct trap_frame *f)
{
	uint64_t zero = 0;
	return ARG2 ? copy_to_user(ARG2, &zero, sizeof zero) : 0;
}

static long sys_sigaltstack(struct trap_frame *f)
{
	uint64_t old[3] = { 0, 2 /* SS_DISABLE */, 0 };
	return ARG1 ? copy_to_user(ARG1, old, sizeof old) : 0;
}

/* ---------------------------------------------------------------- threads */

static long sys_arch_prctl(struct trap_frame *f)
{
	struct thread *t = current_thread();
	switch (ARG0) {
	case 0x1002:                    /* ARCH_SET_FS */
		if (ARG1 >= USER_MAP_TOP)       /* Linux's TASK_SIZE_MAX */
			return -EPERM;
		t->fs_base = ARG1;
		wrmsr(MSR_FS_BASE, ARG1);
		return 0;
	case 0x1003:                    /* ARCH_GET_FS */
		return put_user_u64(ARG1, t->fs_base);
	default:
		return -EINVAL;
	}
}

static long sys_set_tid_address(struct trap_frame *f)
{
	current_thread()->clear_child_tid = ARG0;
	return current_thread()->tid;
}

static long sys_set_robust_list(struct trap_frame *f) { return ARG1 == 24 ? 0 : -EINVAL; }

static long sys_clone(struct trap_frame *f)
{
	uint64_t flags = ARG0, need = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND;
	if ((flags & need) != need) {
		kprintf("task: %s (pid %d): clone without CLONE_VM|CLONE_THREAD (a new process) is not supported\n",
			T()->name, T()->pid);
		return -ENOSYS;
	}
	return task_clone_thread(T(), f, flags, ARG1, ARG2, ARG3, ARG4);
}

static long sys_futex(struct trap_frame *f)
{
	int op = (int)ARG1 & 0x7f;      /* strip FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
	uint64_t timeout = 0;
	if (op == 0 && ARG3) {          /* FUTEX_WAIT: relative timeout */
		int err = read_timespec(ARG3, &timeout);
		if (err)
			return err;
		if (!timeout)
			timeout = 1;
	}
	switch (op) {
	case 0: return futex_wait(T()->mm, ARG0, (uint32_t)ARG2, timeout);
	case 1: return futex_wake(T()->mm, ARG0, (int)ARG2);
	default: return -ENOSYS;
	}
}

static long sys_exit(struct trap_frame *f) { task_thread_exit((int)ARG0 & 0xff, false); }
static long sys_exit_group(struct trap_frame *f) { task_thread_exit((int)ARG0 & 0xff, true); }

/* Affinity masks as Linux passes them: a bit per CPU in longs; the
 * user's size must hold every online CPU and be a multiple of 8. */
static long sys_sched_getaffinity(struct trap_frame *f)
{
	struct cpumask m;
	if (ARG1 * 8 < sched_cpus() || ARG1 % 8)
		return -EINVAL;
	int err = sched_getaffinity((int)ARG0, &m);
	if (err)
		return err;
	size_t n = ARG1 < sizeof m ? ARG1 : sizeof m;
	return copy_to_user(ARG2, &m, n) ? -EFAULT : (long)n;
}

static long sys_sched_setaffinity(struct trap_frame *f)
{
	struct cpumask m;
	cpumask_clear(&m);
	size_t n = ARG1 < sizeof m ? ARG1 : sizeof m;   /* CPUs beyond ours: ignored, as Linux */
	if (copy_from_user(&m, ARG2, n))
		return -EFAULT;
	/* The caller, if this CPU is no longer allowed, moves at the
	 * unlock inside (its need_resched is set). */
	return sched_setaffinity((int)ARG0, &m);
}

static long sys_getcpu(struct trap_frame *f)
{
	unsigned cpu = sched_cpu_of_current(), node = 0;
	if (ARG0 && copy_to_user(ARG0, &cpu, sizeof cpu))
		return -EFAULT;
	if (ARG1 && copy_to_user(ARG1, &node, sizeof node))
		return -EFAULT;
	return 0;
}

/* ---------------------------------------------------------------- limits, usage */

static long sys_prlimit64(struct trap_frame *f)
{
	uint64_t lim[2] = { ~0ull, ~0ull };
	if (ARG1 == 3)                  /* RLIMIT_STACK */
		lim[0] = lim[1] = USER_STACK_SIZE;
	if (ARG1 >= 16)
		return -EINVAL;
	return ARG3 ? copy_to_user(ARG3, lim, sizeof lim) : 0;     /* new limits: accepted, ignored */
}

static long sys_getrusage(struct trap_frame *f)
{
	struct task *k = T();
	struct thread *t = current_thread();
	uint64_t ru[18] = { 0 };        /* struct rusage: 2 timevals + 14 longs */
	uint64_t u, s;
	uacct_exit(t);
	if ((int64_t)ARG0 == 1) {       /* RUSAGE_THREAD */
		u = t->utime_ns;
		s = t->stime_ns;
	} else if ((int64_t)ARG0 == 0) {
		task_cpu_times(k, &u, &s);
	} else if ((int64_t)ARG0 == -1) {
		u = s = 0;              /* no child processes */
	} else {
		return -EINVAL;
	}
	ru[0] = u / 1000000000ull;
	ru[1] = u % 1000000000ull / 1000;
	ru[2] = s / 1000000000ull;
	ru[3] = s % 1000000000ull / 1000;
	if ((int64_t)ARG0 != -1) {
		ru[4] = k->maxrss_pages * 4;            /* ru_maxrss, KiB */
		bool thread = (int64_t)ARG0 == 1;
		ru[8] = thread ? t->minflt : k->faults.minflt;
		ru[9] = thread ? t->majflt : k->faults.majflt;
		ru[16] = k->nvcsw + t->nvcsw;
		ru[17] = k->nivcsw + t->nivcsw;
	}
	return copy_to_user(ARG1, ru, 144);
}

/* ---------------------------------------------------------------- table */

static const struct {
	const char *name;
	sys_fn fn;
} table[] = {
	[0] = { "read", sys_read }, [1] = { "write", sys_write }, [2] = { "open", sys_open },
	[3] = { "close", sys_close }, [4] = { "stat", sys_stat }, [5] = { "fstat", sys_fstat },
	[6] = { "lstat", sys_lstat }, [8] = { "lseek", sys_lseek },
	[9] = { "mmap", sys_mmap }, [10] = { "mprotect", sys_mprotect }, [11] = { "munmap", sys_munmap },
	[12] = { "brk", sys_brk }, [13] = { "rt_sigaction", sys_rt_sigaction },
	[14] = { "rt_sigprocmask", sys_rt_sigprocmask }, [16] = { "ioctl", sys_ioctl },
	[17] = { "pread64", sys_pread64 }, [18] = { "pwrite64", sys_pwrite64 },
	[74] = { "fsync", sys_fsync }, [75] = { "fdatasync", sys_fsync }, [162] = { "sync", sys_sync }, [32] = { "dup", sys_dup }, [33] = { "dup2", sys_dup2 },
	[292] = { "dup3", sys_dup3 }, [72] = { "fcntl", sys_fcntl }, [306] = { "syncfs", sys_syncfs }, [77] = { "ftruncate", sys_ftruncate },
	[221] = { "fadvise64", sys_fadvise64 },
	[20] = { "writev", sys_writev }, [21] = { "access", sys_access }, [40] = { "sendfile", sys_sendfile }, [24] = { "sched_yield", sys_sched_yield },
	[26] = { "msync", sys_msync }, [28] = { "madvise", sys_madvise }, [35] = { "nanosleep", sys_nanosleep },
	[39] = { "getpid", sys_getpid }, [56] = { "clone", sys_clone }, [57] = { "fork", NULL },
	[59] = { "execve", NULL }, [60] = { "exit", sys_exit }, [61] = { "wait4", NULL },
	[62] = { "kill", NULL }, [63] = { "uname", sys_uname }, [89] = { "readlink", sys_readlink },
	[96] = { "gettimeofday", sys_gettimeofday },
	[98] = { "getrusage", sys_getrusage }, [99] = { "sysinfo", sys_sysinfo },
	[102] = { "getuid", sys_zero_id }, [104] = { "getgid", sys_zero_id }, [105] = { "setuid", sys_set_id },
	[106] = { "setgid", sys_set_id }, [107] = { "geteuid", sys_zero_id }, [108] = { "getegid", sys_zero_id },
	[110] = { "getppid", sys_getppid }, [115] = { "getgroups", sys_getgroups },
	[118] = { "getresuid", sys_getresid }, [120] = { "getresgid", sys_getresid },
	[131] = { "sigaltstack", sys_sigaltstack }, [157] = { "prctl", sys_prctl },
	[158] = { "arch_prctl", sys_arch_prctl },
	[186] = { "gettid", sys_gettid }, [201] = { "time", sys_time }, [202] = { "futex", sys_futex },
	[203] = { "sched_setaffinity", sys_sched_setaffinity }, [204] = { "sched_getaffinity", sys_sched_getaffinity },
	[309] = { "getcpu", sys_getcpu }, [218] = { "set_tid_address", sys_set_tid_address },
	[228] = { "clock_gettime", sys_clock_gettime }, [230] = { "clock_nanosleep", sys_clock_nanosleep },
	[231] = { "exit_group", sys_exit_group }, [257] = { "openat", sys_openat },
	[217] = { "getdents64", sys_getdents64 },
	[262] = { "newfstatat", sys_newfstatat }, [267] = { "readlinkat", sys_readlinkat },
	[269] = { "faccessat", sys_faccessat }, [439] = { "faccessat2", sys_faccessat2 },
	[273] = { "set_robust_list", sys_set_robust_list }, [280] = { "utimensat", sys_utimensat },
	[302] = { "prlimit64", sys_prlimit64 },
	[318] = { "getrandom", sys_getrandom }, [332] = { "statx", sys_statx }, [334] = { "rseq", NULL },
};

#define NSYS (sizeof table / sizeof table[0])

/* True the first time this task calls syscall nr (racing threads: one
 * wins).  Numbers past the bitmap take a slot of a small set; when that
 * is full, *full says whether this is the first number left out. */
static bool enosys_first(struct task *k, uint64_t nr, bool *full)
{
	*full = false;
	if (nr < SYSCALL_LOG_BITS) {
		uint64_t bit = 1ull << (nr % 64);
		return !(__atomic_fetch_or(&k->enosys_bits[nr / 64], bit, __ATOMIC_RELAXED) & bit);
	}
	for (int i = 0; i < SYSCALL_LOG_BIG; i++) {
		uint64_t seen = 0;
		if (__atomic_compare_exchange_n(&k->enosys_big[i], &seen, nr, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
		if (seen == nr)
			return false;
	}
	*full = !__atomic_exchange_n(&k->enosys_big_full, true, __ATOMIC_RELAXED);
	return false;
}

static long unknown(struct trap_frame *f, uint64_t nr)
{
	struct task *k = T();
	bool full;
	(void)f;
	if (!enosys_first(k, nr, &full)) {
		if (full)
			kprintf("task: %s (pid %d): unknown syscall %lu: -ENOSYS; %d large numbers were logged, "
				"further ones are not\n", k->name, k->pid, nr, SYSCALL_LOG_BIG);
		return -ENOSYS;
	}
	const char *name = nr < NSYS && table[nr].name ? table[nr].name : NULL;
	if (name)
		kprintf("task: %s (pid %d): syscall %s (%lu) not implemented: -ENOSYS\n", k->name, k->pid, name, nr);
	else
		kprintf("task: %s (pid %d): unknown syscall %lu: -ENOSYS\n", k->name, k->pid, nr);
	return -ENOSYS;
}

void syscall_dispatch(struct trap_frame *f)
{
	struct thread *t = current_thread();
	uacct_enter(t);
	uint64_t nr = f->rax;
	long r = nr < NSYS && table[nr].fn ? table[nr].fn(f) : unknown(f, nr);
	f->rax = (uint64_t)r;
	task_check_exit();
	irq_disable();
	sched_preempt_point();
	uacct_exit(t);
}

void syscall_init(void)
{
	uaccess_init();
	/* STAR: kernel CS/SS from 0x08, user base 0x18 (sysret layout, cpu.h). */
	wrmsr(MSR_STAR, ((uint64_t)SEL_UCODE32 << 48) | ((uint64_t)SEL_KCODE << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	/* Clear IF (enabled again once on the kernel stack), DF, TF, AC (so
	 * SMAP protects the kernel from the first instruction) and NT: user
	 * code may set NT, and an iretq with NT set faults in 64-bit mode,
	 * in the kernel after trap_return's swapgs (crash nt).  The user's
	 * own RFLAGS, NT and all, come back from the frame. */
	wrmsr(MSR_FMASK, RFLAGS_IF | (1u << 10) | (1u << 8) | RFLAGS_AC | (1u << 14));
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
}
