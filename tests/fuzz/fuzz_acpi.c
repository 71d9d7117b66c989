/* libFuzzer target: every ACPI table parser on arbitrary bytes. */
#include <stdint.h>
#include <stddef.h>
#include "platform/acpi_tables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t root, e[16];
	bool x;
	struct acpi_header h;
	struct acpi_fadt f;
	uint8_t a, b;
	acpi_parse_rsdp(data, size, &root, &x);
	acpi_parse_header(data, size, &h);
	acpi_root_entries(data, size, true, e, 16);
	acpi_root_entries(data, size, false, e, 16);
	acpi_parse_fadt(data, size, &f);
	acpi_find_s5(data, size, &a, &b);
	static struct acpi_madt madt;
	struct acpi_mcfg mcfg;
	struct acpi_hpet hpet;
	if (acpi_parse_madt(data, size, &madt) == ACPI_OK &&
	    (madt.ncpus > ACPI_MAX_CPUS || madt.nioapics > ACPI_MAX_IOAPICS || madt.nisos > ACPI_MAX_ISOS))
		__builtin_trap();
	if (acpi_parse_mcfg(data, size, &mcfg) == ACPI_OK && mcfg.n > ACPI_MAX_MCFG)
		__builtin_trap();
	acpi_parse_hpet(data, size, &hpet);
	return 0;
}
