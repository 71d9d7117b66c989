/*
 * Swap header tests: hand-made headers for every rejection, the writer
 * round-tripping through the parser, and (when SWAP_FIXTURE_DIR is set)
 * the writer compared byte for byte with real mkswap output.
 */
#include <stdlib.h>
#include "test.h"
#include "swap/swaphdr.h"

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

static uint8_t page[SWAPHDR_PAGE];
static struct swaphdr sh;

/* A header as mkswap writes it for `pages` pages, then bad pages added. */
static void make(uint32_t pages, const uint32_t *bad, uint32_t nbad)
{
	static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	CHECK_EQ(swaphdr_format(page, pages, uuid, "swap0"), 0);
	put32(page + 1032, nbad);
	for (uint32_t i = 0; i < nbad; i++)
		put32(page + 1536 + 4 * i, bad[i]);
}

TEST(swaphdr_good)
{
	make(256, NULL, 0);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), 0);
	CHECK_EQ(sh.hdr_last_page, 255);
	CHECK_EQ(sh.last_page, 255);
	CHECK(!sh.clamped);
	CHECK_EQ(sh.nr_badpages, 0);
	CHECK_EQ(sh.usable, 255);
	CHECK_STR(sh.label, "swap0");
	CHECK_EQ(sh.uuid[0], 1);
	CHECK_EQ(sh.uuid[15], 16);
	char u[37];
	swaphdr_uuid_str(sh.uuid, u);
	CHECK_STR(u, "01020304-0506-0708-090a-0b0c0d0e0f10");
	/* A bigger device than the header claims is fine: the header rules. */
	CHECK_EQ(swaphdr_parse(page, sizeof page, 1 << 20, &sh), 0);
	CHECK_EQ(sh.last_page, 255);
	CHECK(!sh.clamped);
	CHECK_EQ(swaphdr_parse(page, sizeof page, UINT64_MAX, &sh), 0);
	CHECK_EQ(sh.usable, 255);
}

TEST(swaphdr_bad_pages)
{
	uint32_t bad[] = { 5, 255, 100 };
	make(256, bad, 3);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), 0);
	CHECK_EQ(sh.nr_badpages, 3);
	CHECK_EQ(sh.badpages[1], 255);                  /* the last page may be bad (Linux: <= last_page) */
	CHECK_EQ(sh.usable, 252);
	/* Clamped to a 101-page device: pages 1..100, two of them bad. */
	CHECK_EQ(swaphdr_parse(page, sizeof page, 101, &sh), 0);
	CHECK(sh.clamped);
	CHECK_EQ(sh.last_page, 100);
	CHECK_EQ(sh.usable, 98);
}

TEST(swaphdr_no_magic_and_v0)
{
	make(256, NULL, 0);
	page[4095] = '3';
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_ENOMAGIC);
	memcpy(page + 4086, "SWAP-SPACE", 10);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EV0);
	CHECK_CONTAINS(swaphdr_strerror(SWAPHDR_EV0), "v0");
	memset(page, 0, sizeof page);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_ENOMAGIC);
	make(256, NULL, 0);
	CHECK_EQ(swaphdr_parse(page, 4095, 256, &sh), SWAPHDR_ETRUNC);
}

TEST(swaphdr_big_endian_and_version)
{
	make(256, NULL, 0);
	page[1024] = 0;
	page[1027] = 1;                                 /* version 1, big-endian */
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EBIGENDIAN);
	CHECK_STR(swaphdr_strerror(SWAPHDR_EBIGENDIAN), "swap header is from a big-endian machine");
	put32(page + 1024, 2);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EVERSION);
	put32(page + 1024, 0);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EVERSION);
}

TEST(swaphdr_last_page_zero_and_device)
{
	make(256, NULL, 0);
	put32(page + 1028, 0);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EEMPTY);
	make(256, NULL, 0);
	/* The header claims 256 pages, the partition has 64. */
	CHECK_EQ(swaphdr_parse(page, sizeof page, 64, &sh), 0);
	CHECK(sh.clamped);
	CHECK_EQ(sh.hdr_last_page, 255);
	CHECK_EQ(sh.last_page, 63);
	CHECK_EQ(sh.usable, 63);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 255, &sh), 0);
	CHECK(sh.clamped);
	CHECK_EQ(sh.last_page, 254);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 1, &sh), SWAPHDR_ENOSPACE);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 0, &sh), SWAPHDR_ENOSPACE);
}

TEST(swaphdr_badpage_checks)
{
	make(256, NULL, 0);
	put32(page + 1032, 638);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_ENRBAD);
	put32(page + 1032, 0xffffffff);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_ENRBAD);
	uint32_t zero[] = { 3, 0 };
	make(256, zero, 2);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EBADPAGE);
	uint32_t past[] = { 256 };
	make(256, past, 1);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EBADPAGE);
	uint32_t dup[] = { 7, 9, 7 };
	make(256, dup, 3);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), SWAPHDR_EBADDUP);
	/* The most that fit: 637 entries, the last one just before the magic. */
	static uint32_t many[SWAPHDR_MAX_BADPAGES];
	for (uint32_t i = 0; i < SWAPHDR_MAX_BADPAGES; i++)
		many[i] = i + 1;
	make(1000, many, SWAPHDR_MAX_BADPAGES);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 1000, &sh), 0);
	CHECK_EQ(sh.usable, 999 - 637);
	CHECK_EQ(sh.badpages[636], 637);
	CHECK(!memcmp(page + 4086, "SWAPSPACE2", 10));
	/* Every page bad. */
	uint32_t all[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	make(10, all, 9);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 10, &sh), SWAPHDR_ENOSPACE);
}

TEST(swaphdr_label_forms)
{
	make(256, NULL, 0);
	memcpy(page + 1052, "0123456789abcdef", 16);    /* no NUL: all 16 bytes are the label */
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), 0);
	CHECK_STR(sh.label, "0123456789abcdef");
	page[1052 + 3] = 0x07;
	page[1052 + 4] = (char)0xc3;
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), 0);
	CHECK_STR(sh.label, "012??56789abcdef");
	memset(page + 1052, 0, 16);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 256, &sh), 0);
	CHECK_STR(sh.label, "");
}

TEST(swaphdr_format_rules)
{
	CHECK_EQ(swaphdr_format(page, 9, NULL, NULL), SWAPHDR_ESMALL);
	CHECK_EQ(swaphdr_format(page, 10, NULL, NULL), 0);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 10, &sh), 0);
	CHECK_EQ(sh.usable, 9);
	CHECK_STR(sh.label, "");
	/* mkswap keeps at most 15 label characters and truncates at 2^32-1 pages. */
	CHECK_EQ(swaphdr_format(page, 1ull << 40, NULL, "sixteen-chars-xx"), 0);
	CHECK_EQ(swaphdr_parse(page, sizeof page, 1ull << 40, &sh), 0);
	CHECK_STR(sh.label, "sixteen-chars-x");
	CHECK_EQ(sh.hdr_last_page, 0xfffffffe);
	CHECK_EQ(sh.usable, 0xfffffffe);
	memset(page, 0x5a, sizeof page);
	CHECK_EQ(swaphdr_format(page, 100, NULL, NULL), 0);
	for (int i = 0; i < 1024; i++)
		if (page[i])
			test_fail(__FILE__, __LINE__, "bootbits byte %d not zeroed", i);
}

TEST(swaphdr_strerror_distinct)
{
	for (int a = SWAPHDR_ESMALL; a <= 0; a++)
		for (int b = a + 1; b <= 0; b++)
			if (!strcmp(swaphdr_strerror(a), swaphdr_strerror(b)))
				test_fail(__FILE__, __LINE__, "errors %d and %d share a message", a, b);
}

/* ------------------------------------------------ real mkswap output */

/* Must match tests/unit/gen-swap-fixture.sh. */
static void compare_fixture(const char *dir, const char *name, const char *uuid_text, const char *label)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static uint8_t want[SWAPHDR_PAGE];
	fseek(f, 0, SEEK_END);
	uint64_t pages = (uint64_t)ftell(f) / SWAPHDR_PAGE;
	fseek(f, 0, SEEK_SET);
	CHECK_EQ(fread(want, 1, sizeof want, f), sizeof want);
	fclose(f);
	uint8_t uuid[16];
	for (int i = 0, k = 0; i < 16; k++) {
		if (uuid_text[k] == '-')
			continue;
		unsigned v;
		sscanf(uuid_text + k, "%2x", &v);
		uuid[i++] = (uint8_t)v;
		k++;
	}
	CHECK_EQ(swaphdr_format(page, pages, uuid, label), 0);
	for (int i = 0; i < SWAPHDR_PAGE; i++) {
		if (page[i] != want[i]) {
			test_fail(__FILE__, __LINE__, "%s: byte %d is 0x%02x, mkswap wrote 0x%02x", name, i, page[i], want[i]);
			break;
		}
	}
	CHECK_EQ(swaphdr_parse(want, sizeof want, pages, &sh), 0);
	CHECK_EQ(sh.last_page, pages - 1);
	CHECK(!sh.clamped);
	char u[37];
	swaphdr_uuid_str(sh.uuid, u);
	CHECK_STR(u, uuid_text);
}

TEST(swaphdr_matches_mkswap)
{
	const char *dir = getenv("SWAP_FIXTURE_DIR");
	if (!dir) {
		printf("note: swaphdr_matches_mkswap skipped (SWAP_FIXTURE_DIR unset)\n");
		return;
	}
	compare_fixture(dir, "swap-1m.img", "01234567-89ab-cdef-0123-456789abcdef", "mmswap");
	CHECK_STR(sh.label, "mmswap");
	CHECK_EQ(sh.usable, 255);
	compare_fixture(dir, "swap-odd.img", "fedcba98-7654-3210-fedc-ba9876543210", "a-very-long-label-xyz");
	CHECK_STR(sh.label, "a-very-long-lab");
	compare_fixture(dir, "swap-min.img", "00000000-0000-0000-0000-000000000001", NULL);
	CHECK_EQ(sh.usable, 9);
}
