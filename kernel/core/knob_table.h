/*
 * The one table of memory-management knobs: name, kind, valid range.  The
 * command line (config.c), workload scripts (`set`, run/script.c) and the
 * run-time setter (mm/knobs.c) all check values here, so `swap_cluster=N`
 * at boot and `set swap_cluster N` in a script accept exactly the same N
 * and refuse the rest with the same message.
 *
 * Pure: no kernel service, so the host tests and fuzzers build it.  The
 * subsystem that owns a knob applies it (mm/knobs.c); a knob that exists
 * only as a name (not implemented yet) is in the table so both front ends
 * can say why it is refused instead of "unknown".
 */
#ifndef KNOB_TABLE_H
#define KNOB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum knob_kind {
	KNOB_U64,               /* decimal or 0x hex in min..max */
	KNOB_BOOL,              /* on/off, yes/no, 1/0, true/false */
	KNOB_WORD,              /* a word its owner checks (ra's policy names) */
};

struct knob_def {
	const char *name;
	enum knob_kind kind;
	uint64_t min, max;      /* KNOB_U64 */
	bool pow2;              /* KNOB_U64: also a power of two */
	const char *missing;    /* non-NULL: not implemented yet, and why; always refused */
	const char *help;       /* one line: README, config_print_help */
};

extern const struct knob_def knob_defs[];
extern const int knob_ndefs;

/* The knob called name, or NULL. */
const struct knob_def *knob_find(const char *name);

/* Check val for k.  Returns 0 (and the number in *out for KNOB_U64, 0/1
 * for KNOB_BOOL, when out is not NULL) or -EINVAL with the reason in why,
 * without the knob's name: "'7' is not a power of two in 8..65536". */
int knob_check(const struct knob_def *k, const char *val, uint64_t *out, char *why, size_t whylen);

#endif
