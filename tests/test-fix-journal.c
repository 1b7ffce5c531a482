/* SPDX-License-Identifier: MIT */
/*
 * test-fix-journal.c - src/fix/journal.c and the files of src/fix/persist.c: the text
 * round trip, the records a crash leaves, atomic replacement under kill -9, strict
 * parsing with FILE:LINE messages that never deletes a bad journal, and extension
 * keeping the oldest "before" of each knob.
 */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fix/journal.h"
#include "fix/persist.h"
#include "fix/plan.h"
#include "harness.h"

static struct knob kn(enum knob_kind kind, const char *ifname, int queue, const char *name)
{
	struct knob k;

	memset(&k, 0, sizeof(k));
	k.kind = kind;
	snprintf(k.ifname, sizeof(k.ifname), "%s", ifname ? ifname : "");
	k.queue = queue;
	snprintf(k.name, sizeof(k.name), "%s", name ? name : "");
	return k;
}

/* One step of every kind, with values that need quoting. */
static void sample(struct journal *j)
{
	struct knob k;

	journal_init(j);
	j->created = 1718000000;
	j->pid = 4242;
	k = kn(KNOB_ROOT_QDISC, "eth0", 0, NULL);
	CHECK_EQ(journal_add(j, &k, "default", "htb 95mbit pfifo limit 100",
			     "replaced \"other: htb 1:\" (--force)\nline two\t\x01\xc3\xa9", NULL),
		 0);
	k = kn(KNOB_TXQUEUELEN, "eth0", 0, NULL);
	CHECK_EQ(journal_add(j, &k, "1000", "100", "", NULL), 0);
	k = kn(KNOB_BQL_LIMIT_MAX, "eth0", 3, NULL);
	CHECK_EQ(journal_add(j, &k, "1879048192", "3000", "", NULL), 0);
	k = kn(KNOB_RING_RX, "eth0", 0, NULL);
	CHECK_EQ(journal_add(j, &k, "128", "248", "", NULL), 0);
	k = kn(KNOB_RING_TX, "eth0", 0, NULL);
	CHECK_EQ(journal_add(j, &k, "512", "8", "", NULL), 0);
	k = kn(KNOB_OFFLOAD, "eth0", 0, "tx-generic-segmentation");
	CHECK_EQ(journal_add(j, &k, "on", "off", "", NULL), 0);
	k = kn(KNOB_SYSCTL, NULL, 0, "net.core.default_qdisc");
	CHECK_EQ(journal_add(j, &k, "pfifo_fast", "fq_codel", "", NULL), 0);
	k = kn(KNOB_SYSCTL, NULL, 0, "net.ipv4.tcp_rmem");
	CHECK_EQ(journal_add(j, &k, "4096\t131072\t6291456", "4096 131072 6291456", "", NULL), 0);
	j->steps[0].state = JOURNAL_APPLIED;
	j->steps[1].state = JOURNAL_BEGUN;
}

static bool journals_equal(const struct journal *a, const struct journal *b)
{
	if (a->n != b->n || a->created != b->created || a->pid != b->pid)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct journal_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->id != y->id || x->state != y->state ||
		    !journal_knob_same(&x->knob, &y->knob) || x->knob.queue != y->knob.queue ||
		    strcmp(x->before, y->before) || strcmp(x->after, y->after) ||
		    strcmp(x->note, y->note))
			return false;
	}
	return true;
}

static char *format(const struct journal *j, size_t *len)
{
	char *text = NULL;

	CHECK_EQ(journal_format(j, &text, len), 0);
	return text;
}

TEST(format_and_parse_round_trip_every_kind_and_odd_bytes)
{
	struct journal j, back;
	char err[256], *text;
	size_t len;

	sample(&j);
	text = format(&j, &len);
	REQUIRE(text);
	CHECK(strstr(text, "step 1 applied root-qdisc eth0 - - \"default\"") != NULL);
	CHECK(strstr(text, "bql-limit-max eth0 3 -") != NULL);
	CHECK(strstr(text, "sysctl - - net.core.default_qdisc") != NULL);
	CHECK(strstr(text, "\\\"other: htb 1:\\\"") != NULL);
	CHECK(strstr(text, "\\x01\\xc3\\xa9") != NULL);
	CHECK_EQ(journal_parse(text, len, "j", &back, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK(journals_equal(&j, &back));
	free(text);
	journal_free(&back);
	journal_free(&j);
}

TEST(records_after_end_move_steps_forward_and_a_torn_last_record_is_ignored)
{
	struct journal j, back;
	char err[256], *text, buf[8192];
	size_t len;

	sample(&j);
	j.steps[1].state = JOURNAL_PLANNED;
	text = format(&j, &len);
	REQUIRE(text);
	/* begin 2, done 2, begin 3, then a "done 3" that power loss cut short. */
	snprintf(buf, sizeof(buf), "%sbegin 2\ndone 2\nbegin 3\ndone", text);
	CHECK_EQ(journal_parse(buf, strlen(buf), "j", &back, err, sizeof(err)), 0);
	CHECK_EQ(back.steps[0].state, JOURNAL_APPLIED);
	CHECK_EQ(back.steps[1].state, JOURNAL_APPLIED);
	CHECK_EQ(back.steps[2].state, JOURNAL_BEGUN); /* restored by undo: harmless if untouched */
	CHECK_EQ(back.steps[3].state, JOURNAL_PLANNED); /* never begun: skipped by undo */
	journal_free(&back);
	/* "begin" never goes back: a done step begun again (a second fix) stays applied. */
	snprintf(buf, sizeof(buf), "%sdone 4\nbegin 4\n", text);
	CHECK_EQ(journal_parse(buf, strlen(buf), "j", &back, err, sizeof(err)), 0);
	CHECK_EQ(back.steps[3].state, JOURNAL_APPLIED);
	journal_free(&back);
	free(text);
	journal_free(&j);
}

/* Each bad journal and the line its message must name. */
TEST(malformed_journals_are_rejected_with_their_line)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *what;
	} bad[] = {
	    {"", 1, "empty"},
	    {"debloat-journal 1\n", 1, "no \"end\""},
	    {"hello\n", 1, "not a debloat journal"},
	    {"debloat-journal 2\nend\n", 1, "version 2"},
	    {"debloat-journal 1\ncreated 1\npid 2\nstep 1 planned root-qdisc eth0 - - \"a\"\nend\n",
	     4, "10 fields"},
	    {"debloat-journal 1\nstep 1 planned nosuch eth0 - - \"a\" \"b\" \"\"\nend\n", 2,
	     "unknown knob kind"},
	    {"debloat-journal 1\nstep 1 planned root-qdisc eth0/x - - \"a\" \"b\" \"\"\nend\n", 2,
	     "interface name"},
	    {"debloat-journal 1\nstep 1 planned bql-limit-max eth0 - - \"a\" \"b\" \"\"\nend\n", 2,
	     "TX queue"},
	    {"debloat-journal 1\nstep 1 planned sysctl eth0 - net.ipv4.tcp_ecn \"a\" \"b\" "
	     "\"\"\nend\n",
	     2, "no interface"},
	    {"debloat-journal 1\nstep 1 planned sysctl - - ../../etc/passwd \"a\" \"b\" "
	     "\"\"\nend\n",
	     2, "name"},
	    {"debloat-journal 1\nstep 1 maybe txqueuelen eth0 - - \"a\" \"b\" \"\"\nend\n", 2,
	     "state"},
	    /* the registry's flags: tx-usecs has neither a queue nor a name */
	    {"debloat-journal 1\nstep 1 planned tx-usecs eth0 3 - \"a\" \"b\" \"\"\nend\n", 2,
	     "queue"},
	    {"debloat-journal 1\nstep 1 planned tx-usecs eth0 - x \"a\" \"b\" \"\"\nend\n", 2,
	     "name"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"\"\n"
	     "step 1 planned txqueuelen eth1 - - \"a\" \"b\" \"\"\nend\n",
	     3, "twice"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"\"\n"
	     "step 2 planned txqueuelen eth0 - - \"a\" \"b\" \"\"\nend\n",
	     3, "already lists"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a \"b\" \"\"\nend\n", 2,
	     "blank after a closing quote"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"\\q\"\nend\n", 2,
	     "escape"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"x\n", 2,
	     "unterminated"},
	    {"debloat-journal 1\nend\nbegin 7\n", 3, "not in the journal"},
	    {"debloat-journal 1\nend\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"\"\n", 3,
	     "only \"begin ID\""},
	    {"debloat-journal 1\npid 1\npid 2\nend\n", 3, "repeated"},
	    {"debloat-journal 1\nwhat\nend\n", 2, "unknown line"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"\"\nend", 3,
	     "incomplete last line"},
	    {"debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"a\" \"b\" \"\"", 2,
	     "incomplete last line"},
	};
	struct journal j;
	char err[256], want[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int r = journal_parse(bad[i].text, strlen(bad[i].text), "/x/journal", &j, err,
				      sizeof(err));

		CHECK(r == -EINVAL || r == -EPROTONOSUPPORT);
		CHECK_EQ(j.n, 0);
		snprintf(want, sizeof(want), "/x/journal:%u: ", bad[i].line);
		if (!CHECK(!strncmp(err, want, strlen(want))) || !CHECK(strstr(err, bad[i].what)))
			printf("  journal %zu: %s\n", i, err);
	}
}

static char tmpdir[] = "/tmp/test-fix-journal.XXXXXX";

static const char *scratch(void)
{
	static bool made;

	if (!made)
		made = mkdtemp(tmpdir) != NULL;
	return tmpdir;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

TEST(a_bad_journal_file_is_reported_and_left_alone)
{
	char path[256], err[512];
	const char *text = "debloat-journal 1\nstep 1 planned txqueuelen eth0 - - \"1000\" \"100\" "
			   "\"\"\nstep 2 applied bogus\nend\n";
	struct journal j;

	snprintf(path, sizeof(path), "%s/bad", scratch());
	write_text(path, text);
	CHECK_EQ(journal_read_file(path, &j, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, path) != NULL);
	CHECK(strstr(err, ":3: ") != NULL);
	REQUIRE(slurp(path));
	CHECK_STR(slurp(path), text);
	snprintf(path, sizeof(path), "%s/none", scratch());
	CHECK_EQ(journal_read_file(path, &j, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "");
}

TEST(write_append_read_file)
{
	char path[256], err[256];
	struct journal j, back;
	struct stat st;

	snprintf(path, sizeof(path), "%s/journal", scratch());
	sample(&j);
	CHECK_EQ(journal_write_file(path, &j), 0);
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 0777, 0600);
	CHECK_EQ(journal_append(path, "begin", 3), 0);
	CHECK_EQ(journal_append(path, "done", 3), 0);
	CHECK_EQ(journal_read_file(path, &back, err, sizeof(err)), 0);
	CHECK_EQ(back.steps[2].state, JOURNAL_APPLIED);
	back.steps[2].state = JOURNAL_PLANNED;
	CHECK(journals_equal(&j, &back));
	journal_free(&back);
	CHECK_EQ(journal_remove_file(path), 0);
	CHECK_EQ(access(path, F_OK), -1);
	CHECK_EQ(journal_remove_file(path), 0); /* already gone is fine */
	journal_free(&j);
}

/*
 * kill -9 at random moments while a child replaces the journal again and again with
 * one of two versions: the file always parses as the one or the other, never a mix,
 * a truncation or nothing.
 */
TEST(atomic_write_leaves_the_old_or_the_new_journal_under_kill_9)
{
	char path[256], err[256], *a_text, *b_text;
	struct journal a, b, got;
	size_t alen, blen;
	struct knob k = kn(KNOB_TXQUEUELEN, "eth1", 0, NULL);
	unsigned seen_a = 0, seen_b = 0;

	snprintf(path, sizeof(path), "%s/atomic", scratch());
	sample(&a);
	CHECK_EQ(journal_copy(&b, &a), 0);
	for (int i = 0; i < 200; i++) { /* b is much longer: a torn write would show */
		k.queue = 0;
		snprintf(k.ifname, sizeof(k.ifname), "veth%d", i);
		CHECK_EQ(journal_add(&b, &k, "1000", "100", "", NULL), 0);
	}
	a_text = format(&a, &alen);
	b_text = format(&b, &blen);
	REQUIRE(a_text && b_text);
	REQUIRE_EQ(journal_write_file(path, &a), 0);
	srand((unsigned)time(NULL));
	for (int round = 0; round < 60; round++) {
		pid_t pid = fork();
		struct timespec ts = {0, (long)(rand() % 3000) * 1000};

		REQUIRE(pid >= 0);
		if (pid == 0) {
			for (unsigned n = 0;; n++)
				journal_write_file(path, n % 2 ? &a : &b);
		}
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (!CHECK_EQ(journal_read_file(path, &got, err, sizeof(err)), 0)) {
			printf("  round %d: %s\n", round, err);
			continue;
		}
		if (journals_equal(&got, &a))
			seen_a++;
		else if (CHECK(journals_equal(&got, &b)))
			seen_b++;
		journal_free(&got);
	}
	CHECK_EQ(seen_a + seen_b, 60);
	free(a_text);
	free(b_text);
	journal_free(&a);
	journal_free(&b);
}

TEST(extension_keeps_the_oldest_before_and_the_id)
{
	struct journal j;
	struct knob root = kn(KNOB_ROOT_QDISC, "eth0", 0, NULL);
	struct knob q1 = kn(KNOB_BQL_LIMIT_MAX, "eth0", 1, NULL);
	struct knob q2 = kn(KNOB_BQL_LIMIT_MAX, "eth0", 2, NULL);
	unsigned id;

	journal_init(&j);
	CHECK_EQ(journal_add(&j, &root, "default", "fq_codel limit 800 ecn", "", &id), 0);
	CHECK_EQ(id, 1);
	j.steps[0].state = JOURNAL_APPLIED;
	CHECK_EQ(journal_add(&j, &q1, "1879048192", "3000", "", &id), 0);
	CHECK_EQ(id, 2);
	/* A second fix (--role server): the root changes again; its before stays. */
	CHECK_EQ(journal_add(&j, &root, "fq_codel limit 800", "fq", "", &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(j.n, 2);
	CHECK_STR(j.steps[0].before, "default");
	CHECK_STR(j.steps[0].after, "fq");
	CHECK_EQ(j.steps[0].state, JOURNAL_APPLIED);
	/* A queue is a knob of its own; a new knob gets the next id. */
	CHECK_EQ(journal_add(&j, &q2, "1879048192", "3000", "", &id), 0);
	CHECK_EQ(id, 3);
	CHECK(journal_find(&j, &q1) != journal_find(&j, &q2));
	journal_remove_at(&j, 0);
	CHECK_EQ(j.n, 2);
	CHECK(journal_find(&j, &root) == NULL);
	CHECK_EQ(journal_add(&j, &root, "x", "y", "", &id), 0);
	CHECK_EQ(id, 4); /* ids are never reused while the journal lives */
	journal_free(&j);
}

TEST(split_line_and_quote_are_inverse)
{
	static const char *const values[] = {"",	  "plain", "two words",	   "q\"uo\\te",
					     "tab\there", "nl\nx", "\x7f\x80\xff", "- not a dash"};
	char line[512], quoted[256], *tok[4];
	const char *why;
	size_t n;

	for (size_t i = 0; i < sizeof(values) / sizeof(*values); i++) {
		CHECK(journal_quote(values[i], quoted, sizeof(quoted)) > 0);
		snprintf(line, sizeof(line), "set %s x", quoted);
		REQUIRE_EQ(journal_split_line(line, tok, 4, &n, &why), 0);
		REQUIRE_EQ(n, 3);
		CHECK_STR(tok[1], values[i]);
		CHECK_STR(tok[2], "x");
	}
	CHECK_EQ(journal_quote("abcdef", quoted, 5), -ENOSPC);
	snprintf(line, sizeof(line), "a b c d e");
	CHECK_EQ(journal_split_line(line, tok, 4, &n, &why), -EINVAL);
	snprintf(line, sizeof(line), "\"\\x00\"");
	CHECK_EQ(journal_split_line(line, tok, 4, &n, &why), -EINVAL);
}

/* ---- persist files ---- */

static void persist_plan(struct plan *p)
{
	struct knob k;

	plan_init(p, NULL);
	CHECK_EQ(plan_add_target(p, "br-lan"), 0);
	k = kn(KNOB_ROOT_QDISC, "br-lan", 0, NULL);
	CHECK_EQ(plan_add_step(p, 0, &k, "htb 95mbit pfifo limit 100", false, "x"), 0);
	k = kn(KNOB_OFFLOAD, "br-lan", 0, "rx-gro");
	CHECK_EQ(plan_add_step(p, 0, &k, "off", true, "x"), 0);
	p->steps[1].status = STEP_REFUSED; /* the driver said no: not part of the setup */
	k = kn(KNOB_TXQUEUELEN, "br-lan", 0, NULL);
	CHECK_EQ(plan_add_step(p, 0, &k, "100", false, "x"), 0);
	p->steps[2].status = STEP_SAME; /* already so: still part of it */
	k = kn(KNOB_SYSCTL, NULL, 0, "net.ipv4.tcp_ecn");
	CHECK_EQ(plan_add_step(p, -1, &k, "1", false, "x"), 0);
}

TEST(persisted_setup_round_trips_without_refused_steps)
{
	struct plan p;
	struct persist ps;
	char err[256], *text;
	size_t len;

	persist_plan(&p);
	CHECK_EQ(persist_format(&p, 0, &text, &len), 0);
	REQUIRE(text);
	CHECK_EQ(persist_parse(text, len, "f", &ps, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(ps.ifname, "br-lan");
	REQUIRE_EQ(ps.n, 3);
	CHECK_EQ(ps.sets[0].knob.kind, KNOB_ROOT_QDISC);
	CHECK_STR(ps.sets[0].value, "htb 95mbit pfifo limit 100");
	CHECK_EQ(ps.sets[1].knob.kind, KNOB_TXQUEUELEN);
	CHECK_EQ(ps.sets[2].knob.kind, KNOB_SYSCTL);
	CHECK_STR(ps.sets[2].knob.name, "net.ipv4.tcp_ecn");
	persist_free(&ps);
	free(text);
	plan_free(&p);
}

TEST(malformed_persisted_setups_are_rejected_with_their_line)
{
	static const struct {
		const char *text;
		const char *where;
	} bad[] = {
	    {"debloat-persist 1\nset txqueuelen eth0 - - \"1\"\nend\n", "f:2: "},
	    {"debloat-persist 1\niface eth0\nset txqueuelen eth1 - - \"1\"\nend\n", "f:3: "},
	    {"debloat-persist 1\niface eth0\nset txqueuelen eth0 - - \"1\"\n"
	     "set txqueuelen eth0 - - \"2\"\nend\n",
	     "f:4: "},
	    {"debloat-persist 1\niface eth0\nend\nset txqueuelen eth0 - - \"1\"\n", "f:4: "},
	    {"debloat-persist 1\niface eth0\n", "f:2: "},
	    {"debloat-persist 9\niface eth0\nend\n", "f:1: "},
	    {"debloat-persist 1\niface ../x\nend\n", "f:2: "},
	};
	struct persist ps;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int r = persist_parse(bad[i].text, strlen(bad[i].text), "f", &ps, err, sizeof(err));

		CHECK(r == -EINVAL || r == -EPROTONOSUPPORT);
		if (!CHECK(!strncmp(err, bad[i].where, strlen(bad[i].where))))
			printf("  setup %zu: %s\n", i, err);
	}
}

TEST(persist_install_and_uninstall_under_a_root)
{
	char root[300], path[600], *text;
	struct persist_files files;
	struct persist ps;
	struct plan p;
	char err[512];

	snprintf(root, sizeof(root), "%s/root", scratch());
	mkdir(root, 0755);
	snprintf(path, sizeof(path), "%s/etc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/network", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/network/if-up.d", root);
	mkdir(path, 0755);
	persist_plan(&p);
	CHECK_EQ(persist_install(root, &p, 0, "/usr/sbin/debloat", &files, err, sizeof(err)), 0);
	CHECK_EQ(files.n, 4);
	CHECK_EQ(persist_read(root, "br-lan", &ps, err, sizeof(err)), 0);
	CHECK_EQ(ps.n, 3);
	persist_free(&ps);
	snprintf(path, sizeof(path), "%s/etc/systemd/system/debloat-fix@.service", root);
	text = slurp(path);
	REQUIRE(text);
	CHECK(strstr(text, "ExecStart=/usr/sbin/debloat fix --apply-persisted %I\n") != NULL);
	CHECK(strstr(text, "BindsTo=sys-subsystem-net-devices-%i.device\n") != NULL);
	/* The instance and its device are escaped as systemd escapes them. */
	snprintf(path, sizeof(path),
		 "%s/etc/systemd/system/sys-subsystem-net-devices-br\\x2dlan.device.wants/"
		 "debloat-fix@br\\x2dlan.service",
		 root);
	REQUIRE(slurp(path));
	CHECK(strstr(slurp(path), "ExecStart=/usr/sbin/debloat") != NULL); /* resolves */
	snprintf(path, sizeof(path), "%s/etc/network/if-up.d/debloat", root);
	REQUIRE(slurp(path));
	CHECK(strstr(slurp(path), "exec /usr/sbin/debloat fix --apply-persisted \"$IFACE\"") !=
	      NULL);

	CHECK_EQ(persist_uninstall(root, NULL, 0, &files, err, sizeof(err)), 0);
	CHECK_EQ(files.n, 4);
	CHECK_EQ(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/etc/debloat", root);
	CHECK_EQ(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/etc/network/if-up.d", root);
	CHECK_EQ(access(path, F_OK), 0); /* not ours to remove */
	plan_free(&p);
}

TEST(instance_escaping)
{
	char buf[64];

	CHECK(persist_escape_instance("eth0", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "eth0");
	CHECK(persist_escape_instance("br-lan", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "br\\x2dlan");
	CHECK(persist_escape_instance("wlan0.100", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "wlan0.100");
	CHECK(persist_escape_instance(".x", buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "\\x2ex");
	CHECK_EQ(persist_escape_instance("br-lan", buf, 5), -ENOSPC);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Last in file order: the scratch directory goes. */
TEST(zz_remove_scratch_directory)
{
	CHECK_EQ(nftw(scratch(), remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}
