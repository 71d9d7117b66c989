/*
 * Memory balance: free frames and swap slots at the start and the end of
 * a run= line or a script, as {"type":"mem_balance"} records, so a test
 * can fail on a leak instead of letting it hide.
 *
 *   {"type":"mem_balance","phase":"start"|"end","of":"run"|"script",
 *    "free_frames":N,"swap_slots":N,"swap_used_slots":N,
 *    "swap_free_slots":N,"settled":true|false,"settle_ms":N}
 *
 * swap_slots counts the usable slots of the areas present (bad and retired
 * slots excluded): @swapon, @swapoff and a retired slot change it, so a
 * leak shows as swap_used_slots at the end above the start's.
 */
#ifndef MEMBAL_H
#define MEMBAL_H

/* Let exited tasks' memory come back (dead threads' stacks, the swap
 * cache of their slots, writeback in flight), then print the record.
 * Sleeps (up to MEMBAL_SETTLE_MAX_MS); kmain thread, no locks held. */
void membal_record(const char *phase, const char *of);

/* Give back what the kernel's own caches hold of exited tasks' memory:
 * dead threads' stacks, the swap cache's spare nodes, the CPUs' cached
 * kmalloc objects (their empty slab pages).  Before each run unit too,
 * so every run starts with the memory the first had (membal.c). */
void membal_drain_caches(void);

#endif
