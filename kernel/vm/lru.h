/*
 * The LRU lists: active and inactive, per kind of page (anonymous, shmem,
 * file: the page cache's, vm/pagecache.c).  A page on a list has PG_LRU, its kind in
 * page->kind and PG_ACTIVE when active.  List membership holds no
 * reference; reclaim isolates pages (takes a reference and unlinks them)
 * before working on them, and puts them back or lets them go.
 */
#ifndef LRU_H
#define LRU_H

#include <stdint.h>
#include <stdbool.h>
#include "mem/page.h"

enum lru_kind { LRU_ANON = 0, LRU_SHMEM = 1, LRU_FILE = 2, LRU_KINDS = 3 };

/* New or returning page (not on a list).  Any context.  A page marked
 * PG_ACTIVATE_ANON/SHMEM (a refault inside the working set) goes on the
 * active list of that kind whatever `active` says, once.  It waits in
 * this CPU's add batch (lru_batch.c: Linux's lru_add folio batch) with a
 * reference until the batch fills or is drained, so it is on no list
 * meanwhile: reclaim drains before it scans. */
void lru_add(struct page *p, enum lru_kind kind, bool active);
/* Every page waiting in this CPU's batch (all CPUs': lru_drain_all) onto
 * its list.  Returns how many waited.  Any context. */
uint32_t lru_drain_local(void);
uint32_t lru_drain_all(void);
/* lru_add at once, under the LRU lock. */
void lru_link(struct page *p, enum lru_kind kind, bool active);
/* A drained batch: each of v[0..n) still PG_LRU_BATCH goes on the list of
 * its kind (lru_kind_of), active per bit i of `active`; then the batch's
 * reference to each is dropped. */
void lru_link_batch(struct page *const *v, uint32_t active, uint32_t n);
/* The list kind a page's flags name (file, shmem, else anonymous). */
enum lru_kind lru_kind_of(const struct page *p);
/* Off its list, if on one, or out of its wait in a batch (it goes on no
 * list when the batch drains).  Any context. */
void lru_del(struct page *p);
/* Move a listed page to the active list (a fault found it hot). */
void lru_activate(struct page *p);

/* MADV_COLD: a page on an active list moves to the head of its kind's
 * inactive list (Linux's lru_deactivate_fn; counted as pgdeactivate);
 * true if it moved.  Any context. */
bool lru_deactivate(struct page *p);
/* MADV_PAGEOUT: take one page off its list (Linux's isolate_lru_page).
 * The caller holds a reference, which becomes the isolation's; false
 * (nothing changed) when the page is on no list: another reclaimer has
 * it, or it is on its way out or in. */
bool lru_isolate_page(struct page *p);

/* Take up to n pages from the tail of one list.  Each comes with an extra
 * reference and off the list.  *scanned counts the pages looked at
 * (pages being freed are skipped). */
int lru_isolate(enum lru_kind kind, bool active, struct page **out, int n, uint64_t *scanned);
/* Isolated pages v[0..n) (n <= LRU_PUTBACK_MAX: a bit each of `active`)
 * back on the lists of their kind (lru_kind_of), active per bit i of
 * `active`, in one hold of the LRU lock, not through this CPU's add
 * batch; then the isolation's reference to each is dropped. */
#define LRU_PUTBACK_MAX 32
void lru_putback_many(struct page *const *v, uint32_t active, uint32_t n);

/* Up to n pages of kind's inactive list, each with a reference taken and
 * left where it is, walking from the tail, or from just past *cursor when
 * that page is still on the list and carries one of the flags `skip`;
 * pages with any of them are passed over (at most max_skip).  Each page
 * taken gets `mark` (one of `skip`) under the list's lock, so a caller
 * walking at the same time passes over it.  *cursor becomes the last page
 * taken.  The caller drops the references (put_page). */
int lru_pin_unflagged(enum lru_kind kind, uint32_t skip, uint32_t mark, struct page **out, int n, struct page **cursor,
		      uint32_t max_skip);

uint64_t lru_size(enum lru_kind kind, bool active);

#endif
