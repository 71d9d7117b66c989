/*
 * threads.c - the shape of a parallel build (docs/seeds.md, seed 000's "make -j16 on
 * tmpfs"): several threads each computing and touching their own memory.
 *
 *   threads N SIZE_MIB SECONDS [ROUNDS]
 *
 * N threads (clone via rt_thread_create) each map SIZE_MIB/N of private
 * anonymous memory (at least one page) and, until SECONDS of wall time have
 * passed, repeat a round of: a burst of 32 sequential page touches from a
 * random start, 8 touches at random pages, then a block of hash arithmetic
 * standing in for the compiler's CPU time. Touches are verified (vpage.h);
 * at the end each thread checks its whole working set once more. All
 * threads wait on one private futex and start together, so the memory
 * pressure arrives at once as it does when make fans out.  With ROUNDS,
 * each thread stops after that many rounds (SECONDS is then only a limit):
 * a fixed amount of work, so elapsed time compares policies as the build's
 * real time did.
 *
 * Each thread also checks that its TLS and tid are what clone promised
 * (%fs:0 is its own TCB, the CLONE_PARENT_SETTID tid equals gettid()).
 *
 * Exit status: 0 clean, 1 mismatch or TLS error, 2 bad arguments, 3 a thread
 * could not be created or could not map its memory (or the MM_TRACE page
 * trace, wtrace.h, could not be written; the threads share one trace).
 */
#include "rt/rt.h"
#include "vpage.h"
#include "wtrace.h"

#define THR_USAGE "threads N SIZE_MIB SECONDS [ROUNDS]"
#define THR_MAX 256
#define THR_STACK_BYTES (64 * 1024)
#define THR_BURST_PAGES 32		/* sequential run, like reading a file */
#define THR_RANDOM_PAGES 8		/* scattered hits, like symbol tables */
#define THR_HASH_ROUNDS 4096		/* ~10-20 us of ALU work per round */

/* Written by main before the start signal, read-only afterwards. */
struct thr_shared {
	volatile int go;		/* 0 until all threads may run */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC */
	uint64_t rounds;		/* per thread; 0: until the deadline */
};

struct thr_worker {
	/* set by main before clone */
	unsigned index;
	uint64_t pages;
	struct thr_shared *shared;
	struct rt_thread *thread;
	/* written by the worker only, read by main after join */
	uint64_t touches;
	uint64_t ops;
	uint64_t mismatches;
	uint64_t tls_errors;
	uint64_t hash;
	int error;			/* -errno if the working set failed */
};

static struct thr_shared thr_shared;
static struct thr_worker thr_workers[THR_MAX];

static bool thr_tls_ok(const struct thr_worker *w)
{
	struct rt_thread *self = rt_thread_self();

	return self->self == self && self->arg == w && self->tid == rt_gettid();
}

static void thr_wait_go(struct thr_shared *sh)
{
	while (__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE) == 0)
		rt_futex_wait(&sh->go, 0, NULL, true);
}

static uint64_t thr_hash_work(uint64_t h)
{
	for (uint64_t i = 0; i < THR_HASH_ROUNDS; i++)
		h = rt_mix64(h ^ i);
	return h;
}

static void thr_round(struct thr_worker *w, struct vpage_set *set, struct rt_rng *rng)
{
	uint64_t page = rt_rng_below(rng, set->pages);

	for (int i = 0; i < THR_BURST_PAGES; i++) {
		vpage_touch(set, page);
		if (++page == set->pages)
			page = 0;
	}
	for (int i = 0; i < THR_RANDOM_PAGES; i++)
		vpage_touch(set, rt_rng_below(rng, set->pages));
	w->touches += THR_BURST_PAGES + THR_RANDOM_PAGES;
	w->hash = thr_hash_work(w->hash);
	w->ops += THR_HASH_ROUNDS;
}

static int thr_main(void *arg)
{
	struct thr_worker *w = arg;
	struct vpage_set set;
	struct rt_rng rng;
	char who[24];

	if (!thr_tls_ok(w))
		w->tls_errors++;
	rt_snprintf(who, sizeof(who), "threads[%u]", w->index);
	w->error = vpage_map(&set, w->pages, false, who);
	thr_wait_go(w->shared);
	if (w->error < 0)
		return 3;
	rt_rng_seed(&rng, w->index + 1);
	for (uint64_t r = 0; rt_now_ns() < w->shared->deadline_ns; r++) {
		if (w->shared->rounds && r == w->shared->rounds)
			break;
		thr_round(w, &set, &rng);
	}
	vpage_verify_all(&set);
	w->mismatches = set.mismatches;
	vpage_unmap(&set);
	return w->mismatches != 0 ? 1 : 0;
}

/* Releases every waiting thread; they run until deadline_ns. */
static void thr_start(uint64_t deadline_ns)
{
	thr_shared.deadline_ns = deadline_ns;
	__atomic_store_n(&thr_shared.go, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&thr_shared.go, 0x7fffffff, true);
}

/* Creates n threads; returns how many were created (n unless clone failed). */
static unsigned thr_spawn(unsigned n, uint64_t pages_each)
{
	for (unsigned i = 0; i < n; i++) {
		struct thr_worker *w = &thr_workers[i];
		int err;

		*w = (struct thr_worker){ .index = i, .pages = pages_each,
					  .shared = &thr_shared };
		err = rt_thread_create(&w->thread, thr_main, w, THR_STACK_BYTES);
		if (err < 0) {
			rt_dprintf(2, "threads: creating thread %u failed: error %d\n",
				   i, -err);
			return i;
		}
	}
	return n;
}

/* Joins n threads and sums their results into *sum. */
static void thr_join_all(unsigned n, struct thr_worker *sum)
{
	for (unsigned i = 0; i < n; i++) {
		struct thr_worker *w = &thr_workers[i];

		rt_thread_join(w->thread, NULL);
		sum->touches += w->touches;
		sum->ops += w->ops;
		sum->mismatches += w->mismatches;
		sum->tls_errors += w->tls_errors;
		if (w->error < 0) {
			rt_dprintf(2, "threads: thread %u could not map %llu pages: "
				   "error %d\n", i, (unsigned long long)w->pages, -w->error);
			sum->error = w->error;
		}
	}
}

static void thr_report(unsigned n, uint64_t mib, uint64_t secs, uint64_t pages_each,
		       const struct thr_worker *sum, uint64_t start, uint64_t end)
{
	struct rt_json j;

	rt_dprintf(2, "threads: %u threads x %llu pages for %llu s: %llu touches, "
		   "%llu ops, %llu mismatches, %llu TLS errors\n", n,
		   (unsigned long long)pages_each, (unsigned long long)secs,
		   (unsigned long long)sum->touches, (unsigned long long)sum->ops,
		   (unsigned long long)sum->mismatches,
		   (unsigned long long)sum->tls_errors);
	rt_report_begin(&j, "threads");
	rt_json_u64(&j, "threads", n);
	rt_json_u64(&j, "size_mib", mib);
	rt_json_u64(&j, "seconds", secs);
	rt_json_u64(&j, "rounds", thr_shared.rounds);
	rt_json_u64(&j, "pages_per_thread", pages_each);
	rt_json_u64(&j, "touches", sum->touches);
	rt_json_u64(&j, "ops", sum->ops);
	rt_json_u64(&j, "tls_errors", sum->tls_errors);
	rt_report_usage(&j, start, end);
	rt_json_u64(&j, "mismatches", sum->mismatches);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	struct thr_worker sum = { 0 };
	uint64_t n, mib, secs, pages_each, start;
	unsigned made;
	int err;

	if (argc != 4 && argc != 5)
		rt_usage_error(THR_USAGE, "threads: expected 3 or 4 arguments, got %d", argc - 1);
	n = rt_arg_u64("threads", THR_USAGE, "N", argv[1], 1, THR_MAX);
	mib = rt_arg_u64("threads", THR_USAGE, "SIZE_MIB", argv[2], 1, 1ULL << 24);
	secs = rt_arg_u64("threads", THR_USAGE, "SECONDS", argv[3], 1, 86400);
	if (argc == 5)
		thr_shared.rounds = rt_arg_u64("threads", THR_USAGE, "ROUNDS", argv[4], 1, 1ULL << 32);
	if (wtrace_init("threads", envp) < 0)
		return 3;
	pages_each = mib * (RT_MIB / RT_PAGE_SIZE) / n;
	if (pages_each == 0)
		pages_each = 1;
	start = rt_now_ns();
	made = thr_spawn((unsigned)n, pages_each);
	thr_start(made == n ? rt_now_ns() + secs * 1000000000ULL : 0);
	thr_join_all(made, &sum);
	err = wtrace_finish();
	if (made != n || sum.error < 0)
		return 3;
	thr_report(made, mib, secs, pages_each, &sum, start, rt_now_ns());
	return sum.mismatches != 0 || sum.tls_errors != 0 ? 1 : err < 0 ? 3 : 0;
}
