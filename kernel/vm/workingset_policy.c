/*
 * Workingset detection: shadow words and the refault rule, pure (see
 * workingset_policy.h).  workingset.c applies them.
 */
#include "workingset_policy.h"

#define WS_VALID     1ull
#define WS_SHMEM     2ull
#define WS_WORKING   4ull
#define WS_SHIFT     3
#define WS_MASK      ((1ull << WS_CLOCK_BITS) - 1)

uint64_t ws_pack(uint64_t clock, bool shmem, bool workingset)
{
	return (clock & WS_MASK) << WS_SHIFT | (shmem ? WS_SHMEM : 0) | (workingset ? WS_WORKING : 0) | WS_VALID;
}

bool ws_unpack(uint64_t shadow, struct ws_shadow *out)
{
	if (!(shadow & WS_VALID))
		return false;
	out->eviction = shadow >> WS_SHIFT;
	out->shmem = shadow & WS_SHMEM;
	out->workingset = shadow & WS_WORKING;
	return true;
}

uint64_t ws_distance(uint64_t now, uint64_t eviction)
{
	return (now - eviction) & WS_MASK;
}

uint64_t ws_workingset_size(const struct ws_lists *l)
{
	/* Without swap room the active pages cannot be evicted to make
	 * room, so none of the refault's competition could give way. */
	return l->swap_has_room ? l->active_anon + l->active_shmem : 0;
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
