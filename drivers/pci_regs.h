/*
 * PCI configuration-space layout.  Section numbers refer to the PCI Local
 * Bus Specification 3.0 ("LB"), the PCI-to-PCI Bridge Architecture
 * Specification 1.2 ("BR") and the PCI Express Base Specification 4.0
 * ("PCIe").  All registers are little-endian.  Config space is 256 bytes
 * for conventional PCI and 4096 bytes for PCIe (extended space from
 * 0x100, PCIe 7.6); the configuration mechanisms are ECAM (PCIe 7.2.2:
 * bus << 20 | dev << 15 | fn << 12 | offset) and the legacy ports
 * 0xCF8/0xCFC (LB 3.2.2.3.2), which reach only the first 256 bytes.
 */
#ifndef PCI_REGS_H
#define PCI_REGS_H

/* ---- Legacy configuration mechanism #1 (LB 3.2.2.3.2) -------------- */
#define PCI_CONF_ADDR           0xcf8   /* bit 31 enable, bus 23:16, dev 15:11, fn 10:8, reg 7:2 */
#define PCI_CONF_DATA           0xcfc
#define PCI_CONF_ENABLE         0x80000000u

#define PCI_ECAM_BUS_SIZE       (1u << 20)      /* 32 devices x 8 functions x 4 KiB */
#define PCI_CFG_SIZE            256
#define PCI_CFG_SIZE_EXT        4096

/* ---- Type 0/1 common header (LB 6.1, fig. 6-1) --------------------- */
#define PCI_VENDOR_ID           0x00    /* 16: 0xffff = no function here */
#define PCI_DEVICE_ID           0x02    /* 16 */
#define PCI_COMMAND             0x04    /* 16 */
#define PCI_STATUS              0x06    /* 16 */
#define PCI_REVISION_ID         0x08    /* 8 */
#define PCI_PROG_IF             0x09    /* 8 */
#define PCI_SUBCLASS            0x0a    /* 8 */
#define PCI_CLASS               0x0b    /* 8 */
#define PCI_CACHE_LINE_SIZE     0x0c
#define PCI_LATENCY_TIMER       0x0d
#define PCI_HEADER_TYPE         0x0e    /* 8 */
#define PCI_BIST                0x0f
#define PCI_BAR0                0x10    /* 32 each; 6 in type 0, 2 in type 1 */
#define PCI_CAP_PTR             0x34    /* 8, valid when STATUS.CAP_LIST (LB 6.7) */
#define PCI_INTERRUPT_LINE      0x3c    /* 8, written by firmware (PIC IRQ), LB 6.2.4 */
#define PCI_INTERRUPT_PIN       0x3d    /* 8: 0 none, 1..4 = INTA..INTD */

/* Type 0 (endpoint) only */
#define PCI_SUBSYS_VENDOR_ID    0x2c
#define PCI_SUBSYS_ID           0x2e
#define PCI_ROM_ADDRESS         0x30

/* Type 1 (PCI-to-PCI bridge, BR 3.2) */
#define PCI_PRIMARY_BUS         0x18
#define PCI_SECONDARY_BUS       0x19
#define PCI_SUBORDINATE_BUS     0x1a

#define PCI_NUM_BARS            6
#define PCI_NUM_BARS_BRIDGE     2

/* Command register (LB 6.2.2) */
#define PCI_CMD_IO              (1u << 0)       /* respond to I/O space */
#define PCI_CMD_MEM             (1u << 1)       /* respond to memory space */
#define PCI_CMD_MASTER          (1u << 2)       /* may initiate DMA (and MSI writes) */
#define PCI_CMD_SERR            (1u << 8)
#define PCI_CMD_INTX_DISABLE    (1u << 10)      /* LB 3.0 addition */

/* Status register (LB 6.2.3) */
#define PCI_STATUS_INTX         (1u << 3)       /* INTx asserted (read-only) */
#define PCI_STATUS_CAP_LIST     (1u << 4)       /* capability pointer valid */

/* Header type (LB 6.2.1) */
#define PCI_HEADER_MULTIFN      0x80            /* bit 7: functions 1..7 may exist */
#define PCI_HEADER_LAYOUT       0x7f
#define PCI_HEADER_NORMAL       0x00
#define PCI_HEADER_BRIDGE       0x01
#define PCI_HEADER_CARDBUS      0x02

/* Base address registers (LB 6.2.5.1).  Size by writing all-ones with
 * decode off and reading back: the writable bits give the alignment,
 * which is the size. */
#define PCI_BAR_IO              0x1u            /* bit 0: 1 = I/O space */
#define PCI_BAR_IO_MASK         0xfffffffcu
#define PCI_BAR_MEM_TYPE        0x6u            /* bits 2:1 */
#define PCI_BAR_MEM_32          0x0u
#define PCI_BAR_MEM_1M          0x2u            /* "below 1 MiB": reserved since LB 2.2 */
#define PCI_BAR_MEM_64          0x4u            /* this BAR and the next form 64 bits */
#define PCI_BAR_MEM_PREFETCH    0x8u
#define PCI_BAR_MEM_MASK        0xfffffff0u

/* Class codes (LB appendix D) used by the report */
#define PCI_CLASS_STORAGE       0x01
#define PCI_CLASS_NETWORK       0x02
#define PCI_CLASS_DISPLAY       0x03
#define PCI_CLASS_BRIDGE        0x06
#define PCI_CLASS_SERIAL        0x0c
#define PCI_SUBCLASS_BRIDGE_PCI 0x04

/* ---- Capability list (LB 6.7) --------------------------------------- */
/* Each entry: byte 0 id, byte 1 next pointer (0 ends; low 2 bits reserved,
 * software masks them); entries live at 0x40..0xff. */
#define PCI_CAP_ID              0
#define PCI_CAP_NEXT            1
#define PCI_CAP_MIN_OFFSET      0x40

#define PCI_CAP_ID_PM           0x01
#define PCI_CAP_ID_MSI          0x05
#define PCI_CAP_ID_VENDOR       0x09
#define PCI_CAP_ID_PCIE         0x10
#define PCI_CAP_ID_MSIX         0x11
#define PCI_CAP_ID_SATA         0x12

/* ---- MSI capability (LB 6.8.1) --------------------------------------
 *   +0 id, next   +2 message control
 *   +4 address low (dword aligned)
 *   32-bit: +8 data, +0xc mask, +0x10 pending   (mask/pending if PVM)
 *   64-bit: +8 address high, +0xc data, +0x10 mask, +0x14 pending      */
#define PCI_MSI_CTRL            2
#define PCI_MSI_ADDR_LO         4
#define PCI_MSI_ADDR_HI         8               /* 64-bit variant only */
#define PCI_MSI_CTRL_ENABLE     (1u << 0)
#define PCI_MSI_CTRL_MMC_SHIFT  1               /* multiple message capable, log2, bits 3:1 */
#define PCI_MSI_CTRL_MME_MASK   (7u << 4)       /* multiple message enable, bits 6:4 */
#define PCI_MSI_CTRL_64BIT      (1u << 7)
#define PCI_MSI_CTRL_PVM        (1u << 8)       /* per-vector masking capable */

/* ---- MSI-X capability (LB 6.8.2) ------------------------------------
 *   +2 message control: bits 10:0 table size - 1, bit 14 function mask,
 *      bit 15 enable
 *   +4 table offset/BIR, +8 PBA offset/BIR: bits 2:0 select the BAR,
 *      bits 31:3 the qword-aligned offset into it
 * Table entries are 16 bytes (LB 6.8.2.6): address low, address high,
 * data, vector control (bit 0 = masked).  Program entries while the
 * function is masked; access the table with dword reads and writes. */
#define PCI_MSIX_CTRL           2
#define PCI_MSIX_TABLE          4
#define PCI_MSIX_PBA            8
#define PCI_MSIX_CTRL_SIZE_MASK 0x07ffu
#define PCI_MSIX_CTRL_MASKALL   (1u << 14)
#define PCI_MSIX_CTRL_ENABLE    (1u << 15)
#define PCI_MSIX_BIR_MASK       0x7u
#define PCI_MSIX_ENTRY_SIZE     16
#define PCI_MSIX_ENTRY_ADDR_LO  0
#define PCI_MSIX_ENTRY_ADDR_HI  4
#define PCI_MSIX_ENTRY_DATA     8
#define PCI_MSIX_ENTRY_CTRL     12
#define PCI_MSIX_ENTRY_MASKED   (1u << 0)

/* ---- PCI Express capability (PCIe 7.5.3) ---------------------------- */
#define PCI_EXP_FLAGS           2               /* bits 7:4 device/port type */
#define PCI_EXP_TYPE_SHIFT      4
#define PCI_EXP_TYPE_MASK       0xf

/* ---- Extended capabilities (PCIe 7.6.3) -----------------------------
 * A 32-bit header at 0x100 and onwards: id bits 15:0, version 19:16,
 * next offset 31:20 (0 ends; dword aligned, >= 0x100). */
#define PCI_ECAP_START          0x100
#define PCI_ECAP_ID(h)          ((h) & 0xffffu)
#define PCI_ECAP_NEXT(h)        (((h) >> 20) & 0xffcu)

#endif
