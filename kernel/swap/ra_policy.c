/*
 * Swap-in readahead window logic.  See ra_policy.h.
 */
#include <string.h>
#include "ra_policy.h"
#include "lib/suggest.h"
#include "lib/printf.h"

static const char *const names[] = {
	[RA_OFF] = "off", [RA_FIXED] = "fixed", [RA_HUGH] = "hugh",
	[RA_SHAOHUA] = "shaohua", [RA_VMA] = "vma", [RA_OWN] = "own",
};

bool ra_parse(const char *s, struct ra_spec *out)
{
	if (!strncmp(s, "fixed:", 6)) {
		const char *d = s + 6;
		if (d[0] < '0' || d[0] > '9' || d[1] || (unsigned)(d[0] - '0') > RA_MAX_ORDER)
			return false;
		out->kind = RA_FIXED;
		out->order = (unsigned)(d[0] - '0');
		return true;
	}
	for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++) {
		if (k != RA_FIXED && !strcmp(s, names[k])) {
			out->kind = (enum ra_kind)k;
			out->order = 0;
			return true;
		}
	}
	return false;
}

const char *ra_suggest(const char *s)
{
	static const char *const spellings[] = {
		"off", "hugh", "shaohua", "vma", "own", "fixed:0", "fixed:1", "fixed:2", "fixed:3",
		"fixed:4", "fixed:5", "fixed:6", "fixed:7", "fixed:8",
	};
	_Static_assert(RA_MAX_ORDER == 8, "fixed:N spellings");
	if (!strncmp(s, "fixed:", 6))
		return NULL;            /* a bad N: each fixed:N as near as the next */
	return name_suggest(s, spellings, (int)(sizeof spellings / sizeof spellings[0]));
}

const char *ra_unknown_hint(const char *s, char *buf, size_t n)
{
	const char *near = ra_suggest(s);
	if (!near)
		return RA_POLICIES;
	ksnprintf(buf, n, "did you mean %s?", near);
	return buf;
}

void ra_format(const struct ra_spec *spec, char *buf, size_t n)
{
	const char *name = names[spec->kind];
	size_t len = strlen(name);
	if (len + 3 > n) {
		buf[0] = 0;
		return;
	}
	memcpy(buf, name, len);
	if (spec->kind == RA_FIXED) {
		buf[len++] = ':';
		buf[len++] = (char)('0' + spec->order);
	}
	buf[len] = 0;
}

/* ---------------------------------------------------------------- slots */

void ra_slot_window(uint64_t off, uint32_t pages, uint64_t limit, struct ra_slots *w)
{
	if (pages <= 1) {
		w->start = off;
		w->count = 1;
		return;
	}
	uint64_t start = off & ~((uint64_t)pages - 1), end = start + pages;
	if (start == 0)
		start = 1;
	if (end > limit)
		end = limit;
	if (end <= off)
		end = off + 1;
	w->start = start;
	w->count = (uint32_t)(end - start);
}

uint32_t ra_nr_pages(uint64_t prev, uint64_t off, uint32_t hits, uint32_t max_pages, uint32_t prev_win)
{
	uint32_t pages = hits + 2;
	if (pages == 2) {
		/* No hits to judge by: an adjacent fault still counts, so a
		 * window can open again after it shrank to one page. */
		if (off != prev + 1 && off + 1 != prev)
			pages = 1;
	} else {
		uint32_t up = 4;
		while (up < pages)
			up <<= 1;
		pages = up;
	}
	if (pages > max_pages)
		pages = max_pages;
	if (pages < prev_win / 2)   /* shrink slowly */
		pages = prev_win / 2;
	return pages ? pages : 1;
}

uint32_t ra_hugh_pages(struct ra_hugh *h, uint64_t off, uint32_t max_pages)
{
	if (max_pages <= 1)
		return 1;
	uint32_t hits = h->hits;
	h->hits = 0;
	uint32_t pages = ra_nr_pages(h->prev, off, hits, max_pages, h->last);
	if (!hits)
		h->prev = off;
	h->last = pages;
	return pages;
}

void ra_hugh_hit(struct ra_hugh *h)
{
	if (h->hits < 1u << 30)
		h->hits++;
}

uint32_t ra_shaohua_miss(uint64_t *state, uint32_t max_pages)
{
	if (*state < RA_SHAOHUA_MAX_MISS)
		(*state)++;
	return *state > RA_SHAOHUA_THRESHOLD ? 1 : max_pages;
}

void ra_shaohua_hit(uint64_t *state)
{
	if (*state)
		(*state)--;
}

/* ---------------------------------------------------------------- vma */

#define VST_HITS(s) ((uint32_t)((s) & 0xff))
#define VST_WIN(s) ((uint32_t)(((s) >> 8) & 0x1ff))
#define VST_PFN(s) ((s) >> 17)
#define VST(pfn, win, hits) (((uint64_t)(pfn) << 17) | ((uint64_t)(win) << 8) | (uint64_t)(hits))

/* The page an adjacent fault at fpfn follows: Linux's previous fault's
 * page when next to fpfn, else a recent fault's (state[1], low 16 bits)
 * next to it, else the previous fault's page (not adjacent). */
static uint64_t vma_near(const uint64_t *state, uint64_t fpfn)
{
	uint64_t prev = VST_PFN(state[0]);
	if (prev == fpfn + 1 || prev + 1 == fpfn)
		return prev;
	for (int i = 0; i < RA_VMA_HIST; i++) {
		uint16_t h = (uint16_t)(state[1] >> (16 * i));
		if (h == (uint16_t)(fpfn - 1))
			return fpfn - 1;
		if (h == (uint16_t)(fpfn + 1))
			return fpfn + 1;
	}
	return prev;
}

/* Record fpfn as the last fault (the previous one joins the history). */
static void vma_push(uint64_t *state, uint64_t fpfn, uint32_t win, uint32_t hits)
{
	uint64_t prev = VST_PFN(state[0]);
	if (prev != fpfn)
		state[1] = (state[1] << 16) | (uint16_t)prev;
	state[0] = VST(fpfn, win, hits);
}

void ra_vma_miss(uint64_t *state, uint64_t fpfn, uint64_t lo, uint64_t hi, uint32_t max_pages,
		 struct ra_lwin *w)
{
	uint64_t s = state[0], prev = vma_near(state, fpfn);
	if (max_pages > 1u << RA_VMA_MAX_ORDER)
		max_pages = 1u << RA_VMA_MAX_ORDER;
	uint32_t win = max_pages <= 1 ? 1 : ra_nr_pages(prev, fpfn, VST_HITS(s), max_pages, VST_WIN(s));
	vma_push(state, fpfn, win, 0);
	w->stride = 1;
	w->start = fpfn;
	w->count = 1;
	w->marker = false;
	w->run = false;
	if (win == 1)
		return;
	uint64_t l, r;      /* [l, r) */
	if (fpfn == prev + 1) {
		l = fpfn;
		r = fpfn + win;
	} else if (fpfn + 1 == prev) {
		l = fpfn + 1 >= win ? fpfn + 1 - win : 0;
		r = fpfn + 1;
	} else {
		uint64_t left = (win - 1) / 2;
		l = fpfn >= left ? fpfn - left : 0;
		r = l + win;
	}
	uint64_t pmd_lo = fpfn & ~(uint64_t)(RA_PMD_PAGES - 1), pmd_hi = pmd_lo + RA_PMD_PAGES;
	if (l < lo)
		l = lo;
	if (l < pmd_lo)
		l = pmd_lo;
	if (r > hi)
		r = hi;
	if (r > pmd_hi)
		r = pmd_hi;
	w->start = l;
	w->count = (uint32_t)(r - l);
}

void ra_vma_lookup(uint64_t *state, uint64_t fpfn, bool readahead)
{
	uint64_t s = state[0];
	uint32_t hits = VST_HITS(s);
	if (readahead && hits < 0xff)
		hits++;
	vma_push(state, fpfn, VST_WIN(s), hits);
}

uint32_t ra_fill_gaps(const uint64_t *sorted, uint32_t n, uint32_t max, uint64_t *out)
{
	uint32_t m = 0;
	for (uint32_t i = 1; i < n; i++) {
		uint64_t a = sorted[i - 1], b = sorted[i];
		if (b <= a + 1 || b - a - 1 > RA_FILL_GAP)
			continue;
		if (m + (b - a - 1) > max)
			break;
		for (uint64_t s = a + 1; s < b; s++)
			out[m++] = s;
	}
	return m;
}

uint32_t ra_fill_room(struct ra_fill *f, uint32_t room)
{
	if (f->read < RA_FILL_LEARN || f->used * RA_FILL_USE >= f->read)
		return room;
	return ++f->windows % RA_FILL_PROBE == 0 ? room : 0;
}

void ra_fill_read(struct ra_fill *f, uint32_t n)
{
	f->read += n;
	if (f->read > RA_FILL_FORGET) {         /* forget slowly */
		f->read /= 2;
		f->used /= 2;
	}
}

void ra_fill_used(struct ra_fill *f)
{
	if (f->used < f->read)
		f->used++;
}

/* ---------------------------------------------------------------- own */

/* k with idx = pos + k * stride, k >= 0; -1 when there is none. */
static int64_t steps_to(uint64_t pos, int64_t stride, uint64_t idx)
{
	int64_t d = (int64_t)(idx - pos);
	if (!stride || d % stride)
		return -1;
	int64_t k = d / stride;
	return k >= 0 ? k : -1;
}

_Static_assert(RA_OWN_STREAMS <= 32, "ra_own.smask holds a bit per stream entry");

static uint64_t absd(int64_t d) { return d < 0 ? (uint64_t)-d : (uint64_t)d; }

/* ---- the use order of s[] (ra_own.newer/older) */

static void lru_build(struct ra_own *o)
{
	/* By age, oldest first; equal ages by index, as a scan would find them. */
	uint8_t ord[RA_OWN_STREAMS];
	for (int i = 0; i < RA_OWN_STREAMS; i++) {
		int j = i;
		for (; j > 0 && (int32_t)(o->s[i].age - o->s[ord[j - 1]].age) < 0; j--)
			ord[j] = ord[j - 1];
		ord[j] = (uint8_t)i;
	}
	for (int k = 0; k < RA_OWN_STREAMS; k++) {
		o->older[ord[k]] = k ? ord[k - 1] : ord[k];
		o->newer[ord[k]] = k + 1 < RA_OWN_STREAMS ? ord[k + 1] : ord[k];
	}
	o->lru_old = ord[0];
	o->lru_new = ord[RA_OWN_STREAMS - 1];
	o->lru_ready = true;
}

static void lru_unlink(struct ra_own *o, uint8_t i)
{
	uint8_t a = o->older[i], b = o->newer[i];
	if (i == o->lru_old)
		o->lru_old = b;
	else
		o->newer[a] = b;
	if (i == o->lru_new)
		o->lru_new = a;
	else
		o->older[b] = a;
}

/* s was used now: the most recent.  A free one (fresh): the least. */
static void lru_touch(struct ra_own *o, struct ra_stream *s, bool fresh)
{
	if (!o->lru_ready)
		lru_build(o);
	uint8_t i = (uint8_t)(s - o->s);
	if (fresh ? i == o->lru_old : i == o->lru_new)
		return;
	lru_unlink(o, i);
	if (fresh) {
		o->newer[i] = o->lru_old;
		o->older[o->lru_old] = i;
		o->older[i] = i;
		o->lru_old = i;
	} else {
		o->older[i] = o->lru_new;
		o->newer[o->lru_new] = i;
		o->newer[i] = i;
		o->lru_new = i;
	}
}

static void use(struct ra_own *o, struct ra_stream *s)
{
	o->used_now |= 1u << (s - o->s);
	s->age = o->clock;
	lru_touch(o, s, false);
}

/* Stream s ends (replaced, or at its space's end): its run, in steps
 * from where it was confirmed to its last access, joins the space's
 * average (RA_OWN_RUN_*). */
static void stream_ended(struct ra_own *o, const struct ra_stream *s)
{
	int64_t run = steps_to(s->origin, s->stride, s->last);
	if (run < 0)
		return;
	uint32_t r = run > UINT32_MAX / 8 ? UINT32_MAX / 8 : (uint32_t)run;
	o->run_avg = o->runs ? (uint32_t)(((uint64_t)o->run_avg * 7 + r) / 8) : r;
	if (o->runs < RA_OWN_RUN_LEARN)
		o->runs++;
}

/* A growing window of `size` steps from next for stream s, now at idx:
 * no further from where it was confirmed than its space's streams have
 * run on average (and a quarter), or than half again the way it has come
 * already, whichever is further (a stream that outlives the average soon
 * grows as before); at least RA_OWN_MIN.  Past a stream's end a window
 * reads only waste: touch's jumps:64 (a run of 64 pages, then a jump)
 * read a whole 64-page window past every run. */
static uint32_t run_cap(const struct ra_own *o, const struct ra_stream *s, uint64_t idx, uint64_t next,
			uint32_t size)
{
	int64_t run = steps_to(s->origin, s->stride, idx), from = steps_to(s->origin, s->stride, next);
	if (o->runs < RA_OWN_RUN_LEARN || run < 0 || from < 0)
		return size;
	uint64_t avg = o->run_avg + o->run_avg / 4, went = (uint64_t)run + (uint64_t)run / 2;
	uint64_t end = avg > went ? avg : went;
	uint64_t room = end > (uint64_t)from ? end - (uint64_t)from : 0;
	if (room < RA_OWN_MIN)
		room = RA_OWN_MIN;
	return room < size ? (uint32_t)room : size;
}

/* Give stream s the window of up to s->size pages from start; frees the
 * stream when the area ends there.  A window that continues the last one
 * (its marker was used) leaves the last one's pages to the stream: it is
 * using them now (in_stream). */
static void issue(struct ra_own *o, struct ra_stream *s, uint64_t start, uint64_t lo, uint64_t hi,
		  struct ra_lwin *w)
{
	uint64_t count = 0;
	if (start >= lo && start < hi) {
		uint64_t room = s->stride > 0 ? (hi - 1 - start) / (uint64_t)s->stride + 1
					      : (start - lo) / absd(s->stride) + 1;
		count = room < s->size ? room : s->size;
	}
	bool next = s->state == RA_S_STREAM && start == s->pos + (uint64_t)((int64_t)s->steps * s->stride);
	if (!next)
		s->back = 0;
	else if (s->steps)
		s->back = s->steps;     /* (an empty last window again: the one before stays) */
	s->pos = start;
	s->steps = (uint32_t)count;
	s->retry = 0;           /* if cut to nothing: again at the next hit (ra_own_hit) */
	o->moved |= 1u << (s - o->s);
	use(o, s);
	if (!count) {
		stream_ended(o, s);
		s->state = RA_S_FREE;
		o->smask &= ~(1u << (s - o->s));
		lru_touch(o, s, true);  /* the next new candidate's */
	}
	w->start = start;
	w->stride = s->stride;
	w->count = (uint32_t)count;
	w->marker = true;
	w->run = true;
}

static uint32_t clamp_size(uint32_t size, uint32_t budget)
{
	if (budget < RA_OWN_MIN)
		budget = RA_OWN_MIN;
	return size > budget ? budget : size;
}

/* A ring of recent misses (ghost, hist) keeps, per bucket of `width`
 * pages (hashed, so any space size fits), a mask of the ring slots whose
 * entries lie there.  A miss within `width` pages of idx lies in idx's
 * bucket or a neighbour, so only the entries of those three are looked
 * at: none on random access over a large space, a few on a dense set
 * (a scan of the whole ring there cost about 340 instructions a miss in
 * the unit simulator's runs).  Exact: every entry within `width` is in
 * one of the three. */
_Static_assert(RA_OWN_GHOST <= 32 && RA_OWN_HIST <= 32, "a ring slot per bit of a bucket's mask");

static uint32_t bucket_of(uint64_t idx, uint32_t width) { return (uint32_t)((idx / width) % RA_OWN_BUCKETS); }

/* Bucket b's mask and its two neighbours' of nb (hashed: the last and
 * the first are neighbours). */
static uint32_t masks_around(const uint32_t *mask, uint32_t b, uint32_t nb)
{
	return mask[b] | mask[(b + 1) % nb] | mask[(b + nb - 1) % nb];
}

/* The ring slots whose entries may lie within width pages of idx. */
static uint32_t ring_maybe_near(const uint32_t *mask, uint64_t idx, uint32_t width)
{
	return masks_around(mask, bucket_of(idx, width), RA_OWN_BUCKETS);
}

/* Entries of ring within width pages of idx. */
static uint32_t ring_near(const uint64_t *ring, const uint32_t *mask, uint64_t idx, uint32_t width)
{
	uint32_t near = 0;
	for (uint32_t m = ring_maybe_near(mask, idx, width); m; m &= m - 1)
		near += absd((int64_t)(idx - ring[__builtin_ctz(m)])) < width;
	return near;
}

/* idx joins the ring, its oldest entry leaving once it is full; *n stays
 * below 2 * size (the ring's place kept, never wrapping). */
static void ring_push(uint64_t *ring, uint32_t *mask, uint32_t *n, uint32_t size, uint64_t idx, uint32_t width)
{
	uint32_t at = *n % size;
	if (*n >= size)
		mask[bucket_of(ring[at], width)] &= ~(1u << at);
	ring[at] = idx;
	mask[bucket_of(idx, width)] |= 1u << at;
	if (++*n >= 2 * size)
		*n -= size;
}

/* The ghost windows' verdict for a miss at idx outside streams in the
 * space [lo, hi) (ra_policy.h, RA_OWN_GHOST): o->g_dense. */
static void ghost_note(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi)
{
	uint32_t n = o->nghost < RA_OWN_GHOST ? o->nghost : RA_OWN_GHOST;
	/* Within RA_OWN_SLACK pages of the last one: a run's next steps
	 * before its stream is confirmed, no evidence of a set.  Counted,
	 * every run started with two held misses to one not held, so
	 * touch's jumps:64 looked dense and each jump read 32 slots around
	 * its page, half of them behind it (bench ra: 3688 of the 5269
	 * pages it wasted).  On a dense set two misses that close are rare:
	 * about 8 pages in 2048 for bench's shift. */
	if (n && absd((int64_t)(idx - o->ghost[(o->nghost - 1) % RA_OWN_GHOST])) <= RA_OWN_SLACK)
		return;
	bool held = ring_near(o->ghost, o->gmask, idx, RA_OWN_GNEAR) > 0;
	ring_push(o->ghost, o->gmask, &o->nghost, RA_OWN_GHOST, idx, RA_OWN_GNEAR);
	uint64_t span = hi > lo ? hi - lo : 1;
	uint64_t cover = (uint64_t)n * (2 * RA_OWN_GNEAR - 1);
	uint32_t chance = cover >= span ? RA_OWN_GSCALE : (uint32_t)(cover * RA_OWN_GSCALE / span);
	o->g_hit += held;
	o->g_n++;
	o->g_chance += chance;
	if (o->g_n > RA_OWN_GFORGET) {
		o->g_hit /= 2;
		o->g_n /= 2;
		o->g_chance /= 2;
	}
	o->g_dense = o->g_n >= RA_OWN_GLEARN && o->g_hit * RA_OWN_GMIN >= o->g_n &&
		     (uint64_t)o->g_hit * RA_OWN_GSCALE >=
			     (uint64_t)RA_OWN_GRATIO * o->g_chance + RA_OWN_GSLACK * RA_OWN_GSCALE;
}

/* Block readahead for a miss outside streams: an aligned block of
 * logical pages when recent misses cluster or blocks have been hit. */
static void block(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w)
{
	ghost_note(o, idx, lo, hi);
	if (o->g_dense) {
		/* The slot window instead (ra_own_slot_pages): on a dense set
		 * it brings back what left with the page. */
		o->blast = 0;
		return;
	}
	uint32_t near = ring_near(o->hist, o->hmask, idx, RA_OWN_NEAR);
	ring_push(o->hist, o->hmask, &o->nhist, RA_OWN_HIST, idx, RA_OWN_NEAR);
	/* Most new candidates became streams of step 1 (or -1): a miss
	 * outside streams is likely a run's first page, so read its next
	 * pages along the runs' usual direction with it, as many as the
	 * space's streams ran on average (RA_OWN_INIT..RA_OWN_BLOCK_MAX);
	 * their hits confirm the stream without a second and third miss.
	 * Read with the missing page, they cost no request of their own,
	 * and the stream's first window then starts further on: at ssd,
	 * 16 pages instead of 4 took jumps:64 from 1552-1704 read requests
	 * to 1489-1654 and 2% less elapsed (3 seeds). */
	if (o->starts >= RA_OWN_START_LEARN && o->started * 2 >= o->starts) {
		int64_t d = o->start_dir >= 0 ? 1 : -1;
		uint64_t room = d > 0 ? (idx + 1 < hi ? hi - idx - 1 : 0) : (idx > lo ? idx - lo : 0);
		o->bhits = 0;
		if (room) {
			w->start = idx + (uint64_t)d;
			w->stride = d;
			w->run = true;
			uint32_t want = o->runs >= RA_OWN_RUN_LEARN && o->run_avg > RA_OWN_INIT ? o->run_avg : RA_OWN_INIT;
			if (want > RA_OWN_BLOCK_MAX)
				want = RA_OWN_BLOCK_MAX;
			w->count = room < want ? (uint32_t)room : want;
		}
		return;
	}
	/* RA_OWN_CLUSTER of the recent misses close by: a dense cluster, the
	 * largest block.  Else half a block's worth of its pages used since the last
	 * block: double; a quarter: keep; less: halve. */
	uint32_t pages;
	if (near >= RA_OWN_CLUSTER)
		pages = RA_OWN_BLOCK_MAX;
	else if (o->blast >= 4 && o->bhits * 2 >= o->blast)
		pages = o->blast * 2;
	else if (o->blast >= 4 && o->bhits * 4 >= o->blast)
		pages = o->blast;
	else
		pages = o->blast / 2;
	o->bhits = 0;
	uint32_t max = budget < RA_OWN_BLOCK_MAX ? budget : RA_OWN_BLOCK_MAX;
	if (pages > max)
		pages = max;
	o->blast = pages;
	if (pages <= 1)
		return;
	uint64_t l = idx & ~((uint64_t)pages - 1), r = l + pages;
	if (l < lo)
		l = lo;
	if (r > hi)
		r = hi;
	w->start = l;
	w->count = (uint32_t)(r - l);
}

/* Candidates by bucket of RA_OWN_MAX_STRIDE pages (hashed): o->cand[b]
 * has bit i when s[i] is a candidate whose pos lies in bucket b, kept
 * exact as candidates come, move and go, so detect looks at those in
 * idx's bucket and its neighbours only (every candidate a step can reach)
 * rather than at all RA_OWN_STREAMS entries. */
static uint32_t cand_bucket(uint64_t pos) { return (uint32_t)((pos / RA_OWN_MAX_STRIDE) % RA_OWN_CBUCKETS); }

static void cand_add(struct ra_own *o, const struct ra_stream *s)
{
	o->cand[cand_bucket(s->pos)] |= 1u << (s - o->s);
}

static void cand_del(struct ra_own *o, const struct ra_stream *s)
{
	o->cand[cand_bucket(s->pos)] &= ~(1u << (s - o->s));
}

static uint32_t cands_near(const struct ra_own *o, uint64_t idx)
{
	return masks_around(o->cand, cand_bucket(idx), RA_OWN_CBUCKETS);
}

/* The first window of stream s, confirmed at idx, from next: RA_OWN_INIT
 * steps; but once the space's runs are learnt and their mean fits in the
 * budget, as far as they run (run_cap).  A stream of a space whose
 * streams run 64 pages (touch's jumps:64) took windows of 4, 8, 16 and
 * 32 steps to cover its run: each a request, and each waited for, since
 * the stream reaches a window's end soon after the halfway hit issues
 * the next.  On a disk that costs per request (hdd) that was 1.2x
 * fixed:4's elapsed with a third of its faults (now 1.13x).  Streams
 * longer than the budget still start small: the ramp costs them little,
 * and a new stream after one long run is as likely a stride being learnt
 * (the unit simulator's stride 4 after a sequential start wasted 3% of
 * its pages with a 64-step first window). */
static uint32_t first_size(const struct ra_own *o, const struct ra_stream *s, uint64_t idx, uint64_t next,
			   uint32_t budget)
{
	uint32_t size = clamp_size(RA_OWN_INIT, budget);
	if (o->runs < RA_OWN_RUN_LEARN || o->run_avg > budget)
		return size;
	uint32_t learnt = run_cap(o, s, idx, next, budget);
	return learnt > size ? learnt : size;
}

/* Feed an access outside streams (a miss, or a hit on a block window's
 * page) to the candidates: the one nearest to it takes the step, and the
 * same step twice confirms a stream, whose first window goes to w.
 * Returns true when idx needs nothing more (a stream started, or the same
 * page again). */
static bool detect(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w)
{
	struct ra_stream *best = NULL;
	uint64_t best_score = UINT64_MAX;
	int64_t best_d = 0;
	for (uint32_t m = cands_near(o, idx); m; m &= m - 1) {
		struct ra_stream *s = &o->s[__builtin_ctz(m)];
		int64_t d = (int64_t)(idx - s->pos);
		if (d == 0) {                   /* the same page again */
			use(o, s);
			return true;
		}
		if (absd(d) > RA_OWN_MAX_STRIDE)
			continue;
		uint64_t score = d == s->stride ? 0 : absd(d);
		if (score < best_score) {
			best = s;
			best_score = score;
			best_d = d;
		}
	}
	if (best && best_d == best->stride) {
		if (best_d == 1 || best_d == -1) {
			o->started++;
			if ((best_d > 0 ? o->start_dir < RA_OWN_START_DECAY : o->start_dir > -RA_OWN_START_DECAY))
				o->start_dir += (int32_t)best_d;
		}
		cand_del(o, best);
		best->state = RA_S_STREAM;
		o->smask |= 1u << (best - o->s);
		best->last = idx;
		best->origin = idx;
		best->alt = 0;
		best->size = first_size(o, best, idx, idx + (uint64_t)best_d, budget);
		o->confirmed++;
		issue(o, best, idx + (uint64_t)best_d, lo, hi, w);
		return true;
	}
	if (best) {
		cand_del(o, best);
		best->stride = best_d;
		best->pos = idx;
		cand_add(o, best);
		use(o, best);
		return false;
	}
	/* A new candidate in the least recently used slot (a free one is
	 * kept there: lru_touch). */
	if (!o->lru_ready)
		lru_build(o);
	struct ra_stream *victim = &o->s[o->lru_old];
	if (victim->state == RA_S_STREAM) {
		o->smask &= ~(1u << (victim - o->s));
		stream_ended(o, victim);
	} else if (victim->state == RA_S_CANDIDATE) {
		cand_del(o, victim);
	}
	*victim = (struct ra_stream){ .pos = idx, .state = RA_S_CANDIDATE };
	cand_add(o, victim);
	o->moved |= 1u << (victim - o->s);
	if (++o->starts > RA_OWN_START_DECAY) {
		o->starts /= 2;
		o->started /= 2;
		o->start_dir /= 2;
	}
	use(o, victim);
	return false;
}

/* Whether idx is stream s's: in its last window, in the window before
 * it whose marker issued it (*k < 0 there), or (beyond) in the window
 * after it.  The window before counts as the stream's own: the marker
 * sits on a window's first page, so the stream uses the rest of that
 * window after its next one went out.  Seen as accesses outside streams,
 * those pages fed the candidates a run of stride 1 that confirmed a
 * "phantom" stream just behind the real one every few pages; the
 * phantom's window held the next marker and took it (stream_of finds
 * the stream used last first), so the real stream's next window was
 * never issued and it missed at the end of every other window. */
static bool in_stream(const struct ra_stream *s, uint64_t idx, bool beyond, int64_t *k)
{
	if (s->state != RA_S_STREAM)
		return false;
	uint64_t from = s->pos - (uint64_t)((int64_t)s->back * s->stride);
	*k = steps_to(from, s->stride, idx);
	if (*k < 0 || *k >= (int64_t)s->back + s->steps + (beyond ? s->size : 0))
		return false;
	*k -= s->back;
	return true;
}

/* The stream whose last window holds idx (or the one before it, whose
 * marker issued it; beyond: or the window after it), with idx's step
 * from the last window's start in *k; NULL when none.  The stream used last
 * first: a fault on a stream's window is almost always the same
 * stream's as the fault before, so that costs one test, not a scan. */
static struct ra_stream *stream_of(struct ra_own *o, uint64_t idx, bool beyond, int64_t *k)
{
	uint32_t m = o->smask;
	if (!m)
		return NULL;
	if (o->hint < RA_OWN_STREAMS && in_stream(&o->s[o->hint], idx, beyond, k))
		return &o->s[o->hint];
	for (; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		if (in_stream(&o->s[i], idx, beyond, k)) {
			o->hint = i;
			return &o->s[i];
		}
	}
	return NULL;
}

/* The stream's accesses (hits and misses) two steps of d in a row, d
 * not its stride: its real stride is d (a stride stream confirmed as
 * sequential by a run of neighbouring faults at its start reads three
 * pages in four for nothing, and its markers are never reached).  Issues
 * a window of the new stride from idx and returns true then. */
static bool restride(struct ra_own *o, struct ra_stream *s, uint64_t idx, uint64_t lo, uint64_t hi,
		     struct ra_lwin *w)
{
	int64_t d = (int64_t)(idx - s->last);
	s->last = idx;
	if (d == s->stride || d == 0 || absd(d) > RA_OWN_MAX_STRIDE) {
		s->alt = 0;
		return false;
	}
	if (d != s->alt) {
		s->alt = d;
		return false;
	}
	s->stride = d;
	s->alt = 0;
	s->origin = idx;
	issue(o, s, idx + (uint64_t)d, lo, hi, w);
	return true;
}

static void start_event(struct ra_own *o, uint64_t idx, struct ra_lwin *w)
{
	*w = (struct ra_lwin){ idx, 1, 0, false, false };
	o->clock++;
}

/* Whether a miss at idx in stream s's windows is the stream's: within
 * RA_OWN_SLACK steps after its last access.  A stream that outran its
 * window, or lost a page of it to reclaim, misses right after the page
 * it used last.  A miss anywhere else in its range is another access's:
 * a random page of a thread whose burst the stream was (the unit
 * simulator's BUILD shape: in a thread's 256-page part, one in two of its
 * random pages fell within a stale stream's window or the one after, and
 * each read a window of the stream's size, up to 64 pages, for one page
 * used). */
static bool follows(const struct ra_stream *s, uint64_t idx)
{
	int64_t k = steps_to(s->last, s->stride, idx);
	return k >= 0 && k <= RA_OWN_SLACK;
}

/* ---- fast hits (ra_policy.h, RA_OWN_FAST) */

/* A slot's word: the next page << 16 | steps left << 8 | the stride
 * (int8_t; RA_OWN_MAX_STRIDE fits). */
#define FAST_IDX_SHIFT 16
#define FAST_LEFT_MAX 255u
#define FAST_IDX_LIMIT (1ull << (64 - FAST_IDX_SHIFT))
_Static_assert(RA_OWN_MAX_STRIDE <= 127, "a fast slot holds the stride in 8 bits");

static uint64_t fast_word(uint64_t next, uint32_t left, int64_t stride)
{
	return next << FAST_IDX_SHIFT | (uint64_t)left << 8 | (uint8_t)(int8_t)stride;
}

static uint32_t word_left(uint64_t v) { return (uint32_t)(v >> 8 & FAST_LEFT_MAX); }
static int64_t word_stride(uint64_t v) { return (int8_t)(uint8_t)(v & 0xff); }

bool ra_own_fast_hit(struct ra_own *o, uint64_t idx)
{
	for (int i = 0; i < RA_OWN_FAST; i++) {
		uint64_t v = __atomic_load_n(&o->fast[i], __ATOMIC_ACQUIRE);
		while (v >> FAST_IDX_SHIFT == idx && word_left(v)) {
			int64_t d = word_stride(v);
			uint64_t nv = fast_word(idx + (uint64_t)d, word_left(v) - 1, d);
			if (__atomic_compare_exchange_n(&o->fast[i], &v, nv, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				uint64_t at = __atomic_add_fetch(&o->fast_n, 1, __ATOMIC_ACQ_REL);
				__atomic_store_n(&o->fast_at[i], at, __ATOMIC_RELEASE);
				return true;
			}
		}
	}
	return false;
}

/* The hits taken fast since the last call, into the state, as
 * ra_own_hit would have left it had it seen each: every hit an event
 * (clock), the stream's last page, its alternative step cleared, its age
 * and place in the use order (touched in the order of each stream's last
 * hit, which is all the order depends on), the hint.  Clears the slots. */
static void fast_fold(struct ra_own *o)
{
	uint64_t at[RA_OWN_FAST];
	uint8_t idx[RA_OWN_FAST];
	uint32_t n = 0;
	for (int i = 0; i < RA_OWN_FAST; i++) {
		uint32_t set = o->fast_left[i];
		if (!set)
			continue;               /* never set: its word is 0 */
		uint64_t v = __atomic_exchange_n(&o->fast[i], 0, __ATOMIC_ACQ_REL);
		o->fast_left[i] = 0;
		if (set == word_left(v))
			continue;
		struct ra_stream *s = &o->s[o->fast_stream[i]];
		s->last = (v >> FAST_IDX_SHIFT) - (uint64_t)word_stride(v);
		s->alt = 0;
		uint64_t a = __atomic_load_n(&o->fast_at[i], __ATOMIC_ACQUIRE);
		uint32_t j = n++;
		for (; j > 0 && at[j - 1] > a; j--) {
			at[j] = at[j - 1];
			idx[j] = idx[j - 1];
		}
		at[j] = a;
		idx[j] = o->fast_stream[i];
	}
	uint32_t total = (uint32_t)__atomic_exchange_n(&o->fast_n, 0, __ATOMIC_ACQ_REL);
	uint32_t base = o->clock;
	for (uint32_t k = 0; k < n; k++) {
		o->clock = base + (uint32_t)at[k];
		use(o, &o->s[idx[k]]);
	}
	o->clock = base + total;
	if (n)
		o->hint = idx[n - 1];
}

/* The lowest and highest of the n (> 0) pages from `from`, stride apart. */
static void span(uint64_t from, int64_t stride, uint64_t n, uint64_t *lo, uint64_t *hi)
{
	uint64_t last = from + (uint64_t)((int64_t)(n - 1) * stride);
	*lo = stride < 0 ? last : from;
	*hi = stride < 0 ? from : last;
}

/* Stream s's coming pages a fast hit may take: from its next page up to
 * its last window's halfway (where ra_own_hit issues the next window),
 * none of them in another stream's windows (stream_of would find that
 * one first, or in its place); only the streams of `against` are looked
 * at for that (those whose windows may have moved).  Returns how many
 * (0: none). */
static uint32_t fast_steps(const struct ra_own *o, const struct ra_stream *s, uint32_t against)
{
	if (s->state != RA_S_STREAM || !s->stride || !s->steps)
		return 0;
	uint64_t next = s->last + (uint64_t)s->stride;
	int64_t k;
	if (!in_stream(s, next, false, &k) || k >= (int64_t)s->steps / 2)
		return 0;
	uint64_t room = (uint64_t)((int64_t)s->steps / 2 - k);
	uint32_t left = room < FAST_LEFT_MAX ? (uint32_t)room : FAST_LEFT_MAX;
	uint64_t a, b;
	span(next, s->stride, left, &a, &b);
	if (b + absd(s->stride) >= FAST_IDX_LIMIT)
		return 0;               /* the word holds the page after the last one too */
	for (uint32_t m = o->smask & against; m; m &= m - 1) {
		const struct ra_stream *t = &o->s[__builtin_ctz(m)];
		if (t == s)
			continue;
		/* t's pages for hits (in_stream, not beyond): back + steps
		 * steps from where its window before started. */
		uint64_t len = t->back + t->steps, ta, tb;
		if (!len)
			continue;
		span(t->pos - (uint64_t)((int64_t)t->back * t->stride), t->stride, len, &ta, &tb);
		if (ta <= b && a <= tb)
			return 0;
	}
	return left;
}

static void fast_set(struct ra_own *o, int slot, uint8_t i, uint32_t left)
{
	const struct ra_stream *s = &o->s[i];
	o->fast_stream[slot] = i;
	o->fast_left[slot] = left;
	o->fast_had |= (uint8_t)(1u << slot);
	__atomic_store_n(&o->fast_at[slot], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&o->fast[slot], fast_word(s->last + (uint64_t)s->stride, left, s->stride), __ATOMIC_RELEASE);
}

/* Set the slots again: each for the stream it had while that can still
 * take fast hits and was used in the last RA_OWN_FAST_IDLE events (with
 * more streams than slots going round, replacing the least recently used
 * would leave the next one never set), a free one for a stream used in
 * this call.  Only the streams whose windows
 * this call moved (o->moved) can have come to overlap a slot's pages:
 * a slot's stream that did not move is checked against those alone, so
 * a call costs O(streams) only for the streams it moved or used (a scan
 * of every stream against every other at each call took jumps:64's
 * guest busy time from 304 to 345 ms). */
static void fast_arm(struct ra_own *o)
{
	uint32_t moved = o->moved, used = o->used_now;
	uint8_t had = o->fast_had;
	o->moved = o->used_now = 0;
	o->fast_had = 0;
	if (!o->smask)
		return;
	uint32_t armed = 0;
	for (int slot = 0; slot < RA_OWN_FAST; slot++) {
		if (!(had >> slot & 1))
			continue;
		uint8_t i = o->fast_stream[slot];
		if (!(used >> i & 1) && o->clock - o->s[i].age > RA_OWN_FAST_IDLE)
			continue;       /* a stream gone quiet (ended, most likely): the slot is free */
		uint32_t left = fast_steps(o, &o->s[i], moved >> i & 1 ? ~0u : moved);
		if (left) {
			fast_set(o, slot, i, left);
			armed |= 1u << i;
		}
	}
	int slot = 0;
	for (uint32_t m = used & o->smask & ~armed; m; m &= m - 1) {
		uint8_t i = (uint8_t)__builtin_ctz(m);
		while (slot < RA_OWN_FAST && o->fast_had >> slot & 1)
			slot++;
		if (slot == RA_OWN_FAST)
			return;
		uint32_t left = fast_steps(o, &o->s[i], ~0u);
		if (left)
			fast_set(o, slot, i, left);
	}
}

static void miss(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w);
static void hit(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w);
static void cut(struct ra_own *o, uint64_t start, uint32_t steps);

void ra_own_miss(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w)
{
	fast_fold(o);
	miss(o, idx, lo, hi, budget, w);
	fast_arm(o);
}

void ra_own_hit(struct ra_own *o, uint64_t idx, bool marker, uint64_t lo, uint64_t hi, uint32_t budget,
		struct ra_lwin *w)
{
	(void)marker;
	fast_fold(o);
	hit(o, idx, lo, hi, budget, w);
	fast_arm(o);
}

void ra_own_cut(struct ra_own *o, uint64_t start, uint32_t steps)
{
	fast_fold(o);
	cut(o, start, steps);
	fast_arm(o);
}

static void miss(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w)
{
	start_event(o, idx, w);
	/* A stream this miss belongs to: inside its last window (its pages
	 * went before use: halve the window) or within one window past it
	 * (it outran its readahead). */
	int64_t k;
	struct ra_stream *s = stream_of(o, idx, true, &k);
	if (s && !follows(s, idx))
		s = NULL;
	if (s) {
		if (restride(o, s, idx, lo, hi, w))
			return;
		if (k < (int64_t)s->steps && s->size > RA_OWN_MIN) {
			s->size /= 2;
			o->shrunk++;
		}
		s->size = clamp_size(s->size, budget);
		issue(o, s, idx + (uint64_t)s->stride, lo, hi, w);
		return;
	}
	if (detect(o, idx, lo, hi, budget, w))
		return;
	block(o, idx, lo, hi, budget, w);
}

uint32_t ra_own_slot_pages(struct ra_own *o, bool loose_pays)
{
	uint32_t pages;
	if (o->g_dense)
		pages = RA_OWN_GPAGES;          /* misses denser than chance */
	else if (loose_pays)
		pages = RA_OWN_SW_PAGES;        /* the machine's resolved pages got used */
	else if (o->sw_read < RA_OWN_SW_LEARN)
		pages = 2;                      /* nothing known yet */
	else if (o->sw_used * RA_OWN_SW_USE >= o->sw_read)
		pages = RA_OWN_SW_PAGES;
	else
		pages = ++o->sw_probe % RA_OWN_PROBE == 0 ? 2 : 1;
	return pages;
}

static void loose_forget(struct ra_loose *l)
{
	if (l->used + l->wasted > RA_LOOSE_FORGET) {
		l->used /= 2;
		l->wasted /= 2;
	}
}

void ra_loose_used(struct ra_loose *l)
{
	l->used++;
	loose_forget(l);
}

void ra_loose_wasted(struct ra_loose *l)
{
	l->wasted++;
	loose_forget(l);
}

bool ra_loose_pays(const struct ra_loose *l)
{
	uint32_t n = l->used + l->wasted;
	return n >= RA_LOOSE_LEARN && l->used * RA_OWN_SW_USE >= n;
}

void ra_own_slot_read(struct ra_own *o, uint32_t read)
{
	o->sw_read += read;
	if (o->sw_read > RA_OWN_SW_FORGET) {    /* forget slowly */
		o->sw_read /= 2;
		o->sw_used /= 2;
	}
}

static void hit(struct ra_own *o, uint64_t idx, uint64_t lo, uint64_t hi, uint32_t budget, struct ra_lwin *w)
{
	start_event(o, idx, w);
	int64_t k;
	struct ra_stream *s = stream_of(o, idx, false, &k);
	if (s) {
		use(o, s);
		if (!follows(s, idx))
			return;         /* another access's page (follows): no progress */
		if (restride(o, s, idx, lo, hi, w))
			return;
		if (s->steps && k >= (int64_t)s->steps / 2) {   /* halfway: the next window, twice as large */
			uint64_t next = s->pos + (uint64_t)((int64_t)s->steps * s->stride);
			s->size = run_cap(o, s, idx, next, clamp_size(s->size * 2, budget));
			issue(o, s, next, lo, hi, w);
		} else if (!s->steps && !s->retry--) {
			/* Its last window got no page (ra_own_cut): try it
			 * again while the stream uses the one before. */
			s->size = clamp_size(s->size, budget);
			issue(o, s, s->pos, lo, hi, w);
			s->retry = RA_OWN_RETRY - 1;
		}
		return;
	}
	/* A page of a block or slot window: both counts take both kinds.
	 * sw_read counts slot-window pages only, so sw_used / sw_read is
	 * "pages read outside streams that got used, per slot-window page
	 * read", not the slot windows' own hit rate.  Kept on evidence: in
	 * the unit simulator (13 seeds x 2 layouts, ra_sim.c), crediting
	 * each kind to its own count costs the shifting working set 25% more
	 * major faults (3538 -> 4423, address layout), for 63% less read
	 * ahead on random (17083 -> 6272 pages, same faults) and 38% less on
	 * the build shape (5% more faults): block hits are what opens slot
	 * windows for a set that shifts.  The kernel could not split them
	 * anyway without a page flag for slot-window pages. */
	if (o->bhits < 1u << 30)
		o->bhits++;
	if (o->sw_used < 1u << 30)
		o->sw_used++;
	/* A page read ahead outside streams and now used would have been a
	 * miss: while the misses are dense the ghosts count it, or a set that
	 * read-ahead serves well would stop looking dense and lose its
	 * windows.  Not before: it lies near the miss that read it. */
	if (o->g_dense)
		ghost_note(o, idx, lo, hi);
	detect(o, idx, lo, hi, budget, w);
}

static void cut(struct ra_own *o, uint64_t start, uint32_t steps)
{
	for (uint32_t i = 0; i < RA_OWN_STREAMS; i++) {
		struct ra_stream *s = &o->s[i];
		if (s->state == RA_S_STREAM && s->pos == start && steps < s->steps) {
			s->steps = steps;
			o->moved |= 1u << i;
			o->cut++;
			return;
		}
	}
}

/* ---------------------------------------------------------------- ops */

static void window_none(struct ra_window *w)
{
	*w = (struct ra_window){ .slots = { 0, 0 }, .lwin = { 0, 1, 0, false, false } };
}

static void lwin_none(struct ra_lwin *w) { *w = (struct ra_lwin){ 0, 1, 0, false, false }; }

static void slots_of(const struct ra_event *e, uint32_t pages, struct ra_window *w)
{
	ra_slot_window(e->slot, pages, e->slots, &w->slots);
}

static void off_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	(void)c;
	(void)e;
	window_none(w);
}

static void none_found(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
		       struct ra_lwin *w)
{
	(void)c;
	(void)e;
	(void)readahead;
	(void)marker;
	lwin_none(w);
}

static void fixed_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	window_none(w);
	slots_of(e, 1u << c->order, w);
}

static void hugh_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	window_none(w);
	slots_of(e, ra_hugh_pages(c->global, e->slot, c->max_pages), w);
}

static void hugh_found(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
		       struct ra_lwin *w)
{
	(void)e;
	(void)marker;
	lwin_none(w);
	if (readahead)
		ra_hugh_hit(c->global);
}

/* His detector had no state for shmem: the full window there. */
static void shaohua_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	window_none(w);
	slots_of(e, c->vstate ? ra_shaohua_miss(c->vstate, c->max_pages) : c->max_pages, w);
}

static void shaohua_found(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
			  struct ra_lwin *w)
{
	(void)e;
	(void)marker;
	lwin_none(w);
	if (readahead && c->vstate)
		ra_shaohua_hit(c->vstate);
}

/* Anonymous memory: the VMA's window; shmem reads hugh's global window,
 * as in Linux. */
static void vma_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	if (!c->vstate) {
		hugh_miss(c, e, w);
		return;
	}
	window_none(w);
	ra_vma_miss(c->vstate, e->idx, e->lo, e->hi, c->max_pages, &w->lwin);
	if (w->lwin.count == 1)
		w->lwin.count = 0;      /* the fault's page only */
}

static void vma_found(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
		      struct ra_lwin *w)
{
	(void)marker;
	lwin_none(w);
	if (c->vstate)
		ra_vma_lookup(c->vstate, e->idx, readahead);
	else if (readahead)
		ra_hugh_hit(c->global);
}

static void own_init(void *space) { memset(space, 0, sizeof(struct ra_own)); }

/* Without its state (not a fault, or no memory for it) own reads nothing
 * ahead. */
static void own_miss(const struct ra_ctx *c, const struct ra_event *e, struct ra_window *w)
{
	window_none(w);
	if (!c->space)
		return;
	ra_own_miss(c->space, e->idx, e->lo, e->hi, c->budget, &w->lwin);
	if (!w->lwin.count)
		slots_of(e, ra_own_slot_pages(c->space, c->loose_pays), w);
}

static void own_found(const struct ra_ctx *c, const struct ra_event *e, bool readahead, bool marker,
		      struct ra_lwin *w)
{
	lwin_none(w);
	if (c->space && readahead)
		ra_own_hit(c->space, e->idx, marker, e->lo, e->hi, c->budget, w);
}

static void own_slot_read(const struct ra_ctx *c, uint32_t in_use)
{
	if (c->space)
		ra_own_slot_read(c->space, in_use);
}

static void own_cut(void *space, uint64_t start, uint32_t steps) { ra_own_cut(space, start, steps); }

static bool own_fast_hit(void *space, uint64_t idx) { return ra_own_fast_hit(space, idx); }

static const struct ra_ops ops[] = {
	[RA_OFF] = { 0, NULL, off_miss, none_found, NULL, false, NULL, RA_SCOPE_NONE, NULL },
	[RA_FIXED] = { 0, NULL, fixed_miss, none_found, NULL, false, NULL, RA_SCOPE_NONE, NULL },
	[RA_HUGH] = { 0, NULL, hugh_miss, hugh_found, NULL, false, NULL, RA_SCOPE_GLOBAL, NULL },
	[RA_SHAOHUA] = { 0, NULL, shaohua_miss, shaohua_found, NULL, false, NULL, RA_SCOPE_SPACE, NULL },
	[RA_VMA] = { 0, NULL, vma_miss, vma_found, NULL, false, NULL, RA_SCOPE_VSTATE_OR_GLOBAL, NULL },
	[RA_OWN] = { sizeof(struct ra_own), own_init, own_miss, own_found, own_slot_read, true, own_cut,
		     RA_SCOPE_SPACE, own_fast_hit },
};

const struct ra_ops *ra_ops_of(enum ra_kind kind) { return &ops[kind]; }
