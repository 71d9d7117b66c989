/*
 * The results file's layout (kernel/run/results_log.c), replayed against
 * a fake disk: lines are taken in odd-sized batches, each write goes
 * through rlog_map into scattered runs of blocks, and after every write
 * the file read back through the runs must be the lines so far, one
 * trailer naming their length, and newlines; blocks outside the runs are
 * never touched; a full file stops with RLOG_FULL and a valid file.
 */
#include <stdlib.h>
#include "test.h"
#include "run/results_log.h"

#define DISK_BLOCKS 256
#define BS 512u

static uint8_t disk[DISK_BLOCKS * BS];

struct source {
	char *text;             /* all lines ever emitted */
	size_t len, taken;
	size_t batch;           /* lines released per take, to vary the writes */
};

static size_t take(void *ctx, char *dst, size_t cap, bool *more)
{
	struct source *s = ctx;
	size_t n = 0, lines = 0;
	while (s->taken + n < s->len && lines < s->batch) {
		const char *nl = memchr(s->text + s->taken + n, '\n', s->len - s->taken - n);
		size_t l = (size_t)(nl - (s->text + s->taken + n)) + 1;
		if (n + l > cap)
			break;
		n += l;
		lines++;
	}
	memcpy(dst, s->text + s->taken, n);
	s->taken += n;
	*more = s->taken < s->len;
	return n;
}

static bool has(const uint8_t *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(hay + i, needle, k))
			return true;
	return false;
}

static void write_disk(const struct boot_extent *runs, int nruns, const char *stage, uint64_t off, size_t len)
{
	for (size_t done = 0; done < len;) {
		uint64_t left;
		uint64_t lba = rlog_map(runs, nruns, BS, off + done, &left);
		CHECK(left > 0);
		if (!left)
			return;
		size_t n = len - done < left ? len - done : (size_t)left;
		memcpy(disk + lba * BS, stage + done, n);
		done += n;
	}
}

static void read_file(const struct boot_extent *runs, int nruns, uint8_t *out)
{
	size_t at = 0;
	for (int i = 0; i < nruns; i++) {
		memcpy(out + at, disk + runs[i].lba * BS, runs[i].blocks * BS);
		at += runs[i].blocks * BS;
	}
}

/* The file holds text[0..valid), a trailer saying so, newlines. */
static void check_file(const uint8_t *f, size_t size, const char *text, uint64_t valid, bool final)
{
	CHECK(!memcmp(f, text, valid));
	char want[128];
	snprintf(want, sizeof want, "{\"type\":\"results_file\",\"file\":\"results/0001.jsonl\",\"valid_bytes\":%llu,",
		 (unsigned long long)valid);
	CHECK(!memcmp(f + valid, want, strlen(want)));
	const uint8_t *nl = memchr(f + valid, '\n', size - valid);
	CHECK(nl != NULL);
	if (!nl)
		return;
	CHECK(has(f + valid, (size_t)(nl - f) - valid, final ? "\"final\":true}" : "\"final\":false}"));
	for (const uint8_t *p = nl; p < f + size; p++)
		if (*p != '\n') {
			CHECK_EQ(*p, '\n');
			break;
		}
}

static char *make_lines(int count, size_t *len)
{
	char *t = malloc((size_t)count * 64);
	size_t n = 0;
	for (int i = 0; i < count; i++)
		n += (size_t)sprintf(t + n, "{\"type\":\"result\",\"run\":%d,\"pad\":\"%.*s\"}\n", i, i % 23, "xxxxxxxxxxxxxxxxxxxxxxx");
	*len = n;
	return t;
}

/* Three scattered runs, 40 blocks in all; the blocks around them hold 0xee. */
static const struct boot_extent runs[3] = { { 10, 3 }, { 50, 17 }, { 200, 20 } };

static bool outside_untouched(void)
{
	for (size_t b = 0; b < DISK_BLOCKS; b++) {
		bool in = false;
		for (int i = 0; i < 3; i++)
			in |= b >= runs[i].lba && b < runs[i].lba + runs[i].blocks;
		for (size_t k = 0; !in && k < BS; k++)
			if (disk[b * BS + k] != 0xee)
				return false;
	}
	return true;
}

static void fresh_disk(void)
{
	memset(disk, 0xee, sizeof disk);
	for (int i = 0; i < 3; i++)
		memset(disk + runs[i].lba * BS, '\n', runs[i].blocks * BS);
}

TEST(results_log_writes_replay)
{
	static char stage[4096];
	static uint8_t file[40 * BS];
	fresh_disk();
	size_t len;
	struct source src = { make_lines(120, &len), 0, 0, 1 };
	src.len = (size_t)((char *)memchr(src.text + len / 2, '\n', len - len / 2) - src.text) + 1;
	/* ... the rest of the lines appear later */
	struct rlog l = { 40 * BS, BS, stage, sizeof stage, "results/0001.jsonl", 0, 0, 0 };
	for (int round = 0; round < 60 && src.taken < len; round++) {
		src.batch = 1 + (size_t)round % 7;
		if (round == 20)
			src.len = len;
		struct rlog_write w;
		CHECK_EQ(rlog_prepare(&l, take, &src, false, &w), 0);
		CHECK_EQ(w.base % BS, 0);
		CHECK_EQ(w.len % BS, 0);
		CHECK(w.base + w.len <= l.file_bytes);
		write_disk(runs, 3, stage, w.base, w.len);
		rlog_commit(&l, &w);
		read_file(runs, 3, file);
		check_file(file, sizeof file, src.text, l.off, false);
		CHECK_EQ(l.off, src.taken);
	}
	CHECK_EQ(src.taken, len);
	struct rlog_write w;
	CHECK_EQ(rlog_prepare(&l, take, &src, true, &w), 0);       /* the final trailer, nothing new */
	CHECK_EQ(w.taken, 0);
	write_disk(runs, 3, stage, w.base, w.len);
	rlog_commit(&l, &w);
	read_file(runs, 3, file);
	check_file(file, sizeof file, src.text, len, true);
	CHECK(outside_untouched());
	free(src.text);
}

TEST(results_log_full_file)
{
	static char stage[2048];
	static uint8_t file[40 * BS];
	fresh_disk();
	size_t len;
	struct source src = { make_lines(2000, &len), 0, 0, 1000 };
	src.len = len;                          /* far more than 40 blocks */
	struct rlog l = { 40 * BS, BS, stage, sizeof stage, "results/0001.jsonl", 3, 0, 0 };
	int rc = 0, writes = 0;
	while (writes < 1000) {
		struct rlog_write w;
		rc = rlog_prepare(&l, take, &src, false, &w);
		if (rc)
			break;
		CHECK(w.base + w.len <= l.file_bytes);
		write_disk(runs, 3, stage, w.base, w.len);
		rlog_commit(&l, &w);
		writes++;
	}
	CHECK_EQ(rc, RLOG_FULL);
	CHECK(l.off + RLOG_TRAILER_MAX <= l.file_bytes);
	CHECK(l.off > l.file_bytes - RLOG_TRAILER_MAX - 64);          /* filled up to the last line that fit */
	read_file(runs, 3, file);
	check_file(file, sizeof file, src.text, l.off, false);
	CHECK(has(file, sizeof file, "\"lost_records\":3,"));
	CHECK(outside_untouched());
	free(src.text);
}

TEST(results_log_map_edges)
{
	uint64_t left;
	CHECK_EQ(rlog_map(runs, 3, BS, 0, &left), 10);
	CHECK_EQ(left, 3 * BS);
	CHECK_EQ(rlog_map(runs, 3, BS, 3 * BS - 1, &left), 12);
	CHECK_EQ(left, 1);
	CHECK_EQ(rlog_map(runs, 3, BS, 3 * BS, &left), 50);
	CHECK_EQ(left, 17 * BS);
	CHECK_EQ(rlog_map(runs, 3, BS, 40 * BS - 1, &left), 219);
	CHECK_EQ(left, 1);
	rlog_map(runs, 3, BS, 40 * BS, &left);
	CHECK_EQ(left, 0);
}
