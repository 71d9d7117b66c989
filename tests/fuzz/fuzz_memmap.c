/* libFuzzer target: memory-map normalisation on arbitrary region lists.
 * Checks the output invariants: sorted, non-overlapping, page aligned,
 * usable bytes never grow under a cap. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "mem/memmap.h"

static struct memmap m;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct boot_mem_region in[64];
	size_t n = size / sizeof in[0];
	if (n > 64)
		n = 64;
	memcpy(in, data, n * sizeof in[0]);
	if (memmap_build(in, (int)n, &m, NULL, NULL) < 0)
		return 0;
	for (int i = 0; i < m.n; i++) {
		if (m.r[i].start >= m.r[i].end || (m.r[i].start & 4095))
			__builtin_trap();
		if (m.r[i].type == MEMMAP_FREE && (m.r[i].end & 4095))
			__builtin_trap();
		if (i && m.r[i].start < m.r[i - 1].end)
			__builtin_trap();
	}
	uint64_t before = m.usable, cap = size ? (uint64_t)data[0] << 20 : 0;
	if (memmap_cap(&m, cap) > before || m.usable > (cap & ~4095ull))
		__builtin_trap();
	return 0;
}
