/*
 * Knob setters: each knob's value is checked against the one knob table
 * (knob_table.h: names, kinds, ranges, knobs not implemented yet), then
 * applied to the subsystem that owns it.  Every row of knob_defs that is
 * implemented has exactly one setter here (a unit test reads both).
 */
#include <string.h>
#include "knobs.h"
#include "lru.h"
#include "reclaim.h"
#include "workingset.h"
#include "pagecache.h"
#include "vm.h"
#include "commit.h"
#include "swap/readahead.h"
#include "swap/ra_policy.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "core/config.h"
#include "drivers/blk.h"
#include "core/knob_table.h"
#include "mem/pmm.h"
#include "lib/printf.h"
#include "lib/json.h"
#include "lib/errno.h"

struct knob {
	const char *name;
	/* x: the checked number (KNOB_U64) or 0/1 (KNOB_BOOL); v: the text */
	int (*set)(const char *v, uint64_t x, char *err, size_t n);
	void (*get)(char *buf, size_t n);
};

static int set_ra(const char *v, uint64_t x, char *err, size_t n)
{
	(void)x;
	if (ra_set_policy(v))
		return 0;
	char hint[32];
	ksnprintf(err, n, "ra: '%s' is not a readahead policy (%s)", v, ra_unknown_hint(v, hint, sizeof hint));
	return -EINVAL;
}
static void get_ra(char *b, size_t n) { ksnprintf(b, n, "%s", ra_policy_name()); }

static int set_read_split(const char *v, uint64_t x, char *err, size_t n)
{
	(void)x;
	if (blk_set_read_split(v))
		return 0;
	ksnprintf(err, n, "blk_read_split: '%s' is not off or a power of two in 8..256", v);
	return -EINVAL;
}
static void get_read_split(char *b, size_t n) { blk_get_read_split(b, n); }

static int set_page_cluster(const char *v, uint64_t x, char *err, size_t n)
{
	(void)v; (void)err; (void)n;
	ra_set_page_cluster((unsigned)x);
	return 0;
}
static void get_page_cluster(char *b, size_t n) { ksnprintf(b, n, "%u", ra_page_cluster()); }

static int set_cluster(const char *v, uint64_t x, char *err, size_t n)
{
	(void)v;
	int r = swap_set_cluster((uint32_t)x);
	if (r)
		ksnprintf(err, n, "swap_cluster: cannot change it while swap slots are in use");
	return r;
}
static void get_cluster(char *b, size_t n) { ksnprintf(b, n, "%u", swap_cluster_size()); }

static int set_wm_min(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.wm_min = x; return 0; }
static int set_wm_low(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.wm_low = x; return 0; }
static int set_wm_high(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.wm_high = x; return 0; }
static void get_wm_min(char *b, size_t n) { ksnprintf(b, n, "%lu", reclaim_knobs.wm_min); }
static void get_wm_low(char *b, size_t n) { ksnprintf(b, n, "%lu", reclaim_knobs.wm_low); }
static void get_wm_high(char *b, size_t n) { ksnprintf(b, n, "%lu", reclaim_knobs.wm_high); }

static int set_batch(const char *v, uint64_t x, char *err, size_t n)
{
	(void)v; (void)err; (void)n;
	reclaim_knobs.batch = (unsigned)x;
	return 0;
}
static void get_batch(char *b, size_t n) { ksnprintf(b, n, "%u", reclaim_knobs.batch); }

static int set_crc(const char *v, uint64_t on, char *err, size_t n)
{
	(void)v;
	if (on && !kcfg.swapcrc && swap_enabled()) {
		ksnprintf(err, n, "swapcrc: can only be turned on at boot (swapcrc=on) while swap is active");
		return -EINVAL;
	}
	kcfg.swapcrc = on;
	return 0;
}
static void get_crc(char *b, size_t n) { ksnprintf(b, n, "%s", kcfg.swapcrc ? "on" : "off"); }

static int set_workingset(const char *v, uint64_t on, char *e, size_t n)
{
	(void)v; (void)e; (void)n;
	workingset_set_enabled(on);
	return 0;
}
static void get_workingset(char *b, size_t n) { ksnprintf(b, n, "%s", workingset_enabled() ? "on" : "off"); }

static int set_mem_limit(const char *v, uint64_t x, char *err, size_t n)
{
	(void)v;
	if (pmm_set_limit(x << 8)) {
		struct pmm_stats st;
		pmm_get_stats(&st);
		ksnprintf(err, n, "mem_limit_mib: %lu MiB is less than is in use (%lu of %lu MiB free)", x,
			  st.free_pages >> 8, st.total_pages >> 8);
		return -ENOMEM;
	}
	return 0;
}
static void get_mem_limit(char *b, size_t n) { ksnprintf(b, n, "%lu", pmm_limit() >> 8); }

static int set_swappiness(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.swappiness = (unsigned)x; return 0; }
static void get_swappiness(char *b, size_t n) { ksnprintf(b, n, "%u", reclaim_knobs.swappiness); }
static int set_used_once(const char *v, uint64_t on, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.used_once_swapbacked = on; return 0; }
static void get_used_once(char *b, size_t n) { ksnprintf(b, n, "%s", reclaim_knobs.used_once_swapbacked ? "on" : "off"); }
static int set_age_ahead(const char *v, uint64_t on, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.age_ahead = on; return 0; }
static void get_age_ahead(char *b, size_t n) { ksnprintf(b, n, "%s", reclaim_knobs.age_ahead ? "on" : "off"); }
static int set_anon_used_once(const char *v, uint64_t on, char *e, size_t n) { (void)v; (void)e; (void)n; reclaim_knobs.anon_used_once = on; return 0; }
static void get_anon_used_once(char *b, size_t n) { ksnprintf(b, n, "%s", reclaim_knobs.anon_used_once ? "on" : "off"); }
static int set_dirty_bg(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; pagecache_dirty_background_ratio = (unsigned)x; return 0; }
static void get_dirty_bg(char *b, size_t n) { ksnprintf(b, n, "%u", pagecache_dirty_background_ratio); }
static int set_dirty_ratio(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; pagecache_dirty_ratio = (unsigned)x; return 0; }
static void get_dirty_ratio(char *b, size_t n) { ksnprintf(b, n, "%u", pagecache_dirty_ratio); }
static int set_dirty_mmap(const char *v, uint64_t on, char *e, size_t n) { (void)v; (void)e; (void)n; pagecache_dirty_mmap = on; return 0; }
static void get_dirty_mmap(char *b, size_t n) { ksnprintf(b, n, "%s", pagecache_dirty_mmap ? "on" : "off"); }
static int set_dirty_expire(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; pagecache_dirty_expire_cs = (unsigned)x; return 0; }
static void get_dirty_expire(char *b, size_t n) { ksnprintf(b, n, "%u", pagecache_dirty_expire_cs); }
static int set_overcommit(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; commit_knobs.mode = (unsigned)x; return 0; }
static void get_overcommit(char *b, size_t n) { ksnprintf(b, n, "%u", commit_knobs.mode); }
/* As Linux's handlers: setting one of ratio and kbytes zeroes the other. */
static int set_commit_ratio(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; commit_knobs.ratio = x; commit_knobs.kbytes = 0; return 0; }
static void get_commit_ratio(char *b, size_t n) { ksnprintf(b, n, "%lu", commit_knobs.ratio); }
static int set_commit_kbytes(const char *v, uint64_t x, char *e, size_t n) { (void)v; (void)e; (void)n; commit_knobs.kbytes = x; commit_knobs.ratio = 0; return 0; }
static void get_commit_kbytes(char *b, size_t n) { ksnprintf(b, n, "%lu", commit_knobs.kbytes); }

static const struct knob knobs[] = {
	{ "ra", set_ra, get_ra },
	{ "page_cluster", set_page_cluster, get_page_cluster },
	{ "swap_cluster", set_cluster, get_cluster },
	{ "wm_min", set_wm_min, get_wm_min },
	{ "wm_low", set_wm_low, get_wm_low },
	{ "wm_high", set_wm_high, get_wm_high },
	{ "reclaim_batch", set_batch, get_batch },
	{ "swapcrc", set_crc, get_crc },
	{ "workingset", set_workingset, get_workingset },
	{ "mem_limit_mib", set_mem_limit, get_mem_limit },
	{ "blk_read_split", set_read_split, get_read_split },
	{ "swappiness", set_swappiness, get_swappiness },
	{ "used_once_swapbacked", set_used_once, get_used_once },
	{ "anon_used_once", set_anon_used_once, get_anon_used_once },
	{ "age_ahead", set_age_ahead, get_age_ahead },
	{ "dirty_background_ratio", set_dirty_bg, get_dirty_bg },
	{ "dirty_ratio", set_dirty_ratio, get_dirty_ratio },
	{ "dirty_expire_centisecs", set_dirty_expire, get_dirty_expire },
	{ "dirty_mmap", set_dirty_mmap, get_dirty_mmap },
	{ "overcommit_memory", set_overcommit, get_overcommit },
	{ "overcommit_ratio", set_commit_ratio, get_commit_ratio },
	{ "overcommit_kbytes", set_commit_kbytes, get_commit_kbytes },
};

#define NKNOBS (sizeof knobs / sizeof knobs[0])

static const struct knob *setter(const char *name)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i].name, name))
			return &knobs[i];
	return NULL;
}

int vm_set_knob(const char *name, const char *value, char *err, size_t n)
{
	const struct knob_def *d = knob_find(name);
	const struct knob *k = setter(name);
	char why[128];
	uint64_t x = 0;
	if (!d || (!k && !d->missing)) {
		ksnprintf(err, n, "no knob named '%s'", name);
		return -EINVAL;
	}
	if (knob_check(d, value, &x, why, sizeof why)) {
		ksnprintf(err, n, "%s: %s", name, why);
		return -EINVAL;
	}
	return k->set(value, x, err, n);
}

const char *vm_get_knob(const char *name, char *buf, size_t n)
{
	const struct knob *k = setter(name);
	if (!k)
		return NULL;
	k->get(buf, n);
	return buf;
}

void vm_knobs_json(struct json *j)
{
	char buf[32];
	json_obj_begin(j, "knobs");
	for (size_t i = 0; i < NKNOBS; i++) {
		knobs[i].get(buf, sizeof buf);
		json_str(j, knobs[i].name, buf);
	}
	json_obj_end(j);
}

void vm_drop_caches(void)
{
	lru_drain_all();                /* pages waiting in add batches hold references */
	swap_drop_unused_cache();
	pagecache_drop_clean();
}
