/*
 * Run queue: runnable threads waiting for a CPU, by priority class, FIFO
 * within a class (round-robin comes from re-adding at the tail).  Pure: it
 * links list nodes and knows nothing of threads, so the policy is tested
 * on the host.  The caller (sched.c) holds the queue's lock.
 */
#ifndef RUNQ_H
#define RUNQ_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/list.h"
#include "lib/cpumask.h"

enum sched_class {
	SCHED_RT = 0,           /* latency-critical: preempts NORMAL at once */
	SCHED_NORMAL = 1,       /* kernel threads and workloads, 10 ms slices */
	SCHED_IDLE = 2,         /* runs only when nothing else can */
	SCHED_CLASSES = 3,
};

struct runq_entity {
	struct list_node link;
	uint8_t cls;            /* enum sched_class */
	bool queued;
};

struct runq {
	struct list_node q[SCHED_CLASSES];
	uint32_t nr[SCHED_CLASSES];
};

void runq_init(struct runq *rq);
/* front: put at the head of its class (a preempted thread keeps its turn). */
void runq_add(struct runq *rq, struct runq_entity *e, bool front);
void runq_del(struct runq *rq, struct runq_entity *e);
/* Remove and return the first entity of the best class, or NULL. */
struct runq_entity *runq_pick(struct runq *rq);
/* Is something queued in a strictly better class than cls? */
bool runq_has_better(const struct runq *rq, unsigned cls);
uint32_t runq_count(const struct runq *rq);
/* Remove and return the first entity, best class first, that ok(e, arg)
 * accepts (a thread allowed to run on the stealing CPU), or NULL. */
struct runq_entity *runq_steal(struct runq *rq, bool (*ok)(const struct runq_entity *e, void *arg), void *arg);

/*
 * Placement and balance across CPUs (several run queues, one per CPU).
 * The scheduler keeps one runq_load per online CPU, each written under
 * that CPU's queue lock and read by the others without it, and asks;
 * the answers are CPU indexes below n (or n: none) whatever the figures
 * say (a stale one gives a worse choice, which the caller checks under
 * the locks before moving anything).
 */
struct runq_load {
	uint32_t queued;        /* threads waiting in its run queue */
	bool running;           /* a thread other than its idle thread is on it */
	uint8_t cur_cls;        /* the running thread's class (SCHED_IDLE when idle) */
};

/* Where a woken thread goes: the CPU it last ran on if that is idle, else
 * the waker's if idle, else any idle CPU, else the waker's, else the
 * least loaded; always one in allowed (which must not be empty among the
 * first n).  A CPU is idle when nothing runs or waits there. */
unsigned runq_wake_cpu(const struct runq_load *l, unsigned n, const struct cpumask *allowed,
		       unsigned prev, unsigned waker);
/* Periodic and idle balance: the CPU self should pull one waiting thread
 * from, or n when none.  The busiest CPU by load (queued + running) is
 * chosen if it has a waiting thread and its load exceeds self's by 2 or
 * more (by 1 when self is idle: one waiter beats an idle CPU). */
unsigned runq_busiest(const struct runq_load *l, unsigned n, unsigned self);

/* Of two CPUs' queues locked together (a thread moving between them),
 * the one to lock first: the lower id, so two CPUs moving threads in
 * opposite directions cannot each hold the lock the other waits for. */
static inline unsigned runq_lock_first(unsigned a, unsigned b) { return a < b ? a : b; }

#endif
