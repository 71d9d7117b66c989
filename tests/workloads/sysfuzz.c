/*
 * sysfuzz: random system calls with hostile arguments, to show that no
 * argument a program passes can crash the kernel or leak its memory.
 * sysfuzz SEED CALLS
 * sysfuzz threads SEED CALLS [die]: three threads make the calls, adding
 * clone, futex, the sleeps and arch_prctl (below); with die, one of them
 * faults halfway and the program ends with the others mid-call.
 * sysfuzz areas: a 64 TiB area with a few pages (mprotect, madvise COLD
 * and WILLNEED, and munmap of all of it), a 1 TiB PROT_NONE area made
 * writable (mprotect_1tib: granted only without overcommit checks), brk
 * up by 1 TiB and back, and one munmap over 200 areas; each must
 * succeed, quickly.
 * sysfuzz clones: parked threads on one-page stacks until clone refuses.
 * sysfuzz maps: one-page areas that do not merge until mmap refuses, then
 * one munmap over all of them, which must succeed.
 *
 * Each call picks a system call number (mostly ones the kernel knows,
 * some it does not) and six arguments, each one of: 0, a small number,
 * -1, a random 64-bit value, a pointer into a scratch mapping (which
 * holds a few real paths), a kernel address, an address in the last page
 * below 2^47 (never mapped) or past it, a page-aligned address above the
 * program, or an open file descriptor.  Calls that would end or
 * stall the program (exit, execve, clone, kill, sleeps, futex, wait4,
 * arch_prctl, rseq) are left out, and console descriptors are never
 * written to nor replaced (dup2), so the log stays readable and the
 * record reaches it.  The program may still die of
 * what it did to itself (a call that wrote over its own data): the
 * kernel must not.
 *
 * The threads mode clones with the flags pthreads use plus random ones,
 * random parent and child tid pointers and TLS bases, onto stacks of its
 * own; each child makes 200 calls (set_tid_address among them) and exits.
 * Its futex calls take shared words, bad ops, misaligned and bad
 * addresses; its waits and sleeps last at most 2 ms or have a bad
 * timespec, so the program never stalls.
 *
 * Refuses to run anywhere but our kernel: random system calls as root
 * would harm a Linux host.  Prints a record with the calls made and
 * how many failed, and exits 0.
 */
#include "rt/rt.h"

/* One fuzzing thread's state: its generator and what it did. */
struct fz {
	uint64_t rng;
	uint64_t calls, failed, randnr;
	bool joined;                    /* rt_thread_join waits for this thread's tid */
};

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

static uint64_t next(struct fz *z)
{
	z->rng ^= z->rng >> 12;
	z->rng ^= z->rng << 25;
	z->rng ^= z->rng >> 27;
	return z->rng * 2685821657736338717ull;
}

/* The system calls the kernel serves (kernel/proc/syscall.c), minus
 * those that would end or stall the program. */
static const int known[] = {
	0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 24, 26, 28,
	39, 40, 63, 74, 75, 77, 89, 96, 98, 99, 102, 104, 105, 106, 107, 108, 110, 115,
	118, 120, 131, 157, 186, 201, 203, 204, 217, 218, 221, 228, 257, 262, 267, 269,
	273, 280, 302, 309, 318, 332, 439, 32, 33, 72, 162, 292, 306,
};

/* Never called at random: exit, exit_group, execve, clone, fork, kill,
 * nanosleep, clock_nanosleep, futex, wait4, arch_prctl, rseq.  The
 * threads mode makes clone, futex, the sleeps and arch_prctl calls itself,
 * with hostile arguments but bounded waits. */
static bool excluded(long nr)
{
	static const int no[] = { 60, 231, 59, 56, 57, 62, 35, 230, 202, 61, 158, 334 };
	for (unsigned i = 0; i < sizeof no / sizeof no[0]; i++)
		if (nr == no[i])
			return true;
	return false;
}

/* Calls whose first argument must not be 0-2: writes (the run's own
 * output), and close (it closes them, as on Linux, and the record at the
 * end would have nowhere to go). */
static bool writes_fd0(long nr) { return nr == 1 || nr == 18 || nr == 20 || nr == 3; }

#define SCRATCH (64 * 4096)
#define NFDS 8

static char *scratch;
static int fds[NFDS];
static unsigned nfds;
/* The fuzzer's own mappings (scratch, stacks) lie at or above this:
 * mmap, mprotect, munmap and madvise ranges end below it. */
static uint64_t own_lo = 0x7f0000000000ull;

static void own(const void *p)
{
	if ((uint64_t)p < own_lo)
		own_lo = (uint64_t)p;
}

static long arg(struct fz *z)
{
	switch (next(z) % 9) {
	case 0: return 0;
	case 1: return (long)(next(z) % 64);
	case 2: return -1;
	case 3: return (long)next(z);
	case 4: return (long)(scratch + next(z) % SCRATCH);
	case 5: return (long)(0xffff800000000000ull + (next(z) % (1ull << 40)));
	case 6: return (long)(0x7ffffffff000ull + next(z) % 8192);        /* the page never mapped, then non-canonical */
	case 7: return (long)(0x10000000ull + (next(z) % 4096) * 4096);     /* page-aligned, above the program */
	default: return nfds ? fds[next(z) % nfds] : 3;
	}
}

/* One random call from the known set (or a random number). */
static void random_call(struct fz *z)
{
	long nr;
	if (next(z) % 64 == 0) {
		nr = (long)(next(z) % 1024);    /* mostly numbers the kernel does not serve */
		if (excluded(nr))
			return;
		z->randnr++;
	} else {
		nr = known[next(z) % (sizeof known / sizeof known[0])];
	}
	/* set_tid_address in a thread that rt_thread_join waits for would
	 * leave its tid uncleared, and the join waiting for ever. */
	if (nr == 218 && z->joined)
		return;
	long a[6];
	for (int k = 0; k < 6; k++)
		a[k] = arg(z);
	if (writes_fd0(nr) && a[0] >= 0 && a[0] <= 2)
		a[0] = 3;
	if (nr == 40 && a[0] >= 0 && a[0] <= 2)          /* sendfile's out_fd */
		a[0] = 3;
	if ((nr == 33 || nr == 292) && a[1] >= 0 && a[1] <= 2)  /* dup2/dup3 onto the console */
		a[1] = 3;
	/* mmap, mprotect, munmap and madvise keep off the program, its
	 * stacks and scratch area (else the first munmap(0, huge) ends the
	 * run). */
	if (nr == 9 || nr == 10 || nr == 11 || nr == 28) {
		uint64_t lo = (uint64_t)a[0], n = (uint64_t)a[1];
		if (lo < 0x10000000ull || lo + n < lo || lo + n > own_lo)
			a[0] = (long)(0x10000000ull + (next(z) % 4096) * 4096);
		if ((uint64_t)a[0] + n > own_lo || (uint64_t)a[0] + n < (uint64_t)a[0])
			a[1] = (long)(next(z) % (1ull << 32));
	}
	z->calls++;
	if (rt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]) < 0)
		z->failed++;
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
	expect0(rt_syscall3(28, (long)p, (long)len, 3), "madvise(MADV_WILLNEED) of 64 TiB");
	expect0(rt_syscall3(10, (long)p, (long)len, RT_PROT_READ), "mprotect of 64 TiB");
	expect0(rt_syscall2(11, (long)p, (long)len), "munmap of 64 TiB");
	/* 1 TiB of shared memory with a page in it: the object's cost must
	 * follow what it holds too. */
	char *sh = rt_mmap(0, 1ull << 40, RT_PROT_READ | RT_PROT_WRITE,
			   RT_MAP_SHARED | RT_MAP_ANONYMOUS | RT_MAP_NORESERVE, -1, 0);
	bool shared_ok = !rt_mmap_failed(sh);
	if (shared_ok) {
		sh[(1ull << 39) + 4096] = 1;
		expect0(rt_syscall2(11, (long)sh, 1l << 40), "munmap of 1 TiB shared");
	}
	/* 1 TiB PROT_NONE without MAP_NORESERVE: nothing to charge yet, so
	 * the mmap must work; made writable, it is charged (Linux's
	 * mprotect_fixup), and the heuristic overcommit refuses it. */
	char *pn = rt_mmap(0, 1ull << 40, RT_PROT_NONE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	bool prot_up = false;
	if (rt_mmap_failed(pn)) {
		rt_dprintf(2, "sysfuzz: mmap of 1 TiB PROT_NONE failed (error %d)\n", rt_mmap_error(pn));
		fails++;
	} else {
		prot_up = rt_syscall3(10, (long)pn, 1l << 40, RT_PROT_READ | RT_PROT_WRITE) == 0;
		if (prot_up)
			pn[(1ull << 39) + 4096] = 1;
		expect0(rt_syscall2(11, (long)pn, 1l << 40), "munmap of 1 TiB PROT_NONE");
	}
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
	rt_json_bool(&j, "shared_1tib", shared_ok);
	rt_json_bool(&j, "mprotect_1tib", prot_up);
	rt_json_u64(&j, "many_areas_ns", t3 - t2);
	rt_json_u64(&j, "failures", (uint64_t)fails);
	rt_report_usage(&j, t0, t3);
	if (rt_json_end(&j, 1) < 0)
		return 3;
	return fails ? 1 : 0;
}

/* ---- threads mode ---------------------------------------------------- */

#define WORKERS 3
#define SLOTS 12                        /* clone children alive at once */
#define SLOT_STACK (16 * 4096)
#define CHILD_CALLS 200
#define CLONE_NEED (0x100 | 0x800 | 0x10000)     /* CLONE_VM | CLONE_SIGHAND | CLONE_THREAD */

/* From rt/rt_internal.h (not included: it declares main with three
 * arguments): clone, the child running sp[0](sp[1]) on its new stack. */
long rt_clone_raw(unsigned long flags, void *child_sp, volatile int *parent_tid,
		  volatile int *child_tid, void *tls);

/* A clone child's stack.  busy is set by the worker that clones onto it
 * and cleared by the child as its last store before exit(2): after that
 * store the child touches no memory of its own. */
static struct slot {
	volatile int busy;
	uint64_t seed;
	char *stack;
} slots[SLOTS];

static volatile int words[4];           /* futex words the threads share */
static uint64_t child_calls, child_failed, nclones, clones_refused, futexes, sleeps, prctls;

static void add(uint64_t *c, uint64_t n) { __atomic_add_fetch(c, n, __ATOMIC_RELAXED); }

/* A timespec for a wait: mostly short and valid (at most 2 ms), else one
 * whose address or fields are bad.  Never a long wait: the program would
 * stall, and systest checks far timeouts. */
static long timeout_arg(struct fz *z, struct rt_timespec *ts)
{
	switch (next(z) % 8) {
	case 0: return (long)(0xffff800000000000ull + next(z) % (1ull << 40));
	case 1: return (long)(0x7ffffffff000ull + next(z) % 8192);
	case 2: return (long)(next(z) % 4096);
	case 3:
		ts->tv_sec = next(z) % 2 ? -1 : 0;
		ts->tv_nsec = next(z) % 2 ? 1000000000 : -1;
		return (long)ts;
	default:
		ts->tv_sec = 0;
		ts->tv_nsec = (long)(next(z) % 2000000);
		return (long)ts;
	}
}

static _Noreturn void child_exit(struct slot *s)
{
	__asm__ volatile("movl $0, (%0)\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2" : : "r"(&s->busy) : "memory");
	__builtin_unreachable();
}

static void thread_call(struct fz *z);

/* A clone child: a short burst of calls (set_tid_address among them),
 * then exit(2), which writes 0 to whatever clear_child_tid was left. */
static int child_main(void *p)
{
	struct slot *s = p;
	struct fz z = { .rng = s->seed };
	for (int i = 0; i < CHILD_CALLS; i++) {
		if (next(&z) % 8 == 0)
			thread_call(&z);
		else
			random_call(&z);
	}
	add(&child_calls, z.calls);
	add(&child_failed, z.failed);
	child_exit(s);
}

static void clone_call(struct fz *z)
{
	struct slot *s = 0;
	for (int i = 0; i < SLOTS && !s; i++) {
		int zero = 0;
		if (__atomic_compare_exchange_n(&slots[i].busy, &zero, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			s = &slots[i];
	}
	if (!s)
		return;
	s->seed = next(z) | 1;
	uint64_t *sp = (uint64_t *)(s->stack + SLOT_STACK) - 2;
	sp[0] = (uint64_t)(uintptr_t)child_main;        /* popped first: the function */
	sp[1] = (uint64_t)(uintptr_t)s;                 /* its argument */
	/* Mostly what pthreads asks for with random extras (SETTLS,
	 * PARENT_SETTID, CHILD_CLEARTID, noise); now and then anything. */
	unsigned long flags = CLONE_NEED;
	static const unsigned long extra[] = { 0x200, 0x400, 0x40000, 0x80000, 0x100000, 0x200000 };
	for (unsigned i = 0; i < sizeof extra / sizeof extra[0]; i++)
		if (next(z) % 2)
			flags |= extra[i];
	if (next(z) % 8 == 0)
		flags |= next(z) & 0xffffffffull;
	if (next(z) % 64 == 0)
		flags = next(z);
	long tls = next(z) % 4 ? arg(z) : (long)(next(z) & 0x7fffffffffffull);
	z->calls++;
	long r = rt_clone_raw(flags, sp, (volatile int *)arg(z), (volatile int *)arg(z), (void *)tls);
	if (r < 0) {
		z->failed++;
		add(&clones_refused, 1);
		__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
	} else {
		add(&nclones, 1);
	}
}

/* clone, futex, the sleeps and arch_prctl, with hostile arguments. */
static void thread_call(struct fz *z)
{
	struct rt_timespec ts;
	long r;
	switch (next(z) % 5) {
	case 0:
		if (z->joined)          /* only the workers clone: children stay few */
			clone_call(z);
		return;
	case 1: {
		static const int ops[] = { 0, 1, 128, 129, 256, 3, 5, 4 };
		int op = next(z) % 4 ? ops[next(z) % 8] : (int)next(z);
		long uaddr = next(z) % 2 ? (long)&words[next(z) % 4] : arg(z);
		if (next(z) % 4 == 0)
			uaddr++;        /* misaligned */
		long val = next(z) % 2 ? words[next(z) % 4] : arg(z);      /* often the value: a real wait */
		long t = (op & 0x7f) == 0 ? timeout_arg(z, &ts) : arg(z);
		add(&futexes, 1);
		r = rt_syscall6(202, uaddr, op, val, t, arg(z), arg(z));
		break;
	}
	case 2:
		add(&sleeps, 1);
		r = rt_syscall2(35, timeout_arg(z, &ts), arg(z));
		break;
	case 3: {
		long clk = next(z) % 2 ? (long)(next(z) % 12) : arg(z);
		add(&sleeps, 1);
		r = rt_syscall4(230, clk, next(z) % 4 ? 0 : arg(z), timeout_arg(z, &ts), arg(z));
		break;
	}
	default: {
		static const long codes[] = { 0x1001, 0x1002, 0x1003, 0x1004, 0x1011, 0x1012 };
		long code = next(z) % 4 ? codes[next(z) % 6] : arg(z);
		long a = next(z) % 2 ? arg(z) : (long)(next(z) & 0x7fffffffffffull);
		add(&prctls, 1);
		r = rt_syscall2(158, code, a);
		break;
	}
	}
	z->calls++;
	if (r < 0)
		z->failed++;
}

struct worker {
	struct fz z;
	uint64_t calls;
	uint64_t die_at;                /* die: fault after this many calls */
	struct rt_thread *t;
};

static int worker_main(void *p)
{
	struct worker *w = p;
	while (w->z.calls < w->calls) {
		if (next(&w->z) % 8 == 0)
			thread_call(&w->z);
		else
			random_call(&w->z);
		if (w->die_at && w->z.calls >= w->die_at)
			__asm__ volatile("movl $1, 8" : : : "memory");  /* SIGSEGV: the program ends, its threads mid-call */
	}
	/* Wake whoever still waits on the shared words. */
	for (int i = 0; i < 4; i++)
		rt_syscall3(202, (long)&words[i], 1, 0x7fffffff);
	return 0;
}

static int threads(uint64_t seed, uint64_t calls, bool die)
{
	static struct worker w[WORKERS];
	for (int i = 0; i < SLOTS; i++) {
		slots[i].stack = rt_mmap(0, SLOT_STACK, RT_PROT_READ | RT_PROT_WRITE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
		if (rt_mmap_failed(slots[i].stack)) {
			rt_dprintf(2, "sysfuzz: mmap of a child stack failed\n");
			return 3;
		}
		own(slots[i].stack);
	}
	uint64_t t0 = rt_now_ns();
	for (int i = 0; i < WORKERS; i++) {
		w[i].z.rng = (seed + (uint64_t)i + 1) * 0x9e3779b97f4a7c15ull + 1;
		w[i].z.joined = true;
		w[i].calls = calls / WORKERS;
		w[i].die_at = die && i == 0 ? w[i].calls / 2 + 1 : 0;
		int err = rt_thread_create(&w[i].t, worker_main, &w[i], 65536);
		if (err) {
			rt_dprintf(2, "sysfuzz: thread %d: create failed (error %d)\n", i, -err);
			return 3;
		}
		own(w[i].t->map);
	}
	uint64_t total = 0, failed = 0, randnr = 0;
	for (int i = 0; i < WORKERS; i++) {
		rt_thread_join(w[i].t, 0);
		total += w[i].z.calls;
		failed += w[i].z.failed;
		randnr += w[i].z.randnr;
	}
	/* The children still running finish their bursts. */
	struct rt_timespec ms = { 0, 1000000 };
	int busy = SLOTS;
	for (int tries = 0; busy && tries < 20000; tries++) {
		busy = 0;
		for (int i = 0; i < SLOTS; i++)
			busy += __atomic_load_n(&slots[i].busy, __ATOMIC_ACQUIRE);
		if (busy)
			rt_nanosleep(&ms, 0);
	}
	if (busy) {
		rt_dprintf(2, "sysfuzz: %d clone children still running after 20000 waits\n", busy);
		return 1;
	}
	uint64_t t1 = rt_now_ns();
	struct rt_json j;
	rt_report_begin(&j, "sysfuzz");
	rt_json_str(&j, "mode", "threads");
	rt_json_u64(&j, "seed", seed);
	rt_json_u64(&j, "calls", total + child_calls);
	rt_json_u64(&j, "failed", failed + child_failed);
	rt_json_u64(&j, "random_numbers", randnr);
	rt_json_u64(&j, "clones", nclones);
	rt_json_u64(&j, "clones_refused", clones_refused);
	rt_json_u64(&j, "child_calls", child_calls);
	rt_json_u64(&j, "futex_calls", futexes);
	rt_json_u64(&j, "sleep_calls", sleeps);
	rt_json_u64(&j, "arch_prctl_calls", prctls);
	rt_report_usage(&j, t0, t1);
	return rt_json_end(&j, 1) < 0 ? 3 : 0;
}

/* ---- maps mode ------------------------------------------------------- */

#define MAPS_MAX 100000

/* sysfuzz maps: one-page areas side by side, every other one read-only so
 * none merge, until mmap refuses one (or MAPS_MAX); then one munmap over
 * all of them.  Linux stops at vm.max_map_count (65530) with -ENOMEM. */
static int maps(void)
{
	char *base = (char *)0x300000000000ul;
	uint64_t t0 = rt_now_ns();
	long n = 0, err = 0;
	for (; n < MAPS_MAX; n++) {
		char *q = rt_mmap(base + n * 4096l, 4096, RT_PROT_READ | (n & 1 ? 0 : RT_PROT_WRITE),
				  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | 0x10 /* MAP_FIXED */, -1, 0);
		if (rt_mmap_failed(q)) {
			err = rt_mmap_error(q);
			break;
		}
	}
	uint64_t t1 = rt_now_ns();
	long r = rt_syscall2(11, (long)base, n * 4096l);
	uint64_t t2 = rt_now_ns();
	struct rt_json j;
	rt_report_begin(&j, "sysfuzz");
	rt_json_str(&j, "mode", "maps");
	rt_json_u64(&j, "areas", (uint64_t)n);
	rt_json_u64(&j, "error", (uint64_t)err);
	rt_json_u64(&j, "map_ns", t1 - t0);
	rt_json_u64(&j, "munmap_ns", t2 - t1);
	rt_json_u64(&j, "munmap_error", (uint64_t)-r);
	rt_report_usage(&j, t0, t2);
	if (rt_json_end(&j, 1) < 0)
		return 3;
	return r ? 1 : 0;
}

/* ---- clones mode ----------------------------------------------------- */

#define CLONES_MAX 100000

static volatile int park, parked;

/* A parked thread: waits until main lets it go, then exits.  Its last
 * store is the count, after which it touches no memory of its own. */
static int parked_main(void *arg)
{
	(void)arg;
	struct rt_timespec sec = { 1, 0 };
	while (!__atomic_load_n(&park, __ATOMIC_ACQUIRE))
		rt_syscall4(202, (long)&park, 128, 0, (long)&sec);     /* FUTEX_WAIT_PRIVATE */
	__asm__ volatile("lock decl %0\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2" : "+m"(parked) : : "memory");
	__builtin_unreachable();
}

/* sysfuzz clones: threads on one-page stacks, each parked in a futex
 * wait, until clone refuses one (or CLONES_MAX); then all are let go.
 * Each costs the kernel far more than the program (a 16 KiB kernel
 * stack against a 4 KiB user page): the kernel must refuse in time,
 * not run out of memory or kill another program. */
static int clones(void)
{
	const unsigned long flags = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000;
	char *stacks = rt_mmap(0, (size_t)CLONES_MAX * 4096, RT_PROT_READ | RT_PROT_WRITE,
			       RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | RT_MAP_NORESERVE, -1, 0);
	if (rt_mmap_failed(stacks)) {
		rt_dprintf(2, "sysfuzz: mmap of the clone stacks failed (error %d)\n", rt_mmap_error(stacks));
		return 3;
	}
	uint64_t t0 = rt_now_ns();
	long n = 0, r = 0;
	while (n < CLONES_MAX) {
		uint64_t *sp = (uint64_t *)(stacks + (size_t)(n + 1) * 4096) - 2;
		sp[0] = (uint64_t)(uintptr_t)parked_main;
		sp[1] = 0;
		__atomic_add_fetch(&parked, 1, __ATOMIC_ACQ_REL);
		r = rt_clone_raw(flags, sp, 0, 0, 0);
		if (r < 0) {
			__atomic_sub_fetch(&parked, 1, __ATOMIC_ACQ_REL);
			break;
		}
		n++;
	}
	uint64_t t1 = rt_now_ns();
	__atomic_store_n(&park, 1, __ATOMIC_RELEASE);
	struct rt_timespec ms = { 0, 1000000 };
	int waits = 0;
	while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) && waits < 120000) {
		rt_syscall3(202, (long)&park, 129, 0x7fffffff);        /* FUTEX_WAKE_PRIVATE */
		rt_nanosleep(&ms, 0);
		waits++;
	}
	int left = __atomic_load_n(&parked, __ATOMIC_ACQUIRE);
	if (!left)
		rt_munmap(stacks, (size_t)CLONES_MAX * 4096);
	struct rt_json j;
	rt_report_begin(&j, "sysfuzz");
	rt_json_str(&j, "mode", "clones");
	rt_json_u64(&j, "threads", (uint64_t)n);
	rt_json_u64(&j, "error", (uint64_t)(r < 0 ? -r : 0));
	rt_json_u64(&j, "clone_ns", t1 - t0);
	rt_json_u64(&j, "still_parked", (uint64_t)left);
	rt_report_usage(&j, t0, rt_now_ns());
	if (rt_json_end(&j, 1) < 0)
		return 3;
	return left ? 1 : 0;
}

/* The scratch area with real paths at page starts, and those files open. */
static int setup(void)
{
	scratch = rt_mmap(0, SCRATCH, RT_PROT_READ | RT_PROT_WRITE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(scratch)) {
		rt_dprintf(2, "sysfuzz: mmap of the scratch area failed\n");
		return 3;
	}
	own(scratch);
	static const char *const paths[] = {
		"/proc/self/status", "/proc/meminfo", "/proc/vmstat", "/bin/hello", "/dev/nvme0n1", "/", "/proc",
	};
	for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		rt_memcpy(scratch + i * 4096, paths[i], rt_strlen(paths[i]) + 1);
		long fd = rt_syscall4(257, -100, (long)paths[i], 0, 0);   /* openat(AT_FDCWD, path, O_RDONLY) */
		if (fd >= 0 && nfds < NFDS)
			fds[nfds++] = (int)fd;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char usage[] = "sysfuzz SEED CALLS | sysfuzz threads SEED CALLS [die] | sysfuzz areas | sysfuzz clones | sysfuzz maps";
	if (argc == 2 && !rt_strcmp(argv[1], "areas"))
		return areas();
	if (argc == 2 && !rt_strcmp(argv[1], "clones"))
		return clones();
	if (argc == 2 && !rt_strcmp(argv[1], "maps"))
		return maps();
	bool thr = (argc == 4 || argc == 5) && !rt_strcmp(argv[1], "threads");
	bool die = thr && argc == 5;
	if (die && rt_strcmp(argv[4], "die"))
		rt_usage_error(usage, "sysfuzz: the word after threads SEED CALLS can only be die");
	if (argc != 3 && !thr)
		rt_usage_error(usage, "sysfuzz: expected SEED and CALLS, threads SEED CALLS [die], areas, clones or maps");
	uint64_t seed = rt_arg_u64("sysfuzz", usage, "SEED", argv[1 + thr], 0, UINT64_MAX);
	uint64_t calls = rt_arg_u64("sysfuzz", usage, "CALLS", argv[2 + thr], 1, 100000000);
	char u[6][65];
	if (rt_syscall1(63, (long)u) != 0 || !contains(u[2], "mmkernel")) {
		rt_dprintf(2, "sysfuzz: runs only on mmkernel (random system calls as root would harm this host)\n");
		return 2;
	}
	int err = setup();
	if (err)
		return err;
	if (thr)
		return threads(seed, calls, die);
	struct fz z = { .rng = seed * 0x9e3779b97f4a7c15ull + 1 };
	uint64_t t0 = rt_now_ns();
	for (uint64_t i = 0; i < calls; i++)
		random_call(&z);
	uint64_t t1 = rt_now_ns();
	struct rt_json j;
	rt_report_begin(&j, "sysfuzz");
	rt_json_u64(&j, "seed", seed);
	rt_json_u64(&j, "calls", calls);
	rt_json_u64(&j, "failed", z.failed);
	rt_json_u64(&j, "random_numbers", z.randnr);
	rt_json_u64(&j, "files_open", nfds);
	rt_report_usage(&j, t0, t1);
	return rt_json_end(&j, 1) < 0 ? 3 : 0;
}
