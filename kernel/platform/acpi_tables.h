/*
 * ACPI table parsing, pure: every function takes a byte buffer and its
 * length, validates lengths and checksums, and never reads past the end.
 * kernel/platform/acpi.c maps the tables and calls these; tests and the fuzz
 * target feed them blobs.
 */
#ifndef ACPI_TABLES_H
#define ACPI_TABLES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define ACPI_HDR_LEN 36

struct acpi_header {
	char sig[5];
	uint32_t length;
	uint8_t revision;
	char oem[7];
};

enum acpi_err {
	ACPI_OK = 0,
	ACPI_ETRUNC = -1,       /* buffer shorter than the table says */
	ACPI_ECSUM = -2,        /* checksum does not add up to 0 */
	ACPI_ESIG = -3,         /* wrong signature */
	ACPI_EBAD = -4,         /* a field makes no sense */
};

const char *acpi_strerror(int err);
uint8_t acpi_sum(const void *buf, size_t len);

/* RSDP: returns the XSDT (rev >= 2 and nonzero) or RSDT address. */
int acpi_parse_rsdp(const void *buf, size_t len, uint64_t *root, bool *is_xsdt);
/* Any table's header; checks length <= len and the checksum. */
int acpi_parse_header(const void *buf, size_t len, struct acpi_header *h);
/* Entries of an XSDT (8-byte) or RSDT (4-byte).  Returns the count or an error. */
int acpi_root_entries(const void *buf, size_t len, bool is_xsdt, uint64_t *out, int max);

struct acpi_fadt {
	uint64_t dsdt;
	uint32_t pm1a_cnt, pm1b_cnt;    /* I/O ports, 0 = absent */
	uint32_t pm_timer;              /* I/O port, 0 = absent */
	bool pm_timer_32bit;
	uint8_t reset_space;            /* 1 = I/O */
	uint64_t reset_addr;
	uint8_t reset_value;
	bool reset_supported;
	uint16_t boot_flags;            /* IA-PC boot architecture flags (ACPI_BOOT_*) */
	bool boot_flags_valid;          /* revision >= 3 (ACPI 2.0): before that the field was reserved */
	uint8_t sci_irq;
};
int acpi_parse_fadt(const void *buf, size_t len, struct acpi_fadt *f);

/* IAPC_BOOT_ARCH bits (ACPI 6.5 section 5.2.9.3). */
#define ACPI_BOOT_LEGACY_DEVICES (1u << 0)
#define ACPI_BOOT_8042           (1u << 1)      /* an 8042 (or an emulation of one) at 0x60/0x64 */

/* Reset register address spaces (Generic Address Structure, 5.2.3.2). */
#define ACPI_SPACE_MEMORY 0
#define ACPI_SPACE_IO     1
#define ACPI_SPACE_PCI    2

/* Every PC up to 256 CPUs; entries beyond are counted in cpus_dropped. */
#define ACPI_MAX_CPUS 256
#define ACPI_MAX_IOAPICS 8
#define ACPI_MAX_ISOS 24
#define ACPI_MAX_MCFG 8

struct acpi_madt {
	uint64_t lapic_addr;
	bool pcat_compat;               /* a legacy 8259 pair is present */
	int ncpus;
	/* flags bit 0 enabled, bit 1 online capable (ACPI 6.3: may be enabled later) */
	struct { uint32_t apic_id; uint32_t acpi_uid; bool enabled, online_capable; bool x2; } cpu[ACPI_MAX_CPUS];
	int cpus_dropped;               /* CPU entries past ACPI_MAX_CPUS */
	int nioapics;
	struct { uint8_t id; uint32_t addr; uint32_t gsi_base; } ioapic[ACPI_MAX_IOAPICS];
	int nisos;                      /* interrupt source overrides */
	struct { uint8_t source; uint32_t gsi; bool level; bool active_low; bool flags_default; } iso[ACPI_MAX_ISOS];
	int lapic_nmi_lint;             /* -1: none */
	int skipped;                    /* entries of unknown type or cut short */
};
int acpi_parse_madt(const void *buf, size_t len, struct acpi_madt *m);

struct acpi_mcfg {
	int n;
	struct { uint64_t base; uint16_t segment; uint8_t bus_start, bus_end; } e[ACPI_MAX_MCFG];
};
int acpi_parse_mcfg(const void *buf, size_t len, struct acpi_mcfg *m);

struct acpi_hpet {
	uint64_t base;                  /* MMIO */
	uint8_t number;
	uint16_t min_tick;
};
int acpi_parse_hpet(const void *buf, size_t len, struct acpi_hpet *h);

/* Find \_S5 in DSDT/SSDT AML and return SLP_TYPa/b.  ACPI_ESIG when absent. */
int acpi_find_s5(const void *aml, size_t len, uint8_t *slp_typa, uint8_t *slp_typb);

#endif
