/*
 * Which CPUs to start (pure; see smp.h).
 *
 * The MADT lists each processor once in a local APIC entry (ids up to
 * 254) or a local x2APIC entry (any id); firmware may list a CPU in both,
 * so ids are deduplicated.  Flags bit 0 says enabled (start it), bit 1
 * online capable (ACPI 6.3: present, may be enabled at run time; counted
 * as found but not started, as Linux does with hot-pluggable CPUs).
 * Neither bit: no such processor, ignored.
 */
#include "smp.h"

static bool listed(const uint32_t *ids, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

void smp_plan(const struct acpi_madt *m, uint32_t bsp_apic, uint64_t cap, uint32_t max_id,
	      struct smp_plan *p)
{
	*p = (struct smp_plan){ .nfound = 1, .found = { bsp_apic } };
	int n = m ? m->ncpus : 0;
	for (int i = 0; i < n; i++) {
		uint32_t id = m->cpu[i].apic_id;
		if (!m->cpu[i].enabled && !m->cpu[i].online_capable)
			continue;
		if (id == bsp_apic)
			continue;
		if (listed(p->found, p->nfound, id)) {
			p->duplicates++;
			continue;
		}
		if (p->nfound == SMP_MAX_CPUS)
			break;
		p->found[p->nfound++] = id;
		if (!m->cpu[i].enabled)
			p->offline++;
		else if (id > max_id)
			p->unreachable++;
		else if (cap && (uint64_t)p->nstart + 1 >= cap)
			p->capped++;
		else
			p->start[p->nstart++] = id;
	}
}
