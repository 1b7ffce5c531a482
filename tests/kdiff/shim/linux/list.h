/* SPDX-License-Identifier: MIT */
/* A doubly linked circular list with a head node, as the kernel's list_head (tests/kdiff/). */
#ifndef KDIFF_SHIM_LIST_H
#define KDIFF_SHIM_LIST_H
#include <stddef.h>
struct list_head {
	struct list_head *next, *prev;
};
#define container_of(ptr, type, member)	     ((type *)((char *)(ptr)-offsetof(type, member)))
#define list_entry(ptr, type, member)	     container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l->prev = l;
}
static inline int list_empty(const struct list_head *l)
{
	return l->next == l;
}
static inline void list_link_(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	list_link_(n, head->prev, head);
}
static inline void list_unlink_(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}
static inline void list_del_init(struct list_head *e)
{
	list_unlink_(e);
	INIT_LIST_HEAD(e);
}
static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_unlink_(e);
	list_add_tail(e, head);
}
#endif
