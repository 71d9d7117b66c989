/*
 * The PVH boot (QEMU -kernel, see pvh_entry.asm): what the UEFI loader does for
 * a firmware boot, done from QEMU's hvm_start_info.  The memory map comes
 * from the E820 table QEMU's PVH option ROM copied in; the files the
 * loader would read from the ESP come from the initrd, a newc cpio made
 * by tools/mkinitrd from the same file list as the disk image.  The image
 * and the initrd are marked as the loader marks them (kernel, boot data),
 * so nothing hands them out.  There is no ESP, hence no results file and
 * no boot partition: records go to the console only.
 *
 * Runs before kmain, on pvh_entry.asm's identity map, with no console yet: what
 * goes wrong is said in boot_info's results_why, which kmain prints.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "boot/boot_info.h"
#include "lib/cpio.h"
#include "lib/printf.h"
#include "mem/layout.h"

void kmain(const struct boot_info *bi);     /* main.c; never returns */

/* Xen's public arch-x86/hvm/start_info.h, as QEMU fills it (version 1). */
#define HVM_START_MAGIC 0x336ec578u
struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;          /* version 1 */
	uint32_t memmap_entries;
	uint32_t reserved;
};
struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};
struct hvm_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;                  /* E820: 1 RAM, 2 reserved, 3 ACPI, 4 NVS, 5 bad */
	uint32_t reserved;
};

#define PVH_MAX_E820  120
#define PVH_MAX_FILES 512
#define PVH_LOW_LIMIT (4ull << 30)      /* what pvh_entry.asm's identity map covers on every CPU */

extern char pvh_pml4[];

static struct boot_info bi;
static struct boot_mem_region regions[PVH_MAX_E820 + 2];
static struct boot_file files[PVH_MAX_FILES];

static uint64_t kphys(const void *p)
{
	return (uint64_t)p - KERNEL_VMA + bi.kernel_phys;
}

static void why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void why(const char *fmt, ...)
{
	if (bi.results_why[0])
		return;                 /* the first problem is the one to read */
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(bi.results_why, sizeof bi.results_why, fmt, ap);
	va_end(ap);
}

static uint32_t e820_type(uint32_t t)
{
	switch (t) {
	case 1: return BOOT_MEM_USABLE;
	case 3: return BOOT_MEM_ACPI_RECLAIM;
	case 4: return BOOT_MEM_ACPI_NVS;
	case 5: return BOOT_MEM_BAD;
	default: return BOOT_MEM_RESERVED;
	}
}

static void add_region(uint64_t base, uint64_t bytes, uint32_t type, uint32_t raw)
{
	if (bi.mem_map_count == sizeof regions / sizeof regions[0] || !bytes)
		return;
	struct boot_mem_region *r = &regions[bi.mem_map_count++];
	r->base = base & ~0xfffull;
	r->pages = (base + bytes - r->base + 0xfff) >> 12;
	r->type = type;
	r->efi_type = raw;
	r->efi_attr = 0;
}

/* One E820 entry, less the initrd: QEMU puts the initrd at the top of low
 * RAM, below the ACPI tables, and SeaBIOS marks more of that top reserved
 * for its own data (192 KiB with two NVMe disks, 128 KiB with one), so the
 * initrd's tail can lie in a "reserved" entry.  That is RAM the initrd was
 * copied into after SeaBIOS was done with it; a reserved type there would
 * keep the files out of the direct map. */
static void add_e820(const struct hvm_memmap_entry *e, uint64_t lo, uint64_t hi)
{
	uint32_t t = e820_type(e->type);
	uint64_t s = e->addr, end = e->addr + e->size;
	if (t == BOOT_MEM_USABLE || end <= lo || s >= hi || end < s) {
		add_region(s, e->size, t, e->type);
		return;
	}
	if (s < lo)
		add_region(s, lo - s, t, e->type);
	if (end > hi)
		add_region(hi, end - hi, t, e->type);
}

static bool add_file(void *ctx, const struct cpio_entry *e)
{
	(void)ctx;
	if ((e->mode & CPIO_S_IFMT) != CPIO_S_IFREG)
		return true;            /* directories: the names carry the paths */
	const char *name = e->name;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	if (bi.file_count == PVH_MAX_FILES) {
		why("PVH boot: initrd: more than %d files; %s and later left out", PVH_MAX_FILES, name);
		return false;
	}
	size_t len = strlen(name);
	if (len >= BOOT_FILE_NAME_MAX) {
		why("PVH boot: initrd: name longer than %d bytes at offset %lu; left out",
		    BOOT_FILE_NAME_MAX - 1, e->offset);
		return true;
	}
	struct boot_file *f = &files[bi.file_count++];
	memcpy(f->name, name, len + 1);
	f->size = e->size;
	f->phys = e->size ? (uint64_t)e->data : 0;      /* identity-mapped: virtual = physical */
	return true;
}

/* The RSDP in the BIOS area, where QEMU's firmware puts it, for an option
 * ROM that did not say. */
static uint64_t find_rsdp(void)
{
	for (uint64_t p = 0xe0000; p < 0x100000; p += 16)
		if (memcmp((const void *)p, "RSD PTR ", 8) == 0)
			return p;
	return 0;
}

void pvh_main(uint32_t start_info, uint64_t entry_tsc) __attribute__((noreturn));
void pvh_main(uint32_t start_info, uint64_t entry_tsc)
{
	extern char pvh_kernel_lma[];
	const struct hvm_start_info *si = (const void *)(uint64_t)start_info;
	bi.magic = BOOT_INFO_MAGIC;
	bi.version = BOOT_INFO_VERSION;
	bi.size = sizeof bi;
	bi.loader_tsc = bi.exit_tsc = entry_tsc;
	bi.kernel_phys = (uint64_t)pvh_kernel_lma;
	bi.kernel_virt = (uint64_t)_kernel_start;
	bi.kernel_size = ((uint64_t)(_kernel_end - _kernel_start) + 0xfff) & ~0xfffull;
	bi.loader_pml4_phys = kphys(pvh_pml4);
	bi.mem_map_phys = kphys(regions);
	bi.files_phys = kphys(files);
	static const char vendor[] = "QEMU PVH (-kernel, no UEFI)";
	memcpy(bi.firmware_vendor, vendor, sizeof vendor);
	bi.results_valid = 0;
	if (si->magic != HVM_START_MAGIC) {
		why("PVH boot: start_info at %x has magic %x, not %x", start_info, si->magic, HVM_START_MAGIC);
		kmain(&bi);     /* no memory map: kmain panics, saying why */
		for (;;)
			__asm__ volatile("cli; hlt");
	}

	if (si->cmdline_paddr && si->cmdline_paddr < PVH_LOW_LIMIT) {
		const char *c = (const char *)si->cmdline_paddr;
		size_t n = 0;
		while (n < BOOT_CMDLINE_MAX - 1 && c[n])
			n++;
		memcpy(bi.cmdline, c, n);
	}

	/* The initrd first: where it lies matters to the memory map. */
	const struct hvm_modlist_entry *mod = NULL;
	uint64_t ird_lo = 0, ird_hi = 0;
	if (si->nr_modules && si->modlist_paddr && si->modlist_paddr < PVH_LOW_LIMIT) {
		mod = (const void *)si->modlist_paddr;
		if (mod->paddr + mod->size > PVH_LOW_LIMIT || mod->paddr + mod->size < mod->paddr) {
			why("PVH boot: initrd at %lx (%lu bytes) is beyond the first 4 GiB", mod->paddr, mod->size);
			mod = NULL;
		} else {
			ird_lo = mod->paddr & ~0xfffull;
			ird_hi = (mod->paddr + mod->size + 0xfff) & ~0xfffull;
		}
	}

	if (si->version >= 1 && si->memmap_paddr && si->memmap_paddr < PVH_LOW_LIMIT) {
		const struct hvm_memmap_entry *m = (const void *)si->memmap_paddr;
		uint32_t n = si->memmap_entries;
		if (n > PVH_MAX_E820) {
			why("PVH boot: %u memory map entries, the first %d used", n, PVH_MAX_E820);
			n = PVH_MAX_E820;
		}
		bi.efi_desc_count = n;
		for (uint32_t i = 0; i < n; i++)
			add_e820(&m[i], ird_lo, ird_hi);
	} else {
		why("PVH boot: start_info version %u has no memory map", si->version);
	}
	add_region(bi.kernel_phys, bi.kernel_size, BOOT_MEM_KERNEL, 0);

	if (mod) {
		add_region(mod->paddr, mod->size, BOOT_MEM_BOOTDATA, 0);
		uint64_t off;
		enum cpio_error err = cpio_walk((const void *)mod->paddr, mod->size, add_file, NULL, &off);
		if (err)
			why("PVH boot: initrd: %s at offset %lu", cpio_strerror(err), off);
	}

	bi.rsdp_phys = si->rsdp_paddr ? si->rsdp_paddr : find_rsdp();
	if (bi.rsdp_phys)
		bi.rsdp_revision = ((const uint8_t *)bi.rsdp_phys)[15] >= 2 ? 2 : 0;
	why("PVH boot: no ESP, records on the console only");
	kmain(&bi);
	for (;;)
		__asm__ volatile("cli; hlt");
}
