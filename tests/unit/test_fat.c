/*
 * The FAT extent finder (boot/fat.c) on real volumes made by mkfs.fat and
 * mtools (tests/unit/gen-fat-fixture.sh, FAT_FIXTURE_DIR): each file is
 * read back through the runs the parser found and compared with the bytes
 * written, including a file mtools had to write in pieces; then damaged
 * copies of those volumes must fail with the right error.
 */
#include <stdlib.h>
#include "test.h"
#include "boot/fat.h"

struct img {
	uint8_t *data;
	size_t size;
	uint32_t block;
	int fail_from;          /* reads at or past this block fail; -1 never */
	int reads;
};

static int img_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct img *m = ctx;
	m->reads++;
	if ((m->fail_from >= 0 && lba + count > (uint64_t)m->fail_from) ||
	    (lba + count) * m->block > m->size)
		return -1;
	memcpy(buf, m->data + lba * m->block, (size_t)count * m->block);
	return 0;
}

static uint8_t *load(const char *dir, const char *name, size_t *size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(*size ? *size : 1);
	if (fread(buf, 1, *size, f) != *size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static struct fat_vol vol;
static struct fat_extent ext[64];

/* Read the file's bytes through its runs; compare with want. */
static void check_bytes(const struct img *m, const struct fat_extent *e, int n, const uint8_t *want, size_t len)
{
	size_t at = 0;
	uint64_t blocks = 0;
	for (int i = 0; i < n; i++) {
		CHECK((e[i].lba + e[i].blocks) * m->block <= m->size);
		size_t bytes = (size_t)e[i].blocks * m->block;
		size_t cmp = len - at < bytes ? len - at : bytes;
		CHECK(!memcmp(m->data + e[i].lba * m->block, want + at, cmp));
		at += cmp;
		blocks += e[i].blocks;
	}
	CHECK_EQ(at, len);
	CHECK_EQ(blocks, (len + m->block - 1) / m->block);     /* no block past the last byte */
}

/* Mount name, find path, check its runs hold payload.  Returns the number
 * of runs (or an error). */
static int fixture(const char *dir, const char *name, uint32_t block, const char *path, const char *payload,
		   int type)
{
	size_t size, plen;
	struct img m = { load(dir, name, &size), 0, block, -1, 0 };
	uint8_t *want = load(dir, payload, &plen);
	CHECK(m.data && want);
	if (!m.data || !want)
		return -100;
	m.size = size;
	int n = fat_mount(&vol, img_read, &m, block, size / block);
	CHECK_EQ(n, 0);
	CHECK_EQ(vol.type, type);
	struct fat_file f;
	if (!n)
		n = fat_lookup(&vol, path, &f);
	CHECK_EQ(n, 0);
	if (!n) {
		CHECK_EQ(f.size, plen);
		n = fat_extents(&vol, &f, ext, 64);
		CHECK(n > 0);
		if (n > 0)
			check_bytes(&m, ext, n, want, plen);
	}
	free(m.data);
	free(want);
	return n;
}

static const char *fixture_dir(const char *test)
{
	const char *dir = getenv("FAT_FIXTURE_DIR");
	if (!dir)
		printf("note: %s skipped (FAT_FIXTURE_DIR unset)\n", test);
	return dir;
}

TEST(fat_fixture_fat32)
{
	const char *dir = fixture_dir("fat_fixture_fat32");
	if (!dir)
		return;
	CHECK_EQ(fixture(dir, "fat32.img", 512, "results/0001.jsonl", "pay-big", 32), 1);
	CHECK_EQ(fixture(dir, "fat32.img", 512, "\\RESULTS\\0001.JSONL", "pay-big", 32), 1);
	CHECK_EQ(fixture(dir, "fat32.img", 512, "a long name for a file.DAT", "pay-long", 32), 1);
	CHECK_EQ(fixture(dir, "fat32.img", 512, "short.txt", "pay-small", 32), 1);
}

TEST(fat_fixture_fragmented)
{
	const char *dir = fixture_dir("fat_fixture_fragmented");
	if (!dir)
		return;
	/* mtools found only the two holes: the file is in two runs. */
	CHECK_EQ(fixture(dir, "fat16-frag.img", 512, "results/0001.jsonl", "pay-frag", 16), 2);
	CHECK(ext[0].lba + ext[0].blocks < ext[1].lba);
}

TEST(fat_fixture_fat12_and_4k)
{
	const char *dir = fixture_dir("fat_fixture_fat12_and_4k");
	if (!dir)
		return;
	CHECK_EQ(fixture(dir, "fat12.img", 512, "hello.txt", "pay-hello", 12), 1);
	/* 4096-byte FAT sectors on a 512-byte device and on a 4Kn one. */
	CHECK_EQ(fixture(dir, "fat16-4k.img", 512, "results/0002.jsonl", "pay-k4", 16), 1);
	CHECK_EQ(fixture(dir, "fat16-4k.img", 4096, "results/0002.jsonl", "pay-k4", 16), 1);
}

/* A fresh copy of fat32.img, mounted. */
static struct img damaged(const char *dir)
{
	size_t size = 0;
	struct img m = { load(dir, "fat32.img", &size), 0, 512, -1, 0 };
	m.size = size;
	return m;
}

static int lookup_extents(struct img *m, const char *path)
{
	int err = fat_mount(&vol, img_read, m, 512, m->size / 512);
	struct fat_file f;
	if (!err)
		err = fat_lookup(&vol, path, &f);
	if (!err)
		err = fat_extents(&vol, &f, ext, 64);
	return err;
}

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* Byte offset of cluster c's entry in the first FAT of a mounted FAT32. */
static size_t fat32_entry(uint32_t c) { return (size_t)vol.reserved * vol.sector_size + (size_t)c * 4; }

TEST(fat_errors_on_real_volume)
{
	const char *dir = fixture_dir("fat_errors_on_real_volume");
	if (!dir)
		return;
	struct img m = damaged(dir);
	CHECK(m.data != NULL);
	if (!m.data)
		return;
	CHECK(lookup_extents(&m, "results/0001.jsonl") == 1);
	CHECK_EQ(lookup_extents(&m, "results/0002.jsonl"), FAT_ENOENT);
	CHECK_EQ(lookup_extents(&m, "results"), FAT_EISDIR);
	CHECK_EQ(lookup_extents(&m, "short.txt/x"), FAT_ENOTDIR);
	CHECK_EQ(lookup_extents(&m, ""), FAT_EPATH);
	CHECK_EQ(lookup_extents(&m, "//"), FAT_EPATH);
	CHECK_EQ(lookup_extents(&m, "results//0001.jsonl"), FAT_EPATH);

	/* Too few runs allowed: the fragmented file in one slot. */
	struct fat_file f;
	CHECK_EQ(fat_lookup(&vol, "results/0001.jsonl", &f), 0);
	uint32_t c1 = f.first_cluster, c2 = rd32(m.data + fat32_entry(c1)) & 0x0fffffff;
	CHECK_EQ(c2, c1 + 1);
	wr32(m.data + fat32_entry(c1), c1 + 3);         /* skip two clusters: two runs */
	wr32(m.data + fat32_entry(c1 + 3), c2 + 3);
	CHECK_EQ(fat_extents(&vol, &f, ext, 1), FAT_EEXTENTS);
	vol.cached = ~0ull;

	wr32(m.data + fat32_entry(c1), c1);             /* a loop onto itself */
	CHECK_EQ(lookup_extents(&m, "results/0001.jsonl"), FAT_ECHAIN);
	wr32(m.data + fat32_entry(c1), 0);              /* free in the middle of a chain */
	CHECK_EQ(lookup_extents(&m, "results/0001.jsonl"), FAT_ECHAIN);
	wr32(m.data + fat32_entry(c1), 0x0ffffff8);     /* ends early */
	CHECK_EQ(lookup_extents(&m, "results/0001.jsonl"), FAT_ECHAIN);
	wr32(m.data + fat32_entry(c1), 0x0ffffff7);     /* bad cluster */
	CHECK_EQ(lookup_extents(&m, "results/0001.jsonl"), FAT_ECHAIN);
	wr32(m.data + fat32_entry(c1), c2);

	m.fail_from = (int)vol.data_start;              /* directories unreadable */
	CHECK_EQ(lookup_extents(&m, "results/0001.jsonl"), FAT_EIO);
	m.fail_from = -1;
	CHECK_EQ(fat_mount(&vol, img_read, &m, 512, m.size / 512 / 2), FAT_EGEOMETRY);   /* volume > device */
	CHECK_EQ(fat_mount(&vol, img_read, &m, 1000, m.size / 1000), FAT_EGEOMETRY);
	m.data[510] = 0;
	CHECK_EQ(fat_mount(&vol, img_read, &m, 512, m.size / 512), FAT_ENOTFAT);
	CHECK_EQ(fat_lookup(&vol, "results/0001.jsonl", &f), FAT_EGEOMETRY);        /* not mounted */
	m.data[510] = 0x55;
	m.data[13] = 3;                                 /* sectors per cluster not a power of two */
	CHECK_EQ(fat_mount(&vol, img_read, &m, 512, m.size / 512), FAT_EGEOMETRY);
	free(m.data);
}

TEST(fat_strerror_names_every_error)
{
	for (int e = FAT_EIO; e >= FAT_EDIRLOOP; e--)
		CHECK(strcmp(fat_strerror(e), "unknown error") != 0);
}
