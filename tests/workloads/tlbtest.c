/*
 * tlbtest.c - does taking a page away reach every CPU's TLB?
 *
 *   tlbtest munmap|mprotect [SETTLE_MS]
 *
 * A writer thread stores into one anonymous page in a tight loop (so its
 * CPU keeps the translation cached), pinned to CPU 1 when there are two
 * or more CPUs, while the main thread, pinned to CPU 0, waits until the
 * writer has stored a while, then takes the page away: munmap, or
 * mprotect to PROT_READ.  From the moment that call returns the writer's
 * next store must fault, which kills the process with SIGSEGV (no
 * handler is installed): that death is the pass.
 *
 * A kernel that did not flush the writer's CPU lets the stores go on
 * through the stale entry into a page the process no longer has.  The
 * writer counts the stores it made after it saw the main thread's "done"
 * flag; main waits SETTLE_MS (default 200) and, if the process is still
 * alive, prints a one-line JSON record naming that count and exits 1.
 *
 * Before the change, each thread reports the CPU it runs on (getcpu) in
 * one line "tlbtest: main on cpu A, writer on cpu B, N cpus".
 *
 * The writer, created while main is pinned to CPU 0, must start with
 * main's mask (a new thread inherits its creator's affinity).
 *
 * Exit status: killed by SIGSEGV = pass; 1 the writer kept writing;
 * 2 bad arguments; 3 setup failed (mmap, thread, affinity not inherited).
 */
#include "rt/rt.h"

#define TLB_USAGE "tlbtest munmap|mprotect [SETTLE_MS]"
#define TLB_SYS_sched_setaffinity 203
#define TLB_SYS_sched_getaffinity 204
#define TLB_SYS_getcpu 309
#define TLB_WARM_STORES 100000ull	/* the writer's stores before the change */
#define TLB_PROT_READ 1
#define TLB_PROT_WRITE 2
#define TLB_MAP_PRIVATE 0x02
#define TLB_MAP_ANONYMOUS 0x20

struct tlb_shared {
	volatile uint64_t *page;	/* the page taken away */
	volatile uint64_t stores;	/* by the writer */
	volatile uint64_t after;	/* stores made after it saw done */
	volatile int done;		/* main: the munmap/mprotect returned */
	volatile int writer_cpu;
	int ncpus;
};

/* Lives in the data segment: untouched by the change. */
static struct tlb_shared tlb_sh;

static int tlb_getcpu(void)
{
	unsigned cpu = 0;
	long r = rt_syscall3(TLB_SYS_getcpu, (long)&cpu, 0, 0);
	return r < 0 ? (int)r : (int)cpu;
}

static int tlb_pin(int cpu)
{
	uint64_t mask[4] = { 0 };
	mask[cpu / 64] = 1ull << (cpu % 64);
	return (int)rt_syscall3(TLB_SYS_sched_setaffinity, 0, sizeof mask, (long)mask);
}

/* CPUs this thread may use (the online ones, at first). */
static int tlb_cpu_count(void)
{
	uint64_t mask[4] = { 0 };
	long r = rt_syscall3(TLB_SYS_sched_getaffinity, 0, sizeof mask, (long)mask);
	if (r < 0)
		return (int)r;
	int n = 0;
	for (int i = 0; i < 256; i++)
		n += (int)((mask[i / 64] >> (i % 64)) & 1);
	return n;
}

static int tlb_writer(void *arg)
{
	struct tlb_shared *sh = arg;
	/* Created while main was pinned to CPU 0: a new thread inherits its
	 * creator's mask (Linux's clone). */
	if (sh->ncpus > 1 && tlb_cpu_count() != 1) {
		rt_dprintf(2, "tlbtest: the writer did not inherit main's affinity (%d cpus)\n", tlb_cpu_count());
		rt_exit_group(3);
	}
	if (sh->ncpus > 1 && tlb_pin(1) < 0)
		return 3;
	sh->writer_cpu = tlb_getcpu();
	for (uint64_t n = 1;; n++) {
		bool seen = __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE);
		sh->page[n % 512] = n;		/* faults once the page is gone */
		if (seen)
			__atomic_add_fetch(&sh->after, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->stores, n, __ATOMIC_RELEASE);
	}
	return 0;
}

static void tlb_sleep_ms(uint64_t ms)
{
	struct rt_timespec ts = { (int64_t)(ms / 1000), (int64_t)(ms % 1000) * 1000000 };
	rt_nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3)
		rt_usage_error(TLB_USAGE, "expected 1 or 2 arguments");
	bool unmap = !rt_strcmp(argv[1], "munmap");
	if (!unmap && rt_strcmp(argv[1], "mprotect"))
		rt_usage_error(TLB_USAGE, "unknown mode '%s'", argv[1]);
	uint64_t settle = argc == 3 ? rt_arg_u64("tlbtest", TLB_USAGE, "SETTLE_MS", argv[2], 1, 60000) : 200;

	tlb_sh.ncpus = tlb_cpu_count();
	if (tlb_sh.ncpus < 1 || (tlb_sh.ncpus > 1 && tlb_pin(0) < 0)) {
		rt_dprintf(2, "tlbtest: affinity calls failed (%d cpus)\n", tlb_sh.ncpus);
		return 3;
	}
	void *p = rt_mmap(NULL, 4096, TLB_PROT_READ | TLB_PROT_WRITE, TLB_MAP_PRIVATE | TLB_MAP_ANONYMOUS, -1, 0);
	if (rt_mmap_failed(p)) {
		rt_dprintf(2, "tlbtest: mmap failed: error %d\n", rt_mmap_error(p));
		return 3;
	}
	tlb_sh.page = p;
	tlb_sh.writer_cpu = -1;
	struct rt_thread *w;
	if (rt_thread_create(&w, tlb_writer, &tlb_sh, 64 * 1024) < 0) {
		rt_dprintf(2, "tlbtest: cannot create the writer\n");
		return 3;
	}
	while (__atomic_load_n(&tlb_sh.stores, __ATOMIC_ACQUIRE) < TLB_WARM_STORES)
		rt_sched_yield();
	rt_printf("tlbtest: main on cpu %d, writer on cpu %d, %d cpus\n", tlb_getcpu(), tlb_sh.writer_cpu,
		  tlb_sh.ncpus);
	int r = unmap ? rt_munmap(p, 4096) : rt_mprotect(p, 4096, TLB_PROT_READ);
	__atomic_store_n(&tlb_sh.done, 1, __ATOMIC_RELEASE);
	if (r < 0) {
		rt_dprintf(2, "tlbtest: %s failed: error %d\n", argv[1], -r);
		return 3;
	}
	tlb_sleep_ms(settle);
	/* Still alive: the writer's stores went through a stale entry. */
	struct rt_json j;
	rt_report_begin(&j, "tlbtest");
	rt_json_str(&j, "mode", argv[1]);
	rt_json_u64(&j, "stores_after_change", tlb_sh.after);
	rt_json_u64(&j, "stores", tlb_sh.stores);
	rt_json_u64(&j, "cpus", (uint64_t)tlb_sh.ncpus);
	rt_json_end(&j, 1);
	rt_dprintf(2, "tlbtest: the writer stored %lu times after %s returned and did not fault\n",
		   (unsigned long)tlb_sh.after, argv[1]);
	rt_exit_group(1);
}
