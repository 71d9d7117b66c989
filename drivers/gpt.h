/*
 * GUID Partition Table parser (UEFI 2.10 section 5.3).  Pure: the disk is
 * reached only through a caller-supplied sector reader, so the kernel runs
 * it on a block device and the tests on a byte array.  No allocation: the
 * caller supplies the output structs (struct gpt_disk holds the one sector
 * buffer the parser needs).  Everything read from the disk is untrusted;
 * nothing outside [0, disk_sectors) is ever read.
 *
 * What it does: reports the protective MBR (LBA 0) without requiring it;
 * validates the primary header (LBA 1) and its partition entry array; if
 * either is bad, falls back to the backup (at the primary's alternate LBA
 * when the primary header itself was sound, else at the last LBA) and says
 * why the primary was rejected.  When the primary is used the backup is
 * still checked and its state reported (a disk image dd'ed to a larger
 * stick has its backup in the middle; a truncated image has none).
 *
 * Partitions: unused entries (all-zero type GUID) are skipped; an entry
 * whose range is reversed, leaves the usable area or overlaps an earlier
 * accepted partition is dropped and recorded in gpt_disk.bad[].  Overlap is
 * checked against the partitions stored in parts[]; valid partitions beyond
 * max_parts are only counted (gpt_disk.unlisted).
 */
#ifndef GPT_H
#define GPT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define GPT_MIN_SECTOR     512
#define GPT_MAX_SECTOR     4096
#define GPT_HEADER_MIN     92              /* bytes of header the spec defines */
#define GPT_ENTRY_MIN      128             /* entry size must be a multiple of this */
#define GPT_MAX_ARRAY      (1u << 20)      /* bytes; 8192 entries of 128 (sgdisk makes 16 KiB) */
#define GPT_MAX_BAD        8               /* dropped entries kept in gpt_disk.bad[] */
#define GPT_NAME_LEN       36              /* UTF-16 code units in an entry's name */
#define GPT_GUID_STR_LEN   37              /* "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" + NUL */

/* Partition attribute bits (UEFI table 5.14); bits 48..63 are type specific. */
#define GPT_ATTR_REQUIRED        (1ull << 0)
#define GPT_ATTR_NO_BLOCK_IO     (1ull << 1)
#define GPT_ATTR_LEGACY_BOOTABLE (1ull << 2)

/* Read count sectors starting at lba into buf (count * sector_size bytes).
 * Returns 0, or a negative value on an I/O error.  The parser calls it with
 * count == 1 and lba < disk_sectors only. */
typedef int (*gpt_read_fn)(void *ctx, uint64_t lba, uint32_t count, void *buf);

enum gpt_err {
	GPT_OK = 0,
	GPT_EARG = -1,          /* sector size not a power of two in 512..4096, or NULL args */
	GPT_ESMALL = -2,        /* disk too small to hold a GPT */
	GPT_EIO = -3,           /* the sector reader failed */
	GPT_ESIG = -4,          /* no "EFI PART" signature */
	GPT_EREV = -5,          /* header revision is not 1.x */
	GPT_EHDRSIZE = -6,      /* header size outside 92..sector size */
	GPT_EHDRCRC = -7,       /* header CRC32 mismatch */
	GPT_EMYLBA = -8,        /* header's own-LBA field is not where it was read */
	GPT_EENTSIZE = -9,      /* entry size not a nonzero multiple of 128 */
	GPT_EENTCOUNT = -10,    /* entry array larger than GPT_MAX_ARRAY */
	GPT_EPASTEND = -11,     /* array or usable range reaches past the end of the disk */
	GPT_EUSABLE = -12,      /* usable range reversed or covering LBA 0/1 or the header */
	GPT_EARRAYLOC = -13,    /* entry array overlaps LBA 0/1, the header or the usable range */
	GPT_EARRAYCRC = -14,    /* entry array CRC32 mismatch */
	GPT_ENOGPT = -15,       /* neither primary nor backup has a signature: not GPT */
	GPT_EBOTHBAD = -16,     /* primary and backup both invalid (see primary/backup_error) */
	GPT_EPARTORDER = -17,   /* entry: first LBA after last LBA */
	GPT_EPARTRANGE = -18,   /* entry: outside the usable LBA range */
	GPT_EPARTOVERLAP = -19, /* entry: overlaps an earlier partition */
	GPT_ENOTCHECKED = -20,  /* backup_error only: the backup was not looked at */
};

/* What LBA 0 holds.  Reported only: the parser does not require a PMBR. */
enum gpt_mbr {
	GPT_MBR_NONE,           /* no 0x55AA boot signature */
	GPT_MBR_PROTECTIVE,     /* a single 0xEE partition: the normal GPT case */
	GPT_MBR_HYBRID,         /* 0xEE plus other partitions */
	GPT_MBR_FOREIGN,        /* a valid MBR without 0xEE: Linux would ignore the GPT */
	GPT_MBR_UNREADABLE,     /* reading LBA 0 failed */
};

struct gpt_bad {
	uint32_t index;         /* entry number in the array, 0-based */
	int err;                /* GPT_EPARTORDER, GPT_EPARTRANGE or GPT_EPARTOVERLAP */
	uint64_t first_lba, last_lba;
};

struct gpt_disk {
	uint64_t sectors;               /* disk size given by the caller */
	uint32_t sector_size;
	enum gpt_mbr mbr;
	bool used_backup;               /* the table came from the backup header */
	int primary_error;              /* 0, or why the primary was rejected */
	int backup_error;               /* 0, why the backup is bad, or GPT_ENOTCHECKED */
	uint64_t header_lba;            /* LBA of the header in use */
	uint64_t alt_lba;               /* that header's alternate-LBA field */
	uint64_t first_usable, last_usable;     /* inclusive */
	uint8_t disk_guid[16];
	uint64_t entries_lba;
	uint32_t nentries, entry_size;
	int nparts;                     /* partitions stored in parts[] */
	int unlisted;                   /* valid partitions that did not fit in parts[] */
	int nbad;                       /* entries dropped; the first GPT_MAX_BAD in bad[] */
	struct gpt_bad bad[GPT_MAX_BAD];
	uint8_t scratch[GPT_MAX_SECTOR]; /* the parser's sector buffer; contents unspecified */
};

struct gpt_part {
	uint32_t index;                 /* entry number, 0-based (Linux's partition index+1) */
	uint64_t first_lba, last_lba;   /* inclusive, inside [first_usable, last_usable] */
	uint8_t type[16];               /* on-disk (mixed-endian) bytes; see gpt_guid_str */
	uint8_t uuid[16];               /* unique partition GUID, on-disk bytes */
	uint64_t attrs;                 /* GPT_ATTR_* */
	char name[GPT_NAME_LEN + 1];    /* UTF-16LE name as ASCII, '?' for anything else */
};

/*
 * A read cache in front of the parser's one-sector reads, so that a disk
 * is not asked 67 times for a standard table.  It reads what the parser
 * is about to walk in one go: the MBR together with the primary header
 * (LBA 0-1), and, once the parser has been handed a sector that looks
 * like a header, the whole entry array that header names (up to cap
 * sectors per read).  A standard table costs 4 device reads and nothing
 * is read that the parser would not read (a slow or throttled device pays
 * only for the table).  The header values are only a hint for read sizes:
 * the parser still checks everything.  When a multi-sector read fails,
 * only the wanted sector is read, and from then on single sectors until
 * the next header, so a bad sector fails only the parser reads that touch
 * it.  All device reads land in buf (cap * sector_size bytes, supplied by
 * the caller, so it can be memory the device can reach); rd is called
 * with 1 <= count <= cap and never past the disk.  Pure, like the parser.
 */
struct gpt_cache {
	gpt_read_fn rd;
	void *ctx;
	uint64_t sectors;
	uint32_t sector_size;
	uint8_t *buf;
	uint32_t cap;                   /* buf size, sectors */
	uint64_t start;                 /* buf holds [start, start + count) */
	uint32_t count;
	uint64_t plan_start, plan_end;  /* the entry array the last header named */
	uint32_t reads;                 /* calls to rd */
};

void gpt_cache_init(struct gpt_cache *c, gpt_read_fn rd, void *ctx, uint64_t disk_sectors, uint32_t sector_size,
		    void *buf, uint32_t cap);
/* A gpt_read_fn over the cache (ctx: the struct gpt_cache).  Fails (-1)
 * for a range not inside the disk or longer than cap. */
int gpt_cache_read(void *cache, uint64_t lba, uint32_t count, void *buf);

/*
 * Parse the GPT of a disk of disk_sectors sectors of sector_size bytes.
 * Fills *out and up to max_parts entries of parts[] (in entry order).
 * Returns the number of partitions stored (out->nparts), or a negative
 * enum gpt_err: GPT_ENOGPT when no header carries a signature,
 * GPT_EBOTHBAD when primary and backup are both unusable (their reasons in
 * out->primary_error / out->backup_error), GPT_EARG, GPT_ESMALL.
 * May block for as long as rd does; no locks held or taken.
 */
int gpt_parse(gpt_read_fn rd, void *ctx, uint64_t disk_sectors, uint32_t sector_size,
	      struct gpt_disk *out, struct gpt_part *parts, int max_parts);

const char *gpt_strerror(int err);
const char *gpt_mbr_name(enum gpt_mbr m);

/* Canonical text form of an on-disk GUID, upper case: the first three
 * fields are little-endian on disk, the last two big-endian. */
void gpt_guid_str(const uint8_t guid[16], char out[GPT_GUID_STR_LEN]);
/* The reverse; accepts either case.  Returns false on malformed text. */
bool gpt_guid_parse(const char *s, uint8_t guid[16]);
bool gpt_guid_is_zero(const uint8_t guid[16]);

/* "EFI System", "Linux swap", "Linux filesystem", "Microsoft basic data",
 * "BIOS boot", or NULL for any other type GUID. */
const char *gpt_type_name(const uint8_t type[16]);

/* Partition type GUIDs, in on-disk byte order (compare with memcmp). */
extern const uint8_t GPT_TYPE_EFI_SYSTEM[16];
extern const uint8_t GPT_TYPE_LINUX_SWAP[16];
extern const uint8_t GPT_TYPE_LINUX_FS[16];
extern const uint8_t GPT_TYPE_MS_BASIC_DATA[16];
extern const uint8_t GPT_TYPE_BIOS_BOOT[16];

#endif
