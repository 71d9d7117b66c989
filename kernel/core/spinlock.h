/*
 * Spinlocks.  Written for SMP even while one CPU runs: a lock is a real
 * atomic exchange, and the irqsave forms keep an interrupt handler on this
 * CPU from deadlocking against the code it interrupted.
 *
 * Rules: hold a spinlock briefly, never sleep with one held, and take
 * the irqsave form for any lock an interrupt handler may also take.
 * Holding a spinlock disables preemption (preempt_count), so the timer
 * never switches away from a thread inside a critical section.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/percpu.h"

struct spinlock {
	volatile uint32_t locked;
	const char *name;
	void *owner;            /* return address of the taker, for debugging */
};

#define SPINLOCK_INIT(n) { 0, n, 0 }

static inline void spin_init(struct spinlock *l, const char *name)
{
	l->locked = 0;
	l->name = name;
	l->owner = 0;
}

static inline bool spin_trylock(struct spinlock *l)
{
	preempt_disable();
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		preempt_enable();
		return false;
	}
	l->owner = __builtin_return_address(0);
	return true;
}

static inline void spin_lock(struct spinlock *l)
{
	preempt_disable();
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (l->locked)
			cpu_relax();
	l->owner = __builtin_return_address(0);
}

static inline void spin_unlock(struct spinlock *l)
{
	l->owner = 0;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	preempt_enable();
}

/* Returns the interrupt state to hand back to spin_unlock_irqrestore. */
static inline bool spin_lock_irqsave(struct spinlock *l)
{
	bool on = irq_save();
	spin_lock(l);
	return on;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, bool on)
{
	spin_unlock(l);
	irq_restore(on);
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
