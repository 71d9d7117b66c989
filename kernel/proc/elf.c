/*
 * ELF executable validation.
 *
 * Rules, in the order they are checked (Linux's fs/binfmt_elf.c unless
 * marked "ours"):
 *  - ELF64, little-endian, version 1, EM_X86_64, ET_EXEC or ET_DYN;
 *  - e_phentsize 56, 1..73 program headers (Linux: the table fits in a
 *    page), all inside the file;
 *  - no PT_INTERP: only static executables are supported (ours);
 *  - each PT_LOAD: file bytes inside the file, p_memsz >= p_filesz,
 *    [p_vaddr, p_vaddr+p_memsz) neither wrapping nor reaching 2^47,
 *    p_align 0, 1 or a power of two, p_vaddr == p_offset modulo 4096 (so
 *    the file page can be mapped at the memory page);
 *  - ET_EXEC segments not below 64 KiB (Linux's mmap_min_addr);
 *  - no two PT_LOADs overlapping in memory, byte for byte.  Sharing a
 *    page is fine: GNU ld and musl start the RW segment mid-page;
 *  - PT_LOADs in ascending p_vaddr order (the ELF spec's rule; Linux
 *    assumes it when sizing a PIE), so the loader can map them in order;
 *  - at least one PT_LOAD (we keep at most ELF_MAX_LOAD, ours);
 *  - entry inside the file-backed bytes of an executable PT_LOAD (ours:
 *    Linux would let such a process fault at once);
 *  - at most one PT_TLS, p_filesz <= p_memsz, power-of-two alignment,
 *    its initialisation image inside a PT_LOAD's file bytes (ours);
 *  - PT_PHDR, when present, inside a PT_LOAD's file bytes (ours: libc
 *    reads the table through AT_PHDR).
 * Everything is read with byte loads from checked offsets.
 */
#include <string.h>
#include "elf.h"

enum { ET_EXEC = 2, ET_DYN = 3, EM_X86_64 = 62 };
enum { PT_LOAD = 1, PT_INTERP = 3, PT_PHDR = 6, PT_TLS = 7, PT_GNU_STACK = 0x6474e551 };
enum { PF_X = 1, PF_W = 2, PF_R = 4 };

/* One program header, decoded. */
struct phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

const char *elf_strerror(int err)
{
	switch (err) {
	case ELF_OK: return "ok";
	case ELF_ETRUNC: return "file too short for an ELF header";
	case ELF_EMAGIC: return "not an ELF file";
	case ELF_ECLASS: return "not a 64-bit ELF file";
	case ELF_EDATA: return "not a little-endian ELF file";
	case ELF_EVERSION: return "unknown ELF version";
	case ELF_ETYPE: return "not an executable (ET_EXEC or ET_DYN)";
	case ELF_EMACHINE: return "not an x86-64 executable";
	case ELF_EPHENT: return "program header size is not 56";
	case ELF_EPHNUM: return "no program headers, or more than fit in a page";
	case ELF_EPHOFF: return "program header table lies outside the file";
	case ELF_EINTERP: return "needs a dynamic loader, only static executables are supported";
	case ELF_ESEGFILE: return "loadable segment's file bytes lie outside the file";
	case ELF_ESEGSIZE: return "loadable segment's memory size is smaller than its file size";
	case ELF_ESEGADDR: return "loadable segment's addresses wrap or leave user space";
	case ELF_ESEGALIGN: return "loadable segment's alignment is not a power of two";
	case ELF_ESEGOFF: return "loadable segment's address and file offset differ modulo the page size";
	case ELF_ESEGLOW: return "loadable segment below 64 KiB";
	case ELF_EOVERLAP: return "loadable segments overlap";
	case ELF_ENOLOAD: return "no loadable segment";
	case ELF_ETOOMANY: return "too many loadable segments";
	case ELF_EENTRY: return "entry point is not in an executable segment";
	case ELF_ETLS: return "bad TLS segment";
	case ELF_EPHDR: return "PT_PHDR is not inside a loadable segment";
	case ELF_EORDER: return "loadable segments are not in ascending address order";
	default: return "unknown ELF error";
	}
}

static int check_ident(const uint8_t *e, size_t size)
{
	if (size < ELF_EHDR_SIZE)
		return ELF_ETRUNC;
	if (memcmp(e, "\177ELF", 4))
		return ELF_EMAGIC;
	if (e[4] != 2)
		return ELF_ECLASS;
	if (e[5] != 1)
		return ELF_EDATA;
	if (e[6] != 1 || le32(e + 20) != 1)
		return ELF_EVERSION;
	uint16_t type = le16(e + 16);
	if (type != ET_EXEC && type != ET_DYN)
		return ELF_ETYPE;
	if (le16(e + 18) != EM_X86_64)
		return ELF_EMACHINE;
	if (le16(e + 54) != ELF_PHDR_SIZE)
		return ELF_EPHENT;
	uint16_t phnum = le16(e + 56);
	if (phnum == 0 || phnum > ELF_MAX_PHNUM)
		return ELF_EPHNUM;
	uint64_t phoff = le64(e + 32);
	if (phoff > size || (uint64_t)phnum * ELF_PHDR_SIZE > size - phoff)
		return ELF_EPHOFF;
	return 0;
}

static void read_phdr(const uint8_t *p, struct phdr *ph)
{
	ph->type = le32(p);
	ph->flags = le32(p + 4);
	ph->offset = le64(p + 8);
	ph->vaddr = le64(p + 16);
	ph->filesz = le64(p + 32);
	ph->memsz = le64(p + 40);
	ph->align = le64(p + 48);
}

static bool pow2_or_tiny(uint64_t a)
{
	return (a & (a - 1)) == 0;      /* true for 0 and 1 too */
}

static int check_load(const struct phdr *ph, size_t size, bool pie)
{
	if (ph->offset > size || ph->filesz > size - ph->offset)
		return ELF_ESEGFILE;
	if (ph->memsz < ph->filesz)
		return ELF_ESEGSIZE;
	if (ph->vaddr >= ELF_USER_TOP || ph->memsz > ELF_USER_TOP - ph->vaddr)
		return ELF_ESEGADDR;
	if (!pow2_or_tiny(ph->align))
		return ELF_ESEGALIGN;
	if ((ph->vaddr - ph->offset) % ELF_PAGE)
		return ELF_ESEGOFF;
	if (!pie && ph->vaddr < ELF_MIN_VADDR)
		return ELF_ESEGLOW;
	return 0;
}

static int add_load(const struct phdr *ph, size_t size, bool pie, struct elf_info *out)
{
	int err = check_load(ph, size, pie);
	if (err || !ph->memsz)
		return err;             /* an empty segment maps nothing (Linux too) */
	if (out->nload == ELF_MAX_LOAD)
		return ELF_ETOOMANY;
	struct elf_seg *s = &out->load[out->nload++];
	s->vaddr = ph->vaddr;
	s->memsz = ph->memsz;
	s->offset = ph->offset;
	s->filesz = ph->filesz;
	s->align = ph->align;
	s->prot = (ph->flags & PF_R ? ELF_PROT_R : 0) | (ph->flags & PF_W ? ELF_PROT_W : 0) |
		  (ph->flags & PF_X ? ELF_PROT_X : 0);
	return 0;
}

static int add_tls(const struct phdr *ph, struct elf_info *out)
{
	if (out->has_tls || ph->filesz > ph->memsz || !pow2_or_tiny(ph->align) ||
	    ph->vaddr >= ELF_USER_TOP || ph->memsz > ELF_USER_TOP - ph->vaddr)
		return ELF_ETLS;
	out->has_tls = true;
	out->tls_vaddr = ph->vaddr;
	out->tls_filesz = ph->filesz;
	out->tls_memsz = ph->memsz;
	out->tls_align = ph->align;
	return 0;
}

/* One program header: record what matters, reject what we cannot run. */
static int take_phdr(const struct phdr *ph, size_t size, struct elf_info *out, bool *has_phdr)
{
	switch (ph->type) {
	case PT_LOAD:
		return add_load(ph, size, out->is_pie, out);
	case PT_INTERP:
		return ELF_EINTERP;
	case PT_TLS:
		return add_tls(ph, out);
	case PT_GNU_STACK:
		out->has_gnu_stack = true;
		out->exec_stack = ph->flags & PF_X;
		return 0;
	case PT_PHDR:
		*has_phdr = true;
		out->phdr_vaddr = ph->vaddr;
		return 0;
	default:
		return 0;
	}
}

/* The PT_LOAD whose file-backed memory holds [va, va+len), or NULL. */
static const struct elf_seg *seg_holding(const struct elf_info *in, uint64_t va, uint64_t len)
{
	for (int i = 0; i < in->nload; i++) {
		const struct elf_seg *s = &in->load[i];
		if (va >= s->vaddr && va - s->vaddr <= s->filesz && len <= s->filesz - (va - s->vaddr))
			return s;
	}
	return NULL;
}

/* Pairwise: byte ranges must not meet; a shared page takes both
 * protections.  Then each segment must start where the previous ended or
 * later. */
static int check_overlaps(struct elf_info *in)
{
	for (int i = 0; i < in->nload; i++) {
		const struct elf_seg *a = &in->load[i];
		if ((a->prot & ELF_PROT_W) && (a->prot & ELF_PROT_X))
			in->wx = true;
		for (int j = i + 1; j < in->nload; j++) {
			const struct elf_seg *b = &in->load[j];
			if (a->vaddr < b->vaddr + b->memsz && b->vaddr < a->vaddr + a->memsz)
				return ELF_EOVERLAP;
			uint64_t alast = (a->vaddr + a->memsz - 1) & ~(ELF_PAGE - 1);
			uint64_t blast = (b->vaddr + b->memsz - 1) & ~(ELF_PAGE - 1);
			bool share = (a->vaddr & ~(ELF_PAGE - 1)) <= blast && (b->vaddr & ~(ELF_PAGE - 1)) <= alast;
			uint32_t u = a->prot | b->prot;
			if (share && (u & ELF_PROT_W) && (u & ELF_PROT_X))
				in->wx = true;
		}
	}
	for (int i = 1; i < in->nload; i++)
		if (in->load[i].vaddr < in->load[i - 1].vaddr + in->load[i - 1].memsz)
			return ELF_EORDER;
	return 0;
}

/* lo/hi/span/max_align; load[] is sorted and non-empty by now. */
static void compute_span(struct elf_info *in)
{
	const struct elf_seg *last = &in->load[in->nload - 1];
	in->lo = in->load[0].vaddr & ~(ELF_PAGE - 1);
	in->hi = (last->vaddr + last->memsz + ELF_PAGE - 1) & ~(ELF_PAGE - 1);
	in->span = in->hi - in->lo;
	in->max_align = ELF_PAGE;
	for (int i = 0; i < in->nload; i++)
		if (in->load[i].align > in->max_align)
			in->max_align = in->load[i].align;
}

/* Entry, TLS image and program-header checks once all PT_LOADs are known. */
static int check_refs(struct elf_info *in, bool has_phdr)
{
	const struct elf_seg *s = seg_holding(in, in->entry, 1);
	if (!s || !(s->prot & ELF_PROT_X))
		return ELF_EENTRY;
	if (in->has_tls && in->tls_filesz && !seg_holding(in, in->tls_vaddr, in->tls_filesz))
		return ELF_ETLS;
	uint64_t tab = (uint64_t)in->phnum * ELF_PHDR_SIZE;
	if (has_phdr)
		return seg_holding(in, in->phdr_vaddr, tab) ? 0 : ELF_EPHDR;
	for (int i = 0; i < in->nload; i++) {
		const struct elf_seg *l = &in->load[i];
		if (in->phoff >= l->offset && in->phoff - l->offset <= l->filesz &&
		    tab <= l->filesz - (in->phoff - l->offset)) {
			in->phdr_vaddr = l->vaddr + (in->phoff - l->offset);
			break;
		}
	}
	return 0;
}

int elf_check(const void *img, size_t size, struct elf_info *out)
{
	const uint8_t *e = img;
	memset(out, 0, sizeof *out);
	int err = check_ident(e, size);
	if (err)
		return err;
	out->is_pie = le16(e + 16) == ET_DYN;
	out->entry = le64(e + 24);
	out->phoff = le64(e + 32);
	out->phnum = le16(e + 56);
	bool has_phdr = false;
	for (int i = 0; i < out->phnum; i++) {
		struct phdr ph;
		read_phdr(e + out->phoff + (size_t)i * ELF_PHDR_SIZE, &ph);
		err = take_phdr(&ph, size, out, &has_phdr);
		if (err)
			return err;
	}
	if (!out->nload)
		return ELF_ENOLOAD;
	err = check_overlaps(out);
	if (!err)
		err = check_refs(out, has_phdr);
	if (err)
		return err;
	compute_span(out);
	return 0;
}
