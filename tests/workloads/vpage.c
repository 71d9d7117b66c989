/*
 * vpage.c - verified page touches (model and rules in vpage.h).
 *
 * Layout of a touched page: word 0 holds vpage_value(page, n) and word
 * vpage_copy_word(page) (1..511, varying with the page) holds its bitwise
 * complement, so neither an all-zero nor an all-ones page, nor a neighbour's
 * contents, can pass. Everything else in the page is left alone.
 */
#include "vpage.h"
#include "wtrace.h"

#define VPAGE_WORDS (RT_PAGE_SIZE / sizeof(uint64_t))

/* Never 0 (bit 0 is forced), so it cannot match an untouched page. */
static uint64_t vpage_value(uint64_t page, uint32_t n)
{
	return rt_mix64((page << 32) | n) | 1;
}

static uint64_t vpage_copy_word(uint64_t page)
{
	return 1 + page % (VPAGE_WORDS - 1);
}

static uint64_t *vpage_words(const struct vpage_set *s, uint64_t page)
{
	return (uint64_t *)(s->base + page * RT_PAGE_SIZE);
}

static void vpage_mismatch(struct vpage_set *s, uint64_t page, uint64_t got0,
			   uint64_t got1, uint64_t want, uint64_t want_copy,
			   uint32_t n)
{
	/* atomic: threads of touch ... shared report into one set */
	if (__atomic_fetch_add(&s->mismatches, 1, __ATOMIC_RELAXED) >= VPAGE_REPORT_MAX)
		return;
	rt_dprintf(2, "%s: MISMATCH page %llu at %p after %u touches: "
		   "word0 0x%llx copy 0x%llx, want 0x%llx/0x%llx\n",
		   s->who, (unsigned long long)page, (void *)vpage_words(s, page),
		   n, (unsigned long long)got0, (unsigned long long)got1,
		   (unsigned long long)want, (unsigned long long)want_copy);
}

/* Checks one page against touch count n; true if it holds what it should. */
static bool vpage_check_n(struct vpage_set *s, uint64_t page, uint32_t n)
{
	uint64_t *w = vpage_words(s, page);
	uint64_t want = n == 0 ? 0 : vpage_value(page, n);
	uint64_t want_copy = n == 0 ? 0 : ~want;
	uint64_t got0, got1;

	wtrace_page(w);
	got0 = w[0];
	got1 = w[vpage_copy_word(page)];

	if (n == 0 && s->file)
		return true;	/* whatever the file held: read, not judged */
	if (got0 == want && got1 == want_copy)
		return true;
	vpage_mismatch(s, page, got0, got1, want, want_copy, n);
	return false;
}

static bool vpage_check(struct vpage_set *s, uint64_t page)
{
	return vpage_check_n(s, page, s->counts[page]);
}

/* Maps the region - anonymous (MAP_PRIVATE, or MAP_SHARED: shmem) with
 * fd < 0, else fd's first pages MAP_SHARED - and its counters. Returns 0
 * or -errno. */
static int vpage_map_on(struct vpage_set *s, uint64_t pages, bool shared, int fd, const char *who)
{
	int kind = shared ? RT_MAP_SHARED : RT_MAP_PRIVATE;
	int prot = RT_PROT_READ | RT_PROT_WRITE;
	size_t counts_len = (pages * sizeof(uint32_t) + RT_PAGE_SIZE - 1) &
			    ~(RT_PAGE_SIZE - 1);

	*s = (struct vpage_set){ .pages = pages, .who = who };
	s->base = rt_mmap(NULL, pages * RT_PAGE_SIZE, prot,
			  fd < 0 ? kind | RT_MAP_ANONYMOUS : RT_MAP_SHARED, fd, 0);
	if (rt_mmap_failed(s->base))
		return -rt_mmap_error(s->base);
	s->file = fd >= 0;
	s->counts = rt_mmap(NULL, counts_len, prot, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(s->counts)) {
		int err = rt_mmap_error(s->counts);

		rt_munmap(s->base, pages * RT_PAGE_SIZE);
		return -err;
	}
	return 0;
}

int vpage_map(struct vpage_set *s, uint64_t pages, bool shared, const char *who)
{
	return vpage_map_on(s, pages, shared, -1, who);
}

int vpage_map_file(struct vpage_set *s, uint64_t pages, int fd, const char *who)
{
	return vpage_map_on(s, pages, true, fd, who);
}

void vpage_unmap(struct vpage_set *s)
{
	size_t counts_len = (s->pages * sizeof(uint32_t) + RT_PAGE_SIZE - 1) &
			    ~(RT_PAGE_SIZE - 1);

	rt_munmap(s->counts, counts_len);
	wtrace_unmap(s->base, s->pages * RT_PAGE_SIZE);
	rt_munmap(s->base, s->pages * RT_PAGE_SIZE);
}

/* Verifies the page's previous contents, then writes its next value. */
void vpage_touch(struct vpage_set *s, uint64_t page)
{
	uint64_t *w = vpage_words(s, page);
	uint32_t n = s->counts[page];
	uint64_t v;

	vpage_check(s, page);
	if (n == 0)
		s->touched++;
	n = n == UINT32_MAX ? 1 : n + 1;	/* 0 means "never touched" */
	v = vpage_value(page, n);
	w[0] = v;
	w[vpage_copy_word(page)] = ~v;
	s->counts[page] = n;
}

/*
 * Takes the page's lock bit in its counter word (compare-and-swap), then
 * checks and rewrites the page as vpage_touch does. Another thread holding
 * the bit may be asleep in a fault on that very page (swap-in), so the
 * waiter yields the CPU rather than spinning against a 1-CPU machine.
 * The page is read once before the lock is taken, so that threads heading
 * for one page fault on it together (first touch, swap-in) instead of
 * one after another behind the lock bit: the kernel's parallel faults of
 * one address space on one page are what threads=N shared is there to
 * exercise (issue 14); the read's value is not used.
 */
void vpage_touch_shared(struct vpage_set *s, uint64_t page)
{
	uint32_t *c = &s->counts[page];
	uint32_t n = __atomic_load_n(c, __ATOMIC_RELAXED);
	uint64_t *w = vpage_words(s, page);
	uint64_t v;

	(void)__atomic_load_n(&w[0], __ATOMIC_RELAXED);
	for (;;) {
		if (!(n & VPAGE_LOCKED) &&
		    __atomic_compare_exchange_n(c, &n, n | VPAGE_LOCKED, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		rt_sched_yield();
		n = __atomic_load_n(c, __ATOMIC_RELAXED);
	}
	vpage_check_n(s, page, n);
	if (n == 0)
		__atomic_fetch_add(&s->touched, 1, __ATOMIC_RELAXED);
	n = n == VPAGE_LOCKED - 1 ? 1 : n + 1;	/* 0 means "never touched" */
	v = vpage_value(page, n);
	w[0] = v;
	w[vpage_copy_word(page)] = ~v;
	__atomic_store_n(c, n, __ATOMIC_RELEASE);
}

/* Read-only pass over every page; mismatches are counted as in touches. */
void vpage_verify_all(struct vpage_set *s)
{
	for (uint64_t page = 0; page < s->pages; page++)
		vpage_check(s, page);
}
