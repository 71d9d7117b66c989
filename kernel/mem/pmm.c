/*
 * Page allocator wrapper.
 *
 * The struct page array covers pfn 0 .. max_pfn, where max_pfn is the end
 * of the highest usable range after mem=; RAM withheld by mem= has no
 * descriptors.  The array and the early page tables come from the early
 * allocator's window, which the buddy allocator never sees.
 *
 * Boot cost does not grow with RAM: the array is NOT zeroed (1/64 of RAM,
 * 16 GiB at 1 TiB), and the buddy initialises descriptors one 4 MiB chunk
 * at a time, when it first hands out a page of that chunk (buddy.h).  A
 * chunk without any usable page (holes, firmware, the array itself) never
 * gets descriptors: phys_to_page returns NULL there, as for any address
 * the allocator does not manage.
 *
 * With poisoning on (poison=on, the debug setting), freed frames are filled
 * with POISON_FREE and fresh ones with POISON_NEW, so use-after-free and
 * uninitialised reads show up as recognisable junk.
 *
 * Order-0 pages go through per-CPU lists (pcp.h) in front of the buddy:
 * a CPU allocates from and frees to its own list under its own lock, and
 * takes pmm.lock once per batch.  Pages on those lists are free: they are
 * counted in pmm_free_pages() and pmm_get_stats()'s free_pages (so the
 * memory balance and reclaim's watermarks see exactly what the buddy
 * alone would), and any allocation the buddy cannot serve drains every
 * CPU's list back into it and tries once more - before the caller gives
 * up, reclaims or kills for memory.  kswapd drains them too when it wakes
 * (Linux's drain_all_pages on the reclaim path): pages parked on idle
 * CPUs' lists go back where every CPU, and larger orders, can use them.
 *
 * Locking: pmm.lock (irqsave) guards the buddy state and held blocks;
 * pcp[cpu].locked the CPU's list (order: a list's lock, then pmm.lock;
 * one list lock at a time).  Counters are atomics.
 */
#include <string.h>
#include "pmm.h"
#include "buddy.h"
#include "pcp.h"
#include "kmem.h"
#include "core/panic.h"
#include "core/spinlock.h"
#include "lib/errno.h"
#include "core/smp.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smpboot.h"

#define LOW_RESERVE (1ull << 20)

static struct {
	struct spinlock lock;
	struct buddy buddy;             /* guarded by lock */
	struct page *map;
	uint64_t max_pfn;
	bool poison;
	struct pmm_stats st;            /* guarded by lock */
} pmm = { .lock = SPINLOCK_INIT("pmm") };

/* One list per possible CPU, by cpu id: 64 bytes each, 16 KiB for 256,
 * static because the first allocations come before kmalloc exists.  A
 * list is set up the first time its CPU frees or allocates a page.
 *
 * The list lock is a raw flag taken with interrupts off, like Linux's
 * local_lock plus the spinlock its remote drain takes: only its own CPU
 * takes it but for a drain, so it is never contended in the common case,
 * and a timed spinlock (lockstat, lockdep) costs as much as the list
 * operation itself.  test=pmmbench under -icount, mem=48M (batch 12,
 * high 48), ns per order-0 alloc+free: buddy alone 883 (one page out and
 * back) / 916 (1024 out, then back); lists under a spinlock 507 / 1097;
 * under this flag 349 / 939, and pmm.lock taken 11552 times instead of
 * 262359.  pmm.lock, taken inside it for every batch, stays a spinlock:
 * its count is the buddy's traffic. */
struct pmm_pcp {
	volatile uint32_t locked;       /* the list lock, interrupts off */
	struct pcp_list list;           /* guarded by locked */
	bool ready;                     /* set once, interrupts off, by its CPU */
} __attribute__((aligned(64)));

static struct pmm_pcp pcp[SMP_MAX_CPUS];

static void list_take(struct pmm_pcp *c)
{
	while (__atomic_exchange_n(&c->locked, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void list_drop(struct pmm_pcp *c) { __atomic_store_n(&c->locked, 0, __ATOMIC_RELEASE); }

static void buddy_lock(void *arg) { (void)arg; spin_lock(&pmm.lock); }
static void buddy_unlock(void *arg) { (void)arg; spin_unlock(&pmm.lock); }

static struct {
	struct pcp_pool pool;
	uint32_t cpus;                  /* [A] lists set up: ids below are worth draining */
	uint64_t drains;                /* [A] all lists given back (failed allocations) */
} pcps = { .pool = { .buddy = &pmm.buddy, .lock = buddy_lock, .unlock = buddy_unlock } };

/* ------------------------------------------------------------ CPU lists */

/* Rescale the marks for n CPUs: a CPU's first use, or one more online. */
static void pcp_rescale(uint32_t n)
{
	uint32_t high, batch;
	pcp_marks(pmm.st.total_pages, n, &high, &batch);
	__atomic_store_n(&pcps.pool.high, high, __ATOMIC_RELAXED);
	__atomic_store_n(&pcps.pool.batch, batch, __ATOMIC_RELAXED);
}

/* This CPU's list, locked (interrupts off: *on for the unlock), or NULL
 * (an id beyond the table: the buddy directly).  Called with interrupts
 * on or off; the list lock is taken before pmm.lock (pcp.h). */
static struct pmm_pcp *pcp_lock(bool *on)
{
	/* Interrupts off first: the thread must not move to another CPU
	 * between reading its id and setting up or taking that CPU's list. */
	*on = irq_save();
	uint32_t id = this_cpu()->id;
	if (id >= SMP_MAX_CPUS) {
		irq_restore(*on);
		return NULL;
	}
	struct pmm_pcp *c = &pcp[id];
	if (!__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE)) {
		pcp_init(&c->list);
		__atomic_store_n(&c->ready, true, __ATOMIC_RELEASE);
		uint32_t n = __atomic_load_n(&pcps.cpus, __ATOMIC_RELAXED);
		while (n < id + 1 && !__atomic_compare_exchange_n(&pcps.cpus, &n, id + 1, false,
								  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		int online = smp_cpus_online();
		pcp_rescale((uint32_t)online > id + 1 ? (uint32_t)online : id + 1);
	}
	list_take(c);
	return c;
}

static void pcp_unlock(struct pmm_pcp *c, bool on)
{
	list_drop(c);
	irq_restore(on);
}

static void list_broken(struct pmm_pcp *c)
{
	panic("pmm: a page on CPU %ld's free list was not allocated in the buddy", (long)(c - pcp));
}

void pmm_drain_all(void)
{
	uint32_t n = __atomic_load_n(&pcps.cpus, __ATOMIC_ACQUIRE);
	__atomic_add_fetch(&pcps.drains, 1, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < n; i++) {
		struct pmm_pcp *c = &pcp[i];
		if (!__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE))
			continue;
		bool on = irq_save();
		list_take(c);
		bool ok = pcp_drain(&pcps.pool, &c->list);
		pcp_unlock(c, on);
		if (!ok)
			list_broken(c);
	}
}

static struct page *pcp_take(void)
{
	bool on;
	struct pmm_pcp *c = pcp_lock(&on);
	if (!c)
		return NULL;
	struct page *p = pcp_alloc(&pcps.pool, &c->list);
	pcp_unlock(c, on);
	return p;
}

static bool pcp_put(struct page *p)
{
	bool on;
	struct pmm_pcp *c = pcp_lock(&on);
	if (!c)
		return false;
	bool ok = pcp_free(&pcps.pool, &c->list, p);
	pcp_unlock(c, on);
	if (!ok)
		list_broken(c);
	return true;
}

struct page *phys_to_page(uint64_t pa)
{
	uint64_t pfn = pa >> PAGE_SHIFT;
	return pfn < pmm.max_pfn && buddy_pfn_ready(&pmm.buddy, pfn) ? &pmm.map[pfn] : NULL;
}

uint64_t page_to_phys(const struct page *p) { return (uint64_t)(p - pmm.map) << PAGE_SHIFT; }
void *page_address(const struct page *p) { return phys_to_virt(page_to_phys(p)); }
struct page *virt_to_page(const void *va) { return phys_to_page(virt_to_phys(va)); }

static void add_range(uint64_t s, uint64_t e, uint64_t elo, uint64_t ehi)
{
	if (s < LOW_RESERVE)
		s = LOW_RESERVE;
	/* Cut out the early allocator's window. */
	if (s < ehi && e > elo) {
		if (s < elo)
			add_range(s, elo, elo, ehi);
		if (e > ehi)
			add_range(ehi, e, elo, ehi);
		return;
	}
	if (e > s)
		buddy_add_range(&pmm.buddy, s >> PAGE_SHIFT, (e - s) >> PAGE_SHIFT);
}

void pmm_init(const struct memmap *m, bool poison)
{
	uint64_t top = 0, ram = 0;
	for (int i = 0; i < m->n; i++) {
		if (m->r[i].type == MEMMAP_FREE)
			top = m->r[i].end;
		if (memmap_is_ram(m->r[i].type) && m->r[i].type != MEMMAP_CAPPED)
			ram += m->r[i].end - m->r[i].start;
	}
	pmm.max_pfn = top >> PAGE_SHIFT;
	uint64_t bytes = pmm.max_pfn * sizeof(struct page);
	uint64_t pages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t words = buddy_ready_words(0, pmm.max_pfn);
	uint64_t *ready = phys_to_virt(kmem_early_alloc((words * 8 + PAGE_SIZE - 1) / PAGE_SIZE));
	pmm.map = phys_to_virt(kmem_early_alloc_raw(pages));
	pmm.poison = poison;
	buddy_init(&pmm.buddy, pmm.map, ready, 0, pmm.max_pfn);
	uint64_t elo, ehi;
	kmem_early_window(&elo, &ehi);
	for (int i = 0; i < m->n; i++)
		if (m->r[i].type == MEMMAP_FREE)
			add_range(m->r[i].start, m->r[i].end, elo, ehi);
	pmm.st.memmap_pages = pages;
	pmm.st.total_pages = pmm.buddy.managed_pages;
	pmm.st.max_pfn = pmm.max_pfn;
	pmm.st.reserved_pages = (ram >> PAGE_SHIFT) - pmm.st.total_pages;
	kmem_early_done();
}

/* ------------------------------------------------------------ alloc, free */

/* ------------------------------------------------------------ code frames
 *
 * A frame that held user code (PG_CODE: mapped executable) is freed onto a
 * list of its own, counted as free, and handed out for user code first
 * (PMM_CODE: exec's text) and for anything else only when the buddy and
 * every CPU's list are empty.  Exec copies a program's text into fresh
 * frames, and under QEMU's TCG a frame that held translated code makes
 * every later write to it take the emulator's slow path until its
 * translations are gone (those of an exited program stay until the
 * translation cache is flushed).  Recycled as page tables or hot data,
 * such frames made whole runs slow: touch's jumps:2000 at ssd under plain
 * TCG took either about 790 ms (215-230 ms of kernel CPU) or about 890
 * ms (400-430 ms), by run, and own's runs all the latter; with code
 * frames never reused (a test build) every run took the former.  On
 * hardware the list costs nothing: a program's text is a few pages, and
 * its next exec takes them back.
 */
static struct {
	struct list_node list;          /* via lru; guarded by pmm.lock */
	uint64_t pages;                 /* written under pmm.lock */
} code = { .list = LIST_INIT(code.list) };

/* Off the list, as the buddy's own allocated pages are; pmm.lock held. */
static uint64_t code_unlink(struct page *p)
{
	list_del(&p->lru);
	p->flags = 0;
	code.pages--;
	return (uint64_t)(p - pmm.map);
}

static int64_t code_take(void)
{
	int64_t pfn = -1;
	bool on = spin_lock_irqsave(&pmm.lock);
	if (!list_empty(&code.list))
		pfn = (int64_t)code_unlink(list_last(&code.list, struct page, lru));    /* the last freed */
	spin_unlock_irqrestore(&pmm.lock, on);
	return pfn;
}

/* Every code frame back to the buddy: a block larger than a page is
 * wanted and nothing else is free. */
static bool code_release(void)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	bool any = !list_empty(&code.list);
	while (!list_empty(&code.list)) {
		uint64_t pfn = code_unlink(list_first(&code.list, struct page, lru));
		if (!buddy_free(&pmm.buddy, pfn, 0))
			panic("pmm: code frame pfn 0x%lx not allocated in the buddy", pfn);
	}
	spin_unlock_irqrestore(&pmm.lock, on);
	return any;
}

static int64_t buddy_take(unsigned order)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	int64_t pfn = buddy_alloc(&pmm.buddy, order);
	spin_unlock_irqrestore(&pmm.lock, on);
	return pfn;
}

struct page *pmm_alloc(unsigned order, unsigned flags)
{
	int64_t pfn = !order && (flags & PMM_CODE) ? code_take() : -1;
	if (pfn < 0 && order) {
		pfn = buddy_take(order);
	} else if (pfn < 0) {
		struct page *c = pcp_take();
		pfn = c ? c - pmm.map : -1;
	}
	if (pfn < 0) {
		/* Free pages may sit on other CPUs' lists (or, for a larger
		 * block, on any list, this CPU's too). */
		pmm_drain_all();
		pfn = buddy_take(order);
	}
	if (pfn < 0 && !order)
		pfn = code_take();              /* the last resort: a frame that held code */
	else if (pfn < 0 && code_release())
		pfn = buddy_take(order);        /* a block: the code frames may complete one */
	if (pfn < 0) {
		__atomic_add_fetch(&pmm.st.failures, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	__atomic_add_fetch(&pmm.st.allocs, 1, __ATOMIC_RELAXED);
	struct page *p = &pmm.map[pfn];
	p->refcount = 1;
	p->flags = (order ? PG_HEAD : 0) | ((flags & PMM_KERNEL) ? PG_KERNEL : 0);
	p->order = (uint8_t)order;
	if (flags & PMM_ZERO)
		memset(page_address(p), 0, PAGE_SIZE << order);
	else if (pmm.poison)
		memset(page_address(p), POISON_NEW, PAGE_SIZE << order);
	return p;
}

void pmm_free(struct page *p, unsigned order)
{
	uint64_t pfn = (uint64_t)(p - pmm.map);
	if (pfn >= pmm.max_pfn || !buddy_pfn_ready(&pmm.buddy, pfn) ||
	    (p->flags & (PG_BUDDY | PG_RESERVED | PG_PCP | PG_CODE_FREE)))
		panic("pmm: bad free of pfn 0x%lx order %u (double free or never allocated)", pfn, order);
	bool was_code = !order && (p->flags & PG_CODE);
	if (pmm.poison)
		memset(page_address(p), POISON_FREE, PAGE_SIZE << order);
	for (uint64_t i = 0; i < (1ull << order); i++) {
		p[i].flags = 0;
		p[i].refcount = 0;
		p[i].mapcount = 0;
		p[i].mapping = NULL;
		p[i].private = 0;
	}
	__atomic_add_fetch(&pmm.st.frees, 1, __ATOMIC_RELAXED);
	if (was_code) {
		bool on = spin_lock_irqsave(&pmm.lock);
		p->flags = PG_CODE_FREE;
		list_add_tail(&p->lru, &code.list);
		code.pages++;
		spin_unlock_irqrestore(&pmm.lock, on);
		return;
	}
	if (!order && pcp_put(p))
		return;
	bool on = spin_lock_irqsave(&pmm.lock);
	bool ok = buddy_free(&pmm.buddy, pfn, order);
	spin_unlock_irqrestore(&pmm.lock, on);
	if (!ok)
		panic("pmm: bad free of pfn 0x%lx order %u (double free or never allocated)", pfn, order);
}

/* ------------------------------------------------------------ run-time limit
 *
 * pmm_set_limit: frames beyond the limit are taken from the free lists in
 * 1 MiB blocks and held, never written, until the limit is raised again,
 * so a 16 GiB machine can be squeezed to a few hundred MiB for a swap test
 * without touching 16 GiB.  Held blocks are allocated (the free counters
 * stay exact).  They go back without poisoning: nobody but this list ever
 * had their address, so there is no use-after-free to catch, and poisoning
 * would write every held byte.
 */

#define HOLD_ORDER 8            /* 1 MiB: the limit's granularity */

static struct {
	struct list_node blocks;        /* head pages, via lru; guarded by pmm.lock */
	uint64_t pages;                 /* written under pmm.lock */
	uint64_t limit;                 /* only pmm_set_limit, one caller at a time */
} held = { .blocks = LIST_INIT(held.blocks) };

static bool hold_one(void)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	int64_t pfn = buddy_alloc(&pmm.buddy, HOLD_ORDER);
	if (pfn >= 0) {
		struct page *p = &pmm.map[pfn];
		p->flags = PG_HEAD | PG_KERNEL;
		p->order = HOLD_ORDER;
		p->refcount = 1;
		list_add(&p->lru, &held.blocks);
		held.pages += 1ull << HOLD_ORDER;
	}
	spin_unlock_irqrestore(&pmm.lock, on);
	return pfn >= 0;
}

static void release_one(void)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	struct page *p = list_first(&held.blocks, struct page, lru);
	list_del(&p->lru);
	held.pages -= 1ull << HOLD_ORDER;
	*p = (struct page){ .flags = 0 };
	list_init(&p->lru);
	bool ok = buddy_free(&pmm.buddy, (uint64_t)(p - pmm.map), HOLD_ORDER);
	spin_unlock_irqrestore(&pmm.lock, on);
	if (!ok)
		panic("pmm: held block at pfn 0x%lx was not allocated", (uint64_t)(p - pmm.map));
}

/* One block per lock hold: taking 16 GiB opens thousands of chunks, and
 * interrupts must not stay off for all of it.  Callers are serialised by
 * the knob layer (one script or run= line at a time). */
int pmm_set_limit(uint64_t pages)
{
	pmm_drain_all();        /* whole 1 MiB blocks: the lists' pages may split them */
	code_release();         /* and so may the code frames */
	uint64_t total = pmm.st.total_pages, want = 0, before = held.pages;
	if (pages && pages < total)
		want = (total - pages + (1ull << HOLD_ORDER) - 1) & ~((1ull << HOLD_ORDER) - 1);
	while (held.pages < want)
		if (!hold_one()) {
			while (held.pages > before)
				release_one();
			return -ENOMEM;
		}
	while (held.pages > want)
		release_one();
	held.limit = pages;
	return 0;
}

uint64_t pmm_limit(void) { return held.limit; }

void pmm_get_stats(struct pmm_stats *s)
{
	bool on = spin_lock_irqsave(&pmm.lock);
	*s = pmm.st;
	s->pcp_pages = __atomic_load_n(&pcps.pool.pages, __ATOMIC_RELAXED);
	s->pcp_high = pcps.pool.high;
	s->pcp_batch = pcps.pool.batch;
	s->pcp_drains = pcps.drains;
	s->free_pages = pmm.buddy.free_pages + s->pcp_pages;
	s->deferred_pages = pmm.buddy.deferred_pages;
	s->held_pages = held.pages;
	s->code_pages = code.pages;
	s->free_pages += code.pages;
	spin_unlock_irqrestore(&pmm.lock, on);
}

uint64_t pmm_total_pages(void) { return __atomic_load_n(&pmm.st.total_pages, __ATOMIC_RELAXED); }

uint64_t pmm_free_pages(void)
{
	return __atomic_load_n(&pmm.buddy.free_pages, __ATOMIC_RELAXED) + __atomic_load_n(&pcps.pool.pages, __ATOMIC_RELAXED) +
	       __atomic_load_n(&code.pages, __ATOMIC_RELAXED);
}
