/*
 * Where the CPU cannot be preempted or interrupted, and for how long.
 *
 * Two measurements, always on (a TSC read at each edge):
 *  - lock classes: every spinlock belongs to the class of its name (all
 *    page-table locks are one class, as in Linux's lockdep), which counts
 *    acquisitions, contended acquisitions and the time spent waiting, the
 *    total and longest hold, where the longest hold was taken, and holds
 *    over 100 us and over 1 ms.  A held spinlock disables preemption, so
 *    the longest hold bounds how late a woken real-time thread can run.
 *  - interrupt-off sections (arch/x86_64/irqtrace.h): the longest one and
 *    where it began and ended.
 *
 * lockstat_json(j, key, top) writes both as one JSON object (top: only
 * the classes with the longest holds, 0 for all); lockstat_reset() starts
 * a new window (the script runner: one per run, in each result record).
 * At halt a "locks" record covers the window since the last reset.
 *
 * Sizes: MAX classes are named in code, not per object, so a fixed table
 * holds them (a class that does not fit is counted as "(other)").
 *
 * Per CPU: a spinlock's figures go to its CPU's own table (release and
 * contention run with preemption off, so the CPU stays; single-instruction
 * adds without a lock prefix, so a nested interrupt's release cannot tear
 * them), so CPUs releasing the same class (every mm's page-table lock is
 * one) never share a cache line.  The boot CPU's table is static; the
 * others' are allocated before they start (lockstat_cpus), and a CPU
 * without one (no memory) counts in the shared table with atomics, as
 * sleeping locks always do.  Readers sum them all.
 */
#ifndef LOCKSTAT_H
#define LOCKSTAT_H

#include <stdint.h>
#include <stdbool.h>

#define LOCKSTAT_MAX_CLASSES 96

struct lock_counts {
	uint64_t acquired, contended;
	uint64_t wait_cycles, hold_cycles, max_hold_cycles;
	uint64_t over_100us, over_1ms;
	uint64_t max_hold_site;         /* an address in the function that took it */
};

struct lock_class {
	const char *name;
	struct lock_counts n;           /* shared: sleeping locks, CPUs without a table */
	unsigned row;                   /* its row in the CPUs' tables */
	bool sleeps;                    /* an rwsem's class: its holds may sleep and
					   do not keep preemption off (record: "sleeps") */
};

struct spinlock;

/* Called by spin_unlock with the hold time; by spin_lock when it had to
 * wait.  Cheap: the class is looked up once per lock object. */
void lockstat_release(struct spinlock *l, uint64_t hold_cycles);
void lockstat_contended(struct spinlock *l, uint64_t wait_cycles);

/* Sleeping reader/writer locks (struct rwsem, wait.h) have classes by
 * name too: every acquisition counts; contended when the taker had to
 * sleep, wait being the time until it held the lock.  A write hold is
 * timed by its release (hold_cycles, the longest and where it was
 * taken); read holds overlap and are not timed.  Sleeping holds are not
 * counted in over_100us/over_1ms, which are about preemption being off.
 * *cls caches the class in the lock. */
void lockstat_sleep_acquired(struct lock_class **cls, const char *name, bool contended, uint64_t wait_cycles);
void lockstat_sleep_hold(struct lock_class **cls, const char *name, uint64_t hold_cycles, uint64_t site);

/* The class of l as an index (0 .. LOCKSTAT_MAX_CLASSES; the last is
 * "(other)") and a class's name, for the lock-order checker (lockdep.h). */
unsigned lockstat_class_index(struct spinlock *l);
const char *lockstat_class_name(unsigned idx);

void lockstat_reset(void);
/* The figures of the class named name since the last reset, every CPU's
 * summed; false when no lock of that name has been released yet. */
bool lockstat_counts_of(const char *name, struct lock_counts *out);
/* Before the other CPUs start: tables for CPU ids 1..ncpus-1 (a CPU
 * whose table cannot be had counts in the shared one). */
void lockstat_cpus(unsigned ncpus);
struct json;
void lockstat_json(struct json *j, const char *key, unsigned top);
void lockstat_halt_report(void);

#endif
