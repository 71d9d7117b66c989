/*
 * Page-cache policy (pagecache_policy.h).  The read-ahead rules are
 * Linux 6.1's ondemand_readahead without its page-cache probing (the
 * caller tells us whether it is a miss or a marker hit).
 */
#include "pagecache_policy.h"

static uint32_t pow2_up(uint32_t v)
{
	uint32_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

/* Linux's get_init_ra_size: x4 for small requests, x2 medium, else max. */
static uint32_t init_size(uint32_t req, uint32_t max)
{
	uint32_t n = pow2_up(req);
	if (n <= max / 32)
		n *= 4;
	else if (n <= max / 4)
		n *= 2;
	else
		n = max;
	return n > max ? max : n;
}

/* Linux's get_next_ra_size. */
static uint32_t next_size(uint32_t cur, uint32_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static struct pagecache_ra_io window(const struct pagecache_ra *ra)
{
	struct pagecache_ra_io io = { .start = ra->start, .n = ra->size, .mark = ~0ull };
	if (ra->async_size)
		io.mark = ra->start + ra->size - ra->async_size;
	return io;
}

struct pagecache_ra_io pagecache_ra_next(struct pagecache_ra *ra, uint64_t index, uint32_t req, bool marker_hit,
					 uint32_t max)
{
	uint64_t prev = ra->prev;
	if (!req)
		req = 1;
	if (!max)
		max = 1;
	ra->prev = index + req;
	uint64_t expected = ra->start + ra->size - ra->async_size;
	bool in_step = ra->size && (index == expected || index == ra->start + ra->size);
	if (marker_hit || in_step) {
		/* The stream reached the marker (or the window's end): the
		 * next window follows this one, larger. */
		if (marker_hit && !in_step) {
			ra->start = index + 1;  /* a marker from an older window: ramp from here */
			ra->size = next_size(req, max);
		} else {
			ra->start += ra->size;
			ra->size = next_size(ra->size, max);
		}
		ra->async_size = ra->size;
		return window(ra);
	}
	if (index == 0 || index == prev || index + 1 == prev || req > max) {
		/* Start of file, or a sequential miss: a fresh window. */
		uint32_t want = req > max ? max : req;
		ra->start = index;
		ra->size = init_size(want, max);
		if (ra->size < want)
			ra->size = want;
		ra->async_size = ra->size > want ? ra->size - want : ra->size;
		return window(ra);
	}
	/* Random: read what was asked, keep no window. */
	ra->start = index;
	ra->size = 0;
	ra->async_size = 0;
	return (struct pagecache_ra_io){ .start = index, .n = req > max ? max : req, .mark = ~0ull };
}

uint32_t pagecache_ra_max(uint32_t req, uint32_t ra_max, uint32_t io_pages)
{
	if (req <= ra_max || io_pages <= ra_max)
		return ra_max;
	return req < io_pages ? req : io_pages;
}

uint32_t pagecache_mmap_miss(uint32_t miss, bool hit, uint64_t idx, uint64_t last_miss)
{
	uint64_t d = idx > last_miss ? idx - last_miss : last_miss - idx;
	if (hit || (d && d <= PAGECACHE_MMAP_NEAR))
		return miss ? miss - 1 : 0;
	return miss < PAGECACHE_MMAP_LOTSAMISS * 10 ? miss + 1 : miss;
}

void pagecache_dirty_limits(uint64_t dirtyable, unsigned bg_ratio, unsigned ratio, uint64_t *bg, uint64_t *thresh)
{
	*thresh = dirtyable / 100 * ratio + dirtyable % 100 * ratio / 100;
	*bg = dirtyable / 100 * bg_ratio + dirtyable % 100 * bg_ratio / 100;
	if (*bg >= *thresh)
		*bg = *thresh / 2;
}

uint64_t pagecache_err_note(struct pagecache_err *ring, uint64_t n, uint64_t start, uint64_t end)
{
	ring[(n + 1) % PAGECACHE_ERR_RING] = (struct pagecache_err){ n + 1, start, end };
	return n + 1;
}

bool pagecache_err_since(const struct pagecache_err *ring, uint64_t n, uint64_t seen, uint64_t start, uint64_t end)
{
	if (n - seen > PAGECACHE_ERR_RING)
		return true;
	for (uint64_t k = seen + 1; k <= n; k++) {
		const struct pagecache_err *e = &ring[k % PAGECACHE_ERR_RING];
		if (e->start < end && e->end > start)
			return true;
	}
	return false;
}

enum pagecache_dirty_state pagecache_dirty_state(uint64_t nr, uint64_t bg, uint64_t thresh)
{
	if (nr > thresh)
		return PAGECACHE_DIRTY_THROTTLE;
	if (nr > bg)
		return PAGECACHE_DIRTY_BACKGROUND;
	return PAGECACHE_DIRTY_FREE;
}
