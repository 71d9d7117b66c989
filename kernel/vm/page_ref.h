/*
 * Page references and the page lock: the VM layer's view of a frame in use
 * (mem/pmm.c only allocates and frees frames).
 *
 * Reference rules (who holds one, see mem/page.h): every PTE mapping the
 * page, the swap cache while PG_SWAPCACHE is set, a shmem object's slot,
 * an isolated page on reclaim's private list, and any caller between
 * lookup and put.  put_page frees the page when the last one goes, taking
 * it off its LRU list first; a page still locked, under writeback or in
 * the swap cache at that point is a broken invariant (panic).
 *
 * The page lock (PG_LOCKED) is held across I/O and while reclaim or a
 * fault changes the page's identity (its swap slot, its mapping).  Lock
 * order: page lock before any spinlock (kernel/vm/README.md).
 */
#ifndef PAGE_REF_H
#define PAGE_REF_H

#include <stdbool.h>
#include "mem/page.h"

/* Never sleep; any context. */
void get_page(struct page *p);
bool get_page_unless_zero(struct page *p);
void put_page(struct page *p);

/* lock_page and wait_on_page sleep (thread context, no spinlock held);
 * trylock_page and unlock_page never do. */
void lock_page(struct page *p);
bool trylock_page(struct page *p);
void unlock_page(struct page *p);
/* Sleep until the page is unlocked (without taking the lock). */
void wait_on_page(struct page *p);

/* A PTE starts or stops mapping p (the caller holds the PTE's lock).
 * They keep Linux's nr_mapped: page-cache and shmem pages mapped by at
 * least one PTE (Linux's NR_FILE_MAPPED, "Mapped:"; shmem is a file
 * there).  Any context. */
void page_map_add(struct page *p);
void page_map_sub(struct page *p);
uint64_t page_nr_mapped(void);

/* Before the first lock_page: the sleepers' wait queues. */
void page_ref_init(void);

#endif
