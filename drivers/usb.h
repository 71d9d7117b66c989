/*
 * USB, as a class driver (usb_storage.c) sees a device the host
 * controller driver (xhci.c) has addressed and configured.
 *
 * Transfers are synchronous and run in thread context (they sleep); one
 * at a time per endpoint (the caller serialises).  Buffers are physical
 * segments, each physically contiguous; the host driver cuts them at
 * 64 KiB boundaries and bounces what it cannot address.  Errors:
 *   -EPIPE      the endpoint stalled (the host side is reset already;
 *               clear the device side with usb_clear_halt);
 *   -ETIMEDOUT  no completion in time: the transfer was stopped and the
 *               endpoint's ring moved past it (Stop Endpoint, Set TR
 *               Dequeue Pointer), the data toggle may be off: recover;
 *   -EIO        any other transfer error (the endpoint is reset likewise);
 *   -ENODEV     the device or the controller is gone.
 */
#ifndef USB_H
#define USB_H

#include <stdint.h>
#include <stdbool.h>
#include "usb_proto.h"

struct usb_device;

struct usb_seg {
	uint64_t phys;
	uint32_t len;
};

struct usb_setup {
	uint8_t request_type, request;
	uint16_t value, index, length;
};

/* Name ("xhci0-port3": controller, root port), for messages. */
const char *usb_name(const struct usb_device *u);
uint32_t usb_speed(const struct usb_device *u);
/* Unplugged (its root port lost the connection) or its controller dead:
 * every transfer fails with -ENODEV from now on.  Any context. */
bool usb_gone(const struct usb_device *u);
const struct usb_dev_desc *usb_desc(const struct usb_device *u);

/* A control transfer on endpoint 0; buf: length bytes of kernel memory
 * (direct map or heap, below what the controller addresses is handled
 * here).  *actual: bytes moved (may be NULL). */
int usb_control(struct usb_device *u, const struct usb_setup *s, void *buf, uint32_t *actual, uint64_t timeout_ns);
/* Bulk transfer on endpoint address ep (bit 7: IN), configured by
 * usb_configure_bulk. */
int usb_bulk(struct usb_device *u, uint8_t ep, const struct usb_seg *segs, uint32_t nsegs, uint32_t *actual,
	     uint64_t timeout_ns);
/* SET_CONFIGURATION and the two bulk endpoints of a BOT interface. */
int usb_configure_bulk(struct usb_device *u, const struct usb_bot_iface *f);
/* CLEAR_FEATURE(ENDPOINT_HALT) on the device, and the host endpoint
 * reset to a fresh ring and data toggle. */
int usb_clear_halt(struct usb_device *u, uint8_t ep);
/* Port reset and the device addressed and configured again, endpoints
 * included (the last resort of error recovery).  0 or -ENODEV. */
int usb_reset_device(struct usb_device *u);
/* Most bytes usb_bulk takes in one call. */
uint32_t usb_max_transfer(const struct usb_device *u);

/* Class driver entry: called by the host driver, in thread context, for
 * each device it addressed.  Returns true when it took the device. */
bool usb_storage_probe(struct usb_device *u, const uint8_t *config, uint32_t config_len);

#endif
