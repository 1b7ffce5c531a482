/* SPDX-License-Identifier: MIT */
/*
 * test-fix-knob.c - src/fix/knob.c: every netlink request the root-qdisc and txqueuelen
 * knobs send, byte for byte against what tc and ip sent for the same configuration
 * (tests/fixtures/netlink, recorded by capture.sh there); spec errors; canonical
 * spellings and value comparison; knob_root_is_default on hand-built trees; the
 * file-backed knobs (BQL, sysctl) on a private tree; and a few reads of this
 * namespace's loopback. Writing real interfaces is tests/test-fix-knob.sh's job.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "base/nl.h"
#include "fix/ingress-shape.h"
#include "fix/knob.h"
#include "fix/qdisc-opts.h"
#include "harness.h"
#include "host/iface.h"

/* ---- golden fixtures ---- */

#define FIXTURE_MAX 8192

struct fixture {
	char name[128];
	char spec[KNOB_VALUE_MAX];
	int replace;
	unsigned major, ntxq;
	int ifindex, ifb_ifindex;
	unsigned char bytes[FIXTURE_MAX];
	size_t len;
	unsigned nmsgs;
};

/* From the source tree's top (run.sh), or up from this executable (build/tests/). */
static const char *fixture_dir(void)
{
	const char *env = getenv("KNOB_FIXTURES");

	if (env && harness_source_dir(env) == env)
		return env;
	return harness_source_dir("tests/fixtures/netlink");
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static bool load_fixture(const char *dir, const char *name, struct fixture *f)
{
	char path[PATH_MAX], line[2 * FIXTURE_MAX + 64];
	FILE *fp;

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(path, sizeof(path), "%s/%s.hex", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	f->major = 1;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (!strncmp(line, "spec: ", 6))
			snprintf(f->spec, sizeof(f->spec), "%s", line + 6);
		else if (!strncmp(line, "replace: ", 9))
			f->replace = atoi(line + 9);
		else if (!strncmp(line, "major: ", 7))
			f->major = (unsigned)strtoul(line + 7, NULL, 16);
		else if (!strncmp(line, "ifindex: ", 9))
			f->ifindex = atoi(line + 9);
		else if (!strncmp(line, "ntxq: ", 6))
			f->ntxq = (unsigned)atoi(line + 6);
		else if (!strncmp(line, "ifb_ifindex: ", 13))
			f->ifb_ifindex = atoi(line + 13);
		else {
			size_t n = strlen(line);

			if (n % 2 || f->len + n / 2 > sizeof(f->bytes)) {
				fclose(fp);
				return false;
			}
			for (size_t i = 0; i < n; i += 2) {
				int hi = hexval(line[i]), lo = hexval(line[i + 1]);

				if (hi < 0 || lo < 0) {
					fclose(fp);
					return false;
				}
				f->bytes[f->len++] = (unsigned char)(hi << 4 | lo);
			}
			/* one message per line; messages are 4-aligned already */
			f->nmsgs++;
		}
	}
	fclose(fp);
	return f->len > 0 && f->spec[0];
}

/* tc numbers its requests by the clock and the kernel fills the port id: zero both. */
static void normalise(unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - off)
			return;
		memset(buf + off + 8, 0, 8);
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
}

static bool little_endian(void)
{
	uint16_t one = 1;
	unsigned char b;

	memcpy(&b, &one, 1);
	return b == 1;
}

/*
 * The download shaper's requests as the fixture's commands sent them: add = create the
 * ifb, set it up, the ingress qdisc, the filter; else create the ifb, the ingress qdisc,
 * then delete both. Each at seq 1234, one after the other.
 */
static int ingress_requests(const struct fixture *f, bool add, unsigned char *buf, size_t cap)
{
	size_t len = 0;
	int n;

#define APPEND(call)                                                                               \
	do {                                                                                       \
		n = (call);                                                                        \
		if (n < 0)                                                                         \
			return n;                                                                  \
		len += (size_t)n;                                                                  \
	} while (0)
	APPEND(ingress_link_add_request("ifb4v0", 1234, buf + len, cap - len));
	if (add)
		APPEND(ingress_link_up_request(f->ifb_ifindex, 1234, buf + len, cap - len));
	APPEND(ingress_qdisc_request(f->ifindex, 1234, buf + len, cap - len));
	if (add) {
		APPEND(
		    ingress_filter_request(f->ifindex, f->ifb_ifindex, 1234, buf + len, cap - len));
	} else {
		APPEND(ingress_qdisc_del_request(f->ifindex, 1234, buf + len, cap - len));
		APPEND(ingress_link_del_request(f->ifb_ifindex, 1234, buf + len, cap - len));
	}
#undef APPEND
	return (int)len;
}

/* Build what the fixture's spec asks for and compare; returns false on a difference. */
static bool matches_tc(const struct fixture *f)
{
	static const struct knob_psched standard = KNOB_PSCHED_STANDARD;
	static unsigned char ours[FIXTURE_MAX], theirs[FIXTURE_MAX];
	char err[160] = "";
	unsigned txqlen;
	int n;

	if (!strncmp(f->spec, "txqueuelen ", 11)) {
		txqlen = (unsigned)atoi(f->spec + 11);
		n = knob_txqueuelen_request(f->ifindex, txqlen, 1234, ours, sizeof(ours));
	} else if (!strcmp(f->spec, "ingress") || !strcmp(f->spec, "ingress default")) {
		n = ingress_requests(f, !strcmp(f->spec, "ingress"), ours, sizeof(ours));
	} else if (!strncmp(f->spec, "gso_max_size ", 13)) {
		n = knob_gso_max_size_request(f->ifindex, (uint32_t)atoi(f->spec + 13), 1234, ours,
					      sizeof(ours));
	} else {
		n = knob_qdisc_requests_at(f->spec, f->ifindex, f->ntxq, f->replace, f->major,
					   &standard, 1234, ours, sizeof(ours), err, sizeof(err));
	}
	if (n < 0) {
		fprintf(stderr, "  %s: \"%s\": %s (%s)\n", f->name, f->spec, strerror(-n), err);
		return false;
	}
	memcpy(theirs, f->bytes, f->len);
	normalise(ours, (size_t)n);
	normalise(theirs, f->len);
	if ((size_t)n == f->len && !memcmp(ours, theirs, f->len))
		return true;
	fprintf(stderr, "  %s: \"%s\": %d bytes, tc sent %zu", f->name, f->spec, n, f->len);
	for (size_t i = 0; i < f->len && i < (size_t)n; i++)
		if (ours[i] != theirs[i]) {
			fprintf(stderr, "; first difference at byte %zu: %02x, tc %02x", i, ours[i],
				theirs[i]);
			break;
		}
	fprintf(stderr, "\n");
	return false;
}

/* Every fixture whose name starts with one of the prefixes (compared with our bytes when
 * compare is set); how many there were. */
static int fixtures(const char *const *prefixes, size_t nprefixes, bool compare)
{
	static struct fixture f;
	const char *dir = fixture_dir();
	struct dirent *e;
	DIR *d;
	int count = 0;

	if (!dir) {
		harness_fail(__FILE__, __LINE__, "tests/fixtures/netlink not found",
			     "set KNOB_FIXTURES");
		return 0;
	}
	d = opendir(dir);
	if (!d) {
		harness_fail(__FILE__, __LINE__, "opendir", dir);
		return 0;
	}
	while ((e = readdir(d))) {
		char name[128];
		size_t n = strlen(e->d_name);
		bool wanted = false;

		if (n < 5 || n - 4 >= sizeof(name) || strcmp(e->d_name + n - 4, ".hex"))
			continue;
		memcpy(name, e->d_name, n - 4);
		name[n - 4] = '\0';
		for (size_t i = 0; i < nprefixes; i++)
			wanted |= !strncmp(name, prefixes[i], strlen(prefixes[i]));
		if (!wanted)
			continue;
		count++;
		if (!compare)
			continue;
		if (!load_fixture(dir, name, &f)) {
			harness_fail(__FILE__, __LINE__, "malformed fixture", name);
			continue;
		}
		CHECK(matches_tc(&f));
	}
	closedir(d);
	return count;
}

#define GOLDEN(name, min, ...)                                                                     \
	TEST(name)                                                                                 \
	{                                                                                          \
		static const char *const prefixes[] = {__VA_ARGS__};                               \
		if (!little_endian())                                                              \
			SKIP("the fixtures were captured on a little-endian machine");             \
		CHECK(fixtures(prefixes, sizeof(prefixes) / sizeof(*prefixes), true) >= min);      \
	}

GOLDEN(golden_fq_codel_equals_tc, 4, "add-fq_codel", "replace-fq_codel")
GOLDEN(golden_fq_equals_tc, 4, "add-fq-", "replace-fq-")
GOLDEN(golden_cake_equals_tc, 4, "add-cake", "replace-cake")
GOLDEN(golden_fifos_equal_tc, 4, "add-pfifo", "replace-pfifo", "replace-bfifo")
GOLDEN(golden_mq_trees_equal_tc, 3, "add-mq", "replace-mq")
GOLDEN(golden_htb_trees_equal_tc, 4, "add-htb", "replace-htb")
GOLDEN(golden_delete_equals_tc, 1, "delete-")
GOLDEN(golden_txqueuelen_equals_ip, 2, "txqueuelen-")
GOLDEN(golden_gso_max_size_equals_ip, 1, "gso-max-size-")
GOLDEN(golden_ingress_shaper_equals_ip_and_tc, 2, "ingress-")

TEST(every_fixture_is_checked)
{
	static const char *const all[] = {""};
	static const char *const
	    families[] = {"add-fq_codel",
			  "replace-fq_codel",
			  "add-fq-",
			  "replace-fq-",
			  "add-cake",
			  "replace-cake",
			  "add-pfifo",
			  "replace-pfifo",
			  "replace-bfifo",
			  "add-mq",
			  "replace-mq",
			  "add-htb",
			  "replace-htb",
			  "delete-",
			  "txqueuelen-",
			  "gso-max-size-",
			  "ingress-",
			  "stats-" /* a dump, not a request: tests/test-host-qstats.c reads it */};

	if (!little_endian())
		SKIP("the fixtures were captured on a little-endian machine");
	/* A fixture in no family above would be compared by no golden test but this one. */
	CHECK_EQ(fixtures(all, 1, false), fixtures(families, 18, false));
	CHECK(fixtures(all, 1, false) >= 33);
}

/* Sequence numbers count up from the one given, one per message, pid 0. */
TEST(requests_number_their_messages)
{
	static unsigned char buf[8192];
	char err[160];
	int n = knob_qdisc_requests("htb 95mbit fq_codel", 7, 1, 1, 100, buf, sizeof(buf), err,
				    sizeof(err));
	size_t off = 0;
	uint32_t expect = 100;

	REQUIRE(n > 0);
	while (off < (size_t)n) {
		struct nlmsghdr h;

		memcpy(&h, buf + off, sizeof(h));
		CHECK_EQ(h.nlmsg_seq, expect++);
		CHECK_EQ(h.nlmsg_pid, 0);
		CHECK(h.nlmsg_flags & NLM_F_ACK);
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	CHECK_EQ(off, (size_t)n);
	CHECK_EQ(expect, 103);
}

/* A clock without high-resolution timers changes htb's burst the way it changes tc's. */
TEST(htb_burst_follows_the_clock)
{
	struct knob_psched lowres = {1000, 64, 1000000, 250};
	static unsigned char buf[8192];
	struct tc_htb_opt opt;
	char err[160];
	int n = knob_qdisc_requests_at("htb 95mbit pfifo", 3, 1, 1, 1, &lowres, 0, buf, sizeof(buf),
				       err, sizeof(err));
	size_t class_off;
	struct nlmsghdr h;

	REQUIRE(n > 0);
	memcpy(&h, buf, sizeof(h));
	class_off = NLMSG_ALIGN(h.nlmsg_len);
	/* class: header, tcmsg, TCA_KIND "htb" (8), TCA_OPTIONS (4), TCA_HTB_PARMS (4) */
	memcpy(&opt, buf + class_off + NLMSG_HDRLEN + sizeof(struct tcmsg) + 8 + 4 + 4,
	       sizeof(opt));
	/* 11875000 B/s / 250 + 1600 = 49100 bytes = 4134 us = 64593.75 ticks */
	CHECK_EQ(opt.buffer, 64593);
	CHECK_EQ(opt.cbuffer, 64593);
	CHECK_EQ(opt.rate.rate, 11875000);
	CHECK_EQ(qdisc_htb_burst_ticks(11875000, &lowres), 64593);
}

TEST(psched_is_read_as_four_hex_words)
{
	char dir[] = "/tmp/test-fix-knob-XXXXXX", path[PATH_MAX];
	struct knob_psched c = {0};
	FILE *f;

	REQUIRE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/net", dir);
	REQUIRE(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/net/psched", dir);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs("000003e8 00000040 000f4240 3b9aca00\n", f);
	fclose(f);
	CHECK_EQ(knob_psched_read(dir, &c), 0);
	CHECK_EQ(c.t2us, 1000);
	CHECK_EQ(c.us2t, 64);
	CHECK_EQ(c.clock_res, 1000000);
	CHECK_EQ(c.hz, 1000000000);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs("garbage\n", f);
	fclose(f);
	CHECK_EQ(knob_psched_read(dir, &c), -EINVAL);
	CHECK_EQ(c.hz, 1000000000); /* untouched */
	unlink(path);
	snprintf(path, sizeof(path), "%s/net", dir);
	rmdir(path);
	CHECK_EQ(knob_psched_read(dir, &c), -ENOENT);
	rmdir(dir);
}

/* ---- spec errors ---- */

static int request_error(const char *spec, unsigned ntxq, char *err, size_t errlen)
{
	static unsigned char buf[8192];

	return knob_qdisc_requests(spec, 3, ntxq, 1, 0, buf, sizeof(buf), err, errlen);
}

TEST(bad_specs_are_refused_with_the_word_named)
{
	static const struct {
		const char *spec, *named;
	} cases[] = {
	    {"", "empty"},
	    {"   ", "empty"},
	    {"sfq", "sfq"},
	    {"fq_codel quantom 300", "quantom"},
	    {"fq_codel limit", "limit"},
	    {"fq_codel limit abc", "abc"},
	    {"fq_codel target 5parsecs", "5parsecs"},
	    {"fq maxrate 40gbit", "40gbit"},
	    {"fq buckets 0", "0"},
	    {"cake bandwidth fast", "fast"},
	    {"cake overhead 3000000000", "3000000000"},
	    {"pfifo limit 0", "0"},
	    {"bfifo limit -5", "-5"},
	    {"pfifo_fast limit 5", "limit"},
	    {"htb fq_codel", "fq_codel"},
	    {"htb 95mbit", "htb"},
	    {"htb 0 fq_codel", "0"},
	    {"htb 95mbit htb 10mbit pfifo", "htb"},
	    {"mq", "mq"},
	    {"mq mq fq_codel", "mq"},
	    {"mq noqueue", "noqueue"},
	    {"default fq_codel", "default"},
	    {"other: htb 1: with 3 classes", "other:"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char err[160] = "";
		int r = request_error(cases[i].spec, 4, err, sizeof(err));

		if (!CHECK_EQ(r, -EINVAL) || !CHECK(strstr(err, cases[i].named)))
			fprintf(stderr, "    spec \"%s\": %d \"%s\"\n", cases[i].spec, r, err);
	}
}

TEST(mq_needs_tx_queues_and_room)
{
	char err[160] = "";
	unsigned char small[40];

	CHECK_EQ(request_error("mq fq_codel", 0, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "TX queues"));
	CHECK_EQ(
	    knob_qdisc_requests("mq fq_codel", 3, 4, 1, 0, small, sizeof(small), err, sizeof(err)),
	    -ENOSPC);
	CHECK_EQ(knob_txqueuelen_request(3, 100, 0, small, 20), -ENOSPC);
}

TEST(unknown_major_is_refused)
{
	static const struct knob_psched c = KNOB_PSCHED_STANDARD;
	unsigned char buf[256];
	char err[160];

	CHECK_EQ(
	    knob_qdisc_requests_at("pfifo", 3, 1, 1, 0, &c, 0, buf, sizeof(buf), err, sizeof(err)),
	    -EINVAL);
	CHECK_EQ(knob_qdisc_requests_at("pfifo", 3, 1, 1, 0x8001, &c, 0, buf, sizeof(buf), err,
					sizeof(err)),
		 -EINVAL);
	CHECK(knob_qdisc_requests_at("pfifo", 3, 1, 1, KNOB_ROOT_MAJOR_ALT, &c, 0, buf, sizeof(buf),
				     err, sizeof(err)) > 0);
}

/* ---- canonical spellings and comparing values ---- */

static void check_canonical(const char *spec, const char *want)
{
	char out[KNOB_VALUE_MAX] = "", err[160] = "";
	int r = knob_qdisc_canonical(spec, out, sizeof(out), err, sizeof(err));

	if (!CHECK_EQ(r, 0) || !CHECK_STR(out, want))
		fprintf(stderr, "    spec \"%s\" (%s)\n", spec, err);
}

TEST(canonical_spelling_drops_defaults_and_normalises_units)
{
	check_canonical("default", "default");
	check_canonical("fq_codel", "fq_codel");
	check_canonical("fq_codel limit 800 quantum 300 target 5ms interval 100ms ecn",
			"fq_codel limit 800 quantum 300");
	check_canonical("fq_codel target 5000us interval 0.2s noecn memory_limit 4194304",
			"fq_codel interval 200ms noecn memory_limit 4mb");
	check_canonical("fq_codel limit 10240 flows 1024 quantum 1514 target 5ms interval 100ms "
			"memory_limit 32Mb ecn drop_batch 64",
			"fq_codel quantum 1514");
	check_canonical("fq_codel ce_threshold 2ms ecn noecn", "fq_codel noecn ce_threshold 2ms");
	check_canonical("fq nopacing buckets 1000 maxrate 90mbit", "fq nopacing maxrate 90mbit");
	check_canonical("fq buckets 4096 horizon 10s horizon_cap", "fq buckets 4096 horizon_cap");
	check_canonical("cake bandwidth 95mbit lan diffserv3 triple-isolate",
			"cake bandwidth 95mbit rtt 1ms");
	check_canonical("cake unlimited", "cake");
	check_canonical("cake overhead 0 mpu 0 ack-filter no-split-gso",
			"cake overhead 0 no-split-gso ack-filter");
	check_canonical("cake overhead -10", "cake overhead -10");
	check_canonical("pfifo limit 100", "pfifo limit 100");
	check_canonical("bfifo limit 64kb", "bfifo limit 64kb");
	check_canonical("bfifo limit 1500", "bfifo limit 1500");
	check_canonical("pfifo_fast", "pfifo_fast");
	check_canonical("mq   fq_codel  limit 800", "mq fq_codel limit 800");
	check_canonical("htb 95000kbit fq_codel", "htb 95mbit fq_codel");
	check_canonical("htb 11875000bps cake bandwidth 90mbit",
			"htb 95mbit cake bandwidth 90mbit");
}

TEST(values_compare_by_meaning)
{
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "fq_codel target 5ms", "fq_codel"));
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "fq_codel target 5ms", "fq_codel target 5000us"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "fq_codel target 4ms", "fq_codel"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "fq_codel limit 800", "fq_codel"));
	/* quantum's default depends on the MTU: unspecified matches what was read */
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "fq_codel limit 800",
			       "fq_codel limit 800 quantum 1514"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "fq_codel quantum 300", "fq_codel quantum 1514"));
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "pfifo", "pfifo limit 1000"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "pfifo limit 100", "pfifo limit 1000"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "pfifo limit 100", "bfifo limit 100"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "mq fq_codel", "fq_codel"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "htb 95mbit fq_codel", "htb 90mbit fq_codel"));
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "htb 95mbit fq_codel", "htb 95000kbit fq_codel"));
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "default", "default"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "default", "pfifo_fast"));
	CHECK(knob_value_equal(KNOB_ROOT_QDISC, "other: tbf 8001:", "other: tbf 8001:"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "other: tbf 8001:", "other: tbf 8002:"));
	CHECK(!knob_value_equal(KNOB_ROOT_QDISC, "fq_codel quantom 3", "fq_codel quantom 3"));
	CHECK(knob_value_equal(KNOB_TXQUEUELEN, "100", "0100"));
	CHECK(!knob_value_equal(KNOB_TXQUEUELEN, "100", "1000"));
	CHECK(!knob_value_equal(KNOB_TXQUEUELEN, "x", "x"));
	CHECK(knob_value_equal(KNOB_BQL_LIMIT_MAX, "max", "1879048192"));
	CHECK(!knob_value_equal(KNOB_BQL_LIMIT_MAX, "max", "3000"));
	CHECK(knob_value_equal(KNOB_RING_TX, "64", "64"));
	CHECK(knob_value_equal(KNOB_OFFLOAD, "off", "off"));
	CHECK(!knob_value_equal(KNOB_OFFLOAD, "off", "on"));
	CHECK(knob_value_equal(KNOB_SYSCTL, "4096\t131072  6291456", "4096 131072 6291456 "));
	CHECK(!knob_value_equal(KNOB_SYSCTL, "4096 131072", "4096 13107"));
	CHECK(!knob_value_equal(KNOB_SYSCTL, "1", "11"));
	CHECK(knob_value_equal(KNOB_SYSCTL, "fq_codel", "fq_codel"));
}

/* ---- decoding what the kernel reports ---- */

static size_t put_u32_attr(unsigned char *buf, size_t off, uint16_t type, uint32_t v)
{
	struct nlattr a = {.nla_len = 8, .nla_type = type};

	memcpy(buf + off, &a, 4);
	memcpy(buf + off + 4, &v, 4);
	return off + 8;
}

static void decoded(const char *kind, const unsigned char *opts, size_t len, const char *want)
{
	struct qdisc_opts o;
	char words[KNOB_VALUE_MAX] = "";

	CHECK_EQ(qdisc_opts_decode(kind, opts, len, &o), 0);
	CHECK(qdisc_opts_format(&o, words, sizeof(words)) >= 0);
	CHECK_STR(words, want);
}

TEST(kernel_dumps_decode_to_rebuildable_words)
{
	unsigned char b[256];
	size_t n = 0;

	/* fq_codel as the kernel dumps a plain "tc qdisc add ... fq_codel" on Ethernet */
	n = put_u32_attr(b, n, TCA_FQ_CODEL_TARGET, 4999);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_LIMIT, 10240);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_INTERVAL, 99999);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_ECN, 1);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_QUANTUM, 1514);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_DROP_BATCH_SIZE, 64);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_MEMORY_LIMIT, 32u << 20);
	n = put_u32_attr(b, n, TCA_FQ_CODEL_FLOWS, 1024);
	decoded("fq_codel", b, n, "quantum 1514 interval 99999us target 4999us");

	/* cake in raw mode (no overhead ever set) reports overhead 0 and TCA_CAKE_RAW */
	n = 0;
	n = put_u32_attr(b, n, TCA_CAKE_OVERHEAD, 0);
	n = put_u32_attr(b, n, TCA_CAKE_FLOW_MODE, 7);
	n = put_u32_attr(b, n, TCA_CAKE_SPLIT_GSO, 1);
	n = put_u32_attr(b, n, TCA_CAKE_RTT, 100000);
	n = put_u32_attr(b, n, TCA_CAKE_TARGET, 5000);
	memcpy(b + n, &(struct nlattr){.nla_len = 4, .nla_type = TCA_CAKE_RAW}, 4);
	n += 4;
	decoded("cake", b, n, "");
	/* without the raw flag, overhead 0 was set on purpose */
	decoded("cake", b, n - 4, "overhead 0");

	/* pfifo: a bare struct tc_fifo_qopt */
	uint32_t limit = 100;
	decoded("pfifo", (const unsigned char *)&limit, sizeof(limit), "limit 100");
	decoded("pfifo_fast", NULL, 0, "");
}

TEST(undecodable_options_are_not_rebuildable)
{
	unsigned char b[64];
	struct qdisc_opts o;
	size_t n = 0;

	/* a CE threshold selector: set by no word we take */
	n = put_u32_attr(b, n, TCA_FQ_CODEL_CE_THRESHOLD, 1000);
	memcpy(b + n,
	       &(struct nlattr){.nla_len = 5, .nla_type = TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR}, 4);
	b[n + 4] = 0x1;
	memset(b + n + 5, 0, 3);
	n += 8;
	CHECK_EQ(qdisc_opts_decode("fq_codel", b, n, &o), -EOPNOTSUPP);
	/* a cake fwmark */
	n = put_u32_attr(b, 0, TCA_CAKE_FWMARK, 0xff);
	CHECK_EQ(qdisc_opts_decode("cake", b, n, &o), -EOPNOTSUPP);
	/* a flow mode no word names */
	n = put_u32_attr(b, 0, TCA_CAKE_FLOW_MODE, 9);
	CHECK_EQ(qdisc_opts_decode("cake", b, n, &o), -EOPNOTSUPP);
	/* malformed: an attribute longer than the buffer */
	n = put_u32_attr(b, 0, TCA_FQ_PLIMIT, 5);
	CHECK_EQ(qdisc_opts_decode("fq", b, n - 2, &o), -EBADMSG);
	CHECK_EQ(qdisc_opts_decode("pfifo", b, 2, &o), -EBADMSG);
}

/* ---- names ---- */

TEST(kind_names_round_trip)
{
	static const char *const names[] = {
	    "root-qdisc", "txqueuelen", "bql-limit-max", "ring-tx", "ring-rx",
	    "offload",	  "sysctl",	"gso-max-size",	 "ingress", "tx-usecs"};

	for (int i = 0; i < 10; i++) {
		CHECK_STR(knob_kind_name((enum knob_kind)i), names[i]);
		CHECK_EQ(knob_kind_from_name(names[i]), i);
	}
	CHECK_EQ(knob_kind_from_name("rings"), -EINVAL);
	CHECK_EQ(knob_kind_from_name(""), -EINVAL);
	CHECK_STR(knob_kind_name((enum knob_kind)42), "unknown");
}

TEST(describe_names_the_thing)
{
	struct knob k = {.kind = KNOB_ROOT_QDISC, .ifname = "eth0"};
	char buf[128];

	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 root qdisc");
	k.kind = KNOB_TXQUEUELEN;
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 txqueuelen");
	k.kind = KNOB_BQL_LIMIT_MAX;
	k.queue = 3;
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 tx-3 BQL limit_max");
	k.kind = KNOB_RING_TX;
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 TX ring");
	k.kind = KNOB_GSO_MAX_SIZE;
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 gso_max_size");
	k.kind = KNOB_RING_RX;
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 RX ring");
	k.kind = KNOB_OFFLOAD;
	snprintf(k.name, sizeof(k.name), "rx-gro");
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 offload rx-gro");
	k = (struct knob){.kind = KNOB_SYSCTL, .name = "net.ipv4.tcp_ecn"};
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "net.ipv4.tcp_ecn");
	k = (struct knob){.kind = KNOB_TX_USECS, .ifname = "eth0"};
	knob_describe(&k, buf, sizeof(buf));
	CHECK_STR(buf, "eth0 tx-usecs coalescing");
}

/* tx-usecs: numbers compare as numbers; a value that is none is refused before any
 * ioctl; loopback has no coalescing to read. */
TEST(tx_usecs_values)
{
	struct knob k = {.kind = KNOB_TX_USECS, .ifname = "lo"};
	char val[32], msg[160];

	CHECK(knob_value_equal(KNOB_TX_USECS, "64", "064"));
	CHECK(!knob_value_equal(KNOB_TX_USECS, "64", "65"));
	CHECK(!knob_value_equal(KNOB_TX_USECS, "x", "x"));
	CHECK_EQ(knob_write(&k, NULL, "64us", msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "microseconds") != NULL);
	CHECK_EQ(knob_read(&k, NULL, val, sizeof(val)), -EOPNOTSUPP);
	k.ifname[0] = '\0';
	CHECK_EQ(knob_read(&k, NULL, val, sizeof(val)), -ENODEV);
}

/* ---- knob_root_is_default ---- */

static struct qdisc make_qdisc(const char *kind, uint32_t handle, uint32_t parent)
{
	struct qdisc q = {.handle = handle, .parent = parent, .ifindex = 2};

	snprintf(q.kind, sizeof(q.kind), "%s", kind);
	return q;
}

static void add_opt(struct qdisc *q, const char *key, uint64_t v)
{
	q->options[q->noptions++] = value_uint(key, v, UNIT_NONE);
}

static struct qdisc fq_codel_defaults(uint32_t handle, uint32_t parent)
{
	struct qdisc q = make_qdisc("fq_codel", handle, parent);

	add_opt(&q, "limit_packets", 10240);
	add_opt(&q, "flows", 1024);
	add_opt(&q, "quantum_bytes", 1514);
	add_opt(&q, "target_us", 5000);
	add_opt(&q, "interval_us", 100000);
	add_opt(&q, "memory_limit_bytes", 32u << 20);
	q.options[q.noptions++] = value_bool("ecn", true);
	add_opt(&q, "drop_batch_packets", 64);
	return q;
}

TEST(kernel_choices_are_default)
{
	struct qdisc q;

	q = make_qdisc("noqueue", 0, TC_H_ROOT);
	CHECK(knob_root_is_default(&q, "fq_codel"));
	q = make_qdisc("noop", 0, TC_H_ROOT);
	CHECK(knob_root_is_default(&q, "pfifo_fast"));
	q = make_qdisc("pfifo_fast", 0, TC_H_ROOT);
	CHECK(knob_root_is_default(&q, "pfifo_fast"));
	/* someone's explicit pfifo_fast is theirs: deleting it would leave noqueue on a
	 * device whose own default is noqueue, so it is no default (it reads as a spec) */
	q = make_qdisc("pfifo_fast", 0x10000, TC_H_ROOT);
	CHECK(!knob_root_is_default(&q, NULL));
	/* a handle-0 qdisc is the kernel's own, whatever it is */
	q = make_qdisc("fq_codel", 0, TC_H_ROOT);
	add_opt(&q, "limit_packets", 800);
	CHECK(knob_root_is_default(&q, "fq_codel"));
	CHECK(knob_root_is_default(NULL, "pfifo_fast"));
}

TEST(default_kind_with_default_options_is_default)
{
	struct qdisc q = fq_codel_defaults(0x80010000, TC_H_ROOT);

	CHECK(knob_root_is_default(&q, "fq_codel"));
	/* ... but not when the default kind is another */
	CHECK(!knob_root_is_default(&q, "pfifo_fast"));
	CHECK(!knob_root_is_default(&q, NULL));
	q.options[0].u = 800; /* limit 800 */
	CHECK(!knob_root_is_default(&q, "fq_codel"));
	q = fq_codel_defaults(0x80010000, TC_H_ROOT);
	add_opt(&q, "ce_threshold_us", 1000);
	CHECK(!knob_root_is_default(&q, "fq_codel"));
	q = fq_codel_defaults(0x80010000, TC_H_ROOT);
	q.options_err = -EBADMSG;
	CHECK(!knob_root_is_default(&q, "fq_codel"));
	q = make_qdisc("pfifo", 0x10000, TC_H_ROOT);
	add_opt(&q, "limit_packets", 1000);
	CHECK(!knob_root_is_default(&q, "pfifo_fast"));
	q = make_qdisc("fq", 0x10000, TC_H_ROOT);
	CHECK(knob_root_is_default(&q, "fq")); /* no options reported: nothing differs */
	add_opt(&q, "maxrate_bps", 1000000);
	CHECK(!knob_root_is_default(&q, "fq"));
	q = make_qdisc("cake", 0x10000, TC_H_ROOT);
	CHECK(!knob_root_is_default(&q, "cake")); /* cake's defaults are not checked */
}

TEST(mq_is_default_when_its_children_are)
{
	struct qdisc root = make_qdisc("mq", 0, TC_H_ROOT);
	struct qdisc kids[4];

	for (int i = 0; i < 4; i++)
		kids[i] = make_qdisc("pfifo_fast", 0, (uint32_t)(i + 1));
	root.children = kids;
	root.nchildren = 4;
	CHECK(knob_root_is_default(&root, "pfifo_fast"));
	kids[2] = fq_codel_defaults(0x80030000, 3);
	CHECK(knob_root_is_default(&root, "fq_codel"));
	CHECK(!knob_root_is_default(&root, "pfifo_fast"));
	kids[2].options[1].u = 2048; /* flows */
	CHECK(!knob_root_is_default(&root, "fq_codel"));
	kids[2] = make_qdisc("pfifo", 0x30000, 3);
	CHECK(!knob_root_is_default(&root, "pfifo_fast"));
	root.nchildren = 0;
	CHECK(knob_root_is_default(&root, "pfifo_fast"));
}

TEST(classful_trees_are_not_default)
{
	struct qdisc root = make_qdisc("htb", 0x10000, TC_H_ROOT);
	struct qdisc leaf = make_qdisc("pfifo_fast", 0, 0x10001);

	CHECK(!knob_root_is_default(&root, "pfifo_fast"));
	root.children = &leaf;
	root.nchildren = 1;
	CHECK(!knob_root_is_default(&root, "pfifo_fast"));
	root = make_qdisc("tbf", 0x80010000, TC_H_ROOT);
	CHECK(!knob_root_is_default(&root, "pfifo_fast"));
}

/* ---- the file-backed knobs on a private tree ---- */

static char tree[64];

static void write_text(const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (char *p = path + strlen(tree) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0700);
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void read_text(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
}

static void make_tree(void)
{
	snprintf(tree, sizeof(tree), "/tmp/test-fix-knob-XXXXXX");
	if (!mkdtemp(tree))
		tree[0] = '\0';
	write_text("sys/class/net/eth9/queues/tx-0/byte_queue_limits/limit_max", "1879048192\n");
	write_text("sys/class/net/eth9/queues/tx-1/byte_queue_limits/limit_max", "3000\n");
	write_text("proc/sys/net/ipv4/tcp_ecn", "2\n");
	write_text("proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
}

static void remove_tree(void)
{
	char cmd[128];

	if (tree[0] && !strncmp(tree, "/tmp/test-fix-knob-", 19)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
		if (system(cmd) != 0)
			fprintf(stderr, "  could not remove %s\n", tree);
	}
}

TEST(bql_limit_max_reads_and_writes_sysfs)
{
	char sys[PATH_MAX], proc[PATH_MAX], val[64], msg[160], text[64];
	struct knob k = {.kind = KNOB_BQL_LIMIT_MAX, .ifname = "eth9"};
	struct knob_env env;

	make_tree();
	REQUIRE(tree[0]);
	snprintf(sys, sizeof(sys), "%s/sys", tree);
	snprintf(proc, sizeof(proc), "%s/proc", tree);
	env = (struct knob_env){.sysfs_root = sys, .proc_root = proc};
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "1879048192");
	k.queue = 1;
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "3000");
	CHECK_EQ(knob_write(&k, &env, "1514", msg, sizeof(msg)), 0);
	read_text("sys/class/net/eth9/queues/tx-1/byte_queue_limits/limit_max", text, sizeof(text));
	CHECK_STR(text, "1514");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "1514");
	CHECK_EQ(knob_write(&k, &env, "max", msg, sizeof(msg)), 0);
	read_text("sys/class/net/eth9/queues/tx-1/byte_queue_limits/limit_max", text, sizeof(text));
	CHECK_STR(text, "max");
	/* refused before anything is written */
	CHECK_EQ(knob_write(&k, &env, "lots", msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "lots"));
	CHECK_EQ(knob_write(&k, &env, "1879048193", msg, sizeof(msg)), -EINVAL);
	read_text("sys/class/net/eth9/queues/tx-1/byte_queue_limits/limit_max", text, sizeof(text));
	CHECK_STR(text, "max");
	k.queue = 7;
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -ENOENT);
	CHECK_EQ(knob_write(&k, &env, "3000", msg, sizeof(msg)), -ENOENT);
	snprintf(k.ifname, sizeof(k.ifname), "eth8");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -ENODEV);
	snprintf(k.ifname, sizeof(k.ifname), "..");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -ENODEV);
	k.ifname[0] = '\0';
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -ENODEV);
	remove_tree();
}

TEST(sysctls_read_and_write_proc_sys)
{
	char sys[PATH_MAX], proc[PATH_MAX], val[64], msg[160], text[64];
	struct knob k = {.kind = KNOB_SYSCTL, .name = "net.ipv4.tcp_ecn"};
	struct knob_env env;

	make_tree();
	REQUIRE(tree[0]);
	snprintf(sys, sizeof(sys), "%s/sys", tree);
	snprintf(proc, sizeof(proc), "%s/proc", tree);
	env = (struct knob_env){.sysfs_root = sys, .proc_root = proc};
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "2");
	CHECK_EQ(knob_write(&k, &env, "1", msg, sizeof(msg)), 0);
	read_text("proc/sys/net/ipv4/tcp_ecn", text, sizeof(text));
	CHECK_STR(text, "1");
	snprintf(k.name, sizeof(k.name), "net.ipv4.tcp_rmem");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "4096\t131072\t6291456");
	CHECK_EQ(knob_read(&k, &env, val, 8), -ENOSPC);
	snprintf(k.name, sizeof(k.name), "net.core.default_qdisc");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -ENOENT);
	CHECK_EQ(knob_write(&k, &env, "fq_codel", msg, sizeof(msg)), -ENOENT);
	snprintf(k.name, sizeof(k.name), "net/ipv4/tcp_ecn");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -EINVAL);
	snprintf(k.name, sizeof(k.name), "net..ipv4");
	CHECK_EQ(knob_write(&k, &env, "1", msg, sizeof(msg)), -EINVAL);
	snprintf(k.name, sizeof(k.name), "net.ipv4.tcp_ecn");
	CHECK_EQ(knob_write(&k, &env, "1\n2", msg, sizeof(msg)), -EINVAL);
	remove_tree();
}

/* ---- values refused before any I/O ---- */

TEST(bad_values_are_refused_before_anything_is_touched)
{
	struct knob k = {.kind = KNOB_ROOT_QDISC, .ifname = "lo"};
	char msg[160];

	CHECK_EQ(knob_write(&k, NULL, "other: htb 1: with 3 classes", msg, sizeof(msg)), -EINVAL);
	CHECK(msg[0]);
	CHECK_EQ(knob_write(&k, NULL, "fq_codel quantom 300", msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "quantom"));
	k.kind = KNOB_TXQUEUELEN;
	CHECK_EQ(knob_write(&k, NULL, "-1", msg, sizeof(msg)), -EINVAL);
	CHECK_EQ(knob_write(&k, NULL, "4294967296", msg, sizeof(msg)), -EINVAL);
	k.kind = KNOB_RING_TX;
	CHECK_EQ(knob_write(&k, NULL, "0", msg, sizeof(msg)), -EINVAL);
	k.kind = KNOB_OFFLOAD;
	snprintf(k.name, sizeof(k.name), "rx-gro");
	CHECK_EQ(knob_write(&k, NULL, "yes", msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "yes"));
	k.kind = (enum knob_kind)42;
	CHECK_EQ(knob_write(&k, NULL, "1", msg, sizeof(msg)), -EINVAL);
}

/* ---- reading this namespace (unprivileged: loopback is always there) ---- */

TEST(loopback_reads)
{
	struct knob k = {.kind = KNOB_ROOT_QDISC, .ifname = "lo"};
	char val[KNOB_VALUE_MAX];
	int r;

	r = knob_read(&k, NULL, val, sizeof(val));
	if (r == -EPERM || r == -EACCES || r == -EPROTONOSUPPORT || r == -EAFNOSUPPORT)
		SKIP("no rtnetlink here");
	REQUIRE_EQ(r, 0); /* val is undefined otherwise */
	/* lo has noqueue unless someone changed it; either way a rebuildable word */
	CHECK(val[0]);
	k.kind = KNOB_TXQUEUELEN;
	CHECK_EQ(knob_read(&k, NULL, val, sizeof(val)), 0);
	CHECK(val[0] >= '0' && val[0] <= '9');
	snprintf(k.ifname, sizeof(k.ifname), "nosuchif0");
	CHECK_EQ(knob_read(&k, NULL, val, sizeof(val)), -ENODEV);
	k.kind = KNOB_ROOT_QDISC;
	CHECK_EQ(knob_read(&k, NULL, val, sizeof(val)), -ENODEV);
	k.kind = KNOB_OFFLOAD;
	snprintf(k.name, sizeof(k.name), "rx-gro");
	CHECK_EQ(knob_read(&k, NULL, val, sizeof(val)), -ENODEV);
}

/* nl_request checks the whole sequence before sending any of it. */
TEST(nl_request_refuses_malformed_sequences)
{
	unsigned char buf[64] = {0};
	struct nlmsghdr h = {
	    .nlmsg_len = 16, .nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST};
	struct nl *nl;
	size_t done = 99;
	char msg[64] = "x";
	int r = nl_open(&nl);

	if (r < 0)
		SKIP("no rtnetlink here");
	memcpy(buf, &h, sizeof(h)); /* no NLM_F_ACK */
	CHECK_EQ(nl_request(nl, buf, 16, &done, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ(done, 0);
	CHECK_STR(msg, "");
	h.nlmsg_flags |= NLM_F_ACK;
	h.nlmsg_len = 200; /* longer than the buffer */
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(nl_request(nl, buf, 64, &done, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ(nl_request(nl, buf, 8, &done, msg, sizeof(msg)), -EINVAL);
	nl_close(nl);
}
