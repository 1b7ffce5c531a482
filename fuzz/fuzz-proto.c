/* SPDX-License-Identifier: MIT */
/*
 * fuzz-proto.c - the wire decoders of src/meter/proto.c on arbitrary bytes, as the
 * server meets them: a TCP byte stream cut into frames, and UDP probe datagrams.
 *
 * The first byte picks the target: even, the rest is a TCP stream; odd, a datagram.
 * Invariants: decoders return a frame size within the buffer, 0, or -EBADMSG /
 * -EPROTO / -EMSGSIZE and leave their output untouched on error; a decoded message
 * encodes back to the same bytes; probe verification never accepts a datagram
 * shorter than header + MAC; a probe reply is never longer than its request.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meter/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t key[] = "fuzz key";
static const uint8_t nonce[PROTO_NONCE_LEN] = {7};

static void fail(const char *what, int r)
{
	fprintf(stderr, "fuzz-proto: %s (%d)\n", what, r);
	abort();
}

static void fuzz_stream(const uint8_t *buf, size_t len)
{
	uint8_t out[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	struct proto_msg m, untouched;

	while (len) {
		int n, e;

		memset(&m, 0xa5, sizeof(m));
		untouched = m;
		n = proto_decode(buf, len, &m);
		if (n <= 0) {
			if (n != 0 && n != -EBADMSG && n != -EPROTO && n != -EMSGSIZE)
				fail("unexpected error", n);
			if (memcmp(&m, &untouched, sizeof(m)))
				fail("output changed on error or short input", n);
			/* The server closes such a connection; the stream ends here. */
			return;
		}
		if ((size_t)n > len || n < PROTO_FRAME_HDR || n > PROTO_FRAME_HDR + PROTO_MAX_BODY)
			fail("frame size out of bounds", n);
		/* Re-encoding gives the same bytes, except where decoding made a string field
		 * NUL-terminated (ERROR's text): compare decodes instead of bytes then. */
		e = proto_encode(&m, out, sizeof(out));
		if (e != n)
			fail("re-encoded size differs", e);
		if (m.type != PROTO_ERROR && m.type != PROTO_HELLO && m.type != PROTO_FLOW &&
		    memcmp(out, buf, (size_t)n))
			fail("re-encoded bytes differ", n);
		if (m.type == PROTO_HELLO)
			(void)proto_hello_verify(&m.u.hello, nonce, key, sizeof(key) - 1);
		if (m.type == PROTO_WELCOME)
			(void)proto_welcome_verify(&m.u.welcome, nonce, key, sizeof(key) - 1);
		if (m.type == PROTO_FLOW)
			(void)proto_flow_verify(&m.u.flow, nonce, key, sizeof(key) - 1);
		buf += n;
		len -= (size_t)n;
	}
}

static void fuzz_probe(const uint8_t *buf, size_t len)
{
	uint8_t reply[PROTO_PROBE_LEN + PROTO_MAC_LEN];
	struct proto_probe p, untouched;
	int r, n;

	memset(&p, 0x5a, sizeof(p));
	untouched = p;
	r = proto_probe_decode(buf, len, &p);
	if (r < 0) {
		if (r != -EBADMSG || memcmp(&p, &untouched, sizeof(p)))
			fail("probe decode error", r);
		return;
	}
	if (len < PROTO_PROBE_LEN)
		fail("accepted a short probe", (int)len);
	r = proto_probe_verify(buf, len, key, sizeof(key) - 1);
	if (r == 0 && len < PROTO_PROBE_LEN + PROTO_MAC_LEN)
		fail("verified a probe without room for a MAC", (int)len);
	/* The server's reply: header, plus MAC when keyed; only sent when it fits. */
	p.magic = PROTO_PROBE_MAGIC_REP;
	n = proto_probe_encode(&p, reply, sizeof(reply));
	if (n != PROTO_PROBE_LEN || (size_t)n > len)
		fail("reply longer than request", n);
	if (r == 0) {
		n = proto_probe_sign(reply, sizeof(reply), key, sizeof(key) - 1);
		if ((size_t)n > len)
			fail("keyed reply longer than request", n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_probe(data + 1, size - 1);
	else
		fuzz_stream(data + 1, size - 1);
	return 0;
}
