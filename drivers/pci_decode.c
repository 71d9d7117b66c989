/*
 * PCI decoding, pure (see pci_decode.h).  Every input is untrusted: a
 * config space can come from a broken or hostile device, so pointers are
 * range-checked before each read and list walks remember where they have
 * been, which bounds them by the size of config space.
 */
#include <string.h>
#include "pci_decode.h"
#include "pci_regs.h"

/* ---- BARs (LB 6.2.5.1) ---------------------------------------------- */

static uint64_t lowest_bit(uint64_t v) { return v & (~v + 1); }

/* One 32-bit BAR slot that is not the start of a 64-bit BAR. */
static void decode_io(uint32_t raw, uint32_t mask, struct pci_bar *b)
{
	uint32_t m = mask & PCI_BAR_IO_MASK;
	if (!m)
		return;
	/* Devices that decode 16 I/O address bits may read the upper half
	 * back as zero; the size is still given by the lowest set bit. */
	if (!(m & 0xffff0000u))
		m |= 0xffff0000u;
	b->kind = PCI_BAR_IO;
	b->base = raw & PCI_BAR_IO_MASK;
	b->size = lowest_bit(m);
}

static void decode_mem32(uint32_t raw, uint32_t mask, struct pci_bar *b)
{
	uint32_t m = mask & PCI_BAR_MEM_MASK;
	if (!m)
		return;
	b->kind = PCI_BAR_MEM32;
	b->base = raw & PCI_BAR_MEM_MASK;
	b->size = lowest_bit(m);
	b->prefetch = (raw & PCI_BAR_MEM_PREFETCH) != 0;
}

static void decode_mem64(const uint32_t *raw, const uint32_t *mask, struct pci_bar *b)
{
	uint64_t m = (uint64_t)mask[1] << 32 | (mask[0] & PCI_BAR_MEM_MASK);
	if (!m)
		return;
	b->kind = PCI_BAR_MEM64;
	b->base = (uint64_t)raw[1] << 32 | (raw[0] & PCI_BAR_MEM_MASK);
	b->size = lowest_bit(m);
	b->prefetch = (raw[0] & PCI_BAR_MEM_PREFETCH) != 0;
}

int pci_bars_decode(const uint32_t *raw, const uint32_t *mask, int n, struct pci_bar *out)
{
	if (n <= 0)
		return 0;
	memset(out, 0, sizeof *out * (size_t)n);
	for (int i = 0; i < n; i++) {
		uint32_t r = raw[i];
		if (r & PCI_BAR_IO) {
			decode_io(r, mask[i], &out[i]);
		} else if ((r & PCI_BAR_MEM_TYPE) == PCI_BAR_MEM_64) {
			if (i + 1 < n)
				decode_mem64(raw + i, mask + i, &out[i]);
			i++;                    /* the upper half stays NONE */
		} else if ((r & PCI_BAR_MEM_TYPE) != 0x6) {     /* 0x6: reserved type */
			decode_mem32(r, mask[i], &out[i]);
		}
	}
	int used = 0;
	for (int i = 0; i < n; i++)
		used += out[i].kind != PCI_BAR_NONE;
	return used;
}

const char *pci_bar_kind_name(int kind)
{
	switch (kind) {
	case PCI_BAR_IO: return "io";
	case PCI_BAR_MEM32: return "mem32";
	case PCI_BAR_MEM64: return "mem64";
	default: return "none";
	}
}

/* ---- capability lists (LB 6.7, PCIe 7.6) ------------------------------ */

struct walk {
	pci_cfg_read_fn rd;
	void *ctx;
	size_t len;
	struct pci_cap *out;
	int max, n, status;
	uint64_t seen[PCI_CFG_SIZE_EXT / 4 / 64];       /* one bit per dword */
};

/* Record a capability at off; false when the walk must stop. */
static bool visit(struct walk *w, uint16_t off, uint16_t id, bool ext)
{
	unsigned d = off / 4u;
	if (w->seen[d / 64] & (1ull << (d % 64))) {
		w->status = PCI_CAPS_LOOP;
		return false;
	}
	w->seen[d / 64] |= 1ull << (d % 64);
	if (w->n == w->max) {
		w->status = PCI_CAPS_FULL;
		return false;
	}
	w->out[w->n].id = id;
	w->out[w->n].off = off;
	w->out[w->n].ext = ext;
	w->n++;
	return true;
}

/* Capability headers are dword aligned, so one dword read gets id and
 * next pointer (standard) or the whole header (extended). */
static void walk_standard(struct walk *w)
{
	if (w->len < PCI_CAP_PTR + 4)
		return;
	uint16_t status = (uint16_t)(w->rd(w->ctx, PCI_COMMAND) >> 16);
	if (!(status & PCI_STATUS_CAP_LIST))
		return;
	unsigned off = w->rd(w->ctx, PCI_CAP_PTR) & 0xfcu;
	while (off) {
		if (off < PCI_CAP_MIN_OFFSET || off + 4 > w->len || off + 4 > PCI_CFG_SIZE) {
			w->status = PCI_CAPS_RANGE;
			return;
		}
		uint32_t h = w->rd(w->ctx, (uint16_t)off);
		if (!visit(w, (uint16_t)off, (uint8_t)h, false))
			return;
		off = (h >> 8) & 0xfcu;
	}
}

static void walk_extended(struct walk *w)
{
	unsigned off = PCI_ECAP_START;
	/* No extended capabilities: the first header is 0 (PCIe 7.6.3), or
	 * all-ones when nothing answers at that offset. */
	uint32_t h = w->rd(w->ctx, (uint16_t)off);
	if (h == 0 || h == 0xffffffffu)
		return;
	while (off) {
		if (off < PCI_ECAP_START || off + 4 > w->len) {
			w->status = PCI_CAPS_RANGE;
			return;
		}
		h = w->rd(w->ctx, (uint16_t)off);
		if (!visit(w, (uint16_t)off, (uint16_t)PCI_ECAP_ID(h), true))
			return;
		off = PCI_ECAP_NEXT(h);
	}
}

int pci_caps_walk_fn(pci_cfg_read_fn rd, void *ctx, size_t len, struct pci_cap *out, int max, int *status)
{
	static const struct walk zero;
	struct walk w = zero;
	w.rd = rd;
	w.ctx = ctx;
	w.len = len;
	w.out = out;
	w.max = max > 0 ? max : 0;
	walk_standard(&w);
	if (w.status == PCI_CAPS_OK && len >= PCI_CFG_SIZE_EXT)
		walk_extended(&w);
	if (status)
		*status = w.status;
	return w.n;
}

struct blob {
	const uint8_t *p;
};

static uint32_t blob_read(void *ctx, uint16_t off)
{
	const uint8_t *p = ((struct blob *)ctx)->p + off;
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int pci_caps_walk(const uint8_t *cfg, size_t len, struct pci_cap *out, int max, int *status)
{
	struct blob b = { cfg };
	return pci_caps_walk_fn(blob_read, &b, len, out, max, status);
}

uint16_t pci_caps_find(const struct pci_cap *caps, int n, uint16_t id, bool ext)
{
	for (int i = 0; i < n; i++)
		if (caps[i].id == id && caps[i].ext == ext)
			return caps[i].off;
	return 0;
}

const char *pci_caps_strerror(int status)
{
	switch (status) {
	case PCI_CAPS_OK: return "ok";
	case PCI_CAPS_LOOP: return "capability list loops";
	case PCI_CAPS_RANGE: return "capability pointer out of range";
	case PCI_CAPS_FULL: return "too many capabilities";
	default: return "unknown error";
	}
}

const char *pci_cap_name(uint16_t id, bool ext)
{
	if (ext) {
		switch (id) {
		case 0x0001: return "AER";
		case 0x0003: return "DSN";
		case 0x000b: return "VSEC";
		case 0x000d: return "ACS";
		case 0x000e: return "ARI";
		case 0x0010: return "SR-IOV";
		default: return "ext";
		}
	}
	switch (id) {
	case PCI_CAP_ID_PM: return "PM";
	case PCI_CAP_ID_MSI: return "MSI";
	case 0x03: return "VPD";
	case 0x04: return "slot-id";
	case PCI_CAP_ID_VENDOR: return "vendor";
	case 0x0c: return "SHPC";
	case 0x0d: return "SSVID";
	case PCI_CAP_ID_PCIE: return "PCIe";
	case PCI_CAP_ID_MSIX: return "MSI-X";
	case PCI_CAP_ID_SATA: return "SATA";
	case 0x13: return "AF";
	default: return "cap";
	}
}

/* ---- MSI and MSI-X (LB 6.8) ------------------------------------------- */

void pci_msi_layout(uint16_t ctrl, struct pci_msi_layout *l)
{
	l->is64 = (ctrl & PCI_MSI_CTRL_64BIT) != 0;
	l->pvm = (ctrl & PCI_MSI_CTRL_PVM) != 0;
	l->data_off = l->is64 ? 0x0c : 0x08;
	l->mask_off = l->pvm ? (uint8_t)(l->data_off + 4) : 0;
	l->pending_off = l->pvm ? (uint8_t)(l->data_off + 8) : 0;
	unsigned mmc = (ctrl >> PCI_MSI_CTRL_MMC_SHIFT) & 7u;
	l->max_vectors = (uint8_t)(1u << (mmc > 5 ? 5 : mmc));     /* 6, 7 reserved */
}

void pci_msix_decode(uint16_t ctrl, uint32_t table, uint32_t pba, struct pci_msix_info *m)
{
	m->nvec = (uint16_t)((ctrl & PCI_MSIX_CTRL_SIZE_MASK) + 1);
	m->table_bar = (uint8_t)(table & PCI_MSIX_BIR_MASK);
	m->table_off = table & ~PCI_MSIX_BIR_MASK;
	m->pba_bar = (uint8_t)(pba & PCI_MSIX_BIR_MASK);
	m->pba_off = pba & ~PCI_MSIX_BIR_MASK;
}

bool pci_msix_fits(const struct pci_msix_info *m, uint64_t table_bar_size, uint64_t pba_bar_size)
{
	uint64_t tlen = (uint64_t)m->nvec * PCI_MSIX_ENTRY_SIZE;
	uint64_t plen = ((uint64_t)m->nvec + 63) / 64 * 8;
	return m->table_bar < PCI_NUM_BARS && m->pba_bar < PCI_NUM_BARS &&
	       (uint64_t)m->table_off + tlen <= table_bar_size &&
	       (uint64_t)m->pba_off + plen <= pba_bar_size;
}

/* ---- class names (LB appendix D) ------------------------------------ */

static const struct {
	uint8_t cls;
	int16_t sub, progif;            /* -1: any */
	const char *name;
} class_names[] = {
	{ 0x00, -1, -1, "unclassified device" },
	{ 0x01, 0x00, -1, "SCSI controller" },
	{ 0x01, 0x01, -1, "IDE controller" },
	{ 0x01, 0x06, 0x01, "SATA controller (AHCI)" },
	{ 0x01, 0x06, -1, "SATA controller" },
	{ 0x01, 0x08, 0x02, "NVMe controller" },
	{ 0x01, 0x08, -1, "NVM controller" },
	{ 0x01, -1, -1, "storage controller" },
	{ 0x02, 0x00, -1, "Ethernet controller" },
	{ 0x02, -1, -1, "network controller" },
	{ 0x03, 0x00, -1, "VGA controller" },
	{ 0x03, -1, -1, "display controller" },
	{ 0x04, -1, -1, "multimedia controller" },
	{ 0x05, -1, -1, "memory controller" },
	{ 0x06, 0x00, -1, "host bridge" },
	{ 0x06, 0x01, -1, "ISA bridge" },
	{ 0x06, 0x04, -1, "PCI bridge" },
	{ 0x06, -1, -1, "bridge" },
	{ 0x07, -1, -1, "communication controller" },
	{ 0x08, -1, -1, "system peripheral" },
	{ 0x0c, 0x03, 0x00, "USB UHCI controller" },
	{ 0x0c, 0x03, 0x10, "USB OHCI controller" },
	{ 0x0c, 0x03, 0x20, "USB EHCI controller" },
	{ 0x0c, 0x03, 0x30, "USB xHCI controller" },
	{ 0x0c, 0x03, -1, "USB controller" },
	{ 0x0c, 0x05, -1, "SMBus controller" },
	{ 0x0c, -1, -1, "serial bus controller" },
	{ 0xff, -1, -1, "other device" },
};

const char *pci_class_name(uint8_t cls, uint8_t sub, uint8_t progif)
{
	for (size_t i = 0; i < sizeof class_names / sizeof class_names[0]; i++) {
		if (class_names[i].cls != cls)
			continue;
		if (class_names[i].sub >= 0 && class_names[i].sub != sub)
			continue;
		if (class_names[i].progif >= 0 && class_names[i].progif != progif)
			continue;
		return class_names[i].name;
	}
	return "device";
}

/* ---- INTx ------------------------------------------------------------- */

int pci_swizzle(int slot, int pin)
{
	if (pin < 1 || pin > 4 || slot < 0)
		return pin;
	return (pin - 1 + slot) % 4 + 1;
}

/* The ICH9 routes each root-bus slot's INTA..INTD to one of the eight
 * PIRQ lines A..H, and in APIC mode PIRQ n drives IOAPIC input 16 + n.
 * QEMU's q35 (hw/isa/lpc_ich9.c ich9_cc_init/ich9_cc_update, and the _PRT
 * that hw/i386/acpi-build.c generates to match): slots 0..24 rotate over
 * PIRQ E..H by slot + pin; slots 25..31 follow their D<n>IR chipset
 * registers, reset to INTA->PIRQA .. INTD->PIRQD; slot 30 (the DMI-to-PCI
 * bridge) is fixed at INTA->PIRQE .. INTD->PIRQH. */
int pci_q35_intx_gsi(int slot, int pin)
{
	if (pin < 1 || pin > 4 || slot < 0 || slot > 31)
		return -1;
	int i = pin - 1, pirq;
	if (slot == 30)
		pirq = 4 + i;
	else if (slot >= 25)
		pirq = i;
	else
		pirq = 4 + (slot + i) % 4;
	return 16 + pirq;
}
