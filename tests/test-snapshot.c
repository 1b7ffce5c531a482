/* SPDX-License-Identifier: MIT */
/*
 * test-snapshot.c - src/host/snapshot.c: a host to JSON and back keeps every field (every
 * qdisc option key the decoders make included), hand-written documents read with
 * their defaults, and each kind of malformed document fails with a message that
 * names the place, leaving the output untouched.
 *
 * The fq_codel, fq and cake bytes are test-host-qdisc.c's golden bytes (what tc sends).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "harness.h"
#include "host/avail.h"
#include "host/qdisc.h"
#include "host/snapshot.h"

static const unsigned char fq_codel_golden[] = {
    0x08, 0x00, 0x02, 0x00, 0x20, 0x03, 0x00, 0x00, 0x08, 0x00, 0x05, 0x00, 0x00, 0x04, 0x00, 0x00,
    0x08, 0x00, 0x06, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x08, 0x00, 0x03, 0x00, 0xa0, 0x86, 0x01, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x88, 0x13, 0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x09, 0x00, 0x00, 0x00, 0x40, 0x00, 0x08, 0x00, 0x08, 0x00, 0x40, 0x00, 0x00, 0x00,
};
static const unsigned char fq_golden[] = {
    0x08, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0x10, 0x27, 0x00,
    0x00, 0x08, 0x00, 0x02, 0x00, 0x64, 0x00, 0x00, 0x00, 0x08, 0x00, 0x03, 0x00, 0xd4, 0x0b,
    0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x24, 0x3b, 0x00, 0x00, 0x08, 0x00, 0x07, 0x00, 0x20,
    0xbc, 0xbe, 0x00, 0x08, 0x00, 0x0b, 0x00, 0x8e, 0x0c, 0x01, 0x00, 0x08, 0x00, 0x09, 0x00,
    0x40, 0x9c, 0x00, 0x00, 0x08, 0x00, 0x0a, 0x00, 0xff, 0x03, 0x00, 0x00, 0x08, 0x00, 0x0c,
    0x00, 0xd0, 0x07, 0x00, 0x00, 0x08, 0x00, 0x0d, 0x00, 0x10, 0x27, 0x00, 0x00, 0x08, 0x00,
    0x0e, 0x00, 0x80, 0x96, 0x98, 0x00, 0x05, 0x00, 0x0f, 0x00, 0x01, 0x00, 0x00, 0x00,
};
static const unsigned char cake_golden[] = {
    0x0c, 0x00, 0x02, 0x00, 0xb8, 0x32, 0xb5, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x08, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static struct qdisc decoded(const char *kind, const void *opts, size_t len, uint32_t handle,
			    uint32_t parent)
{
	struct qdisc q = {.handle = handle, .parent = parent, .ifindex = 7};

	strcpy(q.kind, kind);
	if (host_qdisc_decode_options(&q, opts, len) < 0)
		q.options_err = -EBADMSG;
	return q;
}

/* One of every kind the decoders know, under an htb root, and a malformed one. */
static struct qdisc *every_kind_tree(void)
{
	struct tc_fifo_qopt fifo = {.limit = 1000};
	struct tc_prio_qopt prio = {.bands = 3,
				    .priomap = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}};
	unsigned char htb[4 + sizeof(struct tc_htb_glob)] = {0};
	struct tc_htb_glob glob = {.version = 3, .rate2quantum = 10, .defcls = 0x10};
	struct nlattr a = {.nla_len = sizeof(htb), .nla_type = TCA_HTB_INIT};
	struct qdisc *root = calloc(1, sizeof(*root)), *c;
	uint16_t half = 7;

	memcpy(htb, &a, 4);
	memcpy(htb + 4, &glob, sizeof(glob));
	*root = decoded("htb", htb, sizeof(htb), 0x10000, TC_H_ROOT);
	root->nchildren = 7;
	root->children = c = calloc(root->nchildren, sizeof(*c));
	c[0] = decoded("fq_codel", fq_codel_golden, sizeof(fq_codel_golden), 0x100000, 0x10001);
	c[1] = decoded("fq", fq_golden, sizeof(fq_golden), 0x110000, 0x10002);
	c[2] = decoded("cake", cake_golden, sizeof(cake_golden), 0x120000, 0x10003);
	c[3] = decoded("pfifo", &fifo, sizeof(fifo), 0x130000, 0x10004);
	c[4] = decoded("bfifo", &fifo, sizeof(fifo), 0x140000, 0x10005);
	c[5] = decoded("prio", &prio, sizeof(prio), 0x150000, 0x10006);
	c[6] = decoded("pfifo", &half, sizeof(half), 0x160000, 0x10007);
	/* a grandchild: pfifo_fast under the prio */
	c[5].nchildren = 1;
	c[5].children = calloc(1, sizeof(struct qdisc));
	c[5].children[0] = decoded("pfifo_fast", &prio, sizeof(prio), 0, 0x150001);
	return root;
}

static void make_host(struct host *h)
{
	static const char *const names[HOST_NSYSCTLS] = {
	    "net.core.default_qdisc", "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_ecn",
	    "net.ipv4.tcp_limit_output_bytes"};
	struct iface *e;

	memset(h, 0, sizeof(*h));
	h->n = 2;
	h->ifaces = e = calloc(2, sizeof(*e));
	strcpy(e[0].name, "eth0");
	e[0].ifindex = 7;
	strcpy(e[0].kind, "physical");
	e[0].physical = true;
	strcpy(e[0].operstate, "up");
	strcpy(e[0].root_qdisc, "htb");
	e[0].mtu = 1500;
	e[0].txqueuelen = 1000;
	e[0].tx_queues = 2;
	e[0].have_stats = true;
	e[0].tx_packets = 123456789012ULL;
	e[0].tx_bytes = 9876543210987ULL;
	strcpy(e[0].driver, "cpsw");
	strcpy(e[0].bus, "4a100000.ethernet");
	e[0].speed_mbps = 100;
	e[0].usb_speed_mbps = 480;
	e[0].duplex = IFACE_DUPLEX_HALF;
	e[0].ring_tx = 128;
	e[0].ring_tx_max = 248;
	e[0].ring_rx = -1;
	e[0].ring_rx_max = 0;
	e[0].tso = FEATURE_OFF;
	e[0].gso = FEATURE_ON;
	e[0].gro = FEATURE_UNKNOWN;
	e[0].lro = FEATURE_OFF;
	e[0].qdisc = every_kind_tree();
	e[0].bql_read = true;
	e[0].nbql = 2;
	e[0].bql = calloc(2, sizeof(struct bql_queue));
	e[0].bql[0] = (struct bql_queue){0, true, 3028, 0, 1879048192, 1514, 1000, 1, 2, 3};
	e[0].bql[1] = (struct bql_queue){1, false, -1, -1, -1, -1, -1, -1, -1, -1};
	iface_note_unreadable(&e[0], "speed", -EOPNOTSUPP);
	iface_note_unreadable(&e[0], "sysfs", -EXDEV);
	iface_note_unreadable(&e[0], "bql", -200); /* no name for it: kept as a number */

	strcpy(e[1].name, "lo");
	e[1].ifindex = 1;
	strcpy(e[1].kind, "loopback");
	e[1].loopback = true;
	strcpy(e[1].operstate, "unknown");
	e[1].mtu = 65536;
	e[1].ring_tx = e[1].ring_tx_max = e[1].ring_rx = e[1].ring_rx_max = -1;
	/* Each offload known on one of the two, so a field the writer drops shows. */
	e[1].tso = FEATURE_UNKNOWN;
	e[1].gso = FEATURE_OFF;
	e[1].gro = FEATURE_ON;
	e[1].lro = FEATURE_ON;

	for (size_t i = 0; i < HOST_NSYSCTLS; i++)
		h->sysctls[i].name = names[i];
	strcpy(h->sysctls[1].value, "bbr");
	strcpy(h->sysctls[2].value, "2");
	strcpy(h->sysctls[3].value, "4194304");
	h->sysctls[0].err = -ENOENT;
	h->sysctls[3].err = 0;
	for (size_t i = 0; i < HOST_NQDISC_KINDS; i++) {
		h->qdisc_kinds[i].kind = avail_qdisc_kinds[i];
		h->qdisc_kinds[i].avail = (enum qdisc_avail)(i % 3);
	}
	strcpy(h->kernel_release, "6.1.0-beagle");
	strcpy(h->compatible[0], "ti,am335x-bone-black");
	strcpy(h->compatible[1], "ti,am33xx");
	h->ncompatible = 2;
	h->compatible_known = true;
	strcpy(h->hostname, "bbb");
	h->constructed = true;
	strcpy(h->source, "test-snapshot.c \"quoted\" \\ and \xc3\xa9");
}

static void check_value(const struct value *a, const struct value *b)
{
	CHECK_STR(a->key, b->key);
	CHECK_EQ(a->type, b->type);
	CHECK_EQ(a->unit, b->unit);
	CHECK_EQ(a->u, b->u);
	CHECK_EQ(a->nlist, b->nlist);
	CHECK(!memcmp(a->list, b->list, sizeof(a->list)));
}

static void check_qdisc(const struct qdisc *a, const struct qdisc *b)
{
	CHECK_STR(a->kind, b->kind);
	CHECK_EQ(a->handle, b->handle);
	CHECK_EQ(a->parent, b->parent);
	CHECK_EQ(a->ifindex, b->ifindex);
	CHECK_EQ(a->options_err, b->options_err);
	REQUIRE_EQ(a->noptions, b->noptions);
	for (unsigned i = 0; i < a->noptions; i++)
		check_value(&a->options[i], &b->options[i]);
	REQUIRE_EQ(a->nchildren, b->nchildren);
	for (size_t i = 0; i < a->nchildren; i++)
		check_qdisc(&a->children[i], &b->children[i]);
}

static void check_iface(const struct iface *a, const struct iface *b)
{
	CHECK_STR(a->name, b->name);
	CHECK_EQ(a->ifindex, b->ifindex);
	CHECK_STR(a->kind, b->kind);
	CHECK_EQ(a->physical, b->physical);
	CHECK_EQ(a->loopback, b->loopback);
	CHECK_STR(a->operstate, b->operstate);
	CHECK_STR(a->root_qdisc, b->root_qdisc);
	CHECK_EQ(a->mtu, b->mtu);
	CHECK_EQ(a->txqueuelen, b->txqueuelen);
	CHECK_EQ(a->tx_queues, b->tx_queues);
	CHECK_EQ(a->have_stats, b->have_stats);
	CHECK_EQ(a->tx_packets, b->tx_packets);
	CHECK_EQ(a->tx_bytes, b->tx_bytes);
	CHECK_STR(a->driver, b->driver);
	CHECK_STR(a->bus, b->bus);
	CHECK_EQ(a->speed_mbps, b->speed_mbps);
	CHECK_EQ(a->usb_speed_mbps, b->usb_speed_mbps);
	CHECK_EQ(a->duplex, b->duplex);
	CHECK_EQ(a->ring_tx, b->ring_tx);
	CHECK_EQ(a->ring_tx_max, b->ring_tx_max);
	CHECK_EQ(a->ring_rx, b->ring_rx);
	CHECK_EQ(a->ring_rx_max, b->ring_rx_max);
	CHECK_EQ(a->tso, b->tso);
	CHECK_EQ(a->gso, b->gso);
	CHECK_EQ(a->gro, b->gro);
	CHECK_EQ(a->lro, b->lro);
	REQUIRE_EQ(a->qdisc != NULL, b->qdisc != NULL);
	if (a->qdisc)
		check_qdisc(a->qdisc, b->qdisc);
	CHECK_EQ(a->bql_read, b->bql_read);
	REQUIRE_EQ(a->nbql, b->nbql);
	CHECK(a->nbql == 0 || !memcmp(a->bql, b->bql, a->nbql * sizeof(*a->bql)));
	REQUIRE_EQ(a->nunreadable, b->nunreadable);
	for (size_t i = 0; i < a->nunreadable; i++) {
		CHECK_STR(a->unreadable[i].what, b->unreadable[i].what);
		CHECK_EQ(a->unreadable[i].err, b->unreadable[i].err);
	}
}

/* Build, write as text, parse the text: what came back is what went in. */
TEST(a_host_survives_the_round_trip_field_by_field)
{
	struct host h, back = {0};
	struct jval *doc = NULL;
	char err[256];
	const char *text;
	size_t len;

	make_host(&h);
	REQUIRE_EQ(snapshot_build(&h, &doc), 0);
	text = json_text(doc, &len);
	REQUIRE(text);
	REQUIRE_EQ(snapshot_parse(text, len, &back, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK(back.from_snapshot);
	CHECK_EQ(back.constructed, h.constructed);
	CHECK_STR(back.source, h.source);
	CHECK_STR(back.hostname, h.hostname);
	CHECK_STR(back.kernel_release, h.kernel_release);
	CHECK_EQ(back.compatible_known, h.compatible_known);
	REQUIRE_EQ(back.ncompatible, h.ncompatible);
	for (size_t i = 0; i < h.ncompatible; i++)
		CHECK_STR(back.compatible[i], h.compatible[i]);
	for (size_t i = 0; i < HOST_NSYSCTLS; i++) {
		CHECK_STR(back.sysctls[i].name, h.sysctls[i].name);
		CHECK_STR(back.sysctls[i].value, h.sysctls[i].value);
		CHECK_EQ(back.sysctls[i].err, h.sysctls[i].err);
	}
	for (size_t i = 0; i < HOST_NQDISC_KINDS; i++) {
		CHECK_STR(back.qdisc_kinds[i].kind, h.qdisc_kinds[i].kind);
		CHECK_EQ(back.qdisc_kinds[i].avail, h.qdisc_kinds[i].avail);
	}
	REQUIRE_EQ(back.n, h.n);
	for (size_t i = 0; i < h.n; i++)
		check_iface(&back.ifaces[i], &h.ifaces[i]);
	json_free(doc);
	host_free(&back);
	host_free(&h);
}

/* The round trip above compares noptions, so an option key a decoder makes and the
 * reader does not know (dropped as unknown) fails there; this checks that the tree
 * really holds every kind's options to compare. */
TEST(the_round_trip_tree_has_every_decoder_s_options)
{
	struct host h;
	const struct qdisc *c;

	make_host(&h);
	c = h.ifaces[0].qdisc->children;
	CHECK_EQ(c[0].noptions, 8);  /* fq_codel */
	CHECK_EQ(c[1].noptions, 13); /* fq */
	CHECK(c[2].noptions >= 2);   /* cake */
	CHECK_EQ(c[6].options_err, -EBADMSG);
	CHECK(host_qdisc_option(h.ifaces[0].qdisc, "default_class") != NULL);
	host_free(&h);
}

static int parse(const char *text, struct host *h, char *err, size_t errlen)
{
	return snapshot_parse(text, strlen(text), h, err, errlen);
}

TEST(a_minimal_hand_written_document_reads_with_its_defaults)
{
	const char *text =
	    "{\"debloat_snapshot\": 1, \"interfaces\": [{\"name\": \"eth0\","
	    " \"kind\": \"physical\", \"mtu\": 1500, \"txqueuelen\": 1000,"
	    " \"tx_queues\": 1, \"qdisc\": {\"kind\": \"mq\", \"children\":"
	    " [{\"kind\": \"pfifo\", \"parent\": \":1\", \"limit_packets\": 100}]}}]}";
	struct host h;
	char err[256];
	const struct iface *e;

	REQUIRE_EQ(parse(text, &h, err, sizeof(err)), 0);
	REQUIRE_EQ(h.n, 1);
	e = &h.ifaces[0];
	CHECK_EQ(e->ifindex, 1);
	CHECK_STR(e->operstate, "unknown");
	CHECK_STR(e->root_qdisc, "mq");
	CHECK_EQ(e->speed_mbps, 0);
	CHECK_EQ(e->duplex, IFACE_DUPLEX_UNKNOWN);
	CHECK_EQ(e->ring_tx, -1);
	CHECK_EQ(e->tso, FEATURE_UNKNOWN);
	CHECK(!e->have_stats);
	CHECK(!e->bql_read);
	CHECK_EQ(e->qdisc->parent, TC_H_ROOT);
	CHECK_EQ(e->qdisc->handle, 0);
	REQUIRE_EQ(e->qdisc->nchildren, 1);
	CHECK_EQ(e->qdisc->children[0].parent, 1);
	CHECK_EQ(e->qdisc->children[0].ifindex, 1);
	CHECK_EQ(e->qdisc->children[0].options[0].unit, UNIT_PACKETS);
	CHECK_STR(h.sysctls[0].name, "net.core.default_qdisc");
	CHECK_EQ(h.sysctls[0].err, -ENOENT);
	CHECK_EQ(h.qdisc_kinds[0].avail, QDISC_AVAIL_UNKNOWN);
	CHECK(!h.constructed);
	/* written before the machine was recorded: unknown, not "no device tree" */
	CHECK(!h.compatible_known);
	CHECK_EQ(h.ncompatible, 0);
	CHECK_EQ(e->usb_speed_mbps, 0);
	host_free(&h);
}

/* The machine's compatible list: [] is a machine without a device tree (x86). */
TEST(the_machine_compatible_list_reads_known_or_unknown)
{
	struct host h;
	char err[256];

	REQUIRE_EQ(parse("{\"debloat_snapshot\": 1, \"interfaces\": [], "
			 "\"machine_compatible\": [\"wand,imx6q-wandboard\", \"fsl,imx6q\"]}",
			 &h, err, sizeof(err)),
		   0);
	CHECK(h.compatible_known);
	REQUIRE_EQ(h.ncompatible, 2);
	CHECK_STR(h.compatible[0], "wand,imx6q-wandboard");
	CHECK_STR(h.compatible[1], "fsl,imx6q");
	host_free(&h);
	REQUIRE_EQ(parse("{\"debloat_snapshot\": 1, \"interfaces\": [], "
			 "\"machine_compatible\": []}",
			 &h, err, sizeof(err)),
		   0);
	CHECK(h.compatible_known);
	CHECK_EQ(h.ncompatible, 0);
	host_free(&h);
	REQUIRE_EQ(parse("{\"debloat_snapshot\": 1, \"interfaces\": [], "
			 "\"machine_compatible\": null}",
			 &h, err, sizeof(err)),
		   0);
	CHECK(!h.compatible_known);
	host_free(&h);
}

/* Each document fails with err and leaves the host as it was. */
static void check_fails(const char *text, int want, const char *want_err)
{
	struct host h = {.n = 12345};
	char err[256] = "unchanged";
	int r = parse(text, &h, err, sizeof(err));

	CHECK_EQ(r, want);
	CHECK_EQ(h.n, 12345);
	CHECK(h.ifaces == NULL);
	if (!CHECK_STR(err, want_err))
		return;
}

#define IFACE_OK                                                                                   \
	"\"name\": \"e\", \"kind\": \"k\", \"mtu\": 1500, \"txqueuelen\": 1, \"tx_queues\": 1"
#define DOC(ifaces) "{\"debloat_snapshot\": 1, \"interfaces\": [" ifaces "]}"

TEST(malformed_documents_say_where_and_what)
{
	check_fails("{\"interfaces\": []}", -EINVAL,
		    "not a debloat snapshot (the key \"debloat_snapshot\" is missing)");
	check_fails("{\"debloat_snapshot\": 7, \"interfaces\": []}", -EPROTONOSUPPORT,
		    "unknown format version 7 (this debloat reads version 1)");
	check_fails("{\"debloat_snapshot\": \"1\"}", -EINVAL,
		    "debloat_snapshot: expected an integer, got a string");
	check_fails("{\"debloat_snapshot\": 1}", -EINVAL, "the key \"interfaces\" is missing");
	check_fails("{\"debloat_snapshot\": 1, \"interfaces\": {}}", -EINVAL,
		    "interfaces: expected an array, got an object");
	check_fails("[]", -EINVAL, "expected an object at the top, got an array");
	check_fails("{\"debloat_snapshot\": 1,", -EINVAL,
		    "not JSON: line 1, column 24: unexpected end of input");
	check_fails(DOC("{\"kind\": \"k\"}"), -EINVAL,
		    "interfaces[0]: the key \"name\" is missing");
	check_fails(DOC("{" IFACE_OK "}, 3"), -EINVAL,
		    "interfaces[1]: expected an object, got an integer");
	check_fails(DOC("{" IFACE_OK ", \"mtu\": 1.5}"), -EINVAL,
		    "interfaces[0].mtu: expected an integer, got a fraction");
	check_fails(DOC("{" IFACE_OK ", \"speed_mbps\": 4294967296}"), -EINVAL,
		    "interfaces[0].speed_mbps: 4294967296 is out of range (0 to 4294967295)");
	check_fails(
	    DOC("{" IFACE_OK ", \"name\": \"a-name-far-too-long\"}"), -EINVAL,
	    "interfaces[0].name: \"a-name-far-too-long\" is too long (at most 15 characters)");
	check_fails(DOC("{" IFACE_OK ", \"duplex\": \"both\"}"), -EINVAL,
		    "interfaces[0]: \"duplex\" is \"both\", not \"full\", \"half\" or null");
	check_fails(DOC("{" IFACE_OK ", \"tso\": 1}"), -EINVAL,
		    "interfaces[0].tso: expected true or false, got an integer");
	check_fails(DOC("{" IFACE_OK "}, {" IFACE_OK "}"), -EINVAL,
		    "interfaces[1]: a second interface named \"e\"");
	check_fails(DOC("{" IFACE_OK ", \"qdisc\": {\"kind\": \"pfifo\", \"limit_packets\": -1}}"),
		    -EINVAL, "interfaces[0].qdisc.limit_packets: -1 is negative");
	check_fails(DOC("{" IFACE_OK ", \"qdisc\": {\"kind\": \"prio\", \"priomap\": [1, 256]}}"),
		    -EINVAL,
		    "interfaces[0].qdisc.priomap: entry 1 is not an integer from 0 to 255");
	check_fails(DOC("{" IFACE_OK ", \"qdisc\": {\"kind\": \"x\", \"children\": [{}]}}"),
		    -EINVAL, "interfaces[0].qdisc.children[0]: the key \"kind\" is missing");
	check_fails(
	    DOC("{" IFACE_OK ", \"qdisc\": {\"kind\": \"x\", \"handle\": \"1:2:3\"}}"), -EINVAL,
	    "interfaces[0].qdisc.handle: \"1:2:3\" is not a handle (\"8001:\", \"1:a\", \"root\")");
	check_fails(DOC("{" IFACE_OK ", \"bql\": {\"queues\": [{\"limit\": 0}]}}"), -EINVAL,
		    "interfaces[0].bql.queues[0]: the key \"queue\" is missing");
	check_fails(
	    DOC("{" IFACE_OK ", \"unreadable\": [{\"what\": \"bql\", \"error\": \"EWHAT\"}]}"),
	    -EINVAL,
	    "interfaces[0].unreadable[0]: \"error\" is not an errno name (\"ENOENT\") or number");
	check_fails(
	    "{\"debloat_snapshot\": 1, \"interfaces\": [], \"sysctls\": "
	    "{\"net.ipv4.tcp_ecn\": [1]}}",
	    -EINVAL,
	    "sysctls.net.ipv4.tcp_ecn: expected a string, an integer or null, got an array");
	check_fails("{\"debloat_snapshot\": 1, \"interfaces\": [], \"qdisc_kinds\": "
		    "{\"cake\": \"yes\"}}",
		    -EINVAL, "qdisc_kinds.cake: expected true or false, got a string");
	check_fails("{\"debloat_snapshot\": 1, \"interfaces\": [], \"machine_compatible\": "
		    "\"fsl,imx6q\"}",
		    -EINVAL, "machine_compatible: expected an array, got a string");
	check_fails("{\"debloat_snapshot\": 1, \"interfaces\": [], \"machine_compatible\": "
		    "[\"a\", 6]}",
		    -EINVAL, "machine_compatible[1]: expected a string, got an integer");
	check_fails("{\"debloat_snapshot\": 1, \"interfaces\": [], \"machine_compatible\": "
		    "[\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\"]}",
		    -EINVAL, "machine_compatible: more than 8 entries");
	check_fails(DOC("{" IFACE_OK ", \"usb_speed_mbps\": \"480\"}"), -EINVAL,
		    "interfaces[0].usb_speed_mbps: expected an integer, got a string");
}

TEST(a_tree_deeper_than_the_kernel_reader_builds_is_refused)
{
	char text[4096] = DOC("{" IFACE_OK ", \"qdisc\": ");
	size_t n = strlen(text) - 2; /* before "]}" */
	struct host h = {0};
	char err[256];

	text[n] = '\0';
	for (int i = 0; i <= QDISC_MAX_DEPTH + 1; i++)
		strcat(text, "{\"kind\": \"prio\", \"children\": [");
	strcat(text, "{\"kind\": \"pfifo\"}");
	for (int i = 0; i <= QDISC_MAX_DEPTH + 1; i++)
		strcat(text, "]}");
	strcat(text, "}]}");
	CHECK_EQ(parse(text, &h, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "nested deeper than 8") != NULL);
	CHECK(h.ifaces == NULL);
}

TEST(too_big_is_efbig_without_reading)
{
	struct host h = {0};
	char err[256];

	CHECK_EQ(snapshot_parse("{}", (size_t)SNAPSHOT_MAX_BYTES + 1, &h, err, sizeof(err)),
		 -EFBIG);
	CHECK_STR(err, "larger than 8388608 bytes");
}

TEST(select_keeps_the_named_in_order_once)
{
	struct host h;
	char *names[] = {"lo", "eth0", "lo"}, *bad[] = {"lo", "wlan0"};
	size_t which = 99;

	make_host(&h);
	CHECK_EQ(snapshot_select(&h, bad, 2, &which), -ENODEV);
	CHECK_EQ(which, 1);
	CHECK_EQ(h.n, 2);
	REQUIRE_EQ(snapshot_select(&h, names, 3, &which), 0);
	REQUIRE_EQ(h.n, 2);
	CHECK_STR(h.ifaces[0].name, "lo");
	CHECK_STR(h.ifaces[1].name, "eth0");
	REQUIRE_EQ(snapshot_select(&h, names, 1, &which), 0);
	REQUIRE_EQ(h.n, 1);
	CHECK_STR(h.ifaces[0].name, "lo");
	host_free(&h);
}
