/* SPDX-License-Identifier: MIT */
/*
 * fuzz-nl.c - the netlink decoders on arbitrary bytes: nl.c's attribute parser, the
 * qdisc option decoders, and whole RTM_NEWLINK / RTM_NEWQDISC messages as rtnetlink
 * would hand them over (src/host/link.c, src/host/qdisc.c, with their statistics:
 * src/host/qstats.c), then the qdisc trees
 * rebuilt from whatever decoded. Nothing may read out of bounds (ASan); every call
 * returns 0 or -errno, and a failed decode leaves no options behind.
 *
 * The first byte picks the target: below the number of decoders, that kind's
 * TCA_OPTIONS decoder over the rest; 0x60-0x6f, the rest is a datagram from the
 * kernel for nl_reply (the acks, extended acks and dumps of every request); 0x70-0x7f,
 * the rest is a program for the message builder, whose output must always be whole
 * messages that parse back; other values below 128, an attribute stream; from 128,
 * the rest is a stream of netlink messages, each tried as a link and as a qdisc.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "base/nl.h"
#include "host/link.h"
#include "host/qdisc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const kinds[] = {
    "pfifo", "pfifo_head_drop",
    "bfifo", "pfifo_fast",
    "prio",  "fq_codel",
    "fq",    "cake",
    "tbf",   "htb",
    "mq",
};

#define NKINDS	   (sizeof(kinds) / sizeof(kinds[0]))
#define MAX_QDISCS 64

static void check_errno(const char *what, int r)
{
	if (r > 0 || r < -4095) {
		fprintf(stderr, "fuzz-nl: %s returned %d, not 0 or -errno\n", what, r);
		abort();
	}
}

static void fuzz_options(const char *kind, const uint8_t *opts, size_t len)
{
	struct qdisc q = {0};
	int r;

	snprintf(q.kind, sizeof(q.kind), "%s", kind);
	r = host_qdisc_decode_options(&q, opts, len);
	check_errno("host_qdisc_decode_options", r);
	if (q.noptions > QDISC_MAX_OPTIONS || (r < 0 && q.noptions != 0)) {
		fprintf(stderr, "fuzz-nl: %s: %u options after %d\n", kind, q.noptions, r);
		abort();
	}
	for (unsigned i = 0; i < q.noptions; i++)
		if (!q.options[i].key || q.options[i].nlist > VALUE_LIST_MAX)
			abort();
}

static void fuzz_attrs(const uint8_t *buf, size_t len)
{
	const struct nlattr *tb[33];
	uint32_t u32;
	uint64_t u64;
	uint8_t u8;
	char s[16];

	if (nl_attrs(buf, len, tb, 32) < 0)
		return;
	for (unsigned t = 0; t <= 32; t++) {
		if (!tb[t])
			continue;
		/* Every typed getter checks the length before it reads. */
		check_errno("nl_attr_u8", nl_attr_u8(tb[t], &u8));
		check_errno("nl_attr_u32", nl_attr_u32(tb[t], &u32));
		check_errno("nl_attr_u64", nl_attr_u64(tb[t], &u64));
		check_errno("nl_attr_str", nl_attr_str(tb[t], s, sizeof(s)));
		if (nl_attr_data(tb[t], 0) && nl_attr_len(tb[t]) > len)
			abort();
	}
}

static int count_part(const struct nlmsghdr *nlh, void *data)
{
	unsigned *parts = data;

	(void)nlh;
	return ++*parts > 4096 ? -E2BIG : 0;
}

/* The datagram as the reply to request 5 of port 0 (no port check) and of port 77. */
static void fuzz_reply(const uint8_t *buf, size_t len)
{
	static const uint32_t ports[] = {0, 77};

	for (unsigned i = 0; i < 2; i++) {
		char msg[24];
		unsigned parts = 0;
		bool intr = false;
		int r;

		memset(msg, 'x', sizeof(msg));
		msg[0] = '\0';
		r = nl_reply(buf, len, 5, ports[i], count_part, &parts, &intr, msg, sizeof(msg));
		if (r != 1)
			check_errno("nl_reply", r);
		if (!memchr(msg, '\0', sizeof(msg)))
			abort();
		/* Without a callback, and without room for text: the same verdict. */
		if (r != -E2BIG && nl_reply(buf, len, 5, ports[i], NULL, NULL, NULL, NULL, 0) != r)
			abort();
	}
}

#define BUILD_NEST_TYPE 63 /* the only type the program nests */

static void check_attrs(const void *buf, size_t len, unsigned depth)
{
	const struct nlattr *tb[BUILD_NEST_TYPE + 1], *a = NULL;
	int r;

	if (nl_attrs(buf, len, tb, BUILD_NEST_TYPE) < 0)
		abort();
	while ((r = nl_attr_next(buf, len, &a)) > 0)
		if (nl_attr_type(a) == BUILD_NEST_TYPE && depth < 16)
			check_attrs(nl_attr_data(a, 0), nl_attr_len(a), depth + 1);
	if (r < 0)
		abort();
}

/*
 * The builder driven by a program: the first byte sizes the buffer (an exact heap
 * block, so ASan sees any write past it), a message is begun, then each byte is an
 * operation and the next its argument. Whatever happens, buf[0..len) is whole messages that parse.
 */
static void fuzz_builder(const uint8_t *prog, size_t n)
{
	static const unsigned char zeros[1024];
	size_t cap, nests[8], hdrlens[256], nmsgs = 0, depth = 0, boundary = 0;
	unsigned char *buf;
	struct nlbuf b;
	int r;

	if (n < 1)
		return;
	cap = (size_t)prog[0] * 300 + 1; /* up to 75 KiB: past what one nest can hold */
	buf = malloc(cap);
	if (!buf)
		return;
	nlbuf_init(&b, buf, cap);
	nlbuf_msg(&b, 16, NLM_F_REQUEST, 0, NULL, 0);
	if (!b.err)
		hdrlens[nmsgs++] = 0;
	for (size_t i = 1; i + 1 < n; i += 2) {
		uint8_t op = prog[i] % 6, arg = prog[i + 1];

		switch (op) {
		case 0:
			if (nmsgs == 256) /* the program's own cap: hdrlens holds no more */
				break;
			if (!b.err)
				boundary = b.len; /* where the message about to begin starts */
			nlbuf_msg(&b, 16, NLM_F_REQUEST, 0, zeros, arg % 32);
			if (!b.err)
				hdrlens[nmsgs++] = arg % 32;
			depth = 0;
			break;
		case 1:
			nlbuf_attr(&b, arg % 63, zeros, (size_t)arg * 4);
			break;
		case 2:
			nlbuf_u32(&b, arg % 63, arg);
			break;
		case 3:
			nlbuf_str(&b, arg % 63, "fq_codel");
			break;
		case 4:
			if (depth < 8)
				nests[depth++] = nlbuf_nest(&b, BUILD_NEST_TYPE);
			break;
		case 5:
			if (depth)
				nlbuf_nest_end(&b, nests[--depth]);
			break;
		}
	}
	while (depth)
		nlbuf_nest_end(&b, nests[--depth]);
	r = b.err;
	if (r != 0 && r != -ENOSPC && r != -EMSGSIZE && r != -EINVAL)
		abort();
	if (b.len > cap || b.len % 4)
		abort();
	/* A failure takes back the message it happened in, and nothing before it. */
	if (r != 0 && b.len != boundary)
		abort();
	for (size_t m = 0, off = 0; off < b.len; m++) {
		const struct nlmsghdr *h = (const void *)(buf + off);

		if (m >= nmsgs || b.len - off < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN ||
		    h->nlmsg_len > b.len - off)
			abort();
		if (h->nlmsg_len % 4)
			abort();
		check_attrs(buf + off + NLMSG_HDRLEN + NLMSG_ALIGN(hdrlens[m]),
			    h->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(hdrlens[m]), 0);
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	free(buf);
}

static void free_tree(struct qdisc *root)
{
	host_qdisc_free_children(root);
	free(root);
}

static void fuzz_messages(const uint8_t *buf, size_t len)
{
	struct qdisc qdiscs[MAX_QDISCS];
	size_t n = 0;
	size_t off = 0;

	/* What nl_reply checks before a callback sees a message: a whole header, and a
	 * length that covers it and fits what is left. */
	while (off < len && len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const void *)(buf + off);
		struct iface ifc;
		int r;

		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len - off)
			break;
		off += NLMSG_ALIGN(nlh->nlmsg_len);

		r = link_from_msg(nlh, &ifc);
		check_errno("link_from_msg", r);
		if (r == 0 && (!memchr(ifc.name, '\0', sizeof(ifc.name)) ||
			       !memchr(ifc.kind, '\0', sizeof(ifc.kind))))
			abort();
		r = host_qdisc_from_msg(nlh, &qdiscs[n]);
		check_errno("host_qdisc_from_msg", r);
		if (r == 0) {
			if (!memchr(qdiscs[n].kind, '\0', sizeof(qdiscs[n].kind)))
				abort();
			check_errno("options_err", qdiscs[n].options_err);
			/* Malformed statistics leave none behind (host/qstats.h). */
			check_errno("stats_err", qdiscs[n].stats_err);
			if (qdiscs[n].stats_err < 0 &&
			    (qdiscs[n].stats.have || qdiscs[n].xstats.flows != -1))
				abort();
			if (n + 1 < MAX_QDISCS)
				n++;
		}
	}
	/* Trees from what decoded, for each interface seen: bounded, and freed. */
	for (size_t i = 0; i < n; i++) {
		struct qdisc *root = NULL;
		int r = host_qdisc_tree(qdiscs, n, qdiscs[i].ifindex, &root);

		check_errno("host_qdisc_tree", r);
		if (r == 0)
			free_tree(root);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	/* An exact-size heap copy, aligned for struct nlmsghdr: ASan sees a read past it. */
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	if (data[0] < NKINDS) {
		fuzz_options(kinds[data[0]], buf, len);
	} else if (data[0] >= 0x60 && data[0] < 0x70) {
		fuzz_reply(buf, len);
	} else if (data[0] >= 0x70 && data[0] < 0x80) {
		fuzz_builder(buf, len);
	} else if (data[0] < 128) {
		fuzz_attrs(buf, len);
	} else {
		fuzz_messages(buf, len);
	}
	free(buf);
	return 0;
}
