/* libFuzzer target: the swap-header parser on arbitrary pages.
 * Bytes 0..7 (bootbits, which the parser ignores) give the device size in
 * pages; byte 8 bit 0 pads short inputs to a page with the v1 magic so
 * small mutations reach the field checks.  Checks the output invariants,
 * then that the writer's output of what was parsed parses back the same. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "swap/swaphdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[SWAPHDR_PAGE], again[SWAPHDR_PAGE];
	static struct swaphdr h, h2;
	uint64_t dev = 0;
	memset(page, 0, sizeof page);
	memcpy(page, data, size < sizeof page ? size : sizeof page);
	memcpy(&dev, page, 8);
	size_t len = size;
	if (size < sizeof page && size > 8 && (data[8] & 1)) {
		memcpy(page + SWAPHDR_MAGIC_OFF, "SWAPSPACE2", 10);
		len = sizeof page;
	}
	int err = swaphdr_parse(size >= sizeof page ? data : page, len, dev, &h);
	if (err < 0) {
		if (!*swaphdr_strerror(err))
			__builtin_trap();
		return 0;
	}
	if (h.last_page > h.hdr_last_page || h.last_page >= dev || h.usable == 0 || h.usable > h.last_page ||
	    h.nr_badpages > SWAPHDR_MAX_BADPAGES || h.clamped != (h.last_page != h.hdr_last_page))
		__builtin_trap();
	uint64_t bad = 0;
	for (uint32_t i = 0; i < h.nr_badpages; i++) {
		if (h.badpages[i] == 0 || h.badpages[i] > h.hdr_last_page)
			__builtin_trap();
		bad += h.badpages[i] <= h.last_page;
	}
	if (h.usable != h.last_page - bad)
		__builtin_trap();
	const char *nul = memchr(h.label, 0, sizeof h.label);
	if (!nul)
		__builtin_trap();
	size_t ll = (size_t)(nul - h.label);
	for (size_t i = 0; i < ll; i++)
		if (h.label[i] < 0x20 || h.label[i] > 0x7e)
			__builtin_trap();
	/* Write what we read (for as many pages as remain usable; the writer
	 * stops at 2^32 - 1 pages as mkswap does) and read it back. */
	uint64_t pages = (uint64_t)h.last_page + 1;
	if (pages > UINT32_MAX)
		pages = UINT32_MAX;
	if (swaphdr_format(again, pages, h.uuid, h.label) != (pages < SWAPHDR_MIN_PAGES ? SWAPHDR_ESMALL : 0))
		__builtin_trap();
	if (pages < SWAPHDR_MIN_PAGES)
		return 0;
	if (swaphdr_parse(again, sizeof again, pages, &h2) || h2.last_page != pages - 1 || h2.clamped ||
	    memcmp(h2.uuid, h.uuid, 16) || strncmp(h2.label, h.label, SWAPHDR_LABEL_LEN - 1) ||
	    h2.usable != pages - 1)
		__builtin_trap();
	return 0;
}
