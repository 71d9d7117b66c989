/*
 * NVMe driver: every NVM Express controller on PCI (class 01.08.02) and
 * every active namespace on it, registered with the block layer as
 * nvme<C>n<N> (C: controller index in PCI probe order from 0, N: the
 * namespace ID).  Users go through blk.h; nothing else is exported.
 */
#ifndef NVME_H
#define NVME_H

/* Probe and bring up every controller, register its namespaces (which
 * reads their partition tables).  After pci_init, with interrupts on and
 * the scheduler running; sleeps.  A controller that fails is reported and
 * left disabled; the others still come up. */
void nvme_init(void);

#endif
