/*
 * The sampling profiler (kprof.h).
 *
 * Counters are relaxed atomics: every CPU's tick adds to them, and a
 * reset between ticks may lose a sample or two, which a profile can
 * afford.  The frame-pointer walk stays inside the interrupted thread's
 * own kernel stack (a boot stack, whose size is not recorded, gives the
 * leaf function only), so a corrupt frame ends the walk, never faults.
 */
#include <string.h>
#include "kprof.h"
#include "ksyms.h"
#include "console.h"
#include "record.h"
#include "sched.h"
#include "time.h"
#include "lib/json.h"
#include "mem/kmalloc.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/nmiclock.h"
#include "arch/x86_64/x86.h"

#define KPROF_DEPTH 32          /* frames walked per sample */
/* Functions per list in a record: enough that a --vs comparison of two
 * runs finds most functions that matter in both (at 40, a function in
 * one run's list was often just below the other's, and counted 0 there).
 * A swapping touch's record is 6.7 KiB; 200 entries of the longest names
 * (46 characters with a [file]) would be 13 KiB of the 16 (REC_MAX). */
#define KPROF_TOP 100

/* Caller-callee edges: how many samples had `to` called from `from` on
 * the stack (each edge once per sample), in an open-addressed table
 * updated without a lock from every CPU's NMI: a slot is a 64-bit word,
 * (from + 1) << 48 | (to + 1) << 32 | count, claimed by compare-and-swap.
 * An edge that finds no slot within KPROF_PROBE of its hash is counted in
 * edges_lost.  A swapping touch's window has a few hundred edges. */
#define KPROF_EDGES 4096
#define KPROF_PROBE 32
#define KPROF_EDGES_TOP 200     /* edges per record: about 11 KiB (fewer if the names are long: edges_record) */

static struct {
	bool on;
	bool nmi;                       /* sampled by the NMI clock, not the tick */
	uint32_t *self, *total;         /* [ksyms_count] */
	uint64_t *edge;                 /* [KPROF_EDGES], or NULL: no edges (see kprof_init) */
	uint64_t edges_lost;
	uint64_t samples, user, task, kthread, irq, idle, unknown;
	uint64_t window_ns, window_fired;       /* when the window began; the clock's count then */
} kp;

static void sample(const struct trap_frame *f, int own_depth);

static void nmi_sample(const struct trap_frame *f) { sample(f, 0); }

/* The NMI clock, if its NMIs arrive within NMI_WAIT_MS of starting it. */
#define NMI_WAIT_MS 50
static bool start_nmi_clock(unsigned hz)
{
	/* The sampler first: the clock's first NMI may come at once. */
	trap_set_nmi_sampler(nmi_sample);
	if (!nmiclock_start(hz)) {
		trap_set_nmi_sampler(NULL);
		return false;
	}
	uint64_t end = time_ns() + NMI_WAIT_MS * 1000000ull;
	while (!nmiclock_fired() && time_ns() < end)
		cpu_relax();
	if (nmiclock_fired())
		return true;
	nmiclock_stop();
	trap_set_nmi_sampler(NULL);
	return false;
}

bool kprof_init(unsigned hz)
{
	kp.self = kzalloc((size_t)ksyms_count * sizeof *kp.self);
	kp.total = kzalloc((size_t)ksyms_count * sizeof *kp.total);
	if (!ksyms_count || !kp.self || !kp.total) {
		kprintf("prof: %s; prof=on ignored\n", ksyms_count ? "no memory for the counters" : "no symbol table");
		kfree(kp.self);
		kfree(kp.total);
		kp.self = kp.total = NULL;
		return false;
	}
	/* Edges name their ends in 16 bits each; without the table (no
	 * memory, or more symbols than that) the rest still works. */
	if (ksyms_count < 0xffff)
		kp.edge = kzalloc(KPROF_EDGES * sizeof *kp.edge);
	if (!kp.edge)
		kprintf("prof: no caller-callee edges (%s)\n", ksyms_count < 0xffff ? "no memory" : "too many symbols");
	kp.nmi = start_nmi_clock(hz);
	if (!kp.nmi)
		kprintf("prof: no NMI from the PIT; sampling at the tick (time with interrupts off is counted where they come back on)\n");
	kp.window_ns = time_ns();
	kp.window_fired = nmiclock_fired();
	kp.on = true;
	return true;
}

static void add(uint64_t *c) { __atomic_add_fetch(c, 1, __ATOMIC_RELAXED); }

static void edge_add(int64_t from, int64_t to)
{
	uint64_t key = (uint64_t)(from + 1) << 48 | (uint64_t)(to + 1) << 32;
	uint32_t h = (uint32_t)(((uint64_t)from * 0x9e3779b1u) ^ (uint64_t)to) % KPROF_EDGES;
	for (uint32_t i = 0; i < KPROF_PROBE; i++) {
		uint64_t *slot = &kp.edge[(h + i) % KPROF_EDGES];
		uint64_t v = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (!v && __atomic_compare_exchange_n(slot, &v, key | 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
		/* v: the slot's word now (set by another CPU if the swap lost) */
		if ((v & ~0xffffffffull) == key) {
			__atomic_add_fetch(slot, 1, __ATOMIC_RELAXED);  /* 2^32 samples: 49 days at 1000 Hz */
			return;
		}
	}
	add(&kp.edges_lost);
}

/* The edge from `from` to `to` of one sample, unless the sample had it
 * already (recursion): edges[] holds the sample's edges so far. */
static void edge_once(uint64_t *edges, int *n, int64_t from, int64_t to)
{
	if (!kp.edge || from == to)
		return;
	uint64_t e = (uint64_t)from << 32 | (uint64_t)to;
	for (int i = 0; i < *n; i++)
		if (edges[i] == e)
			return;
	edges[(*n)++] = e;
	edge_add(from, to);
}

void kprof_tick(const struct trap_frame *f)
{
	if (!kp.nmi)
		sample(f, 1);
}

/* The return address into the caller of a function caught without its
 * own frame, which the frame-pointer walk (from rbp, the caller's frame
 * then) would skip: a leaf GCC left without one (time_ns), a function
 * in its first two instructions (push rbp; mov rsp, rbp) or at its ret.
 * Only where the stack slot is on the thread's stack and holds an
 * address just after a direct call; else 0. */
static uint64_t frameless_caller(const struct trap_frame *f, uint64_t start, uint64_t lo, uint64_t hi)
{
	static const uint8_t prologue[4] = { 0x55, 0x48, 0x89, 0xe5 };
	const uint8_t *code = (const uint8_t *)start;
	uint64_t at = f->rsp;
	if (*(const uint8_t *)f->rip == 0xc3)
		;                               /* ret: the frame is gone */
	else if (!memcmp(code, prologue, sizeof prologue)) {
		if (f->rip - start >= sizeof prologue)
			return 0;               /* the frame is set up */
		if (f->rip != start)
			at += 8;                /* rbp pushed */
	}
	if ((at & 7) || at < lo || at + 8 > hi)
		return 0;
	uint64_t ret = *(const uint64_t *)at;
	if (ksym_index(ret - 1) < 0 || ksym_index(ret - 5) < 0 || *(const uint8_t *)(ret - 5) != 0xe8)
		return 0;
	return ret;
}

/* own_depth: the interrupt levels the sampler itself adds (the tick's
 * handler 1; an NMI 0: it does not count as one). */
static void sample(const struct trap_frame *f, int own_depth)
{
	if (!kp.on)
		return;
	add(&kp.samples);
	if ((f->cs & 3) == 3) {
		add(&kp.user);
		return;
	}
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	if (c->irq_depth > own_depth)
		add(&kp.irq);           /* only an NMI lands inside a handler */
	else if (t == c->idle) {
		add(&kp.idle);
		return;
	} else
		add(t && t->task ? &kp.task : &kp.kthread);
	int64_t leaf = ksym_index(f->rip);
	if (leaf < 0) {
		add(&kp.unknown);
		return;
	}
	__atomic_add_fetch(&kp.self[leaf], 1, __ATOMIC_RELAXED);
	int64_t seen[KPROF_DEPTH];
	uint64_t edges[KPROF_DEPTH + 1];        /* the frameless caller's, then one per frame walked */
	int n = 0, ne = 0, walked = 0;
	seen[n++] = leaf;
	__atomic_add_fetch(&kp.total[leaf], 1, __ATOMIC_RELAXED);
	int64_t callee = leaf;          /* the frame below the next one found */
	uint64_t lo = t && t->stack_size ? t->stack_top - t->stack_size : 0, hi = lo ? t->stack_top : 0;
	uint64_t caller = frameless_caller(f, ksyms_table[leaf].addr, lo, hi);
	int64_t cs = caller ? ksym_index(caller - 1) : -1;
	if (cs >= 0 && cs != leaf) {
		seen[n++] = cs;
		__atomic_add_fetch(&kp.total[cs], 1, __ATOMIC_RELAXED);
		edge_once(edges, &ne, cs, leaf);
		callee = cs;
	}
	uint64_t rbp = f->rbp;
	while (walked++ < KPROF_DEPTH && !(rbp & 7) && rbp >= lo && rbp + 16 <= hi) {
		uint64_t next = ((uint64_t *)rbp)[0], ret = ((uint64_t *)rbp)[1];
		int64_t s = ret ? ksym_index(ret - 1) : -1;
		if (s < 0)
			break;
		edge_once(edges, &ne, s, callee);
		callee = s;
		bool dup = false;
		for (int i = 0; i < n && !dup; i++)
			dup = seen[i] == s;
		if (!dup && n < KPROF_DEPTH) {
			seen[n++] = s;
			__atomic_add_fetch(&kp.total[s], 1, __ATOMIC_RELAXED);
		}
		if (next <= rbp)
			break;          /* a caller's frame is higher up the stack */
		rbp = next;
	}
}

void kprof_reset(void)
{
	if (!kp.on)
		return;
	for (uint32_t i = 0; i < ksyms_count; i++) {
		__atomic_store_n(&kp.self[i], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&kp.total[i], 0, __ATOMIC_RELAXED);
	}
	for (uint32_t i = 0; kp.edge && i < KPROF_EDGES; i++)
		__atomic_store_n(&kp.edge[i], 0, __ATOMIC_RELAXED);
	uint64_t *c[] = { &kp.samples, &kp.user, &kp.task, &kp.kthread, &kp.irq, &kp.idle, &kp.unknown,
			  &kp.edges_lost };
	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++)
		__atomic_store_n(c[i], 0, __ATOMIC_RELAXED);
	kp.window_ns = time_ns();
	kp.window_fired = nmiclock_fired();
}

/* Keep word among the max largest of top[0..*n), largest first, by the
 * count in its low 32 bits (ties: the one kept first stays first); a
 * count that does not make the list, or is pushed off its end, raises
 * *cut to it. */
static void keep_largest(uint64_t *top, uint32_t *n, uint32_t max, uint64_t word, uint32_t *cut)
{
	uint32_t c = (uint32_t)word;
	if (*n == max && c <= (uint32_t)top[*n - 1]) {
		if (c > *cut)
			*cut = c;
		return;
	}
	if (*n == max && (uint32_t)top[*n - 1] > *cut)
		*cut = (uint32_t)top[*n - 1];   /* pushed off the end */
	uint32_t at = *n < max ? (*n)++ : max - 1;
	while (at > 0 && (uint32_t)top[at - 1] < c) {
		top[at] = top[at - 1];
		at--;
	}
	top[at] = word;
}

/* The KPROF_TOP largest counts, largest first (ties: lower address), as
 * key; and key_cut: the largest count left off (0: none was), so a
 * function missing from the list is known to have had at most that. */
static void top_list(struct json *j, const char *key, const char *cut_key, const uint32_t *cnt)
{
	uint64_t top[KPROF_TOP];        /* symbol index << 32 | count */
	uint32_t n = 0, cut = 0;
	for (uint32_t i = 0; i < ksyms_count; i++) {
		uint32_t v = __atomic_load_n(&cnt[i], __ATOMIC_RELAXED);
		if (v)
			keep_largest(top, &n, KPROF_TOP, (uint64_t)i << 32 | v, &cut);
	}
	json_arr_begin(j, key);
	for (uint32_t k = 0; k < n; k++) {
		json_obj_begin(j, NULL);
		json_str(j, "fn", &ksyms_names[ksyms_table[top[k] >> 32].name]);
		json_u64(j, "n", (uint32_t)top[k]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_u64(j, cut_key, cut);
}

/* A "prof_edges" record beside the "prof" one: the KPROF_EDGES_TOP
 * largest caller-callee counts, largest first; edges_cut: the largest
 * left off (0: none was); edges_lost: edges that found no slot. */
static void edges_record(const char *label)
{
	if (!kp.edge)
		return;
	uint64_t top[KPROF_EDGES_TOP];
	uint32_t n = 0, cut = 0;
	for (uint32_t i = 0; i < KPROF_EDGES; i++) {
		uint64_t v = __atomic_load_n(&kp.edge[i], __ATOMIC_RELAXED);
		if ((uint32_t)v)
			keep_largest(top, &n, KPROF_EDGES_TOP, v, &cut);
	}
	struct json *j = rec_begin("prof_edges");
	json_str(j, "label", label ? label : "");
	json_arr_begin(j, "edges");
	for (uint32_t k = 0; k < n; k++) {
		/* Room for an edge of the longest names and the tail, or the
		 * rest are left off like those below the list. */
		if (j->len + 256 > j->cap) {
			if ((uint32_t)top[k] > cut)
				cut = (uint32_t)top[k];
			break;
		}
		uint32_t from = (uint32_t)(top[k] >> 48) - 1, to = (uint32_t)(top[k] >> 32 & 0xffff) - 1;
		json_obj_begin(j, NULL);
		json_str(j, "from", &ksyms_names[ksyms_table[from].name]);
		json_str(j, "to", &ksyms_names[ksyms_table[to].name]);
		json_u64(j, "n", (uint32_t)top[k]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_u64(j, "edges_cut", cut);
	json_u64(j, "edges_lost", __atomic_load_n(&kp.edges_lost, __ATOMIC_RELAXED));
	rec_end();
}

void kprof_record(const char *label)
{
	if (!kp.on)
		return;
	struct json *j = rec_begin("prof");
	json_str(j, "label", label ? label : "");
	json_u64(j, "hz", time_hz());
	json_str(j, "source", kp.nmi ? "nmi" : "tick");
	/* The time one sample stands for on a CPU: the tick's period, or
	 * what the NMI clock really took (late NMIs stretch it). */
	uint64_t fired = nmiclock_fired() - kp.window_fired;
	uint64_t period = !kp.nmi ? 1000000000ull / time_hz() : fired ? (time_ns() - kp.window_ns) / fired : 0;
	json_u64(j, "period_ns", period);
	json_u64(j, "samples", __atomic_load_n(&kp.samples, __ATOMIC_RELAXED));
	json_u64(j, "user", __atomic_load_n(&kp.user, __ATOMIC_RELAXED));
	json_u64(j, "kernel_task", __atomic_load_n(&kp.task, __ATOMIC_RELAXED));
	json_u64(j, "kernel_thread", __atomic_load_n(&kp.kthread, __ATOMIC_RELAXED));
	json_u64(j, "kernel_irq", __atomic_load_n(&kp.irq, __ATOMIC_RELAXED));
	json_u64(j, "idle", __atomic_load_n(&kp.idle, __ATOMIC_RELAXED));
	json_u64(j, "unknown", __atomic_load_n(&kp.unknown, __ATOMIC_RELAXED));
	top_list(j, "self", "self_cut", kp.self);
	top_list(j, "total", "total_cut", kp.total);
	rec_end();
	edges_record(label);
}

void kprof_halt_report(void) { kprof_record("halt"); }
