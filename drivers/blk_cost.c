/*
 * A disk's read cost and read split (see blk_cost.h).
 */
#include "blk_cost.h"

#define EWMA_SHIFT 3            /* each sample weighs 1/8 */
#define MAX_PAGES (1u << (BLK_COST_CLASSES - 1))

static int class_of(uint32_t pages)
{
	int k = 0;
	while (k + 1 < BLK_COST_CLASSES && pages >= (2u << k))
		k++;
	return k;
}

static void average(uint64_t *x, uint64_t v, uint32_t n)
{
	if (!n)
		*x = v;
	else if (v >= *x)
		*x += (v - *x) >> EWMA_SHIFT;
	else
		*x -= (*x - v) >> EWMA_SHIFT;
}

static void fit(struct blk_cost *c)
{
	int s = -1, l = -1;
	for (int k = 0; k <= 2 && s < 0; k++)
		if (c->n[k] >= BLK_COST_MIN_SAMPLES)
			s = k;
	if (s < 0)
		return;
	for (int k = BLK_COST_CLASSES - 1; k >= s + 3 && l < 0; k--)
		if (c->n[k] >= BLK_COST_MIN_SAMPLES)
			l = k;
	if (l < 0)
		return;
	uint64_t ts = c->ns[s], tl = c->ns[l], ps = c->pages16[s], pl = c->pages16[l];
	if (tl <= ts || pl <= ps) {
		/* Larger commands cost no more than small ones: bound by
		 * commands, never worth cutting. */
		c->cmd_ns = ts;
		c->page_ps = 0;
		c->split = 0;
		return;
	}
	/* b = (tl - ts) / (pl - ps) pages; in ps per page, sizes x16. */
	uint64_t b = (tl - ts) * 16000 / (pl - ps);
	uint64_t fixed_of_s = b * ps / 16000;
	uint64_t a = ts > fixed_of_s ? ts - fixed_of_s : 0;
	c->cmd_ns = a;
	c->page_ps = b ? b : 1;
	uint64_t ratio = a * 1000 / c->page_ps;         /* pages at which a == b * pages */
	if (ratio >= MAX_PAGES || ratio < BLK_COST_RATIO_MIN || a >= BLK_COST_SEEK_NS) {
		c->split = 0;
		return;
	}
	/* The power of two nearest the ratio (on a log scale: 16 for 11.3
	 * up to 22.6): the fit's noise moves the ratio by a third between
	 * runs on the same device, and rounding down would halve the split
	 * on one side of a power of two. */
	uint32_t split = BLK_COST_SPLIT_MIN;
	while ((uint64_t)split * split * 4 <= ratio * ratio * 2)
		split *= 2;
	c->split = split;
}

void blk_cost_sample(struct blk_cost *c, uint32_t pages, uint64_t ns)
{
	if (!pages)
		return;
	int k = class_of(pages);
	average(&c->ns[k], ns, c->n[k]);
	average(&c->pages16[k], (uint64_t)pages * 16, c->n[k]);
	if (c->n[k] < UINT32_MAX)
		c->n[k]++;
	fit(c);
}
