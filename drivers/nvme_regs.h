/*
 * NVM Express register and data-structure layouts (NVM Express Base
 * Specification 1.4, June 2019).  Section numbers refer to that document.
 * Everything here is little-endian, as the spec and x86 both are.
 *
 * Alignment rules the driver relies on:
 *   - queues are physically contiguous (CAP.CQR may require it; we always
 *     do it) and page aligned: ASQ/ACQ bits 11:0 are reserved (3.1.9-10);
 *   - PRP entries (4.3): the first may carry a dword-aligned offset into
 *     its page, every later one must be page aligned; a PRP list is itself
 *     page aligned here (one page per command, never chained);
 *   - the memory page size is CC.MPS = 0, i.e. 4 KiB, which every
 *     controller supports unless CAP.MPSMIN > 0 (checked at probe).
 */
#ifndef NVME_REGS_H
#define NVME_REGS_H

#include <stdint.h>

/* ---- Controller registers, BAR0 (3.1) -------------------------------- */
#define NVME_REG_CAP    0x00    /* 64: Controller Capabilities (3.1.1) */
#define NVME_REG_VS     0x08    /* 32: Version (3.1.2) */
#define NVME_REG_INTMS  0x0c    /* 32: Interrupt Mask Set (3.1.3), INTx/MSI only */
#define NVME_REG_INTMC  0x10    /* 32: Interrupt Mask Clear (3.1.4) */
#define NVME_REG_CC     0x14    /* 32: Controller Configuration (3.1.5) */
#define NVME_REG_CSTS   0x1c    /* 32: Controller Status (3.1.6) */
#define NVME_REG_AQA    0x24    /* 32: Admin Queue Attributes (3.1.8) */
#define NVME_REG_ASQ    0x28    /* 64: Admin SQ Base Address (3.1.9) */
#define NVME_REG_ACQ    0x30    /* 64: Admin CQ Base Address (3.1.10) */
#define NVME_REG_DBS    0x1000  /* doorbells (3.1.24, 3.1.25) */

/* Doorbells: SQ y tail at 0x1000 + (2y) * (4 << CAP.DSTRD), CQ y head at
 * 0x1000 + (2y + 1) * (4 << CAP.DSTRD). */
#define NVME_SQ_TDBL(y, dstrd)  (NVME_REG_DBS + (2u * (y)) * (4u << (dstrd)))
#define NVME_CQ_HDBL(y, dstrd)  (NVME_REG_DBS + (2u * (y) + 1u) * (4u << (dstrd)))

/* CAP (3.1.1) */
#define NVME_CAP_MQES(c)        ((uint32_t)((c) & 0xffff))      /* max queue entries, 0's based */
#define NVME_CAP_CQR            (1ull << 16)                    /* contiguous queues required */
#define NVME_CAP_TO(c)          ((uint32_t)(((c) >> 24) & 0xff))/* ready timeout, 500 ms units */
#define NVME_CAP_DSTRD(c)       ((uint32_t)(((c) >> 32) & 0xf)) /* doorbell stride: 4 << DSTRD bytes */
#define NVME_CAP_CSS_NVM        (1ull << 37)                    /* NVM command set supported */
#define NVME_CAP_MPSMIN(c)      ((uint32_t)(((c) >> 48) & 0xf)) /* min page size: 4 KiB << MPSMIN */
#define NVME_CAP_MPSMAX(c)      ((uint32_t)(((c) >> 52) & 0xf))

/* VS (3.1.2) */
#define NVME_VS_MJR(v)          ((v) >> 16)
#define NVME_VS_MNR(v)          (((v) >> 8) & 0xff)

/* CC (3.1.5) */
#define NVME_CC_EN              (1u << 0)
#define NVME_CC_CSS_NVM         (0u << 4)
#define NVME_CC_MPS(shift)      ((uint32_t)((shift) - 12) << 7) /* page size 2^(12 + MPS) */
#define NVME_CC_AMS_RR          (0u << 11)                      /* round-robin arbitration */
#define NVME_CC_SHN_MASK        (3u << 14)
#define NVME_CC_SHN_NORMAL      (1u << 14)
#define NVME_CC_IOSQES(n)       ((uint32_t)(n) << 16)           /* SQ entry size 2^n: 6 = 64 B */
#define NVME_CC_IOCQES(n)       ((uint32_t)(n) << 20)           /* CQ entry size 2^n: 4 = 16 B */

/* CSTS (3.1.6) */
#define NVME_CSTS_RDY           (1u << 0)
#define NVME_CSTS_CFS           (1u << 1)       /* controller fatal status */
#define NVME_CSTS_SHST_MASK     (3u << 2)
#define NVME_CSTS_SHST_DONE     (2u << 2)

/* AQA (3.1.8): both sizes 0's based, at most 4096 entries */
#define NVME_AQA(sq, cq)        ((uint32_t)((sq) - 1) | (uint32_t)((cq) - 1) << 16)

/* ---- Submission queue entry (4.2) ------------------------------------ */
struct nvme_sqe {
	uint8_t opc;            /* opcode */
	uint8_t flags;          /* FUSE 1:0, PSDT 7:6 (0 = PRPs) */
	uint16_t cid;           /* command identifier, echoed in the CQE */
	uint32_t nsid;
	uint32_t cdw2, cdw3;
	uint64_t mptr;          /* metadata pointer */
	uint64_t prp1;          /* data pointer: PRP entry 1 */
	uint64_t prp2;          /* PRP entry 2, or the PRP list's address */
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};
_Static_assert(sizeof(struct nvme_sqe) == 64, "SQE is 64 bytes (CC.IOSQES = 6)");
_Static_assert(__builtin_offsetof(struct nvme_sqe, prp1) == 24, "DPTR at bytes 39:24");
_Static_assert(__builtin_offsetof(struct nvme_sqe, cdw10) == 40, "CDW10 at byte 40");

/* ---- Completion queue entry (4.6) ------------------------------------ */
struct nvme_cqe {
	uint32_t dw0;           /* command specific */
	uint32_t dw1;
	uint16_t sq_head;       /* SQHD: how far the controller has consumed the SQ */
	uint16_t sq_id;
	uint16_t cid;
	uint16_t status;        /* bit 0: phase tag; 15:1 status field (4.6.1) */
};
_Static_assert(sizeof(struct nvme_cqe) == 16, "CQE is 16 bytes (CC.IOCQES = 4)");

/* Status field (4.6.1), with the phase bit shifted out: SC 7:0, SCT 10:8,
 * CRD 12:11, M 13, DNR 14. */
#define NVME_CQE_PHASE          1u
#define NVME_STATUS(s)          ((uint16_t)((s) >> 1))
#define NVME_STATUS_SC(st)      ((st) & 0xff)
#define NVME_STATUS_SCT(st)     (((st) >> 8) & 7)
#define NVME_STATUS_DNR         (1u << 14)

/* ---- Opcodes ---------------------------------------------------------- */
/* Admin (5) */
#define NVME_ADM_CREATE_SQ      0x01    /* 5.4 */
#define NVME_ADM_CREATE_CQ      0x05    /* 5.3 */
#define NVME_ADM_IDENTIFY       0x06    /* 5.15 */
#define NVME_ADM_SET_FEATURES   0x09    /* 5.21 */
/* NVM command set (6) */
#define NVME_CMD_WRITE          0x01    /* 6.15 */
#define NVME_CMD_READ           0x02    /* 6.9 */

/* Create I/O Completion Queue (5.3): CDW10 = QSIZE (0's based) << 16 | QID,
 * CDW11 = IV << 16 | IEN (bit 1) | PC (bit 0, physically contiguous). */
#define NVME_CQ_FLAGS_PC        (1u << 0)
#define NVME_CQ_FLAGS_IEN       (1u << 1)
/* Create I/O Submission Queue (5.4): CDW11 = CQID << 16 | QPRIO | PC. */
#define NVME_SQ_FLAGS_PC        (1u << 0)
#define NVME_QUEUE_CDW10(qid, entries)  ((uint32_t)((entries) - 1) << 16 | (qid))

/* Set Features (5.21): Number of Queues (5.21.1.7), CDW11 = NCQR << 16 |
 * NSQR, both 0's based; DW0 of the completion returns what was allocated. */
#define NVME_FEAT_NUM_QUEUES    0x07

/* Read/Write (6.9, 6.15): CDW10/11 = starting LBA, CDW12 bits 15:0 = NLB
 * (0's based). */

/* ---- Identify (5.15) -------------------------------------------------- */
#define NVME_ID_CNS_NS          0x00    /* Identify Namespace data structure */
#define NVME_ID_CNS_CTRL        0x01    /* Identify Controller data structure */
#define NVME_ID_CNS_NS_ACTIVE   0x02    /* active NSIDs above CDW1.NSID, up to 1024 (since 1.1) */
#define NVME_ID_NSLIST_MAX      1024

/* Identify Controller data structure: byte offsets used */
#define NVME_IDC_SN             4       /* 20: serial number, ASCII, space padded */
#define NVME_IDC_MN             24      /* 40: model number */
#define NVME_IDC_FR             64      /* 8: firmware revision */
#define NVME_IDC_MDTS           77      /* 1: max data transfer, 2^n min pages; 0 = no limit */
#define NVME_IDC_RTD3E          88      /* 4: RTD3 entry latency, microseconds (shutdown time) */
#define NVME_IDC_MAXCMD         514     /* 2: max outstanding commands; 0 = not reported */
#define NVME_IDC_NN             516     /* 4: number of namespaces (highest valid NSID) */
#define NVME_IDC_SN_LEN         20
#define NVME_IDC_MN_LEN         40
#define NVME_IDC_FR_LEN         8

/* Identify Namespace data structure (NVM command set): byte offsets used */
#define NVME_IDN_NSZE           0       /* 8: size in logical blocks */
#define NVME_IDN_NLBAF          25      /* 1: number of LBA formats, 0's based */
#define NVME_IDN_FLBAS          26      /* 1: 3:0 LBA format in use; bit 4 metadata at end of block */
#define NVME_IDN_LBAF0          128     /* 4 bytes each, 16 of them */
#define NVME_LBAF_MS(f)         ((f) & 0xffff)          /* metadata bytes per block */
#define NVME_LBAF_LBADS(f)      (((f) >> 16) & 0xff)    /* block size 2^LBADS; >= 9 */

#endif
