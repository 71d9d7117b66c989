/*
 * Spinlocks.  Written for SMP even while one CPU runs: a lock is a real
 * atomic exchange, and the irqsave forms keep an interrupt handler on this
 * CPU from deadlocking against the code it interrupted.
 *
 * Rules: hold a spinlock briefly, never sleep with one held, and take
 * the irqsave form for any lock an interrupt handler may also take.
 * Holding a spinlock disables preemption (preempt_count), so the timer
 * never switches away from a thread inside a critical section; a wakeup
 * that wanted the CPU meanwhile (need_resched) is honoured at the unlock
 * that ends the last such section, not at the next tick.
 *
 * Every hold is timed (lockstat.h): the longest hold per lock class is
 * how long a woken real-time thread may have to wait.  Debug builds
 * (make LOCKDEP=1) also check the order locks are nested in (lockdep.h).
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/percpu.h"
#include "lockstat.h"
#include "lockdep.h"

struct lock_class;

struct spinlock {
	volatile uint32_t locked;
	const char *name;
	uint64_t owner;         /* an address in the function that took it */
	uint64_t since;         /* TSC when taken */
	struct lock_class *cls; /* lockstat's class, found at the first unlock */
};

#define SPINLOCK_INIT(n) { .name = (n) }

/* sched.c: switch now if a wakeup asked for the CPU and nothing forbids it. */
void sched_preempt_point(void);
/* arch/x86_64/tlb.c: serve a TLB shootdown addressed to this CPU.  A
 * spinner with interrupts off would otherwise never answer a holder that
 * waits for its answer (tlb.h). */
void tlb_poll(void);

static inline void spin_init(struct spinlock *l, const char *name)
{
	l->locked = 0;
	l->name = name;
	l->owner = 0;
	l->since = 0;
	l->cls = 0;
}

/* The address of the code it is inlined into (the caller's function). */
static inline __attribute__((always_inline)) uint64_t spin_here(void)
{
	uint64_t ip;
	__asm__ volatile("lea 0(%%rip), %0" : "=r"(ip));
	return ip;
}

static inline __attribute__((always_inline)) bool spin_trylock(struct spinlock *l)
{
	preempt_disable();
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		preempt_enable();
		return false;
	}
	lockdep_acquire(l, spin_here(), true);
	l->owner = spin_here();
	if (irqtrace_timed())
		l->since = rdtsc();
	return true;
}

static inline __attribute__((always_inline)) void spin_lock(struct spinlock *l)
{
	preempt_disable();
	lockdep_acquire(l, spin_here(), false);
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = rdtsc();
		do {
			while (l->locked) {
				cpu_relax();
				if (this_cpu()->tlb_pending)
					tlb_poll();
			}
		} while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
		if (irqtrace_timed())
			lockstat_contended(l, rdtsc() - t0);
	}
	l->owner = spin_here();
	if (irqtrace_timed())
		l->since = rdtsc();
}

/* Unlock without the preemption check: for the scheduler's own lock and
 * callers that keep interrupts off anyway. */
static inline void spin_unlock_nosched(struct spinlock *l)
{
	if (irqtrace_timed())
		lockstat_release(l, rdtsc() - l->since);
	lockdep_release(l);
	l->owner = 0;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	preempt_enable();
}

static inline void spin_unlock(struct spinlock *l)
{
	spin_unlock_nosched(l);
	struct cpu *c = this_cpu();
	if (c->need_resched && !c->preempt_count && irqs_enabled())
		sched_preempt_point();
}

/* Returns the interrupt state to hand back to spin_unlock_irqrestore.
 * Always inlined, as spin_lock is: spin_here() must name the caller. */
static inline __attribute__((always_inline)) bool spin_lock_irqsave(struct spinlock *l)
{
	bool on = irq_save();
	spin_lock(l);
	return on;
}

static inline __attribute__((always_inline)) void spin_unlock_irqrestore(struct spinlock *l, bool on)
{
	spin_unlock_nosched(l);
	irq_restore(on);
	struct cpu *c = this_cpu();
	if (on && c->need_resched && !c->preempt_count)
		sched_preempt_point();
}

static inline bool spin_is_locked(const struct spinlock *l) { return l->locked != 0; }

/* A function that requires l held says so in code: a broken caller panics
 * naming the lock and the function.  With one CPU, held by anyone means
 * held by this thread (preemption is off while a spinlock is held); SMP
 * will compare the owning CPU too. */
__attribute__((noreturn)) void lock_assert_failed(const char *lock, const char *fn);
#define spin_assert_held(l) do {                                        \
	if (!spin_is_locked(l))                                         \
		lock_assert_failed((l)->name, __func__);               \
} while (0)

#endif
