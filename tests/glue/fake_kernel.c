/*
 * Small fakes of what kernel/swap/swapcache.c calls outside itself: the
 * heap (counted, so tests find leaks), page references and the page lock
 * (the real rules: a reference count that frees at zero, a lock that is
 * not recursive), swap-slot counts (a map from entry to count), vmstat and
 * readahead-waste counters, panic.  In the manner of Linux's
 * tools/testing/vma: the real file under test, fakes around it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake_kernel.h"
#include "mem/kmalloc.h"
#include "vm/page_ref.h"
#include "vm/vmstat.h"
#include "core/panic.h"
#include "swap/swap.h"
#include "swap/readahead.h"

struct fake_state fake;

void *kmalloc(size_t size)
{
	if (fake.fail_allocs && --fake.fail_allocs == 0)
		return NULL;
	fake.live_allocs++;
	return malloc(size);
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (p)
		fake.live_allocs--;
	free(p);
}

void get_page(struct page *p) { p->refcount++; }

void put_page(struct page *p)
{
	if (--p->refcount < 0) {
		fprintf(stderr, "put_page: refcount went negative\n");
		abort();
	}
	if (!p->refcount)
		fake.pages_freed++;
}

bool trylock_page(struct page *p)
{
	if (p->flags & PG_LOCKED)
		return false;
	p->flags |= PG_LOCKED;
	return true;
}

void unlock_page(struct page *p)
{
	if (!(p->flags & PG_LOCKED)) {
		fprintf(stderr, "unlock_page: not locked\n");
		abort();
	}
	p->flags &= ~PG_LOCKED;
}

void vmstat_add(enum vmstat_item i, uint64_t n) { fake.vmstat[i] += n; }

void ra_waste(uint64_t entry)
{
	(void)entry;
	fake.ra_waste++;
}

/* Slot counts: an open-addressed map, big enough for the tests. */
static struct { uint64_t entry; int count; } slots[1 << 16];

static int *slot_count(uint64_t entry)
{
	uint64_t h = (entry * 0x9e3779b97f4a7c15ull) >> 48;
	for (;; h = (h + 1) & 0xffff) {
		if (slots[h].entry == entry)
			return &slots[h].count;
		if (!slots[h].entry) {
			slots[h].entry = entry;
			return &slots[h].count;
		}
	}
}

void swap_dup(uint64_t entry) { ++*slot_count(entry); }
int swap_count(uint64_t entry) { return *slot_count(entry); }

void swap_free(uint64_t entry)
{
	int *c = slot_count(entry);
	if (--*c < 0) {
		fprintf(stderr, "swap_free: count of 0x%llx went negative\n", (unsigned long long)entry);
		abort();
	}
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "panic: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}
