/* SPDX-License-Identifier: MIT */
/* say.c - say.h: a message into the caller's buffer. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

__attribute__((format(printf, 3, 0))) static void vsay(char *buf, size_t len, const char *fmt,
						       va_list ap)
{
	if (buf && len)
		vsnprintf(buf, len, fmt, ap);
}

void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(buf, len, fmt, ap);
	va_end(ap);
}

int say_einval(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(buf, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void say_vnote(char *notes, size_t width, unsigned *n, unsigned max, const char *fmt, va_list ap)
{
	if (*n == max)
		return;
	vsay(notes + (size_t)(*n)++ * width, width, fmt, ap);
}
