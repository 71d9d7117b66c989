/*
 * PCI for drivers: the functions found at boot, config-space access, BAR
 * mapping and interrupts (MSI, MSI-X, INTx).
 *
 *   struct pci_dev *d = pci_find_class(0x01, 0x08, 0x02, NULL);   // NVMe
 *   pci_enable(d, true, false, true);            // memory decode, bus master
 *   volatile uint32_t *regs = pci_map_bar(d, 0);
 *   int v = irq_alloc("nvme0 q0", handler, ctx);
 *   if (pci_msix_enable(d, 1, &v, NULL) && pci_msi_enable(d, v))
 *           v = pci_intx_route(d, handler, ctx, "nvme0");     // last resort
 *
 * The device table is built once by pci_init and never changes (no
 * hotplug), so lookups need no lock.  A driver that takes a device owns
 * it: only that driver calls the functions below that change it (enable,
 * map, MSI/MSI-X/INTx); nothing serialises two drivers on one device.
 * Config reads and writes are safe in any context, interrupts included.
 * Register layout: pci_regs.h; pure decoding: pci_decode.h.
 */
#ifndef PCI_H
#define PCI_H

#include <stdint.h>
#include <stdbool.h>
#include "pci_decode.h"
#include "arch/x86_64/trap.h"

struct pci_dev {
	/* Filled by pci_init, read-only afterwards. */
	uint8_t bus, dev, fn;
	char name[8];                   /* "bb:dd.f" */
	uint16_t vendor, device;
	uint8_t cls, subclass, progif, revision;
	uint8_t header;                 /* header type, without the multi-function bit */
	uint8_t irq_line, irq_pin;      /* firmware's PIC IRQ; pin 0 = none, 1..4 = INTA..D */
	int nbars;                      /* BAR slots in this header type: 6 or 2 */
	struct pci_bar bar[6];
	int ncaps, caps_status;         /* caps_status: enum pci_caps_status */
	struct pci_cap caps[PCI_MAX_CAPS];
	uint16_t msi_cap, msix_cap, pcie_cap;   /* offsets, 0 = absent */
	uint16_t msix_nvec;             /* MSI-X table size, 0 without MSI-X */
	uint8_t secondary, subordinate; /* buses behind a bridge */
	struct pci_dev *parent;         /* bridge above, NULL on bus 0 */
	int index;                      /* position in enumeration order */

	/* Owned by the driver that uses the device. */
	void *bar_virt[6];              /* pci_map_bar's mappings */
	volatile uint8_t *msix_table;   /* mapped table, after pci_msix_enable */
	int msi_vector;                 /* -1 when MSI is off */
	int msix_used;                  /* entries programmed by pci_msix_enable */
	int intx_vector, intx_gsi;      /* -1 until pci_intx_route */
};

/* Enumerate every bus (ECAM from the MCFG, else ports 0xCF8/0xCFC).
 * Runs once at boot, after the heap and the interrupt layer. */
void pci_init(void);
/* Text list and one {"type":"pci","devices":[...]} record. */
void pci_report(void);

int pci_count(void);
struct pci_dev *pci_at(int i);  /* NULL past the end */
/* Next function after `from` (NULL: from the start) matching; -1 in
 * sub or progif matches anything. */
struct pci_dev *pci_find_class(uint8_t cls, int sub, int progif, struct pci_dev *from);
struct pci_dev *pci_find_id(uint16_t vendor, uint16_t device, struct pci_dev *from);
/* Offset of standard capability id, or 0. */
uint16_t pci_find_cap(const struct pci_dev *d, uint8_t id);

/* Config space.  Offsets past 255 need ECAM (they read as all-ones and
 * ignore writes with port I/O); 16- and 32-bit accesses must be aligned. */
uint8_t pci_config_read8(const struct pci_dev *d, uint16_t off);
uint16_t pci_config_read16(const struct pci_dev *d, uint16_t off);
uint32_t pci_config_read32(const struct pci_dev *d, uint16_t off);
void pci_config_write8(const struct pci_dev *d, uint16_t off, uint8_t v);
void pci_config_write16(const struct pci_dev *d, uint16_t off, uint16_t v);
void pci_config_write32(const struct pci_dev *d, uint16_t off, uint32_t v);

/* Set the command register's memory, I/O and bus-master enables to
 * exactly these values. */
void pci_enable(struct pci_dev *d, bool mem, bool io, bool bus_master);
/* Uncached mapping of a whole memory BAR (made once, then reused).
 * NULL, with a message, for an I/O BAR, an unimplemented or unassigned
 * BAR, or when address space runs out.  May allocate page tables: not
 * from interrupt context. */
void *pci_map_bar(struct pci_dev *d, int bar);

/* MSI with one vector (from irq_alloc) aimed at this CPU.  Turns on bus
 * mastering (the message is a memory write the device makes) and INTx
 * disable, turns MSI-X off.  0, -ENODEV (no MSI capability), -EINVAL. */
int pci_msi_enable(struct pci_dev *d, int vector);
void pci_msi_disable(struct pci_dev *d);
/* Per-vector mask of the MSI vector; -EOPNOTSUPP without per-vector masking. */
int pci_msi_mask(struct pci_dev *d, bool masked);

/* MSI-X: entry i delivers vectors[i] for i < nvec, to the CPU whose
 * local APIC id is apics[i] (apics NULL: this CPU); the rest stay masked.
 * Maps the table's BAR, enables memory decode, bus mastering and INTx
 * disable, turns MSI off.  0, -ENODEV, -EINVAL (nvec out of range),
 * -EIO (table outside its BAR), -ENOMEM (mapping failed). */
int pci_msix_enable(struct pci_dev *d, int nvec, const int *vectors, const uint32_t *apics);
void pci_msix_mask(struct pci_dev *d, int entry, bool masked);
void pci_msix_disable(struct pci_dev *d);

/* INTx, when the device has neither MSI nor MSI-X: route the function's
 * interrupt pin through the I/O APIC to fn (level-triggered; fn must
 * quieten the device before it returns).  Functions sharing a line each
 * get called; each checks its own device.  Turns MSI/MSI-X off and
 * clears INTx disable.  Returns the vector, or -ENODEV (no pin, no
 * route), -ENOSPC. */
int pci_intx_route(struct pci_dev *d, irq_handler_fn fn, void *arg, const char *name);
/* Command register bit 10: true stops the function asserting INTx. */
void pci_intx_disable(struct pci_dev *d, bool disable);
/* The I/O APIC input (GSI) this function's INTx reaches, with its
 * trigger mode and polarity; -ENODEV when unknown. */
int pci_intx_gsi(const struct pci_dev *d, bool *level, bool *active_low);

#endif
