/* drivers/usb_proto.c: xHCI ring and context arithmetic, descriptors,
 * Bulk-Only Transport wrappers, SCSI CDBs and replies. */
#include "test.h"
#include "usb_proto.h"

/* ------------------------------------------------------------ rings */

TEST(usb_ring_next_skips_link_and_toggles)
{
	struct xhci_ring_pos p = { 0, true };
	bool wrapped;
	/* 256 TRBs: producers use 0..254, 255 is the link. */
	for (int i = 0; i < 254; i++) {
		p = xhci_ring_next(p, 256, &wrapped);
		CHECK(!wrapped);
	}
	CHECK_EQ(p.idx, 254);
	CHECK(p.cycle);
	p = xhci_ring_next(p, 256, &wrapped);
	CHECK(wrapped);
	CHECK_EQ(p.idx, 0);
	CHECK(!p.cycle);
	/* Twice round: the cycle is back. */
	for (int i = 0; i < 255; i++)
		p = xhci_ring_next(p, 256, &wrapped);
	CHECK_EQ(p.idx, 0);
	CHECK(p.cycle);
}

TEST(usb_event_ring_wraps_at_n)
{
	struct xhci_ring_pos p = { 14, true };
	p = xhci_event_next(p, 16);
	CHECK_EQ(p.idx, 15);
	CHECK(p.cycle);
	p = xhci_event_next(p, 16);
	CHECK_EQ(p.idx, 0);
	CHECK(!p.cycle);
}

TEST(usb_ring_space)
{
	CHECK_EQ(xhci_ring_space(0, 0, 256), 254);     /* empty: one slot kept free */
	CHECK_EQ(xhci_ring_space(10, 11, 256), 0);     /* full */
	CHECK_EQ(xhci_ring_space(254, 0, 256), 0);
	CHECK_EQ(xhci_ring_space(5, 0, 256), 249);
	CHECK_EQ(xhci_ring_space(0, 5, 256), 4);
	CHECK_EQ(xhci_ring_space(255, 0, 256), 0);     /* the link is never an enqueue position */
}

/* ------------------------------------------------------------ contexts */

TEST(usb_context_sizes)
{
	CHECK_EQ(xhci_ctx_size(0), 32);
	CHECK_EQ(xhci_ctx_size(1u << 2), 64);
	CHECK_EQ(xhci_ctx_size(~(1u << 2)), 32);
	CHECK_EQ(xhci_in_ctx_bytes(32), 1056);
	CHECK_EQ(xhci_in_ctx_bytes(64), 2112);
	CHECK_EQ(xhci_in_ctx_off(32, 0), 32);          /* slot after the input control context */
	CHECK_EQ(xhci_in_ctx_off(64, 1), 128);         /* EP0 */
	CHECK_EQ(xhci_dev_ctx_off(64, 0), 0);
	CHECK_EQ(xhci_dev_ctx_off(64, 31), 31 * 64);
	CHECK(xhci_in_ctx_off(64, 31) + 64 <= xhci_in_ctx_bytes(64));
}

TEST(usb_dci)
{
	CHECK_EQ(xhci_dci(0x00), 1);
	CHECK_EQ(xhci_dci(0x80), 1);
	CHECK_EQ(xhci_dci(0x01), 2);
	CHECK_EQ(xhci_dci(0x81), 3);
	CHECK_EQ(xhci_dci(0x02), 4);
	CHECK_EQ(xhci_dci(0x8f), 31);
	CHECK_EQ(xhci_dci(0x10), 0);                   /* reserved bits */
}

/* ------------------------------------------------------------ 64 KiB split */

TEST(usb_split_at_64k)
{
	struct xhci_piece p[4];
	CHECK_EQ(xhci_split(0x1000, 4096, p, 4), 1);
	CHECK_EQ(p[0].phys, 0x1000);
	CHECK_EQ(p[0].len, 4096);
	/* Crossing one boundary. */
	CHECK_EQ(xhci_split(0x1f000, 8192, p, 4), 2);
	CHECK_EQ(p[0].phys, 0x1f000);
	CHECK_EQ(p[0].len, 4096);
	CHECK_EQ(p[1].phys, 0x20000);
	CHECK_EQ(p[1].len, 4096);
	/* 128 KiB aligned: two whole pieces; unaligned: three. */
	CHECK_EQ(xhci_split(0x100000, 128 << 10, p, 4), 2);
	CHECK_EQ(xhci_split(0x100200, 128 << 10, p, 4), 3);
	CHECK_EQ(p[0].len + p[1].len + p[2].len, 128u << 10);
	CHECK_EQ(p[2].phys, 0x120000);
	/* A short array: the count still says what is needed. */
	CHECK_EQ(xhci_split(0x100200, 128 << 10, p, 1), 3);
	CHECK_EQ(xhci_split(0x5000, 0, p, 4), 0);
	/* No piece crosses a boundary, above 4 GiB too. */
	struct xhci_piece q[8];
	uint32_t n = xhci_split(0x1234567fff0ull, 200000, q, 8);      /* 16 B, 3 x 64 KiB, 3376 B */
	CHECK_EQ(n, 5);
	CHECK_EQ(q[0].len, 16);
	CHECK_EQ(q[4].len, 3376);
	for (uint32_t i = 0; i < n && i < 8; i++)
		CHECK_EQ(q[i].phys >> 16, (q[i].phys + q[i].len - 1) >> 16);
}

TEST(usb_td_size)
{
	CHECK_EQ(xhci_td_size(0, 512), 0);
	CHECK_EQ(xhci_td_size(1, 512), 1);
	CHECK_EQ(xhci_td_size(1024, 512), 2);
	CHECK_EQ(xhci_td_size(1 << 20, 512), 31);
	CHECK_EQ(xhci_td_size(100, 0), 0);
}

/* ------------------------------------------------------------ descriptors */

static const uint8_t dev_desc[18] = { 18, 1, 0x00, 0x03, 0, 0, 0, 9, 0xf4, 0x46, 0x01, 0x00, 0x00, 0x00, 1, 2, 3, 1 };

TEST(usb_device_descriptor)
{
	struct usb_dev_desc d;
	CHECK_EQ(usb_parse_device(dev_desc, 18, &d), USB_DESC_OK);
	CHECK_EQ(d.bcd_usb, 0x300);
	CHECK_EQ(d.vendor, 0x46f4);
	CHECK_EQ(d.product, 1);
	CHECK_EQ(d.mps0, 9);
	CHECK_EQ(d.num_configs, 1);
	CHECK_EQ(usb_parse_device(dev_desc, 8, &d), USB_DESC_SHORT);
	CHECK_EQ(d.mps0, 9);                            /* the first 8 bytes still count */
	CHECK_EQ(usb_parse_device(dev_desc, 7, &d), USB_DESC_SHORT);
	uint8_t bad[18];
	memcpy(bad, dev_desc, 18);
	bad[1] = 2;
	CHECK_EQ(usb_parse_device(bad, 18, &d), USB_DESC_BAD);
}

/* QEMU's usb-storage at SuperSpeed: config, interface, EP IN + companion,
 * EP OUT + companion. */
static const uint8_t cfg_ss[] = {
	9, 2, 44, 0, 1, 1, 0, 0xc0, 50,
	9, 4, 0, 0, 2, 8, 6, 0x50, 0,
	7, 5, 0x81, 2, 0x00, 0x04, 0,
	6, 0x30, 15, 0, 0, 0,
	7, 5, 0x02, 2, 0x00, 0x04, 0,
	6, 0x30, 3, 0, 0, 0,
};

TEST(usb_find_bot_superspeed)
{
	struct usb_bot_iface f;
	CHECK_EQ(sizeof cfg_ss, 44);
	CHECK_EQ(usb_find_bot(cfg_ss, sizeof cfg_ss, &f), USB_DESC_OK);
	CHECK_EQ(f.config_value, 1);
	CHECK_EQ(f.iface, 0);
	CHECK_EQ(f.ep_in, 0x81);
	CHECK_EQ(f.ep_out, 0x02);
	CHECK_EQ(f.mps_in, 1024);
	CHECK_EQ(f.mps_out, 1024);
	CHECK_EQ(f.burst_in, 15);
	CHECK_EQ(f.burst_out, 3);
	/* Truncated (wTotalLength says more than we have): short. */
	CHECK_EQ(usb_find_bot(cfg_ss, 40, &f), USB_DESC_SHORT);
}

TEST(usb_find_bot_skips_other_interfaces)
{
	/* A HID interface with an interrupt endpoint, then UAS (proto 0x62),
	 * then BOT at interface 2 with only a bulk IN first... and OUT. */
	static const uint8_t cfg[] = {
		9, 2, 57, 0, 3, 7, 0, 0x80, 50,
		9, 4, 0, 0, 1, 3, 1, 1, 0,
		7, 5, 0x83, 3, 8, 0, 10,
		9, 4, 1, 0, 2, 8, 6, 0x62, 0,
		7, 5, 0x84, 2, 0, 2, 0,
		9, 4, 2, 0, 2, 8, 6, 0x50, 0,
		7, 5, 0x85, 2, 0, 2, 0,
	};
	struct usb_bot_iface f;
	/* wTotalLength 57 > 52: parsed as far as it goes, whole descriptors only. */
	CHECK_EQ(usb_find_bot(cfg, sizeof cfg, &f), USB_DESC_NO_BOT);
	uint8_t c2[64];
	memcpy(c2, cfg, sizeof cfg);
	c2[2] = sizeof cfg;
	CHECK_EQ(usb_find_bot(c2, sizeof cfg, &f), USB_DESC_NO_BOT);  /* no OUT endpoint */
	static const uint8_t out[] = { 7, 5, 0x06, 2, 0, 2, 0 };
	memcpy(c2 + sizeof cfg, out, sizeof out);
	c2[2] = sizeof cfg + sizeof out;
	CHECK_EQ(usb_find_bot(c2, sizeof cfg + sizeof out, &f), USB_DESC_OK);
	CHECK_EQ(f.iface, 2);
	CHECK_EQ(f.config_value, 7);
	CHECK_EQ(f.ep_in, 0x85);
	CHECK_EQ(f.ep_out, 0x06);
	CHECK_EQ(f.mps_in, 512);
}

TEST(usb_find_bot_rejects_bad_lengths)
{
	struct usb_bot_iface f;
	uint8_t c[sizeof cfg_ss];
	memcpy(c, cfg_ss, sizeof c);
	c[9] = 0;                                       /* bLength 0 would loop for ever */
	CHECK_EQ(usb_find_bot(c, sizeof c, &f), USB_DESC_BAD);
	memcpy(c, cfg_ss, sizeof c);
	c[18] = 200;                                    /* runs past the end */
	CHECK_EQ(usb_find_bot(c, sizeof c, &f), USB_DESC_SHORT);
	memcpy(c, cfg_ss, sizeof c);
	c[1] = 4;                                       /* not a configuration */
	CHECK_EQ(usb_find_bot(c, sizeof c, &f), USB_DESC_BAD);
	CHECK_EQ(usb_find_bot(c, 5, &f), USB_DESC_SHORT);
	uint16_t total;
	CHECK_EQ(usb_config_total_len(cfg_ss, 9, &total), USB_DESC_OK);
	CHECK_EQ(total, 44);
}

/* ------------------------------------------------------------ BOT */

TEST(usb_cbw_layout)
{
	uint8_t cbw[USB_CBW_LEN], cdb[10] = { 0x28, 0, 0, 0, 0x10, 0, 0, 0, 8, 0 };
	CHECK(usb_bot_cbw(cbw, 0x11223344, 4096, true, 0, cdb, 10));
	static const uint8_t want[15] = { 'U', 'S', 'B', 'C', 0x44, 0x33, 0x22, 0x11, 0, 0x10, 0, 0, 0x80, 0, 10 };
	CHECK(!memcmp(cbw, want, 15));
	CHECK(!memcmp(cbw + 15, cdb, 10));
	for (int i = 25; i < USB_CBW_LEN; i++)
		CHECK_EQ(cbw[i], 0);
	CHECK(usb_bot_cbw(cbw, 1, 0, false, 3, cdb, 6));
	CHECK_EQ(cbw[12], 0);
	CHECK_EQ(cbw[13], 3);
	CHECK(!usb_bot_cbw(cbw, 1, 0, false, 0, cdb, 0));
	CHECK(!usb_bot_cbw(cbw, 1, 0, false, 0, cdb, 17));
}

static void csw(uint8_t *b, uint32_t sig, uint32_t tag, uint32_t residue, uint8_t status)
{
	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(sig >> (8 * i));
		b[4 + i] = (uint8_t)(tag >> (8 * i));
		b[8 + i] = (uint8_t)(residue >> (8 * i));
	}
	b[12] = status;
}

TEST(usb_csw_checks)
{
	uint8_t b[USB_CSW_LEN];
	uint8_t st;
	uint32_t res;
	csw(b, USB_CSW_SIG, 7, 0, 0);
	CHECK_EQ(usb_bot_csw(b, 13, 7, 512, &st, &res), USB_CSW_OK);
	CHECK_EQ(st, USB_CSW_PASSED);
	CHECK_EQ(res, 0);
	csw(b, USB_CSW_SIG, 7, 12, 1);
	CHECK_EQ(usb_bot_csw(b, 13, 7, 36, &st, &res), USB_CSW_OK);
	CHECK_EQ(st, USB_CSW_FAILED);
	CHECK_EQ(res, 12);
	CHECK_EQ(usb_bot_csw(b, 12, 7, 36, &st, &res), USB_CSW_ESHORT);
	CHECK_EQ(usb_bot_csw(b, 13, 8, 36, &st, &res), USB_CSW_ETAG);
	csw(b, USB_CBW_SIG, 7, 0, 0);
	CHECK_EQ(usb_bot_csw(b, 13, 7, 36, &st, &res), USB_CSW_ESIG);
	csw(b, USB_CSW_SIG, 7, 0, 3);
	CHECK_EQ(usb_bot_csw(b, 13, 7, 36, &st, &res), USB_CSW_ESTATUS);
	csw(b, USB_CSW_SIG, 7, 37, 0);
	CHECK_EQ(usb_bot_csw(b, 13, 7, 36, &st, &res), USB_CSW_ERESIDUE);
	csw(b, USB_CSW_SIG, 7, 37, 2);                  /* phase error: residue not meaningful */
	CHECK_EQ(usb_bot_csw(b, 13, 7, 36, &st, &res), USB_CSW_OK);
	CHECK_EQ(st, USB_CSW_PHASE);
}

/* ------------------------------------------------------------ SCSI */

TEST(usb_scsi_rw_cdb_10_and_16)
{
	uint8_t c[16];
	CHECK_EQ(scsi_rw_cdb(c, false, 0x12345678, 128), 10);
	CHECK_EQ(c[0], 0x28);
	CHECK_EQ(c[2], 0x12);
	CHECK_EQ(c[5], 0x78);
	CHECK_EQ(c[7], 0);
	CHECK_EQ(c[8], 128);
	CHECK_EQ(scsi_rw_cdb(c, true, 0, 0xffff), 10);
	CHECK_EQ(c[0], 0x2a);
	/* The last block (10) reaches: 0xffffffff; one past needs (16). */
	CHECK_EQ(scsi_rw_cdb(c, false, 0xffffffffull, 1), 10);
	CHECK_EQ(scsi_rw_cdb(c, false, 0xffffffffull, 2), 16);
	CHECK_EQ(scsi_rw_cdb(c, true, 0x123456789aull, 8), 16);
	CHECK_EQ(c[0], 0x8a);
	CHECK_EQ(c[5], 0x12);
	CHECK_EQ(c[9], 0x9a);
	CHECK_EQ(c[13], 8);
	CHECK_EQ(scsi_rw_cdb(c, false, 0, 0x10000), 16);        /* count beyond (10)'s 16 bits */
	CHECK_EQ(c[11], 1);
	CHECK_EQ(scsi_rw_cdb(c, false, 0, 0), 0);
}

TEST(usb_scsi_small_cdbs)
{
	uint8_t c[16];
	CHECK_EQ(scsi_cdb(c, SCSI_INQUIRY, 36), 6);
	CHECK_EQ(c[4], 36);
	CHECK_EQ(scsi_cdb(c, SCSI_TEST_UNIT_READY, 0), 6);
	CHECK_EQ(scsi_cdb(c, SCSI_READ_CAPACITY_10, 8), 10);
	CHECK_EQ(scsi_cdb(c, SCSI_SERVICE_IN_16, 32), 16);
	CHECK_EQ(c[1], 0x10);
	CHECK_EQ(c[13], 32);
}

TEST(usb_scsi_read_capacity)
{
	struct scsi_capacity cap;
	static const uint8_t c10[8] = { 0, 0x02, 0x4f, 0xff, 0, 0, 0x02, 0 };     /* 151552 x 512 */
	CHECK_EQ(scsi_parse_cap10(c10, 8, &cap), SCSI_CAP_OK);
	CHECK_EQ(cap.blocks, 151552);
	CHECK_EQ(cap.block_size, 512);
	CHECK_EQ(scsi_parse_cap10(c10, 7, &cap), SCSI_CAP_SHORT);
	static const uint8_t big[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0x10, 0 };
	CHECK_EQ(scsi_parse_cap10(big, 8, &cap), SCSI_CAP_NEED_16);
	static const uint8_t odd[8] = { 0, 0, 0x10, 0, 0, 0, 0x02, 0x08 };        /* 520-byte blocks */
	CHECK_EQ(scsi_parse_cap10(odd, 8, &cap), SCSI_CAP_BLOCK_SIZE);
	/* 16 TiB of 4 KiB blocks, through (16). */
	uint8_t c16[32] = { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x10, 0 };
	CHECK_EQ(scsi_parse_cap16(c16, 32, &cap), SCSI_CAP_OK);
	CHECK_EQ(cap.blocks, 0x100000000ull);
	CHECK_EQ(cap.block_size, 4096);
	CHECK_EQ(scsi_parse_cap16(c16, 11, &cap), SCSI_CAP_SHORT);
	memset(c16, 0xff, 8);
	CHECK_EQ(scsi_parse_cap16(c16, 32, &cap), SCSI_CAP_ZERO);
}

TEST(usb_scsi_sense)
{
	struct scsi_sense s;
	uint8_t fixed[18] = { 0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x28, 0x00 };
	CHECK(scsi_parse_sense(fixed, 18, &s));
	CHECK(s.valid && s.key == 6 && s.asc == 0x28 && s.ascq == 0);
	CHECK_STR(scsi_sense_key_name(s.key), "unit attention");
	CHECK(!scsi_parse_sense(fixed, 13, &s));
	CHECK(!s.valid);
	uint8_t desc[8] = { 0x72, 0x03, 0x11, 0x00 };
	CHECK(scsi_parse_sense(desc, 8, &s));
	CHECK(s.key == 3 && s.asc == 0x11);
	uint8_t junk[18] = { 0x00 };
	CHECK(!scsi_parse_sense(junk, 18, &s));
	CHECK(!scsi_parse_sense(junk, 0, &s));
}

TEST(usb_scsi_inquiry)
{
	uint8_t q[36] = { 0x00, 0x80, 5, 2, 31 };
	memcpy(q + 8, "QEMU    ", 8);
	memcpy(q + 16, "QEMU HARDDISK   ", 16);
	struct scsi_inquiry r;
	CHECK(scsi_parse_inquiry(q, 36, &r));
	CHECK_EQ(r.peripheral, 0);
	CHECK(r.removable);
	CHECK_STR(r.vendor, "QEMU");
	CHECK_STR(r.product, "QEMU HARDDISK");
	q[9] = 0x01;                                    /* not printable */
	CHECK(scsi_parse_inquiry(q, 20, &r));
	CHECK_STR(r.vendor, "Q?MU");
	CHECK_STR(r.product, "");
	CHECK(!scsi_parse_inquiry(q, 4, &r));
}

TEST(usb_hub_descriptor)
{
	/* QEMU's usb-hub: 9 bytes, 8 ports, per-port power switching,
	 * bPwrOn2PwrGood 0x32 (100 ms). */
	static const uint8_t hub[] = { 9, 0x29, 8, 0x0a, 0x00, 0x32, 0x00, 0x00, 0xff };
	struct usb_hub_desc h;
	CHECK_EQ(usb_parse_hub_desc(hub, sizeof hub, false, &h), USB_DESC_OK);
	CHECK_EQ(h.nports, 8);
	CHECK_EQ(h.characteristics, 0x0a);
	CHECK_EQ(h.power_good_ms, 100);
	CHECK_EQ(usb_parse_hub_desc(hub, 7, false, &h), USB_DESC_OK);   /* bitmaps cut off: fine */
	CHECK_EQ(usb_parse_hub_desc(hub, 6, false, &h), USB_DESC_SHORT);
	CHECK_EQ(h.nports, 0);
	CHECK_EQ(usb_parse_hub_desc(hub, sizeof hub, true, &h), USB_DESC_BAD);  /* SuperSpeed wants 0x2a */
	uint8_t bad[sizeof hub];
	memcpy(bad, hub, sizeof hub);
	bad[0] = 6;
	CHECK_EQ(usb_parse_hub_desc(bad, sizeof bad, false, &h), USB_DESC_BAD);
}

TEST(usb_hub_port_speeds)
{
	CHECK_EQ(usb_hub_port_speed(USB_PORT_STAT_CONNECTION | USB_PORT_STAT_ENABLE), 1);
	CHECK_EQ(usb_hub_port_speed(USB_PORT_STAT_CONNECTION | USB_PORT_STAT_LOW_SPEED), 2);
	CHECK_EQ(usb_hub_port_speed(USB_PORT_STAT_CONNECTION | USB_PORT_STAT_HIGH_SPEED), 3);
}

TEST(usb_route_string)
{
	uint32_t r = 0;
	CHECK_EQ(usb_route_child(0, 0, 1, &r), 0);
	CHECK_EQ(r, 0x1);
	CHECK_EQ(usb_route_child(0x1, 1, 3, &r), 0);
	CHECK_EQ(r, 0x31);
	CHECK_EQ(usb_route_child(0x31, 2, 15, &r), 0);
	CHECK_EQ(r, 0xf31);
	/* Bits of the hub's route above its own tier are not carried. */
	CHECK_EQ(usb_route_child(0xff1, 1, 2, &r), 0);
	CHECK_EQ(r, 0x21);
	CHECK_EQ(usb_route_child(0x4321, 4, 5, &r), 0);
	CHECK_EQ(r, 0x54321);
	r = 7;
	CHECK_EQ(usb_route_child(0x54321, 5, 1, &r), -1);       /* a sixth tier */
	CHECK_EQ(usb_route_child(0, 0, 0, &r), -1);
	CHECK_EQ(usb_route_child(0, 0, 16, &r), -1);
	CHECK_EQ(r, 7);
}
