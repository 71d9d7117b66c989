#include "test.h"
#include "pci_decode.h"
#include "pci_regs.h"

/* ---- BARs ------------------------------------------------------------ */

TEST(pci_bar_mem64_above_4g)
{
	/* The boot NVMe under OVMF: BAR0/1 = 16 KiB 64-bit at 0xE0_0000_0000. */
	uint32_t raw[6] = { 0x00000004, 0x000000e0 }, mask[6] = { 0xffffc004, 0xffffffff };
	struct pci_bar b[6];
	CHECK_EQ(pci_bars_decode(raw, mask, 6, b), 1);
	CHECK_EQ(b[0].kind, PCI_BAR_MEM64);
	CHECK_EQ(b[0].base, 0xe000000000ull);
	CHECK_EQ(b[0].size, 16384);
	CHECK(!b[0].prefetch);
	CHECK_EQ(b[1].kind, PCI_BAR_NONE);
	CHECK_EQ(b[1].size, 0);
	CHECK_STR(pci_bar_kind_name(b[0].kind), "mem64");
}

TEST(pci_bar_mem64_huge_size_needs_upper_mask)
{
	/* An 8 GiB prefetchable BAR: the size bit is in the upper dword. */
	uint32_t raw[2] = { 0x0000000c, 0x00000004 }, mask[2] = { 0x0000000c, 0xfffffffe };
	struct pci_bar b[2];
	CHECK_EQ(pci_bars_decode(raw, mask, 2, b), 1);
	CHECK_EQ(b[0].size, 8ull << 30);
	CHECK_EQ(b[0].base, 0x400000000ull);
	CHECK(b[0].prefetch);
}

TEST(pci_bar_io_and_mem32)
{
	/* ICH9 AHCI: BAR4 I/O 32 bytes at 0x6040, BAR5 mem32 4 KiB. */
	uint32_t raw[6] = { 0, 0, 0, 0, 0x6041, 0xc1041000 };
	uint32_t mask[6] = { 0, 0, 0, 0, 0xffffffe1, 0xfffff000 };
	struct pci_bar b[6];
	CHECK_EQ(pci_bars_decode(raw, mask, 6, b), 2);
	CHECK_EQ(b[0].kind, PCI_BAR_NONE);
	CHECK_EQ(b[4].kind, PCI_BAR_IO);
	CHECK_EQ(b[4].base, 0x6040);
	CHECK_EQ(b[4].size, 32);
	CHECK_EQ(b[5].kind, PCI_BAR_MEM32);
	CHECK_EQ(b[5].base, 0xc1041000u);
	CHECK_EQ(b[5].size, 4096);
}

TEST(pci_bar_io_16bit_decoder)
{
	/* Upper 16 bits read back as zero: the size is still 64 bytes. */
	uint32_t raw[1] = { 0x7001 }, mask[1] = { 0x0000ffc1 };
	struct pci_bar b[1];
	CHECK_EQ(pci_bars_decode(raw, mask, 1, b), 1);
	CHECK_EQ(b[0].size, 64);
	CHECK_EQ(b[0].base, 0x7000);
}

TEST(pci_bar_mem32_prefetchable_vga)
{
	uint32_t raw[3] = { 0xc0000008, 0, 0xc1000000 }, mask[3] = { 0xff000008, 0, 0xfffff000 };
	struct pci_bar b[3];
	CHECK_EQ(pci_bars_decode(raw, mask, 3, b), 2);
	CHECK_EQ(b[0].size, 16u << 20);
	CHECK(b[0].prefetch);
	CHECK_EQ(b[2].size, 4096);
}

TEST(pci_bar_64bit_in_last_slot_is_ignored)
{
	uint32_t raw[2] = { 0, 0x00000004 }, mask[2] = { 0, 0xffffc004 };
	struct pci_bar b[2];
	CHECK_EQ(pci_bars_decode(raw, mask, 2, b), 0);
	CHECK_EQ(b[1].kind, PCI_BAR_NONE);
}

TEST(pci_bar_reserved_type_and_unimplemented)
{
	uint32_t raw[3] = { 0x00000006, 0x0, 0x1000 }, mask[3] = { 0xfffff006, 0, 0 };
	struct pci_bar b[3];
	CHECK_EQ(pci_bars_decode(raw, mask, 3, b), 0);
	CHECK_EQ(pci_bars_decode(raw, mask, 0, b), 0);
}

TEST(pci_bar_bridge_two_slots_with_64bit)
{
	/* A type-1 header has two BAR slots; a 64-bit BAR fills both. */
	uint32_t raw[2] = { 0xfe000004, 0x1 }, mask[2] = { 0xffff0004, 0xffffffff };
	struct pci_bar b[2];
	CHECK_EQ(pci_bars_decode(raw, mask, 2, b), 1);
	CHECK_EQ(b[0].base, 0x1fe000000ull);
	CHECK_EQ(b[0].size, 65536);
}

/* ---- capability lists ------------------------------------------------ */

static void cap(uint8_t *cfg, unsigned off, uint8_t id, uint8_t next)
{
	cfg[off] = id;
	cfg[off + 1] = next;
}

static void with_caps(uint8_t *cfg, uint8_t first)
{
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAP_PTR] = first;
}

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

TEST(pci_caps_nvme_like_list)
{
	uint8_t cfg[256] = { 0 };
	with_caps(cfg, 0x40);
	cap(cfg, 0x40, PCI_CAP_ID_MSIX, 0x80);
	cap(cfg, 0x80, PCI_CAP_ID_PCIE, 0x60);
	cap(cfg, 0x60, PCI_CAP_ID_PM, 0x00);
	struct pci_cap c[PCI_MAX_CAPS];
	int st = 99;
	int n = pci_caps_walk(cfg, sizeof cfg, c, PCI_MAX_CAPS, &st);
	CHECK_EQ(n, 3);
	CHECK_EQ(st, PCI_CAPS_OK);
	CHECK_EQ(c[0].id, PCI_CAP_ID_MSIX);
	CHECK_EQ(c[1].off, 0x80);
	CHECK_EQ(c[2].id, PCI_CAP_ID_PM);
	CHECK_EQ(pci_caps_find(c, n, PCI_CAP_ID_PCIE, false), 0x80);
	CHECK_EQ(pci_caps_find(c, n, PCI_CAP_ID_MSI, false), 0);
	CHECK_EQ(pci_caps_find(c, n, PCI_CAP_ID_PCIE, true), 0);
	CHECK_STR(pci_cap_name(PCI_CAP_ID_MSIX, false), "MSI-X");
}

TEST(pci_caps_none_without_status_bit)
{
	uint8_t cfg[256] = { 0 };
	cfg[PCI_CAP_PTR] = 0x40;
	cap(cfg, 0x40, PCI_CAP_ID_MSI, 0);
	int st;
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, NULL, 0, &st), 0);
	CHECK_EQ(st, PCI_CAPS_OK);
}

TEST(pci_caps_masks_reserved_pointer_bits)
{
	uint8_t cfg[256] = { 0 };
	with_caps(cfg, 0x43);                   /* low two bits are reserved */
	cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x52);
	cap(cfg, 0x50, PCI_CAP_ID_PM, 0x00);
	struct pci_cap c[4];
	int st;
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 4, &st), 2);
	CHECK_EQ(c[1].off, 0x50);
}

TEST(pci_caps_loop_detected)
{
	uint8_t cfg[256] = { 0 };
	with_caps(cfg, 0x40);
	cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x50);
	cap(cfg, 0x50, PCI_CAP_ID_PM, 0x40);            /* back to the first */
	struct pci_cap c[8];
	int st;
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 8, &st), 2);
	CHECK_EQ(st, PCI_CAPS_LOOP);
	cap(cfg, 0x50, PCI_CAP_ID_PM, 0x50);            /* points at itself */
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 8, &st), 2);
	CHECK_EQ(st, PCI_CAPS_LOOP);
	CHECK_STR(pci_caps_strerror(st), "capability list loops");
}

TEST(pci_caps_pointer_into_header_rejected)
{
	uint8_t cfg[256] = { 0 };
	with_caps(cfg, 0x40);
	cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x10);
	struct pci_cap c[8];
	int st;
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 8, &st), 1);
	CHECK_EQ(st, PCI_CAPS_RANGE);
	/* A blob shorter than the pointer says. */
	CHECK_EQ(pci_caps_walk(cfg, 0x41, c, 8, &st), 0);
	CHECK_EQ(st, PCI_CAPS_RANGE);
}

TEST(pci_caps_longest_chain_fills_array)
{
	/* 48 entries at 0x40..0xfc: exactly the room there is. */
	uint8_t cfg[256] = { 0 };
	with_caps(cfg, 0x40);
	for (unsigned off = 0x40; off < 0x100; off += 4)
		cap(cfg, off, 0x09, off + 4 < 0x100 ? (uint8_t)(off + 4) : 0);
	struct pci_cap c[PCI_MAX_CAPS];
	int st;
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, PCI_MAX_CAPS, &st), 48);
	CHECK_EQ(st, PCI_CAPS_OK);
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 10, &st), 10);
	CHECK_EQ(st, PCI_CAPS_FULL);
}

TEST(pci_caps_extended_list)
{
	static uint8_t cfg[4096];
	memset(cfg, 0, sizeof cfg);
	with_caps(cfg, 0x40);
	cap(cfg, 0x40, PCI_CAP_ID_PCIE, 0);
	put32(cfg + 0x100, 0x0001u | 1u << 16 | 0x148u << 20);  /* AER -> 0x148 */
	put32(cfg + 0x148, 0x0003u | 1u << 16 | 0u << 20);      /* DSN, last */
	struct pci_cap c[8];
	int st;
	int n = pci_caps_walk(cfg, sizeof cfg, c, 8, &st);
	CHECK_EQ(n, 3);
	CHECK_EQ(st, PCI_CAPS_OK);
	CHECK(c[1].ext && c[1].id == 0x0001 && c[1].off == 0x100);
	CHECK_EQ(pci_caps_find(c, n, 0x0003, true), 0x148);
	CHECK_STR(pci_cap_name(0x0001, true), "AER");
	/* Only the first 256 bytes: the extended list is not looked at. */
	CHECK_EQ(pci_caps_walk(cfg, 256, c, 8, &st), 1);
}

TEST(pci_caps_extended_loop_and_range)
{
	static uint8_t cfg[4096];
	memset(cfg, 0, sizeof cfg);
	put32(cfg + 0x100, 0x0001u | 0x200u << 20);
	put32(cfg + 0x200, 0x0002u | 0x100u << 20);             /* back to 0x100 */
	struct pci_cap c[8];
	int st;
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 8, &st), 2);
	CHECK_EQ(st, PCI_CAPS_LOOP);
	put32(cfg + 0x200, 0x0002u | 0x040u << 20);             /* into standard space */
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 8, &st), 2);
	CHECK_EQ(st, PCI_CAPS_RANGE);
	put32(cfg + 0x100, 0xffffffffu);                        /* nothing there */
	CHECK_EQ(pci_caps_walk(cfg, sizeof cfg, c, 8, &st), 0);
	CHECK_EQ(st, PCI_CAPS_OK);
}

/* ---- MSI, MSI-X -------------------------------------------------------- */

TEST(pci_msi_layouts)
{
	struct pci_msi_layout l;
	pci_msi_layout(0x0000, &l);                     /* 32-bit, 1 vector */
	CHECK(!l.is64 && !l.pvm);
	CHECK_EQ(l.data_off, 0x08);
	CHECK_EQ(l.mask_off, 0);
	CHECK_EQ(l.max_vectors, 1);
	pci_msi_layout(0x0080, &l);                     /* edu: 64-bit */
	CHECK(l.is64);
	CHECK_EQ(l.data_off, 0x0c);
	pci_msi_layout(0x018a, &l);                     /* 64-bit, PVM, 32 vectors capable (MMC=5) */
	CHECK(l.pvm);
	CHECK_EQ(l.mask_off, 0x10);
	CHECK_EQ(l.pending_off, 0x14);
	CHECK_EQ(l.max_vectors, 32);
	pci_msi_layout(0x0100 | 0x0e, &l);              /* 32-bit PVM, MMC=7 reserved */
	CHECK_EQ(l.mask_off, 0x0c);
	CHECK_EQ(l.max_vectors, 32);
}

TEST(pci_msix_nvme_table)
{
	/* QEMU NVMe: 65 vectors, table BAR0+0x2000, PBA BAR0+0x3000. */
	struct pci_msix_info m;
	pci_msix_decode(0x0040, 0x2000, 0x3000, &m);
	CHECK_EQ(m.nvec, 65);
	CHECK_EQ(m.table_bar, 0);
	CHECK_EQ(m.table_off, 0x2000);
	CHECK_EQ(m.pba_off, 0x3000);
	CHECK(pci_msix_fits(&m, 16384, 16384));
	CHECK(!pci_msix_fits(&m, 0x2000 + 64 * 16, 16384));    /* one entry short */
	pci_msix_decode(0x07ff | PCI_MSIX_CTRL_ENABLE, 0x7 | 0x100, 0x2, &m);
	CHECK_EQ(m.nvec, 2048);
	CHECK_EQ(m.table_bar, 7);
	CHECK(!pci_msix_fits(&m, ~0ull, ~0ull));                 /* BIR 7 does not exist */
}

/* ---- names, INTx ----------------------------------------------------- */

TEST(pci_class_names)
{
	CHECK_STR(pci_class_name(0x01, 0x08, 0x02), "NVMe controller");
	CHECK_STR(pci_class_name(0x01, 0x06, 0x01), "SATA controller (AHCI)");
	CHECK_STR(pci_class_name(0x0c, 0x03, 0x30), "USB xHCI controller");
	CHECK_STR(pci_class_name(0x06, 0x00, 0x00), "host bridge");
	CHECK_STR(pci_class_name(0x06, 0x01, 0x00), "ISA bridge");
	CHECK_STR(pci_class_name(0x0c, 0x05, 0x00), "SMBus controller");
	CHECK_STR(pci_class_name(0x01, 0x42, 0x00), "storage controller");
	CHECK_STR(pci_class_name(0x00, 0xff, 0x00), "unclassified device");      /* QEMU edu */
	CHECK_STR(pci_class_name(0x42, 0x00, 0x00), "device");
}

TEST(pci_intx_swizzle)
{
	CHECK_EQ(pci_swizzle(0, 1), 1);
	CHECK_EQ(pci_swizzle(1, 1), 2);
	CHECK_EQ(pci_swizzle(3, 2), 1);
	CHECK_EQ(pci_swizzle(5, 4), 1);
	CHECK_EQ(pci_swizzle(2, 0), 0);                 /* no pin stays no pin */
}

TEST(pci_intx_q35_table)
{
	/* Matches QEMU's generated _PRT: slot 0..24 rotate over GSI 20..23. */
	CHECK_EQ(pci_q35_intx_gsi(0, 1), 20);
	CHECK_EQ(pci_q35_intx_gsi(1, 1), 21);
	CHECK_EQ(pci_q35_intx_gsi(2, 1), 22);
	CHECK_EQ(pci_q35_intx_gsi(3, 1), 23);
	CHECK_EQ(pci_q35_intx_gsi(4, 1), 20);
	CHECK_EQ(pci_q35_intx_gsi(3, 2), 20);
	CHECK_EQ(pci_q35_intx_gsi(24, 1), 20);
	CHECK_EQ(pci_q35_intx_gsi(31, 1), 16);         /* ICH9 LPC/SMBus/AHCI: PIRQA.. */
	CHECK_EQ(pci_q35_intx_gsi(31, 2), 17);
	CHECK_EQ(pci_q35_intx_gsi(29, 4), 19);
	CHECK_EQ(pci_q35_intx_gsi(30, 1), 20);         /* DMI-to-PCI bridge: PIRQE.. */
	CHECK_EQ(pci_q35_intx_gsi(30, 4), 23);
	CHECK_EQ(pci_q35_intx_gsi(2, 0), -1);
	CHECK_EQ(pci_q35_intx_gsi(32, 1), -1);
	CHECK_EQ(pci_q35_intx_gsi(0, 5), -1);
}

struct counting {
	const uint8_t *cfg;
	int reads;
};

static uint32_t counting_read(void *ctx, uint16_t off)
{
	struct counting *c = ctx;
	c->reads++;
	const uint8_t *p = c->cfg + off;
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

TEST(pci_caps_walk_reads_only_headers)
{
	/* Live config space is slow to read: the walk must touch only the
	 * status/pointer dwords and one dword per capability. */
	static uint8_t cfg[4096];
	memset(cfg, 0, sizeof cfg);
	with_caps(cfg, 0x40);
	cap(cfg, 0x40, PCI_CAP_ID_MSIX, 0x80);
	cap(cfg, 0x80, PCI_CAP_ID_PCIE, 0x00);
	struct counting c = { cfg, 0 };
	struct pci_cap caps[8];
	int st;
	CHECK_EQ(pci_caps_walk_fn(counting_read, &c, 256, caps, 8, &st), 2);
	CHECK_EQ(c.reads, 4);
	c.reads = 0;
	put32(cfg + 0x100, 0x0001u | 0x140u << 20);
	put32(cfg + 0x140, 0x000du);
	CHECK_EQ(pci_caps_walk_fn(counting_read, &c, 4096, caps, 8, &st), 4);
	CHECK_EQ(c.reads, 4 + 1 + 2);           /* + first-header probe + two headers */
	CHECK_EQ(pci_caps_find(caps, 4, 0x000d, true), 0x140);
}
