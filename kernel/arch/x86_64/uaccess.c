/*
 * User-access wrappers around the uaccess_* instructions in syscall.asm.
 * The range check keeps every access below USER_TOP, so a user pointer can
 * never name kernel memory; SMAP catches any access that skips these.
 */
#include <string.h>
#include "uaccess.h"
#include "lib/errno.h"
#include "mem/layout.h"
#include "x86.h"
#include "percpu.h"

struct extable_entry {
	uint64_t insn, fixup;
};

size_t uaccess_copy(void *dst, const void *src, size_t n);
long uaccess_strncpy(char *dst, const char *src, size_t max);
int uaccess_cmpxchg32(uint64_t uaddr, uint32_t old, uint32_t new_, uint32_t *seen);

/* Read by the uaccess instructions (syscall.asm): 1 when CR4.SMAP is on. */
uint8_t uaccess_smap;

void uaccess_init(void) { uaccess_smap = (read_cr4() & CR4_SMAP) != 0; }

bool user_range_ok(uint64_t uaddr, size_t n)
{
	return uaddr < USER_TOP && n <= USER_TOP - uaddr;
}

int copy_from_user(void *dst, uint64_t usrc, size_t n)
{
	if (!user_range_ok(usrc, n))
		return -EFAULT;
	return uaccess_copy(dst, (const void *)usrc, n) ? -EFAULT : 0;
}

int copy_to_user(uint64_t udst, const void *src, size_t n)
{
	if (!user_range_ok(udst, n))
		return -EFAULT;
	return uaccess_copy((void *)udst, src, n) ? -EFAULT : 0;
}

size_t copy_from_user_nofault(void *dst, uint64_t usrc, size_t n)
{
	if (!user_range_ok(usrc, n))
		return n;
	preempt_disable();              /* the fault handler then fails the access (task.c) */
	size_t left = uaccess_copy(dst, (const void *)usrc, n);
	preempt_enable();
	return left;
}

int fault_in_user(uint64_t uaddr, size_t n)
{
	if (!n)
		return 0;
	if (!user_range_ok(uaddr, n))
		return -EFAULT;
	uint64_t end = uaddr + n - 1;
	for (uint64_t a = uaddr;; a = (a | 4095) + 1) {
		char c;
		if (uaccess_copy(&c, (const void *)a, 1))
			return -EFAULT;
		if ((a | 4095) >= end)
			return 0;
	}
}

long strncpy_from_user(char *dst, uint64_t usrc, size_t max)
{
	if (!max || usrc >= USER_TOP)
		return -EFAULT;
	size_t lim = max - 1;
	if (lim > USER_TOP - usrc)
		lim = USER_TOP - usrc;
	long n = uaccess_strncpy(dst, (const char *)usrc, lim);
	if (n < 0)
		return -EFAULT;
	if ((size_t)n == lim && lim == max - 1) {
		dst[lim] = 0;
		return -ENAMETOOLONG;
	}
	dst[n] = 0;
	return n;
}

int get_user_u32(uint32_t *v, uint64_t uaddr) { return copy_from_user(v, uaddr, sizeof *v); }
int put_user_u32(uint64_t uaddr, uint32_t v) { return copy_to_user(uaddr, &v, sizeof v); }
int put_user_u64(uint64_t uaddr, uint64_t v) { return copy_to_user(uaddr, &v, sizeof v); }

int user_cmpxchg32(uint64_t uaddr, uint32_t old, uint32_t new_, uint32_t *seen)
{
	if ((uaddr & 3) || !user_range_ok(uaddr, 4))
		return -EFAULT;
	return uaccess_cmpxchg32(uaddr, old, new_, seen) ? -EFAULT : 0;
}

static const struct extable_entry *find(uint64_t rip)
{
	const struct extable_entry *end = (const struct extable_entry *)_extable_end;
	for (const struct extable_entry *e = (const struct extable_entry *)_extable_start; e < end; e++)
		if (e->insn == rip)
			return e;
	return NULL;
}

bool extable_lookup(uint64_t rip) { return find(rip) != NULL; }

bool extable_fixup(struct trap_frame *f)
{
	const struct extable_entry *e = find(f->rip);
	if (e)
		f->rip = e->fixup;
	return e != NULL;
}
