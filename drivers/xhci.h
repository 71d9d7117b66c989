/*
 * xHCI (USB 3) host controllers.  xhci_init probes every controller PCI
 * found (class 0C.03.30), takes it from the firmware, scans its root
 * ports and the ports of the hubs on them once, and hands each device it
 * can address to the class drivers (usb.h; USB sticks become block
 * devices usb<N>, see usb_storage.c).  Prints one {"type":"xhci"} record per controller and
 * one {"type":"usb_device"} per device; {"type":"xhci_stats"} at halt.
 */
#ifndef XHCI_H
#define XHCI_H

/* After pci_init, with the scheduler and interrupts running: sleeps
 * (port resets, reading the sticks' partition tables). */
void xhci_init(void);

#endif
