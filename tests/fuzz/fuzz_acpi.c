/* libFuzzer target: every ACPI table parser on arbitrary bytes. */
#include <stdint.h>
#include <stddef.h>
#include "acpi_tables.h"

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
	return 0;
}
