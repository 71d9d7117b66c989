/*
 * Sleeping synchronisation: wait queues, completions, mutexes.
 *
 *   WAIT_EVENT(&wq, cond);           // sleep until cond holds
 *   int r = wait_event_timeout(&wq, pred, arg, ns);   // 0 or -ETIMEDOUT
 *   waitq_wake_all(&wq);             // any context, after making cond true
 *
 *   down_read(&s); ... up_read(&s);   // many readers, or
 *   down_write(&s); ... up_write(&s); // one writer
 *
 * Every waiter re-checks its condition after each wakeup, so spurious
 * wakeups are harmless and a wakeup can never be lost (see sched.h for the
 * blocking protocol).  Only threads may wait; interrupt handlers wake.
 */
#ifndef WAIT_H
#define WAIT_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/list.h"
#include "spinlock.h"
#include "sched.h"
#include "rwsem_word.h"

struct thread;

struct waitq {
	struct spinlock lock;
	struct list_node waiters;       /* struct wait_entry, guarded by lock */
};

struct wait_entry {
	struct thread *t;
	struct list_node link;
	bool queued;
};

void waitq_init(struct waitq *wq, const char *name);
/* Enqueue the current thread (once) and mark it blocked. */
void waitq_prepare(struct waitq *wq, struct wait_entry *w);
/* Dequeue and mark running again. */
void waitq_finish(struct waitq *wq, struct wait_entry *w);
void waitq_wake_all(struct waitq *wq);
/* Wake the first blocked waiter; returns false when there was none. */
bool waitq_wake_one(struct waitq *wq);
bool waitq_has_waiters(struct waitq *wq);
/* Whether anyone is queued, read without the lock: for a waker that
 * made its condition true with a full barrier (a locked read-modify-
 * write) just before.  waitq_prepare puts one between its enqueue and
 * the waiter's test of the condition, so either the waker sees the
 * waiter or the waiter sees the condition (a stale "someone" costs a
 * needless waitq_wake_all, nothing more). */
static inline bool waitq_active(struct waitq *wq)
{
	return __atomic_load_n(&wq->waiters.next, __ATOMIC_RELAXED) != &wq->waiters;
}

#define WAIT_EVENT(wq, cond) do {                                       \
		struct wait_entry w_ = { 0 };                                 \
		waitq_prepare((wq), &w_);                               \
		while (!(cond)) {                                       \
			sched_block_until(0);                           \
			waitq_prepare((wq), &w_);                       \
		}                                                       \
		waitq_finish((wq), &w_);                                \
	} while (0)

/* Sleep until pred(arg) or timeout_ns passes (0: no timeout).
 * Returns 0, or -ETIMEDOUT (pred still false). */
int wait_event_timeout(struct waitq *wq, bool (*pred)(void *), void *arg, uint64_t timeout_ns);

struct completion {
	struct waitq wq;
	volatile uint32_t done;         /* guarded by wq.lock */
};

void completion_init(struct completion *c);
void complete(struct completion *c);            /* any context */
void complete_all(struct completion *c);
void completion_wait(struct completion *c);
/* 0, or -ETIMEDOUT. */
int completion_wait_timeout(struct completion *c, uint64_t timeout_ns);
void completion_reinit(struct completion *c);

struct mutex {
	struct waitq wq;
	bool locked;                    /* guarded by wq.lock */
	struct thread *owner;           /* guarded by wq.lock */
	const char *name;
	uint16_t lockdep_cls;           /* LOCKDEP=1: its class + 1, found at the first lock */
};

void mutex_init(struct mutex *m, const char *name);
/* Panics unless the calling thread holds m (see spin_assert_held). */
#define mutex_assert_held(m) do {                                       \
	if (__atomic_load_n(&(m)->owner, __ATOMIC_ACQUIRE) != current_thread()) \
		lock_assert_failed((m)->name, __func__);               \
} while (0)
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_held(struct mutex *m);       /* by the current thread */

/*
 * A reader/writer sleeping lock (Linux's rw_semaphore, reduced): any
 * number of readers, or one writer.  Writer-preferring: once a writer
 * waits, new readers wait behind it, so a stream of readers (page
 * faults) cannot starve a writer (munmap).  Hence a reader must never
 * take it again while it holds it: a writer arriving in between would
 * wait for the first hold and the second would wait for the writer.
 *
 * One word holds the state (rwsem_word.h: readers, writer, writers
 * waiting), so an uncontended down_read/up_read is one atomic operation
 * on it and takes no spinlock (the fault path takes one per fault, from
 * every CPU at once).  Threads that must wait sleep on wq and try again after each wakeup;
 * the last reader out wakes them when a writer waits, a writer always.
 * Threads only: may sleep.
 */
struct lock_class;

struct rwsem {
	uint64_t count;                 /* the word above; atomic */
	struct thread *owner;           /* the writer holding it, else NULL; atomic */
	uint64_t write_since;           /* TSC at down_write (lockstat's hold time) */
	uint64_t write_site;            /* down_write's caller */
	struct waitq wq;                /* sleepers ("rwsem-wait" for lockstat) */
	const char *name;               /* its lockstat and lockdep class */
	uint16_t lockdep_cls;           /* LOCKDEP=1: its class + 1, found at the first lock */
	struct lock_class *stat;        /* lockstat's class, found at the first lock */
};

void rwsem_init(struct rwsem *s, const char *name);
void down_read(struct rwsem *s);
bool down_read_trylock(struct rwsem *s);
void up_read(struct rwsem *s);
void down_write(struct rwsem *s);
bool down_write_trylock(struct rwsem *s);
void up_write(struct rwsem *s);
/* Held for writing by the current thread. */
bool rwsem_write_held(struct rwsem *s);
/* Panics unless the calling thread holds s for writing. */
#define rwsem_assert_write_held(s) do {                                 \
	if (__atomic_load_n(&(s)->owner, __ATOMIC_ACQUIRE) != current_thread()) \
		lock_assert_failed((s)->name, __func__);               \
} while (0)
/* Panics unless s is held at all (by someone: readers are not named). */
#define rwsem_assert_held(s) do {                                       \
	if (!(__atomic_load_n(&(s)->count, __ATOMIC_ACQUIRE) & (RWSEM_READERS | RWSEM_WRITER))) \
		lock_assert_failed((s)->name, __func__);               \
} while (0)

#endif
