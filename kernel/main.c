/*
 * kmain: the kernel's init order, written out.  Each step may rely on the
 * ones before it and on nothing after it:
 *
 *   serial -> CPU tables (so faults are reported) -> boot_info check ->
 *   command line -> memory map -> own page tables -> page allocator ->
 *   framebuffer console -> ACPI -> APIC and interrupts -> clock (TSC) ->
 *   scheduler -> timer tick, interrupts on -> boot report -> PCI and
 *   block devices -> results file -> swap -> work -> halt.
 */
#include <string.h>
#include "core/config.h"
#include "core/console.h"
#include "core/panic.h"
#include "core/lockstat.h"
#include "core/kprof.h"
#include "core/record.h"
#include "lib/printf.h"
#include "tests/kernel/selftest.h"
#include "boot/boot_info.h"
#include "arch/x86_64/x86.h"
#include "arch/x86_64/irqtrace.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"
#include "mem/kmalloc.h"
#include "arch/x86_64/smpboot.h"
#include "core/time.h"
#include "core/sched.h"
#include "proc/task.h"
#include "proc/syscall.h"
#include "run/runner.h"
#include "run/script.h"
#include "run/results.h"
#include "core/bootfs.h"
#include "platform/rtc.h"
#include "drivers/blk_driver.h"
#include "vm/page_ref.h"
#include "vm/reclaim.h"
#include "vm/pagecache.h"
#include "vm/knobs.h"
#include "swap/swap.h"
#include "vm/vmstat.h"
#include "vm/workingset.h"
#include "vm/vm.h"
#include "swap/readahead.h"
#include "swap/ra_policy.h"
#include "mem/memmap.h"
#include "mem/kmem.h"
#include "mem/pmm.h"
#include "mem/pgtable.h"
#include "platform/serial.h"
#include "platform/fbcon.h"
#include "platform/acpi.h"
#include "drivers/pci.h"
#include "drivers/nvme.h"
#include "drivers/ahci.h"
#include "drivers/xhci.h"

#include "gitrev.h"               /* GIT_REV, generated (Makefile) */
#ifndef BUILD_OPTS
#define BUILD_OPTS ""
#endif

#define MIN_MEM (8ul << 20)

static struct boot_info bootinfo;
static struct memmap memmap;
static struct acpi_madt madt;
static uint64_t entry_tsc;

static void memmap_say(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}

static void check_boot_info(const struct boot_info *bi)
{
	if (bi->magic != BOOT_INFO_MAGIC)
		panic("boot_info: bad magic %016lx (loader and kernel do not match)", bi->magic);
	if (bi->version != BOOT_INFO_VERSION || bi->size != sizeof(struct boot_info))
		panic("boot_info: loader speaks version %u (%u bytes), kernel version %u (%u bytes)",
		      bi->version, bi->size, BOOT_INFO_VERSION, (unsigned)sizeof(struct boot_info));
	memcpy(&bootinfo, bi, sizeof bootinfo);
	bootinfo.cmdline[BOOT_CMDLINE_MAX - 1] = 0;
	bootinfo.firmware_vendor[sizeof bootinfo.firmware_vendor - 1] = 0;
}

static void apply_mem_cap(void)
{
	uint64_t avail = memmap.usable;
	if (!kcfg.mem_cap_set)
		return;
	if (kcfg.mem_cap < MIN_MEM) {
		kprintf("mem=%lu KiB is below the %lu MiB needed to boot; using %lu MiB\n",
			kcfg.mem_cap >> 10, MIN_MEM >> 20, MIN_MEM >> 20);
		kcfg.mem_cap = MIN_MEM;
	}
	if (kcfg.mem_cap > avail)
		kprintf("mem=%lu MiB exceeds the %lu MiB of usable RAM; using all of it\n",
			kcfg.mem_cap >> 20, avail >> 20);
	memmap_cap(&memmap, kcfg.mem_cap);
}

static void setup_memory(void)
{
	const struct boot_mem_region *regions = phys_to_virt(bootinfo.mem_map_phys);
	if (memmap_build(regions, (int)bootinfo.mem_map_count, &memmap, memmap_say, NULL))
		panic("memory map: no usable RAM in %u regions", bootinfo.mem_map_count);
	/* Before mem= and the allocators: the low pages must be usable RAM
	 * nobody has taken. */
	smp_reserve_trampoline(&memmap, kcfg.cpus != 1);
	apply_mem_cap();
	kmem_init(&memmap, &bootinfo);
	pmm_init(&memmap, kcfg.poison);
}

static void setup_framebuffer(void)
{
	const struct boot_framebuffer *fb = &bootinfo.fb;
	if (fb->format == BOOT_FB_NONE || !fb->phys)
		return;
	void *v = kmem_ioremap(fb->phys, (uint64_t)fb->pitch * fb->height, PT_WC);
	fbcon_init(fb, v);
}

static void report_memory(void)
{
	kprintf("memory map: %u firmware regions -> %d ranges\n", bootinfo.efi_desc_count, memmap.n);
	if (!kcfg.quiet)
		for (int i = 0; i < memmap.n; i++)
			kprintf("  %016lx-%016lx %8lu KiB  %s\n", memmap.r[i].start, memmap.r[i].end - 1,
				(memmap.r[i].end - memmap.r[i].start) >> 10, memmap_type_name(memmap.r[i].type));
	struct pmm_stats st;
	pmm_get_stats(&st);
	kprintf("memory: %lu MiB total RAM, %lu MiB usable%s, %lu MiB reserved/MMIO\n",
		memmap.total_ram >> 20, memmap.usable >> 20, kcfg.mem_cap_set ? " (capped by mem=)" : "",
		memmap.reserved >> 20);
	kprintf("page allocator: %lu pages managed, %lu free, struct page array %lu KiB"
		" (%lu free pages not yet initialised)\n",
		st.total_pages, st.free_pages, st.memmap_pages * 4, st.deferred_pages);
}

static void report_files(void)
{
	const struct boot_file *f = phys_to_virt(bootinfo.files_phys);
	kprintf("boot files: %u\n", bootinfo.file_count);
	for (uint32_t i = 0; i < bootinfo.file_count && !kcfg.quiet; i++)
		kprintf("  %-40s %8lu bytes\n", f[i].name, f[i].size);
}

static void setup_interrupts(void)
{
	const struct acpi_table *t = acpi_find("APIC", 0);
	int err = t ? acpi_parse_madt(t->virt, t->length, &madt) : ACPI_ESIG;
	if (err) {
		kprintf("acpi: MADT %s: using the local APIC alone, no I/O APIC\n",
			t ? acpi_strerror(err) : "missing");
		irq_init(NULL);
		return;
	}
	irq_init(&madt);
	this_cpu()->apic_id = apic_id();
}

static void setup_user_mode(void)
{
	uint64_t secs;
	if (rtc_read_unix(&secs))
		syscall_set_wall_clock(secs * 1000000000ull - time_ns());
	else
		kprintf("rtc: the CMOS clock reads garbage; CLOCK_REALTIME starts at 1970\n");
	syscall_init();
	task_init();
}

/* Work done, for hangcheck.  While no thread is inside a page fault,
 * nobody waits for memory: any state (all tasks asleep) is progress.
 * Otherwise progress is what tasks get done (faults finished, time in
 * user mode), pages written to swap and OOM kills.  Not pages scanned,
 * faults retried, context switches, nor pages read from swap or freed:
 * at swap full, reclaim used to free pages a fault had just read before
 * the fault could map them, and all of those kept growing while the
 * task stood still. */
static uint64_t mm_progress(void)
{
	uint64_t done;
	unsigned inside;
	vm_fault_counts(&done, &inside);
	if (!inside)
		return time_ns();
	return done + vmstat_get(PSWPOUT) + vmstat_get(OOM_KILL) + task_user_ns_all();
}

/* Swap areas, readahead policy and the vmstat sampler: after the block
 * drivers have registered their disks. */
static void setup_swap(void)
{
	if (kcfg.blk_read_split[0] && !blk_set_read_split(kcfg.blk_read_split)) {
		char now[8];
		blk_get_read_split(now, sizeof now);
		kprintf("cmdline: blk_read_split=%s: not off or a power of two in 8..256; using %s\n",
			kcfg.blk_read_split, now);
	}
	if (kcfg.ra[0] && !ra_set_policy(kcfg.ra)) {
		char hint[32];
		kprintf("cmdline: ra=%s: unknown readahead policy (%s); using %s\n", kcfg.ra,
			ra_unknown_hint(kcfg.ra, hint, sizeof hint), ra_policy_name());
	}
	if (kcfg.page_cluster_set) {
		if (kcfg.page_cluster > 8)
			kprintf("cmdline: page_cluster=%lu: more than 8; using %u\n", kcfg.page_cluster,
				ra_page_cluster());
		else
			ra_set_page_cluster((unsigned)kcfg.page_cluster);
	}
	workingset_set_enabled(kcfg.workingset);
	swap_init();
	pagecache_init();
	/* The run-time knobs the command line gave, as `@set` would set them;
	 * their values passed the knob table's check already. */
	const char *name, *value;
	for (unsigned i = 0; config_late_knob(i, &name, &value); i++) {
		char why[160];
		if (vm_set_knob(name, value, why, sizeof why))
			kprintf("cmdline: %s=%s: %s; default kept\n", name, value, why);
	}
	halt_register_hook(swap_report);
	halt_register_hook(vmstat_final);
	if (kcfg.vmstat_ms)
		vmstat_sampler(kcfg.vmstat_ms);
	sched_hangcheck((unsigned)kcfg.hangcheck, mm_progress);
}

static void report_interrupts(void)
{
	kprintf("apic: %s, boot CPU APIC id %u, %d I/O APIC(s) with %u GSIs, %d CPU(s) in the MADT, %d overrides\n",
		apic_x2() ? "x2APIC" : "xAPIC", smp_boot_apic_id(), ioapic_count(), ioapic_gsi_count(), madt.ncpus, madt.nisos);
	kprintf("timer: LAPIC timer %lu.%03lu MHz (after /16), tick %u Hz, %s\n", time_lapic_hz() / 1000000,
		(time_lapic_hz() / 1000) % 1000, time_hz(), time_oneshot() ? "one-shot deadlines" : "periodic");
}

/* The calibration's evidence: each reference's median, the source's
 * spread over its windows, CPUID's word, and whether they disagree. */
static void tsc_record(struct json *j)
{
	const struct tsc_calibration *c = tsc_calibration();
	json_u64(j, "tsc_windows", c->windows);
	json_u64(j, "tsc_outliers", c->outliers);
	json_u64(j, "tsc_spread_ppm", c->spread_ppm);
	c->hpet_hz ? json_u64(j, "tsc_hpet_hz", c->hpet_hz) : json_null(j, "tsc_hpet_hz");
	c->pmtimer_hz ? json_u64(j, "tsc_pmtimer_hz", c->pmtimer_hz) : json_null(j, "tsc_pmtimer_hz");
	c->cpuid_hz ? json_u64(j, "tsc_cpuid_hz", c->cpuid_hz) : json_null(j, "tsc_cpuid_hz");
	json_str(j, "tsc_cpuid_leaf", c->cpuid_leaf);
	json_u64(j, "tsc_disagree_ppm", c->disagree_ppm);
	json_bool(j, "tsc_warning", c->warn);
}

static void mhz(char *b, size_t n, uint64_t hz)
{
	ksnprintf(b, n, "%lu.%03lu MHz", hz / 1000000, (hz / 1000) % 1000);
}

static void tsc_report(const char *tsc_src)
{
	const struct tsc_calibration *c = tsc_calibration();
	char a[32], h[32], p[32], q[32];
	mhz(a, sizeof a, c->hz);
	kprintf("tsc: %s (median of %u windows against %s, spread %u ppm, %u outliers)\n", a, c->windows,
		tsc_src, c->spread_ppm, c->outliers);
	if (!c->warn)
		return;
	mhz(h, sizeof h, c->hpet_hz);
	mhz(p, sizeof p, c->pmtimer_hz);
	mhz(q, sizeof q, c->cpuid_hz);
	kprintf("tsc: WARNING: clock sources disagree by %u.%02u%%: hpet %s, pmtimer %s, cpuid %s %s; "
		"every time and rate reported may be off by as much\n", c->disagree_ppm / 10000,
		(c->disagree_ppm / 100) % 100, c->hpet_hz ? h : "absent", c->pmtimer_hz ? p : "absent",
		c->cpuid_leaf ? c->cpuid_leaf : "", c->cpuid_hz ? q : "absent");
}

static void boot_record(uint64_t boot_ns, const char *tsc_src)
{
	char feat[256];
	cpu_feature_string(feat, sizeof feat);
	struct pmm_stats st;
	pmm_get_stats(&st);
	struct json *j = rec_begin("boot");
	json_str(j, "kernel", "mmkernel");
	json_str(j, "git", GIT_REV);
	json_str(j, "build", BUILD_OPTS);
	json_u64(j, "usable_bytes", memmap.usable);
	json_u64(j, "total_bytes", memmap.total_ram);
	if (kcfg.mem_cap_set)
		json_u64(j, "mem_cap_bytes", kcfg.mem_cap);
	else
		json_null(j, "mem_cap_bytes");
	json_u64(j, "managed_bytes", st.total_pages * PAGE_SIZE);
	json_u64(j, "free_bytes", st.free_pages * PAGE_SIZE);
	json_fixed(j, "boot_ms", (int64_t)(boot_ns / 1000), 3);
	json_fixed(j, "loader_to_kernel_ms",
		   (int64_t)(tsc_ticks_to_ns(entry_tsc - bootinfo.loader_tsc, tsc_hz()) / 1000), 3);
	json_str(j, "cpu", cpu.brand);
	json_str(j, "cpu_vendor", cpu.vendor);
	json_str(j, "hypervisor", cpu.hypervisor[0] ? cpu.hypervisor : NULL);
	json_str(j, "features", feat);
	json_bool(j, "smep", (read_cr4() & CR4_SMEP) != 0);
	json_bool(j, "smap", (read_cr4() & CR4_SMAP) != 0);
	json_bool(j, "nx", (rdmsr(MSR_EFER) & EFER_NXE) != 0);
	json_u64(j, "tsc_hz", tsc_hz());
	json_str(j, "tsc_source", tsc_src);
	tsc_record(j);
	json_str(j, "apic", apic_x2() ? "x2apic" : "xapic");
	json_u64(j, "ioapics", (uint64_t)ioapic_count());
	json_u64(j, "lapic_timer_hz", time_lapic_hz());
	json_u64(j, "hz", time_hz());
	json_str(j, "timer_mode", time_oneshot() ? "oneshot" : "periodic");
	json_u64(j, "cpus_in_madt", (uint64_t)madt.ncpus);
	smp_record(j);
	json_str(j, "firmware", bootinfo.firmware_vendor);
	json_u64(j, "memmap_regions", bootinfo.efi_desc_count);
	json_u64(j, "files", bootinfo.file_count);
	json_bool(j, "framebuffer", bootinfo.fb.format != BOOT_FB_NONE);
	json_str(j, "cmdline", bootinfo.cmdline);
	json_str(j, "halt", halt_mode_name());
	rec_end();
}

static void boot_report(const char *tsc_src)
{
	uint64_t boot_ns = tsc_ticks_to_ns(rdtsc() - entry_tsc, tsc_hz());
	char feat[256];
	cpu_feature_string(feat, sizeof feat);
	kprintf("cpu: %s (%s family %u model %u stepping %u)%s%s\n", cpu.brand, cpu.vendor, cpu.family,
		cpu.model, cpu.stepping, cpu.hypervisor[0] ? ", hypervisor " : "", cpu.hypervisor);
	kprintf("cpu features: %s\n", feat);
	kprintf("protections: NX %s, WP on, SMEP %s, SMAP %s\n",
		(rdmsr(MSR_EFER) & EFER_NXE) ? "on" : "off (CPU lacks it)",
		(read_cr4() & CR4_SMEP) ? "on" : "off (CPU lacks it)",
		(read_cr4() & CR4_SMAP) ? "on" : "off (CPU lacks it)");
	tsc_report(tsc_src);
	report_interrupts();
	report_memory();
	kmem_report();
	report_files();
	if (bootinfo.fb.format != BOOT_FB_NONE)
		kprintf("framebuffer: %ux%u at %lx\n", bootinfo.fb.width, bootinfo.fb.height, bootinfo.fb.phys);
	kprintf("acpi: %d tables\n", acpi_table_count());
	kprintf("boot: kernel entry to report %lu.%03lu ms\n", boot_ns / 1000000, (boot_ns / 1000) % 1000);
	boot_record(boot_ns, tsc_src);
}

void kmain(const struct boot_info *bi)
{
	entry_tsc = rdtsc();
	serial_init();
	cpu_detect();
	cpu_init();
	check_boot_info(bi);
	kprintf("\nmmkernel %s (%s) starting\n", GIT_REV, BUILD_OPTS);
	kprintf("cmdline: \"%s\"\n", bootinfo.cmdline);
	config_parse(bootinfo.cmdline);
	setup_memory();
	if (!kcfg.lockstat) {
		/* The direct map is up; no other thread, CPU or NMI yet. */
		unsigned n = irqtrace_untime();
		lockstat_reset();       /* what the boot's first locks counted */
		kprintf("lockstat: off: %u timing sites patched out\n", n);
	}
	setup_framebuffer();
	acpi_init(bootinfo.rsdp_phys);
	halt_init();
	setup_interrupts();
	time_init();
	sched_init();
	if (kcfg.prof && kprof_init((unsigned)kcfg.hz))
		halt_register_hook(kprof_halt_report);
	time_start_tick((unsigned)kcfg.hz, strcmp(kcfg.timer, "periodic") != 0);
	halt_register_hook(sched_report);
	halt_register_hook(irq_report);
	halt_register_hook(console_report);
	halt_register_hook(lockstat_halt_report);
	bootfs_init(&bootinfo);
	page_ref_init();
	reclaim_init();
	if (bootinfo.boot_part_valid)
		blk_set_boot_partition(bootinfo.boot_part_guid);
	halt_register_hook(blk_report);
	halt_register_shutdown_hook(results_halt);      /* after every report, before the drivers shut down */
	setup_user_mode();
	unsigned may_start = madt.ncpus > 0 ? (unsigned)madt.ncpus : 1;
	lockstat_cpus(kcfg.cpus && kcfg.cpus < may_start ? (unsigned)kcfg.cpus : may_start);
	smp_start_aps(madt.ncpus ? &madt : NULL, kcfg.cpus);
	kmalloc_cpus_ready((unsigned)smp_cpus_online());
	reclaim_init_cpus();
	irq_enable();
	boot_report(time_tsc_source());
	/* Devices after the report: probing disks takes tens of ms. */
	pci_init();
	pci_report();
	nvme_init();
	ahci_init();
	xhci_init();
	blk_list();
	results_init(&bootinfo);
	setup_swap();
	if (kcfg.test[0])
		selftest_run(kcfg.test);
	if (kcfg.run[0])
		runner_run(kcfg.run);
	if (kcfg.script[0])
		script_run(kcfg.script, memmap.usable);
	halt_ok();
}
