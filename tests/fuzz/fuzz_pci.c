/* libFuzzer target: the PCI capability walker on arbitrary config spaces
 * (the input, exactly as long as it is: 256- and 4096-byte inputs are the
 * real shapes, other lengths test the bounds checks), plus BAR decoding
 * of its first 48 bytes.  Checks: the walk stays inside the blob, never
 * visits an offset twice, and BAR sizes are powers of two. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "pci_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	uint8_t *cfg = malloc(size ? size : 1);         /* exact size: ASan sees overreads */
	memcpy(cfg, data, size);
	struct pci_cap c[PCI_MAX_CAPS];
	int st;
	int n = pci_caps_walk(cfg, size, c, PCI_MAX_CAPS, &st);
	if (n < 0 || n > PCI_MAX_CAPS || (st == PCI_CAPS_FULL && n != PCI_MAX_CAPS))
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		if (c[i].ext ? c[i].off < 0x100 || c[i].off + 4u > size : c[i].off < 0x40 || c[i].off + 4u > 256 || c[i].off + 4u > size)
			__builtin_trap();
		for (int j = 0; j < i; j++)
			if (c[j].off == c[i].off)
				__builtin_trap();
	}
	pci_caps_find(c, n, data[0 % (size ? size : 1)], false);
	if (size >= 48) {
		uint32_t raw[6], mask[6];
		struct pci_bar b[6];
		memcpy(raw, cfg, sizeof raw);
		memcpy(mask, cfg + 24, sizeof mask);
		int used = pci_bars_decode(raw, mask, 6, b);
		for (int i = 0; i < 6; i++)
			if (b[i].size & (b[i].size - 1) || (b[i].kind == PCI_BAR_NONE) != (b[i].size == 0))
				__builtin_trap();
		if (used < 0 || used > 6)
			__builtin_trap();
		struct pci_msix_info m;
		struct pci_msi_layout l;
		pci_msix_decode((uint16_t)raw[0], raw[1], raw[2], &m);
		pci_msix_fits(&m, b[0].size, b[1].size);
		pci_msi_layout((uint16_t)raw[3], &l);
	}
	free(cfg);
	return 0;
}
