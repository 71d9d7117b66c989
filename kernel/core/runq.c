/*
 * Run-queue operations, O(1) each (SCHED_CLASSES is a small constant).
 * Invariant: e->queued <=> e is on rq->q[e->cls], and nr[] counts them.
 */
#include "runq.h"

void runq_init(struct runq *rq)
{
	for (int c = 0; c < SCHED_CLASSES; c++) {
		list_init(&rq->q[c]);
		rq->nr[c] = 0;
	}
}

void runq_add(struct runq *rq, struct runq_entity *e, bool front)
{
	if (e->queued)
		return;
	if (front)
		list_add(&e->link, &rq->q[e->cls]);
	else
		list_add_tail(&e->link, &rq->q[e->cls]);
	rq->nr[e->cls]++;
	e->queued = true;
}

void runq_del(struct runq *rq, struct runq_entity *e)
{
	if (!e->queued)
		return;
	list_del(&e->link);
	rq->nr[e->cls]--;
	e->queued = false;
}

struct runq_entity *runq_pick(struct runq *rq)
{
	for (int c = 0; c < SCHED_CLASSES; c++) {
		if (list_empty(&rq->q[c]))
			continue;
		struct runq_entity *e = list_first(&rq->q[c], struct runq_entity, link);
		runq_del(rq, e);
		return e;
	}
	return 0;
}

bool runq_has_better(const struct runq *rq, unsigned cls)
{
	for (unsigned c = 0; c < cls && c < SCHED_CLASSES; c++)
		if (rq->nr[c])
			return true;
	return false;
}

uint32_t runq_count(const struct runq *rq)
{
	uint32_t n = 0;
	for (int c = 0; c < SCHED_CLASSES; c++)
		n += rq->nr[c];
	return n;
}
