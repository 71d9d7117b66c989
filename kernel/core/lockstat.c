/*
 * Lock classes and the "locks" record (lockstat.h).
 *
 * The class table is filled on demand, by name pointer (a lock's name is
 * a string literal, so every page-table lock shares one pointer per call
 * site's literal; equal names at different sites are merged by strcmp).
 * Counters are atomics: a class is shared by many lock objects, taken in
 * thread and interrupt context.  Finding a class takes table_lock, a raw
 * flag with interrupts off (not a spinlock: it would time itself).
 */
#include <string.h>
#include "lockstat.h"
#include "spinlock.h"
#include "record.h"
#include "ksyms.h"
#include "time.h"
#include "lib/json.h"
#include "lib/timemath.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/irqtrace.h"
#include "console.h"
#include "mem/kmalloc.h"

static struct lock_class classes[LOCKSTAT_MAX_CLASSES];
static struct lock_class other = { .name = "(other)", .row = LOCKSTAT_MAX_CLASSES };
static unsigned nclasses;
static volatile uint32_t table_lock;

/* Per-CPU tables by CPU id, each LOCKSTAT_MAX_CLASSES + 1 rows (the last
 * "(other)"); NULL: that CPU counts in the shared one. */
#define ROWS (LOCKSTAT_MAX_CLASSES + 1)
static struct lock_counts boot_table[ROWS];
static struct lock_counts *tables[IRQTRACE_CPUS] = { boot_table };

void lockstat_cpus(unsigned ncpus)
{
	unsigned missed = 0;
	for (unsigned id = 1; id < ncpus && id < IRQTRACE_CPUS; id++)
		if (!tables[id]) {
			struct lock_counts *t = kzalloc(ROWS * sizeof *t);
			missed += !t;
			__atomic_store_n(&tables[id], t, __ATOMIC_RELEASE);
		}
	if (missed)
		kprintf("lockstat: no memory for %u CPUs' lock tables; they count in the shared one\n", missed);
}

/* This CPU's table, or NULL.  Preemption is off at every caller. */
static inline struct lock_counts *table_here(void)
{
	uint32_t id = 0;
	if (irqtrace_gs_ready)
		__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(IRQTRACE_CPU_ID_OFFSET));
	return __atomic_load_n(&tables[id % IRQTRACE_CPUS], __ATOMIC_RELAXED);     /* ids are < IRQTRACE_CPUS */
}

/* One instruction without a lock prefix: whole against an interrupt on
 * this CPU, which is the only other writer of its table. */
static inline void cpu_add(uint64_t *p, uint64_t v)
{
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(v) : "cc");
}

static inline void cpu_max(uint64_t *max, uint64_t *site, uint64_t v, uint64_t at)
{
	uint64_t cur = *(volatile uint64_t *)max;
	while (v > cur) {
		uint64_t prev;
		__asm__ volatile("cmpxchgq %2, %1" : "=a"(prev), "+m"(*max) : "r"(v), "0"(cur) : "cc", "memory");
		if (prev == cur) {
			*site = at;
			return;
		}
		cur = prev;
	}
}

static struct lock_class *find_class(const char *name)
{
	if (!name)
		name = "(unnamed)";
	bool on = irq_save();
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	struct lock_class *c = NULL;
	for (unsigned i = 0; i < nclasses && !c; i++)
		if (classes[i].name == name || !strcmp(classes[i].name, name))
			c = &classes[i];
	if (!c && nclasses < LOCKSTAT_MAX_CLASSES) {
		c = &classes[nclasses];
		c->name = name;
		c->row = nclasses;
		__atomic_store_n(&nclasses, nclasses + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
	irq_restore(on);
	return c ? c : &other;
}

static struct lock_class *class_of(struct spinlock *l)
{
	struct lock_class *c = __atomic_load_n(&l->cls, __ATOMIC_ACQUIRE);
	if (!c) {
		c = find_class(l->name);
		__atomic_store_n(&l->cls, c, __ATOMIC_RELEASE);
	}
	return c;
}

unsigned lockstat_class_index(struct spinlock *l)
{
	struct lock_class *c = class_of(l);
	return c == &other ? LOCKSTAT_MAX_CLASSES : (unsigned)(c - classes);
}

const char *lockstat_class_name(unsigned idx)
{
	return idx < LOCKSTAT_MAX_CLASSES ? classes[idx].name : other.name;
}

static void max_update(uint64_t *max, uint64_t *site, uint64_t v, uint64_t at)
{
	uint64_t cur = __atomic_load_n(max, __ATOMIC_RELAXED);
	while (v > cur) {
		if (__atomic_compare_exchange_n(max, &cur, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			*site = at;     /* may pair with a racing max: a report, not a proof */
			return;
		}
	}
}

void lockstat_release(struct spinlock *l, uint64_t hold)
{
	struct lock_class *c = class_of(l);
	struct lock_counts *t = table_here();
	unsigned over = irqtrace_long(hold);
	if (t) {
		t += c->row;
		cpu_add(&t->acquired, 1);
		cpu_add(&t->hold_cycles, hold);
		if (over) {
			cpu_add(&t->over_100us, 1);
			if (over == 2)
				cpu_add(&t->over_1ms, 1);
		}
		cpu_max(&t->max_hold_cycles, &t->max_hold_site, hold, l->owner);
		return;
	}
	__atomic_add_fetch(&c->n.acquired, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->n.hold_cycles, hold, __ATOMIC_RELAXED);
	if (over) {
		__atomic_add_fetch(&c->n.over_100us, 1, __ATOMIC_RELAXED);
		if (over == 2)
			__atomic_add_fetch(&c->n.over_1ms, 1, __ATOMIC_RELAXED);
	}
	max_update(&c->n.max_hold_cycles, &c->n.max_hold_site, hold, l->owner);
}

void lockstat_contended(struct spinlock *l, uint64_t wait)
{
	struct lock_class *c = class_of(l);
	struct lock_counts *t = table_here();
	if (t) {
		t += c->row;
		cpu_add(&t->contended, 1);
		cpu_add(&t->wait_cycles, wait);
		return;
	}
	__atomic_add_fetch(&c->n.contended, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->n.wait_cycles, wait, __ATOMIC_RELAXED);
}

static struct lock_class *sleep_class(struct lock_class **cls, const char *name)
{
	struct lock_class *c = __atomic_load_n(cls, __ATOMIC_ACQUIRE);
	if (!c) {
		c = find_class(name);
		c->sleeps = true;
		__atomic_store_n(cls, c, __ATOMIC_RELEASE);
	}
	return c;
}

void lockstat_sleep_acquired(struct lock_class **cls, const char *name, bool contended, uint64_t wait)
{
	if (!irqtrace_timing)
		return;
	struct lock_class *c = sleep_class(cls, name);
	__atomic_add_fetch(&c->n.acquired, 1, __ATOMIC_RELAXED);
	if (contended) {
		__atomic_add_fetch(&c->n.contended, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&c->n.wait_cycles, wait, __ATOMIC_RELAXED);
	}
}

void lockstat_sleep_hold(struct lock_class **cls, const char *name, uint64_t hold, uint64_t site)
{
	if (!irqtrace_timing)
		return;
	struct lock_class *c = sleep_class(cls, name);
	__atomic_add_fetch(&c->n.hold_cycles, hold, __ATOMIC_RELAXED);
	max_update(&c->n.max_hold_cycles, &c->n.max_hold_site, hold, site);
}

void lockstat_reset(void)
{
	unsigned n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i <= n; i++) {
		struct lock_class *c = i < n ? &classes[i] : &other;
		bool on = irq_save();
		memset(&c->n, 0, sizeof c->n);
		irq_restore(on);
	}
	/* Another CPU may be adding meanwhile: its figure lands in the
	 * window just begun, as a shared counter's would. */
	for (unsigned id = 0; id < IRQTRACE_CPUS; id++) {
		struct lock_counts *t = __atomic_load_n(&tables[id], __ATOMIC_ACQUIRE);
		if (t) {
			bool on = irq_save();
			memset(t, 0, ROWS * sizeof *t);
			irq_restore(on);
		}
	}
	bool on = irq_save();
	irqtrace_reset();
	irq_restore(on);
}

static uint64_t ns(uint64_t cycles)
{
	uint64_t hz = time_tsc_hz();
	return hz ? ticks_to_ns(cycles, hz) : 0;
}

static void json_site(struct json *j, const char *key, uint64_t addr)
{
	uint64_t off;
	const char *s = addr ? ksym_lookup(addr, &off) : NULL;
	if (s)
		json_str(j, key, s);
	else
		json_hex(j, key, addr);
}

/* s += t: sums, and the longer of the two longest holds with its site. */
static void counts_add(struct lock_counts *s, const struct lock_counts *t)
{
	s->acquired += t->acquired;
	s->contended += t->contended;
	s->wait_cycles += t->wait_cycles;
	s->hold_cycles += t->hold_cycles;
	s->over_100us += t->over_100us;
	s->over_1ms += t->over_1ms;
	if (t->max_hold_cycles > s->max_hold_cycles) {
		s->max_hold_cycles = t->max_hold_cycles;
		s->max_hold_site = t->max_hold_site;
	}
}

/* s += every CPU's table's row. */
static void add_cpu_tables(struct lock_counts *s, unsigned row)
{
	for (unsigned id = 0; id < IRQTRACE_CPUS; id++) {
		const struct lock_counts *t = __atomic_load_n(&tables[id], __ATOMIC_ACQUIRE);
		if (t)
			counts_add(s, &t[row]);
	}
}

bool lockstat_counts_of(const char *name, struct lock_counts *out)
{
	unsigned n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE), i = 0;
	while (i < n && strcmp(classes[i].name, name))
		i++;
	if (i == n)
		return false;
	*out = classes[i].n;
	add_cpu_tables(out, classes[i].row);
	return true;
}

void lockstat_json(struct json *j, const char *key, unsigned top)
{
	/* Copies first: the figures go on changing while the record is built
	 * (and building it takes locks of its own). */
	static struct lock_class snap[LOCKSTAT_MAX_CLASSES + 1];
	unsigned n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE);
	bool on = irq_save();
	memcpy(snap, classes, n * sizeof *snap);
	snap[n] = other;
	struct irqtrace it;
	irqtrace_total(&it);
	irq_restore(on);
	/* The CPUs' tables with interrupts on: 256 of them take a while. */
	for (unsigned i = 0; i <= n; i++)
		add_cpu_tables(&snap[i].n, snap[i].row);
	if (snap[n].n.acquired)
		n++;
	/* Longest hold first (insertion sort: under a hundred classes). */
	for (unsigned i = 1; i < n; i++) {
		struct lock_class c = snap[i];
		unsigned k = i;
		for (; k > 0 && snap[k - 1].n.max_hold_cycles < c.n.max_hold_cycles; k--)
			snap[k] = snap[k - 1];
		snap[k] = c;
	}
	json_obj_begin(j, key);
	json_bool(j, "timing", irqtrace_timing);        /* lockstat=off: nothing below was counted */
	json_obj_begin(j, "irqoff");
	json_u64(j, "sections", it.sections);
	json_u64(j, "max_ns", ns(it.max_cycles));
	json_site(j, "max_from", it.max_from);
	json_site(j, "max_to", it.max_to);
	json_u64(j, "over_100us", it.over_100us);
	json_u64(j, "over_1ms", it.over_1ms);
	json_obj_end(j);
	json_arr_begin(j, "classes");
	unsigned shown = 0;
	for (unsigned i = 0; i < n && (!top || shown < top); i++) {
		const struct lock_class *c = &snap[i];
		if (!c->n.acquired)
			continue;
		shown++;
		json_obj_begin(j, NULL);
		json_str(j, "name", c->name);
		json_u64(j, "acquired", c->n.acquired);
		json_u64(j, "contended", c->n.contended);
		json_u64(j, "wait_ns", ns(c->n.wait_cycles));
		json_u64(j, "hold_ns", ns(c->n.hold_cycles));
		json_u64(j, "max_hold_ns", ns(c->n.max_hold_cycles));
		json_site(j, "max_hold_at", c->n.max_hold_site);
		json_u64(j, "over_100us", c->n.over_100us);
		json_u64(j, "over_1ms", c->n.over_1ms);
		json_bool(j, "sleeps", c->sleeps);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void lockstat_halt_report(void)
{
	struct json *j = rec_begin("locks");
	lockstat_json(j, "since_reset", 0);
	rec_end();
}
