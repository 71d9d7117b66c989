/*
 * GPT parser.
 *
 * Model: a GPT is two copies of (header, entry array), each guarded by a
 * CRC32.  A copy is usable when its header passes every check below and
 * its array's CRC matches; the primary is preferred.  All multi-byte
 * fields are little-endian and read with byte loads from offsets that were
 * checked against the buffer first, so alignment and length never matter.
 *
 * The entry array is streamed one sector at a time through the single
 * scratch sector in struct gpt_disk: the CRC is accumulated and, when this
 * copy is the one being used, entries are decoded on the way.  Entry sizes
 * are multiples of 128 and sector sizes multiples of 512, so the 128 bytes
 * we decode of an entry never straddle a sector boundary.  If the CRC then
 * fails, what was decoded is thrown away and the backup is streamed.
 *
 * Reading one sector per call keeps the parser simple and the fuzz target's
 * reader trivial; gpt_cache (at the end) sits in front of it on a real
 * disk, so that each header and each entry array is one device read.
 *
 * Rules for callers: see gpt.h.  Invariant on return >= 0: every stored
 * partition satisfies first_usable <= first_lba <= last_lba <= last_usable
 * and no two stored partitions share a sector.
 */
#include <string.h>
#include "gpt.h"
#include "lib/crc32.h"

const uint8_t GPT_TYPE_EFI_SYSTEM[16] = {       /* C12A7328-F81F-11D2-BA4B-00A0C93EC93B */
	0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11, 0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b,
};
const uint8_t GPT_TYPE_LINUX_SWAP[16] = {       /* 0657FD6D-A4AB-43C4-84E5-0933C84B4F4F */
	0x6d, 0xfd, 0x57, 0x06, 0xab, 0xa4, 0xc4, 0x43, 0x84, 0xe5, 0x09, 0x33, 0xc8, 0x4b, 0x4f, 0x4f,
};
const uint8_t GPT_TYPE_LINUX_FS[16] = {         /* 0FC63DAF-8483-4772-8E79-3D69D8477DE4 */
	0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47, 0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4,
};
const uint8_t GPT_TYPE_MS_BASIC_DATA[16] = {    /* EBD0A0A2-B9E5-4433-87C0-68B6B72699C7 */
	0xa2, 0xa0, 0xd0, 0xeb, 0xe5, 0xb9, 0x33, 0x44, 0x87, 0xc0, 0x68, 0xb6, 0xb7, 0x26, 0x99, 0xc7,
};
const uint8_t GPT_TYPE_BIOS_BOOT[16] = {        /* 21686148-6449-6E6F-744E-656564454649 */
	0x48, 0x61, 0x68, 0x21, 0x49, 0x64, 0x6f, 0x6e, 0x74, 0x4e, 0x65, 0x65, 0x64, 0x45, 0x46, 0x49,
};

/* Header field offsets (UEFI table 5.5). */
enum {
	H_SIG = 0, H_REV = 8, H_SIZE = 12, H_CRC = 16, H_MYLBA = 24, H_ALTLBA = 32,
	H_FIRST = 40, H_LAST = 48, H_GUID = 56, H_ENTLBA = 72, H_NENT = 80,
	H_ENTSIZE = 84, H_ARRCRC = 88,
};
/* Entry field offsets (UEFI table 5.6). */
enum { E_TYPE = 0, E_UUID = 16, E_FIRST = 32, E_LAST = 40, E_ATTR = 48, E_NAME = 56 };

/* One decoded header. */
struct hdr {
	uint64_t lba;                   /* where it was read */
	uint64_t alt_lba, first, last, ent_lba;
	uint32_t nent, entsize, arr_crc;
	uint64_t arr_bytes, arr_sectors;
	uint8_t guid[16];
};

/* Everything one gpt_parse call works with. */
struct gctx {
	gpt_read_fn rd;
	void *rctx;
	uint64_t sectors;
	uint32_t ssize;
	struct gpt_disk *out;
	struct gpt_part *parts;
	int max_parts;
};

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

const char *gpt_strerror(int err)
{
	switch (err) {
	case GPT_OK: return "ok";
	case GPT_EARG: return "sector size must be a power of two from 512 to 4096";
	case GPT_ESMALL: return "disk too small to hold a GPT";
	case GPT_EIO: return "read error";
	case GPT_ESIG: return "no GPT signature (\"EFI PART\")";
	case GPT_EREV: return "unsupported GPT header revision";
	case GPT_EHDRSIZE: return "GPT header size out of range";
	case GPT_EHDRCRC: return "GPT header CRC32 mismatch";
	case GPT_EMYLBA: return "GPT header's own LBA field does not match its location";
	case GPT_EENTSIZE: return "partition entry size is not a multiple of 128";
	case GPT_EENTCOUNT: return "partition entry array too large";
	case GPT_EPASTEND: return "GPT reaches past the end of the disk (truncated image?)";
	case GPT_EUSABLE: return "GPT usable LBA range is reversed or covers the header";
	case GPT_EARRAYLOC: return "partition entry array overlaps the header or the usable range";
	case GPT_EARRAYCRC: return "partition entry array CRC32 mismatch";
	case GPT_ENOGPT: return "no GPT on this disk";
	case GPT_EBOTHBAD: return "primary and backup GPT are both invalid";
	case GPT_EPARTORDER: return "partition's first LBA is after its last LBA";
	case GPT_EPARTRANGE: return "partition lies outside the usable LBA range";
	case GPT_EPARTOVERLAP: return "partition overlaps an earlier partition";
	case GPT_ENOTCHECKED: return "not checked";
	default: return "unknown GPT error";
	}
}

const char *gpt_mbr_name(enum gpt_mbr m)
{
	switch (m) {
	case GPT_MBR_NONE: return "no MBR";
	case GPT_MBR_PROTECTIVE: return "protective MBR";
	case GPT_MBR_HYBRID: return "hybrid MBR";
	case GPT_MBR_FOREIGN: return "MBR without a GPT-protective entry";
	case GPT_MBR_UNREADABLE: return "MBR unreadable";
	default: return "?";
	}
}

/* ---------------------------------------------------------------- GUIDs */

/* Text position of each on-disk byte: the first three fields are
 * little-endian, so their bytes print in reverse. */
static const uint8_t guid_order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

void gpt_guid_str(const uint8_t guid[16], char out[GPT_GUID_STR_LEN])
{
	static const char hex[] = "0123456789ABCDEF";
	char *o = out;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		uint8_t b = guid[guid_order[i]];
		*o++ = hex[b >> 4];
		*o++ = hex[b & 15];
	}
	*o = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool gpt_guid_parse(const char *s, uint8_t guid[16])
{
	uint8_t g[16];
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10) {
			if (*s++ != '-')
				return false;
		}
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);
		if (lo < 0)
			return false;
		g[guid_order[i]] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	if (*s)
		return false;
	memcpy(guid, g, 16);
	return true;
}

bool gpt_guid_is_zero(const uint8_t guid[16])
{
	for (int i = 0; i < 16; i++)
		if (guid[i])
			return false;
	return true;
}

const char *gpt_type_name(const uint8_t type[16])
{
	static const struct { const uint8_t *guid; const char *name; } known[] = {
		{ GPT_TYPE_EFI_SYSTEM, "EFI System" },
		{ GPT_TYPE_LINUX_SWAP, "Linux swap" },
		{ GPT_TYPE_LINUX_FS, "Linux filesystem" },
		{ GPT_TYPE_MS_BASIC_DATA, "Microsoft basic data" },
		{ GPT_TYPE_BIOS_BOOT, "BIOS boot" },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!memcmp(type, known[i].guid, 16))
			return known[i].name;
	return NULL;
}

/* ---------------------------------------------------------------- reading */

static int read_sector(struct gctx *c, uint64_t lba)
{
	if (lba >= c->sectors)
		return GPT_EPASTEND;
	return c->rd(c->rctx, lba, 1, c->out->scratch) < 0 ? GPT_EIO : 0;
}

static enum gpt_mbr check_mbr(struct gctx *c)
{
	const uint8_t *s = c->out->scratch;
	if (read_sector(c, 0))
		return GPT_MBR_UNREADABLE;
	if (s[510] != 0x55 || s[511] != 0xaa)
		return GPT_MBR_NONE;
	int ee = 0, other = 0;
	for (int i = 0; i < 4; i++) {
		uint8_t type = s[446 + 16 * i + 4];
		if (type == 0xee)
			ee++;
		else if (type)
			other++;
	}
	if (!ee)
		return GPT_MBR_FOREIGN;
	return other ? GPT_MBR_HYBRID : GPT_MBR_PROTECTIVE;
}

/* ---------------------------------------------------------------- headers */

/* Does [a, a+an) intersect [b, b+bn)?  Lengths may be 0. */
static bool ranges_meet(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

/* Checks on the header in the scratch sector that need nothing else. */
static int check_header_fields(struct gctx *c, uint64_t lba)
{
	const uint8_t *s = c->out->scratch;
	static const uint8_t zero[4];
	if (memcmp(s + H_SIG, "EFI PART", 8))
		return GPT_ESIG;
	if (le32(s + H_REV) >> 16 != 1)
		return GPT_EREV;
	uint32_t size = le32(s + H_SIZE);
	if (size < GPT_HEADER_MIN || size > c->ssize)
		return GPT_EHDRSIZE;
	uint32_t crc = crc32(0, s, H_CRC);
	crc = crc32(crc, zero, 4);
	crc = crc32(crc, s + H_CRC + 4, size - H_CRC - 4);
	if (crc != le32(s + H_CRC))
		return GPT_EHDRCRC;
	if (le64(s + H_MYLBA) != lba)
		return GPT_EMYLBA;
	return 0;
}

static void decode_header(const uint8_t *s, uint64_t lba, struct hdr *h)
{
	h->lba = lba;
	h->alt_lba = le64(s + H_ALTLBA);
	h->first = le64(s + H_FIRST);
	h->last = le64(s + H_LAST);
	h->ent_lba = le64(s + H_ENTLBA);
	h->nent = le32(s + H_NENT);
	h->entsize = le32(s + H_ENTSIZE);
	h->arr_crc = le32(s + H_ARRCRC);
	memcpy(h->guid, s + H_GUID, 16);
}

/* Where the header says things are, against the disk and each other. */
static int check_geometry(struct gctx *c, struct hdr *h)
{
	if (!h->entsize || h->entsize % GPT_ENTRY_MIN || h->entsize > GPT_MAX_ARRAY)
		return GPT_EENTSIZE;
	if (h->nent > GPT_MAX_ARRAY / h->entsize)
		return GPT_EENTCOUNT;
	h->arr_bytes = (uint64_t)h->nent * h->entsize;
	h->arr_sectors = (h->arr_bytes + c->ssize - 1) / c->ssize;
	if (h->ent_lba >= c->sectors || h->arr_sectors > c->sectors - h->ent_lba)
		return GPT_EPASTEND;
	if (h->last >= c->sectors)
		return GPT_EPASTEND;
	if (h->first > h->last || h->first < 2 || (h->lba >= h->first && h->lba <= h->last))
		return GPT_EUSABLE;
	uint64_t usable = h->last - h->first + 1;
	if (ranges_meet(h->ent_lba, h->arr_sectors, 0, 2) ||
	    ranges_meet(h->ent_lba, h->arr_sectors, h->lba, 1) ||
	    ranges_meet(h->ent_lba, h->arr_sectors, h->first, usable))
		return GPT_EARRAYLOC;
	return 0;
}

/* Read and check the header at lba.  On success *hdr_ok is set too: it
 * tells the caller whether alt_lba may be trusted, even when a later check
 * (geometry) fails. */
static int load_header(struct gctx *c, uint64_t lba, struct hdr *h, bool *hdr_ok)
{
	*hdr_ok = false;
	int err = read_sector(c, lba);
	if (!err)
		err = check_header_fields(c, lba);
	if (err)
		return err;
	decode_header(c->out->scratch, lba, h);
	*hdr_ok = true;
	return check_geometry(c, h);
}

/* ---------------------------------------------------------------- entries */

static void name_to_ascii(const uint8_t *u, char *out)
{
	int n = 0;
	for (int i = 0; i < GPT_NAME_LEN; i++) {
		uint16_t ch = (uint16_t)(u[2 * i] | u[2 * i + 1] << 8);
		if (!ch)
			break;
		/* A surrogate pair is one character: one '?' for both halves. */
		if (ch >= 0xdc00 && ch <= 0xdfff && i > 0) {
			uint16_t prev = (uint16_t)(u[2 * i - 2] | u[2 * i - 1] << 8);
			if (prev >= 0xd800 && prev <= 0xdbff)
				continue;
		}
		out[n++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	out[n] = 0;
}

static void drop_entry(struct gpt_disk *d, uint32_t idx, int err, uint64_t first, uint64_t last)
{
	if (d->nbad < GPT_MAX_BAD)
		d->bad[d->nbad] = (struct gpt_bad){ idx, err, first, last };
	d->nbad++;
}

/* Judge one entry of the array in use and store it if it is good. */
static void take_entry(struct gctx *c, const struct hdr *h, uint32_t idx, const uint8_t *e)
{
	struct gpt_disk *d = c->out;
	if (gpt_guid_is_zero(e + E_TYPE))
		return;
	uint64_t first = le64(e + E_FIRST), last = le64(e + E_LAST);
	if (first > last) {
		drop_entry(d, idx, GPT_EPARTORDER, first, last);
		return;
	}
	if (first < h->first || last > h->last) {
		drop_entry(d, idx, GPT_EPARTRANGE, first, last);
		return;
	}
	for (int i = 0; i < d->nparts; i++) {
		if (first <= c->parts[i].last_lba && c->parts[i].first_lba <= last) {
			drop_entry(d, idx, GPT_EPARTOVERLAP, first, last);
			return;
		}
	}
	if (d->nparts == c->max_parts) {
		d->unlisted++;
		return;
	}
	struct gpt_part *p = &c->parts[d->nparts++];
	p->index = idx;
	p->first_lba = first;
	p->last_lba = last;
	memcpy(p->type, e + E_TYPE, 16);
	memcpy(p->uuid, e + E_UUID, 16);
	p->attrs = le64(e + E_ATTR);
	name_to_ascii(e + E_NAME, p->name);
}

/* Stream the entry array: check its CRC and, if parse, decode entries.
 * On any failure what was decoded is dropped again. */
static int walk_array(struct gctx *c, const struct hdr *h, bool parse)
{
	struct gpt_disk *d = c->out;
	uint32_t crc = 0;
	int err = 0;
	if (parse)
		d->nparts = d->unlisted = d->nbad = 0;
	for (uint64_t s = 0; s < h->arr_sectors; s++) {
		err = read_sector(c, h->ent_lba + s);
		if (err)
			break;
		uint64_t at = s * c->ssize;
		uint32_t n = h->arr_bytes - at < c->ssize ? (uint32_t)(h->arr_bytes - at) : c->ssize;
		crc = crc32(crc, d->scratch, n);
		for (uint32_t off = 0; parse && off < n; off += GPT_ENTRY_MIN)
			if ((at + off) % h->entsize == 0)
				take_entry(c, h, (uint32_t)((at + off) / h->entsize), d->scratch + off);
	}
	if (!err && crc != h->arr_crc)
		err = GPT_EARRAYCRC;
	if (err && parse)
		d->nparts = d->unlisted = d->nbad = 0;
	return err;
}

/* ---------------------------------------------------------------- driver */

static void use_header(struct gpt_disk *d, const struct hdr *h)
{
	d->header_lba = h->lba;
	d->alt_lba = h->alt_lba;
	d->first_usable = h->first;
	d->last_usable = h->last;
	memcpy(d->disk_guid, h->guid, 16);
	d->entries_lba = h->ent_lba;
	d->nentries = h->nent;
	d->entry_size = h->entsize;
}

static int try_copy(struct gctx *c, uint64_t lba, struct hdr *h, bool *hdr_ok, bool parse)
{
	int err = load_header(c, lba, h, hdr_ok);
	return err ? err : walk_array(c, h, parse);
}

/* Of two reasons a backup location failed, the more telling one: a bad
 * copy says more than an absent one. */
static int worse(int a, int b)
{
	return (a == GPT_ESIG || a == GPT_EPASTEND) && b ? b : a;
}

/* Find a good backup copy: at alt (if nonzero), then at the last LBA. */
static int try_backup(struct gctx *c, uint64_t alt, struct hdr *h, bool parse)
{
	uint64_t cand[2] = { alt, c->sectors - 1 };
	int err = 0;
	bool hdr_ok;
	for (int i = 0; i < 2; i++) {
		if (cand[i] < 2 || cand[i] >= c->sectors || (i == 1 && cand[1] == cand[0]))
			continue;
		int e = try_copy(c, cand[i], h, &hdr_ok, parse);
		if (!e)
			return 0;
		err = err ? worse(err, e) : e;
	}
	return err ? err : GPT_ESIG;
}

int gpt_parse(gpt_read_fn rd, void *ctx, uint64_t disk_sectors, uint32_t sector_size,
	      struct gpt_disk *out, struct gpt_part *parts, int max_parts)
{
	if (!rd || !out || sector_size < GPT_MIN_SECTOR || sector_size > GPT_MAX_SECTOR ||
	    (sector_size & (sector_size - 1)) || max_parts < 0 || (max_parts && !parts))
		return GPT_EARG;
	memset(out, 0, sizeof *out);
	out->sectors = disk_sectors;
	out->sector_size = sector_size;
	out->backup_error = GPT_ENOTCHECKED;
	if (disk_sectors < 3)
		return GPT_ESMALL;
	struct gctx c = { rd, ctx, disk_sectors, sector_size, out, parts, max_parts };
	struct hdr h, b;
	bool hdr_ok;

	out->mbr = check_mbr(&c);
	out->primary_error = try_copy(&c, 1, &h, &hdr_ok, true);
	uint64_t alt = hdr_ok ? h.alt_lba : 0;
	if (!out->primary_error) {
		use_header(out, &h);
		out->backup_error = try_backup(&c, alt, &b, false);
		return out->nparts;
	}
	out->backup_error = try_backup(&c, alt, &b, true);
	if (out->backup_error) {
		bool absent = out->primary_error == GPT_ESIG && out->backup_error == GPT_ESIG;
		return absent ? GPT_ENOGPT : GPT_EBOTHBAD;
	}
	out->used_backup = true;
	use_header(out, &b);
	return out->nparts;
}

/* ---------------------------------------------------------------- read cache */

void gpt_cache_init(struct gpt_cache *c, gpt_read_fn rd, void *ctx, uint64_t disk_sectors, uint32_t sector_size,
		    void *buf, uint32_t cap)
{
	*c = (struct gpt_cache){ .rd = rd, .ctx = ctx, .sectors = disk_sectors, .sector_size = sector_size,
				 .buf = buf, .cap = cap };
}

static bool cache_holds(const struct gpt_cache *c, uint64_t lba, uint32_t count)
{
	return c->count && lba >= c->start && count <= c->count && lba - c->start <= c->count - count;
}

static int cache_fill(struct gpt_cache *c, uint64_t start, uint32_t count)
{
	c->count = 0;
	c->reads++;
	if (c->rd(c->ctx, start, count, c->buf) < 0)
		return -1;
	c->start = start;
	c->count = count;
	return 0;
}

/* Sectors to read for a miss at lba: the rest of the planned entry array,
 * the MBR with the primary header, or just what is asked. */
static uint32_t cache_ahead(const struct gpt_cache *c, uint64_t lba, uint32_t count)
{
	uint64_t want = count;
	if (lba >= c->plan_start && lba < c->plan_end)
		want = c->plan_end - lba;
	else if (lba == 0)
		want = 2;
	if (want > c->cap)
		want = c->cap;
	if (want > c->sectors - lba)
		want = c->sectors - lba;
	return want > count ? (uint32_t)want : count;
}

/* A sector handed to the parser: if it looks like a header, plan to read
 * its entry array in one go.  Untrusted values, bounded to the disk. */
static void cache_note_header(struct gpt_cache *c, const uint8_t *s)
{
	if (memcmp(s + H_SIG, "EFI PART", 8))
		return;
	uint64_t ent = le64(s + H_ENTLBA), bytes = (uint64_t)le32(s + H_NENT) * le32(s + H_ENTSIZE);
	if (ent >= c->sectors || !bytes || bytes > GPT_MAX_ARRAY)
		return;
	uint64_t n = (bytes + c->sector_size - 1) / c->sector_size;
	c->plan_start = ent;
	c->plan_end = ent + (n < c->sectors - ent ? n : c->sectors - ent);
}

int gpt_cache_read(void *cache, uint64_t lba, uint32_t count, void *buf)
{
	struct gpt_cache *c = cache;
	if (!count || count > c->cap || lba >= c->sectors || count > c->sectors - lba)
		return -1;
	if (!cache_holds(c, lba, count)) {
		uint32_t n = cache_ahead(c, lba, count);
		if (cache_fill(c, lba, n)) {
			c->plan_end = 0;        /* single sectors until the next header */
			if (n == count || cache_fill(c, lba, count))
				return -1;
		}
	}
	const uint8_t *s = c->buf + (lba - c->start) * c->sector_size;
	memcpy(buf, s, (size_t)count * c->sector_size);
	cache_note_header(c, s);
	return 0;
}
