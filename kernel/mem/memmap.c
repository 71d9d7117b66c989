/*
 * Memory-map normalisation.
 *
 * The firmware's map is a list of (base, pages, type).  Nothing promises it
 * is sorted (q35 with 4 GiB lists the high RAM first) or free of overlaps.
 * We cut the address space at every region boundary; each elementary piece
 * takes the most restrictive type of the regions covering it; neighbouring
 * pieces of the same type merge.  O(n^2) in the region count, which is a
 * few hundred at most, and runs once at boot.
 */
#include <string.h>
#include "memmap.h"
#include "lib/printf.h"

/* Higher rank wins an overlap. */
static int rank(uint32_t t)
{
	switch (t) {
	case MEMMAP_FREE: return 1;
	case BOOT_MEM_BOOTDATA: return 3;
	case BOOT_MEM_KERNEL: return 4;
	case BOOT_MEM_RUNTIME: return 5;
	case BOOT_MEM_ACPI_RECLAIM: return 6;
	case BOOT_MEM_ACPI_NVS: return 7;
	case BOOT_MEM_PERSISTENT: return 8;
	case BOOT_MEM_MMIO: return 9;
	case BOOT_MEM_RESERVED: return 10;
	case BOOT_MEM_BAD: return 11;
	default: return 10;     /* unknown types are treated as reserved */
	}
}

static uint32_t classify(uint32_t t)
{
	if (t == BOOT_MEM_USABLE || t == BOOT_MEM_BOOT_SERVICES || t == BOOT_MEM_LOADER)
		return MEMMAP_FREE;
	if (t == 0 || t >= BOOT_MEM_NTYPES)
		return BOOT_MEM_RESERVED;
	return t;
}

bool memmap_is_ram(uint32_t t)
{
	switch (t) {
	case MEMMAP_FREE: case MEMMAP_CAPPED: case MEMMAP_LOWRES: case BOOT_MEM_KERNEL: case BOOT_MEM_BOOTDATA:
	case BOOT_MEM_RUNTIME: case BOOT_MEM_ACPI_RECLAIM: case BOOT_MEM_ACPI_NVS:
		return true;
	default:
		return false;
	}
}

const char *memmap_type_name(uint32_t t)
{
	switch (t) {
	case MEMMAP_FREE: return "usable";
	case MEMMAP_CAPPED: return "usable (withheld by mem=)";
	case MEMMAP_LOWRES: return "low reserve (AP trampoline)";
	case BOOT_MEM_KERNEL: return "kernel";
	case BOOT_MEM_BOOTDATA: return "boot data";
	case BOOT_MEM_RUNTIME: return "UEFI runtime";
	case BOOT_MEM_ACPI_RECLAIM: return "ACPI tables";
	case BOOT_MEM_ACPI_NVS: return "ACPI NVS";
	case BOOT_MEM_MMIO: return "MMIO";
	case BOOT_MEM_PERSISTENT: return "persistent";
	case BOOT_MEM_BAD: return "bad";
	default: return "reserved";
	}
}

static void say(memmap_report_fn rep, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(memmap_report_fn rep, void *ctx, const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (rep)
		rep(ctx, buf);
}

/* One input region clipped to page granularity: usable memory shrinks
 * inward (never hand out a partial page), everything else grows outward. */
static bool clip(const struct boot_mem_region *r, uint64_t *s, uint64_t *e, uint32_t *t)
{
	*t = classify(r->type);
	if (r->pages == 0 || r->pages > (UINT64_MAX - r->base) / MEMMAP_PAGE)
		return false;
	*s = r->base;
	*e = r->base + r->pages * MEMMAP_PAGE;
	if (*t == MEMMAP_FREE) {
		*s = (*s + MEMMAP_PAGE - 1) & ~(MEMMAP_PAGE - 1);
		*e &= ~(MEMMAP_PAGE - 1);
	} else {
		*s &= ~(MEMMAP_PAGE - 1);
		if (*e > UINT64_MAX - (MEMMAP_PAGE - 1))
			return false;
		*e = (*e + MEMMAP_PAGE - 1) & ~(MEMMAP_PAGE - 1);
	}
	return *e > *s;
}

static void sort_u64(uint64_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		uint64_t v = a[i];
		int j = i - 1;
		for (; j >= 0 && a[j] > v; j--)
			a[j + 1] = a[j];
		a[j + 1] = v;
	}
}

/* The winning type over [s, e), or 0 when no region covers it. */
static uint32_t type_at(const struct boot_mem_region *in, int n, uint64_t s, uint64_t e, int *cover)
{
	uint32_t best = 0;
	*cover = 0;
	for (int i = 0; i < n; i++) {
		uint64_t rs, re;
		uint32_t t;
		if (!clip(&in[i], &rs, &re, &t) || rs >= e || re <= s)
			continue;
		(*cover)++;
		if (!best || rank(t) > rank(best))
			best = t;
	}
	return best;
}

static void append(struct memmap *m, uint64_t s, uint64_t e, uint32_t t)
{
	if (m->n && m->r[m->n - 1].end == s && m->r[m->n - 1].type == t) {
		m->r[m->n - 1].end = e;
		return;
	}
	if (m->n == MEMMAP_MAX) {
		m->dropped++;
		return;
	}
	m->r[m->n++] = (struct memmap_range){ s, e, t };
}

static void tally(struct memmap *m)
{
	m->total_ram = m->usable = m->reserved = m->capped = 0;
	for (int i = 0; i < m->n; i++) {
		uint64_t len = m->r[i].end - m->r[i].start;
		uint32_t t = m->r[i].type;
		if (memmap_is_ram(t))
			m->total_ram += len;
		else
			m->reserved += len;
		if (t == MEMMAP_FREE)
			m->usable += len;
		if (t == MEMMAP_CAPPED)
			m->capped += len;
	}
}

int memmap_build(const struct boot_mem_region *in, int n, struct memmap *m,
		 memmap_report_fn rep, void *ctx)
{
	static uint64_t cuts[2 * MEMMAP_MAX];
	int nc = 0;
	memset(m, 0, sizeof *m);
	if (n > MEMMAP_MAX) {
		say(rep, ctx, "memmap: %d regions, only the first %d used", n, MEMMAP_MAX);
		n = MEMMAP_MAX;
	}
	for (int i = 0; i < n; i++) {
		uint64_t s, e;
		uint32_t t;
		if ((in[i].base & (MEMMAP_PAGE - 1)) && classify(in[i].type) == MEMMAP_FREE)
			m->unaligned++;
		if (!clip(&in[i], &s, &e, &t)) {
			m->empty++;
			continue;
		}
		cuts[nc++] = s;
		cuts[nc++] = e;
	}
	sort_u64(cuts, nc);
	for (int i = 0; i + 1 < nc; i++) {
		if (cuts[i] == cuts[i + 1])
			continue;
		int cover;
		uint32_t t = type_at(in, n, cuts[i], cuts[i + 1], &cover);
		if (cover > 1)
			m->overlaps++;
		if (t)
			append(m, cuts[i], cuts[i + 1], t);
	}
	tally(m);
	if (m->overlaps)
		say(rep, ctx, "memmap: %d overlapping pieces resolved (the more restrictive type kept)", m->overlaps);
	if (m->unaligned)
		say(rep, ctx, "memmap: %d usable regions not page aligned, trimmed", m->unaligned);
	if (m->empty)
		say(rep, ctx, "memmap: %d empty or impossible regions ignored", m->empty);
	if (m->dropped)
		say(rep, ctx, "memmap: more than %d ranges, %d dropped", MEMMAP_MAX, m->dropped);
	return m->usable ? 0 : -1;
}

uint64_t memmap_cap(struct memmap *m, uint64_t cap)
{
	uint64_t seen = 0;
	cap &= ~(MEMMAP_PAGE - 1);
	for (int i = 0; i < m->n; i++) {
		struct memmap_range *r = &m->r[i];
		if (r->type != MEMMAP_FREE)
			continue;
		uint64_t len = r->end - r->start;
		if (seen >= cap) {
			r->type = MEMMAP_CAPPED;
		} else if (seen + len > cap && m->n < MEMMAP_MAX) {
			/* Split: the part above the cap is withheld. */
			memmove(&m->r[i + 2], &m->r[i + 1], (size_t)(m->n - i - 1) * sizeof *r);
			m->n++;
			m->r[i + 1] = (struct memmap_range){ r->start + (cap - seen), r->end, MEMMAP_CAPPED };
			r->end = r->start + (cap - seen);
			seen = cap;
			i++;
		} else if (seen + len > cap) {
			r->type = MEMMAP_CAPPED;        /* no room to split: withhold it all */
		} else {
			seen += len;
		}
	}
	tally(m);
	return m->usable;
}

/* Cut [s, e) out of range i as type t; the rest of i keeps its type. */
static void carve(struct memmap *m, int i, uint64_t s, uint64_t e, uint32_t t)
{
	struct memmap_range r = m->r[i];
	int extra = (s > r.start) + (e < r.end);
	memmove(&m->r[i + 1 + extra], &m->r[i + 1], (size_t)(m->n - i - 1) * sizeof r);
	m->n += extra;
	if (s > r.start)
		m->r[i++] = (struct memmap_range){ r.start, s, r.type };
	m->r[i++] = (struct memmap_range){ s, e, t };
	if (e < r.end)
		m->r[i] = (struct memmap_range){ e, r.end, r.type };
}

uint64_t memmap_reserve_low(struct memmap *m, uint64_t pages, uint64_t limit)
{
	uint64_t len = pages * MEMMAP_PAGE;
	if (!pages || m->n + 2 > MEMMAP_MAX)
		return 0;
	for (int i = m->n - 1; i >= 0; i--) {
		struct memmap_range *r = &m->r[i];
		uint64_t lo = r->start > MEMMAP_PAGE ? r->start : MEMMAP_PAGE;
		uint64_t top = r->end < limit ? r->end : (limit & ~(MEMMAP_PAGE - 1));
		if (r->type != MEMMAP_FREE || top < lo + len)
			continue;
		carve(m, i, top - len, top, MEMMAP_LOWRES);
		tally(m);
		return top - len;
	}
	return 0;
}
