/* libFuzzer target: the GPT parser on arbitrary disks.
 * Byte 0 steers: bit 0 = 4096-byte sectors; bit 1 = claim more sectors
 * than the data holds (reads there fail); bit 2 = repair the CRCs of the
 * headers at LBA 1 and the last LBA first, so mutations get past the
 * checksums into the geometry and entry logic; bit 3 = room for only one
 * partition in parts[].  The rest is the disk.
 * Checks: no read at or beyond the claimed size, and the output
 * invariants (stored partitions inside the usable range, ordered, not
 * overlapping, names printable). */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "gpt.h"
#include "lib/crc32.h"

struct fdisk {
	uint8_t *img;
	size_t size;
	uint32_t ss;
	uint64_t claimed;
};

static int rd(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct fdisk *d = ctx;
	if (count != 1 || lba >= d->claimed)
		__builtin_trap();
	if (lba >= d->size / d->ss)
		return -1;
	memcpy(buf, d->img + lba * d->ss, d->ss);
	return 0;
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* Make the header at lba (and its array) checksum-correct, if it can be. */
static void repair(struct fdisk *d, uint64_t lba)
{
	uint64_t nsec = d->size / d->ss;
	if (lba >= nsec)
		return;
	uint8_t *h = d->img + lba * d->ss;
	uint64_t elba = le64(h + 72);
	uint64_t bytes = (uint64_t)le32(h + 80) * le32(h + 84);
	if (elba < nsec && bytes <= (nsec - elba) * d->ss)
		put32(h + 88, crc32(0, d->img + elba * d->ss, (size_t)bytes));
	uint32_t hs = le32(h + 12);
	if (hs >= 92 && hs <= d->ss) {
		put32(h + 16, 0);
		put32(h + 16, crc32(0, h, hs));
	}
}

static void check(const struct gpt_disk *g, const struct gpt_part *p, int n, int max)
{
	if (n != g->nparts || n > max || g->unlisted < 0 || g->nbad < 0)
		__builtin_trap();
	if (n && (g->first_usable > g->last_usable || g->last_usable >= g->sectors || g->header_lba >= g->sectors))
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		if (p[i].first_lba > p[i].last_lba || p[i].first_lba < g->first_usable || p[i].last_lba > g->last_usable)
			__builtin_trap();
		if (i && p[i].index <= p[i - 1].index)
			__builtin_trap();
		for (int j = 0; j < i; j++)
			if (p[i].first_lba <= p[j].last_lba && p[j].first_lba <= p[i].last_lba)
				__builtin_trap();
		const char *nul = memchr(p[i].name, 0, sizeof p[i].name);
		if (!nul)
			__builtin_trap();
		size_t len = (size_t)(nul - p[i].name);
		for (size_t k = 0; k < len; k++)
			if (p[i].name[k] < 0x20 || p[i].name[k] > 0x7e)
				__builtin_trap();
	}
	for (int i = 0; i < g->nbad && i < GPT_MAX_BAD; i++)
		if (g->bad[i].err != GPT_EPARTORDER && g->bad[i].err != GPT_EPARTRANGE && g->bad[i].err != GPT_EPARTOVERLAP)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpt_disk g;
	static struct gpt_part parts[8];
	if (size < 1)
		return 0;
	struct fdisk d = { malloc(size), size - 1, data[0] & 1 ? 4096 : 512, 0 };
	memcpy(d.img, data + 1, size - 1);
	d.claimed = d.size / d.ss + (data[0] & 2 ? data[0] >> 3 : 0);
	if (data[0] & 4) {
		repair(&d, 1);
		if (d.claimed)
			repair(&d, d.claimed - 1);
	}
	int max = data[0] & 8 ? 1 : 8;
	int n = gpt_parse(rd, &d, d.claimed, d.ss, &g, parts, max);
	if (n >= 0)
		check(&g, parts, n, max);
	else if (!*gpt_strerror(n) || g.nparts)
		__builtin_trap();
	if (!*gpt_strerror(g.primary_error) || !*gpt_strerror(g.backup_error) || !*gpt_mbr_name(g.mbr))
		__builtin_trap();
	for (int i = 0; i < n; i++)
		if (gpt_type_name(parts[i].type) && gpt_guid_is_zero(parts[i].type))
			__builtin_trap();
	char s[GPT_GUID_STR_LEN];
	uint8_t back[16];
	gpt_guid_str(g.disk_guid, s);
	if (!gpt_guid_parse(s, back) || memcmp(back, g.disk_guid, 16))
		__builtin_trap();
	free(d.img);
	return 0;
}
