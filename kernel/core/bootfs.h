/*
 * The files the loader brought from the ESP (workload programs, scripts),
 * read-only, by path.
 */
#ifndef BOOTFS_H
#define BOOTFS_H

#include <stdint.h>
#include <stddef.h>
#include "boot/boot_info.h"

void bootfs_init(const struct boot_info *bi);
/* Exact path, else "bin/<name>".  Returns false when absent. */
bool bootfs_find(const char *name, const void **data, uint64_t *size, const char **path);
/* The program (a file under bin/, by its name) a mistyped name most
 * likely meant (lib/suggest.h), or NULL.  Looks at the first
 * BOOTFS_SUGGEST_MAX programs. */
#define BOOTFS_SUGGEST_MAX 128
const char *bootfs_suggest_program(const char *name);
uint32_t bootfs_count(void);
const struct boot_file *bootfs_at(uint32_t i);

#endif
