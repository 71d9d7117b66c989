/*
 * Memory balance records (membal.h).
 *
 * What "settled" means.  When the last task of a run has exited, some of
 * its memory comes back later: a dead thread's stack is freed by the next
 * context switch (and its frames with the next flush of freed stacks,
 * done here), an mm that kswapd or swapoff still references is torn
 * down when they let go, and swap-cache pages of its slots stay until
 * dropped, which only happens once their writeback is done.  So the end
 * (and, for symmetry, the start) polls: drop the unused swap cache, read
 * the free frames, used slots and committed pages (an address space's
 * charge goes with it), and stop once all have stayed the same
 * for MEMBAL_STABLE_POLLS polls in a row.  A count still moving after
 * MEMBAL_SETTLE_MAX_MS is printed as it is, with "settled":false.
 */
#include "membal.h"
#include "core/record.h"
#include "vm/knobs.h"
#include "mem/pmm.h"
#include "vm/commit.h"
#include "mem/kmem.h"
#include "mem/kmalloc.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "core/sched.h"

#define MEMBAL_POLL_MS          10
#define MEMBAL_STABLE_POLLS     5       /* 50 ms unchanged: writeback of a batch is done by then */
#define MEMBAL_SETTLE_MAX_MS    5000    /* a throttled disk's last writes under TCG */

void membal_drain_caches(void)
{
	kmem_stack_flush();
	swapcache_drain_spares();       /* the swap cache's spare nodes, then */
	kmalloc_drain_all();            /* CPUs' cached objects: their empty slab pages go back */
}

void membal_record(const char *phase, const char *of)
{
	uint64_t frames = ~0ull, used = ~0ull, committed = ~0ull;
	unsigned stable = 0, ms = 0;
	while (stable < MEMBAL_STABLE_POLLS && ms < MEMBAL_SETTLE_MAX_MS) {
		vm_drop_caches();
		membal_drain_caches();
		uint64_t f = pmm_free_pages(), u = swap_used_slots(), c = commit_committed_pages();
		stable = (f == frames && u == used && c == committed) ? stable + 1 : 0;
		frames = f;
		used = u;
		committed = c;
		if (stable < MEMBAL_STABLE_POLLS) {
			sleep_ms(MEMBAL_POLL_MS);
			ms += MEMBAL_POLL_MS;
		}
	}
	uint64_t total = swap_total_slots();
	struct json *j = rec_begin("mem_balance");
	json_str(j, "phase", phase);
	json_str(j, "of", of);
	json_u64(j, "free_frames", frames);
	json_u64(j, "swap_slots", total);
	json_u64(j, "swap_used_slots", used);
	json_u64(j, "swap_free_slots", total > used ? total - used : 0);
	json_u64(j, "committed_pages", committed);
	struct pmm_stats st;
	pmm_get_stats(&st);
	json_u64(j, "code_frames", st.code_pages);     /* of free_frames: held user code (pmm.c) */
	json_bool(j, "settled", stable >= MEMBAL_STABLE_POLLS);
	json_u64(j, "settle_ms", ms);
	rec_end();
}
