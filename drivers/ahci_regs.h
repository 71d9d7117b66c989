/*
 * AHCI register and memory layouts (Serial ATA AHCI 1.3.1, section numbers
 * below), the SATA FISes the driver builds and reads (SATA 3.x, section
 * 10.5), and the ATA commands and IDENTIFY words it uses (ATA8-ACS).
 *
 * Alignment rules the HBA imposes (section 4.2):
 *   command list      32 headers x 32 B = 1 KiB, 1 KiB aligned (PxCLB)
 *   received-FIS area 256 B, 256 B aligned (PxFB, without FIS-based switching)
 *   command table     128 B aligned (CTBA); header 0x80 bytes, then the PRDT
 *   PRDT entry        data address 2-byte aligned; byte count - 1 in DBC,
 *                     and the count must be even (DBC bit 0 set); 4 MiB max
 * All structures are little-endian, as is the CPU.
 */
#ifndef AHCI_REGS_H
#define AHCI_REGS_H

#include <stdint.h>
#include <stddef.h>

/* ---- PCI (section 2) ----------------------------------------------------- */

#define AHCI_PCI_CLASS          0x01    /* mass storage */
#define AHCI_PCI_SUBCLASS       0x06    /* SATA */
#define AHCI_PCI_PROGIF         0x01    /* AHCI 1.0 */
#define AHCI_ABAR               5       /* BAR5: the HBA's registers */

/* ---- Generic host control (3.1) ----------------------------------------- */

struct ahci_port_regs {                 /* 3.3, at ABAR + 0x100 + port * 0x80 */
	uint32_t clb;                   /* 0x00 PxCLB  command list base (1 KiB aligned) */
	uint32_t clbu;                  /* 0x04 PxCLBU upper 32 bits */
	uint32_t fb;                    /* 0x08 PxFB   received-FIS base (256 B aligned) */
	uint32_t fbu;                   /* 0x0c PxFBU */
	uint32_t is;                    /* 0x10 PxIS   interrupt status (RWC) */
	uint32_t ie;                    /* 0x14 PxIE   interrupt enable */
	uint32_t cmd;                   /* 0x18 PxCMD  command and status */
	uint32_t reserved0;
	uint32_t tfd;                   /* 0x20 PxTFD  task file data (status, error) */
	uint32_t sig;                   /* 0x24 PxSIG  device signature */
	uint32_t ssts;                  /* 0x28 PxSSTS SStatus */
	uint32_t sctl;                  /* 0x2c PxSCTL SControl */
	uint32_t serr;                  /* 0x30 PxSERR SError (RWC) */
	uint32_t sact;                  /* 0x34 PxSACT SActive (write 1 to set) */
	uint32_t ci;                    /* 0x38 PxCI   command issue (write 1 to set) */
	uint32_t sntf;                  /* 0x3c PxSNTF */
	uint32_t fbs;                   /* 0x40 PxFBS  FIS-based switching */
	uint32_t devslp;                /* 0x44 PxDEVSLP */
	uint32_t reserved1[10];
	uint32_t vendor[4];             /* 0x70 PxVS */
};
_Static_assert(sizeof(struct ahci_port_regs) == 0x80, "AHCI 3.3: a port's registers take 0x80 bytes");
_Static_assert(offsetof(struct ahci_port_regs, ci) == 0x38, "AHCI 3.3.14: PxCI at 0x38");

#define AHCI_MAX_PORTS  32

struct ahci_hba_regs {
	uint32_t cap;                   /* 0x00 CAP  capabilities (3.1.1) */
	uint32_t ghc;                   /* 0x04 GHC  global host control (3.1.2) */
	uint32_t is;                    /* 0x08 IS   interrupt status, one bit per port (3.1.3) */
	uint32_t pi;                    /* 0x0c PI   ports implemented (3.1.4) */
	uint32_t vs;                    /* 0x10 VS   version, major.minor in BCD (3.1.5) */
	uint32_t ccc_ctl;               /* 0x14 */
	uint32_t ccc_ports;             /* 0x18 */
	uint32_t em_loc;                /* 0x1c */
	uint32_t em_ctl;                /* 0x20 */
	uint32_t cap2;                  /* 0x24 CAP2 (3.1.10) */
	uint32_t bohc;                  /* 0x28 BIOS/OS handoff (3.1.11) */
	uint8_t reserved[0x100 - 0x2c];
	struct ahci_port_regs port[AHCI_MAX_PORTS];
};
_Static_assert(offsetof(struct ahci_hba_regs, port) == 0x100, "AHCI 3: port registers start at 0x100");

/* CAP (3.1.1) */
#define AHCI_CAP_NP(c)          (((c) & 0x1f) + 1)              /* ports (upper bound; PI says which) */
#define AHCI_CAP_NCS(c)         ((((c) >> 8) & 0x1f) + 1)       /* command slots per port */
#define AHCI_CAP_SSS            (1u << 27)      /* staggered spin-up: software sets PxCMD.SUD */
#define AHCI_CAP_SNCQ           (1u << 30)      /* native command queuing */
#define AHCI_CAP_S64A           (1u << 31)      /* 64-bit DMA addresses */

/* GHC (3.1.2) */
#define AHCI_GHC_HR             (1u << 0)       /* HBA reset; the HBA clears it when done (<= 1 s) */
#define AHCI_GHC_IE             (1u << 1)       /* interrupt enable */
#define AHCI_GHC_AE             (1u << 31)      /* AHCI enable */

/* CAP2 (3.1.10), BOHC (3.1.11) */
#define AHCI_CAP2_BOH           (1u << 0)       /* BIOS/OS handoff supported */
#define AHCI_BOHC_BOS           (1u << 0)       /* BIOS owned semaphore */
#define AHCI_BOHC_OOS           (1u << 1)       /* OS owned semaphore */
#define AHCI_BOHC_BB            (1u << 4)       /* BIOS busy */

/* ---- Port registers (3.3) ------------------------------------------------ */

/* PxIS / PxIE (3.3.5, 3.3.6) */
#define AHCI_PxIS_DHRS          (1u << 0)       /* D2H register FIS received */
#define AHCI_PxIS_PSS           (1u << 1)       /* PIO setup FIS received */
#define AHCI_PxIS_DSS           (1u << 2)       /* DMA setup FIS received */
#define AHCI_PxIS_SDBS          (1u << 3)       /* set device bits FIS received (NCQ completions) */
#define AHCI_PxIS_UFS           (1u << 4)       /* unknown FIS */
#define AHCI_PxIS_DPS           (1u << 5)       /* descriptor processed (PRD with I set) */
#define AHCI_PxIS_PCS           (1u << 6)       /* port connect change (cleared via PxSERR.DIAG.X) */
#define AHCI_PxIS_PRCS          (1u << 22)      /* PhyRdy change (cleared via PxSERR.DIAG.N) */
#define AHCI_PxIS_OFS           (1u << 24)      /* overflow: PRDT shorter than the transfer */
#define AHCI_PxIS_INFS          (1u << 26)      /* interface non-fatal error */
#define AHCI_PxIS_IFS           (1u << 27)      /* interface fatal error */
#define AHCI_PxIS_HBDS          (1u << 28)      /* host bus data error */
#define AHCI_PxIS_HBFS          (1u << 29)      /* host bus fatal error */
#define AHCI_PxIS_TFES          (1u << 30)      /* task file error: a FIS arrived with ERR set */
#define AHCI_PxIS_COMPLETION    (AHCI_PxIS_DHRS | AHCI_PxIS_PSS | AHCI_PxIS_DSS | AHCI_PxIS_SDBS | AHCI_PxIS_DPS)
#define AHCI_PxIS_HOST_ERR      (AHCI_PxIS_HBFS | AHCI_PxIS_HBDS | AHCI_PxIS_OFS)
#define AHCI_PxIS_LINK_ERR      (AHCI_PxIS_IFS | AHCI_PxIS_INFS | AHCI_PxIS_UFS)
#define AHCI_PxIS_ERRORS        (AHCI_PxIS_HOST_ERR | AHCI_PxIS_LINK_ERR | AHCI_PxIS_TFES)

/* PxCMD (3.3.7) */
#define AHCI_PxCMD_ST           (1u << 0)       /* start: process the command list */
#define AHCI_PxCMD_SUD          (1u << 1)       /* spin-up device (with CAP.SSS) */
#define AHCI_PxCMD_POD          (1u << 2)       /* power on device (cold presence) */
#define AHCI_PxCMD_FRE          (1u << 4)       /* FIS receive enable */
#define AHCI_PxCMD_FR           (1u << 14)      /* FIS receive running */
#define AHCI_PxCMD_CR           (1u << 15)      /* command list running */

/* PxTFD (3.3.8): the ATA status register in 7:0, the error register in 15:8 */
#define AHCI_TFD_STATUS(t)      ((t) & 0xff)
#define AHCI_TFD_ERROR(t)       (((t) >> 8) & 0xff)

/* PxSIG (3.3.9): from the device's first D2H register FIS */
#define AHCI_SIG_ATA            0x00000101u
#define AHCI_SIG_ATAPI          0xeb140101u
#define AHCI_SIG_SEMB           0xc33c0101u
#define AHCI_SIG_PM             0x96690101u

/* PxSSTS (3.3.10) */
#define AHCI_SSTS_DET(s)        ((s) & 0xf)
#define AHCI_DET_NONE           0               /* no device, no Phy communication */
#define AHCI_DET_PRESENT        1               /* device detected, no Phy communication yet */
#define AHCI_DET_ESTABLISHED    3               /* device present, Phy communication up */
#define AHCI_SSTS_SPD(s)        (((s) >> 4) & 0xf)      /* 1: 1.5, 2: 3, 3: 6 Gb/s */

/* PxSCTL (3.3.11) */
#define AHCI_SCTL_DET_MASK      0xfu
#define AHCI_SCTL_DET_COMRESET  1u              /* hold >= 1 ms, then back to 0 */
#define AHCI_SCTL_IPM_NONE      (3u << 8)       /* no transitions to Partial or Slumber */

/* ---- Memory structures (4.2) --------------------------------------------- */

/* Received-FIS area (4.2.1), 256 B aligned. */
struct fis_reg_d2h {                    /* SATA 10.5.6, type 0x34 */
	uint8_t type, flags, status, error;
	uint8_t lba0, lba1, lba2, device;
	uint8_t lba3, lba4, lba5, reserved0;
	uint8_t count_lo, count_hi, reserved1[2];
	uint8_t reserved2[4];
};
_Static_assert(sizeof(struct fis_reg_d2h) == 20, "D2H register FIS is 5 dwords");

struct fis_set_device_bits {            /* SATA 10.5.7, type 0xa1 */
	uint8_t type;
	uint8_t flags;                  /* bit 6 I (interrupt), bit 7 N (notification) */
	uint8_t status;                 /* bits 6:4 and 2:0 of the status register */
	uint8_t error;
	uint32_t sactive;               /* NCQ: tags completed */
};
_Static_assert(sizeof(struct fis_set_device_bits) == 8, "set device bits FIS is 2 dwords");

struct ahci_rx_fis {
	uint8_t dsfis[28];              /* 0x00 DMA setup FIS */
	uint8_t reserved0[4];
	uint8_t psfis[20];              /* 0x20 PIO setup FIS */
	uint8_t reserved1[12];
	struct fis_reg_d2h rfis;        /* 0x40 D2H register FIS */
	uint8_t reserved2[4];
	struct fis_set_device_bits sdbfis;      /* 0x58 */
	uint8_t ufis[64];               /* 0x60 unknown FIS */
	uint8_t reserved3[0x100 - 0xa0];
};
_Static_assert(sizeof(struct ahci_rx_fis) == 256, "AHCI 4.2.1: received-FIS area is 256 bytes");
_Static_assert(offsetof(struct ahci_rx_fis, rfis) == 0x40 && offsetof(struct ahci_rx_fis, sdbfis) == 0x58,
	       "AHCI 4.2.1: RFIS at 0x40, SDBFIS at 0x58");
#define AHCI_RX_FIS_ALIGN       256

/* Command header (4.2.2): one per slot in the command list. */
struct ahci_cmd_header {
	uint16_t flags;                 /* CFL 4:0 (FIS dwords), A 5, W 6, P 7, R 8, B 9, C 10, PMP 15:12 */
	uint16_t prdtl;                 /* PRDT entries */
	uint32_t prdbc;                 /* bytes transferred (HBA writes) */
	uint64_t ctba;                  /* command table (CTBA/CTBAU), 128 B aligned */
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct ahci_cmd_header) == 32, "AHCI 4.2.2: command header is 32 bytes");
#define AHCI_CMD_LIST_BYTES     (32 * sizeof(struct ahci_cmd_header))
#define AHCI_CMD_LIST_ALIGN     1024
_Static_assert(AHCI_CMD_LIST_BYTES == 1024, "AHCI 4.2.2: the command list is 1 KiB");

#define AHCI_HDR_CFL(dwords)    ((uint16_t)((dwords) & 0x1f))
#define AHCI_HDR_WRITE          (1u << 6)       /* host to device */
#define AHCI_HDR_PREFETCH       (1u << 7)
#define AHCI_HDR_CLEAR_BUSY     (1u << 10)      /* clear CI after R_OK (not used) */

/* Physical region descriptor (4.2.3.3). */
struct ahci_prd {
	uint64_t dba;                   /* data base address, bit 0 reserved (word aligned) */
	uint32_t reserved;
	uint32_t dbc;                   /* 21:0 byte count - 1 (odd: even count), 31 I */
};
_Static_assert(sizeof(struct ahci_prd) == 16, "AHCI 4.2.3.3: a PRD entry is 16 bytes");
#define AHCI_PRD_MAX_BYTES      (4u << 20)      /* DBC is 22 bits */
#define AHCI_PRD_INTR           (1u << 31)

/* Command table (4.2.3), 128 B aligned.  The PRDT length is ours to
 * choose (PRDTL is 16 bits): 256 entries let one command move 1 MiB made
 * of 4 KiB pages that are not physically contiguous. */
#define AHCI_MAX_PRDT           256
struct ahci_cmd_table {
	uint8_t cfis[64];               /* 0x00 command FIS */
	uint8_t acmd[16];               /* 0x40 ATAPI command */
	uint8_t reserved[48];
	struct ahci_prd prdt[AHCI_MAX_PRDT];    /* 0x80 */
};
_Static_assert(offsetof(struct ahci_cmd_table, prdt) == 0x80, "AHCI 4.2.3: the PRDT starts at 0x80");
#define AHCI_CMD_TABLE_ALIGN    128
_Static_assert(sizeof(struct ahci_cmd_table) % AHCI_CMD_TABLE_ALIGN == 0,
	       "command tables packed back to back must each stay 128-byte aligned");

/* ---- FIS built by the host (SATA 10.5.5) --------------------------------- */

#define FIS_TYPE_REG_H2D        0x27
#define FIS_TYPE_REG_D2H        0x34
#define FIS_TYPE_SET_DEV_BITS   0xa1
#define FIS_H2D_COMMAND         0x80            /* C: the command register is updated */

struct fis_reg_h2d {
	uint8_t type, flags, command, feature_lo;
	uint8_t lba0, lba1, lba2, device;
	uint8_t lba3, lba4, lba5, feature_hi;
	uint8_t count_lo;               /* NCQ: tag in 7:3 */
	uint8_t count_hi, icc, control;
	uint8_t reserved[4];
};
_Static_assert(sizeof(struct fis_reg_h2d) == 20, "H2D register FIS is 5 dwords");
#define FIS_H2D_DWORDS          (sizeof(struct fis_reg_h2d) / 4)

/* ---- ATA (ATA8-ACS) ------------------------------------------------------ */

#define ATA_CMD_READ_DMA_EXT    0x25
#define ATA_CMD_READ_LOG_EXT    0x2f            /* PIO data-in */
#define ATA_CMD_WRITE_DMA_EXT   0x35
#define ATA_CMD_READ_FPDMA      0x60            /* READ FPDMA QUEUED */
#define ATA_CMD_WRITE_FPDMA     0x61            /* WRITE FPDMA QUEUED */
#define ATA_CMD_IDENTIFY        0xec            /* PIO data-in, 512 bytes */

#define ATA_DEV_LBA             0x40            /* device register: LBA addressing (and FPDMA's bit 6) */
#define ATA_LOG_NCQ_ERROR       0x10            /* NCQ command error log (SATA 13.7.4) */
#define ATA_NCQ_LOG_NQ          0x80            /* byte 0: the error was on a non-queued command */

/* Status register */
#define ATA_STS_ERR             0x01
#define ATA_STS_DRQ             0x08
#define ATA_STS_DF              0x20
#define ATA_STS_BSY             0x80

/* Error register */
#define ATA_ERR_AMNF            0x01            /* (obsolete) address mark not found */
#define ATA_ERR_ABRT            0x04            /* command aborted */
#define ATA_ERR_IDNF            0x10            /* ID (address) not found */
#define ATA_ERR_UNC             0x40            /* uncorrectable data */
#define ATA_ERR_ICRC            0x80            /* interface CRC error */

/* IDENTIFY DEVICE words (ATA8-ACS 7.16.7) */
#define ATA_ID_MODEL            27              /* 27..46: 40 characters, two per word, big-endian */
#define ATA_ID_MODEL_WORDS      20
#define ATA_ID_LBA28_SECTORS    60              /* 60..61 */
#define ATA_ID_QUEUE_DEPTH      75              /* 4:0 = depth - 1 */
#define ATA_ID_SATA_CAP         76              /* bit 8: NCQ */
#define ATA_ID_CMDSET2          83              /* bit 10: 48-bit LBA */
#define ATA_ID_CMDSET_EXT       84              /* bit 5: general purpose logging (READ LOG EXT) */
#define ATA_ID_LBA48_SECTORS    100             /* 100..103 */
#define ATA_ID_SECTOR_SIZE      106             /* 15:14 = 01 valid; bit 12: words 117-118 hold the logical size */
#define ATA_ID_LOGICAL_WORDS    117             /* 117..118: logical sector size in words */

#endif
