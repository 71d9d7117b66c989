/*
 * USB's pure parts (usb_proto.h): ring and context arithmetic for xhci.c,
 * descriptor, CSW, sense, capacity and inquiry parsing for usb_storage.c.
 *
 * Parsers read nothing past len and trust no length field the device
 * sent: a descriptor's bLength is checked against what is left before it
 * is used, and a loop over descriptors always advances.
 */
#include <string.h>
#include "usb_proto.h"

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }
static void put_le32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put_be32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i)); }
static void put_be64(uint8_t *p, uint64_t v) { put_be32(p, (uint32_t)(v >> 32)); put_be32(p + 4, (uint32_t)v); }

/* ------------------------------------------------------------ rings, contexts */

struct xhci_ring_pos xhci_ring_next(struct xhci_ring_pos pos, uint32_t n, bool *wrapped)
{
	*wrapped = false;
	if (++pos.idx >= n - 1) {       /* n - 1 is the link TRB */
		pos.idx = 0;
		pos.cycle = !pos.cycle;
		*wrapped = true;
	}
	return pos;
}

struct xhci_ring_pos xhci_event_next(struct xhci_ring_pos pos, uint32_t n)
{
	if (++pos.idx >= n) {
		pos.idx = 0;
		pos.cycle = !pos.cycle;
	}
	return pos;
}

uint32_t xhci_ring_space(uint32_t enq, uint32_t deq, uint32_t n)
{
	uint32_t usable = n - 1;
	if (enq >= usable || deq >= usable)
		return 0;
	/* One slot stays empty so a full ring differs from an empty one. */
	return (deq + usable - enq - 1) % usable;
}

uint32_t xhci_ctx_size(uint32_t hccparams1) { return (hccparams1 & (1u << 2)) ? 64 : 32; }
uint32_t xhci_dev_ctx_off(uint32_t csz, uint32_t dci) { return dci * csz; }
uint32_t xhci_in_ctx_off(uint32_t csz, uint32_t dci) { return (dci + 1) * csz; }
uint32_t xhci_in_ctx_bytes(uint32_t csz) { return 33 * csz; }

uint32_t xhci_dci(uint8_t ep_addr)
{
	uint32_t num = ep_addr & 0xf;
	if (ep_addr & 0x70)
		return 0;               /* reserved bits set */
	if (num == 0)
		return 1;               /* the control endpoint, both directions */
	return num * 2 + ((ep_addr & 0x80) ? 1 : 0);
}

uint32_t xhci_split(uint64_t phys, uint32_t len, struct xhci_piece *out, uint32_t max)
{
	uint32_t n = 0;
	while (len) {
		uint64_t room = 0x10000 - (phys & 0xffff);
		uint32_t chunk = room < len ? (uint32_t)room : len;
		if (n < max)
			out[n] = (struct xhci_piece){ phys, chunk };
		n++;
		phys += chunk;
		len -= chunk;
	}
	return n;
}

uint32_t xhci_td_size(uint64_t remaining_after, uint32_t max_packet)
{
	if (!max_packet)
		return 0;
	uint64_t packets = (remaining_after + max_packet - 1) / max_packet;
	return packets > 31 ? 31 : (uint32_t)packets;
}

uint32_t xhci_ep0_mps(uint32_t speed)
{
	switch (speed) {
	case 1: return 64;      /* full speed: 8..64; fixed from the descriptor (an 8-byte read fits any) */
	case 2: return 8;       /* low speed */
	case 3: return 64;      /* high speed */
	case 4: case 5: return 512;
	default: return 0;
	}
}

const char *xhci_speed_name(uint32_t speed)
{
	static const char *const names[] = { "unknown", "full speed (12 Mb/s)", "low speed (1.5 Mb/s)",
					     "high speed (480 Mb/s)", "SuperSpeed (5 Gb/s)", "SuperSpeedPlus (10 Gb/s)" };
	return speed < sizeof names / sizeof names[0] ? names[speed] : "unknown";
}

const char *xhci_cc_name(uint32_t cc)
{
	switch (cc) {
	case 1: return "success";
	case 2: return "data buffer error";
	case 3: return "babble detected";
	case 4: return "USB transaction error";
	case 5: return "TRB error";
	case 6: return "stall";
	case 7: return "resource error";
	case 8: return "bandwidth error";
	case 9: return "no slots available";
	case 11: return "slot not enabled";
	case 12: return "endpoint not enabled";
	case 13: return "short packet";
	case 17: return "parameter error";
	case 19: return "context state error";
	case 21: return "event ring full";
	case 24: return "command ring stopped";
	case 25: return "command aborted";
	case 26: return "stopped";
	case 27: return "stopped (length invalid)";
	case 28: return "stopped (short packet)";
	default: return "other completion code";
	}
}

/* ------------------------------------------------------------ descriptors */

int usb_parse_device(const uint8_t *buf, size_t len, struct usb_dev_desc *d)
{
	if (len < 8)
		return USB_DESC_SHORT;
	if (buf[1] != 1 || buf[0] < 18)
		return USB_DESC_BAD;
	memset(d, 0, sizeof *d);
	d->bcd_usb = le16(buf + 2);
	d->cls = buf[4];
	d->subclass = buf[5];
	d->protocol = buf[6];
	d->mps0 = buf[7];
	if (len < 18)
		return USB_DESC_SHORT;  /* the first 8 bytes are filled: enough for mps0 */
	d->vendor = le16(buf + 8);
	d->product = le16(buf + 10);
	d->bcd_device = le16(buf + 12);
	d->i_manufacturer = buf[14];
	d->i_product = buf[15];
	d->i_serial = buf[16];
	d->num_configs = buf[17];
	return USB_DESC_OK;
}

int usb_config_total_len(const uint8_t *buf, size_t len, uint16_t *total)
{
	if (len < 9)
		return USB_DESC_SHORT;
	if (buf[1] != 2 || buf[0] < 9)
		return USB_DESC_BAD;
	*total = le16(buf + 2);
	return *total < 9 ? USB_DESC_BAD : USB_DESC_OK;
}

/* An endpoint descriptor's fields into the interface being built. */
static void take_endpoint(const uint8_t *e, struct usb_bot_iface *f, uint8_t **burst)
{
	uint8_t addr = e[2];
	uint16_t mps = le16(e + 4) & 0x7ff;
	*burst = NULL;
	if ((e[3] & 3) != 2 || (addr & 0x70) || !(addr & 0xf) || !mps)
		return;                 /* not a usable bulk endpoint */
	if ((addr & 0x80) && !f->ep_in) {
		f->ep_in = addr;
		f->mps_in = mps;
		*burst = &f->burst_in;
	} else if (!(addr & 0x80) && !f->ep_out) {
		f->ep_out = addr;
		f->mps_out = mps;
		*burst = &f->burst_out;
	}
}

int usb_find_bot(const uint8_t *buf, size_t len, struct usb_bot_iface *out)
{
	uint16_t total;
	int err = usb_config_total_len(buf, len, &total);
	if (err)
		return err;
	if (len > total)
		len = total;
	struct usb_bot_iface f = { 0 };
	bool in_bot = false;
	uint8_t *burst = NULL;          /* the endpoint a companion descriptor belongs to */
	for (size_t off = 0; off + 2 <= len;) {
		const uint8_t *d = buf + off;
		if (d[0] < 2 || d[0] > len - off)
			return d[0] < 2 ? USB_DESC_BAD : USB_DESC_SHORT;
		if (d[1] == 4 && d[0] >= 9) {           /* interface */
			if (in_bot && f.ep_in && f.ep_out)
				break;
			in_bot = d[5] == 8 && d[6] == 6 && d[7] == 0x50;
			f = (struct usb_bot_iface){ .iface = d[2], .alt = d[3] };
			burst = NULL;
		} else if (d[1] == 5 && d[0] >= 7 && in_bot) {         /* endpoint */
			take_endpoint(d, &f, &burst);
		} else if (d[1] == 0x30 && d[0] >= 6 && burst) {       /* SuperSpeed companion */
			*burst = d[2] > 15 ? 15 : d[2];
			burst = NULL;
		}
		off += d[0];
	}
	if (!in_bot || !f.ep_in || !f.ep_out)
		return USB_DESC_NO_BOT;
	f.config_value = buf[5];
	f.total_len = total;
	*out = f;
	return USB_DESC_OK;
}

const char *usb_desc_strerror(int err)
{
	switch (err) {
	case USB_DESC_OK: return "ok";
	case USB_DESC_SHORT: return "descriptor shorter than its length field";
	case USB_DESC_BAD: return "malformed descriptor (type or length)";
	case USB_DESC_NO_BOT: return "no Bulk-Only SCSI mass-storage interface with bulk IN and OUT endpoints";
	default: return "unknown descriptor error";
	}
}

/* ------------------------------------------------------------ hubs */

int usb_parse_hub_desc(const uint8_t *buf, size_t len, bool super, struct usb_hub_desc *h)
{
	memset(h, 0, sizeof *h);
	/* bLength, bDescriptorType, bNbrPorts, wHubCharacteristics,
	 * bPwrOn2PwrGood: the first 7 bytes are all we read (the port bitmaps
	 * after them may be cut off by the length asked for). */
	if (len < 7)
		return USB_DESC_SHORT;
	if (buf[0] < 7 || buf[1] != (super ? 0x2a : 0x29))
		return USB_DESC_BAD;
	h->nports = buf[2];
	h->characteristics = le16(buf + 3);
	h->power_good_ms = 2u * buf[5];
	return USB_DESC_OK;
}

uint32_t usb_hub_port_speed(uint16_t status)
{
	if (status & USB_PORT_STAT_LOW_SPEED)
		return 2;               /* XHCI_SPEED_LOW */
	if (status & USB_PORT_STAT_HIGH_SPEED)
		return 3;               /* XHCI_SPEED_HIGH */
	return 1;                       /* XHCI_SPEED_FULL */
}

int usb_route_child(uint32_t hub_route, uint32_t depth, uint32_t port, uint32_t *route)
{
	/* Five nibbles: one per hub tier below the root port (8.9). */
	if (depth >= 5 || port < 1 || port > 15)
		return -1;
	*route = (hub_route & ((1u << (4 * depth)) - 1)) | port << (4 * depth);
	return 0;
}

/* ------------------------------------------------------------ bulk-only transport */

bool usb_bot_cbw(uint8_t *out, uint32_t tag, uint32_t data_len, bool data_in, uint8_t lun, const uint8_t *cdb,
		 uint8_t cdb_len)
{
	if (!cdb_len || cdb_len > 16)
		return false;
	memset(out, 0, USB_CBW_LEN);
	put_le32(out, USB_CBW_SIG);
	put_le32(out + 4, tag);
	put_le32(out + 8, data_len);
	out[12] = data_in ? 0x80 : 0;
	out[13] = lun & 0xf;
	out[14] = cdb_len;
	memcpy(out + 15, cdb, cdb_len);
	return true;
}

int usb_bot_csw(const uint8_t *buf, size_t len, uint32_t tag, uint32_t data_len, uint8_t *status,
		uint32_t *residue)
{
	if (len != USB_CSW_LEN)
		return USB_CSW_ESHORT;
	if (le32(buf) != USB_CSW_SIG)
		return USB_CSW_ESIG;
	if (le32(buf + 4) != tag)
		return USB_CSW_ETAG;
	if (buf[12] > USB_CSW_PHASE)
		return USB_CSW_ESTATUS;
	*residue = le32(buf + 8);
	*status = buf[12];
	/* BOT 6.3: a residue beyond the transfer is not meaningful. */
	if (*residue > data_len && *status != USB_CSW_PHASE)
		return USB_CSW_ERESIDUE;
	return USB_CSW_OK;
}

const char *usb_csw_strerror(int err)
{
	switch (err) {
	case USB_CSW_OK: return "ok";
	case USB_CSW_ESHORT: return "status wrapper is not 13 bytes";
	case USB_CSW_ESIG: return "status wrapper signature wrong";
	case USB_CSW_ETAG: return "status wrapper tag is another command's";
	case USB_CSW_ESTATUS: return "status wrapper status reserved";
	case USB_CSW_ERESIDUE: return "status wrapper residue larger than the transfer";
	default: return "unknown status wrapper error";
	}
}

/* ------------------------------------------------------------ SCSI */

uint8_t scsi_rw_cdb(uint8_t *cdb, bool write, uint64_t lba, uint32_t count)
{
	memset(cdb, 0, 16);
	if (!count)
		return 0;
	if (lba + count <= 0x100000000ull && count <= 0xffff) {
		cdb[0] = write ? SCSI_WRITE_10 : SCSI_READ_10;
		put_be32(cdb + 2, (uint32_t)lba);
		put_be16(cdb + 7, (uint16_t)count);
		return 10;
	}
	cdb[0] = write ? SCSI_WRITE_16 : SCSI_READ_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, count);
	return 16;
}

uint8_t scsi_cdb(uint8_t *cdb, uint8_t op, uint32_t alloc_len)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	switch (op) {
	case SCSI_INQUIRY:
	case SCSI_REQUEST_SENSE:
		cdb[4] = (uint8_t)(alloc_len > 255 ? 255 : alloc_len);
		return 6;
	case SCSI_READ_CAPACITY_10:
	case SCSI_SYNC_CACHE_10:
		return 10;
	case SCSI_SERVICE_IN_16:
		cdb[1] = SCSI_SA_READ_CAPACITY_16;
		put_be32(cdb + 10, alloc_len);
		return 16;
	default:
		return 6;               /* TEST UNIT READY and the other 6-byte ones */
	}
}

static int check_block_size(uint32_t bs)
{
	return bs >= 512 && bs <= 4096 && !(bs & (bs - 1)) ? SCSI_CAP_OK : SCSI_CAP_BLOCK_SIZE;
}

int scsi_parse_cap10(const uint8_t *buf, size_t len, struct scsi_capacity *c)
{
	if (len < SCSI_CAP10_LEN)
		return SCSI_CAP_SHORT;
	uint32_t last = be32(buf);
	if (last == 0xffffffffu)
		return SCSI_CAP_NEED_16;
	c->blocks = (uint64_t)last + 1;
	c->block_size = be32(buf + 4);
	return check_block_size(c->block_size);
}

int scsi_parse_cap16(const uint8_t *buf, size_t len, struct scsi_capacity *c)
{
	if (len < 12)
		return SCSI_CAP_SHORT;
	uint64_t last = be64(buf);
	if (last == ~0ull)
		return SCSI_CAP_ZERO;   /* would wrap to 0 blocks */
	c->blocks = last + 1;
	c->block_size = be32(buf + 8);
	return check_block_size(c->block_size);
}

const char *scsi_cap_strerror(int err)
{
	switch (err) {
	case SCSI_CAP_OK: return "ok";
	case SCSI_CAP_SHORT: return "capacity data too short";
	case SCSI_CAP_BLOCK_SIZE: return "block size not a power of two from 512 to 4096";
	case SCSI_CAP_ZERO: return "capacity out of range";
	case SCSI_CAP_NEED_16: return "capacity beyond READ CAPACITY(10)";
	default: return "unknown capacity error";
	}
}

bool scsi_parse_sense(const uint8_t *buf, size_t len, struct scsi_sense *s)
{
	memset(s, 0, sizeof *s);
	if (len < 1)
		return false;
	uint8_t code = buf[0] & 0x7f;
	if ((code == 0x70 || code == 0x71) && len >= 14) {
		s->key = buf[2] & 0xf;
		s->asc = buf[12];
		s->ascq = buf[13];
	} else if ((code == 0x72 || code == 0x73) && len >= 4) {
		s->key = buf[1] & 0xf;
		s->asc = buf[2];
		s->ascq = buf[3];
	} else {
		return false;
	}
	s->valid = true;
	return true;
}

const char *scsi_sense_key_name(uint8_t key)
{
	static const char *const names[16] = {
		"no sense", "recovered error", "not ready", "medium error", "hardware error", "illegal request",
		"unit attention", "data protect", "blank check", "vendor specific", "copy aborted",
		"aborted command", "reserved (0xc)", "volume overflow", "miscompare", "completed",
	};
	return names[key & 0xf];
}

/* Printable ASCII of a space-padded field, trailing spaces dropped. */
static void ascii_field(char *dst, const uint8_t *src, size_t n)
{
	size_t end = 0;
	for (size_t i = 0; i < n; i++) {
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
		if (dst[i] != ' ')
			end = i + 1;
	}
	dst[end] = 0;
}

bool scsi_parse_inquiry(const uint8_t *buf, size_t len, struct scsi_inquiry *q)
{
	memset(q, 0, sizeof *q);
	if (len < 5)
		return false;
	q->peripheral = buf[0] & 0x1f;
	q->removable = buf[1] & 0x80;
	if (len >= 16)
		ascii_field(q->vendor, buf + 8, 8);
	if (len >= 32)
		ascii_field(q->product, buf + 16, 16);
	return true;
}
