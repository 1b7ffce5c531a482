/* SPDX-License-Identifier: MIT */
/* say.c - say.h: a message into the caller's buffer. */
#include <stdarg.h>
#include <stdio.h>

#include "say.h"

void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
