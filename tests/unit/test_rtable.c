#include "test.h"
#include "lib/json.h"
#include "lib/stats.h"
#include "run/rtable.h"

static const struct rtable_row rows[] = {
	{ "real time", true, false },
	{ "pgmajfault", false, false },
	{ "swap-in p50 (us)", true, true },
};
static const char *const columns[] = { "RA=3", "own±" };

struct lines {
	char text[16][RTABLE_LINE_MAX];
	int n;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;
	if (l->n < 16)
		snprintf(l->text[l->n++], RTABLE_LINE_MAX, "%s", line);
}

static struct rtable table(struct rtable_sample *s, uint32_t *runs, uint32_t failed)
{
	/* Column 0: real time 100, 110, 120 ms; majflt 10, 20, 30; p50 4, 6, 8 us.
	 * Column 1: one run, failed. */
	for (int i = 0; i < 3; i++)
		s[i] = (struct rtable_sample){ 0, false, { (100 + 10 * (uint64_t)i) * 1000000, 10 + 10 * (uint64_t)i,
							   (4 + 2 * (uint64_t)i) * 1000 }, 0 };
	s[3] = (struct rtable_sample){ 1, true, { 5000000, 7, 1500 }, 0 };
	runs[0] = 3;
	runs[1] = 1;
	return (struct rtable){ "t.mm", rows, 3, columns, 2, runs, failed, s, 4 };
}

/* The table's record fields as one JSON object in buf. */
static void json_of(const struct rtable *t, char *buf, size_t n)
{
	struct json j;
	json_init(&j, buf, n);
	json_obj_begin(&j, NULL);
	rtable_json(t, &j);
	json_obj_end(&j);
}

TEST(rtable_prints_aligned_mean_stderr)
{
	struct rtable_sample s[4];
	uint32_t runs[2];
	struct rtable t = table(s, runs, 1);
	struct lines l = { .n = 0 };
	rtable_print(&t, collect, &l);
	CHECK_EQ(l.n, 2 + 1 + 2 + 3);           /* blank, title, labels, runs, failed runs, 3 rows */
	CHECK_STR(l.text[0], "");
	CHECK_CONTAINS(l.text[1], "script t.mm: mean\xc2\xb1stderr");
	CHECK_CONTAINS(l.text[3], "runs");
	CHECK_CONTAINS(l.text[4], "failed runs");
	CHECK_CONTAINS(l.text[5], "real time");
	CHECK_CONTAINS(l.text[5], "110\xc2\xb1" "6   5.0");     /* sd 10 ms over 3 runs: stderr 5.77; one run: its value */
	CHECK_CONTAINS(l.text[6], "20\xc2\xb1" "6");
	CHECK_CONTAINS(l.text[7], "6.0\xc2\xb1" "1.2");
	/* Every line from the labels on has the same display width: cells
	 * are right-aligned in one width per column. */
	size_t w = stats_width(l.text[2]);
	for (int i = 3; i < l.n; i++)
		CHECK_EQ(stats_width(l.text[i]), w);
	/* The failed-runs line counts per column. */
	const char *f = l.text[4] + strlen(l.text[4]) - 1;
	CHECK_EQ(*f, '1');
}

TEST(rtable_without_failures_has_no_failed_line)
{
	struct rtable_sample s[4];
	uint32_t runs[2];
	struct rtable t = table(s, runs, 0);
	struct lines l = { .n = 0 };
	rtable_print(&t, collect, &l);
	CHECK_EQ(l.n, 2 + 1 + 1 + 3);
	for (int i = 0; i < l.n; i++)
		CHECK(!strstr(l.text[i], "failed"));
}

TEST(rtable_json_cells_in_row_units)
{
	struct rtable_sample s[4];
	uint32_t runs[2];
	struct rtable t = table(s, runs, 1);
	char buf[4096];
	json_of(&t, buf, sizeof buf);
	CHECK_CONTAINS(buf, "\"script\":\"t.mm\"");
	CHECK_CONTAINS(buf, "\"columns\":[\"RA=3\",\"own\xc2\xb1\"]");
	CHECK_CONTAINS(buf, "{\"name\":\"real time\",\"unit\":\"ms\",\"cells\":[{\"n\":3,\"mean\":110.000,");
	CHECK_CONTAINS(buf, "{\"name\":\"pgmajfault\",\"unit\":\"count\",\"cells\":[{\"n\":3,\"mean\":20.00,\"stderr\":5.77,\"sd\":10.00}");
	CHECK_CONTAINS(buf, "{\"name\":\"swap-in p50 (us)\",\"unit\":\"us\",\"cells\":[{\"n\":3,\"mean\":6.000,");
	CHECK_CONTAINS(buf, "{\"n\":1,\"mean\":7.00,\"stderr\":0.00,\"sd\":0.00}");
}

TEST(rtable_empty_column_is_null_and_dash)
{
	struct rtable_sample s[4];
	uint32_t runs[2];
	struct rtable t = table(s, runs, 0);
	t.nsamples = 3;                         /* column 1 has no runs */
	runs[1] = 0;
	char buf[4096];
	json_of(&t, buf, sizeof buf);
	CHECK_CONTAINS(buf, "{\"n\":0,\"mean\":null,\"stderr\":null,\"sd\":null}");
	struct lines l = { .n = 0 };
	rtable_print(&t, collect, &l);
	CHECK(l.text[5][strlen(l.text[5]) - 1] == '-');
}

TEST(rtable_missing_values_leave_the_run_out)
{
	struct rtable_sample s[4];
	uint32_t runs[2];
	struct rtable t = table(s, runs, 0);
	/* Run 2 of column 0 did not report pgmajfault (30): the cell is the
	 * mean of 10 and 20 over n = 2; the other rows keep all three runs. */
	s[2].missing = 1u << 1;
	char buf[4096];
	json_of(&t, buf, sizeof buf);
	CHECK_CONTAINS(buf, "{\"name\":\"pgmajfault\",\"unit\":\"count\",\"cells\":[{\"n\":2,\"mean\":15.00,\"stderr\":5.00,\"sd\":7.07}");
	CHECK_CONTAINS(buf, "{\"name\":\"real time\",\"unit\":\"ms\",\"cells\":[{\"n\":3,");
	/* A row missing in every run of a column is a dash, like a column
	 * without runs. */
	s[3].missing = 1u << 2;
	struct lines l = { .n = 0 };
	rtable_print(&t, collect, &l);
	CHECK_EQ(l.n, 7);                       /* no failed runs: rows from line 4 */
	CHECK(l.text[6][strlen(l.text[6]) - 1] == '-');
	CHECK_CONTAINS(l.text[5], "15\xc2\xb1" "5");
}

TEST(rtable_long_row_names_stay_aligned)
{
	static const struct rtable_row long_rows[] = {
		{ "real time", true, false },
		{ "shmdb.transactions_per_batch", false, false },
		{ "swap-in p50 (us)", true, true },
	};
	struct rtable_sample s[4];
	uint32_t runs[2];
	struct rtable t = table(s, runs, 1);
	t.rows = long_rows;
	struct lines l = { .n = 0 };
	rtable_print(&t, collect, &l);
	size_t w = stats_width(l.text[2]);
	for (int i = 3; i < l.n; i++)
		CHECK_EQ(stats_width(l.text[i]), w);
	CHECK_CONTAINS(l.text[6], "shmdb.transactions_per_batch ");
}
