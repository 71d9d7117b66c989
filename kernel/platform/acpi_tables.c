/*
 * ACPI table parsers.  All multi-byte fields are read with explicit
 * little-endian loads from byte offsets (ACPI tables are packed and often
 * unaligned), and every offset is checked against the length first.
 */
#include <string.h>
#include "acpi_tables.h"

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

const char *acpi_strerror(int err)
{
	switch (err) {
	case ACPI_OK: return "ok";
	case ACPI_ETRUNC: return "truncated";
	case ACPI_ECSUM: return "bad checksum";
	case ACPI_ESIG: return "bad signature";
	default: return "malformed";
	}
}

uint8_t acpi_sum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint8_t s = 0;
	for (size_t i = 0; i < len; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

int acpi_parse_rsdp(const void *buf, size_t len, uint64_t *root, bool *is_xsdt)
{
	const uint8_t *p = buf;
	if (len < 20)
		return ACPI_ETRUNC;
	if (memcmp(p, "RSD PTR ", 8))
		return ACPI_ESIG;
	if (acpi_sum(p, 20))
		return ACPI_ECSUM;
	uint8_t rev = p[15];
	if (rev >= 2) {
		if (len < 36)
			return ACPI_ETRUNC;
		uint32_t xlen = le32(p + 20);
		if (xlen < 36 || xlen > len)
			return ACPI_ETRUNC;
		if (acpi_sum(p, xlen))
			return ACPI_ECSUM;
		uint64_t x = le64(p + 24);
		if (x) {
			*root = x;
			*is_xsdt = true;
			return ACPI_OK;
		}
	}
	*root = le32(p + 16);
	*is_xsdt = false;
	return *root ? ACPI_OK : ACPI_EBAD;
}

int acpi_parse_header(const void *buf, size_t len, struct acpi_header *h)
{
	const uint8_t *p = buf;
	if (len < ACPI_HDR_LEN)
		return ACPI_ETRUNC;
	memcpy(h->sig, p, 4);
	h->sig[4] = 0;
	h->length = le32(p + 4);
	h->revision = p[8];
	memcpy(h->oem, p + 10, 6);
	h->oem[6] = 0;
	if (h->length < ACPI_HDR_LEN || h->length > len)
		return ACPI_ETRUNC;
	if (acpi_sum(p, h->length))
		return ACPI_ECSUM;
	return ACPI_OK;
}

int acpi_root_entries(const void *buf, size_t len, bool is_xsdt, uint64_t *out, int max)
{
	struct acpi_header h;
	int err = acpi_parse_header(buf, len, &h);
	if (err)
		return err;
	if (memcmp(h.sig, is_xsdt ? "XSDT" : "RSDT", 4))
		return ACPI_ESIG;
	const uint8_t *p = (const uint8_t *)buf + ACPI_HDR_LEN;
	size_t w = is_xsdt ? 8 : 4, n = (h.length - ACPI_HDR_LEN) / w;
	int k = 0;
	for (size_t i = 0; i < n && k < max; i++)
		out[k++] = is_xsdt ? le64(p + i * w) : le32(p + i * w);
	return k;
}

/* A Generic Address Structure in I/O space, or 0. */
static uint32_t gas_io(const uint8_t *g)
{
	return g[0] == 1 ? (uint32_t)le64(g + 4) : 0;
}

int acpi_parse_fadt(const void *buf, size_t len, struct acpi_fadt *f)
{
	struct acpi_header h;
	int err = acpi_parse_header(buf, len, &h);
	if (err)
		return err;
	if (memcmp(h.sig, "FACP", 4))
		return ACPI_ESIG;
	const uint8_t *p = buf;
	size_t n = h.length;
	memset(f, 0, sizeof *f);
	if (n < 116)
		return ACPI_EBAD;               /* ACPI 1.0 FADT is 116 bytes */
	f->dsdt = le32(p + 40);
	f->sci_irq = (uint8_t)le16(p + 46);
	f->pm1a_cnt = le32(p + 64);
	f->pm1b_cnt = le32(p + 68);
	f->pm_timer = le32(p + 76);
	uint32_t flags = le32(p + 112);
	f->pm_timer_32bit = flags & (1u << 8);
	if (n >= 129) {
		f->reset_supported = flags & (1u << 10);
		f->reset_space = p[116];
		f->reset_addr = le64(p + 120);
		f->reset_value = p[128];
	}
	if (n >= 111 && h.revision >= 3) {
		f->boot_flags = le16(p + 109);
		f->boot_flags_valid = true;
	}
	if (n >= 148 && le64(p + 140))
		f->dsdt = le64(p + 140);
	if (n >= 184 && gas_io(p + 172))
		f->pm1a_cnt = gas_io(p + 172);
	if (n >= 196 && gas_io(p + 184))
		f->pm1b_cnt = gas_io(p + 184);
	if (n >= 220 && gas_io(p + 208))
		f->pm_timer = gas_io(p + 208);
	return ACPI_OK;
}

/* One AML integer for a package element: ZeroOp, OneOp, BytePrefix n. */
static int aml_small_int(const uint8_t *p, const uint8_t *end, uint8_t *v, int *used)
{
	if (p >= end)
		return -1;
	switch (p[0]) {
	case 0x00: *v = 0; *used = 1; return 0;
	case 0x01: *v = 1; *used = 1; return 0;
	case 0x0a:
		if (p + 1 >= end)
			return -1;
		*v = p[1];
		*used = 2;
		return 0;
	default:
		if (p[0] <= 0x3f) {     /* some compilers emit raw small values */
			*v = p[0];
			*used = 1;
			return 0;
		}
		return -1;
	}
}

int acpi_find_s5(const void *aml, size_t len, uint8_t *slp_typa, uint8_t *slp_typb)
{
	const uint8_t *p = aml, *end = p + len;
	for (; p + 4 <= end; p++) {
		if (memcmp(p, "_S5_", 4))
			continue;
		/* NameOp (0x08) precedes the name, possibly with a root '\\'. */
		if (!((p > (const uint8_t *)aml && p[-1] == 0x08) ||
		      (p > (const uint8_t *)aml + 1 && p[-1] == '\\' && p[-2] == 0x08)))
			continue;
		const uint8_t *q = p + 4;
		if (q >= end || *q != 0x12)     /* PackageOp */
			continue;
		q++;
		if (q >= end)
			return ACPI_ETRUNC;
		q += 1 + (*q >> 6);             /* PkgLength: 1..4 bytes */
		q++;                            /* NumElements */
		if (q >= end)
			return ACPI_ETRUNC;
		int used;
		if (aml_small_int(q, end, slp_typa, &used))
			return ACPI_EBAD;
		q += used;
		if (aml_small_int(q, end, slp_typb, &used))
			*slp_typb = *slp_typa;
		return ACPI_OK;
	}
	return ACPI_ESIG;
}

static void madt_entry(const uint8_t *e, uint8_t type, uint8_t len, struct acpi_madt *m)
{
	switch (type) {
	case 0:         /* processor local APIC */
		if (len < 8)
			break;
		if (m->ncpus == ACPI_MAX_CPUS) {
			m->cpus_dropped++;
			break;
		}
		m->cpu[m->ncpus].acpi_uid = e[2];
		m->cpu[m->ncpus].apic_id = e[3];
		m->cpu[m->ncpus].online_capable = (le32(e + 4) >> 1) & 1;
		m->cpu[m->ncpus++].enabled = le32(e + 4) & 1;
		return;
	case 1:         /* I/O APIC */
		if (len < 12 || m->nioapics == ACPI_MAX_IOAPICS)
			break;
		m->ioapic[m->nioapics].id = e[2];
		m->ioapic[m->nioapics].addr = le32(e + 4);
		m->ioapic[m->nioapics++].gsi_base = le32(e + 8);
		return;
	case 2: {       /* interrupt source override */
		if (len < 10 || m->nisos == ACPI_MAX_ISOS)
			break;
		uint16_t fl = le16(e + 8);
		m->iso[m->nisos].source = e[3];
		m->iso[m->nisos].gsi = le32(e + 4);
		m->iso[m->nisos].active_low = (fl & 3) == 3;
		m->iso[m->nisos].level = ((fl >> 2) & 3) == 3;
		m->iso[m->nisos++].flags_default = fl == 0;
		return;
	}
	case 4:         /* local APIC NMI */
		if (len < 6)
			break;
		m->lapic_nmi_lint = e[5];
		return;
	case 5:         /* local APIC address override */
		if (len < 12)
			break;
		m->lapic_addr = le64(e + 4);
		return;
	case 9:         /* processor local x2APIC */
		if (len < 16)
			break;
		if (m->ncpus == ACPI_MAX_CPUS) {
			m->cpus_dropped++;
			break;
		}
		m->cpu[m->ncpus].apic_id = le32(e + 4);
		m->cpu[m->ncpus].acpi_uid = le32(e + 12);
		m->cpu[m->ncpus].x2 = true;
		m->cpu[m->ncpus].online_capable = (le32(e + 8) >> 1) & 1;
		m->cpu[m->ncpus++].enabled = le32(e + 8) & 1;
		return;
	default:
		break;
	}
	m->skipped++;
}

int acpi_parse_madt(const void *buf, size_t len, struct acpi_madt *m)
{
	struct acpi_header h;
	int err = acpi_parse_header(buf, len, &h);
	if (err)
		return err;
	if (memcmp(h.sig, "APIC", 4))
		return ACPI_ESIG;
	if (h.length < 44)
		return ACPI_EBAD;
	const uint8_t *p = buf;
	memset(m, 0, sizeof *m);
	m->lapic_nmi_lint = -1;
	m->lapic_addr = le32(p + 36);
	m->pcat_compat = le32(p + 40) & 1;
	for (size_t off = 44; off + 2 <= h.length;) {
		uint8_t type = p[off], elen = p[off + 1];
		if (elen < 2 || off + elen > h.length) {
			m->skipped++;
			break;
		}
		madt_entry(p + off, type, elen, m);
		off += elen;
	}
	return ACPI_OK;
}

int acpi_parse_mcfg(const void *buf, size_t len, struct acpi_mcfg *m)
{
	struct acpi_header h;
	int err = acpi_parse_header(buf, len, &h);
	if (err)
		return err;
	if (memcmp(h.sig, "MCFG", 4))
		return ACPI_ESIG;
	const uint8_t *p = buf;
	memset(m, 0, sizeof *m);
	for (size_t off = 44; off + 16 <= h.length && m->n < ACPI_MAX_MCFG; off += 16) {
		m->e[m->n].base = le64(p + off);
		m->e[m->n].segment = le16(p + off + 8);
		m->e[m->n].bus_start = p[off + 10];
		m->e[m->n].bus_end = p[off + 11];
		if (m->e[m->n].bus_end < m->e[m->n].bus_start || !m->e[m->n].base)
			return ACPI_EBAD;
		m->n++;
	}
	return ACPI_OK;
}

int acpi_parse_hpet(const void *buf, size_t len, struct acpi_hpet *hp)
{
	struct acpi_header h;
	int err = acpi_parse_header(buf, len, &h);
	if (err)
		return err;
	if (memcmp(h.sig, "HPET", 4))
		return ACPI_ESIG;
	if (h.length < 56)
		return ACPI_EBAD;
	const uint8_t *p = buf;
	if (p[40] != 0)                 /* must be system memory */
		return ACPI_EBAD;
	hp->base = le64(p + 44);
	hp->number = p[52];
	hp->min_tick = le16(p + 53);
	return hp->base ? ACPI_OK : ACPI_EBAD;
}
