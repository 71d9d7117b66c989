/* libFuzzer target: the parsers of what a USB device sends
 * (drivers/usb_proto.c): device and configuration descriptors, the CSW,
 * sense data, READ CAPACITY (10) and (16) and INQUIRY replies, hub
 * descriptors (USB 2 and SuperSpeed).
 * Byte 0 picks the parser, bytes 1..4 the expected CSW tag, the rest is
 * the device's reply, copied into a buffer of exactly its size so ASan
 * sees any read past it.  Checks the outputs' invariants. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "usb_proto.h"

static void check_bot(const uint8_t *p, size_t n)
{
	struct usb_bot_iface f;
	int err = usb_find_bot(p, n, &f);
	if (!*usb_desc_strerror(err))
		__builtin_trap();
	if (err)
		return;
	/* Found: two bulk endpoints of the right directions, sizes non-zero. */
	if (!(f.ep_in & 0x80) || (f.ep_out & 0x80) || !(f.ep_in & 0xf) || !(f.ep_out & 0xf) || !f.mps_in ||
	    !f.mps_out || f.mps_in > 0x7ff || f.burst_in > 15 || f.burst_out > 15 || xhci_dci(f.ep_in) < 2 ||
	    xhci_dci(f.ep_out) < 2 || f.total_len < 9)
		__builtin_trap();
}

static void check_caps(const uint8_t *p, size_t n, bool sixteen)
{
	struct scsi_capacity c;
	int err = sixteen ? scsi_parse_cap16(p, n, &c) : scsi_parse_cap10(p, n, &c);
	if (!*scsi_cap_strerror(err))
		__builtin_trap();
	if (!err && (!c.blocks || c.block_size < 512 || c.block_size > 4096 || (c.block_size & (c.block_size - 1))))
		__builtin_trap();
}

static void check_strings(const uint8_t *p, size_t n)
{
	struct scsi_inquiry q;
	if (!scsi_parse_inquiry(p, n, &q))
		return;
	for (const char *s = q.vendor; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			__builtin_trap();
	for (const char *s = q.product; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			__builtin_trap();
	if (strlen(q.vendor) > 8 || strlen(q.product) > 16)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	uint32_t tag = data[1] | data[2] << 8 | data[3] << 16 | (uint32_t)data[4] << 24;
	size_t n = size - 5;
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, data + 5, n);
	struct usb_dev_desc d;
	struct scsi_sense s;
	uint8_t status;
	uint32_t residue;
	switch (data[0] % 9) {
	case 0:
		if (!*usb_desc_strerror(usb_parse_device(p, n, &d)))
			__builtin_trap();
		break;
	case 1:
		check_bot(p, n);
		break;
	case 2: {
		uint32_t len = tag & 0xffff;
		int err = usb_bot_csw(p, n, tag, len, &status, &residue);
		if (!*usb_csw_strerror(err) || (!err && (status > USB_CSW_PHASE ||
							 (status != USB_CSW_PHASE && residue > len))))
			__builtin_trap();
		break;
	}
	case 3:
		if (scsi_parse_sense(p, n, &s) != s.valid || s.key > 15)
			__builtin_trap();
		(void)scsi_sense_key_name(s.key);
		break;
	case 4:
		check_caps(p, n, false);
		break;
	case 5:
		check_caps(p, n, true);
		break;
	case 6:
	case 7: {
		struct usb_hub_desc h;
		int err = usb_parse_hub_desc(p, n, data[0] % 9 == 7, &h);
		if (!*usb_desc_strerror(err) || (!err && h.power_good_ms > 510) || (err && h.nports))
			__builtin_trap();
		break;
	}
	default:
		check_strings(p, n);
		break;
	}
	free(p);
	return 0;
}
