/*
 * Copies between kernel and user memory.  A bad user pointer returns
 * -EFAULT; it never crashes the kernel.  Pages not yet present are faulted
 * in (the page-fault handler resolves them for the current address space),
 * so callers must not hold the address space's lock or any spinlock.
 */
#ifndef UACCESS_H
#define UACCESS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "trap.h"

/* Once CR4 is final: whether the uaccess code must lift SMAP. */
void uaccess_init(void);
int copy_from_user(void *dst, uint64_t usrc, size_t n);
int copy_to_user(uint64_t udst, const void *src, size_t n);
/* copy_from_user that faults nothing in (Linux's copy_from_user with
 * page faults disabled): a page not present ends the copy.  The bytes
 * not copied (a word that faults counts whole).  For a caller holding a
 * lock a fault on the source could need: it faults the source in first
 * (fault_in_user), copies with this, and handles a short copy. */
size_t copy_from_user_nofault(void *dst, uint64_t usrc, size_t n);
/* Fault in the pages of [uaddr, uaddr + n) for reading: 0 or -EFAULT. */
int fault_in_user(uint64_t uaddr, size_t n);
/* Length of the string copied into dst (NUL-terminated), -EFAULT, or
 * -ENAMETOOLONG when no NUL within max - 1 bytes. */
long strncpy_from_user(char *dst, uint64_t usrc, size_t max);
int get_user_u32(uint32_t *v, uint64_t uaddr);
int put_user_u32(uint64_t uaddr, uint32_t v);
int put_user_u64(uint64_t uaddr, uint64_t v);
/* Atomic compare-and-exchange on a user word (futexes). */
int user_cmpxchg32(uint64_t uaddr, uint32_t old, uint32_t new_, uint32_t *seen);

bool user_range_ok(uint64_t uaddr, size_t n);
/* Page-fault path: if f->rip is a user-access instruction, resume at its
 * fixup and return true. */
bool extable_fixup(struct trap_frame *f);
/* Is rip one of the user-access instructions? */
bool extable_lookup(uint64_t rip);

#endif
