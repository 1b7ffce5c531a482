/* SPDX-License-Identifier: MIT */
/* print.c - print.h: text and JSON from the same calls. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "json.h"
#include "print.h"

#define PRINT_MAX_DEPTH 16
#define UNIT_MASK	0xffu
#define NBSP		'\x01' /* a blank where text_write does not break (label value) */
#define INDENT_MARK	'\x02' /* in a section: print_indent(), the level in the next byte */

struct printer {
	FILE *out;
	enum print_mode mode;
	int err;      /* the first error; later calls still run but change nothing */
	bool compact; /* JSON on one line */

	/* JSON: the open containers; stack[0] is the document's root object. */
	struct jval *stack[PRINT_MAX_DEPTH];
	unsigned depth;

	/* text: where the cursor is */
	unsigned indent;
	unsigned width;		 /* text wraps past this column; 0: never */
	unsigned col;		 /* columns written on this line */
	unsigned pending_spaces; /* blanks held back until the next word shows where it goes */
	bool nowrap;		 /* the value being written is not to be broken */
	bool command;		 /* ... or broken with a shell continuation (PRINT_COMMAND) */
	bool line_start;	 /* nothing written on this line yet */
	bool need_space;	 /* the next value needs a separator */

	/* text: the line of phrases print_nl() lays out (print_phrase) */
	char phrase[PRINT_PHRASE_MAX];
	size_t phrase_len;
	bool phrased; /* a phrase call came since the last print_nl() */

	struct print_table *table;	 /* text: the grid print_table_end() writes, or NULL */
	struct print_sections *sections; /* text: held for print_sections_end(), or NULL */
};

/* Text as text_write() got it, to be laid out later; blanks that must not break: NBSP. */
struct print_sections {
	char *text[PRINT_SECTIONS];
	size_t len[PRINT_SECTIONS], cap[PRINT_SECTIONS];
	bool need_space[PRINT_SECTIONS + 1]; /* each section's own, from its last text */
	bool outer_need_space;		     /* the printer's when the sections began */
	unsigned cur;
};

struct print_table {
	size_t nrows;
	char label[PRINT_TABLE_ROWS][PRINT_TABLE_CELL];
	bool used[PRINT_TABLE_ROWS];	/* a cell was put in the row: not a heading */
	size_t ncols[PRINT_TABLE_ROWS]; /* cells up to the last one put in */
	char cell[PRINT_TABLE_ROWS][PRINT_TABLE_COLS][PRINT_TABLE_CELL];
};

struct printer *print_new(FILE *out, enum print_mode mode)
{
	struct printer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->out = out;
	p->mode = mode;
	p->line_start = true;
	p->width = PRINT_WIDTH;
	if (mode == PRINT_MODE_JSON) {
		p->stack[0] = json_new_object();
		if (!p->stack[0]) {
			free(p);
			return NULL;
		}
		p->depth = 1;
	}
	return p;
}

void print_free(struct printer *p)
{
	if (!p)
		return;
	free(p->table);
	if (p->sections)
		for (size_t i = 0; i < PRINT_SECTIONS; i++)
			free(p->sections->text[i]);
	free(p->sections);
	if (p->depth)
		json_free(p->stack[0]);
	free(p);
}

bool print_is_json(const struct printer *p)
{
	return p->mode == PRINT_MODE_JSON;
}

static void fail(struct printer *p, int err)
{
	if (!p->err)
		p->err = err;
}

void print_set_width(struct printer *p, unsigned width)
{
	p->width = width;
}

void print_set_compact(struct printer *p)
{
	p->compact = true;
}

static int write_compact(FILE *out, struct jval *v)
{
	size_t len;
	const char *s = json_text(v, &len);

	if (!s)
		return -ENOMEM;
	if (fwrite(s, 1, len, out) != len || fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}

int print_finish(struct printer *p)
{
	if (p->mode == PRINT_MODE_JSON) {
		if (p->depth != 1)
			fail(p, -EINVAL);
		if (!p->err)
			fail(p, p->compact ? write_compact(p->out, p->stack[0])
					   : json_write(p->out, p->stack[0]));
	} else {
		print_sections_end(p);
		if (!p->line_start)
			print_nl(p);
	}
	if (fflush(p->out) == EOF || ferror(p->out))
		fail(p, -EIO);
	return p->err;
}

/* Add v under key to the open JSON container; takes ownership of v. */
static void json_add(struct printer *p, const char *key, struct jval *v, bool is_null)
{
	struct jval *top = p->stack[p->depth - 1];
	int r;

	if (!v && !is_null) {
		fail(p, -ENOMEM);
		return;
	}
	if (json_kind_of(top) == JSON_KIND_ARRAY)
		r = key ? (json_free(v), -EINVAL) : json_append(top, v);
	else
		r = key ? json_set(top, key, v) : (json_free(v), -EINVAL);
	if (r < 0)
		fail(p, r);
}

static void open_container(struct printer *p, const char *key, struct jval *c)
{
	if (p->mode != PRINT_MODE_JSON)
		return;
	if (!c) {
		fail(p, -ENOMEM);
		return;
	}
	if (p->depth == PRINT_MAX_DEPTH) {
		json_free(c);
		fail(p, -E2BIG);
		return;
	}
	/* The parent owns c from here; we keep a borrowed pointer to fill it. */
	json_add(p, key, c, false);
	if (p->err)
		return;
	p->stack[p->depth++] = c;
}

void print_open_object(struct printer *p, const char *key)
{
	if (p->mode == PRINT_MODE_JSON)
		open_container(p, key, json_new_object());
}

void print_open_array(struct printer *p, const char *key)
{
	if (p->mode == PRINT_MODE_JSON)
		open_container(p, key, json_new_array());
}

void print_close(struct printer *p)
{
	if (p->mode != PRINT_MODE_JSON)
		return;
	if (p->depth <= 1) {
		fail(p, -EINVAL);
		return;
	}
	p->depth--;
}

static void line_begin(struct printer *p, unsigned cols)
{
	fprintf(p->out, "%*s", (int)cols, "");
	p->col = cols;
	p->line_start = false;
	p->pending_spaces = 0;
}

/*
 * n bytes of one word (or a whole value with nowrap), after the spaces held back before
 * it: on this line when they fit, else on the next, two columns further in (the spaces
 * are dropped at a break).
 */
static void put_word(struct printer *p, const char *s, size_t n)
{
	/* Only a blank is a place to break: punctuation stays with what it follows. */
	if (p->line_start) {
		unsigned blanks = p->pending_spaces; /* written out after a newline of the text */

		line_begin(p, p->indent * 2);
		p->pending_spaces = blanks;
	} else if (p->width && p->pending_spaces &&
		   p->col + p->pending_spaces + n + (p->command ? 2 : 0) > p->width &&
		   p->col > p->indent * 2 + 2) {
		if (p->command)
			fputs(" \\", p->out);
		fputc('\n', p->out);
		line_begin(p, p->indent * 2 + 2);
	}
	fprintf(p->out, "%*s", (int)p->pending_spaces, "");
	p->col += p->pending_spaces;
	p->pending_spaces = 0;
	for (size_t i = 0; i < n; i++) /* NBSP: a label and its value stay together */
		fputc(s[i] == NBSP ? ' ' : s[i], p->out);
	p->col += (unsigned)n;
}

/* Append n bytes of s to section c, its blanks as NBSP when keep; -ENOMEM. */
static int section_append(struct print_sections *h, unsigned c, const char *s, size_t n, bool keep)
{
	if (h->len[c] + n + 1 > h->cap[c]) {
		size_t cap = (h->len[c] + n + 1) * 2;
		char *t = realloc(h->text[c], cap);

		if (!t)
			return -ENOMEM;
		h->text[c] = t;
		h->cap[c] = cap;
	}
	for (size_t i = 0; i < n; i++)
		h->text[c][h->len[c]++] = keep && s[i] == ' ' ? NBSP : s[i];
	h->text[c][h->len[c]] = '\0';
	return 0;
}

/* Text into the current section; unwrapped text keeps its blanks whole. */
static void hold(struct printer *p, const char *s, size_t n)
{
	struct print_sections *h = p->sections;

	if (h->cur != PRINT_SECTION_NONE &&
	    section_append(h, h->cur, s, n, !p->width || p->nowrap) < 0)
		fail(p, -ENOMEM);
}

static void text_write(struct printer *p, const char *s)
{
	size_t n = strlen(s);

	if (!n)
		return;
	if (p->sections) {
		hold(p, s, n);
		p->need_space = !strchr(" (\n", s[n - 1]);
		return;
	}
	while (*s) {
		size_t w = p->nowrap ? strcspn(s, "\n") : strcspn(s, " \n");

		if (w)
			put_word(p, s, w);
		s += w;
		if (*s == '\n') {
			fputc('\n', p->out);
			p->col = 0;
			p->pending_spaces = 0;
			p->line_start = true;
			s++;
		} else if (*s == ' ') {
			p->pending_spaces++;
			s++;
		}
	}
	p->need_space = !strchr(" (\n", s[-1]);
}

void print_text(struct printer *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (p->mode != PRINT_MODE_TEXT)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Words get a space after the previous item; punctuation sticks to it. */
	if (p->need_space && buf[0] && !strchr(":,.)", buf[0]))
		text_write(p, " ");
	text_write(p, buf);
}

/*
 * The line of phrases, written out: as one print_text() of it at print_nl(); exactly as
 * written (no blank added) in a section, where the line may be cut and its parts joined.
 */
static void phrase_flush(struct printer *p, bool exact)
{
	if (!p->phrased)
		return;
	p->phrased = false;
	if (exact || p->sections)
		text_write(p, p->phrase);
	else
		print_text(p, "%s", p->phrase);
	p->phrase_len = 0;
	p->phrase[0] = '\0';
}

void print_nl(struct printer *p)
{
	if (p->mode != PRINT_MODE_TEXT)
		return;
	phrase_flush(p, false);
	if (p->sections) {
		hold(p, "\n", 1);
		p->need_space = false;
		return;
	}
	fputc('\n', p->out);
	p->col = 0;
	p->pending_spaces = 0;
	p->line_start = true;
	p->need_space = false;
}

void print_indent(struct printer *p, unsigned level)
{
	/* the level as a digit: never a NUL, a blank or a newline */
	char mark[2] = {INDENT_MARK, (char)('0' + (level > 40 ? 40 : level))};

	if (p->sections)
		hold(p, mark, 2);
	else
		p->indent = level;
}

void print_section(struct printer *p, unsigned i)
{
	struct print_sections *h = p->sections;

	if (p->mode != PRINT_MODE_TEXT)
		return;
	if (i > PRINT_SECTION_NONE) {
		fail(p, -EINVAL);
		return;
	}
	phrase_flush(p, true); /* into the section it was written for */
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h) {
			fail(p, -ENOMEM);
			return;
		}
		h->outer_need_space = p->need_space;
		p->sections = h;
	} else {
		h->need_space[h->cur] = p->need_space;
	}
	h->cur = i;
	p->need_space = h->need_space[i];
}

/* One section's text, laid out: text_write() between the indentation marks. */
static void replay(struct printer *p, char *text, size_t len)
{
	char *end = text + len;
	size_t o = 0;

	/* Blanks kept whole at the end of a line go, as text_write() drops the others'. */
	for (size_t i = 0; i < len; i++) {
		size_t k = i;

		while (k < len && text[k] == NBSP)
			k++;
		if (k > i && k < len && text[k] == '\n')
			i = k;
		text[o++] = text[i];
	}
	text[o] = '\0';
	end = text + o;

	while (text < end) {
		char *mark = memchr(text, INDENT_MARK, (size_t)(end - text));

		if (!mark) {
			text_write(p, text);
			return;
		}
		*mark = '\0';
		text_write(p, text);
		if (mark + 1 < end)
			p->indent = (unsigned)(mark[1] - '0');
		text = mark + 2;
	}
}

void print_sections_end(struct printer *p)
{
	struct print_sections *h = p->sections;

	if (!h)
		return;
	phrase_flush(p, true);
	p->sections = NULL;
	p->need_space = h->outer_need_space;
	/* One text of them all: a word cut between two sections is still one word. */
	for (size_t i = 1; i < PRINT_SECTIONS; i++) {
		if (h->len[i] && section_append(h, 0, h->text[i], h->len[i], false) < 0)
			fail(p, -ENOMEM);
		free(h->text[i]);
	}
	if (h->text[0])
		replay(p, h->text[0], h->len[0]);
	free(h->text[0]);
	free(h);
}

static const char *const unit_suffix[] = {
    [UNIT_NONE] = NULL, [UNIT_PACKETS] = "_packets", [UNIT_BYTES] = "_bytes", [UNIT_NS] = "_ns",
    [UNIT_US] = "_us",	[UNIT_MS] = "_ms",	     [UNIT_BPS] = "_bps",     [UNIT_MBPS] = "_mbps",
};

/* "label value" in text: the label is the key less its unit suffix. */
static void text_item(struct printer *p, const char *key, enum unit unit, unsigned flags,
		      const char *value)
{
	char item[1200];

	if (p->mode != PRINT_MODE_TEXT || (flags & PRINT_JSON_ONLY))
		return;
	if (p->need_space)
		text_write(p, " ");
	/* "label value" as one string, the blank between them one that does not break. */
	if (key && !(flags & PRINT_BARE)) {
		const char *suffix = unit < COUNT(unit_suffix) ? unit_suffix[unit] : NULL;
		size_t n = strlen(key), sn = suffix ? strlen(suffix) : 0;

		if (sn && n > sn && !strcmp(key + n - sn, suffix))
			n -= sn;
		snprintf(item, sizeof(item), "%.*s%c%s", (int)n, key, NBSP, value);
		value = item;
	}
	p->nowrap = (flags & PRINT_NOWRAP) && !(flags & PRINT_COMMAND);
	p->command = flags & PRINT_COMMAND;
	text_write(p, value);
	p->nowrap = p->command = false;
}

/* Three significant digits at most, trailing zeros dropped: 123, 12.3, 1.23, 5. */
static void format_scaled(char *buf, size_t len, uint64_t v, uint64_t scale, const char *name)
{
	uint64_t whole = v / scale, frac = v % scale;
	int decimals = whole >= 100 ? 0 : whole >= 10 ? 1 : 2;
	double x = (double)whole + (double)frac / (double)scale;
	char num[32];

	snprintf(num, sizeof(num), "%.*f", decimals, x);
	if (strchr(num, '.')) {
		char *end = num + strlen(num) - 1;

		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	snprintf(buf, len, "%s%s", num, name);
}

/*
 * v in the largest of units[] (units[i] is 1000^i of units[0]) that keeps it at
 * 1 or more, three significant digits; below 1000 the plain integer.
 */
static void format_decimal(char *buf, size_t len, uint64_t v, const char *const *units, size_t n)
{
	uint64_t scale = 1;
	size_t i = 0;

	while (i + 1 < n && v / scale >= 1000) {
		scale *= 1000;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%" PRIu64 "%s", v, units[0]);
	else
		format_scaled(buf, len, v, scale, units[i]);
}

static void format_time_ns(char *buf, size_t len, uint64_t ns)
{
	static const char *const units[] = {" ns", " us", " ms", " s"};

	format_decimal(buf, len, ns, units, COUNT(units));
}

static void format_rate_bps(char *buf, size_t len, uint64_t bps)
{
	static const char *const units[] = {"bit", "Kbit", "Mbit", "Gbit"};

	format_decimal(buf, len, bps, units, COUNT(units));
}

/*
 * Bytes as bytes: exact binary multiples get KiB/MiB/GiB, anything else stays in bytes
 * ("B"). Not tc's "Kb"/"Mb"/"b", which people read as bits beside our Mbit rates; the
 * commands fix prints keep tc's words (qkind_spell).
 */
static void format_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ULL << 30) && b % (1ULL << 30) == 0)
		snprintf(buf, len, "%" PRIu64 "GiB", b >> 30);
	else if (b >= (1ULL << 20) && b % (1ULL << 20) == 0)
		snprintf(buf, len, "%" PRIu64 "MiB", b >> 20);
	else if (b >= (1ULL << 10) && b % (1ULL << 10) == 0)
		snprintf(buf, len, "%" PRIu64 "KiB", b >> 10);
	else
		snprintf(buf, len, "%" PRIu64 "B", b);
}

void print_format_size(char *buf, size_t len, uint64_t b)
{
	static const char *const units[] = {" B", " KB", " MB", " GB", " TB"};

	format_decimal(buf, len, b, units, COUNT(units));
}

void print_format_rate(char *buf, size_t len, uint64_t bps)
{
	static const char *const units[] = {" bit/s", " Kbit/s", " Mbit/s", " Gbit/s"};

	format_decimal(buf, len, bps, units, COUNT(units));
}

int print_format_unit(char *buf, size_t len, uint64_t v, enum unit unit)
{
	static const char *const zero_time[] = {
	    [UNIT_NS] = "0 ns", [UNIT_US] = "0 us", [UNIT_MS] = "0 ms"};

	if (v == 0 && (unit == UNIT_NS || unit == UNIT_US || unit == UNIT_MS)) {
		snprintf(buf, len, "%s", zero_time[unit]);
		return 0;
	}
	switch (unit) {
	case UNIT_PACKETS:
		snprintf(buf, len, "%" PRIu64 "p", v);
		break;
	case UNIT_BYTES:
		format_bytes(buf, len, v);
		break;
	case UNIT_NS:
		format_time_ns(buf, len, v);
		break;
	case UNIT_US:
		format_time_ns(buf, len, v > UINT64_MAX / 1000 ? UINT64_MAX : v * 1000);
		break;
	case UNIT_MS:
		format_time_ns(buf, len, v > UINT64_MAX / 1000000 ? UINT64_MAX : v * 1000000);
		break;
	case UNIT_BPS:
		format_rate_bps(buf, len, v);
		break;
	case UNIT_MBPS:
		format_rate_bps(buf, len, v > UINT64_MAX / 1000000 ? UINT64_MAX : v * 1000000);
		break;
	case UNIT_HEX:
		snprintf(buf, len, "0x%" PRIx64, v);
		break;
	case UNIT_NONE:
	default:
		snprintf(buf, len, "%" PRIu64, v);
		break;
	}
	return 0;
}

void print_uint(struct printer *p, const char *key, uint64_t v, unsigned unit_flags)
{
	enum unit unit = (enum unit)(unit_flags & UNIT_MASK);
	char buf[48];

	if (p->mode == PRINT_MODE_JSON) {
		json_add(p, key, json_new_uint(v), false);
		return;
	}
	print_format_unit(buf, sizeof(buf), v, unit);
	text_item(p, key, unit, unit_flags, buf);
}

void print_int(struct printer *p, const char *key, int64_t v, unsigned unit_flags)
{
	enum unit unit = (enum unit)(unit_flags & UNIT_MASK);
	char buf[48];

	if (p->mode == PRINT_MODE_JSON) {
		json_add(p, key, json_new_int(v), false);
		return;
	}
	buf[0] = '-';
	print_format_unit(buf + (v < 0), sizeof(buf) - 1, v < 0 ? -(uint64_t)v : (uint64_t)v, unit);
	text_item(p, key, unit, unit_flags, buf);
}

char *print_escape(char *out, size_t len, const char *s)
{
	size_t o = 0;

	if (!len)
		return out;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[5];
		size_t n;

		if (c < 0x20 || c == 0x7f)
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
		else if (c == '\\')
			n = (size_t)snprintf(esc, sizeof(esc), "\\\\");
		else
			esc[0] = (char)c, esc[1] = '\0', n = 1;
		if (o + n >= len)
			break;
		memcpy(out + o, esc, n);
		o += n;
	}
	out[o] = '\0';
	return out;
}

void print_str(struct printer *p, const char *key, const char *s, unsigned flags)
{
	char safe[1024];

	if (p->mode == PRINT_MODE_JSON) {
		json_add(p, key, s ? json_new_string(s) : NULL, !s);
		return;
	}
	text_item(p, key, UNIT_NONE, flags, s ? print_escape(safe, sizeof(safe), s) : "unknown");
}

void print_bool(struct printer *p, const char *key, bool b, unsigned flags)
{
	if (p->mode == PRINT_MODE_JSON) {
		json_add(p, key, json_new_bool(b), false);
		return;
	}
	text_item(p, key, UNIT_NONE, flags, b ? "yes" : "no");
}

void print_null(struct printer *p, const char *key, const char *text, unsigned flags)
{
	if (p->mode == PRINT_MODE_JSON) {
		json_add(p, key, NULL, true);
		return;
	}
	text_item(p, key, (enum unit)(flags & UNIT_MASK), flags, text ? text : "unknown");
}

void print_opt_str(struct printer *p, const char *key, const char *s, unsigned flags)
{
	if (s && *s)
		print_str(p, key, s, flags);
	else
		print_null(p, key, NULL, PRINT_JSON_ONLY);
}

void print_value(struct printer *p, const struct value *v, unsigned flags)
{
	char buf[VALUE_LIST_MAX * 4 + 1];
	size_t off = 0;

	switch (v->type) {
	case VALUE_BOOL:
		print_bool(p, v->key, v->u != 0, flags);
		break;
	case VALUE_LIST:
		if (p->mode == PRINT_MODE_JSON) {
			print_open_array(p, v->key);
			for (unsigned i = 0; i < v->nlist; i++)
				print_uint(p, NULL, v->list[i], UNIT_NONE);
			print_close(p);
			break;
		}
		buf[0] = '\0';
		for (unsigned i = 0; i < v->nlist && i < VALUE_LIST_MAX; i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%u", i ? " " : "",
						v->list[i]);
		text_item(p, v->key, UNIT_NONE, flags, buf);
		break;
	case VALUE_UINT:
	default:
		print_uint(p, v->key, v->u, v->unit | flags);
		break;
	}
}

void print_double(struct printer *p, const char *key, double v, int decimals, unsigned unit_flags)
{
	static const char *const unit_name[] = {
	    [UNIT_NS] = " ns",		[UNIT_US] = " us",     [UNIT_MS] = " ms",
	    [UNIT_MBPS] = " Mbit/s",	[UNIT_BPS] = " bit/s", [UNIT_BYTES] = " bytes",
	    [UNIT_PACKETS] = " packets"};
	enum unit unit = (enum unit)(unit_flags & UNIT_MASK);
	const char *name = unit < COUNT(unit_name) ? unit_name[unit] : NULL;
	char buf[64];

	if (p->mode == PRINT_MODE_JSON) {
		if (isfinite(v))
			json_add(p, key, json_new_double(v), false);
		else
			json_add(p, key, NULL, true);
		return;
	}
	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.*f%s",
			 decimals < 0	? 0
			 : decimals > 9 ? 9
					: decimals,
			 v, name ? name : "");
	else
		snprintf(buf, sizeof(buf), "n/a");
	text_item(p, key, unit, unit_flags, buf);
}

/* Append to the line of phrases, truncated as the line is full. */
__attribute__((format(printf, 2, 0))) static void phrase_add(struct printer *p, const char *fmt,
							     va_list ap)
{
	int k;

	if (p->mode != PRINT_MODE_TEXT)
		return;
	p->phrased = true;
	if (p->phrase_len >= sizeof(p->phrase) - 1)
		return;
	k = vsnprintf(p->phrase + p->phrase_len, sizeof(p->phrase) - p->phrase_len, fmt, ap);
	if (k > 0)
		p->phrase_len = p->phrase_len + (size_t)k < sizeof(p->phrase)
				    ? p->phrase_len + (size_t)k
				    : sizeof(p->phrase) - 1;
}

/*
 * The body of every print_*_phrase: the value as JSON only, then fmt and the
 * variadic arguments after it appended to the phrase as text.
 */
#define JSON_THEN_PHRASE(p, fmt, json)                                                             \
	do {                                                                                       \
		va_list ap_;                                                                       \
		json;                                                                              \
		va_start(ap_, fmt);                                                                \
		phrase_add(p, fmt, ap_);                                                           \
		va_end(ap_);                                                                       \
	} while (0)

void print_phrase(struct printer *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	phrase_add(p, fmt, ap);
	va_end(ap);
}

void print_uint_phrase(struct printer *p, const char *key, uint64_t v, const char *fmt, ...)
{
	JSON_THEN_PHRASE(p, fmt, print_uint(p, key, v, PRINT_JSON_ONLY));
}

void print_int_phrase(struct printer *p, const char *key, int64_t v, const char *fmt, ...)
{
	JSON_THEN_PHRASE(p, fmt, print_int(p, key, v, PRINT_JSON_ONLY));
}

void print_double_phrase(struct printer *p, const char *key, double v, const char *fmt, ...)
{
	JSON_THEN_PHRASE(p, fmt, print_double(p, key, v, 0, PRINT_JSON_ONLY));
}

void print_str_phrase(struct printer *p, const char *key, const char *s, const char *fmt, ...)
{
	JSON_THEN_PHRASE(p, fmt, print_str(p, key, s, PRINT_JSON_ONLY));
}

void print_bool_phrase(struct printer *p, const char *key, bool b, const char *fmt, ...)
{
	JSON_THEN_PHRASE(p, fmt, print_bool(p, key, b, PRINT_JSON_ONLY));
}

void print_null_phrase(struct printer *p, const char *key, const char *fmt, ...)
{
	JSON_THEN_PHRASE(p, fmt, print_null(p, key, NULL, PRINT_JSON_ONLY));
}

void print_table_begin(struct printer *p)
{
	if (p->mode != PRINT_MODE_TEXT)
		return;
	free(p->table);
	p->table = calloc(1, sizeof(*p->table));
	if (!p->table)
		fail(p, -ENOMEM);
}

/* The row labelled row, named now if it is new; -1 when there is no room. */
static long table_row(struct print_table *t, const char *row)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strncmp(t->label[i], row, PRINT_TABLE_CELL - 1))
			return (long)i;
	if (t->nrows == PRINT_TABLE_ROWS)
		return -1;
	snprintf(t->label[t->nrows], PRINT_TABLE_CELL, "%s", row);
	return (long)t->nrows++;
}

void print_table_row(struct printer *p, const char *row)
{
	if (p->table && row)
		table_row(p->table, row);
}

__attribute__((format(printf, 4, 0))) static void
cell_add(struct printer *p, size_t col, const char *row, const char *fmt, va_list ap)
{
	struct print_table *t = p->table;
	long r;
	size_t n;

	if (!t || !row || col >= PRINT_TABLE_COLS || (r = table_row(t, row)) < 0)
		return;
	t->used[r] = true;
	if (t->ncols[r] < col + 1)
		t->ncols[r] = col + 1;
	n = strlen(t->cell[r][col]);
	vsnprintf(t->cell[r][col] + n, PRINT_TABLE_CELL - n, fmt, ap);
}

void print_cell(struct printer *p, size_t col, const char *row, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cell_add(p, col, row, fmt, ap);
	va_end(ap);
}

void print_str_cell(struct printer *p, const char *key, const char *s, size_t col, const char *row,
		    const char *fmt, ...)
{
	va_list ap;

	print_str(p, key, s, PRINT_JSON_ONLY);
	va_start(ap, fmt);
	cell_add(p, col, row, fmt, ap);
	va_end(ap);
}

void print_double_cell(struct printer *p, const char *key, double v, size_t col, const char *row,
		       const char *fmt, ...)
{
	va_list ap;

	print_double(p, key, v, 0, PRINT_JSON_ONLY);
	va_start(ap, fmt);
	cell_add(p, col, row, fmt, ap);
	va_end(ap);
}

/* fit: the widest used label, and each column's widest cell. */
static void table_fit(const struct print_table *t, size_t ncols, unsigned *label_w,
		      unsigned col_w[PRINT_TABLE_COLS])
{
	*label_w = 0;
	for (size_t c = 0; c < ncols; c++)
		col_w[c] = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		if (!t->used[r])
			continue;
		if (strlen(t->label[r]) > *label_w)
			*label_w = (unsigned)strlen(t->label[r]);
		for (size_t c = 0; c < t->ncols[r]; c++)
			if (strlen(t->cell[r][c]) > col_w[c])
				col_w[c] = (unsigned)strlen(t->cell[r][c]);
	}
}

/* Columns [first, end) of every row. With fit, each row is one piece of text (print_text
 * puts a blank between pieces where one does not end in a blank: the widest cell of a
 * column would be one off); without, a piece per cell, that blank included (tables
 * with col_w 0 count on it). */
static void table_block(struct printer *p, const struct print_table *t,
			const struct print_table_layout *l, unsigned label_w, const unsigned *col_w,
			size_t first, size_t end)
{
	char line[(PRINT_TABLE_COLS + 1) * (PRINT_TABLE_CELL + 16)];

	for (size_t r = 0; r < t->nrows; r++) {
		size_t n;

		if (!t->used[r]) {
			print_text(p, "%s", t->label[r]);
			print_nl(p);
			continue;
		}
		if (!l->fit) {
			print_text(p, "%-*s", (int)label_w, t->label[r]);
			for (size_t c = first; c < end; c++)
				print_text(p, "%s%-*s", l->sep,
					   c + 1 < end || !l->trim_last ? (int)col_w[c] : 0,
					   t->cell[r][c]);
			print_nl(p);
			continue;
		}
		n = (size_t)snprintf(line, sizeof(line), "%-*s", (int)label_w, t->label[r]);
		for (size_t c = first; c < end && n < sizeof(line); c++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%.15s%-*s", l->sep,
					      c + 1 < end || !l->trim_last ? (int)col_w[c] : 0,
					      t->cell[r][c]);
		print_text(p, "%s", line);
		print_nl(p);
	}
}

void print_table_end(struct printer *p, const struct print_table_layout *l)
{
	struct print_table *t = p->table;
	unsigned width = p->width, label_w = l->label_w, col_w[PRINT_TABLE_COLS];
	size_t ncols = 0, sep = strlen(l->sep), first = 0, end;

	if (!t)
		return;
	for (size_t r = 0; r < t->nrows; r++)
		if (t->ncols[r] > ncols)
			ncols = t->ncols[r];
	if (l->fit)
		table_fit(t, ncols, &label_w, col_w);
	else
		for (size_t c = 0; c < ncols; c++)
			col_w[c] = l->col_w;
	/* A row broken in two is no longer a table. */
	p->width = 0;
	do {
		size_t w = label_w;

		/* as many columns as fit in the width (with fit), at least one */
		for (end = first; end < ncols; end++) {
			if (end > first && l->fit && width && w + sep + col_w[end] > width)
				break;
			w += sep + col_w[end];
		}
		if (first)
			print_nl(p); /* a blank line between blocks */
		table_block(p, t, l, label_w, col_w, first, end);
		first = end;
	} while (first < ncols);
	p->width = width;
	free(t);
	p->table = NULL;
}
