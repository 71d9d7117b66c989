/*
 * Kernel threads and the scheduler.
 *
 * Preemptive, round-robin within three classes (RT, NORMAL, IDLE; see
 * runq.h), on every online CPU, each with its own run queue (sched.c says
 * how threads are placed and balanced).  The timer tick ends a NORMAL or RT thread's 10 ms slice when
 * another thread of its class or better is waiting; a wakeup of a better
 * class preempts at once.  Preemption happens on return from an interrupt
 * unless the interrupted code holds a spinlock.
 *
 * Blocking protocol (wait.c builds on it):
 *     sched_set_blocked();           // state = BLOCKED, before checking
 *     if (!condition) schedule();    // a wake in between makes it RUNNABLE
 *     sched_set_running();
 * so a wakeup between the check and schedule() is never lost.
 */
#ifndef SCHED_H
#define SCHED_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "runq.h"
#include "time.h"
#include "lib/cpumask.h"
#include "lockdep.h"

enum thread_state {
	T_RUNNING,              /* on a CPU */
	T_RUNNABLE,             /* waiting for a CPU */
	T_BLOCKED,              /* waiting for a wakeup */
	T_DEAD,                 /* exited; freed after the switch away from it */
};

struct task;

struct thread {
	uint64_t rsp;                   /* saved stack pointer while switched out */
	/* [rq]: guarded by the run-queue lock of the CPU `cpu` names
	 * (sched.c); cpu itself changes only with both queues' locks held. */
	struct runq_entity rq;          /* [rq] */
	volatile int state;             /* [rq] enum thread_state */
	bool on_cpu;                    /* [rq] */
	uint32_t cpu;                   /* [rq] where it runs, waits or last ran */
	struct cpumask allowed;         /* [rq] CPUs it may run on */
	int tid;
	char name[24];
	uint64_t stack_top;
	size_t stack_size;              /* 0: the boot stack, never freed */
	struct list_node all;           /* guarded by threads_lock (sched.c) */
	struct ktimer wake_timer;       /* for timed blocking */
	const char *wchan;              /* what it last blocked on (for dumps) */
	bool timed_out;
	uint64_t sleep_until;           /* in sched_block_until with a deadline: it (hangcheck's lost wakeups) */
	uint64_t lost_reported;         /* the sleep_until hangcheck reported, not again */
	/* Accounting (the thread's own CPU, under its run-queue lock). */
	uint64_t run_start_tsc;
	uint64_t cpu_ns;
	uint64_t nvcsw, nivcsw;         /* voluntary / involuntary switches */
	/* User threads (task.c); all zero for kernel threads. */
	struct task *task;              /* the process this thread belongs to */
	uint64_t pt_root;               /* physical page-table root loaded on switch-in; 0: keep */
	struct cpumask *pt_cpus;        /* CPUs with pt_root loaded (its mm's, tlb.h) */
	uint64_t fs_base;               /* TLS base, restored on switch-in */
	uint64_t clear_child_tid;       /* CLONE_CHILD_CLEARTID / set_tid_address */
	struct list_node task_link;     /* guarded by the task's lock */
	uint64_t acct_mark;             /* TSC at the last user/kernel boundary */
	uint8_t *fpu;                   /* FXSAVE area (512 bytes, 16-aligned) */
	uint64_t utime_ns, stime_ns;
	uint64_t minflt, majflt;        /* its own page faults (task.c; the task's sum them all) */
#ifdef LOCKDEP
	struct lockdep_thread lockdep;  /* the mutexes it holds (lockdep.c; only it changes them) */
#endif
};

#define KSTACK_SIZE 16384

/* Adopt the boot context as thread "kmain" and create the idle thread. */
void sched_init(void);
/* NULL when out of memory. */
struct thread *thread_create(const char *name, void (*fn)(void *), void *arg, enum sched_class cls);
/* Create without starting, so the creator can finish setting it up. */
struct thread *thread_alloc(const char *name, void (*fn)(void *), void *arg, enum sched_class cls);
void thread_start(struct thread *t);
/* Free a thread from thread_alloc that was never started. */
void thread_free_unstarted(struct thread *t);
__attribute__((noreturn)) void thread_exit(void);
struct thread *current_thread(void);

/* Give up the CPU voluntarily (stay runnable). */
void sched_yield(void);
/* Switch to the best runnable thread; blocks if current is T_BLOCKED.
 * Must not be called holding a spinlock. */
void schedule(void);
void sched_set_blocked(void);
void sched_set_running(void);
/* Block until woken or until at_ns (0 = no timeout); returns true on timeout. */
bool sched_block_until(uint64_t at_ns);
/* Make t runnable if blocked.  Any context.  Returns true if it was blocked.
 * A woken thread of a better class runs at once when the caller may be
 * preempted (the unlock that ends the caller's last spinlock section
 * switches: spinlock.h), else at the next preemption point. */
bool thread_wake(struct thread *t);

void sleep_ns(uint64_t ns);
void sleep_ms(uint64_t ms);
void sleep_us(uint64_t us);

/* Hooks for the interrupt path. */
void sched_tick(uint64_t now_ns);
void sched_preempt_point(void);
/* Called by switch.asm for a new thread's first run. */
__attribute__((noreturn)) void sched_thread_start(void (*fn)(void *), void *arg);

/* For vmstat's r and b columns: threads runnable (or running, idle
 * excluded) and threads blocked waiting for I/O. */
void sched_counts(unsigned *runnable, unsigned *io_blocked);
/* Bracket a wait for disk I/O (it shows in vmstat's b column). */
void sched_io_wait_begin(void);
void sched_io_wait_end(void);

/* Print every thread: state, what it waits on, and a backtrace. */
void sched_dump_threads(void);
/* hangcheck=N: dump the threads when progress() (a count of work done)
 * stands still for N seconds. */
void sched_hangcheck(unsigned seconds, uint64_t (*progress)(void));
/* hangcheck's period (0: off) and how many periods it found without
 * progress so far (test=hangcheck). */
unsigned sched_hangcheck_seconds(void);
uint64_t sched_hangcheck_reports(void);
/* Lockups hangcheck reported: CPUs without a tick, or with preemption
 * off, for its period (sched.c). */
uint64_t sched_lockup_reports(void);
/* Threads hangcheck found still blocked N s after their wake-up time. */
uint64_t sched_lost_wakeup_reports(void);

/* On an AP that just came online, on its boot stack (stack_top): that
 * stack becomes the CPU's idle thread; start its tick and run.  Never
 * returns. */
__attribute__((noreturn)) void sched_ap_enter(uint64_t stack_top);
/* CPUs taking threads (ids 0..n-1). */
unsigned sched_cpus(void);
/* The CPU the caller runs on (it may move right after; for getcpu). */
unsigned sched_cpu_of_current(void);
/* Restrict thread tid (0: the caller) to the CPUs in want; -EINVAL when
 * none of them is online, -ESRCH when there is no such thread.  A thread
 * running or queued elsewhere moves at once (its CPU is asked to
 * reschedule; the caller itself moves at its next switch). */
int sched_setaffinity(int tid, const struct cpumask *want);
/* Thread tid's CPUs, online ones only; -ESRCH when there is none. */
int sched_getaffinity(int tid, struct cpumask *out);

/* Print a {"type":"cpus",...} record (per CPU: switches, ticks, busy and
 * idle time, wake-up IPIs, threads pulled) and the boot CPU's
 * {"type":"cpu",...} record with every thread's time. */
void sched_report(void);
uint64_t sched_ctx_switches(void);
/* Time every online CPU has not spent in its idle thread, summed, in ns
 * since it came online (plus the boot time before that, a constant):
 * the guest busy time of a stretch is the difference of two readings
 * taken with the same CPUs online.  Interrupt time counts as busy. */
uint64_t sched_busy_ns(void);

#endif
