#include "test.h"
#include "lib/cpumask.h"
#include "core/runq.h"

TEST(cpumask_fill_test_next)
{
	struct cpumask m;
	cpumask_fill(&m, 70);
	CHECK_EQ(cpumask_weight(&m), 70);
	CHECK(cpumask_test(&m, 0) && cpumask_test(&m, 63) && cpumask_test(&m, 64) && cpumask_test(&m, 69));
	CHECK(!cpumask_test(&m, 70) && !cpumask_test(&m, 255) && !cpumask_test(&m, 256));
	cpumask_fill(&m, 256);
	CHECK_EQ(cpumask_weight(&m), 256);
	cpumask_fill(&m, 999);
	CHECK_EQ(cpumask_weight(&m), 256);
	cpumask_clear(&m);
	CHECK(cpumask_empty(&m));
	CHECK_EQ(cpumask_next(&m, 0), CPUMASK_BITS);
	cpumask_set(&m, 5);
	cpumask_set(&m, 64);
	cpumask_set(&m, 255);
	cpumask_set(&m, 256);           /* out of range: ignored */
	CHECK_EQ(cpumask_weight(&m), 3);
	CHECK_EQ(cpumask_next(&m, 0), 5);
	CHECK_EQ(cpumask_next(&m, 6), 64);
	CHECK_EQ(cpumask_next(&m, 65), 255);
	unsigned seen = 0, sum = 0;
	cpumask_for_each(c, &m) {
		seen++;
		sum += c;
	}
	CHECK_EQ(seen, 3);
	CHECK_EQ(sum, 5 + 64 + 255);
	cpumask_unset_atomic(&m, 64);
	cpumask_set_atomic(&m, 128);
	CHECK(!cpumask_test(&m, 64) && cpumask_test(&m, 128));
	struct cpumask a, b;
	cpumask_fill(&a, 130);
	cpumask_and(&b, &a, &m);
	CHECK_EQ(cpumask_weight(&b), 2);        /* 5 and 128 */
}

static struct runq_load L[4];

static void loads(int q0, int r0, int q1, int r1, int q2, int r2, int q3, int r3)
{
	int q[4] = { q0, q1, q2, q3 }, r[4] = { r0, r1, r2, r3 };
	for (int i = 0; i < 4; i++)
		L[i] = (struct runq_load){ .queued = (uint32_t)q[i], .running = r[i] != 0,
					   .cur_cls = r[i] ? SCHED_NORMAL : SCHED_IDLE };
}

TEST(runq_wake_cpu_prefers_idle_then_waker)
{
	struct cpumask all, only3;
	cpumask_fill(&all, 4);
	cpumask_clear(&only3);
	cpumask_set(&only3, 3);
	loads(0, 1, 0, 0, 0, 0, 0, 1);
	CHECK_EQ(runq_wake_cpu(L, 4, &all, 1, 0), 1);   /* its last CPU is idle */
	CHECK_EQ(runq_wake_cpu(L, 4, &all, 3, 2), 2);   /* last busy: the idle waker */
	CHECK_EQ(runq_wake_cpu(L, 4, &all, 3, 0), 1);   /* first idle CPU */
	CHECK_EQ(runq_wake_cpu(L, 4, &only3, 1, 0), 3); /* affinity wins over idleness */
	loads(1, 1, 0, 1, 2, 1, 0, 1);
	CHECK_EQ(runq_wake_cpu(L, 4, &all, 2, 2), 2);   /* all busy: the waker's */
	cpumask_unset(&all, 2);
	CHECK_EQ(runq_wake_cpu(L, 4, &all, 2, 2), 1);   /* waker not allowed: least loaded */
	CHECK_EQ(runq_wake_cpu(L, 2, &all, 9, 9), 1);   /* only two online */
}

TEST(runq_busiest_margins)
{
	loads(0, 0, 1, 1, 0, 0, 0, 0);
	CHECK_EQ(runq_busiest(L, 4, 0), 1);     /* idle pulls one waiter */
	loads(0, 1, 1, 1, 0, 0, 0, 0);
	CHECK_EQ(runq_busiest(L, 4, 0), 4);     /* 1 vs 2: moving it gains nothing */
	loads(0, 1, 2, 1, 3, 1, 0, 0);
	CHECK_EQ(runq_busiest(L, 4, 0), 2);     /* the busiest */
	CHECK_EQ(runq_busiest(L, 4, 2), 4);     /* never itself; nobody busier */
	loads(0, 0, 0, 1, 0, 1, 0, 1);
	CHECK_EQ(runq_busiest(L, 4, 0), 4);     /* nothing waits anywhere */
	CHECK_EQ(runq_busiest(L, 1, 0), 1);     /* one CPU: nobody to pull from */
}

static bool only_odd(const struct runq_entity *e, void *arg)
{
	const struct runq_entity *base = arg;
	return (e - base) % 2 == 1;
}

TEST(runq_steal_skips_refused)
{
	static struct runq rq;
	static struct runq_entity e[4];
	runq_init(&rq);
	for (int i = 0; i < 4; i++) {
		e[i] = (struct runq_entity){ .cls = i == 3 ? SCHED_RT : SCHED_NORMAL };
		list_init(&e[i].link);
		runq_add(&rq, &e[i], false);
	}
	CHECK(runq_steal(&rq, only_odd, e) == &e[3]);   /* best class first */
	CHECK(runq_steal(&rq, only_odd, e) == &e[1]);
	CHECK(runq_steal(&rq, only_odd, e) == NULL);
	CHECK_EQ(runq_count(&rq), 2);
}

TEST(runq_lock_first_is_the_lower_id)
{
	/* Both movers of a pair agree on the order, whichever way they move. */
	CHECK_EQ(runq_lock_first(3, 1), 1);
	CHECK_EQ(runq_lock_first(1, 3), 1);
	CHECK_EQ(runq_lock_first(2, 2), 2);
	CHECK_EQ(runq_lock_first(255, 0), 0);
}

TEST(runq_answers_stay_in_range_on_stale_loads)
{
	/* loads[] are read without the other CPUs' locks: any mix of figures
	 * (a CPU counted idle and queued at once, classes out of range) must
	 * still give an online CPU, or n for "none". */
	struct cpumask all, none;
	cpumask_fill(&all, 4);
	cpumask_clear(&none);
	for (unsigned seed = 0; seed < 4096; seed++) {
		for (int i = 0; i < 4; i++)
			L[i] = (struct runq_load){ .queued = (seed >> (3 * i)) & 3u ? 0xffffffffu >> ((seed >> i) & 31) : 0,
						   .running = (seed >> (i + 8)) & 1, .cur_cls = (uint8_t)(seed >> (2 * i)) };
		unsigned n = 1 + seed % 4, prev = seed % 7, self = (seed / 7) % 5;
		CHECK(runq_wake_cpu(L, n, &all, prev, self) < n);
		CHECK(runq_wake_cpu(L, n, &none, prev, self) < n);
		CHECK(runq_busiest(L, n, self % n) <= n);
		CHECK(runq_busiest(L, n, self % n) != self % n);
	}
}
