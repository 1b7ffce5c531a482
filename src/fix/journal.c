/* SPDX-License-Identifier: MIT */
/* journal.c - journal.h: fix's record of what it changed, written so a crash loses nothing. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/fsutil.h"
#include "base/say.h"
#include "fix/journal.h"
#include "fix/knob-type.h"

void journal_init(struct journal *j)
{
	memset(j, 0, sizeof(*j));
}

void journal_free(struct journal *j)
{
	free(j->steps);
	memset(j, 0, sizeof(*j));
}

int journal_copy(struct journal *dst, const struct journal *src)
{
	journal_init(dst);
	dst->created = src->created;
	dst->pid = src->pid;
	if (!src->n)
		return 0;
	dst->steps = malloc(src->n * sizeof(*dst->steps));
	if (!dst->steps)
		return -ENOMEM;
	memcpy(dst->steps, src->steps, src->n * sizeof(*dst->steps));
	dst->n = dst->cap = src->n;
	return 0;
}

const char *journal_state_name(enum journal_state s)
{
	static const char *const names[] = {"planned", "begun", "applied"};

	return s <= JOURNAL_APPLIED ? names[s] : "?";
}

static int state_from_name(const char *s)
{
	for (int i = JOURNAL_PLANNED; i <= JOURNAL_APPLIED; i++)
		if (!strcmp(s, journal_state_name((enum journal_state)i)))
			return i;
	return -EINVAL;
}

bool journal_knob_same(const struct knob *a, const struct knob *b)
{
	return a->kind == b->kind && !strcmp(a->ifname, b->ifname) &&
	       (!(knob_flags(a->kind) & KNOB_HAS_QUEUE) || a->queue == b->queue) &&
	       !strcmp(a->name, b->name);
}

struct journal_step *journal_find(const struct journal *j, const struct knob *k)
{
	for (size_t i = 0; i < j->n; i++)
		if (journal_knob_same(&j->steps[i].knob, k))
			return &j->steps[i];
	return NULL;
}

struct journal_step *journal_by_id(const struct journal *j, unsigned id)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->steps[i].id == id)
			return &j->steps[i];
	return NULL;
}

static unsigned next_id(const struct journal *j)
{
	unsigned id = 0;

	for (size_t i = 0; i < j->n; i++)
		if (j->steps[i].id > id)
			id = j->steps[i].id;
	return id + 1;
}

int journal_add(struct journal *j, const struct knob *k, const char *before, const char *after,
		const char *note, unsigned *id)
{
	struct journal_step *s = journal_find(j, k);
	int r;

	if (strlen(before) >= KNOB_VALUE_MAX || strlen(after) >= KNOB_VALUE_MAX ||
	    (note && strlen(note) >= JOURNAL_NOTE_MAX))
		return -EINVAL;
	if (s) {
		/* The oldest before stays: it is the state before any fix. */
		say(s->after, sizeof(s->after), "%s", after);
		if (note && *note)
			say(s->note, sizeof(s->note), "%s", note);
		if (id)
			*id = s->id;
		return 0;
	}
	if (j->n >= JOURNAL_MAX_STEPS)
		return -E2BIG;
	if (j->n == j->cap) {
		s = array_grow(j->steps, &j->cap, sizeof(*s), 16, JOURNAL_MAX_STEPS, &r);
		if (!s)
			return r;
		j->steps = s;
	}
	s = &j->steps[j->n];
	memset(s, 0, sizeof(*s));
	s->id = next_id(j);
	s->state = JOURNAL_PLANNED;
	s->knob = *k;
	say(s->before, sizeof(s->before), "%s", before);
	say(s->after, sizeof(s->after), "%s", after);
	say(s->note, sizeof(s->note), "%s", note ? note : "");
	j->n++;
	if (id)
		*id = s->id;
	return 0;
}

void journal_remove_at(struct journal *j, size_t i)
{
	if (i >= j->n)
		return;
	memmove(&j->steps[i], &j->steps[i + 1], (j->n - i - 1) * sizeof(*j->steps));
	j->n--;
}

/* ---- the line syntax ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int journal_split_line(char *line, char **tok, size_t max, size_t *n, const char **why)
{
	char *r = line, *w;

	*n = 0;
	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (!*r)
			return 0;
		if (*n == max) {
			*why = "too many fields";
			return -EINVAL;
		}
		if (*r != '"') {
			tok[(*n)++] = r;
			while (*r && *r != ' ' && *r != '\t') {
				if (*r == '"' || (unsigned char)*r < 0x20 || *r == 0x7f) {
					*why = "a quote or control character inside a word";
					return -EINVAL;
				}
				r++;
			}
			if (*r)
				*r++ = '\0';
			continue;
		}
		/* A quoted string, decoded in place (it only shrinks). */
		tok[(*n)++] = w = ++r;
		for (;;) {
			int hi, lo;

			if (!*r) {
				*why = "unterminated string";
				return -EINVAL;
			}
			if (*r == '"')
				break;
			if ((unsigned char)*r < 0x20 || *r == 0x7f) {
				*why = "a control character inside a string (write it as \\xHH)";
				return -EINVAL;
			}
			if (*r != '\\') {
				*w++ = *r++;
				continue;
			}
			r++;
			switch (*r) {
			case '"':
			case '\\':
				*w++ = *r++;
				break;
			case 'n':
				*w++ = '\n';
				r++;
				break;
			case 't':
				*w++ = '\t';
				r++;
				break;
			case 'x':
				hi = hexval((unsigned char)r[1]);
				lo = hi < 0 ? -1 : hexval((unsigned char)r[2]);
				if (lo < 0 || (hi == 0 && lo == 0)) {
					*why = "bad \\x escape (two hex digits, not 00)";
					return -EINVAL;
				}
				*w++ = (char)(hi * 16 + lo);
				r += 3;
				break;
			default:
				*why = "unknown escape in a string";
				return -EINVAL;
			}
		}
		r++; /* the closing quote */
		if (*r && *r != ' ' && *r != '\t') {
			*why = "no blank after a closing quote";
			return -EINVAL;
		}
		*w = '\0';
		if (*r)
			r++;
	}
}

int journal_quote(const char *s, char *out, size_t len)
{
	size_t o = 0;

#define PUT(c)                                                                                     \
	do {                                                                                       \
		if (o + 1 >= len)                                                                  \
			return -ENOSPC;                                                            \
		out[o++] = (c);                                                                    \
	} while (0)
	PUT('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			PUT('\\');
			PUT((char)*p);
		} else if (*p == '\n') {
			PUT('\\');
			PUT('n');
		} else if (*p == '\t') {
			PUT('\\');
			PUT('t');
		} else if (*p < 0x20 || *p >= 0x7f) {
			static const char hex[] = "0123456789abcdef";

			PUT('\\');
			PUT('x');
			PUT(hex[*p >> 4]);
			PUT(hex[*p & 15]);
		} else {
			PUT((char)*p);
		}
	}
	PUT('"');
#undef PUT
	out[o] = '\0';
	return (int)o;
}

/* The kernel's rule for interface names (dev_valid_name), and IFNAMSIZ. */
static bool valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]) ||
		    (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '"')
			return false;
	return true;
}

/* Feature and sysctl names: letters, digits, '.', '_', '-'; no "..". */
static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= sizeof(((struct knob *)0)->name) || strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

int journal_knob_parse(char *const tok[4], struct knob *out, const char **why)
{
	struct knob k;
	int kind = knob_kind_from_name(tok[0]);

	memset(&k, 0, sizeof(k));
	if (kind < 0) {
		*why = "unknown knob kind";
		return -EINVAL;
	}
	k.kind = (enum knob_kind)kind;
	if (knob_flags(k.kind) & KNOB_HOST_WIDE) {
		if (strcmp(tok[1], "-")) {
			*why = "a sysctl has no interface (write -)";
			return -EINVAL;
		}
	} else if (!valid_ifname(tok[1])) {
		*why = "bad interface name";
		return -EINVAL;
	} else {
		memcpy(k.ifname, tok[1], strlen(tok[1]) + 1);
	}
	if (knob_flags(k.kind) & KNOB_HAS_QUEUE) {
		char *end;
		long q;

		errno = 0;
		q = strtol(tok[2], &end, 10);
		if (!isdigit((unsigned char)tok[2][0]) || *end || errno || q > 65535) {
			*why = "bad TX queue number (0-65535)";
			return -EINVAL;
		}
		k.queue = (int)q;
	} else if (strcmp(tok[2], "-")) {
		*why = "only bql-limit-max has a queue (write -)";
		return -EINVAL;
	}
	if (knob_flags(k.kind) & KNOB_HAS_NAME) {
		if (!valid_name(tok[3])) {
			*why = "bad feature or sysctl name";
			return -EINVAL;
		}
		memcpy(k.name, tok[3], strlen(tok[3]) + 1);
	} else if (strcmp(tok[3], "-")) {
		*why = "only offloads and sysctls have a name (write -)";
		return -EINVAL;
	}
	*out = k;
	return 0;
}

int journal_knob_format(const struct knob *k, char *out, size_t len)
{
	char queue[16] = "-";
	int n;

	if (knob_flags(k->kind) & KNOB_HAS_QUEUE)
		snprintf(queue, sizeof(queue), "%d", k->queue);
	n = snprintf(out, len, "%s %s %s %s", knob_kind_name(k->kind),
		     k->ifname[0] ? k->ifname : "-", queue, k->name[0] ? k->name : "-");
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* ---- parsing ---- */

struct parse {
	const char *file;
	unsigned line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int bad(struct parse *ps, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say(ps->err, ps->errlen, "%s:%u: %s", ps->file, ps->line, msg);
	return -EINVAL;
}

static int parse_num(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1])))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_step(struct parse *ps, struct journal *j, char **tok, size_t n)
{
	struct journal_step *s;
	struct knob k;
	const char *why;
	long long id;
	int state, r;

	if (n != 10)
		return bad(ps,
			   "a step has 10 fields (step ID STATE KIND IFNAME QUEUE NAME "
			   "BEFORE AFTER NOTE), not %zu",
			   n);
	if (parse_num(tok[1], 1, 1000000, &id) < 0)
		return bad(ps, "bad step id \"%s\"", tok[1]);
	state = state_from_name(tok[2]);
	if (state < 0)
		return bad(ps, "bad step state \"%s\" (planned, begun or applied)", tok[2]);
	if (journal_knob_parse(tok + 3, &k, &why) < 0)
		return bad(ps, "%s", why);
	if (journal_by_id(j, (unsigned)id))
		return bad(ps, "step %lld is listed twice", id);
	if (journal_find(j, &k))
		return bad(ps, "step %lld changes a knob an earlier step already lists", id);
	if (strlen(tok[7]) >= KNOB_VALUE_MAX || strlen(tok[8]) >= KNOB_VALUE_MAX ||
	    strlen(tok[9]) >= JOURNAL_NOTE_MAX)
		return bad(ps, "a value is too long");
	r = journal_add(j, &k, tok[7], tok[8], tok[9], NULL);
	if (r == -E2BIG)
		return bad(ps, "more than %d steps", JOURNAL_MAX_STEPS);
	if (r < 0)
		return r;
	s = &j->steps[j->n - 1];
	s->id = (unsigned)id;
	s->state = (enum journal_state)state;
	return 0;
}

static int parse_record(struct parse *ps, struct journal *j, char **tok, size_t n)
{
	struct journal_step *s;
	long long id;
	bool done = !strcmp(tok[0], "done");

	if (n != 2 || parse_num(tok[1], 1, 1000000, &id) < 0)
		return bad(ps, "expected \"%s ID\"", tok[0]);
	s = journal_by_id(j, (unsigned)id);
	if (!s)
		return bad(ps, "%s names step %lld, which is not in the journal", tok[0], id);
	if (done)
		s->state = JOURNAL_APPLIED;
	else if (s->state == JOURNAL_PLANNED)
		s->state = JOURNAL_BEGUN;
	return 0;
}

int journal_parse(const char *buf, size_t len, const char *file, struct journal *out, char *err,
		  size_t errlen)
{
	struct parse ps = {.file = file ? file : "journal", .err = err, .errlen = errlen};
	struct journal j;
	char line[JOURNAL_MAX_LINE + 1], *tok[JOURNAL_MAX_TOKENS];
	bool have_version = false, have_end = false, have_created = false, have_pid = false;
	size_t pos = 0, n;
	const char *why;
	int r = 0;

	say(err, errlen, "%s", "");
	journal_init(out);
	if (len > JOURNAL_MAX_BYTES) {
		say(err, errlen, "%s: larger than %u bytes", ps.file, JOURNAL_MAX_BYTES);
		return -EFBIG;
	}
	journal_init(&j);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		ps.line++;
		if (!nl && have_end)
			break; /* a record torn by power loss: its begin was durable before */
		if (!nl) {
			r = bad(&ps, "incomplete last line (no newline)");
			goto fail;
		}
		if (l > JOURNAL_MAX_LINE) {
			r = bad(&ps, "line longer than %d bytes", JOURNAL_MAX_LINE);
			goto fail;
		}
		if (memchr(buf + pos, '\0', l)) {
			r = bad(&ps, "NUL byte");
			goto fail;
		}
		memcpy(line, buf + pos, l);
		line[l] = '\0';
		pos += l + 1;
		if (line[0] == '#')
			continue;
		if (journal_split_line(line, tok, JOURNAL_MAX_TOKENS, &n, &why) < 0) {
			r = bad(&ps, "%s", why);
			goto fail;
		}
		if (!n)
			continue;
		if (!have_version) {
			long long v;

			if (strcmp(tok[0], "debloat-journal") || n != 2 ||
			    parse_num(tok[1], 0, 1000000, &v) < 0) {
				r = bad(&ps,
					"not a debloat journal (expected \"debloat-journal %d\")",
					JOURNAL_VERSION);
				goto fail;
			}
			if (v != JOURNAL_VERSION) {
				bad(&ps, "journal version %lld; this debloat reads version %d", v,
				    JOURNAL_VERSION);
				r = -EPROTONOSUPPORT;
				goto fail;
			}
			have_version = true;
		} else if (have_end) {
			if (strcmp(tok[0], "begin") && strcmp(tok[0], "done")) {
				r = bad(&ps,
					"after \"end\" only \"begin ID\" and \"done ID\" may "
					"follow, not \"%s\"",
					tok[0]);
				goto fail;
			}
			r = parse_record(&ps, &j, tok, n);
			if (r < 0)
				goto fail;
		} else if (!strcmp(tok[0], "created") || !strcmp(tok[0], "pid")) {
			bool created = tok[0][0] == 'c';
			long long v;

			if (n != 2 ||
			    parse_num(tok[1], 0, created ? (1LL << 40) : INT_MAX, &v) < 0 ||
			    (created ? have_created : have_pid)) {
				r = bad(&ps, "bad or repeated \"%s\" line", tok[0]);
				goto fail;
			}
			if (created) {
				j.created = v;
				have_created = true;
			} else {
				j.pid = (long)v;
				have_pid = true;
			}
		} else if (!strcmp(tok[0], "step")) {
			r = parse_step(&ps, &j, tok, n);
			if (r < 0)
				goto fail;
		} else if (!strcmp(tok[0], "end") && n == 1) {
			have_end = true;
		} else {
			r = bad(&ps, "unknown line \"%s\"", tok[0]);
			goto fail;
		}
	}
	if (!have_version) {
		ps.line = ps.line ? ps.line : 1;
		r = bad(&ps, "empty: not a debloat journal");
		goto fail;
	}
	if (!have_end) {
		r = bad(&ps, "no \"end\" line: the list of steps is incomplete");
		goto fail;
	}
	*out = j;
	return 0;
fail:
	journal_free(&j);
	return r;
}

int journal_format(const struct journal *j, char **out, size_t *len)
{
	char *buf = NULL, before[KNOB_VALUE_MAX * 4 + 3], after[KNOB_VALUE_MAX * 4 + 3],
	     note[JOURNAL_NOTE_MAX * 4 + 3], knob[160];
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return -ENOMEM;
	fprintf(f, "debloat-journal %d\n", JOURNAL_VERSION);
	fprintf(f, "# Written by debloat fix; `debloat undo` restores every value below to its "
		   "before.\n");
	fprintf(f, "created %lld\npid %ld\n", j->created, j->pid);
	for (size_t i = 0; i < j->n; i++) {
		const struct journal_step *s = &j->steps[i];

		if (journal_knob_format(&s->knob, knob, sizeof(knob)) < 0 ||
		    journal_quote(s->before, before, sizeof(before)) < 0 ||
		    journal_quote(s->after, after, sizeof(after)) < 0 ||
		    journal_quote(s->note, note, sizeof(note)) < 0) {
			fclose(f);
			free(buf);
			return -EINVAL;
		}
		fprintf(f, "step %u %s %s %s %s %s\n", s->id, journal_state_name(s->state), knob,
			before, after, note);
	}
	fprintf(f, "end\n");
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	*len = size;
	return 0;
}

/* ---- files ---- */

static int fsync_dir_of(const char *path)
{
	char copy[PATH_MAX];
	int fd, r = 0;

	if (strlen(path) >= sizeof(copy))
		return -ENAMETOOLONG;
	memcpy(copy, path, strlen(path) + 1);
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		r = -errno;
	close(fd);
	return r;
}

int journal_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	char tmp[PATH_MAX];
	int fd, r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	r = write_all(fd, buf, len);
	if (!r && fchmod(fd, mode) < 0)
		r = -errno;
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	return fsync_dir_of(path);
}

int journal_write_file(const char *path, const struct journal *j)
{
	char *buf;
	size_t len;
	int r;

	r = journal_format(j, &buf, &len);
	if (r < 0)
		return r;
	r = journal_write_atomic(path, buf, len, 0600);
	free(buf);
	return r;
}

int journal_append(const char *path, const char *word, unsigned id)
{
	char line[64];
	int fd, n, r;

	n = snprintf(line, sizeof(line), "%s %u\n", word, id);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = write_all(fd, line, (size_t)n);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	return r;
}

int journal_remove_file(const char *path)
{
	if (unlink(path) < 0)
		return errno == ENOENT ? 0 : -errno;
	return fsync_dir_of(path);
}

int journal_read_file(const char *path, struct journal *out, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int r;

	say(err, errlen, "%s", "");
	journal_init(out);
	r = read_file_capped(path, JOURNAL_MAX_BYTES, READ_REGULAR | READ_NOFOLLOW, &buf, &len);
	if (r == -EISDIR || r == -EINVAL)
		return say_einval(err, errlen, "%s: not a regular file", path);
	if (r == -EFBIG)
		say(err, errlen, "%s: larger than %u bytes", path, JOURNAL_MAX_BYTES);
	if (r < 0)
		return r;
	r = journal_parse(buf, len, path, out, err, errlen);
	free(buf);
	return r;
}
