/*
 * Memory stall accounting (psi.h).  One global state under one spinlock:
 * the stalled counts and the totals, brought up to date (account) at
 * every enter, leave and read; the averages are folded every 2 s period
 * by whichever of those comes first after the period ends (Linux's
 * psi_avgs_work runs on a timer instead; a quiet gap decays them as
 * missed periods, the same numbers).
 */
#include "psi.h"
#include "psi_avg.h"
#include "core/sched.h"
#include "core/spinlock.h"
#include "core/time.h"

static struct {
	struct spinlock lock;
	unsigned nr_stall;              /* [lock] threads stalled */
	unsigned nr_stall_run;          /* [lock] of them, working (direct reclaim) */
	bool full;                      /* [lock] the verdict since `last` */
	uint64_t last;                  /* [lock] ns of the last account */
	uint64_t some_ns, full_ns;      /* [lock] */
	uint64_t avg_last, avg_some, avg_full;  /* [lock] when averages were last folded, and the totals then */
	uint64_t some_avg[3], full_avg[3];      /* [lock] */
} S = { .lock = SPINLOCK_INIT("psi") };

/* Lock held.  Time since the last call goes to the totals by the verdict
 * then; the averages get every period that has ended. */
static void account(uint64_t now)
{
	uint64_t d = now > S.last ? now - S.last : 0;
	if (S.nr_stall)
		S.some_ns += d;
	if (S.full)
		S.full_ns += d;
	S.last = now;
	if (now - S.avg_last < PSI_AVG_PERIOD_NS)
		return;
	uint64_t span = now - S.avg_last, missed = span / PSI_AVG_PERIOD_NS - 1;
	/* The stall seen over the whole span is the sample of its last
	 * period (Linux's calc_avgs); the others count as missed. */
	uint64_t period = span - missed * PSI_AVG_PERIOD_NS;
	uint64_t some = S.some_ns - S.avg_some, full = S.full_ns - S.avg_full;
	psi_avg_update(S.some_avg, some < period ? some : period, period, missed);
	psi_avg_update(S.full_avg, full < period ? full : period, period, missed);
	S.avg_last = now;
	S.avg_some = S.some_ns;
	S.avg_full = S.full_ns;
}

/* Lock held: the "full" verdict from now on.  sched_counts takes the
 * scheduler's lock inside ours: the order is psi, then sched, never the
 * other way (the scheduler calls nothing here). */
static void judge(void)
{
	unsigned runnable, io;
	if (!S.nr_stall) {
		S.full = false;
		return;
	}
	sched_counts(&runnable, &io);
	S.full = runnable <= S.nr_stall_run;
}

void psi_memstall_enter(bool running)
{
	uint64_t now = time_ns();
	bool on = spin_lock_irqsave(&S.lock);
	account(now);
	S.nr_stall++;
	S.nr_stall_run += running;
	judge();
	spin_unlock_irqrestore(&S.lock, on);
}

void psi_memstall_leave(bool running)
{
	uint64_t now = time_ns();
	bool on = spin_lock_irqsave(&S.lock);
	account(now);
	if (S.nr_stall)
		S.nr_stall--;
	if (running && S.nr_stall_run)
		S.nr_stall_run--;
	judge();
	spin_unlock_irqrestore(&S.lock, on);
}

void psi_memory_read(struct psi_memory *m)
{
	uint64_t now = time_ns();
	bool on = spin_lock_irqsave(&S.lock);
	account(now);
	judge();
	m->some_us = S.some_ns / 1000;
	m->full_us = S.full_ns / 1000;
	for (int i = 0; i < 3; i++) {
		m->some_avg[i] = S.some_avg[i];
		m->full_avg[i] = S.full_avg[i];
	}
	spin_unlock_irqrestore(&S.lock, on);
}
