/*
 * BOOTX64.EFI: the UEFI loader.
 *
 * Model: gather facts and files while boot services exist, then leave them
 * for good.  In order:
 *   1. read \kernel.elf from the ESP we were loaded from, check it, copy its
 *      PT_LOAD segments into 2 MiB aligned pages of type KERNEL;
 *   2. read \cmdline.txt (absent = defaults) and every other file of the ESP
 *      (except the \EFI tree, which holds this loader) as named blobs;
 *   3. find the ACPI RSDP and the GOP framebuffer;
 *   3b. create the results file \results\NNNN.jsonl (RESULTS_BYTES of
 *      newlines) and find its sectors by reading the FAT ourselves
 *      (fat.c), so the kernel can write its records there;
 *   4. build page tables: identity map of low memory and all RAM with 2 MiB
 *      pages, plus the kernel's higher-half link address;
 *   5. ExitBootServices, translate the memory map, switch CR3, jump.
 * Every failure before step 5 prints one line naming what failed and returns
 * to the firmware, except the results file's: the kernel then runs without
 * one, and boot_info says why.  Nothing after ExitBootServices can fail.
 *
 * All memory handed to the kernel is allocated with OS-loader memory types
 * (0x80000000 and up) so the kernel can tell it from free memory.
 */
#include <efi.h>
#include <efilib.h>
#include <elf.h>
#include "boot_info.h"
#include "fat.h"

#define EFI_TYPE_KERNEL   ((EFI_MEMORY_TYPE)0x80000001)
#define EFI_TYPE_BOOTDATA ((EFI_MEMORY_TYPE)0x80000002)

#define PAGE_SIZE 4096ull
#define LARGE_PAGE (2ull << 20)
#define KERNEL_VMA_MIN 0xffffffff80000000ull
#define MAX_FILES 512
#define MAX_DEPTH 8
#define PTE_P  1ull
#define PTE_W  2ull
#define PTE_PS 0x80ull
/* The results file: fixed at 4 MiB, over 100 times what make run's
 * default script (12 runs, a table) writes: 35842 bytes of records. */
#define RESULTS_BYTES (4ull << 20)
#define RESULTS_CHUNK (64u << 10)
#define RESULTS_LAST 9999

static struct boot_info *bi;
static struct boot_file *files;

static inline UINT64 rdtsc(void)
{
	UINT32 lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((UINT64)hi << 32) | lo;
}

static void fail(const CHAR16 *what, EFI_STATUS st)
{
	Print(L"boot: error: %s (status %r)\r\n", what, st);
	Print(L"boot: returning to firmware\r\n");
	uefi_call_wrapper(BS->Stall, 1, 3000000);
}

static void *alloc_pages(EFI_MEMORY_TYPE type, UINT64 bytes, UINT64 align)
{
	UINT64 pages = (bytes + align + PAGE_SIZE - 1) / PAGE_SIZE;
	EFI_PHYSICAL_ADDRESS a = 0;
	if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, type, pages, &a) != EFI_SUCCESS)
		return NULL;
	UINT64 aligned = (a + align - 1) & ~(align - 1);
	/* Give back the slack below and above the aligned block. */
	if (aligned > a)
		uefi_call_wrapper(BS->FreePages, 2, a, (aligned - a) / PAGE_SIZE);
	UINT64 used = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	UINT64 tail = pages - (aligned - a) / PAGE_SIZE - used;
	if (tail)
		uefi_call_wrapper(BS->FreePages, 2, aligned + used * PAGE_SIZE, tail);
	SetMem((void *)aligned, used * PAGE_SIZE, 0);
	return (void *)aligned;
}

/* Read a whole file into pages of the given type.  Returns NULL and sets
 * *st when the file cannot be opened or read. */
static void *read_file(EFI_FILE_HANDLE dir, CHAR16 *path, UINT64 *size, EFI_STATUS *st)
{
	EFI_FILE_HANDLE fh;
	*st = uefi_call_wrapper(dir->Open, 5, dir, &fh, path, EFI_FILE_MODE_READ, 0ULL);
	if (*st != EFI_SUCCESS)
		return NULL;
	EFI_FILE_INFO *fi = LibFileInfo(fh);
	if (!fi) {
		*st = EFI_DEVICE_ERROR;
		uefi_call_wrapper(fh->Close, 1, fh);
		return NULL;
	}
	UINTN n = fi->FileSize;
	FreePool(fi);
	void *buf = alloc_pages(EFI_TYPE_BOOTDATA, n ? n : 1, PAGE_SIZE);
	if (!buf) {
		*st = EFI_OUT_OF_RESOURCES;
	} else {
		*st = uefi_call_wrapper(fh->Read, 3, fh, &n, buf);
		if (*st != EFI_SUCCESS)
			buf = NULL;
	}
	uefi_call_wrapper(fh->Close, 1, fh);
	*size = n;
	return buf;
}

static int check_elf(const Elf64_Ehdr *eh, UINT64 size, const CHAR16 **why)
{
	if (size < sizeof(*eh) || eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3)
		*why = L"not an ELF file";
	else if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64)
		*why = L"not an x86-64 ELF64 file";
	else if (eh->e_type != ET_EXEC)
		*why = L"not an ET_EXEC executable";
	else if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
		 eh->e_phoff > size || (UINT64)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff)
		*why = L"program headers missing or truncated";
	else
		return 0;
	return -1;
}

/* Copy the kernel's PT_LOAD segments into fresh 2 MiB aligned memory. */
static EFI_STATUS load_kernel(const UINT8 *img, UINT64 size, UINT64 *entry)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const CHAR16 *why = NULL;
	if (check_elf(eh, size, &why)) {
		Print(L"boot: error: \\kernel.elf: %s\r\n", why);
		return EFI_LOAD_ERROR;
	}
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	UINT64 lo = ~0ull, hi = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < KERNEL_VMA_MIN || ph[i].p_memsz < ph[i].p_filesz ||
		    ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset) {
			Print(L"boot: error: \\kernel.elf: segment %d is malformed or outside the kernel window\r\n", i);
			return EFI_LOAD_ERROR;
		}
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (hi <= lo || (lo & (LARGE_PAGE - 1)) || hi - lo > (512ull << 20)) {
		Print(L"boot: error: \\kernel.elf: bad load span %lx..%lx (must start 2 MiB aligned, at most 512 MiB)\r\n", lo, hi);
		return EFI_LOAD_ERROR;
	}
	UINT64 span = (hi - lo + LARGE_PAGE - 1) & ~(LARGE_PAGE - 1);
	UINT8 *dst = alloc_pages(EFI_TYPE_KERNEL, span, LARGE_PAGE);
	if (!dst) {
		Print(L"boot: error: \\kernel.elf: no %ld KiB of memory for the kernel image\r\n", span >> 10);
		return EFI_OUT_OF_RESOURCES;
	}
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			CopyMem(dst + (ph[i].p_vaddr - lo), img + ph[i].p_offset, ph[i].p_filesz);
	bi->kernel_phys = (UINT64)dst;
	bi->kernel_virt = lo;
	bi->kernel_size = span;
	*entry = eh->e_entry;
	if (*entry < lo || *entry >= hi) {
		Print(L"boot: error: \\kernel.elf: entry point %lx outside the image\r\n", *entry);
		return EFI_LOAD_ERROR;
	}
	return EFI_SUCCESS;
}

static void to_ascii(char *dst, UINTN cap, const CHAR16 *src)
{
	UINTN i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = 0;
}

static int name_is(const CHAR16 *a, const CHAR16 *b)
{
	return StriCmp((CHAR16 *)a, (CHAR16 *)b) == 0;
}

static EFI_STATUS load_dir(EFI_FILE_HANDLE dir, CHAR16 *path, UINTN plen, int depth);

static EFI_STATUS load_entry(EFI_FILE_HANDLE dir, EFI_FILE_INFO *fi, CHAR16 *path, UINTN plen, int depth)
{
	UINTN nlen = StrLen(fi->FileName);
	if (plen + nlen + 2 >= BOOT_FILE_NAME_MAX) {
		Print(L"boot: warning: path too long, skipped: %s\\%s\r\n", path, fi->FileName);
		return EFI_SUCCESS;
	}
	CHAR16 full[BOOT_FILE_NAME_MAX];
	CopyMem(full, path, plen * sizeof(CHAR16));
	if (plen)
		full[plen++] = L'\\';
	CopyMem(full + plen, fi->FileName, (nlen + 1) * sizeof(CHAR16));
	UINTN flen = plen + nlen;
	if (fi->Attribute & EFI_FILE_DIRECTORY) {
		if (depth == 0 && name_is(fi->FileName, L"EFI"))
			return EFI_SUCCESS;     /* the loader's own tree */
		if (depth == 0 && name_is(fi->FileName, L"results"))
			return EFI_SUCCESS;     /* earlier runs' results files */
		if (depth + 1 >= MAX_DEPTH)
			return EFI_SUCCESS;
		EFI_FILE_HANDLE sub;
		EFI_STATUS st = uefi_call_wrapper(dir->Open, 5, dir, &sub, fi->FileName, EFI_FILE_MODE_READ, 0ULL);
		if (st != EFI_SUCCESS)
			return st;
		st = load_dir(sub, full, flen, depth + 1);
		uefi_call_wrapper(sub->Close, 1, sub);
		return st;
	}
	if (depth == 0 && (name_is(fi->FileName, L"kernel.elf") || name_is(fi->FileName, L"cmdline.txt")))
		return EFI_SUCCESS;
	if (bi->file_count >= MAX_FILES) {
		Print(L"boot: warning: more than %d files, skipped %s\r\n", MAX_FILES, full);
		return EFI_SUCCESS;
	}
	struct boot_file *bf = &files[bi->file_count];
	EFI_STATUS st;
	UINT64 size;
	void *data = read_file(dir, fi->FileName, &size, &st);
	if (!data) {
		Print(L"boot: error: cannot read %s\r\n", full);
		return st;
	}
	for (UINTN i = 0; i < flen; i++)
		if (full[i] == L'\\')
			full[i] = L'/';
	to_ascii(bf->name, sizeof bf->name, full);
	bf->size = size;
	bf->phys = (UINT64)data;
	bi->file_count++;
	return EFI_SUCCESS;
}

static EFI_STATUS load_dir(EFI_FILE_HANDLE dir, CHAR16 *path, UINTN plen, int depth)
{
	UINTN cap = SIZE_OF_EFI_FILE_INFO + 512 * sizeof(CHAR16);
	EFI_FILE_INFO *fi = AllocatePool(cap);
	if (!fi)
		return EFI_OUT_OF_RESOURCES;
	EFI_STATUS st = EFI_SUCCESS;
	for (;;) {
		UINTN n = cap;
		st = uefi_call_wrapper(dir->Read, 3, dir, &n, fi);
		if (st != EFI_SUCCESS || n == 0)
			break;
		if (name_is(fi->FileName, L".") || name_is(fi->FileName, L".."))
			continue;
		st = load_entry(dir, fi, path, plen, depth);
		if (st != EFI_SUCCESS)
			break;
	}
	FreePool(fi);
	return st;
}

static void read_cmdline(EFI_FILE_HANDLE root)
{
	EFI_STATUS st;
	UINT64 size;
	char *s = read_file(root, L"\\cmdline.txt", &size, &st);
	if (!s)
		return;
	UINT64 n = 0;
	for (; n < size && n + 1 < BOOT_CMDLINE_MAX; n++) {
		if (s[n] == '\n' || s[n] == '\r' || s[n] == 0)
			break;
		bi->cmdline[n] = s[n];
	}
	bi->cmdline[n] = 0;
	if (size >= BOOT_CMDLINE_MAX && n + 1 >= BOOT_CMDLINE_MAX)
		Print(L"boot: warning: cmdline.txt longer than %d bytes, truncated\r\n", BOOT_CMDLINE_MAX - 1);
}

static void find_rsdp(void)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];
		if (!CompareGuid(&t->VendorGuid, &acpi20)) {
			bi->rsdp_phys = (UINT64)t->VendorTable;
			bi->rsdp_revision = 2;
			return;
		}
		if (!CompareGuid(&t->VendorGuid, &AcpiTableGuid) && !bi->rsdp_phys)
			bi->rsdp_phys = (UINT64)t->VendorTable;
	}
}

static void find_framebuffer(void)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	if (uefi_call_wrapper(BS->LocateProtocol, 3, &GraphicsOutputProtocol, NULL, (void **)&gop) != EFI_SUCCESS || !gop)
		return;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info = gop->Mode->Info;
	struct boot_framebuffer *fb = &bi->fb;
	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor: fb->format = BOOT_FB_RGBX; break;
	case PixelBlueGreenRedReserved8BitPerColor: fb->format = BOOT_FB_BGRX; break;
	case PixelBitMask:
		fb->format = BOOT_FB_BITMASK;
		fb->red_mask = info->PixelInformation.RedMask;
		fb->green_mask = info->PixelInformation.GreenMask;
		fb->blue_mask = info->PixelInformation.BlueMask;
		fb->reserved_mask = info->PixelInformation.ReservedMask;
		break;
	default: return;        /* BltOnly: no linear framebuffer */
	}
	fb->phys = gop->Mode->FrameBufferBase;
	fb->size = gop->Mode->FrameBufferSize;
	fb->width = info->HorizontalResolution;
	fb->height = info->VerticalResolution;
	fb->pitch = info->PixelsPerScanLine * 4;
}

/* The GPT unique GUID of the partition we were loaded from, so the kernel
 * can recognise (and never write) the boot disk; and its first LBA, which
 * turns the results file's partition-relative sectors into disk LBAs. */
static int boot_part_start_known;
static void find_boot_partition(EFI_HANDLE device)
{
	EFI_DEVICE_PATH *dp = DevicePathFromHandle(device);
	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (DevicePathType(dp) != MEDIA_DEVICE_PATH || DevicePathSubType(dp) != MEDIA_HARDDRIVE_DP)
			continue;
		HARDDRIVE_DEVICE_PATH *hd = (HARDDRIVE_DEVICE_PATH *)dp;
		if (hd->SignatureType == SIGNATURE_TYPE_GUID) {
			CopyMem(bi->boot_part_guid, hd->Signature, 16);
			bi->boot_part_valid = 1;
		}
		bi->results_part_start = hd->PartitionStart;
		boot_part_start_known = 1;
		return;
	}
}

static UINT32 translate_type(UINT32 t)
{
	switch (t) {
	case EfiConventionalMemory: return BOOT_MEM_USABLE;
	case EfiBootServicesCode: case EfiBootServicesData: return BOOT_MEM_BOOT_SERVICES;
	case EfiLoaderCode: case EfiLoaderData: return BOOT_MEM_LOADER;
	case EfiRuntimeServicesCode: case EfiRuntimeServicesData: return BOOT_MEM_RUNTIME;
	case EfiACPIReclaimMemory: return BOOT_MEM_ACPI_RECLAIM;
	case EfiACPIMemoryNVS: return BOOT_MEM_ACPI_NVS;
	case EfiMemoryMappedIO: case EfiMemoryMappedIOPortSpace: return BOOT_MEM_MMIO;
	case EfiUnusableMemory: return BOOT_MEM_BAD;
	case 14: return BOOT_MEM_PERSISTENT;          /* EfiPersistentMemory */
	case 0x80000001: return BOOT_MEM_KERNEL;
	case 0x80000002: return BOOT_MEM_BOOTDATA;
	default: return BOOT_MEM_RESERVED;
	}
}

/* Highest end of any RAM-like region, to size the identity map. */
static UINT64 map_top(EFI_MEMORY_DESCRIPTOR *map, UINTN size, UINTN dsz)
{
	UINT64 top = 4ull << 30;
	for (UINTN off = 0; off < size; off += dsz) {
		EFI_MEMORY_DESCRIPTOR *d = (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)map + off);
		UINT32 t = translate_type(d->Type);
		if (t == BOOT_MEM_MMIO || t == BOOT_MEM_RESERVED)
			continue;
		UINT64 end = d->PhysicalStart + d->NumberOfPages * PAGE_SIZE;
		if (end > top)
			top = end;
	}
	return (top + (1ull << 30) - 1) & ~((1ull << 30) - 1);
}

/* Identity map [0, top) with 2 MiB pages and the kernel at its link address.
 * The kernel replaces these tables within its first milliseconds. */
static UINT64 *build_tables(UINT64 top)
{
	UINT64 gigs = top >> 30;
	if (gigs > 512)
		gigs = 512;
	UINT64 npages = 1 + 1 + gigs + 2;       /* pml4, pdpt, pds, kernel pdpt+pd */
	UINT64 *t = alloc_pages(EFI_TYPE_BOOTDATA, npages * PAGE_SIZE, PAGE_SIZE);
	if (!t)
		return NULL;
	UINT64 *pml4 = t, *pdpt = t + 512, *pd = t + 1024;
	UINT64 *kpdpt = pd + gigs * 512, *kpd = kpdpt + 512;
	pml4[0] = (UINT64)pdpt | PTE_P | PTE_W;
	for (UINT64 g = 0; g < gigs; g++) {
		pdpt[g] = (UINT64)(pd + g * 512) | PTE_P | PTE_W;
		for (UINT64 i = 0; i < 512; i++)
			pd[g * 512 + i] = ((g << 30) + (i << 21)) | PTE_P | PTE_W | PTE_PS;
	}
	UINT64 v = bi->kernel_virt;
	pml4[(v >> 39) & 511] = (UINT64)kpdpt | PTE_P | PTE_W;
	kpdpt[(v >> 30) & 511] = (UINT64)kpd | PTE_P | PTE_W;
	for (UINT64 off = 0; off < bi->kernel_size; off += LARGE_PAGE)
		kpd[((v + off) >> 21) & 511] = (bi->kernel_phys + off) | PTE_P | PTE_W | PTE_PS;
	bi->loader_pml4_phys = (UINT64)pml4;
	return pml4;
}

/* Exit boot services.  The map buffer and the region array are allocated
 * before the final GetMemoryMap so the key stays valid. */
static EFI_STATUS exit_boot(EFI_HANDLE image, UINT64 **pml4_out)
{
	UINTN size = 0, key, dsz;
	UINT32 dver;
	uefi_call_wrapper(BS->GetMemoryMap, 5, &size, NULL, &key, &dsz, &dver);
	UINTN cap = size + 64 * dsz;
	EFI_MEMORY_DESCRIPTOR *map = alloc_pages(EFI_TYPE_BOOTDATA, cap, PAGE_SIZE);
	struct boot_mem_region *reg = alloc_pages(EFI_TYPE_BOOTDATA, (cap / dsz) * sizeof(*reg), PAGE_SIZE);
	if (!map || !reg)
		return EFI_OUT_OF_RESOURCES;
	size = cap;
	EFI_STATUS st = uefi_call_wrapper(BS->GetMemoryMap, 5, &size, map, &key, &dsz, &dver);
	if (st != EFI_SUCCESS)
		return st;
	*pml4_out = build_tables(map_top(map, size, dsz));
	if (!*pml4_out)
		return EFI_OUT_OF_RESOURCES;
	for (int tries = 0; tries < 4; tries++) {
		size = cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &size, map, &key, &dsz, &dver);
		if (st != EFI_SUCCESS)
			return st;
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, key);
		if (st == EFI_SUCCESS)
			break;
	}
	if (st != EFI_SUCCESS)
		return st;
	/* No firmware calls from here on. */
	UINT32 n = 0;
	for (UINTN off = 0; off < size; off += dsz, n++) {
		EFI_MEMORY_DESCRIPTOR *d = (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)map + off);
		reg[n].base = d->PhysicalStart;
		reg[n].pages = d->NumberOfPages;
		reg[n].type = translate_type(d->Type);
		reg[n].efi_type = d->Type;
		reg[n].efi_attr = d->Attribute;
	}
	bi->mem_map_phys = (UINT64)reg;
	bi->mem_map_count = n;
	bi->efi_desc_count = n;
	return EFI_SUCCESS;
}

/* ------------------------------------------------------------ results file */

/* The kernel runs without a results file: say why, here and in boot_info. */
static void results_fail(const CHAR16 *fmt, ...)
{
	CHAR16 msg[BOOT_RESULTS_WHY_MAX];
	va_list ap;
	va_start(ap, fmt);
	VSPrint(msg, sizeof msg, fmt, ap);
	va_end(ap);
	Print(L"boot: no results file: %s\r\n", msg);
	to_ascii(bi->results_why, sizeof bi->results_why, msg);
	bi->results_valid = 0;
}

/* NNNN of a name "NNNN.jsonl", or 0. */
static UINTN results_number(const CHAR16 *name)
{
	UINTN n = 0;
	for (int i = 0; i < 4; i++) {
		if (name[i] < L'0' || name[i] > L'9')
			return 0;
		n = n * 10 + (UINTN)(name[i] - L'0');
	}
	return name_is(name + 4, L".jsonl") ? n : 0;
}

/* The next free number: one past the highest results\NNNN.jsonl. */
static UINTN results_next(EFI_FILE_HANDLE dir)
{
	UINTN cap = SIZE_OF_EFI_FILE_INFO + 512 * sizeof(CHAR16), last = 0;
	EFI_FILE_INFO *fi = AllocatePool(cap);
	if (!fi)
		return 0;
	for (;;) {
		UINTN n = cap;
		if (uefi_call_wrapper(dir->Read, 3, dir, &n, fi) != EFI_SUCCESS || n == 0)
			break;
		UINTN k = results_number(fi->FileName);
		if (k > last)
			last = k;
	}
	FreePool(fi);
	return last + 1;
}

/* Fill fh with RESULTS_BYTES of newlines (a valid, empty JSONL file). */
static EFI_STATUS results_fill(EFI_FILE_HANDLE fh)
{
	char *buf = AllocatePool(RESULTS_CHUNK);
	if (!buf)
		return EFI_OUT_OF_RESOURCES;
	SetMem(buf, RESULTS_CHUNK, '\n');
	EFI_STATUS st = EFI_SUCCESS;
	for (UINT64 done = 0; done < RESULTS_BYTES && st == EFI_SUCCESS; done += RESULTS_CHUNK) {
		UINTN n = RESULTS_CHUNK;
		st = uefi_call_wrapper(fh->Write, 3, fh, &n, buf);
		if (st == EFI_SUCCESS && n != RESULTS_CHUNK)
			st = EFI_VOLUME_FULL;
	}
	if (st == EFI_SUCCESS)
		st = uefi_call_wrapper(fh->Flush, 1, fh);
	FreePool(buf);
	return st;
}

/* Create results\NNNN.jsonl at its full size.  Returns 0 and the name, or
 * -1 after saying why (a partial file is deleted again). */
static int results_create(EFI_FILE_HANDLE root, CHAR16 *fname, UINTN cap)
{
	EFI_FILE_HANDLE dir, fh;
	UINT64 rw = EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE;
	EFI_STATUS st = uefi_call_wrapper(root->Open, 5, root, &dir, L"results", rw, EFI_FILE_DIRECTORY);
	if (st != EFI_SUCCESS) {
		results_fail(L"cannot open or create \\results (%r)", st);
		return -1;
	}
	EFI_FILE_INFO *di = LibFileInfo(dir);
	int is_dir = di && (di->Attribute & EFI_FILE_DIRECTORY);
	if (di)
		FreePool(di);
	if (!is_dir) {
		uefi_call_wrapper(dir->Close, 1, dir);
		results_fail(L"\\results on the ESP is not a directory");
		return -1;
	}
	UINTN num = results_next(dir);
	if (num == 0 || num > RESULTS_LAST) {
		uefi_call_wrapper(dir->Close, 1, dir);
		results_fail(num ? L"\\results already holds %04d.jsonl" : L"out of memory", RESULTS_LAST);
		return -1;
	}
	SPrint(fname, cap, L"%04d.jsonl", num);
	st = uefi_call_wrapper(dir->Open, 5, dir, &fh, fname, rw, 0ULL);
	if (st == EFI_SUCCESS) {
		st = results_fill(fh);
		if (st != EFI_SUCCESS)
			uefi_call_wrapper(fh->Delete, 1, fh);   /* closes it too */
		else
			st = uefi_call_wrapper(fh->Close, 1, fh);
	}
	uefi_call_wrapper(dir->Close, 1, dir);
	if (st != EFI_SUCCESS) {
		results_fail(L"cannot write %ld KiB to \\results\\%s (%r)", RESULTS_BYTES >> 10, fname, st);
		return -1;
	}
	return 0;
}

/* fat.c's reader: the ESP through its own block I/O, one bounce page
 * because the firmware may want aligned buffers. */
struct results_io {
	EFI_BLOCK_IO *bio;
	void *bounce;
};

static int results_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	struct results_io *io = ctx;
	UINTN bytes = (UINTN)count * io->bio->Media->BlockSize;
	if (bytes > PAGE_SIZE)
		return -1;
	EFI_STATUS st = uefi_call_wrapper(io->bio->ReadBlocks, 5, io->bio, io->bio->Media->MediaId, lba, bytes,
					  io->bounce);
	if (st != EFI_SUCCESS)
		return -1;
	CopyMem(buf, io->bounce, bytes);
	return 0;
}

static struct fat_vol results_vol;      /* a sector cache inside: off the stack */
static struct fat_extent results_ext[BOOT_RESULTS_MAX_EXTENTS];

/* Find the file's runs on the ESP and hand them over as disk LBAs. */
static void results_locate(EFI_HANDLE device, const char *path)
{
	struct results_io io;
	EFI_STATUS st = uefi_call_wrapper(BS->HandleProtocol, 3, device, &BlockIoProtocol, (void **)&io.bio);
	if (st != EFI_SUCCESS) {
		results_fail(L"the ESP has no block I/O protocol (%r)", st);
		return;
	}
	io.bounce = alloc_pages(EfiLoaderData, PAGE_SIZE, PAGE_SIZE);
	EFI_BLOCK_IO_MEDIA *m = io.bio->Media;
	int n = io.bounce ? 0 : FAT_EIO;
	if (!n)
		n = fat_mount(&results_vol, results_read, &io, m->BlockSize, m->LastBlock + 1);
	struct fat_file f;
	if (!n)
		n = fat_lookup(&results_vol, path, &f);
	if (!n)
		n = fat_extents(&results_vol, &f, results_ext, BOOT_RESULTS_MAX_EXTENTS);
	if (io.bounce)
		uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)io.bounce, 1);
	if (n <= 0 || f.size != RESULTS_BYTES) {
		results_fail(L"\\%a on the ESP's FAT: %a", path,
			     n < 0 ? fat_strerror(n) : "size differs from what was written");
		return;
	}
	for (int i = 0; i < n; i++) {
		bi->results_extents[i].lba = bi->results_part_start + results_ext[i].lba;
		bi->results_extents[i].blocks = results_ext[i].blocks;
	}
	bi->results_extent_count = (UINT32)n;
	bi->results_block_size = m->BlockSize;
	bi->results_bytes = f.size;
	bi->results_valid = 1;
	Print(L"boot: results file \\%a: %ld KiB in %d piece(s), first at LBA %ld\r\n", path, f.size >> 10, n,
	      bi->results_extents[0].lba);
}

/* Step 3b.  Needs find_boot_partition first (the partition's start). */
static void results_setup(EFI_FILE_HANDLE root, EFI_HANDLE device)
{
	CHAR16 fname[16];
	if (!boot_part_start_known) {
		results_fail(L"the ESP's device path names no hard-disk partition");
		return;
	}
	if (results_create(root, fname, sizeof fname))
		return;
	char name[BOOT_RESULTS_NAME_MAX];
	CopyMem(name, "results/", 8);
	to_ascii(name + 8, sizeof name - 8, fname);
	CopyMem(bi->results_name, name, sizeof name);
	results_locate(device, name);
}

static void jump(UINT64 *pml4, UINT64 entry)
{
	bi->exit_tsc = rdtsc();
	__asm__ volatile(
		"cli\n\t"
		"mov %0, %%cr3\n\t"
		"mov %1, %%rdi\n\t"
		"xor %%ebp, %%ebp\n\t"
		"jmp *%2\n\t"
		:: "r"(pml4), "r"(bi), "r"(entry) : "rdi", "memory");
	__builtin_unreachable();
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	UINT64 t0 = rdtsc();
	InitializeLib(image, systab);
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	Print(L"boot: loader starting\r\n");

	bi = alloc_pages(EFI_TYPE_BOOTDATA, sizeof(*bi), PAGE_SIZE);
	files = alloc_pages(EFI_TYPE_BOOTDATA, MAX_FILES * sizeof(*files), PAGE_SIZE);
	if (!bi || !files) {
		fail(L"out of memory for boot_info", EFI_OUT_OF_RESOURCES);
		return EFI_OUT_OF_RESOURCES;
	}
	bi->magic = BOOT_INFO_MAGIC;
	bi->version = BOOT_INFO_VERSION;
	bi->size = sizeof(*bi);
	bi->loader_tsc = t0;
	bi->files_phys = (UINT64)files;
	to_ascii(bi->firmware_vendor, sizeof bi->firmware_vendor, ST->FirmwareVendor);
	bi->firmware_revision = ST->FirmwareRevision;

	EFI_LOADED_IMAGE *li;
	EFI_STATUS st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li);
	EFI_FILE_HANDLE root = st == EFI_SUCCESS ? LibOpenRoot(li->DeviceHandle) : NULL;
	if (!root) {
		fail(L"cannot open the ESP this loader came from", st);
		return EFI_LOAD_ERROR;
	}
	UINT64 ksize, entry;
	void *kimg = read_file(root, L"\\kernel.elf", &ksize, &st);
	if (!kimg) {
		fail(st == EFI_NOT_FOUND ? L"no \\kernel.elf on the ESP" : L"cannot read \\kernel.elf", st);
		return st;
	}
	st = load_kernel(kimg, ksize, &entry);
	if (st != EFI_SUCCESS) {
		fail(L"kernel not loaded", st);
		return st;
	}
	uefi_call_wrapper(BS->FreePages, 2, (EFI_PHYSICAL_ADDRESS)kimg, (ksize + PAGE_SIZE - 1) / PAGE_SIZE);
	read_cmdline(root);
	st = load_dir(root, L"", 0, 0);
	if (st != EFI_SUCCESS) {
		fail(L"reading the ESP's files", st);
		return st;
	}
	find_rsdp();
	find_framebuffer();
	find_boot_partition(li->DeviceHandle);
	results_setup(root, li->DeviceHandle);
	Print(L"boot: kernel %ld KiB at %lx, %d files, cmdline \"%a\"\r\n",
	      bi->kernel_size >> 10, bi->kernel_phys, bi->file_count, bi->cmdline);

	UINT64 *pml4 = NULL;
	st = exit_boot(image, &pml4);
	if (st != EFI_SUCCESS) {
		fail(L"ExitBootServices failed", st);
		return st;
	}
	jump(pml4, entry);
	return EFI_LOAD_ERROR;
}
