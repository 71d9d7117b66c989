/*
 * Task lifecycle: spawn, user entry, clone, exit, fatal faults, CPU time
 * accounting, output lines and the task_exit record.
 *
 * A user thread is a kernel thread with t->task set.  It enters ring 3
 * through enter_user() with a prepared trap frame and comes back on every
 * syscall, interrupt and exception; on each way out the task's exit flag is
 * checked, which is how exit_group and fatal faults stop the other threads.
 *
 * Time: at each user/kernel boundary the TSC since the last boundary is
 * added to utime (coming in) or stime (going out); the scheduler closes
 * the open stime interval when it switches a user thread out (sched.c).
 *
 * FPU/SSE: user threads own a 512-byte FXSAVE area, saved and restored
 * eagerly on every switch (the kernel itself never touches FPU state).
 */
#include <string.h>
#include "task.h"
#include "core/sched.h"
#include "exec.h"
#include "futex.h"
#include "file.h"
#include "core/console.h"
#include "core/record.h"
#include "core/bootfs.h"
#include "vm/vm.h"
#include "vm/vmstat.h"
#include "vm/reclaim.h"
#include "vm/pagecache.h"
#include "swap/swap.h"
#include "lib/printf.h"
#include "lib/errno.h"
#include "lib/timemath.h"
#include "mem/kmalloc.h"
#include "mem/pmm.h"
#include "mem/page.h"
#include "mem/layout.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/percpu.h"

void enter_user(struct trap_frame *f) __attribute__((noreturn));

static struct spinlock tasks_lock = SPINLOCK_INIT("tasks");
/* [A] OOM victims whose memory is not back yet, and when the last was
 * chosen (task_oom_kill). */
static volatile int oom_pending;
static volatile uint64_t oom_pending_since;
static struct list_node tasks = LIST_INIT(tasks);

struct task *current_task(void) { return current_thread()->task; }

static uint64_t tsc_ns(uint64_t ticks) { return tsc_to_ns(ticks); }

/* User time of every task ever run, for hangcheck's progress count. */
static uint64_t user_ns_all;
static bool warned_tsc_backwards;

/* TSC ticks since the thread's last user/kernel boundary, and the new
 * mark.  Callers turn interrupts off around it (a brief, untimed
 * section: x86.h), so the read of the TSC and of the mark and the new
 * mark are one step for the scheduler's account_switch, which moves the
 * mark when it switches this thread out and in: preempted between the
 * rdtsc and the read of the mark, the delta was negative, and
 * ticks_to_ns of its two's complement at a calibration just below 1 GHz
 * added about 110700 s (a seed 003 record's 110708 s; under -icount an
 * interrupt can land on any instruction, and test_cputime.py caught
 * 110681 s at 999.994 MHz).  A mark ahead of the TSC cannot happen now;
 * if it does, the interval counts 0 (*behind says by how much, for the
 * caller's one console line). */
static uint64_t acct_ticks(struct thread *t, uint64_t now, uint64_t *behind)
{
	uint64_t mark = t->acct_mark;
	*behind = ticks_elapsed(mark, now);
	t->acct_mark = now;
	return ticks_elapsed(now, mark);
}

static void acct_warn(struct thread *t, uint64_t behind)
{
	if (!__atomic_exchange_n(&warned_tsc_backwards, true, __ATOMIC_RELAXED))
		kprintf("task: thread %s: TSC %lu ticks behind its accounting mark: interval counted as 0\n",
			t->name, behind);
}

void uacct_enter(struct thread *t)
{
	uint64_t behind;
	bool on = irq_save_brief();
	uint64_t ns = tsc_ns(acct_ticks(t, rdtsc(), &behind));
	t->utime_ns += ns;
	irq_restore_brief(on);
	__atomic_add_fetch(&user_ns_all, ns, __ATOMIC_RELAXED);
	if (behind)
		acct_warn(t, behind);
}

uint64_t task_user_ns_all(void) { return __atomic_load_n(&user_ns_all, __ATOMIC_RELAXED); }

void uacct_exit(struct thread *t)
{
	uint64_t behind;
	bool on = irq_save_brief();
	t->stime_ns += tsc_ns(acct_ticks(t, rdtsc(), &behind));
	irq_restore_brief(on);
	if (behind)
		acct_warn(t, behind);
}

void task_cpu_times(struct task *k, uint64_t *utime, uint64_t *stime)
{
	bool on = spin_lock_irqsave(&k->lock);
	uint64_t u = k->utime_ns, s = k->stime_ns;
	list_for_each(it, &k->threads) {
		struct thread *t = list_entry(it, struct thread, task_link);
		u += t->utime_ns;
		s += t->stime_ns;
	}
	spin_unlock_irqrestore(&k->lock, on);
	*utime = u;
	*stime = s;
}

/* ------------------------------------------------------------ output */

static task_line_fn stdout_hook;

void task_set_stdout_hook(task_line_fn fn) { __atomic_store_n(&stdout_hook, fn, __ATOMIC_RELEASE); }

static void emit_line(struct task *k, int fd, const char *s, uint32_t n)
{
	if (fd == 1) {
		console_write(s, n);
		rec_keep_line(s, n);    /* a workload's own records go to the results file too */
		task_line_fn hook = __atomic_load_n(&stdout_hook, __ATOMIC_ACQUIRE);
		if (hook)
			hook(k, s, n);
	} else {
		char pre[TASK_NAME_MAX + 16];
		int m = ksnprintf(pre, sizeof pre, "[%s:%d] ", k->name, k->pid);
		/* One kprintf keeps the prefix and the line together. */
		kprintf("%.*s%.*s", m, pre, (int)n, s);
	}
}

void task_output(struct task *k, int fd, const char *buf, uint64_t n)
{
	int i = fd == 1 ? 0 : 1;
	for (uint64_t j = 0; j < n; j++) {
		k->line[i][k->linelen[i]++] = buf[j];
		if (buf[j] == '\n' || k->linelen[i] == TASK_LINE_MAX) {
			emit_line(k, fd, k->line[i], k->linelen[i]);
			k->linelen[i] = 0;
		}
	}
}

static void flush_output(struct task *k)
{
	for (int i = 0; i < 2; i++)
		if (k->linelen[i]) {
			k->line[i][k->linelen[i]++] = '\n';
			emit_line(k, i + 1, k->line[i], k->linelen[i]);
			k->linelen[i] = 0;
		}
}

/* ------------------------------------------------------------ entry */

static void fpu_init_state(uint8_t *area)
{
	memset(area, 0, 512);
	area[0] = 0x7f;                 /* FCW 0x037f: all exceptions masked */
	area[1] = 0x03;
	area[24] = 0x80;                /* MXCSR 0x1f80 */
	area[25] = 0x1f;
}

static void user_entry(void *arg)
{
	struct trap_frame f = *(struct trap_frame *)arg;
	kfree(arg);
	struct thread *t = current_thread();
	mm_activate(t->task->mm);
	wrmsr(MSR_FS_BASE, t->fs_base);
	fxrstor_area(t->fpu);
	irq_disable();
	t->acct_mark = rdtsc();
	enter_user(&f);
}

/* A thread of k that will start in user mode with frame f (copied to
 * *frame, which user_entry frees; whoever drops the thread unstarted
 * frees it). */
static struct thread *new_user_thread(struct task *k, const struct trap_frame *f, uint64_t fs_base,
				      struct trap_frame **frame)
{
	struct trap_frame *copy = kmalloc(sizeof *copy);
	uint8_t *fpu = kmalloc(512);
	struct thread *t = copy && fpu ? thread_alloc(k->name, user_entry, copy, SCHED_NORMAL) : NULL;
	if (!t) {
		kfree(copy);
		kfree(fpu);
		return NULL;
	}
	*copy = *f;
	*frame = copy;
	fpu_init_state(fpu);
	t->fpu = fpu;
	t->task = k;
	t->pt_root = k->mm->pml4;
	t->pt_cpus = &k->mm->cpus;
	t->fs_base = fs_base;
	bool on = spin_lock_irqsave(&k->lock);
	list_add_tail(&t->task_link, &k->threads);
	k->nthreads++;
	spin_unlock_irqrestore(&k->lock, on);
	return t;
}

static void initial_frame(struct trap_frame *f, uint64_t rip, uint64_t rsp)
{
	memset(f, 0, sizeof *f);
	f->rip = rip;
	f->rsp = rsp;
	f->cs = SEL_UCODE | 3;
	f->ss = SEL_UDATA | 3;
	f->rflags = RFLAGS_IF | 0x2;
}

static struct task *task_new(const char *cmdline, const char *name, int ppid)
{
	struct task *k = kzalloc(sizeof *k);
	if (!k)
		return NULL;
	spin_init(&k->lock, "task");
	mutex_init(&k->files_lock, "files");
	list_init(&k->threads);
	completion_init(&k->done);
	size_t n = strnlen(name, TASK_NAME_MAX - 1);
	memcpy(k->name, name, n);
	n = strnlen(cmdline, sizeof k->cmdline - 1);
	memcpy(k->cmdline, cmdline, n);
	k->ppid = ppid;
	k->refs = 2;                    /* the running task and the spawner */
	k->start_ns = time_ns();
	return k;
}

static const char *base_name(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

struct task *task_spawn(const char *cmdline, int ppid)
{
	static char argbuf[1024];
	static const char *argv[EXEC_MAX_ARGS];
	static struct mutex spawn_lock;         /* argbuf/argv */
	static bool init;
	if (!init) {
		mutex_init(&spawn_lock, "spawn");
		init = true;
	}
	mutex_lock(&spawn_lock);
	struct task *k = NULL;
	int argc = exec_split_args(cmdline, argbuf, sizeof argbuf, argv, EXEC_MAX_ARGS);
	const void *img;
	uint64_t size;
	const char *path;
	char err[192];
	if (argc <= 0) {
		kprintf("task: cannot run \"%s\": %s\n", cmdline, argc ? "too many or too long arguments" : "empty command");
		goto out;
	}
	if (!bootfs_find(argv[0], &img, &size, &path)) {
		static char why[sizeof argbuf + 160];  /* argv[0] whole, and the program meant */
		bootfs_no_program(argv[0], why, sizeof why);
		kprintf("task: cannot run \"%s\": %s\n", cmdline, why);
		goto out;
	}
	k = task_new(cmdline, base_name(path), ppid);
	struct mm *mm = k ? mm_create() : NULL;
	if (!mm) {
		kprintf("task: cannot run \"%s\": out of memory\n", cmdline);
		kfree(k);
		k = NULL;
		goto out;
	}
	k->mm = mm;
	k->exe = path;
	struct exec_image ex;
	if (exec_load(mm, path, img, size, argc, argv, &ex, err, sizeof err)) {
		kprintf("task: %s\n", err);
		mm_put(mm);
		kfree(k);
		k = NULL;
		goto out;
	}
	mm->brk_start = mm->brk = ex.brk;
	struct trap_frame f;
	initial_frame(&f, ex.entry, ex.rsp);
	struct trap_frame *frame;
	struct thread *t = new_user_thread(k, &f, 0, &frame);
	if (!t) {
		kprintf("task: cannot run \"%s\": out of memory\n", cmdline);
		mm_put(mm);
		kfree(k);
		k = NULL;
		goto out;
	}
	k->pid = t->tid;
	bool on = spin_lock_irqsave(&tasks_lock);
	list_add_tail(&k->all, &tasks);
	spin_unlock_irqrestore(&tasks_lock, on);
	kprintf("task: started %s (pid %d): %s\n", k->name, k->pid, cmdline);
	thread_start(t);
out:
	mutex_unlock(&spawn_lock);
	return k;
}

unsigned task_nr_threads(void)
{
	unsigned n = 0;
	bool on = spin_lock_irqsave(&tasks_lock);
	list_for_each(it, &tasks)
		n += (unsigned)list_entry(it, struct task, all)->nthreads;
	spin_unlock_irqrestore(&tasks_lock, on);
	return n;
}

/* Linux's threads-max: kernel stacks may take an eighth of RAM.  Each
 * thread costs the kernel 16 KiB of stack and its structures, its program
 * as little as one page, and kernel memory is neither reclaimed nor
 * counted by the OOM killer: a program cloning without end took all of it
 * (at 64 MiB, 2900 threads; then the OOM killer chose a victim by its
 * pages, not by what it had cost).  Set once by task_init, as Linux's
 * fork_init: the managed pages do not change after boot. */
static unsigned max_user_threads;

int task_clone_thread(struct task *k, const struct trap_frame *parent, uint64_t flags, uint64_t stack,
		      uint64_t ptid, uint64_t ctid, uint64_t tls)
{
	if (task_nr_threads() >= max_user_threads) {
		if (!__atomic_exchange_n(&k->told_thread_limit, true, __ATOMIC_RELAXED))
			kprintf("task: %s (pid %d): clone refused (-EAGAIN): %u threads, the limit for this RAM "
				"(kernel stacks may take an eighth of it)\n", k->name, k->pid, max_user_threads);
		return -EAGAIN;
	}
	/* As arch_prctl(ARCH_SET_FS): a base at or above Linux's TASK_SIZE_MAX
	 * is refused.  A non-canonical one would fault in wrmsr at the
	 * thread's first switch, in the kernel. */
	if ((flags & CLONE_SETTLS) && tls >= USER_MAP_TOP)
		return -EPERM;
	struct trap_frame f = *parent;
	f.rax = 0;
	if (stack)
		f.rsp = stack;
	struct trap_frame *frame;
	struct thread *t = new_user_thread(k, &f, (flags & CLONE_SETTLS) ? tls : current_thread()->fs_base, &frame);
	if (!t)
		return -ENOMEM;
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = ctid;
	if ((flags & CLONE_PARENT_SETTID) && put_user_u32(ptid, (uint32_t)t->tid)) {
		/* Not started yet: undo, down to the frame user_entry would
		 * have freed (it leaked, 256 bytes a refused clone). */
		bool on = spin_lock_irqsave(&k->lock);
		list_del(&t->task_link);
		k->nthreads--;
		spin_unlock_irqrestore(&k->lock, on);
		kfree(frame);
		kfree(t->fpu);
		thread_free_unstarted(t);
		return -EFAULT;
	}
	int tid = t->tid;
	thread_start(t);
	return tid;
}

/* ------------------------------------------------------------ exit */

static void exit_record(struct task *k)
{
	uint64_t u, s;
	task_cpu_times(k, &u, &s);
	struct json *j = rec_begin("task_exit");
	json_str(j, "name", k->name);
	json_u64(j, "pid", (uint64_t)k->pid);
	json_str(j, "cmdline", k->cmdline);
	if (k->killed) {
		json_null(j, "exit_code");
		json_str(j, "signal", k->signal);
		json_str(j, "reason", k->kill_reason);
	} else {
		json_i64(j, "exit_code", k->exit_code);
		json_null(j, "signal");
	}
	json_u64(j, "start_ns", k->start_ns);
	json_u64(j, "elapsed_ns", k->end_ns - k->start_ns);
	json_u64(j, "utime_ns", u);
	json_u64(j, "stime_ns", s);
	json_u64(j, "minflt", k->faults.minflt);
	json_u64(j, "majflt", k->faults.majflt);
	json_u64(j, "swapflt", k->faults.swapflt);
	json_u64(j, "ra_issued", k->mm ? k->mm->ra_issued : 0);
	json_u64(j, "ra_hits", k->mm ? k->mm->ra_hits : 0);
	json_u64(j, "nvcsw", k->nvcsw);
	json_u64(j, "nivcsw", k->nivcsw);
	json_u64(j, "maxrss_kib", k->maxrss_pages * 4);
	rec_end();
}

static void task_finish(struct task *k)
{
	k->end_ns = time_ns();
	flush_output(k);
	if (k->killed)
		kprintf("task: %s (pid %d) killed by %s: %s\n", k->name, k->pid, k->signal, k->kill_reason);
	else
		kprintf("task: %s (pid %d) exited with status %d\n", k->name, k->pid, k->exit_code);
	exit_record(k);
	file_close_all(k);
	struct mm *mm = k->mm;
	k->mm = NULL;
	mm_put(mm);
	if (k->oom_victim)
		__atomic_sub_fetch(&oom_pending, 1, __ATOMIC_ACQ_REL);  /* its memory is back */
	bool on = spin_lock_irqsave(&tasks_lock);
	list_del(&k->all);
	spin_unlock_irqrestore(&tasks_lock, on);
	complete_all(&k->done);
	task_put(k);
}

static void stop_others(struct task *k)
{
	bool on = spin_lock_irqsave(&k->lock);
	list_for_each(it, &k->threads)
		thread_wake(list_entry(it, struct thread, task_link));
	spin_unlock_irqrestore(&k->lock, on);
	futex_interrupt(k->mm);
}

void task_kill(struct task *k, const char *signal, const char *fmt, ...)
{
	bool on = spin_lock_irqsave(&k->lock);
	bool first = !k->exiting;
	if (first) {
		k->exiting = true;
		k->killed = true;
		k->signal = signal;
		va_list ap;
		va_start(ap, fmt);
		kvsnprintf(k->kill_reason, sizeof k->kill_reason, fmt, ap);
		va_end(ap);
	}
	spin_unlock_irqrestore(&k->lock, on);
	if (first)
		stop_others(k);         /* task_finish prints the line */
}

void task_thread_exit(int code, bool whole_group)
{
	struct thread *t = current_thread();
	struct task *k = t->task;
	irq_enable();
	if (whole_group) {
		bool on = spin_lock_irqsave(&k->lock);
		bool first = !k->exiting;
		if (first) {
			k->exiting = true;
			k->exit_code = code;
		}
		spin_unlock_irqrestore(&k->lock, on);
		if (first)
			stop_others(k);
	}
	if (t->clear_child_tid && !k->killed && !put_user_u32(t->clear_child_tid, 0))
		futex_wake(k->mm, t->clear_child_tid, 1);
	uacct_exit(t);
	bool on = spin_lock_irqsave(&k->lock);
	list_del(&t->task_link);
	k->utime_ns += t->utime_ns;
	k->stime_ns += t->stime_ns;
	k->nvcsw += t->nvcsw;
	k->nivcsw += t->nivcsw;
	bool last = --k->nthreads == 0;
	if (!k->exiting && last)
		k->exit_code = code;
	spin_unlock_irqrestore(&k->lock, on);
	t->task = NULL;
	t->pt_root = 0;
	t->pt_cpus = NULL;
	/* Detach the FXSAVE area before freeing it: a switch away from this
	 * thread (a timer, or the preemption check in kfree's own unlock)
	 * saves into t->fpu, and must not write into a freed block. */
	uint8_t *fpu = t->fpu;
	t->fpu = NULL;
	kfree(fpu);
	if (last)
		task_finish(k);
	thread_exit();
}

void task_check_exit(void)
{
	struct task *k = current_task();
	if (k && k->exiting)
		task_thread_exit(0, false);
}

void task_put(struct task *k)
{
	if (!__atomic_sub_fetch(&k->refs, 1, __ATOMIC_ACQ_REL))
		kfree(k);
}

int task_wait(struct task *k)
{
	completion_wait(&k->done);
	return k->killed ? 128 + 9 : k->exit_code;
}

/* ------------------------------------------------------------ faults */

static const char *signal_of(uint64_t vector)
{
	switch (vector) {
	case 0: case 16: case 19: return "SIGFPE";
	case 1: case 3: return "SIGTRAP";
	case 6: return "SIGILL";
	case 17: return "SIGBUS";
	default: return "SIGSEGV";
	}
}

static const char *access_of(uint64_t err)
{
	return err & PF_WRITE ? "write" : err & PF_FETCH ? "instruction fetch" : "read";
}

/* An exception in user mode that nothing resolved: the task dies. */
void task_user_exception(struct trap_frame *f, uint64_t cr2)
{
	struct task *k = current_task();
	if (f->vector == 14)
		task_kill(k, "SIGSEGV", "page fault: %s at 0x%lx, a kernel address, rip 0x%lx",
			  access_of(f->error), cr2, f->rip);
	else
		task_kill(k, signal_of(f->vector), "%s, rip 0x%lx, error code 0x%lx",
			  trap_vector_name((unsigned)f->vector), f->rip, f->error);
	task_thread_exit(0, false);
}

/* One fault's counts, to the task (its threads may fault at once: atomic
 * adds) and to the thread alone, for getrusage(RUSAGE_THREAD). */
static void count_fault(struct task *k, struct thread *t, const struct fault_stats *st)
{
	__atomic_add_fetch(&k->faults.minflt, st->minflt, __ATOMIC_RELAXED);
	__atomic_add_fetch(&k->faults.majflt, st->majflt, __ATOMIC_RELAXED);
	__atomic_add_fetch(&k->faults.swapflt, st->swapflt, __ATOMIC_RELAXED);
	t->minflt += st->minflt;
	t->majflt += st->majflt;
}

static bool page_fault(struct trap_frame *f, uint64_t addr)
{
	struct task *k = current_task();
	bool user = f->cs & 3;
	if (!k || addr >= USER_TOP)
		return false;                   /* kernel fault (or user: killed by the caller) */
	/* In kernel mode, only the uaccess instructions may touch user memory;
	 * anything else (an SMAP violation) is a kernel bug. */
	if (!user && !extable_lookup(f->rip))
		return false;
	if (!user && this_cpu()->preempt_count)
		return extable_fixup(f);        /* cannot sleep here: fail the access */
	if (f->rflags & RFLAGS_IF)
		irq_enable();
	struct fault_stats st = { 0 };
	enum vm_fault_result r = vm_fault(k->mm, addr, f->error & PF_WRITE, f->error & PF_FETCH, &st);
	count_fault(k, current_thread(), &st);
	/* A program's write dirtied a shared file page: the dirty limits,
	 * with no lock held (not for a uaccess fault: the syscall may hold
	 * a page lock the flusher waits for). */
	if (st.dirtied && user)
		pagecache_balance_dirty();
	irq_disable();
	if (r == VM_FAULT_OK) {
		/* Threads of one task fault at once on several CPUs: a
		 * compare-and-swap maximum, so a smaller value never wins. */
		uint64_t rss = __atomic_load_n(&k->mm->rss, __ATOMIC_RELAXED);
		uint64_t seen = __atomic_load_n(&k->maxrss_pages, __ATOMIC_RELAXED);
		while (rss > seen && !__atomic_compare_exchange_n(&k->maxrss_pages, &seen, rss, true,
								   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		return true;
	}
	if (!user)
		return extable_fixup(f);
	if (r == VM_FAULT_OOM)
		task_kill(k, "SIGKILL", "out of memory: %s at 0x%lx, rip 0x%lx", access_of(f->error), addr, f->rip);
	else if (r == VM_FAULT_SIGBUS)
		task_kill(k, "SIGBUS", "page fault: %s at 0x%lx: %s, rip 0x%lx", access_of(f->error), addr,
			  vm_fault_name(r), f->rip);
	else
		task_kill(k, "SIGSEGV", "page fault: %s at 0x%lx, %s, rip 0x%lx", access_of(f->error), addr,
			  vm_fault_name(r), f->rip);
	task_thread_exit(0, false);
}

/* reclaim's OOM policy: kernel threads and tasks already dying may use
 * the reserve below wm_min; otherwise the task with the largest resident
 * set dies (task_oom_kill). */
static bool oom_may_use_reserve(void)
{
	struct task *me = current_task();
	return !me || me->exiting;
}

static bool oom_kill_for_current(void) { return task_oom_kill(current_task()); }

/* trap.c's ring-3 hooks.  A thread of no task falls through to the
 * exception report. */
static void user_enter(void) { uacct_enter(current_thread()); }

static void user_exception(struct trap_frame *f, uint64_t cr2)
{
	if (current_task())
		task_user_exception(f, cr2);
}

static void user_leave(void)
{
	task_check_exit();
	uacct_exit(current_thread());
}

void task_init(void)
{
	static const struct trap_user_hooks hooks = { user_enter, user_exception, user_leave };
	static const struct reclaim_oom_policy oom = { oom_may_use_reserve, oom_kill_for_current };
	struct pmm_stats st;
	pmm_get_stats(&st);
	uint64_t n = st.total_pages / (8 * (KSTACK_SIZE / PAGE_SIZE));
	max_user_threads = n < 20 ? 20 : n > 4000000 ? 4000000 : (unsigned)n;
	trap_set_page_fault_handler(page_fault);
	trap_set_user_hooks(&hooks);
	reclaim_set_oom_policy(&oom);
}

/* ------------------------------------------------------------ OOM */

/* How long a victim's exit may take before another task is chosen
 * anyway (its teardown stuck: Linux's oom_reaper covers that case). */
#define OOM_VICTIM_WAIT_NS 2000000000ull

bool task_oom_kill(struct task *asker)
{
	/* A victim still giving its memory back: wait for it (Linux's
	 * oom_evaluate_task aborts the same way).  On several CPUs another
	 * task's allocation failed while the first victim's teardown ran,
	 * and the killer took a second, innocent task. */
	if (__atomic_load_n(&oom_pending, __ATOMIC_ACQUIRE) &&
	    time_ns() - oom_pending_since < OOM_VICTIM_WAIT_NS)
		return true;
	/* The most memory: resident, in swap and in page tables, as Linux's
	 * oom_badness.  By resident pages alone, with swap full, the killer
	 * took a small active program and left the one whose pages filled
	 * swap; and a program touching a page per 2 MiB costs a page table
	 * per page. */
	struct task *victim = NULL;
	uint64_t worst = 0;
	bool on = spin_lock_irqsave(&tasks_lock);
	list_for_each(it, &tasks) {
		struct task *k = list_entry(it, struct task, all);
		if (k->exiting || !k->mm)
			continue;
		uint64_t pages = __atomic_load_n(&k->mm->rss, __ATOMIC_RELAXED) +
				 __atomic_load_n(&k->mm->swap_ents, __ATOMIC_RELAXED) +
				 __atomic_load_n(&k->mm->table_pages, __ATOMIC_RELAXED);
		if (!victim || pages > worst) {
			victim = k;
			worst = pages;
		}
	}
	if (victim) {
		__atomic_add_fetch(&victim->refs, 1, __ATOMIC_ACQ_REL);
		victim->oom_victim = true;
		__atomic_add_fetch(&oom_pending, 1, __ATOMIC_ACQ_REL);
		oom_pending_since = time_ns();
	}
	spin_unlock_irqrestore(&tasks_lock, on);
	if (!victim)
		return false;
	uint64_t rss_kib = victim->mm->rss * 4, swap_kib = victim->mm->swap_ents * 4;
	uint64_t pt_kib = victim->mm->table_pages * 4;
	vmstat_inc(OOM_KILL);
	kprintf("oom: out of memory and swap: killing %s (pid %d), %lu KiB resident, %lu KiB in swap, %lu KiB of page "
		"tables%s\n", victim->name, victim->pid, rss_kib, swap_kib, pt_kib,
		victim == asker ? " (the task that asked)" : "");
	struct json *j = rec_begin("oom_kill");
	json_str(j, "name", victim->name);
	json_u64(j, "pid", (uint64_t)victim->pid);
	json_u64(j, "rss_kib", rss_kib);
	json_u64(j, "swap_kib", swap_kib);
	json_u64(j, "pagetable_kib", pt_kib);
	json_str(j, "asker", asker ? asker->name : NULL);
	json_u64(j, "swap_free_pages", swap_total_slots() - swap_used_slots());
	json_u64(j, "t_ns", time_ns());         /* guest time, comparable with task_exit's start_ns */
	rec_end();
	task_kill(victim, "SIGKILL", "out of memory: killed to free %lu KiB", rss_kib + swap_kib + pt_kib);
	task_put(victim);
	return true;
}
