/*
 * Run-time memory-management knobs, by name, for workload scripts (`set
 * NAME VALUE`) and tests.  Names follow Linux where Linux has the knob:
 *
 *   ra            swap-in readahead policy: off, fixed:N, hugh, shaohua, vma,
 *                 own (ra_policy.h); fixed:N also sets page_cluster to N
 *   page_cluster  Linux's vm.page-cluster (0..8): the bound of hugh, shaohua
 *                 and vma, and N of fixed:N while that policy is on
 *   swap_cluster  slots per swap cluster, every area (areas must be empty),
 *                 a power of two in 8..65536
 *   wm_min, wm_low, wm_high   free-page watermarks, in pages (16..2^30)
 *   reclaim_batch pages per swap-out batch (1..256)
 *   swapcrc       on/off: checksum swapped pages
 *   workingset    on/off: workingset detection (workingset.h): shadows,
 *                 refault counts, activation of refaults
 *   mem_limit_mib run-time mem=: the page allocator hands out at most this
 *                 many MiB, the rest held untouched (0: no limit), so a big
 *                 machine can be squeezed for a swap test (pmm_set_limit)
 *
 * Names and valid ranges are in the one knob table (knob_table.h), which
 * the command line and the script parser check too.
 */
#ifndef KNOBS_H
#define KNOBS_H

#include <stddef.h>
#include <stdbool.h>

/* 0, or -EINVAL with a one-line reason in err. */
int vm_set_knob(const char *name, const char *value, char *err, size_t errlen);
/* The knob's current value as text, or NULL for an unknown name. */
const char *vm_get_knob(const char *name, char *buf, size_t len);
/* Every knob as members of a JSON object (for result records). */
struct json;
void vm_knobs_json(struct json *j);

/* Between runs and for `drop_caches`: drop swap-cache pages nobody maps
 * or needs any more, and the page cache's pages (dirty ones written back
 * first), so every run starts from the same state. */
void vm_drop_caches(void);

#endif
