/*
 * Run queue: runnable threads waiting for a CPU, by priority class, FIFO
 * within a class (round-robin comes from re-adding at the tail).  Pure: it
 * links list nodes and knows nothing of threads, so the policy is tested
 * on the host.  The caller (sched.c) holds the scheduler lock.
 */
#ifndef RUNQ_H
#define RUNQ_H

#include <stdint.h>
#include <stdbool.h>
#include "lib/list.h"

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

#endif
