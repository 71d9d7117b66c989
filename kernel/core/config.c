/*
 * The command-line option table.  Adding an option: a field in struct
 * kconfig, a row here, a line in README.md.  A memory-management knob is
 * checked against the one knob table (knob_table.h), so the command line
 * and a script's `set` accept the same values; its help is there too.
 */
#include <string.h>
#include "config.h"
#include "console.h"
#include "knob_table.h"
#include "smp.h"
#include "lib/cmdline.h"
#include "lib/printf.h"

struct kconfig kcfg;

/* Options with no knob whose numbers have a range of their own. */
static const struct { const char *name; uint64_t lo, hi; } ranges[] = {
	{ "hz", 10, 10000 },
	{ "cpus", 1, SMP_MAX_CPUS },    /* a CPU more than the MADT holds is no cap at all */
	{ "usb_timeout", 100, 600000 },
	{ "nvme_timeout", 100, 600000 },
};

/* Values checked before they are stored, so a refused one changes
 * nothing else: the knobs against the knob table; hz= and cpus= (no
 * knobs, they cannot change after boot) against their own ranges. */
static bool check_value(const struct cmdline_option *o, const char *val, char *why, size_t n)
{
	const struct knob_def *k = knob_find(o->name);
	uint64_t v;
	if (k)
		return !knob_check(k, val, NULL, why, n);
	for (unsigned i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
		if (strcmp(o->name, ranges[i].name))
			continue;
		if (cmdline_parse_u64(val, &v) && v >= ranges[i].lo && v <= ranges[i].hi)
			return true;
		ksnprintf(why, n, "'%s' is not a number in %lu..%lu", val, ranges[i].lo, ranges[i].hi);
		return false;
	}
	return true;
}

static const struct cmdline_option options[] = {
	{ "mem", CMDLINE_SIZE, &kcfg.mem_cap, 0, &kcfg.mem_cap_set,
	  "cap the RAM the page allocator manages, e.g. mem=900M (Linux's mem=)" },
	{ "poison", CMDLINE_BOOL, &kcfg.poison, 0, NULL,
	  "fill freed frames with 0x6b and fresh ones with 0xa5 (debugging)" },
	{ "quiet", CMDLINE_BOOL, &kcfg.quiet, 0, NULL, "shorter boot report" },
	{ "hz", CMDLINE_U64, &kcfg.hz, 0, NULL, "scheduler tick rate, 10..10000 (default 1000)" },
	{ "cpus", CMDLINE_U64, &kcfg.cpus, 0, NULL,
	  "CPUs to start, the boot CPU included, 1..256 (default: all the MADT lists; 1: no others)" },
	{ "timer", CMDLINE_STR, kcfg.timer, sizeof kcfg.timer, NULL,
	  "oneshot (default: fire at each deadline) or periodic (fire every tick)" },
	{ "test", CMDLINE_STR, kcfg.test, sizeof kcfg.test, NULL,
	  "run a built-in test scenario (see tests/qemu)" },
	{ "swap", CMDLINE_STR, kcfg.swap, sizeof kcfg.swap, NULL,
	  "swap areas: auto (every device with a swap header), none, or DEV[:prio=N][:cluster=N],..." },
	{ "swapformat", CMDLINE_STR, kcfg.swapformat, sizeof kcfg.swapformat, NULL,
	  "DEV,...: write a fresh swap header on these devices (destroys their contents)" },
	{ "data", CMDLINE_STR, kcfg.data, sizeof kcfg.data, NULL,
	  "DEV,...: block devices workloads may write through files (/dev/sdb, nvme0n1p2; never the ESP or swap)" },
	{ "swapcrc", CMDLINE_BOOL, &kcfg.swapcrc, 0, NULL, "crc32 of every page at swap-out, checked at swap-in" },
	{ "prof", CMDLINE_BOOL, &kcfg.prof, 0, NULL,
	  "sample kernel CPU time by function, hz= a second (an NMI); a prof record per run (README: Where kernel time goes)" },
	{ "lockstat", CMDLINE_BOOL, &kcfg.lockstat, 0, NULL,
	  "on|off: time every lock hold and interrupt-off section (the locks record; default on)" },
	{ "workingset", CMDLINE_BOOL, &kcfg.workingset, 0, NULL, NULL },
	{ "swap_cluster", CMDLINE_U64, &kcfg.swap_cluster, 0, NULL, NULL },
	{ "swappiness", CMDLINE_U64, &kcfg.swappiness, 0, &kcfg.swappiness_set, NULL },
	{ "used_once_swapbacked", CMDLINE_BOOL, &kcfg.used_once_swapbacked, 0, &kcfg.used_once_set, NULL },
	{ "anon_used_once", CMDLINE_BOOL, &kcfg.anon_used_once, 0, NULL, NULL },
	{ "age_ahead", CMDLINE_BOOL, &kcfg.age_ahead, 0, &kcfg.age_ahead_set, NULL },
	{ "wm_min", CMDLINE_U64, &kcfg.wm_min, 0, NULL, NULL },
	{ "wm_low", CMDLINE_U64, &kcfg.wm_low, 0, NULL, NULL },
	{ "wm_high", CMDLINE_U64, &kcfg.wm_high, 0, NULL, NULL },
	{ "reclaim_batch", CMDLINE_U64, &kcfg.reclaim_batch, 0, NULL, NULL },
	{ "ra", CMDLINE_STR, kcfg.ra, sizeof kcfg.ra, NULL, "swap-in readahead: off, fixed:N, hugh, shaohua, vma, own (default fixed:3)" },
	{ "page_cluster", CMDLINE_U64, &kcfg.page_cluster, 0, &kcfg.page_cluster_set, NULL },
	{ "blk_read_split", CMDLINE_STR, kcfg.blk_read_split, sizeof kcfg.blk_read_split, NULL, NULL },
	{ "hangcheck", CMDLINE_U64, &kcfg.hangcheck, 0, NULL,
	  "dump every thread (state, wait channel, backtrace) when nothing ran for N s" },
	{ "vmstat", CMDLINE_U64, &kcfg.vmstat_ms, 0, NULL, "print a vmstat line every N ms (0: off)" },
	{ "blkdev", CMDLINE_STR, kcfg.blkdev, sizeof kcfg.blkdev, NULL,
	  "scratch block device for test=blk|blkbench; it will be overwritten" },
	{ "blktest_mib", CMDLINE_U64, &kcfg.blktest_mib, 0, NULL, "MiB of blkdev the block tests use (default 64)" },
	{ "run", CMDLINE_STR, kcfg.run, sizeof kcfg.run, NULL,
	  "workload program and its arguments, e.g. run=\"touch 64 100000 seq anon\"" },
	{ "halt", CMDLINE_STR, kcfg.halt, sizeof kcfg.halt, NULL,
	  "at the end and on panic: wait (for a key, then power off), poweroff, reboot "
	  "(default wait on bare metal, poweroff under a hypervisor)" },
	{ "nvme_timeout", CMDLINE_U64, &kcfg.nvme_timeout, 0, NULL,
	  "ms an NVMe read or write may take before the controller is reset and the command failed (default 30000)" },
	{ "usb_timeout", CMDLINE_U64, &kcfg.usb_timeout, 0, NULL,
	  "ms a USB stick's read or write may take before it is stopped and retried (default 30000)" },
	{ "script", CMDLINE_STR, kcfg.script, sizeof kcfg.script, NULL,
	  "workload script to run (a boot file, e.g. scripts/seq.mm; README: Workload scripts)" },
	/* Run-time knobs, set once the kernel is up (config_late_knob); their
	 * help and ranges are the knob table's.  Linux's overcommit_ratio and
	 * overcommit_kbytes zero each other when written: kbytes, later
	 * here, wins when both are given. */
#define LATE(i, name) { name, CMDLINE_STR, kcfg.late_knob[i], sizeof kcfg.late_knob[i], NULL, NULL }
	LATE(0, "dirty_ratio"), LATE(1, "dirty_background_ratio"), LATE(2, "dirty_expire_centisecs"),
	LATE(3, "dirty_mmap"), LATE(4, "overcommit_memory"), LATE(5, "overcommit_ratio"), LATE(6, "overcommit_kbytes"),
	LATE(7, "mem_limit_mib"),
#undef LATE
};

#define NOPTIONS (sizeof options / sizeof options[0])

static void report(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}

int config_parse(const char *line)
{
	kcfg.hz = 1000;
	kcfg.swap_cluster = 256;
	kcfg.lockstat = true;
	int problems = cmdline_apply(line, options, NOPTIONS, check_value, report, NULL);
	if (kcfg.timer[0] && strcmp(kcfg.timer, "oneshot") && strcmp(kcfg.timer, "periodic")) {
		kprintf("cmdline: timer=%s: expected oneshot or periodic; using oneshot\n", kcfg.timer);
		kcfg.timer[0] = 0;
		problems++;
	}
	if (kcfg.halt[0] && strcmp(kcfg.halt, "wait") && strcmp(kcfg.halt, "poweroff") && strcmp(kcfg.halt, "reboot")) {
		kprintf("cmdline: halt=%s: expected wait, poweroff or reboot; using the default\n", kcfg.halt);
		kcfg.halt[0] = 0;
		problems++;
	}
	return problems;
}

void config_print_help(void)
{
	for (unsigned i = 0; i < NOPTIONS; i++) {
		const struct knob_def *k = knob_find(options[i].name);
		kprintf("  %-8s %s\n", options[i].name, k ? k->help : options[i].help);
	}
}

bool config_late_knob(unsigned i, const char **name, const char **value)
{
	unsigned found = 0;
	for (unsigned j = 0; j < NOPTIONS; j++)
		for (unsigned k = 0; k < CONFIG_LATE_KNOBS; k++) {
			if (options[j].dst != kcfg.late_knob[k] || !kcfg.late_knob[k][0])
				continue;
			if (found++ == i) {
				*name = options[j].name;
				*value = kcfg.late_knob[k];
				return true;
			}
		}
	return false;
}
