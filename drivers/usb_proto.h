/*
 * USB's pure parts: xHCI ring and context arithmetic, descriptor parsing,
 * the Bulk-Only Transport's CBW/CSW and the SCSI commands and replies
 * the mass-storage driver uses.  No state, no kernel headers: the host
 * unit tests and the fuzz target build this file as it is.
 *
 * Every parser takes the device's bytes with their length and checks
 * both before reading: a stick is untrusted input.
 */
#ifndef USB_PROTO_H
#define USB_PROTO_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- xHCI rings (4.9) ------------------------------------------------
 * A transfer or command ring of n TRBs whose last entry is a link TRB
 * back to the start with toggle-cycle set: producers use entries
 * 0..n-2.  An event ring segment of n TRBs has no link: the consumer
 * wraps at n.  Both flip their cycle bit on wrapping. */
struct xhci_ring_pos {
	uint32_t idx;
	bool cycle;
};
/* The producer's next position after pos (skipping the link TRB).
 * *wrapped: the step passed the link TRB (it must carry the chain bit
 * when the TD continues). */
struct xhci_ring_pos xhci_ring_next(struct xhci_ring_pos pos, uint32_t n, bool *wrapped);
/* The event consumer's next position. */
struct xhci_ring_pos xhci_event_next(struct xhci_ring_pos pos, uint32_t n);
/* Free producer slots when the consumer is at deq (not counting the link). */
uint32_t xhci_ring_space(uint32_t enq, uint32_t deq, uint32_t n);

/* Context size in bytes from HCCPARAMS1 (CSZ: 64, else 32). */
uint32_t xhci_ctx_size(uint32_t hccparams1);
/* Byte offset of DCI dci (0 = slot) in a device context, and in an input
 * context (which starts with the input control context). */
uint32_t xhci_dev_ctx_off(uint32_t csz, uint32_t dci);
uint32_t xhci_in_ctx_off(uint32_t csz, uint32_t dci);
uint32_t xhci_in_ctx_bytes(uint32_t csz);
/* DCI of an endpoint address (bit 7 IN, bits 3:0 number); 0 when invalid. */
uint32_t xhci_dci(uint8_t ep_addr);

/* A physically contiguous buffer cut at 64 KiB boundaries (4.11.7.1).
 * Fills up to max pieces, returns how many it needs (more than max: the
 * caller's array was short). */
struct xhci_piece {
	uint64_t phys;
	uint32_t len;
};
uint32_t xhci_split(uint64_t phys, uint32_t len, struct xhci_piece *out, uint32_t max);
/* TD Size (4.11.2.4): packets still to come after this TRB, at most 31. */
uint32_t xhci_td_size(uint64_t remaining_after, uint32_t max_packet);
/* Default control max packet size for a port speed ID (0 unknown). */
uint32_t xhci_ep0_mps(uint32_t speed);
const char *xhci_speed_name(uint32_t speed);
const char *xhci_cc_name(uint32_t cc);

/* ---- Descriptors (USB 2.0 chapter 9, USB 3.2 9.6) ------------------- */
enum usb_desc_err {
	USB_DESC_OK = 0,
	USB_DESC_SHORT = -1,            /* fewer bytes than the descriptor claims */
	USB_DESC_BAD = -2,              /* wrong type or length field */
	USB_DESC_NO_BOT = -3,           /* no Bulk-Only mass-storage interface */
};

struct usb_dev_desc {
	uint16_t bcd_usb, vendor, product, bcd_device;
	uint8_t cls, subclass, protocol, mps0;  /* mps0: bMaxPacketSize0 (an exponent on USB 3) */
	uint8_t num_configs;
	uint8_t i_manufacturer, i_product, i_serial;
};
int usb_parse_device(const uint8_t *buf, size_t len, struct usb_dev_desc *d);

/* The first Bulk-Only (class 8, subclass 6 SCSI, protocol 0x50)
 * interface of a configuration descriptor set, with its two bulk
 * endpoints. */
struct usb_bot_iface {
	uint8_t config_value, iface, alt;
	uint8_t ep_in, ep_out;          /* endpoint addresses */
	uint16_t mps_in, mps_out;
	uint8_t burst_in, burst_out;    /* SuperSpeed companion bMaxBurst */
	uint16_t total_len;             /* wTotalLength */
};
/* Header only (9 bytes): wTotalLength, to read the full set. */
int usb_config_total_len(const uint8_t *buf, size_t len, uint16_t *total);
int usb_find_bot(const uint8_t *buf, size_t len, struct usb_bot_iface *out);
const char *usb_desc_strerror(int err);

/* ---- Hubs (USB 2.0 11.23, 11.24; USB 3.2 10.15, 10.16) ----------------
 * The hub descriptor (type 0x29, SuperSpeed 0x2a): ports and how long
 * power takes to be good on a port once switched on. */
struct usb_hub_desc {
	uint8_t nports;
	uint16_t characteristics;
	uint32_t power_good_ms;         /* bPwrOn2PwrGood, in ms (units of 2 ms) */
};
int usb_parse_hub_desc(const uint8_t *buf, size_t len, bool super, struct usb_hub_desc *h);
/* wPortStatus bits (11.24.2.7.1) and wPortChange bits (11.24.2.7.2). */
#define USB_PORT_STAT_CONNECTION        (1u << 0)
#define USB_PORT_STAT_ENABLE            (1u << 1)
#define USB_PORT_STAT_RESET             (1u << 4)
#define USB_PORT_STAT_POWER             (1u << 8)
#define USB_PORT_STAT_LOW_SPEED         (1u << 9)
#define USB_PORT_STAT_HIGH_SPEED        (1u << 10)
#define USB_PORT_STAT_C_CONNECTION      (1u << 0)
#define USB_PORT_STAT_C_RESET           (1u << 4)
/* Hub class feature selectors (11.24.2, table 11-17). */
enum usb_hub_feature {
	USB_PORT_FEAT_RESET = 4, USB_PORT_FEAT_POWER = 8,
	USB_PORT_FEAT_C_CONNECTION = 16, USB_PORT_FEAT_C_ENABLE = 17, USB_PORT_FEAT_C_RESET = 20,
};
/* xHCI speed ID (xhci_regs.h enum) of a device on a USB 2 hub port, from
 * wPortStatus: low, high, else full. */
uint32_t usb_hub_port_speed(uint16_t status);
/* Route string (xHCI 8.9) of the device on port of a hub whose own route
 * string is hub_route at tier depth (0: the hub is on a root port).
 * -1 when the tree is too deep (5 hubs) or port is not 1..15. */
int usb_route_child(uint32_t hub_route, uint32_t depth, uint32_t port, uint32_t *route);

/* ---- Bulk-Only Transport (USB MSC BOT 1.0, 5) ------------------------ */
#define USB_CBW_LEN     31
#define USB_CSW_LEN     13
#define USB_CBW_SIG     0x43425355u     /* "USBC" */
#define USB_CSW_SIG     0x53425355u     /* "USBS" */
enum usb_csw_status { USB_CSW_PASSED = 0, USB_CSW_FAILED = 1, USB_CSW_PHASE = 2 };
enum usb_csw_err {
	USB_CSW_OK = 0,
	USB_CSW_ESHORT = -1,            /* not 13 bytes */
	USB_CSW_ESIG = -2,              /* signature wrong */
	USB_CSW_ETAG = -3,              /* another command's tag */
	USB_CSW_ESTATUS = -4,           /* status beyond phase error */
	USB_CSW_ERESIDUE = -5,          /* residue larger than the transfer */
};
/* Fill 31 bytes; false when cdb_len is not 1..16. */
bool usb_bot_cbw(uint8_t *out, uint32_t tag, uint32_t data_len, bool data_in, uint8_t lun, const uint8_t *cdb,
		 uint8_t cdb_len);
/* Check a CSW (BOT 6.3 "valid and meaningful"); *status, *residue. */
int usb_bot_csw(const uint8_t *buf, size_t len, uint32_t tag, uint32_t data_len, uint8_t *status,
		uint32_t *residue);
const char *usb_csw_strerror(int err);

/* ---- SCSI (SPC-4, SBC-3) --------------------------------------------- */
#define SCSI_TEST_UNIT_READY    0x00
#define SCSI_REQUEST_SENSE      0x03
#define SCSI_INQUIRY            0x12
#define SCSI_READ_CAPACITY_10   0x25
#define SCSI_READ_10            0x28
#define SCSI_WRITE_10           0x2a
#define SCSI_SYNC_CACHE_10      0x35
#define SCSI_READ_16            0x88
#define SCSI_WRITE_16           0x8a
#define SCSI_SERVICE_IN_16      0x9e
#define SCSI_SA_READ_CAPACITY_16 0x10
#define SCSI_INQUIRY_LEN        36
#define SCSI_SENSE_LEN          18
#define SCSI_CAP10_LEN          8
#define SCSI_CAP16_LEN          32

/* A READ or WRITE CDB: (10) when lba and count fit, else (16).
 * Returns the CDB length, 0 when count is 0. */
uint8_t scsi_rw_cdb(uint8_t *cdb, bool write, uint64_t lba, uint32_t count);
/* Simple CDBs: the length. */
uint8_t scsi_cdb(uint8_t *cdb, uint8_t op, uint32_t alloc_len);

struct scsi_capacity {
	uint64_t blocks;                /* last LBA + 1 */
	uint32_t block_size;
};
enum scsi_cap_err {
	SCSI_CAP_OK = 0,
	SCSI_CAP_SHORT = -1,
	SCSI_CAP_BLOCK_SIZE = -2,       /* not a power of two in 512..4096 */
	SCSI_CAP_ZERO = -3,
	SCSI_CAP_NEED_16 = -4,          /* (10) says 0xffffffff: ask (16) */
};
int scsi_parse_cap10(const uint8_t *buf, size_t len, struct scsi_capacity *c);
int scsi_parse_cap16(const uint8_t *buf, size_t len, struct scsi_capacity *c);
const char *scsi_cap_strerror(int err);

struct scsi_sense {
	uint8_t key, asc, ascq;
	bool valid;
};
/* Fixed (0x70/0x71) or descriptor (0x72/0x73) sense data. */
bool scsi_parse_sense(const uint8_t *buf, size_t len, struct scsi_sense *s);
const char *scsi_sense_key_name(uint8_t key);

struct scsi_inquiry {
	uint8_t peripheral;             /* device type: 0 direct access */
	bool removable;
	char vendor[9], product[17];    /* printable, trailing spaces dropped */
};
bool scsi_parse_inquiry(const uint8_t *buf, size_t len, struct scsi_inquiry *q);

#endif
