#include "test.h"
#include "mem/memmap.h"

static struct memmap m;
static int nrep;
static void rep(void *c, const char *s) { (void)c; (void)s; nrep++; }

#define R(b, p, t) { (b), (p), (t), 0, 0 }

TEST(memmap_sorts_and_merges)
{
	struct boot_mem_region in[] = {
		R(0x100000000ull, 0x80000, BOOT_MEM_USABLE),   /* unsorted: high RAM first */
		R(0x0, 0xa0, BOOT_MEM_USABLE),
		R(0x100000, 0x700, BOOT_MEM_USABLE),
		R(0x800000, 0x100, BOOT_MEM_BOOT_SERVICES),     /* adjacent usable kinds merge */
		R(0x900000, 0x100, BOOT_MEM_LOADER),
		R(0xb0000000ull, 0x10000, BOOT_MEM_RESERVED),
		R(0xa00000, 0x200, BOOT_MEM_KERNEL),
	};
	nrep = 0;
	CHECK_EQ(memmap_build(in, 7, &m, rep, NULL), 0);
	CHECK_EQ(m.n, 5);
	CHECK_EQ(m.r[0].start, 0); CHECK_EQ(m.r[0].end, 0xa0000); CHECK_EQ(m.r[0].type, MEMMAP_FREE);
	CHECK_EQ(m.r[1].start, 0x100000); CHECK_EQ(m.r[1].end, 0xa00000); CHECK_EQ(m.r[1].type, MEMMAP_FREE);
	CHECK_EQ(m.r[2].type, BOOT_MEM_KERNEL);
	CHECK_EQ(m.r[3].type, BOOT_MEM_RESERVED);
	CHECK_EQ(m.r[4].start, 0x100000000ull);
	CHECK_EQ(m.usable, 0xa0000 + 0x900000 + (0x80000ull << 12));
	CHECK_EQ(m.total_ram, m.usable + 0x200000);
	CHECK_EQ(m.reserved, 0x10000000);
	CHECK_EQ(nrep, 0);
}

TEST(memmap_overlap_keeps_restrictive_type)
{
	struct boot_mem_region in[] = {
		R(0x0, 0x1000, BOOT_MEM_USABLE),                /* 0..16 MiB usable */
		R(0x400000, 0x10, BOOT_MEM_ACPI_NVS),           /* a hole punched in it */
		R(0x800000, 0x100, BOOT_MEM_RESERVED),
	};
	nrep = 0;
	CHECK_EQ(memmap_build(in, 3, &m, rep, NULL), 0);
	CHECK_EQ(m.n, 5);
	CHECK_EQ(m.r[1].type, BOOT_MEM_ACPI_NVS);
	CHECK_EQ(m.r[1].start, 0x400000); CHECK_EQ(m.r[1].end, 0x410000);
	CHECK_EQ(m.r[3].type, BOOT_MEM_RESERVED);
	CHECK_EQ(m.overlaps, 2);
	CHECK_EQ(m.usable, 0x1000000 - 0x10000 - 0x100000);
	CHECK(nrep >= 1);
}

TEST(memmap_unaligned_and_empty)
{
	struct boot_mem_region in[] = {
		R(0x1800, 4, BOOT_MEM_USABLE),                  /* 0x1800..0x5800 -> 0x2000..0x5000 */
		R(0x10000, 0, BOOT_MEM_USABLE),
		R(0xfffffffffffff000ull, 0x100, BOOT_MEM_USABLE), /* wraps */
	};
	CHECK_EQ(memmap_build(in, 3, &m, NULL, NULL), 0);
	CHECK_EQ(m.n, 1);
	CHECK_EQ(m.r[0].start, 0x2000);
	CHECK_EQ(m.r[0].end, 0x5000);
	CHECK_EQ(m.unaligned, 1);
	CHECK_EQ(m.empty, 2);
}

TEST(memmap_nothing_usable)
{
	struct boot_mem_region in[] = { R(0x0, 0x100, BOOT_MEM_RESERVED) };
	CHECK_EQ(memmap_build(in, 1, &m, NULL, NULL), -1);
	CHECK_EQ(memmap_build(in, 0, &m, NULL, NULL), -1);
}

TEST(memmap_cap_counts_in_address_order)
{
	struct boot_mem_region in[] = {
		R(0x0, 0x100, BOOT_MEM_USABLE),                 /* 1 MiB */
		R(0x200000, 0x400, BOOT_MEM_USABLE),            /* 4 MiB */
		R(0x1000000, 0x400, BOOT_MEM_USABLE),           /* 4 MiB */
	};
	CHECK_EQ(memmap_build(in, 3, &m, NULL, NULL), 0);
	CHECK_EQ(memmap_cap(&m, 3ull << 20), 3ull << 20);
	CHECK_EQ(m.n, 4);
	CHECK_EQ(m.r[1].end, 0x400000);
	CHECK_EQ(m.r[2].type, MEMMAP_CAPPED);
	CHECK_EQ(m.r[3].type, MEMMAP_CAPPED);
	CHECK_EQ(m.capped, 6ull << 20);
	CHECK_EQ(m.total_ram, 9ull << 20);
	/* A cap above what exists changes nothing. */
	CHECK_EQ(memmap_build(in, 3, &m, NULL, NULL), 0);
	CHECK_EQ(memmap_cap(&m, 1ull << 40), 9ull << 20);
	CHECK_EQ(m.capped, 0);
	/* Unaligned caps round down to a page. */
	CHECK_EQ(memmap_build(in, 3, &m, NULL, NULL), 0);
	CHECK_EQ(memmap_cap(&m, 4097), 4096);
}

TEST(memmap_unaligned_reserved_rounds_outward)
{
	/* Found by fuzz_memmap: a reserved region at 0xa0 must cover the whole
	 * page, so the usable remainder starts on a page boundary. */
	struct boot_mem_region in[] = {
		R(0x0, 0xa0, BOOT_MEM_USABLE),
		R(0xa0, 1, BOOT_MEM_RESERVED),
	};
	CHECK_EQ(memmap_build(in, 2, &m, NULL, NULL), 0);
	CHECK_EQ(m.n, 2);
	CHECK_EQ(m.r[0].type, BOOT_MEM_RESERVED);
	CHECK_EQ(m.r[0].end, 0x2000);
	CHECK_EQ(m.r[1].start, 0x2000);
	CHECK_EQ(m.r[1].type, MEMMAP_FREE);
}

TEST(memmap_reserve_low_takes_the_highest_run)
{
	struct boot_mem_region in[] = {
		R(0x0, 0x9f, BOOT_MEM_USABLE),                  /* 0..0x9f000 */
		R(0x100000, 0x700, BOOT_MEM_USABLE),
	};
	CHECK_EQ(memmap_build(in, 2, &m, NULL, NULL), 0);
	uint64_t usable = m.usable, total = m.total_ram;
	CHECK_EQ(memmap_reserve_low(&m, 2, 0x100000), 0x9d000);
	CHECK_EQ(m.n, 3);
	CHECK_EQ(m.r[0].end, 0x9d000); CHECK_EQ(m.r[0].type, MEMMAP_FREE);
	CHECK_EQ(m.r[1].start, 0x9d000); CHECK_EQ(m.r[1].end, 0x9f000); CHECK_EQ(m.r[1].type, MEMMAP_LOWRES);
	CHECK_EQ(m.r[2].start, 0x100000);
	CHECK_EQ(m.usable, usable - 0x2000);
	CHECK_EQ(m.total_ram, total);                   /* still RAM: the direct map covers it */
	/* A second reservation comes from below the first. */
	CHECK_EQ(memmap_reserve_low(&m, 1, 0x100000), 0x9c000);
	CHECK_EQ(m.n, 4);
}

TEST(memmap_reserve_low_middle_split_and_none)
{
	struct boot_mem_region in[] = {
		R(0x0, 0x1, BOOT_MEM_USABLE),                   /* page 0 only: never taken */
		R(0x8000, 0x400, BOOT_MEM_USABLE),              /* 0x8000..0x408000, spans the limit */
	};
	CHECK_EQ(memmap_build(in, 2, &m, NULL, NULL), 0);
	CHECK_EQ(memmap_reserve_low(&m, 1, 0x100000), 0xff000);
	CHECK_EQ(m.n, 4);
	CHECK_EQ(m.r[1].end, 0xff000);
	CHECK_EQ(m.r[2].type, MEMMAP_LOWRES);
	CHECK_EQ(m.r[3].start, 0x100000); CHECK_EQ(m.r[3].end, 0x408000); CHECK_EQ(m.r[3].type, MEMMAP_FREE);

	struct boot_mem_region hi[] = {
		R(0x0, 0x1, BOOT_MEM_USABLE),
		R(0x1000, 0x9e, BOOT_MEM_RESERVED),
		R(0x100000, 0x700, BOOT_MEM_USABLE),
	};
	CHECK_EQ(memmap_build(hi, 3, &m, NULL, NULL), 0);
	int n = m.n;
	CHECK_EQ(memmap_reserve_low(&m, 1, 0x100000), 0);
	CHECK_EQ(m.n, n);
	CHECK_EQ(memmap_reserve_low(&m, 0, 0x100000), 0);
}
