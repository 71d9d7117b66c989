/*
 * touch.c - Hugh Dickins's swapin-readahead test (seed 000 in docs/seeds.md).
 *
 *   touch SIZE_MIB TOUCHES PATTERN anon|shmem|file:PATH [SEED]
 *
 * Maps SIZE_MIB of anonymous memory - MAP_PRIVATE ("anon") or MAP_SHARED,
 * which Linux and our kernel back with a shmem object ("shmem") - or the
 * first SIZE_MIB of a file or block device MAP_SHARED ("file:PATH",
 * opened read-write: on our kernel a device named in data=; its pages
 * live in the page cache and go back to PATH, not to swap; under MM_TRACE
 * tools/min calls a page's first touch compulsory, not a fault: for a
 * file it is a read from PATH), and makes
 * TOUCHES touches spaced a page apart: "seq" cycles round the region from
 * page 0, "random" picks pages with xorshift64* from SEED (default 1, so runs
 * on our kernel and on Linux touch the same pages in the same order). With
 * the region larger than memory, seq never re-hits cache while random often
 * does - the contrast the readahead policies are judged on.
 *
 * Patterns nobody tuned for, to judge adaptive readahead (issue 7):
 *   stride:N    every Nth page (N <= 4096), cycling; each pass starts one
 *               page further on, so every page gets its turn
 *   streams:K   K sequential streams (K <= 64) through K equal slices of
 *               the region, one touch each in turn
 *   jumps:N     sequential, but every N touches jump to a random page
 *   shift:W:N   random within a window of W pages that moves to a random
 *               place every N touches (a working set that shifts)
 *   back        from the last page down to page 0, cycling
 *   hot:H:P     a skewed working set: P% of the touches random within the
 *               first H pages, the rest random over the whole region
 *
 * "fill+" before a pattern (fill+random, fill+back) first writes every page
 * once in order, then makes the TOUCHES touches of the pattern: a forward
 * fill, then random touches or a backward scan (workingset detection,
 * issue 12).  touches in the report counts the pattern's touches only.
 *
 * threads=N (1..32) runs the touches in N cloned threads (rt_thread, as
 * the threads workload does) that start together on one futex: each takes
 * TOUCHES/N of the touches (the first TOUCHES%N one more), so the total
 * work is the same for every N. Without "shared" the area is cut into N
 * slices (pages/N each, the first pages%N one page more) and thread i runs
 * the pattern over its own slice; with "shared" every thread runs it over
 * the whole area, page touches serialised per page (vpage_touch_shared),
 * so several threads fault on the same pages. Thread i's random choices
 * come from SEED+i. fill+ fills each thread's slice (shared too: the area
 * is filled once). The record then adds threads, sharing and, per thread
 * in index order (space-separated), touches, minflt and majflt from
 * getrusage(RUSAGE_THREAD) and elapsed_us from the common start to the
 * thread's last touch. Without threads= touch runs in the main thread,
 * exactly as before (no clone).
 *
 * Every touch verifies the page (see vpage.h). Exit status: 0 clean,
 * 1 a page held the wrong data, 2 bad arguments, 3 a system call failed.
 * The one JSON line on stdout carries touches, pages, mismatches and the
 * usual time and fault counts. MM_TRACE=FILE: the page trace (wtrace.h).
 */
#include "rt/rt.h"
#include "vpage.h"
#include "wlio.h"
#include "wtrace.h"

#define TOUCH_USAGE "touch SIZE_MIB TOUCHES [fill+]seq|random|stride:N|streams:K|jumps:N|shift:W:N|hot:H:P|back anon|shmem|file:PATH [SEED] [threads=N [shared]]"
#define TOUCH_MAX_MIB (1ULL << 24)	/* 16 TiB: keeps page numbers < 2^31 (VPAGE_LOCKED) */
/* 32: the four per-thread lists (about 40 bytes a thread) keep the record
 * within RT_JSON_MAX; a 16-core PC runs 2 threads a core. */
#define TOUCH_MAX_THREADS 32
#define TOUCH_STACK_BYTES (64 * 1024)
#define TOUCH_RUSAGE_THREAD 1

enum touch_pattern { T_SEQ, T_RANDOM, T_STRIDE, T_STREAMS, T_JUMPS, T_SHIFT, T_HOT, T_BACK };

struct touch_args {
	uint64_t size_mib;
	uint64_t touches;
	enum touch_pattern pattern;
	uint64_t n, w;			/* the pattern's parameters */
	const char *pattern_name;
	bool fill;			/* fill+: one forward pass first */
	bool shmem;
	const char *file;		/* file:PATH, else NULL */
	uint64_t seed;
	uint64_t threads;		/* 0: no threads= (run in main) */
	bool shared;			/* threads all touch the whole area */
};

/* "NAME:" at the start of s: the rest, else NULL. */
static const char *touch_prefix(const char *s, const char *name)
{
	while (*name)
		if (*s++ != *name++)
			return NULL;
	return *s == ':' ? s + 1 : NULL;
}

/* name ("fill+", "threads=") at the start of s: the rest, else NULL. */
static const char *touch_starts(const char *s, const char *name)
{
	while (*name)
		if (*s++ != *name++)
			return NULL;
	return s;
}

/* A number in [min, max] ending at '\0' or ':'; *end after it. */
static uint64_t touch_num(const char *s, const char **end, uint64_t min, uint64_t max,
			  const char *what)
{
	char buf[24];
	size_t n = 0;
	uint64_t v;

	while (s[n] && s[n] != ':' && n < sizeof(buf) - 1) {
		buf[n] = s[n];
		n++;
	}
	buf[n] = 0;
	if (rt_parse_u64_range(buf, min, max, &v) < 0)
		rt_usage_error(TOUCH_USAGE, "touch: bad %s '%s' in the pattern: must be %llu..%llu",
			       what, buf, (unsigned long long)min, (unsigned long long)max);
	*end = s + n;
	return v;
}

static void touch_pattern(const char *s, struct touch_args *a)
{
	const char *r, *end;

	a->pattern_name = s;
	if ((r = touch_starts(s, "fill+"))) {
		a->fill = true;
		s = r;
	}
	if (rt_strcmp(s, "seq") == 0) {
		a->pattern = T_SEQ;
	} else if (rt_strcmp(s, "random") == 0) {
		a->pattern = T_RANDOM;
	} else if (rt_strcmp(s, "back") == 0) {
		a->pattern = T_BACK;
	} else if ((r = touch_prefix(s, "stride"))) {
		a->pattern = T_STRIDE;
		a->n = touch_num(r, &end, 1, 4096, "stride");
	} else if ((r = touch_prefix(s, "streams"))) {
		a->pattern = T_STREAMS;
		a->n = touch_num(r, &end, 1, 64, "stream count");
	} else if ((r = touch_prefix(s, "jumps"))) {
		a->pattern = T_JUMPS;
		a->n = touch_num(r, &end, 1, UINT64_MAX, "jump interval");
	} else if ((r = touch_prefix(s, "shift"))) {
		a->pattern = T_SHIFT;
		a->w = touch_num(r, &end, 1, 1ULL << 32, "window");
		if (*end != ':')
			rt_usage_error(TOUCH_USAGE, "touch: pattern '%s': expected shift:W:N", s);
		a->n = touch_num(end + 1, &end, 1, UINT64_MAX, "shift interval");
	} else if ((r = touch_prefix(s, "hot"))) {
		a->pattern = T_HOT;
		a->w = touch_num(r, &end, 1, 1ULL << 32, "hot pages");
		if (*end != ':')
			rt_usage_error(TOUCH_USAGE, "touch: pattern '%s': expected hot:H:P", s);
		a->n = touch_num(end + 1, &end, 0, 100, "hot percentage");
	} else {
		rt_usage_error(TOUCH_USAGE, "touch: bad pattern '%s'", s);
		return;
	}
	if (a->pattern >= T_STRIDE && a->pattern != T_BACK && *end)
		rt_usage_error(TOUCH_USAGE, "touch: bad pattern '%s'", s);
}

static bool touch_pick(const char *prog, const char *name, const char *s,
		       const char *yes, const char *no)
{
	if (rt_strcmp(s, yes) == 0)
		return true;
	if (rt_strcmp(s, no) != 0)
		rt_usage_error(TOUCH_USAGE, "%s: bad %s '%s': must be %s or %s",
			       prog, name, s, yes, no);
	return false;
}

/* One of the optional words after the mapping: SEED, threads=N, shared. */
static void touch_option(const char *s, struct touch_args *a, bool *have_seed)
{
	const char *r = touch_starts(s, "threads=");

	if (r != NULL) {
		if (a->threads)
			rt_usage_error(TOUCH_USAGE, "touch: threads= given twice");
		a->threads = rt_arg_u64("touch", TOUCH_USAGE, "threads=N", r, 1,
					TOUCH_MAX_THREADS);
	} else if (rt_strcmp(s, "shared") == 0) {
		a->shared = true;
	} else if (!*have_seed) {
		a->seed = rt_arg_u64("touch", TOUCH_USAGE, "SEED", s, 0, UINT64_MAX);
		*have_seed = true;
	} else {
		rt_usage_error(TOUCH_USAGE, "touch: unexpected argument '%s' after SEED", s);
	}
}

static void touch_parse(int argc, char **argv, struct touch_args *a)
{
	bool have_seed = false;

	if (argc < 5 || argc > 8)
		rt_usage_error(TOUCH_USAGE, "touch: expected 4 to 7 arguments, got %d",
			       argc - 1);
	a->size_mib = rt_arg_u64("touch", TOUCH_USAGE, "SIZE_MIB", argv[1], 1,
				 TOUCH_MAX_MIB);
	a->touches = rt_arg_u64("touch", TOUCH_USAGE, "TOUCHES", argv[2], 0,
				UINT64_MAX);
	a->fill = false;
	touch_pattern(argv[3], a);
	a->file = touch_prefix(argv[4], "file");
	if (a->file && !*a->file)
		rt_usage_error(TOUCH_USAGE, "touch: mapping 'file:' names no file");
	a->shmem = a->file ? false : touch_pick("touch", "mapping", argv[4], "shmem", "anon");
	a->seed = 1;
	a->threads = 0;
	a->shared = false;
	for (int i = 5; i < argc; i++)
		touch_option(argv[i], a, &have_seed);
	if (a->shared && !a->threads)
		rt_usage_error(TOUCH_USAGE, "touch: shared needs threads=N");
}

/* What one thread (or main, without threads=) does. */
struct touch_job {
	struct vpage_set *set;		/* the pattern's pages */
	uint64_t touches;
	uint64_t seed;
	uint64_t fill_from, fill_pages;	/* fill+: this job's part of set */
	bool shared;			/* set is touched by other threads too */
};

static void touch_page(const struct touch_job *job, uint64_t page)
{
	if (job->shared)
		vpage_touch_shared(job->set, page);
	else
		vpage_touch(job->set, page);
}

static void touch_run(const struct touch_job *job, const struct touch_args *a)
{
	struct rt_rng rng;
	uint64_t page = 0, pages = job->set->pages, base = 0, start = 0;
	uint64_t w = a->w < pages ? a->w : pages, k = a->n < pages ? a->n : pages;
	uint64_t slice = pages / (k ? k : 1);

	rt_rng_seed(&rng, job->seed);
	for (uint64_t i = 0; a->fill && i < job->fill_pages; i++)
		touch_page(job, job->fill_from + i);
	for (uint64_t i = 0; i < job->touches; i++) {
		switch (a->pattern) {
		case T_SEQ:
			if (i != 0 && ++page == pages)
				page = 0;
			break;
		case T_RANDOM:
			page = rt_rng_below(&rng, pages);
			break;
		case T_STRIDE:
			if (i != 0) {
				page += a->n;
				if (page >= pages)
					page = ++start % a->n % pages;
			}
			break;
		case T_STREAMS:
			/* stream i % k at its own position i / k in its slice */
			page = (i % k) * slice + (i / k) % (slice ? slice : 1);
			break;
		case T_JUMPS:
			if (i != 0 && i % a->n == 0)
				page = rt_rng_below(&rng, pages);
			else if (i != 0 && ++page == pages)
				page = 0;
			break;
		case T_SHIFT:
			if (i % a->n == 0)
				base = rt_rng_below(&rng, pages - w + 1);
			page = base + rt_rng_below(&rng, w);
			break;
		case T_HOT:
			page = rt_rng_below(&rng, 100) < a->n ? rt_rng_below(&rng, w)
							       : rt_rng_below(&rng, pages);
			break;
		case T_BACK:
			page = pages - 1 - i % pages;
			break;
		}
		touch_page(job, page);
	}
}

/* ---- threads=N ---- */

struct touch_worker {
	/* set by main before clone */
	unsigned index;
	struct touch_job job;
	struct vpage_set slice;		/* its part of the area (unshared) */
	char who[24];
	struct rt_thread *thread;
	/* written by the worker only, read by main after join */
	uint64_t elapsed_ns;
	uint64_t minflt, majflt;
};

static const struct touch_args *touch_a;
static volatile int touch_go;
static uint64_t touch_go_ns;		/* written before touch_go is set */
static struct touch_worker touch_workers[TOUCH_MAX_THREADS];

/* n split over parts: part i's share (the first n % parts get one more). */
static uint64_t touch_share(uint64_t n, uint64_t parts, uint64_t i)
{
	return n / parts + (i < n % parts ? 1 : 0);
}

static uint64_t touch_share_start(uint64_t n, uint64_t parts, uint64_t i)
{
	uint64_t extra = i < n % parts ? i : n % parts;

	return i * (n / parts) + extra;
}

static int touch_thread(void *arg)
{
	struct touch_worker *w = arg;
	struct rt_rusage ru;

	while (__atomic_load_n(&touch_go, __ATOMIC_ACQUIRE) == 0)
		rt_futex_wait(&touch_go, 0, NULL, true);
	touch_run(&w->job, touch_a);
	w->elapsed_ns = rt_now_ns() - touch_go_ns;
	rt_memset(&ru, 0, sizeof(ru));
	if (rt_getrusage(TOUCH_RUSAGE_THREAD, &ru) == 0) {
		w->minflt = (uint64_t)ru.ru_minflt;
		w->majflt = (uint64_t)ru.ru_majflt;
	}
	return 0;
}

/* Worker i's job over the whole area (shared) or its slice of it. */
static void touch_worker_setup(struct touch_worker *w, unsigned i, struct vpage_set *area,
			       const struct touch_args *a)
{
	uint64_t n = a->threads, from = touch_share_start(area->pages, n, i);
	uint64_t len = touch_share(area->pages, n, i);
	uint64_t touches = touch_share(a->touches, n, i), seed = a->seed + i;

	*w = (struct touch_worker){ .index = i };
	rt_snprintf(w->who, sizeof(w->who), "touch[%u]", i);
	if (a->shared) {
		w->job = (struct touch_job){ area, touches, seed, from, len, true };
		return;
	}
	/* A view of pages [from, from + len): page numbers are the slice's own,
	 * and they stay so for every touch, so the stamps stay consistent. */
	w->slice = (struct vpage_set){ .base = area->base + from * RT_PAGE_SIZE,
				       .counts = area->counts + from, .pages = len,
				       .who = w->who, .file = area->file };
	w->job = (struct touch_job){ &w->slice, touches, seed, 0, len, false };
}

/* Creates, starts and joins the workers; 0, or -errno if clone failed. */
static int touch_threads(struct vpage_set *area, const struct touch_args *a)
{
	unsigned n = (unsigned)a->threads, made = 0;
	int err = 0;

	touch_a = a;
	for (; made < n; made++) {
		struct touch_worker *w = &touch_workers[made];

		touch_worker_setup(w, made, area, a);
		err = rt_thread_create(&w->thread, touch_thread, w, TOUCH_STACK_BYTES);
		if (err < 0) {
			rt_dprintf(2, "touch: creating thread %u failed: error %d\n", made, -err);
			break;
		}
	}
	touch_go_ns = rt_now_ns();
	__atomic_store_n(&touch_go, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&touch_go, 0x7fffffff, true);
	for (unsigned i = 0; i < made; i++)
		rt_thread_join(touch_workers[i].thread, NULL);
	for (unsigned i = 0; !a->shared && i < made; i++) {
		area->touched += touch_workers[i].slice.touched;
		area->mismatches += touch_workers[i].slice.mismatches;
	}
	return err;
}

/* One per-thread figure as "v0 v1 ...", in the record. */
static void touch_json_list(struct rt_json *j, const char *key, const uint64_t *v, unsigned n)
{
	char buf[TOUCH_MAX_THREADS * 21];
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)rt_snprintf(buf + len, sizeof(buf) - len, i ? " %llu" : "%llu",
					   (unsigned long long)v[i]);
	rt_json_str(j, key, buf);
}

static void touch_report_threads(struct rt_json *j, const struct touch_args *a)
{
	uint64_t touches[TOUCH_MAX_THREADS], minflt[TOUCH_MAX_THREADS];
	uint64_t majflt[TOUCH_MAX_THREADS], us[TOUCH_MAX_THREADS];
	unsigned n = (unsigned)a->threads;

	for (unsigned i = 0; i < n; i++) {
		touches[i] = touch_workers[i].job.touches;
		minflt[i] = touch_workers[i].minflt;
		majflt[i] = touch_workers[i].majflt;
		us[i] = touch_workers[i].elapsed_ns / 1000;	/* us: shorter lists */
	}
	rt_json_u64(j, "threads", n);
	rt_json_str(j, "sharing", a->shared ? "shared" : "slices");
	touch_json_list(j, "thread_touches", touches, n);
	touch_json_list(j, "thread_minflt", minflt, n);
	touch_json_list(j, "thread_majflt", majflt, n);
	touch_json_list(j, "thread_elapsed_us", us, n);
}

static const char *touch_mapping(const struct touch_args *a)
{
	return a->file ? "file" : a->shmem ? "shmem" : "anon";
}

static void touch_report(const struct touch_args *a, const struct vpage_set *set,
			 uint64_t start, uint64_t end)
{
	struct rt_json j;
	uint64_t ms = (end - start) / 1000000;

	rt_dprintf(2, "touch: %llu MiB %s %s%s%s, %llu touches in %llu.%03llu s, "
		   "%llu mismatches", (unsigned long long)a->size_mib,
		   a->pattern_name, touch_mapping(a), a->file ? ":" : "", a->file ? a->file : "",
		   (unsigned long long)a->touches, (unsigned long long)(ms / 1000),
		   (unsigned long long)(ms % 1000),
		   (unsigned long long)set->mismatches);
	if (a->threads)
		rt_dprintf(2, ", %llu threads%s", (unsigned long long)a->threads,
			   a->shared ? " sharing the area" : " on their own slices");
	rt_dprintf(2, "\n");
	rt_report_begin(&j, "touch");
	rt_json_u64(&j, "size_mib", a->size_mib);
	rt_json_str(&j, "pattern", a->pattern_name);
	rt_json_str(&j, "mapping", touch_mapping(a));
	if (a->file)
		rt_json_str(&j, "file", a->file);
	rt_json_u64(&j, "seed", a->seed);
	rt_json_u64(&j, "touches", a->touches);
	rt_json_u64(&j, "pages", set->pages);
	rt_json_u64(&j, "pages_touched", set->touched);
	if (a->threads)
		touch_report_threads(&j, a);
	rt_report_usage(&j, start, end);
	rt_json_u64(&j, "mismatches", set->mismatches);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	struct touch_args a;
	struct vpage_set set;
	uint64_t start, end, pages;
	int err, fd = -1;

	touch_parse(argc, argv, &a);
	if (wtrace_init("touch", envp) < 0)
		return 3;
	pages = a.size_mib * (RT_MIB / RT_PAGE_SIZE);
	if (a.file) {
		fd = wlio_open("touch", a.file, true, a.size_mib * RT_MIB);
		if (fd < 0)
			return -fd;
	}
	start = rt_now_ns();
	err = fd < 0 ? vpage_map(&set, pages, a.shmem, "touch") : vpage_map_file(&set, pages, fd, "touch");
	if (err < 0) {
		rt_dprintf(2, "touch: mmap of %llu MiB%s%s failed: %s (%d)\n",
			   (unsigned long long)a.size_mib, a.file ? " of " : "", a.file ? a.file : "",
			   wlio_errno_name(err), -err);
		return 3;
	}
	if (a.threads) {
		err = touch_threads(&set, &a);
	} else {
		struct touch_job job = { &set, a.touches, a.seed, 0, set.pages, false };

		touch_run(&job, &a);
	}
	end = rt_now_ns();
	if (err < 0) {
		vpage_unmap(&set);
		return 3;
	}
	err = wtrace_finish();
	touch_report(&a, &set, start, end);
	vpage_unmap(&set);
	return set.mismatches != 0 ? 1 : err < 0 ? 3 : 0;
}
