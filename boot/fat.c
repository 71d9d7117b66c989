/*
 * FAT12/16/32 lookup and extent listing (see fat.h).
 *
 * Model: the volume is read one FAT logical sector at a time through the
 * caller's reader, with one sector cached (FAT chains and directories are
 * walked in order, so the cache takes most reads).  fat_mount derives the
 * layout from the BPB and the FAT type from the cluster count, as the
 * Microsoft FAT specification does (not from the type string).
 *
 * Invariants that make untrusted input safe:
 *   - fat_mount accepts only layouts that fit the device: every FAT,
 *     root-directory and data sector it can compute lies below
 *     total_sectors, which is at most the device's size;
 *   - every FAT is large enough to hold an entry for every cluster, so a
 *     valid cluster number always has its entry inside the first FAT;
 *   - walks are bounded: a chain by the number of clusters the file's size
 *     needs (never more than the volume holds), a directory by 65536
 *     entries (FAT's own limit); a cluster that falls inside a run
 *     already listed (a looped chain) is an error, not a quiet double
 *     write.
 */
#include "fat.h"

#define DIRENT 32
#define ATTR_LFN 0x0f
#define ATTR_VOLUME 0x08
#define ATTR_DIR 0x10
#define DIR_MAX_ENTRIES 65536u
#define LFN_MAX 255
#define PATH_MAX_LEN 255

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

const char *fat_strerror(int err)
{
	switch (err) {
	case FAT_EIO: return "read error";
	case FAT_ENOTFAT: return "no FAT boot sector";
	case FAT_EGEOMETRY: return "inconsistent FAT geometry";
	case FAT_ENOENT: return "not found";
	case FAT_ENOTDIR: return "a path component is not a directory";
	case FAT_EISDIR: return "is a directory";
	case FAT_ECHAIN: return "broken cluster chain";
	case FAT_EEXTENTS: return "file in too many pieces";
	case FAT_EPATH: return "bad path";
	case FAT_EDIRLOOP: return "directory too long or looped";
	default: return "unknown error";
	}
}

static int read_sector(struct fat_vol *v, uint64_t s)
{
	if (s >= v->total_sectors)
		return FAT_EGEOMETRY;
	if (v->cached == s)
		return 0;
	v->cached = ~0ull;
	if (v->read(v->ctx, s * v->blocks_per_sector, v->blocks_per_sector, v->buf))
		return FAT_EIO;
	v->cached = s;
	return 0;
}

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

/* The BPB fields (offsets from the FAT specification, section 3). */
static int read_bpb(struct fat_vol *v, const uint8_t *b)
{
	uint32_t bps = le16(b + 11), spc = b[13];
	if ((b[0] != 0xeb && b[0] != 0xe9) || b[510] != 0x55 || b[511] != 0xaa)
		return FAT_ENOTFAT;
	if (bps < 512 || bps > FAT_SECTOR_MAX || !pow2(bps) || !pow2(spc) || bps % v->dev_block)
		return FAT_EGEOMETRY;
	v->sector_size = bps;
	v->blocks_per_sector = bps / v->dev_block;
	v->sec_per_clus = spc;
	v->reserved = le16(b + 14);
	v->nfats = b[16];
	v->root_entries = le16(b + 17);
	v->total_sectors = le16(b + 19) ? le16(b + 19) : le32(b + 32);
	v->fat_sectors = le16(b + 22) ? le16(b + 22) : le32(b + 36);
	v->root_cluster = le32(b + 44);
	if (!v->reserved || !v->nfats || !v->fat_sectors)
		return FAT_EGEOMETRY;
	return 0;
}

/* Layout from the BPB, checked against the device. */
static int layout(struct fat_vol *v, uint64_t dev_blocks, int fat32_bpb)
{
	uint64_t root_bytes = (uint64_t)v->root_entries * DIRENT;
	uint64_t root_secs = (root_bytes + v->sector_size - 1) / v->sector_size;
	uint64_t data = v->reserved + (uint64_t)v->nfats * v->fat_sectors + root_secs;
	if (v->total_sectors > dev_blocks / v->blocks_per_sector || data >= v->total_sectors)
		return FAT_EGEOMETRY;
	uint64_t clusters = (v->total_sectors - data) / v->sec_per_clus;
	v->type = clusters < 4085 ? 12 : clusters < 65525 ? 16 : 32;
	if ((v->type == 32) != fat32_bpb || (v->type == 32 && root_secs) || (v->type != 32 && !root_secs))
		return FAT_EGEOMETRY;
	uint64_t entries = (uint64_t)v->fat_sectors * v->sector_size * 8 / (uint64_t)(v->type == 12 ? 12 : v->type);
	if (clusters < 1 || entries < clusters + 2)
		return FAT_EGEOMETRY;
	v->root_start = v->reserved + v->nfats * v->fat_sectors;
	v->root_sectors = (uint32_t)root_secs;
	v->data_start = (uint32_t)data;
	v->clusters = (uint32_t)clusters;
	if (v->type == 32 && (v->root_cluster < 2 || v->root_cluster > v->clusters + 1))
		return FAT_EGEOMETRY;
	return 0;
}

int fat_mount(struct fat_vol *v, fat_read_fn read, void *ctx, uint32_t dev_block, uint64_t dev_blocks)
{
	v->read = read;
	v->ctx = ctx;
	v->cached = ~0ull;
	v->type = 0;
	if (dev_block < 512 || dev_block > FAT_SECTOR_MAX || !pow2(dev_block) || !dev_blocks)
		return FAT_EGEOMETRY;
	v->dev_block = dev_block;
	if (read(ctx, 0, 1, v->buf))
		return FAT_EIO;
	int err = read_bpb(v, v->buf);
	if (err)
		return err;
	/* A FAT32 BPB has a zero 16-bit FAT size; the cluster count must agree. */
	err = layout(v, dev_blocks, le16(v->buf + 22) == 0);
	if (err)
		v->type = 0;
	return err;
}

/* ------------------------------------------------------------ the FAT */

static int fat_byte(struct fat_vol *v, uint64_t off, uint32_t *out)
{
	int err = read_sector(v, v->reserved + off / v->sector_size);
	if (!err)
		*out = v->buf[off % v->sector_size];
	return err;
}

/* The FAT entry of cluster c (2 <= c <= clusters + 1), from the first FAT. */
static int fat_entry(struct fat_vol *v, uint32_t c, uint32_t *out)
{
	uint64_t off = v->type == 12 ? c + c / 2 : (uint64_t)c * (uint32_t)(v->type / 8);
	uint32_t b[4] = { 0, 0, 0, 0 };
	int n = v->type == 12 ? 2 : v->type / 8;
	for (int i = 0; i < n; i++) {
		int err = fat_byte(v, off + (uint64_t)i, &b[i]);
		if (err)
			return err;
	}
	uint32_t x = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
	if (v->type == 12)
		x = c & 1 ? x >> 4 : x & 0xfff;
	else if (v->type == 32)
		x &= 0x0fffffff;
	*out = x;
	return 0;
}

static int valid_cluster(const struct fat_vol *v, uint32_t c) { return c >= 2 && c <= v->clusters + 1; }

static int is_eoc(const struct fat_vol *v, uint32_t x)
{
	return x >= (v->type == 12 ? 0xff8u : v->type == 16 ? 0xfff8u : 0x0ffffff8u);
}

/* ------------------------------------------------------------ directories */

/* A walk over a directory's sectors: the fixed FAT12/16 root (cluster 0)
 * or a cluster chain. */
struct dir_walk {
	uint32_t cluster;       /* 0: fixed root */
	uint32_t index;         /* sector within the cluster, or within the root */
	uint32_t entries;       /* seen so far, for the bound */
};

static uint64_t walk_sector(const struct fat_vol *v, const struct dir_walk *w)
{
	if (!w->cluster)
		return (uint64_t)v->root_start + w->index;
	return v->data_start + (uint64_t)(w->cluster - 2) * v->sec_per_clus + w->index;
}

/* Advance to the next sector.  Returns 1 when there is one, 0 at the end,
 * or an error. */
static int walk_next(struct fat_vol *v, struct dir_walk *w)
{
	w->index++;
	if (!w->cluster)
		return w->index < v->root_sectors;
	if (w->index < v->sec_per_clus)
		return 1;
	uint32_t x;
	int err = fat_entry(v, w->cluster, &x);
	if (err)
		return err;
	if (is_eoc(v, x))
		return 0;
	if (!valid_cluster(v, x))
		return FAT_ECHAIN;
	w->cluster = x;
	w->index = 0;
	return 1;
}

/* Long-name pieces gathered before the 8.3 entry they belong to. */
struct lfn {
	char name[LFN_MAX + 1];
	int next;               /* sequence number expected next; 0 = complete */
	int valid;
	uint8_t sum;
};

static uint8_t sfn_sum(const uint8_t *e)
{
	uint8_t s = 0;
	for (int i = 0; i < 11; i++)
		s = (uint8_t)(((s & 1) << 7) + (s >> 1) + e[i]);
	return s;
}

static void lfn_take(struct lfn *l, const uint8_t *e)
{
	static const uint8_t pos[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	int seq = e[0] & 0x1f;
	if (e[0] & 0x40) {
		l->valid = seq >= 1 && seq <= 20;
		l->next = seq;
		l->sum = e[13];
		for (int i = 0; i <= LFN_MAX; i++)
			l->name[i] = 0;
	}
	if (!l->valid || seq != l->next || e[13] != l->sum) {
		l->valid = 0;
		return;
	}
	for (int i = 0; i < 13; i++) {
		uint32_t ch = le16(e + pos[i]);
		int at = (seq - 1) * 13 + i;
		if (ch == 0 || ch == 0xffff || at >= LFN_MAX)
			break;
		l->name[at] = ch >= 0x20 && ch < 0x7f ? (char)ch : 1;   /* 1 never matches a path */
	}
	l->next--;
}

static void sfn_text(const uint8_t *e, char *out)
{
	int n = 0;
	for (int i = 0; i < 8 && e[i] != ' '; i++)
		out[n++] = (char)(i == 0 && e[0] == 0x05 ? 0xe5 : e[i]);
	if (e[8] != ' ')
		out[n++] = '.';
	for (int i = 8; i < 11 && e[i] != ' '; i++)
		out[n++] = (char)e[i];
	out[n] = 0;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* name (NUL terminated) equals the len bytes of want, ignoring ASCII case. */
static int name_eq(const char *name, const char *want, size_t len)
{
	size_t i = 0;
	for (; i < len; i++)
		if (!name[i] || lower((unsigned char)name[i]) != lower((unsigned char)want[i]))
			return 0;
	return name[i] == 0;
}

/* Look at one entry.  Returns 1 on a match, 0 to go on, -1 at the end
 * of the directory. */
static int dir_entry(struct lfn *l, const uint8_t *e, const char *want, size_t len)
{
	if (e[0] == 0)
		return -1;
	if (e[0] == 0xe5) {
		l->valid = 0;
		return 0;
	}
	if ((e[11] & 0x3f) == ATTR_LFN) {
		lfn_take(l, e);
		return 0;
	}
	int long_ok = l->valid && l->next == 0 && l->sum == sfn_sum(e);
	l->valid = 0;
	if (e[11] & ATTR_VOLUME)
		return 0;
	char sfn[13];
	sfn_text(e, sfn);
	return (long_ok && name_eq(l->name, want, len)) || name_eq(sfn, want, len);
}

static void file_of(const struct fat_vol *v, const uint8_t *e, struct fat_file *out)
{
	out->attr = e[11];
	out->first_cluster = le16(e + 26) | (v->type == 32 ? le16(e + 20) << 16 : 0);
	out->size = le32(e + 28);
}

static int dir_find(struct fat_vol *v, uint32_t dir, const char *want, size_t len, struct fat_file *out)
{
	struct dir_walk w = { dir, 0, 0 };
	struct lfn l;
	l.valid = 0;
	if (dir && !valid_cluster(v, dir))
		return FAT_ECHAIN;
	for (int more = dir || v->root_sectors; more > 0; more = walk_next(v, &w)) {
		int err = read_sector(v, walk_sector(v, &w));
		if (err)
			return err;
		for (uint32_t off = 0; off < v->sector_size; off += DIRENT) {
			if (++w.entries > DIR_MAX_ENTRIES)
				return FAT_EDIRLOOP;
			int r = dir_entry(&l, v->buf + off, want, len);
			if (r < 0)
				return FAT_ENOENT;
			if (r > 0) {
				file_of(v, v->buf + off, out);
				return 0;
			}
		}
	}
	return FAT_ENOENT;
}

static int is_sep(char c) { return c == '/' || c == '\\'; }

int fat_lookup(struct fat_vol *v, const char *path, struct fat_file *out)
{
	if (!v->type)
		return FAT_EGEOMETRY;
	uint32_t dir = v->type == 32 ? v->root_cluster : 0;
	size_t i = 0, total = 0;
	while (path[total])
		if (++total > PATH_MAX_LEN)
			return FAT_EPATH;
	while (i < total && is_sep(path[i]))
		i++;
	if (i == total)
		return FAT_EPATH;
	for (;;) {
		size_t len = 0;
		while (i + len < total && !is_sep(path[i + len]))
			len++;
		if (!len || len > LFN_MAX)
			return FAT_EPATH;
		int err = dir_find(v, dir, path + i, len, out);
		if (err)
			return err;
		i += len;
		if (i == total)
			return out->attr & ATTR_DIR ? FAT_EISDIR : 0;
		if (!(out->attr & ATTR_DIR))
			return FAT_ENOTDIR;
		i++;
		dir = out->first_cluster;
		if (!dir && v->type == 32)
			dir = v->root_cluster;      /* ".." of a first-level directory */
	}
}

/* ------------------------------------------------------------ extents */

static int add_run(struct fat_extent *ext, int n, int max, uint64_t lba, uint64_t blocks)
{
	if (n && ext[n - 1].lba + ext[n - 1].blocks == lba) {
		ext[n - 1].blocks += blocks;
		return n;
	}
	if (n >= max)
		return FAT_EEXTENTS;
	ext[n].lba = lba;
	ext[n].blocks = blocks;
	return n + 1;
}

/* Blocks [lba, lba + blocks) already belong to a run: a looped or
 * cross-linked chain. */
static int runs_overlap(const struct fat_extent *ext, int n, uint64_t lba, uint64_t blocks)
{
	for (int i = 0; i < n; i++)
		if (lba < ext[i].lba + ext[i].blocks && ext[i].lba < lba + blocks)
			return 1;
	return 0;
}

int fat_extents(struct fat_vol *v, const struct fat_file *f, struct fat_extent *ext, int max)
{
	if (!v->type)
		return FAT_EGEOMETRY;
	if (!f->size)
		return 0;
	uint64_t cbytes = (uint64_t)v->sec_per_clus * v->sector_size;
	uint64_t need = (f->size + cbytes - 1) / cbytes;
	uint64_t cblocks = (uint64_t)v->sec_per_clus * v->blocks_per_sector;
	if (need > v->clusters)
		return FAT_ECHAIN;
	uint32_t c = f->first_cluster;
	int n = 0;
	for (uint64_t i = 0; i < need; i++) {
		if (!valid_cluster(v, c))
			return FAT_ECHAIN;
		uint64_t lba = ((uint64_t)v->data_start + (uint64_t)(c - 2) * v->sec_per_clus) * v->blocks_per_sector;
		uint64_t left = f->size - i * cbytes;
		uint64_t blocks = left >= cbytes ? cblocks : (left + v->dev_block - 1) / v->dev_block;
		if (runs_overlap(ext, n, lba, blocks))
			return FAT_ECHAIN;
		n = add_run(ext, n, max, lba, blocks);
		if (n < 0)
			return n;
		if (i + 1 < need) {
			int err = fat_entry(v, c, &c);
			if (err)
				return err;
		}
	}
	return n;
}
