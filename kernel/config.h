/*
 * Boot-time configuration from the kernel command line.  Filled once by
 * config_parse() before anything reads it; read-only afterwards.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stdint.h>

struct kconfig {
	uint64_t mem_cap;       /* mem=: bytes of usable RAM to manage */
	bool mem_cap_set;
	bool poison;            /* poison=: fill freed/new frames with junk */
	bool quiet;             /* quiet: shorter boot report */
	uint64_t hz;            /* hz=: scheduler tick rate */
	char timer[16];         /* timer=oneshot|periodic */
	char test[32];          /* test=: a built-in test scenario (tests/qemu) */
	char run[256];          /* run=: workload program and arguments */
	char blkdev[24];        /* blkdev=: scratch device for test=blk|blkbench */
	uint64_t blktest_mib;   /* blktest_mib=: how much of it to use */
};

extern struct kconfig kcfg;

/* Parse line; returns the number of problems (each already reported). */
int config_parse(const char *line);
void config_print_help(void);

#endif
