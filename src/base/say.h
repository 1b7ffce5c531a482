/* SPDX-License-Identifier: MIT */
/*
 * say.h - how code below the commands explains a failure: it returns -errno and writes
 * the why, in words, into a buffer the caller passed (char *err, size_t errlen), which
 * the command prints. Library code never prints itself.
 */
#ifndef DEBLOAT_SAY_H
#define DEBLOAT_SAY_H

#include <stddef.h>

/* snprintf into buf, truncated to len - 1 bytes; nothing when buf is NULL or len 0. */
void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * say, then -EINVAL: the usual last words of a parser that met bad input, as in
 * "return say_einval(err, errlen, "line %u: no value", n);".
 */
int say_einval(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
