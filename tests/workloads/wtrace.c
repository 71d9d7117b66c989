/*
 * wtrace.c - the page-access trace (model and format in wtrace.h).
 *
 * Entries are encoded into a static buffer and written out when it fills,
 * so a trace costs one write(2) per 64 KiB. A write that fails stops the
 * trace (wtrace_on stays set, entries are dropped) and wtrace_finish
 * reports it: a cut trace must not pass for a whole one.
 */
#include "wtrace.h"

#define WTRACE_SYS_openat 257	/* host only: not in our kernel's subset */
#define WTRACE_SYS_close  3
#define WTRACE_AT_FDCWD   (-100)
#define WTRACE_O_FLAGS    (01 | 0100 | 01000 | 02000000)	/* WRONLY CREAT TRUNC CLOEXEC */
#define WTRACE_BUF        65536
#define WTRACE_MAGIC      "MMTRACE1"

bool wtrace_on;

static struct {
	volatile char lock;	/* guards everything below */
	int fd;
	int error;		/* first -errno of a write; entries dropped after */
	uint64_t prev;		/* page of the last entry */
	uint64_t entries;
	const char *prog, *path;
	size_t len;
	unsigned char buf[WTRACE_BUF];
} wtrace;

static void wtrace_lock(void)
{
	while (__atomic_test_and_set(&wtrace.lock, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&wtrace.lock, __ATOMIC_RELAXED))
			;
}

static void wtrace_unlock(void)
{
	__atomic_clear(&wtrace.lock, __ATOMIC_RELEASE);
}

static void wtrace_flush(void)
{
	long n;

	if (wtrace.len == 0 || wtrace.error)
		return;
	n = rt_write_all(wtrace.fd, wtrace.buf, wtrace.len);
	if (n < 0)
		wtrace.error = (int)n;
	wtrace.len = 0;
}

static void wtrace_put(const unsigned char *p, size_t n)
{
	if (wtrace.len + n > WTRACE_BUF)
		wtrace_flush();
	rt_memcpy(wtrace.buf + wtrace.len, p, n);
	wtrace.len += n;
}

static void wtrace_varint(uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	wtrace_put(b, n);
}

/* MM_TRACE's value in envp, or NULL. */
static const char *wtrace_env(char **envp)
{
	static const char name[] = "MM_TRACE=";

	for (; envp && *envp; envp++) {
		size_t i = 0;

		while (name[i] && (*envp)[i] == name[i])
			i++;
		if (name[i] == 0)
			return *envp + i;
	}
	return NULL;
}

int wtrace_init(const char *prog, char **envp)
{
	const char *path = wtrace_env(envp);
	long fd;

	if (!path)
		return 0;
	if (!*path) {
		rt_dprintf(2, "%s: MM_TRACE is empty: give a file name\n", prog);
		return -RT_EINVAL;
	}
	fd = rt_syscall4(WTRACE_SYS_openat, WTRACE_AT_FDCWD, (long)path,
			 WTRACE_O_FLAGS, 0644);
	if (fd < 0) {
		rt_dprintf(2, "%s: MM_TRACE=%s: cannot create: error %ld\n",
			   prog, path, -fd);
		return (int)fd;
	}
	wtrace.fd = (int)fd;
	wtrace.prog = prog;
	wtrace.path = path;
	wtrace_put((const unsigned char *)WTRACE_MAGIC, 8);
	wtrace_on = true;
	return 0;
}

void wtrace_page_slow(const void *p)
{
	uint64_t page = (uintptr_t)p >> 12;
	int64_t d;

	wtrace_lock();
	if (page != wtrace.prev && !wtrace.error) {
		d = (int64_t)(page - wtrace.prev);
		/* zigzag: small steps either way stay small */
		wtrace_varint(((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
		wtrace.prev = page;
		wtrace.entries++;
	}
	wtrace_unlock();
}

void wtrace_unmap(const void *p, size_t len)
{
	static const unsigned char unmap[2] = { 0, 1 };

	if (!wtrace_on || len == 0)
		return;
	wtrace_lock();
	if (!wtrace.error) {
		wtrace_put(unmap, sizeof(unmap));
		wtrace_varint((uintptr_t)p >> 12);
		wtrace_varint((len + RT_PAGE_SIZE - 1) >> 12);
		wtrace.prev = 0;
	}
	wtrace_unlock();
}

int wtrace_finish(void)
{
	unsigned char end[10] = { 0 };
	int err;

	if (!wtrace_on)
		return 0;
	wtrace_lock();
	for (int i = 0; i < 8; i++)
		end[2 + i] = (unsigned char)(wtrace.entries >> (8 * i));
	wtrace_put(end, sizeof(end));
	wtrace_flush();
	err = wtrace.error;
	rt_syscall1(WTRACE_SYS_close, wtrace.fd);
	wtrace_on = false;
	wtrace_unlock();
	if (err)
		rt_dprintf(2, "%s: MM_TRACE=%s: write failed: error %d; the trace is cut\n",
			   wtrace.prog, wtrace.path, -err);
	return err;
}
