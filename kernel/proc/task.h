/*
 * Tasks: user processes running static Linux x86-64 programs from the boot
 * image.  A task owns an address space and one or more threads (clone with
 * CLONE_THREAD); it ends when its last thread exits, or all at once on
 * exit_group or a fatal fault, and then prints a {"type":"task_exit"}
 * record with its exit status, CPU times and faults.
 *
 * Locking: task->lock (irqsave) guards the thread list, the counters of
 * exited threads, the exit state and the output line buffers.
 */
#ifndef TASK_H
#define TASK_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/list.h"
#include "core/spinlock.h"
#include "core/wait.h"
#include "vm/vm.h"

struct thread;
struct open_file;
struct trap_frame;

#define TASK_NAME_MAX 32
#define TASK_LINE_MAX 1024
/* Unknown syscalls logged once each: a bitmap over every x86-64 number
 * (the table ends near 460), plus a few larger numbers. */
#define SYSCALL_LOG_BITS 1024
#define SYSCALL_LOG_BIG 8
/* Open files per task beyond stdin/stdout/stderr. */
#define TASK_MAX_FILES 32
#define TASK_FD_FIRST 3

struct task {
	int pid, ppid;
	char name[TASK_NAME_MAX];
	char cmdline[256];
	struct mm *mm;
	struct spinlock lock;
	struct list_node threads;       /* struct thread.task_link */
	int nthreads;                   /* live threads */
	bool exiting;                   /* exit_group or fatal fault: threads leave */
	int exit_code;                  /* valid when !killed */
	bool killed;
	bool oom_victim;                /* killed by task_oom_kill; its memory not yet given back */
	bool told_thread_limit;         /* the clone refusal line was printed */
	char kill_reason[192];
	const char *signal;             /* "SIGSEGV", "SIGKILL", ... when killed */
	uint64_t start_ns, end_ns;
	uint64_t utime_ns, stime_ns;    /* of exited threads */
	uint64_t nvcsw, nivcsw;
	struct fault_stats faults;      /* atomic adds */
	uint64_t maxrss_pages;          /* [atomic] a maximum, raised by compare-and-swap (task.c) */
	struct completion done;         /* completed when the task has ended */
	char line[2][TASK_LINE_MAX];    /* stdout, stderr partial lines */
	uint32_t linelen[2];
	/* One log line per unknown syscall number (syscall.c), set with
	 * atomic ops since the task's threads may race: a bit per number
	 * below SYSCALL_LOG_BITS, a few larger numbers (x32's, garbage),
	 * then a flag for "the rest are not logged". */
	uint64_t enosys_bits[SYSCALL_LOG_BITS / 64];
	uint64_t enosys_big[SYSCALL_LOG_BIG];
	bool enosys_big_full;
	struct list_node all;
	int refs;
	/* The program's boot-file path ("bin/busybox"), for /proc/self/exe;
	 * boot files never move, so the pointer stays valid. */
	const char *exe;
	/* Open files, fd TASK_FD_FIRST + index (file.c); fds 0-2 are the
	 * console unless dup2/dup3 put a file there (std).  Guarded by
	 * files_lock (a mutex: reads copy to user memory, which may fault). */
	struct mutex files_lock;
	struct open_file *files[TASK_MAX_FILES];
	struct open_file *std[TASK_FD_FIRST];   /* NULL: the console; file.c's STD_CLOSED: closed */
	uint64_t cloexec;               /* FD_CLOEXEC by fd (F_SETFD; there is no exec) */
};

/* Start `cmdline` ("prog arg1 arg2 ...", prog looked up among the boot
 * files as given, then under bin/).  Returns the task (referenced: call
 * task_put) or NULL after printing why.  ppid: for getppid. */
struct task *task_spawn(const char *cmdline, int ppid);
void task_put(struct task *t);
/* Wait until the task has ended; returns its exit code (-signal-ish: 128 +
 * signal number, as a shell shows it, when killed). */
int task_wait(struct task *t);

/* The calling thread's task or NULL. */
struct task *current_task(void);

/* Kill the whole task: reason printed in one line and recorded.  Called
 * from the fault path of one of its threads; returns to let the caller
 * leave through task_thread_exit(). */
void task_kill(struct task *t, const char *signal, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Leave the current user thread (does not return). */
__attribute__((noreturn)) void task_thread_exit(int code, bool whole_group);
/* On the way back to user space: leave if the task is exiting. */
void task_check_exit(void);

/* CPU time accounting at the user/kernel boundary. */
void uacct_enter(struct thread *t);
void uacct_exit(struct thread *t);
/* User-mode time of all tasks so far (ns): work done by tasks. */
uint64_t task_user_ns_all(void);
/* utime/stime in ns of the task (all threads, live and exited). */
void task_cpu_times(struct task *t, uint64_t *utime, uint64_t *stime);

/* Output from write(1/2): whole lines to the console. */
void task_output(struct task *t, int fd, const char *buf, uint64_t n);
/* Also hand every whole stdout line (with its newline) to fn, e.g. the
 * script runner's count of workload mismatches; NULL removes it.  fn runs
 * in the writing task's syscall (process context) and must not sleep. */
typedef void (*task_line_fn)(struct task *t, const char *line, uint32_t n);
void task_set_stdout_hook(task_line_fn fn);

/* Page-fault hook for user addresses (installed by task_init). */
void task_init(void);
/* An exception in user mode nothing resolved: kill the task (no return). */
__attribute__((noreturn)) void task_user_exception(struct trap_frame *f, uint64_t cr2);

/* clone(2) flags we understand (Linux values). */
#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_THREAD         0x00010000
#define CLONE_SYSVSEM        0x00040000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID   0x01000000

/* Out of memory with nothing to reclaim: kill the task with the most
 * resident memory (reported by name, with a record).  `asker` is the task
 * whose allocation failed (may be NULL).  False when there is no task. */
bool task_oom_kill(struct task *asker);

/* Threads of every live task, for sysinfo's procs (Linux also counts its
 * kernel threads there; ours are not tasks and are left out). */
unsigned task_nr_threads(void);

/* Create another thread of t running from the given user frame. */
int task_clone_thread(struct task *t, const struct trap_frame *parent, uint64_t flags,
		      uint64_t stack, uint64_t ptid, uint64_t ctid, uint64_t tls);

#endif
