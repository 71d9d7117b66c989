/*
 * hold SIZE_MIB SECONDS [anon|shmem]: fill a region with a verifiable
 * pattern, sleep (so other programs can push it out to swap, or swapoff
 * can pull it back), then verify every page.  Exit status 1 on any
 * mismatch.
 */
#include "rt/rt.h"

static uint64_t pattern(uint64_t page, uint64_t word) { return rt_mix64(page * 4099 + word + 0x51ed27); }

int main(int argc, char **argv)
{
	static const char usage[] = "hold SIZE_MIB SECONDS [anon|shmem]";
	if (argc < 3 || argc > 4) {
		rt_dprintf(2, "usage: %s\n", usage);
		return 2;
	}
	uint64_t mib = rt_arg_u64("hold", usage, "SIZE_MIB", argv[1], 1, 1 << 20);
	uint64_t secs = rt_arg_u64("hold", usage, "SECONDS", argv[2], 0, 86400);
	bool shared = argc == 4 && !rt_strcmp(argv[3], "shmem");
	if (argc == 4 && !shared && rt_strcmp(argv[3], "anon")) {
		rt_dprintf(2, "hold: mapping must be anon or shmem, not '%s'\n", argv[3]);
		return 2;
	}
	uint64_t start = rt_now_ns(), pages = mib * 256;
	uint64_t *m = rt_mmap(0, mib * RT_MIB, RT_PROT_READ | RT_PROT_WRITE,
			      (shared ? RT_MAP_SHARED : RT_MAP_PRIVATE) | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(m)) {
		rt_dprintf(2, "hold: mmap of %llu MiB failed\n", (unsigned long long)mib);
		return 3;
	}
	for (uint64_t p = 0; p < pages; p++)
		for (uint64_t w = 0; w < 512; w += 64)
			m[p * 512 + w] = pattern(p, w);
	struct rt_timespec t = { (int64_t)secs, 0 };
	rt_nanosleep(&t, 0);
	uint64_t bad = 0;
	for (uint64_t p = 0; p < pages; p++)
		for (uint64_t w = 0; w < 512; w += 64)
			if (m[p * 512 + w] != pattern(p, w) && bad++ < 4)
				rt_dprintf(2, "hold: page %llu word %llu wrong\n", (unsigned long long)p, (unsigned long long)w);
	struct rt_json j;
	rt_report_begin(&j, "hold");
	rt_json_u64(&j, "size_mib", mib);
	rt_json_u64(&j, "mismatches", bad);
	rt_report_usage(&j, start, rt_now_ns());
	rt_json_end(&j, 1);
	return bad ? 1 : 0;
}
