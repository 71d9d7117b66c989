/*
 * Built-in tests.  Scenarios that must crash do so in a way whose report
 * the QEMU tests recognise; scenarios that must pass check invariants and
 * report a selftest record with "ok" and what failed.
 */
#include <string.h>
#include "selftest.h"
#include "core/console.h"
#include "core/panic.h"
#include "core/record.h"
#include "mem/pmm.h"
#include "mem/kmalloc.h"
#include "mem/kmem.h"

static int failures;

static void check(bool ok, const char *what)
{
	if (!ok) {
		failures++;
		kprintf("selftest: FAILED: %s\n", what);
	}
}

static void __attribute__((noinline)) deliberate_page_fault(void)
{
	kprintf("selftest: reading unmapped address 0xdead000 on purpose\n");
	volatile uint64_t *p = (volatile uint64_t *)0xdead000ull;
	(void)*p;
}

static void __attribute__((noinline)) write_kernel_text(void)
{
	kprintf("selftest: writing to kernel text (%p) on purpose\n", (void *)write_kernel_text);
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)write_kernel_text;
	*p = 0xc3;
}

static void __attribute__((noinline)) exec_data(void)
{
	static uint8_t code[16] = { 0xc3 };
	kprintf("selftest: calling into .data (%p) on purpose\n", (void *)code);
	((void (*)(void))(uintptr_t)code)();
}

/* Recurses until the guard page below the stack stops it; the depth
 * limit only exists to keep the compiler from calling it infinite. */
static int __attribute__((noinline)) recurse(volatile int n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	if (n > 1000000)
		return 0;
	return recurse(n + 1) + pad[0];
}

static void heap_test(void)
{
	struct pmm_stats before, after;
	/* The first kernel stack creates the page tables of the stack area;
	 * they stay, so take them before counting. */
	kmem_stack_free(kmem_stack_alloc(16384), 16384);
	kmem_stack_flush();             /* freed stacks' frames wait for a TLB flush */
	/* This CPU's kmalloc magazines are a page made at its first use and
	 * kept; the objects cached in them hold slab pages until drained. */
	kfree(kmalloc(16));
	kmalloc_drain_all();
	pmm_get_stats(&before);
	static void *ptrs[512];
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 512; i++) {
			size_t sz = (size_t)(16 << (i % 10)) + (size_t)i;
			ptrs[i] = kmalloc(sz);
			check(ptrs[i] != NULL, "kmalloc returned NULL");
			if (ptrs[i])
				memset(ptrs[i], i, sz);
		}
		for (int i = 0; i < 512; i += 1 + round)
			kfree(ptrs[i]), ptrs[i] = NULL;
		for (int i = 0; i < 512; i++)
			kfree(ptrs[i]), ptrs[i] = NULL;
	}
	struct page *big = pmm_alloc(10, PMM_ZERO);
	check(big != NULL, "order-10 allocation failed");
	if (big)
		pmm_free(big, 10);
	uint64_t top = kmem_stack_alloc(16384);
	check(top != 0, "kernel stack allocation failed");
	check(top && !kmem_readable(top - 16384 - 4096), "kernel stack has no guard page");
	if (top) {
		*(volatile uint64_t *)(top - 8) = 1;
		kmem_stack_free(top, 16384);
	}
	kmem_stack_flush();
	kmalloc_drain_all();
	pmm_get_stats(&after);
	check(after.free_pages == before.free_pages, "free page count changed: leak");
	kprintf("selftest: heap: free pages %lu before, %lu after\n", before.free_pages, after.free_pages);
}

static void selftest_one(const char *name)
{
	kprintf("selftest: %s\n", name);
	if (sched_selftest(name) || blk_selftest(name) || pci_selftest(name) || pmm_selftest(name) || lockdep_selftest(name))
		return;
	if (!strcmp(name, "pagefault"))
		deliberate_page_fault();
	else if (!strcmp(name, "wx"))
		write_kernel_text();
	else if (!strcmp(name, "nx"))
		exec_data();
	else if (!strcmp(name, "stackoverflow"))
		recurse(0);
	else if (!strcmp(name, "panic"))
		panic("selftest: deliberate panic");
	else if (!strcmp(name, "heap"))
		heap_test();

	else {
		kprintf("selftest: unknown test '%s' (pagefault wx nx stackoverflow panic heap threads sleep timer ctxsw mutex rwsem rt hangcheck lockup consolestuck lostwakeup timerstall lockstat nmi_user_gs kstacks prof msi intx lockdep lockdep3 lockdep_irq lockdep_irq_chain lockdep_mutex lockdep_rwsem lockdep_recursive pmmbench pgtable pmmcode)\n", name);
		failures++;
	}
	struct json *j = rec_begin("selftest");
	json_str(j, "name", name);
	json_bool(j, "ok", failures == 0);
	json_u64(j, "failures", (uint64_t)failures);
	rec_end();
}

/* test=A,B,...: each in order, each with its own record (one boot serves
 * several tests: boots under -icount take minutes). */
void selftest_run(const char *list)
{
	char name[64];
	for (const char *p = list; *p;) {
		size_t n = 0;
		while (p[n] && p[n] != ',')
			n++;
		if (n >= sizeof name) {
			kprintf("selftest: test name '%.*s' too long\n", (int)n, p);
			failures++;
		} else if (n) {
			memcpy(name, p, n);
			name[n] = 0;
			failures = 0;
			selftest_one(name);
		}
		p += n + (p[n] == ',');
	}
}


bool selftest_suite(const char *name, const struct selftest *tests, unsigned n, int *failures)
{
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(name, tests[i].name))
			continue;
		*failures = 0;
		/* Tests sleep, so they cannot hold the record lock: measurements
		 * go into a buffer that becomes the record's "data" at the end. */
		static char buf[8192];
		struct json j;
		json_init(&j, buf, sizeof buf);
		json_obj_begin(&j, NULL);
		tests[i].fn(&j);
		json_obj_end(&j);
		if (j.overflow)
			kprintf("selftest: %s: measurements did not fit the record\n", name);
		struct json *r = rec_begin("selftest");
		json_str(r, "name", name);
		json_bool(r, "ok", *failures == 0 && !j.overflow);
		json_u64(r, "failures", (uint64_t)*failures);
		json_raw(r, "data", j.overflow ? "{}" : buf);
		rec_end();
		return true;
	}
	return false;
}
