/*
 * The lock-order checker (a lockdep of our own), built in with
 * `make LOCKDEP=1` (a debug build: it costs a graph look-up per nested
 * acquisition and a short frame-pointer walk per acquisition).  Without
 * it the hooks are empty inlines.
 *
 * Model (Linux's lockdep, reduced): spinlocks are grouped in lockstat's
 * classes (every page-table lock is one class), sleeping mutexes in
 * classes of their own by name, and so are reader/writer sleeping locks
 * (rwsems: every mm's lock is "mm").  When a lock
 * of class B is taken while one of class A is held, the edge A -> B joins
 * the order graph, with the two acquisition sites of the first time it
 * was seen and LOCKDEP_FRAMES callers of each (frame pointers, named
 * with ksyms).  An edge that closes a cycle (B -> ... -> A was recorded
 * earlier) is an order inversion that can deadlock on SMP even if it
 * never did: the checker prints one line per edge of the cycle, naming
 * both sites and their callers, and one `lockdep` record, then stops
 * checking (the graph proves nothing more once it has a cycle).
 *
 * Interrupt safety: a spinlock class taken in an interrupt handler that
 * is also taken with interrupts enabled elsewhere can deadlock a CPU
 * against itself (the handler spins on the lock the code it interrupted
 * holds).  The first time a class shows both uses the checker prints a
 * line for each site (with callers) and a `lockdep` record (event
 * "irq-unsafe"); that class is not reported again and checking goes on.
 * It never panics.
 *
 * Rules kept out of the graph, as in Linux: a trylock never waits, so it
 * adds no edge (but is held, so locks taken under it do; it counts for
 * neither interrupt use); a class nested in itself (two page-table
 * locks, two run queues) is not an edge - such nesting is ordered by
 * address or CPU id, which a class graph cannot see; an interrupt
 * handler's locks get edges from the spinlocks the interrupted code
 * holds, not from its mutexes (a handler never waits for those).
 *
 * Held spinlocks are kept per CPU: a spinlock disables preemption, so
 * the spinlocks held on a CPU are exactly the current thread's (or its
 * interrupt handler's), and the scheduler's run-queue lock, taken by one
 * thread and dropped by the next after a switch, stays on the right
 * stack.  Held mutexes are kept per thread (struct lockdep_thread in
 * struct thread): their holders sleep and move between CPUs.
 */
#ifndef LOCKDEP_H
#define LOCKDEP_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock;
struct mutex;
struct rwsem;

#define LOCKDEP_DEPTH           16      /* spinlocks held at once on one CPU */
#define LOCKDEP_MUTEX_DEPTH     8       /* mutexes one thread holds at once */
#define LOCKDEP_MAX_EDGES       2048    /* distinct class pairs ever nested */
#define LOCKDEP_MUTEX_CLASSES   32      /* mutex names (one more: "(other mutex)") */
#define LOCKDEP_FRAMES          3       /* callers kept beyond an acquisition site */

/* Where a lock was taken: the site and the callers above it (0: none). */
struct lockdep_site {
	uint64_t at;
	uint64_t up[LOCKDEP_FRAMES];
};

/* The mutexes a thread holds (LOCKDEP=1 builds only). */
struct lockdep_thread {
	const void *lock[LOCKDEP_MUTEX_DEPTH];   /* a struct mutex or struct rwsem */
	uint16_t cls[LOCKDEP_MUTEX_DEPTH];
	struct lockdep_site site[LOCKDEP_MUTEX_DEPTH];
	unsigned n;
};

#ifdef LOCKDEP
/* spin_lock (before it waits: a real deadlock would never report) and
 * spin_trylock (after it succeeded): l is being taken at site. */
void lockdep_acquire(struct spinlock *l, uint64_t site, bool trylock);
void lockdep_release(struct spinlock *l);
/* The same for a mutex or an rwsem (wait.c), site being mutex_lock's
 * (down_read's, down_write's) caller.  An rwsem's read hold is ordered
 * like a write hold: readers of one rwsem never wait for each other, but
 * a reader waits for a writer that waits for another reader, so an
 * inversion with a read side deadlocks as well. */
void lockdep_mutex_acquire(struct mutex *m, uint64_t site, bool trylock);
void lockdep_rwsem_acquire(struct rwsem *s, uint64_t site, bool trylock);
void lockdep_sleep_release(const void *lock);
#define lockdep_mutex_release(m) lockdep_sleep_release(m)
#define lockdep_rwsem_release(s) lockdep_sleep_release(s)
#else
/* Macros, so that not even the site (an asm volatile) is computed. */
#define lockdep_acquire(l, site, trylock) ((void)0)
#define lockdep_release(l) ((void)0)
#define lockdep_mutex_acquire(m, site, trylock) ((void)0)
#define lockdep_mutex_release(m) ((void)0)
#define lockdep_rwsem_acquire(s, site, trylock) ((void)0)
#define lockdep_rwsem_release(s) ((void)0)
#endif

/* Built in?  Still checking (false after an inversion or a table
 * overflow)?  Reports so far: inversions (0 or 1: checking stops at the
 * first) plus interrupt-unsafe classes (at most one each). */
bool lockdep_built(void);
bool lockdep_checking(void);
unsigned lockdep_reports(void);

#endif
