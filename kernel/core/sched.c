/*
 * The scheduler.
 *
 * State: one run queue (runq.c) per online CPU of RUNNABLE threads that
 * are not on a CPU, plus each CPU's current and idle thread.  sched_lock
 * (always taken with interrupts off) guards every run queue, every
 * thread's state/on_cpu/rq/cpu/allowed fields and the thread list.  One
 * lock for all queues keeps migration simple (a thread is moved between
 * queues under the one lock, and a thread switching out on one CPU cannot
 * be picked by another until its stack is saved, see below); a lock per
 * queue is the step after, when a real many-core machine shows sched in
 * the locks record.
 *
 * Placement (runq_wake_cpu): a woken or new thread goes to an idle CPU
 * when there is one (the one it last ran on first), else to the waker's
 * queue; a CPU that gets a thread better than what it runs, or that is
 * idle, is sent VEC_RESCHED.  Balance (runq_busiest): a CPU with nothing
 * to run pulls a waiting thread from the busiest queue, and every
 * BALANCE_MS each CPU pulls one when the busiest has 2 more than it.
 * Affinity (thread->allowed) is honoured by all three.
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
#include "lib/errno.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/tlb.h"
#include "spinlock.h"
#include "smp.h"

#define SLICE_NS 10000000ull
#define BALANCE_MS 20

_Static_assert(SMP_MAX_CPUS <= CPUMASK_BITS, "a cpumask holds every CPU");

static struct spinlock sched_lock = SPINLOCK_INIT("sched");

struct sched_cpu {
	struct runq rq;                 /* [sched_lock] */
	struct cpu *cpu;                /* set once, when the CPU joins */
	uint64_t next_balance_ns;       /* [this CPU, interrupts off] */
	uint64_t wake_ipis;             /* [sched_lock] VEC_RESCHED sent to it */
	uint64_t pulled;                /* [sched_lock] threads it pulled from others */
	uint64_t resched_irqs;          /* [this CPU] VEC_RESCHED received */
};

static struct sched_cpu scpu[SMP_MAX_CPUS];
static unsigned nr_cpus = 1;            /* [sched_lock] CPUs taking threads: 0..nr_cpus-1 */
/* [sched_lock] threads waiting in any run queue; read without the lock
 * by an idle CPU's tick, so it takes the lock only when there is work
 * to pull (every idle CPU taking it at HZ would not scale). */
static uint32_t nr_waiting;
static struct list_node all_threads = LIST_INIT(all_threads);
static struct thread boot_thread;
static int next_tid = 1;

void switch_stack(uint64_t *save_rsp, uint64_t new_rsp);
void thread_entry(void);

struct thread *current_thread(void) { return this_cpu_current(); }

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
	cpumask_fill(&t->allowed, CPUMASK_BITS);
}

/* A thread queued for this CPU (by another) interrupts its hlt with
 * VEC_RESCHED; the tick pulls work queued elsewhere (sched_tick). */
static void idle_loop(void *arg)
{
	(void)arg;
	for (;;) {
		irq_disable();
		struct cpu *c = this_cpu();
		if (runq_count(&scpu[c->id].rq) || c->need_resched) {
			irq_enable();
			schedule();
			continue;
		}
		/* sti takes effect after hlt starts: no wakeup is lost between. */
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

/* VEC_RESCHED: the sender set need_resched; the switch happens on the
 * way out of the interrupt (trap.c). */
static void on_resched(struct trap_frame *f, void *arg)
{
	(void)f;
	(void)arg;
	scpu[this_cpu()->id].resched_irqs++;
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
	/* A new thread may run where its creator may (Linux's clone does the
	 * same); the boot thread and kernel threads have every CPU. */
	struct thread *parent = this_cpu_current();
	if (parent) {
		bool on = spin_lock_irqsave(&sched_lock);
		t->allowed = parent->allowed;
		spin_unlock_irqrestore(&sched_lock, on);
	}
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
	for (unsigned i = 0; i < SMP_MAX_CPUS; i++)
		runq_init(&scpu[i].rq);
	scpu[0].cpu = c;
	irq_set_fixed(VEC_RESCHED, "resched", on_resched, NULL);
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

/* Ask CPU `to` to reschedule if a thread of class cls beats what it
 * runs.  sched_lock held. */
static void kick(unsigned to, unsigned cls)
{
	struct cpu *c = scpu[to].cpu, *me = this_cpu();
	struct thread *cur = c->current;
	bool idle = cur == c->idle;
	if (!idle && cls >= cur->rq.cls)
		return;
	c->need_resched = true;
	if (c == me)
		return;
	scpu[to].wake_ipis++;
	apic_send_ipi(c->apic_id, VEC_RESCHED);
}

static void cpu_loads(struct runq_load *l, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct cpu *c = scpu[i].cpu;
		bool running = c->current != c->idle;
		l[i] = (struct runq_load){ .queued = runq_count(&scpu[i].rq), .running = running,
					   .cur_cls = running ? c->current->rq.cls : SCHED_IDLE };
	}
}

/* Queue a RUNNABLE thread that is not on a CPU where runq_wake_cpu says
 * (prev: where it last ran) and kick that CPU.  sched_lock held. */
static void place(struct thread *t, unsigned prev)
{
	static struct runq_load l[SMP_MAX_CPUS];        /* [sched_lock] */
	unsigned self = this_cpu()->id, to = self;
	if (nr_cpus > 1) {
		cpu_loads(l, nr_cpus);
		to = runq_wake_cpu(l, nr_cpus, &t->allowed, prev, self);
	}
	t->cpu = to;
	if (!t->rq.queued)
		nr_waiting++;
	runq_add(&scpu[to].rq, &t->rq, false);
	kick(to, t->rq.cls);
}

void thread_start(struct thread *t)
{
	bool on = spin_lock_irqsave(&sched_lock);
	list_add_tail(&t->all, &all_threads);
	place(t, this_cpu()->id);
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
		tlb_load_root(next->pt_root, next->pt_cpus);
	if (next->task)
		wrmsr(MSR_FS_BASE, next->fs_base);
}

static bool allowed_here(const struct runq_entity *e, void *arg)
{
	return cpumask_test(&of((struct runq_entity *)e)->allowed, *(unsigned *)arg);
}

/* Move one waiting thread allowed on CPU self from CPU `from`'s queue to
 * self's.  sched_lock held.  Returns it, or NULL. */
static struct thread *pull_from(unsigned from, unsigned self)
{
	struct runq_entity *e = runq_steal(&scpu[from].rq, allowed_here, &self);
	if (!e)
		return NULL;
	struct thread *t = of(e);
	t->cpu = self;
	runq_add(&scpu[self].rq, e, false);
	scpu[self].pulled++;
	return t;
}

/* Balance for CPU self (idle: it has nothing to run).  sched_lock held. */
static void balance(unsigned self)
{
	static struct runq_load l[SMP_MAX_CPUS];        /* [sched_lock] */
	if (nr_cpus < 2)
		return;
	cpu_loads(l, nr_cpus);
	unsigned from = runq_busiest(l, nr_cpus, self);
	if (from < nr_cpus)
		pull_from(from, self);
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
	struct sched_cpu *me = &scpu[c->id];
	struct thread *prev = c->current;
	if (prev->state == T_RUNNING || (preempt && prev->state == T_BLOCKED))
		prev->state = T_RUNNABLE;
	if (prev->state == T_RUNNABLE && prev != c->idle) {
		/* Still on_cpu: another CPU cannot pick it before switch_stack
		 * below has saved its stack (the lock is held until then). */
		if (cpumask_test(&prev->allowed, c->id)) {
			nr_waiting++;
			runq_add(&me->rq, &prev->rq, false);
		}
		else
			place(prev, c->id);     /* its affinity moved away from here */
	}
	if (!runq_count(&me->rq))
		balance(c->id);
	struct runq_entity *e = runq_pick(&me->rq);
	if (e)
		nr_waiting--;
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
	next->cpu = c->id;
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
	bool woke = t->state == T_BLOCKED;
	if (woke) {
		t->state = T_RUNNABLE;
		/* On a CPU still (between sched_set_blocked and the switch):
		 * its own __schedule keeps it runnable. */
		if (!t->on_cpu)
			place(t, t->cpu);
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

/* Interrupt context (the tick), interrupts off. */
void sched_tick(uint64_t now)
{
	struct cpu *c = this_cpu();
	struct sched_cpu *me = &scpu[c->id];
	struct thread *t = c->current;
	bool idle = t == c->idle;
	if (idle && !__atomic_load_n(&nr_waiting, __ATOMIC_RELAXED))
		return;         /* nothing to run or pull anywhere */
	spin_lock(&sched_lock);
	if (now >= me->next_balance_ns || (idle && !runq_count(&me->rq))) {
		me->next_balance_ns = now + BALANCE_MS * 1000000ull;
		balance(c->id);
	}
	if (idle ? runq_count(&me->rq) > 0
		 : now >= c->slice_end_ns && runq_has_better(&me->rq, t->rq.cls + 1u))
		c->need_resched = true;
	spin_unlock_nosched(&sched_lock);
}

void sched_preempt_point(void)
{
	/* Interrupts off from here: the CPU whose flags are read is the one
	 * this thread stays on until the switch. */
	bool on = irq_save();
	struct cpu *c = this_cpu();
	if (!c->need_resched || c->preempt_count || c->irq_depth) {
		irq_restore(on);
		return;
	}
	c->stats.preemptions++;
	c->current->nivcsw++;
	__schedule(true);
	irq_restore(on);
}

uint64_t sched_ctx_switches(void)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < __atomic_load_n(&nr_cpus, __ATOMIC_ACQUIRE); i++)
		n += scpu[i].cpu->stats.ctx_switches;
	return n;
}

/* ------------------------------------------------------------ other CPUs */

void sched_ap_enter(uint64_t stack_top)
{
	struct cpu *c = this_cpu();
	struct thread *idle = kzalloc(sizeof *idle);
	if (!idle)
		panic("sched: no memory for CPU %u's idle thread", c->id);
	init_thread(idle, "idle", SCHED_IDLE);
	idle->state = T_RUNNING;
	idle->on_cpu = true;
	idle->stack_top = stack_top;    /* stack_size 0: the AP's own, never freed */
	idle->cpu = c->id;
	idle->run_start_tsc = rdtsc();
	c->idle = c->current = idle;
	c->kernel_rsp = stack_top;
	cpu_set_kernel_stack(stack_top);
	bool on = spin_lock_irqsave(&sched_lock);
	list_add_tail(&idle->all, &all_threads);
	scpu[c->id].cpu = c;
	if (c->id >= nr_cpus)
		__atomic_store_n(&nr_cpus, c->id + 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&sched_lock, on);
	time_start_tick_ap();
	irq_enable();
	idle_loop(NULL);
	panic("sched: the idle loop returned");
}

unsigned sched_cpus(void) { return __atomic_load_n(&nr_cpus, __ATOMIC_ACQUIRE); }

/* The live thread with that tid (0: the caller), or NULL.  sched_lock held. */
static struct thread *by_tid(int tid)
{
	if (!tid)
		return this_cpu()->current;
	list_for_each(it, &all_threads) {
		struct thread *t = list_entry(it, struct thread, all);
		if (t->tid == tid && t->state != T_DEAD && t->rq.cls != SCHED_IDLE)
			return t;
	}
	return NULL;
}

int sched_setaffinity(int tid, const struct cpumask *want)
{
	struct cpumask m;
	bool on = spin_lock_irqsave(&sched_lock);
	struct thread *t = by_tid(tid);
	cpumask_fill(&m, nr_cpus);
	cpumask_and(&m, &m, want);
	int err = !t ? -ESRCH : cpumask_empty(&m) ? -EINVAL : 0;
	if (err) {
		spin_unlock_irqrestore(&sched_lock, on);
		return err;
	}
	t->allowed = *want;
	if (t->rq.queued && !cpumask_test(want, t->cpu)) {
		runq_del(&scpu[t->cpu].rq, &t->rq);
		nr_waiting--;
		place(t, t->cpu);
	} else if (t->on_cpu && !cpumask_test(want, t->cpu)) {
		/* Running elsewhere (or here): its next switch moves it. */
		struct cpu *c = scpu[t->cpu].cpu;
		c->need_resched = true;
		if (c != this_cpu())
			apic_send_ipi(c->apic_id, VEC_RESCHED);
	}
	spin_unlock_irqrestore(&sched_lock, on);
	return 0;
}

int sched_getaffinity(int tid, struct cpumask *out)
{
	bool on = spin_lock_irqsave(&sched_lock);
	struct thread *t = by_tid(tid);
	if (t) {
		cpumask_fill(out, nr_cpus);
		cpumask_and(out, out, &t->allowed);
	}
	spin_unlock_irqrestore(&sched_lock, on);
	return t ? 0 : -ESRCH;
}

unsigned sched_cpu_of_current(void)
{
	bool on = irq_save();
	unsigned id = this_cpu()->id;
	irq_restore(on);
	return id;
}

/* Per CPU: what it ran, how long it idled, how threads moved to it. */
static void cpus_record(void)
{
	struct json *j = rec_begin("cpus");
	unsigned n = sched_cpus();
	json_u64(j, "online", n);
	/* Every shootdown round's IPIs: vmstat's tlb_shootdown_ipis plus
	 * kernel-stack flushes and address spaces dropped at exit. */
	json_u64(j, "tlb_ipis", tlb_ipis_sent());
	json_arr_begin(j, "cpus");
	for (unsigned i = 0; i < n; i++) {
		struct cpu *c = scpu[i].cpu;
		uint64_t idle = c->idle->cpu_ns;
		json_obj_begin(j, NULL);
		json_u64(j, "cpu", c->id);
		json_u64(j, "apic_id", c->apic_id);
		json_u64(j, "ticks", c->stats.ticks);
		json_u64(j, "ctx_switches", c->stats.ctx_switches);
		json_u64(j, "preemptions", c->stats.preemptions);
		json_u64(j, "irqs", c->stats.irqs);
		json_u64(j, "idle_ns", idle);
		json_u64(j, "busy_ns", time_ns() > idle ? time_ns() - idle : 0);
		json_u64(j, "wake_ipis", scpu[i].wake_ipis);
		json_u64(j, "resched_irqs", scpu[i].resched_irqs);
		json_u64(j, "pulled", scpu[i].pulled);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

void sched_report(void)
{
	bool irq_on = spin_lock_irqsave(&sched_lock);
	uint32_t queued = 0;
	for (unsigned i = 0; i < nr_cpus; i++)
		queued += runq_count(&scpu[i].rq);
	if (queued != nr_waiting)
		panic("sched: %u threads in the run queues, nr_waiting says %u", queued, nr_waiting);
	spin_unlock_irqrestore(&sched_lock, irq_on);
	cpus_record();
	struct cpu *c = scpu[0].cpu;    /* the boot CPU's, whichever CPU halts */
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
		json_u64(j, "cpu", t->cpu);
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
		if (t->rq.cls != SCHED_IDLE && (t->state == T_RUNNING || t->state == T_RUNNABLE))
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
