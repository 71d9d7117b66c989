#include "test.h"
#include "acpi_tables.h"

static void fix_sum(uint8_t *t, size_t len, size_t at)
{
	t[at] = 0;
	t[at] = (uint8_t)(0x100 - acpi_sum(t, len));
}

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

static void make_header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, len);
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = 2;
	memcpy(t + 10, "MMTEST", 6);
	fix_sum(t, len, 9);
}

TEST(acpi_rsdp_v1_and_v2)
{
	uint8_t r[36] = "RSD PTR ";
	put32(r + 16, 0x1000);
	fix_sum(r, 20, 8);
	uint64_t root;
	bool x;
	CHECK_EQ(acpi_parse_rsdp(r, 20, &root, &x), ACPI_OK);
	CHECK_EQ(root, 0x1000);
	CHECK(!x);
	r[15] = 2;
	put32(r + 20, 36);
	put64(r + 24, 0x2000);
	fix_sum(r, 20, 8);
	fix_sum(r, 36, 32);
	CHECK_EQ(acpi_parse_rsdp(r, 36, &root, &x), ACPI_OK);
	CHECK_EQ(root, 0x2000);
	CHECK(x);
	r[24] ^= 1;                                     /* break the extended checksum */
	CHECK_EQ(acpi_parse_rsdp(r, 36, &root, &x), ACPI_ECSUM);
	CHECK_EQ(acpi_parse_rsdp(r, 19, &root, &x), ACPI_ETRUNC);
	memcpy(r, "RSD PTX ", 8);
	CHECK_EQ(acpi_parse_rsdp(r, 36, &root, &x), ACPI_ESIG);
}

TEST(acpi_root_table_entries)
{
	uint8_t t[36 + 24];
	make_header(t, "XSDT", sizeof t);
	put64(t + 36, 0x1111);
	put64(t + 44, 0x2222);
	put64(t + 52, 0x3333);
	fix_sum(t, sizeof t, 9);
	uint64_t e[8];
	CHECK_EQ(acpi_root_entries(t, sizeof t, true, e, 8), 3);
	CHECK_EQ(e[2], 0x3333);
	CHECK_EQ(acpi_root_entries(t, sizeof t, true, e, 2), 2);
	CHECK_EQ(acpi_root_entries(t, sizeof t, false, e, 8), ACPI_ESIG);
	CHECK_EQ(acpi_root_entries(t, sizeof t - 1, true, e, 8), ACPI_ETRUNC);
	t[40] ^= 0xff;
	CHECK_EQ(acpi_root_entries(t, sizeof t, true, e, 8), ACPI_ECSUM);
}

TEST(acpi_fadt_fields)
{
	uint8_t t[244];
	make_header(t, "FACP", sizeof t);
	put32(t + 40, 0x7000);          /* DSDT */
	put32(t + 64, 0x604);           /* PM1a_CNT */
	put32(t + 76, 0x608);           /* PM timer */
	put32(t + 112, 1u << 8);        /* 32-bit timer */
	put64(t + 140, 0x87000);        /* X_DSDT wins */
	fix_sum(t, sizeof t, 9);
	struct acpi_fadt f;
	CHECK_EQ(acpi_parse_fadt(t, sizeof t, &f), ACPI_OK);
	CHECK_EQ(f.dsdt, 0x87000);
	CHECK_EQ(f.pm1a_cnt, 0x604);
	CHECK_EQ(f.pm_timer, 0x608);
	CHECK(f.pm_timer_32bit);
	uint8_t small[100];
	make_header(small, "FACP", sizeof small);
	CHECK_EQ(acpi_parse_fadt(small, sizeof small, &f), ACPI_EBAD);
}

TEST(acpi_s5_in_aml)
{
	/* Name (_S5, Package (0x04) { 0x05, 0x05, Zero, Zero }) */
	const uint8_t aml[] = { 0x10, 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00 };
	uint8_t a, b;
	CHECK_EQ(acpi_find_s5(aml, sizeof aml, &a, &b), ACPI_OK);
	CHECK_EQ(a, 5);
	CHECK_EQ(b, 5);
	const uint8_t zero[] = { 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00 };
	CHECK_EQ(acpi_find_s5(zero, sizeof zero, &a, &b), ACPI_OK);
	CHECK_EQ(a, 0);
	CHECK_EQ(acpi_find_s5(aml, 6, &a, &b), ACPI_ESIG);    /* cut before the package */
	CHECK_EQ(acpi_find_s5(aml, 8, &a, &b), ACPI_ETRUNC);
	const uint8_t none[] = { 1, 2, 3, 4, 5 };
	CHECK_EQ(acpi_find_s5(none, sizeof none, &a, &b), ACPI_ESIG);
}
