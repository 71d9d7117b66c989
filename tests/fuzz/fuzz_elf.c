/* libFuzzer target: ELF validation on arbitrary files.  The input is
 * copied to an exactly sized heap buffer so ASan flags any over-read;
 * on success the summary must satisfy every rule the loader relies on. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "proc/elf.h"

static void check(const struct elf_info *e, size_t size)
{
	if (e->nload < 1 || e->nload > ELF_MAX_LOAD || e->span != e->hi - e->lo || e->hi > ELF_USER_TOP ||
	    (e->lo | e->hi) & (ELF_PAGE - 1) || e->max_align < ELF_PAGE)
		__builtin_trap();
	bool entry_ok = false;
	for (int i = 0; i < e->nload; i++) {
		const struct elf_seg *s = &e->load[i];
		if (s->filesz > s->memsz || s->offset > size || s->filesz > size - s->offset ||
		    s->vaddr > ELF_USER_TOP || s->memsz > ELF_USER_TOP - s->vaddr ||
		    (s->vaddr - s->offset) % ELF_PAGE || s->prot & ~7u)
			__builtin_trap();
		if (!s->memsz || (!e->is_pie && s->vaddr < ELF_MIN_VADDR))
			__builtin_trap();
		if (i && s->vaddr < e->load[i - 1].vaddr + e->load[i - 1].memsz)
			__builtin_trap();
		if (s->vaddr < e->lo || s->vaddr + s->memsz > e->hi)
			__builtin_trap();
		if ((s->prot & ELF_PROT_X) && e->entry >= s->vaddr && e->entry - s->vaddr < s->filesz)
			entry_ok = true;
		if ((s->prot & ELF_PROT_W) && (s->prot & ELF_PROT_X) && !e->wx)
			__builtin_trap();
		for (int j = 0; j < i; j++) {
			const struct elf_seg *t = &e->load[j];
			if (s->vaddr < t->vaddr + t->memsz && t->vaddr < s->vaddr + s->memsz)
				__builtin_trap();
		}
	}
	if (!entry_ok || (e->has_tls && e->tls_filesz > e->tls_memsz))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct elf_info e;
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	int err = elf_check(copy, size, &e);
	if (!err)
		check(&e, size);
	else if (!*elf_strerror(err))
		__builtin_trap();
	free(copy);
	return 0;
}
