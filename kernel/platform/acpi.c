/*
 * ACPI glue: map, validate, remember.  Every table the root table lists is
 * mapped header-first (to learn its length), then whole, and checked; a bad
 * one is reported by signature and left out of lookups.  The DSDT is not in
 * the root table: it comes from the FADT.
 */
#include <string.h>
#include "acpi.h"
#include "core/console.h"
#include "mem/kmem.h"
#include "arch/x86_64/x86.h"

#define MAX_TABLES 64

static struct {
	struct acpi_table t[MAX_TABLES];
	int n;
	struct acpi_fadt fadt;
	bool have_fadt, have_s5;
	uint8_t slp_typa, slp_typb;
	volatile uint8_t *reset_mmio;   /* the reset register when it is in memory, mapped at init */
} acpi;

static const void *map_table(uint64_t phys, uint32_t *len)
{
	const void *h = kmem_map_phys(phys, ACPI_HDR_LEN);
	if (!h)
		return NULL;
	uint32_t l;
	memcpy(&l, (const char *)h + 4, 4);
	if (l < ACPI_HDR_LEN || l > (16u << 20))
		return NULL;
	*len = l;
	return kmem_map_phys(phys, l);
}

static void add_table(uint64_t phys, const char *expect)
{
	if (acpi.n == MAX_TABLES)
		return;
	struct acpi_table *t = &acpi.t[acpi.n];
	uint32_t len = 0;
	const void *v = map_table(phys, &len);
	struct acpi_header h;
	t->phys = phys;
	t->length = len;
	t->status = v ? acpi_parse_header(v, len, &h) : ACPI_ETRUNC;
	memcpy(t->sig, v ? (const char *)v : "????", 4);
	t->sig[4] = 0;
	if (expect && t->status == ACPI_OK && memcmp(t->sig, expect, 4))
		t->status = ACPI_ESIG;
	if (t->status != ACPI_OK) {
		kprintf("acpi: table %s at 0x%lx: %s, ignored\n", t->sig, phys, acpi_strerror(t->status));
		acpi.n++;
		return;
	}
	t->virt = v;
	acpi.n++;
}

static void parse_fadt(void)
{
	const struct acpi_table *f = acpi_find("FACP", 0);
	if (!f) {
		kprintf("acpi: no valid FADT: no ACPI power-off\n");
		return;
	}
	int err = acpi_parse_fadt(f->virt, f->length, &acpi.fadt);
	if (err) {
		kprintf("acpi: FADT: %s\n", acpi_strerror(err));
		return;
	}
	acpi.have_fadt = true;
	/* Mapped now: the reset happens with interrupts off, maybe in a panic. */
	if (acpi.fadt.reset_supported && acpi.fadt.reset_space == ACPI_SPACE_MEMORY && acpi.fadt.reset_addr)
		acpi.reset_mmio = kmem_map_phys(acpi.fadt.reset_addr, 1);
	if (acpi.fadt.dsdt)
		add_table(acpi.fadt.dsdt, "DSDT");
	const struct acpi_table *d = acpi_find("DSDT", 0);
	if (d && acpi_find_s5((const uint8_t *)d->virt + ACPI_HDR_LEN, d->length - ACPI_HDR_LEN,
			      &acpi.slp_typa, &acpi.slp_typb) == ACPI_OK)
		acpi.have_s5 = true;
	else
		kprintf("acpi: no \\_S5 object in the DSDT: power-off may not work\n");
}

int acpi_init(uint64_t rsdp_phys)
{
	uint64_t root;
	bool xsdt;
	if (!rsdp_phys) {
		kprintf("acpi: the firmware gave no RSDP\n");
		return 0;
	}
	const void *rsdp = kmem_map_phys(rsdp_phys, 36);
	int err = rsdp ? acpi_parse_rsdp(rsdp, 36, &root, &xsdt) : ACPI_ETRUNC;
	if (err) {
		kprintf("acpi: RSDP at 0x%lx: %s\n", rsdp_phys, acpi_strerror(err));
		return 0;
	}
	uint32_t len = 0;
	const void *rt = map_table(root, &len);
	uint64_t entries[MAX_TABLES];
	int n = rt ? acpi_root_entries(rt, len, xsdt, entries, MAX_TABLES) : ACPI_ETRUNC;
	if (n < 0) {
		kprintf("acpi: %s at 0x%lx: %s\n", xsdt ? "XSDT" : "RSDT", root, acpi_strerror(n));
		return 0;
	}
	for (int i = 0; i < n; i++)
		add_table(entries[i], NULL);
	parse_fadt();
	int valid = 0;
	for (int i = 0; i < acpi.n; i++)
		valid += acpi.t[i].status == ACPI_OK;
	return valid;
}

const struct acpi_table *acpi_find(const char *sig, int n)
{
	for (int i = 0; i < acpi.n; i++)
		if (acpi.t[i].status == ACPI_OK && !memcmp(acpi.t[i].sig, sig, 4) && n-- == 0)
			return &acpi.t[i];
	return NULL;
}

int acpi_table_count(void) { return acpi.n; }
const struct acpi_table *acpi_table_at(int i) { return i < acpi.n ? &acpi.t[i] : NULL; }
const struct acpi_fadt *acpi_fadt(void) { return acpi.have_fadt ? &acpi.fadt : NULL; }

void acpi_poweroff(void)
{
	if (!acpi.have_fadt || !acpi.fadt.pm1a_cnt)
		return;
	uint8_t a = acpi.have_s5 ? acpi.slp_typa : 0, b = acpi.have_s5 ? acpi.slp_typb : 0;
	outw((uint16_t)acpi.fadt.pm1a_cnt, (uint16_t)((a << 10) | (1u << 13)));
	if (acpi.fadt.pm1b_cnt)
		outw((uint16_t)acpi.fadt.pm1b_cnt, (uint16_t)((b << 10) | (1u << 13)));
	/* Power-off is not instantaneous (QEMU finishes the instruction
	 * stream a little); give it a moment before reporting failure. */
	for (volatile int i = 0; i < 10000000; i++)
		cpu_relax();
}

int acpi_has_8042(void)
{
	if (!acpi.have_fadt || !acpi.fadt.boot_flags_valid)
		return -1;
	return (acpi.fadt.boot_flags & ACPI_BOOT_8042) != 0;
}

/* The reset register in PCI configuration space: bus 0, device and
 * function in the address's upper words (ACPI 6.5 section 5.2.3.2),
 * reached through the legacy 0xcf8/0xcfc mechanism. */
static void reset_pci(uint64_t addr, uint8_t v)
{
	uint32_t dev = (uint32_t)(addr >> 32) & 0x1f, fn = (uint32_t)(addr >> 16) & 7, off = (uint32_t)addr & 0xff;
	outl(0xcf8, 0x80000000u | dev << 11 | fn << 8 | (off & 0xfc));
	outb((uint16_t)(0xcfc + (off & 3)), v);
}

const char *acpi_reset(void)
{
	const struct acpi_fadt *f = &acpi.fadt;
	if (!acpi.have_fadt || !f->reset_supported)
		return NULL;
	if (f->reset_space == ACPI_SPACE_IO && f->reset_addr <= 0xffff)
		outb((uint16_t)f->reset_addr, f->reset_value);
	else if (f->reset_space == ACPI_SPACE_MEMORY && acpi.reset_mmio)
		*acpi.reset_mmio = f->reset_value;
	else if (f->reset_space == ACPI_SPACE_PCI)
		reset_pci(f->reset_addr, f->reset_value);
	else
		return NULL;
	for (volatile int i = 0; i < 10000000; i++)
		cpu_relax();
	return "the ACPI reset register";
}
