/*
 * Futex hash table: FUTEX_BUCKETS buckets, each a mutex and a waiter list.
 * The bucket lock is a mutex because FUTEX_WAIT reads the user word under
 * it (the read may fault and sleep); this makes "check the value, then
 * queue" atomic with respect to FUTEX_WAKE, so no wakeup is lost.
 *
 * A waiter is woken by setting w->woken before thread_wake(); it sleeps
 * with the scheduler's blocking protocol, so a wake that lands between its
 * last check and schedule() just keeps it runnable.  The waker holds the
 * bucket lock throughout, and the waiter takes it once more before
 * returning, so w (on the waiter's stack) outlives every use.
 *
 * Lock order: bucket mutex -> mm->lock (through a fault) -> the run-queue locks (sched.c).
 */
#include "futex.h"
#include "core/sched.h"
#include "core/wait.h"
#include "task.h"
#include "lib/errno.h"
#include "arch/x86_64/uaccess.h"

#define FUTEX_BUCKETS 64

struct futex_waiter {
	struct list_node link;
	struct mm *mm;
	uint64_t uaddr;
	struct thread *t;
	volatile bool woken;
};

static struct bucket {
	struct mutex lock;
	struct list_node waiters;
	bool ready;
} buckets[FUTEX_BUCKETS];

static struct spinlock init_lock = SPINLOCK_INIT("futex-init");

static struct bucket *bucket_of(struct mm *mm, uint64_t uaddr)
{
	uint64_t h = ((uint64_t)mm ^ uaddr) * 0x9e3779b97f4a7c15ull;
	struct bucket *b = &buckets[h >> 58];
	if (!__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE)) {
		bool on = spin_lock_irqsave(&init_lock);
		if (!b->ready) {
			mutex_init(&b->lock, "futex");
			list_init(&b->waiters);
			__atomic_store_n(&b->ready, true, __ATOMIC_RELEASE);
		}
		spin_unlock_irqrestore(&init_lock, on);
	}
	return b;
}

static bool exiting(void)
{
	struct task *t = current_task();
	return t && t->exiting;
}

int futex_wait(struct mm *mm, uint64_t uaddr, uint32_t val, uint64_t timeout_ns)
{
	if (uaddr & 3)
		return -EINVAL;
	struct bucket *b = bucket_of(mm, uaddr);
	struct futex_waiter w = { .mm = mm, .uaddr = uaddr, .t = current_thread() };
	uint64_t until = timeout_ns ? time_ns() + timeout_ns : 0;
	uint32_t cur;
	mutex_lock(&b->lock);
	if (get_user_u32(&cur, uaddr)) {
		mutex_unlock(&b->lock);
		return -EFAULT;
	}
	if (cur != val) {
		mutex_unlock(&b->lock);
		return -EAGAIN;
	}
	list_add_tail(&w.link, &b->waiters);
	mutex_unlock(&b->lock);
	bool timed_out = false;
	for (;;) {
		sched_set_blocked();
		if (w.woken || exiting() || timed_out)
			break;
		timed_out = sched_block_until(until);
	}
	sched_set_running();
	/* Always take the lock: a waker may still be inside futex_wake
	 * holding a pointer to w (on this stack) and to this thread. */
	mutex_lock(&b->lock);
	if (!w.woken)
		list_del(&w.link);
	mutex_unlock(&b->lock);
	if (w.woken)
		return 0;
	return exiting() ? -EINTR : -ETIMEDOUT;
}

int futex_wake(struct mm *mm, uint64_t uaddr, int n)
{
	struct bucket *b = bucket_of(mm, uaddr);
	int woke = 0;
	mutex_lock(&b->lock);
	list_for_each_safe(it, tmp, &b->waiters) {
		struct futex_waiter *w = list_entry(it, struct futex_waiter, link);
		if (woke >= n)
			break;
		if (w->mm != mm || w->uaddr != uaddr)
			continue;
		list_del(&w->link);
		w->woken = true;
		thread_wake(w->t);
		woke++;
	}
	mutex_unlock(&b->lock);
	return woke;
}

void futex_interrupt(struct mm *mm)
{
	for (int i = 0; i < FUTEX_BUCKETS; i++) {
		struct bucket *b = &buckets[i];
		if (!__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE))
			continue;
		mutex_lock(&b->lock);
		list_for_each(it, &b->waiters) {
			struct futex_waiter *w = list_entry(it, struct futex_waiter, link);
			if (w->mm == mm)
				thread_wake(w->t);
		}
		mutex_unlock(&b->lock);
	}
}
