/*
 * Boot-time configuration from the kernel command line.  Filled once by
 * config_parse() before anything reads it; read-only afterwards.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define CONFIG_LATE_KNOBS 8

struct kconfig {
	uint64_t mem_cap;       /* mem=: bytes of usable RAM to manage */
	bool mem_cap_set;
	bool poison;            /* poison=: fill freed/new frames with junk */
	bool quiet;             /* quiet: shorter boot report */
	uint64_t hz;            /* hz=: scheduler tick rate */
	uint64_t cpus;          /* cpus=: CPUs to start, BSP included (0: all) */
	char timer[16];         /* timer=oneshot|periodic */
	char test[32];          /* test=: a built-in test scenario (tests/qemu) */
	char run[512];          /* run=: workload program and arguments */
	char script[64];        /* script=: workload script (a boot file) */
	char swap[128];         /* swap=auto|none|DEV[:prio=N][:cluster=N],... */
	char swapformat[128];   /* swapformat=DEV,...: write fresh swap headers */
	char data[128];         /* data=DEV,...: devices files may write (vm/pagecache.c) */
	uint64_t swappiness;    /* swappiness=: anon/file scan balance, 0..200 (60) */
	bool swappiness_set;
	bool used_once_swapbacked;      /* used_once_swapbacked=: the Linux 3.4 used-once fix (on) */
	bool used_once_set;
	bool anon_used_once;    /* anon_used_once=: Linux 5.9's used-once rule for anon (off) */
	bool age_ahead;         /* age_ahead=: first looks before memory runs short (on) */
	bool age_ahead_set;
	bool swapcrc;           /* swapcrc=on: checksum every swapped page */
	bool prof;              /* prof=on: sample kernel CPU time by function (core/kprof.h) */
	bool lockstat;          /* lockstat=on|off: time lock holds and interrupt-off sections (on) */
	bool workingset;        /* workingset=on|off: workingset detection (off) */
	uint64_t swap_cluster;  /* swap_cluster=: slots per cluster (256) */
	uint64_t wm_min, wm_low, wm_high;       /* watermarks in pages (0: computed) */
	uint64_t reclaim_batch; /* reclaim_batch=: pages per swap-out batch (64) */
	char ra[24];            /* ra=off|fixed:N|...: swap-in readahead policy */
	char blk_read_split[8]; /* blk_read_split=off|N */
	uint64_t page_cluster;  /* page_cluster=: bound of hugh/shaohua/vma */
	bool page_cluster_set;
	uint64_t hangcheck;     /* hangcheck=: seconds without progress before a thread dump */
	uint64_t vmstat_ms;     /* vmstat=: sampler interval in ms (0: off) */
	char blkdev[24];        /* blkdev=: scratch device for test=blk|blkbench */
	uint64_t blktest_mib;   /* blktest_mib=: how much of it to use */
	char halt[16];          /* halt=wait|poweroff|reboot ("": by hypervisor, kernel/core/panic.c) */
	uint64_t nvme_timeout;  /* nvme_timeout=: ms an NVMe I/O command may take (0: 30000) */
	uint64_t usb_timeout;   /* usb_timeout=: ms a USB stick's SCSI command may take (0: 30000) */
	/* The run-time knobs with no boot-time setting of their own
	 * (dirty_ratio=30, overcommit_memory=2): their values as given,
	 * range-checked here, set by name once the kernel is up
	 * (config_late_knob). */
	char late_knob[CONFIG_LATE_KNOBS][24];
};

extern struct kconfig kcfg;

/* Parse line; returns the number of problems (each already reported). */
int config_parse(const char *line);
void config_print_help(void);
/* The i-th run-time knob the command line set (in the option table's
 * order): false past the last.  main.c sets them by name (vm_set_knob). */
bool config_late_knob(unsigned i, const char **name, const char **value);

#endif
