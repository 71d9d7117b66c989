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
#include "lib/errno.h"

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
