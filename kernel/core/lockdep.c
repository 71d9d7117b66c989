/*
 * The lock-order checker (lockdep.h).
 *
 * State: per CPU a stack of held spinlocks, per thread a stack of held
 * mutexes; one graph of lock classes (lockstat's spinlock classes, then
 * the mutex classes) as a matrix of edge numbers (0: no edge) plus a
 * table of the edges' sites; per spinlock class its first acquisition in
 * an interrupt handler and its first with interrupts enabled.  An edge
 * already in the matrix costs one load; a new one takes graph_lock (a raw
 * flag with interrupts off: a spinlock here would check itself), searches
 * for the reverse path, and is added or reported.
 *
 * Sizes (debug builds only): the held stacks are 776 B per possible CPU
 * (194 KiB for 256), the matrix 33 KiB, the edge table 128 KiB, the
 * interrupt-use sites 7 KiB, and each thread 344 B for its mutexes.  Static, because nothing may be allocated
 * here: the allocators take spinlocks.
 *
 * Printing: the report turns checking off first (or, for an interrupt
 * report, marks the class reported) and drops graph_lock, so the
 * console's and the record's own spinlocks come back here and return at
 * once or find nothing new.
 */
#include <string.h>
#include "lockdep.h"
#include "lockstat.h"
#include "spinlock.h"
#include "wait.h"
#include "sched.h"
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

#define NSPIN (LOCKSTAT_MAX_CLASSES + 1)       /* lockstat's classes and "(other)" */
#define NMUTEX (LOCKDEP_MUTEX_CLASSES + 1)     /* mutex names and "(other mutex)" */
#define NCLS (NSPIN + NMUTEX)

_Static_assert(NCLS < 0xffff, "class numbers fit the matrix's and the path's uint16_t");
_Static_assert(sizeof(struct lockdep_thread) <= 344, "the size the comment above states");

struct held {
	struct spinlock *lock;
	unsigned cls;
	struct lockdep_site site;
};

struct held_stack {
	struct held h[LOCKDEP_DEPTH];
	unsigned n;
};

struct edge {
	struct lockdep_site from;       /* where the held lock (the edge's tail) was taken */
	struct lockdep_site to;         /* where the other was then taken */
};

/* A spinlock class's uses for the interrupt check. */
struct irq_use {
	bool in_irq, irqs_on, reported;
	bool chain_reported;            /* as the unsafe end of an interrupt-safe chain */
	struct lockdep_site irq_site, on_site;
};

static struct held_stack stacks[SMP_MAX_CPUS];
static uint16_t edge_ix[NCLS][NCLS];            /* guarded by graph_lock; read racily */
static struct edge edges[LOCKDEP_MAX_EDGES + 1];        /* [0] unused */
static unsigned nedges;                         /* guarded by graph_lock */
static struct irq_use irq_uses[NSPIN];          /* guarded by graph_lock; flags read racily */
static const char *mutex_names[NMUTEX];         /* guarded by graph_lock */
static unsigned nmutex;                         /* guarded by graph_lock */
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

static const char *class_name(unsigned c)
{
	if (c < NSPIN)
		return lockstat_class_name(c);
	c -= NSPIN;
	return c < LOCKDEP_MUTEX_CLASSES && mutex_names[c] ? mutex_names[c] : "(other mutex)";
}

static const char *class_kind(unsigned c) { return c < NSPIN ? "spinlock" : "mutex"; }

/* ------------------------------------------------------------ sites */

/* Interrupts off.  The callers above the site's function, while the
 * frame pointers stay inside this thread's kernel stack: another stack,
 * a hand-written frame or the top of the stack ends the walk.
 * skip: the frames between here and the site's function (ours and
 * lockdep_acquire's for an inlined spin_lock; mutex_lock's as well). */
static __attribute__((noinline)) void take_site(struct lockdep_site *s, uint64_t at, int skip)
{
	memset(s, 0, sizeof *s);
	s->at = at;
	uint64_t top = this_cpu()->kernel_rsp;
	uint64_t rbp = (uint64_t)__builtin_frame_address(0);
	/* Not on the thread's stack (an IST stack: NMI, double fault): the
	 * frames above could cross a guard page.  Every kernel stack is at
	 * least KSTACK_SIZE (the boot CPU's is larger: deeper frames there
	 * just go unnamed). */
	if (rbp >= top || top - rbp > KSTACK_SIZE)
		return;
	for (; skip > 0; skip--) {
		uint64_t next = rbp < top && rbp + 16 <= top ? ((uint64_t *)rbp)[0] : 0;
		if (!next || next <= rbp || (next & 7) || next + 16 > top)
			return;
		rbp = next;
	}
	for (unsigned i = 0; i < LOCKDEP_FRAMES; i++) {
		uint64_t next = ((uint64_t *)rbp)[0], ret = ((uint64_t *)rbp)[1];
		if (!ret)
			return;
		s->up[i] = ret;
		if (!next || next <= rbp || (next & 7) || next + 16 > top)
			return;
		rbp = next;
	}
}

static const char *addr_name(uint64_t addr, char *buf, unsigned len)
{
	uint64_t off;
	const char *s = addr ? ksym_lookup(addr, &off) : NULL;
	if (s)
		ksnprintf(buf, len, "%s+0x%lx", s, off);
	else
		ksnprintf(buf, len, "0x%lx", addr);
	return buf;
}

/* "f+0x1 (from g+0x2 <- h+0x3)": the site, then its callers (a return
 * address names the instruction after the call: shown as is). */
static const char *site_text(const struct lockdep_site *s, char *buf, unsigned len)
{
	char a[64];
	unsigned n = (unsigned)ksnprintf(buf, len, "%s", addr_name(s->at, a, sizeof a));
	for (unsigned i = 0; i < LOCKDEP_FRAMES && s->up[i] && n < len; i++)
		n += (unsigned)ksnprintf(buf + n, len - n, "%s%s", i ? " <- " : " (from ",
					 addr_name(s->up[i], a, sizeof a));
	if (s->up[0] && n < len)
		ksnprintf(buf + n, len - n, ")");
	return buf;
}

static void json_site(struct json *j, const char *at_key, const char *stack_key, const struct lockdep_site *s)
{
	char a[64];
	json_str(j, at_key, addr_name(s->at, a, sizeof a));
	json_arr_begin(j, stack_key);
	for (unsigned i = 0; i < LOCKDEP_FRAMES && s->up[i]; i++)
		json_str(j, NULL, addr_name(s->up[i], a, sizeof a));
	json_arr_end(j);
}

/* ------------------------------------------------------------ reports */

/* path[0..n): classes from the new edge's head back to its tail through
 * recorded edges (path[0] = to, path[n-1] = from). */
struct cycle {
	unsigned cls[NCLS];
	unsigned n;
};

static void print_edge(struct json *j, unsigned a, unsigned b, const struct lockdep_site *sa,
		       const struct lockdep_site *sb, bool now)
{
	static char x[256], y[256];     /* one report at a time: checking is off */
	site_text(sa, x, sizeof x);
	site_text(sb, y, sizeof y);
	kprintf("lockdep:   %s '%s' held (taken at %s), then %s '%s' taken at %s%s\n", class_kind(a),
		class_name(a), x, class_kind(b), class_name(b), y, now ? " <- now" : " (recorded earlier)");
	json_obj_begin(j, NULL);
	json_str(j, "held", class_name(a));
	json_str(j, "held_kind", class_kind(a));
	json_site(j, "held_at", "held_stack", sa);
	json_str(j, "taken", class_name(b));
	json_str(j, "taken_kind", class_kind(b));
	json_site(j, "taken_at", "taken_stack", sb);
	json_bool(j, "now", now);
	json_obj_end(j);
}

/* The console and record locks come back into lockdep_acquire, which
 * returns at once: checking is off. */
static void report_cycle(unsigned from, unsigned to, const struct lockdep_site *from_site,
			 const struct lockdep_site *to_site, const struct cycle *c)
{
	kprintf("lockdep: lock order inversion: '%s' taken while '%s' is held closes a cycle of %u lock classes;"
		" checking off\n", class_name(to), class_name(from), c->n);
	struct json *j = rec_begin("lockdep");
	json_str(j, "event", "inversion");
	json_arr_begin(j, "cycle");
	print_edge(j, from, to, from_site, to_site, true);
	for (unsigned i = 0; i + 1 < c->n; i++) {
		const struct edge *e = &edges[edge_ix[c->cls[i]][c->cls[i + 1]]];
		print_edge(j, c->cls[i], c->cls[i + 1], &e->from, &e->to, false);
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

/* Interrupt-safety reports go on while checking stays on, so two CPUs
 * may report at once (two classes): one after the other, which also
 * keeps the static text buffers below to one user. */
static volatile uint32_t irq_printing;

static void irq_report_begin(void)
{
	while (__atomic_exchange_n(&irq_printing, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void irq_report_end(void) { __atomic_store_n(&irq_printing, 0, __ATOMIC_RELEASE); }

/* The two sites of an interrupt-safety report, a line each. */
static void print_irq_sites(unsigned safe, const struct irq_use *su, unsigned unsafe, const struct irq_use *uu)
{
	static char x[256];
	kprintf("lockdep:   '%s' taken in an interrupt handler at %s\n", class_name(safe),
		site_text(&su->irq_site, x, sizeof x));
	kprintf("lockdep:   '%s' taken with interrupts enabled at %s\n", class_name(unsafe),
		site_text(&uu->on_site, x, sizeof x));
}

/* u is a copy taken under graph_lock; the class is marked reported, so
 * the console's locks taken from here find nothing new to say. */
static void report_irq(unsigned cls, const struct irq_use *u)
{
	irq_report_begin();
	kprintf("lockdep: interrupt-unsafe lock '%s': taken in an interrupt handler and with interrupts enabled;"
		" an interrupt while it is held deadlocks its CPU\n", class_name(cls));
	print_irq_sites(cls, u, cls, u);
	struct json *j = rec_begin("lockdep");
	json_str(j, "event", "irq-unsafe");
	json_str(j, "class", class_name(cls));
	json_site(j, "irq_at", "irq_stack", &u->irq_site);
	json_site(j, "enabled_at", "enabled_stack", &u->on_site);
	rec_end();
	irq_report_end();
}

/* An interrupt-safe class held, through recorded edges, while a class
 * taken with interrupts enabled is taken: CPU 0 holds `unsafe` with
 * interrupts on, CPU 1 holds `safe` and waits for `unsafe`, and an
 * interrupt on CPU 0 that takes `safe` waits for CPU 1.  path[0] = safe,
 * path[n-1] = unsafe; su and uu are copies taken under graph_lock. */
static void report_irq_chain(const struct cycle *path, const struct irq_use *su, const struct irq_use *uu)
{
	static char chain[256];
	irq_report_begin();
	unsigned safe = path->cls[0], unsafe = path->cls[path->n - 1], n = 0;
	for (unsigned i = 0; i < path->n && n < sizeof chain; i++)
		n += (unsigned)ksnprintf(chain + n, sizeof chain - n, "%s'%s'", i ? " -> " : "",
					 class_name(path->cls[i]));
	kprintf("lockdep: interrupt-safe lock '%s' is held while '%s' is taken (%s), and '%s' is taken with "
		"interrupts enabled: an interrupt taking '%s' while '%s' is held can deadlock two CPUs\n",
		class_name(safe), class_name(unsafe), chain, class_name(unsafe), class_name(safe),
		class_name(unsafe));
	print_irq_sites(safe, su, unsafe, uu);
	struct json *j = rec_begin("lockdep");
	json_str(j, "event", "irq-chain");
	json_str(j, "safe", class_name(safe));
	json_str(j, "unsafe", class_name(unsafe));
	json_arr_begin(j, "path");
	for (unsigned i = 0; i < path->n; i++)
		json_str(j, NULL, class_name(path->cls[i]));
	json_arr_end(j);
	json_site(j, "irq_at", "irq_stack", &su->irq_site);
	json_site(j, "enabled_at", "enabled_stack", &uu->on_site);
	rec_end();
	irq_report_end();
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

/* Breadth first from `start` along edges (forward) or against them, to
 * the nearest spinlock class other than start with irqs_on (forward) or
 * in_irq (backward) whose chain was not reported yet; c gets the path in
 * edge order.  graph_lock held.  Returns false if there is none. */
static bool find_irq_end(unsigned start, bool forward, struct cycle *c)
{
	static uint16_t prev[NCLS];     /* guarded by graph_lock */
	static uint16_t queue[NCLS];
	memset(prev, 0xff, sizeof prev);
	unsigned head = 0, tail = 0, found = NCLS;
	queue[tail++] = (uint16_t)start;
	prev[start] = (uint16_t)start;
	while (head < tail && found == NCLS) {
		unsigned x = queue[head++];
		for (unsigned y = 0; y < NCLS; y++) {
			if (prev[y] != 0xffff || !(forward ? edge_ix[x][y] : edge_ix[y][x]))
				continue;
			prev[y] = (uint16_t)x;
			queue[tail++] = (uint16_t)y;
			if (y < NSPIN && (forward ? irq_uses[y].irqs_on && !irq_uses[y].chain_reported
						  : irq_uses[y].in_irq)) {
				found = y;
				break;
			}
		}
	}
	if (found == NCLS)
		return false;
	unsigned n = 0;
	for (unsigned x = found; ; x = prev[x]) {
		c->cls[n++] = x;
		if (x == start)
			break;
	}
	if (forward)                    /* walked back found .. start: reverse */
		for (unsigned i = 0; i < n / 2; i++) {
			unsigned t = c->cls[i];
			c->cls[i] = c->cls[n - 1 - i];
			c->cls[n - 1 - i] = t;
		}
	c->n = n;
	return true;
}

/* After an edge a -> b or a class's new use: is an interrupt-safe class
 * now ordered before one taken with interrupts enabled?  safe_from: a
 * class known to reach the new edge or use from the safe side, unsafe_from
 * one on the unsafe side (the same class for a new use).  graph_lock held
 * on entry, dropped on return. */
static void check_irq_chain(unsigned safe_from, unsigned unsafe_from)
{
	static struct cycle back, fwd, path;    /* guarded by graph_lock */
	bool found = false;
	struct irq_use su, uu;
	if (safe_from < NSPIN && irq_uses[safe_from].in_irq) {
		back.cls[0] = safe_from;
		back.n = 1;
	} else if (!find_irq_end(safe_from, false, &back)) {
		back.n = 0;             /* else back: an in_irq class .. safe_from */
	}
	if (back.n) {
		if (unsafe_from != back.cls[0] && unsafe_from < NSPIN && irq_uses[unsafe_from].irqs_on &&
		    !irq_uses[unsafe_from].chain_reported) {
			fwd.cls[0] = unsafe_from;
			fwd.n = 1;
			found = true;
		} else {
			found = find_irq_end(unsafe_from, true, &fwd);
		}
	}
	if (found) {
		/* back ends at safe_from, fwd starts at unsafe_from (the same
		 * class for a use, the edge's head for an edge). */
		path.n = 0;
		for (unsigned i = 0; i < back.n; i++)
			path.cls[path.n++] = back.cls[i];
		for (unsigned i = fwd.cls[0] == back.cls[back.n - 1] ? 1 : 0; i < fwd.n; i++)
			path.cls[path.n++] = fwd.cls[i];
		unsigned safe = path.cls[0], unsafe = path.cls[path.n - 1];
		found = safe != unsafe;         /* the same class is report_irq's case */
		if (found) {
			irq_uses[unsafe].chain_reported = true;
			su = irq_uses[safe];
			uu = irq_uses[unsafe];
		}
	}
	graph_drop();
	if (found) {
		__atomic_add_fetch(&reports, 1, __ATOMIC_RELEASE);
		report_irq_chain(&path, &su, &uu);
	}
}

/* Holding class a (taken at sa), class b is being taken at sb. */
static void add_edge(unsigned a, unsigned b, const struct lockdep_site *sa, const struct lockdep_site *sb)
{
	if (a == b || __atomic_load_n(&edge_ix[a][b], __ATOMIC_RELAXED))
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
	edges[++nedges] = (struct edge){ *sa, *sb };
	__atomic_store_n(&edge_ix[a][b], (uint16_t)nedges, __ATOMIC_RELEASE);
	check_irq_chain(a, b);          /* drops graph_lock */
}

/* Spinlock class b taken (not a trylock): in an interrupt handler, or
 * with interrupts enabled (irqs_on), at s. */
static void note_irq_use(unsigned b, bool in_irq, bool irqs_on, const struct lockdep_site *s)
{
	struct irq_use *u = &irq_uses[b];
	if (u->reported || (in_irq ? u->in_irq : !irqs_on || u->irqs_on))
		return;                 /* nothing new: the common case, without graph_lock */
	graph_take();
	if (in_irq && !u->in_irq) {
		u->irq_site = *s;
		u->in_irq = true;
	} else if (!in_irq && irqs_on && !u->irqs_on) {
		u->on_site = *s;
		u->irqs_on = true;
	}
	bool report = u->in_irq && u->irqs_on && !u->reported;
	if (!report) {
		check_irq_chain(b, b);  /* a new use may close a chain; drops graph_lock */
		return;
	}
	u->reported = true;
	struct irq_use mine = *u;
	graph_drop();
	__atomic_add_fetch(&reports, 1, __ATOMIC_RELEASE);
	report_irq(b, &mine);
}

/* ------------------------------------------------------------ hooks */

static struct held_stack *my_stack(void)
{
	uint32_t id = this_cpu()->id;
	return id < SMP_MAX_CPUS ? &stacks[id] : NULL;
}

/* The current thread's held mutexes, or NULL (before the scheduler, or
 * in an interrupt handler: it never waits for the mutexes of the code it
 * interrupted). */
static struct lockdep_thread *my_mutexes(void)
{
	struct cpu *c = this_cpu();
	return c->irq_depth || !c->current ? NULL : &c->current->lockdep;
}

/* Edges from every lock held here to class b, taken at s. */
static void add_edges_to(unsigned b, const struct lockdep_site *s, const struct held_stack *hs,
			 const struct lockdep_thread *ht)
{
	for (unsigned i = 0; hs && i < hs->n && checking; i++)
		add_edge(hs->h[i].cls, b, &hs->h[i].site, s);
	for (unsigned i = 0; ht && i < ht->n && checking; i++)
		add_edge(ht->cls[i], b, &ht->site[i], s);
}

void lockdep_acquire(struct spinlock *l, uint64_t site, bool trylock)
{
	if (!checking)
		return;
	bool on = irq_save();
	struct held_stack *s = my_stack();
	if (!s)
		goto out;
	struct lockdep_site at;
	take_site(&at, site, 2);
	unsigned b = lockstat_class_index(l);
	if (!trylock) {
		add_edges_to(b, &at, s, my_mutexes());
		note_irq_use(b, this_cpu()->irq_depth > 0, on, &at);
	}
	if (s->n == LOCKDEP_DEPTH) {
		if (stop_checking()) {
			irq_restore(on);
			report_full("locks held on one CPU", LOCKDEP_DEPTH);
			return;
		}
		goto out;
	}
	s->h[s->n++] = (struct held){ l, b, at };
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

/* A sleeping lock's class (mutexes and rwsems share the name space),
 * found by name once and kept in the lock (*cache: class + 1). */
static unsigned sleep_class(const char *name, uint16_t *cache)
{
	unsigned c = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
	if (c)
		return c - 1;
	if (!name)
		name = "(unnamed)";
	graph_take();
	unsigned i = 0;
	while (i < nmutex && mutex_names[i] != name && strcmp(mutex_names[i], name))
		i++;
	if (i == nmutex && nmutex < LOCKDEP_MUTEX_CLASSES)
		mutex_names[nmutex++] = name;
	graph_drop();
	c = NSPIN + (i < LOCKDEP_MUTEX_CLASSES ? i : LOCKDEP_MUTEX_CLASSES);
	__atomic_store_n(cache, (uint16_t)(c + 1), __ATOMIC_RELEASE);
	return c;
}

/* The very lock (not just its class) taken again by the thread that
 * holds it: a mutex deadlocks at once, an rwsem read twice deadlocks as
 * soon as a writer waits between the two (writers go first). */
static void report_recursion(unsigned cls, const struct lockdep_site *first, const struct lockdep_site *again)
{
	static char x[256], y[256];     /* one report at a time: checking is off */
	kprintf("lockdep: recursive acquisition: sleeping lock '%s' taken again by the thread that holds it "
		"(held since %s, again at %s); checking off\n", class_name(cls), site_text(first, x, sizeof x),
		site_text(again, y, sizeof y));
	struct json *j = rec_begin("lockdep");
	json_str(j, "event", "recursion");
	json_str(j, "class", class_name(cls));
	json_site(j, "held_at", "held_stack", first);
	json_site(j, "again_at", "again_stack", again);
	rec_end();
}

/* Inlined into both callers so that take_site's skip (3: take_site,
 * lockdep_*_acquire, mutex_lock or down_read...) names the lock's caller. */
static inline __attribute__((always_inline)) void sleep_acquire(const void *lock, const char *name,
								  uint16_t *cache, uint64_t site, bool trylock)
{
	if (!checking)
		return;
	bool on = irq_save();
	struct lockdep_thread *t = my_mutexes();
	if (!t)
		goto out;
	struct lockdep_site at;
	take_site(&at, site, 3);
	unsigned b = sleep_class(name, cache);
	for (unsigned i = 0; i < t->n && !trylock; i++) {
		if (t->lock[i] != lock)
			continue;
		if (stop_checking()) {
			__atomic_add_fetch(&reports, 1, __ATOMIC_RELEASE);
			irq_restore(on);
			report_recursion(b, &t->site[i], &at);
			return;
		}
		goto out;
	}
	if (!trylock)
		add_edges_to(b, &at, my_stack(), t);
	if (t->n == LOCKDEP_MUTEX_DEPTH) {
		if (stop_checking()) {
			irq_restore(on);
			report_full("mutexes held by one thread", LOCKDEP_MUTEX_DEPTH);
			return;
		}
		goto out;
	}
	t->lock[t->n] = lock;
	t->cls[t->n] = (uint16_t)b;
	t->site[t->n] = at;
	t->n++;
out:
	irq_restore(on);
}

void lockdep_mutex_acquire(struct mutex *m, uint64_t site, bool trylock)
{
	sleep_acquire(m, m->name, &m->lockdep_cls, site, trylock);
}

void lockdep_rwsem_acquire(struct rwsem *s, uint64_t site, bool trylock)
{
	sleep_acquire(s, s->name, &s->lockdep_cls, site, trylock);
}

void lockdep_sleep_release(const void *lock)
{
	bool on = irq_save();
	struct lockdep_thread *t = my_mutexes();
	for (unsigned i = t ? t->n : 0; i-- > 0;) {
		if (t->lock[i] != lock)
			continue;
		unsigned k = t->n - i - 1;
		memmove(&t->lock[i], &t->lock[i + 1], k * sizeof t->lock[0]);
		memmove(&t->cls[i], &t->cls[i + 1], k * sizeof t->cls[0]);
		memmove(&t->site[i], &t->site[i + 1], k * sizeof t->site[0]);
		t->n--;
		break;
	}
	irq_restore(on);
}

#endif
