/*
 * ACPI: finds the tables from the loader's RSDP, validates each one, and
 * keeps a list the rest of the kernel can search by signature.  Also owns
 * S5 power-off and the PM timer port.
 */
#ifndef ACPI_H
#define ACPI_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "acpi_tables.h"

struct acpi_table {
	char sig[5];
	uint64_t phys;
	uint32_t length;
	int status;             /* ACPI_OK or the parse error */
	const void *virt;       /* mapped when status == ACPI_OK */
};

/* Returns the number of valid tables; messages name every bad one. */
int acpi_init(uint64_t rsdp_phys);
/* The n-th valid table with this signature, or NULL. */
const struct acpi_table *acpi_find(const char *sig, int n);
int acpi_table_count(void);
const struct acpi_table *acpi_table_at(int i);
const struct acpi_fadt *acpi_fadt(void);
/* ACPI S5.  Returns only when power-off did not happen. */
void acpi_poweroff(void);
/* Write the FADT's reset register (ACPI 2.0+, when the FADT says it is
 * supported).  Returns only when no reset happened: NULL when there is
 * no usable register, else what was tried. */
const char *acpi_reset(void);
/* The FADT's IAPC_BOOT_ARCH "8042" flag: 1 an 8042 is there, 0 none,
 * -1 unknown (no FADT, or one older than ACPI 2.0). */
int acpi_has_8042(void);

#endif
