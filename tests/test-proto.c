/* SPDX-License-Identifier: MIT */
/*
 * test-proto.c - src/meter/proto.c: every message round-trips; malformed, truncated,
 * oversized and unknown frames fail with the documented error and leave the output
 * untouched; probes; keyed-mode signatures; key files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "meter/proto.h"

static void fill(void *p, size_t n, uint8_t seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

/* Field by field: structs have padding, whose bytes memcmp would compare too. */
static bool same_msg(const struct proto_msg *a, const struct proto_msg *b)
{
	const struct proto_hello *ha = &a->u.hello, *hb = &b->u.hello;
	const struct proto_welcome *wa = &a->u.welcome, *wb = &b->u.welcome;
	const struct proto_flow *fa = &a->u.flow, *fb = &b->u.flow;
	const struct proto_report *ra = &a->u.report, *rb = &b->u.report;
	const struct proto_final *xa = &a->u.final, *xb = &b->u.final;

	if (a->type != b->type)
		return false;
	switch (a->type) {
	case PROTO_HELLO:
		return ha->version == hb->version && ha->nflows == hb->nflows &&
		       ha->duration_ms == hb->duration_ms && ha->interval_us == hb->interval_us &&
		       ha->probe_len == hb->probe_len && ha->step_ms == hb->step_ms &&
		       !strcmp(ha->cc, hb->cc) && !memcmp(ha->mac, hb->mac, sizeof(ha->mac));
	case PROTO_WELCOME:
		return !memcmp(wa->token, wb->token, PROTO_TOKEN_LEN) &&
		       wa->duration_ms == wb->duration_ms && wa->interval_us == wb->interval_us &&
		       wa->probe_len == wb->probe_len && wa->step_ms == wb->step_ms &&
		       wa->max_duration_ms == wb->max_duration_ms &&
		       wa->min_interval_us == wb->min_interval_us &&
		       wa->max_probe_len == wb->max_probe_len && wa->server_ns == wb->server_ns &&
		       !memcmp(wa->mac, wb->mac, sizeof(wa->mac));
	case PROTO_ERROR:
		return a->u.error.code == b->u.error.code &&
		       !strcmp(a->u.error.text, b->u.error.text);
	case PROTO_FLOW:
		return !memcmp(fa->token, fb->token, PROTO_TOKEN_LEN) &&
		       fa->flow_id == fb->flow_id && fa->direction == fb->direction &&
		       fa->tos == fb->tos && !strcmp(fa->cc, fb->cc) &&
		       !memcmp(fa->mac, fb->mac, sizeof(fa->mac));
	case PROTO_CHALLENGE:
		return !memcmp(a->u.challenge.nonce, b->u.challenge.nonce, PROTO_NONCE_LEN);
	case PROTO_REPORT:
		return ra->server_ns == rb->server_ns && ra->flags == rb->flags &&
		       ra->nflows == rb->nflows &&
		       !memcmp(ra->rx_bytes, rb->rx_bytes, ra->nflows * sizeof(uint64_t));
	case PROTO_STOP:
		return true;
	case PROTO_FINAL:
		return xa->server_ns == xb->server_ns && xa->flags == xb->flags &&
		       xa->nflows == xb->nflows &&
		       !memcmp(xa->rx_bytes, xb->rx_bytes, xa->nflows * sizeof(uint64_t)) &&
		       !memcmp(xa->tx_bytes, xb->tx_bytes, xa->nflows * sizeof(uint64_t)) &&
		       xa->probes_answered == xb->probes_answered &&
		       xa->probes_dropped == xb->probes_dropped;
	}
	return false;
}

static bool same_probe(const struct proto_probe *a, const struct proto_probe *b)
{
	return a->magic == b->magic && !memcmp(a->token, b->token, PROTO_TOKEN_LEN) &&
	       a->stream == b->stream && a->flags == b->flags && a->seq == b->seq &&
	       a->client_ns == b->client_ns && a->server_rx_ns == b->server_rx_ns &&
	       a->server_tx_ns == b->server_tx_ns;
}

/* Encode, decode, compare. */
static void round_trip(const struct proto_msg *in, int want_len)
{
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	struct proto_msg out;
	int n, d;

	n = proto_encode(in, buf, sizeof(buf));
	CHECK_EQ(n, want_len);
	if (n < 0)
		return;
	memset(&out, 0x5a, sizeof(out));
	d = proto_decode(buf, (size_t)n, &out);
	CHECK_EQ(d, n);
	CHECK_EQ(out.type, in->type);
	CHECK(same_msg(&out, in));
	/* Every proper prefix: "not yet" (0), never an error, output untouched. */
	for (int k = 0; k < n; k++) {
		struct proto_msg m;

		memset(&m, 0x33, sizeof(m));
		d = proto_decode(buf, (size_t)k, &m);
		if (d != 0) {
			CHECK_EQ(d, 0);
			break;
		}
		CHECK_EQ(((uint8_t *)&m)[0], 0x33);
	}
	/* No room: -ENOSPC for every short buffer. */
	for (int k = 0; k < n; k += 7)
		CHECK_EQ(proto_encode(in, buf, (size_t)k), -ENOSPC);
}

static struct proto_msg zeroed(uint8_t type)
{
	struct proto_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	return m;
}

TEST(hello_round_trip)
{
	struct proto_msg m = zeroed(PROTO_HELLO);

	m.u.hello.version = PROTO_VERSION;
	m.u.hello.nflows = 8;
	m.u.hello.duration_ms = 70000;
	m.u.hello.interval_us = 200000;
	m.u.hello.probe_len = 1200;
	m.u.hello.step_ms = 200;
	strcpy(m.u.hello.cc, "cubic");
	fill(m.u.hello.mac, 32, 3);
	round_trip(&m, 3 + 64);
}

TEST(welcome_round_trip)
{
	struct proto_msg m = zeroed(PROTO_WELCOME);

	fill(m.u.welcome.token, PROTO_TOKEN_LEN, 9);
	m.u.welcome.duration_ms = 0xfffffffe;
	m.u.welcome.interval_us = 10000;
	m.u.welcome.probe_len = 0xffff;
	m.u.welcome.step_ms = 50;
	m.u.welcome.max_duration_ms = 180000;
	m.u.welcome.min_interval_us = 10000;
	m.u.welcome.max_probe_len = 1472;
	m.u.welcome.server_ns = 0x0123456789abcdefULL;
	fill(m.u.welcome.mac, 32, 1);
	round_trip(&m, 3 + 80);
}

TEST(error_round_trip_and_text_terminated)
{
	struct proto_msg m = zeroed(PROTO_ERROR);
	uint8_t buf[256];
	struct proto_msg out;
	int n;

	m.u.error.code = PROTO_ERR_BUSY;
	strcpy(m.u.error.text, "server busy");
	round_trip(&m, 3 + 130);
	/* 128 non-NUL bytes on the wire still decode to a terminated string. */
	memset(m.u.error.text, 'x', sizeof(m.u.error.text));
	n = proto_encode(&m, buf, sizeof(buf));
	REQUIRE_EQ(n, 133);
	REQUIRE_EQ(proto_decode(buf, (size_t)n, &out), 133);
	CHECK_EQ(strlen(out.u.error.text), 127);
}

TEST(challenge_round_trip)
{
	struct proto_msg m = zeroed(PROTO_CHALLENGE);

	fill(m.u.challenge.nonce, PROTO_NONCE_LEN, 9);
	round_trip(&m, 3 + PROTO_NONCE_LEN);
}

TEST(flow_round_trip_and_bad_direction)
{
	struct proto_msg m = zeroed(PROTO_FLOW), out;
	uint8_t buf[96];
	int n;

	fill(m.u.flow.token, PROTO_TOKEN_LEN, 4);
	m.u.flow.flow_id = 7;
	m.u.flow.direction = PROTO_DOWNLOAD;
	m.u.flow.tos = 0xb8;
	strcpy(m.u.flow.cc, "bbr");
	m.u.flow.mac[31] = 0x99; /* the keyed tag rides along, 32 bytes after the fields */
	round_trip(&m, 3 + 35 + 32);
	m.u.flow.direction = 2;
	n = proto_encode(&m, buf, sizeof(buf));
	REQUIRE_EQ(n, 3 + 35 + 32);
	memset(&out, 0x44, sizeof(out));
	CHECK_EQ(proto_decode(buf, (size_t)n, &out), -EBADMSG);
	CHECK_EQ(out.type, 0x44);
}

TEST(report_round_trip_every_flow_count)
{
	for (unsigned n = 0; n <= PROTO_MAX_FLOWS; n++) {
		struct proto_msg m = zeroed(PROTO_REPORT);

		m.u.report.server_ns = 12345678901ULL;
		m.u.report.flags = PROTO_REPORT_OVERLOADED;
		m.u.report.nflows = (uint8_t)n;
		for (unsigned i = 0; i < n; i++)
			m.u.report.rx_bytes[i] = 0x100000000ULL * i + i;
		round_trip(&m, (int)(3 + 13 + 8 * n));
	}
}

TEST(stop_round_trip)
{
	struct proto_msg m = zeroed(PROTO_STOP);

	round_trip(&m, 3);
}

TEST(final_round_trip)
{
	struct proto_msg m = zeroed(PROTO_FINAL);

	m.u.final.server_ns = 99;
	m.u.final.flags = 3;
	m.u.final.nflows = PROTO_MAX_FLOWS;
	for (unsigned i = 0; i < PROTO_MAX_FLOWS; i++) {
		m.u.final.rx_bytes[i] = i * 1000;
		m.u.final.tx_bytes[i] = ~(uint64_t)i;
	}
	m.u.final.probes_answered = 1500;
	m.u.final.probes_dropped = 7;
	round_trip(&m, 3 + 21 + 16 * PROTO_MAX_FLOWS);
}

TEST(encode_rejects_bad_messages)
{
	struct proto_msg m = zeroed(PROTO_REPORT);
	uint8_t buf[2048];

	m.u.report.nflows = PROTO_MAX_FLOWS + 1;
	CHECK_EQ(proto_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = zeroed(PROTO_FINAL);
	m.u.final.nflows = 200;
	CHECK_EQ(proto_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = zeroed(0);
	CHECK_EQ(proto_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = zeroed(99);
	CHECK_EQ(proto_encode(&m, buf, sizeof(buf)), -EINVAL);
}

/* A frame header with a body of len bytes (contents b). */
static size_t frame(uint8_t *buf, uint8_t type, size_t len, uint8_t b)
{
	buf[0] = (uint8_t)(len >> 8);
	buf[1] = (uint8_t)len;
	buf[2] = type;
	memset(buf + 3, b, len);
	return 3 + len;
}

static void check_bad(const uint8_t *buf, size_t len, int want)
{
	struct proto_msg m;

	memset(&m, 0x77, sizeof(m));
	CHECK_EQ(proto_decode(buf, len, &m), want);
	CHECK_EQ(((uint8_t *)&m)[0], 0x77);
	CHECK_EQ(((uint8_t *)&m)[sizeof(m) - 1], 0x77);
}

TEST(decode_malformed_frames)
{
	static uint8_t buf[70000];
	size_t n;

	/* Wrong body lengths for every fixed-size message. */
	check_bad(buf, frame(buf, PROTO_HELLO, 63, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_HELLO, 65, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_WELCOME, 79, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_ERROR, 0, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_FLOW, 36, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_STOP, 1, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_REPORT, 12, 0), -EBADMSG);
	check_bad(buf, frame(buf, PROTO_FINAL, 20, 0), -EBADMSG);
	/* REPORT whose nflows disagrees with its length, or exceeds the maximum. */
	n = frame(buf, PROTO_REPORT, 13 + 8, 0);
	buf[3 + 12] = 2;
	check_bad(buf, n, -EBADMSG);
	n = frame(buf, PROTO_REPORT, 13 + 8 * 33, 0);
	buf[3 + 12] = 33;
	check_bad(buf, n, -EBADMSG);
	n = frame(buf, PROTO_FINAL, 21 + 16, 0);
	buf[3 + 12] = 255;
	check_bad(buf, n, -EBADMSG);
	/* Unknown types: known from the header alone. */
	check_bad(buf, frame(buf, 0, 4, 0), -EPROTO);
	check_bad(buf, frame(buf, 9, 4, 0), -EPROTO);
	check_bad(buf, frame(buf, PROTO_CHALLENGE, 4, 0), -EBADMSG); /* a nonce is 16 bytes */
	check_bad(buf, frame(buf, 9, 4, 0), -EPROTO);
	check_bad(buf, 3, -EPROTO);
	check_bad(buf, frame(buf, 255, 0, 0), -EPROTO);
	/* Oversized: the length alone decides, before the body arrives. */
	frame(buf, PROTO_HELLO, PROTO_MAX_BODY + 1, 0);
	check_bad(buf, 3, -EMSGSIZE);
	buf[0] = buf[1] = 0xff;
	check_bad(buf, 3, -EMSGSIZE);
	/* Too short for a header: wait. */
	check_bad(buf, 0, 0);
	check_bad(buf, 2, 0);
}

TEST(decode_takes_one_frame_of_several)
{
	uint8_t buf[256];
	struct proto_msg stop = zeroed(PROTO_STOP), err = zeroed(PROTO_ERROR), out;
	int a, b;

	err.u.error.code = 5;
	a = proto_encode(&stop, buf, sizeof(buf));
	b = proto_encode(&err, buf + a, sizeof(buf) - (size_t)a);
	REQUIRE(a > 0 && b > 0);
	CHECK_EQ(proto_decode(buf, (size_t)(a + b), &out), a);
	CHECK_EQ(out.type, PROTO_STOP);
	CHECK_EQ(proto_decode(buf + a, (size_t)b, &out), b);
	CHECK_EQ(out.u.error.code, 5);
}

TEST(probe_round_trip_and_padding)
{
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ,
				.stream = 2,
				.flags = 0,
				.seq = 0xdeadbeef,
				.client_ns = 1,
				.server_rx_ns = 2,
				.server_tx_ns = 0xffffffffffffffffULL};
	struct proto_probe q;
	uint8_t buf[1400];

	fill(p.token, PROTO_TOKEN_LEN, 8);
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(proto_probe_encode(&p, buf, sizeof(buf)), PROTO_PROBE_LEN);
	CHECK_EQ(buf[PROTO_PROBE_LEN], 0xee); /* nothing written past the header */
	for (size_t len = PROTO_PROBE_LEN; len <= sizeof(buf); len += 50) {
		memset(&q, 0, sizeof(q));
		CHECK_EQ(proto_probe_decode(buf, len, &q), 0);
		CHECK(same_probe(&p, &q));
	}
	p.magic = PROTO_PROBE_MAGIC_REP;
	CHECK_EQ(proto_probe_encode(&p, buf, sizeof(buf)), PROTO_PROBE_LEN);
	CHECK_EQ(proto_probe_decode(buf, PROTO_PROBE_LEN, &q), 0);
	CHECK_EQ(q.magic, PROTO_PROBE_MAGIC_REP);
	CHECK_EQ(proto_probe_encode(&p, buf, PROTO_PROBE_LEN - 1), -ENOSPC);
}

TEST(probe_decode_rejects_short_and_foreign)
{
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ}, q;
	uint8_t buf[64];

	proto_probe_encode(&p, buf, sizeof(buf));
	for (size_t len = 0; len < PROTO_PROBE_LEN; len++) {
		memset(&q, 0x21, sizeof(q));
		CHECK_EQ(proto_probe_decode(buf, len, &q), -EBADMSG);
		CHECK_EQ(q.seq, 0x21212121);
	}
	buf[0] ^= 1;
	memset(&q, 0x21, sizeof(q));
	CHECK_EQ(proto_probe_decode(buf, sizeof(buf), &q), -EBADMSG);
	CHECK_EQ(q.seq, 0x21212121);
}

TEST(keyed_hello_welcome_probe)
{
	const uint8_t key[] = "correct horse", bad[] = "correct horsf";
	struct proto_hello h = {.version = 1, .nflows = 2, .duration_ms = 1000};
	struct proto_welcome w = {.duration_ms = 5};
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ, .seq = 9};
	uint8_t buf[100];

	const uint8_t nonce[PROTO_NONCE_LEN] = {1, 2, 3}, other[PROTO_NONCE_LEN] = {1, 2, 4};
	struct proto_flow f = {.flow_id = 3, .direction = PROTO_DOWNLOAD};

	proto_hello_sign(&h, nonce, key, sizeof(key) - 1);
	CHECK_EQ(proto_hello_verify(&h, nonce, key, sizeof(key) - 1), 0);
	CHECK_EQ(proto_hello_verify(&h, nonce, bad, sizeof(bad) - 1), -EACCES);
	/* the same HELLO under another connection's nonce: a replay */
	CHECK_EQ(proto_hello_verify(&h, other, key, sizeof(key) - 1), -EACCES);
	h.duration_ms++;
	CHECK_EQ(proto_hello_verify(&h, nonce, key, sizeof(key) - 1), -EACCES);

	proto_welcome_sign(&w, nonce, key, sizeof(key) - 1);
	CHECK_EQ(proto_welcome_verify(&w, nonce, key, sizeof(key) - 1), 0);
	CHECK_EQ(proto_welcome_verify(&w, other, key, sizeof(key) - 1), -EACCES);
	w.token[3] ^= 1;
	CHECK_EQ(proto_welcome_verify(&w, nonce, key, sizeof(key) - 1), -EACCES);

	proto_flow_sign(&f, nonce, key, sizeof(key) - 1);
	CHECK_EQ(proto_flow_verify(&f, nonce, key, sizeof(key) - 1), 0);
	CHECK_EQ(proto_flow_verify(&f, other, key, sizeof(key) - 1), -EACCES);
	f.flow_id = 4;
	CHECK_EQ(proto_flow_verify(&f, nonce, key, sizeof(key) - 1), -EACCES);

	proto_probe_encode(&p, buf, sizeof(buf));
	CHECK_EQ(proto_probe_sign(buf, PROTO_PROBE_LEN + PROTO_MAC_LEN - 1, key, 13), -ENOSPC);
	CHECK_EQ(proto_probe_sign(buf, sizeof(buf), key, 13), PROTO_PROBE_LEN + PROTO_MAC_LEN);
	CHECK_EQ(proto_probe_verify(buf, sizeof(buf), key, 13), 0);
	CHECK_EQ(proto_probe_verify(buf, PROTO_PROBE_LEN + PROTO_MAC_LEN, key, 13), 0);
	CHECK_EQ(proto_probe_verify(buf, PROTO_PROBE_LEN + PROTO_MAC_LEN - 1, key, 13), -EBADMSG);
	CHECK_EQ(proto_probe_verify(buf, sizeof(buf), bad, 13), -EACCES);
	buf[10] ^= 0x80;
	CHECK_EQ(proto_probe_verify(buf, sizeof(buf), key, 13), -EACCES);
}

TEST(key_file)
{
	char path[] = "/tmp/test-proto-key-XXXXXX";
	uint8_t key[PROTO_MAX_KEY];
	static char big[PROTO_MAX_KEY + 10];
	size_t len = 99;
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	CHECK(write(fd, "s3cret\n\n", 8) == 8);
	CHECK_EQ(proto_key_read(path, key, sizeof(key), &len), 0);
	CHECK_EQ(len, 6);
	CHECK(!memcmp(key, "s3cret", 6));
	CHECK(ftruncate(fd, 0) == 0);
	len = 99;
	CHECK_EQ(proto_key_read(path, key, sizeof(key), &len), -EINVAL);
	CHECK_EQ(len, 99);
	memset(big, 'k', sizeof(big));
	CHECK(pwrite(fd, big, sizeof(big), 0) == (ssize_t)sizeof(big));
	CHECK_EQ(proto_key_read(path, key, sizeof(key), &len), -EMSGSIZE);
	close(fd);
	unlink(path);
	CHECK_EQ(proto_key_read("/nonexistent/key", key, sizeof(key), &len), -ENOENT);
}

/* A hostile grant (a 1 us probe interval, a longer test, a 1 ms report step, a probe of
 * 2 bytes or 60 KB) is held to what was asked and to sane bounds; a sane one is kept. */
TEST(welcome_clamp_holds_a_hostile_grant_to_what_was_asked)
{
	struct proto_hello h = {
	    .duration_ms = 7000, .interval_us = 200000, .probe_len = 66, .step_ms = 200};
	struct proto_welcome w = {
	    .duration_ms = 7000, .interval_us = 1, .probe_len = 2, .step_ms = 1};
	struct proto_welcome sane = {
	    .duration_ms = 5000, .interval_us = 500000, .probe_len = 66, .step_ms = 200};

	CHECK_EQ(proto_welcome_clamp(&w, &h), 3);
	CHECK_EQ(w.interval_us, 200000);
	CHECK_EQ(w.probe_len, 66);
	CHECK_EQ(w.step_ms, PROTO_GRANT_MIN_STEP_MS);
	w.duration_ms = 3600000;
	w.probe_len = 60000;
	w.interval_us = 3000000000u;
	CHECK_EQ(proto_welcome_clamp(&w, &h), 3);
	CHECK_EQ(w.duration_ms, 7000);
	CHECK_EQ(w.probe_len, PROTO_GRANT_MAX_PROBE_LEN);
	CHECK_EQ(w.interval_us, PROTO_GRANT_MAX_INTERVAL_US);
	CHECK_EQ(proto_welcome_clamp(&sane, &h), 0);
	CHECK_EQ(sane.interval_us, 500000);
	CHECK_EQ(sane.duration_ms, 5000);
}
