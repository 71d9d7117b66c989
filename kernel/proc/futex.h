/*
 * Futexes (FUTEX_WAIT / FUTEX_WAKE, private or not, with timeouts), keyed
 * by (address space, user address).  Processes share no memory except
 * through shmem, which no workload uses for futexes, so the address space
 * is a sufficient key for both flavours.
 */
#ifndef FUTEX_H
#define FUTEX_H

#include <stdint.h>

struct mm;

/* 0 when woken, -EAGAIN when *uaddr != val, -ETIMEDOUT, -EINTR (the task
 * is exiting), -EFAULT.  timeout_ns 0: none. */
int futex_wait(struct mm *mm, uint64_t uaddr, uint32_t val, uint64_t timeout_ns);
/* Wake up to n waiters; returns how many. */
int futex_wake(struct mm *mm, uint64_t uaddr, int n);
/* Wake every waiter of the task's threads so they notice it is exiting. */
void futex_interrupt(struct mm *mm);

#endif
