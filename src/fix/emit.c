/* SPDX-License-Identifier: MIT */
/* emit.c - what the three emitters share: files, lines, warnings; writing a directory. */
#include "fix/emit.h"
#include "base/array.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/iface.h"

static const char *const format_names[] = {
    [EMIT_NETWORKD] = "networkd",
    [EMIT_UDEV] = "udev",
    [EMIT_NM] = "nm",
};

int emit_format_from_name(const char *name)
{
	for (size_t i = 0; i < COUNT(format_names); i++)
		if (!strcmp(name, format_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *emit_format_name(enum emit_format f)
{
	return (unsigned)f < COUNT(format_names) ? format_names[f] : "?";
}

struct emit_file *emit_file_new(struct emit *e, const char *fmt, ...)
{
	struct emit_file *f;
	va_list ap;
	int n;

	if (e->err)
		return NULL;
	if (e->nfiles == EMIT_MAX_FILES) {
		e->err = -E2BIG;
		return NULL;
	}
	f = &e->files[e->nfiles];
	va_start(ap, fmt);
	n = vsnprintf(f->name, sizeof(f->name), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(f->name) || strchr(f->name, '/') ||
	    !strcmp(f->name, ".") || !strcmp(f->name, "..")) {
		e->err = -EINVAL;
		return NULL;
	}
	e->nfiles++;
	return f;
}

__attribute__((format(printf, 3, 0))) static void vappend(struct emit *e, struct emit_file *f,
							  const char *fmt, va_list ap)
{
	va_list again;
	size_t need;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0) {
		e->err = -EINVAL;
		return;
	}
	need = f->len + (size_t)n + 2; /* the newline and the NUL */
	if (need > EMIT_FILE_MAX) {
		e->err = -E2BIG;
		return;
	}
	if (need > f->cap) {
		char *t = array_reserve(f->text, &f->cap, 1, 1024, need, &e->err);

		if (!t)
			return;
		f->text = t;
	}
	vsnprintf(f->text + f->len, f->cap - f->len, fmt, ap);
	f->len += (size_t)n;
	f->text[f->len++] = '\n';
	f->text[f->len] = '\0';
}

void emit_line(struct emit *e, struct emit_file *f, const char *fmt, ...)
{
	va_list ap;

	if (e->err || !f)
		return;
	va_start(ap, fmt);
	vappend(e, f, fmt, ap);
	va_end(ap);
}

void emit_cannot(struct emit *e, struct emit_file *f, const struct plan_step *s, const char *why,
		 ...)
{
	char what[96], reason[EMIT_WARNING_MAX];
	va_list ap;

	if (e->err)
		return;
	knob_describe(&s->knob, what, sizeof(what));
	va_start(ap, why);
	vsnprintf(reason, sizeof(reason), why, ap);
	va_end(ap);
	if (f)
		emit_line(e, f, "# debloat: cannot set %s to \"%s\" here: %s", what, s->after,
			  reason);
	emit_warn(e, "cannot set %s to \"%s\": %s", what, s->after, reason);
}

void emit_warn(struct emit *e, const char *fmt, ...)
{
	char text[EMIT_WARNING_MAX];
	va_list ap;

	if (e->nwarnings == EMIT_MAX_WARNINGS) {
		e->lost_warnings++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(e->warnings[e->nwarnings++], EMIT_WARNING_MAX, "%s %s",
		 emit_format_name(e->format), text);
}

const char *emit_lookup(const char *const (*pairs)[2], size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, pairs[i][0]))
			return pairs[i][1];
	return NULL;
}

bool emit_target_wanted(const struct plan_target *t)
{
	return !t->skipped && !t->refused;
}

bool emit_step_wanted(const struct plan *p, const struct plan_step *s)
{
	if (s->status != STEP_PLANNED && s->status != STEP_SAME)
		return false;
	return s->target < 0 || emit_target_wanted(&p->targets[s->target]);
}

void emit_cannot_host_wide(const struct plan *p, struct emit *e)
{
	for (size_t i = 0; i < p->nsteps && !e->err; i++)
		if (p->steps[i].target < 0 && emit_step_wanted(p, &p->steps[i]))
			emit_cannot(e, NULL, &p->steps[i],
				    "host-wide: `debloat fix --emit networkd` writes it for "
				    "sysctl.d");
}

/* Printable, and nothing a file format would read as quoting or a line's end. */
static bool value_plain(const char *v)
{
	for (; *v; v++)
		if (*v < 0x20 || *v > 0x7e || *v == '"' || *v == '\'' || *v == '\\' || *v == '$' ||
		    *v == '`')
			return false;
	return true;
}

int emit_plan(const struct plan *p, enum emit_format f, struct emit *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->format = f;
	/* Names and values go into files verbatim (udev, shell): check them once here. */
	for (size_t i = 0; i < p->ntargets; i++)
		if (emit_target_wanted(&p->targets[i]) && iface_name_invalid(p->targets[i].name))
			return -EINVAL;
	for (size_t i = 0; i < p->nsteps; i++)
		if (emit_step_wanted(p, &p->steps[i]) &&
		    (!value_plain(p->steps[i].after) || !value_plain(p->steps[i].knob.name)))
			return -EINVAL;
	switch (f) {
	case EMIT_NETWORKD:
		ret = emit_networkd(p, out);
		break;
	case EMIT_UDEV:
		ret = emit_udev(p, out);
		break;
	case EMIT_NM:
		ret = emit_nm(p, out);
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret)
		ret = out->err;
	if (ret < 0)
		emit_free(out);
	return ret;
}

void emit_free(struct emit *e)
{
	for (unsigned i = 0; i < EMIT_MAX_FILES; i++) {
		free(e->files[i].text);
		e->files[i].text = NULL;
		e->files[i].len = e->files[i].cap = 0;
	}
	e->nfiles = 0;
}

/* One file: a temporary beside it, then a hard link to its name (never replacing). */
static int write_one(int dfd, const struct emit_file *f)
{
	char tmp[EMIT_NAME_MAX + 32];
	size_t off = 0;
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", f->name, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < f->len && !ret) {
		ssize_t n = write(fd, f->text + off, f->len - off);

		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (!ret && fchmod(fd, 0644) < 0)
		ret = -errno;
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && linkat(dfd, tmp, dfd, f->name, 0) < 0)
		ret = -errno;
	unlinkat(dfd, tmp, 0);
	return ret;
}

int emit_write_dir(const char *dir, const struct emit *e, size_t *bad)
{
	struct stat st;
	unsigned done = 0;
	int dfd, ret = 0;

	*bad = SIZE_MAX;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	/* Every name first, so that one that exists changes nothing at all. */
	for (unsigned i = 0; i < e->nfiles; i++) {
		if (fstatat(dfd, e->files[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			*bad = i;
			close(dfd);
			return -EEXIST;
		}
		if (errno != ENOENT) {
			*bad = i;
			ret = -errno;
			close(dfd);
			return ret;
		}
	}
	for (; done < e->nfiles && !ret; done++) {
		ret = write_one(dfd, &e->files[done]);
		if (ret < 0)
			*bad = done;
	}
	if (ret < 0) /* the one that failed was never linked */
		for (unsigned i = 0; i + 1 < done; i++)
			unlinkat(dfd, e->files[i].name, 0);
	if (!ret && fsync(dfd) < 0)
		ret = -errno;
	close(dfd);
	return ret;
}
