/*
 * touch.c - Hugh Dickins's swapin-readahead test (seed 000 in docs/seeds.md).
 *
 *   touch SIZE_MIB TOUCHES PATTERN anon|shmem [SEED]
 *
 * Maps SIZE_MIB of anonymous memory - MAP_PRIVATE ("anon") or MAP_SHARED,
 * which Linux and our kernel back with a shmem object ("shmem") - and makes
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
 * Every touch verifies the page (see vpage.h). Exit status: 0 clean,
 * 1 a page held the wrong data, 2 bad arguments, 3 a system call failed.
 * The one JSON line on stdout carries touches, pages, mismatches and the
 * usual time and fault counts. MM_TRACE=FILE: the page trace (wtrace.h).
 */
#include "rt/rt.h"
#include "vpage.h"
#include "wtrace.h"

#define TOUCH_USAGE "touch SIZE_MIB TOUCHES [fill+]seq|random|stride:N|streams:K|jumps:N|shift:W:N|hot:H:P|back anon|shmem [SEED]"
#define TOUCH_MAX_MIB (1ULL << 24)	/* 16 TiB: keeps page numbers < 2^32 */

enum touch_pattern { T_SEQ, T_RANDOM, T_STRIDE, T_STREAMS, T_JUMPS, T_SHIFT, T_HOT, T_BACK };

struct touch_args {
	uint64_t size_mib;
	uint64_t touches;
	enum touch_pattern pattern;
	uint64_t n, w;			/* the pattern's parameters */
	const char *pattern_name;
	bool fill;			/* fill+: one forward pass first */
	bool shmem;
	uint64_t seed;
};

/* "NAME:" at the start of s: the rest, else NULL. */
static const char *touch_prefix(const char *s, const char *name)
{
	while (*name)
		if (*s++ != *name++)
			return NULL;
	return *s == ':' ? s + 1 : NULL;
}

/* "fill+" at the start of s: the rest, else NULL. */
static const char *touch_fill_prefix(const char *s)
{
	const char *name = "fill+";
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
	if ((r = touch_fill_prefix(s))) {
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

static void touch_parse(int argc, char **argv, struct touch_args *a)
{
	if (argc < 5 || argc > 6)
		rt_usage_error(TOUCH_USAGE, "touch: expected 4 or 5 arguments, got %d",
			       argc - 1);
	a->size_mib = rt_arg_u64("touch", TOUCH_USAGE, "SIZE_MIB", argv[1], 1,
				 TOUCH_MAX_MIB);
	a->touches = rt_arg_u64("touch", TOUCH_USAGE, "TOUCHES", argv[2], 0,
				UINT64_MAX);
	a->fill = false;
	touch_pattern(argv[3], a);
	a->shmem = touch_pick("touch", "mapping", argv[4], "shmem", "anon");
	a->seed = 1;
	if (argc == 6)
		a->seed = rt_arg_u64("touch", TOUCH_USAGE, "SEED", argv[5], 0,
				     UINT64_MAX);
}

static void touch_run(struct vpage_set *set, const struct touch_args *a)
{
	struct rt_rng rng;
	uint64_t page = 0, pages = set->pages, base = 0, start = 0;
	uint64_t w = a->w < pages ? a->w : pages, k = a->n < pages ? a->n : pages;
	uint64_t slice = pages / (k ? k : 1);

	rt_rng_seed(&rng, a->seed);
	for (uint64_t i = 0; a->fill && i < pages; i++)
		vpage_touch(set, i);
	for (uint64_t i = 0; i < a->touches; i++) {
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
		vpage_touch(set, page);
	}
}

static void touch_report(const struct touch_args *a, const struct vpage_set *set,
			 uint64_t start, uint64_t end)
{
	struct rt_json j;
	uint64_t ms = (end - start) / 1000000;

	rt_dprintf(2, "touch: %llu MiB %s %s, %llu touches in %llu.%03llu s, "
		   "%llu mismatches\n", (unsigned long long)a->size_mib,
		   a->pattern_name, a->shmem ? "shmem" : "anon",
		   (unsigned long long)a->touches, (unsigned long long)(ms / 1000),
		   (unsigned long long)(ms % 1000),
		   (unsigned long long)set->mismatches);
	rt_report_begin(&j, "touch");
	rt_json_u64(&j, "size_mib", a->size_mib);
	rt_json_str(&j, "pattern", a->pattern_name);
	rt_json_str(&j, "mapping", a->shmem ? "shmem" : "anon");
	rt_json_u64(&j, "seed", a->seed);
	rt_json_u64(&j, "touches", a->touches);
	rt_json_u64(&j, "pages", set->pages);
	rt_json_u64(&j, "pages_touched", set->touched);
	rt_report_usage(&j, start, end);
	rt_json_u64(&j, "mismatches", set->mismatches);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	struct touch_args a;
	struct vpage_set set;
	uint64_t start, end;
	int err;

	touch_parse(argc, argv, &a);
	if (wtrace_init("touch", envp) < 0)
		return 3;
	start = rt_now_ns();
	err = vpage_map(&set, a.size_mib * (RT_MIB / RT_PAGE_SIZE), a.shmem, "touch");
	if (err < 0) {
		rt_dprintf(2, "touch: mmap of %llu MiB failed: error %d\n",
			   (unsigned long long)a.size_mib, -err);
		return 3;
	}
	touch_run(&set, &a);
	end = rt_now_ns();
	err = wtrace_finish();
	touch_report(&a, &set, start, end);
	vpage_unmap(&set);
	return set.mismatches != 0 ? 1 : err < 0 ? 3 : 0;
}
