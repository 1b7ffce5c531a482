/* SPDX-License-Identifier: MIT */
/* profile.c - the lab's profiles: parsed, validated, overridden, written back, described. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/array.h"
#include "base/fsutil.h"
#include "debloat/dql.h"
#include "debloat/model.h"
#include "debloat/units.h"
#include "lab/profile.h"

#define MSG_MAX 512 /* a message before its "file:line: " or "--set k=v: " prefix */

#define RATE_MIN   (1000ULL / 8)	 /* 1kbit, in bytes per second */
#define RATE_MAX   (100000000000ULL / 8) /* 100gbit */
#define BUFFER_MAX (1ULL << 30)		 /* 1gb */
#define SEC	   1000000000ULL

enum key_type {
	KEY_NAME,    /* char[]: a profile name */
	KEY_TEXT,    /* char[]: free text on one line */
	KEY_QDISC,   /* char[]: a tc-style spec db_qdisc_create() accepts */
	KEY_INGRESS, /* KEY_QDISC, or "off" for none */
	KEY_CC,	     /* char[]: a congestion control's name */
	KEY_RATE,    /* uint64_t bytes per second */
	KEY_CEILING, /* KEY_RATE, or "off"/0 for none (0) */
	KEY_U32,     /* uint32_t */
	KEY_SIZE,    /* uint32_t or uint64_t bytes, spelled with tc's kb/mb/gb */
	KEY_BYTES,   /* uint32_t bytes, spelled as a plain number (as in sysfs) */
	KEY_BQL_MAX, /* KEY_BYTES, or "max" for DB_DQL_MAX_LIMIT */
	KEY_TIME,    /* uint64_t nanoseconds */
	KEY_BOOL,    /* bool */
};

struct key {
	const char *name;
	enum key_type type;
	size_t offset;
	size_t size;	   /* the field's size: string capacity, or 4/8 for numbers */
	uint64_t min, max; /* numbers: inclusive bounds */
};

#define FIELD(f) offsetof(struct lab_profile, f), sizeof(((struct lab_profile *)0)->f)

/* In the order lab_profile_format() writes them: the struct's. */
static const struct key keys[] = {
    {"name", KEY_NAME, FIELD(name), 0, 0},
    {"description", KEY_TEXT, FIELD(description), 0, 0},
    {"rate", KEY_RATE, FIELD(rate_bps), RATE_MIN, RATE_MAX},
    {"mtu", KEY_U32, FIELD(mtu), 68, 9000},
    {"qdisc", KEY_QDISC, FIELD(qdisc), 0, 0},
    {"txqueuelen", KEY_U32, FIELD(txqueuelen), 1, 100000},
    {"gso", KEY_BOOL, FIELD(gso), 0, 1},
    {"tso", KEY_BOOL, FIELD(tso), 0, 1},
    {"ring", KEY_U32, FIELD(ring), 1, 4096},
    {"urb_bytes", KEY_SIZE, FIELD(urb_bytes), 0, 1 << 20},
    {"urb_frames", KEY_U32, FIELD(urb_frames), 0, 4096},
    {"urb_overhead", KEY_BYTES, FIELD(urb_overhead), 0, 1024},
    {"bql", KEY_BOOL, FIELD(bql), 0, 1},
    {"bql_limit_min", KEY_BYTES, FIELD(bql_limit_min), 0, DB_DQL_MAX_LIMIT},
    {"bql_limit_max", KEY_BQL_MAX, FIELD(bql_limit_max), 0, DB_DQL_MAX_LIMIT},
    {"bql_hold_time", KEY_TIME, FIELD(bql_hold_ns), 0, 10 * SEC},
    {"completion_frames", KEY_U32, FIELD(completion_frames), 1, 4096},
    {"completion_time", KEY_TIME, FIELD(completion_ns), 0, SEC},
    {"completion_empty", KEY_BOOL, FIELD(completion_empty), 0, 1},
    {"delay", KEY_TIME, FIELD(delay_ns), 0, 10 * SEC},
    {"switch_rate", KEY_RATE, FIELD(switch_rate_bps), RATE_MIN, RATE_MAX},
    {"switch_buffer", KEY_SIZE, FIELD(switch_buffer_bytes), 0, BUFFER_MAX},
    {"tsq", KEY_SIZE, FIELD(tsq_bytes), 0, BUFFER_MAX},
    {"ceiling", KEY_CEILING, FIELD(ceiling_bps), RATE_MIN, RATE_MAX},
    {"ceiling_shared", KEY_BOOL, FIELD(ceiling_shared), 0, 1},
    {"rx_ring", KEY_U32, FIELD(rx_ring), 1, 4096},
    {"ingress", KEY_INGRESS, FIELD(ingress), 0, 0},
    {"client_rate", KEY_RATE, FIELD(client_rate_bps), RATE_MIN, RATE_MAX},
    {"client_qdisc", KEY_QDISC, FIELD(client_qdisc), 0, 0},
    {"client_ring", KEY_U32, FIELD(client_ring), 1, 4096},
    {"board_port_buffer", KEY_SIZE, FIELD(board_port_buffer_bytes), 0, BUFFER_MAX},
    {"cc", KEY_CC, FIELD(cc), 0, 0},
};

#define NKEYS ((int)COUNT(keys))

void lab_profile_defaults(struct lab_profile *p)
{
	/* memset first: padding and string tails are zero, so equal profiles compare
	 * equal with memcmp (tests and fuzz/fuzz-profile.c rely on it). */
	memset(p, 0, sizeof(*p));
	strcpy(p->name, "bbb-stock");
	strcpy(p->description, "BeagleBone Black as shipped: cpsw at 100 Mbit/s, pfifo_fast 1000, "
			       "128-descriptor ring, no BQL");
	p->rate_bps = 100000000 / 8;
	p->mtu = 1500;
	strcpy(p->qdisc, "pfifo_fast ring_batch 32"); /* 32-bit ARM: pfifo_fast.h */
	p->txqueuelen = 1000;
	p->gso = true;
	p->tso = false;
	p->ring = 128;
	p->bql = false;
	p->bql_limit_min = 0;
	p->bql_limit_max = DB_DQL_MAX_LIMIT;
	p->bql_hold_ns = DB_DQL_DEFAULT_HOLD_NS;
	p->completion_frames = 1;
	p->completion_ns = 0;
	p->delay_ns = 100000;
	p->switch_rate_bps = 1000000000 / 8;
	p->switch_buffer_bytes = 128 * 1024;
	p->tsq_bytes = 0;
	p->ceiling_bps = 0;
	p->ceiling_shared = false;
	p->rx_ring = 512;
	strcpy(p->ingress, "off");
	p->client_rate_bps = 1000000000 / 8;
	strcpy(p->client_qdisc, "fq_codel");
	p->client_ring = 256;
	p->board_port_buffer_bytes = 128 * 1024;
	strcpy(p->cc, "cubic");
}

/* ---- Fields ---- */

static char *field_str(struct lab_profile *p, const struct key *k)
{
	return (char *)p + k->offset;
}

static const char *field_cstr(const struct lab_profile *p, const struct key *k)
{
	return (const char *)p + k->offset;
}

static uint64_t field_get(const struct lab_profile *p, const struct key *k)
{
	const char *f = (const char *)p + k->offset;

	if (k->type == KEY_BOOL) {
		bool b;
		memcpy(&b, f, sizeof(b));
		return b;
	}
	if (k->size == sizeof(uint32_t)) {
		uint32_t v;
		memcpy(&v, f, sizeof(v));
		return v;
	}
	uint64_t v;
	memcpy(&v, f, sizeof(v));
	return v;
}

static void field_put(struct lab_profile *p, const struct key *k, uint64_t v)
{
	char *f = (char *)p + k->offset;

	if (k->type == KEY_BOOL) {
		bool b = v != 0;
		memcpy(f, &b, sizeof(b));
	} else if (k->size == sizeof(uint32_t)) {
		uint32_t u = (uint32_t)v;
		memcpy(f, &u, sizeof(u));
	} else {
		memcpy(f, &v, sizeof(v));
	}
}

/* Copy s into a field, zeroing the rest so equal profiles are memcmp-equal. */
static void put_str(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);

	memset(dst, 0, size);
	memcpy(dst, s, n < size ? n : size - 1);
}

static const struct key *find_key(const char *name)
{
	for (int i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

static int key_index(const char *name)
{
	return (int)(find_key(name) - keys);
}

/* ---- Spelling numbers ---- */

/* Sizes as tc reads them back: "128kb" is 131072 bytes (x1024). */
static void fmt_size(uint64_t v, char *buf, size_t len)
{
	if (v && v % (1ULL << 30) == 0)
		snprintf(buf, len, "%llugb", (unsigned long long)(v >> 30));
	else if (v && v % (1ULL << 20) == 0)
		snprintf(buf, len, "%llumb", (unsigned long long)(v >> 20));
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%llukb", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* For people: "128KB", "16MB", "3028B". */
static void fmt_size_human(uint64_t v, char *buf, size_t len)
{
	if (v && v % (1ULL << 20) == 0)
		snprintf(buf, len, "%lluMB", (unsigned long long)(v >> 20));
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%lluKB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)v);
}

static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	if (!ns || db_format_time(ns, buf, len) < 0)
		snprintf(buf, len, "%s", ns ? "?" : "0");
}

static void fmt_rate(uint64_t bps, char *buf, size_t len)
{
	if (db_format_rate(bps, buf, len) < 0)
		snprintf(buf, len, "?");
}

/* A number of key k as the format spells it. */
static void fmt_value(const struct key *k, uint64_t v, char *buf, size_t len)
{
	switch (k->type) {
	case KEY_CEILING:
		if (!v) {
			snprintf(buf, len, "off");
			break;
		}
		/* fall through */
	case KEY_RATE:
		fmt_rate(v, buf, len);
		break;
	case KEY_SIZE:
		fmt_size(v, buf, len);
		break;
	case KEY_BQL_MAX:
		if (v == DB_DQL_MAX_LIMIT) {
			snprintf(buf, len, "max");
			break;
		}
		/* fall through */
	case KEY_U32:
	case KEY_BYTES:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	case KEY_TIME:
		fmt_time(v, buf, len);
		break;
	case KEY_BOOL:
		snprintf(buf, len, "%s", v ? "on" : "off");
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

/* "(1kbit..100gbit)" */
static void fmt_range(const struct key *k, char *buf, size_t len)
{
	char lo[32], hi[32];

	fmt_value(k, k->min, lo, sizeof(lo));
	if (k->type == KEY_BQL_MAX)
		snprintf(hi, sizeof(hi), "%llu", (unsigned long long)k->max);
	else
		fmt_value(k, k->max, hi, sizeof(hi));
	snprintf(buf, len, "(%s..%s)", lo, hi);
}

/* ---- Validating values ---- */

/* 1 to max letters, digits and characters of punct (a name, a congestion control). */
static bool word_ok(const char *s, size_t max, const char *punct)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(punct, *s)))
			return false;
	return true;
}

static bool name_ok(const char *s, size_t max)
{
	return word_ok(s, max, "._+-");
}

static bool cc_ok(const char *s, size_t max)
{
	return word_ok(s, max, "_-");
}

static int check_qdisc(const char *spec, char *msg, size_t len)
{
	struct db_qdisc_env env = {0};
	struct db_qdisc *q;
	char e[256] = "";
	int ret;

	ret = db_qdisc_create(spec, &env, &q, e, sizeof(e));
	if (ret == -ENOMEM) {
		snprintf(msg, len, "out of memory");
		return ret;
	}
	if (ret < 0) {
		snprintf(msg, len, "%s", e[0] ? e : "not a qdisc spec");
		return -EINVAL;
	}
	db_qdisc_destroy(q);
	return 0;
}

/* What every value must be, whatever its key: text for one line of a profile. */
static int check_text(const struct key *k, const char *v, char *msg, size_t len)
{
	for (const unsigned char *s = (const unsigned char *)v; *s; s++) {
		if (*s == '#') {
			snprintf(msg, len, "%s: a value cannot contain '#' (it starts a comment)",
				 k->name);
			return -EINVAL;
		}
		if ((*s < 0x20 && *s != '\t') || *s == 0x7f) {
			snprintf(msg, len, "%s: a value cannot contain control characters",
				 k->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* A string field's value; msg names the problem. */
static int check_string(const struct key *k, const char *v, char *msg, size_t len)
{
	int ret = check_text(k, v, msg, len);

	if (ret < 0)
		return ret;
	if (strlen(v) >= k->size) {
		snprintf(msg, len, "%s: longer than %zu bytes", k->name, k->size - 1);
		return -EINVAL;
	}
	switch (k->type) {
	case KEY_NAME:
		if (!name_ok(v, k->size - 1)) {
			snprintf(msg, len,
				 "%s: \"%.80s\" is not a profile name (letters, digits, ._+-)",
				 k->name, v);
			return -EINVAL;
		}
		return 0;
	case KEY_CC:
		if (!cc_ok(v, k->size - 1)) {
			snprintf(msg, len,
				 "%s: \"%.80s\" is not a congestion control name (e.g. cubic)",
				 k->name, v);
			return -EINVAL;
		}
		return 0;
	case KEY_INGRESS:
	case KEY_QDISC: {
		char e[MSG_MAX];
		if (k->type == KEY_INGRESS && !strcmp(v, "off"))
			return 0;
		ret = check_qdisc(v, e, sizeof(e));
		if (ret < 0)
			snprintf(msg, len, "%s: %s", k->name, e);
		return ret;
	}
	default:
		return 0;
	}
}

static int parse_bool(const char *v, uint64_t *out)
{
	static const char *const yes[] = {"on", "yes", "true", "1"};
	static const char *const no[] = {"off", "no", "false", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -EINVAL;
}

/* Read a number of key k; -EINVAL with msg when malformed or out of range. */
static int parse_number(const struct key *k, const char *v, uint64_t *out, char *msg, size_t len)
{
	const char *what = NULL;
	uint64_t n = 0;
	uint32_t u32;
	int ret = -EINVAL;

	switch (k->type) {
	case KEY_CEILING:
		if (!strcasecmp(v, "off") || !strcmp(v, "0")) {
			*out = 0; /* none: not subject to the range */
			return 0;
		}
		ret = db_parse_rate(v, &n);
		what = "is not a rate (e.g. 470mbit) or off";
		break;
	case KEY_RATE:
		ret = db_parse_rate(v, &n);
		what = "is not a rate (e.g. 100mbit)";
		break;
	case KEY_U32:
		ret = db_parse_u32(v, &u32);
		n = u32;
		what = "is not a number";
		break;
	case KEY_BQL_MAX:
		if (!strcasecmp(v, "max")) {
			n = DB_DQL_MAX_LIMIT;
			ret = 0;
			break;
		}
		/* fall through */
	case KEY_SIZE:
	case KEY_BYTES:
		ret = db_parse_size(v, &u32);
		n = u32;
		what = k->type == KEY_BQL_MAX ? "is not a size (e.g. 3028, or max)"
					      : "is not a size (e.g. 128kb)";
		break;
	case KEY_TIME:
		ret = db_parse_time_ns(v, &n);
		what = "is not a time (e.g. 250us)";
		break;
	case KEY_BOOL:
		ret = parse_bool(v, &n);
		what = "is not a boolean (on/off, yes/no, true/false, 1/0)";
		break;
	default:
		break;
	}
	if (ret < 0) {
		snprintf(msg, len, "%s: \"%.80s\" %s", k->name, v, what ? what : "is not valid");
		return -EINVAL;
	}
	if (n < k->min || n > k->max) {
		char range[80];
		fmt_range(k, range, sizeof(range));
		snprintf(msg, len, "%s: \"%.80s\" is out of range %s", k->name, v, range);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static bool is_string(const struct key *k)
{
	return k->type == KEY_NAME || k->type == KEY_TEXT || k->type == KEY_QDISC ||
	       k->type == KEY_INGRESS || k->type == KEY_CC;
}

/* Set key k from its value's text. On error p is untouched. */
static int apply(struct lab_profile *p, const struct key *k, const char *v, char *msg, size_t len)
{
	int ret = check_text(k, v, msg, len);
	uint64_t n;

	if (ret < 0)
		return ret;
	if (is_string(k)) {
		ret = check_string(k, v, msg, len);
		if (ret < 0)
			return ret;
		put_str(field_str(p, k), k->size, v);
		return 0;
	}
	ret = parse_number(k, v, &n, msg, len);
	if (ret < 0)
		return ret;
	field_put(p, k, n);
	return 0;
}

/*
 * The rules across keys. On a violation returns -EINVAL with msg, and the two keys
 * involved in *a and *b (indexes), so a parser can name the line that broke it.
 */
static int check_rules(const struct lab_profile *p, int *a, int *b, char *msg, size_t len)
{
	uint32_t frame = p->mtu + 14;

	if (p->completion_frames > 1 && p->completion_ns == 0 && !p->completion_empty) {
		*a = key_index("completion_frames");
		*b = key_index("completion_time");
		snprintf(msg, len,
			 "completion_frames %u needs completion_time > 0 or completion_empty = on "
			 "(a batch that does not fill would never be reported)",
			 p->completion_frames);
		return -EINVAL;
	}
	if (p->bql_limit_min > p->bql_limit_max) {
		*a = key_index("bql_limit_min");
		*b = key_index("bql_limit_max");
		snprintf(msg, len, "bql_limit_min %u is above bql_limit_max %u", p->bql_limit_min,
			 p->bql_limit_max);
		return -EINVAL;
	}
	if (p->switch_buffer_bytes < frame || p->board_port_buffer_bytes < frame) {
		bool sw = p->switch_buffer_bytes < frame;
		*a = key_index(sw ? "switch_buffer" : "board_port_buffer");
		*b = key_index("mtu");
		snprintf(
		    msg, len, "%s %llu is smaller than one frame (%u bytes at mtu %u)",
		    keys[*a].name,
		    (unsigned long long)(sw ? p->switch_buffer_bytes : p->board_port_buffer_bytes),
		    frame, p->mtu);
		return -EINVAL;
	}
	return 0;
}

int lab_profile_check(const struct lab_profile *p, char *err, size_t errlen)
{
	char msg[MSG_MAX];
	int a, b, ret;

	for (int i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		if (is_string(k)) {
			const char *s = field_cstr(p, k);
			if (!memchr(s, '\0', k->size)) {
				snprintf(err, errlen, "%s: not terminated", k->name);
				return -EINVAL;
			}
			ret = check_string(k, s, msg, sizeof(msg));
			if (ret < 0) {
				snprintf(err, errlen, "%s", msg);
				return ret;
			}
			continue;
		}
		uint64_t v = field_get(p, k);
		if (k->type == KEY_CEILING && !v)
			continue; /* off */
		if (v < k->min || v > k->max) {
			char val[32], range[80];
			fmt_value(k, v, val, sizeof(val));
			fmt_range(k, range, sizeof(range));
			snprintf(err, errlen, "%s: %s is out of range %s", k->name, val, range);
			return -EINVAL;
		}
	}
	ret = check_rules(p, &a, &b, msg, sizeof(msg));
	if (ret < 0)
		snprintf(err, errlen, "%s", msg);
	return ret;
}

/* ---- Parsing a text ---- */

/* The file name of a text parsed without one: messages say so, and it names nothing. */
static const char no_file[] = "<profile>";

/* The profiles being read, outermost first: for cycles, depth and messages. */
struct parse_stack {
	int n;
	char *id[LAB_PROFILE_BASE_DEPTH + 1];	 /* built-in name, or a file's real path */
	char *shown[LAB_PROFILE_BASE_DEPTH + 1]; /* as the user named it */
};

static void stack_pop(struct parse_stack *st)
{
	st->n--;
	free(st->id[st->n]);
	free(st->shown[st->n]);
}

static int stack_push(struct parse_stack *st, const char *id, const char *shown)
{
	st->id[st->n] = strdup(id);
	st->shown[st->n] = strdup(shown);
	if (!st->id[st->n] || !st->shown[st->n]) {
		free(st->id[st->n]);
		free(st->shown[st->n]);
		return -ENOMEM;
	}
	st->n++;
	return 0;
}

static bool is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n >= 5 && !strcmp(s + n - 5, ".conf"));
}

/* A file's identity for cycles: its real path when it has one. */
static char *file_id(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : strdup(path);
}

static const struct lab_builtin_profile *find_builtin(const char *name)
{
	for (const struct lab_builtin_profile *b = lab_builtin_profiles; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

const char *lab_profile_builtin_text(const char *name)
{
	const struct lab_builtin_profile *b = find_builtin(name);

	return b ? b->text : NULL;
}

static void builtin_names(char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (const struct lab_builtin_profile *b = lab_builtin_profiles; b->name; b++) {
		int n = snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "", b->name);
		if (n < 0 || (size_t)n >= len - pos)
			break;
		pos += (size_t)n;
	}
}

/*
 * Read a profile file into a new buffer (NUL-terminated, *len bytes). Regular files
 * only: a FIFO or a device would block or never end. -errno, -EFBIG when longer than
 * LAB_PROFILE_TEXT_MAX.
 */
static int read_file(const char *path, char **text, size_t *len)
{
	return read_file_capped(path, LAB_PROFILE_TEXT_MAX, READ_REGULAR, text, len);
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_(x)

static const char *read_error(int ret)
{
	if (ret == -EINVAL)
		return "not a regular file";
	if (ret == -EFBIG)
		return "longer than " STRINGIFY(LAB_PROFILE_TEXT_MAX) " bytes";
	return strerror(-ret);
}

static int parse_text(struct lab_profile *p, const char *text, size_t len, const char *file,
		      struct parse_stack *st, char *err, size_t errlen);

/* "base = value" on line `line` of `file`: defaults, then that profile. */
static int load_base(struct lab_profile *p, const char *value, const char *file, int line,
		     struct parse_stack *st, char *err, size_t errlen)
{
	const struct lab_builtin_profile *b = NULL;
	char *path = NULL, *id = NULL, *file_text = NULL;
	const char *shown, *text;
	size_t len = 0;
	int ret;

	if (!value[0]) {
		snprintf(err, errlen, "%s:%d: base: empty value", file, line);
		return -EINVAL;
	}
	if (is_path(value)) {
		const char *slash = strrchr(file, '/');
		if (value[0] != '/' && slash) {
			size_t dir = (size_t)(slash - file) + 1;
			path = malloc(dir + strlen(value) + 1);
			if (!path)
				return -ENOMEM;
			memcpy(path, file, dir);
			strcpy(path + dir, value);
		} else {
			path = strdup(value);
			if (!path)
				return -ENOMEM;
		}
		shown = path;
		id = file_id(path);
	} else {
		b = find_builtin(value);
		if (!b) {
			char names[256];
			builtin_names(names, sizeof(names));
			snprintf(err, errlen, "%s:%d: base: no profile \"%.80s\" (built-in: %s)",
				 file, line, value, names);
			return -EINVAL;
		}
		shown = b->name;
		id = strdup(b->name);
	}
	if (!id) {
		ret = -ENOMEM;
		goto out;
	}

	for (int i = 0; i < st->n; i++) {
		if (strcmp(st->id[i], id))
			continue;
		char chain[512];
		size_t pos = 0;
		chain[0] = '\0';
		for (int j = i; j < st->n; j++) {
			int n = snprintf(chain + pos, sizeof(chain) - pos, "%s -> ", st->shown[j]);
			if (n < 0 || (size_t)n >= sizeof(chain) - pos)
				break;
			pos += (size_t)n;
		}
		snprintf(err, errlen, "%s:%d: base: cycle: %s%s", file, line, chain, shown);
		ret = -EINVAL;
		goto out;
	}
	if (st->n > LAB_PROFILE_BASE_DEPTH) {
		snprintf(err, errlen, "%s:%d: base: bases nest deeper than %d", file, line,
			 LAB_PROFILE_BASE_DEPTH);
		ret = -EINVAL;
		goto out;
	}

	if (b) {
		text = b->text;
		len = strlen(b->text);
	} else {
		ret = read_file(path, &file_text, &len);
		text = file_text;
		if (ret < 0) {
			if (ret != -ENOMEM) {
				snprintf(err, errlen, "%s:%d: base: cannot read %s: %s", file, line,
					 path, read_error(ret));
				ret = -EINVAL;
			}
			goto out;
		}
	}

	ret = stack_push(st, id, shown);
	if (ret < 0)
		goto out;
	lab_profile_defaults(p);
	ret = parse_text(p, text, len, shown, st, err, errlen);
	stack_pop(st);
out:
	free(file_text);
	free(id);
	free(path);
	return ret;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/* The name a file gives its profile: "profiles/x.conf" -> "x". */
static void name_from_file(struct lab_profile *p, const char *file)
{
	const char *base = strrchr(file, '/');
	char name[LAB_PROFILE_NAME_MAX];
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (n >= 5 && !strcmp(base + n - 5, ".conf"))
		n -= 5;
	if (!n)
		return;
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	for (size_t i = 0; i < n; i++) {
		char c = base[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';
		name[i] = ok ? c : '_';
	}
	name[n] = '\0';
	put_str(p->name, sizeof(p->name), name);
}

/*
 * The next line of text from *pos into line, without its end, CR or comment. lineno
 * is its number, for errors. 0, or -EINVAL with a message.
 */
static int next_line(const char *text, size_t len, size_t *pos, const char *file, int lineno,
		     char line[LAB_PROFILE_LINE_MAX + 1], char *err, size_t errlen)
{
	const char *start = text + *pos, *nl = memchr(start, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - start) : len - *pos;
	char *hash;

	*pos += n + (nl ? 1 : 0);
	if (n && start[n - 1] == '\r')
		n--;
	if (n > LAB_PROFILE_LINE_MAX) {
		snprintf(err, errlen, "%s:%d: line longer than %d bytes", file, lineno,
			 LAB_PROFILE_LINE_MAX);
		return -EINVAL;
	}
	if (memchr(start, '\0', n)) {
		snprintf(err, errlen, "%s:%d: line contains a NUL byte", file, lineno);
		return -EINVAL;
	}
	memcpy(line, start, n);
	line[n] = '\0';
	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	return 0;
}

static bool folded(const char *text, size_t len, size_t pos)
{
	return pos < len && (text[pos] == ' ' || text[pos] == '\t');
}

/*
 * value, then the lines right after it that begin with a blank and hold text (a
 * folded value), joined by one space into val, up to a line that does not begin with
 * a blank or holds nothing but blanks and a comment. *lineno advances past them. 0, or
 * -EINVAL with a message (key names the setting).
 */
static int unfold(const char *text, size_t len, size_t *pos, const char *file, int *lineno,
		  const char *key, const char *value, char val[LAB_PROFILE_LINE_MAX + 1], char *err,
		  size_t errlen)
{
	char line[LAB_PROFILE_LINE_MAX + 1];
	size_t n = strlen(value);
	int first = *lineno, r;

	memcpy(val, value, n + 1);
	while (folded(text, len, *pos)) {
		const char *more;
		size_t m;

		r = next_line(text, len, pos, file, ++*lineno, line, err, errlen);
		if (r < 0)
			return r;
		more = trim(line);
		m = strlen(more);
		if (!m)
			break; /* a blank or comment line ends the setting */
		if (n + (n ? 1 : 0) + m > LAB_PROFILE_LINE_MAX) {
			snprintf(err, errlen, "%s:%d: %.60s: value longer than %d bytes", file,
				 first, key, LAB_PROFILE_LINE_MAX);
			return -EINVAL;
		}
		if (n)
			val[n++] = ' ';
		memcpy(val + n, more, m + 1);
		n += m;
	}
	return 0;
}

static int parse_text(struct lab_profile *p, const char *text, size_t len, const char *file,
		      struct parse_stack *st, char *err, size_t errlen)
{
	char line[LAB_PROFILE_LINE_MAX + 1], val[LAB_PROFILE_LINE_MAX + 1], msg[MSG_MAX];
	int set_line[NKEYS] = {0};
	int base_line = 0, any_line = 0, lineno = 0, a, b, ret;
	size_t pos = 0;

	if (len > LAB_PROFILE_TEXT_MAX) {
		snprintf(err, errlen, "%s: longer than %d bytes", file, LAB_PROFILE_TEXT_MAX);
		return -EINVAL;
	}
	while (pos < len) {
		char *eq, *key, *value;
		int kline;

		ret = next_line(text, len, &pos, file, ++lineno, line, err, errlen);
		if (ret < 0)
			return ret;
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected \"key = value\", got \"%.60s\"",
				 file, lineno, key);
			return -EINVAL;
		}
		*eq = '\0';
		value = trim(eq + 1);
		key = trim(key);
		if (!*key) {
			snprintf(err, errlen, "%s:%d: expected \"key = value\", got no key", file,
				 lineno);
			return -EINVAL;
		}
		kline = lineno;
		ret = unfold(text, len, &pos, file, &lineno, key, value, val, err, errlen);
		if (ret < 0)
			return ret;
		value = val;

		if (!strcmp(key, "base")) {
			if (base_line) {
				snprintf(err, errlen, "%s:%d: base: given twice (first on line %d)",
					 file, kline, base_line);
				return -EINVAL;
			}
			if (any_line) {
				snprintf(
				    err, errlen,
				    "%s:%d: base: must come before any setting (line %d sets one)",
				    file, kline, any_line);
				return -EINVAL;
			}
			base_line = kline;
			ret = load_base(p, value, file, kline, st, err, errlen);
			if (ret < 0)
				return ret;
			continue;
		}

		const struct key *k = find_key(key);
		if (!k) {
			snprintf(err, errlen, "%s:%d: unknown key \"%.60s\"", file, kline, key);
			return -EINVAL;
		}
		int ki = (int)(k - keys);
		if (set_line[ki]) {
			snprintf(err, errlen, "%s:%d: %s: already set on line %d", file, kline,
				 k->name, set_line[ki]);
			return -EINVAL;
		}
		ret = apply(p, k, value, msg, sizeof(msg));
		if (ret < 0) {
			snprintf(err, errlen, "%s:%d: %s", file, kline, msg);
			return ret;
		}
		set_line[ki] = kline;
		any_line = kline;
	}

	ret = check_rules(p, &a, &b, msg, sizeof(msg));
	if (ret < 0) {
		int at = set_line[a] > set_line[b] ? set_line[a] : set_line[b];
		if (at)
			snprintf(err, errlen, "%s:%d: %s", file, at, msg);
		else
			snprintf(err, errlen, "%s: %s", file, msg);
		return ret;
	}
	if (!set_line[key_index("name")] && file != no_file)
		name_from_file(p, file);
	return 0;
}

/* Parse a whole text as the outermost profile, `id` its identity for cycles. */
static int parse_top(struct lab_profile *p, const char *text, size_t len, const char *file,
		     const char *id, char *err, size_t errlen)
{
	struct parse_stack st = {0};
	int ret;

	ret = stack_push(&st, id, file);
	if (ret < 0)
		return ret;
	ret = parse_text(p, text, len, file, &st, err, errlen);
	stack_pop(&st);
	return ret;
}

int lab_profile_parse(struct lab_profile *p, const char *text, size_t len, const char *file,
		      char *err, size_t errlen)
{
	char *id;
	int ret;

	if (!file)
		return parse_top(p, text, len, no_file, no_file, err, errlen);
	id = is_path(file) ? file_id(file) : strdup(file);
	if (!id)
		return -ENOMEM;
	ret = parse_top(p, text, len, file, id, err, errlen);
	free(id);
	return ret;
}

int lab_profile_load(struct lab_profile *p, const char *name_or_path, char *err, size_t errlen)
{
	struct lab_profile tmp;
	int ret;

	lab_profile_defaults(&tmp);
	if (is_path(name_or_path)) {
		char *text, *id;
		size_t len;

		ret = read_file(name_or_path, &text, &len);
		if (ret == -EFBIG) {
			snprintf(err, errlen, "%s: longer than %d bytes", name_or_path,
				 LAB_PROFILE_TEXT_MAX);
			return -EINVAL;
		}
		if (ret < 0) {
			snprintf(err, errlen, "cannot read profile %s: %s", name_or_path,
				 read_error(ret));
			return ret;
		}
		id = file_id(name_or_path);
		ret = id ? parse_top(&tmp, text, len, name_or_path, id, err, errlen) : -ENOMEM;
		free(id);
		free(text);
	} else {
		const struct lab_builtin_profile *b = find_builtin(name_or_path);
		if (!b) {
			char names[256];
			builtin_names(names, sizeof(names));
			snprintf(err, errlen,
				 "no profile \"%.80s\" (built-in: %s; or a path to a "
				 ".conf file)",
				 name_or_path, names);
			return -ENOENT;
		}
		ret = parse_top(&tmp, b->text, strlen(b->text), b->name, b->name, err, errlen);
	}
	if (ret == 0)
		memcpy(p, &tmp, sizeof(*p));
	return ret;
}

/* ---- Overrides ---- */

/* One override into *p (a scratch copy), without the rules across keys. On error a
 * message in err, and p possibly changed. */
static int set_one(struct lab_profile *p, const char *key, const char *value, char *err,
		   size_t errlen)
{
	char buf[LAB_PROFILE_LINE_MAX + 1], msg[MSG_MAX];
	const struct key *k;
	char *v;
	int ret;

	if (strlen(value) > LAB_PROFILE_LINE_MAX) {
		snprintf(err, errlen, "--set %.40s=...: value longer than %d bytes", key,
			 LAB_PROFILE_LINE_MAX);
		return -EINVAL;
	}
	strcpy(buf, value);
	v = trim(buf);
	if (!strcmp(key, "base")) {
		snprintf(err, errlen,
			 "--set base=%.80s: base can only be set in a profile file "
			 "(load that profile instead)",
			 value);
		return -EINVAL;
	}
	k = find_key(key);
	if (!k) {
		snprintf(err, errlen, "--set %.60s=%.80s: unknown key \"%.60s\"", key, value, key);
		return -EINVAL;
	}
	ret = apply(p, k, v, msg, sizeof(msg));
	if (ret < 0)
		snprintf(err, errlen, "--set %.60s=%.80s: %s", key, value, msg);
	return ret;
}

int lab_profile_set(struct lab_profile *p, const char *key, const char *value, char *err,
		    size_t errlen)
{
	char msg[MSG_MAX];
	struct lab_profile tmp;
	int a, b, ret;

	memcpy(&tmp, p, sizeof(tmp));
	ret = set_one(&tmp, key, value, err, errlen);
	if (ret < 0)
		return ret;
	ret = check_rules(&tmp, &a, &b, msg, sizeof(msg));
	if (ret < 0) {
		snprintf(err, errlen, "--set %.60s=%.80s: %s", key, value, msg);
		return ret;
	}
	memcpy(p, &tmp, sizeof(*p));
	return 0;
}

/* Split "key=value" at the first '=' into key (trimmed); the value after it. */
static int split_word(const char *word, char *key, size_t keylen, const char **value, char *err,
		      size_t errlen)
{
	const char *eq = strchr(word, '=');
	size_t n;
	char *t;

	if (!eq) {
		snprintf(err, errlen, "--set %.80s: expected key=value", word);
		return -EINVAL;
	}
	n = (size_t)(eq - word);
	if (n >= keylen) {
		snprintf(err, errlen, "--set %.80s: unknown key \"%.*s\"", word, 60, word);
		return -EINVAL;
	}
	memcpy(key, word, n);
	key[n] = '\0';
	t = trim(key);
	memmove(key, t, strlen(t) + 1);
	*value = eq + 1;
	return 0;
}

int lab_profile_set_word(struct lab_profile *p, const char *word, char *err, size_t errlen)
{
	char key[64];
	const char *value;
	int ret = split_word(word, key, sizeof(key), &value, err, errlen);

	return ret < 0 ? ret : lab_profile_set(p, key, value, err, errlen);
}

int lab_profile_set_words(struct lab_profile *p, const char *const *words, size_t n, char *err,
			  size_t errlen)
{
	struct lab_profile tmp;
	char key[64], msg[MSG_MAX];
	const char *value;
	size_t blame = 0;
	int a, b, ret;

	memcpy(&tmp, p, sizeof(tmp));
	for (size_t i = 0; i < n; i++) {
		ret = split_word(words[i], key, sizeof(key), &value, err, errlen);
		if (ret == 0)
			ret = set_one(&tmp, key, value, err, errlen);
		if (ret < 0)
			return ret;
	}
	ret = check_rules(&tmp, &a, &b, msg, sizeof(msg));
	if (ret < 0) {
		/* The last word that set one of the two keys (one did: p kept the rules). */
		for (size_t i = 0; i < n; i++) {
			const struct key *k;

			if (split_word(words[i], key, sizeof(key), &value, err, errlen) < 0)
				continue;
			k = find_key(key);
			if (k && (k == &keys[a] || k == &keys[b]))
				blame = i;
		}
		snprintf(err, errlen, "--set %.140s: %s", n ? words[blame] : "", msg);
		return ret;
	}
	memcpy(p, &tmp, sizeof(*p));
	return 0;
}

/* ---- Writing ---- */

/* A space between two characters that are not blanks: the parser's join gives it back. */
static bool fold_point(const char *v, size_t j)
{
	return v[j] == ' ' && v[j - 1] != ' ' && v[j - 1] != '\t' && v[j + 1] != ' ' &&
	       v[j + 1] != '\t';
}

/*
 * "key = value\n" into buf at *pos, folded at single spaces so that no line passes
 * LAB_PROFILE_FOLD columns where the value allows (a word longer than a line stays
 * whole): the lines after the first begin with four spaces, and the parser joins them
 * back with one space. 0, or -ENOSPC.
 */
static int put_setting(char *buf, size_t len, size_t *pos, const char *key, const char *value)
{
	size_t col = strlen(key) + 3, n = strlen(value), i = 0;
	int w = snprintf(buf + *pos, len - *pos, "%s = ", key);

	if (w < 0 || (size_t)w >= len - *pos)
		return -ENOSPC;
	*pos += (size_t)w;
	while (i < n) {
		size_t end = n, brk = 0;

		/* the last single space before the line is full, if the rest does not fit */
		if (col + (n - i) > LAB_PROFILE_FOLD) {
			for (size_t j = i + 1; j + 1 < n && col + (j - i) <= LAB_PROFILE_FOLD; j++)
				if (fold_point(value, j))
					brk = j;
			if (!brk) /* a long word: to the next single space */
				for (size_t j = i + 1; j + 1 < n && !brk; j++)
					if (fold_point(value, j))
						brk = j;
			if (brk)
				end = brk;
		}
		w = snprintf(buf + *pos, len - *pos, "%.*s\n%s", (int)(end - i), value + i,
			     end < n ? "    " : "");
		if (w < 0 || (size_t)w >= len - *pos)
			return -ENOSPC;
		*pos += (size_t)w;
		col = 4;
		i = end < n ? end + 1 : n;
	}
	if (!n) {
		if (*pos + 1 >= len)
			return -ENOSPC;
		buf[(*pos)++] = '\n';
		buf[*pos] = '\0';
	}
	return 0;
}

int lab_profile_format(const struct lab_profile *p, char *buf, size_t len)
{
	size_t pos = 0;

	for (int i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		char val[LAB_SPEC_MAX + 64];

		if (is_string(k))
			snprintf(val, sizeof(val), "%.*s", (int)k->size, field_cstr(p, k));
		else
			fmt_value(k, field_get(p, k), val, sizeof(val));
		if (put_setting(buf, len, &pos, k->name, val) < 0)
			return -ENOSPC;
	}
	return (int)pos;
}

static bool has_word(const char *spec, const char *word)
{
	size_t wl = strlen(word);

	for (const char *s = spec; *s;) {
		while (*s == ' ' || *s == '\t')
			s++;
		size_t n = strcspn(s, " \t");
		if (n == wl && !strncmp(s, word, wl))
			return true;
		s += n;
	}
	return false;
}

static size_t first_word(const char *spec, const char **start)
{
	while (*spec == ' ' || *spec == '\t')
		spec++;
	*start = spec;
	return strcspn(spec, " \t");
}

bool lab_qdisc_takes_txqueuelen(const char *spec)
{
	const char *kind;
	size_t n = first_word(spec, &kind);

	if (n == 10 && !strncmp(kind, "pfifo_fast", 10))
		return !has_word(kind + n, "txqueuelen");
	if (n == 5 && !strncmp(kind, "pfifo", 5))
		return !has_word(kind + n, "limit");
	return false;
}

int lab_profile_qdisc_spec(const struct lab_profile *p, char *buf, size_t len)
{
	const char *kind;
	size_t n = first_word(p->qdisc, &kind);
	int r;

	if (!lab_qdisc_takes_txqueuelen(p->qdisc))
		r = snprintf(buf, len, "%s", p->qdisc);
	else
		r = snprintf(buf, len, "%s %s %u", p->qdisc, n == 5 ? "limit" : "txqueuelen",
			     p->txqueuelen);
	return (r < 0 || (size_t)r >= len) ? -ENOSPC : r;
}

int lab_profile_describe(const struct lab_profile *p, char *buf, size_t len)
{
	char rate[32], t[32], sz[32], sz2[32];
	size_t pos = 0;
	int n;

#define ADD(...)                                                                                   \
	do {                                                                                       \
		n = snprintf(buf + pos, len - pos, __VA_ARGS__);                                   \
		if (n < 0 || (size_t)n >= len - pos)                                               \
			return -ENOSPC;                                                            \
		pos += (size_t)n;                                                                  \
	} while (0)

	if (!len)
		return -ENOSPC;
	fmt_rate(p->rate_bps, rate, sizeof(rate));
	ADD("%s", rate);
	if (p->mtu != 1500)
		ADD(", mtu %u", p->mtu);
	ADD(", qdisc %s", p->qdisc);
	if (lab_qdisc_takes_txqueuelen(p->qdisc))
		ADD(", txqueuelen %u", p->txqueuelen);
	ADD(", %s", !p->gso ? "no GSO" : p->tso ? "GSO+TSO" : "GSO");
	ADD(", ring %u", p->ring);
	if (p->urb_bytes) {
		char urb[32];

		fmt_size_human(p->urb_bytes, urb, sizeof(urb));
		ADD(" URBs of %s", urb);
		if (p->urb_frames)
			ADD(" (at most %u frame%s)", p->urb_frames, p->urb_frames == 1 ? "" : "s");
		if (p->urb_overhead)
			ADD(" + %u B per frame", p->urb_overhead);
	}
	if (p->bql) {
		ADD(", BQL");
		if (p->bql_limit_min != 0 || p->bql_limit_max != DB_DQL_MAX_LIMIT) {
			if (p->bql_limit_max == DB_DQL_MAX_LIMIT)
				ADD(" %u..max", p->bql_limit_min);
			else
				ADD(" %u..%u", p->bql_limit_min, p->bql_limit_max);
		}
		if (p->bql_hold_ns != DB_DQL_DEFAULT_HOLD_NS) {
			fmt_time(p->bql_hold_ns, t, sizeof(t));
			ADD(" hold %s", t);
		}
	} else {
		ADD(", no BQL");
	}
	if (p->completion_frames <= 1) {
		ADD(", completions every frame");
	} else {
		ADD(", completions every %u frames", p->completion_frames);
		if (p->completion_ns) {
			fmt_time(p->completion_ns, t, sizeof(t));
			ADD(" or %s", t);
		}
		if (p->completion_empty)
			ADD(" or when the ring empties");
	}
	if (p->delay_ns) {
		fmt_time(p->delay_ns, t, sizeof(t));
		ADD(", delay %s", t);
	} else {
		ADD(", no delay");
	}
	fmt_rate(p->switch_rate_bps, rate, sizeof(rate));
	fmt_size_human(p->switch_buffer_bytes, sz, sizeof(sz));
	fmt_size_human(p->board_port_buffer_bytes, sz2, sizeof(sz2));
	ADD(", switch %s %s, board port %s", rate, sz, sz2);
	if (p->tsq_bytes)
		ADD(", TSQ %u bytes", p->tsq_bytes);
	else
		ADD(", no TSQ");
	if (p->ceiling_bps) {
		fmt_rate(p->ceiling_bps, rate, sizeof(rate));
		if (p->ceiling_shared)
			ADD(", ceiling %s shared (rx ring %u)", rate, p->rx_ring);
		else
			ADD(", ceiling %s", rate);
	}
	if (strcmp(p->ingress, "off"))
		ADD(", ingress %s", p->ingress);
#undef ADD
	return (int)pos;
}
