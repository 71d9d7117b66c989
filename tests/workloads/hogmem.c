/*
 * hogmem.c - Zlatko Calusic's hogmem (seeds/004): write over a region, loop.
 *
 *   hogmem SIZE_MIB LOOPS
 *
 * Maps SIZE_MIB of private anonymous memory and sweeps it LOOPS times,
 * writing one word in every 64-byte cache line (every 8th word) of every
 * page, so each sweep dirties the whole region at realistic CPU cost. Sweep L
 * writes a pattern derived from L and the word's offset; sweep L+1 checks it
 * before overwriting, and a final read-only pass checks the last sweep.
 * Throughput is SIZE_MIB * LOOPS over the sweeps' time (the check-only pass
 * is excluded), printed as MB/sec with two decimals as the 1999 mail did.
 *
 * Exit status: 0 clean, 1 data mismatch, 2 bad arguments, 3 mmap failed
 * (or the MM_TRACE page trace, wtrace.h, could not be written).
 */
#include "rt/rt.h"
#include "wtrace.h"

#define HOG_USAGE "hogmem SIZE_MIB LOOPS"
#define HOG_STRIDE_WORDS 8		/* one word per 64-byte cache line */
#define HOG_PAGE_WORDS (RT_PAGE_SIZE / sizeof(uint64_t))
#define HOG_REPORT_MAX 5
#define HOG_MAX_MIB (1ULL << 24)
/* Keeps SIZE_MIB * LOOPS * 10^8 (the MB/sec x 100 numerator) below 2^64. */
#define HOG_MAX_LOOPS 10000ULL

struct hog_state {
	uint64_t *region;
	uint64_t words;
	uint64_t mismatches;
};

/* Pattern of sweep `loop` for the word at byte offset `off`. */
static uint64_t hog_value(uint64_t loop, uint64_t off)
{
	return rt_mix64(loop + 1) ^ off;
}

static void hog_mismatch(struct hog_state *h, uint64_t w, uint64_t got, uint64_t want)
{
	if (h->mismatches++ >= HOG_REPORT_MAX)
		return;
	rt_dprintf(2, "hogmem: MISMATCH at %p (offset %llu): got 0x%llx want 0x%llx\n",
		   (void *)&h->region[w], (unsigned long long)(w * 8),
		   (unsigned long long)got, (unsigned long long)want);
}

/*
 * Writes sweep `loop`, first checking sweep loop-1 if there was one. The two
 * tags are hoisted out of the loop: hog_value(l, off) == mix(l + 1) ^ off.
 */
static void hog_sweep(struct hog_state *h, uint64_t loop)
{
	uint64_t tag = rt_mix64(loop + 1);
	uint64_t prev = rt_mix64(loop);

	/* A page at a time (the region is whole MiB), so the MM_TRACE hook is
	 * one test per page, not per cache line. */
	for (uint64_t pw = 0; pw < h->words; pw += HOG_PAGE_WORDS) {
		wtrace_page(&h->region[pw]);
		for (uint64_t w = pw; w < pw + HOG_PAGE_WORDS; w += HOG_STRIDE_WORDS) {
			uint64_t off = w * sizeof(uint64_t);

			if (loop > 0 && h->region[w] != (prev ^ off))
				hog_mismatch(h, w, h->region[w], prev ^ off);
			h->region[w] = tag ^ off;
		}
	}
}

static void hog_check(struct hog_state *h, uint64_t loop)
{
	for (uint64_t pw = 0; pw < h->words; pw += HOG_PAGE_WORDS) {
		wtrace_page(&h->region[pw]);
		for (uint64_t w = pw; w < pw + HOG_PAGE_WORDS; w += HOG_STRIDE_WORDS) {
			uint64_t want = hog_value(loop, w * sizeof(uint64_t));

			if (h->region[w] != want)
				hog_mismatch(h, w, h->region[w], want);
		}
	}
}

/* MB/sec x 100, from MiB moved and nanoseconds (microsecond resolution). */
static uint64_t hog_rate_x100(uint64_t mib, uint64_t ns)
{
	uint64_t us = ns / 1000;

	return mib * 100000000ULL / (us != 0 ? us : 1);
}

static void hog_report(const struct hog_state *h, uint64_t mib, uint64_t loops,
		       uint64_t start, uint64_t sweeps_end, uint64_t end)
{
	uint64_t rate = hog_rate_x100(mib * loops, sweeps_end - start);
	struct rt_json j;

	rt_dprintf(2, "hogmem %llu %llu - %llu.%02llu MB/sec, %llu mismatches\n",
		   (unsigned long long)mib, (unsigned long long)loops,
		   (unsigned long long)(rate / 100), (unsigned long long)(rate % 100),
		   (unsigned long long)h->mismatches);
	rt_report_begin(&j, "hogmem");
	rt_json_u64(&j, "size_mib", mib);
	rt_json_u64(&j, "loops", loops);
	rt_json_u64(&j, "sweeps_ns", sweeps_end - start);
	rt_json_u64(&j, "check_ns", end - sweeps_end);
	rt_json_u64(&j, "mb_per_s", rate / 100);
	rt_json_u64(&j, "mb_per_s_x100", rate);
	rt_report_usage(&j, start, end);
	rt_json_u64(&j, "mismatches", h->mismatches);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	struct hog_state h = { 0 };
	uint64_t mib, loops, start, sweeps_end;
	void *p;
	int err;

	if (argc != 3)
		rt_usage_error(HOG_USAGE, "hogmem: expected 2 arguments, got %d", argc - 1);
	mib = rt_arg_u64("hogmem", HOG_USAGE, "SIZE_MIB", argv[1], 1, HOG_MAX_MIB);
	loops = rt_arg_u64("hogmem", HOG_USAGE, "LOOPS", argv[2], 1, HOG_MAX_LOOPS);
	if (wtrace_init("hogmem", envp) < 0)
		return 3;
	start = rt_now_ns();
	p = rt_mmap(NULL, mib * RT_MIB, RT_PROT_READ | RT_PROT_WRITE,
		    RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(p)) {
		rt_dprintf(2, "hogmem: mmap of %llu MiB failed: error %d\n",
			   (unsigned long long)mib, rt_mmap_error(p));
		return 3;
	}
	h.region = p;
	h.words = mib * RT_MIB / sizeof(uint64_t);
	for (uint64_t loop = 0; loop < loops; loop++)
		hog_sweep(&h, loop);
	sweeps_end = rt_now_ns();
	hog_check(&h, loops - 1);
	err = wtrace_finish();
	hog_report(&h, mib, loops, start, sweeps_end, rt_now_ns());
	rt_munmap(p, mib * RT_MIB);
	return h.mismatches != 0 ? 1 : err < 0 ? 3 : 0;
}
