/* SPDX-License-Identifier: MIT */
/* nl.c - nl.h over libmnl: the one place that includes its header. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>

#include "nl.h"

/*
 * 32 KiB is what the kernel's rtnetlink dumps fill at most per read (libmnl names it
 * MNL_SOCKET_DUMP_SIZE in later releases); a smaller buffer would see MSG_TRUNC.
 */
#define NL_BUFFER_SIZE 32768

struct nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	char *buf; /* NL_BUFFER_SIZE bytes, for requests and replies */
};

int nl_open(struct nl **out)
{
	struct nl *nl = calloc(1, sizeof(*nl));
	int r;

	if (!nl)
		return -ENOMEM;
	nl->buf = malloc(NL_BUFFER_SIZE);
	if (!nl->buf) {
		free(nl);
		return -ENOMEM;
	}
	nl->sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl->sock) {
		r = -errno;
		goto fail;
	}
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		goto fail;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = 1;
	/* The kernel's reason in words ("Specified qdisc kind is unknown"), and errors
	 * that do not echo the whole request back: both only for nl_request's sake, and
	 * both optional (kernels before 4.12 have neither). */
	int one = 1, fd = mnl_socket_get_fd(nl->sock);
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	*out = nl;
	return 0;
fail:
	nl_close(nl);
	return r;
}

void nl_close(struct nl *nl)
{
	if (!nl)
		return;
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->buf);
	free(nl);
}

struct dump_ctx {
	nl_msg_fn fn;
	void *data;
	int err; /* the first error fn returned; later messages are drained unseen */
};

static int dump_one(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;

	/*
	 * NLM_F_DUMP_INTR (the table changed during the dump) is deliberately not an
	 * error: an audit is a snapshot of a moving system either way.
	 */
	if (ctx->err == 0) {
		int r = ctx->fn(nlh, ctx->data);

		if (r < 0)
			ctx->err = r;
	}
	return MNL_CB_OK;
}

int nl_dump(struct nl *nl, uint16_t type, const void *hdr, size_t hdrlen, nl_msg_fn fn, void *data)
{
	struct dump_ctx ctx = {.fn = fn, .data = data};
	struct nlmsghdr *nlh;
	unsigned int seq;
	ssize_t n;
	int r;

	if (hdrlen > 256)
		return -EINVAL;
	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq = nl->seq++;
	memcpy(mnl_nlmsg_put_extra_header(nlh, hdrlen), hdr, hdrlen);
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, NL_BUFFER_SIZE);
		if (n < 0)
			return -errno;
		r = mnl_cb_run(nl->buf, (size_t)n, seq, nl->portid, dump_one, &ctx);
		if (r < 0)
			return errno ? -errno : -EPROTO;
		if (r == MNL_CB_STOP)
			break;
	}
	return ctx.err;
}

/* The extended-ack text of an NLMSG_ERROR, if any, into errmsg. */
static void ack_message(const struct nlmsghdr *nlh, char *errmsg, size_t errlen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e), paylen = mnl_nlmsg_get_payload_len(nlh);

	if (!errmsg || !errlen || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* Without NLM_F_CAPPED the whole request is echoed before the attributes. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len > sizeof(e->msg))
		off += MNL_ALIGN(e->msg.nlmsg_len - sizeof(e->msg));
	if (off > paylen ||
	    nl_attrs((const char *)e + off, paylen - off, tb, NLMSGERR_ATTR_MAX) < 0 ||
	    !tb[NLMSGERR_ATTR_MSG])
		return;
	if (nl_attr_str(tb[NLMSGERR_ATTR_MSG], errmsg, errlen) == -ENAMETOOLONG) {
		/* Truncated is better than nothing for a message meant for people. */
		memcpy(errmsg, mnl_attr_get_payload(tb[NLMSGERR_ATTR_MSG]), errlen - 1);
		errmsg[errlen - 1] = '\0';
	}
}

/*
 * Wait for the acknowledgement of request seq: 0, or its -errno with the text. Replies
 * to other sequence numbers (a late answer to an earlier request) are skipped.
 */
static int wait_ack(struct nl *nl, unsigned int seq, char *errmsg, size_t errlen)
{
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf, NL_BUFFER_SIZE);
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)nl->buf;
		int left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		left = (int)n;
		for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *e;

			if (nlh->nlmsg_seq != seq || nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
				return -EBADMSG;
			e = mnl_nlmsg_get_payload(nlh);
			if (e->error > 0 || e->error < -4095)
				return -EPROTO;
			if (e->error < 0)
				ack_message(nlh, errmsg, errlen);
			return e->error;
		}
	}
}

int nl_request(struct nl *nl, void *msgs, size_t len, size_t *done, char *errmsg, size_t errlen)
{
	struct nlmsghdr *nlh;
	size_t off, count = 0;
	int r = 0;

	if (errmsg && errlen)
		errmsg[0] = '\0';
	if (done)
		*done = 0;
	/* Check the whole sequence first: nothing is sent unless all of it is well formed. */
	for (off = 0; off < len; off += MNL_ALIGN(nlh->nlmsg_len)) {
		nlh = (struct nlmsghdr *)((char *)msgs + off);
		if (len - off < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
		    nlh->nlmsg_len > len - off || nlh->nlmsg_len > NL_BUFFER_SIZE ||
		    !(nlh->nlmsg_flags & NLM_F_ACK))
			return -EINVAL;
	}
	for (off = 0; off < len; off += MNL_ALIGN(nlh->nlmsg_len)) {
		nlh = (struct nlmsghdr *)((char *)msgs + off);
		nlh->nlmsg_seq = nl->seq++;
		nlh->nlmsg_pid = 0;
		if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
			return -errno;
		r = wait_ack(nl, nlh->nlmsg_seq, errmsg, errlen);
		if (r < 0)
			break;
		count++;
		if (done)
			*done = count;
	}
	return r;
}

const void *nl_msg_header(const struct nlmsghdr *nlh, size_t hdrlen)
{
	if (nlh->nlmsg_len < NLMSG_HDRLEN || mnl_nlmsg_get_payload_len(nlh) < hdrlen)
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

struct index_ctx {
	const struct nlattr **tb;
	unsigned maxtype;
	const char *end; /* one past the last well-formed attribute */
};

static int index_one(const struct nlattr *attr, void *data)
{
	struct index_ctx *ctx = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type <= ctx->maxtype)
		ctx->tb[type] = attr;
	ctx->end = (const char *)attr + attr->nla_len;
	return MNL_CB_OK;
}

int nl_attrs(const void *buf, size_t len, const struct nlattr **tb, unsigned maxtype)
{
	struct index_ctx ctx = {.tb = tb, .maxtype = maxtype, .end = buf};
	size_t used;

	if (len > INT32_MAX)
		return -EBADMSG;
	memset(tb, 0, (maxtype + 1) * sizeof(*tb));
	/* libmnl stops quietly at the first attribute that does not fit; catch that. */
	mnl_attr_parse_payload(buf, len, index_one, &ctx);
	used = (size_t)(ctx.end - (const char *)buf);
	if (used != len && MNL_ALIGN(used) != len)
		return -EBADMSG;
	return 0;
}

int nl_msg_attrs(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr **tb,
		 unsigned maxtype)
{
	const char *payload = nl_msg_header(nlh, hdrlen);
	size_t off = MNL_ALIGN(hdrlen), len;

	if (!payload)
		return -EBADMSG;
	len = mnl_nlmsg_get_payload_len(nlh);
	if (off > len)
		off = len;
	return nl_attrs(payload + off, len - off, tb, maxtype);
}

int nl_nested(const struct nlattr *attr, const struct nlattr **tb, unsigned maxtype)
{
	return nl_attrs(mnl_attr_get_payload(attr), mnl_attr_get_payload_len(attr), tb, maxtype);
}

size_t nl_attr_len(const struct nlattr *attr)
{
	return mnl_attr_get_payload_len(attr);
}

const void *nl_attr_data(const struct nlattr *attr, size_t min_len)
{
	if (!attr || mnl_attr_get_payload_len(attr) < min_len)
		return NULL;
	return mnl_attr_get_payload(attr);
}

static int attr_exact(const struct nlattr *attr, void *out, size_t size)
{
	if (!attr || mnl_attr_get_payload_len(attr) != size)
		return -EBADMSG;
	memcpy(out, mnl_attr_get_payload(attr), size);
	return 0;
}

int nl_attr_u8(const struct nlattr *attr, uint8_t *out)
{
	return attr_exact(attr, out, sizeof(*out));
}

int nl_attr_u32(const struct nlattr *attr, uint32_t *out)
{
	return attr_exact(attr, out, sizeof(*out));
}

int nl_attr_u64(const struct nlattr *attr, uint64_t *out)
{
	return attr_exact(attr, out, sizeof(*out));
}

int nl_attr_str(const struct nlattr *attr, char *buf, size_t len)
{
	const char *s;
	size_t n;

	if (!attr)
		return -EBADMSG;
	s = mnl_attr_get_payload(attr);
	n = mnl_attr_get_payload_len(attr);
	const char *nul = memchr(s, '\0', n);
	if (!nul)
		return -EBADMSG;
	if ((size_t)(nul - s) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s, (size_t)(nul - s) + 1);
	return 0;
}
