/*
 * hold SIZE_MIB SECONDS [anon|shmem [pageout|reserved|pieces|areas:N|cold:MIB|nocold:MIB]]: fill
 * a region with a verifiable pattern, sleep (so other programs can push
 * it out to swap, or swapoff can pull it back), then verify every page.
 * Exit status 1 on any mismatch.
 *
 * The advice modes (Linux 5.4's MADV_COLD and MADV_PAGEOUT):
 *   pageout     after the fill, madvise(MADV_PAGEOUT) of the whole
 *               region; the record has pswpout's rise across the call
 *               (/proc/vmstat: pageout_pswpout) and the major faults of
 *               the verify pass that touches every page again
 *               (verify_majflt).  With swap read-ahead off, both are
 *               about the region's pages.
 *   cold:MIB    the region's first half is hot, its second half cold:
 *               fill hot then cold, madvise(MADV_COLD) the cold half
 *               (pgdeactivate's rise across the call: cold_pgdeactivate),
 *               read the hot half once, then write MIB of fresh private
 *               memory (pressure).  After SECONDS, unmap the pressure
 *               unread (so that the verify's swap-ins evict nothing more)
 *               and verify each half: hot_majflt and cold_majflt are the
 *               major faults of each, i.e. the pages reclaim took.  The
 *               cold half is the newer one, so only the advice makes it
 *               go first.
 *   nocold:MIB  the same without the advice: the control.
 * reserved: the region lies in the middle of a 64 TiB PROT_NONE
 * reservation (as a JIT's or a sanitizer's), so what walks the process's
 * areas meets TiBs with nothing in them.
 * pieces: the region is 128 mappings side by side (with shmem, 128
 * objects), for what walks every object or area.
 * areas:N: N more one-page private areas (alternately read-only and
 * read-write, so none merge) mapped before the region, which is then
 * paged out as with pageout: reclaim looks for each page's mappings in
 * a process of N areas.
 * A /proc/vmstat that cannot be read gives one line on stderr and the
 * counter fields are left out; a failed madvise is one line and exit 3.
 */
#include "rt/rt.h"
#include "wlio.h"

#define HOLD_USAGE "hold SIZE_MIB SECONDS [anon|shmem [pageout|reserved|pieces|areas:N|cold:MIB|nocold:MIB]]"
#define HOLD_MADV_COLD 20
#define HOLD_MADV_PAGEOUT 21
#define HOLD_PROC_MAX 16384             /* /proc/vmstat is ~6 KiB on Linux 6.1 */

enum hold_mode { HOLD_PLAIN, HOLD_PAGEOUT, HOLD_COLD, HOLD_NOCOLD, HOLD_RESERVED, HOLD_PIECES, HOLD_AREAS };
static const char *const hold_mode_names[] = { "hold", "pageout", "cold", "nocold", "reserved", "pieces", "areas" };
#define HOLD_PIECES_N 128

static uint64_t pattern(uint64_t page, uint64_t word) { return rt_mix64(page * 4099 + word + 0x51ed27); }

/* One /proc/vmstat counter; false (one line on stderr, once) if unreadable. */
static bool vmstat_get(const char *name, uint64_t *v)
{
	static char text[HOLD_PROC_MAX];
	static bool warned;
	long n = wlio_read_text("/proc/vmstat", text, sizeof text);
	if (n >= 0 && wlio_proc_field(text, name, ' ', v))
		return true;
	if (!warned)
		rt_dprintf(2, "hold: /proc/vmstat: no %s (%s); counter fields left out\n", name,
			   n < 0 ? wlio_errno_name(n) : "not in the file");
	warned = true;
	return false;
}

static uint64_t majflt_now(void)
{
	struct rt_rusage ru;
	return rt_getrusage(RT_RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_majflt : 0;
}

static void fill(uint64_t *m, uint64_t from, uint64_t to)
{
	for (uint64_t p = from; p < to; p++)
		for (uint64_t w = 0; w < 512; w += 64)
			m[p * 512 + w] = pattern(p, w);
}

static uint64_t verify(const uint64_t *m, uint64_t from, uint64_t to, uint64_t *bad)
{
	for (uint64_t p = from; p < to; p++)
		for (uint64_t w = 0; w < 512; w += 64)
			if (m[p * 512 + w] != pattern(p, w) && (*bad)++ < 4)
				rt_dprintf(2, "hold: page %llu word %llu wrong\n", (unsigned long long)p, (unsigned long long)w);
	return *bad;
}

static void advise(void *a, uint64_t bytes, int advice, const char *name)
{
	int r = rt_madvise(a, bytes, advice);
	if (r) {
		rt_dprintf(2, "hold: madvise(%s) of %llu bytes failed: %s (%d)\n", name, (unsigned long long)bytes,
			   wlio_errno_name(r), -r);
		rt_exit_group(3);
	}
}

static enum hold_mode parse_mode(const char *s, uint64_t *arg)
{
	if (!rt_strcmp(s, "pageout"))
		return HOLD_PAGEOUT;
	if (!rt_strcmp(s, "reserved"))
		return HOLD_RESERVED;
	if (!rt_strcmp(s, "pieces"))
		return HOLD_PIECES;
	const char *rest = NULL;
	enum hold_mode m = HOLD_PLAIN;
	if (s[0] == 'c' && s[1] == 'o' && s[2] == 'l' && s[3] == 'd' && s[4] == ':')
		m = HOLD_COLD, rest = s + 5;
	else if (s[0] == 'n' && s[1] == 'o' && s[2] == 'c' && s[3] == 'o' && s[4] == 'l' && s[5] == 'd' && s[6] == ':')
		m = HOLD_NOCOLD, rest = s + 7;
	else if (s[0] == 'a' && s[1] == 'r' && s[2] == 'e' && s[3] == 'a' && s[4] == 's' && s[5] == ':')
		m = HOLD_AREAS, rest = s + 6;
	if (!rest || rt_parse_u64_range(rest, 1, m == HOLD_AREAS ? 65000 : 1 << 20, arg))
		rt_usage_error(HOLD_USAGE, "hold: advice '%s': expected pageout, reserved, pieces, areas:N (N 1..65000), cold:MIB or nocold:MIB (MIB 1..1048576)", s);
	return m;
}

/* Private memory written page by page: the pressure of the cold modes. */
static uint64_t *pressure(uint64_t mib)
{
	uint64_t *r = rt_mmap(0, mib * RT_MIB, RT_PROT_READ | RT_PROT_WRITE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(r)) {
		rt_dprintf(2, "hold: mmap of %llu MiB of pressure failed\n", (unsigned long long)mib);
		rt_exit_group(3);
	}
	for (uint64_t p = 0; p < mib * 256; p++)
		r[p * 512] = p;
	return r;
}

/* n one-page areas that do not merge, left mapped to the end: a range
 * found free, then mapped page by page upwards, alternately read-only and
 * read-write (each new area lands beside the last one made). */
static bool small_areas(uint64_t n)
{
	char *a = rt_mmap(0, n * RT_PAGE_SIZE, RT_PROT_READ | RT_PROT_WRITE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(a)) {
		rt_dprintf(2, "hold: mmap of %llu pages for areas failed (error %d)\n", (unsigned long long)n, rt_mmap_error(a));
		return false;
	}
	rt_munmap(a, n * RT_PAGE_SIZE);
	for (uint64_t i = 0; i < n; i++) {
		void *q = rt_mmap(a + i * RT_PAGE_SIZE, RT_PAGE_SIZE, i & 1 ? RT_PROT_READ : RT_PROT_READ | RT_PROT_WRITE,
				  RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | 0x10, -1, 0);
		if (rt_mmap_failed(q)) {
			rt_dprintf(2, "hold: mmap of area %llu of %llu failed (error %d)\n", (unsigned long long)i,
				   (unsigned long long)n, rt_mmap_error(q));
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		rt_dprintf(2, "usage: %s\n", HOLD_USAGE);
		return 2;
	}
	uint64_t mib = rt_arg_u64("hold", HOLD_USAGE, "SIZE_MIB", argv[1], 1, 1 << 20);
	uint64_t secs = rt_arg_u64("hold", HOLD_USAGE, "SECONDS", argv[2], 0, 86400);
	bool shared = argc >= 4 && !rt_strcmp(argv[3], "shmem");
	if (argc >= 4 && !shared && rt_strcmp(argv[3], "anon")) {
		rt_dprintf(2, "hold: mapping must be anon or shmem, not '%s'\n", argv[3]);
		return 2;
	}
	uint64_t pmib = 0;
	enum hold_mode mode = argc == 5 ? parse_mode(argv[4], &pmib) : HOLD_PLAIN;
	uint64_t start = rt_now_ns(), pages = mib * 256, half = pages / 2;
	char *at = 0;
	int fixed = 0;
	if (mode == HOLD_RESERVED) {
		/* 64 TiB of address space reserved, the region in its middle. */
		at = rt_mmap(0, 64ull << 40, RT_PROT_NONE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | RT_MAP_NORESERVE, -1, 0);
		if (rt_mmap_failed(at)) {
			rt_dprintf(2, "hold: mmap of a 64 TiB PROT_NONE reservation failed (error %d)\n", rt_mmap_error(at));
			return 3;
		}
		at += 32ull << 40;
		fixed = 0x10;           /* MAP_FIXED */
	}
	if (mode == HOLD_AREAS && !small_areas(pmib))
		return 3;
	uint64_t *m = rt_mmap(at, mib * RT_MIB, RT_PROT_READ | RT_PROT_WRITE,
			      (shared ? RT_MAP_SHARED : RT_MAP_PRIVATE) | RT_MAP_ANONYMOUS | fixed, -1, 0);
	if (rt_mmap_failed(m)) {
		rt_dprintf(2, "hold: mmap of %llu MiB failed (error %d)\n", (unsigned long long)mib, rt_mmap_error(m));
		return 3;
	}
	if (mode == HOLD_PIECES) {
		/* The region again, as HOLD_PIECES_N mappings side by side (each
		 * its own shmem object when shared). */
		uint64_t each = (pages + HOLD_PIECES_N - 1) / HOLD_PIECES_N;
		for (uint64_t p = 0; p < pages; p += each) {
			uint64_t n = pages - p < each ? pages - p : each;
			void *q = rt_mmap((char *)m + p * RT_PAGE_SIZE, n * RT_PAGE_SIZE, RT_PROT_READ | RT_PROT_WRITE,
					  (shared ? RT_MAP_SHARED : RT_MAP_PRIVATE) | RT_MAP_ANONYMOUS | 0x10, -1, 0);
			if (rt_mmap_failed(q)) {
				rt_dprintf(2, "hold: mmap of a piece of %llu pages failed\n", (unsigned long long)n);
				return 3;
			}
		}
	}
	fill(m, 0, pages);
	uint64_t bad = 0, v0 = 0, v1 = 0, *r = NULL;
	bool counted = false;
	if (mode == HOLD_PAGEOUT || mode == HOLD_AREAS) {
		counted = vmstat_get("pswpout", &v0);
		advise(m, mib * RT_MIB, HOLD_MADV_PAGEOUT, "MADV_PAGEOUT");
		counted = counted && vmstat_get("pswpout", &v1);
	} else if (mode == HOLD_COLD || mode == HOLD_NOCOLD) {
		counted = vmstat_get("pgdeactivate", &v0);
		if (mode == HOLD_COLD)
			advise(m + half * 512, (pages - half) * RT_PAGE_SIZE, HOLD_MADV_COLD, "MADV_COLD");
		counted = counted && vmstat_get("pgdeactivate", &v1);
		verify(m, 0, half, &bad);       /* the hot half, read once more */
		r = pressure(pmib);
	}
	struct rt_timespec t = { (int64_t)secs, 0 };
	rt_nanosleep(&t, 0);
	if (r)
		rt_munmap(r, pmib * RT_MIB);
	uint64_t f0 = majflt_now();
	verify(m, 0, half, &bad);
	uint64_t f1 = majflt_now();
	verify(m, half, pages, &bad);
	uint64_t f2 = majflt_now();
	struct rt_json j;
	rt_report_begin(&j, "hold");
	rt_json_u64(&j, "size_mib", mib);
	rt_json_u64(&j, "mismatches", bad);
	if (mode != HOLD_PLAIN) {
		rt_json_str(&j, "mode", hold_mode_names[mode]);
		rt_json_str(&j, "mapping", shared ? "shmem" : "anon");
	}
	if (mode == HOLD_AREAS)
		rt_json_u64(&j, "areas", pmib);
	if (mode == HOLD_PAGEOUT || mode == HOLD_AREAS) {
		rt_json_u64(&j, "verify_majflt", f2 - f0);
		if (counted)
			rt_json_u64(&j, "pageout_pswpout", v1 - v0);
	} else if (mode == HOLD_COLD || mode == HOLD_NOCOLD) {
		rt_json_u64(&j, "pressure_mib", pmib);
		rt_json_u64(&j, "hot_majflt", f1 - f0);
		rt_json_u64(&j, "cold_majflt", f2 - f1);
		if (counted)
			rt_json_u64(&j, "cold_pgdeactivate", v1 - v0);
	}
	rt_report_usage(&j, start, rt_now_ns());
	rt_json_end(&j, 1);
	return bad ? 1 : 0;
}
