/*
 * touch.c - Hugh Dickins's swapin-readahead test (seeds/000).
 *
 *   touch SIZE_MIB TOUCHES seq|random anon|shmem [SEED]
 *
 * Maps SIZE_MIB of anonymous memory - MAP_PRIVATE ("anon") or MAP_SHARED,
 * which Linux and our kernel back with a shmem object ("shmem") - and makes
 * TOUCHES touches spaced a page apart: "seq" cycles round the region from
 * page 0, "random" picks pages with xorshift64* from SEED (default 1, so runs
 * on our kernel and on Linux touch the same pages in the same order). With
 * the region larger than memory, seq never re-hits cache while random often
 * does - the contrast the readahead policies are judged on.
 *
 * Every touch verifies the page (see vpage.h). Exit status: 0 clean,
 * 1 a page held the wrong data, 2 bad arguments, 3 a system call failed.
 * The one JSON line on stdout carries touches, pages, mismatches and the
 * usual time and fault counts.
 */
#include "rt/rt.h"
#include "vpage.h"

#define TOUCH_USAGE "touch SIZE_MIB TOUCHES seq|random anon|shmem [SEED]"
#define TOUCH_MAX_MIB (1ULL << 24)	/* 16 TiB: keeps page numbers < 2^32 */

struct touch_args {
	uint64_t size_mib;
	uint64_t touches;
	bool random;
	bool shmem;
	uint64_t seed;
};

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
	a->random = touch_pick("touch", "pattern", argv[3], "random", "seq");
	a->shmem = touch_pick("touch", "mapping", argv[4], "shmem", "anon");
	a->seed = 1;
	if (argc == 6)
		a->seed = rt_arg_u64("touch", TOUCH_USAGE, "SEED", argv[5], 0,
				     UINT64_MAX);
}

static void touch_run(struct vpage_set *set, const struct touch_args *a)
{
	struct rt_rng rng;
	uint64_t page = 0;

	rt_rng_seed(&rng, a->seed);
	for (uint64_t i = 0; i < a->touches; i++) {
		if (a->random) {
			page = rt_rng_below(&rng, set->pages);
		} else if (i != 0 && ++page == set->pages) {
			page = 0;
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
		   a->random ? "random" : "seq", a->shmem ? "shmem" : "anon",
		   (unsigned long long)a->touches, (unsigned long long)(ms / 1000),
		   (unsigned long long)(ms % 1000),
		   (unsigned long long)set->mismatches);
	rt_report_begin(&j, "touch");
	rt_json_u64(&j, "size_mib", a->size_mib);
	rt_json_str(&j, "pattern", a->random ? "random" : "seq");
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

	(void)envp;
	touch_parse(argc, argv, &a);
	start = rt_now_ns();
	err = vpage_map(&set, a.size_mib * (RT_MIB / RT_PAGE_SIZE), a.shmem, "touch");
	if (err < 0) {
		rt_dprintf(2, "touch: mmap of %llu MiB failed: error %d\n",
			   (unsigned long long)a.size_mib, -err);
		return 3;
	}
	touch_run(&set, &a);
	end = rt_now_ns();
	touch_report(&a, &set, start, end);
	vpage_unmap(&set);
	return set.mismatches != 0 ? 1 : 0;
}
