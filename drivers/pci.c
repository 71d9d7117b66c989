/*
 * PCI: enumeration, configuration access, BARs, MSI, MSI-X and INTx.
 *
 * Model.  pci_init walks the hierarchy once: bus 0, then, depth first,
 * the secondary bus of every PCI-to-PCI bridge, with the bus numbers the
 * firmware assigned (we renumber nothing and move no BARs).  Each function
 * found becomes a struct pci_dev in a fixed table that never changes
 * afterwards.  BARs are sized at enumeration (all-ones written with
 * decode off, then restored) and capability lists are walked by the pure
 * decoder in pci_decode.c, which reads only the list headers.
 *
 * Config access.  ECAM when the ACPI MCFG table describes segment 0: each
 * bus's 1 MiB window is mapped uncached the first time that bus is
 * touched, so only buses that exist cost page tables.  Otherwise the
 * legacy ports 0xCF8/0xCFC, two port accesses under cf8_lock, which reach
 * only the first 256 bytes of each function.
 *
 * Interrupts.  MSI-X, then MSI, are what drivers should use: they need no
 * routing knowledge at all.  INTx needs the platform's wiring from the
 * interrupt pin to an I/O APIC input; see "INTx on q35" below for what we
 * know and why.
 *
 * Locking: cf8_lock (irqsave) makes each port-I/O config access atomic;
 * ecam_lock serialises mapping bus windows; intx_lock guards the INTx
 * line table.  Lock order: ecam_lock -> kmem's lock (kmem_ioremap);
 * intx_lock -> irq_lock (irq_route_gsi).  cf8_lock nests inside nothing.
 */
#include <string.h>
#include "pci.h"
#include "pci_regs.h"
#include "platform/acpi.h"
#include "core/console.h"
#include "core/record.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "mem/kmem.h"
#include "mem/kmalloc.h"
#include "mem/pgtable.h"
#include "core/spinlock.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/irq.h"

#define PCI_MAX_DEVS    256
#define PCI_MAX_DEPTH   16      /* bridge nesting; real machines use 2-4 */

static struct {
	bool ecam;
	uint64_t ecam_base;             /* address of bus 0's window */
	uint8_t bus_start, bus_end;
	volatile uint8_t *bus_win[256]; /* guarded by ecam_lock for writes */
	int nbuses_mapped;
	struct pci_dev *devs[PCI_MAX_DEVS];     /* written only by pci_init */
	int n;
	int nbuses;
	uint8_t bus_seen[256 / 8];
	bool q35;
	bool inited;
} pci;

static struct spinlock cf8_lock = SPINLOCK_INIT("pci-cf8");
static struct spinlock ecam_lock = SPINLOCK_INIT("pci-ecam");

/* ---- configuration access -------------------------------------------- */

/* The bus's ECAM window, mapped on first use; NULL outside the MCFG range
 * or when mapping fails. */
static volatile uint8_t *ecam_window(uint8_t bus)
{
	if (bus < pci.bus_start || bus > pci.bus_end)
		return NULL;
	volatile uint8_t *w = __atomic_load_n(&pci.bus_win[bus], __ATOMIC_ACQUIRE);
	if (w)
		return w;
	bool on = spin_lock_irqsave(&ecam_lock);
	if (!pci.bus_win[bus]) {
		w = kmem_ioremap(pci.ecam_base + ((uint64_t)bus << 20), PCI_ECAM_BUS_SIZE, PT_UC);
		if (w)
			pci.nbuses_mapped++;
		__atomic_store_n(&pci.bus_win[bus], w, __ATOMIC_RELEASE);
	}
	w = pci.bus_win[bus];
	spin_unlock_irqrestore(&ecam_lock, on);
	return w;
}

static volatile uint8_t *ecam_addr(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	volatile uint8_t *w = ecam_window(bus);
	return w ? w + ((uint32_t)dev << 15 | (uint32_t)fn << 12 | off) : NULL;
}

static uint32_t cf8_addr(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	return PCI_CONF_ENABLE | (uint32_t)bus << 16 | (uint32_t)dev << 11 | (uint32_t)fn << 8 | (off & 0xfc);
}

/* size: 1, 2 or 4 bytes, naturally aligned.  Absent functions and
 * unreachable offsets read as all-ones, like a master abort. */
static uint32_t cfg_read(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, int size)
{
	uint32_t ones = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	if (dev > 31 || fn > 7 || off + size > PCI_CFG_SIZE_EXT || (off & (size - 1)))
		return ones;
	if (pci.ecam) {
		volatile uint8_t *p = ecam_addr(bus, dev, fn, off);
		if (!p)
			return ones;
		if (size == 1)
			return *p;
		return size == 2 ? *(volatile uint16_t *)p : *(volatile uint32_t *)p;
	}
	if (off >= PCI_CFG_SIZE)
		return ones;
	bool on = spin_lock_irqsave(&cf8_lock);
	outl(PCI_CONF_ADDR, cf8_addr(bus, dev, fn, off));
	uint32_t v = inl(PCI_CONF_DATA);
	spin_unlock_irqrestore(&cf8_lock, on);
	return (v >> (8 * (off & 3))) & ones;
}

static void cfg_write(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, int size, uint32_t v)
{
	if (dev > 31 || fn > 7 || off + size > PCI_CFG_SIZE_EXT || (off & (size - 1)))
		return;
	if (pci.ecam) {
		volatile uint8_t *p = ecam_addr(bus, dev, fn, off);
		if (!p)
			return;
		if (size == 1)
			*p = (uint8_t)v;
		else if (size == 2)
			*(volatile uint16_t *)p = (uint16_t)v;
		else
			*(volatile uint32_t *)p = v;
		return;
	}
	if (off >= PCI_CFG_SIZE)
		return;
	bool on = spin_lock_irqsave(&cf8_lock);
	outl(PCI_CONF_ADDR, cf8_addr(bus, dev, fn, off));
	uint16_t port = (uint16_t)(PCI_CONF_DATA + (off & 3));
	if (size == 1)
		outb(port, (uint8_t)v);
	else if (size == 2)
		outw(port, (uint16_t)v);
	else
		outl(port, v);
	spin_unlock_irqrestore(&cf8_lock, on);
}

uint8_t pci_config_read8(const struct pci_dev *d, uint16_t off) { return (uint8_t)cfg_read(d->bus, d->dev, d->fn, off, 1); }
uint16_t pci_config_read16(const struct pci_dev *d, uint16_t off) { return (uint16_t)cfg_read(d->bus, d->dev, d->fn, off, 2); }
uint32_t pci_config_read32(const struct pci_dev *d, uint16_t off) { return cfg_read(d->bus, d->dev, d->fn, off, 4); }
void pci_config_write8(const struct pci_dev *d, uint16_t off, uint8_t v) { cfg_write(d->bus, d->dev, d->fn, off, 1, v); }
void pci_config_write16(const struct pci_dev *d, uint16_t off, uint16_t v) { cfg_write(d->bus, d->dev, d->fn, off, 2, v); }
void pci_config_write32(const struct pci_dev *d, uint16_t off, uint32_t v) { cfg_write(d->bus, d->dev, d->fn, off, 4, v); }

/* Use ECAM when the MCFG has a usable entry for segment 0 (we support no
 * other segment).  The entry's base is where bus 0's window would be even
 * when its first bus is not 0 (PCI Firmware Spec 3.0, 4.1.2). */
static void choose_access(void)
{
	const struct acpi_table *t = acpi_find("MCFG", 0);
	struct acpi_mcfg m;
	int err = t ? acpi_parse_mcfg(t->virt, t->length, &m) : ACPI_ESIG;
	for (int i = 0; !err && i < m.n; i++) {
		if (m.e[i].segment != 0)
			continue;
		pci.ecam = true;
		pci.ecam_base = m.e[i].base;
		pci.bus_start = m.e[i].bus_start;
		pci.bus_end = m.e[i].bus_end;
		return;
	}
	kprintf("pci: %s: using legacy port I/O config access (0xCF8/0xCFC, 256 bytes per function)\n",
		!t ? "no MCFG table" : err ? "MCFG table invalid" : "MCFG has no segment 0");
}

/* ---- enumeration ----------------------------------------------------- */

/* Size the BARs: all-ones into each slot with I/O and memory decode off
 * (so the device never decodes a half-written address), read back, put
 * the original value back, then restore the command register. */
static void probe_bars(struct pci_dev *d)
{
	uint32_t raw[PCI_NUM_BARS], mask[PCI_NUM_BARS];
	uint16_t cmd = pci_config_read16(d, PCI_COMMAND);
	bool decoding = cmd & (PCI_CMD_IO | PCI_CMD_MEM);
	/* Each decode change remaps the BARs (a few hundred microseconds
	 * under QEMU's TCG): only when decode is on. */
	if (decoding)
		pci_config_write16(d, PCI_COMMAND, cmd & ~(PCI_CMD_IO | PCI_CMD_MEM));
	for (int i = 0; i < d->nbars; i++) {
		uint16_t off = (uint16_t)(PCI_BAR0 + 4 * i);
		raw[i] = pci_config_read32(d, off);
		pci_config_write32(d, off, 0xffffffffu);
		mask[i] = pci_config_read32(d, off);
		pci_config_write32(d, off, raw[i]);
	}
	if (decoding)
		pci_config_write16(d, PCI_COMMAND, cmd);
	pci_bars_decode(raw, mask, d->nbars, d->bar);
}

static uint32_t caps_read(void *ctx, uint16_t off) { return pci_config_read32(ctx, off); }

/* Walk the capability lists in place (reading only the headers); the
 * extended list (PCIe 7.6) only for PCIe functions reached through ECAM. */
static void probe_caps(struct pci_dev *d)
{
	d->ncaps = pci_caps_walk_fn(caps_read, d, PCI_CFG_SIZE, d->caps, PCI_MAX_CAPS, &d->caps_status);
	if (pci.ecam && !d->caps_status && pci_caps_find(d->caps, d->ncaps, PCI_CAP_ID_PCIE, false))
		d->ncaps = pci_caps_walk_fn(caps_read, d, PCI_CFG_SIZE_EXT, d->caps, PCI_MAX_CAPS,
					    &d->caps_status);
	if (d->caps_status)
		kprintf("pci %s: %s after %d entries\n", d->name, pci_caps_strerror(d->caps_status), d->ncaps);
	d->msi_cap = pci_caps_find(d->caps, d->ncaps, PCI_CAP_ID_MSI, false);
	d->msix_cap = pci_caps_find(d->caps, d->ncaps, PCI_CAP_ID_MSIX, false);
	d->pcie_cap = pci_caps_find(d->caps, d->ncaps, PCI_CAP_ID_PCIE, false);
	if (d->msix_cap)
		d->msix_nvec = (uint16_t)((pci_config_read16(d, d->msix_cap + PCI_MSIX_CTRL) &
					   PCI_MSIX_CTRL_SIZE_MASK) + 1);
}

static struct pci_dev *add_function(uint8_t bus, uint8_t dev, uint8_t fn, struct pci_dev *parent)
{
	if (pci.n == PCI_MAX_DEVS) {
		kprintf("pci: more than %d functions; ignoring %02x:%02x.%x\n", PCI_MAX_DEVS, bus, dev, fn);
		return NULL;
	}
	struct pci_dev *d = kzalloc(sizeof *d);
	if (!d) {
		kprintf("pci: out of memory at %02x:%02x.%x\n", bus, dev, fn);
		return NULL;
	}
	d->bus = bus, d->dev = dev, d->fn = fn;
	d->parent = parent;
	ksnprintf(d->name, sizeof d->name, "%02x:%02x.%x", bus, dev, fn);
	uint32_t id = pci_config_read32(d, PCI_VENDOR_ID), cls = pci_config_read32(d, PCI_REVISION_ID);
	d->vendor = (uint16_t)id, d->device = (uint16_t)(id >> 16);
	d->revision = (uint8_t)cls, d->progif = (uint8_t)(cls >> 8);
	d->subclass = (uint8_t)(cls >> 16), d->cls = (uint8_t)(cls >> 24);
	d->header = pci_config_read8(d, PCI_HEADER_TYPE) & PCI_HEADER_LAYOUT;
	d->irq_line = pci_config_read8(d, PCI_INTERRUPT_LINE);
	d->irq_pin = pci_config_read8(d, PCI_INTERRUPT_PIN);
	d->nbars = d->header == PCI_HEADER_NORMAL ? PCI_NUM_BARS :
		   d->header == PCI_HEADER_BRIDGE ? PCI_NUM_BARS_BRIDGE : 0;
	d->msi_vector = d->intx_vector = d->intx_gsi = -1;
	probe_bars(d);
	probe_caps(d);
	d->index = pci.n;
	pci.devs[pci.n++] = d;
	return d;
}

static void scan_bus(uint8_t bus, struct pci_dev *parent, int depth);

static void scan_bridge(struct pci_dev *d, int depth)
{
	d->secondary = pci_config_read8(d, PCI_SECONDARY_BUS);
	d->subordinate = pci_config_read8(d, PCI_SUBORDINATE_BUS);
	/* Firmware numbers buses depth first, each secondary bus above its
	 * bridge's own; anything else is unconfigured or broken, and
	 * following it could loop. */
	if (d->secondary <= d->bus || d->subordinate < d->secondary) {
		kprintf("pci %s: bridge with bus range %u-%u not configured; not scanned\n", d->name,
			d->secondary, d->subordinate);
		return;
	}
	if (depth >= PCI_MAX_DEPTH) {
		kprintf("pci %s: bridges nested deeper than %d; not scanned\n", d->name, PCI_MAX_DEPTH);
		return;
	}
	scan_bus(d->secondary, d, depth + 1);
}

static void scan_slot(uint8_t bus, uint8_t dev, struct pci_dev *parent, int depth)
{
	if ((uint16_t)cfg_read(bus, dev, 0, PCI_VENDOR_ID, 2) == 0xffff)
		return;
	bool multi = cfg_read(bus, dev, 0, PCI_HEADER_TYPE, 1) & PCI_HEADER_MULTIFN;
	for (uint8_t fn = 0; fn < (multi ? 8 : 1); fn++) {
		if ((uint16_t)cfg_read(bus, dev, fn, PCI_VENDOR_ID, 2) == 0xffff)
			continue;
		struct pci_dev *d = add_function(bus, dev, fn, parent);
		if (d && d->header == PCI_HEADER_BRIDGE)
			scan_bridge(d, depth);
	}
}

static void scan_bus(uint8_t bus, struct pci_dev *parent, int depth)
{
	if (pci.bus_seen[bus / 8] & (1u << (bus % 8))) {
		kprintf("pci: bus %02x reached twice; firmware bus numbering is broken\n", bus);
		return;
	}
	pci.bus_seen[bus / 8] |= (uint8_t)(1u << (bus % 8));
	pci.nbuses++;
	for (uint8_t dev = 0; dev < 32; dev++)
		scan_slot(bus, dev, parent, depth);
}

/* QEMU's q35: its MCH and ICH9 LPC at their fixed places, carrying
 * QEMU's default subsystem id (Red Hat 1af4:1100).  Real Q35/ICH9 boards
 * have the same device ids but board-specific INTx wiring. */
static bool is_q35(void)
{
	struct pci_dev *mch = pci_find_id(0x8086, 0x29c0, NULL);
	struct pci_dev *lpc = pci_find_id(0x8086, 0x2918, NULL);
	return mch && lpc && mch->bus == 0 && mch->dev == 0 && lpc->bus == 0 && lpc->dev == 31 &&
	       pci_config_read32(mch, PCI_SUBSYS_VENDOR_ID) == 0x11001af4u;
}

void pci_init(void)
{
	if (pci.inited)
		return;
	pci.inited = true;
	choose_access();
	scan_bus(pci.ecam ? pci.bus_start : 0, NULL, 0);
	pci.q35 = is_q35();
}

/* ---- lookup ------------------------------------------------------------ */

int pci_count(void) { return pci.n; }

struct pci_dev *pci_at(int i) { return i >= 0 && i < pci.n ? pci.devs[i] : NULL; }

struct pci_dev *pci_find_class(uint8_t cls, int sub, int progif, struct pci_dev *from)
{
	for (int i = from ? from->index + 1 : 0; i < pci.n; i++) {
		struct pci_dev *d = pci.devs[i];
		if (d->cls == cls && (sub < 0 || d->subclass == sub) && (progif < 0 || d->progif == progif))
			return d;
	}
	return NULL;
}

struct pci_dev *pci_find_id(uint16_t vendor, uint16_t device, struct pci_dev *from)
{
	for (int i = from ? from->index + 1 : 0; i < pci.n; i++)
		if (pci.devs[i]->vendor == vendor && pci.devs[i]->device == device)
			return pci.devs[i];
	return NULL;
}

uint16_t pci_find_cap(const struct pci_dev *d, uint8_t id) { return pci_caps_find(d->caps, d->ncaps, id, false); }

/* ---- command register, BARs ------------------------------------------- */

static void update_command(struct pci_dev *d, uint16_t clear, uint16_t set)
{
	uint16_t cmd = pci_config_read16(d, PCI_COMMAND);
	pci_config_write16(d, PCI_COMMAND, (uint16_t)((cmd & ~clear) | set));
}

void pci_enable(struct pci_dev *d, bool mem, bool io, bool bus_master)
{
	uint16_t set = (uint16_t)((mem ? PCI_CMD_MEM : 0) | (io ? PCI_CMD_IO : 0) | (bus_master ? PCI_CMD_MASTER : 0));
	update_command(d, PCI_CMD_MEM | PCI_CMD_IO | PCI_CMD_MASTER, set);
}

void pci_intx_disable(struct pci_dev *d, bool disable)
{
	update_command(d, disable ? 0 : PCI_CMD_INTX_DISABLE, disable ? PCI_CMD_INTX_DISABLE : 0);
}

/* OVMF puts 64-bit BARs above 4 GiB (0xE0_0000_0000 and up) where the
 * memory map has no entry: map whatever address the BAR holds. */
void *pci_map_bar(struct pci_dev *d, int i)
{
	if (i < 0 || i >= d->nbars || d->bar[i].kind == PCI_BAR_NONE) {
		kprintf("pci %s: BAR%d is not implemented\n", d->name, i);
		return NULL;
	}
	const struct pci_bar *b = &d->bar[i];
	if (b->kind == PCI_BAR_IO) {
		kprintf("pci %s: BAR%d is I/O space (port 0x%lx); use port I/O, not a mapping\n", d->name, i, b->base);
		return NULL;
	}
	if (!b->base) {
		kprintf("pci %s: BAR%d was not assigned an address by the firmware\n", d->name, i);
		return NULL;
	}
	if (!d->bar_virt[i]) {
		d->bar_virt[i] = kmem_ioremap(b->base, b->size, PT_UC);
		if (!d->bar_virt[i])
			kprintf("pci %s: cannot map BAR%d (0x%lx, %lu bytes)\n", d->name, i, b->base, b->size);
	}
	return d->bar_virt[i];
}

/* ---- MSI (LB 6.8.1) ----------------------------------------------------- */

void pci_msi_disable(struct pci_dev *d)
{
	if (!d->msi_cap)
		return;
	uint16_t ctrl = pci_config_read16(d, d->msi_cap + PCI_MSI_CTRL);
	pci_config_write16(d, d->msi_cap + PCI_MSI_CTRL, ctrl & ~PCI_MSI_CTRL_ENABLE);
	d->msi_vector = -1;
}

int pci_msi_enable(struct pci_dev *d, int vector)
{
	if (!d->msi_cap)
		return -ENODEV;
	if (vector < IRQ_VEC_FIRST || vector > IRQ_VEC_LAST)
		return -EINVAL;
	uint16_t cap = d->msi_cap, ctrl = pci_config_read16(d, cap + PCI_MSI_CTRL);
	struct pci_msi_layout l;
	pci_msi_layout(ctrl, &l);
	uint64_t addr;
	uint32_t data;
	irq_msi_message(vector, &addr, &data);
	if (!l.is64 && (addr >> 32))
		return -EINVAL;
	pci_msix_disable(d);
	/* Off while the message changes, one vector (MME = 0). */
	ctrl &= (uint16_t)~(PCI_MSI_CTRL_ENABLE | PCI_MSI_CTRL_MME_MASK);
	pci_config_write16(d, cap + PCI_MSI_CTRL, ctrl);
	pci_config_write32(d, cap + PCI_MSI_ADDR_LO, (uint32_t)addr);
	if (l.is64)
		pci_config_write32(d, cap + PCI_MSI_ADDR_HI, (uint32_t)(addr >> 32));
	pci_config_write16(d, cap + l.data_off, (uint16_t)data);
	if (l.pvm)
		pci_config_write32(d, cap + l.mask_off, ~1u);   /* vector 0 open, the rest masked */
	/* The message is a memory write by the device: without bus mastering
	 * it is never sent (QEMU drops it too). */
	update_command(d, 0, PCI_CMD_MASTER | PCI_CMD_INTX_DISABLE);
	pci_config_write16(d, cap + PCI_MSI_CTRL, ctrl | PCI_MSI_CTRL_ENABLE);
	d->msi_vector = vector;
	return 0;
}

int pci_msi_mask(struct pci_dev *d, bool masked)
{
	if (!d->msi_cap)
		return -ENODEV;
	struct pci_msi_layout l;
	pci_msi_layout(pci_config_read16(d, d->msi_cap + PCI_MSI_CTRL), &l);
	if (!l.pvm)
		return -EOPNOTSUPP;
	uint32_t m = pci_config_read32(d, d->msi_cap + l.mask_off);
	pci_config_write32(d, d->msi_cap + l.mask_off, masked ? m | 1u : m & ~1u);
	return 0;
}

/* ---- MSI-X (LB 6.8.2) --------------------------------------------------- */

static volatile uint32_t *msix_entry(struct pci_dev *d, int i)
{
	return (volatile uint32_t *)(d->msix_table + (size_t)i * PCI_MSIX_ENTRY_SIZE);
}

void pci_msix_disable(struct pci_dev *d)
{
	if (!d->msix_cap)
		return;
	uint16_t ctrl = pci_config_read16(d, d->msix_cap + PCI_MSIX_CTRL);
	pci_config_write16(d, d->msix_cap + PCI_MSIX_CTRL, ctrl & ~PCI_MSIX_CTRL_ENABLE);
	d->msix_used = 0;
}

/* Map the table; -EIO when it does not lie inside a memory BAR. */
static int msix_map_table(struct pci_dev *d, struct pci_msix_info *m)
{
	pci_msix_decode(pci_config_read16(d, d->msix_cap + PCI_MSIX_CTRL),
			pci_config_read32(d, d->msix_cap + PCI_MSIX_TABLE),
			pci_config_read32(d, d->msix_cap + PCI_MSIX_PBA), m);
	uint64_t tsize = m->table_bar < d->nbars && d->bar[m->table_bar].kind != PCI_BAR_IO ? d->bar[m->table_bar].size : 0;
	uint64_t psize = m->pba_bar < d->nbars && d->bar[m->pba_bar].kind != PCI_BAR_IO ? d->bar[m->pba_bar].size : 0;
	if (!pci_msix_fits(m, tsize, psize)) {
		kprintf("pci %s: MSI-X table (BAR%u+0x%x, %u entries) lies outside its BAR\n", d->name,
			m->table_bar, m->table_off, m->nvec);
		return -EIO;
	}
	uint8_t *bar = pci_map_bar(d, m->table_bar);
	if (!bar)
		return -ENOMEM;
	d->msix_table = bar + m->table_off;
	return 0;
}

int pci_msix_enable(struct pci_dev *d, int nvec, const int *vectors, const uint32_t *apics)
{
	if (!d->msix_cap)
		return -ENODEV;
	struct pci_msix_info m;
	int err = msix_map_table(d, &m);
	if (err)
		return err;
	if (nvec < 1 || nvec > m.nvec)
		return -EINVAL;
	pci_msi_disable(d);
	/* The table is in memory space; the messages are bus-master writes. */
	update_command(d, 0, PCI_CMD_MEM | PCI_CMD_MASTER | PCI_CMD_INTX_DISABLE);
	uint16_t cap = d->msix_cap, ctrl = pci_config_read16(d, cap + PCI_MSIX_CTRL);
	/* Program the entries with the whole function masked (LB 6.8.2.6). */
	pci_config_write16(d, cap + PCI_MSIX_CTRL, ctrl | PCI_MSIX_CTRL_ENABLE | PCI_MSIX_CTRL_MASKALL);
	for (int i = 0; i < m.nvec; i++) {
		volatile uint32_t *e = msix_entry(d, i);
		e[PCI_MSIX_ENTRY_CTRL / 4] |= PCI_MSIX_ENTRY_MASKED;
		if (i >= nvec)
			continue;
		uint64_t addr;
		uint32_t data;
		if (apics)
			irq_msi_message_to(vectors[i], apics[i], &addr, &data);
		else
			irq_msi_message(vectors[i], &addr, &data);
		e[PCI_MSIX_ENTRY_ADDR_LO / 4] = (uint32_t)addr;
		e[PCI_MSIX_ENTRY_ADDR_HI / 4] = (uint32_t)(addr >> 32);
		e[PCI_MSIX_ENTRY_DATA / 4] = data;
		e[PCI_MSIX_ENTRY_CTRL / 4] &= ~PCI_MSIX_ENTRY_MASKED;
	}
	(void)msix_entry(d, 0)[PCI_MSIX_ENTRY_CTRL / 4];        /* flush posted writes */
	pci_config_write16(d, cap + PCI_MSIX_CTRL, (ctrl | PCI_MSIX_CTRL_ENABLE) & ~PCI_MSIX_CTRL_MASKALL);
	d->msix_used = nvec;
	return 0;
}

void pci_msix_mask(struct pci_dev *d, int entry, bool masked)
{
	if (!d->msix_table || entry < 0 || entry >= d->msix_nvec)
		return;
	volatile uint32_t *c = &msix_entry(d, entry)[PCI_MSIX_ENTRY_CTRL / 4];
	*c = masked ? *c | PCI_MSIX_ENTRY_MASKED : *c & ~PCI_MSIX_ENTRY_MASKED;
	(void)*c;
}

/* ---- INTx --------------------------------------------------------------
 *
 * INTx on q35.  The Interrupt Line register holds what OVMF programmed
 * for PIC mode: the ICH9's PIRQx_ROUT registers steer PIRQ A..H to ISA
 * IRQs 10 and 11, and Interrupt Line says which.  That is the 8259's
 * view.  In APIC mode the ICH9 wires PIRQ A..H to I/O APIC inputs 16..23
 * regardless of PIRQx_ROUT (QEMU: hw/isa/lpc_ich9.c ich9_lpc_set_irq
 * always drives GSI 16 + pirq; ich9_lpc_update_pic drives the PIC input
 * only when routed), and which PIRQ a slot's pin reaches is fixed by the
 * chipset (pci_q35_intx_gsi; the same table QEMU's generated ACPI _PRT
 * gives an OS that parses it).  So on q35 we use GSI 16 + pirq, level
 * triggered, active high, as QEMU's DSDT link devices (GSIA..GSIH)
 * declare them.  Behind bridges the pin is swizzled at each level (BR
 * 9.1) up to the root-bus slot.
 *
 * Checked with the edu device (test=intx, tests/qemu/cases.py): 00:02.0
 * INTA arrives on GSI 22, two edus at slots 2 and 6 share GSI 22, an edu
 * at slot 3 behind a PCI-PCI bridge in slot 2 arrives on GSI 21; in a
 * one-off run a deliberately wrong GSI lost every interrupt.  What QEMU
 * cannot tell us: its I/O APIC ignores the polarity bit (active-low was
 * delivered just as well), and it also copies the PIC-routed IRQ (the
 * Interrupt Line, 10/11) to I/O APIC inputs 10/11, so routing that works
 * under QEMU too; but that is the 8259 path, not what the chipset
 * promises.
 *
 * Elsewhere the wiring is in the firmware's ACPI _PRT (AML), which we
 * do not parse.  As a guess we then take Interrupt Line as an ISA IRQ
 * through the MADT overrides, which is right on chipsets that copy PIC
 * routing to the I/O APIC (QEMU's i440fx does: checked with edu, GSI 11)
 * and may be wrong on real PCs (real ICH9 boards, for one, describe
 * PIRQ inputs as active-low).  Hence: prefer MSI-X/MSI, which every PCIe
 * device has.
 */

int pci_intx_gsi(const struct pci_dev *d, bool *level, bool *active_low)
{
	int pin = d->irq_pin, slot = d->dev;
	if (pin < 1 || pin > 4)
		return -ENODEV;
	for (const struct pci_dev *p = d->parent; p; p = p->parent) {
		pin = pci_swizzle(slot, pin);
		slot = p->dev;
	}
	if (pci.q35) {
		*level = true;
		*active_low = false;
		return pci_q35_intx_gsi(slot, pin);
	}
	/* Firmware writes Interrupt Line after its own routing, swizzle
	 * included, so this holds for functions behind bridges too. */
	if (d->irq_line == 0 || d->irq_line >= 16)
		return -ENODEV;
	return (int)irq_isa_to_gsi(d->irq_line, level, active_low);
}

#define INTX_LINES  8
#define INTX_SHARE  4

/* One I/O APIC input with the handlers of the functions that share it. */
static struct intx_line {
	int gsi, vector;
	int n;                                  /* published with release */
	struct { irq_handler_fn fn; void *arg; } h[INTX_SHARE];
} intx_lines[INTX_LINES];                       /* guarded by intx_lock */
static int intx_nlines;
static struct spinlock intx_lock = SPINLOCK_INIT("pci-intx");

static void intx_demux(struct trap_frame *f, void *arg)
{
	struct intx_line *l = arg;
	int n = __atomic_load_n(&l->n, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++)
		l->h[i].fn(f, l->h[i].arg);
}

/* Add a handler to the line for gsi, routing the line on first use.
 * Returns the vector or an error.  intx_lock held. */
static int intx_attach(int gsi, bool level, bool low, const char *name, irq_handler_fn fn, void *arg)
{
	struct intx_line *l = NULL;
	for (int i = 0; i < intx_nlines; i++)
		if (intx_lines[i].gsi == gsi)
			l = &intx_lines[i];
	if (!l && intx_nlines == INTX_LINES)
		return -ENOSPC;
	if (l && l->n == INTX_SHARE)
		return -ENOSPC;
	if (!l) {
		l = &intx_lines[intx_nlines];
		l->gsi = gsi;
		l->h[0].fn = fn, l->h[0].arg = arg;
		l->n = 1;
		l->vector = irq_route_gsi((uint32_t)gsi, level, low, name, intx_demux, l);
		if (l->vector < 0)
			return l->vector;
		intx_nlines++;
		return l->vector;
	}
	l->h[l->n].fn = fn, l->h[l->n].arg = arg;
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
	return l->vector;
}

int pci_intx_route(struct pci_dev *d, irq_handler_fn fn, void *arg, const char *name)
{
	bool level, low;
	int gsi = pci_intx_gsi(d, &level, &low);
	if (gsi < 0) {
		kprintf("pci %s: no known INTx route (pin %u, line %u); use MSI\n", d->name, d->irq_pin, d->irq_line);
		return -ENODEV;
	}
	pci_msi_disable(d);
	pci_msix_disable(d);
	bool on = spin_lock_irqsave(&intx_lock);
	int v = intx_attach(gsi, level, low, name, fn, arg);
	spin_unlock_irqrestore(&intx_lock, on);
	if (v < 0)
		return v;
	d->intx_vector = v;
	d->intx_gsi = gsi;
	pci_intx_disable(d, false);
	return v;
}

/* ---- report ------------------------------------------------------------- */

static const char *fmt_size(char *buf, size_t cap, uint64_t n)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	while (u < 4 && n >= 1024 && !(n & 1023))
		n >>= 10, u++;
	ksnprintf(buf, cap, "%lu %s", n, unit[u]);
	return buf;
}

static void print_function(const struct pci_dev *d)
{
	kprintf("  %s %04x:%04x %02x.%02x.%02x %s", d->name, d->vendor, d->device, d->cls, d->subclass,
		d->progif, pci_class_name(d->cls, d->subclass, d->progif));
	if (d->header == PCI_HEADER_BRIDGE)
		kprintf(", buses %02x-%02x", d->secondary, d->subordinate);
	if (d->irq_pin)
		kprintf(", INT%c (line %u)", 'A' + d->irq_pin - 1, d->irq_line);
	if (d->ncaps)
		kprintf(", caps");
	for (int i = 0; i < d->ncaps; i++) {
		const struct pci_cap *c = &d->caps[i];
		if (c->ext == false && c->id == PCI_CAP_ID_MSIX)
			kprintf(" MSI-X(%u)", d->msix_nvec);
		else
			kprintf(" %s", pci_cap_name(c->id, c->ext));
	}
	kprintf("\n");
	char sz[24];
	for (int i = 0; i < d->nbars; i++) {
		const struct pci_bar *b = &d->bar[i];
		if (b->kind != PCI_BAR_NONE)
			kprintf("      BAR%d %-5s 0x%012lx %s%s\n", i, pci_bar_kind_name(b->kind), b->base,
				fmt_size(sz, sizeof sz, b->size), b->prefetch ? " prefetchable" : "");
	}
}

/* One function of the record.  Without detail (a machine with so many
 * functions that the record would not fit): identity only. */
static void record_function(struct json *j, const struct pci_dev *d, bool detail)
{
	json_obj_begin(j, NULL);
	json_str(j, "bdf", d->name);
	char hex[12];
	ksnprintf(hex, sizeof hex, "0x%04x", d->vendor);
	json_str(j, "vendor", hex);
	ksnprintf(hex, sizeof hex, "0x%04x", d->device);
	json_str(j, "device", hex);
	ksnprintf(hex, sizeof hex, "0x%02x%02x%02x", d->cls, d->subclass, d->progif);
	json_str(j, "class", hex);
	if (!detail) {
		json_obj_end(j);
		return;
	}
	json_u64(j, "rev", d->revision);
	json_u64(j, "irq_pin", d->irq_pin);
	json_u64(j, "irq_line", d->irq_line);
	json_arr_begin(j, "bars");
	for (int i = 0; i < d->nbars; i++) {
		const struct pci_bar *b = &d->bar[i];
		if (b->kind == PCI_BAR_NONE)
			continue;
		json_obj_begin(j, NULL);
		json_u64(j, "bar", (uint64_t)i);
		json_str(j, "type", pci_bar_kind_name(b->kind));
		json_hex(j, "base", b->base);
		json_u64(j, "size", b->size);
		json_bool(j, "prefetch", b->prefetch);
		json_obj_end(j);
	}
	json_arr_end(j);
	/* Capability ids in list order; extended ones as 0x10000 | id. */
	json_arr_begin(j, "caps");
	for (int i = 0; i < d->ncaps; i++)
		json_hex(j, NULL, d->caps[i].ext ? 0x10000u | d->caps[i].id : d->caps[i].id);
	json_arr_end(j);
	json_bool(j, "msi", d->msi_cap != 0);
	if (d->msix_cap)
		json_u64(j, "msix", d->msix_nvec);
	else
		json_null(j, "msix");
	json_bool(j, "pcie", d->pcie_cap != 0);
	json_obj_end(j);
}

/* The devices array, into buf; false when it does not fit. */
static bool record_devices(char *buf, size_t cap, bool detail)
{
	struct json j;
	json_init(&j, buf, cap);
	json_arr_begin(&j, NULL);
	for (int i = 0; i < pci.n; i++)
		record_function(&j, pci.devs[i], detail);
	json_arr_end(&j);
	return !j.overflow;
}

#define PCI_RECORD_MAX 15000    /* what fits in a record (record.c: 16 KiB) */

void pci_report(void)
{
	const char *buses = pci.nbuses == 1 ? "bus" : "buses";
	if (pci.ecam)
		kprintf("pci: %d functions on %d %s; ECAM at 0x%lx for buses %02x-%02x (%d mapped)%s\n", pci.n,
			pci.nbuses, buses, pci.ecam_base, pci.bus_start, pci.bus_end, pci.nbuses_mapped,
			pci.q35 ? ", q35 chipset" : "");
	else
		kprintf("pci: %d functions on %d %s; port I/O config access%s\n", pci.n, pci.nbuses, buses,
			pci.q35 ? ", q35 chipset" : "");
	for (int i = 0; i < pci.n; i++)
		print_function(pci.devs[i]);
	/* Built first, outside the record lock; about 300 bytes a function
	 * in detail, so a big machine's list is cut to identities. */
	char *buf = kmalloc(PCI_RECORD_MAX);
	bool detail = buf && record_devices(buf, PCI_RECORD_MAX, true);
	if (buf && !detail && !record_devices(buf, PCI_RECORD_MAX, false))
		ksnprintf(buf, PCI_RECORD_MAX, "[]");
	struct json *j = rec_begin("pci");
	json_str(j, "access", pci.ecam ? "ecam" : "cf8");
	if (pci.ecam)
		json_hex(j, "ecam_base", pci.ecam_base);
	json_u64(j, "buses", (uint64_t)pci.nbuses);
	json_u64(j, "functions", (uint64_t)pci.n);
	json_bool(j, "q35", pci.q35);
	json_bool(j, "detail", detail);
	json_raw(j, "devices", buf ? buf : "[]");
	rec_end();
	kfree(buf);
}
