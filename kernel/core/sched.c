/*
 * The scheduler.
 *
 * State: one run queue (runq.c) per online CPU of RUNNABLE threads that
 * are not on a CPU, plus each CPU's current and idle thread.
 *
 * Locks (all taken with interrupts off):
 *  - scpu[i].lock ("runq") guards CPU i's queue, its published load
 *    (loads[i]) and every thread whose ->cpu is i: its state, on_cpu, rq,
 *    allowed.  A thread's ->cpu changes only with both the old and the
 *    new CPU's lock held, so rq_lock_thread (lock ->cpu's queue, then
 *    check ->cpu did not move meanwhile) pins it.  Two queues are locked
 *    together only to move a thread, lower CPU id first (rq_lock2); a
 *    CPU holding its own lock that needs a lower one drops its own first
 *    (balance).  lockdep sees them as one class nested in itself, which
 *    it leaves to this ordering.
 *  - threads_lock ("threads") guards the thread list (all_threads).
 * Lock order: wait-queue locks -> threads_lock -> runq (lower CPU id
 * first) -> timer_lock.  Run-queue lock holders never take a wait-queue
 * lock or threads_lock.
 *
 * Placement (runq_wake_cpu): a woken or new thread goes to an idle CPU
 * when there is one (the one it last ran on first), else to the waker's
 * queue; a CPU that gets a thread better than what it runs, or that is
 * idle, is sent VEC_RESCHED.  Balance (runq_busiest): a CPU with nothing
 * to run pulls a waiting thread from the busiest queue, and every
 * BALANCE_MS each CPU pulls one when the busiest has 2 more than it.
 * Both decide from loads[], each CPU's figures as published under its
 * own lock and read by the others without it (a stale figure costs a
 * worse choice, never a wrong state: the move itself is made and checked
 * under both locks).  Affinity (thread->allowed) is honoured by all three.
 *
 * The switch: schedule() holds the current CPU's run-queue lock across
 * switch_stack(); whoever runs next on this CPU releases it: the resumed
 * thread at the end of schedule(), or a new thread in
 * sched_thread_start().  The thread switched away from is on_cpu until
 * then, and stays in no other CPU's reach: it can only be queued here
 * (pulling takes this CPU's lock and skips on_cpu threads), and a waker on
 * another CPU that finds it BLOCKED but on_cpu only marks it RUNNABLE
 * (this CPU re-queues it: the state is read under the lock).  So no
 * thread runs on two CPUs, and none is taken before its stack is saved
 * (Linux waits on p->on_cpu instead; here the lock already orders it).
 * One that may no longer run here (affinity) is placed elsewhere only
 * after the switch, by finish_switch.  A thread that exited is freed by
 * the next one, after the lock is dropped, because nothing can free the
 * stack it runs on.
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
#include "lib/printf.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/tlb.h"
#include "spinlock.h"
#include "smp.h"

#define SLICE_NS 10000000ull
#define BALANCE_MS 20

_Static_assert(SMP_MAX_CPUS <= CPUMASK_BITS, "a cpumask holds every CPU");

/* A cache line each: CPUs take their own lock at every switch and tick. */
struct sched_cpu {
	struct spinlock lock;           /* "runq" */
	struct runq rq;                 /* [lock] */
	struct cpu *cpu;                /* set once, when the CPU joins */
	uint64_t next_balance_ns;       /* [this CPU, interrupts off] */
	uint64_t wake_ipis;             /* [lock] VEC_RESCHED sent to it */
	uint64_t pulled;                /* [lock] threads it pulled from others */
	uint64_t resched_irqs;          /* [this CPU] VEC_RESCHED received */
	uint64_t held_since;            /* [this CPU] time_ns of the first of the ticks in a row that found
					 * preemption off, 0 if the last tick did not */
	bool held_reported;             /* [this CPU] that spell was reported */
	uint64_t seen_ticks;            /* [lockup.checking] its tick count at the last check */
	bool stuck;                     /* [lockup.checking] no tick over the last check's period */
	bool nudged;                    /* [lockup.checking] sent a timer IPI after reporting it */
} __attribute__((aligned(64)));

static struct sched_cpu scpu[SMP_MAX_CPUS];
/* [scpu[i].lock writes loads[i]; read by anyone without it] */
static struct runq_load loads[SMP_MAX_CPUS];
static unsigned nr_cpus = 1;            /* [atomic] CPUs taking threads: 0..nr_cpus-1 */
/* [atomic; changed with the queue's lock] threads waiting in any run
 * queue; an idle CPU's tick reads it first and takes locks only when
 * there is work to pull (every idle CPU locking at HZ would not scale). */
static uint32_t nr_waiting;
static struct spinlock threads_lock = SPINLOCK_INIT("threads");
static struct list_node all_threads = LIST_INIT(all_threads);   /* [threads_lock] */
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

/* ------------------------------------------------------------ run-queue locks */

/* Lock the queue that guards t (t->cpu's).  Interrupts off. */
static struct sched_cpu *rq_lock_thread(struct thread *t)
{
	for (;;) {
		unsigned id = __atomic_load_n(&t->cpu, __ATOMIC_ACQUIRE);
		spin_lock(&scpu[id].lock);
		if (__atomic_load_n(&t->cpu, __ATOMIC_RELAXED) == id)
			return &scpu[id];
		spin_unlock_nosched(&scpu[id].lock);
	}
}

/* The queues of CPUs a and b (maybe equal), lower id first.  Interrupts off. */
static void rq_lock2(unsigned a, unsigned b)
{
	unsigned lo = runq_lock_first(a, b);
	spin_lock(&scpu[lo].lock);
	if (a != b)
		spin_lock(&scpu[lo == a ? b : a].lock);
}

static void rq_unlock2(unsigned a, unsigned b)
{
	if (a != b)
		spin_unlock_nosched(&scpu[b].lock);
	spin_unlock_nosched(&scpu[a].lock);
}

/* The caller's own CPU's queue, which guards the current thread (it is
 * on this CPU, so its ->cpu cannot move).  Returns the interrupt state. */
static struct sched_cpu *rq_lock_here(bool *on)
{
	*on = irq_save();
	struct sched_cpu *me = &scpu[this_cpu()->id];
	spin_lock(&me->lock);
	return me;
}

/* Interrupts back as they were; switch now if a wakeup under the locks
 * asked this CPU to (what spin_unlock_irqrestore would do). */
static void sched_unlocked(bool on)
{
	irq_restore(on);
	struct cpu *c = this_cpu();
	if (on && c->need_resched && !c->preempt_count)
		sched_preempt_point();
}

/* Publish CPU i's figures for placement and balance.  scpu[i].lock held. */
static void publish(unsigned i)
{
	struct cpu *c = scpu[i].cpu;
	bool running = c && c->current != c->idle;
	loads[i] = (struct runq_load){ .queued = runq_count(&scpu[i].rq), .running = running,
				       .cur_cls = running ? c->current->rq.cls : SCHED_IDLE };
}

/* Queue t on CPU i (t->cpu is i).  scpu[i].lock held. */
static void enqueue(unsigned i, struct thread *t)
{
	if (!t->rq.queued)
		__atomic_add_fetch(&nr_waiting, 1, __ATOMIC_RELAXED);
	runq_add(&scpu[i].rq, &t->rq, false);
	publish(i);
}

static void dequeue(unsigned i, struct thread *t)
{
	if (t->rq.queued)
		__atomic_sub_fetch(&nr_waiting, 1, __ATOMIC_RELAXED);
	runq_del(&scpu[i].rq, &t->rq);
	publish(i);
}

/* ------------------------------------------------------------ threads */

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
	 * same); the boot thread and kernel threads have every CPU.  It
	 * starts out on its creator's CPU. */
	struct thread *parent = this_cpu_current();
	if (parent) {
		bool on;
		struct sched_cpu *me = rq_lock_here(&on);
		t->allowed = parent->allowed;
		t->cpu = (unsigned)(me - scpu);
		spin_unlock_nosched(&me->lock);
		irq_restore(on);
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
	for (unsigned i = 0; i < SMP_MAX_CPUS; i++) {
		spin_init(&scpu[i].lock, "runq");
		runq_init(&scpu[i].rq);
	}
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
	scpu[0].cpu = c;
	publish(0);
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
 * runs.  scpu[to].lock held (loads[to] is then exact). */
static void kick(unsigned to, unsigned cls)
{
	struct cpu *c = scpu[to].cpu;
	if (loads[to].running && cls >= loads[to].cur_cls)
		return;
	c->need_resched = true;
	if (c == this_cpu())
		return;
	scpu[to].wake_ipis++;
	apic_send_ipi(c->apic_id, VEC_RESCHED);
}

/* Where runq_wake_cpu sends t (prev: t->cpu); self: the waker's CPU. */
static unsigned wake_target(struct thread *t, unsigned self)
{
	unsigned n = sched_cpus();
	struct cpumask allowed = t->allowed;    /* maybe torn: checked under the locks */
	return n > 1 ? runq_wake_cpu(loads, n, &allowed, t->cpu, self) : self;
}

/* Queue t (RUNNABLE, not on a CPU, in no queue) where runq_wake_cpu says
 * and kick that CPU.  Interrupts off, no run-queue lock held.  A thread
 * that meanwhile got queued, ran or blocked is left alone. */
static void place(struct thread *t, unsigned self)
{
	for (;;) {
		unsigned from = __atomic_load_n(&t->cpu, __ATOMIC_ACQUIRE);
		unsigned to = wake_target(t, self);
		rq_lock2(from, to);
		if (t->cpu == from && cpumask_test(&t->allowed, to)) {
			if (t->state == T_RUNNABLE && !t->on_cpu && !t->rq.queued) {
				__atomic_store_n(&t->cpu, to, __ATOMIC_RELEASE);
				enqueue(to, t);
				kick(to, t->rq.cls);
			}
			rq_unlock2(from, to);
			return;
		}
		rq_unlock2(from, to);   /* it moved, or its affinity changed: again */
	}
}

void thread_start(struct thread *t)
{
	bool on = spin_lock_irqsave(&threads_lock);
	list_add_tail(&t->all, &all_threads);
	spin_unlock_nosched(&threads_lock);
	place(t, this_cpu()->id);
	sched_unlocked(on);
}

struct thread *thread_create(const char *name, void (*fn)(void *), void *arg, enum sched_class cls)
{
	struct thread *t = thread_alloc(name, fn, arg, cls);
	if (t)
		thread_start(t);
	return t;
}


/* Release this CPU's run-queue lock after a switch; place the thread we
 * left if it may no longer run here, free it if it died. */
static void finish_switch(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->prev;
	c->prev = NULL;
	bool dead = prev && prev->state == T_DEAD && prev->stack_size;
	bool move = prev && prev != c->idle && prev->state == T_RUNNABLE && !prev->rq.queued;
	spin_unlock_nosched(&scpu[c->id].lock);
	if (move)
		place(prev, c->id);
	if (dead) {
		spin_lock(&threads_lock);
		list_del(&prev->all);
		spin_unlock_nosched(&threads_lock);
		free_thread(prev);
	}
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
	prev->cpu_ns += tsc_to_ns(now - prev->run_start_tsc);
	next->run_start_tsc = now;
	/* A user thread is always switched from kernel mode: the time since
	 * its last user/kernel boundary was system time. */
	if (prev->task) {
		prev->stime_ns += tsc_to_ns(now - prev->acct_mark);
		prev->acct_mark = now;
	}
	next->acct_mark = now;
	c->stats.ctx_switches++;
}

/* Address space and TLS of the next thread.  Kernel threads keep whatever
 * is loaded (they only touch the shared kernel half): lazily, tlb.h. */
static void switch_user_context(struct thread *prev, struct thread *next)
{
	if (prev->fpu)
		fxsave_area(prev->fpu);
	if (next->fpu)
		fxrstor_area(next->fpu);
	tlb_switch_to(next->pt_root, next->pt_cpus);
	if (next->task)
		wrmsr(MSR_FS_BASE, next->fs_base);
}

/* A waiting thread CPU *arg may take: allowed there, and not the one its
 * own CPU is switching away from (never true while that CPU holds its
 * lock, which a puller needs; checked all the same, as Linux does). */
static bool pullable(const struct runq_entity *e, void *arg)
{
	const struct thread *t = of((struct runq_entity *)e);
	return !t->on_cpu && cpumask_test(&t->allowed, *(unsigned *)arg);
}

/* Move one waiting thread allowed on CPU self from CPU `from`'s queue to
 * self's.  Both locks held.  Returns it, or NULL. */
static struct thread *pull_from(unsigned from, unsigned self)
{
	struct runq_entity *e = runq_steal(&scpu[from].rq, pullable, &self);
	if (!e)
		return NULL;
	__atomic_sub_fetch(&nr_waiting, 1, __ATOMIC_RELAXED);
	publish(from);
	struct thread *t = of(e);
	__atomic_store_n(&t->cpu, self, __ATOMIC_RELEASE);
	enqueue(self, t);
	scpu[self].pulled++;
	return t;
}

/* Balance for CPU self (idle: it has nothing to run).  scpu[self].lock
 * held; to take a lower CPU's lock it is dropped and taken again (lock
 * order), so the caller reads what it depends on afterwards. */
static void balance(unsigned self)
{
	unsigned n = sched_cpus();
	if (n < 2)
		return;
	unsigned from = runq_busiest(loads, n, self);
	if (from >= n)
		return;
	if (runq_lock_first(from, self) == from) {
		spin_unlock_nosched(&scpu[self].lock);
		rq_lock2(from, self);
	} else {
		spin_lock(&scpu[from].lock);
	}
	pull_from(from, self);
	spin_unlock_nosched(&scpu[from].lock);
}

/* preempt: the switch is forced (timer, wakeup), not the thread's own
 * choice.  A thread preempted between marking itself blocked and calling
 * schedule() must stay runnable: its wakeup may already have happened
 * (the condition it is about to check is true), and no other would come.
 * It runs again, re-checks, and blocks for real if it must. */
static void __schedule(bool preempt)
{
	bool on = irq_save();
	struct cpu *c = this_cpu();
	struct sched_cpu *me = &scpu[c->id];
	struct thread *prev = c->current;
	spin_lock(&me->lock);
	bool here = prev != c->idle && cpumask_test(&prev->allowed, c->id);
	int st = prev->state;
	bool stays = here && (st == T_RUNNING || st == T_RUNNABLE || (preempt && st == T_BLOCKED));
	if (!runq_count(&me->rq) && !stays)
		balance(c->id);         /* may drop me->lock: prev's state is read again below */
	if (prev->state == T_RUNNING || (preempt && prev->state == T_BLOCKED))
		prev->state = T_RUNNABLE;
	/* Queued here while still on_cpu: see the top of the file. */
	if (prev->state == T_RUNNABLE && here)
		enqueue(c->id, prev);
	struct runq_entity *e = runq_pick(&me->rq);
	if (e)
		__atomic_sub_fetch(&nr_waiting, 1, __ATOMIC_RELAXED);
	struct thread *next = e ? of(e) : c->idle;
	c->need_resched = false;
	if (next == prev) {
		prev->state = T_RUNNING;
		publish(c->id);
		spin_unlock_nosched(&me->lock);
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
	publish(c->id);
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
	bool on;
	struct sched_cpu *me = rq_lock_here(&on);
	current_thread()->state = T_DEAD;
	spin_unlock_nosched(&me->lock);
	schedule();
	panic("sched: dead thread %s was scheduled", current_thread()->name);
}

void sched_set_blocked(void)
{
	bool on;
	struct sched_cpu *me = rq_lock_here(&on);
	current_thread()->state = T_BLOCKED;
	spin_unlock_nosched(&me->lock);
	sched_unlocked(on);
}

void sched_set_running(void)
{
	bool on;
	struct sched_cpu *me = rq_lock_here(&on);
	current_thread()->state = T_RUNNING;
	spin_unlock_nosched(&me->lock);
	sched_unlocked(on);
}

/* The common case takes one lock: the thread goes back to the queue that
 * guards it.  Moving it elsewhere takes both (place). */
bool thread_wake(struct thread *t)
{
	bool on = irq_save();
	unsigned self = this_cpu()->id;
	struct sched_cpu *rq = rq_lock_thread(t);
	bool woke = t->state == T_BLOCKED, move = false;
	if (woke) {
		t->state = T_RUNNABLE;
		/* On a CPU still (between sched_set_blocked and the switch):
		 * its own __schedule keeps it runnable. */
		if (!t->on_cpu) {
			unsigned to = wake_target(t, self);
			move = to != t->cpu;
			if (!move) {
				enqueue(t->cpu, t);
				kick(t->cpu, t->rq.cls);
			}
		}
	}
	spin_unlock_nosched(&rq->lock);
	if (move)
		place(t, self);
	sched_unlocked(on);
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
		t->sleep_until = at_ns;
	}
	schedule();
	if (at_ns) {
		t->sleep_until = 0;
		ktimer_cancel(&t->wake_timer);
	}
	return t->timed_out;
}

void sleep_ns(uint64_t ns)
{
	uint64_t until = time_ns() + ns;
	current_thread()->wchan = "sleep";      /* not the last wait queue's name */
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

static struct {
	unsigned seconds;
	uint64_t (*progress)(void);
	volatile uint64_t reports;      /* periods found without progress */
} hc;

/* ------------------------------------------------------------ lockups */

/* hangcheck=N also watches the CPUs themselves, as Linux's hard and soft
 * lockup detectors do (without a perf-counter NMI):
 *  - a CPU whose timer has not ticked for N s has had interrupts off all
 *    that time, or its timer stopped; whichever CPU's tick notices
 *    reports it and sends it a timer IPI, and the next check says
 *    whether it ticks again (a stopped timer) or not;
 *  - a CPU whose ticks found preemption off (a spinlock held, spinning
 *    for one) for N s in a row reports itself.
 * A hang where every CPU waits with interrupts off is then not silent:
 * the report shows where every CPU is (trap_report_all_cpus), once per
 * stuck spell. */
static struct {
	volatile uint32_t checking;     /* one checker at a time: a trylock */
	uint64_t next_ns;               /* [checking] */
	volatile uint64_t hard, soft;   /* reports */
	volatile uint64_t lost;         /* lost wakeups reported */
} lockup;

/* A thread still blocked N s after its timed sleep was due: its timer
 * never fired, or fired and the wakeup went nowhere.  Nothing else
 * would notice (no fault is waiting, so hangcheck's progress rule sees
 * an idle machine).  Skipped when threads_lock is busy: next period. */
static void lost_wakeup_check(uint64_t now)
{
	if (!spin_trylock(&threads_lock))
		return;
	struct thread *lost = NULL;
	uint64_t late = hc.seconds * 1000000000ull;
	list_for_each(it, &all_threads) {
		struct thread *t = list_entry(it, struct thread, all);
		uint64_t until = t->sleep_until;
		if (t->state == T_BLOCKED && until && now > until + late && t->lost_reported != until) {
			t->lost_reported = until;
			lost = t;
			break;
		}
	}
	spin_unlock_nosched(&threads_lock);
	if (!lost)
		return;
	lockup.lost++;
	trap_report_all_cpus("hangcheck", "thread %s (tid %d) still blocked %lu ms after its wake-up time (a lost wakeup)",
			     lost->name, lost->tid, (now - lost->lost_reported) / 1000000);
}

static void lockup_check_others(uint64_t now)
{
	if (__atomic_exchange_n(&lockup.checking, 1, __ATOMIC_ACQUIRE))
		return;
	if (now >= lockup.next_ns) {
		bool first = lockup.next_ns == 0;
		lockup.next_ns = now + hc.seconds * 1000000000ull;
		unsigned n = sched_cpus();
		bool any_stuck = false;
		for (unsigned i = 0; i < n && !first; i++) {
			uint64_t t = __atomic_load_n(&scpu[i].cpu->stats.ticks, __ATOMIC_RELAXED);
			bool stuck = t == scpu[i].seen_ticks;
			if (scpu[i].nudged) {
				/* Which it was: a timer that had stopped (the boot
				 * CPU's one-shot not re-armed: the IPI runs its tick,
				 * which re-arms it), or a CPU that cannot take one. */
				kprintf(stuck ? "hangcheck: cpu %u: still no tick after a timer IPI\n"
					      : "hangcheck: cpu %u ticks again after a timer IPI: its timer had stopped\n", i);
				scpu[i].nudged = false;
			}
			if (stuck && !scpu[i].stuck) {
				lockup.hard++;
				trap_report_all_cpus("hangcheck", "cpu %u took no timer tick for %u s (interrupts off, or its "
						     "timer stopped)", i, hc.seconds);
				apic_send_ipi(scpu[i].cpu->apic_id, VEC_TIMER);
				scpu[i].nudged = true;
			}
			scpu[i].stuck = stuck;
			any_stuck |= stuck;
		}
		for (unsigned i = 0; i < n; i++)
			scpu[i].seen_ticks = __atomic_load_n(&scpu[i].cpu->stats.ticks, __ATOMIC_RELAXED);
		/* A stuck CPU explains late wakeups (ktimers fire on the boot
		 * CPU; a thread woken onto a stuck one stays runnable). */
		if (!any_stuck)
			lost_wakeup_check(now);
	}
	__atomic_store_n(&lockup.checking, 0, __ATOMIC_RELEASE);
}

/* From every CPU's tick, before anything that may lock. */
static void lockup_tick(struct cpu *c, uint64_t now)
{
	if (!hc.seconds || halt_in_progress())
		return;
	struct sched_cpu *me = &scpu[c->id];
	/* Time, not a count of ticks: a vCPU the host holds back gets fewer. */
	if (c->preempt_count == 0) {
		me->held_since = 0;
	} else if (!me->held_since) {
		me->held_since = now;
		me->held_reported = false;
	} else if (!me->held_reported && now - me->held_since >= hc.seconds * 1000000000ull) {
		me->held_reported = true;
		lockup.soft++;
		trap_report_all_cpus("hangcheck", "cpu %u ran %u s with preemption off (a spinlock held or awaited)",
				     c->id, hc.seconds);
	}
	lockup_check_others(now);
}

/* Interrupt context (the tick), interrupts off. */
void sched_tick(uint64_t now)
{
	struct cpu *c = this_cpu();
	lockup_tick(c, now);
	struct sched_cpu *me = &scpu[c->id];
	struct thread *t = c->current;
	bool idle = t == c->idle;
	if (idle && !__atomic_load_n(&nr_waiting, __ATOMIC_RELAXED))
		return;         /* nothing to run or pull anywhere */
	spin_lock(&me->lock);
	if (now >= me->next_balance_ns || (idle && !runq_count(&me->rq))) {
		me->next_balance_ns = now + BALANCE_MS * 1000000ull;
		balance(c->id);
	}
	if (idle ? runq_count(&me->rq) > 0
		 : now >= c->slice_end_ns && runq_has_better(&me->rq, t->rq.cls + 1u))
		c->need_resched = true;
	spin_unlock_nosched(&me->lock);
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

/* CPU c's idle time, given its idle thread's: less the interrupt
 * handlers that ran while the idle thread did (trap.c counts them).  A
 * device's completions arrive while the CPU waits for them: left in,
 * a policy whose task waits for every read had its completions counted
 * idle, one whose reads are done while the task runs had them counted
 * busy (bench ra's busy_ms, issue 12). */
static uint64_t idle_ns_of(const struct cpu *c, uint64_t idle_thread_ns)
{
	uint64_t irq = tsc_to_ns(c->stats.idle_irq_tsc);
	return idle_thread_ns > irq ? idle_thread_ns - irq : 0;
}

static uint64_t busy_of(uint64_t now, uint64_t idle) { return now > idle ? now - idle : 0; }

uint64_t sched_busy_ns(void)
{
	uint64_t busy = 0, now = time_ns();
	for (unsigned i = 0; i < sched_cpus(); i++) {
		struct cpu *c = scpu[i].cpu;
		/* Under the CPU's run-queue lock, which its switches hold: the
		 * idle thread's time and whether it runs now agree. */
		bool on = spin_lock_irqsave(&scpu[i].lock);
		uint64_t idle = c->idle->cpu_ns;
		if (c->current == c->idle)
			idle += tsc_to_ns(rdtsc() - c->idle->run_start_tsc);
		spin_unlock_nosched(&scpu[i].lock);
		irq_restore(on);
		busy += busy_of(now, idle_ns_of(c, idle));
	}
	return busy;
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
	bool on = spin_lock_irqsave(&threads_lock);
	list_add_tail(&idle->all, &all_threads);
	spin_unlock_nosched(&threads_lock);
	spin_lock(&scpu[c->id].lock);
	scpu[c->id].cpu = c;
	publish(c->id);
	spin_unlock_nosched(&scpu[c->id].lock);
	/* APs join one at a time, in id order (smpboot.c): 0..id are set up. */
	if (c->id >= sched_cpus())
		__atomic_store_n(&nr_cpus, c->id + 1, __ATOMIC_RELEASE);
	irq_restore(on);
	time_start_tick_ap();
	irq_enable();
	idle_loop(NULL);
	panic("sched: the idle loop returned");
}

unsigned sched_cpus(void) { return __atomic_load_n(&nr_cpus, __ATOMIC_ACQUIRE); }

/* The live thread with that tid (0: the caller), or NULL.  threads_lock
 * held (a thread on the list is not freed meanwhile). */
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
	cpumask_fill(&m, sched_cpus());
	cpumask_and(&m, &m, want);
	bool on = spin_lock_irqsave(&threads_lock);
	struct thread *t = by_tid(tid);
	int err = !t ? -ESRCH : cpumask_empty(&m) ? -EINVAL : 0;
	if (err) {
		spin_unlock_irqrestore(&threads_lock, on);
		return err;
	}
	struct sched_cpu *rq = rq_lock_thread(t);
	t->allowed = *want;
	bool move = false;
	if (t->rq.queued && !cpumask_test(want, t->cpu)) {
		dequeue(t->cpu, t);
		move = true;
	} else if (t->on_cpu && !cpumask_test(want, t->cpu)) {
		/* Running elsewhere (or here): its next switch moves it. */
		struct cpu *c = scpu[t->cpu].cpu;
		c->need_resched = true;
		if (c != this_cpu())
			apic_send_ipi(c->apic_id, VEC_RESCHED);
	}
	spin_unlock_nosched(&rq->lock);
	if (move)
		place(t, this_cpu()->id);
	spin_unlock_irqrestore(&threads_lock, on);
	return 0;
}

int sched_getaffinity(int tid, struct cpumask *out)
{
	bool on = spin_lock_irqsave(&threads_lock);
	struct thread *t = by_tid(tid);
	if (t) {
		struct sched_cpu *rq = rq_lock_thread(t);
		cpumask_fill(out, sched_cpus());
		cpumask_and(out, out, &t->allowed);
		spin_unlock_nosched(&rq->lock);
	}
	spin_unlock_irqrestore(&threads_lock, on);
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
	json_u64(j, "timer_rescues", time_rescues());
	for (int k = 0; k < RESCUE_KINDS; k++) {
		char key[40];
		ksnprintf(key, sizeof key, "timer_rescues_%s", time_rescue_kind_name(k));
		json_u64(j, key, time_rescues_of(k));
	}
	/* Batch flushes that skipped a lazy CPU instead of an IPI (tlb.h). */
	json_u64(j, "tlb_lazy_skips", tlb_lazy_skips());
	json_arr_begin(j, "cpus");
	for (unsigned i = 0; i < n; i++) {
		struct cpu *c = scpu[i].cpu;
		uint64_t idle = idle_ns_of(c, c->idle->cpu_ns);
		json_obj_begin(j, NULL);
		json_u64(j, "cpu", c->id);
		json_u64(j, "apic_id", c->apic_id);
		json_u64(j, "ticks", c->stats.ticks);
		json_u64(j, "ctx_switches", c->stats.ctx_switches);
		json_u64(j, "preemptions", c->stats.preemptions);
		json_u64(j, "irqs", c->stats.irqs);
		json_u64(j, "idle_ns", idle);
		json_u64(j, "busy_ns", busy_of(time_ns(), idle));
		json_u64(j, "irq_ns", tsc_to_ns(c->stats.irq_tsc));
		json_u64(j, "idle_irq_ns", tsc_to_ns(c->stats.idle_irq_tsc));
		json_u64(j, "wake_ipis", scpu[i].wake_ipis);
		json_u64(j, "resched_irqs", scpu[i].resched_irqs);
		json_u64(j, "pulled", scpu[i].pulled);
		json_obj_end(j);
	}
	json_arr_end(j);
	rec_end();
}

/* Every queue's count against nr_waiting.  The queues are locked one at
 * a time (all at once would nest hundreds of locks on a big machine), so
 * a thread moving meanwhile can make one look wrong: only a mismatch
 * that stays is a broken count. */
static void check_waiting(void)
{
	uint32_t queued = 0, want = 0;
	for (int tries = 0; tries < 100; tries++) {
		queued = 0;
		want = __atomic_load_n(&nr_waiting, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < sched_cpus(); i++) {
			bool on = spin_lock_irqsave(&scpu[i].lock);
			queued += runq_count(&scpu[i].rq);
			spin_unlock_nosched(&scpu[i].lock);
			irq_restore(on);
		}
		if (queued == want && want == __atomic_load_n(&nr_waiting, __ATOMIC_RELAXED))
			return;
	}
	panic("sched: %u threads in the run queues, nr_waiting says %u", queued, want);
}

void sched_report(void)
{
	check_waiting();
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
	uint64_t idle = idle_ns_of(c, c->idle->cpu_ns);
	json_u64(j, "idle_ns", idle);
	json_u64(j, "busy_ns", busy_of(time_ns(), idle));
	json_u64(j, "irq_ns", tsc_to_ns(c->stats.irq_tsc));
	json_u64(j, "idle_irq_ns", tsc_to_ns(c->stats.idle_irq_tsc));
	json_arr_begin(j, "threads");
	bool on = spin_lock_irqsave(&threads_lock);
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
	spin_unlock_irqrestore(&threads_lock, on);
	json_arr_end(j);
	rec_end();
}

static int io_waiters;

void sched_io_wait_begin(void) { __atomic_add_fetch(&io_waiters, 1, __ATOMIC_RELAXED); }
void sched_io_wait_end(void) { __atomic_sub_fetch(&io_waiters, 1, __ATOMIC_RELAXED); }

void sched_counts(unsigned *runnable, unsigned *io_blocked)
{
	unsigned r = 0;
	bool on = spin_lock_irqsave(&threads_lock);
	list_for_each(it, &all_threads) {
		struct thread *t = list_entry(it, struct thread, all);
		if (t->rq.cls != SCHED_IDLE && (t->state == T_RUNNING || t->state == T_RUNNABLE))
			r++;
	}
	spin_unlock_irqrestore(&threads_lock, on);
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

uint64_t sched_lockup_reports(void) { return lockup.hard + lockup.soft; }

uint64_t sched_lost_wakeup_reports(void) { return lockup.lost; }
