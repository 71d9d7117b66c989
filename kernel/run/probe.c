/*
 * Latency probe (see probe.h).
 *
 * The thread sleeps to each absolute deadline (next += period, never
 * "now + period", so lateness does not accumulate into drift) with the
 * blocking protocol of sched.h, as sched_selftest's rt_probe does.  When
 * it wakes later than a whole period, the deadlines it slept through are
 * each counted late, as an audio buffer that ran dry would be.
 *
 * Locking: P.lock (irqsave) guards total and window; the thread is the
 * only writer.  start/stop are called from one thread (the script runner).
 */
#include <string.h>
#include "probe.h"
#include "lib/stats.h"
#include "core/console.h"
#include "core/record.h"
#include "lib/errno.h"
#include "lib/json.h"
#include "mem/pmm.h"
#include "core/sched.h"
#include "core/spinlock.h"
#include "core/wait.h"

struct probe_figures {
	uint64_t periods, met, worst_late_ns;
	struct stats_hist late;
};

static struct {
	struct spinlock lock;
	struct probe_figures total, window;     /* guarded by lock */
	struct thread *t;
	volatile bool stop;
	struct completion done;
	struct page *pages[PROBE_PAGES];
	uint64_t started_ns;
} P = { .lock = SPINLOCK_INIT("probe") };

bool probe_running(void) { return P.t != NULL; }

static void account(struct probe_figures *f, uint64_t late)
{
	f->periods++;
	f->met += late <= PROBE_SLACK_NS;
	if (late > f->worst_late_ns)
		f->worst_late_ns = late;
	stats_hist_add(&f->late, late);
}

static void record_late(uint64_t late)
{
	bool on = spin_lock_irqsave(&P.lock);
	account(&P.total, late);
	account(&P.window, late);
	spin_unlock_irqrestore(&P.lock, on);
}

/* The player's work: write one word per cache line of the buffer. */
static void touch_buffer(uint64_t stamp)
{
	for (int i = 0; i < PROBE_PAGES; i++) {
		volatile uint64_t *w = page_address(P.pages[i]);
		for (unsigned k = 0; k < PAGE_SIZE / 8; k += 8)
			w[k] = stamp + (uint64_t)k;
	}
}

static void sleep_until(uint64_t at)
{
	while (time_ns() < at) {
		sched_set_blocked();
		sched_block_until(at);
	}
	sched_set_running();
}

static void probe_thread(void *arg)
{
	(void)arg;
	uint64_t next = time_ns();
	while (!P.stop) {
		next += PROBE_PERIOD_NS;
		sleep_until(next);
		uint64_t now = time_ns();
		record_late(now - next);
		touch_buffer(now);
	}
	complete(&P.done);
}

static void free_pages(void)
{
	for (int i = 0; i < PROBE_PAGES; i++) {
		if (P.pages[i])
			pmm_free(P.pages[i], 0);
		P.pages[i] = NULL;
	}
}

int probe_start(void)
{
	if (P.t)
		return 0;
	for (int i = 0; i < PROBE_PAGES; i++)
		if (!(P.pages[i] = pmm_alloc(0, PMM_ZERO))) {
			free_pages();
			return -ENOMEM;
		}
	bool on = spin_lock_irqsave(&P.lock);
	memset(&P.total, 0, sizeof P.total);
	memset(&P.window, 0, sizeof P.window);
	spin_unlock_irqrestore(&P.lock, on);
	P.stop = false;
	P.started_ns = time_ns();
	completion_init(&P.done);
	P.t = thread_create("probe", probe_thread, NULL, SCHED_RT);
	if (!P.t) {
		free_pages();
		return -ENOMEM;
	}
	kprintf("probe: on: RT thread every %llu ms, %lu KiB buffer\n", PROBE_PERIOD_NS / 1000000,
		PROBE_PAGES * PAGE_SIZE / 1024);
	return 0;
}

static void summarize(const struct probe_figures *f, struct probe_report *r)
{
	r->periods = f->periods;
	r->met = f->met;
	r->met_pct_x100 = f->periods ? (f->met * 10000 + f->periods / 2) / f->periods : 0;
	r->worst_late_ns = f->worst_late_ns;
	r->p50_late_ns = stats_hist_percentile(&f->late, 500);
	r->p99_late_ns = stats_hist_percentile(&f->late, 990);
	r->mean_late_ns = f->periods ? f->late.sum / f->periods : 0;
}

void probe_read(bool window, struct probe_report *r)
{
	bool on = spin_lock_irqsave(&P.lock);
	summarize(window ? &P.window : &P.total, r);
	spin_unlock_irqrestore(&P.lock, on);
}

void probe_window_begin(void)
{
	bool on = spin_lock_irqsave(&P.lock);
	memset(&P.window, 0, sizeof P.window);
	spin_unlock_irqrestore(&P.lock, on);
}

static void report_members(struct json *j, const struct probe_report *r)
{
	json_u64(j, "periods", r->periods);
	json_u64(j, "met", r->met);
	json_fixed(j, "met_pct", (int64_t)r->met_pct_x100, 2);
	json_u64(j, "worst_late_ns", r->worst_late_ns);
	json_u64(j, "p50_late_ns", r->p50_late_ns);
	json_u64(j, "p99_late_ns", r->p99_late_ns);
	json_u64(j, "mean_late_ns", r->mean_late_ns);
}

void probe_json(struct json *j, const char *key, const struct probe_report *r)
{
	json_obj_begin(j, key);
	report_members(j, r);
	json_obj_end(j);
}

void probe_stop(void)
{
	if (!P.t)
		return;
	P.stop = true;
	completion_wait(&P.done);
	P.t = NULL;
	free_pages();
	struct probe_report r;
	probe_read(false, &r);
	uint64_t ms = (time_ns() - P.started_ns) / 1000000;
	kprintf("probe: met %lu of %lu deadlines (%lu.%02lu%%) in %lu ms; worst %lu us late, p99 %lu us\n",
		r.met, r.periods, r.met_pct_x100 / 100, r.met_pct_x100 % 100, ms, r.worst_late_ns / 1000,
		r.p99_late_ns / 1000);
	struct json *j = rec_begin("probe");
	json_u64(j, "period_ns", PROBE_PERIOD_NS);
	json_u64(j, "slack_ns", PROBE_SLACK_NS);
	json_u64(j, "buffer_bytes", PROBE_PAGES * PAGE_SIZE);
	json_u64(j, "on_ms", ms);
	report_members(j, &r);
	rec_end();
}
