/*
 * Knob table: each knob parses its value, checks its range, and applies it
 * to the subsystem that owns it.
 */
#include <string.h>
#include "knobs.h"
#include "reclaim.h"
#include "readahead.h"
#include "swap.h"
#include "swapcache.h"
#include "pmm.h"
#include "config.h"
#include "lib/cmdline.h"
#include "lib/printf.h"
#include "lib/json.h"
#include "lib/errno.h"

struct knob {
	const char *name;
	int (*set)(const char *v, char *err, size_t n);
	void (*get)(char *buf, size_t n);
};

static int bad(char *err, size_t n, const char *what, const char *v)
{
	ksnprintf(err, n, "%s: '%s' is not %s", what, v, what[0] == 'r' && what[1] == 'a' ? "a readahead policy" : "valid");
	return -EINVAL;
}

static int u64_in(const char *v, uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t n, const char *name)
{
	if (!cmdline_parse_u64(v, out) || *out < lo || *out > hi) {
		ksnprintf(err, n, "%s: '%s' is not a number in %lu..%lu", name, v, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static int set_ra(const char *v, char *err, size_t n) { return ra_set_policy(v) ? 0 : bad(err, n, "ra", v); }
static void get_ra(char *b, size_t n) { ksnprintf(b, n, "%s", ra_policy_name()); }

static int set_page_cluster(const char *v, char *err, size_t n)
{
	uint64_t x;
	if (u64_in(v, 0, 8, &x, err, n, "page_cluster"))
		return -EINVAL;
	ra_set_page_cluster((unsigned)x);
	return 0;
}
static void get_page_cluster(char *b, size_t n) { ksnprintf(b, n, "%u", ra_page_cluster()); }

static int set_swappiness(const char *v, char *err, size_t n)
{
	uint64_t x;
	if (u64_in(v, 0, 200, &x, err, n, "swappiness"))
		return -EINVAL;
	reclaim_knobs.swappiness = (unsigned)x;
	return 0;
}
static void get_swappiness(char *b, size_t n) { ksnprintf(b, n, "%u", reclaim_knobs.swappiness); }

static int set_cluster(const char *v, char *err, size_t n)
{
	uint64_t x;
	if (u64_in(v, 8, 65536, &x, err, n, "swap_cluster"))
		return -EINVAL;
	if (x & (x - 1)) {
		ksnprintf(err, n, "swap_cluster: %lu is not a power of two", x);
		return -EINVAL;
	}
	int r = swap_set_cluster((uint32_t)x);
	if (r)
		ksnprintf(err, n, "swap_cluster: cannot change it while swap slots are in use");
	return r;
}
static void get_cluster(char *b, size_t n) { ksnprintf(b, n, "%u", swap_cluster_size()); }

static int set_wm(uint64_t *dst, const char *name, const char *v, char *err, size_t n)
{
	uint64_t x;
	if (u64_in(v, 16, 1u << 30, &x, err, n, name))
		return -EINVAL;
	*dst = x;
	return 0;
}
static int set_wm_min(const char *v, char *e, size_t n) { return set_wm(&reclaim_knobs.wm_min, "wm_min", v, e, n); }
static int set_wm_low(const char *v, char *e, size_t n) { return set_wm(&reclaim_knobs.wm_low, "wm_low", v, e, n); }
static int set_wm_high(const char *v, char *e, size_t n) { return set_wm(&reclaim_knobs.wm_high, "wm_high", v, e, n); }
static void get_wm_min(char *b, size_t n) { ksnprintf(b, n, "%lu", reclaim_knobs.wm_min); }
static void get_wm_low(char *b, size_t n) { ksnprintf(b, n, "%lu", reclaim_knobs.wm_low); }
static void get_wm_high(char *b, size_t n) { ksnprintf(b, n, "%lu", reclaim_knobs.wm_high); }

static int set_batch(const char *v, char *err, size_t n)
{
	uint64_t x;
	if (u64_in(v, 1, 256, &x, err, n, "reclaim_batch"))
		return -EINVAL;
	reclaim_knobs.batch = (unsigned)x;
	return 0;
}
static void get_batch(char *b, size_t n) { ksnprintf(b, n, "%u", reclaim_knobs.batch); }

static int set_crc(const char *v, char *err, size_t n)
{
	bool on;
	if (!cmdline_parse_bool(v, &on))
		return bad(err, n, "swapcrc", v);
	if (on && !kcfg.swapcrc && swap_enabled()) {
		ksnprintf(err, n, "swapcrc: can only be turned on at boot (swapcrc=on) while swap is active");
		return -EINVAL;
	}
	kcfg.swapcrc = on;
	return 0;
}
static void get_crc(char *b, size_t n) { ksnprintf(b, n, "%s", kcfg.swapcrc ? "on" : "off"); }

static int set_mem_limit(const char *v, char *err, size_t n)
{
	uint64_t x;
	if (u64_in(v, 0, 1ull << 30, &x, err, n, "mem_limit_mib"))
		return -EINVAL;
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

static const struct knob knobs[] = {
	{ "ra", set_ra, get_ra },
	{ "page_cluster", set_page_cluster, get_page_cluster },
	{ "swappiness", set_swappiness, get_swappiness },
	{ "swap_cluster", set_cluster, get_cluster },
	{ "wm_min", set_wm_min, get_wm_min },
	{ "wm_low", set_wm_low, get_wm_low },
	{ "wm_high", set_wm_high, get_wm_high },
	{ "reclaim_batch", set_batch, get_batch },
	{ "swapcrc", set_crc, get_crc },
	{ "mem_limit_mib", set_mem_limit, get_mem_limit },
};

#define NKNOBS (sizeof knobs / sizeof knobs[0])

int vm_set_knob(const char *name, const char *value, char *err, size_t n)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i].name, name))
			return knobs[i].set(value, err, n);
	ksnprintf(err, n, "no knob named '%s'", name);
	return -EINVAL;
}

const char *vm_get_knob(const char *name, char *buf, size_t n)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i].name, name)) {
			knobs[i].get(buf, n);
			return buf;
		}
	return NULL;
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
	swap_drop_unused_cache();
}
