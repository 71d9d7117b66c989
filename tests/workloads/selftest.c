/*
 * selftest.c - host unit tests for the runtime's pure parts and for vpage.
 *
 * Built by host-test.sh with the host's libc and -fsanitize=address,undefined
 * (the rt_ prefix keeps the runtime from clashing with libc), so the printf
 * formatter is compared against glibc's, and vpage is shown to catch the
 * corruptions it exists to catch. rt_thread and crt0 are not built here:
 * glibc owns %fs in this process.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt.h"
#include "vpage.h"
#include "wlio.h"

static int selftest_checks;
static int selftest_failed;

static void selftest_expect(bool ok, const char *what)
{
	selftest_checks++;
	if (ok)
		return;
	selftest_failed++;
	printf("FAIL: %s\n", what);
}

/* Formats with both rt_snprintf and libc and compares the results. */
#define SELFTEST_FMT(...)                                                     \
	do {                                                                  \
		char a_[128], b_[128];                                        \
		int na_ = rt_snprintf(a_, sizeof(a_), __VA_ARGS__);           \
		int nb_ = snprintf(b_, sizeof(b_), __VA_ARGS__);              \
		selftest_expect(na_ == nb_ && strcmp(a_, b_) == 0, #__VA_ARGS__); \
		if (na_ != nb_ || strcmp(a_, b_) != 0)                        \
			printf("  rt '%s' (%d) libc '%s' (%d)\n", a_, na_, b_, nb_); \
	} while (0)

static void selftest_printf(void)
{
	char buf[8];
	int n;

	SELFTEST_FMT("%d %i %u", -42, INT_MIN, 4000000000u);
	SELFTEST_FMT("[%5d][%-5d][%05d][%05d]", 42, 42, 42, -42);
	SELFTEST_FMT("%ld %lu %lld %llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
	SELFTEST_FMT("%zu %x %X %lx %08x", (size_t)123, 0xbeefu, 0xbeefu, 0xdeadbeefUL, 0xabu);
	SELFTEST_FMT("%p", (void *)0x7fff1234);
	SELFTEST_FMT("[%s][%10s][%-10s][%.3s]", "abc", "abc", "abc", "abcdef");
	SELFTEST_FMT("%c%c%% 100%%", 'o', 'k');
	SELFTEST_FMT("[%.0d][%.5d][%*d][%-*d]", 0, 42, 6, 7, 6, 7);
	SELFTEST_FMT("%hhu %hd %hu", 300, 70000, 70000);
	SELFTEST_FMT("%03llu.%02llu", 7ULL, 5ULL);
	n = rt_snprintf(buf, sizeof(buf), "%s", "hello, world");
	selftest_expect(n == 12 && strcmp(buf, "hello, ") == 0, "snprintf truncates");
	n = rt_snprintf(NULL, 0, "%d", 12345);
	selftest_expect(n == 5, "snprintf(NULL, 0) counts");
}

static void selftest_parse(void)
{
	uint64_t v = 0;

	selftest_expect(rt_parse_u64("0", &v) == 0 && v == 0, "parse 0");
	selftest_expect(rt_parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX,
			"parse max");
	selftest_expect(rt_parse_u64("18446744073709551616", &v) == -RT_ERANGE, "parse overflow");
	selftest_expect(rt_parse_u64("0x10", &v) == 0 && v == 16, "parse hex");
	selftest_expect(rt_parse_u64("", &v) == -RT_EINVAL, "parse empty");
	selftest_expect(rt_parse_u64("0x", &v) == -RT_EINVAL, "parse bare 0x");
	selftest_expect(rt_parse_u64("-1", &v) == -RT_EINVAL, "parse sign");
	selftest_expect(rt_parse_u64(" 1", &v) == -RT_EINVAL, "parse space");
	selftest_expect(rt_parse_u64("12a", &v) == -RT_EINVAL, "parse trailing junk");
	selftest_expect(rt_parse_u64_range("5", 1, 4, &v) == -RT_ERANGE, "range high");
	selftest_expect(rt_parse_u64_range("4", 1, 4, &v) == 0 && v == 4, "range edge");
	selftest_expect(rt_strcmp("abc", "abd") < 0 && rt_strcmp("b", "a") > 0 &&
			rt_strcmp("x", "x") == 0, "strcmp");
}

/* Runs rt_json_end into a pipe and returns what it wrote. */
static void selftest_json_capture(struct rt_json *j, char *out, size_t size)
{
	int fds[2];
	ssize_t n;

	if (pipe(fds) != 0) {
		out[0] = '\0';
		return;
	}
	rt_json_end(j, fds[1]);
	n = read(fds[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	close(fds[1]);
}

static void selftest_json(void)
{
	struct rt_json j;
	char out[RT_JSON_MAX + 64];

	rt_json_begin(&j);
	rt_json_str(&j, "s", "a\"b\\c\n");
	rt_json_u64(&j, "n", UINT64_MAX);
	rt_json_bool(&j, "t", true);
	selftest_json_capture(&j, out, sizeof(out));
	selftest_expect(strcmp(out, "{\"s\":\"a\\\"b\\\\c\\u000a\",\"n\":18446744073709551615,"
				    "\"t\":true}\n") == 0, "json escaping and fields");
	rt_json_begin(&j);
	for (int i = 0; i < 200; i++)
		rt_json_str(&j, "padding", "0123456789");
	selftest_json_capture(&j, out, sizeof(out));
	selftest_expect(strstr(out, "\"type\":\"error\"") != NULL, "json overflow record");
}

static void selftest_rng(void)
{
	struct rt_rng a, b, c;
	bool same = true, in_range = true;

	rt_rng_seed(&a, 0);
	rt_rng_seed(&b, 0);
	rt_rng_seed(&c, 42);
	selftest_expect(a.state != 0, "seed 0 avoids the fixed point");
	for (int i = 0; i < 10000; i++) {
		same = same && rt_rng_next(&a) == rt_rng_next(&b);
		in_range = in_range && rt_rng_below(&c, 7) < 7 &&
			   rt_rng_below(&c, 1ULL << 40) < (1ULL << 40);
	}
	selftest_expect(same, "rng is reproducible");
	selftest_expect(in_range, "rng_below stays below");
}

/* vpage must catch a lost write, a damaged copy and a stray write. */
static void selftest_vpage(void)
{
	struct vpage_set s;
	uint64_t *page3, *page5, *page9;

	if (vpage_map(&s, 16, false, "selftest(expected mismatch)") != 0) {
		selftest_expect(false, "vpage_map");
		return;
	}
	for (uint64_t p = 0; p < 8; p++) {
		vpage_touch(&s, p);
		vpage_touch(&s, p);
	}
	vpage_verify_all(&s);
	selftest_expect(s.mismatches == 0 && s.touched == 8, "vpage clean run");
	page3 = (uint64_t *)(s.base + 3 * RT_PAGE_SIZE);
	page5 = (uint64_t *)(s.base + 5 * RT_PAGE_SIZE);
	page9 = (uint64_t *)(s.base + 9 * RT_PAGE_SIZE);
	page3[0] ^= 1;				/* lost/garbled write */
	for (int w = 1; w < 512; w++)
		page5[w] = 0;			/* page only partly restored */
	page9[0] = 1;				/* never-touched page dirtied */
	vpage_verify_all(&s);
	selftest_expect(s.mismatches == 3, "vpage catches three corruptions");
	vpage_touch(&s, 3);
	selftest_expect(s.mismatches == 4, "vpage_touch checks before writing");
	vpage_unmap(&s);
}

/* The N-or-P% argument of shmdb SIZE and stream's rate. */
static void selftest_share(void)
{
	struct wlio_share sh;

	selftest_expect(wlio_parse_share("64", 100, 1000, &sh) == 0 && sh.value == 64 && !sh.percent,
			"share: plain number");
	selftest_expect(wlio_parse_share("80%", 100, 1000, &sh) == 0 && sh.value == 80 && sh.percent,
			"share: percentage");
	selftest_expect(wlio_share_of(&sh, 48) == 38, "share: 80% of 48 rounds down");
	selftest_expect(wlio_parse_share("1000%", 100, 1000, &sh) == 0 &&
			wlio_share_of(&sh, 1ULL << 50) == 10 * (1ULL << 50), "share: 1000% of 2^50");
	sh.value = 64;
	sh.percent = false;
	selftest_expect(wlio_share_of(&sh, 48) == 64, "share: a plain value ignores the whole");
	selftest_expect(wlio_parse_share("1001%", 100, 1000, &sh) == -RT_ERANGE, "share: over max_pct");
	selftest_expect(wlio_parse_share("101", 100, 1000, &sh) == -RT_ERANGE, "share: over max");
	selftest_expect(wlio_parse_share("0%", 100, 1000, &sh) == -RT_ERANGE, "share: 0%");
	selftest_expect(wlio_parse_share("0", 100, 1000, &sh) == -RT_ERANGE, "share: 0");
	selftest_expect(wlio_parse_share("%", 100, 1000, &sh) == -RT_EINVAL, "share: bare %");
	selftest_expect(wlio_parse_share("80%%", 100, 1000, &sh) == -RT_EINVAL, "share: %%");
	selftest_expect(wlio_parse_share("8%0", 100, 1000, &sh) == -RT_EINVAL, "share: % inside");
	selftest_expect(wlio_parse_share("-5%", 100, 1000, &sh) == -RT_EINVAL, "share: sign");
	selftest_expect(wlio_parse_share("5%", 100, 0, &sh) == -RT_EINVAL, "share: % not allowed");
	selftest_expect(wlio_parse_share("123456789012345678901234%", 100, 1000, &sh) == -RT_EINVAL,
			"share: overlong");
}

/* A row's checksum catches any changed word, a swapped pair, a wrong row. */
static void selftest_rows(void)
{
	uint64_t row[16], copy[16];

	wlio_row_write(row, 16, 7, 3, 1000);
	selftest_expect(wlio_row_check(row, 16, 7) == WLIO_ROW_OK, "row: fresh row checks");
	selftest_expect(wlio_row_check(row, 16, 8) == WLIO_ROW_BAD_ID, "row: another row's id");
	memcpy(copy, row, sizeof(row));
	bool all = true;
	for (int w = 0; w < 16; w++) {
		if (w == WLIO_ROW_SUM || w == WLIO_ROW_ID)
			continue;
		copy[w] ^= 1ULL << (w * 3 % 64);
		all = all && wlio_row_check(copy, 16, 7) == WLIO_ROW_BAD_SUM;
		copy[w] = row[w];
	}
	selftest_expect(all, "row: every single-bit change is caught");
	copy[5] = row[6];
	copy[6] = row[5];
	selftest_expect(wlio_row_check(copy, 16, 7) == WLIO_ROW_BAD_SUM, "row: swapped words");
	memcpy(copy, row, sizeof(row));
	copy[WLIO_ROW_SUM] ^= 1;
	selftest_expect(wlio_row_check(copy, 16, 7) == WLIO_ROW_BAD_SUM, "row: damaged checksum");
	wlio_row_write(copy, 16, 7, 4, 1000);
	copy[WLIO_ROW_VERSION] = 3;
	selftest_expect(wlio_row_check(copy, 16, 7) == WLIO_ROW_BAD_SUM,
			"row: new payload under an old version");
	memset(copy, 0, sizeof(copy));
	selftest_expect(wlio_row_check(copy, 16, 0) == WLIO_ROW_BAD_SUM, "row: a zero page");
}

/* Stamped blocks: ok, foreign, misplaced, damaged, and the generation. */
static void selftest_blocks(void)
{
	static uint64_t blk[WLIO_BLOCK_WORDS];
	uint64_t gen = 0;

	memset(blk, 0, sizeof(blk));
	selftest_expect(wlio_block_check(blk, 0, &gen) == WLIO_BLOCK_FOREIGN, "block: zeroes are foreign");
	wlio_block_fill(blk, 8192, 42);
	selftest_expect(wlio_block_check(blk, 8192, &gen) == WLIO_BLOCK_OK && gen == 42,
			"block: fresh block and its generation");
	selftest_expect(wlio_block_check(blk, 4096, &gen) == WLIO_BLOCK_MISPLACED,
			"block: read from another offset");
	blk[WLIO_BLOCK_WORDS - 1] ^= 1;
	selftest_expect(wlio_block_check(blk, 8192, &gen) == WLIO_BLOCK_DAMAGED, "block: last word");
	wlio_block_fill(blk, 8192, 42);
	blk[2] = 41;
	selftest_expect(wlio_block_check(blk, 8192, &gen) == WLIO_BLOCK_DAMAGED,
			"block: header of one generation, data of another");
	selftest_expect(strcmp(wlio_block_verdict_name(WLIO_BLOCK_MISPLACED), "misplaced") == 0,
			"block: verdict names");
}

static void selftest_pace(void)
{
	selftest_expect(wlio_pace_us(1 << 20, 0, 0) == 0, "pace: no limit");
	selftest_expect(wlio_pace_us(1 << 20, 1 << 20, 0) == 1000000, "pace: 1 MiB at 1 MiB/s");
	selftest_expect(wlio_pace_us(1 << 20, 1 << 20, 400000) == 600000, "pace: partly due");
	selftest_expect(wlio_pace_us(1 << 20, 1 << 20, 2000000) == 0, "pace: behind");
	selftest_expect(wlio_pace_us(1ULL << 44, WLIO_MAX_RATE, 0) == 16000000,
			"pace: 16 TiB at the top rate, no overflow");
	selftest_expect(wlio_pace_us((1ULL << 40) - 1, WLIO_MAX_RATE, 0) == 999999,
			"pace: a remainder near the top rate");
	selftest_expect(strcmp(wlio_errno_name(-2), "ENOENT") == 0 &&
			strcmp(wlio_errno_name(38), "ENOSYS") == 0 &&
			strcmp(wlio_errno_name(-999), "error") == 0, "errno names");
}

/* /proc lines: the field at a line's start only, with its separator. */
static void selftest_proc(void)
{
	const char *v = "nr_free_pages 17\nnr_inactive_anon 5\nnr_active_anon 900\nnr_inactive_file x\n"
			"pgscan_nr_active_anon 3";
	const char *m = "MemTotal:       131072 kB\nMemFree:\t  77 kB\n";
	uint64_t x = 0;

	selftest_expect(wlio_proc_field(v, "nr_active_anon", ' ', &x) && x == 900, "proc: a vmstat line");
	selftest_expect(wlio_proc_field(v, "nr_free_pages", ' ', &x) && x == 17, "proc: the first line");
	selftest_expect(!wlio_proc_field(v, "nr_inactive_file", ' ', &x), "proc: not a number");
	selftest_expect(!wlio_proc_field(v, "nr_active_file", ' ', &x), "proc: absent");
	selftest_expect(!wlio_proc_field(v, "nr_active", ' ', &x), "proc: a prefix is not the name");
	selftest_expect(wlio_proc_field(m, "MemFree", ':', &x) && x == 77, "proc: a meminfo line");
	selftest_expect(!wlio_proc_field(m, "MemTotal", ' ', &x), "proc: wrong separator");
	selftest_expect(!wlio_proc_field("", "MemFree", ':', &x), "proc: empty text");
}

int main(void)
{
	selftest_printf();
	selftest_parse();
	selftest_json();
	selftest_rng();
	selftest_vpage();
	selftest_share();
	selftest_rows();
	selftest_blocks();
	selftest_pace();
	selftest_proc();
	printf("selftest: %d checks, %d failed\n", selftest_checks, selftest_failed);
	return selftest_failed == 0 ? 0 : 1;
}
