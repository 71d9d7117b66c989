/*
 * fill.c - LTP's "mtest01 -w -p PERCENT" (seeds/002): fill memory, verify.
 *
 *   fill PERCENT [TOTAL_MIB] [CHUNK_MIB]
 *
 * Allocates private anonymous memory CHUNK_MIB (default 1) at a time, one
 * mmap per chunk, and writes every word of every page, until PERCENT of
 * TOTAL_MIB is allocated (the last chunk may overshoot, as mtest01's did).
 * mtest01 sizes itself from RAM + swap: without TOTAL_MIB we ask
 * sysinfo(2) (Linux and our kernel answer it) and on -ENOSYS stop with a
 * usage error asking for TOTAL_MIB.
 * An mmap failing with ENOMEM ends the allocation early; that is reported
 * (enomem: true), not an error. Then every chunk is read back and checked.
 *
 * Exit status: 0 clean, 1 data mismatch, 2 bad arguments, 3 a system call
 * failed with something other than ENOMEM (or the MM_TRACE page trace,
 * wtrace.h, could not be written).
 */
#include "rt/rt.h"
#include "wtrace.h"

#define FILL_USAGE "fill PERCENT [TOTAL_MIB] [CHUNK_MIB]"
#define FILL_MAX_MIB (1ULL << 24)
#define FILL_MAX_CHUNK_MIB 4096ULL	/* keeps page-in-chunk below 2^20 */
#define FILL_REPORT_MAX 5
#define FILL_PAGE_WORDS (RT_PAGE_SIZE / sizeof(uint64_t))

/* Linux's struct sysinfo on x86-64. */
struct fill_sysinfo {
	int64_t uptime;
	uint64_t loads[3];
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char reserved[4];
};
_Static_assert(offsetof(struct fill_sysinfo, mem_unit) == 104, "sysinfo layout");
_Static_assert(sizeof(struct fill_sysinfo) == 112, "sysinfo size");

struct fill_state {
	uint64_t chunk_bytes;
	uint64_t **chunks;	/* one mmap'd array of chunk addresses */
	uint64_t nchunks;
	uint64_t max_chunks;
	bool enomem;
	uint64_t mismatches;
};

/* RAM + swap in MiB from sysinfo(2), or exits 2 if the kernel lacks it. */
static uint64_t fill_total_mib(void)
{
	struct fill_sysinfo si;
	long ret;

	rt_memset(&si, 0, sizeof(si));
	ret = rt_syscall1(RT_SYS_sysinfo, (long)&si);
	if (ret == -RT_ENOSYS)
		rt_usage_error(FILL_USAGE, "fill: no sysinfo(2) on this kernel: "
			       "give TOTAL_MIB (RAM + swap) explicitly");
	if (ret < 0 || si.mem_unit == 0)
		rt_usage_error(FILL_USAGE, "fill: sysinfo(2) failed (%ld): give TOTAL_MIB", ret);
	return (si.totalram + si.totalswap) * si.mem_unit / RT_MIB;
}

/* Word w of page pg of chunk c holds fill_base(c, pg) + w. */
static uint64_t fill_base(uint64_t chunk, uint64_t page)
{
	return rt_mix64((chunk << 20) | page);
}

static void fill_write(uint64_t *p, uint64_t chunk, uint64_t pages)
{
	for (uint64_t pg = 0; pg < pages; pg++) {
		uint64_t base = fill_base(chunk, pg);

		wtrace_page(&p[pg * FILL_PAGE_WORDS]);
		for (uint64_t w = 0; w < FILL_PAGE_WORDS; w++)
			p[pg * FILL_PAGE_WORDS + w] = base + w;
	}
}

static void fill_mismatch(struct fill_state *f, uint64_t chunk, const uint64_t *at,
			  uint64_t want)
{
	if (f->mismatches++ >= FILL_REPORT_MAX)
		return;
	rt_dprintf(2, "fill: MISMATCH chunk %llu at %p: got 0x%llx want 0x%llx\n",
		   (unsigned long long)chunk, (const void *)at,
		   (unsigned long long)*at, (unsigned long long)want);
}

static void fill_check(struct fill_state *f, uint64_t chunk)
{
	const uint64_t *p = f->chunks[chunk];
	uint64_t pages = f->chunk_bytes / RT_PAGE_SIZE;

	for (uint64_t pg = 0; pg < pages; pg++, p += FILL_PAGE_WORDS) {
		uint64_t base = fill_base(chunk, pg);

		wtrace_page(p);
		for (uint64_t w = 0; w < FILL_PAGE_WORDS; w++) {
			if (p[w] != base + w)
				fill_mismatch(f, chunk, &p[w], base + w);
		}
	}
}

/* Maps and writes one chunk. Returns 0, or -errno from mmap. */
static int fill_add_chunk(struct fill_state *f)
{
	void *p = rt_mmap(NULL, f->chunk_bytes, RT_PROT_READ | RT_PROT_WRITE,
			  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);

	if (rt_mmap_failed(p))
		return -rt_mmap_error(p);
	fill_write(p, f->nchunks, f->chunk_bytes / RT_PAGE_SIZE);
	f->chunks[f->nchunks++] = p;
	return 0;
}

/* Allocates up to max_chunks; returns 0, or -errno for a real failure. */
static int fill_allocate(struct fill_state *f)
{
	size_t table = f->max_chunks * sizeof(uint64_t *);
	void *p = rt_mmap(NULL, table, RT_PROT_READ | RT_PROT_WRITE,
			  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);

	if (rt_mmap_failed(p))
		return -rt_mmap_error(p);
	f->chunks = p;
	while (f->nchunks < f->max_chunks) {
		int err = fill_add_chunk(f);

		if (err == -RT_ENOMEM) {
			f->enomem = true;
			break;
		}
		if (err < 0)
			return err;
	}
	return 0;
}

static void fill_report(const struct fill_state *f, uint64_t percent, uint64_t total,
			uint64_t t0, uint64_t t1, uint64_t t2)
{
	struct rt_json j;
	uint64_t bytes = f->nchunks * f->chunk_bytes;

	rt_dprintf(2, "fill: %llu%% of %llu MiB: bytes allocated: %llu%s, %llu mismatches\n",
		   (unsigned long long)percent, (unsigned long long)total,
		   (unsigned long long)bytes, f->enomem ? " (stopped at ENOMEM)" : "",
		   (unsigned long long)f->mismatches);
	rt_report_begin(&j, "fill");
	rt_json_u64(&j, "percent", percent);
	rt_json_u64(&j, "total_mib", total);
	rt_json_u64(&j, "chunk_mib", f->chunk_bytes / RT_MIB);
	rt_json_u64(&j, "chunks", f->nchunks);
	rt_json_u64(&j, "bytes_allocated", bytes);
	rt_json_bool(&j, "enomem", f->enomem);
	rt_json_u64(&j, "alloc_ns", t1 - t0);
	rt_json_u64(&j, "verify_ns", t2 - t1);
	rt_report_usage(&j, t0, t2);
	rt_json_u64(&j, "mismatches", f->mismatches);
	rt_json_end(&j, 1);
}

int main(int argc, char **argv, char **envp)
{
	struct fill_state f = { 0 };
	uint64_t percent, total, t0, t1;
	int err;

	if (argc < 2 || argc > 4)
		rt_usage_error(FILL_USAGE, "fill: expected 1 to 3 arguments, got %d", argc - 1);
	percent = rt_arg_u64("fill", FILL_USAGE, "PERCENT", argv[1], 1, 100);
	total = argc > 2 ? rt_arg_u64("fill", FILL_USAGE, "TOTAL_MIB", argv[2], 1, FILL_MAX_MIB)
			 : fill_total_mib();
	f.chunk_bytes = RT_MIB * (argc > 3 ? rt_arg_u64("fill", FILL_USAGE, "CHUNK_MIB",
							argv[3], 1, FILL_MAX_CHUNK_MIB) : 1);
	if (wtrace_init("fill", envp) < 0)
		return 3;
	f.max_chunks = (total * RT_MIB * percent / 100 + f.chunk_bytes - 1) / f.chunk_bytes;
	t0 = rt_now_ns();
	err = fill_allocate(&f);
	if (err < 0) {
		rt_dprintf(2, "fill: mmap failed after %llu chunks: error %d\n",
			   (unsigned long long)f.nchunks, -err);
		return 3;
	}
	t1 = rt_now_ns();
	for (uint64_t c = 0; c < f.nchunks; c++)
		fill_check(&f, c);
	err = wtrace_finish();
	fill_report(&f, percent, total, t0, t1, rt_now_ns());
	return f.mismatches != 0 ? 1 : err < 0 ? 3 : 0;
}
