/* SPDX-License-Identifier: MIT */
/*
 * test-qkind.c - src/qkind/: the registry of kinds and their tables (one name per kind,
 * no attribute, word or key twice in a kind, every row complete for the walkers that
 * read it), and every attribute of every kind through the walkers: spelled as tc's
 * words, encoded, decoded back to the same value, and reported by the audit under its
 * key; the plan's defaults agree with what the audit reports for them. Every table is
 * pinned field by field against tests/fixtures/qkind/tables.txt, so that rewriting a table's
 * layout is seen to change no value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>

#include "base/array.h"
#include "fix/qdisc-opts.h"
#include "fix/root-spec.h"
#include "harness.h"
#include "qkind/qkind.h"

#define FOR_EACH_KIND(k, i) for (size_t i = 0; ((k) = qkind_at(i)) != NULL; i++)

static bool one_attr_each(const struct qkind *k)
{
	return k->layout == QLAYOUT_NEST || k->layout == QLAYOUT_FIFO;
}

TEST(every_kind_is_found_by_its_name_and_no_name_twice)
{
	const struct qkind *k, *o;
	size_t n = 0;

	FOR_EACH_KIND(k, i)
	{
		n++;
		CHECK(qkind_find(k->name) == k);
		FOR_EACH_KIND(o, j)
		if (j > i)
			CHECK(strcmp(o->name, k->name) != 0);
	}
	/* The kinds the audit decoded and fix wrote before the tables were one. */
	CHECK(n >= 10);
	for (const char *const *name =
		 (const char *const[]){"fq_codel", "fq", "cake", "codel", "pfifo", "bfifo",
				       "pfifo_head_drop", "pfifo_fast", "prio", "tbf", "htb", NULL};
	     *name; name++)
		CHECK(qkind_find(*name) != NULL);
}

TEST(an_unknown_kind_is_null)
{
	CHECK(qkind_find("nonesuch") == NULL);
	CHECK(qkind_find("") == NULL);
	CHECK(qkind_find("fq_codel ") == NULL);
	CHECK(qkind_find("FQ_CODEL") == NULL);
	CHECK(qkind_at(1000) == NULL);
}

TEST(no_netlink_type_twice_in_a_kind)
{
	const struct qkind *k;

	/* Kinds whose options are a struct (tbf, htb, prio) report several fields of
	 * one attribute; the others have one attribute per option. */
	FOR_EACH_KIND(k, i)
	{
		CHECK(k->nattrs <= QKIND_MAX_ATTRS);
		for (size_t a = 0; a < k->nattrs; a++) {
			CHECK(k->attrs[a].type <= QKIND_MAX_TYPE);
			CHECK(k->attrs[a].absent_if <= QKIND_MAX_TYPE);
			for (size_t b = a + 1; one_attr_each(k) && b < k->nattrs; b++)
				if (!CHECK(k->attrs[a].type != k->attrs[b].type))
					fprintf(stderr, "    %s: type %u twice\n", k->name,
						k->attrs[a].type);
		}
	}
}

/* The words a user types for attribute a: its choices, or its own word. */
static void check_word_once(const struct qkind *k, const char *w, const char **seen, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		if (!CHECK(strcmp(seen[i], w) != 0))
			fprintf(stderr, "    %s: word \"%s\" twice\n", k->name, w);
	seen[(*n)++] = w;
}

TEST(no_word_twice_in_a_kind)
{
	const struct qkind *k;

	FOR_EACH_KIND(k, i)
	{
		const char *seen[128];
		size_t n = 0;

		for (size_t a = 0; a < k->nattrs; a++) {
			const struct qattr *at = &k->attrs[a];

			if (at->enc == QENC_CHOICE || at->enc == QENC_CHOICE_U8) {
				for (const struct qchoice *c = at->choices; c->word; c++)
					check_word_once(k, c->word, seen, &n);
			} else if (at->word) {
				check_word_once(k, at->word, seen, &n);
			}
		}
		/* An extra word may take over an attribute's own word ("bandwidth" also
		 * clears autorate) but then sets that attribute; else it is new. */
		for (size_t x = 0; x < k->nwords; x++) {
			const struct qword *w = &k->words[x];
			const struct qattr *at = qkind_attr(k, w->type);

			REQUIRE(at != NULL);
			if (at->word && !strcmp(at->word, w->word))
				continue;
			check_word_once(k, w->word, seen, &n);
			CHECK(!w->type2 || qkind_attr(k, w->type2) != NULL);
			CHECK(!w->div_type || (qkind_attr(k, w->div_type) != NULL && w->div));
		}
	}
}

TEST(no_json_key_twice_in_a_kind_and_one_place_each)
{
	const struct qkind *k;

	FOR_EACH_KIND(k, i)
	{
		for (size_t a = 0; a < k->nattrs; a++) {
			const struct qattr *x = &k->attrs[a];

			if (!x->key)
				continue;
			CHECK(x->show_pos >= 1 && x->show_pos <= k->nattrs);
			for (size_t b = a + 1; b < k->nattrs; b++) {
				const struct qattr *y = &k->attrs[b];

				if (!y->key)
					continue;
				if (!CHECK(strcmp(x->key, y->key) != 0))
					fprintf(stderr, "    %s: key %s twice\n", k->name, x->key);
				CHECK(x->show_pos != y->show_pos);
			}
		}
	}
}

TEST(every_row_has_what_its_walkers_read)
{
	const struct qkind *k;

	FOR_EACH_KIND(k, i)
	{
		CHECK((k->layout == QLAYOUT_OWN) == (k->show != NULL));
		CHECK(k->layout != QLAYOUT_FIFO || k->nattrs == 1);
		for (size_t a = 0; a < k->nattrs; a++) {
			const struct qattr *x = &k->attrs[a];

			CHECK((x->enc == QENC_CHOICE || x->enc == QENC_CHOICE_U8) ==
			      (x->choices != NULL));
			CHECK(x->show == QSHOW_NONE || x->key != NULL);
			CHECK(!(x->flags & QA_SPEC) || x->word != NULL);
			CHECK(!(x->flags & QA_SPEC_DEFAULT) || (x->flags & QA_DEFAULT));
			CHECK(!((x->flags & QA_DEFAULT) && (x->flags & QA_LINK_DEFAULT)));
		}
	}
}

/* A value of a's encoding that is not its default and spells back exactly. */
static uint64_t sample(const struct qattr *a)
{
	uint64_t v;

	switch (a->enc) {
	case QENC_SIZE:
		v = 3000;
		break;
	case QENC_TIME_US:
		v = 7000;
		break;
	case QENC_TIME_NS:
		v = 12000;
		break;
	case QENC_RATE32:
		v = 125000;
		break;
	case QENC_RATE64:
		v = 12500000;
		break;
	case QENC_LOG2:
		v = 4;
		break;
	case QENC_S32:
		v = (uint32_t)-12;
		break;
	default:
		v = 777;
		break;
	}
	return v == a->def ? v + 1 : v;
}

/* TCA_OPTIONS' payload for the wires, as the kernel lays it out. */
static size_t payload(const struct qkind *k, const struct qkind_wire *w, unsigned n,
		      unsigned char *buf)
{
	size_t len = 0;

	if (k->layout == QLAYOUT_FIFO) {
		struct tc_fifo_qopt fifo = {.limit = n ? (uint32_t)w[0].v : 0};

		memcpy(buf, &fifo, sizeof(fifo));
		return sizeof(fifo);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned char data[8];
		size_t dl = qkind_wire_bytes(&w[i], data);
		struct nlattr h = {.nla_len = (uint16_t)(NLA_HDRLEN + dl),
				   .nla_type = w[i].attr->type};

		memset(buf + len, 0, NLA_ALIGN(NLA_HDRLEN + dl));
		memcpy(buf + len, &h, sizeof(h));
		memcpy(buf + len + NLA_HDRLEN, data, dl);
		len += NLA_ALIGN(NLA_HDRLEN + dl);
	}
	return len;
}

/* Encode words, lay out the attributes, decode: the one attribute comes back with v. */
static void round_trip(const struct qkind *k, const struct qattr *a, char *text, uint64_t v)
{
	char *words[3], *save = NULL, err[128];
	struct qkind_wire wire[QKIND_MAX_ATTRS], back[QKIND_MAX_ATTRS];
	_Alignas(4) unsigned char buf[512]; /* netlink attributes are 4-byte aligned */
	unsigned n, nback;
	int nw = 0;
	size_t len;

	for (char *w = strtok_r(text, " ", &save); w && nw < 3; w = strtok_r(NULL, " ", &save))
		words[nw++] = w;
	if (!CHECK_EQ(qkind_encode(k, words, nw, wire, &n, err, sizeof(err)), 0)) {
		fprintf(stderr, "    %s %s: %s\n", k->name, a->word, err);
		return;
	}
	len = payload(k, wire, n, buf);
	REQUIRE_EQ(qkind_decode(k, buf, len, back, &nback), 0);
	if ((a->flags & QA_DEFAULT) && v == a->def) {
		CHECK_EQ(nback, 0);
		return;
	}
	if (!CHECK_EQ(nback, 1)) {
		fprintf(stderr, "    %s %s: %u attributes back\n", k->name, a->word, nback);
		return;
	}
	CHECK(back[0].attr == a);
	CHECK_EQ(back[0].v, v);
}

TEST(every_attribute_of_every_kind_round_trips_through_words)
{
	const struct qkind *k;
	unsigned tried = 0;

	FOR_EACH_KIND(k, i)
	{
		for (size_t j = 0; j < k->nattrs; j++) {
			const struct qattr *a = &k->attrs[j];
			char text[64];

			if (!a->word || a->enc == QENC_DERIVED || a->enc == QENC_FOREIGN)
				continue;
			if (a->enc == QENC_CHOICE || a->enc == QENC_CHOICE_U8) {
				for (const struct qchoice *c = a->choices; c->word; c++) {
					REQUIRE_EQ(qkind_spell(a, c->value, text, sizeof(text)), 0);
					CHECK_STR(text, c->word);
					round_trip(k, a, text, c->value);
					tried++;
				}
				continue;
			}
			REQUIRE_EQ(qkind_spell(a, sample(a), text, sizeof(text)), 0);
			round_trip(k, a, text, sample(a));
			tried++;
		}
	}
	CHECK(tried >= 60);
}

/* The audit's value for a's v, as its show rule says, or -1 for none. */
static long long shown(const struct qkind *k, const struct qattr *a, uint64_t v)
{
	struct qkind_wire w = {.attr = a, .v = v};
	_Alignas(4) unsigned char buf[64];
	struct value vals[QKIND_MAX_ATTRS];
	struct qshown s = {.v = vals, .max = QKIND_MAX_ATTRS};
	size_t len = payload(k, &w, 1, buf);

	if (qkind_show(k, buf, len, &s) < 0 || s.n != 1)
		return -1;
	CHECK_STR(vals[0].key, a->key);
	if (vals[0].type != VALUE_BOOL)
		CHECK_EQ(vals[0].unit, a->unit);
	return (long long)vals[0].u;
}

TEST(the_audit_reports_every_attribute_under_its_key)
{
	const struct qkind *k;

	FOR_EACH_KIND(k, i)
	{
		if (!one_attr_each(k))
			continue;
		for (size_t j = 0; j < k->nattrs; j++) {
			const struct qattr *a = &k->attrs[j];
			uint64_t v = sample(a);

			if (a->show == QSHOW_NONE)
				continue;
			switch (a->show) {
			case QSHOW_BOOL:
				CHECK_EQ(shown(k, a, 1), 1);
				CHECK_EQ(shown(k, a, 0), 0);
				break;
			case QSHOW_LOG2:
				CHECK_EQ(shown(k, a, v), 1LL << v);
				break;
			case QSHOW_RATE:
				CHECK_EQ(shown(k, a, v), (long long)v * 8);
				CHECK_EQ(shown(k, a, a->enc == QENC_RATE64 ? 0 : UINT32_MAX), -1);
				break;
			case QSHOW_UNLESS_MAX:
				CHECK_EQ(shown(k, a, v), (long long)v);
				CHECK_EQ(shown(k, a, UINT32_MAX), -1);
				break;
			default:
				CHECK_EQ(shown(k, a, v), (long long)v);
				break;
			}
		}
	}
}

TEST(the_plans_defaults_are_the_audits_view_of_the_kernels)
{
	const struct qkind *k;
	unsigned n = 0;

	FOR_EACH_KIND(k, i)
	{
		for (size_t j = 0; j < k->nattrs; j++) {
			const struct qattr *a = &k->attrs[j];
			uint64_t def;
			long long s;

			if (!qkind_spec_default(a, &def))
				continue;
			n++;
			CHECK(qkind_spec_name(k, a->word) == a);
			CHECK(qkind_spec_key(k, a->key) == a);
			s = shown(k, a, a->def);
			/* a rate of 0 is "unlimited": the audit shows none, the plan 0 */
			if (s < 0 && a->show == QSHOW_RATE) {
				CHECK_EQ(def, 0);
				continue;
			}
			REQUIRE(s >= 0);
			CHECK_EQ(qkind_spec_value(a, (uint64_t)s), def);
		}
	}
	CHECK(n >= 15);
}

TEST(the_plan_reads_flags_and_values_by_the_tables_words)
{
	const struct qkind *k = qkind_find("fq_codel");
	const struct qattr *a;
	uint64_t v = 99;
	bool flag = false;

	REQUIRE(k != NULL);
	a = qkind_spec_word(k, "noecn", &flag, &v);
	REQUIRE(a != NULL);
	CHECK_STR(a->word, "ecn");
	CHECK(flag);
	CHECK_EQ(v, 0);
	a = qkind_spec_word(k, "target", &flag, &v);
	REQUIRE(a != NULL);
	CHECK(!flag);
	CHECK_EQ(a->type, TCA_FQ_CODEL_TARGET);
	CHECK(qkind_spec_word(k, "nonesuch", &flag, &v) == NULL);
	k = qkind_find("cake");
	REQUIRE(k != NULL);
	a = qkind_spec_word(k, "unlimited", &flag, &v);
	REQUIRE(a != NULL);
	CHECK_STR(a->word, "bandwidth");
	CHECK(flag);
	CHECK_EQ(v, 0);
	/* cake's modes and presets are compared as written, not by value */
	CHECK(qkind_spec_word(k, "diffserv4", &flag, &v) == NULL);
	CHECK(qkind_spec_word(k, "lan", &flag, &v) == NULL);
}

TEST(words_for_a_kind_that_takes_none_are_refused)
{
	const struct qkind *k = qkind_find("pfifo_fast");
	char w0[] = "limit", w1[] = "10", *words[] = {w0, w1}, err[128];
	struct qkind_wire wire[QKIND_MAX_ATTRS];
	unsigned n = 5;

	REQUIRE(k != NULL);
	CHECK_EQ(qkind_encode(k, words, 0, wire, &n, err, sizeof(err)), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(qkind_encode(k, words, 2, wire, &n, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "pfifo_fast takes no options (\"limit\")");
}

TEST(a_spec_with_an_unknown_leaf_names_the_registrys_leaf_kinds)
{
	struct root_spec spec;
	char err[256];

	CHECK_EQ(root_spec_parse("nonesuch limit 5", &spec, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown qdisc kind \"nonesuch\" (fq_codel, fq, cake, pfifo, bfifo, "
		       "pfifo_fast, mq KIND, htb RATE KIND or default)");
	CHECK_EQ(root_spec_parse("mq prio", &spec, err, sizeof(err)), -EINVAL);
	CHECK_STR(err,
		  "unknown qdisc kind \"prio\" (fq_codel, fq, cake, pfifo, bfifo, pfifo_fast)");
}

static enum value_type type_of(const struct qattr *a)
{
	return a->show == QSHOW_BOOL ? VALUE_BOOL : a->show == QSHOW_LIST ? VALUE_LIST : VALUE_UINT;
}

TEST(a_key_means_the_same_in_every_kind)
{
	const struct qkind *k, *o;

	/* A snapshot reads options back by key alone, whatever the kind. */
	FOR_EACH_KIND(k, i)
	FOR_EACH_KIND(o, j)
	for (size_t a = 0; a < k->nattrs; a++)
		for (size_t b = 0; b < o->nattrs; b++) {
			const struct qattr *x = &k->attrs[a], *y = &o->attrs[b];

			if (x->show == QSHOW_NONE || y->show == QSHOW_NONE ||
			    strcmp(x->key, y->key))
				continue;
			CHECK_EQ(x->unit, y->unit);
			CHECK_EQ(type_of(x), type_of(y));
		}
}

/* docs/json.md's qdisc option keys: stable, with these types and units. */
static const struct {
	const char *key;
	enum value_type type;
	enum unit unit;
} json_keys[] = {
    {"limit_packets", VALUE_UINT, UNIT_PACKETS},
    {"limit_bytes", VALUE_UINT, UNIT_BYTES},
    {"bands", VALUE_UINT, UNIT_NONE},
    {"priomap", VALUE_LIST, UNIT_NONE},
    {"flows", VALUE_UINT, UNIT_NONE},
    {"quantum_bytes", VALUE_UINT, UNIT_BYTES},
    {"target_us", VALUE_UINT, UNIT_US},
    {"interval_us", VALUE_UINT, UNIT_US},
    {"memory_limit_bytes", VALUE_UINT, UNIT_BYTES},
    {"ecn", VALUE_BOOL, UNIT_NONE},
    {"ce_threshold_us", VALUE_UINT, UNIT_US},
    {"drop_batch_packets", VALUE_UINT, UNIT_PACKETS},
    {"flow_limit_packets", VALUE_UINT, UNIT_PACKETS},
    {"initial_quantum_bytes", VALUE_UINT, UNIT_BYTES},
    {"rate_enable", VALUE_BOOL, UNIT_NONE},
    {"maxrate_bps", VALUE_UINT, UNIT_BPS},
    {"buckets", VALUE_UINT, UNIT_NONE},
    {"refill_delay_us", VALUE_UINT, UNIT_US},
    {"orphan_mask", VALUE_UINT, UNIT_NONE},
    {"low_rate_threshold_bps", VALUE_UINT, UNIT_BPS},
    {"timer_slack_ns", VALUE_UINT, UNIT_NS},
    {"horizon_us", VALUE_UINT, UNIT_US},
    {"horizon_drop", VALUE_BOOL, UNIT_NONE},
    {"bandwidth_bps", VALUE_UINT, UNIT_BPS},
    {"autorate_ingress", VALUE_BOOL, UNIT_NONE},
    {"rtt_us", VALUE_UINT, UNIT_US},
    {"diffserv_mode", VALUE_UINT, UNIT_NONE},
    {"flow_mode", VALUE_UINT, UNIT_NONE},
    {"nat", VALUE_BOOL, UNIT_NONE},
    {"wash", VALUE_BOOL, UNIT_NONE},
    {"ingress", VALUE_BOOL, UNIT_NONE},
    {"split_gso", VALUE_BOOL, UNIT_NONE},
    {"rate_bps", VALUE_UINT, UNIT_BPS},
    {"peakrate_bps", VALUE_UINT, UNIT_BPS},
    {"default_class", VALUE_UINT, UNIT_HEX},
    {"r2q", VALUE_UINT, UNIT_NONE},
    {"direct_qlen_packets", VALUE_UINT, UNIT_PACKETS},
};

TEST(the_tables_keys_are_the_documented_ones)
{
	const struct qkind *k;
	struct value v;

	for (size_t i = 0; i < COUNT(json_keys); i++) {
		char key[32]; /* as a file would give it: a string that goes away */

		snprintf(key, sizeof(key), "%s", json_keys[i].key);
		if (!CHECK(qkind_key_value(key, &v))) {
			fprintf(stderr, "    no table has %s\n", json_keys[i].key);
			continue;
		}
		CHECK_STR(v.key, json_keys[i].key);
		CHECK(v.key != key); /* the table's string, not the caller's */
		CHECK_EQ(v.type, json_keys[i].type);
		CHECK_EQ(v.unit, json_keys[i].unit);
	}
	/* and no key beyond them */
	FOR_EACH_KIND(k, i)
	for (size_t a = 0; a < k->nattrs; a++) {
		bool known = false;

		if (k->attrs[a].show == QSHOW_NONE)
			continue;
		for (size_t j = 0; j < COUNT(json_keys); j++)
			known |= !strcmp(json_keys[j].key, k->attrs[a].key);
		if (!CHECK(known))
			fprintf(stderr, "    %s: key %s is not documented\n", k->name,
				k->attrs[a].key);
	}
	CHECK(!qkind_key_value("nonesuch_us", &v));
}

TEST(the_fifo_and_builtin_kinds_are_the_tables)
{
	CHECK(qkind_is_fifo("pfifo") && qkind_is_fifo("bfifo") && qkind_is_fifo("pfifo_fast"));
	CHECK(qkind_is_fifo("pfifo_head_drop"));
	CHECK(!qkind_is_fifo("fq_codel") && !qkind_is_fifo("mq") && !qkind_is_fifo("nosuch"));
	CHECK(qkind_is_builtin("pfifo_fast") && qkind_is_builtin("pfifo") &&
	      qkind_is_builtin("mq"));
	CHECK(!qkind_is_builtin("fq_codel") && !qkind_is_builtin("cake") && !qkind_is_builtin("x"));
	/* a kind whose defaults are known has them for every option it reports */
	for (size_t i = 0; qkind_at(i); i++) {
		const struct qkind *k = qkind_at(i);

		for (size_t j = 0; k->known_defaults && j < k->nattrs; j++) {
			const struct qattr *a = &k->attrs[j];

			if (a->key && (a->flags & QA_LINK_DEFAULT))
				CHECK(a->mtu_frames > 0);
		}
	}
}

TEST(the_kernels_defaults_read_as_defaults)
{
	const struct qkind *fq_codel = qkind_find("fq_codel"), *fq = qkind_find("fq");
	struct value v[] = {
	    value_uint("limit_packets", 10240, UNIT_PACKETS),
	    value_uint("flows", 1024, UNIT_NONE),
	    value_uint("quantum_bytes", 1514, UNIT_BYTES),
	    value_uint("target_us", 5000, UNIT_US),
	    value_uint("interval_us", 100000, UNIT_US),
	    value_uint("memory_limit_bytes", 32u << 20, UNIT_BYTES),
	    value_bool("ecn", true),
	    value_uint("drop_batch_packets", 64, UNIT_PACKETS),
	    value_uint("ce_threshold_us", 1000, UNIT_US),
	};
	struct value f[] = {
	    value_uint("buckets", 1024, UNIT_NONE),
	    value_uint("quantum_bytes", 3028, UNIT_BYTES),
	    value_uint("initial_quantum_bytes", 15140, UNIT_BYTES),
	    value_uint("low_rate_threshold_bps", 550000, UNIT_BPS),
	    value_uint("maxrate_bps", 8000000, UNIT_BPS),
	};

	CHECK(qkind_shown_defaults(fq_codel, v, 8, 1514));
	CHECK(!qkind_shown_defaults(fq_codel, v, 8, 9014)); /* quantum is one frame */
	CHECK(qkind_shown_defaults(fq_codel, v, 0, 1514));  /* nothing reported */
	CHECK(!qkind_shown_defaults(fq_codel, v, 9, 1514)); /* ce_threshold is set */
	v[6].u = 0;					    /* noecn */
	CHECK(!qkind_shown_defaults(fq_codel, v, 8, 1514));
	CHECK(qkind_shown_defaults(fq, f, 4, 1514));
	CHECK(!qkind_shown_defaults(fq, f, 5, 1514)); /* a maxrate is reported only when set */
	f[0].u = 2048;
	CHECK(!qkind_shown_defaults(fq, f, 4, 1514));
	CHECK(!qkind_shown_defaults(qkind_find("cake"), NULL, 0, 1514)); /* not known */
	CHECK(!qkind_shown_defaults(NULL, NULL, 0, 1514));
}

/* Every field of a kind, its attributes and its words, one line each, for the golden. */
static void dump_kind(FILE *f, const struct qkind *k)
{
	static const char *const layouts[] = {"none", "nest", "fifo", "own"};
	static const char *const units[] = {"none", "packets", "bytes", "ns", "us",
					    "ms",   "bps",     "mbps",	"hex"};
	static const char *const encs[] = {"u32",    "size",	  "time_us", "time_ns",
					   "rate32", "rate64",	  "log2",    "s32",
					   "choice", "choice_u8", "derived", "foreign"};
	static const char *const shows[] = {"none",	  "num",  "bool", "log2",
					    "unless_max", "rate", "list"};

	fprintf(f,
		"kind %s layout=%s leaf=%d fifo=%d builtin=%d known_defaults=%d show=%s "
		"networkd=%s\n",
		k->name, layouts[k->layout], k->leaf, k->fifo, k->builtin, k->known_defaults,
		k->show ? "own" : "-", k->networkd ? k->networkd : "-");
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct qattr *a = &k->attrs[i];

		fprintf(f,
			"  attr type=%u word=%s key=%s unit=%s enc=%s show=%s pos=%u flags=0x%02x "
			"def=%llu mtu_frames=%u absent_if=%u",
			a->type, a->word ? a->word : "-", a->key ? a->key : "-", units[a->unit],
			encs[a->enc], shows[a->show], a->show_pos, a->flags,
			(unsigned long long)a->def, a->mtu_frames, a->absent_if);
		if (a->networkd)
			fprintf(f, " networkd=%s", a->networkd);
		if (a->choices) {
			fprintf(f, " choices=");
			for (const struct qchoice *c = a->choices; c->word; c++)
				fprintf(f, "%s%s:%u%s%s", c == a->choices ? "" : ",", c->word,
					c->value, c->networkd ? "=" : "",
					c->networkd ? c->networkd : "");
		}
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < k->nwords; i++) {
		const struct qword *w = &k->words[i];

		fprintf(f,
			"  word %s type=%u arg=%d value=%llu type2=%u value2=%llu div_type=%u "
			"div=%llu forced=%d spec=%d\n",
			w->word, w->type, w->arg, (unsigned long long)w->value, w->type2,
			(unsigned long long)w->value2, w->div_type, (unsigned long long)w->div,
			w->forced, w->spec);
	}
}

/* The tables pinned field by field: a change to any row shows as a diff of the golden. */
TEST(every_kinds_table_is_as_pinned)
{
	const struct qkind *k;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(f != NULL);
	FOR_EACH_KIND(k, i)
	dump_kind(f, k);
	REQUIRE(fclose(f) == 0);
	CHECK_GOLDEN("tests/fixtures/qkind", "tables.txt", buf);
	free(buf);
}
