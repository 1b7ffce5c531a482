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
 * TCA_OPTIONS decoder over the rest; otherwise the rest is a stream of netlink
 * messages, each tried as a link and as a qdisc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "host/link.h"
#include "host/qdisc.h"
#include "base/nl.h"

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

	/* What mnl_cb_run checks before a callback sees a message: a whole header, and a
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
	} else if (data[0] < 128) {
		fuzz_attrs(buf, len);
	} else {
		fuzz_messages(buf, len);
	}
	free(buf);
	return 0;
}
