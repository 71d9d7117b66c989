/*
 * cpio "newc" reader.  An entry is a 110-byte ASCII header ("070701" and
 * thirteen 8-digit hex fields), the name (namesize bytes with its NUL),
 * padding to 4 bytes, the data, padding to 4 bytes.  "TRAILER!!!" ends
 * the archive.  See cpio.h.
 */
#include <stdbool.h>
#include <string.h>
#include "cpio.h"

#define HDR 110
enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE, F_DEVMAJ, F_DEVMIN,
       F_RDEVMAJ, F_RDEVMIN, F_NAMESIZE, F_CHECK, F_COUNT };

static bool hex8(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 8; i++) {
		uint8_t c = p[i];
		uint32_t d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

enum cpio_error cpio_walk(const void *buf, uint64_t len, bool (*fn)(void *ctx, const struct cpio_entry *e),
			  void *ctx, uint64_t *err_off)
{
	const uint8_t *a = buf;
	uint64_t off = 0;
	for (;;) {
		*err_off = off;
		if (len - off < HDR)
			return off == len ? CPIO_ENOTRAILER : CPIO_ETRUNC;
		const uint8_t *h = a + off;
		if (memcmp(h, "070701", 6) != 0)
			return CPIO_EMAGIC;
		uint32_t f[F_COUNT];
		for (int i = 0; i < F_COUNT; i++)
			if (!hex8(h + 6 + 8 * i, &f[i]))
				return CPIO_EHEX;
		uint32_t namesize = f[F_NAMESIZE];
		if (namesize == 0)
			return CPIO_ENAME;
		/* Both lengths are below 2^32, so no sum here overflows 64 bits. */
		if (namesize > len - off - HDR)
			return CPIO_ETRUNC;
		const char *name = (const char *)h + HDR;
		for (uint32_t i = 0; i < namesize; i++)
			if ((name[i] == 0) != (i == namesize - 1))
				return CPIO_ENAME;      /* one NUL, at the end */
		uint64_t data = pad4(off + HDR + namesize);
		if (data > len || f[F_FILESIZE] > len - data)
			return CPIO_ETRUNC;
		if (strcmp(name, "TRAILER!!!") == 0)
			return CPIO_OK;
		struct cpio_entry e = { name, f[F_MODE], a + data, f[F_FILESIZE], off };
		if (!fn(ctx, &e))
			return CPIO_OK;
		off = pad4(data + f[F_FILESIZE]);
		if (off > len)          /* the last entry's padding may be missing */
			off = len;
	}
}

const char *cpio_strerror(enum cpio_error e)
{
	switch (e) {
	case CPIO_OK: return "ok";
	case CPIO_EMAGIC: return "no newc magic 070701";
	case CPIO_EHEX: return "a header field is not hex";
	case CPIO_ENAME: return "bad name";
	case CPIO_ETRUNC: return "truncated";
	case CPIO_ENOTRAILER: return "no TRAILER!!! entry";
	}
	return "unknown error";
}
