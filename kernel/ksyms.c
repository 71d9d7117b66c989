/*
 * Symbol lookup: binary search over the address-sorted table the build
 * embeds.  An address past the end of the nearest symbol (by its size) is
 * reported as unknown rather than misattributed.
 */
#include "ksyms.h"

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	uint32_t lo = 0, hi = ksyms_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ksyms_table[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const struct ksym *s = &ksyms_table[lo - 1];
	if (s->size && addr >= s->addr + s->size)
		return 0;
	*offset = addr - s->addr;
	return &ksyms_names[s->name];
}
