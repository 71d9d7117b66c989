/*
 * Small fakes of the kernel around the glue under test: the heap
 * (counted, so tests find leaks), the console (the last line kept, so
 * tests check an error names its thing), vmstat, panic, and the scheduler
 * as one thread sees it.  In the manner of Linux's tools/testing/vma: the
 * real files under test, fakes around them.
 *
 * Sleeping: there is one thread, so a wait whose condition is false can
 * only end by an interrupt, i.e. an I/O completion: the fake runs the
 * oldest pending one and checks again; with none pending the wait would
 * last for ever, which is a bug in the code under test (abort), unless a
 * test armed fake.escape (kswapd's idle wait: the test's way out of its
 * endless loop).  sleep_ms lets every pending completion run, as time
 * passing would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_kernel.h"
#include "mem/kmalloc.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/lru.h"
#include "vm/reclaim.h"
#include "core/panic.h"
#include "core/console.h"
#include "core/config.h"
#include "core/sched.h"
#include "core/time.h"
#include "core/wait.h"
#include "lib/errno.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "arch/x86_64/smpboot.h"
#include "swap/readahead.h"

struct fake_state fake;
struct kconfig kcfg;
static long base_allocs;

/* ---------------------------------------------------------------- heap */

void *kmalloc(size_t size)
{
	if (fake.fail_allocs && --fake.fail_allocs == 0)
		return NULL;
	fake.live_allocs++;
	return malloc(size);
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (p)
		fake.live_allocs--;
	free(p);
}

/* ---------------------------------------------------------------- console */

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(fake.last_msg, sizeof fake.last_msg, fmt, ap);
	va_end(ap);
	fake.msgs++;
	if (getenv("GLUE_VERBOSE"))
		fputs(fake.last_msg, stdout);
	return n;
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "panic: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

void vmstat_add(enum vmstat_item i, uint64_t n) { fake.vmstat[i] += n; }

/* ---------------------------------------------------------------- sched */

static int the_thread;

struct thread *current_thread(void) { return (struct thread *)&the_thread; }

struct thread *thread_create(const char *name, void (*fn)(void *), void *arg, enum sched_class cls)
{
	(void)name;
	(void)arg;
	(void)cls;
	fake.thread_fn = fn;
	return (struct thread *)&fake.thread_fn;        /* any non-NULL handle */
}

void sched_io_wait_begin(void) { fake.io_waits_open++; }
void sched_io_wait_end(void) { fake.io_waits_open--; }

/* The thread would block: an interrupt (a completion) must come. */
static void block(const char *on)
{
	if (fake_io_complete_one())
		return;
	if (fake.escape)
		longjmp(*(jmp_buf *)fake.escape, 1);
	panic("fake sched: sleeping for ever on '%s' (no I/O in flight)", on ? on : "?");
}

bool sched_block_until(uint64_t at_ns)
{
	(void)at_ns;
	block("WAIT_EVENT");
	return false;
}

/* A clock that moves 1 us per reading: durations are positive and
 * ordered, which is all the latency histograms need. */
uint64_t time_ns(void)
{
	static uint64_t now;
	return now += 1000;
}

/* /proc/pressure/memory's accounting is not under test here. */
void psi_memstall_enter(bool running) { (void)running; }
void psi_memstall_leave(bool running) { (void)running; }

/* One CPU: reclaim's context pool stays at kswapd's and one direct. */
int smp_cpus_online(void) { return 1; }

/* kernel/vm/lru_batch.c's per-CPU batches are the kernel's: here a page
 * goes on its list at once. */
void lru_add(struct page *p, enum lru_kind kind, bool active) { lru_link(p, kind, active); }
uint32_t lru_drain_local(void) { return 0; }
uint32_t lru_drain_all(void) { return 0; }

void sleep_ms(uint64_t ms)
{
	(void)ms;
	fake.sleeps++;
	fake_io_complete_all();
}

void waitq_init(struct waitq *wq, const char *name)
{
	spin_init(&wq->lock, name);
	list_init(&wq->waiters);
}

void waitq_prepare(struct waitq *wq, struct wait_entry *w) { (void)wq; w->queued = true; }
void waitq_finish(struct waitq *wq, struct wait_entry *w) { (void)wq; w->queued = false; }
bool waitq_has_waiters(struct waitq *wq) { (void)wq; return false; }

void waitq_wake_all(struct waitq *wq)
{
	if (wq->lock.name && !strcmp(wq->lock.name, "kswapd"))
		fake.kswapd_wakes++;
}

int wait_event_timeout(struct waitq *wq, bool (*pred)(void *), void *arg, uint64_t timeout_ns)
{
	while (!pred(arg)) {
		if (timeout_ns && !fake_io_in_flight())
			return -ETIMEDOUT;
		block(wq->lock.name);
	}
	return 0;
}

void mutex_init(struct mutex *m, const char *name)
{
	waitq_init(&m->wq, name);
	m->locked = false;
	m->owner = NULL;
	m->name = name;
}

void mutex_lock(struct mutex *m)
{
	if (m->locked)
		panic("fake mutex '%s': taken twice (it would deadlock)", m->name ? m->name : "?");
	m->locked = true;
	m->owner = current_thread();
}

void mutex_unlock(struct mutex *m)
{
	if (!m->locked)
		panic("fake mutex '%s': unlocked while not held", m->name ? m->name : "?");
	m->locked = false;
	m->owner = NULL;
}

/* One thread: a reader or writer that would wait is a deadlock. */
void rwsem_init(struct rwsem *s, const char *name)
{
	waitq_init(&s->wq, name);
	s->count = 0;
	s->owner = NULL;
	s->name = name;
}

void down_read(struct rwsem *s)
{
	if (s->owner)
		panic("fake rwsem '%s': read while written (it would deadlock)", s->name ? s->name : "?");
	s->count++;
}

void up_read(struct rwsem *s)
{
	if (!s->count || s->owner)
		panic("fake rwsem '%s': up_read while not read", s->name ? s->name : "?");
	s->count--;
}

void down_write(struct rwsem *s)
{
	if (s->owner || s->count)
		panic("fake rwsem '%s': written while held (it would deadlock)", s->name ? s->name : "?");
	s->owner = current_thread();
}

void up_write(struct rwsem *s)
{
	if (!s->owner)
		panic("fake rwsem '%s': up_write while not written", s->name ? s->name : "?");
	s->owner = NULL;
}

/* ---------------------------------------------------------------- readahead spy */

struct fake_ra_call fake_ra_calls[FAKE_RA_CALLS];
int fake_ra_ncalls;
struct ra_window fake_ra_answer;
struct ra_lwin fake_ra_found_answer;
bool fake_ra_no_reclaim;
size_t fake_ra_space_size;

static struct fake_ra_call *spy_log(char what, const struct ra_ctx *c, const struct ra_event *e)
{
	static struct fake_ra_call junk;
	struct fake_ra_call *x = fake_ra_ncalls < FAKE_RA_CALLS ? &fake_ra_calls[fake_ra_ncalls++] : &junk;
	*x = (struct fake_ra_call){ .what = what, .ctx = *c };
	if (e)
		x->ev = *e;
	return x;
}

static void spy_init(void *space) { memset(space, 0x5a, fake_ra_space_size); }

static void spy_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	spy_log('m', c, e);
	*w = fake_ra_answer;
}

static void spy_found(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
		      struct ra_lwin *w)
{
	struct fake_ra_call *x = spy_log('f', c, e);
	x->readahead = readahead;
	x->marker = marker;
	*w = fake_ra_found_answer;
}

static void spy_slot_read(const struct ra_ctx *c, uint32_t in_use)
{
	spy_log('s', c, NULL)->in_use = in_use;
}

static void spy_cut(void *space, uint64_t start, uint32_t steps)
{
	struct ra_ctx c = { .space = space };
	struct fake_ra_call *x = spy_log('c', &c, NULL);
	x->ev.idx = start;
	x->in_use = steps;
}

const struct ra_ops *__real_ra_ops_of(enum ra_kind kind);
const struct ra_ops *__wrap_ra_ops_of(enum ra_kind kind);

const struct ra_ops *__wrap_ra_ops_of(enum ra_kind kind)
{
	static struct ra_ops spy = { 0, spy_init, spy_miss, spy_found, spy_slot_read, false, spy_cut, RA_SCOPE_SPACE, NULL };
	spy.space_size = fake_ra_space_size;
	spy.no_reclaim = fake_ra_no_reclaim;
	return fake.ra_spy ? &spy : __real_ra_ops_of(kind);
}

/* ---------------------------------------------------------------- reset */

/* Whatever a failed test left in the swap cache and on the LRU lists. */
static void purge(void)
{
	struct page *out[64];
	for (unsigned a = 0; a < SWAP_MAX_AREAS; a++) {
		int n;
		while ((n = swapcache_collect(a, out, 64)) > 0)
			for (int i = 0; i < n; i++) {
				out[i]->flags |= PG_LOCKED;
				out[i]->flags &= ~PG_WRITEBACK;
				if (page_test(out[i], PG_SWAPCACHE))
					swapcache_del(out[i]);
				out[i]->flags &= ~PG_LOCKED;
				put_page(out[i]);
			}
	}
}

void fake_reset(void)
{
	static bool once;
	if (!once) {
		swapcache_init(1ull << 20, 4);
		once = true;
	}
	fake_io_complete_all();
	purge();
	swapcache_drain_spares();       /* each test starts with none kept for reuse */
	fake_mm_reset();
	fake_swap_reset();
	long live = fake.live_allocs;
	memset(&fake, 0, sizeof fake);
	fake.live_allocs = live;
	fake.max_run = 64;
	memset(&kcfg, 0, sizeof kcfg);
	reclaim_init();
	reclaim_knobs.wm_min = reclaim_knobs.wm_low = reclaim_knobs.wm_high = 0;
	/* A wake-up an earlier test left pending (reclaim's state is static):
	 * let kswapd take it; above high (0) it goes straight back to sleep. */
	jmp_buf out;
	fake.escape = &out;
	if (!setjmp(out))
		fake.thread_fn(NULL);
	fake.escape = NULL;
	memset(fake.vmstat, 0, sizeof fake.vmstat);
	fake.tlb_unflushed = fake.tlb_flushes = fake.tlb_writes_unflushed = 0;
	reclaim_set_oom_policy(&(struct reclaim_oom_policy){ NULL, NULL });
	ra_set_policy("fixed:3");
	fake_ra_ncalls = 0;
	fake_ra_space_size = 0;
	fake_ra_no_reclaim = false;
	base_allocs = fake.live_allocs;
}

long fake_leaks(void)
{
	swapcache_drain_spares();       /* nodes kept for reuse are no leak (the memory balance drains them too) */
	long frames = (long)fake_pmm_used(), slots = (long)fake_swap_used(), cached = (long)swapcache_size();
	long heap = fake.live_allocs - base_allocs, io = fake_io_in_flight();
	if (frames || slots || cached || heap || io)
		printf("  leaks: %ld frames, %ld slots, %ld swap-cache pages, %ld heap blocks, %ld requests in flight\n",
		       frames, slots, cached, heap, io);
	return frames + slots + cached + heap + io;
}
