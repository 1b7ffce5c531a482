/* SPDX-License-Identifier: MIT */
/* test-lab-profile.c - the lab's profiles: built-ins, the text format, its errors, --set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debloat/dql.h"
#include "debloat/model.h"
#include "harness.h"
#include "lab/profile.h"

#define MBIT(n) ((uint64_t)(n)*1000000 / 8)
#define GBIT(n) ((uint64_t)(n)*1000000000 / 8)

static const char *const builtin_names[] = {
    "bbb-stock", "bbb-bql",	  "bbb-bql-fq",	   "bbb-bql-fq_codel", "gige-noqueue",
    "fifo100",	 "wandboard",	  "rpi3b",	   "rpi3bplus",	       "rpi4",
    "rpi5",	 "wandboard-bql", "rpi3bplus-bql",
};
#define NBUILTIN (sizeof(builtin_names) / sizeof(builtin_names[0]))

static char err[1024];

/* Parse text over defaults; return the result, the message in err. */
static int parse(struct lab_profile *p, const char *text, const char *file)
{
	lab_profile_defaults(p);
	err[0] = '\0';
	return lab_profile_parse(p, text, strlen(text), file, err, sizeof(err));
}

/* text must fail with exactly this message. */
static void expect_error(const char *text, const char *file, const char *msg, int line)
{
	struct lab_profile p;
	int ret = parse(&p, text, file);

	if (!CHECK_EQ(ret, -EINVAL) || !CHECK_STR(err, msg))
		fprintf(stderr, "  (expectation at line %d)\n", line);
}
#define EXPECT_ERROR(text, file, msg) expect_error(text, file, msg, __LINE__)

static void expect_ok(const char *text, int line)
{
	struct lab_profile p;

	if (!CHECK_EQ(parse(&p, text, "ok.conf"), 0))
		fprintf(stderr, "  (line %d: %s)\n", line, err);
}
#define EXPECT_OK(text) expect_ok(text, __LINE__)

static void load(struct lab_profile *p, const char *name)
{
	memset(p, 0x5a, sizeof(*p));
	err[0] = '\0';
	if (!CHECK_EQ(lab_profile_load(p, name, err, sizeof(err)), 0))
		fprintf(stderr, "  (%s: %s)\n", name, err);
}

/* ---- The built-in profiles ---- */

TEST(builtins_are_the_seeds_four_two_links_five_boards_and_two_bql_drivers)
{
	size_t n = 0;

	for (const struct lab_builtin_profile *b = lab_builtin_profiles; b->name; b++, n++) {
		REQUIRE(n < NBUILTIN);
		CHECK_STR(b->name, builtin_names[n]);
		CHECK(strlen(b->text) <= LAB_PROFILE_TEXT_MAX);
		CHECK(lab_profile_builtin_text(b->name) == b->text);
	}
	CHECK_EQ(n, NBUILTIN);
	CHECK(lab_profile_builtin_text("bbb-nope") == NULL);
}

TEST(bbb_stock_is_the_board_as_shipped)
{
	struct lab_profile p;

	load(&p, "bbb-stock");
	CHECK_STR(p.name, "bbb-stock");
	CHECK_EQ(p.rate_bps, MBIT(100));
	CHECK_EQ(p.mtu, 1500);
	CHECK_STR(p.qdisc, "pfifo_fast ring_batch 32");
	CHECK_EQ(p.txqueuelen, 1000);
	CHECK_EQ(p.gso, true);
	CHECK_EQ(p.tso, false);
	CHECK_EQ(p.ring, 128);
	CHECK_EQ(p.bql, false);
	CHECK_EQ(p.bql_limit_min, 0);
	CHECK_EQ(p.bql_limit_max, 1879048192);
	CHECK_EQ(p.bql_hold_ns, 1000000000);
	CHECK_EQ(p.completion_frames, 1);
	CHECK_EQ(p.completion_ns, 0);
	CHECK_EQ(p.delay_ns, 100000);
	CHECK_EQ(p.switch_rate_bps, GBIT(1));
	CHECK_EQ(p.switch_buffer_bytes, 128 * 1024);
	CHECK_EQ(p.tsq_bytes, 0);
	CHECK_EQ(p.client_rate_bps, GBIT(1));
	CHECK_STR(p.client_qdisc, "fq_codel");
	CHECK_EQ(p.client_ring, 256);
	CHECK_EQ(p.board_port_buffer_bytes, 128 * 1024);
	CHECK_STR(p.cc, "cubic");
	CHECK(strstr(p.description, "BeagleBone Black") != NULL);
}

TEST(defaults_are_bbb_stock)
{
	struct lab_profile d, p;

	lab_profile_defaults(&d);
	load(&p, "bbb-stock");
	CHECK(memcmp(&d, &p, sizeof(d)) == 0);
	CHECK_STR(d.description, p.description);
}

/* The bbb-* profiles differ from bbb-stock in exactly the fields named. */
static void expect_stock_but(const struct lab_profile *p, bool bql, const char *qdisc)
{
	struct lab_profile want;

	lab_profile_defaults(&want);
	want.bql = bql;
	memset(want.qdisc, 0, sizeof(want.qdisc));
	strcpy(want.qdisc, qdisc);
	memcpy(want.name, p->name, sizeof(want.name));
	memcpy(want.description, p->description, sizeof(want.description));
	CHECK(memcmp(&want, p, sizeof(want)) == 0);
}

TEST(bbb_bql_profiles_change_one_thing_each)
{
	struct lab_profile p;

	load(&p, "bbb-bql");
	CHECK_STR(p.name, "bbb-bql");
	CHECK_EQ(p.bql, true);
	expect_stock_but(&p, true, "pfifo_fast ring_batch 32");
	load(&p, "bbb-bql-fq");
	CHECK_STR(p.name, "bbb-bql-fq");
	CHECK_STR(p.qdisc, "fq");
	expect_stock_but(&p, true, "fq");
	load(&p, "bbb-bql-fq_codel");
	CHECK_STR(p.name, "bbb-bql-fq_codel");
	CHECK_STR(p.qdisc, "fq_codel");
	expect_stock_but(&p, true, "fq_codel");
	CHECK(strcmp(p.description, "") != 0);
}

/*
 * A board's BQL driver is its stock profile with BQL on and fq_codel at the root (as
 * those boards ship): the ring, the URBs, the completions and the shared ceiling stay,
 * so the lab's third column differs from the first in the driver alone.
 */
TEST(board_bql_profiles_are_their_stock_with_bql_on)
{
	static const char *const pairs[][2] = {{"wandboard-bql", "wandboard"},
					       {"rpi3bplus-bql", "rpi3bplus"}};
	struct lab_profile p, want;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		load(&p, pairs[i][0]);
		load(&want, pairs[i][1]);
		CHECK_STR(p.name, pairs[i][0]);
		CHECK_EQ(p.bql, true);
		CHECK_EQ(want.bql, false);
		CHECK_STR(p.qdisc, "fq_codel");
		CHECK(p.ceiling_bps > 0 && p.ceiling_shared);
		want.bql = true;
		memset(want.qdisc, 0, sizeof(want.qdisc));
		strcpy(want.qdisc, "fq_codel");
		memcpy(want.name, p.name, sizeof(want.name));
		memcpy(want.description, p.description, sizeof(want.description));
		CHECK(memcmp(&want, &p, sizeof(want)) == 0);
		CHECK(strstr(p.description, "BQL") != NULL);
	}
	/* per-frame completions on the fec, per URB on the lan78xx */
	load(&p, "wandboard-bql");
	CHECK_EQ(p.completion_frames, 1);
	CHECK_EQ(p.urb_bytes, 0);
	load(&p, "rpi3bplus-bql");
	CHECK(p.urb_bytes > 0);
}

TEST(gige_noqueue_adds_no_queueing)
{
	struct lab_profile p;

	load(&p, "gige-noqueue");
	CHECK_EQ(p.rate_bps, GBIT(1));
	CHECK_STR(p.qdisc, "pfifo limit 10000");
	CHECK_EQ(p.gso, true);
	CHECK_EQ(p.tso, true);
	CHECK_EQ(p.ring, 1024);
	CHECK_EQ(p.bql, true);
	CHECK_EQ(p.completion_frames, 1);
	CHECK_EQ(p.completion_ns, 0);
	CHECK_EQ(p.delay_ns, 0);
	CHECK_EQ(p.switch_rate_bps, GBIT(10));
	CHECK(p.switch_buffer_bytes >= 16u << 20);
	CHECK(p.board_port_buffer_bytes >= 16u << 20);
	CHECK_STR(p.client_qdisc, "pfifo limit 10000");
	CHECK_EQ(p.tsq_bytes, 0);
}

TEST(fifo100_is_the_fidelity_link)
{
	struct lab_profile p;

	load(&p, "fifo100");
	CHECK_EQ(p.rate_bps, MBIT(100));
	CHECK_STR(p.qdisc, "pfifo limit 1000");
	CHECK_EQ(p.bql, false);
	CHECK_EQ(p.gso, false);
	CHECK_EQ(p.tso, false);
	CHECK_EQ(p.ring, 128);
	CHECK_EQ(p.completion_frames, 1);
	CHECK_EQ(p.delay_ns, 0);
}

TEST(every_builtin_passes_the_check_and_its_qdiscs_build)
{
	char spec[LAB_SPEC_MAX + 32];
	struct lab_profile p;

	for (size_t i = 0; i < NBUILTIN; i++) {
		struct db_qdisc *q = NULL;
		load(&p, builtin_names[i]);
		CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), 0);
		REQUIRE(lab_profile_qdisc_spec(&p, spec, sizeof(spec)) > 0);
		CHECK_EQ(db_qdisc_create(spec, NULL, &q, err, sizeof(err)), 0);
		db_qdisc_destroy(q);
	}
}

/* ---- describe ---- */

TEST(describe_says_what_a_run_models)
{
	struct lab_profile p;
	char buf[512];

	load(&p, "bbb-stock");
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(
	    buf, "100mbit, qdisc pfifo_fast ring_batch 32, txqueuelen 1000, GSO, ring 128, no BQL, "
		 "completions every frame, delay 100us, switch 1gbit 128KB, "
		 "board port 128KB, no TSQ");
	load(&p, "bbb-bql-fq_codel");
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "100mbit, qdisc fq_codel, GSO, ring 128, BQL, completions every frame, "
		       "delay 100us, switch 1gbit 128KB, board port 128KB, no TSQ");
	load(&p, "gige-noqueue");
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "1gbit, qdisc pfifo limit 10000, GSO+TSO, ring 1024, BQL, completions every "
		       "frame, no delay, switch 10gbit 16MB, board port 16MB, no TSQ");
	load(&p, "fifo100");
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, ", no GSO, ") != NULL);
	CHECK(strstr(buf, "txqueuelen") == NULL);
}

TEST(describe_names_bql_clamps_tsq_and_mtu)
{
	struct lab_profile p;
	char buf[512];

	load(&p, "bbb-bql");
	REQUIRE_EQ(lab_profile_set_word(&p, "tsq=3028", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_word(&p, "bql_limit_min=3028", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_word(&p, "bql_hold_time=500ms", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_word(&p, "mtu=1400", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_word(&p, "completion_time=250us", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_word(&p, "completion_frames=2", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_word(&p, "switch_buffer=3000", err, sizeof(err)), 0);
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(
	    buf,
	    "100mbit, mtu 1400, qdisc pfifo_fast ring_batch 32, txqueuelen 1000, GSO, ring 128, "
	    "BQL 3028..max hold 500ms, completions every 2 frames or 250us, delay "
	    "100us, switch 1gbit 3000B, board port 128KB, TSQ 3028 bytes");
	REQUIRE_EQ(lab_profile_set_word(&p, "bql_limit_max=6056", err, sizeof(err)), 0);
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "BQL 3028..6056 hold 500ms") != NULL);
	CHECK_EQ(lab_profile_describe(&p, buf, 20), -ENOSPC);
	CHECK_EQ(lab_profile_describe(&p, buf, 0), -ENOSPC);
}

TEST(qdisc_takes_txqueuelen_like_linux)
{
	struct lab_profile p;
	char buf[LAB_SPEC_MAX + 32];

	CHECK(lab_qdisc_takes_txqueuelen("pfifo_fast"));
	CHECK(lab_qdisc_takes_txqueuelen("pfifo"));
	CHECK(lab_qdisc_takes_txqueuelen(" pfifo_fast priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1"));
	CHECK(!lab_qdisc_takes_txqueuelen("pfifo_fast txqueuelen 10"));
	CHECK(!lab_qdisc_takes_txqueuelen("pfifo limit 10"));
	CHECK(!lab_qdisc_takes_txqueuelen("bfifo"));
	CHECK(!lab_qdisc_takes_txqueuelen("fq_codel limit 1000"));
	CHECK(!lab_qdisc_takes_txqueuelen("pfifo_fastx"));

	lab_profile_defaults(&p);
	p.txqueuelen = 64;
	CHECK(lab_profile_qdisc_spec(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "pfifo_fast ring_batch 32 txqueuelen 64");
	strcpy(p.qdisc, "pfifo");
	CHECK(lab_profile_qdisc_spec(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "pfifo limit 64");
	strcpy(p.qdisc, "fq_codel target 5ms");
	CHECK(lab_profile_qdisc_spec(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "fq_codel target 5ms");
	CHECK_EQ(lab_profile_qdisc_spec(&p, buf, 5), -ENOSPC);
}

/* ---- The text format ---- */

TEST(comments_blanks_and_crlf_are_ignored)
{
	struct lab_profile p;
	const char *text = "# a comment\n"
			   "\n"
			   "   \t\n"
			   "  rate\t=\t10mbit   # trailing comment\r\n"
			   "ring=8\n"
			   "qdisc = fq_codel   limit 100  target 5ms\n"
			   "gso = No\n"
			   "tso = TRUE\n"
			   "bql = 1\n"
			   "bql_limit_max = 3028\n"
			   "delay = 2ms"; /* no newline at the end */

	REQUIRE_EQ(parse(&p, text, "ok.conf"), 0);
	CHECK_EQ(p.rate_bps, MBIT(10));
	CHECK_EQ(p.ring, 8);
	CHECK_STR(p.qdisc, "fq_codel   limit 100  target 5ms");
	CHECK_EQ(p.gso, false);
	CHECK_EQ(p.tso, true);
	CHECK_EQ(p.bql, true);
	CHECK_EQ(p.bql_limit_max, 3028);
	CHECK_EQ(p.delay_ns, 2000000);
	CHECK_EQ(p.mtu, 1500); /* untouched: the defaults */
}

TEST(every_boolean_spelling)
{
	const char *on[] = {"on", "yes", "true", "1", "ON", "Yes"};
	const char *off[] = {"off", "no", "false", "0", "OFF", "False"};
	struct lab_profile p;
	char text[64];

	for (size_t i = 0; i < 6; i++) {
		snprintf(text, sizeof(text), "bql = %s\n", on[i]);
		CHECK_EQ(parse(&p, text, "b.conf"), 0);
		CHECK_EQ(p.bql, true);
		snprintf(text, sizeof(text), "gso = %s\n", off[i]);
		CHECK_EQ(parse(&p, text, "b.conf"), 0);
		CHECK_EQ(p.gso, false);
	}
}

TEST(name_comes_from_the_file_unless_set)
{
	struct lab_profile p;

	CHECK_EQ(parse(&p, "ring = 8\n", "some/dir/my-board.conf"), 0);
	CHECK_STR(p.name, "my-board");
	CHECK_EQ(parse(&p, "ring = 8\n", "odd name!.conf"), 0);
	CHECK_STR(p.name, "odd_name_");
	CHECK_EQ(parse(&p, "name = lab1\nring = 8\n", "some/dir/my-board.conf"), 0);
	CHECK_STR(p.name, "lab1");
	CHECK_EQ(parse(&p, "ring = 8\n", NULL), 0);
	CHECK_STR(p.name, "bbb-stock"); /* defaults' */
	CHECK_EQ(parse(&p, "description = \n", "x.conf"), 0);
	CHECK_STR(p.description, "");
}

TEST(limits_are_inclusive)
{
	EXPECT_OK("rate = 1kbit\nswitch_rate = 100gbit\nclient_rate = 1000bit\n");
	EXPECT_OK("ring = 1\nclient_ring = 4096\n");
	EXPECT_OK("mtu = 68\n");
	EXPECT_OK("mtu = 9000\nswitch_buffer = 16kb\nboard_port_buffer = 9014\n");
	EXPECT_OK("txqueuelen = 1\n");
	EXPECT_OK("txqueuelen = 100000\n");
	EXPECT_OK("delay = 10s\ncompletion_time = 1s\nbql_hold_time = 10s\n");
	EXPECT_OK("switch_buffer = 1gb\nboard_port_buffer = 1024mb\ntsq = 1gb\n");
	EXPECT_OK("completion_time = 1ms\ncompletion_frames = 4096\n");
	EXPECT_OK("bql_limit_min = 1879048192\nbql_limit_max = max\n");
	EXPECT_OK("bql_limit_min = 0\nbql_limit_max = 0\n");
	EXPECT_OK("cc = bbr\n");
}

/* ---- Errors: file, line, key, and the bad value quoted ---- */

TEST(unknown_key_names_file_line_and_key)
{
	EXPECT_ERROR("# x\n\n\n\n\nrate = 10mbit\nrign = 8\n", "profiles/x.conf",
		     "profiles/x.conf:7: unknown key \"rign\"");
	EXPECT_ERROR("Rate = 10mbit\n", "x.conf", "x.conf:1: unknown key \"Rate\"");
}

TEST(bad_values_name_the_key_and_quote_the_value)
{
	EXPECT_ERROR("\n\nrate = fast\n", "x.conf",
		     "x.conf:3: rate: \"fast\" is not a rate (e.g. 100mbit)");
	EXPECT_ERROR("switch_rate = 500bit\n", "x.conf",
		     "x.conf:1: switch_rate: \"500bit\" is out of range (1kbit..100gbit)");
	EXPECT_ERROR("client_rate = 101gbit\n", "x.conf",
		     "x.conf:1: client_rate: \"101gbit\" is out of range (1kbit..100gbit)");
	EXPECT_ERROR("ring = many\n", "x.conf", "x.conf:1: ring: \"many\" is not a number");
	EXPECT_ERROR("ring = 0\n", "x.conf", "x.conf:1: ring: \"0\" is out of range (1..4096)");
	EXPECT_ERROR("client_ring = 4097\n", "x.conf",
		     "x.conf:1: client_ring: \"4097\" is out of range (1..4096)");
	EXPECT_ERROR("mtu = 67\n", "x.conf", "x.conf:1: mtu: \"67\" is out of range (68..9000)");
	EXPECT_ERROR("mtu = 9001\n", "x.conf",
		     "x.conf:1: mtu: \"9001\" is out of range (68..9000)");
	EXPECT_ERROR("txqueuelen = 0\n", "x.conf",
		     "x.conf:1: txqueuelen: \"0\" is out of range (1..100000)");
	EXPECT_ERROR("txqueuelen = 100001\n", "x.conf",
		     "x.conf:1: txqueuelen: \"100001\" is out of range (1..100000)");
	EXPECT_ERROR("completion_frames = 0\n", "x.conf",
		     "x.conf:1: completion_frames: \"0\" is out of range (1..4096)");
	EXPECT_ERROR("delay = 11s\n", "x.conf",
		     "x.conf:1: delay: \"11s\" is out of range (0..10s)");
	EXPECT_ERROR("delay = soon\n", "x.conf",
		     "x.conf:1: delay: \"soon\" is not a time (e.g. 250us)");
	EXPECT_ERROR("completion_time = 2s\n", "x.conf",
		     "x.conf:1: completion_time: \"2s\" is out of range (0..1s)");
	EXPECT_ERROR("switch_buffer = 1025mb\n", "x.conf",
		     "x.conf:1: switch_buffer: \"1025mb\" is out of range (0..1gb)");
	EXPECT_ERROR("board_port_buffer = lots\n", "x.conf",
		     "x.conf:1: board_port_buffer: \"lots\" is not a size (e.g. 128kb)");
	EXPECT_ERROR("tsq = -1\n", "x.conf", "x.conf:1: tsq: \"-1\" is not a size (e.g. 128kb)");
	EXPECT_ERROR("bql_limit_max = huge\n", "x.conf",
		     "x.conf:1: bql_limit_max: \"huge\" is not a size (e.g. 3028, or max)");
	EXPECT_ERROR("bql_limit_min = 2gb\n", "x.conf",
		     "x.conf:1: bql_limit_min: \"2gb\" is out of range (0..1879048192)");
	EXPECT_ERROR("gso = maybe\n", "x.conf",
		     "x.conf:1: gso: \"maybe\" is not a boolean (on/off, yes/no, true/false, 1/0)");
	EXPECT_ERROR("rate =\n", "x.conf", "x.conf:1: rate: \"\" is not a rate (e.g. 100mbit)");
	EXPECT_ERROR("name = my board\n", "x.conf",
		     "x.conf:1: name: \"my board\" is not a profile name (letters, digits, ._+-)");
	EXPECT_ERROR("cc = cu bic\n", "x.conf",
		     "x.conf:1: cc: \"cu bic\" is not a congestion control name (e.g. cubic)");
	EXPECT_ERROR("cc = averyveryverylongname\n", "x.conf",
		     "x.conf:1: cc: longer than 15 bytes");
}

TEST(qdisc_errors_are_the_librarys)
{
	char want[600], lib[400];
	struct db_qdisc *q = NULL;

	CHECK_EQ(db_qdisc_create("sfq", NULL, &q, lib, sizeof(lib)), -ENOENT);
	snprintf(want, sizeof(want), "x.conf:2: qdisc: %s", lib);
	EXPECT_ERROR("\nqdisc = sfq\n", "x.conf", want);
	CHECK(strstr(want, "unknown qdisc \"sfq\" (known: ") != NULL);

	CHECK_EQ(db_qdisc_create("fq_codel quantom 300", NULL, &q, lib, sizeof(lib)), -EINVAL);
	snprintf(want, sizeof(want), "x.conf:1: client_qdisc: %s", lib);
	EXPECT_ERROR("client_qdisc = fq_codel quantom 300\n", "x.conf", want);
	CHECK(strstr(want, "quantom") != NULL);

	EXPECT_ERROR("qdisc =\n", "x.conf", "x.conf:1: qdisc: empty qdisc spec");
}

TEST(format_errors_name_the_line)
{
	char longline[LAB_PROFILE_LINE_MAX + 40];
	char big[LAB_PROFILE_TEXT_MAX + 10];
	struct lab_profile p;

	EXPECT_ERROR("ring 8\n", "x.conf", "x.conf:1: expected \"key = value\", got \"ring 8\"");
	EXPECT_ERROR("\n= 8\n", "x.conf", "x.conf:2: expected \"key = value\", got no key");
	EXPECT_ERROR("ring = 8\nrate = 1gbit\nring = 16\n", "x.conf",
		     "x.conf:3: ring: already set on line 1");
	EXPECT_ERROR("description = a\tb\x01\n", "x.conf",
		     "x.conf:1: description: a value cannot contain control characters");

	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "description = ", 14);
	longline[LAB_PROFILE_LINE_MAX + 1] = '\0';
	EXPECT_ERROR(longline, "x.conf", "x.conf:1: line longer than 1024 bytes");
	longline[LAB_PROFILE_LINE_MAX] = '\0'; /* 1024 bytes: the line fits, the value not */
	EXPECT_ERROR(longline, "x.conf", "x.conf:1: description: longer than 255 bytes");

	memset(big, '#', sizeof(big));
	for (size_t i = 80; i < sizeof(big); i += 81)
		big[i] = '\n';
	lab_profile_defaults(&p);
	if (!CHECK_EQ(lab_profile_parse(&p, big, LAB_PROFILE_TEXT_MAX, "x.conf", err, sizeof(err)),
		      0))
		fprintf(stderr, "  (%s)\n", err);
	CHECK_EQ(lab_profile_parse(&p, big, LAB_PROFILE_TEXT_MAX + 1, "x.conf", err, sizeof(err)),
		 -EINVAL);
	CHECK_STR(err, "x.conf: longer than 8192 bytes");

	lab_profile_defaults(&p);
	CHECK_EQ(lab_profile_parse(&p, "ring = 8\nri\0g = 9\n", 18, "x.conf", err, sizeof(err)),
		 -EINVAL);
	CHECK_STR(err, "x.conf:2: line contains a NUL byte");
	CHECK_EQ(lab_profile_parse(&p, "ring = 8", 8, NULL, err, sizeof(err)), 0);
	CHECK_EQ(lab_profile_parse(&p, "ring = 0", 8, NULL, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "<profile>:1: ring: \"0\" is out of range (1..4096)");
}

TEST(rules_across_keys_name_the_later_line)
{
	EXPECT_ERROR("completion_frames = 2\n", "x.conf",
		     "x.conf:1: completion_frames 2 needs completion_time > 0 or "
		     "completion_empty = on (a batch that does not fill would never be reported)");
	EXPECT_ERROR("completion_time = 0\n\ncompletion_frames = 4\n", "x.conf",
		     "x.conf:3: completion_frames 4 needs completion_time > 0 or "
		     "completion_empty = on (a batch that does not fill would never be reported)");
	EXPECT_OK("completion_time = 0\ncompletion_frames = 1\n");
	/* no timer, as bcmgenet: every 10 frames or when the ring runs empty */
	EXPECT_OK("completion_time = 0\ncompletion_frames = 10\ncompletion_empty = on\n");
	EXPECT_ERROR("completion_empty = off\ncompletion_frames = 10\n", "x.conf",
		     "x.conf:2: completion_frames 10 needs completion_time > 0 or "
		     "completion_empty = on (a batch that does not fill would never be reported)");
	EXPECT_ERROR("bql_limit_max = 3028\nbql_limit_min = 3029\n", "x.conf",
		     "x.conf:2: bql_limit_min 3029 is above bql_limit_max 3028");
	EXPECT_OK("bql_limit_max = 3028\nbql_limit_min = 3028\n"); /* pinned, as in sysfs */
	EXPECT_ERROR(
	    "switch_buffer = 1513\n", "x.conf",
	    "x.conf:1: switch_buffer 1513 is smaller than one frame (1514 bytes at mtu 1500)");
	EXPECT_ERROR(
	    "board_port_buffer = 8kb\nmtu = 9000\n", "x.conf",
	    "x.conf:2: board_port_buffer 8192 is smaller than one frame (9014 bytes at mtu 9000)");
	EXPECT_OK("switch_buffer = 1514\n");
}

/* ---- --set ---- */

TEST(set_applies_one_override_with_the_same_checks)
{
	struct lab_profile p, before;

	lab_profile_defaults(&p);
	CHECK_EQ(lab_profile_set(&p, "ring", "8", err, sizeof(err)), 0);
	CHECK_EQ(p.ring, 8);
	CHECK_EQ(lab_profile_set(&p, "qdisc", "  fq_codel limit 100 ", err, sizeof(err)), 0);
	CHECK_STR(p.qdisc, "fq_codel limit 100");
	CHECK_EQ(lab_profile_set_word(&p, "tsq=3028", err, sizeof(err)), 0);
	CHECK_EQ(p.tsq_bytes, 3028);
	CHECK_EQ(lab_profile_set_word(&p, " rate = 10mbit ", err, sizeof(err)), 0);
	CHECK_EQ(p.rate_bps, MBIT(10));
	CHECK_EQ(lab_profile_set_word(&p, "description=a=b", err, sizeof(err)), 0);
	CHECK_STR(p.description, "a=b");

	memcpy(&before, &p, sizeof(p));
	CHECK_EQ(lab_profile_set_word(&p, "rign=8", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set rign=8: unknown key \"rign\"");
	CHECK_EQ(lab_profile_set(&p, "rate", "fast", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set rate=fast: rate: \"fast\" is not a rate (e.g. 100mbit)");
	CHECK_EQ(lab_profile_set_word(&p, "ring", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set ring: expected key=value");
	CHECK_EQ(lab_profile_set_word(&p, "completion_frames=2", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set completion_frames=2: completion_frames 2 needs completion_time > 0 "
		       "or completion_empty = on (a batch that does not fill would never be "
		       "reported)");
	CHECK_EQ(lab_profile_set_word(&p, "description=a # b", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set description=a # b: description: a value cannot contain '#' (it "
		       "starts a comment)");
	CHECK_EQ(lab_profile_set_word(&p, "base=bbb-bql", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "--set base=bbb-bql: base can only be set in a profile file") == err);
	CHECK_EQ(lab_profile_set_word(&p, "qdisc=sfq", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "--set qdisc=sfq: qdisc: unknown qdisc \"sfq\"") == err);
	CHECK(memcmp(&before, &p, sizeof(p)) == 0); /* untouched by every failure */

	/* Order matters only for the rules across keys: time first, then frames. */
	CHECK_EQ(lab_profile_set_word(&p, "completion_time=250us", err, sizeof(err)), 0);
	CHECK_EQ(lab_profile_set_word(&p, "completion_frames=2", err, sizeof(err)), 0);
	CHECK_EQ(p.completion_ns, 250000);
}

TEST(set_words_check_the_rules_once_over_all_overrides)
{
	const char *frames_first[] = {"completion_frames=8", "completion_time=1ms"};
	const char *time_first[] = {"completion_time=1ms", "completion_frames=8"};
	const char *broken[] = {"ring=64", "completion_frames=8", "mtu=1400"};
	const char *min_max[] = {"bql_limit_min=9000", "ring=32", "bql_limit_max=6000", "tsq=3028"};
	const char *bad_key[] = {"completion_time=1ms", "rign=8"};
	const char *last_wins[] = {"ring=64", "ring=16"};
	struct lab_profile p, q, before;

	lab_profile_defaults(&p);
	memcpy(&q, &p, sizeof(p));
	REQUIRE_EQ(lab_profile_set_words(&p, frames_first, 2, err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set_words(&q, time_first, 2, err, sizeof(err)), 0);
	CHECK_EQ(p.completion_frames, 8);
	CHECK_EQ(p.completion_ns, 1000000);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0); /* the order does not matter */

	lab_profile_defaults(&p);
	memcpy(&before, &p, sizeof(p));
	CHECK_EQ(lab_profile_set_words(&p, broken, 3, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set completion_frames=8: completion_frames 8 needs completion_time > 0 "
		       "or completion_empty = on (a batch that does not fill would never be "
		       "reported)");
	CHECK_EQ(lab_profile_set_words(&p, min_max, 4, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set bql_limit_max=6000: bql_limit_min 9000 is above bql_limit_max 6000");
	CHECK_EQ(lab_profile_set_words(&p, bad_key, 2, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--set rign=8: unknown key \"rign\"");
	CHECK(memcmp(&before, &p, sizeof(p)) == 0); /* untouched by every failure */

	CHECK_EQ(lab_profile_set_words(&p, last_wins, 2, err, sizeof(err)), 0);
	CHECK_EQ(p.ring, 16);
	CHECK_EQ(lab_profile_set_words(&p, NULL, 0, err, sizeof(err)), 0);
	CHECK_EQ(p.ring, 16);
}

/* ---- base ---- */

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!CHECK(f != NULL))
		return;
	fputs(text, f);
	fclose(f);
}

static bool make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test-lab-profile-XXXXXX");
	return mkdtemp(dir) != NULL;
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
}

TEST(base_loads_a_builtin_then_overrides)
{
	struct lab_profile p;

	/* Whatever p held, base starts from the defaults. */
	lab_profile_defaults(&p);
	p.ring = 7;
	strcpy(p.cc, "reno");
	const char *text = "# hi\nbase = bbb-bql-fq\nring = 16\n";
	REQUIRE_EQ(lab_profile_parse(&p, text, strlen(text), "mine.conf", err, sizeof(err)), 0);
	CHECK_EQ(p.bql, true);
	CHECK_STR(p.qdisc, "fq");
	CHECK_EQ(p.ring, 16);
	CHECK_STR(p.cc, "cubic");
	CHECK_STR(p.name, "mine");
	CHECK(strstr(p.description, "fq") != NULL); /* inherited */

	EXPECT_ERROR("base = bbb-stock\nbase = bbb-bql\n", "x.conf",
		     "x.conf:2: base: given twice (first on line 1)");
	EXPECT_ERROR("ring = 8\nbase = bbb-bql\n", "x.conf",
		     "x.conf:2: base: must come before any setting (line 1 sets one)");
	EXPECT_ERROR(
	    "base = nope\n", "x.conf",
	    "x.conf:1: base: no profile \"nope\" (built-in: bbb-stock, bbb-bql, bbb-bql-fq, "
	    "bbb-bql-fq_codel, gige-noqueue, fifo100, wandboard, rpi3b, rpi3bplus, rpi4, "
	    "rpi5, wandboard-bql, rpi3bplus-bql)");
	EXPECT_ERROR("base =\n", "x.conf", "x.conf:1: base: empty value");
	/* A built-in cannot be its own base: the name is its identity. */
	EXPECT_ERROR("base = bbb-bql\n", "bbb-bql", "bbb-bql:1: base: cycle: bbb-bql -> bbb-bql");
}

TEST(base_files_nest_four_deep_relative_to_the_file)
{
	struct lab_profile p;
	char path[128];

	if (!make_dir())
		SKIP("no /tmp");
	write_file("b1.conf", "base = b2.conf\nring = 1\n");
	write_file("b2.conf", "base = b3.conf\nring = 2\nmtu = 1400\n");
	write_file("b3.conf", "base = b4.conf\nring = 3\ndelay = 3ms\n");
	write_file("b4.conf", "base = bbb-stock\nring = 4\ntsq = 4kb\nbql = on\n");
	write_file("top.conf", "base = b1.conf\ncc = reno\n");

	/* b1 -> b2 -> b3 -> b4 -> bbb-stock: four bases; from top.conf, five. */
	snprintf(path, sizeof(path), "%s/b1.conf", dir);
	load(&p, path);
	CHECK_EQ(p.ring, 1);
	CHECK_EQ(p.mtu, 1400);
	CHECK_EQ(p.delay_ns, 3000000);
	CHECK_EQ(p.tsq_bytes, 4096);
	CHECK_EQ(p.bql, true);
	CHECK_STR(p.name, "b1");

	snprintf(path, sizeof(path), "%s/top.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	char want[256];
	snprintf(want, sizeof(want), "%s/b4.conf:1: base: bases nest deeper than 4", dir);
	CHECK_STR(err, want);
	remove_dir();
}

TEST(base_cycles_and_unreadable_bases_are_errors)
{
	struct lab_profile p;
	char path[128], want[512];

	if (!make_dir())
		SKIP("no /tmp");
	write_file("a.conf", "base = b.conf\n");
	write_file("b.conf", "\nbase = a.conf\n");
	write_file("c.conf", "base = missing.conf\n");
	write_file("d.conf", "base = /dev/null\n");
	write_file("e.conf", "base = bad.conf\n");
	write_file("bad.conf", "ring = 8\n\nrign = 9\n");
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	CHECK_EQ(mkfifo(path, 0600), 0);
	write_file("f.conf", "base = fifo.conf\n");
	snprintf(path, sizeof(path), "%s/sub.conf", dir);
	CHECK_EQ(mkdir(path, 0700), 0);
	write_file("g.conf", "base = sub.conf\n");

	snprintf(path, sizeof(path), "%s/a.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/b.conf:2: base: cycle: %s/a.conf -> %s/b.conf -> %s/a.conf", dir, dir, dir,
		 dir);
	CHECK_STR(err, want);

	snprintf(path, sizeof(path), "%s/c.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/c.conf:1: base: cannot read %s/missing.conf: No such file or directory", dir,
		 dir);
	CHECK_STR(err, want);

	snprintf(path, sizeof(path), "%s/d.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s/d.conf:1: base: cannot read /dev/null: not a regular file",
		 dir);
	CHECK_STR(err, want);

	/* An error inside a base names the base's file and line. */
	snprintf(path, sizeof(path), "%s/e.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s/bad.conf:3: unknown key \"rign\"", dir);
	CHECK_STR(err, want);

	/* A FIFO would block a reader: refused, not read. */
	snprintf(path, sizeof(path), "%s/f.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "fifo.conf: not a regular file") != NULL);

	snprintf(path, sizeof(path), "%s/g.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "sub.conf: Is a directory") != NULL);
	remove_dir();
}

/* ---- load ---- */

TEST(load_takes_a_name_or_a_path_and_leaves_p_alone_on_error)
{
	struct lab_profile p, before;
	char path[128], big[LAB_PROFILE_TEXT_MAX + 2];

	if (!make_dir())
		SKIP("no /tmp");
	write_file("mine.conf", "base = bbb-bql\nring = 32\n");
	write_file("broken.conf", "ring = 32\nrate = fast\n");
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	write_file("big.conf", big);

	snprintf(path, sizeof(path), "%s/mine.conf", dir);
	load(&p, path);
	CHECK_STR(p.name, "mine");
	CHECK_EQ(p.ring, 32);
	CHECK_EQ(p.bql, true);

	memcpy(&before, &p, sizeof(p));
	CHECK_EQ(lab_profile_load(&p, "bbb-nope", err, sizeof(err)), -ENOENT);
	CHECK_STR(err,
		  "no profile \"bbb-nope\" (built-in: bbb-stock, bbb-bql, bbb-bql-fq, "
		  "bbb-bql-fq_codel, gige-noqueue, fifo100, wandboard, rpi3b, rpi3bplus, rpi4, "
		  "rpi5, wandboard-bql, rpi3bplus-bql; or a path to a .conf file)");
	CHECK_EQ(lab_profile_load(&p, "nope.conf", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "cannot read profile nope.conf: No such file or directory");
	snprintf(path, sizeof(path), "%s/broken.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "broken.conf:2: rate: \"fast\" is not a rate (e.g. 100mbit)") != NULL);
	snprintf(path, sizeof(path), "%s/big.conf", dir);
	CHECK_EQ(lab_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "big.conf: longer than 8192 bytes") != NULL);
	CHECK_EQ(lab_profile_load(&p, dir, err, sizeof(err)), -EISDIR);
	CHECK(memcmp(&before, &p, sizeof(p)) == 0);
	remove_dir();
}

/* ---- format and round trips ---- */

/* format -> parse into fresh defaults -> the same bytes. */
static bool expect_round_trip(const struct lab_profile *p, const char *what)
{
	char text[LAB_PROFILE_TEXT_MAX];
	struct lab_profile q;
	int n = lab_profile_format(p, text, sizeof(text));

	if (!CHECK(n > 0) || !CHECK_EQ((size_t)n, strlen(text)))
		return false;
	lab_profile_defaults(&q);
	if (!CHECK_EQ(lab_profile_parse(&q, text, (size_t)n, "rt.conf", err, sizeof(err)), 0)) {
		fprintf(stderr, "  (%s: %s)\n%s", what, err, text);
		return false;
	}
	if (!CHECK(memcmp(p, &q, sizeof(q)) == 0)) {
		for (size_t i = 0; i < sizeof(q); i++)
			if (((const unsigned char *)p)[i] != ((unsigned char *)&q)[i]) {
				fprintf(stderr, "  (%s: first difference at byte %zu)\n", what, i);
				break;
			}
		return false;
	}
	return true;
}

TEST(format_writes_every_key_and_reads_back_equal)
{
	char text[LAB_PROFILE_TEXT_MAX];
	struct lab_profile p;

	lab_profile_defaults(&p);
	CHECK(lab_profile_format(&p, text, sizeof(text)) > 0);
	CHECK(strstr(text, "name = bbb-stock\n") == text);
	CHECK(strstr(text, "\nrate = 100mbit\n") != NULL);
	CHECK(strstr(text, "\nbql_limit_max = max\n") != NULL);
	CHECK(strstr(text, "\nswitch_buffer = 128kb\n") != NULL);
	CHECK(strstr(text, "\ncompletion_frames = 1\ncompletion_time = 0") != NULL);
	CHECK(strstr(text, "\ntsq = 0\n") != NULL);
	CHECK(strstr(text, "\ngso = on\n") != NULL);
	CHECK(strstr(text, "\ncc = cubic\n") != NULL);
	CHECK_EQ(lab_profile_format(&p, text, 100), -ENOSPC);

	for (size_t i = 0; i < NBUILTIN; i++) {
		load(&p, builtin_names[i]);
		expect_round_trip(&p, builtin_names[i]);
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t pick(uint64_t lo, uint64_t hi)
{
	return lo + next_random() % (hi - lo + 1);
}

/* Any value in range, with a bias towards round ones (so every spelling is used). */
static uint64_t pick_value(uint64_t lo, uint64_t hi)
{
	static const uint64_t scales[] = {1, 1000, 1024, 1000000, 1048576, 1000000000};
	uint64_t v = pick(lo, hi);
	uint64_t s = scales[next_random() % 6];

	if (next_random() % 2 && v / s * s >= lo)
		v = v / s * s;
	return v;
}

/* Strings as the parser leaves them: zeroes after the text (for memcmp). */
static void put(char *field, size_t size, const char *s)
{
	memset(field, 0, size);
	strcpy(field, s);
}

static void perturb(struct lab_profile *p)
{
	static const char *const specs[] = {
	    "pfifo_fast",
	    "pfifo",
	    "pfifo limit 50",
	    "bfifo limit 64k",
	    "fq",
	    "fq_codel",
	    "fq_codel limit 800 quantum 300 target 5ms ecn",
	    "codel target 10ms",
	    "pfifo_fast txqueuelen 7 priomap 0 0 0 0 1 1 1 1 2 2 2 2 1 1 1 1",
	};
	static const char *const ccs[] = {"cubic", "reno", "bbr", "dctcp"};
	uint64_t rate_lo = 125, rate_hi = 12500000000ULL;

	switch (next_random() % 22) {
	case 0:
		p->rate_bps = pick_value(rate_lo, rate_hi);
		break;
	case 1:
		p->mtu = (uint32_t)pick(68, 9000);
		break;
	case 2:
		put(p->qdisc, sizeof(p->qdisc), specs[next_random() % 9]);
		break;
	case 3:
		p->txqueuelen = (uint32_t)pick(1, 100000);
		break;
	case 4:
		p->gso = !p->gso;
		break;
	case 5:
		p->tso = !p->tso;
		break;
	case 6:
		p->ring = (uint32_t)pick(1, 4096);
		break;
	case 7:
		p->bql = !p->bql;
		break;
	case 8:
		p->bql_limit_min = (uint32_t)pick_value(0, DB_DQL_MAX_LIMIT);
		break;
	case 9:
		p->bql_limit_max = next_random() % 3 ? (uint32_t)pick_value(0, DB_DQL_MAX_LIMIT)
						     : DB_DQL_MAX_LIMIT;
		break;
	case 10:
		p->bql_hold_ns = pick_value(0, 10000000000ULL);
		break;
	case 11:
		p->completion_frames = (uint32_t)pick(1, 4096);
		break;
	case 12:
		p->completion_ns = pick_value(0, 1000000000ULL);
		break;
	case 13:
		p->delay_ns = pick_value(0, 10000000000ULL);
		break;
	case 14:
		p->switch_rate_bps = pick_value(rate_lo, rate_hi);
		break;
	case 15:
		p->switch_buffer_bytes = pick_value(0, 1ULL << 30);
		break;
	case 16:
		p->tsq_bytes = (uint32_t)pick_value(0, 1ULL << 30);
		break;
	case 17:
		p->client_rate_bps = pick_value(rate_lo, rate_hi);
		break;
	case 18:
		put(p->client_qdisc, sizeof(p->client_qdisc), specs[next_random() % 9]);
		break;
	case 19:
		p->client_ring = (uint32_t)pick(1, 4096);
		break;
	case 20:
		p->board_port_buffer_bytes = pick_value(0, 1ULL << 30);
		break;
	default: {
		/* A description of printable bytes (UTF-8 too), no '#', no blanks at the ends. */
		size_t n = (size_t)pick(0, sizeof(p->description) - 1);
		memset(p->description, 0, sizeof(p->description));
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)pick(0x20, 0xff);
			if (c == '#' || c == 0x7f || c == ' ')
				c = 'x';
			p->description[i] = (char)c;
		}
		put(p->cc, sizeof(p->cc), ccs[next_random() % 4]);
		memset(p->name, 0, sizeof(p->name));
		snprintf(p->name, sizeof(p->name), "r%llu",
			 (unsigned long long)(next_random() % 1000));
		break;
	}
	}
	/* Keep the rules across keys. */
	if (p->completion_frames > 1 && !p->completion_ns)
		p->completion_ns = 1;
	if (p->bql_limit_min > p->bql_limit_max)
		p->bql_limit_min = p->bql_limit_max;
	if (p->switch_buffer_bytes < p->mtu + 14)
		p->switch_buffer_bytes = p->mtu + 14;
	if (p->board_port_buffer_bytes < p->mtu + 14)
		p->board_port_buffer_bytes = p->mtu + 14;
}

TEST(randomly_perturbed_profiles_round_trip)
{
	struct lab_profile p;
	char what[64];

	for (int i = 0; i < 3000; i++) {
		load(&p, builtin_names[i % NBUILTIN]);
		for (int k = 0, n = (int)pick(1, 12); k < n; k++)
			perturb(&p);
		snprintf(what, sizeof(what), "perturbed #%d", i);
		if (!CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), 0)) {
			fprintf(stderr, "  (%s: %s)\n", what, err);
			return;
		}
		if (!expect_round_trip(&p, what))
			return;
	}
}

TEST(check_refuses_hand_made_nonsense)
{
	struct lab_profile p;

	lab_profile_defaults(&p);
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), 0);
	p.ring = 0;
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "ring: 0 is out of range (1..4096)");
	lab_profile_defaults(&p);
	p.rate_bps = 1;
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "rate: 8bit is out of range (1kbit..100gbit)");
	lab_profile_defaults(&p);
	strcpy(p.client_qdisc, "nope");
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "client_qdisc: unknown qdisc \"nope\"") == err);
	lab_profile_defaults(&p);
	memset(p.cc, 'a', sizeof(p.cc));
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "cc: not terminated");
	lab_profile_defaults(&p);
	p.completion_frames = 2;
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "completion_frames 2 needs completion_time > 0") == err);
}

/* ---- The throughput ceiling ---- */

TEST(ceiling_is_a_rate_or_off)
{
	struct lab_profile p;
	char buf[256];

	lab_profile_defaults(&p);
	CHECK_EQ(p.ceiling_bps, 0);
	CHECK(!p.ceiling_shared);
	CHECK_EQ(p.rx_ring, 512);
	CHECK_EQ(parse(&p, "rate = 1gbit\nceiling = 470mbit\nceiling_shared = on\nrx_ring = 64\n",
		       "x.conf"),
		 0);
	CHECK_EQ(p.ceiling_bps, 470000000 / 8);
	CHECK(p.ceiling_shared);
	CHECK_EQ(p.rx_ring, 64);
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	if (!CHECK(strstr(buf, ", ceiling 470mbit shared (rx ring 64)") != NULL))
		fprintf(stderr, "  (%s)\n", buf);
	CHECK(expect_round_trip(&p, "ceiling 470mbit"));
	CHECK_EQ(parse(&p, "ceiling = off\n", "x.conf"), 0);
	CHECK_EQ(p.ceiling_bps, 0);
	CHECK_EQ(parse(&p, "ceiling = 0\n", "x.conf"), 0);
	CHECK_EQ(p.ceiling_bps, 0);
	CHECK(lab_profile_describe(&p, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "ceiling") == NULL);
	EXPECT_ERROR("ceiling = fast\n", "x.conf",
		     "x.conf:1: ceiling: \"fast\" is not a rate (e.g. 470mbit) or off");
	EXPECT_ERROR("ceiling = 200gbit\n", "x.conf",
		     "x.conf:1: ceiling: \"200gbit\" is out of range (1kbit..100gbit)");
	EXPECT_ERROR("rx_ring = 0\n", "x.conf",
		     "x.conf:1: rx_ring: \"0\" is out of range (1..4096)");
	lab_profile_defaults(&p);
	p.ceiling_bps = 1;
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "ceiling: 8bit is out of range (1kbit..100gbit)");
}

/* ---- The boards ---- */

struct board_facts {
	const char *name;
	uint64_t rate_bps, ceiling_bps;
	bool ceiling_shared, bql;
	uint32_t ring, completion_frames;
	const char *qdisc_kind;
	uint32_t urb_bytes, urb_frames, urb_overhead; /* 0 0 0: not a USB NIC */
};

/* The key facts each board profile stands for (its header gives the evidence). */
TEST(board_profiles_have_their_boards_facts)
{
	static const struct board_facts boards[] = {
	    {"wandboard", GBIT(1), MBIT(470), true, false, 512, 1, "fq_codel", 0, 0, 0},
	    /* lan78xx: 10 URBs of 16 KB, as many frames as fit, an 8-byte command word */
	    {"rpi3bplus", GBIT(1), MBIT(300), true, false, 10, 1, "fq_codel", 16384, 0, 8},
	    {"rpi4", GBIT(1), 0, false, true, 128, 10, "fq_codel", 0, 0, 0},
	    {"rpi5", GBIT(1), 0, false, false, 512, 1, "fq_codel", 0, 0, 0},
	    /* smsc95xx on usbnet: 60 URBs of one frame and its 8-byte header */
	    {"rpi3b", MBIT(100), 0, false, false, 60, 1, "fq_codel", 1522, 1, 8},
	};
	struct lab_profile p;

	for (size_t i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		const struct board_facts *b = &boards[i];
		const char *kind;

		load(&p, b->name);
		CHECK_STR(p.name, b->name);
		CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), 0);
		CHECK_EQ(p.rate_bps, b->rate_bps);
		CHECK_EQ(p.ceiling_bps, b->ceiling_bps);
		CHECK_EQ(p.ceiling_shared, b->ceiling_shared);
		CHECK_EQ(p.bql, b->bql);
		CHECK_EQ(p.ring, b->ring);
		CHECK_EQ(p.completion_frames, b->completion_frames);
		CHECK_EQ(p.urb_bytes, b->urb_bytes);
		CHECK_EQ(p.urb_frames, b->urb_frames);
		CHECK_EQ(p.urb_overhead, b->urb_overhead);
		CHECK_EQ(p.rx_ring, 512);
		CHECK_EQ(p.mtu, 1500);
		/* the kind is the spec's first word: the OS's default, without options */
		kind = p.qdisc;
		CHECK_EQ(strncmp(kind, b->qdisc_kind, strlen(b->qdisc_kind)), 0);
		CHECK(kind[strlen(b->qdisc_kind)] == '\0' || kind[strlen(b->qdisc_kind)] == ' ');
		CHECK(strstr(p.description, b->name[0] == 'w' ? "Debian 12" : "Raspberry Pi OS") !=
		      NULL);
	}
	/* genet: "after N frames or when the ring empties", no timer */
	load(&p, "rpi4");
	CHECK_EQ(p.completion_ns, 0);
	CHECK_EQ(p.completion_empty, true);
}

/* The URB keys: validated like the others, described, and written back. */
TEST(urb_keys_parse_describe_and_round_trip)
{
	static const char usb[] = "ring = 10\nurb_bytes = 16kb\nurb_overhead = 8\n";
	struct lab_profile p, q;
	char text[4096], desc[512];
	int n;

	lab_profile_defaults(&p);
	REQUIRE_EQ(lab_profile_parse(&p, usb, strlen(usb), NULL, err, sizeof(err)), 0);
	CHECK_EQ(p.urb_bytes, 16384);
	CHECK_EQ(p.urb_overhead, 8);
	CHECK_EQ(p.urb_frames, 0);
	REQUIRE(lab_profile_describe(&p, desc, sizeof(desc)) > 0);
	CHECK(strstr(desc, ", ring 10 URBs of 16KB + 8 B per frame,") != NULL);
	n = lab_profile_format(&p, text, sizeof(text));
	REQUIRE(n > 0);
	CHECK(strstr(text, "\nurb_bytes = 16kb\nurb_frames = 0\nurb_overhead = 8\n") != NULL);
	lab_profile_defaults(&q);
	REQUIRE_EQ(lab_profile_parse(&q, text, (size_t)n, NULL, err, sizeof(err)), 0);
	CHECK(memcmp(&p, &q, sizeof(p)) == 0);

	EXPECT_ERROR("urb_bytes = 2mb\n", "x.conf",
		     "x.conf:1: urb_bytes: \"2mb\" is out of range (0..1mb)");
	EXPECT_ERROR("urb_frames = 5000\n", "x.conf",
		     "x.conf:1: urb_frames: \"5000\" is out of range (0..4096)");
	EXPECT_ERROR("urb_overhead = 2000\n", "x.conf",
		     "x.conf:1: urb_overhead: \"2000\" is out of range (0..1024)");
	EXPECT_ERROR("urb_bytes = lots\n", "x.conf",
		     "x.conf:1: urb_bytes: \"lots\" is not a size (e.g. 128kb)");

	lab_profile_defaults(&p);
	CHECK_EQ(lab_profile_set(&p, "urb_frames", "1", err, sizeof(err)), 0);
	CHECK_EQ(lab_profile_set(&p, "urb_bytes", "1522", err, sizeof(err)), 0);
	REQUIRE(lab_profile_describe(&p, desc, sizeof(desc)) > 0);
	CHECK(strstr(desc, ", ring 128 URBs of 1522B (at most 1 frame),") != NULL);
	p.completion_frames = 10;
	p.completion_empty = true;
	REQUIRE(lab_profile_describe(&p, desc, sizeof(desc)) > 0);
	CHECK(strstr(desc, ", completions every 10 frames or when the ring empties,") != NULL);
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), 0);
	p.completion_empty = false;
	CHECK_EQ(lab_profile_check(&p, err, sizeof(err)), -EINVAL);
}

/* Every line of text fits LAB_PROFILE_FOLD columns. */
static bool lines_fit(const char *text)
{
	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");

		if (n > LAB_PROFILE_FOLD) {
			fprintf(stderr, "  (a line of %zu columns: %.*s)\n", n, (int)n, s);
			return false;
		}
		s += n + (s[n] == '\n');
	}
	return true;
}

TEST(folded_values_parse_and_format_folds_long_ones)
{
	char text[LAB_PROFILE_TEXT_MAX], big[1400];
	struct lab_profile p;
	int n;

	/* a line that begins with a blank continues the value above it */
	REQUIRE_EQ(parse(&p,
			 "description = a board\n    with a long\n\tdescription # note\n"
			 "  # a comment ends it\n  rate = 10mbit\n",
			 "f.conf"),
		   0);
	CHECK_STR(p.description, "a board with a long description");
	CHECK_EQ(p.rate_bps, MBIT(10));
	REQUIRE_EQ(parse(&p, "qdisc = fq_codel limit 800\n quantum 300\n\n  ring = 8\n", "f.conf"),
		   0);
	CHECK_STR(p.qdisc, "fq_codel limit 800 quantum 300");
	CHECK_EQ(p.ring, 8u);
	/* errors name the setting's own line */
	EXPECT_ERROR("rate = 10mbit\nring = 8\n  0\n", "f.conf",
		     "f.conf:2: ring: \"8 0\" is not a number");
	EXPECT_ERROR("rate = 10mbit\n  ring = 8\n", "f.conf",
		     "f.conf:1: rate: \"10mbit ring = 8\" is not a rate (e.g. 100mbit)");
	/* a value joined from its lines holds at most a line's bytes */
	strcpy(big, "description = ");
	memset(big + 14, 'x', 1000);
	strcpy(big + 1014, "\n    ");
	memset(big + 1019, 'y', 100);
	strcpy(big + 1119, "\n");
	EXPECT_ERROR(big, "f.conf", "f.conf:1: description: value longer than 1024 bytes");

	/* format folds what passes 80 columns, and reads back the same */
	lab_profile_defaults(&p);
	put(p.description, sizeof(p.description),
	    "Raspberry Pi 3B+ on Raspberry Pi OS (6.12): lan78xx, GigE PHY behind USB 2 (300 "
	    "Mbit/s shared ceiling), 10 URBs of 16 KB, no BQL, fq_codel, and some more words "
	    "so that it takes three lines");
	put(p.qdisc, sizeof(p.qdisc),
	    "fq_codel limit 10240 flows 1024 quantum 1514 target 5000us interval 100000us "
	    "memory_limit 33554432 drop_batch 64 ecn");
	n = lab_profile_format(&p, text, sizeof(text));
	REQUIRE(n > 0);
	CHECK(lines_fit(text));
	CHECK(strstr(text, "\n    ") != NULL);
	CHECK(expect_round_trip(&p, "long description and qdisc"));
	/* double spaces are not fold points: they read back as they were */
	put(p.description, sizeof(p.description),
	    "aaaa  bbbb  cccc  dddd  eeee  ffff  gggg  hhhh  iiii  jjjj  kkkk  llll  mmmm  nnnn "
	    "oooo pppp");
	CHECK(expect_round_trip(&p, "double spaces"));
	/* a word longer than a line stays whole */
	memset(big, 'w', 120);
	big[120] = '\0';
	put(p.description, sizeof(p.description), big);
	CHECK(expect_round_trip(&p, "one long word"));
	for (size_t i = 0; i < NBUILTIN; i++) {
		load(&p, builtin_names[i]);
		REQUIRE(lab_profile_format(&p, text, sizeof(text)) > 0);
		CHECK(lines_fit(text));
	}
}
