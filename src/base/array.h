/* SPDX-License-Identifier: MIT */
/*
 * array.h - arrays in src/: how many elements a fixed one holds (COUNT), and growing a
 * list by doubling, with a cap (array_grow), the one way src/ grows its lists.
 *
 *	for (size_t i = 0; i < COUNT(names); i++)
 *
 * COUNT takes an array, never a pointer (sizeof a pointer would give a wrong count).
 *
 *	if (l->n == l->cap) {
 *		struct iface *v = array_grow(l->v, &l->cap, sizeof(*v), 16, LINK_MAX, &r);
 *		if (!v)
 *			return r;
 *		l->v = v;
 *	}
 *
 * Returns the (possibly moved) array with room for more than *cap elements and
 * updates *cap; or NULL with *err = -E2BIG (past max elements) or -ENOMEM, and the
 * old array still valid and still the caller's.
 */
#ifndef DEBLOAT_ARRAY_H
#define DEBLOAT_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static inline void *array_grow(void *v, size_t *cap, size_t elem, size_t first, size_t max,
			       int *err)
{
	size_t want = *cap ? *cap * 2 : first;
	void *grown;

	if (want > max || want > SIZE_MAX / elem) {
		*err = -E2BIG;
		return NULL;
	}
	grown = realloc(v, want * elem);
	if (!grown) {
		*err = -ENOMEM;
		return NULL;
	}
	*cap = want;
	return grown;
}

/*
 * Room for at least need elements: *cap (first when 0) doubled until it holds need,
 * for a buffer that grows by more than one element at a time. Returns the (possibly
 * moved) array and updates *cap; or NULL with *err = -ENOMEM, the old array still
 * valid and still the caller's.
 */
static inline void *array_reserve(void *v, size_t *cap, size_t elem, size_t first, size_t need,
				  int *err)
{
	size_t want = *cap ? *cap : first;
	void *grown;

	while (want < need) {
		if (want > SIZE_MAX / 2 / elem) {
			*err = -ENOMEM;
			return NULL;
		}
		want *= 2;
	}
	if (want == *cap)
		return v;
	grown = realloc(v, want * elem);
	if (!grown) {
		*err = -ENOMEM;
		return NULL;
	}
	*cap = want;
	return grown;
}

#endif
