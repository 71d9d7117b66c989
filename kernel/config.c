/*
 * The command-line option table.  Adding an option: a field in struct
 * kconfig, a row here, a line in README.md.
 */
#include <string.h>
#include "config.h"
#include "console.h"
#include "lib/cmdline.h"

struct kconfig kcfg;

static const struct cmdline_option options[] = {
	{ "mem", CMDLINE_SIZE, &kcfg.mem_cap, 0, &kcfg.mem_cap_set,
	  "cap the RAM the page allocator manages, e.g. mem=900M (Linux's mem=)" },
	{ "poison", CMDLINE_BOOL, &kcfg.poison, 0, NULL,
	  "fill freed frames with 0x6b and fresh ones with 0xa5 (debugging)" },
	{ "quiet", CMDLINE_BOOL, &kcfg.quiet, 0, NULL, "shorter boot report" },
	{ "hz", CMDLINE_U64, &kcfg.hz, 0, NULL, "scheduler tick rate, 10..10000 (default 1000)" },
	{ "timer", CMDLINE_STR, kcfg.timer, sizeof kcfg.timer, NULL,
	  "oneshot (default: fire at each deadline) or periodic (fire every tick)" },
	{ "test", CMDLINE_STR, kcfg.test, sizeof kcfg.test, NULL,
	  "run a built-in test scenario (see tests/qemu)" },
	{ "swap", CMDLINE_STR, kcfg.swap, sizeof kcfg.swap, NULL,
	  "swap areas: auto (every device with a swap header), none, or DEV[:prio=N][:cluster=N],..." },
	{ "swapformat", CMDLINE_STR, kcfg.swapformat, sizeof kcfg.swapformat, NULL,
	  "DEV,...: write a fresh swap header on these devices (destroys their contents)" },
	{ "swapcrc", CMDLINE_BOOL, &kcfg.swapcrc, 0, NULL, "crc32 of every page at swap-out, checked at swap-in" },
	{ "swap_cluster", CMDLINE_U64, &kcfg.swap_cluster, 0, NULL, "swap slots per cluster (default 256)" },
	{ "swappiness", CMDLINE_U64, &kcfg.swappiness, 0, NULL, "0..200 (default 60)" },
	{ "wm_min", CMDLINE_U64, &kcfg.wm_min, 0, NULL, "min free-page watermark (default: Linux's formula)" },
	{ "wm_low", CMDLINE_U64, &kcfg.wm_low, 0, NULL, "kswapd wakes below this many free pages" },
	{ "wm_high", CMDLINE_U64, &kcfg.wm_high, 0, NULL, "kswapd sleeps above this many free pages" },
	{ "reclaim_batch", CMDLINE_U64, &kcfg.reclaim_batch, 0, NULL, "pages per swap-out batch (default 64)" },
	{ "ra", CMDLINE_STR, kcfg.ra, sizeof kcfg.ra, NULL, "swap-in readahead: off, fixed:N, hugh, shaohua, vma, own (default fixed:3)" },
	{ "page_cluster", CMDLINE_U64, &kcfg.page_cluster, 0, &kcfg.page_cluster_set,
	  "0..8: Linux's vm.page-cluster, the bound of ra=hugh|shaohua|vma (default 3)" },
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
	{ "script", CMDLINE_STR, kcfg.script, sizeof kcfg.script, NULL,
	  "workload script to run (a boot file, e.g. scripts/seq.mm; README: Workload scripts)" },
};

static void report(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}

int config_parse(const char *line)
{
	kcfg.hz = 1000;
	kcfg.swap_cluster = 256;
	kcfg.swappiness = 60;
	int problems = cmdline_apply(line, options, sizeof options / sizeof options[0], report, NULL);
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
	if (kcfg.hz < 10 || kcfg.hz > 10000) {
		kprintf("cmdline: hz=%lu out of range 10..10000; using 1000\n", kcfg.hz);
		kcfg.hz = 1000;
	kcfg.swap_cluster = 256;
	kcfg.swappiness = 60;
		problems++;
	}
	return problems;
}

void config_print_help(void)
{
	for (unsigned i = 0; i < sizeof options / sizeof options[0]; i++)
		kprintf("  %-8s %s\n", options[i].name, options[i].help);
}
