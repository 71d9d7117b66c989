/*
 * rt_thread.c - threads as Linux makes them: clone(2) plus a futex on the tid.
 *
 * Model: one mmap per thread holds, from the bottom, a PROT_NONE guard page,
 * the stack, and at the very top the struct rt_thread (its TCB). The thread
 * is cloned with the flags glibc uses for pthreads:
 *   CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM  share everything,
 *   CLONE_SETTLS          %fs base = the TCB, whose first word points to
 *                         itself (x86-64 TLS ABI), so rt_thread_self() works;
 *   CLONE_PARENT_SETTID   the kernel stores the new tid in t->tid before
 *                         clone returns, so join never sees a stale 0;
 *   CLONE_CHILD_CLEARTID  at thread exit the kernel stores 0 in t->tid and
 *                         does a (shared, non-private) FUTEX_WAKE on it.
 * Join waits on t->tid until it reads 0; only then is the stack provably
 * unused and safe to unmap. The wait has a timeout so a lost wake-up costs a
 * second, not a hang.
 *
 * Not usable in the musl build: musl owns %fs there.
 */
#include "rt_internal.h"

#define RT_CLONE_VM             0x00000100
#define RT_CLONE_FS             0x00000200
#define RT_CLONE_FILES          0x00000400
#define RT_CLONE_SIGHAND        0x00000800
#define RT_CLONE_THREAD         0x00010000
#define RT_CLONE_SYSVSEM        0x00040000
#define RT_CLONE_SETTLS         0x00080000
#define RT_CLONE_PARENT_SETTID  0x00100000
#define RT_CLONE_CHILD_CLEARTID 0x00200000

#define RT_THREAD_CLONE_FLAGS                                               \
	(RT_CLONE_VM | RT_CLONE_FS | RT_CLONE_FILES | RT_CLONE_SIGHAND |    \
	 RT_CLONE_THREAD | RT_CLONE_SYSVSEM | RT_CLONE_SETTLS |             \
	 RT_CLONE_PARENT_SETTID | RT_CLONE_CHILD_CLEARTID)

/* Space reserved for the TCB at the top of the mapping; keeps sp aligned. */
#define RT_THREAD_TCB_SPACE 128
_Static_assert(sizeof(struct rt_thread) <= RT_THREAD_TCB_SPACE, "TCB space");
_Static_assert(offsetof(struct rt_thread, self) == 0, "fs:0 is the TCB itself");

static struct rt_thread rt_main_thread;

static size_t rt_page_round(size_t n)
{
	return (n + RT_PAGE_SIZE - 1) & ~(RT_PAGE_SIZE - 1);
}

/* First code of every new thread, called by rt_clone_raw's child path. */
static int rt_thread_start(void *p)
{
	struct rt_thread *t = p;

	t->result = t->fn(t->arg);
	return t->result;
}

/* Puts the TCB at the top of the mapping; returns the child's initial sp. */
static void *rt_thread_layout(struct rt_thread **tp, void *map, size_t len)
{
	struct rt_thread *t = (void *)((char *)map + len - RT_THREAD_TCB_SPACE);
	uint64_t *sp = (uint64_t *)t;	/* 16-aligned: TCB_SPACE is */

	t->self = t;
	t->map = map;
	t->map_len = len;
	*--sp = (uint64_t)(uintptr_t)t;			/* popped second: arg */
	*--sp = (uint64_t)(uintptr_t)rt_thread_start;	/* popped first: fn */
	*tp = t;
	return sp;
}

/* May block briefly in mmap; returns 0 or -errno. */
int rt_thread_create(struct rt_thread **out, int (*fn)(void *), void *arg,
		     size_t stack_size)
{
	size_t len = RT_PAGE_SIZE + rt_page_round(stack_size + RT_THREAD_TCB_SPACE);
	void *map = rt_mmap(NULL, len, RT_PROT_READ | RT_PROT_WRITE,
			    RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	struct rt_thread *t;
	void *sp;
	long ret;

	if (rt_mmap_failed(map))
		return -rt_mmap_error(map);
	ret = rt_mprotect(map, RT_PAGE_SIZE, RT_PROT_NONE);	/* guard page */
	if (ret < 0)
		goto unmap;
	sp = rt_thread_layout(&t, map, len);
	t->fn = fn;
	t->arg = arg;
	ret = rt_clone_raw(RT_THREAD_CLONE_FLAGS, sp, &t->tid, &t->tid, t);
	if (ret < 0)
		goto unmap;
	*out = t;
	return 0;
unmap:
	rt_munmap(map, len);
	return (int)ret;
}

/* Blocks until t has exited, then frees its stack. Returns 0 or -errno. */
int rt_thread_join(struct rt_thread *t, int *result)
{
	const struct rt_timespec tick = { 1, 0 };
	int tid;

	while ((tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)) != 0)
		rt_futex_wait(&t->tid, tid, &tick, false);
	if (result != NULL)
		*result = t->result;
	return rt_munmap(t->map, t->map_len);
}

struct rt_thread *rt_thread_self(void)
{
	struct rt_thread *t;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(t));
	return t;
}

/* Gives the main thread a TCB too, so rt_thread_self() works everywhere. */
void rt_thread_init_main(void)
{
	static const char msg[] = "rt: arch_prctl(ARCH_SET_FS) failed\n";

	rt_main_thread.self = &rt_main_thread;
	rt_main_thread.tid = rt_gettid();
	if (rt_arch_prctl(RT_ARCH_SET_FS, (unsigned long)&rt_main_thread) < 0)
		rt_write(2, msg, sizeof(msg) - 1);
}
