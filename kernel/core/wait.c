/*
 * Wait queues, completions and mutexes on top of the scheduler's blocking
 * protocol.  A waiter stays on the queue from prepare to finish; wakers
 * only change thread states, so a waiter woken twice is just runnable.
 *
 * Lock order: wq->lock, then the run-queue locks (inside thread_wake).
 */
#include "wait.h"
#include "sched.h"
#include "panic.h"
#include "lockdep.h"
#include "lockstat.h"
#include "lib/errno.h"
#include "arch/x86_64/x86.h"

void waitq_init(struct waitq *wq, const char *name)
{
	spin_init(&wq->lock, name);
	list_init(&wq->waiters);
}

void waitq_prepare(struct waitq *wq, struct wait_entry *w)
{
	bool on = spin_lock_irqsave(&wq->lock);
	if (!w->queued || w->t != current_thread()) {
		w->t = current_thread();
		w->queued = true;
		list_add_tail(&w->link, &wq->waiters);
	}
	current_thread()->wchan = wq->lock.name;
	sched_set_blocked();
	spin_unlock_irqrestore(&wq->lock, on);
	/* The enqueue before the caller's test of its condition, against
	 * a waker's store to it before waitq_active (x86 may move a load
	 * ahead of an earlier store; the unlock is a plain store). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void waitq_finish(struct waitq *wq, struct wait_entry *w)
{
	bool on = spin_lock_irqsave(&wq->lock);
	if (w->queued) {
		list_del(&w->link);
		w->queued = false;
	}
	sched_set_running();
	spin_unlock_irqrestore(&wq->lock, on);
}

void waitq_wake_all(struct waitq *wq)
{
	bool on = spin_lock_irqsave(&wq->lock);
	list_for_each(it, &wq->waiters)
		thread_wake(list_entry(it, struct wait_entry, link)->t);
	spin_unlock_irqrestore(&wq->lock, on);
}

bool waitq_wake_one(struct waitq *wq)
{
	bool woke = false;
	bool on = spin_lock_irqsave(&wq->lock);
	list_for_each(it, &wq->waiters)
		if (thread_wake(list_entry(it, struct wait_entry, link)->t)) {
			woke = true;
			break;
		}
	spin_unlock_irqrestore(&wq->lock, on);
	return woke;
}

bool waitq_has_waiters(struct waitq *wq)
{
	bool on = spin_lock_irqsave(&wq->lock);
	bool any = !list_empty(&wq->waiters);
	spin_unlock_irqrestore(&wq->lock, on);
	return any;
}

int wait_event_timeout(struct waitq *wq, bool (*pred)(void *), void *arg, uint64_t timeout_ns)
{
	uint64_t until = timeout_ns ? time_ns() + timeout_ns : 0;
	struct wait_entry w = { 0 };
	int r = 0;
	waitq_prepare(wq, &w);
	while (!pred(arg)) {
		if (until && time_ns() >= until) {
			r = -ETIMEDOUT;
			break;
		}
		sched_block_until(until);
		waitq_prepare(wq, &w);
	}
	waitq_finish(wq, &w);
	return r;
}

void completion_init(struct completion *c)
{
	waitq_init(&c->wq, "completion");
	c->done = 0;
}

void completion_reinit(struct completion *c) { c->done = 0; }

void complete(struct completion *c)
{
	bool on = spin_lock_irqsave(&c->wq.lock);
	if (c->done < UINT32_MAX / 2)
		c->done++;
	spin_unlock_irqrestore(&c->wq.lock, on);
	waitq_wake_all(&c->wq);
}

void complete_all(struct completion *c)
{
	bool on = spin_lock_irqsave(&c->wq.lock);
	c->done = UINT32_MAX / 2;
	spin_unlock_irqrestore(&c->wq.lock, on);
	waitq_wake_all(&c->wq);
}

/* Take one completion if there is one.  wq.lock held. */
static bool take(struct completion *c)
{
	spin_assert_held(&c->wq.lock);
	if (!c->done)
		return false;
	if (c->done != UINT32_MAX / 2)
		c->done--;
	return true;
}

static bool try_take(void *arg)
{
	struct completion *c = arg;
	bool on = spin_lock_irqsave(&c->wq.lock);
	bool got = take(c);
	spin_unlock_irqrestore(&c->wq.lock, on);
	return got;
}

void completion_wait(struct completion *c) { wait_event_timeout(&c->wq, try_take, c, 0); }

int completion_wait_timeout(struct completion *c, uint64_t ns)
{
	return wait_event_timeout(&c->wq, try_take, c, ns ? ns : 1);
}

void mutex_init(struct mutex *m, const char *name)
{
	waitq_init(&m->wq, name);
	m->locked = false;
	m->owner = NULL;
	m->name = name;
	m->lockdep_cls = 0;
}

static bool take_mutex(struct mutex *m)
{
	bool on = spin_lock_irqsave(&m->wq.lock);
	bool got = !m->locked;
	if (got) {
		m->locked = true;
		m->owner = current_thread();
	}
	spin_unlock_irqrestore(&m->wq.lock, on);
	return got;
}

bool mutex_trylock(struct mutex *m)
{
	bool got = take_mutex(m);
	if (got)
		lockdep_mutex_acquire(m, (uint64_t)__builtin_return_address(0), true);
	return got;
}

static bool try_lock(void *arg) { return take_mutex(arg); }

void mutex_lock(struct mutex *m)
{
	if (m->owner == current_thread())
		panic("mutex %s: recursive lock by %s", m->name, current_thread()->name);
	/* Before it may wait, as for spinlocks: a real deadlock still reports. */
	lockdep_mutex_acquire(m, (uint64_t)__builtin_return_address(0), false);
	if (!take_mutex(m))
		wait_event_timeout(&m->wq, try_lock, m, 0);
}

void mutex_unlock(struct mutex *m)
{
	bool on = spin_lock_irqsave(&m->wq.lock);
	if (!m->locked || m->owner != current_thread()) {
		spin_unlock_irqrestore(&m->wq.lock, on);
		panic("mutex %s: unlock by %s, not the owner", m->name, current_thread()->name);
	}
	m->locked = false;
	m->owner = NULL;
	spin_unlock_irqrestore(&m->wq.lock, on);
	lockdep_mutex_release(m);
	waitq_wake_one(&m->wq);
}

bool mutex_held(struct mutex *m) { return m->locked && m->owner == current_thread(); }

/* ---------------------------------------------------------------- rwsem */

void rwsem_init(struct rwsem *s, const char *name)
{
	s->count = 0;
	s->owner = NULL;
	s->write_since = s->write_site = 0;
	/* The wait queue's spinlock is a class of its own: named after s,
	 * lockstat would merge its spinning into s's sleeping figures. */
	waitq_init(&s->wq, "rwsem-wait");
	s->name = name;
	s->lockdep_cls = 0;
	s->stat = NULL;
}

/* The transitions are rwsem_word.h's; a failed compare-and-swap (the
 * word moved) decides again on the word it found. */
static bool rw_try_read(struct rwsem *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED), n;
	while (rwsem_word_read(c, &n))
		if (__atomic_compare_exchange_n(&s->count, &c, n, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	if ((c & RWSEM_READERS) == RWSEM_READERS)
		panic("rwsem %s: 2^32 readers", s->name);
	return false;
}

static bool rw_try_write(struct rwsem *s, bool waiting)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED), n;
	while (rwsem_word_write(c, waiting, &n))
		if (__atomic_compare_exchange_n(&s->count, &c, n, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

static bool rw_try_write_waiting(struct rwsem *s) { return rw_try_write(s, true); }

/* Sleep until try(s) got it: enqueued before each try, so a release
 * between the try and the sleep wakes this thread (wait.h's protocol).
 * Returns the TSC cycles waited. */
static uint64_t rw_wait(struct rwsem *s, bool (*try)(struct rwsem *s))
{
	uint64_t t0 = rdtsc();
	struct wait_entry w = { 0 };
	for (;;) {
		waitq_prepare(&s->wq, &w);
		current_thread()->wchan = s->name;
		if (try(s))
			break;
		sched_block_until(0);
	}
	waitq_finish(&s->wq, &w);
	return rdtsc() - t0;
}

static void rw_not_recursive(struct rwsem *s, const char *how)
{
	if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED) == current_thread())
		panic("rwsem %s: %s by %s, which holds it for writing", s->name, how, current_thread()->name);
}

void down_read(struct rwsem *s)
{
	rw_not_recursive(s, "down_read");
	/* Before it may wait, as for mutexes: a real deadlock still reports. */
	lockdep_rwsem_acquire(s, (uint64_t)__builtin_return_address(0), false);
	bool contended = !rw_try_read(s);
	uint64_t waited = contended ? rw_wait(s, rw_try_read) : 0;
	lockstat_sleep_acquired(&s->stat, s->name, contended, waited);
}

bool down_read_trylock(struct rwsem *s)
{
	bool got = rw_try_read(s);
	if (got) {
		lockdep_rwsem_acquire(s, (uint64_t)__builtin_return_address(0), true);
		lockstat_sleep_acquired(&s->stat, s->name, false, 0);
	}
	return got;
}

void up_read(struct rwsem *s)
{
	uint64_t c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	if (!(c & RWSEM_READERS))
		panic("rwsem %s: up_read by %s with no reader in", s->name, current_thread()->name);
	lockdep_rwsem_release(s);
	c = __atomic_sub_fetch(&s->count, 1, __ATOMIC_RELEASE);
	/* The last reader out lets a waiting writer in (the readers that
	 * wait behind it sleep on: they see the writer waiting). */
	if (rwsem_word_wake_after_read(c))
		waitq_wake_all(&s->wq);
}

static void rw_now_writer(struct rwsem *s, uint64_t site)
{
	__atomic_store_n(&s->owner, current_thread(), __ATOMIC_RELAXED);
	s->write_site = site;
	s->write_since = rdtsc();
}

void down_write(struct rwsem *s)
{
	rw_not_recursive(s, "down_write");
	uint64_t site = (uint64_t)__builtin_return_address(0);
	lockdep_rwsem_acquire(s, site, false);
	bool contended = !rw_try_write(s, false);
	uint64_t waited = 0;
	if (contended) {
		/* Counted as waiting from here on: new readers queue behind. */
		__atomic_add_fetch(&s->count, RWSEM_WWAIT, __ATOMIC_RELAXED);
		waited = rw_wait(s, rw_try_write_waiting);
	}
	rw_now_writer(s, site);
	lockstat_sleep_acquired(&s->stat, s->name, contended, waited);
}

bool down_write_trylock(struct rwsem *s)
{
	bool got = rw_try_write(s, false);
	if (got) {
		uint64_t site = (uint64_t)__builtin_return_address(0);
		lockdep_rwsem_acquire(s, site, true);
		rw_now_writer(s, site);
		lockstat_sleep_acquired(&s->stat, s->name, false, 0);
	}
	return got;
}

void up_write(struct rwsem *s)
{
	if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED) != current_thread())
		panic("rwsem %s: up_write by %s, not the writer", s->name, current_thread()->name);
	lockstat_sleep_hold(&s->stat, s->name, rdtsc() - s->write_since, s->write_site);
	lockdep_rwsem_release(s);
	__atomic_store_n(&s->owner, NULL, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&s->count, RWSEM_WRITER, __ATOMIC_RELEASE);
	/* Readers and writers may both wait: all try again (writes are
	 * rare - mmap, munmap, brk - so the crowd is small). */
	waitq_wake_all(&s->wq);
}

bool rwsem_write_held(struct rwsem *s) { return __atomic_load_n(&s->owner, __ATOMIC_RELAXED) == current_thread(); }
