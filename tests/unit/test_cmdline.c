#include "test.h"
#include "lib/cmdline.h"

static char msgs[8][300];
static int nmsgs;

static void rep(void *ctx, const char *m)
{
	(void)ctx;
	if (nmsgs < 8)
		snprintf(msgs[nmsgs], sizeof msgs[0], "%s", m);
	nmsgs++;
}

static uint64_t mem;
static bool mem_seen, verbose;
static char run[64];
static uint64_t hz;

static const struct cmdline_option opts[] = {
	{ "mem", CMDLINE_SIZE, &mem, 0, &mem_seen, "cap usable RAM" },
	{ "verbose", CMDLINE_BOOL, &verbose, 0, NULL, "more output" },
	{ "run", CMDLINE_STR, run, sizeof run, NULL, "program" },
	{ "hz", CMDLINE_U64, &hz, 0, NULL, "timer rate" },
};

static int apply(const char *line)
{
	mem = 0; mem_seen = verbose = false; run[0] = 0; hz = 100; nmsgs = 0;
	return cmdline_apply(line, opts, sizeof opts / sizeof opts[0], rep, NULL);
}

TEST(cmdline_parses_known_options)
{
	CHECK_EQ(apply("  mem=900M verbose run=\"touch 64 100000 seq anon\"  hz=0x3e8 "), 0);
	CHECK_EQ(mem, 900ull << 20);
	CHECK(mem_seen);
	CHECK(verbose);
	CHECK_STR(run, "touch 64 100000 seq anon");
	CHECK_EQ(hz, 1000);
	CHECK_EQ(nmsgs, 0);
}

TEST(cmdline_empty_line_is_defaults)
{
	CHECK_EQ(apply(""), 0);
	CHECK_EQ(apply("   \t "), 0);
	CHECK(!mem_seen);
	CHECK_EQ(hz, 100);
}

TEST(cmdline_unknown_option_named_and_ignored)
{
	CHECK_EQ(apply("frobnicate=3 mem=64M"), 1);
	CHECK_EQ(nmsgs, 1);
	CHECK_CONTAINS(msgs[0], "unknown option 'frobnicate'");
	CHECK_EQ(mem, 64ull << 20);
}

TEST(cmdline_malformed_values_keep_default)
{
	CHECK_EQ(apply("mem=lots verbose=maybe hz=12x mem"), 4);
	CHECK(!mem_seen);
	CHECK(!verbose);
	CHECK_EQ(hz, 100);
	CHECK_CONTAINS(msgs[0], "mem=lots");
	CHECK_CONTAINS(msgs[1], "verbose=maybe");
	CHECK_CONTAINS(msgs[2], "hz=12x");
	CHECK_CONTAINS(msgs[3], "'mem' needs a value");
}

TEST(cmdline_syntax_errors_stop_with_column)
{
	CHECK(apply("mem=64M run=\"unterminated") > 0);
	CHECK_EQ(mem, 64ull << 20);
	CHECK_CONTAINS(msgs[0], "unterminated quote");
	CHECK(apply("=5") > 0);
	CHECK_CONTAINS(msgs[0], "column 1");
	CHECK(apply("a=\"x\"y") > 0);
	CHECK_CONTAINS(msgs[0], "junk after the value of 'a'");
	CHECK(apply("mem=1M !") > 0);
	CHECK_CONTAINS(msgs[0], "column 8");
}

TEST(cmdline_long_values_rejected)
{
	char line[600];
	memset(line, 'x', sizeof line);
	memcpy(line, "run=", 4);
	line[sizeof line - 1] = 0;
	CHECK(apply(line) > 0);
	CHECK_CONTAINS(msgs[0], "longer than");
	CHECK(apply("run=0123456789012345678901234567890123456789012345678901234567890123456789") > 0);
	CHECK_STR(run, "");
}

TEST(cmdline_sizes)
{
	uint64_t v;
	CHECK(cmdline_parse_size("4096", &v)); CHECK_EQ(v, 4096);
	CHECK(cmdline_parse_size("64k", &v)); CHECK_EQ(v, 65536);
	CHECK(cmdline_parse_size("2G", &v)); CHECK_EQ(v, 2ull << 30);
	CHECK(cmdline_parse_size("1T", &v)); CHECK_EQ(v, 1ull << 40);
	CHECK(cmdline_parse_size("900MB", &v)); CHECK_EQ(v, 900ull << 20);
	CHECK(cmdline_parse_size("900MiB", &v)); CHECK_EQ(v, 900ull << 20);
	CHECK(!cmdline_parse_size("", &v));
	CHECK(!cmdline_parse_size("M", &v));
	CHECK(!cmdline_parse_size("12Q", &v));
	CHECK(!cmdline_parse_size("12MX", &v));
	CHECK(!cmdline_parse_size("99999999999999999999", &v));
	CHECK(!cmdline_parse_size("17179869184T", &v));
	CHECK(!cmdline_parse_size("-1", &v));
}
