/*
 * Boot files: the loader's list of (name, physical address, size), kept in
 * BOOTDATA memory that the page allocator never reuses.  Read through the
 * direct map.
 */
#include <string.h>
#include <stdbool.h>
#include "bootfs.h"
#include "lib/printf.h"
#include "lib/suggest.h"
#include "mem/kmem.h"

static const struct boot_file *files;
static uint32_t nfiles;

void bootfs_init(const struct boot_info *bi)
{
	files = phys_to_virt(bi->files_phys);
	nfiles = bi->file_count;
}

void bootfs_no_program(const char *name, char *buf, size_t n)
{
	const char *progs[BOOTFS_SUGGEST_MAX];
	int np = 0;
	for (uint32_t i = 0; i < nfiles && np < BOOTFS_SUGGEST_MAX; i++)
		if (!strncmp(files[i].name, "bin/", 4) && !strchr(files[i].name + 4, '/'))
			progs[np++] = files[i].name + 4;
	const char *near = name_suggest(name, progs, np);
	if (near)
		ksnprintf(buf, n, "no program '%s' among the boot files (did you mean %s?)", name, near);
	else
		ksnprintf(buf, n, "no program '%s' among the boot files", name);
}

uint32_t bootfs_count(void) { return nfiles; }
const struct boot_file *bootfs_at(uint32_t i) { return i < nfiles ? &files[i] : NULL; }

static const struct boot_file *lookup(const char *name)
{
	for (uint32_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i].name, name))
			return &files[i];
	return NULL;
}

bool bootfs_find(const char *name, const void **data, uint64_t *size, const char **path)
{
	const struct boot_file *f = lookup(name);
	if (!f) {
		char alt[BOOT_FILE_NAME_MAX];
		ksnprintf(alt, sizeof alt, "bin/%s", name);
		f = lookup(alt);
	}
	if (!f)
		return false;
	*data = f->size ? phys_to_virt(f->phys) : "";
	*size = f->size;
	if (path)
		*path = f->name;
	return true;
}
