/*
 * Workingset detection: shadow words and the refault rule, pure (see
 * workingset_policy.h).  workingset.c applies them.
 */
#include "workingset_policy.h"

#define WS_VALID     1ull
#define WS_KIND_SHIFT 1
#define WS_KIND_MASK 3ull
#define WS_WORKING   8ull
#define WS_SHIFT     4
#define WS_MASK      ((1ull << WS_CLOCK_BITS) - 1)

uint64_t ws_pack(uint64_t clock, enum ws_kind kind, bool workingset)
{
	return (clock & WS_MASK) << WS_SHIFT | ((uint64_t)kind & WS_KIND_MASK) << WS_KIND_SHIFT |
	       (workingset ? WS_WORKING : 0) | WS_VALID;
}

bool ws_unpack(uint64_t shadow, struct ws_shadow *out)
{
	if (!(shadow & WS_VALID))
		return false;
	out->eviction = shadow >> WS_SHIFT;
	out->kind = (enum ws_kind)(shadow >> WS_KIND_SHIFT & WS_KIND_MASK);
	out->workingset = shadow & WS_WORKING;
	return true;
}

uint64_t ws_distance(uint64_t now, uint64_t eviction)
{
	return (now - eviction) & WS_MASK;
}

uint64_t ws_workingset_size(const struct ws_lists *l, bool file)
{
	uint64_t size = l->active_file;
	if (!file)
		size += l->inactive_file;
	if (l->swap_has_room)
		size += l->active_anon + (file ? l->inactive_anon : 0);
	return size;
}

bool ws_should_activate(uint64_t distance, uint64_t workingset_size)
{
	return distance <= workingset_size;
}

bool ws_shadow_stale(uint64_t shadow, uint64_t now, uint64_t workingset_size)
{
	struct ws_shadow s;
	return !ws_unpack(shadow, &s) || !ws_should_activate(ws_distance(now, s.eviction), workingset_size);
}
