/*
 * The scheduler.
 *
 * State: one run queue (runq.c) of RUNNABLE threads that are not on a CPU,
 * plus each CPU's current and idle thread.  sched_lock (always taken with
 * interrupts off) guards the run queue, every thread's state/on_cpu/rq
 * fields and the thread list.
 *
 * schedule() holds sched_lock across switch_stack(); whoever runs next
 * releases it: the resumed thread at the end of schedule(), or a new thread
 * in sched_thread_start().  A thread that exited is freed by the next one,
 * after the lock is dropped, because nothing can free the stack it runs on.
 *
 * Lock order: wait-queue locks -> sched_lock -> timer_lock.  sched_lock
 * holders never take a wait-queue lock.
 */
#include <string.h>
#include "sched.h"
#include "console.h"
#include "record.h"
#include "panic.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/entry.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/trap.h"
#include "lib/timemath.h"
#include "mem/kmalloc.h"
#include "mem/kmem.h"
#include "spinlock.h"

#define SLICE_NS 10000000ull

static struct spinlock sched_lock = SPINLOCK_INIT("sched");
static struct runq rq;                          /* guarded by sched_lock */
static struct list_node all_threads = LIST_INIT(all_threads);
static struct thread boot_thread;
static int next_tid = 1;

void switch_stack(uint64_t *save_rsp, uint64_t new_rsp);
void thread_entry(void);

struct thread *current_thread(void) { return this_cpu()->current; }

static struct thread *of(struct runq_entity *e) { return container_of(e, struct thread, rq); }

static void init_thread(struct thread *t, const char *name, enum sched_class cls)
{
	size_t n = strnlen(name, sizeof t->name - 1);
	memcpy(t->name, name, n);
	t->name[n] = 0;
	t->rq.cls = (uint8_t)cls;
	list_init(&t->rq.link);
	t->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
	ktimer_init(&t->wake_timer, NULL, NULL);
}

static void idle_loop(void *arg)
{
	(void)arg;
	for (;;) {
		irq_disable();
		if (runq_count(&rq)) {
			irq_enable();
			schedule();
			continue;
		}
		/* sti takes effect after hlt starts: no wakeup is lost between. */
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

static struct thread *alloc_thread(const char *name, void (*fn)(void *), void *arg, enum sched_class cls)
{
	struct thread *t = kzalloc(sizeof *t);
	if (!t)
		return NULL;
	uint64_t top = kmem_stack_alloc(KSTACK_SIZE);
	if (!top) {
		kfree(t);
		return NULL;
	}
	init_thread(t, name, cls);
	t->stack_top = top;
	t->stack_size = KSTACK_SIZE;
	/* The first switch_stack pops r15..rbp and "returns" to thread_entry;
	 * after that ret, rsp == top, so the call into C is ABI-aligned. */
	uint64_t *sp = (uint64_t *)top;
	*--sp = (uint64_t)thread_entry;
	*--sp = 0;                      /* rbp */
	*--sp = 0;                      /* rbx */
	*--sp = (uint64_t)fn;           /* r12 */
	*--sp = (uint64_t)arg;          /* r13 */
	*--sp = 0;                      /* r14 */
	*--sp = 0;                      /* r15 */
	t->rsp = (uint64_t)sp;
	t->state = T_RUNNABLE;
	return t;
}

void sched_init(void)
{
	struct cpu *c = this_cpu();
	runq_init(&rq);
	init_thread(&boot_thread, "kmain", SCHED_NORMAL);
	boot_thread.state = T_RUNNING;
	boot_thread.on_cpu = true;
	boot_thread.stack_top = (uint64_t)boot_stack_top;
	boot_thread.run_start_tsc = rdtsc();
	list_add_tail(&boot_thread.all, &all_threads);
	c->current = &boot_thread;
	c->kernel_rsp = boot_thread.stack_top;
	cpu_set_kernel_stack(boot_thread.stack_top);
	c->idle = alloc_thread("idle", idle_loop, NULL, SCHED_IDLE);
	if (!c->idle)
		panic("sched: cannot create the idle thread");
	list_add_tail(&c->idle->all, &all_threads);
}

static void free_thread(struct thread *t)
{
	kmem_stack_free(t->stack_top, t->stack_size);
	kfree(t);
}

struct thread *thread_alloc(const char *name, void (*fn)(void *), void *arg, enum sched_class cls)
{
	struct thread *t = alloc_thread(name, fn, arg, cls);
	if (t)
		list_init(&t->all);
	return t;
}

void thread_free_unstarted(struct thread *t) { free_thread(t); }

void thread_start(struct thread *t)
{
	bool on = spin_lock_irqsave(&sched_lock);
	list_add_tail(&t->all, &all_threads);
	runq_add(&rq, &t->rq, false);
	if (t->rq.cls < current_thread()->rq.cls)
		this_cpu()->need_resched = true;
	spin_unlock_irqrestore(&sched_lock, on);
}

struct thread *thread_create(const char *name, void (*fn)(void *), void *arg, enum sched_class cls)
{
	struct thread *t = thread_alloc(name, fn, arg, cls);
	if (t)
		thread_start(t);
	return t;
}


/* Release sched_lock after a switch; free the thread we left if it died. */
static void finish_switch(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->prev, *dead = NULL;
	c->prev = NULL;
	if (prev && prev->state == T_DEAD && prev->stack_size) {
		list_del(&prev->all);
		dead = prev;
	}
	spin_unlock(&sched_lock);
	if (dead)
		free_thread(dead);
}

void sched_thread_start(void (*fn)(void *), void *arg)
{
	finish_switch();
	irq_enable();
	fn(arg);
	thread_exit();
}

static void account_switch(struct cpu *c, struct thread *prev, struct thread *next)
{
	uint64_t now = rdtsc();
	prev->cpu_ns += ticks_to_ns(now - prev->run_start_tsc, tsc_hz());
	next->run_start_tsc = now;
	/* A user thread is always switched from kernel mode: the time since
	 * its last user/kernel boundary was system time. */
	if (prev->task) {
		prev->stime_ns += ticks_to_ns(now - prev->acct_mark, tsc_hz());
		prev->acct_mark = now;
	}
	next->acct_mark = now;
	c->stats.ctx_switches++;
}

/* Address space and TLS of the next thread.  Kernel threads keep whatever
 * is loaded: they only touch the shared kernel half. */
static void switch_user_context(struct thread *prev, struct thread *next)
{
	if (prev->fpu)
		fxsave_area(prev->fpu);
	if (next->fpu)
		fxrstor_area(next->fpu);
	if (next->pt_root && (read_cr3() & ~0xfffull) != next->pt_root)
		write_cr3(next->pt_root);
	if (next->task)
		wrmsr(MSR_FS_BASE, next->fs_base);
}

/* preempt: the switch is forced (timer, wakeup), not the thread's own
 * choice.  A thread preempted between marking itself blocked and calling
 * schedule() must stay runnable: its wakeup may already have happened
 * (the condition it is about to check is true), and no other would come.
 * It runs again, re-checks, and blocks for real if it must. */
static void __schedule(bool preempt)
{
	bool on = irq_save();
	spin_lock(&sched_lock);
	struct cpu *c = this_cpu();
	struct thread *prev = c->current;
	if (prev->state == T_RUNNING || (preempt && prev->state == T_BLOCKED))
		prev->state = T_RUNNABLE;
	if (prev->state == T_RUNNABLE && prev != c->idle)
		runq_add(&rq, &prev->rq, false);
	struct runq_entity *e = runq_pick(&rq);
	struct thread *next = e ? of(e) : c->idle;
	c->need_resched = false;
	if (next == prev) {
		prev->state = T_RUNNING;
		spin_unlock(&sched_lock);
		irq_restore(on);
		return;
	}
	if (prev->state == T_BLOCKED)
		prev->nvcsw++;
	account_switch(c, prev, next);
	next->state = T_RUNNING;
	prev->on_cpu = false;
	next->on_cpu = true;
	c->prev = prev;
	c->current = next;
	c->kernel_rsp = next->stack_top;
	cpu_set_kernel_stack(next->stack_top);
	c->slice_end_ns = time_ns() + SLICE_NS;
	switch_user_context(prev, next);
	switch_stack(&prev->rsp, next->rsp);
	finish_switch();
	irq_restore(on);
}

void schedule(void) { __schedule(false); }

void sched_yield(void)
{
	current_thread()->nvcsw++;
	schedule();
}

void thread_exit(void)
{
	irq_disable();
	spin_lock(&sched_lock);
	current_thread()->state = T_DEAD;
	spin_unlock(&sched_lock);
	schedule();
	panic("sched: dead thread %s was scheduled", current_thread()->name);
}

void sched_set_blocked(void)
{
	bool on = spin_lock_irqsave(&sched_lock);
	current_thread()->state = T_BLOCKED;
	spin_unlock_irqrestore(&sched_lock, on);
}

void sched_set_running(void)
{
	bool on = spin_lock_irqsave(&sched_lock);
	current_thread()->state = T_RUNNING;
	spin_unlock_irqrestore(&sched_lock, on);
}

bool thread_wake(struct thread *t)
{
	bool on = spin_lock_irqsave(&sched_lock);
	struct cpu *c = this_cpu();
	bool woke = t->state == T_BLOCKED;
	if (woke) {
		t->state = T_RUNNABLE;
		if (!t->on_cpu)
			runq_add(&rq, &t->rq, false);
		if (t->rq.cls < c->current->rq.cls)
			c->need_resched = true;
	}
	spin_unlock_irqrestore(&sched_lock, on);
	return woke;
}

static void timer_wake(void *arg)
{
	struct thread *t = arg;
	if (thread_wake(t))
		t->timed_out = true;
}

bool sched_block_until(uint64_t at_ns)
{
	struct thread *t = current_thread();
	t->timed_out = false;
	if (at_ns) {
		ktimer_init(&t->wake_timer, timer_wake, t);
		ktimer_arm(&t->wake_timer, at_ns);
	}
	schedule();
	if (at_ns)
		ktimer_cancel(&t->wake_timer);
	return t->timed_out;
}

void sleep_ns(uint64_t ns)
{
	uint64_t until = time_ns() + ns;
	while (time_ns() < until) {
		sched_set_blocked();
		sched_block_until(until);
	}
	sched_set_running();
}

void sleep_ms(uint64_t ms) { sleep_ns(ms * 1000000); }

void sleep_us(uint64_t us)
{
	/* Periodic ticks are too coarse below two ticks, and nothing is worth
	 * a context switch below ~50 us: spin then. */
	uint64_t tick_ns = 1000000000ull / (time_hz() ? time_hz() : 1000);
	if (us < 50 || (!time_oneshot() && us * 1000 < 2 * tick_ns))
		udelay(us);
	else
		sleep_ns(us * 1000);
}

void sched_tick(uint64_t now)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	spin_lock(&sched_lock);
	if (t == c->idle ? runq_count(&rq) > 0
			 : now >= c->slice_end_ns && runq_has_better(&rq, t->rq.cls + 1u))
		c->need_resched = true;
	spin_unlock(&sched_lock);
}

void sched_preempt_point(void)
{
	struct cpu *c = this_cpu();
	if (!c->need_resched || c->preempt_count || c->irq_depth)
		return;
	c->stats.preemptions++;
	c->current->nivcsw++;
	__schedule(true);
}

uint64_t sched_ctx_switches(void) { return this_cpu()->stats.ctx_switches; }

void sched_report(void)
{
	struct cpu *c = this_cpu();
	struct json *j = rec_begin("cpu");
	json_u64(j, "cpu", c->id);
	json_u64(j, "apic_id", c->apic_id);
	json_u64(j, "uptime_ns", time_ns());
	json_u64(j, "hz", time_hz());
	json_u64(j, "ticks", c->stats.ticks);
	json_u64(j, "ctx_switches", c->stats.ctx_switches);
	json_u64(j, "preemptions", c->stats.preemptions);
	json_u64(j, "irqs", c->stats.irqs);
	json_u64(j, "idle_ns", c->idle->cpu_ns);
	json_u64(j, "busy_ns", time_ns() > c->idle->cpu_ns ? time_ns() - c->idle->cpu_ns : 0);
	json_arr_begin(j, "threads");
	bool on = spin_lock_irqsave(&sched_lock);
	list_for_each(it, &all_threads) {
		struct thread *t = list_entry(it, struct thread, all);
		json_obj_begin(j, NULL);
		json_str(j, "name", t->name);
		json_u64(j, "tid", (uint64_t)t->tid);
		json_u64(j, "cpu_ns", t->cpu_ns);
		json_u64(j, "nvcsw", t->nvcsw);
		json_u64(j, "nivcsw", t->nivcsw);
		json_obj_end(j);
	}
	spin_unlock_irqrestore(&sched_lock, on);
	json_arr_end(j);
	rec_end();
}

static int io_waiters;

void sched_io_wait_begin(void) { __atomic_add_fetch(&io_waiters, 1, __ATOMIC_RELAXED); }
void sched_io_wait_end(void) { __atomic_sub_fetch(&io_waiters, 1, __ATOMIC_RELAXED); }

void sched_counts(unsigned *runnable, unsigned *io_blocked)
{
	unsigned r = 0;
	bool on = spin_lock_irqsave(&sched_lock);
	list_for_each(it, &all_threads) {
		struct thread *t = list_entry(it, struct thread, all);
		if (t != this_cpu()->idle && (t->state == T_RUNNING || t->state == T_RUNNABLE))
			r++;
	}
	spin_unlock_irqrestore(&sched_lock, on);
	*runnable = r;
	*io_blocked = (unsigned)__atomic_load_n(&io_waiters, __ATOMIC_RELAXED);
}

static const char *state_name(int s)
{
	switch (s) {
	case T_RUNNING: return "running";
	case T_RUNNABLE: return "runnable";
	case T_BLOCKED: return "blocked";
	default: return "dead";
	}
}

void sched_dump_threads(void)
{
	kprintf("threads:\n");
	list_for_each(it, &all_threads) {
		struct thread *t = list_entry(it, struct thread, all);
		kprintf("  %-16s tid %-4d %-8s %s%s\n", t->name, t->tid, state_name(t->state),
			t->state == T_BLOCKED ? "on " : "", t->state == T_BLOCKED && t->wchan ? t->wchan : "");
		if (t->on_cpu || !t->rsp)
			continue;
		/* switch_stack saved r15 r14 r13 r12 rbx rbp, then the return. */
		uint64_t *sp = (uint64_t *)t->rsp;
		trap_backtrace(sp[6], sp[5], true);
	}
}

static struct {
	unsigned seconds;
	uint64_t (*progress)(void);
	volatile uint64_t reports;      /* periods found without progress */
} hc;

static void hangcheck(void *arg)
{
	(void)arg;
	uint64_t last = hc.progress();
	for (;;) {
		sleep_ms(hc.seconds * 1000ull);
		uint64_t now = hc.progress();
		if (now == last) {
			hc.reports++;
			kprintf("hangcheck: no progress for %u s\n", hc.seconds);
			sched_dump_threads();
		}
		last = now;
	}
}

void sched_hangcheck(unsigned seconds, uint64_t (*progress)(void))
{
	hc.seconds = seconds;
	hc.progress = progress;
	if (seconds)
		thread_create("hangcheck", hangcheck, NULL, SCHED_RT);
}

unsigned sched_hangcheck_seconds(void) { return hc.seconds; }

uint64_t sched_hangcheck_reports(void) { return hc.reports; }
