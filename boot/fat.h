/*
 * A read-only FAT12/16/32 walker: finds a file by path and lists where its
 * bytes sit on the disk, as runs of consecutive sectors.
 *
 * The loader uses it to learn the extents of the results file it just
 * pre-allocated through UEFI (the firmware's file protocol hides them), so
 * the kernel can later write into exactly those sectors.  Everything it
 * reads is untrusted on-disk data: every field is range-checked, every
 * chain and directory walk is bounded, and a failure is a negative
 * FAT_E* code that fat_strerror() names.
 *
 * Pure C (stdint/stddef only): the loader (gnu-efi), the host unit tests
 * and the fuzz target build this same file.
 */
#ifndef FAT_H
#define FAT_H

#include <stdint.h>
#include <stddef.h>

/* Read count device blocks at lba (relative to the volume's first block)
 * into buf.  Returns 0 or a negative value on failure. */
typedef int (*fat_read_fn)(void *ctx, uint64_t lba, uint32_t count, void *buf);

#define FAT_SECTOR_MAX 4096     /* largest FAT logical sector accepted */

enum {
	FAT_EIO = -1,           /* a read failed */
	FAT_ENOTFAT = -2,       /* no FAT boot sector */
	FAT_EGEOMETRY = -3,     /* boot sector fields inconsistent or beyond the device */
	FAT_ENOENT = -4,        /* a path component not found */
	FAT_ENOTDIR = -5,       /* a path component before the last is not a directory */
	FAT_EISDIR = -6,        /* the file is a directory */
	FAT_ECHAIN = -7,        /* cluster chain broken: free, bad, out of range, looped or short */
	FAT_EEXTENTS = -8,      /* more runs than the caller's array holds */
	FAT_EPATH = -9,         /* path empty, too long or with an empty component */
	FAT_EDIRLOOP = -10,     /* a directory longer than FAT allows */
};

struct fat_vol {
	/* Filled by fat_mount. */
	int type;               /* 12, 16 or 32 */
	uint32_t sector_size;   /* FAT logical sector, bytes */
	uint32_t dev_block;     /* device block, bytes (sector_size is a multiple) */
	uint32_t blocks_per_sector;
	uint32_t sec_per_clus;
	uint32_t reserved;      /* sectors before the first FAT */
	uint32_t nfats;
	uint32_t fat_sectors;   /* per FAT */
	uint32_t root_entries;  /* FAT12/16 fixed root */
	uint32_t root_start;    /* FAT12/16: first root sector */
	uint32_t root_sectors;
	uint32_t root_cluster;  /* FAT32 */
	uint32_t data_start;    /* first sector of cluster 2 */
	uint32_t clusters;      /* data clusters: valid numbers are 2 .. clusters+1 */
	uint64_t total_sectors;
	/* Private: the reader and a one-sector cache. */
	fat_read_fn read;
	void *ctx;
	uint64_t cached;        /* sector in buf, or ~0 */
	uint8_t buf[FAT_SECTOR_MAX];
};

struct fat_file {
	uint32_t first_cluster; /* 0 for an empty file */
	uint32_t size;
	uint8_t attr;
};

/* A run of consecutive device blocks, relative to the volume's start. */
struct fat_extent {
	uint64_t lba;
	uint64_t blocks;
};

/* Check the boot sector; dev_block is the device's block size and
 * dev_blocks the volume's size in such blocks. */
int fat_mount(struct fat_vol *v, fat_read_fn read, void *ctx, uint32_t dev_block, uint64_t dev_blocks);
/* Look up path ('/' or '\\' separated, case-insensitive, long or 8.3
 * names) from the root. */
int fat_lookup(struct fat_vol *v, const char *path, struct fat_file *out);
/* The runs holding the file's bytes, in file order; the last run ends at
 * the block holding the last byte.  Returns the number of runs or an error. */
int fat_extents(struct fat_vol *v, const struct fat_file *f, struct fat_extent *ext, int max);
const char *fat_strerror(int err);

#endif
