/*
 * Symbol lookup: binary search over the address-sorted table the build
 * embeds.  Only text addresses have names; an address past the end of the nearest symbol (by its size) is
 * reported as unknown rather than misattributed.
 */
#include "ksyms.h"
#include "mem/layout.h"

int64_t ksym_index(uint64_t addr)
{
	if (addr < (uint64_t)_text_start || addr >= (uint64_t)_text_end)
		return -1;
	uint32_t lo = 0, hi = ksyms_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ksyms_table[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct ksym *s = &ksyms_table[lo - 1];
	if (s->size && addr >= s->addr + s->size)
		return -1;
	return lo - 1;
}

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	int64_t i = ksym_index(addr);
	if (i < 0)
		return 0;
	*offset = addr - ksyms_table[i].addr;
	return &ksyms_names[ksyms_table[i].name];
}
