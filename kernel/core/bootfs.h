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
/* "no program 'NAME' among the boot files" into buf, naming the program
 * (a file under bin/) a mistyped NAME most likely meant (lib/suggest.h;
 * the first BOOTFS_SUGGEST_MAX programs looked at). */
#define BOOTFS_SUGGEST_MAX 128
void bootfs_no_program(const char *name, char *buf, size_t n);
uint32_t bootfs_count(void);
const struct boot_file *bootfs_at(uint32_t i);

#endif
