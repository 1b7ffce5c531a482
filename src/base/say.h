/* SPDX-License-Identifier: MIT */
/*
 * say.h - how code below the commands explains a failure: it returns -errno and writes
 * the why, in words, into a buffer the caller passed (char *err, size_t errlen), which
 * the command prints. Library code never prints itself.
 */
#ifndef DEBLOAT_SAY_H
#define DEBLOAT_SAY_H

#include <stdarg.h>
#include <stddef.h>

/* snprintf into buf, truncated to len - 1 bytes; nothing when buf is NULL or len 0. */
void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * say, then -EINVAL: the usual last words of a parser that met bad input, as in
 * "return say_einval(err, errlen, "line %u: no value", n);".
 */
int say_einval(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Append one line to a bounded list of notes, char notes[max][width] of which *n are
 * used: the line goes into notes[*n] (truncated to width - 1 bytes) and *n grows;
 * nothing once the list is full. The body of a report's note(fmt, ...).
 */
void say_vnote(char *notes, size_t width, unsigned *n, unsigned max, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

#endif
