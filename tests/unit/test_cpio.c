/*
 * The newc cpio reader (kernel/lib/cpio.c) that a PVH boot reads its
 * files from: archives laid out as tools/mkinitrd (and cpio -H newc)
 * write them, then damaged ones.
 */
#include <stdlib.h>
#include "test.h"
#include "lib/cpio.h"

struct arc {
	uint8_t b[4096];
	size_t n;
};

static void entry(struct arc *a, const char *name, uint32_t mode, const char *data)
{
	size_t dl = data ? strlen(data) : 0, nl = strlen(name) + 1;
	a->n += (size_t)snprintf((char *)a->b + a->n, sizeof a->b - a->n,
				 "070701%08x%08x%08x%08x%08x%08x%08zx%08x%08x%08x%08x%08zx%08x",
				 1u, mode, 0u, 0u, 1u, 0u, dl, 0u, 0u, 0u, 0u, nl, 0u);
	memcpy(a->b + a->n, name, nl);
	a->n = (a->n + nl + 3) & ~(size_t)3;
	memcpy(a->b + a->n, data ? data : "", dl);
	a->n = (a->n + dl + 3) & ~(size_t)3;
}

struct seen {
	int n;
	char names[8][32];
	uint64_t sizes[8];
	char first[16];
	int stop_after;
};

static bool collect(void *ctx, const struct cpio_entry *e)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		snprintf(s->names[s->n], sizeof s->names[0], "%s", e->name);
		s->sizes[s->n] = e->size;
		if (s->n == 1)
			snprintf(s->first, sizeof s->first, "%.*s", (int)e->size, (const char *)e->data);
	}
	s->n++;
	return s->stop_after == 0 || s->n < s->stop_after;
}

static void sample(struct arc *a)
{
	memset(a, 0, sizeof *a);
	entry(a, "bin", 0040755, NULL);
	entry(a, "bin/touch", 0100755, "ELF..");
	entry(a, "scripts/a.mm", 0100644, "run hello\n");
	entry(a, "TRAILER!!!", 0, NULL);
}

TEST(cpio_reads_every_entry_in_order)
{
	struct arc a;
	sample(&a);
	struct seen s = { 0 };
	uint64_t off = 99;
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_OK);
	CHECK_EQ(s.n, 3);
	CHECK_STR(s.names[0], "bin");
	CHECK_STR(s.names[1], "bin/touch");
	CHECK_STR(s.names[2], "scripts/a.mm");
	CHECK_EQ(s.sizes[1], 5);
	CHECK_STR(s.first, "ELF..");
	CHECK_EQ(s.sizes[2], 10);
}

TEST(cpio_stops_when_told)
{
	struct arc a;
	sample(&a);
	struct seen s = { .stop_after = 2 };
	uint64_t off;
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_OK);
	CHECK_EQ(s.n, 2);
}

TEST(cpio_refuses_damaged_archives)
{
	struct arc a;
	struct seen s;
	uint64_t off;

	sample(&a);
	a.b[0] = 'x';
	s = (struct seen){ 0 };
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_EMAGIC);
	CHECK_EQ(off, 0);
	CHECK_EQ(s.n, 0);

	/* The second header's file size field holds a non-hex digit. */
	sample(&a);
	size_t second = 112 + 4;        /* "bin\0" padded: 110 + 4 -> 116 */
	a.b[second + 6 + 8 * 6] = 'g';
	s = (struct seen){ 0 };
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_EHEX);
	CHECK_EQ(off, second);
	CHECK_EQ(s.n, 1);

	/* Cut inside the second file's data. */
	sample(&a);
	s = (struct seen){ 0 };
	CHECK_EQ(cpio_walk(a.b, second + 110 + 12, collect, &s, &off), CPIO_ETRUNC);
	CHECK_EQ(s.n, 1);

	/* No trailer: the archive just ends after an entry. */
	memset(&a, 0, sizeof a);
	entry(&a, "bin/touch", 0100755, "ELF..");
	s = (struct seen){ 0 };
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_ENOTRAILER);
	CHECK_EQ(s.n, 1);

	/* A name whose NUL is not its last byte. */
	sample(&a);
	a.b[110 + 1] = 0;                       /* "b\0n\0" */
	s = (struct seen){ 0 };
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_ENAME);

	/* Name size 0. */
	sample(&a);
	memcpy(a.b + 6 + 8 * 11, "00000000", 8);
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_ENAME);

	/* A file size past the end, and the largest one a field can say. */
	sample(&a);
	memcpy(a.b + second + 6 + 8 * 6, "ffffffff", 8);
	CHECK_EQ(cpio_walk(a.b, a.n, collect, &s, &off), CPIO_ETRUNC);
	CHECK_EQ(cpio_walk(a.b, 0, collect, &s, &off), CPIO_ENOTRAILER);
	CHECK_EQ(cpio_walk(a.b, 50, collect, &s, &off), CPIO_ETRUNC);
	CHECK(strcmp(cpio_strerror(CPIO_ETRUNC), "truncated") == 0);
}
