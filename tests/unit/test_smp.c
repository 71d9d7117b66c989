#include "test.h"
#include "core/smp.h"

static struct acpi_madt m;

static void add(uint32_t id, bool enabled, bool capable)
{
	m.cpu[m.ncpus].apic_id = id;
	m.cpu[m.ncpus].enabled = enabled;
	m.cpu[m.ncpus++].online_capable = capable;
}

TEST(smp_plan_all_enabled)
{
	struct smp_plan p;
	m.ncpus = 0;
	for (uint32_t i = 0; i < 4; i++)
		add(i, true, false);
	smp_plan(&m, 0, 0, 254, &p);
	CHECK_EQ(p.nfound, 4);
	CHECK_EQ(p.nstart, 3);
	CHECK_EQ(p.start[0], 1); CHECK_EQ(p.start[2], 3);
	CHECK_EQ(p.found[0], 0);
	CHECK_EQ(p.capped + p.offline + p.duplicates + p.unreachable, 0);
}

TEST(smp_plan_cap_counts_the_bsp)
{
	struct smp_plan p;
	m.ncpus = 0;
	for (uint32_t i = 0; i < 4; i++)
		add(i, true, false);
	smp_plan(&m, 2, 1, 254, &p);            /* cpus=1: today's kernel */
	CHECK_EQ(p.nstart, 0);
	CHECK_EQ(p.capped, 3);
	CHECK_EQ(p.nfound, 4);
	CHECK_EQ(p.found[0], 2);                /* the BSP first, whatever its MADT slot */
	smp_plan(&m, 2, 2, 254, &p);
	CHECK_EQ(p.nstart, 1);
	CHECK_EQ(p.start[0], 0);
	CHECK_EQ(p.capped, 2);
	smp_plan(&m, 2, 64, 254, &p);           /* a cap above the count is no cap */
	CHECK_EQ(p.nstart, 3);
}

TEST(smp_plan_flags_duplicates_and_ids)
{
	struct smp_plan p;
	m.ncpus = 0;
	add(0, true, false);
	add(1, false, false);                   /* no such processor */
	add(2, false, true);                    /* online capable: found, not started */
	add(3, true, false);
	add(3, true, false);                    /* xAPIC and x2APIC entry for one CPU */
	add(300, true, false);                  /* needs x2APIC */
	smp_plan(&m, 0, 0, 254, &p);
	CHECK_EQ(p.nfound, 4);
	CHECK_EQ(p.nstart, 1);
	CHECK_EQ(p.start[0], 3);
	CHECK_EQ(p.offline, 1);
	CHECK_EQ(p.duplicates, 1);
	CHECK_EQ(p.unreachable, 1);
	smp_plan(&m, 0, 0, 0xfffffffe, &p);     /* x2APIC reaches it */
	CHECK_EQ(p.nstart, 2);
	CHECK_EQ(p.start[1], 300);
}

TEST(smp_plan_no_madt_and_bsp_missing)
{
	struct smp_plan p;
	smp_plan(NULL, 5, 0, 254, &p);
	CHECK_EQ(p.nfound, 1);
	CHECK_EQ(p.nstart, 0);
	m.ncpus = 0;
	add(1, true, false);
	smp_plan(&m, 7, 0, 254, &p);            /* the BSP is not listed: still counted */
	CHECK_EQ(p.nfound, 2);
	CHECK_EQ(p.nstart, 1);
}

TEST(smp_plan_full_table)
{
	struct smp_plan p;
	m.ncpus = 0;
	for (uint32_t i = 0; i < SMP_MAX_CPUS; i++)
		add(i + 1, true, false);        /* the BSP (id 0) is not in the table */
	smp_plan(&m, 0, 0, 0xfffffffeu, &p);    /* x2APIC mode: ids above 254 reachable */
	CHECK_EQ(p.nfound, SMP_MAX_CPUS);
	CHECK_EQ(p.nstart, SMP_MAX_CPUS - 1);
}
