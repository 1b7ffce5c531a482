/* SPDX-License-Identifier: MIT */
/* commands.c - commands.h: the checks every knob's commands share, then its row's. */
#include "fix/commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fix/knob-type.h"
#include "host/iface.h"

void knob_line(struct knob_lines *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 >= o->len - o->used) {
		o->err = -ENOSPC;
		return;
	}
	o->used += (size_t)n;
	o->buf[o->used++] = '\n';
	o->buf[o->used] = '\0';
}

bool knob_word_ok(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (!(*v == '.' || *v == '_' || *v == '-' || (*v >= '0' && *v <= '9') ||
		      (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z')))
			return false;
	return true;
}

int knob_commands(const struct knob *k, const char *value, unsigned ntxq, char *buf, size_t len)
{
	const struct knob_type *t = knob_type_of(k->kind);
	struct knob_lines o = {buf, len, 0, 0};
	int r;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (!t)
		return -EINVAL;
	if (!(t->flags & KNOB_HOST_WIDE) && iface_name_invalid(k->ifname))
		return -EINVAL;
	if (!t->spec_value && !knob_word_ok(value))
		return -EINVAL;
	r = t->commands(&o, k, value, ntxq);
	if (r < 0)
		return r;
	return o.err < 0 ? o.err : (int)o.used;
}
