/*
 * xHCI register and data-structure layouts (eXtensible Host Controller
 * Interface for USB, revision 1.2, May 2019).  Section numbers refer to
 * that document.  Everything is little-endian.
 *
 * Alignment rules the driver relies on (6.1, table 6-1):
 *   - DCBAA: 64-byte aligned, must not cross a page; device and input
 *     contexts: 64-byte aligned; all of them get a page of their own here;
 *   - TRB rings and event ring segments: 64-byte aligned and must not
 *     cross a 64 KiB boundary: one 4 KiB page each here;
 *   - the ERST: 64-byte aligned;
 *   - a TRB's data buffer must not cross a 64 KiB boundary (4.11.7.1):
 *     usb_proto.c splits buffers there;
 *   - without HCCPARAMS1.AC64 every address handed to the controller
 *     lies below 4 GiB.
 */
#ifndef XHCI_REGS_H
#define XHCI_REGS_H

#include <stdint.h>

/* ---- Capability registers (5.3) ------------------------------------- */
#define XHCI_CAP_CAPLENGTH      0x00    /* 8: operational registers' offset */
#define XHCI_CAP_HCIVERSION     0x02    /* 16 */
#define XHCI_CAP_HCSPARAMS1     0x04
#define XHCI_CAP_HCSPARAMS2     0x08
#define XHCI_CAP_HCSPARAMS3     0x0c
#define XHCI_CAP_HCCPARAMS1     0x10
#define XHCI_CAP_DBOFF          0x14
#define XHCI_CAP_RTSOFF         0x18

#define XHCI_HCS1_MAX_SLOTS(p)  ((p) & 0xff)
#define XHCI_HCS1_MAX_INTRS(p)  (((p) >> 8) & 0x7ff)
#define XHCI_HCS1_MAX_PORTS(p)  ((p) >> 24)
/* Scratchpad buffers: Hi (bits 25:21) << 5 | Lo (bits 31:27) (5.3.4). */
#define XHCI_HCS2_SCRATCH(p)    ((((p) >> 21) & 0x1f) << 5 | ((p) >> 27))
#define XHCI_HCC1_AC64          (1u << 0)
#define XHCI_HCC1_CSZ           (1u << 2)       /* 64-byte contexts */
#define XHCI_HCC1_XECP(p)       ((p) >> 16)     /* extended caps, in dwords */

/* ---- Operational registers (5.4) ------------------------------------ */
#define XHCI_OP_USBCMD          0x00
#define XHCI_OP_USBSTS          0x04
#define XHCI_OP_PAGESIZE        0x08
#define XHCI_OP_DNCTRL          0x14
#define XHCI_OP_CRCR            0x18    /* 64 */
#define XHCI_OP_DCBAAP          0x30    /* 64 */
#define XHCI_OP_CONFIG          0x38
#define XHCI_OP_PORTSC(n)       (0x400 + 0x10 * ((n) - 1))      /* ports count from 1 */

#define XHCI_CMD_RS             (1u << 0)
#define XHCI_CMD_HCRST          (1u << 1)
#define XHCI_CMD_INTE           (1u << 2)
#define XHCI_CMD_HSEE           (1u << 3)

#define XHCI_STS_HCH            (1u << 0)       /* halted */
#define XHCI_STS_HSE            (1u << 2)       /* host system error (RW1C) */
#define XHCI_STS_EINT           (1u << 3)       /* event interrupt (RW1C) */
#define XHCI_STS_PCD            (1u << 4)       /* port change (RW1C) */
#define XHCI_STS_CNR            (1u << 11)      /* controller not ready */
#define XHCI_STS_HCE            (1u << 12)      /* host controller error */

#define XHCI_CRCR_RCS           (1u << 0)

/* PORTSC (5.4.8).  PED and the change bits 17-23 are write-1-to-clear;
 * writes must carry PP and leave those alone unless meant. */
#define XHCI_PORTSC_CCS         (1u << 0)
#define XHCI_PORTSC_PED         (1u << 1)
#define XHCI_PORTSC_PR          (1u << 4)
#define XHCI_PORTSC_PLS(p)      (((p) >> 5) & 0xf)
#define XHCI_PORTSC_PP          (1u << 9)
#define XHCI_PORTSC_SPEED(p)    (((p) >> 10) & 0xf)
#define XHCI_PORTSC_CSC         (1u << 17)
#define XHCI_PORTSC_PEC         (1u << 18)
#define XHCI_PORTSC_WRC         (1u << 19)
#define XHCI_PORTSC_OCC         (1u << 20)
#define XHCI_PORTSC_PRC         (1u << 21)
#define XHCI_PORTSC_PLC         (1u << 22)
#define XHCI_PORTSC_CEC         (1u << 23)
#define XHCI_PORTSC_CHANGES     (0x7fu << 17)
#define XHCI_PORTSC_WPR         (1u << 31)      /* warm reset, USB 3 ports */
/* Bits a read-modify-write keeps: everything but PED and the changes. */
#define XHCI_PORTSC_KEEP(p)     ((p) & ~(XHCI_PORTSC_PED | XHCI_PORTSC_CHANGES) & 0x0e00c200u)  /* PP, PIC, WCE, WDE, WOE */

/* Port speed IDs with the default protocol speed table (7.2.2.1.1). */
enum xhci_speed { XHCI_SPEED_FULL = 1, XHCI_SPEED_LOW = 2, XHCI_SPEED_HIGH = 3, XHCI_SPEED_SUPER = 4,
		  XHCI_SPEED_SUPER_PLUS = 5 };

/* ---- Runtime registers (5.5): interrupter 0 ------------------------- */
#define XHCI_RT_IMAN            0x20
#define XHCI_RT_IMOD            0x24
#define XHCI_RT_ERSTSZ          0x28
#define XHCI_RT_ERSTBA          0x30    /* 64 */
#define XHCI_RT_ERDP            0x38    /* 64 */
#define XHCI_IMAN_IP            (1u << 0)       /* pending (RW1C) */
#define XHCI_IMAN_IE            (1u << 1)
#define XHCI_ERDP_EHB           (1u << 3)       /* event handler busy (RW1C) */

/* ---- Extended capabilities (7) -------------------------------------- */
#define XHCI_XCAP_ID(v)         ((v) & 0xff)
#define XHCI_XCAP_NEXT(v)       (((v) >> 8) & 0xff)     /* dwords */
#define XHCI_XCAP_LEGACY        1
#define XHCI_XCAP_PROTOCOL      2
/* USB Legacy Support (7.1): semaphores in USBLEGSUP, SMI control at +4. */
#define XHCI_LEGSUP_BIOS_OWNED  (1u << 16)
#define XHCI_LEGSUP_OS_OWNED    (1u << 24)
#define XHCI_LEGCTL_SMI_ENABLES 0x0000e011u     /* USB SMI, host error, OS own, PCI cmd, BAR */
#define XHCI_LEGCTL_SMI_EVENTS  0xe0000000u     /* RW1C */
/* Supported Protocol (7.2): dword 0 bits 31:24 major revision; dword 2
 * compatible port offset (7:0, 1-based) and count (15:8). */
#define XHCI_PROTO_MAJOR(v)     ((v) >> 24)
#define XHCI_PROTO_PORT_OFF(v)  ((v) & 0xff)
#define XHCI_PROTO_PORT_CNT(v)  (((v) >> 8) & 0xff)

/* ---- TRBs (6.4) ------------------------------------------------------ */
struct xhci_trb {
	uint64_t param;
	uint32_t status;
	uint32_t control;
};
_Static_assert(sizeof(struct xhci_trb) == 16, "TRB is 16 bytes");

#define XHCI_TRB_CYCLE          (1u << 0)
#define XHCI_TRB_TC             (1u << 1)       /* link: toggle cycle */
#define XHCI_TRB_ENT            (1u << 1)       /* normal: evaluate next TRB */
#define XHCI_TRB_ISP            (1u << 2)       /* interrupt on short packet */
#define XHCI_TRB_CH             (1u << 4)       /* chain */
#define XHCI_TRB_IOC            (1u << 5)       /* interrupt on completion */
#define XHCI_TRB_IDT            (1u << 6)       /* immediate data (setup stage) */
#define XHCI_TRB_BSR            (1u << 9)       /* address device: block SET_ADDRESS */
#define XHCI_TRB_DC             (1u << 9)       /* configure endpoint: deconfigure */
#define XHCI_TRB_DIR_IN         (1u << 16)      /* data, status stage */
#define XHCI_TRB_TYPE(t)        ((uint32_t)(t) << 10)
#define XHCI_TRB_GET_TYPE(c)    (((c) >> 10) & 0x3f)
#define XHCI_TRB_TRT(t)         ((uint32_t)(t) << 16)   /* setup: 0 none, 2 OUT, 3 IN */
#define XHCI_TRB_EP(e)          ((uint32_t)(e) << 16)   /* endpoint ID (DCI) */
#define XHCI_TRB_SLOT(s)        ((uint32_t)(s) << 24)
#define XHCI_TRB_GET_EP(c)      (((c) >> 16) & 0x1f)
#define XHCI_TRB_GET_SLOT(c)    ((c) >> 24)
#define XHCI_TRB_LEN_MAX        (64u << 10)     /* 17-bit length, 64 KiB boundary */
#define XHCI_TRB_TD_SIZE(n)     ((uint32_t)((n) > 31 ? 31 : (n)) << 17)
#define XHCI_EVT_CC(s)          ((s) >> 24)
#define XHCI_EVT_LEN(s)         ((s) & 0xffffff)
#define XHCI_EVT_ED             (1u << 2)

enum xhci_trb_type {
	TRB_NORMAL = 1, TRB_SETUP = 2, TRB_DATA = 3, TRB_STATUS = 4, TRB_LINK = 6,
	TRB_ENABLE_SLOT = 9, TRB_DISABLE_SLOT = 10, TRB_ADDRESS_DEVICE = 11, TRB_CONFIGURE_EP = 12,
	TRB_EVALUATE_CTX = 13, TRB_RESET_EP = 14, TRB_STOP_EP = 15, TRB_SET_TR_DEQ = 16,
	TRB_RESET_DEVICE = 17, TRB_NOOP_CMD = 23,
	TRB_EV_TRANSFER = 32, TRB_EV_CMD_DONE = 33, TRB_EV_PORT = 34, TRB_EV_HOST = 37,
};

/* Completion codes (6.4.5). */
enum xhci_cc {
	CC_SUCCESS = 1, CC_DATA_BUFFER = 2, CC_BABBLE = 3, CC_TRANSACTION = 4, CC_TRB = 5, CC_STALL = 6,
	CC_RESOURCE = 7, CC_BANDWIDTH = 8, CC_NO_SLOTS = 9, CC_SLOT_NOT_ENABLED = 11, CC_EP_NOT_ENABLED = 12,
	CC_SHORT_PACKET = 13, CC_PARAMETER = 17, CC_CONTEXT_STATE = 19, CC_EVENT_RING_FULL = 21,
	CC_CMD_RING_STOPPED = 24, CC_CMD_ABORTED = 25, CC_STOPPED = 26, CC_STOPPED_LEN = 27,
	CC_STOPPED_SHORT = 28,
};

/* Event Ring Segment Table entry (6.5). */
struct xhci_erst_entry {
	uint64_t base;
	uint32_t size;                  /* TRBs, 16..4096 */
	uint32_t reserved;
};
_Static_assert(sizeof(struct xhci_erst_entry) == 16, "ERST entry is 16 bytes");

/* ---- Contexts (6.2) -------------------------------------------------- */
/* Device context index (DCI): EP0 is 1, endpoint n OUT 2n, IN 2n + 1. */
#define XHCI_MAX_DCI            31
/* Slot context dwords. */
#define XHCI_SLOT0_ROUTE(r)     ((uint32_t)(r) & 0xfffff)
#define XHCI_SLOT0_SPEED(s)     ((uint32_t)(s) << 20)
#define XHCI_SLOT0_ENTRIES(n)   ((uint32_t)(n) << 27)
#define XHCI_SLOT0_HUB          (1u << 26)
#define XHCI_SLOT1_PORT(p)      ((uint32_t)(p) << 16)
#define XHCI_SLOT1_NPORTS(n)    ((uint32_t)(n) << 24)      /* hubs only */
#define XHCI_SLOT2_TT_SLOT(s)   ((uint32_t)(s) & 0xff)     /* LS/FS device below a high-speed hub */
#define XHCI_SLOT2_TT_PORT(p)   ((uint32_t)(p) << 8)
#define XHCI_SLOT2_TTT(t)       ((uint32_t)(t) << 16)      /* high-speed hubs: TT think time */
#define XHCI_SLOT3_STATE(v)     ((v) >> 27)
/* Endpoint context dwords. */
#define XHCI_EP0_STATE(v)       ((v) & 7)
#define XHCI_EP0_INTERVAL(i)    ((uint32_t)(i) << 16)
#define XHCI_EP1_CERR(n)        ((uint32_t)(n) << 1)
#define XHCI_EP1_TYPE(t)        ((uint32_t)(t) << 3)
#define XHCI_EP1_BURST(b)       ((uint32_t)(b) << 8)
#define XHCI_EP1_MPS(m)         ((uint32_t)(m) << 16)
#define XHCI_EP4_AVG_TRB(n)     ((uint32_t)(n) & 0xffff)
enum xhci_ep_type { EPT_BULK_OUT = 2, EPT_CONTROL = 4, EPT_BULK_IN = 6 };
enum xhci_ep_state { EPS_DISABLED = 0, EPS_RUNNING = 1, EPS_HALTED = 2, EPS_STOPPED = 3, EPS_ERROR = 4 };

#endif
