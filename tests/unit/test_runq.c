#include "test.h"
#include "core/runq.h"

static struct runq rq;
static struct runq_entity e[8];

static void setup(void)
{
	runq_init(&rq);
	for (int i = 0; i < 8; i++) {
		e[i] = (struct runq_entity){ .cls = SCHED_NORMAL };
		list_init(&e[i].link);
	}
}

TEST(runq_fifo_within_class_and_round_robin)
{
	setup();
	for (int i = 0; i < 3; i++)
		runq_add(&rq, &e[i], false);
	CHECK_EQ(runq_count(&rq), 3);
	/* Round-robin: pick, run, re-add at the tail. */
	int order[6];
	for (int k = 0; k < 6; k++) {
		struct runq_entity *x = runq_pick(&rq);
		order[k] = (int)(x - e);
		runq_add(&rq, x, false);
	}
	int want[6] = { 0, 1, 2, 0, 1, 2 };
	for (int k = 0; k < 6; k++)
		CHECK_EQ(order[k], want[k]);
}

TEST(runq_classes_and_preemption)
{
	setup();
	e[0].cls = SCHED_IDLE;
	e[1].cls = SCHED_NORMAL;
	e[2].cls = SCHED_RT;
	runq_add(&rq, &e[0], false);
	runq_add(&rq, &e[1], false);
	CHECK(!runq_has_better(&rq, SCHED_NORMAL));
	CHECK(runq_has_better(&rq, SCHED_IDLE));
	runq_add(&rq, &e[2], false);
	CHECK(runq_has_better(&rq, SCHED_NORMAL));
	CHECK(!runq_has_better(&rq, SCHED_RT));
	CHECK(runq_pick(&rq) == &e[2]);
	CHECK(runq_pick(&rq) == &e[1]);
	CHECK(runq_pick(&rq) == &e[0]);
	CHECK(runq_pick(&rq) == NULL);
}

TEST(runq_front_keeps_turn_and_double_add_is_harmless)
{
	setup();
	runq_add(&rq, &e[0], false);
	runq_add(&rq, &e[1], false);
	runq_add(&rq, &e[2], true);             /* preempted: back at the head */
	runq_add(&rq, &e[2], false);            /* already queued: no change */
	CHECK_EQ(runq_count(&rq), 3);
	CHECK(runq_pick(&rq) == &e[2]);
	runq_del(&rq, &e[1]);
	runq_del(&rq, &e[1]);
	CHECK_EQ(runq_count(&rq), 1);
	CHECK(runq_pick(&rq) == &e[0]);
	CHECK_EQ(runq_count(&rq), 0);
}
