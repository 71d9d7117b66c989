/*
 * Intrusive circular doubly linked lists.  A list head is a node whose
 * next/prev point to itself when empty.  No allocation, no locking: the
 * owner of the list owns the lock (see the struct holding the head).
 */
#ifndef LIST_H
#define LIST_H

#include <stddef.h>
#include <stdbool.h>

struct list_node {
	struct list_node *next, *prev;
};

#define LIST_INIT(name) { &(name), &(name) }
#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#define list_entry(p, type, member) container_of(p, type, member)
#define list_first(head, type, member) list_entry((head)->next, type, member)
#define list_last(head, type, member) list_entry((head)->prev, type, member)
#define list_for_each(it, head) for (struct list_node *it = (head)->next; it != (head); it = it->next)
#define list_for_each_safe(it, tmp, head) \
	for (struct list_node *it = (head)->next, *tmp = it->next; it != (head); it = tmp, tmp = it->next)

static inline void list_init(struct list_node *h) { h->next = h->prev = h; }
static inline bool list_empty(const struct list_node *h) { return h->next == h; }

static inline void list_insert_between(struct list_node *n, struct list_node *prev, struct list_node *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

/* Add at the front (most recent end). */
static inline void list_add(struct list_node *n, struct list_node *head) { list_insert_between(n, head, head->next); }
/* Add at the back (oldest end). */
static inline void list_add_tail(struct list_node *n, struct list_node *head) { list_insert_between(n, head->prev, head); }

static inline void list_del(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

static inline void list_move(struct list_node *n, struct list_node *head) { list_del(n); list_add(n, head); }
static inline void list_move_tail(struct list_node *n, struct list_node *head) { list_del(n); list_add_tail(n, head); }

#endif
