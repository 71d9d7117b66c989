/*
 * PCI decoding, pure: BARs from their raw and sizing values, capability
 * lists from a config-space blob, MSI/MSI-X layouts, class names, INTx
 * swizzling and the q35 INTx-to-GSI table.  No hardware access; pci.c
 * reads the registers and calls these, tests and the fuzz target feed
 * them arbitrary values.  Register layout: pci_regs.h.
 */
#ifndef PCI_DECODE_H
#define PCI_DECODE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

enum pci_bar_kind {
	PCI_BAR_NONE = 0,       /* unimplemented, or the upper half of a 64-bit BAR */
	PCI_BAR_IO,
	PCI_BAR_MEM32,
	PCI_BAR_MEM64,
};

struct pci_bar {
	uint64_t base;          /* bus address (what the BAR holds), flag bits cleared */
	uint64_t size;          /* bytes, a power of two; 0 when kind == PCI_BAR_NONE */
	uint8_t kind;           /* enum pci_bar_kind */
	bool prefetch;
};

/* Decode n BAR slots.  raw[i] is the value firmware left in slot i,
 * mask[i] what slot i read back after all-ones was written to it.  A
 * 64-bit memory BAR takes slots i and i+1 (out[i+1] becomes NONE); one in
 * the last slot has no upper half and is decoded as NONE.  Returns the
 * number of implemented BARs. */
int pci_bars_decode(const uint32_t *raw, const uint32_t *mask, int n, struct pci_bar *out);
const char *pci_bar_kind_name(int kind);        /* "io", "mem32", "mem64", "none" */

/* ---- capability lists ------------------------------------------------ */

#define PCI_MAX_CAPS 64

struct pci_cap {
	uint16_t id;            /* 8-bit standard id, or 16-bit extended id */
	uint16_t off;           /* offset of the capability in config space */
	bool ext;               /* PCIe extended capability (offset >= 0x100) */
};

enum pci_caps_status {
	PCI_CAPS_OK = 0,
	PCI_CAPS_LOOP = -1,     /* a next pointer revisits an entry */
	PCI_CAPS_RANGE = -2,    /* a pointer leaves the valid area */
	PCI_CAPS_FULL = -3,     /* more entries than the caller's array */
};

/* Walk the standard list (when the status register says there is one)
 * and, when len >= 4096, the extended list at 0x100.  cfg holds len
 * bytes of config space (256 or 4096; headers must lie wholly inside).  Fills out[0..max) in list order
 * and returns the count; *status says why the walk stopped early, if it
 * did (the entries before the break are still returned).  Never reads
 * outside cfg[0..len) and always terminates. */
int pci_caps_walk(const uint8_t *cfg, size_t len, struct pci_cap *out, int max, int *status);
/* The same walk through a reader: rd(ctx, off) returns the dword at off
 * (dword aligned, off + 4 <= len always holds).  The kernel walks live
 * config space with this, reading only the headers. */
typedef uint32_t (*pci_cfg_read_fn)(void *ctx, uint16_t off);
int pci_caps_walk_fn(pci_cfg_read_fn rd, void *ctx, size_t len, struct pci_cap *out, int max, int *status);
/* Offset of the first standard (ext false) or extended capability with
 * this id, or 0. */
uint16_t pci_caps_find(const struct pci_cap *caps, int n, uint16_t id, bool ext);
const char *pci_caps_strerror(int status);
const char *pci_cap_name(uint16_t id, bool ext);

/* ---- MSI and MSI-X ---------------------------------------------------- */

struct pci_msi_layout {
	bool is64;              /* 64-bit message address */
	bool pvm;               /* per-vector masking */
	uint8_t data_off;       /* offsets from the capability start */
	uint8_t mask_off, pending_off;  /* 0 unless pvm */
	uint8_t max_vectors;    /* from Multiple Message Capable: 1..32 */
};
void pci_msi_layout(uint16_t ctrl, struct pci_msi_layout *l);

struct pci_msix_info {
	uint16_t nvec;          /* table size, 1..2048 */
	uint8_t table_bar, pba_bar;     /* BAR indexes (BIR) */
	uint32_t table_off, pba_off;    /* byte offsets into those BARs */
};
void pci_msix_decode(uint16_t ctrl, uint32_t table, uint32_t pba, struct pci_msix_info *m);
/* Do the table and the PBA lie inside their BARs (sizes in bytes, 0 when
 * a BAR is not a memory BAR)?  Table: 16 bytes per vector; PBA: one bit
 * per vector, in qwords. */
bool pci_msix_fits(const struct pci_msix_info *m, uint64_t table_bar_size, uint64_t pba_bar_size);

/* ---- identification --------------------------------------------------- */

/* A short name for a class/subclass/prog-if, e.g. "NVMe controller";
 * never NULL. */
const char *pci_class_name(uint8_t cls, uint8_t sub, uint8_t progif);

/* ---- INTx ------------------------------------------------------------- */

/* The pin (1..4 = INTA..INTD) at which a bridge presents pin `pin` of the
 * device in slot `slot` behind it: the standard swizzle, BR 9.1. */
int pci_swizzle(int slot, int pin);
/* q35 (ICH9) in APIC mode: the GSI that pin 1..4 of a device in root-bus
 * slot 0..31 drives, or -1 for pin 0 or out-of-range input.  See pci.c,
 * "INTx on q35", for where this table comes from. */
int pci_q35_intx_gsi(int slot, int pin);

#endif
