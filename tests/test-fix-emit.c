/* SPDX-License-Identifier: MIT */
/*
 * test-fix-emit.c - src/fix/emit*.c on hand-made plans: each knob kind in each format,
 * the keys and spellings networkd takes (timespans, rates in bits with K/M/G), what a
 * format cannot say becoming a comment and a warning, which steps go in, names and
 * values refused, and emit_write_dir's all-or-nothing. tests/test-fix-emit.sh covers
 * the board snapshots end to end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fix/emit.h"
#include "harness.h"

static struct plan plan;
static struct emit em;

static void plan_start(const char *ifname)
{
	struct plan_options o = {0};

	plan_free(&plan);
	plan_init(&plan, &o);
	plan_add_target(&plan, ifname);
}

static struct plan_step *step(enum knob_kind kind, int queue, const char *name, const char *after)
{
	struct knob k = {.kind = kind, .queue = queue};

	snprintf(k.ifname, sizeof(k.ifname), "%s", kind == KNOB_SYSCTL ? "" : plan.targets[0].name);
	snprintf(k.name, sizeof(k.name), "%s", name);
	if (plan_add_step(&plan, kind == KNOB_SYSCTL ? -1 : 0, &k, after, false, "test") < 0)
		return NULL;
	return &plan.steps[plan.nsteps - 1];
}

/* The text of the file named name, or "(none)". */
static const char *file(const char *name)
{
	for (unsigned i = 0; i < em.nfiles; i++)
		if (!strcmp(em.files[i].name, name))
			return em.files[i].text;
	return "(none)";
}

/* The file's lines that are neither comments nor blank, joined by '|'. */
static const char *body(const char *name)
{
	static char out[4096];
	const char *t = file(name);
	size_t n = 0;

	out[0] = '\0';
	while (*t) {
		const char *end = strchr(t, '\n');
		size_t len = end ? (size_t)(end - t) : strlen(t);

		if (len && t[0] != '#' && n + len + 2 < sizeof(out)) {
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%.*s", n ? "|" : "",
					      (int)len, t);
		}
		t += len + (end ? 1 : 0);
	}
	return out;
}

static int emit(enum emit_format f)
{
	emit_free(&em);
	return emit_plan(&plan, f, &em);
}

TEST(networkd_fq_codel_times_and_sizes)
{
	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "",
	     "fq_codel limit 800 quantum 300 target 2500us interval 100ms "
	     "memory_limit 4Mb ecn");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[FairQueueingControlledDelay]|Parent=root|Handle=1|PacketLimit=800|"
		  "QuantumBytes=300|TargetSec=2500us|IntervalSec=100ms|MemoryLimitBytes=4194304|"
		  "ECN=yes");
	CHECK_EQ(em.nwarnings, 0u);
	CHECK_STR(file("10-debloat-eth0.link"), "(none)"); /* no link-level step */
}

TEST(networkd_fq_and_cake_words)
{
	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "fq maxrate 10mbit nopacing flow_limit 50");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[FairQueueing]|Parent=root|Handle=1|MaximumRate=10M|Pacing=no|FlowLimit=50");

	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "cake bandwidth 223250kbit diffserv4 triple-isolate nat");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[CAKE]|Parent=root|Handle=1|Bandwidth=223250K|PriorityQueueingPreset=diffserv4|"
		  "FlowIsolationMode=triple|NAT=yes");
	CHECK_EQ(em.nwarnings, 0u);
}

/* Each key comes from the kind's table: times as timespans, on/off as yes/no, a FIFO's
 * limit in its own unit. */
TEST(networkd_fq_codel_and_fifo_keys)
{
	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "fq_codel limit 800 target 5ms interval 100ms noecn");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[FairQueueingControlledDelay]|Parent=root|Handle=1|PacketLimit=800|"
		  "TargetSec=5ms|IntervalSec=100ms|ECN=no");

	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "bfifo limit 30000");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[BFIFO]|Parent=root|Handle=1|LimitBytes=30000");
	CHECK_EQ(em.nwarnings, 0u);
}

TEST(networkd_says_what_it_cannot)
{
	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "cake bandwidth 20mbit rtt 50ms");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	/* The rest of the section stays; the option goes to a comment and a warning. */
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[CAKE]|Parent=root|Handle=1|Bandwidth=20M");
	CHECK(strstr(file("90-debloat-eth0.network.conf"),
		     "# debloat: cannot set eth0 root qdisc to \"cake bandwidth 20mbit rtt 50ms\" "
		     "here: systemd.network(5) has no key for cake's \"rtt\"") != NULL);
	REQUIRE_EQ(em.nwarnings, 1u);
	CHECK(strstr(em.warnings[0], "networkd cannot set eth0 root qdisc") == em.warnings[0]);

	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "mq fq_codel limit 800");
	step(KNOB_BQL_LIMIT_MAX, 2, "", "3000");
	step(KNOB_INGRESS, 0, "", "cake bandwidth 50mbit");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"), ""); /* comments only */
	CHECK_EQ(em.nwarnings, 3u);
	CHECK(strstr(file("90-debloat-eth0.network.conf"), "tx-2 BQL limit_max") != NULL);
}

TEST(networkd_htb_class_and_leaf)
{
	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "htb 95mbit pfifo limit 39");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("90-debloat-eth0.network.conf"),
		  "[HierarchyTokenBucket]|Parent=root|Handle=1|DefaultClass=1|"
		  "[HierarchyTokenBucketClass]|Parent=1:0|ClassId=1:1|Rate=95M|CeilRate=95M|"
		  "[PFIFO]|Parent=1:1|Handle=10|PacketLimit=39");
}

TEST(networkd_link_keys)
{
	plan_start("end0");
	step(KNOB_TXQUEUELEN, 0, "", "100");
	step(KNOB_GSO_MAX_SIZE, 0, "", "3028");
	step(KNOB_RING_RX, 0, "", "248");
	step(KNOB_OFFLOAD, 0, "tx-tcp-segmentation", "off");
	step(KNOB_OFFLOAD, 0, "rx-lro", "on");
	step(KNOB_OFFLOAD, 0, "tx-udp-segmentation", "off");
	step(KNOB_TX_USECS, 0, "", "64");
	step(KNOB_SYSCTL, 0, "net.ipv4.tcp_ecn", "1");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_STR(body("10-debloat-end0.link"),
		  "[Match]|OriginalName=end0|[Link]|NamePolicy=keep kernel database onboard slot "
		  "path|AlternativeNamesPolicy=database onboard slot path|"
		  "MACAddressPolicy=persistent|TransmitQueueLength=100|"
		  "GenericSegmentOffloadMaxBytes=3028|RxBufferSize=248|TCPSegmentationOffload=no|"
		  "LargeReceiveOffload=yes|TxCoalesceSec=64us");
	/* tx-udp-segmentation, and end0 is a name udev gives: OriginalName= cannot match it */
	REQUIRE_EQ(em.nwarnings, 2u);
	CHECK(strstr(em.warnings[0], "networkd matches end0 by OriginalName=") == em.warnings[0]);
	CHECK(strstr(file("10-debloat-end0.link"), "# debloat: end0 looks like a name udev gave") !=
	      NULL);
	plan.targets[0].name[1] = 't'; /* "et0": a kernel's name */
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_EQ(em.nwarnings, 1u);
	CHECK_STR(body("90-debloat.sysctl.conf"), "net.ipv4.tcp_ecn = 1");
	CHECK_STR(file("90-debloat-end0.network.conf"), "(none)");
}

TEST(udev_two_rules_per_queue)
{
	plan_start("eth0");
	step(KNOB_BQL_LIMIT_MAX, 0, "", "3000");
	step(KNOB_BQL_LIMIT_MAX, 3, "", "1514");
	step(KNOB_OFFLOAD, 0, "rx-gro", "off");
	step(KNOB_SYSCTL, 0, "net.ipv4.tcp_ecn", "1");
	REQUIRE_EQ(emit(EMIT_UDEV), 0);
	/* The kernel's name, then the name a rule before ours gave it (a rename). */
	CHECK_STR(body("90-debloat-eth0.rules"),
		  "ACTION==\"add\", SUBSYSTEM==\"net\", KERNEL==\"eth0\", "
		  "ATTR{queues/tx-0/byte_queue_limits/limit_max}=\"3000\"|"
		  "ACTION==\"add\", SUBSYSTEM==\"net\", NAME==\"eth0\", KERNEL!=\"eth0\", "
		  "ATTR{queues/tx-0/byte_queue_limits/limit_max}=\"3000\"|"
		  "ACTION==\"add\", SUBSYSTEM==\"net\", KERNEL==\"eth0\", "
		  "ATTR{queues/tx-3/byte_queue_limits/limit_max}=\"1514\"|"
		  "ACTION==\"add\", SUBSYSTEM==\"net\", NAME==\"eth0\", KERNEL!=\"eth0\", "
		  "ATTR{queues/tx-3/byte_queue_limits/limit_max}=\"1514\"");
	REQUIRE_EQ(em.nwarnings, 2u); /* the offload and the sysctl */
	CHECK(strstr(em.warnings[1], "net.ipv4.tcp_ecn") && strstr(em.warnings[1], "host-wide"));
	CHECK_EQ(em.nfiles, 1u);
}

TEST(nm_properties)
{
	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "fq_codel limit 800 target 5ms ecn");
	step(KNOB_RING_TX, 0, "", "16");
	step(KNOB_OFFLOAD, 0, "tx-generic-segmentation", "off");
	step(KNOB_TXQUEUELEN, 0, "", "100");
	step(KNOB_TX_USECS, 0, "", "64");
	REQUIRE_EQ(emit(EMIT_NM), 0);
	CHECK_STR(body("debloat-eth0.nmcli"),
		  "set -e|conn=$(nmcli -g GENERAL.CONNECTION device show eth0)|"
		  "nmcli connection modify \"$conn\" \\|"
		  "\ttc.qdiscs 'root handle 1: fq_codel limit 800 target 5000 ecn' \\|"
		  "\tethtool.ring-tx 16 \\|\tethtool.feature-gso off \\|"
		  "\tethtool.coalesce-tx-usecs 64|nmcli device reapply eth0");
	CHECK_EQ(em.nwarnings, 0u); /* txqueuelen: NetworkManager's dispatcher sets it */
	CHECK_STR(body("90-debloat-eth0"), "[ \"$1\" = eth0 ] || exit 0|case \"$2\" in|"
					   "up | reapply) ;;|*) exit 0 ;;|esac|rc=0|"
					   "ip link set dev eth0 txqueuelen 100 || rc=1|exit $rc");
	/* the files in name order, as a listing shows them */
	REQUIRE_EQ(em.nfiles, 2u);
	CHECK_STR(em.files[0].name, "90-debloat-eth0");
	CHECK_STR(em.files[1].name, "debloat-eth0.nmcli");

	plan_start("eth0");
	step(KNOB_SYSCTL, 0, "net.ipv4.tcp_ecn", "1");
	REQUIRE_EQ(emit(EMIT_NM), 0);
	REQUIRE_EQ(em.nwarnings, 1u);
	CHECK(strstr(em.warnings[0], "host-wide: `debloat fix --emit networkd` writes it") != NULL);

	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "fq_codel noecn");
	step(KNOB_ROOT_QDISC, 0, "", "pfifo limit 100");
	step(KNOB_ROOT_QDISC, 0, "", "htb 10mbit fq_codel");
	step(KNOB_INGRESS, 0, "", "cake bandwidth 20mbit");
	REQUIRE_EQ(emit(EMIT_NM), 0);
	/* no tc.qdiscs words for them: the dispatcher's, each after deleting the root there */
	CHECK_EQ(em.nwarnings, 1u); /* the ingress shaper: fix --persist's */
	CHECK(strstr(em.warnings[0], "ingress") && strstr(em.warnings[0], "--persist"));
	CHECK_STR(body("debloat-eth0.nmcli"), "set -e");
	CHECK(strstr(file("debloat-eth0.nmcli"), "no property to set: all of it is in "
						 "90-debloat-eth0\n") != NULL);
	CHECK(strstr(file("90-debloat-eth0"),
		     "tc qdisc del dev eth0 root 2>/dev/null\n"
		     "tc qdisc replace dev eth0 root handle 1: fq_codel noecn || rc=1\n") != NULL);
	CHECK(strstr(file("90-debloat-eth0"),
		     "tc qdisc replace dev eth0 root handle 1: pfifo limit 100 || rc=1\n") != NULL);
	CHECK(strstr(file("90-debloat-eth0"),
		     "tc class replace dev eth0 parent 1: classid 1:1 htb rate 10mbit ceil 10mbit "
		     "|| rc=1\n") != NULL);

	plan_start("eth0");
	step(KNOB_ROOT_QDISC, 0, "", "mq fq_codel"); /* no iface: TX queues unknown */
	REQUIRE_EQ(emit(EMIT_NM), 0);
	CHECK_EQ(em.nwarnings, 1u);
}

TEST(which_steps_go_in)
{
	plan_start("eth0");
	step(KNOB_TXQUEUELEN, 0, "", "100")->status = STEP_SAME; /* in place: still part of it */
	step(KNOB_RING_TX, 0, "", "16")->status = STEP_UNSUPPORTED;
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK(strstr(file("10-debloat-eth0.link"), "TransmitQueueLength=100\n") != NULL);
	CHECK(strstr(file("10-debloat-eth0.link"), "TxBufferSize") == NULL);
	plan.targets[0].skipped = true;
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	CHECK_EQ(em.nfiles, 0u);
}

TEST(names_and_values_that_could_break_a_file_are_refused)
{
	plan_start("eth0\"x");
	step(KNOB_TXQUEUELEN, 0, "", "100");
	CHECK_EQ(emit(EMIT_UDEV), -EINVAL);
	CHECK_EQ(em.nfiles, 0u);
	plan_start("eth0");
	step(KNOB_SYSCTL, 0, "net.core.default_qdisc", "fq_codel'; reboot; '");
	CHECK_EQ(emit(EMIT_NM), -EINVAL);
	plan_start("eth0");
	step(KNOB_TXQUEUELEN, 0, "", "100\n[Link]");
	CHECK_EQ(emit(EMIT_NETWORKD), -EINVAL);
	CHECK_EQ(emit_format_from_name("yaml"), -EINVAL);
	CHECK_EQ(emit_format_from_name("nm"), EMIT_NM);
}

TEST(write_dir_is_all_or_nothing)
{
	char dir[] = "/tmp/debloat-emit-XXXXXX", path[256], buf[16];
	size_t bad = 0;
	int fd;
	ssize_t n;

	REQUIRE(mkdtemp(dir) != NULL);
	plan_start("eth0");
	step(KNOB_TXQUEUELEN, 0, "", "100");
	step(KNOB_ROOT_QDISC, 0, "", "fq_codel");
	REQUIRE_EQ(emit(EMIT_NETWORKD), 0);
	REQUIRE_EQ(em.nfiles, 2u);

	/* The second file's name is taken: nothing is written, it is untouched. */
	snprintf(path, sizeof(path), "%s/%s", dir, em.files[1].name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0);
	CHECK_EQ(write(fd, "keep", 4), 4);
	close(fd);
	CHECK_EQ(emit_write_dir(dir, &em, &bad), -EEXIST);
	CHECK_EQ(bad, 1u);
	snprintf(path, sizeof(path), "%s/%s", dir, em.files[0].name);
	CHECK(access(path, F_OK) < 0);
	snprintf(path, sizeof(path), "%s/%s", dir, em.files[1].name);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	CHECK_EQ(n, 4);
	CHECK(!memcmp(buf, "keep", 4));
	unlink(path);

	CHECK_EQ(emit_write_dir(dir, &em, &bad), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, em.files[0].name);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	CHECK(n > 0 && !memcmp(buf, em.files[0].text, (size_t)n));
	for (unsigned i = 0; i < em.nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, em.files[i].name);
		CHECK_EQ(unlink(path), 0);
	}
	CHECK_EQ(rmdir(dir), 0); /* no temporary file left */

	bad = 0;
	CHECK_EQ(emit_write_dir(dir, &em, &bad), -ENOENT);
	CHECK_EQ(bad, SIZE_MAX);
	emit_free(&em);
	plan_free(&plan);
}
