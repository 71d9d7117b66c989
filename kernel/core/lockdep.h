/*
 * The lock-order checker (a lockdep of our own), built in with
 * `make LOCKDEP=1` (a debug build: it costs a graph look-up per nested
 * acquisition).  Without it the hooks are empty inlines.
 *
 * Model (Linux's lockdep, reduced to what spinlocks need): locks are
 * grouped in lockstat's classes (every page-table lock is one class).
 * When a lock of class B is taken while one of class A is held, the edge
 * A -> B joins the order graph, with the two acquisition sites of the
 * first time it was seen.  An edge that closes a cycle (B -> ... -> A was
 * recorded earlier) is an order inversion that can deadlock on SMP even
 * if it never did: the checker prints one line per edge of the cycle,
 * naming both sites, and one `lockdep` record, then stops checking (the
 * graph proves nothing more once it has a cycle).  It never panics.
 *
 * Rules kept out of the graph, as in Linux: a trylock never waits, so it
 * adds no edge (but is held, so locks taken under it do); a class nested
 * in itself (two page-table locks, two run queues) is not an edge - such
 * nesting is ordered by address, which a class graph cannot see.
 *
 * The held locks are kept per CPU, not per thread: a spinlock disables
 * preemption, so the locks held on a CPU are exactly the current
 * thread's, and the scheduler's lock, taken by one thread and dropped by
 * the next after a switch, stays on the right stack.  Sleeping mutexes
 * are not tracked.
 */
#ifndef LOCKDEP_H
#define LOCKDEP_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock;

#define LOCKDEP_DEPTH           16      /* locks held at once on one CPU */
#define LOCKDEP_MAX_EDGES       2048    /* distinct class pairs ever nested */

#ifdef LOCKDEP
/* spin_lock (before it waits: a real deadlock would never report) and
 * spin_trylock (after it succeeded): l is being taken at site. */
void lockdep_acquire(struct spinlock *l, uint64_t site, bool trylock);
void lockdep_release(struct spinlock *l);
#else
/* Macros, so that not even the site (an asm volatile) is computed. */
#define lockdep_acquire(l, site, trylock) ((void)0)
#define lockdep_release(l) ((void)0)
#endif

/* Built in?  Still checking (false after a report or a table overflow)?
 * Inversions reported so far (0 or 1: checking stops at the first). */
bool lockdep_built(void);
bool lockdep_checking(void);
unsigned lockdep_reports(void);

#endif
