/*
 * Swap-area header parser and writer.
 *
 * The parser follows Linux's swapon checks (mm/swapfile.c,
 * read_swap_header and setup_swap_map): the magic, version 1, a nonzero
 * last_page, at most SWAPHDR_MAX_BADPAGES bad pages, each in
 * 1..last_page.  Where Linux would quietly do something surprising we are
 * stricter: a byte-swapped header (Linux swabs it) is refused, since this
 * kernel never shares an area with a big-endian machine; a bad page listed
 * twice (Linux would count it twice) is refused as corrupt.  The header's
 * last_page is clamped to the device, so a header copied from a larger
 * area can never make us write past the end of a partition.
 *
 * The writer produces byte for byte what util-linux mkswap writes for the
 * same size, UUID and label (tests/unit/test_swaphdr.c checks it against a
 * real mkswap when the fixtures are built).
 */
#include <string.h>
#include "swaphdr.h"

enum { O_VERSION = 1024, O_LAST = 1028, O_NRBAD = 1032, O_UUID = 1036, O_LABEL = 1052 };

/* Linux: MAX_SWAP_BADPAGES for 4 KiB pages. */
_Static_assert(SWAPHDR_MAX_BADPAGES == 637, "bad-page list size");
/* padding[117] ends where badpages[] starts. */
_Static_assert(O_LABEL + SWAPHDR_LABEL_LEN + 117 * 4 == SWAPHDR_BADPAGES_OFF, "swap header layout");

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

const char *swaphdr_strerror(int err)
{
	switch (err) {
	case SWAPHDR_OK: return "ok";
	case SWAPHDR_ETRUNC: return "swap header truncated (shorter than a page)";
	case SWAPHDR_ENOMAGIC: return "no swap signature (SWAPSPACE2)";
	case SWAPHDR_EV0: return "old v0 swap area (SWAP-SPACE) is not supported; run mkswap";
	case SWAPHDR_EBIGENDIAN: return "swap header is from a big-endian machine";
	case SWAPHDR_EVERSION: return "unknown swap header version";
	case SWAPHDR_EEMPTY: return "swap header says the area is empty (last_page 0)";
	case SWAPHDR_ENRBAD: return "swap header lists more bad pages than fit in a page";
	case SWAPHDR_EBADPAGE: return "swap header lists a bad page outside the area";
	case SWAPHDR_EBADDUP: return "swap header lists a bad page twice";
	case SWAPHDR_ENOSPACE: return "swap area has no usable slots";
	case SWAPHDR_ESMALL: return "swap area needs at least 10 pages (40 KiB)";
	default: return "unknown swap header error";
	}
}

void swaphdr_uuid_str(const uint8_t uuid[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	char *o = out;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[uuid[i] >> 4];
		*o++ = hex[uuid[i] & 15];
	}
	*o = 0;
}

static int check_magic(const uint8_t *p)
{
	if (!memcmp(p + SWAPHDR_MAGIC_OFF, "SWAPSPACE2", 10))
		return 0;
	if (!memcmp(p + SWAPHDR_MAGIC_OFF, "SWAP-SPACE", 10))
		return SWAPHDR_EV0;
	return SWAPHDR_ENOMAGIC;
}

/* Copy and validate the bad-page list; count those at or below last. */
static int read_badpages(const uint8_t *p, struct swaphdr *h, uint64_t *bad_in_use)
{
	*bad_in_use = 0;
	for (uint32_t i = 0; i < h->nr_badpages; i++) {
		uint32_t b = le32(p + SWAPHDR_BADPAGES_OFF + 4 * i);
		if (b == 0 || b > h->hdr_last_page)
			return SWAPHDR_EBADPAGE;
		for (uint32_t j = 0; j < i; j++)
			if (h->badpages[j] == b)
				return SWAPHDR_EBADDUP;
		h->badpages[i] = b;
		if (b <= h->last_page)
			(*bad_in_use)++;
	}
	return 0;
}

static void read_label(const uint8_t *p, char *out)
{
	int n = 0;
	for (; n < SWAPHDR_LABEL_LEN && p[n]; n++)
		out[n] = (p[n] >= 0x20 && p[n] < 0x7f) ? (char)p[n] : '?';
	out[n] = 0;
}

int swaphdr_parse(const void *page, size_t len, uint64_t device_pages, struct swaphdr *out)
{
	const uint8_t *p = page;
	memset(out, 0, sizeof *out);
	if (len < SWAPHDR_PAGE)
		return SWAPHDR_ETRUNC;
	int err = check_magic(p);
	if (err)
		return err;
	uint32_t version = le32(p + O_VERSION);
	if (version == 0x01000000)
		return SWAPHDR_EBIGENDIAN;
	if (version != 1)
		return SWAPHDR_EVERSION;
	out->hdr_last_page = out->last_page = le32(p + O_LAST);
	if (!out->hdr_last_page)
		return SWAPHDR_EEMPTY;
	out->nr_badpages = le32(p + O_NRBAD);
	if (out->nr_badpages > SWAPHDR_MAX_BADPAGES)
		return SWAPHDR_ENRBAD;
	if (device_pages <= out->last_page) {
		out->last_page = device_pages ? (uint32_t)(device_pages - 1) : 0;
		out->clamped = true;
	}
	uint64_t bad;
	err = read_badpages(p, out, &bad);
	if (err)
		return err;
	out->usable = out->last_page - bad;
	memcpy(out->uuid, p + O_UUID, 16);
	read_label(p + O_LABEL, out->label);
	return out->usable ? 0 : SWAPHDR_ENOSPACE;
}

int swaphdr_format(void *page4096, uint64_t device_pages, const uint8_t uuid[16], const char *label)
{
	uint8_t *p = page4096;
	if (device_pages < SWAPHDR_MIN_PAGES)
		return SWAPHDR_ESMALL;
	uint64_t pages = device_pages > UINT32_MAX ? UINT32_MAX : device_pages;
	memset(p, 0, SWAPHDR_PAGE);
	put32(p + O_VERSION, 1);
	put32(p + O_LAST, (uint32_t)(pages - 1));
	if (uuid)
		memcpy(p + O_UUID, uuid, 16);
	/* mkswap's xstrncpy: at most 15 characters and always a NUL. */
	for (int i = 0; label && i < SWAPHDR_LABEL_LEN - 1 && label[i]; i++)
		p[O_LABEL + i] = (uint8_t)label[i];
	memcpy(p + SWAPHDR_MAGIC_OFF, "SWAPSPACE2", 10);
	return 0;
}
