/*
 * rt.h - the workloads' tiny runtime: Linux x86-64 syscall ABI, no libc.
 *
 * Model: a workload is a static ELF that runs in ring 3 on our kernel and,
 * unchanged, on Linux. It may only use the syscall subset our kernel serves
 * (see BUILD.md), so everything here is a thin wrapper round one syscall or
 * pure computation. Every public name starts with rt_ (or RT_) so the same
 * objects can also be linked beside musl libc, whose startup code then runs
 * instead of rt/crt0.c.
 *
 * Rules for callers:
 *  - Raw wrappers return the kernel's value: >= 0 on success, -errno on
 *    failure (no global errno). rt_mmap returns a pointer; test it with
 *    rt_mmap_failed() and get the error with rt_mmap_error().
 *  - rt_printf and friends format integers only (no floating point: the
 *    workloads are built with -mgeneral-regs-only); print fixed point by hand.
 *  - rt_thread_* and rt_thread_self() need the TLS set up by rt/crt0.c, so
 *    they are not for the musl build (musl owns %fs there).
 */
#ifndef RT_H
#define RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- errno values we test for (Linux numbering) ---- */
#define RT_EINTR     4
#define RT_EAGAIN    11
#define RT_ENOMEM    12
#define RT_EINVAL    22
#define RT_ERANGE    34
#define RT_ENOSYS    38
#define RT_ETIMEDOUT 110

/* ---- syscall numbers (x86-64), only the subset our kernel implements ---- */
#define RT_SYS_read              0
#define RT_SYS_write             1
#define RT_SYS_mmap              9
#define RT_SYS_mprotect          10
#define RT_SYS_munmap            11
#define RT_SYS_brk               12
#define RT_SYS_rt_sigaction      13
#define RT_SYS_rt_sigprocmask    14
#define RT_SYS_ioctl             16
#define RT_SYS_writev            20
#define RT_SYS_sched_yield       24
#define RT_SYS_msync             26
#define RT_SYS_madvise           28
#define RT_SYS_nanosleep         35
#define RT_SYS_getpid            39
#define RT_SYS_clone             56
#define RT_SYS_exit              60
#define RT_SYS_uname             63
#define RT_SYS_getrusage         98
#define RT_SYS_sysinfo           99  /* NOT in our kernel's subset; see fill.c */
#define RT_SYS_getppid           110
#define RT_SYS_sigaltstack       131
#define RT_SYS_arch_prctl        158
#define RT_SYS_gettid            186
#define RT_SYS_futex             202
#define RT_SYS_sched_getaffinity 204
#define RT_SYS_set_tid_address   218
#define RT_SYS_clock_gettime     228
#define RT_SYS_clock_nanosleep   230
#define RT_SYS_exit_group        231
#define RT_SYS_set_robust_list   273
#define RT_SYS_prlimit64         302
#define RT_SYS_getrandom         318

/* ---- constants for the calls above ---- */
#define RT_PAGE_SIZE      4096UL
#define RT_MIB            (1024UL * 1024UL)

#define RT_PROT_NONE      0x0
#define RT_PROT_READ      0x1
#define RT_PROT_WRITE     0x2
#define RT_MAP_SHARED     0x01
#define RT_MAP_PRIVATE    0x02
#define RT_MAP_ANONYMOUS  0x20
#define RT_MAP_NORESERVE  0x4000

#define RT_CLOCK_REALTIME           0
#define RT_CLOCK_MONOTONIC          1
#define RT_CLOCK_PROCESS_CPUTIME_ID 2
#define RT_CLOCK_THREAD_CPUTIME_ID  3

#define RT_RUSAGE_SELF    0
#define RT_ARCH_SET_FS    0x1002

#define RT_FUTEX_WAIT         0
#define RT_FUTEX_WAKE         1
#define RT_FUTEX_PRIVATE_FLAG 128

struct rt_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct rt_timeval {
	int64_t tv_sec;
	int64_t tv_usec;
};

/* Linux's struct rusage, field for field. */
struct rt_rusage {
	struct rt_timeval ru_utime;
	struct rt_timeval ru_stime;
	int64_t ru_maxrss;	/* KiB */
	int64_t ru_ixrss;
	int64_t ru_idrss;
	int64_t ru_isrss;
	int64_t ru_minflt;
	int64_t ru_majflt;
	int64_t ru_nswap;
	int64_t ru_inblock;
	int64_t ru_oublock;
	int64_t ru_msgsnd;
	int64_t ru_msgrcv;
	int64_t ru_nsignals;
	int64_t ru_nvcsw;
	int64_t ru_nivcsw;
};
_Static_assert(sizeof(struct rt_rusage) == 144, "struct rusage is 144 bytes on x86-64");

/* ---- raw syscalls: the x86-64 convention, rcx and r11 are clobbered ---- */
static inline long rt_syscall6(long nr, long a1, long a2, long a3,
			       long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long rt_syscall3(long nr, long a1, long a2, long a3)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long rt_syscall0(long nr) { return rt_syscall3(nr, 0, 0, 0); }
static inline long rt_syscall1(long nr, long a1) { return rt_syscall3(nr, a1, 0, 0); }
static inline long rt_syscall2(long nr, long a1, long a2) { return rt_syscall3(nr, a1, a2, 0); }
static inline long rt_syscall4(long nr, long a1, long a2, long a3, long a4)
{
	return rt_syscall6(nr, a1, a2, a3, a4, 0, 0);
}
static inline long rt_syscall5(long nr, long a1, long a2, long a3, long a4, long a5)
{
	return rt_syscall6(nr, a1, a2, a3, a4, a5, 0);
}

/* ---- named wrappers (rt_sys.c) ---- */
long rt_read(int fd, void *buf, size_t len);
long rt_write(int fd, const void *buf, size_t len);
long rt_write_all(int fd, const void *buf, size_t len);
void *rt_mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
bool rt_mmap_failed(const void *p);
int rt_mmap_error(const void *p);
int rt_munmap(void *addr, size_t len);
int rt_mprotect(void *addr, size_t len, int prot);
int rt_madvise(void *addr, size_t len, int advice);
int rt_clock_gettime(int clock, struct rt_timespec *ts);
int rt_nanosleep(const struct rt_timespec *req, struct rt_timespec *rem);
int rt_sched_yield(void);
int rt_getpid(void);
int rt_gettid(void);
int rt_getrusage(int who, struct rt_rusage *ru);
int rt_futex_wait(volatile int *addr, int val, const struct rt_timespec *timeout,
		  bool private_futex);
int rt_futex_wake(volatile int *addr, int count, bool private_futex);
int rt_arch_prctl(int code, unsigned long addr);
_Noreturn void rt_exit(int status);		/* this thread only */
_Noreturn void rt_exit_group(int status);	/* the whole process */

/* ---- time (rt_time.c) ---- */
uint64_t rt_now_ns(void);			/* CLOCK_MONOTONIC */
uint64_t rt_timeval_us(const struct rt_timeval *tv);

/* ---- strings and memory (rt_string.c) ---- */
size_t rt_strlen(const char *s);
int rt_strcmp(const char *a, const char *b);
void *rt_memset(void *dst, int c, size_t n);
void *rt_memcpy(void *dst, const void *src, size_t n);
int rt_parse_u64(const char *s, uint64_t *out);
int rt_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* ---- formatted output (rt_print.c) ---- */
int rt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int rt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rt_vdprintf(int fd, const char *fmt, va_list ap);
int rt_dprintf(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void rt_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t rt_arg_u64(const char *prog, const char *usage, const char *name,
		    const char *s, uint64_t min, uint64_t max);

/* ---- pseudo-random numbers: xorshift64* (rt_rand.c) ---- */
struct rt_rng {
	uint64_t state;		/* never 0 */
};
void rt_rng_seed(struct rt_rng *rng, uint64_t seed);
uint64_t rt_rng_next(struct rt_rng *rng);
uint64_t rt_rng_below(struct rt_rng *rng, uint64_t bound);
uint64_t rt_mix64(uint64_t x);

/* ---- threads (rt_thread.c, clone.S) ---- */

/*
 * Thread control block. %fs points at it (x86-64 TLS variant II with no
 * static TLS data), so fs:0 holds its own address. It lives at the top of
 * the thread's mmap'd stack, except the main thread's, which is static.
 */
struct rt_thread {
	struct rt_thread *self;		/* fs:0; must be the first field */
	volatile int tid;		/* set by CLONE_PARENT_SETTID, zeroed and
					   futex-woken by CLONE_CHILD_CLEARTID */
	int result;			/* fn's return value */
	int (*fn)(void *arg);
	void *arg;
	void *map;			/* stack mapping, including this block */
	size_t map_len;
};

int rt_thread_create(struct rt_thread **out, int (*fn)(void *), void *arg,
		     size_t stack_size);
int rt_thread_join(struct rt_thread *t, int *result);
struct rt_thread *rt_thread_self(void);

/* ---- one-line JSON records (rt_json.c) ---- */
#define RT_JSON_MAX 2048

struct rt_json {
	char buf[RT_JSON_MAX];
	size_t len;
	bool overflow;		/* a field did not fit; end() reports it */
};

void rt_json_begin(struct rt_json *j);
void rt_json_u64(struct rt_json *j, const char *key, uint64_t v);
void rt_json_str(struct rt_json *j, const char *key, const char *v);
void rt_json_bool(struct rt_json *j, const char *key, bool v);
int rt_json_end(struct rt_json *j, int fd);

/* The fields every workload record carries. */
void rt_report_begin(struct rt_json *j, const char *name);
void rt_report_usage(struct rt_json *j, uint64_t start_ns, uint64_t end_ns);

#endif /* RT_H */
