/*
 * Swap cache: an open hash table of chains through a small node per page
 * (struct page has no spare link while it sits on an LRU list).
 *
 * Shards: the cache is split in up to 64 independent shards, each with
 * its own lock, table, shadow list and per-area lists, so faults on
 * different address spaces do not queue on one lock (Linux splits its
 * swap cache in one address space per 64 MiB of swap for the same
 * reason).  64 consecutive slots share a shard, so a read-ahead window
 * takes one or two shard locks; clusters of different CPUs land on
 * different shards.  Two shards per CPU that may come online (cpus=),
 * at most 64; one CPU: one shard, the single table of before.
 *
 * Each shard's table is sized by what it holds, not by RAM: it starts at
 * 64 buckets (512 bytes) and doubles whenever entries outnumber buckets
 * two to one, up to the shard's part of one bucket per two RAM pages;
 * once the shard is empty again it goes back to 64 buckets.  Buckets
 * live in pages reached through a directory, so no allocation is larger
 * than a page or the directory (8 bytes per 512 buckets).  Growing
 * never stops the world: the old table stays searchable while each later
 * operation moves MIGRATE_STEP of its buckets over, so no call does more
 * than a bounded amount of rehashing with interrupts off.  When a bigger
 * table cannot be allocated the cache keeps working with longer chains and
 * tries again once it has doubled again.
 *
 * Shadows (workingset detection, kernel/vm/workingset.c): when reclaim
 * evicts a cached page whose slot others still hold (a swap PTE, a shmem
 * slot), its node stays in the table with no page and the eviction's
 * shadow word, as Linux keeps shadows in the swap cache's xarray at the
 * slot.  A read of the slot (swapcache_add) turns the node back into a
 * page's and keeps the shadow there for swapcache_take_shadow.  Shadows
 * go when the slot is freed (swap_free calls swapcache_forget_shadow),
 * oldest first when the workingset code finds them stale
 * (swapcache_trim_shadows), and oldest first beyond RAM pages of them: a
 * shadow older than that many evictions has a refault distance larger
 * than any active list (each costs one 64-byte node: at most 1/64 of RAM,
 * whatever the size of the swap areas).  Each shard keeps its own
 * oldest-first list and its share of that bound.
 *
 * Nodes: a shard keeps up to SPARE_MAX freed nodes on a list of its own,
 * taken and given back under the lock it holds anyway, so that a page's
 * way through the cache (a node when it is written out, freed when
 * reclaim lets it go, again when it is read back, freed when a fault maps
 * it) costs no trip through kmalloc's per-CPU magazines: kmalloc and kfree
 * of these nodes took 19 of 296 ms of a swapping seq touch's busy time
 * (tools/prof, -icount).  At most 4 KiB a shard (256 KiB with 64
 * shards); swapcache_drain_spares gives them back (the memory balance,
 * before it counts free frames).
 *
 * Invariant: every cached entry and shadow is in exactly one of its
 * shard's tables: in `old` at a bucket >= migrated, or in `cur`.  A page's
 * node is on its shard's list for its area, so swapoff's collect costs
 * what it returns, not the table's size; a shadow's is on the shard's
 * shadows list, oldest first.
 *
 * Locking: a shard's lock ("swapcache", irqsave) guards its table and
 * lists; it nests inside page locks and page-table locks and outside the
 * swap allocator's lock.  No path holds two shards' locks.  Tables are
 * allocated and freed with it dropped.
 */
#include <stddef.h>
#include <string.h>
#include "swapcache.h"
#include "swap.h"
#include "mem/page.h"
#include "mem/pmm.h"
#include "vm/page_ref.h"
#include "vm/vmstat.h"
#include "mem/kmalloc.h"
#include "core/panic.h"
#include "lib/errno.h"
#include "core/spinlock.h"
#include "readahead.h"

#define PER_PAGE (PAGE_SIZE / sizeof(struct node *))    /* buckets per bucket page */
#define MIN_BUCKETS 64          /* a shard's first (and smallest) table: 512 bytes */
#define MAX_SHARDS 64
#define SHARD_SLOTS_SHIFT 6     /* 64 consecutive slots share a shard */
#define MIGRATE_STEP 32         /* old buckets moved per operation while growing */
#define SPARE_MAX 64            /* free nodes a shard keeps: a 64-page read-ahead window's */

struct node {
	struct node *next;
	uint64_t entry;
	struct page *page;              /* NULL: a shadow */
	uint64_t shadow;                /* the eviction's shadow word, or 0 */
	struct list_node area_link;     /* on sc.by_area[swp_area(entry)], or sc.shadows */
};

struct table {
	struct node ***dir;     /* nbuckets / PER_PAGE pages of bucket heads */
	uint64_t nbuckets;      /* power of two, >= PER_PAGE */
};

struct shard {
	struct spinlock lock;
	struct table cur;               /* guarded by lock */
	struct table old;               /* being emptied into cur; dir NULL when not */
	uint64_t migrated;              /* old buckets already moved */
	uint64_t n;                     /* entries cached */
	uint64_t nshadow;               /* shadows kept */
	uint64_t max_shadows;           /* its share of RAM pages */
	struct list_node shadows;       /* shadow nodes, oldest first */
	uint64_t max_buckets;           /* growth cap, its share of RAM pages / 2 */
	uint64_t next_grow;             /* n at which to try growing next */
	struct list_node by_area[SWAP_MAX_AREAS];       /* nodes per area (swapcache_walk rotates them) */
	struct node *spare;             /* free nodes, through next (guarded by lock) */
	uint32_t nspare;
} __attribute__((aligned(64)));         /* no two shards' locks on one cache line */

static struct shard shards[MAX_SHARDS];
static uint32_t nshards = 1;            /* power of two, set once by swapcache_init */
static uint32_t trim_next;              /* the shard swapcache_trim_shadows looks at next (atomic) */

static struct shard *shard_of(uint64_t entry)
{
	uint64_t g = swp_offset(entry) >> SHARD_SLOTS_SHIFT;
	return &shards[(g + (uint64_t)swp_area(entry) * 7) & (nshards - 1)];
}

/* Bucket blocks of a table of nb buckets: one of nb buckets below a
 * page's worth, else pages. */
static uint64_t nblocks(uint64_t nb) { return nb < PER_PAGE ? 1 : nb / PER_PAGE; }

static void table_free(struct table *t)
{
	if (!t->dir)
		return;
	for (uint64_t i = 0; i < nblocks(t->nbuckets); i++)
		kfree(t->dir[i]);
	kfree(t->dir);
	t->dir = NULL;
}

/* A zeroed table of nb buckets, or one with dir NULL.  May be called with
 * interrupts off (kmalloc never sleeps); not with a shard's lock held. */
static struct table table_alloc(uint64_t nb)
{
	struct table t = { kzalloc(nblocks(nb) * sizeof(struct node **)), nb };
	if (!t.dir)
		return t;
	for (uint64_t i = 0; i < nblocks(nb); i++)
		if (!(t.dir[i] = kzalloc((nb < PER_PAGE ? nb : PER_PAGE) * sizeof(struct node *)))) {
			table_free(&t);
			break;
		}
	return t;
}

static struct node **bucket_at(const struct table *t, uint64_t b) { return &t->dir[b / PER_PAGE][b % PER_PAGE]; }

static uint64_t hash(const struct table *t, uint64_t entry)
{
	return ((entry * 0x9e3779b97f4a7c15ull) >> 20) & (t->nbuckets - 1);
}

static struct node **slot(const struct table *t, uint64_t entry) { return bucket_at(t, hash(t, entry)); }

void swapcache_init(uint64_t pages, uint32_t cpus)
{
	nshards = 1;
	while (nshards < MAX_SHARDS && nshards < 2 * (uint64_t)cpus)
		nshards *= 2;
	for (uint32_t i = 0; i < nshards; i++) {
		struct shard *sc = &shards[i];
		spin_init(&sc->lock, "swapcache");
		sc->max_buckets = MIN_BUCKETS;
		while (sc->max_buckets < pages / 2 / nshards)
			sc->max_buckets *= 2;
		sc->cur = table_alloc(MIN_BUCKETS);
		if (!sc->cur.dir)
			panic("swapcache: no memory for %lu buckets", (uint64_t)MIN_BUCKETS);
		sc->next_grow = 2 * MIN_BUCKETS;
		sc->max_shadows = pages / nshards ? pages / nshards : 1;
		list_init(&sc->shadows);
		for (int a = 0; a < SWAP_MAX_AREAS; a++)
			list_init(&sc->by_area[a]);
	}
}

/* Move up to MIGRATE_STEP old buckets into cur.  Lock held.  Returns the
 * old table's directory to free once it is empty (the caller frees it
 * after dropping the lock), else an empty table. */
static struct table migrate(struct shard *sc)
{
	struct table done = { NULL, 0 };
	if (!sc->old.dir)
		return done;
	for (int i = 0; i < MIGRATE_STEP && sc->migrated < sc->old.nbuckets; i++, sc->migrated++) {
		struct node **b = bucket_at(&sc->old, sc->migrated);
		while (*b) {
			struct node *x = *b, **to = slot(&sc->cur, x->entry);
			*b = x->next;
			x->next = *to;
			*to = x;
		}
	}
	if (sc->migrated == sc->old.nbuckets) {
		done = sc->old;
		sc->old.dir = NULL;
	}
	return done;
}

/* Double the table when entries outnumber buckets 2:1.  Lock not held. */
static void maybe_grow(struct shard *sc)
{
	uint64_t nb = __atomic_load_n(&sc->cur.nbuckets, __ATOMIC_RELAXED);
	uint64_t held = __atomic_load_n(&sc->n, __ATOMIC_RELAXED) + __atomic_load_n(&sc->nshadow, __ATOMIC_RELAXED);
	if (held < __atomic_load_n(&sc->next_grow, __ATOMIC_RELAXED) || nb >= sc->max_buckets ||
	    __atomic_load_n(&sc->old.dir, __ATOMIC_RELAXED))
		return;
	struct table t = table_alloc(nb * 2);
	bool on = spin_lock_irqsave(&sc->lock);
	if (t.dir && !sc->old.dir && sc->cur.nbuckets == nb) {
		sc->old = sc->cur;
		sc->migrated = 0;
		sc->cur = t;
		t.dir = NULL;
		sc->next_grow = 2 * sc->cur.nbuckets;
	} else if (!t.dir) {
		sc->next_grow = 2 * (sc->n + sc->nshadow);     /* no memory now: try again after doubling */
	}
	spin_unlock_irqrestore(&sc->lock, on);
	table_free(&t);
}

/* Back to the smallest table once the shard is empty, shadows included
 * (between runs, after exited tasks' pages and slots are gone): a table
 * grown by one big run is not kept for ever, so free frames come back to
 * where they started.  Lock not held. */
static void maybe_shrink(struct shard *sc)
{
	if (__atomic_load_n(&sc->n, __ATOMIC_RELAXED) || __atomic_load_n(&sc->nshadow, __ATOMIC_RELAXED) ||
	    (__atomic_load_n(&sc->cur.nbuckets, __ATOMIC_RELAXED) <= MIN_BUCKETS &&
	     !__atomic_load_n(&sc->old.dir, __ATOMIC_RELAXED)))
		return;
	struct table t = table_alloc(MIN_BUCKETS), old = { NULL, 0 };
	if (!t.dir)
		return;
	bool on = spin_lock_irqsave(&sc->lock);
	if (!sc->n && !sc->nshadow && (sc->cur.nbuckets > MIN_BUCKETS || sc->old.dir)) {
		struct table big = sc->cur;     /* empty, as is old: n and nshadow count both */
		old = sc->old;
		sc->old.dir = NULL;
		sc->cur = t;
		t = big;
		sc->next_grow = 2 * MIN_BUCKETS;
	}
	spin_unlock_irqrestore(&sc->lock, on);
	table_free(&t);
	table_free(&old);
}

/* The chain link holding entry's node (in cur or the unmigrated old
 * table), or the empty link at the end of cur's chain.  Lock held. */
static struct node **find(struct shard *sc, uint64_t entry)
{
	if (sc->old.dir) {
		uint64_t b = hash(&sc->old, entry);
		if (b >= sc->migrated)
			for (struct node **x = bucket_at(&sc->old, b); *x; x = &(*x)->next)
				if ((*x)->entry == entry)
					return x;
	}
	struct node **x = slot(&sc->cur, entry);
	while (*x && (*x)->entry != entry)
		x = &(*x)->next;
	return x;
}

/* A free node of sc's, or NULL.  Lock held. */
static struct node *spare_take(struct shard *sc)
{
	struct node *n = sc->spare;
	if (n) {
		sc->spare = n->next;
		sc->nspare--;
	}
	return n;
}

/* Keep n (or NULL) among sc's free nodes; returns it when there is no
 * room, for the caller to kfree once the lock is dropped.  Lock held. */
static struct node *spare_put(struct shard *sc, struct node *n)
{
	if (!n || sc->nspare >= SPARE_MAX)
		return n;
	n->next = sc->spare;
	sc->spare = n;
	sc->nspare++;
	return NULL;
}

void swapcache_drain_spares(void)
{
	for (uint32_t i = 0; i < nshards; i++) {
		struct shard *sc = &shards[i];
		bool on = spin_lock_irqsave(&sc->lock);
		struct node *n = sc->spare;
		sc->spare = NULL;
		sc->nspare = 0;
		spin_unlock_irqrestore(&sc->lock, on);
		while (n) {
			struct node *next = n->next;
			kfree(n);
			n = next;
		}
	}
}

/* Insert p for entry; the caller has or takes the cache's slot count. */
static int insert(struct page *p, uint64_t entry)
{
	struct shard *sc = shard_of(entry);
	bool on = spin_lock_irqsave(&sc->lock);
	struct node *n = spare_take(sc);
	if (!n) {
		spin_unlock_irqrestore(&sc->lock, on);  /* kmalloc: not with a shard's lock held */
		n = kmalloc(sizeof *n);
		if (!n)
			return -ENOMEM;
		on = spin_lock_irqsave(&sc->lock);
	}
	struct node **x = find(sc, entry);
	if (*x && (*x)->page) {
		n = spare_put(sc, n);
		spin_unlock_irqrestore(&sc->lock, on);
		kfree(n);
		return -EEXIST;
	}
	struct node *spare = NULL;
	if (*x) {
		/* The slot's shadow: its node becomes the page's, the
		 * shadow kept for swapcache_take_shadow. */
		struct node *s = *x;
		list_del(&s->area_link);
		sc->nshadow--;
		s->page = p;
		spare = n;              /* freed with the lock dropped */
		n = s;
	} else {
		*n = (struct node){ NULL, entry, p, 0, { NULL, NULL } };
		*x = n;
	}
	list_add_tail(&n->area_link, &sc->by_area[swp_area(entry)]);
	sc->n++;
	get_page(p);
	p->private = entry;
	page_set(p, PG_SWAPCACHE);
	spare = spare_put(sc, spare);
	struct table done = migrate(sc);
	spin_unlock_irqrestore(&sc->lock, on);
	table_free(&done);
	kfree(spare);
	vmstat_inc(SWAPCACHE_ADD);
	maybe_grow(sc);
	return 0;
}

int swapcache_add(struct page *p, uint64_t entry)
{
	int err = insert(p, entry);
	if (!err) {
		swap_dup(entry);
		swap_settle(entry);     /* a fresh slot's data is found here now */
	}
	return err;
}

int swapcache_add_read(struct page *p, uint64_t entry)
{
	if (!swap_dup_if_data(entry))
		return -ENOENT;
	int err = insert(p, entry);
	if (err)
		swap_free(entry);
	return err;
}

void swapcache_del(struct page *p)
{
	uint64_t entry = p->private;
	struct shard *sc = shard_of(entry);
	struct node *gone = NULL;
	bool on = spin_lock_irqsave(&sc->lock);
	struct node **x = find(sc, entry);
	if (*x && (*x)->page == p) {
		gone = *x;
		*x = gone->next;
		list_del(&gone->area_link);
		sc->n--;
		page_clear(p, PG_SWAPCACHE);
	}
	struct node *freed = spare_put(sc, gone);
	struct table done = migrate(sc);
	spin_unlock_irqrestore(&sc->lock, on);
	table_free(&done);
	if (!gone)
		panic("swapcache_del: page not in the cache (entry 0x%lx)", entry);
	kfree(freed);
	vmstat_inc(SWAPCACHE_DEL);
	swap_free(entry);
	put_page(p);
	maybe_shrink(sc);
}

struct page *swapcache_lookup(uint64_t entry, bool count)
{
	struct page *p = NULL;
	struct shard *sc = shard_of(entry);
	bool on = spin_lock_irqsave(&sc->lock);
	struct node *x = *find(sc, entry);
	if (x && x->page) {
		p = x->page;
		get_page(p);
	}
	spin_unlock_irqrestore(&sc->lock, on);
	if (count) {
		vmstat_inc(SWAPCACHE_FIND);
		if (p)
			vmstat_inc(SWAPCACHE_FIND_HIT);
	}
	return p;
}

void swapcache_cached_many(const uint64_t *entries, uint32_t n, bool *cached)
{
	struct shard *held = NULL;
	bool on = false;
	for (uint32_t i = 0; i < n; i++) {
		struct shard *sc = shard_of(entries[i]);
		if (sc != held) {
			if (held)
				spin_unlock_irqrestore(&held->lock, on);
			on = spin_lock_irqsave(&sc->lock);
			held = sc;
		}
		struct node *x = *find(sc, entries[i]);
		cached[i] = x && x->page;
	}
	if (held)
		spin_unlock_irqrestore(&held->lock, on);
}

bool swapcache_cached(uint64_t entry)
{
	bool cached;
	swapcache_cached_many(&entry, 1, &cached);
	return cached;
}

/* p leaves the cache: a readahead page no fault used is waste. */
static void readahead_done(struct page *p)
{
	page_clear(p, PG_RA_MARK);
	bool loose = page_test_clear(p, PG_RA_LOOSE);
	if (page_test_clear(p, PG_READAHEAD))
		ra_waste(loose);
}

void swapcache_drop(struct page *p)
{
	readahead_done(p);
	swapcache_del(p);
}

/* Remove the shadow node *x.  Lock held; the caller frees it. */
static struct node *unlink_shadow(struct shard *sc, struct node **x)
{
	struct node *s = *x;
	*x = s->next;
	list_del(&s->area_link);
	sc->nshadow--;
	return s;
}

void swapcache_evict(struct page *p, uint64_t shadow)
{
	uint64_t entry = p->private;
	/* Only a slot someone else still holds can be read back; the cache's
	 * own count is the last one otherwise, and swap_free below frees
	 * the slot.  Should the other holders let go meanwhile, the shadow
	 * is already in place for swapcache_forget_shadow to find. */
	if (!shadow || swap_count(entry) <= 1) {
		swapcache_drop(p);
		return;
	}
	readahead_done(p);
	struct shard *sc = shard_of(entry);
	struct node *old = NULL;
	bool on = spin_lock_irqsave(&sc->lock);
	struct node **x = find(sc, entry);
	if (!*x || (*x)->page != p) {
		spin_unlock_irqrestore(&sc->lock, on);
		panic("swapcache_evict: page not in the cache (entry 0x%lx)", entry);
	}
	struct node *s = *x;
	list_del(&s->area_link);
	sc->n--;
	page_clear(p, PG_SWAPCACHE);
	s->page = NULL;
	s->shadow = shadow;
	list_add_tail(&s->area_link, &sc->shadows);
	if (++sc->nshadow > sc->max_shadows) {
		struct node *oldest = list_entry(sc->shadows.next, struct node, area_link);
		old = spare_put(sc, unlink_shadow(sc, find(sc, oldest->entry)));
	}
	struct table done = migrate(sc);
	spin_unlock_irqrestore(&sc->lock, on);
	table_free(&done);
	kfree(old);
	vmstat_inc(SWAPCACHE_DEL);
	swap_free(entry);
	put_page(p);
}

uint64_t swapcache_take_shadow(struct page *p)
{
	uint64_t shadow = 0;
	struct shard *sc = shard_of(p->private);
	bool on = spin_lock_irqsave(&sc->lock);
	struct node *x = *find(sc, p->private);
	if (x && x->page == p) {
		shadow = x->shadow;
		x->shadow = 0;
	}
	spin_unlock_irqrestore(&sc->lock, on);
	return shadow;
}

void swapcache_forget_shadow(uint64_t entry)
{
	struct shard *sc = shard_of(entry);
	if (!__atomic_load_n(&sc->nshadow, __ATOMIC_RELAXED))
		return;
	struct node *s = NULL;
	bool on = spin_lock_irqsave(&sc->lock);
	struct node **x = find(sc, entry);
	bool gone = *x && !(*x)->page;
	if (gone)
		s = spare_put(sc, unlink_shadow(sc, x));
	spin_unlock_irqrestore(&sc->lock, on);
	kfree(s);
	if (gone)
		maybe_shrink(sc);
}

/* One shard per call, the next in turn: evictions spread their shadows
 * over the shards, and each eviction calls this once. */
int swapcache_trim_shadows(bool (*stale)(uint64_t shadow, void *arg), void *arg, int max)
{
	struct node *gone[8];
	int n = 0;
	if (max > 8)
		max = 8;
	struct shard *sc = &shards[__atomic_fetch_add(&trim_next, 1, __ATOMIC_RELAXED) & (nshards - 1)];
	if (!__atomic_load_n(&sc->nshadow, __ATOMIC_RELAXED))
		return 0;
	bool on = spin_lock_irqsave(&sc->lock);
	while (n < max && !list_empty(&sc->shadows)) {
		struct node *oldest = list_entry(sc->shadows.next, struct node, area_link);
		if (!stale(oldest->shadow, arg))
			break;
		gone[n++] = spare_put(sc, unlink_shadow(sc, find(sc, oldest->entry)));
	}
	spin_unlock_irqrestore(&sc->lock, on);
	for (int i = 0; i < n; i++)
		kfree(gone[i]);
	return n;
}

/* A sum over the shards, each read without its lock: a figure for
 * reports and thresholds, exact when nothing changes meanwhile. */
static uint64_t sum(size_t field)
{
	uint64_t t = 0;
	for (uint32_t i = 0; i < nshards; i++)
		t += __atomic_load_n((uint64_t *)((char *)&shards[i] + field), __ATOMIC_RELAXED);
	return t;
}

uint64_t swapcache_shadows(void) { return sum(offsetof(struct shard, nshadow)); }

void swapcache_free_entry(uint64_t entry)
{
	swap_free(entry);
	if (swap_count(entry) != 1)
		return;
	struct page *p = swapcache_lookup(entry, false);
	if (!p)
		return;
	if (trylock_page(p)) {
		if (page_test(p, PG_SWAPCACHE) && p->private == entry && !p->mapcount &&
		    !page_test(p, PG_WRITEBACK | PG_SHMEM) && swap_count(entry) == 1) {
			swapcache_drop(p);
		}
		unlock_page(p);
	}
	put_page(p);
}

uint64_t swapcache_size(void) { return sum(offsetof(struct shard, n)); }

int swapcache_collect(unsigned area, struct page **out, int max)
{
	int n = 0;
	if (area >= SWAP_MAX_AREAS)
		return 0;
	for (uint32_t i = 0; i < nshards && n < max; i++) {
		struct shard *sc = &shards[i];
		bool on = spin_lock_irqsave(&sc->lock);
		list_for_each(it, &sc->by_area[area]) {
			if (n == max)
				break;
			struct node *x = list_entry(it, struct node, area_link);
			get_page(x->page);
			out[n++] = x->page;
		}
		spin_unlock_irqrestore(&sc->lock, on);
	}
	return n;
}

int swapcache_walk(unsigned area, struct swapcache_walk *w, struct page **out, int max)
{
	int n = 0;
	if (area >= SWAP_MAX_AREAS)
		return 0;
	while (n < max && w->shard < nshards) {
		struct shard *sc = &shards[w->shard];
		struct list_node *h = &sc->by_area[area];
		bool on = spin_lock_irqsave(&sc->lock);
		if (!w->started) {
			/* Once per shard: what it holds now is what this walk
			 * visits there. */
			w->left = 0;
			list_for_each(it, h)
				w->left++;
			w->started = true;
		}
		/* The head goes to the tail as it is taken, so the next call
		 * finds the pages not yet visited at the head, whatever the
		 * caller dropped or kept. */
		while (n < max && w->left && !list_empty(h)) {
			struct node *x = list_entry(h->next, struct node, area_link);
			list_move_tail(&x->area_link, h);
			get_page(x->page);
			out[n++] = x->page;
			w->left--;
		}
		bool done = !w->left || list_empty(h);
		spin_unlock_irqrestore(&sc->lock, on);
		if (done) {
			w->shard++;
			w->started = false;
		}
	}
	return n;
}
