/*
 * Counters and the vmstat sampler.  Counters are 64-bit atomics; the
 * sampler is a kernel thread printing Linux's `vmstat` columns (seed 002
 * shows the format) from counter deltas.
 */
#include "vmstat.h"
#include "mem/pmm.h"
#include "lru.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "shmem.h"
#include "pagecache.h"
#include "page_ref.h"
#include "core/console.h"
#include "core/record.h"
#include "core/time.h"
#include "lib/json.h"
#include "core/sched.h"

static uint64_t counters[VMSTAT_NITEMS];

static const char *const names[VMSTAT_NITEMS] = {
	"pgfault", "pgmajfault", "pgpgin", "pgpgout", "pswpin", "pswpout",
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"pgactivate", "pgdeactivate", "pgrotated", "pgrefill",
	"swap_ra", "swap_ra_hit", "swap_ra_waste", "swap_ra_trimmed", "swap_ra_wait", "swap_ra_fill",
	"swap_ra_fill_hit",
	"swap_ra_split",
	"swapcache_add", "swapcache_find", "swapcache_find_hit", "swapcache_del",
	"workingset_refault_anon", "workingset_refault_shmem", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_shmem", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_shmem", "workingset_restore_file",
	"swap_write_errors", "swap_read_errors", "swap_crc_mismatch",
	"oom_kill", "allocstall", "kswapd_wakeups",
	"swap_write_reqs", "swap_read_reqs",
	"pgscan_file", "pgsteal_file",
	"tlb_shootdown_ipis", "tlb_shootdown_pages",
	"reclaim_overlap", "reclaim_direct_waited", "reclaim_direct_skipped",
	"fault_overlap",
	"pgage_ahead",
	"shmem_orphans",
	"reclaim_kswapd_waited",
};

void vmstat_add(enum vmstat_item i, uint64_t n) { __atomic_add_fetch(&counters[i], n, __ATOMIC_RELAXED); }
uint64_t vmstat_get(enum vmstat_item i) { return __atomic_load_n(&counters[i], __ATOMIC_RELAXED); }
const char *vmstat_name(enum vmstat_item i) { return names[i]; }

void vmstat_snapshot(uint64_t out[VMSTAT_NITEMS])
{
	for (int i = 0; i < VMSTAT_NITEMS; i++)
		out[i] = vmstat_get(i);
}

static void gauges(struct json *j)
{
	json_u64(j, "nr_free_pages", pmm_free_pages());
	json_u64(j, "nr_active_anon", lru_size(LRU_ANON, true));
	json_u64(j, "nr_inactive_anon", lru_size(LRU_ANON, false));
	json_u64(j, "nr_active_shmem", lru_size(LRU_SHMEM, true));
	json_u64(j, "nr_inactive_shmem", lru_size(LRU_SHMEM, false));
	json_u64(j, "nr_active_file", lru_size(LRU_FILE, true));
	json_u64(j, "nr_inactive_file", lru_size(LRU_FILE, false));
	/* Linux's nr_file_pages: the page cache with shmem and swap cache. */
	json_u64(j, "nr_file_pages", pagecache_nr_pages() + shmem_total_resident() + swapcache_size());
	json_u64(j, "nr_pagecache_blk", pagecache_nr_pages());
	json_u64(j, "nr_mapped", page_nr_mapped());
	json_u64(j, "nr_dirty", pagecache_nr_dirty());
	json_u64(j, "nr_writeback", pagecache_nr_writeback());
	json_u64(j, "nr_shmem", shmem_total_resident());
	json_u64(j, "nr_swap_cache", swapcache_size());
	/* Both kinds: the swap cache's (anon, shmem) and the page cache's. */
	json_u64(j, "nr_workingset_shadows", swapcache_shadows() + pagecache_nr_shadows());
	json_u64(j, "swap_total_pages", swap_total_slots());
	json_u64(j, "swap_used_pages", swap_used_slots());
}

void vmstat_json(struct json *j)
{
	for (int i = 0; i < VMSTAT_NITEMS; i++)
		json_u64(j, names[i], vmstat_get(i));
	gauges(j);
}

void vmstat_json_delta(struct json *j, const uint64_t base[VMSTAT_NITEMS])
{
	for (int i = 0; i < VMSTAT_NITEMS; i++)
		json_u64(j, names[i], vmstat_get(i) - base[i]);
	gauges(j);
}

static void S_stop(void);

void vmstat_record(const char *label)
{
	struct json *j = rec_begin("vmstat");
	if (label)
		json_str(j, "label", label);
	vmstat_json(j);
	swap_json(j);
	rec_end();
}

void vmstat_final(void)
{
	S_stop();
	vmstat_record("final");
}

/* ------------------------------------------------------------ sampler */

static struct {
	volatile uint64_t interval_ms;
	struct thread *t;
} S;

static void sampler(void *arg)
{
	(void)arg;
	uint64_t prev[VMSTAT_NITEMS], now[VMSTAT_NITEMS];
	vmstat_snapshot(prev);
	uint64_t t_prev = time_ns();
	kprintf("vmstat: %6s %8s %8s %6s %6s %8s %8s %3s %3s\n", "time_s", "free_kb", "swpd_kb", "si", "so", "bi", "bo", "r", "b");
	while (S.interval_ms) {
		sleep_ms(S.interval_ms);
		if (!S.interval_ms)
			break;          /* stopped while it slept: no line after the stop */
		vmstat_snapshot(now);
		uint64_t t = time_ns(), dt_ms = (t - t_prev) / 1000000 ? (t - t_prev) / 1000000 : 1;
		/* si/so in KiB/s and bi/bo in KiB/s, as vmstat prints them. */
		uint64_t si = (now[PSWPIN] - prev[PSWPIN]) * 4 * 1000 / dt_ms;
		uint64_t so = (now[PSWPOUT] - prev[PSWPOUT]) * 4 * 1000 / dt_ms;
		uint64_t bi = (now[PGPGIN] - prev[PGPGIN]) * 1000 / dt_ms;
		uint64_t bo = (now[PGPGOUT] - prev[PGPGOUT]) * 1000 / dt_ms;
		unsigned r, b;
		sched_counts(&r, &b);
		kprintf("vmstat: %6lu %8lu %8lu %6lu %6lu %8lu %8lu %3u %3u\n", t / 1000000000, pmm_free_pages() * 4,
			swap_used_slots() * 4, si, so, bi, bo, r, b);
		for (int i = 0; i < VMSTAT_NITEMS; i++)
			prev[i] = now[i];
		t_prev = t;
	}
	S.t = NULL;
}

static void S_stop(void) { S.interval_ms = 0; }

void vmstat_sampler(uint64_t interval_ms)
{
	S.interval_ms = interval_ms;
	if (interval_ms && !S.t)
		S.t = thread_create("vmstat", sampler, NULL, SCHED_NORMAL);
}
