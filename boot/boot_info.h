/*
 * boot_info: the one structure the UEFI loader hands to the kernel.
 *
 * Shared by boot/ (built with gnu-efi) and kernel/ (freestanding), so it
 * uses only fixed-width types and physical addresses (u64), never pointers:
 * the loader runs identity-mapped, the kernel later reaches the same bytes
 * through its direct map.  Everything it points to lives in memory of type
 * BOOT_MEM_BOOTDATA or BOOT_MEM_KERNEL, which the kernel never hands out.
 *
 * Versioning: the kernel refuses a boot_info whose magic or version differs
 * from its own, with a message naming both versions.  Add fields only at the
 * end and bump BOOT_INFO_VERSION.
 */
#ifndef BOOT_INFO_H
#define BOOT_INFO_H

#include <stdint.h>

#define BOOT_INFO_MAGIC   0x4f464e49544f4f42ull   /* "BOOTINFO" */
#define BOOT_INFO_VERSION 3

/* Memory types, our own, translated from UEFI's by the loader. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,        /* conventional memory */
	BOOT_MEM_BOOT_SERVICES,     /* UEFI boot services code/data: free after the jump */
	BOOT_MEM_LOADER,            /* the loader's own image and pool: free after the jump */
	BOOT_MEM_KERNEL,            /* the kernel image (never reused) */
	BOOT_MEM_BOOTDATA,          /* boot_info, files, cmdline, loader page tables */
	BOOT_MEM_RUNTIME,           /* UEFI runtime services code/data (RAM, never reused) */
	BOOT_MEM_RESERVED,          /* firmware reserved, runtime services, unusable */
	BOOT_MEM_ACPI_RECLAIM,
	BOOT_MEM_ACPI_NVS,
	BOOT_MEM_MMIO,
	BOOT_MEM_PERSISTENT,
	BOOT_MEM_BAD,
	BOOT_MEM_NTYPES
};

struct boot_mem_region {
	uint64_t base;          /* physical, 4 KiB aligned */
	uint64_t pages;         /* 4 KiB pages */
	uint32_t type;          /* enum boot_mem_type */
	uint32_t efi_type;      /* the firmware's original type, for the report */
	uint64_t efi_attr;
};

/* A file of the ESP handed over as a blob.  name is the path below the ESP
 * root with '/' separators and no leading slash, e.g. "bin/touch". */
#define BOOT_FILE_NAME_MAX 120
struct boot_file {
	char name[BOOT_FILE_NAME_MAX];
	uint64_t size;
	uint64_t phys;          /* 0 when size is 0 */
};

enum boot_fb_format {
	BOOT_FB_NONE = 0,
	BOOT_FB_RGBX = 1,       /* byte order R,G,B,reserved */
	BOOT_FB_BGRX = 2,       /* byte order B,G,R,reserved */
	BOOT_FB_BITMASK = 3,    /* masks below */
};

struct boot_framebuffer {
	uint64_t phys;
	uint64_t size;
	uint32_t width, height;
	uint32_t pitch;         /* bytes per scan line */
	uint32_t format;        /* enum boot_fb_format */
	uint32_t red_mask, green_mask, blue_mask, reserved_mask;
};

#define BOOT_CMDLINE_MAX 1024

/* The results file the loader pre-allocates on the ESP (version 3): where
 * its bytes sit on the disk, so the kernel can write its records there and
 * nowhere else.  LBAs count the disk's blocks from the start of the whole
 * disk (the partition's start added). */
#define BOOT_RESULTS_MAX_EXTENTS 32
#define BOOT_RESULTS_NAME_MAX 32
#define BOOT_RESULTS_WHY_MAX 96
struct boot_extent {
	uint64_t lba;
	uint64_t blocks;
};

struct boot_info {
	uint64_t magic;
	uint32_t version;
	uint32_t size;                  /* sizeof(struct boot_info) */

	uint64_t loader_tsc;            /* rdtsc at efi_main entry */
	uint64_t exit_tsc;              /* rdtsc just before the jump */

	uint64_t kernel_phys;           /* where the image's first PT_LOAD sits */
	uint64_t kernel_virt;           /* ... and its link address */
	uint64_t kernel_size;           /* bytes, page rounded */

	uint64_t rsdp_phys;             /* 0 when the firmware gave none */
	uint32_t rsdp_revision;         /* 0 = ACPI 1.0 RSDP, 2 = 2.0+ */
	uint32_t pad0;

	struct boot_framebuffer fb;

	uint64_t mem_map_phys;          /* struct boot_mem_region[mem_map_count] */
	uint32_t mem_map_count;
	uint32_t efi_desc_count;        /* raw descriptor count, for the report */

	uint64_t files_phys;            /* struct boot_file[file_count] */
	uint32_t file_count;
	uint32_t pad1;

	uint64_t loader_pml4_phys;      /* the tables the loader switched to */

	char cmdline[BOOT_CMDLINE_MAX]; /* NUL terminated, "" = defaults */
	char firmware_vendor[64];       /* ASCII, from the system table */
	uint32_t firmware_revision;
	uint32_t boot_part_valid;       /* 1: boot_part_guid holds the ESP's GPT unique GUID */
	uint8_t boot_part_guid[16];     /* on-disk byte order, as in the GPT entry */

	/* Version 3: the results file.  results_valid 0: none, and
	 * results_why says why (the loader printed the same line). */
	uint32_t results_valid;
	uint32_t results_block_size;    /* bytes per LBA of the extents */
	uint64_t results_bytes;         /* file size, a multiple of the block size */
	uint64_t results_part_start;    /* the ESP's first LBA on its disk */
	char results_name[BOOT_RESULTS_NAME_MAX];       /* "results/0001.jsonl" */
	char results_why[BOOT_RESULTS_WHY_MAX];
	uint32_t results_extent_count;
	uint32_t pad2;
	struct boot_extent results_extents[BOOT_RESULTS_MAX_EXTENTS];
};

#endif
