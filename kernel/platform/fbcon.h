/*
 * Framebuffer text console: 8x16 glyphs on the GOP framebuffer the loader
 * found, so a PC without a serial port shows the same output.  A no-op
 * when there is no framebuffer (QEMU with -nodefaults).
 */
#ifndef FBCON_H
#define FBCON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "boot/boot_info.h"

/* fb: the loader's description; virt: where the kernel mapped it. */
void fbcon_init(const struct boot_framebuffer *fb, void *virt);
void fbcon_write(const char *s, size_t n);
/* Rows a scroll left to redraw?  (A racy peek.)  Redraw one of them (the
 * tick), or all (before the machine stops).  Callers serialise (the
 * console lock). */
bool fbcon_pending(void);
void fbcon_poll(void);
void fbcon_flush(void);
/* Columns x rows, 0x0 when inactive. */
void fbcon_size(uint32_t *cols, uint32_t *rows);

#endif
