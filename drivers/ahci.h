/*
 * AHCI (SATA) disks.  ahci_init probes every AHCI controller PCI found
 * (class 01.06.01), registers each ATA disk as block device sata<P> (P:
 * the port number; ports of a second controller are numbered on after
 * the first's) with its GPT partitions, and prints one {"type":"ahci"}
 * record per controller.  Everything else goes through the block layer
 * (blk.h); the driver itself is in ahci.c, register layouts in
 * ahci_regs.h.
 */
#ifndef AHCI_H
#define AHCI_H

/* After pci_init, with the scheduler and interrupts running: sleeps
 * (IDENTIFY, reading the partition tables). */
void ahci_init(void);

#endif
