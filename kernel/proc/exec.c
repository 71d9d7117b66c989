/*
 * Program loading.  The ELF is validated first (proc/elf.c); a bad file is
 * reported by name and nothing is mapped.  PT_LOAD segments become private
 * anonymous areas whose pages are filled from the image right away (the
 * programs are small; demand paging applies to what they allocate).  Two
 * segments may share a page in memory (musl's RW segment often starts in
 * the page where the read-only one ends): that page is mapped once with
 * both segments' bytes and the union of their protections.
 */
#include <string.h>
#include "exec.h"
#include "elf.h"
#include "auxv.h"
#include "vm/vm.h"
#include "mem/kmalloc.h"
#include "lib/printf.h"
#include "lib/errno.h"
#include "arch/x86_64/x86.h"

#define P 4096ull
#define STACK_BUILD 16384ull

static uint32_t prot_of(uint32_t elf_prot)
{
	return ((elf_prot & ELF_PROT_R) ? VM_READ : 0) | ((elf_prot & ELF_PROT_W) ? VM_WRITE | VM_READ : 0) |
	       ((elf_prot & ELF_PROT_X) ? VM_EXEC | VM_READ : 0);
}

static int load_segment(struct mm *mm, const uint8_t *img, const struct elf_seg *s, uint64_t bias,
			uint64_t *mapped_end)
{
	uint64_t va = s->vaddr + bias;
	uint64_t start = va & ~(P - 1), end = (va + s->memsz + P - 1) & ~(P - 1);
	uint32_t prot = prot_of(s->prot);
	int err = 0;
	if (start < *mapped_end) {
		/* Shares its first page with the previous segment. */
		uint64_t shared = *mapped_end;
		down_read(&mm->lock);
		int i = vma_find(&mm->vmas, start);
		uint32_t old = i >= 0 ? mm->vmas.v[i].prot : 0;
		up_read(&mm->lock);
		/* VM_* and PROT_* share their values (vma.h, vm.h). */
		err = vm_mprotect(mm, start, shared - start, (int)(old | prot));
		if (!err && end > shared)
			err = vm_map_copy(mm, shared, end, prot, VM_IMAGE, NULL, 0, 0);
		if (!err) {
			down_write(&mm->lock);
			err = vm_write(mm, va, img + s->offset, s->filesz);
			up_write(&mm->lock);
		}
	} else {
		err = vm_map_copy(mm, start, end, prot, VM_IMAGE, img + s->offset, s->filesz, va - start);
	}
	if (end > *mapped_end)
		*mapped_end = end;
	return err;
}

static void hwcap(uint64_t *cap)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	*cap = r[3];
}

static int build_stack(struct mm *mm, const struct elf_info *info, uint64_t bias, const char *path,
		       int argc, const char *const *argv, struct exec_image *out)
{
	uint64_t cap;
	hwcap(&cap);
	const struct auxv_pair aux[] = {
		{ AT_PHDR, info->phdr_vaddr ? info->phdr_vaddr + bias : 0 },
		{ AT_PHENT, ELF_PHDR_SIZE }, { AT_PHNUM, info->phnum }, { AT_PAGESZ, P },
		{ AT_BASE, 0 }, { AT_FLAGS, 0 }, { AT_ENTRY, info->entry + bias },
		{ AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 }, { AT_EGID, 0 }, { AT_SECURE, 0 },
		{ AT_HWCAP, cap }, { AT_HWCAP2, 0 }, { AT_CLKTCK, 100 },
	};
	static const char *const envp[] = { "PATH=/bin", "HOME=/", "TERM=dumb" };
	uint8_t random[16];
	uint64_t seed = rdtsc() * 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 16; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		random[i] = (uint8_t)seed;
	}
	struct auxv_args a = { argc, argv, 3, envp, aux, (int)(sizeof aux / sizeof aux[0]), random, "x86_64", path };
	uint8_t *buf = kmalloc(STACK_BUILD);
	if (!buf)
		return -ENOMEM;
	uint64_t rsp;
	int err = auxv_build_stack(&a, buf, STACK_BUILD, USER_STACK_TOP, &rsp) ? -E2BIG : 0;
	if (!err)
		err = vm_map_copy(mm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_TOP, VM_READ | VM_WRITE,
				  VM_STACK, buf + (rsp - (USER_STACK_TOP - STACK_BUILD)), USER_STACK_TOP - rsp,
				  rsp - (USER_STACK_TOP - USER_STACK_SIZE));
	kfree(buf);
	out->rsp = rsp;
	return err;
}

int exec_load(struct mm *mm, const char *path, const void *img, uint64_t size, int argc,
	      const char *const *argv, struct exec_image *out, char *err, size_t errlen)
{
	struct elf_info info;
	int e = elf_check(img, size, &info);
	if (e) {
		ksnprintf(err, errlen, "%s: not loadable: %s", path, elf_strerror(e));
		return -ENOEXEC;
	}
	uint64_t bias = 0;
	if (info.is_pie) {
		uint64_t base = (USER_PIE_BASE + info.max_align - 1) & ~(info.max_align - 1);
		bias = base - info.lo;
	}
	uint64_t mapped_end = 0;
	for (int i = 0; i < info.nload; i++) {
		int r = load_segment(mm, img, &info.load[i], bias, &mapped_end);
		if (r) {
			ksnprintf(err, errlen, "%s: cannot map segment %d: error %d", path, i, r);
			return r;
		}
	}
	out->entry = info.entry + bias;
	out->brk = mapped_end;
	int r = build_stack(mm, &info, bias, path, argc, argv, out);
	if (r)
		ksnprintf(err, errlen, "%s: cannot build the initial stack: error %d", path, r);
	return r;
}

int exec_split_args(const char *s, char *buf, size_t buflen, const char **argv, int max)
{
	size_t used = 0;
	int argc = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (argc == max)
			return -1;
		argv[argc++] = buf + used;
		char quote = 0;
		for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
			if (!quote && (*s == '\'' || *s == '"')) {
				quote = *s;
				continue;
			}
			if (quote && *s == quote) {
				quote = 0;
				continue;
			}
			if (used + 1 >= buflen)
				return -1;
			buf[used++] = *s;
		}
		if (used + 1 > buflen)
			return -1;
		buf[used++] = 0;
	}
	return argc;
}
