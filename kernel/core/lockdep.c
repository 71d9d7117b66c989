/*
 * The lock-order checker (lockdep.h).
 *
 * State: per CPU a stack of held locks; one graph of lock classes as a
 * matrix of edge numbers (0: no edge) plus a table of the edges' sites.
 * An edge already in the matrix costs one load; a new one takes
 * graph_lock (a raw flag with interrupts off: a spinlock here would check
 * itself), searches for the reverse path, and is added or reported.
 *
 * Sizes (debug builds only): the held stacks are 256 B per possible CPU
 * (64 KiB for 256), the matrix 19 KiB, the edge table 32 KiB.  Static,
 * because nothing may be allocated here: the allocators take spinlocks.
 *
 * Printing: the report turns checking off first and drops graph_lock, so
 * the console's and the record's own spinlocks come back here and return
 * at once.
 */
#include <string.h>
#include "lockdep.h"
#include "lockstat.h"
#include "spinlock.h"
#include "console.h"
#include "record.h"
#include "ksyms.h"
#include "smp.h"
#include "lib/printf.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/percpu.h"

bool lockdep_built(void)
{
#ifdef LOCKDEP
	return true;
#else
	return false;
#endif
}

#ifndef LOCKDEP
bool lockdep_checking(void) { return false; }
unsigned lockdep_reports(void) { return 0; }
#else

#define NCLS (LOCKSTAT_MAX_CLASSES + 1)        /* lockstat's classes and "(other)" */

struct held {
	struct spinlock *lock;
	uint64_t site;
};

struct held_stack {
	struct held h[LOCKDEP_DEPTH];
	unsigned n;
};

struct edge {
	uint64_t from_site;     /* where the held lock (the edge's tail) was taken */
	uint64_t to_site;       /* where the other was then taken */
};

static struct held_stack stacks[SMP_MAX_CPUS];
static uint16_t edge_ix[NCLS][NCLS];            /* guarded by graph_lock; read racily */
static struct edge edges[LOCKDEP_MAX_EDGES + 1];        /* [0] unused */
static unsigned nedges;                         /* guarded by graph_lock */
static volatile uint32_t graph_lock;
static volatile bool checking = true;
static unsigned reports;

bool lockdep_checking(void) { return checking; }
unsigned lockdep_reports(void) { return __atomic_load_n(&reports, __ATOMIC_ACQUIRE); }

static void graph_take(void)
{
	while (__atomic_exchange_n(&graph_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void graph_drop(void) { __atomic_store_n(&graph_lock, 0, __ATOMIC_RELEASE); }

/* Called with interrupts off: the first caller wins, the rest see false. */
static bool stop_checking(void)
{
	return __atomic_exchange_n(&checking, false, __ATOMIC_ACQ_REL);
}

static const char *site_name(uint64_t addr, char *buf, unsigned len)
{
	uint64_t off;
	const char *s = addr ? ksym_lookup(addr, &off) : NULL;
	if (s)
		ksnprintf(buf, len, "%s+0x%lx", s, off);
	else
		ksnprintf(buf, len, "0x%lx", addr);
	return buf;
}

/* ------------------------------------------------------------ reports */

/* path[0..n): classes from the new edge's head back to its tail through
 * recorded edges (path[0] = to, path[n-1] = from). */
struct cycle {
	unsigned cls[NCLS];
	unsigned n;
};

static void print_edge(struct json *j, unsigned a, unsigned b, uint64_t sa, uint64_t sb, bool now)
{
	char x[96], y[96];
	site_name(sa, x, sizeof x);
	site_name(sb, y, sizeof y);
	kprintf("lockdep:   '%s' held (taken at %s), then '%s' taken at %s%s\n", lockstat_class_name(a), x,
		lockstat_class_name(b), y, now ? " <- now" : " (recorded earlier)");
	json_obj_begin(j, NULL);
	json_str(j, "held", lockstat_class_name(a));
	json_str(j, "held_at", x);
	json_str(j, "taken", lockstat_class_name(b));
	json_str(j, "taken_at", y);
	json_bool(j, "now", now);
	json_obj_end(j);
}

/* The console and record locks come back into lockdep_acquire, which
 * returns at once: checking is off. */
static void report_cycle(unsigned from, unsigned to, uint64_t from_site, uint64_t to_site, const struct cycle *c)
{
	kprintf("lockdep: lock order inversion: '%s' taken while '%s' is held closes a cycle of %u lock classes;"
		" checking off\n", lockstat_class_name(to), lockstat_class_name(from), c->n);
	struct json *j = rec_begin("lockdep");
	json_str(j, "event", "inversion");
	json_arr_begin(j, "cycle");
	print_edge(j, from, to, from_site, to_site, true);
	for (unsigned i = 0; i + 1 < c->n; i++) {
		const struct edge *e = &edges[edge_ix[c->cls[i]][c->cls[i + 1]]];
		print_edge(j, c->cls[i], c->cls[i + 1], e->from_site, e->to_site, false);
	}
	json_arr_end(j);
	rec_end();
}

static void report_full(const char *what, unsigned limit)
{
	kprintf("lockdep: more than %u %s; checking off\n", limit, what);
	struct json *j = rec_begin("lockdep");
	json_str(j, "event", "overflow");
	json_str(j, "what", what);
	json_u64(j, "limit", limit);
	rec_end();
}

/* ------------------------------------------------------------ the graph */

/* Is there a path from -> ... -> to?  Breadth first; c gets it. */
static bool find_path(unsigned from, unsigned to, struct cycle *c)
{
	static uint16_t prev[NCLS];     /* guarded by graph_lock */
	static uint16_t queue[NCLS];
	memset(prev, 0xff, sizeof prev);
	unsigned head = 0, tail = 0;
	queue[tail++] = (uint16_t)from;
	prev[from] = (uint16_t)from;
	while (head < tail) {
		unsigned x = queue[head++];
		if (x == to)
			break;
		for (unsigned y = 0; y < NCLS; y++)
			if (edge_ix[x][y] && prev[y] == 0xffff) {
				prev[y] = (uint16_t)x;
				queue[tail++] = (uint16_t)y;
			}
	}
	if (prev[to] == 0xffff)
		return false;
	/* Walk back from `to`, then reverse into from .. to order. */
	unsigned n = 0;
	for (unsigned x = to; ; x = prev[x]) {
		c->cls[n++] = x;
		if (x == from)
			break;
	}
	for (unsigned i = 0; i < n / 2; i++) {
		unsigned t = c->cls[i];
		c->cls[i] = c->cls[n - 1 - i];
		c->cls[n - 1 - i] = t;
	}
	c->n = n;
	return true;
}

/* Holding class a (taken at sa), class b is being taken at sb. */
static void add_edge(unsigned a, unsigned b, uint64_t sa, uint64_t sb)
{
	if (__atomic_load_n(&edge_ix[a][b], __ATOMIC_RELAXED))
		return;
	static struct cycle c;          /* guarded by graph_lock */
	graph_take();
	if (edge_ix[a][b] || !checking) {
		graph_drop();
		return;
	}
	if (find_path(b, a, &c)) {
		bool first = stop_checking();
		graph_drop();
		if (first) {
			__atomic_add_fetch(&reports, 1, __ATOMIC_RELEASE);
			report_cycle(a, b, sa, sb, &c);
		}
		return;
	}
	if (nedges == LOCKDEP_MAX_EDGES) {
		bool first = stop_checking();
		graph_drop();
		if (first)
			report_full("lock order edges", LOCKDEP_MAX_EDGES);
		return;
	}
	edges[++nedges] = (struct edge){ sa, sb };
	__atomic_store_n(&edge_ix[a][b], (uint16_t)nedges, __ATOMIC_RELEASE);
	graph_drop();
}

/* ------------------------------------------------------------ hooks */

static struct held_stack *my_stack(void)
{
	uint32_t id = this_cpu()->id;
	return id < SMP_MAX_CPUS ? &stacks[id] : NULL;
}

void lockdep_acquire(struct spinlock *l, uint64_t site, bool trylock)
{
	if (!checking)
		return;
	bool on = irq_save();
	struct held_stack *s = my_stack();
	if (!s)
		goto out;
	unsigned b = lockstat_class_index(l);
	for (unsigned i = 0; i < s->n && !trylock && checking; i++) {
		unsigned a = lockstat_class_index(s->h[i].lock);
		if (a != b)
			add_edge(a, b, s->h[i].site, site);
	}
	if (s->n == LOCKDEP_DEPTH) {
		if (stop_checking()) {
			irq_restore(on);
			report_full("locks held on one CPU", LOCKDEP_DEPTH);
			return;
		}
		goto out;
	}
	s->h[s->n++] = (struct held){ l, site };
out:
	irq_restore(on);
}

/* Locks are mostly dropped in reverse order, but not always: search from
 * the top.  A lock not found was taken before checking stopped... or
 * while it was off (never on this path): nothing to do. */
void lockdep_release(struct spinlock *l)
{
	bool on = irq_save();
	struct held_stack *s = my_stack();
	for (unsigned i = s ? s->n : 0; i-- > 0;) {
		if (s->h[i].lock != l)
			continue;
		memmove(&s->h[i], &s->h[i + 1], (s->n - i - 1) * sizeof s->h[0]);
		s->n--;
		break;
	}
	irq_restore(on);
}

#endif
