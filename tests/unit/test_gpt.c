/*
 * GPT parser tests.  Images are written by hand into byte arrays (both
 * copies, with correct CRCs), then damaged in the ways real disks get
 * damaged.  gpt_fixture_sgdisk parses an image made by sgdisk when
 * GPT_FIXTURE_DIR is set (make unit sets it).
 */
#include <stdlib.h>
#include "test.h"
#include "gpt.h"
#include "lib/crc32.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* A disk in memory; reads past its end or of fail_lba fail. */
struct disk {
	uint8_t *img;
	uint32_t ss;
	uint64_t nsec;          /* sectors actually in img */
	int64_t fail_lba;
	int reads;
};

static int disk_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct disk *d = ctx;
	d->reads++;
	if (count != 1 || lba >= d->nsec || (int64_t)lba == d->fail_lba)
		return -1;
	memcpy(buf, d->img + lba * d->ss, d->ss);
	return 0;
}

struct tpart {
	const uint8_t *type;
	uint64_t first, last;
	const char *name;
	uint64_t attrs;
};

/* Layout of a generated GPT: nent entries of entsize, arrays next to the headers. */
struct layout {
	uint32_t ss, nent, entsize;
	uint64_t nsec, arr_sec, first, last, backup_arr;
};

static struct layout make_layout(uint32_t ss, uint64_t nsec, uint32_t nent, uint32_t entsize)
{
	struct layout l = { ss, nent, entsize, nsec, 0, 0, 0, 0 };
	l.arr_sec = ((uint64_t)nent * entsize + ss - 1) / ss;
	l.first = 2 + l.arr_sec;
	l.backup_arr = nsec - 1 - l.arr_sec;
	l.last = l.backup_arr - 1;
	return l;
}

static void write_entries(uint8_t *arr, const struct layout *l, const struct tpart *p, int np)
{
	memset(arr, 0, l->arr_sec * l->ss);
	for (int i = 0; i < np; i++) {
		uint8_t *e = arr + (size_t)i * l->entsize;
		memcpy(e, p[i].type, 16);
		for (int k = 0; k < 16; k++)
			e[16 + k] = (uint8_t)(0x10 * i + k + 1);     /* unique GUID */
		put64(e + 32, p[i].first);
		put64(e + 40, p[i].last);
		put64(e + 48, p[i].attrs);
		for (int k = 0; p[i].name && p[i].name[k] && k < 36; k++)
			put16(e + 56 + 2 * k, (uint8_t)p[i].name[k]);
	}
}

static void fix_header_crc(uint8_t *h)
{
	uint32_t size = h[12] | h[13] << 8;
	put32(h + 16, 0);
	put32(h + 16, crc32(0, h, size));
}

static void write_header(uint8_t *img, const struct layout *l, uint64_t lba, uint64_t alt, uint64_t arr_lba)
{
	uint8_t *h = img + lba * l->ss;
	memset(h, 0, l->ss);
	memcpy(h, "EFI PART", 8);
	put32(h + 8, 0x00010000);
	put32(h + 12, 92);
	put64(h + 24, lba);
	put64(h + 32, alt);
	put64(h + 40, l->first);
	put64(h + 48, l->last);
	for (int k = 0; k < 16; k++)
		h[56 + k] = (uint8_t)(0xd0 + k);
	put64(h + 72, arr_lba);
	put32(h + 80, l->nent);
	put32(h + 84, l->entsize);
	put32(h + 88, crc32(0, img + arr_lba * l->ss, (size_t)l->nent * l->entsize));
	fix_header_crc(h);
}

static void write_pmbr(uint8_t *img, uint64_t nsec)
{
	memset(img, 0, 512);
	img[446 + 4] = 0xee;
	put32(img + 446 + 8, 1);
	put32(img + 446 + 12, nsec - 1 > 0xffffffff ? 0xffffffff : (uint32_t)(nsec - 1));
	img[510] = 0x55;
	img[511] = 0xaa;
}

/* A complete, valid GPT disk.  Caller frees img. */
static uint8_t *build(const struct layout *l, const struct tpart *p, int np)
{
	uint8_t *img = calloc(l->nsec, l->ss);
	write_pmbr(img, l->nsec);
	write_entries(img + 2 * l->ss, l, p, np);
	write_entries(img + l->backup_arr * l->ss, l, p, np);
	write_header(img, l, 1, l->nsec - 1, 2);
	write_header(img, l, l->nsec - 1, 1, l->backup_arr);
	return img;
}

static const struct tpart three[] = {
	{ GPT_TYPE_EFI_SYSTEM, 40, 59, "EFI system", GPT_ATTR_REQUIRED },
	{ GPT_TYPE_LINUX_SWAP, 60, 99, "swap one", 0 },
	{ GPT_TYPE_LINUX_FS, 100, 150, "root", 0 },
};

static struct gpt_disk gd;
static struct gpt_part parts[16];

static int parse(struct disk *d, uint64_t nsec)
{
	return gpt_parse(disk_read, d, nsec, d->ss, &gd, parts, 16);
}

static void check_three(void)
{
	CHECK_EQ(gd.nparts, 3);
	CHECK_EQ(parts[0].first_lba, 40);
	CHECK_EQ(parts[0].last_lba, 59);
	CHECK_EQ(parts[0].attrs, GPT_ATTR_REQUIRED);
	CHECK_STR(parts[0].name, "EFI system");
	CHECK_STR(gpt_type_name(parts[0].type), "EFI System");
	CHECK_EQ(parts[1].index, 1);
	CHECK_STR(parts[1].name, "swap one");
	CHECK_STR(gpt_type_name(parts[1].type), "Linux swap");
	CHECK_STR(gpt_type_name(parts[2].type), "Linux filesystem");
	CHECK_EQ(parts[2].uuid[0], 0x21);
	CHECK_EQ(parts[2].last_lba, 150);
}

TEST(gpt_good_disk)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	CHECK_EQ(parse(&d, 200), 3);
	check_three();
	CHECK_EQ(gd.mbr, GPT_MBR_PROTECTIVE);
	CHECK(!gd.used_backup);
	CHECK_EQ(gd.primary_error, 0);
	CHECK_EQ(gd.backup_error, 0);
	CHECK_EQ(gd.header_lba, 1);
	CHECK_EQ(gd.alt_lba, 199);
	CHECK_EQ(gd.first_usable, 34);
	CHECK_EQ(gd.last_usable, 166);
	CHECK_EQ(gd.entries_lba, 2);
	CHECK_EQ(gd.nentries, 128);
	CHECK_EQ(gd.entry_size, 128);
	CHECK_EQ(gd.disk_guid[0], 0xd0);
	CHECK_EQ(gd.nbad, 0);
	CHECK_EQ(gd.unlisted, 0);
	free(d.img);
}

TEST(gpt_truncated_disk)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 20, -1, 0 };
	/* The disk ends inside the primary array; the backup is gone. */
	CHECK_EQ(parse(&d, 20), GPT_EBOTHBAD);
	CHECK_EQ(gd.primary_error, GPT_EPASTEND);
	CHECK_EQ(gd.backup_error, GPT_ESIG);
	CHECK_CONTAINS(gpt_strerror(gd.primary_error), "past the end");
	/* Ends after the array but inside the usable range. */
	d.nsec = 100;
	CHECK_EQ(parse(&d, 100), GPT_EBOTHBAD);
	CHECK_EQ(gd.primary_error, GPT_EPASTEND);
	CHECK_EQ(parse(&d, 2), GPT_ESMALL);
	free(d.img);
}

TEST(gpt_corrupt_primary_header_uses_backup)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	d.img[512 + 40] ^= 1;                           /* first_usable, CRC now wrong */
	CHECK_EQ(parse(&d, 200), 3);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.primary_error, GPT_EHDRCRC);
	CHECK_EQ(gd.header_lba, 199);
	CHECK_EQ(gd.entries_lba, 167);
	check_three();
	free(d.img);
}

TEST(gpt_corrupt_primary_array_uses_backup)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	d.img[2 * 512 + 128 + 32] ^= 4;                 /* entry 1's first LBA */
	CHECK_EQ(parse(&d, 200), 3);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.primary_error, GPT_EARRAYCRC);
	check_three();
	free(d.img);
}

/* A 200-sector image written to a 1000-sector stick: the backup is found
 * through the primary's alternate LBA, not at the end of the disk. */
TEST(gpt_backup_found_at_alt_lba)
{
	struct layout l = make_layout(512, 200, 128, 128);
	uint8_t *small = build(&l, three, 3);
	struct disk d = { calloc(1000, 512), 512, 1000, -1, 0 };
	memcpy(d.img, small, 200 * 512);
	CHECK_EQ(parse(&d, 1000), 3);
	CHECK(!gd.used_backup);
	CHECK_EQ(gd.backup_error, 0);
	d.img[2 * 512 + 5] ^= 1;
	CHECK_EQ(parse(&d, 1000), 3);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.header_lba, 199);
	check_three();
	/* Primary header corrupt too: alt_lba is not trusted, the end of the
	 * disk has nothing. */
	d.img[512 + 40] ^= 1;
	CHECK_EQ(parse(&d, 1000), GPT_EBOTHBAD);
	CHECK_EQ(gd.primary_error, GPT_EHDRCRC);
	CHECK_EQ(gd.backup_error, GPT_ESIG);
	free(small);
	free(d.img);
}

TEST(gpt_primary_good_backup_missing_is_reported)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	memset(d.img + 199 * 512, 0, 512);
	CHECK_EQ(parse(&d, 200), 3);
	CHECK(!gd.used_backup);
	CHECK_EQ(gd.backup_error, GPT_ESIG);
	d.img[l.backup_arr * 512 + 7] ^= 1;
	write_header(d.img, &l, 199, 1, l.backup_arr);
	d.img[l.backup_arr * 512 + 7] ^= 1;
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.backup_error, GPT_EARRAYCRC);
	free(d.img);
}

TEST(gpt_both_bad)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	d.img[512 + 40] ^= 1;
	d.img[199 * 512 + 40] ^= 1;
	CHECK_EQ(parse(&d, 200), GPT_EBOTHBAD);
	CHECK_EQ(gd.primary_error, GPT_EHDRCRC);
	CHECK_EQ(gd.backup_error, GPT_EHDRCRC);
	CHECK_EQ(gd.nparts, 0);
	memset(d.img, 0, 200 * 512);
	CHECK_EQ(parse(&d, 200), GPT_ENOGPT);
	CHECK_EQ(gd.mbr, GPT_MBR_NONE);
	free(d.img);
}

TEST(gpt_entry_outside_usable_range_dropped)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct tpart p[] = {
		{ GPT_TYPE_LINUX_FS, 30, 50, "starts in the array", 0 },
		{ GPT_TYPE_LINUX_FS, 60, 70, "fine", 0 },
		{ GPT_TYPE_LINUX_FS, 160, 170, "ends past last usable", 0 },
		{ GPT_TYPE_LINUX_FS, 90, 80, "reversed", 0 },
	};
	struct disk d = { build(&l, p, 4), 512, 200, -1, 0 };
	CHECK_EQ(parse(&d, 200), 1);
	CHECK_STR(parts[0].name, "fine");
	CHECK_EQ(gd.nbad, 3);
	CHECK_EQ(gd.bad[0].index, 0);
	CHECK_EQ(gd.bad[0].err, GPT_EPARTRANGE);
	CHECK_EQ(gd.bad[1].index, 2);
	CHECK_EQ(gd.bad[1].err, GPT_EPARTRANGE);
	CHECK_EQ(gd.bad[1].last_lba, 170);
	CHECK_EQ(gd.bad[2].err, GPT_EPARTORDER);
	free(d.img);
}

TEST(gpt_overlapping_entries_dropped)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct tpart p[] = {
		{ GPT_TYPE_LINUX_FS, 40, 80, "a", 0 },
		{ GPT_TYPE_LINUX_FS, 80, 90, "b shares sector 80", 0 },
		{ GPT_TYPE_LINUX_FS, 81, 90, "c", 0 },
		{ GPT_TYPE_LINUX_FS, 35, 100, "d covers all", 0 },
	};
	struct disk d = { build(&l, p, 4), 512, 200, -1, 0 };
	CHECK_EQ(parse(&d, 200), 2);
	CHECK_STR(parts[0].name, "a");
	CHECK_STR(parts[1].name, "c");
	CHECK_EQ(gd.nbad, 2);
	CHECK_EQ(gd.bad[0].index, 1);
	CHECK_EQ(gd.bad[0].err, GPT_EPARTOVERLAP);
	CHECK_EQ(gd.bad[1].index, 3);
	CHECK_CONTAINS(gpt_strerror(gd.bad[1].err), "overlaps");
	free(d.img);
}

TEST(gpt_4096_byte_sectors)
{
	struct layout l = make_layout(4096, 64, 128, 128);
	struct tpart p[] = {
		{ GPT_TYPE_EFI_SYSTEM, 6, 20, "ESP", 0 },
		{ GPT_TYPE_LINUX_SWAP, 21, 57, "swap", 0 },
	};
	struct disk d = { build(&l, p, 2), 4096, 64, -1, 0 };
	CHECK_EQ(l.first, 6);
	CHECK_EQ(l.last, 58);
	CHECK_EQ(parse(&d, 64), 2);
	CHECK_EQ(gd.sector_size, 4096);
	CHECK_EQ(parts[1].last_lba, 57);
	CHECK_STR(parts[1].name, "swap");
	/* The same bytes read as 512-byte sectors are not a GPT there. */
	d.ss = 512;
	d.nsec = 64 * 8;
	CHECK(parse(&d, 64 * 8) < 0);
	d.ss = 4096;
	d.nsec = 64;
	d.img[4096 + 4096 - 1] ^= 1;                    /* header CRC covers only 92 bytes */
	CHECK_EQ(parse(&d, 64), 2);
	CHECK(!gd.used_backup);
	d.img[4096 + 3] ^= 1;
	CHECK_EQ(parse(&d, 64), 2);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.primary_error, GPT_ESIG);
	CHECK_EQ(gpt_parse(disk_read, &d, 64, 1024 + 512, &gd, parts, 16), GPT_EARG);
	CHECK_EQ(gpt_parse(disk_read, &d, 64, 8192, &gd, parts, 16), GPT_EARG);
	free(d.img);
}

TEST(gpt_large_entries_and_few_slots)
{
	struct layout l = make_layout(512, 300, 64, 256);       /* 256-byte entries */
	struct disk d = { build(&l, three, 3), 512, 300, -1, 0 };
	CHECK_EQ(parse(&d, 300), 3);
	check_three();
	CHECK_EQ(gpt_parse(disk_read, &d, 300, 512, &gd, parts, 2), 2);
	CHECK_EQ(gd.unlisted, 1);
	CHECK_EQ(gpt_parse(disk_read, &d, 300, 512, &gd, NULL, 0), 0);
	CHECK_EQ(gd.unlisted, 3);
	free(d.img);
}

static void rewrite_primary(struct disk *d, int field, uint32_t v)
{
	put32(d->img + 512 + field, v);
	fix_header_crc(d->img + 512);
}

TEST(gpt_header_field_checks)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	uint8_t saved[512];
	memcpy(saved, d.img + 512, 512);
	struct { int field; uint32_t v; int err; } cases[] = {
		{ 8, 0x00020000, GPT_EREV },
		{ 12, 91, GPT_EHDRSIZE },
		{ 12, 513, GPT_EHDRSIZE },
		{ 24, 2, GPT_EMYLBA },
		{ 84, 100, GPT_EENTSIZE },
		{ 84, 0, GPT_EENTSIZE },
		{ 80, 0x00100000, GPT_EENTCOUNT },
		{ 72, 1, GPT_EARRAYLOC },               /* array over the header */
		{ 72, 30, GPT_EARRAYLOC },              /* array runs into the usable range */
		{ 72, 190, GPT_EPASTEND },
		{ 40, 1, GPT_EUSABLE },                 /* usable range covers the header */
		{ 40, 170, GPT_EUSABLE },               /* first > last */
		{ 48, 200, GPT_EPASTEND },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memcpy(d.img + 512, saved, 512);
		rewrite_primary(&d, cases[i].field, cases[i].v);
		CHECK_EQ(parse(&d, 200), 3);
		CHECK(gd.used_backup);
		if (gd.primary_error != cases[i].err)
			test_fail(__FILE__, __LINE__, "case %zu: primary_error %d (%s), want %d", i,
				  gd.primary_error, gpt_strerror(gd.primary_error), cases[i].err);
	}
	/* A header size up to the sector size is fine when the CRC covers it. */
	memcpy(d.img + 512, saved, 512);
	rewrite_primary(&d, 12, 512);
	CHECK_EQ(parse(&d, 200), 3);
	CHECK(!gd.used_backup);
	free(d.img);
}

TEST(gpt_read_errors)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, 1, 0 };
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.primary_error, GPT_EIO);
	CHECK(gd.used_backup);
	d.fail_lba = 0;
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.mbr, GPT_MBR_UNREADABLE);
	CHECK(!gd.used_backup);
	d.fail_lba = 10;                                /* inside the primary array */
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.primary_error, GPT_EIO);
	/* Primary header bad and a read error half-way through the backup
	 * array: an error, and no half-decoded partitions left behind. */
	d.img[512 + 40] ^= 1;
	d.fail_lba = 170;
	CHECK_EQ(parse(&d, 200), GPT_EBOTHBAD);
	CHECK_EQ(gd.backup_error, GPT_EIO);
	CHECK_EQ(gd.nparts, 0);
	CHECK_EQ(gd.nbad, 0);
	d.img[512 + 40] ^= 1;
	/* Never reads beyond the disk size it was given. */
	d.fail_lba = -1;
	d.nsec = 150;
	d.reads = 0;
	CHECK(parse(&d, 150) < 0);
	CHECK(d.reads > 0);
	free(d.img);
}

TEST(gpt_mbr_kinds)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	d.img[446 + 16 + 4] = 0x83;
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.mbr, GPT_MBR_HYBRID);
	d.img[446 + 4] = 0x07;
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.mbr, GPT_MBR_FOREIGN);
	d.img[511] = 0;
	CHECK_EQ(parse(&d, 200), 3);
	CHECK_EQ(gd.mbr, GPT_MBR_NONE);
	CHECK_STR(gpt_mbr_name(GPT_MBR_PROTECTIVE), "protective MBR");
	free(d.img);
}

TEST(gpt_names_to_ascii)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct tpart p[] = { { GPT_TYPE_LINUX_FS, 40, 50, NULL, 0 }, { GPT_TYPE_LINUX_FS, 51, 52, NULL, 0 } };
	struct disk d = { calloc(200, 512), 512, 200, -1, 0 };
	uint8_t *img = build(&l, p, 2);
	memcpy(d.img, img, 200 * 512);
	uint8_t *e = d.img + 2 * 512;
	/* "A", e-acute, U+1F600 as a surrogate pair, "z" */
	uint16_t name[] = { 'A', 0x00e9, 0xd83d, 0xde00, 'z', 0 };
	for (int k = 0; k < 6; k++)
		put16(e + 56 + 2 * k, name[k]);
	/* Entry 1: all 36 units used, no NUL. */
	for (int k = 0; k < 36; k++)
		put16(e + 128 + 56 + 2 * k, (uint16_t)('a' + k % 26));
	write_header(d.img, &l, 1, 199, 2);
	CHECK_EQ(parse(&d, 200), 2);
	CHECK_STR(parts[0].name, "A??z");
	CHECK_EQ(strlen(parts[1].name), 36);
	CHECK_EQ(parts[1].name[35], 'j');
	free(img);
	free(d.img);
}

TEST(gpt_guid_text)
{
	char s[GPT_GUID_STR_LEN];
	gpt_guid_str(GPT_TYPE_LINUX_SWAP, s);
	CHECK_STR(s, "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F");
	gpt_guid_str(GPT_TYPE_EFI_SYSTEM, s);
	CHECK_STR(s, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B");
	uint8_t g[16];
	CHECK(gpt_guid_parse("ebd0a0a2-b9e5-4433-87c0-68b6b72699c7", g));
	CHECK(!memcmp(g, GPT_TYPE_MS_BASIC_DATA, 16));
	CHECK_STR(gpt_type_name(g), "Microsoft basic data");
	CHECK(gpt_guid_parse("0FC63DAF-8483-4772-8E79-3D69D8477DE4", g));
	CHECK(!memcmp(g, GPT_TYPE_LINUX_FS, 16));
	CHECK(!gpt_guid_parse("0FC63DAF-8483-4772-8E79-3D69D8477DE", g));
	CHECK(!gpt_guid_parse("0FC63DAF-8483-4772-8E79-3D69D8477DE44", g));
	CHECK(!gpt_guid_parse("0FC63DAF+8483-4772-8E79-3D69D8477DE4", g));
	CHECK(!gpt_guid_parse("0FC63DAG-8483-4772-8E79-3D69D8477DE4", g));
	CHECK(!gpt_guid_parse("", g));
	g[0] ^= 1;
	CHECK(gpt_type_name(g) == NULL);
	uint8_t z[16] = { 0 };
	CHECK(gpt_guid_is_zero(z));
	CHECK(!gpt_guid_is_zero(g));
}

TEST(gpt_strerror_distinct)
{
	for (int a = GPT_ENOTCHECKED; a <= 0; a++)
		for (int b = a + 1; b <= 0; b++)
			if (!strcmp(gpt_strerror(a), gpt_strerror(b)))
				test_fail(__FILE__, __LINE__, "errors %d and %d share a message", a, b);
	CHECK_CONTAINS(gpt_strerror(-99), "unknown");
}

/* ------------------------------------------------ a real image from sgdisk */

static uint8_t *read_file(const char *dir, const char *name, size_t *size)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	*size = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

/* Must match tests/unit/gen-gpt-fixture.sh. */
TEST(gpt_fixture_sgdisk)
{
	const char *dir = getenv("GPT_FIXTURE_DIR");
	if (!dir) {
		printf("note: gpt_fixture_sgdisk skipped (GPT_FIXTURE_DIR unset)\n");
		return;
	}
	size_t size;
	uint8_t *img = read_file(dir, "gpt-sgdisk.img", &size);
	CHECK(img != NULL);
	if (!img)
		return;
	CHECK_EQ(size, 8u << 20);
	struct disk d = { img, 512, size / 512, -1, 0 };
	CHECK_EQ(parse(&d, d.nsec), 3);
	CHECK_EQ(gd.mbr, GPT_MBR_PROTECTIVE);
	CHECK(!gd.used_backup);
	CHECK_EQ(gd.backup_error, 0);
	CHECK_EQ(gd.first_usable, 34);
	CHECK_EQ(gd.last_usable, d.nsec - 34);
	CHECK_EQ(gd.nentries, 128);
	char s[GPT_GUID_STR_LEN];
	gpt_guid_str(gd.disk_guid, s);
	CHECK_STR(s, "11111111-2222-3333-4444-555555555555");

	CHECK_EQ(parts[0].first_lba, 2048);
	CHECK_EQ(parts[0].last_lba, 2048 + 2048 - 1);
	CHECK_STR(gpt_type_name(parts[0].type), "EFI System");
	CHECK_STR(parts[0].name, "EFI system");

	CHECK_EQ(parts[1].index, 1);
	CHECK_EQ(parts[1].first_lba, 4096);
	CHECK_EQ(parts[1].last_lba, 4096 + 4096 - 1);
	gpt_guid_str(parts[1].type, s);
	CHECK_STR(s, "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F");
	CHECK_STR(gpt_type_name(parts[1].type), "Linux swap");
	CHECK_STR(parts[1].name, "mm swap");
	gpt_guid_str(parts[1].uuid, s);
	CHECK_STR(s, "AAAAAAAA-BBBB-CCCC-DDDD-000000000002");

	CHECK_EQ(parts[2].first_lba, 8192);
	CHECK_EQ(parts[2].last_lba, gd.last_usable);
	CHECK_STR(gpt_type_name(parts[2].type), "Linux filesystem");
	CHECK_STR(parts[2].name, "data");
	CHECK_EQ(parts[2].attrs, GPT_ATTR_LEGACY_BOOTABLE);

	/* The same image with its primary header smashed: backup used. */
	memset(img + 512, 0xff, 92);
	CHECK_EQ(parse(&d, d.nsec), 3);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.primary_error, GPT_ESIG);
	CHECK_STR(parts[1].name, "mm swap");
	free(img);
}

/* ------------------------------------------------ the read cache (gpt_cache) */

/* Like disk_read but for any count; a read touching fail_lba fails, and a
 * read outside the disk or longer than the cache is counted as misuse.
 * Every sector read is counted in sectors_read. */
static int misuse;
static uint32_t max_count;
static uint64_t sectors_read;

static int disk_read_n(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct disk *d = ctx;
	d->reads++;
	if (!count || count > max_count || lba >= d->nsec || count > d->nsec - lba) {
		misuse++;
		return -1;
	}
	sectors_read += count;
	if (d->fail_lba >= 0 && (uint64_t)d->fail_lba >= lba && (uint64_t)d->fail_lba < lba + count)
		return -1;
	memcpy(buf, d->img + lba * d->ss, (size_t)count * d->ss);
	return 0;
}

static struct gpt_cache cache;
static uint8_t cbuf[64 << 10];

static int parse_cached(struct disk *d, uint64_t nsec, uint32_t cap)
{
	misuse = 0;
	max_count = cap;
	sectors_read = 0;
	d->reads = 0;
	gpt_cache_init(&cache, disk_read_n, d, nsec, d->ss, cbuf, cap);
	return gpt_parse(gpt_cache_read, &cache, nsec, d->ss, &gd, parts, 16);
}

TEST(gpt_cache_four_reads_for_a_table)
{
	struct layout l = make_layout(512, 2000, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 2000, -1, 0 };
	CHECK_EQ(parse_cached(&d, 2000, 128), 3);
	check_three();
	CHECK_EQ(gd.backup_error, 0);
	/* MBR+primary header, primary array, backup header, backup array:
	 * the 67 sectors the parser reads, and no others. */
	CHECK_EQ(d.reads, 4);
	CHECK_EQ(cache.reads, 4);
	CHECK_EQ(sectors_read, 67);
	CHECK_EQ(misuse, 0);
	/* A cache of 16 sectors takes each array in two reads. */
	CHECK_EQ(parse_cached(&d, 2000, 16), 3);
	CHECK_EQ(d.reads, 6);
	CHECK_EQ(sectors_read, 67);
	/* A one-sector cache is the parser on its own: 1 + 1 + 32 + 1 + 32. */
	CHECK_EQ(parse_cached(&d, 2000, 1), 3);
	CHECK_EQ(d.reads, 67);
	CHECK_EQ(misuse, 0);
	/* A blank disk: LBA 0-1 and the last LBA, 1.5 KiB in all. */
	memset(d.img, 0, 2000 * 512);
	CHECK_EQ(parse_cached(&d, 2000, 128), GPT_ENOGPT);
	CHECK_EQ(d.reads, 2);
	CHECK_EQ(sectors_read, 3);
	free(d.img);
}

TEST(gpt_cache_small_disk_and_4k_sectors)
{
	struct layout l = make_layout(512, 100, 16, 128);
	struct tpart two[] = { { GPT_TYPE_LINUX_FS, 6, 20, "a", 0 }, { GPT_TYPE_LINUX_FS, 21, 94, "b", 0 } };
	struct disk d = { build(&l, two, 2), 512, 100, -1, 0 };
	CHECK_EQ(parse_cached(&d, 100, 128), 2);
	CHECK_EQ(d.reads, 4);
	CHECK_EQ(misuse, 0);
	free(d.img);
	struct layout k = make_layout(4096, 64, 128, 128);
	struct tpart p[] = { { GPT_TYPE_EFI_SYSTEM, 6, 20, "ESP", 0 }, { GPT_TYPE_LINUX_SWAP, 21, 57, "swap", 0 } };
	struct disk e = { build(&k, p, 2), 4096, 64, -1, 0 };
	CHECK_EQ(parse_cached(&e, 64, 16), 2);
	CHECK_EQ(e.reads, 4);
	CHECK_STR(parts[1].name, "swap");
	CHECK_EQ(misuse, 0);
	free(e.img);
}

/* The backup of an image dd'ed to a bigger stick sits mid-disk, at the
 * primary's alternate LBA, its array just before it. */
TEST(gpt_cache_backup_in_the_middle)
{
	struct layout l = make_layout(512, 2000, 128, 128);
	uint8_t *small = build(&l, three, 3);
	struct disk d = { calloc(8000, 512), 512, 8000, -1, 0 };
	memcpy(d.img, small, 2000 * 512);
	CHECK_EQ(parse_cached(&d, 8000, 128), 3);
	CHECK_EQ(gd.backup_error, 0);
	CHECK_EQ(d.reads, 4);
	d.img[2 * 512 + 5] ^= 1;                /* primary array bad: the backup is used */
	CHECK_EQ(parse_cached(&d, 8000, 128), 3);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.header_lba, 1999);
	check_three();
	CHECK_EQ(d.reads, 4);
	CHECK_EQ(misuse, 0);
	free(small);
	free(d.img);
}

TEST(gpt_cache_bad_sector_fails_only_itself)
{
	struct layout l = make_layout(512, 2000, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 2000, 20, 0 };
	/* LBA 20 is in the primary array: the array read fails, sectors
	 * 2..20 are then read one by one until 20 fails; the backup, with
	 * a header of its own, is read in two reads again. */
	CHECK_EQ(parse_cached(&d, 2000, 128), 3);
	check_three();
	CHECK_EQ(gd.primary_error, GPT_EIO);
	CHECK(gd.used_backup);
	CHECK_EQ(gd.mbr, GPT_MBR_PROTECTIVE);
	CHECK_EQ(d.reads, 1 + 1 + 19 + 2);
	/* The primary header unreadable: the LBA 0-1 read fails, LBA 0 alone
	 * is fine, LBA 1 alone fails; the backup is used. */
	d.fail_lba = 1;
	CHECK_EQ(parse_cached(&d, 2000, 128), 3);
	CHECK_EQ(gd.primary_error, GPT_EIO);
	CHECK_EQ(gd.mbr, GPT_MBR_PROTECTIVE);
	CHECK(gd.used_backup);
	CHECK_EQ(d.reads, 3 + 2);
	d.fail_lba = 1990;                      /* in the backup array */
	CHECK_EQ(parse_cached(&d, 2000, 128), 3);
	CHECK_EQ(gd.backup_error, GPT_EIO);
	CHECK(!gd.used_backup);
	CHECK_EQ(misuse, 0);
	free(d.img);
}

TEST(gpt_cache_read_bounds)
{
	struct layout l = make_layout(512, 200, 128, 128);
	struct disk d = { build(&l, three, 3), 512, 200, -1, 0 };
	uint8_t buf[8 * 512];
	misuse = 0;
	max_count = 8;
	gpt_cache_init(&cache, disk_read_n, &d, 200, 512, cbuf, 8);
	CHECK_EQ(gpt_cache_read(&cache, 200, 1, buf), -1);      /* past the end */
	CHECK_EQ(gpt_cache_read(&cache, 199, 2, buf), -1);      /* across the end */
	CHECK_EQ(gpt_cache_read(&cache, 0, 9, buf), -1);        /* longer than the cache */
	CHECK_EQ(gpt_cache_read(&cache, 0, 0, buf), -1);
	CHECK_EQ(cache.reads, 0);
	CHECK_EQ(gpt_cache_read(&cache, 199, 1, buf), 0);       /* the last sector: a header */
	CHECK(!memcmp(buf, d.img + 199 * 512, 512));
	CHECK_EQ(gpt_cache_read(&cache, 167, 1, buf), 0);       /* its array, 8 sectors at once */
	CHECK_EQ(gpt_cache_read(&cache, 168, 7, buf), 0);
	CHECK(!memcmp(buf, d.img + 168 * 512, 7 * 512));
	CHECK_EQ(cache.reads, 2);
	CHECK_EQ(gpt_cache_read(&cache, 3, 8, buf), 0);         /* the whole cache */
	CHECK(!memcmp(buf, d.img + 3 * 512, 8 * 512));
	CHECK_EQ(cache.reads, 3);
	/* A header naming an array past the end or absurdly large plans
	 * nothing beyond the disk. */
	uint8_t *h = d.img + 199 * 512;
	put64(h + 72, 196);
	put32(h + 80, 0x7fffffff);
	gpt_cache_init(&cache, disk_read_n, &d, 200, 512, cbuf, 8);
	CHECK_EQ(gpt_cache_read(&cache, 199, 1, buf), 0);
	CHECK_EQ(gpt_cache_read(&cache, 196, 1, buf), 0);
	CHECK_EQ(cache.count, 1);
	put32(h + 80, 128);
	gpt_cache_init(&cache, disk_read_n, &d, 200, 512, cbuf, 8);
	CHECK_EQ(gpt_cache_read(&cache, 199, 1, buf), 0);
	CHECK_EQ(gpt_cache_read(&cache, 196, 1, buf), 0);
	CHECK_EQ(cache.count, 4);                               /* 196..199, not past 200 */
	CHECK_EQ(misuse, 0);
	free(d.img);
}

/* All 128 entries of a standard array in use (the block layer registers
 * them all); with room for fewer, the rest are counted as unlisted. */
TEST(gpt_128_partitions)
{
	struct layout l = make_layout(512, 600, 128, 128);
	static struct tpart p[128];
	static struct gpt_part many[128];
	for (int i = 0; i < 128; i++)
		p[i] = (struct tpart){ GPT_TYPE_LINUX_FS, 40 + 4 * (uint64_t)i, 43 + 4 * (uint64_t)i, "p", 0 };
	struct disk d = { build(&l, p, 128), 512, 600, -1, 0 };
	CHECK_EQ(gpt_parse(disk_read, &d, 600, 512, &gd, many, 128), 128);
	CHECK_EQ(gd.unlisted, 0);
	CHECK_EQ(many[127].index, 127);
	CHECK_EQ(many[127].first_lba, 40 + 4 * 127);
	CHECK_EQ(gpt_parse(disk_read, &d, 600, 512, &gd, many, 32), 32);
	CHECK_EQ(gd.unlisted, 96);
	free(d.img);
}
