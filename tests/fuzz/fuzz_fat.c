/* libFuzzer target: the FAT extent finder (boot/fat.c) on arbitrary volumes.
 * Byte 0 steers: bit 0 = 4096-byte device blocks; bits 1-2 pick the path
 * looked up; bit 3 = room for only two runs.  The rest is the volume.
 * Checks: no read beyond the volume, runs inside the volume and not
 * overlapping, as many blocks as the file's size needs, and every error
 * has a name. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "boot/fat.h"

struct fvol {
	const uint8_t *img;
	size_t size;
	uint32_t block;
};

static int rd(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct fvol *v = ctx;
	if (!count || lba >= v->size / v->block || count > v->size / v->block - lba)
		__builtin_trap();
	memcpy(buf, v->img + lba * v->block, (size_t)count * v->block);
	return 0;
}

static void check(const struct fat_vol *fv, const struct fat_file *f, const struct fat_extent *e, int n, int max,
		  uint64_t nblocks, uint32_t block)
{
	uint64_t total = 0;
	if (n > max || (n == 0) != (f->size == 0))
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		if (!e[i].blocks || e[i].lba >= nblocks || e[i].blocks > nblocks - e[i].lba)
			__builtin_trap();
		if ((e[i].lba + e[i].blocks) * block > (uint64_t)fv->total_sectors * fv->sector_size)
			__builtin_trap();
		for (int j = 0; j < i; j++)
			if (e[i].lba < e[j].lba + e[j].blocks && e[j].lba < e[i].lba + e[i].blocks)
				__builtin_trap();
		total += e[i].blocks;
	}
	if (total != ((uint64_t)f->size + block - 1) / block)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[4] = { "results/0001.jsonl", "a", "x/y/z.txt", "LONG NAME.dat" };
	static struct fat_vol fv;
	static struct fat_extent ext[16];
	if (size < 1)
		return 0;
	struct fvol v = { data + 1, size - 1, data[0] & 1 ? 4096 : 512 };
	uint64_t nblocks = v.size / v.block;
	int max = data[0] & 8 ? 2 : 16;
	int err = fat_mount(&fv, rd, &v, v.block, nblocks);
	struct fat_file f;
	if (!err)
		err = fat_lookup(&fv, paths[(data[0] >> 1) & 3], &f);
	if (!err) {
		int n = fat_extents(&fv, &f, ext, max);
		if (n >= 0)
			check(&fv, &f, ext, n, max, nblocks, v.block);
		else
			err = n;
	}
	if (err && !strcmp(fat_strerror(err), "unknown error"))
		__builtin_trap();
	return 0;
}
