/*
 * The latency probe: seed 002's "mp3 played 297 seconds of 304" as a
 * number.  A SCHED_RT kernel thread wakes every 10 ms on absolute
 * deadlines, touches its own 64 KiB buffer (16 pages of its own, like a
 * player's decode buffer), and counts the deadlines it met (woke within
 * 1 ms) and how late it was.  Under memory pressure the figures show
 * whether reclaim and swap I/O starve a latency-sensitive thread.
 *
 * Figures are kept for the whole time the probe is on and for a window
 * that the script runner restarts before each run.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <stdint.h>

#define PROBE_PERIOD_NS 10000000ull     /* 10 ms: a 100 Hz audio refill */
#define PROBE_SLACK_NS  1000000ull      /* "met": woke within 1 ms of the deadline */
#define PROBE_PAGES     16

struct probe_report {
	uint64_t periods, met;
	uint64_t met_pct_x100;          /* met / periods, percent x100 */
	uint64_t worst_late_ns, p50_late_ns, p99_late_ns, mean_late_ns;
};

/* Start the probe thread (no-op when on).  -ENOMEM when it cannot. */
int probe_start(void);
/* Stop it, wait for the thread, print the {"type":"probe"} record. */
void probe_stop(void);
bool probe_running(void);

/* Restart the window figures (before a run). */
void probe_window_begin(void);
/* The window's (or the whole run's) figures so far. */
void probe_read(bool window, struct probe_report *r);

struct json;
/* r as an object member named key. */
void probe_json(struct json *j, const char *key, const struct probe_report *r);

#endif
