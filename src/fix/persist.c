/* SPDX-License-Identifier: MIT */
/* persist.c - persist.h: the fix kept on disk, and the unit and hook that reapply it. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/fsutil.h"
#include "base/say.h"
#include "fix/journal.h"
#include "fix/persist.h"

#define UNIT_NAME "debloat-fix@.service"
#define HOOK_MARK "# debloat - ifupdown hook written by `debloat fix --persist`"

static int fit(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

void persist_free(struct persist *ps)
{
	free(ps->sets);
	memset(ps, 0, sizeof(*ps));
}

int persist_unit_text(const char *exe, char *buf, size_t len)
{
	return fit(
	    snprintf(buf, len,
		     "# debloat-fix@.service - apply the queueing setup `debloat fix --persist` "
		     "saved for one\n"
		     "# interface (/etc/debloat/IFACE.conf) whenever the interface appears: at "
		     "boot, or when a\n"
		     "# USB adapter is plugged in. Bound to the device: it stops when the device "
		     "goes away.\n"
		     "#\n"
		     "#   debloat fix --persist eth0    writes /etc/debloat/eth0.conf, this unit, "
		     "and enables\n"
		     "#                                 debloat-fix@eth0.service\n"
		     "#   debloat undo --persist eth0   takes them away again\n"
		     "#\n"
		     "# The instance is the interface name as systemd escapes it (br-lan: "
		     "br\\x2dlan).\n"
		     "[Unit]\n"
		     "Description=debloat: queueing setup for %%I (man debloat-fix)\n"
		     "BindsTo=sys-subsystem-net-devices-%%i.device\n"
		     "After=sys-subsystem-net-devices-%%i.device\n"
		     "ConditionPathExists=/etc/debloat/%%I.conf\n"
		     "\n"
		     "[Service]\n"
		     "Type=oneshot\n"
		     "RemainAfterExit=yes\n"
		     "ExecStart=%s fix --apply-persisted %%I\n"
		     "\n"
		     "[Install]\n"
		     "WantedBy=sys-subsystem-net-devices-%%i.device\n",
		     exe),
	    len);
}

int persist_hook_text(const char *exe, char *buf, size_t len)
{
	return fit(snprintf(buf, len,
			    "#!/bin/sh\n" HOOK_MARK "\n"
			    "# (debloat-fix(1)): when an interface comes up, apply the queueing "
			    "setup saved for it\n"
			    "# in /etc/debloat/IFACE.conf. `debloat undo --persist` removes this "
			    "file. On systemd\n"
			    "# hosts debloat-fix@IFACE.service does the same; applying twice "
			    "changes nothing.\n"
			    "[ -n \"$IFACE\" ] && [ \"$IFACE\" != --all ] || exit 0\n"
			    "[ -f \"/etc/debloat/$IFACE.conf\" ] || exit 0\n"
			    "[ -x %s ] || exit 0\n"
			    "exec %s fix --apply-persisted \"$IFACE\" >/dev/null\n",
			    exe, exe),
		   len);
}

int persist_escape_instance(const char *ifname, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; ifname[i]; i++) {
		unsigned char c = (unsigned char)ifname[i];
		bool plain = isalnum(c) || c == '_' || c == ':' || (c == '.' && i > 0);

		if (o + (plain ? 1 : 4) >= len)
			return -ENOSPC;
		if (plain)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	if (o >= len)
		return -ENOSPC;
	buf[o] = '\0';
	return (int)o;
}

/* ---- the file ---- */

static bool part_of_setup(const struct plan_step *s)
{
	return s->status == STEP_PLANNED || s->status == STEP_SAME || s->status == STEP_APPLIED;
}

int persist_format(const struct plan *p, int target, char **out, size_t *len)
{
	char *buf = NULL, knob[160], value[KNOB_VALUE_MAX * 4 + 3];
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int r = 0;

	if (!f)
		return -ENOMEM;
	fprintf(f, "debloat-persist %d\n", PERSIST_VERSION);
	fprintf(f,
		"# Written by `debloat fix --persist`; applied when %s appears "
		"(debloat-fix@.service,\n# the ifupdown hook). `debloat undo --persist %s` "
		"removes it.\n",
		p->targets[target].name, p->targets[target].name);
	fprintf(f, "iface %s\n", p->targets[target].name);
	for (size_t i = 0; i < p->nsteps && !r; i++) {
		const struct plan_step *s = &p->steps[i];

		if ((s->target != target && s->target != -1) || !part_of_setup(s))
			continue;
		if (journal_knob_format(&s->knob, knob, sizeof(knob)) < 0 ||
		    journal_quote(s->after, value, sizeof(value)) < 0)
			r = -EINVAL;
		else
			fprintf(f, "set %s %s\n", knob, value);
	}
	fprintf(f, "end\n");
	if (fclose(f) != 0 && !r)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	*len = size;
	return 0;
}

static int add_set(struct persist *ps, const struct knob *k, const char *value)
{
	struct persist_set *s;
	int r;

	if (ps->n == ps->cap) {
		s = array_grow(ps->sets, &ps->cap, sizeof(*s), 16, PERSIST_MAX_SETS, &r);
		if (!s)
			return r;
		ps->sets = s;
	}
	s = &ps->sets[ps->n++];
	memset(s, 0, sizeof(*s));
	s->knob = *k;
	say(s->value, sizeof(s->value), "%s", value);
	return 0;
}

int persist_parse(const char *buf, size_t len, const char *file, struct persist *out, char *err,
		  size_t errlen)
{
	struct persist ps;
	char line[JOURNAL_MAX_LINE + 1], *tok[JOURNAL_MAX_TOKENS];
	bool have_version = false, have_end = false;
	size_t pos = 0, n;
	unsigned lineno = 0;
	const char *why;
	int r = 0;

	file = file ? file : "persist";
	say(err, errlen, "%s", "");
	memset(out, 0, sizeof(*out));
	if (len > PERSIST_MAX_BYTES) {
		say(err, errlen, "%s: larger than %u bytes", file, PERSIST_MAX_BYTES);
		return -EFBIG;
	}
	memset(&ps, 0, sizeof(ps));
#define BAD(...)                                                                                   \
	do {                                                                                       \
		char m_[200];                                                                      \
		snprintf(m_, sizeof(m_), __VA_ARGS__);                                             \
		say(err, errlen, "%s:%u: %s", file, lineno, m_);                                   \
		r = -EINVAL;                                                                       \
		goto fail;                                                                         \
	} while (0)
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		lineno++;
		if (!nl)
			BAD("incomplete last line (no newline)");
		if (l > JOURNAL_MAX_LINE)
			BAD("line longer than %d bytes", JOURNAL_MAX_LINE);
		if (memchr(buf + pos, '\0', l))
			BAD("NUL byte");
		memcpy(line, buf + pos, l);
		line[l] = '\0';
		pos += l + 1;
		if (line[0] == '#')
			continue;
		if (journal_split_line(line, tok, JOURNAL_MAX_TOKENS, &n, &why) < 0)
			BAD("%s", why);
		if (!n)
			continue;
		if (have_end)
			BAD("nothing may follow \"end\"");
		if (!have_version) {
			if (n != 2 || strcmp(tok[0], "debloat-persist"))
				BAD("not a debloat persisted setup (expected \"debloat-persist "
				    "%d\")",
				    PERSIST_VERSION);
			if (strcmp(tok[1], "1")) {
				say(err, errlen,
				    "%s:%u: version %.16s; this debloat reads version %d", file,
				    lineno, tok[1], PERSIST_VERSION);
				r = -EPROTONOSUPPORT;
				goto fail;
			}
			have_version = true;
		} else if (!strcmp(tok[0], "iface")) {
			if (n != 2 || ps.ifname[0] || !tok[1][0] || strlen(tok[1]) >= IF_NAMESIZE ||
			    strchr(tok[1], '/') || !strcmp(tok[1], ".") || !strcmp(tok[1], ".."))
				BAD("bad or repeated \"iface\" line");
			memcpy(ps.ifname, tok[1], strlen(tok[1]) + 1);
		} else if (!strcmp(tok[0], "set")) {
			struct knob k;

			if (!ps.ifname[0])
				BAD("\"set\" before \"iface\"");
			if (n != 6)
				BAD("\"set\" has 6 fields (set KIND IFNAME QUEUE NAME VALUE), not "
				    "%zu",
				    n);
			if (journal_knob_parse(tok + 1, &k, &why) < 0)
				BAD("%s", why);
			if (k.kind != KNOB_SYSCTL && strcmp(k.ifname, ps.ifname))
				BAD("a knob of %s in the file of %s", k.ifname, ps.ifname);
			if (strlen(tok[5]) >= KNOB_VALUE_MAX)
				BAD("value too long");
			for (size_t i = 0; i < ps.n; i++)
				if (journal_knob_same(&ps.sets[i].knob, &k))
					BAD("the same knob is set twice");
			r = add_set(&ps, &k, tok[5]);
			if (r == -E2BIG)
				BAD("more than %d settings", PERSIST_MAX_SETS);
			if (r < 0)
				goto fail;
		} else if (!strcmp(tok[0], "end") && n == 1) {
			have_end = true;
		} else {
			BAD("unknown line \"%.32s\"", tok[0]);
		}
	}
	if (!have_version) {
		lineno = lineno ? lineno : 1;
		BAD("empty: not a debloat persisted setup");
	}
	if (!ps.ifname[0])
		BAD("no \"iface\" line");
	if (!have_end)
		BAD("no \"end\" line: the file is incomplete");
#undef BAD
	*out = ps;
	return 0;
fail:
	persist_free(&ps);
	return r;
}

static int read_small(const char *path, size_t max, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t got;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)max) {
		r = !S_ISREG(st.st_mode) ? -EINVAL : -EFBIG;
		close(fd);
		return r;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	*len = 0;
	while ((size_t)*len < (size_t)st.st_size + 1) {
		got = read(fd, buf + *len, (size_t)st.st_size + 1 - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r = got < 0 ? -errno : 0;
			break;
		}
		*len += (size_t)got;
	}
	close(fd);
	if (!r && *len > (size_t)st.st_size)
		r = -EFBIG; /* it grew while read */
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

static int path_join(char *buf, size_t len, const char *root, const char *rel)
{
	size_t rl = strlen(root);

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1 && root[0] == '/')
		rl = 0;
	return fit(snprintf(buf, len, "%.*s%s", (int)rl, root, rel), len) < 0 ? -ENAMETOOLONG : 0;
}

int persist_read(const char *root, const char *ifname, struct persist *out, char *err,
		 size_t errlen)
{
	char path[PATH_MAX], rel[64 + IF_NAMESIZE], *buf;
	size_t len;
	int r;

	memset(out, 0, sizeof(*out));
	say(err, errlen, "%s", "");
	snprintf(rel, sizeof(rel), "/etc/debloat/%s.conf", ifname);
	r = path_join(path, sizeof(path), root, rel);
	if (r < 0)
		return r;
	r = read_small(path, PERSIST_MAX_BYTES, &buf, &len);
	if (r < 0) {
		if (r != -ENOENT)
			say(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	r = persist_parse(buf, len, path, out, err, errlen);
	free(buf);
	if (!r && strcmp(out->ifname, ifname)) {
		say(err, errlen, "%s: it is the setup of %s, not %s", path, out->ifname, ifname);
		persist_free(out);
		r = -EINVAL;
	}
	return r;
}

/* ---- installing and removing ---- */

static void note_file(struct persist_files *f, const char *path)
{
	if (f && f->n < PERSIST_MAX_FILES)
		say(f->path[f->n++], sizeof(f->path[0]), "%s", path);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Make the directory path is in; on failure, its name and why in err. */
static int make_parent(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int r;

	memcpy(dir, path, strlen(path) + 1);
	*strrchr(dir, '/') = '\0';
	r = mkdir_p(dir);
	if (r < 0)
		say(err, errlen, "%s: %s", dir, strerror(-r));
	return r;
}

/* Write rel (under root) atomically, making its directory. */
static int put_file(const char *root, const char *rel, const char *text, mode_t mode,
		    struct persist_files *written, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r;

	r = path_join(path, sizeof(path), root, rel);
	if (r < 0)
		goto fail;
	r = make_parent(path, err, errlen);
	if (r < 0)
		return r;
	r = journal_write_atomic(path, text, strlen(text), mode);
	if (r < 0)
		goto fail;
	note_file(written, path);
	return 0;
fail:
	say(err, errlen, "%s: %s", path[0] ? path : rel, strerror(-r));
	return r;
}

/* The enabling symlink, relative so that it also works under a --root prefix. */
static int put_link(const char *root, const char *ifname, struct persist_files *written, char *err,
		    size_t errlen)
{
	char esc[IF_NAMESIZE * 4 + 1], rel[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX];
	int r;

	r = persist_escape_instance(ifname, esc, sizeof(esc));
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel),
		 "/etc/systemd/system/sys-subsystem-net-devices-%s.device.wants/debloat-fix@%s"
		 ".service",
		 esc, esc);
	r = path_join(path, sizeof(path), root, rel);
	if (r < 0)
		return r;
	r = make_parent(path, err, errlen);
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	if (symlink("../" UNIT_NAME, tmp) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		say(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	note_file(written, path);
	return 0;
}

int persist_install(const char *root, const struct plan *p, int target, const char *exe,
		    struct persist_files *written, char *err, size_t errlen)
{
	char rel[64 + IF_NAMESIZE], text[4096], hookdir[PATH_MAX], *conf;
	size_t len;
	int r;

	if (written)
		written->n = 0;
	r = persist_format(p, target, &conf, &len);
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "/etc/debloat/%s.conf", p->targets[target].name);
	r = put_file(root, rel, conf, 0644, written, err, errlen);
	free(conf);
	if (r < 0)
		return r;
	r = persist_unit_text(exe, text, sizeof(text));
	if (r < 0)
		return r;
	r = put_file(root, "/etc/systemd/system/" UNIT_NAME, text, 0644, written, err, errlen);
	if (r < 0)
		return r;
	r = put_link(root, p->targets[target].name, written, err, errlen);
	if (r < 0)
		return r;
	r = path_join(hookdir, sizeof(hookdir), root, "/etc/network/if-up.d");
	if (r < 0 || !is_dir(hookdir))
		return 0;
	r = persist_hook_text(exe, text, sizeof(text));
	if (r < 0)
		return r;
	return put_file(root, "/etc/network/if-up.d/debloat", text, 0755, written, err, errlen);
}

static int remove_path(const char *path, struct persist_files *removed, char *err, size_t errlen)
{
	if (unlink(path) == 0) {
		note_file(removed, path);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	say(err, errlen, "%s: %s", path, strerror(errno));
	return -errno;
}

static int remove_iface(const char *root, const char *ifname, struct persist_files *removed,
			char *err, size_t errlen)
{
	char esc[IF_NAMESIZE * 4 + 1], rel[PATH_MAX], path[PATH_MAX];
	int r;

	snprintf(rel, sizeof(rel), "/etc/debloat/%s.conf", ifname);
	r = path_join(path, sizeof(path), root, rel);
	if (!r)
		r = remove_path(path, removed, err, errlen);
	if (r < 0 || persist_escape_instance(ifname, esc, sizeof(esc)) < 0)
		return r;
	snprintf(rel, sizeof(rel), "/etc/systemd/system/sys-subsystem-net-devices-%s.device.wants",
		 esc);
	r = path_join(path, sizeof(path), root, rel);
	if (r < 0)
		return r;
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/debloat-fix@%s.service", esc);
	r = remove_path(path, removed, err, errlen);
	if (r < 0)
		return r;
	*strrchr(path, '/') = '\0';
	rmdir(path); /* only if empty: other units may want the device too */
	return 0;
}

/* Names of the interfaces with a ROOT/etc/debloat/IFACE.conf; -errno. */
static int persisted_names(const char *dir, char names[][IF_NAMESIZE], size_t max, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)) && *n < max) {
		size_t l = strlen(de->d_name);

		if (l > 5 && l - 5 < IF_NAMESIZE && !strcmp(de->d_name + l - 5, ".conf") &&
		    de->d_name[0] != '.') {
			memcpy(names[*n], de->d_name, l - 5);
			names[(*n)++][l - 5] = '\0';
		}
	}
	closedir(d);
	return 0;
}

/* Is path the hook this file writes (and not someone else's of the same name)? */
static bool our_hook(const char *path)
{
	char *buf = NULL;
	size_t len;
	bool ours;

	if (read_small(path, 65536, &buf, &len) < 0)
		return false;
	ours = len < 65536 && strstr(buf, HOOK_MARK) != NULL;
	free(buf);
	return ours;
}

#define PERSIST_MAX_IFACES 1024

int persist_uninstall(const char *root, char *const names[], size_t nnames,
		      struct persist_files *removed, char *err, size_t errlen)
{
	char found[PERSIST_MAX_IFACES][IF_NAMESIZE];
	char dir[PATH_MAX], path[PATH_MAX];
	size_t n;
	int r;

	if (removed)
		removed->n = 0;
	r = path_join(dir, sizeof(dir), root, "/etc/debloat");
	if (r < 0)
		return r;
	r = persisted_names(dir, found, PERSIST_MAX_IFACES, &n);
	if (r < 0) {
		say(err, errlen, "%s: %s", dir, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		bool pick = !nnames;

		for (size_t j = 0; j < nnames && !pick; j++)
			pick = !strcmp(found[i], names[j]);
		if (!pick)
			continue;
		r = remove_iface(root, found[i], removed, err, errlen);
		if (r < 0)
			return r;
	}
	/* The shared files go with the last interface. */
	r = persisted_names(dir, found, PERSIST_MAX_IFACES, &n);
	if (r < 0 || n)
		return r;
	rmdir(dir);
	r = path_join(path, sizeof(path), root, "/etc/systemd/system/" UNIT_NAME);
	if (!r)
		r = remove_path(path, removed, err, errlen);
	if (r < 0)
		return r;
	r = path_join(path, sizeof(path), root, "/etc/network/if-up.d/debloat");
	if (!r && our_hook(path))
		r = remove_path(path, removed, err, errlen);
	return r;
}
