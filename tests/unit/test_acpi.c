#include "test.h"
#include "platform/acpi_tables.h"

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
	CHECK(!f.boot_flags_valid);     /* revision 2: IAPC_BOOT_ARCH was reserved */
	CHECK(!f.reset_supported);
	t[8] = 3;                       /* ACPI 2.0 */
	t[109] = ACPI_BOOT_LEGACY_DEVICES;      /* no 8042 */
	put32(t + 112, 1u << 10);       /* RESET_REG_SUP */
	t[116] = ACPI_SPACE_IO;
	put64(t + 120, 0xcf9);
	t[128] = 6;
	fix_sum(t, sizeof t, 9);
	CHECK_EQ(acpi_parse_fadt(t, sizeof t, &f), ACPI_OK);
	CHECK(f.boot_flags_valid && !(f.boot_flags & ACPI_BOOT_8042));
	CHECK(f.reset_supported && f.reset_space == ACPI_SPACE_IO && f.reset_addr == 0xcf9 && f.reset_value == 6);
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

TEST(acpi_madt_q35_like)
{
	uint8_t t[44 + 8 + 8 + 12 + 10 + 10 + 6 + 3];
	size_t o = 44;
	make_header(t, "APIC", sizeof t);
	put32(t + 36, 0xfee00000);
	put32(t + 40, 1);
	uint8_t cpu0[8] = { 0, 8, 0, 0, 1, 0, 0, 0 }, cpu1[8] = { 0, 8, 1, 1, 0, 0, 0, 0 };
	memcpy(t + o, cpu0, 8); o += 8;
	memcpy(t + o, cpu1, 8); o += 8;
	uint8_t io[12] = { 1, 12, 0, 0 };
	put32(io + 4, 0xfec00000);
	memcpy(t + o, io, 12); o += 12;
	uint8_t iso0[10] = { 2, 10, 0, 0 }, iso9[10] = { 2, 10, 0, 9 };
	put32(iso0 + 4, 2);
	put32(iso9 + 4, 9);
	iso9[8] = 0x0d;                         /* level, active high */
	memcpy(t + o, iso0, 10); o += 10;
	memcpy(t + o, iso9, 10); o += 10;
	uint8_t nmi[6] = { 4, 6, 0xff, 0, 0, 1 };
	memcpy(t + o, nmi, 6); o += 6;
	uint8_t junk[3] = { 0x7f, 3, 0 };      /* unknown type, skipped */
	memcpy(t + o, junk, 3); o += 3;
	fix_sum(t, sizeof t, 9);
	struct acpi_madt m;
	CHECK_EQ(acpi_parse_madt(t, sizeof t, &m), ACPI_OK);
	CHECK_EQ(m.lapic_addr, 0xfee00000);
	CHECK(m.pcat_compat);
	CHECK_EQ(m.ncpus, 2);
	CHECK(m.cpu[0].enabled);
	CHECK(!m.cpu[1].enabled);
	CHECK_EQ(m.nioapics, 1);
	CHECK_EQ(m.ioapic[0].addr, 0xfec00000);
	CHECK_EQ(m.nisos, 2);
	CHECK_EQ(m.iso[0].gsi, 2);
	CHECK(m.iso[0].flags_default);
	CHECK(m.iso[1].level && !m.iso[1].active_low);
	CHECK_EQ(m.lapic_nmi_lint, 1);
	CHECK_EQ(m.skipped, 1);
	t[44 + 1] = 200;                        /* an entry running past the end */
	fix_sum(t, sizeof t, 9);
	CHECK_EQ(acpi_parse_madt(t, sizeof t, &m), ACPI_OK);
	CHECK_EQ(m.ncpus, 0);
	CHECK_EQ(m.skipped, 1);
}

TEST(acpi_mcfg_and_hpet)
{
	uint8_t t[44 + 16];
	make_header(t, "MCFG", sizeof t);
	put64(t + 44, 0xb0000000);
	t[54] = 0;
	t[55] = 255;
	fix_sum(t, sizeof t, 9);
	struct acpi_mcfg m;
	CHECK_EQ(acpi_parse_mcfg(t, sizeof t, &m), ACPI_OK);
	CHECK_EQ(m.n, 1);
	CHECK_EQ(m.e[0].base, 0xb0000000);
	CHECK_EQ(m.e[0].bus_end, 255);
	t[54] = 9; t[55] = 3;                   /* end bus before start bus */
	fix_sum(t, sizeof t, 9);
	CHECK_EQ(acpi_parse_mcfg(t, sizeof t, &m), ACPI_EBAD);

	uint8_t h[56];
	make_header(h, "HPET", sizeof h);
	put64(h + 44, 0xfed00000);
	fix_sum(h, sizeof h, 9);
	struct acpi_hpet hp;
	CHECK_EQ(acpi_parse_hpet(h, sizeof h, &hp), ACPI_OK);
	CHECK_EQ(hp.base, 0xfed00000);
	h[40] = 1;                              /* I/O space: not supported */
	fix_sum(h, sizeof h, 9);
	CHECK_EQ(acpi_parse_hpet(h, sizeof h, &hp), ACPI_EBAD);
	CHECK_EQ(acpi_parse_hpet(h, 40, &hp), ACPI_ETRUNC);
}
