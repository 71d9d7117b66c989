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

struct runq_entity *runq_steal(struct runq *rq, bool (*ok)(const struct runq_entity *e, void *arg), void *arg)
{
	for (int c = 0; c < SCHED_CLASSES; c++) {
		list_for_each(it, &rq->q[c]) {
			struct runq_entity *e = list_entry(it, struct runq_entity, link);
			if (ok(e, arg)) {
				runq_del(rq, e);
				return e;
			}
		}
	}
	return 0;
}

static bool cpu_idle(const struct runq_load *l) { return !l->running && !l->queued; }
static uint32_t load_of(const struct runq_load *l) { return l->queued + (l->running ? 1u : 0u); }

unsigned runq_wake_cpu(const struct runq_load *l, unsigned n, const struct cpumask *allowed,
		       unsigned prev, unsigned waker)
{
	if (prev < n && cpumask_test(allowed, prev) && cpu_idle(&l[prev]))
		return prev;
	if (waker < n && cpumask_test(allowed, waker) && cpu_idle(&l[waker]))
		return waker;
	unsigned best = n;
	for (unsigned i = 0; i < n; i++) {
		if (!cpumask_test(allowed, i))
			continue;
		if (cpu_idle(&l[i]))
			return i;
		if (best == n || load_of(&l[i]) < load_of(&l[best]))
			best = i;
	}
	if (waker < n && cpumask_test(allowed, waker))
		return waker;
	return best < n ? best : 0;
}

unsigned runq_busiest(const struct runq_load *l, unsigned n, unsigned self)
{
	unsigned best = n;
	for (unsigned i = 0; i < n; i++) {
		if (i == self || !l[i].queued)
			continue;
		if (best == n || load_of(&l[i]) > load_of(&l[best]))
			best = i;
	}
	if (best == n || self >= n)
		return n;
	uint32_t mine = load_of(&l[self]), theirs = load_of(&l[best]);
	uint32_t margin = cpu_idle(&l[self]) ? 1 : 2;
	return theirs >= mine + margin ? best : n;
}
