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

static struct lock_class classes[LOCKSTAT_MAX_CLASSES];
static struct lock_class other = { .name = "(other)" };
static unsigned nclasses;
static volatile uint32_t table_lock;

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
	__atomic_add_fetch(&c->acquired, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->hold_cycles, hold, __ATOMIC_RELAXED);
	unsigned over = irqtrace_long(hold);
	if (over) {
		__atomic_add_fetch(&c->over_100us, 1, __ATOMIC_RELAXED);
		if (over == 2)
			__atomic_add_fetch(&c->over_1ms, 1, __ATOMIC_RELAXED);
	}
	max_update(&c->max_hold_cycles, &c->max_hold_site, hold, l->owner);
}

void lockstat_contended(struct spinlock *l, uint64_t wait)
{
	struct lock_class *c = class_of(l);
	__atomic_add_fetch(&c->contended, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->wait_cycles, wait, __ATOMIC_RELAXED);
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
	struct lock_class *c = sleep_class(cls, name);
	__atomic_add_fetch(&c->acquired, 1, __ATOMIC_RELAXED);
	if (contended) {
		__atomic_add_fetch(&c->contended, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&c->wait_cycles, wait, __ATOMIC_RELAXED);
	}
}

void lockstat_sleep_hold(struct lock_class **cls, const char *name, uint64_t hold, uint64_t site)
{
	struct lock_class *c = sleep_class(cls, name);
	__atomic_add_fetch(&c->hold_cycles, hold, __ATOMIC_RELAXED);
	max_update(&c->max_hold_cycles, &c->max_hold_site, hold, site);
}

void lockstat_reset(void)
{
	unsigned n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i <= n; i++) {
		struct lock_class *c = i < n ? &classes[i] : &other;
		bool on = irq_save();
		const char *name = c->name;
		bool sleeps = c->sleeps;
		memset(c, 0, sizeof *c);
		c->name = name;
		c->sleeps = sleeps;
		irq_restore(on);
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

void lockstat_json(struct json *j, const char *key, unsigned top)
{
	/* Copies first: the figures go on changing while the record is built
	 * (and building it takes locks of its own). */
	static struct lock_class snap[LOCKSTAT_MAX_CLASSES + 1];
	unsigned n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE);
	bool on = irq_save();
	memcpy(snap, classes, n * sizeof *snap);
	struct irqtrace it;
	irqtrace_total(&it);
	irq_restore(on);
	if (other.acquired)
		snap[n++] = other;
	/* Longest hold first (insertion sort: under a hundred classes). */
	for (unsigned i = 1; i < n; i++) {
		struct lock_class c = snap[i];
		unsigned k = i;
		for (; k > 0 && snap[k - 1].max_hold_cycles < c.max_hold_cycles; k--)
			snap[k] = snap[k - 1];
		snap[k] = c;
	}
	json_obj_begin(j, key);
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
		if (!c->acquired)
			continue;
		shown++;
		json_obj_begin(j, NULL);
		json_str(j, "name", c->name);
		json_u64(j, "acquired", c->acquired);
		json_u64(j, "contended", c->contended);
		json_u64(j, "wait_ns", ns(c->wait_cycles));
		json_u64(j, "hold_ns", ns(c->hold_cycles));
		json_u64(j, "max_hold_ns", ns(c->max_hold_cycles));
		json_site(j, "max_hold_at", c->max_hold_site);
		json_u64(j, "over_100us", c->over_100us);
		json_u64(j, "over_1ms", c->over_1ms);
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
