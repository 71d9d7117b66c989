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
	return cmdline_apply(line, opts, sizeof opts / sizeof opts[0], NULL, rep, NULL);
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
	CHECK(!strstr(msgs[0], "did you mean"));
	CHECK_EQ(mem, 64ull << 20);
}

TEST(cmdline_typo_gets_the_nearest_option)
{
	/* A typo in cmdline.txt: the option it probably meant, and the rest
	 * of the line still applies. */
	CHECK_EQ(apply("verbsoe mme=64M hz=5"), 2);
	CHECK_EQ(nmsgs, 2);
	CHECK_STR(msgs[0], "cmdline: unknown option 'verbsoe' ignored (did you mean verbose?)");
	CHECK_STR(msgs[1], "cmdline: unknown option 'mme' ignored (did you mean mem?)");
	CHECK(!verbose && !mem_seen);
	CHECK_EQ(hz, 5);
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

TEST(cmdline_syntax_errors_name_the_token_and_parsing_goes_on)
{
	/* Each bad token: one message quoting it, and the options after it
	 * still apply. */
	CHECK_EQ(apply("junk\" mem=32M run=\"hello\""), 1);
	CHECK_EQ(nmsgs, 1);
	CHECK_STR(msgs[0], "cmdline: column 1: a quote outside a value in 'junk\"'; ignored");
	CHECK_EQ(mem, 32ull << 20);
	CHECK_STR(run, "hello");

	CHECK_EQ(apply("run=\"unterminated mem=64M"), 1);
	CHECK_STR(msgs[0], "cmdline: column 1: unterminated quote in 'run=\"unterminated'; ignored");
	CHECK_EQ(mem, 64ull << 20);
	CHECK_STR(run, "");

	CHECK_EQ(apply("mem=64M run=\"unterminated"), 1);
	CHECK_EQ(mem, 64ull << 20);

	CHECK_EQ(apply("=5 hz=7"), 1);
	CHECK_CONTAINS(msgs[0], "column 1: unexpected character in '=5'");
	CHECK_EQ(hz, 7);

	/* Junk after a quoted value: the whole token goes, quotes and all. */
	CHECK_EQ(apply("run=\"x y\"z verbose"), 1);
	CHECK_STR(msgs[0], "cmdline: column 1: junk after the value in 'run=\"x y\"z'; ignored");
	CHECK(verbose);
	CHECK_STR(run, "");

	CHECK_EQ(apply("mem=1M ! hz=9"), 1);
	CHECK_CONTAINS(msgs[0], "column 8");
	CHECK_EQ(mem, 1ull << 20);
	CHECK_EQ(hz, 9);

	/* Several in one line: each counted and named. */
	CHECK_EQ(apply("a\"b c=\"d\"e f=\"g verbose"), 3);
	CHECK_EQ(nmsgs, 3);
	CHECK(verbose);
}

TEST(cmdline_long_values_rejected_and_the_rest_applies)
{
	char line[700];
	memset(line, 'x', sizeof line);
	memcpy(line, "run=", 4);
	strcpy(line + 600, " mem=48M");
	CHECK_EQ(apply(line), 1);
	CHECK_CONTAINS(msgs[0], "xxx...'; ignored");
	CHECK_CONTAINS(msgs[0], "cmdline: column 1: value longer than 511 characters in 'run=xxx");
	CHECK_EQ(mem, 48ull << 20);
	CHECK_STR(run, "");
	/* The same, quoted and with blanks inside: skipped to its closing quote. */
	memset(line, 'y', sizeof line);
	memcpy(line, "run=\"", 5);
	line[300] = ' ';
	strcpy(line + 598, "\" mem=40M");
	CHECK_EQ(apply(line), 1);
	CHECK_EQ(mem, 40ull << 20);
	/* Option names too. */
	CHECK_EQ(apply("abcdefghijabcdefghijabcdefghijabcdefghij=\"1 2\" mem=8M"), 1);
	CHECK_CONTAINS(msgs[0], "option name longer than 31 characters");
	CHECK_EQ(mem, 8ull << 20);
	CHECK_EQ(nmsgs, 1);
	/* A value longer than its option's buffer: named, default kept. */
	CHECK(apply("run=0123456789012345678901234567890123456789012345678901234567890123456789") > 0);
	CHECK_STR(run, "");
}

/* A check as config.c has: hz in 10..10000, "missing" always refused. */
static bool check(const struct cmdline_option *o, const char *val, char *why, size_t n)
{
	if (!strcmp(o->name, "missing")) {
		snprintf(why, n, "not implemented yet");
		return false;
	}
	if (strcmp(o->name, "hz"))
		return true;
	uint64_t v;
	if (cmdline_parse_u64(val, &v) && v >= 10 && v <= 10000)
		return true;
	snprintf(why, n, "'%s' is not a number in 10..10000", val);
	return false;
}

TEST(cmdline_checked_values_keep_the_default_and_nothing_else_changes)
{
	static const struct cmdline_option checked[] = {
		{ "mem", CMDLINE_SIZE, &mem, 0, &mem_seen, "" },
		{ "hz", CMDLINE_U64, &hz, 0, NULL, "" },
		{ "missing", CMDLINE_U64, NULL, 0, NULL, "" },
	};
	mem = 0; hz = 100; nmsgs = 0;
	CHECK_EQ(cmdline_apply("mem=16M hz=5 missing=3 missing", checked, 3, check, rep, NULL), 3);
	CHECK_EQ(hz, 100);
	CHECK_EQ(mem, 16ull << 20);
	CHECK_STR(msgs[0], "cmdline: hz=5: '5' is not a number in 10..10000; default kept");
	CHECK_STR(msgs[1], "cmdline: missing=3: not implemented yet; ignored");
	CHECK_STR(msgs[2], "cmdline: missing: not implemented yet; ignored");
	CHECK_EQ(cmdline_apply("hz=250", checked, 3, check, rep, NULL), 0);
	CHECK_EQ(hz, 250);
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
