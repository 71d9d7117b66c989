/*
 * Host stand-in for kernel/core/spinlock.h (tests/glue only): the same
 * interface, one thread, no interrupts.  It still checks the rules the
 * real lock cannot check on one CPU: no recursion, unlock only what is
 * locked, and spin_assert_held.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct spinlock {
	volatile uint32_t locked;
	const char *name;
	void *owner;
};

#define SPINLOCK_INIT(n) { 0, n, 0 }

static inline void spin_fake_die(const char *what, const struct spinlock *l)
{
	fprintf(stderr, "spinlock '%s': %s\n", l->name ? l->name : "?", what);
	abort();
}

static inline void spin_init(struct spinlock *l, const char *name) { l->locked = 0; l->name = name; }
static inline bool spin_trylock(struct spinlock *l) { return l->locked ? false : (l->locked = 1); }
static inline void spin_lock(struct spinlock *l)
{
	if (l->locked)
		spin_fake_die("taken twice (it would deadlock)", l);
	l->locked = 1;
}
static inline void spin_unlock(struct spinlock *l)
{
	if (!l->locked)
		spin_fake_die("unlocked while not held", l);
	l->locked = 0;
}
static inline bool spin_lock_irqsave(struct spinlock *l) { spin_lock(l); return true; }
static inline void spin_unlock_irqrestore(struct spinlock *l, bool on) { (void)on; spin_unlock(l); }
static inline bool spin_is_locked(const struct spinlock *l) { return l->locked != 0; }
#define spin_assert_held(l) do { if (!spin_is_locked(l)) spin_fake_die("required held", (l)); } while (0)

#endif
