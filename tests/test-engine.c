/* SPDX-License-Identifier: MIT */
/*
 * test-engine.c - src/meter/engine.c without root: the client runs real tests against
 * an in-process `debloat server` (src/meter/server.c in a thread, as test-server.c
 * runs it) on 127.0.0.1 with an ephemeral port. What the engine measured is checked
 * against what the server counted (its end-of-test summary), and its failures: an
 * unknown test, options out of range, no server, an interrupt, a stalled sampler.
 * tests/test-rrul.sh runs the same as root across namespaces with a shaped path; here
 * loopback is the path, so only shapes and agreements are asserted, never a rate or a
 * latency.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "meter/engine.h"
#include "meter/result.h"
#include "meter/server.h"

struct running {
	struct server *s;
	pthread_t thread;
	volatile sig_atomic_t stop;
	struct server_test_summary last;
	int ended;
};

static void *serve(void *arg)
{
	struct running *r = arg;

	server_run(r->s, &r->stop);
	return NULL;
}

static void on_end(void *ctx, const struct server_test_summary *t)
{
	struct running *r = ctx;

	r->last = *t;
	__atomic_add_fetch(&r->ended, 1, __ATOMIC_SEQ_CST);
}

static int start(struct running *r)
{
	struct server_config c;
	int e;

	server_config_defaults(&c);
	c.family = AF_INET;
	c.bind = "127.0.0.1";
	c.port = 0;
	c.min_interval_us = 1000;
	c.on_test_end = on_end;
	c.ctx = r;
	e = server_new(&c, &r->s);
	if (e < 0)
		return e;
	r->stop = 0;
	return -pthread_create(&r->thread, NULL, serve, r);
}

static void stop(struct running *r)
{
	__atomic_store_n(&r->stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(r->thread, NULL);
	server_free(r->s);
}

/* The test's end as the server saw it, waited for up to 3 s. */
static int wait_ended(struct running *r, int n)
{
	for (int i = 0; i < 300 && __atomic_load_n(&r->ended, __ATOMIC_SEQ_CST) < n; i++)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	return __atomic_load_n(&r->ended, __ATOMIC_SEQ_CST);
}

static struct engine_opts opts(const char *test, uint16_t port)
{
	return (struct engine_opts){
	    .test = test,
	    .host = "127.0.0.1",
	    .port = port,
	    .family = AF_INET,
	    .length_s = 1.0,
	    .delay_s = 0.2,
	    .step_s = 0.2,
	};
}

/* Steps with a number in them. */
static size_t steps_with_data(const struct test_result *r, const struct series *s)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nsteps; i++)
		n += !isnan(s->values[i]);
	return n;
}

TEST(tcp_upload_measures_what_the_server_received)
{
	struct running srv = {0};
	struct engine_opts o;
	struct test_result r = {0};
	struct engine_notes notes = {0};
	struct series *up, *udp;
	char why[256] = "";
	double mbit = 0, got;

	REQUIRE_EQ(start(&srv), 0);
	o = opts("tcp_upload", server_port(srv.s));
	REQUIRE_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), 0);
	CHECK_STR(why, "");
	CHECK_STR(r.test, "tcp_upload");
	CHECK_EQ(r.ip_version, 4);
	CHECK(!r.interrupted);
	/* The grid: x = 0 and every step to delay + length + delay. */
	CHECK_EQ(r.nsteps, 8);
	up = result_find_series(&r, "TCP upload");
	udp = result_find_series(&r, "Ping (ms) UDP BE");
	REQUIRE(up && udp);
	CHECK_EQ(up->kind, SERIES_UPLOAD);
	/* Goodput only while the flow runs (x in (delay, delay + length]), some in it. */
	CHECK(isnan(up->values[0]));
	CHECK(steps_with_data(&r, up) >= 3);
	for (size_t i = 0; i < r.nsteps; i++)
		CHECK(isnan(up->values[i]) || up->values[i] >= 0);
	/* UDP probes ran the whole time and loopback answered nearly all. */
	CHECK(udp->sent >= 5);
	CHECK_EQ(udp->sent, udp->received + udp->lost);
	CHECK(udp->received >= udp->sent * 9 / 10);
	CHECK(steps_with_data(&r, udp) >= 5);
	/* The server's account of the same test: its probes, its bytes. */
	REQUIRE_EQ(wait_ended(&srv, 1), 1);
	CHECK_STR(srv.last.reason, "stop");
	CHECK_EQ(srv.last.nflows, 1);
	CHECK(srv.last.rx_bytes > 0);
	CHECK_EQ(srv.last.tx_bytes, 0);
	got = (double)srv.last.rx_bytes * 8 / 1e6;
	CHECK_EQ(srv.last.probes_answered, udp->received);
	/* Summed over the steps, the goodput is what the server counted by the load's end:
	 * the REPORTs' counts on the grid, whenever they arrived. */
	for (size_t i = 0; i < r.nsteps; i++)
		if (!isnan(up->values[i]))
			mbit += up->values[i] * r.step_s;
	if (!CHECK(mbit <= got * 1.01 && mbit >= got * 0.9))
		fprintf(stderr, "  goodput summed %.0f Mbit, the server received %.0f Mbit\n", mbit,
			got);
	CHECK_EQ(r.granted_interval_us, srv.last.interval_us);
	result_free(&r);
	stop(&srv);
}

TEST(rrul_runs_four_flows_each_way_and_three_probe_streams)
{
	struct running srv = {0};
	struct engine_opts o;
	struct test_result r = {0};
	struct engine_notes notes = {0};
	char why[256] = "";
	unsigned up = 0, down = 0, probes = 0;
	uint64_t down_mbits = 0;

	REQUIRE_EQ(start(&srv), 0);
	o = opts("rrul", server_port(srv.s));
	REQUIRE_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), 0);
	for (size_t i = 0; i < r.nseries; i++) {
		const struct series *s = &r.series[i];

		up += s->kind == SERIES_UPLOAD;
		down += s->kind == SERIES_DOWNLOAD;
		probes += s->kind == SERIES_PROBE && !strncmp(s->name, "Ping (ms) UDP", 13);
		if (s->kind == SERIES_DOWNLOAD)
			for (size_t k = 0; k < r.nsteps; k++)
				down_mbits += !isnan(s->values[k]) && s->values[k] > 0;
		if (s->kind == SERIES_PROBE && !strncmp(s->name, "Ping (ms) UDP", 13))
			CHECK(s->received > 0);
	}
	CHECK_EQ(up, 4);
	CHECK_EQ(down, 4);
	CHECK_EQ(probes, 3);
	CHECK(down_mbits > 0);
	REQUIRE_EQ(wait_ended(&srv, 1), 1);
	CHECK_EQ(srv.last.nflows, 8);
	CHECK(srv.last.rx_bytes > 0 && srv.last.tx_bytes > 0);
	result_free(&r);
	stop(&srv);
}

TEST(an_unknown_test_and_options_out_of_range_are_refused)
{
	struct engine_opts o = opts("no_such_test", 9);
	struct test_result r = {0};
	struct engine_notes notes = {0};
	char why[256];

	CHECK_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), -ENOENT);
	o = opts("ping", 9);
	o.length_s = 0;
	CHECK_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), -EINVAL);
	o = opts("ping", 9);
	o.step_s = 2; /* longer than the test */
	CHECK_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), -EINVAL);
	CHECK_EQ(r.nsteps, 0);
}

TEST(no_server_is_connection_refused_with_nothing_measured)
{
	struct running srv = {0};
	struct engine_opts o;
	struct test_result r = {0};
	struct engine_notes notes = {0};
	char why[256] = "";
	uint16_t port;

	/* A port that was just ours and is free now. */
	REQUIRE_EQ(start(&srv), 0);
	port = server_port(srv.s);
	stop(&srv);
	o = opts("ping", port);
	CHECK_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), -ECONNREFUSED);
	CHECK(why[0] != '\0');
	CHECK_EQ(r.nsteps, 0);
	result_free(&r);
}

/* Ends the run from its progress callback, as the signal handler of the command does. */
static volatile sig_atomic_t interrupt_flag;

static void interrupt_after_a_step(void *ctx, const struct engine_progress *p)
{
	(void)ctx;
	if (p->elapsed_s >= 0.4)
		interrupt_flag = 1;
}

TEST(an_interrupt_keeps_what_was_measured)
{
	struct running srv = {0};
	struct engine_opts o;
	struct test_result r = {0};
	struct engine_notes notes = {0};
	struct series *udp;
	char why[256] = "";

	REQUIRE_EQ(start(&srv), 0);
	o = opts("tcp_upload", server_port(srv.s));
	o.length_s = 30; /* far longer than the test lets it run */
	o.progress = interrupt_after_a_step;
	interrupt_flag = 0;
	o.interrupt = &interrupt_flag;
	CHECK_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), -EINTR);
	CHECK(r.interrupted);
	REQUIRE(r.nsteps > 0);
	udp = result_find_series(&r, "Ping (ms) UDP BE");
	REQUIRE(udp);
	CHECK(udp->received > 0);
	CHECK(steps_with_data(&r, udp) >= 1);
	/* The test ended there for the server too, not 30 s later. */
	REQUIRE_EQ(wait_ended(&srv, 1), 1);
	CHECK(srv.last.elapsed_ms < 10000);
	result_free(&r);
	stop(&srv);
}

/*
 * A sampler that stalls: the progress callback runs inside the step timer, so sleeping
 * there stops the engine's loop as a host too loaded to run it would. The server keeps
 * sending meanwhile; the bytes wait in our receive buffer and are read in a burst.
 */
static bool stalled;

static void stall_once_under_load(void *ctx, const struct engine_progress *p)
{
	(void)ctx;
	if (!stalled && p->loaded && p->elapsed_s >= 0.45) {
		stalled = true;
		nanosleep(&(struct timespec){0, 650000000}, NULL); /* 6.5 steps */
	}
}

TEST(a_stalled_sampler_puts_the_backlog_over_the_time_it_took)
{
	struct running srv = {0};
	struct engine_opts o;
	struct test_result r = {0};
	struct engine_notes notes = {0};
	struct series *down;
	char why[256] = "";
	double mbit = 0, sent;

	REQUIRE_EQ(start(&srv), 0);
	o = opts("tcp_download", server_port(srv.s));
	o.step_s = 0.1;
	o.length_s = 1.5;
	o.progress = stall_once_under_load;
	stalled = false;
	REQUIRE_EQ(engine_run(&o, &r, &notes, why, sizeof(why)), 0);
	REQUIRE(stalled);
	down = result_find_series(&r, "TCP download");
	REQUIRE(down);
	REQUIRE_EQ(wait_ended(&srv, 1), 1);
	sent = (double)srv.last.tx_bytes * 8 / 1e6;
	REQUIRE(sent > 0);
	/* Every step of the load has its goodput, the stalled ones too: x in (0.2, 1.7]. */
	CHECK_EQ(steps_with_data(&r, down), 15);
	for (size_t i = 3; i <= 17; i++)
		if (CHECK(!isnan(down->values[i]) && down->values[i] >= 0))
			mbit += down->values[i] * r.step_s;
	/* Summed over the steps, the goodput is what arrived: never more than the server
	 * sent (a burst of backlog over a few microseconds, or over one step, would be),
	 * and short of it by no more than what was still on its way when the load ended. */
	if (!CHECK(mbit <= sent * 1.01 && mbit >= sent * 0.9))
		fprintf(stderr, "  goodput summed %.0f Mbit, the server sent %.0f Mbit\n", mbit,
			sent);
	result_free(&r);
	stop(&srv);
}

TEST(the_silence_bound_grows_with_the_paths_round_trip_between_its_floor_and_cap)
{
	/* No round trip yet, or a short one: the floor. */
	CHECK_EQ(engine_silence_s(NAN), ENGINE_SILENCE_S);
	CHECK_EQ(engine_silence_s(0), ENGINE_SILENCE_S);
	CHECK_EQ(engine_silence_s(-1), ENGINE_SILENCE_S);
	CHECK_EQ(engine_silence_s(0.05), ENGINE_SILENCE_S); /* loopback */
	CHECK_EQ(engine_silence_s(800), ENGINE_SILENCE_S);  /* 6 x 0.8 s < 5 s */
	/* A queue of seconds (a 1000-packet FIFO at 4 Mbit/s is 3 s): six round trips,
	 * for a segment TCP must resend twice. */
	CHECK(fabs(engine_silence_s(1800) - 10.8) < 1e-9);
	CHECK(fabs(engine_silence_s(4300) - 25.8) < 1e-9);
	/* Never longer than the cap, whatever the path. */
	CHECK_EQ(engine_silence_s(6000), ENGINE_SILENCE_MAX_S);
	CHECK_EQ(engine_silence_s(INFINITY), ENGINE_SILENCE_MAX_S);
}
