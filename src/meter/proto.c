/* SPDX-License-Identifier: MIT */
/*
 * proto.c - encoders and decoders of proto.h's wire format. Every read goes through a
 * cursor that checks the remaining length first; decoding fills a local copy and
 * only copies it out when the whole frame checked out, so a failed decode leaves the
 * caller's message untouched.
 *
 * Body layouts (big-endian, in struct order):
 *   HELLO   version u8, nflows u8, duration_ms u32, interval_us u32, probe_len u16,
 *           step_ms u32, cc[16], mac[32]                                   = 64 bytes
 *   WELCOME token[16], duration_ms u32, interval_us u32, probe_len u16, step_ms u32,
 *           max_duration_ms u32, min_interval_us u32, max_probe_len u16,
 *           server_ns u64, mac[32]                                         = 80 bytes
 *   ERROR   code u16, text[128]                                            = 130 bytes
 *   FLOW    token[16], flow_id u8, direction u8, tos u8, cc[16]            = 35 bytes
 *   REPORT  server_ns u64, flags u32, nflows u8, rx_bytes u64 x nflows     = 13 + 8n
 *   STOP    (empty)
 *   FINAL   server_ns u64, flags u32, nflows u8, rx u64 x n, tx u64 x n,
 *           probes_answered u32, probes_dropped u32                        = 21 + 16n
 * Bodies must have exactly these lengths (-EBADMSG otherwise).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/hmac.h"
#include "proto.h"

#define HELLO_LEN      64
#define HELLO_SIGNED   32
#define WELCOME_LEN    80
#define WELCOME_SIGNED 48
#define ERROR_LEN      130
#define FLOW_SIGNED    35
#define FLOW_LEN       (FLOW_SIGNED + 32)
#define CHALLENGE_LEN  PROTO_NONCE_LEN

struct cursor {
	uint8_t *w;	  /* writing */
	const uint8_t *r; /* reading */
	size_t left;
	bool bad; /* ran past the end */
};

static uint8_t *put(struct cursor *c, size_t n)
{
	uint8_t *p = c->w;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->w += n, c->left -= n;
	return p;
}

static void put_u8(struct cursor *c, uint8_t v)
{
	uint8_t *p = put(c, 1);

	if (p)
		p[0] = v;
}

static void put_be(struct cursor *c, uint64_t v, unsigned n)
{
	uint8_t *p = put(c, n);

	for (unsigned i = 0; p && i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void put_bytes(struct cursor *c, const void *src, size_t n)
{
	uint8_t *p = put(c, n);

	if (p)
		memcpy(p, src, n);
}

/* A fixed-size string field: the string's bytes, NUL-padded, never unterminated on read. */
static void put_str(struct cursor *c, const char *s, size_t n)
{
	uint8_t *p = put(c, n);
	size_t l;

	if (!p)
		return;
	l = strnlen(s, n);
	memcpy(p, s, l);
	memset(p + l, 0, n - l);
}

static const uint8_t *get(struct cursor *c, size_t n)
{
	const uint8_t *p = c->r;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->r += n, c->left -= n;
	return p;
}

static uint64_t get_be(struct cursor *c, unsigned n)
{
	const uint8_t *p = get(c, n);
	uint64_t v = 0;

	for (unsigned i = 0; p && i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void get_bytes(struct cursor *c, void *dst, size_t n)
{
	const uint8_t *p = get(c, n);

	if (p)
		memcpy(dst, p, n);
}

/* n bytes into dst[n]; the last byte is forced to NUL so the field is a C string. */
static void get_str(struct cursor *c, char *dst, size_t n)
{
	get_bytes(c, dst, n);
	dst[n - 1] = '\0';
}

static void put_hello_fields(struct cursor *c, const struct proto_hello *h)
{
	put_u8(c, h->version);
	put_u8(c, h->nflows);
	put_be(c, h->duration_ms, 4);
	put_be(c, h->interval_us, 4);
	put_be(c, h->probe_len, 2);
	put_be(c, h->step_ms, 4);
	put_str(c, h->cc, PROTO_CC_LEN);
}

static void put_welcome_fields(struct cursor *c, const struct proto_welcome *w)
{
	put_bytes(c, w->token, PROTO_TOKEN_LEN);
	put_be(c, w->duration_ms, 4);
	put_be(c, w->interval_us, 4);
	put_be(c, w->probe_len, 2);
	put_be(c, w->step_ms, 4);
	put_be(c, w->max_duration_ms, 4);
	put_be(c, w->min_interval_us, 4);
	put_be(c, w->max_probe_len, 2);
	put_be(c, w->server_ns, 8);
}

static void put_flow_fields(struct cursor *c, const struct proto_flow *f)
{
	put_bytes(c, f->token, PROTO_TOKEN_LEN);
	put_u8(c, f->flow_id);
	put_u8(c, f->direction);
	put_u8(c, f->tos);
	put_str(c, f->cc, PROTO_CC_LEN);
}

static int encode_body(const struct proto_msg *m, struct cursor *c)
{
	unsigned i;

	switch (m->type) {
	case PROTO_HELLO:
		put_hello_fields(c, &m->u.hello);
		put_bytes(c, m->u.hello.mac, 32);
		break;
	case PROTO_WELCOME:
		put_welcome_fields(c, &m->u.welcome);
		put_bytes(c, m->u.welcome.mac, 32);
		break;
	case PROTO_ERROR:
		put_be(c, m->u.error.code, 2);
		put_str(c, m->u.error.text, sizeof(m->u.error.text));
		break;
	case PROTO_FLOW:
		put_flow_fields(c, &m->u.flow);
		put_bytes(c, m->u.flow.mac, 32);
		break;
	case PROTO_CHALLENGE:
		put_bytes(c, m->u.challenge.nonce, PROTO_NONCE_LEN);
		break;
	case PROTO_REPORT:
		if (m->u.report.nflows > PROTO_MAX_FLOWS)
			return -EINVAL;
		put_be(c, m->u.report.server_ns, 8);
		put_be(c, m->u.report.flags, 4);
		put_u8(c, m->u.report.nflows);
		for (i = 0; i < m->u.report.nflows; i++)
			put_be(c, m->u.report.rx_bytes[i], 8);
		break;
	case PROTO_STOP:
		break;
	case PROTO_FINAL:
		if (m->u.final.nflows > PROTO_MAX_FLOWS)
			return -EINVAL;
		put_be(c, m->u.final.server_ns, 8);
		put_be(c, m->u.final.flags, 4);
		put_u8(c, m->u.final.nflows);
		for (i = 0; i < m->u.final.nflows; i++)
			put_be(c, m->u.final.rx_bytes[i], 8);
		for (i = 0; i < m->u.final.nflows; i++)
			put_be(c, m->u.final.tx_bytes[i], 8);
		put_be(c, m->u.final.probes_answered, 4);
		put_be(c, m->u.final.probes_dropped, 4);
		break;
	default:
		return -EINVAL;
	}
	return c->bad ? -ENOSPC : 0;
}

int proto_encode(const struct proto_msg *msg, uint8_t *buf, size_t len)
{
	struct cursor c;
	size_t body;
	int r;

	if (len < PROTO_FRAME_HDR)
		return -ENOSPC;
	c = (struct cursor){.w = buf + PROTO_FRAME_HDR, .left = len - PROTO_FRAME_HDR};
	r = encode_body(msg, &c);
	if (r < 0)
		return r;
	body = len - PROTO_FRAME_HDR - c.left;
	buf[0] = (uint8_t)(body >> 8);
	buf[1] = (uint8_t)body;
	buf[2] = msg->type;
	return (int)(PROTO_FRAME_HDR + body);
}

static int decode_body(uint8_t type, struct cursor *c, struct proto_msg *m)
{
	unsigned i, n;

	m->type = type;
	switch (type) {
	case PROTO_HELLO:
		if (c->left != HELLO_LEN)
			return -EBADMSG;
		m->u.hello.version = (uint8_t)get_be(c, 1);
		m->u.hello.nflows = (uint8_t)get_be(c, 1);
		m->u.hello.duration_ms = (uint32_t)get_be(c, 4);
		m->u.hello.interval_us = (uint32_t)get_be(c, 4);
		m->u.hello.probe_len = (uint16_t)get_be(c, 2);
		m->u.hello.step_ms = (uint32_t)get_be(c, 4);
		get_str(c, m->u.hello.cc, PROTO_CC_LEN);
		get_bytes(c, m->u.hello.mac, 32);
		break;
	case PROTO_WELCOME:
		if (c->left != WELCOME_LEN)
			return -EBADMSG;
		get_bytes(c, m->u.welcome.token, PROTO_TOKEN_LEN);
		m->u.welcome.duration_ms = (uint32_t)get_be(c, 4);
		m->u.welcome.interval_us = (uint32_t)get_be(c, 4);
		m->u.welcome.probe_len = (uint16_t)get_be(c, 2);
		m->u.welcome.step_ms = (uint32_t)get_be(c, 4);
		m->u.welcome.max_duration_ms = (uint32_t)get_be(c, 4);
		m->u.welcome.min_interval_us = (uint32_t)get_be(c, 4);
		m->u.welcome.max_probe_len = (uint16_t)get_be(c, 2);
		m->u.welcome.server_ns = get_be(c, 8);
		get_bytes(c, m->u.welcome.mac, 32);
		break;
	case PROTO_ERROR:
		if (c->left != ERROR_LEN)
			return -EBADMSG;
		m->u.error.code = (uint16_t)get_be(c, 2);
		get_str(c, m->u.error.text, sizeof(m->u.error.text));
		break;
	case PROTO_FLOW:
		if (c->left != FLOW_LEN)
			return -EBADMSG;
		get_bytes(c, m->u.flow.token, PROTO_TOKEN_LEN);
		m->u.flow.flow_id = (uint8_t)get_be(c, 1);
		m->u.flow.direction = (uint8_t)get_be(c, 1);
		m->u.flow.tos = (uint8_t)get_be(c, 1);
		get_str(c, m->u.flow.cc, PROTO_CC_LEN);
		get_bytes(c, m->u.flow.mac, 32);
		if (m->u.flow.direction > PROTO_DOWNLOAD)
			return -EBADMSG;
		break;
	case PROTO_CHALLENGE:
		if (c->left != CHALLENGE_LEN)
			return -EBADMSG;
		get_bytes(c, m->u.challenge.nonce, PROTO_NONCE_LEN);
		break;
	case PROTO_REPORT:
		if (c->left < 13)
			return -EBADMSG;
		m->u.report.server_ns = get_be(c, 8);
		m->u.report.flags = (uint32_t)get_be(c, 4);
		n = m->u.report.nflows = (uint8_t)get_be(c, 1);
		if (n > PROTO_MAX_FLOWS || c->left != 8 * n)
			return -EBADMSG;
		for (i = 0; i < n; i++)
			m->u.report.rx_bytes[i] = get_be(c, 8);
		break;
	case PROTO_STOP:
		if (c->left)
			return -EBADMSG;
		break;
	case PROTO_FINAL:
		if (c->left < 21)
			return -EBADMSG;
		m->u.final.server_ns = get_be(c, 8);
		m->u.final.flags = (uint32_t)get_be(c, 4);
		n = m->u.final.nflows = (uint8_t)get_be(c, 1);
		if (n > PROTO_MAX_FLOWS || c->left != 16 * n + 8)
			return -EBADMSG;
		for (i = 0; i < n; i++)
			m->u.final.rx_bytes[i] = get_be(c, 8);
		for (i = 0; i < n; i++)
			m->u.final.tx_bytes[i] = get_be(c, 8);
		m->u.final.probes_answered = (uint32_t)get_be(c, 4);
		m->u.final.probes_dropped = (uint32_t)get_be(c, 4);
		break;
	default:
		return -EPROTO;
	}
	return c->bad ? -EBADMSG : 0;
}

int proto_decode(const uint8_t *buf, size_t len, struct proto_msg *msg)
{
	struct proto_msg m;
	struct cursor c;
	size_t body;
	int r;

	if (len < PROTO_FRAME_HDR)
		return 0;
	body = (size_t)buf[0] << 8 | buf[1];
	if (body > PROTO_MAX_BODY)
		return -EMSGSIZE;
	/* An unknown type is known from the header alone: no need to wait for its body. */
	if (buf[2] < PROTO_HELLO || buf[2] > PROTO_CHALLENGE)
		return -EPROTO;
	if (len < PROTO_FRAME_HDR + body)
		return 0;
	memset(&m, 0, sizeof(m));
	c = (struct cursor){.r = buf + PROTO_FRAME_HDR, .left = body};
	r = decode_body(buf[2], &c, &m);
	if (r < 0)
		return r;
	*msg = m;
	return (int)(PROTO_FRAME_HDR + body);
}

int proto_probe_encode(const struct proto_probe *p, uint8_t *buf, size_t len)
{
	struct cursor c = {.w = buf, .left = len};

	put_be(&c, p->magic, 4);
	put_bytes(&c, p->token, PROTO_TOKEN_LEN);
	put_u8(&c, p->stream);
	put_u8(&c, p->flags);
	put_be(&c, p->seq, 4);
	put_be(&c, p->client_ns, 8);
	put_be(&c, p->server_rx_ns, 8);
	put_be(&c, p->server_tx_ns, 8);
	return c.bad ? -ENOSPC : PROTO_PROBE_LEN;
}

int proto_probe_decode(const uint8_t *buf, size_t len, struct proto_probe *p)
{
	struct cursor c = {.r = buf, .left = len};
	struct proto_probe q;

	if (len < PROTO_PROBE_LEN)
		return -EBADMSG;
	q.magic = (uint32_t)get_be(&c, 4);
	if (q.magic != PROTO_PROBE_MAGIC_REQ && q.magic != PROTO_PROBE_MAGIC_REP)
		return -EBADMSG;
	get_bytes(&c, q.token, PROTO_TOKEN_LEN);
	q.stream = (uint8_t)get_be(&c, 1);
	q.flags = (uint8_t)get_be(&c, 1);
	q.seq = (uint32_t)get_be(&c, 4);
	q.client_ns = get_be(&c, 8);
	q.server_rx_ns = get_be(&c, 8);
	q.server_tx_ns = get_be(&c, 8);
	if (c.bad)
		return -EBADMSG;
	*p = q;
	return 0;
}

/*
 * HMAC-SHA256 of nonce || the signed fields of a HELLO, WELCOME or FLOW body (type);
 * no nonce is as many zero bytes. Sign and verify of all three go through here, so
 * what is signed is the same bytes encode_body writes.
 */
static void body_mac(enum proto_type type, const void *body, const uint8_t *nonce,
		     const uint8_t *key, size_t keylen, uint8_t *mac)
{
	static const uint8_t none[PROTO_NONCE_LEN];
	uint8_t buf[PROTO_NONCE_LEN + WELCOME_SIGNED]; /* the longest of the three */
	struct cursor c = {.w = buf + PROTO_NONCE_LEN, .left = sizeof(buf) - PROTO_NONCE_LEN};

	_Static_assert(WELCOME_SIGNED >= HELLO_SIGNED && WELCOME_SIGNED >= FLOW_SIGNED,
		       "body_mac's buffer holds every signed body");
	if (type == PROTO_HELLO)
		put_hello_fields(&c, body);
	else if (type == PROTO_WELCOME)
		put_welcome_fields(&c, body);
	else
		put_flow_fields(&c, body);
	memcpy(buf, nonce ? nonce : none, PROTO_NONCE_LEN);
	hmac_sha256(key, keylen, buf, (size_t)(c.w - buf), mac);
}

/* 0 when mac is body_mac's answer, else -EACCES (compared in constant time). */
static int body_verify(enum proto_type type, const void *body, const uint8_t *nonce,
		       const uint8_t *key, size_t keylen, const uint8_t *mac)
{
	uint8_t want[HMAC_SHA256_LEN];

	body_mac(type, body, nonce, key, keylen, want);
	return hmac_equal(want, mac, sizeof(want)) ? 0 : -EACCES;
}

void proto_hello_sign(struct proto_hello *h, const uint8_t *nonce, const uint8_t *key,
		      size_t keylen)
{
	body_mac(PROTO_HELLO, h, nonce, key, keylen, h->mac);
}

int proto_hello_verify(const struct proto_hello *h, const uint8_t *nonce, const uint8_t *key,
		       size_t keylen)
{
	return body_verify(PROTO_HELLO, h, nonce, key, keylen, h->mac);
}

void proto_welcome_sign(struct proto_welcome *w, const uint8_t *nonce, const uint8_t *key,
			size_t keylen)
{
	body_mac(PROTO_WELCOME, w, nonce, key, keylen, w->mac);
}

int proto_welcome_verify(const struct proto_welcome *w, const uint8_t *nonce, const uint8_t *key,
			 size_t keylen)
{
	return body_verify(PROTO_WELCOME, w, nonce, key, keylen, w->mac);
}

void proto_flow_sign(struct proto_flow *f, const uint8_t *nonce, const uint8_t *key, size_t keylen)
{
	body_mac(PROTO_FLOW, f, nonce, key, keylen, f->mac);
}

int proto_flow_verify(const struct proto_flow *f, const uint8_t *nonce, const uint8_t *key,
		      size_t keylen)
{
	return body_verify(PROTO_FLOW, f, nonce, key, keylen, f->mac);
}

int proto_probe_sign(uint8_t *buf, size_t len, const uint8_t *key, size_t keylen)
{
	uint8_t mac[HMAC_SHA256_LEN];

	if (len < PROTO_PROBE_LEN + PROTO_MAC_LEN)
		return -ENOSPC;
	hmac_sha256(key, keylen, buf, PROTO_PROBE_LEN, mac);
	memcpy(buf + PROTO_PROBE_LEN, mac, PROTO_MAC_LEN);
	return PROTO_PROBE_LEN + PROTO_MAC_LEN;
}

int proto_probe_verify(const uint8_t *buf, size_t len, const uint8_t *key, size_t keylen)
{
	uint8_t mac[HMAC_SHA256_LEN];

	if (len < PROTO_PROBE_LEN + PROTO_MAC_LEN)
		return -EBADMSG;
	hmac_sha256(key, keylen, buf, PROTO_PROBE_LEN, mac);
	return hmac_equal(mac, buf + PROTO_PROBE_LEN, PROTO_MAC_LEN) ? 0 : -EACCES;
}

int proto_key_read(const char *path, uint8_t *key, size_t cap, size_t *len)
{
	uint8_t buf[PROTO_MAX_KEY + 1];
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < sizeof(buf)) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	while (got && isspace(buf[got - 1]))
		got--;
	if (!got)
		return -EINVAL;
	if (got > cap || got > PROTO_MAX_KEY)
		return -EMSGSIZE;
	memcpy(key, buf, got);
	*len = got;
	memset(buf, 0, sizeof(buf));
	return 0;
}

/* v within [lo, hi]; *changed counts a change. */
static uint32_t clamp_u32(uint32_t v, uint32_t lo, uint32_t hi, int *changed)
{
	uint32_t c = v < lo ? lo : v > hi ? hi : v;

	*changed += c != v;
	return c;
}

int proto_welcome_clamp(struct proto_welcome *w, const struct proto_hello *h)
{
	uint32_t max_interval = h->interval_us > PROTO_GRANT_MAX_INTERVAL_US
				    ? h->interval_us
				    : PROTO_GRANT_MAX_INTERVAL_US;
	uint32_t min_len =
	    h->probe_len < PROTO_GRANT_MAX_PROBE_LEN ? h->probe_len : PROTO_GRANT_MAX_PROBE_LEN;
	int changed = 0;

	if (w->interval_us) /* 0: the server kept the client's */
		w->interval_us = clamp_u32(w->interval_us, h->interval_us, max_interval, &changed);
	w->duration_ms = clamp_u32(w->duration_ms, 0, h->duration_ms, &changed);
	w->probe_len =
	    (uint16_t)clamp_u32(w->probe_len, min_len, PROTO_GRANT_MAX_PROBE_LEN, &changed);
	w->step_ms =
	    clamp_u32(w->step_ms, PROTO_GRANT_MIN_STEP_MS, PROTO_GRANT_MAX_STEP_MS, &changed);
	return changed;
}
