/*
 * Overcommit accounting: the count of committed pages (Linux's
 * Committed_AS) and the knobs that judge a request against it
 * (commit_policy.h says what is charged and how it is judged).
 */
#ifndef VM_COMMIT_H
#define VM_COMMIT_H

#include <stdint.h>
#include <stdbool.h>
#include "commit_policy.h"

/* Knobs overcommit_memory, overcommit_ratio, overcommit_kbytes. */
extern struct commit_knobs commit_knobs;

/* Charge `pages` (Linux's security_vm_enough_memory_mm): added to the
 * count and judged with it; false, with nothing charged, when refused.
 * total_vm: the pages the asking address space maps now. */
bool commit_charge(uint64_t pages, uint64_t total_vm);
/* Give back what a charge took (an area unmapped, an object freed). */
void commit_uncharge(uint64_t pages);

uint64_t commit_committed_pages(void);
/* The limit strict mode judges against (CommitLimit), in pages. */
uint64_t commit_limit_pages(void);

#endif
