/* SPDX-License-Identifier: MIT */
/*
 * test-lab-run.c - the lab's runtime without root: the telemetry writer (CSV and
 * JSON, counters as deltas, wire utilisation), the summary's JSON, namespace names,
 * and the event loop itself over SOCK_SEQPACKET socket pairs standing in for the two
 * tun devices (they keep packet boundaries, as a tun does), stopped by a signal read
 * from a signalfd, as cmd-lab.c does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/json.h"
#include "base/print.h"
#include "harness.h"
#include "lab/frame.h"
#include "lab/netns.h"
#include "lab/profile.h"
#include "lab/run.h"
#include "lab/telemetry.h"

static struct lab_telemetry sample(uint64_t t_ns)
{
	struct lab_telemetry t;

	memset(&t, 0, sizeof(t));
	t.t_ns = t_ns;
	return t;
}

TEST(telemetry_format_from_the_file_name)
{
	CHECK_EQ(lab_telemetry_format_of("t.csv"), LAB_TELEMETRY_CSV);
	CHECK_EQ(lab_telemetry_format_of("/tmp/T.CSV"), LAB_TELEMETRY_CSV);
	CHECK_EQ(lab_telemetry_format_of("t.json"), LAB_TELEMETRY_JSON);
	CHECK_EQ(lab_telemetry_format_of("csv"), LAB_TELEMETRY_JSON);
	CHECK_EQ(lab_telemetry_format_of("t"), LAB_TELEMETRY_JSON);
}

TEST(telemetry_csv_header_and_deltas)
{
	char *buf = NULL, *line2;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lab_telemetry_writer *w;
	struct lab_telemetry_header h = {"p", "d", 10, 1.5};
	struct lab_telemetry a = sample(1000000000), b = sample(1010000000);
	int header_cols = 1, row_cols = 1;

	REQUIRE(f);
	REQUIRE_EQ(lab_telemetry_new(f, LAB_TELEMETRY_CSV, &w), 0);
	CHECK_EQ(lab_telemetry_sample(w, &a, &b, 1000000000), -EINVAL); /* before begin */
	REQUIRE_EQ(lab_telemetry_begin(w, &h), 0);
	a.stage[LAB_STAGE_QDISC].drops = 5;
	b.stage[LAB_STAGE_QDISC].drops = 12;
	b.stage[LAB_STAGE_SWITCH].marks = 3;
	b.qdisc_backlog_bytes = 15140;
	b.qdisc_backlog_pkts = 10;
	b.ring_descs = 128;
	a.board_wire_busy_ns = 1000;
	b.board_wire_busy_ns = 1000 + 5000000; /* 5 ms of 10: half busy */
	REQUIRE_EQ(lab_telemetry_sample(w, &a, &b, 990000000), 0);
	fflush(f);
	CHECK(strstr(buf, "t_s,qdisc_backlog_bytes,qdisc_backlog_pkts,ring_descs,") == buf);
	line2 = strchr(buf, '\n');
	REQUIRE(line2);
	line2++;
	for (const char *p = buf; p < line2; p++)
		header_cols += *p == ',';
	for (const char *p = line2; *p && *p != '\n'; p++)
		row_cols += *p == ',';
	CHECK_EQ(header_cols, row_cols);
	/* t 0.02 s after t0; drops_qdisc is 12 - 5; wire half busy. */
	CHECK(strncmp(line2, "0.0200,15140,10,128,", 20) == 0);
	CHECK(strstr(line2, ",0.5000,0,0,7,0,0,0,0,0,0,0,0,3,0,0,0,0\n") != NULL);
	CHECK_EQ(lab_telemetry_close(w), 0);
	fclose(f);
	free(buf);
}

TEST(telemetry_json_parses_and_counts_deltas)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lab_telemetry_writer *w;
	struct lab_telemetry_header h = {"bbb \"x\"", "100mbit, qdisc\tpfifo", 10, 1700000000.25};
	struct lab_telemetry t0 = sample(0), t1 = sample(10000000), t2 = sample(20000000);
	struct jval *doc = NULL, *s1;
	struct json_error jerr;
	const char *str;
	int64_t v;

	REQUIRE(f);
	REQUIRE_EQ(lab_telemetry_new(f, LAB_TELEMETRY_JSON, &w), 0);
	REQUIRE_EQ(lab_telemetry_begin(w, &h), 0);
	t1.stage[LAB_STAGE_BOARD_PORT].drops = 4;
	t2.stage[LAB_STAGE_BOARD_PORT].drops = 6;
	t2.stage[LAB_STAGE_QDISC].marks = 2;
	t2.bql_limit = 3028;
	/* Busy more than the interval (a frame started before it): clamped to 1. */
	t2.board_wire_busy_ns = 30000000;
	REQUIRE_EQ(lab_telemetry_sample(w, &t0, &t1, 0), 0);
	REQUIRE_EQ(lab_telemetry_sample(w, &t1, &t2, 0), 0);
	REQUIRE_EQ(lab_telemetry_close(w), 0);
	fclose(f);
	REQUIRE_EQ(json_parse(buf, len, &doc, &jerr), 0);
	CHECK_EQ(json_get_string(doc, "profile", &str), 0);
	CHECK_STR(str, "bbb \"x\"");
	CHECK_EQ(json_get_string(doc, "describe", &str), 0);
	CHECK_STR(str, "100mbit, qdisc\tpfifo");
	CHECK_EQ(json_get_int(doc, "interval_ms", &v), 0);
	CHECK_EQ(v, 10);
	REQUIRE_EQ(json_array_len(json_get(doc, "samples")), 2);
	s1 = json_array_at(json_get(doc, "samples"), 1);
	CHECK_EQ(json_get_int(json_get(s1, "drops"), "board_port", &v), 0);
	CHECK_EQ(v, 2);
	CHECK_EQ(json_get_int(json_get(s1, "marks"), "qdisc", &v), 0);
	CHECK_EQ(v, 2);
	CHECK_EQ(json_get_int(s1, "bql_limit_bytes", &v), 0);
	CHECK_EQ(v, 3028);
	double u = -1, t = -1;
	CHECK_EQ(json_double_of(json_get(s1, "wire_util"), &u), 0);
	CHECK(u == 1.0);
	CHECK_EQ(json_double_of(json_get(s1, "t_s"), &t), 0);
	CHECK(t > 0.0199 && t < 0.0201);
	json_free(doc);
	free(buf);
}

TEST(telemetry_json_without_samples_is_valid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lab_telemetry_writer *w;
	struct lab_telemetry_header h = {"p", "d", 10, 0};
	struct jval *doc = NULL;
	struct json_error jerr;

	REQUIRE(f);
	REQUIRE_EQ(lab_telemetry_new(f, LAB_TELEMETRY_JSON, &w), 0);
	REQUIRE_EQ(lab_telemetry_begin(w, &h), 0);
	REQUIRE_EQ(lab_telemetry_close(w), 0);
	fclose(f);
	REQUIRE_EQ(json_parse(buf, len, &doc, &jerr), 0);
	CHECK_EQ(json_array_len(json_get(doc, "samples")), 0);
	json_free(doc);
	free(buf);
}

TEST(telemetry_open_fails_on_a_bad_path)
{
	struct lab_telemetry_writer *w = NULL;

	CHECK_EQ(lab_telemetry_open("/nonexistent/dir/t.json", LAB_TELEMETRY_JSON, &w), -ENOENT);
	CHECK(w == NULL);
	CHECK_EQ(lab_telemetry_close(NULL), 0);
}

TEST(summary_json_keys)
{
	struct lab_run_stats r;
	struct lab_summary s = {.profile = "fifo100",
				.describe = "100mbit, ...",
				.run = &r,
				.exit_status = 3,
				.error_bound_ns = 25000,
				.rate_mbps = 100,
				.tun_queue_drops = {5, -1}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer *p;
	struct jval *doc = NULL;
	struct json_error jerr;
	int64_t v;
	double d;
	bool kept = true;

	REQUIRE(f);
	memset(&r, 0, sizeof(r));
	r.duration_ns = 2000000000;
	r.cpu_s = 0.5;
	r.emu.last.board_tx_bytes = 125000000; /* 1 Gbit */
	r.emu.last.board_wire_busy_ns = 1000000000;
	r.emu.last.stage[LAB_STAGE_QDISC].drops = 7;
	r.dir[LAB_BOARD_TX].delivered_pkts = 100;
	r.dir[LAB_CLIENT_TX].write_drops = 2;
	r.sched_error = (struct lab_dist){10, 1000, 2000, 30000, 40000};
	r.wake_late = (struct lab_dist){8, 500, 900, 20000, 25000};
	r.tun_write = (struct lab_dist){10, 7000, 8000, 9000, 12000};
	p = print_new(f, PRINT_MODE_JSON);
	REQUIRE(p);
	lab_summary_print(p, &s);
	CHECK_EQ(print_finish(p), 0);
	print_free(p);
	fclose(f);
	REQUIRE_EQ(json_parse(buf, len, &doc, &jerr), 0);
	CHECK_EQ(json_get_int(doc, "exit_status", &v), 0);
	CHECK_EQ(v, 3);
	CHECK_EQ(json_get_int(json_get(json_get(doc, "stages"), "qdisc"), "drops", &v), 0);
	CHECK_EQ(v, 7);
	CHECK(json_get(json_get(doc, "bql"), "limit_p50_bytes") == NULL); /* null: no BQL */
	CHECK_EQ(json_double_of(json_get(doc, "cpu_s_per_gbit"), &d), 0);
	CHECK(d > 0.4999 && d < 0.5001);
	CHECK_EQ(json_double_of(json_get(json_get(doc, "board_to_client"), "wire_util"), &d), 0);
	CHECK(d > 0.4999 && d < 0.5001);
	CHECK_EQ(json_double_of(json_get(json_get(doc, "board_to_client"), "mbps"), &d), 0);
	CHECK(d > 499.9 && d < 500.1);
	CHECK_EQ(json_double_of(json_get(json_get(doc, "sched_error"), "p99_us"), &d), 0);
	CHECK(d > 29.99 && d < 30.01);
	CHECK_EQ(json_double_of(json_get(json_get(doc, "wake_late"), "p99_us"), &d), 0);
	CHECK(d > 19.99 && d < 20.01);
	CHECK_EQ(json_get_int(json_get(doc, "tun_write"), "count", &v), 0);
	CHECK_EQ(v, 10);
	CHECK_EQ(json_get_int(json_get(doc, "tun_queue_drops"), "board", &v), 0);
	CHECK_EQ(v, 5);
	CHECK(json_get(json_get(doc, "tun_queue_drops"), "client") == NULL);
	CHECK_EQ(json_get_int(doc, "tun_write_drops", &v), 0);
	CHECK_EQ(v, 2);
	/* p99 30 us over a bound of 25 us: the run did not keep time. */
	CHECK_EQ(json_double_of(json_get(doc, "sched_error_bound_us"), &d), 0);
	CHECK(d > 24.99 && d < 25.01);
	CHECK(json_get(doc, "kept_time") && json_bool_of(json_get(doc, "kept_time"), &kept) == 0 &&
	      !kept);
	json_free(doc);
	free(buf);
}

TEST(summary_text_says_whether_the_emulator_kept_time)
{
	struct lab_run_stats r;
	struct lab_summary s = {.profile = "bbb-stock",
				.describe = "100mbit",
				.run = &r,
				.exit_status = 0,
				.error_bound_ns = 246000,
				.rate_mbps = 100,
				.tun_queue_drops = {0, 0}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct printer *p;

	for (int late = 0; late < 2; late++) {
		memset(&r, 0, sizeof(r));
		r.duration_ns = 1000000000;
		r.sched_error = (struct lab_dist){100, 1000, 2000, late ? 3000000 : 200000,
						  late ? 9000000 : 300000};
		f = open_memstream(&buf, &len);
		REQUIRE(f);
		p = print_new(f, PRINT_MODE_TEXT);
		REQUIRE(p);
		lab_summary_print(p, &s);
		CHECK_EQ(print_finish(p), 0);
		print_free(p);
		fclose(f);
		if (late) {
			CHECK(strstr(buf, "THE EMULATOR FELL BEHIND") != NULL);
			CHECK(strstr(buf, "do not trust them") != NULL);
		} else {
			CHECK(strstr(buf, "the emulator kept time") != NULL);
			CHECK(strstr(buf, "FELL BEHIND") == NULL);
		}
		free(buf);
		buf = NULL;
	}
	CHECK_EQ(lab_run_error_bound_ns(&(struct lab_profile){.rate_bps = 12500000, .mtu = 1500}),
		 246080);
}

TEST(netns_names_carry_the_pid)
{
	char name[LAB_NETNS_NAME_MAX];

	lab_netns_name(name, sizeof(name), 4242, "client");
	CHECK_STR(name, "dbl-4242-client");
}

/* A vnet header (no offload) and an IPv4/UDP packet of `len` bytes, 10.77.0.2 -> .1. */
static size_t udp_packet(uint8_t *buf, unsigned len)
{
	uint8_t *ip = buf + LAB_VNET_HDR_LEN;

	memset(buf, 0, LAB_VNET_HDR_LEN + len);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(len >> 8);
	ip[3] = (uint8_t)len;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (uint8_t[]){10, 77, 0, 2, 10, 77, 0, 1}, 8);
	ip[20] = 0x30, ip[21] = 0x39; /* ports 12345 -> 9911 */
	ip[22] = 0x26, ip[23] = 0xb7;
	ip[24] = (uint8_t)((len - 20) >> 8);
	ip[25] = (uint8_t)(len - 20);
	return LAB_VNET_HDR_LEN + len;
}

static bool stop_on_alarm(const struct signalfd_siginfo *si, void *ctx)
{
	(*(int *)ctx)++;
	return si->ssi_signo == SIGALRM;
}

/*
 * 50 full-size packets "from the board" at once, through a 100 Mbit/s link: the loop
 * delivers all of them to the client side, in ~6 ms of model time, and measures each
 * one's scheduling error; telemetry samples every 10 ms until SIGALRM stops it.
 */
static void loop_test(bool force_timerfd)
{
	struct lab_profile p;
	struct lab_run *run = NULL;
	struct lab_run_config c = {0};
	const struct lab_run_stats *st;
	int board[2], client[2], sfd, signals = 0;
	uint8_t pkt[2048], got[2048];
	struct itimerval it = {.it_value = {.tv_usec = 150000}};
	char err[256], *tbuf = NULL;
	size_t tlen = 0, n;
	sigset_t mask, old;
	unsigned received = 0;
	FILE *tf = open_memstream(&tbuf, &tlen);

	lab_profile_defaults(&p);
	REQUIRE_EQ(lab_profile_set(&p, "rate", "100mbit", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_profile_set(&p, "qdisc", "pfifo limit 1000", err, sizeof(err)), 0);
	REQUIRE_EQ(lab_run_new(&p, &run, err, sizeof(err)), 0);
	REQUIRE_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, board), 0);
	REQUIRE_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, client), 0);
	int sz = 4 << 20;
	setsockopt(board[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(client[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(client[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	n = udp_packet(pkt, 1500);
	for (int i = 0; i < 50; i++)
		REQUIRE_EQ(write(board[1], pkt, n), (ssize_t)n);
	sigemptyset(&mask);
	sigaddset(&mask, SIGALRM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	REQUIRE(sfd >= 0);
	REQUIRE(tf);
	REQUIRE_EQ(lab_telemetry_new(tf, LAB_TELEMETRY_CSV, &c.telemetry), 0);
	c.board_tun = board[0];
	c.client_tun = client[0];
	c.signal_fd = sfd;
	c.on_signal = stop_on_alarm;
	c.ctx = &signals;
	c.force_timerfd = force_timerfd;
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_EQ(lab_run_loop(run, &c, err, sizeof(err)), 0);
	CHECK_EQ(lab_run_loop(run, &c, err, sizeof(err)), -EALREADY);
	CHECK_EQ(signals, 1);
	while (read(client[1], got, sizeof(got)) == (ssize_t)n)
		received++;
	CHECK_EQ(received, 50);
	CHECK(memcmp(got, pkt, n) == 0);
	st = lab_run_stats(run);
	CHECK_EQ(st->dir[LAB_BOARD_TX].read_pkts, 50);
	CHECK_EQ(st->dir[LAB_BOARD_TX].delivered_pkts, 50);
	CHECK_EQ(st->dir[LAB_CLIENT_TX].delivered_pkts, 0);
	CHECK_EQ(st->sched_error.count, 50);
	CHECK_EQ(st->tun_write.count, 50);
	/* Timed wake-ups are for deliveries only: at most one each (a frame leaving the
	 * wire and its completion are not waited for). */
	CHECK(st->wake_late.count >= 1 && st->wake_late.count <= 50);
	/* 50 frames of 1538 wire bytes at 100 Mbit/s: 6.15 ms of wire time. */
	CHECK(st->emu.last.board_wire_busy_ns >= 6000000 &&
	      st->emu.last.board_wire_busy_ns < 6300000);
	CHECK(st->duration_ns >= 140000000);
	/* ~15 samples in 150 ms; a loaded machine may lose a few. */
	CHECK(st->telemetry_samples >= 8 && st->telemetry_samples <= 16);
	CHECK_EQ(st->telemetry_error, 0);
	CHECK_EQ(lab_telemetry_close(c.telemetry), 0);
	fclose(tf);
	free(tbuf);
	lab_run_free(run);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(board[0]), close(board[1]), close(client[0]), close(client[1]);
}

TEST(loop_moves_packets_between_the_tuns)
{
	loop_test(false);
}

TEST(loop_without_epoll_pwait2_waits_on_a_timerfd)
{
	loop_test(true);
}

/*
 * The summary's text and JSON byte for byte (tests/fixtures/lab-summary/): a run with
 * drops and marks in several stages, URBs, BQL, every error counter and a late emulator;
 * and a quiet one (nothing dropped, no BQL, no command).
 */
static char *summary_render(bool busy, enum print_mode mode)
{
	struct lab_run_stats r;
	struct lab_summary s = {.profile = busy ? "bbb-stock" : "fifo100",
				.describe = busy ? "BeagleBone Black, stock" : "100mbit",
				.run = &r,
				.bql = busy,
				.exit_status = busy ? 3 : -1,
				.error_bound_ns = 246000,
				.rate_mbps = 100,
				.tun_queue_drops = {busy ? 5 : 0, busy ? -1 : 0}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer *p = f ? print_new(f, mode) : NULL;

	memset(&r, 0, sizeof(r));
	r.duration_ns = 12345678901;
	r.cpu_s = 2.5;
	r.emu.last.board_tx_bytes = 125000000;
	r.emu.last.client_tx_bytes = 6250000;
	r.emu.last.board_wire_busy_ns = 9000000000;
	r.emu.last.client_wire_busy_ns = 450000000;
	r.dir[LAB_BOARD_TX] = (struct lab_dir_stats){.delivered_pkts = 82000, .read_pkts = 82100};
	r.dir[LAB_CLIENT_TX] = (struct lab_dir_stats){.delivered_pkts = 41000, .writes = 41000};
	r.sched_error = (struct lab_dist){1000, 5000, 9000, busy ? 3000000 : 200000, 4000000};
	r.wake_late = (struct lab_dist){1000, 800, 1200, 20000, 25000};
	r.tun_write = (struct lab_dist){busy ? 900 : 0, 7000, 8000, 9000, 12000};
	r.spin_margin_ns = 50000;
	r.realtime = busy;
	r.writer_threads = busy;
	r.emu.qdisc_sojourn = (struct lab_dist){500, 12000000, 40000000, 80000000, 95000000};
	r.emu.board_path = (struct lab_dist){800, 13000000, 41000000, 81000000, 96000000};
	r.emu.client_path = (struct lab_dist){400, 300000, 400000, 500000, 900000};
	r.emu.qdisc_backlog_max_bytes = 1514000;
	r.emu.ring_descs_max = 64;
	if (busy) {
		r.dir[LAB_CLIENT_TX].write_drops = 2;
		r.emu.last.stage[LAB_STAGE_QDISC].drops = 7;
		r.emu.last.stage[LAB_STAGE_QDISC].marks = 3;
		r.emu.last.stage[LAB_STAGE_QDISC].pkts = 90000;
		r.emu.last.stage[LAB_STAGE_COUNT - 1].drops = 4;
		r.emu.ring_urbs_max = 12;
		r.emu.bql_limit_p50 = 3028;
		r.emu.bql_limit_max_seen = 6056;
		r.input_errors = 9;
		r.telemetry_samples = 1200;
		r.telemetry_error = -ENOSPC;
	}
	if (p) {
		lab_summary_print(p, &s);
		if (print_finish(p) < 0) {
			print_free(p);
			fclose(f);
			free(buf);
			return NULL;
		}
	}
	print_free(p);
	if (f)
		fclose(f);
	return buf;
}

TEST(summary_output_is_pinned)
{
	static const char *const names[2][2] = {{"quiet.txt", "quiet.json"},
						{"busy.txt", "busy.json"}};

	for (int busy = 0; busy < 2; busy++)
		for (int json = 0; json < 2; json++) {
			char *got = summary_render(busy, json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);

			CHECK_GOLDEN("tests/fixtures/lab-summary", names[busy][json], got);
			free(got);
		}
}
