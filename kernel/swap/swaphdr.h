/*
 * The Linux swap-area header (mkswap's v1 format, "SWAPSPACE2"), parsed
 * and written.  Pure: works on a caller-supplied copy of the area's first
 * page; the on-disk layout is Linux's union swap_header
 * (include/linux/swap.h), little-endian:
 *
 *      0   bootbits[1024]          left alone by the kernel
 *   1024   u32 version             1
 *   1028   u32 last_page           index of the last page of the area
 *   1032   u32 nr_badpages
 *   1036   u8  sws_uuid[16]
 *   1052   char sws_volume[16]     label, NUL-padded (may fill all 16)
 *   1068   u32 padding[117]
 *   1536   u32 badpages[]          nr_badpages page indices
 *   4086   "SWAPSPACE2"            the magic, in the last 10 bytes of the page
 *
 * Page 0 is the header; swap slots are pages 1..last_page, minus the bad
 * ones, the same count Linux's swapon reports.
 */
#ifndef SWAPHDR_H
#define SWAPHDR_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define SWAPHDR_PAGE            4096
#define SWAPHDR_MAGIC_OFF       (SWAPHDR_PAGE - 10)
#define SWAPHDR_BADPAGES_OFF    1536
/* Bad-page entries that fit between badpages[] and the magic: 637. */
#define SWAPHDR_MAX_BADPAGES    ((SWAPHDR_MAGIC_OFF - SWAPHDR_BADPAGES_OFF) / 4)
#define SWAPHDR_LABEL_LEN       16
#define SWAPHDR_MIN_PAGES       10      /* mkswap refuses anything smaller */

enum swaphdr_err {
	SWAPHDR_OK = 0,
	SWAPHDR_ETRUNC = -1,            /* buffer shorter than a page */
	SWAPHDR_ENOMAGIC = -2,          /* no swap signature */
	SWAPHDR_EV0 = -3,               /* old "SWAP-SPACE" (v0) area */
	SWAPHDR_EBIGENDIAN = -4,        /* header written by a big-endian machine */
	SWAPHDR_EVERSION = -5,          /* version is not 1 */
	SWAPHDR_EEMPTY = -6,            /* last_page is 0 */
	SWAPHDR_ENRBAD = -7,            /* nr_badpages > SWAPHDR_MAX_BADPAGES */
	SWAPHDR_EBADPAGE = -8,          /* a bad-page entry is 0 or beyond last_page */
	SWAPHDR_EBADDUP = -9,           /* a bad page is listed twice */
	SWAPHDR_ENOSPACE = -10,         /* no usable slot left (device tiny or all bad) */
	SWAPHDR_ESMALL = -11,           /* swaphdr_format: fewer than SWAPHDR_MIN_PAGES pages */
};

struct swaphdr {
	uint32_t hdr_last_page;         /* last_page as written in the header */
	uint32_t last_page;             /* after clamping to the device: slots 1..last_page */
	bool clamped;                   /* the header claims more pages than the device has */
	uint32_t nr_badpages;
	uint32_t badpages[SWAPHDR_MAX_BADPAGES];  /* as listed, each in 1..hdr_last_page */
	uint64_t usable;                /* slots 1..last_page that are not bad */
	uint8_t uuid[16];
	char label[SWAPHDR_LABEL_LEN + 1];        /* NUL-terminated; non-printables as '?' */
};

/*
 * Parse the first page of a swap area (page, len >= SWAPHDR_PAGE bytes) on
 * a device of device_pages 4 KiB pages (pass UINT64_MAX when unknown).
 * Returns 0 with *out filled, or a negative enum swaphdr_err.
 */
int swaphdr_parse(const void *page, size_t len, uint64_t device_pages, struct swaphdr *out);

/*
 * Write the header mkswap (util-linux 2.38, 4 KiB pages) writes for an
 * area of device_pages pages with this uuid (NULL: all zero) and label
 * (NULL: none; longer than 15 characters: truncated, as mkswap does) into
 * page4096.  The whole page is written, bootbits zeroed as mkswap does on a
 * partition or file.  Areas over 2^32 - 1 pages are truncated to that,
 * again as mkswap does.  Returns 0 or SWAPHDR_ESMALL.
 */
int swaphdr_format(void *page4096, uint64_t device_pages, const uint8_t uuid[16], const char *label);

const char *swaphdr_strerror(int err);

/* The UUID as blkid and mkswap print it: lower case, bytes in order. */
void swaphdr_uuid_str(const uint8_t uuid[16], char out[37]);

#endif
