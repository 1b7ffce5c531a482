/* SPDX-License-Identifier: MIT */
/* nl.c - nl.h: netlink messages built, parsed and exchanged with the kernel, on libc alone. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "array.h"
#include "nl.h"

/*
 * 32 KiB is the most the kernel's rtnetlink dumps put in one datagram (it sizes them
 * to the reader's buffer, up to 32 KiB); a smaller buffer would see MSG_TRUNC.
 */
#define NL_BUFFER_SIZE 32768

/* ---- builder ---- */

void nlbuf_init(struct nlbuf *b, void *buf, size_t cap)
{
	*b = (struct nlbuf){.buf = buf, .cap = cap, .msg = NLBUF_NO_MSG};
}

/* Record the first error and take back the message it broke. */
static void nlbuf_fail(struct nlbuf *b, int err)
{
	if (b->err)
		return;
	b->err = err;
	if (b->msg != NLBUF_NO_MSG)
		b->len = b->msg;
}

/* Reserve n bytes (plus padding to 4) at the end, zeroed; NULL once failed. */
static unsigned char *nlbuf_room(struct nlbuf *b, size_t n)
{
	size_t padded = NLMSG_ALIGN(n);
	unsigned char *p;

	if (b->err)
		return NULL;
	if (padded < n || padded > b->cap - b->len) {
		nlbuf_fail(b, -ENOSPC);
		return NULL;
	}
	p = b->buf + b->len;
	memset(p, 0, padded);
	b->len += padded;
	if (b->msg != NLBUF_NO_MSG) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(void *)(b->buf + b->msg);

		nlh->nlmsg_len = (uint32_t)(b->len - b->msg);
	}
	return p;
}

void nlbuf_msg(struct nlbuf *b, uint16_t type, uint16_t flags, uint32_t seq, const void *hdr,
	       size_t hdrlen)
{
	struct nlmsghdr nlh = {.nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq};
	unsigned char *p;

	if (b->err)
		return;
	if (hdrlen > UINT32_MAX - NLMSG_HDRLEN - 4) {
		nlbuf_fail(b, -EMSGSIZE);
		return;
	}
	/* The previous message is whole: the new header is not its to count. A header
	 * that does not fit writes nothing, so there is nothing to take back. */
	b->msg = NLBUF_NO_MSG;
	p = nlbuf_room(b, NLMSG_HDRLEN + hdrlen);
	if (!p)
		return;
	b->msg = (size_t)(p - b->buf);
	nlh.nlmsg_len = (uint32_t)(b->len - b->msg);
	memcpy(p, &nlh, sizeof(nlh));
	if (hdrlen)
		memcpy(p + NLMSG_HDRLEN, hdr, hdrlen);
}

void nlbuf_attr(struct nlbuf *b, uint16_t type, const void *data, size_t n)
{
	struct nlattr a = {.nla_type = type};
	unsigned char *p;

	if (b->err)
		return;
	if (n > UINT16_MAX - NLA_HDRLEN) {
		nlbuf_fail(b, -EMSGSIZE);
		return;
	}
	a.nla_len = (uint16_t)(NLA_HDRLEN + n);
	p = nlbuf_room(b, NLA_HDRLEN + n);
	if (!p)
		return;
	memcpy(p, &a, sizeof(a));
	if (n)
		memcpy(p + NLA_HDRLEN, data, n);
}

void nlbuf_u8(struct nlbuf *b, uint16_t type, uint8_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u16(struct nlbuf *b, uint16_t type, uint16_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u32(struct nlbuf *b, uint16_t type, uint32_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u64(struct nlbuf *b, uint16_t type, uint64_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_str(struct nlbuf *b, uint16_t type, const char *s)
{
	nlbuf_attr(b, type, s, strlen(s) + 1);
}

size_t nlbuf_nest(struct nlbuf *b, uint16_t type)
{
	size_t off = b->len;

	nlbuf_attr(b, type, NULL, 0);
	return off;
}

void nlbuf_nest_end(struct nlbuf *b, size_t off)
{
	struct nlattr *a;

	if (b->err)
		return;
	/* A nest belongs to the message it was opened in. */
	if (off > b->len || b->len - off < NLA_HDRLEN ||
	    (b->msg != NLBUF_NO_MSG && off < b->msg + NLMSG_HDRLEN)) {
		nlbuf_fail(b, -EINVAL);
		return;
	}
	if (b->len - off > UINT16_MAX) {
		nlbuf_fail(b, -EMSGSIZE);
		return;
	}
	a = (struct nlattr *)(void *)(b->buf + off);
	a->nla_len = (uint16_t)(b->len - off);
}

/* ---- parser ---- */

const void *nl_msg_header(const struct nlmsghdr *nlh, size_t hdrlen)
{
	if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len - NLMSG_HDRLEN < hdrlen)
		return NULL;
	return (const unsigned char *)nlh + NLMSG_HDRLEN;
}

int nl_attr_next(const void *buf, size_t len, const struct nlattr **attr)
{
	const unsigned char *base = buf, *p;
	struct nlattr a;
	size_t off;

	if (*attr) {
		off = (size_t)((const unsigned char *)*attr - base);
		off += NLA_ALIGN((size_t)(*attr)->nla_len);
	} else {
		off = 0;
	}
	/* The last attribute's padding may be missing (the kernel trims it at the end). */
	if (off >= len)
		return 0;
	if (len - off < NLA_HDRLEN)
		return -EBADMSG;
	p = base + off;
	memcpy(&a, p, sizeof(a));
	if (a.nla_len < NLA_HDRLEN || a.nla_len > len - off)
		return -EBADMSG;
	*attr = (const struct nlattr *)(const void *)p;
	return 1;
}

int nl_attrs(const void *buf, size_t len, const struct nlattr **tb, unsigned maxtype)
{
	const struct nlattr *attr = NULL;
	int r;

	memset(tb, 0, ((size_t)maxtype + 1) * sizeof(*tb));
	while ((r = nl_attr_next(buf, len, &attr)) > 0) {
		uint16_t type = nl_attr_type(attr);

		if (type <= maxtype)
			tb[type] = attr;
	}
	if (r < 0) {
		memset(tb, 0, ((size_t)maxtype + 1) * sizeof(*tb));
		return r;
	}
	return 0;
}

int nl_msg_attrs(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr **tb,
		 unsigned maxtype)
{
	const unsigned char *payload = nl_msg_header(nlh, hdrlen);
	size_t off = NLMSG_ALIGN(hdrlen), len;

	if (!payload)
		return -EBADMSG;
	len = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (off > len)
		off = len;
	return nl_attrs(payload + off, len - off, tb, maxtype);
}

int nl_nested(const struct nlattr *attr, const struct nlattr **tb, unsigned maxtype)
{
	return nl_attrs((const unsigned char *)attr + NLA_HDRLEN, nl_attr_len(attr), tb, maxtype);
}

uint16_t nl_attr_type(const struct nlattr *attr)
{
	return attr->nla_type & NLA_TYPE_MASK;
}

size_t nl_attr_len(const struct nlattr *attr)
{
	return attr->nla_len >= NLA_HDRLEN ? (size_t)attr->nla_len - NLA_HDRLEN : 0;
}

const void *nl_attr_data(const struct nlattr *attr, size_t min_len)
{
	if (!attr || nl_attr_len(attr) < min_len)
		return NULL;
	return (const unsigned char *)attr + NLA_HDRLEN;
}

static int attr_exact(const struct nlattr *attr, void *out, size_t size)
{
	if (!attr || nl_attr_len(attr) != size)
		return -EBADMSG;
	memcpy(out, (const unsigned char *)attr + NLA_HDRLEN, size);
	return 0;
}

int nl_attr_u8(const struct nlattr *attr, uint8_t *out)
{
	return attr_exact(attr, out, sizeof(*out));
}

int nl_attr_u16(const struct nlattr *attr, uint16_t *out)
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
	const char *s, *nul;

	if (!attr)
		return -EBADMSG;
	s = (const char *)attr + NLA_HDRLEN;
	nul = memchr(s, '\0', nl_attr_len(attr));
	if (!nul)
		return -EBADMSG;
	if ((size_t)(nul - s) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s, (size_t)(nul - s) + 1);
	return 0;
}

/* ---- replies ---- */

/*
 * The extended-ack text of an NLMSG_ERROR (or NLMSG_DONE), if any, into errmsg. Its
 * attributes follow struct nlmsgerr, after the echoed request unless NLM_F_CAPPED.
 */
static void ack_message(const struct nlmsghdr *nlh, const struct nlmsgerr *e, char *errmsg,
			size_t errlen)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const unsigned char *payload = (const unsigned char *)nlh + NLMSG_HDRLEN;
	size_t off = sizeof(*e), paylen = nlh->nlmsg_len - NLMSG_HDRLEN;
	const char *s;
	size_t n;

	if (!errmsg || !errlen || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len > sizeof(e->msg))
		off += NLMSG_ALIGN((size_t)e->msg.nlmsg_len - sizeof(e->msg));
	if (off > paylen || nl_attrs(payload + off, paylen - off, tb, NLMSGERR_ATTR_MAX) < 0 ||
	    !tb[NLMSGERR_ATTR_MSG])
		return;
	/* Truncated is better than nothing for a message meant for people. */
	s = nl_attr_data(tb[NLMSGERR_ATTR_MSG], 0);
	n = strnlen(s, nl_attr_len(tb[NLMSGERR_ATTR_MSG]));
	if (n >= errlen)
		n = errlen - 1;
	memcpy(errmsg, s, n);
	errmsg[n] = '\0';
}

/* The error an NLMSG_ERROR or NLMSG_DONE carries: 0 or -errno. */
static int reply_error(const struct nlmsghdr *nlh, char *errmsg, size_t errlen)
{
	struct nlmsgerr e;
	int32_t err;

	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* Old kernels end a dump with an empty NLMSG_DONE; newer ones add an int. */
		if (nlh->nlmsg_len - NLMSG_HDRLEN < sizeof(err))
			return 0;
		memcpy(&err, (const unsigned char *)nlh + NLMSG_HDRLEN, sizeof(err));
		if (err > 0 || err < -4095)
			return -EBADMSG;
		return err;
	}
	if (nlh->nlmsg_len - NLMSG_HDRLEN < sizeof(e))
		return -EBADMSG;
	memcpy(&e, (const unsigned char *)nlh + NLMSG_HDRLEN, sizeof(e));
	if (e.error > 0 || e.error < -4095)
		return -EBADMSG;
	if (e.error < 0)
		ack_message(nlh,
			    (const struct nlmsgerr *)(const void *)((const unsigned char *)nlh +
								    NLMSG_HDRLEN),
			    errmsg, errlen);
	return e.error;
}

int nl_reply(const void *buf, size_t len, uint32_t seq, uint32_t portid, nl_msg_fn fn, void *data,
	     bool *intr, char *errmsg, size_t errlen)
{
	const unsigned char *p = buf;
	size_t off = 0;

	while (off < len) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)(const void *)(p + off);
		int r;

		if (len - off < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
		    nlh->nlmsg_len > len - off)
			return -EBADMSG;
		off += NLMSG_ALIGN((size_t)nlh->nlmsg_len);
		if (nlh->nlmsg_seq != seq || (portid && nlh->nlmsg_pid != portid))
			continue; /* a late answer to an earlier request */
		if (intr && (nlh->nlmsg_flags & NLM_F_DUMP_INTR))
			*intr = true;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			continue;
		case NLMSG_OVERRUN:
			return -ENOBUFS;
		case NLMSG_ERROR:
		case NLMSG_DONE:
			return reply_error(nlh, errmsg, errlen);
		default:
			/* Data: a dump's part, or an echo; the exchange ends at DONE or ERROR. */
			if (fn) {
				r = fn(nlh, data);
				if (r < 0)
					return r;
			}
		}
	}
	return 1;
}

/* ---- the socket ---- */

struct nl {
	int fd;
	uint32_t portid;
	uint32_t seq;
	unsigned char *buf; /* NL_BUFFER_SIZE bytes, for replies */
};

int nl_open(struct nl **out)
{
	struct sockaddr_nl addr = {.nl_family = AF_NETLINK};
	socklen_t addrlen = sizeof(addr);
	struct nl *nl = calloc(1, sizeof(*nl));
	int one = 1, r;

	if (!nl)
		return -ENOMEM;
	nl->fd = -1;
	nl->buf = malloc(NL_BUFFER_SIZE);
	if (!nl->buf) {
		r = -ENOMEM;
		goto fail;
	}
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl->fd < 0) {
		r = -errno;
		goto fail;
	}
	/* Port 0: the kernel picks one, which getsockname tells. */
	if (bind(nl->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    getsockname(nl->fd, (struct sockaddr *)&addr, &addrlen) < 0) {
		r = -errno;
		goto fail;
	}
	nl->portid = addr.nl_pid;
	nl->seq = 1;
	/* The kernel's reason in words ("Specified qdisc kind is unknown", 4.12), and
	 * errors that do not echo the whole request back (4.3): older kernels refuse
	 * the options, and then the errno stands alone. */
	(void)setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
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
	if (nl->fd >= 0)
		close(nl->fd);
	free(nl->buf);
	free(nl);
}

static int nl_send(struct nl *nl, const struct nlmsghdr *nlh)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	ssize_t n;

	do
		n = sendto(nl->fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == nlh->nlmsg_len ? 0 : -EIO;
}

/* One datagram from the kernel into nl->buf: its length, or -errno. */
static ssize_t nl_recv(struct nl *nl)
{
	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = {.iov_base = nl->buf, .iov_len = NL_BUFFER_SIZE};
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1};
		ssize_t n = recvmsg(nl->fd, &mh, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (mh.msg_namelen != sizeof(from) || from.nl_pid != 0)
			continue; /* not from the kernel */
		return n;
	}
}

/* Read replies to seq until the exchange is over: 0 or -errno. */
static int nl_wait(struct nl *nl, uint32_t seq, nl_msg_fn fn, void *data, char *errmsg,
		   size_t errlen)
{
	for (;;) {
		ssize_t n = nl_recv(nl);
		int r;

		if (n < 0)
			return (int)n;
		r = nl_reply(nl->buf, (size_t)n, seq, nl->portid, fn, data, NULL, errmsg, errlen);
		if (r <= 0)
			return r;
	}
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
	 * error here: an audit is a snapshot of a moving system either way.
	 */
	if (ctx->err == 0) {
		int r = ctx->fn(nlh, ctx->data);

		if (r < 0)
			ctx->err = r;
	}
	return 0;
}

int nl_dump(struct nl *nl, uint16_t type, const void *hdr, size_t hdrlen, nl_msg_fn fn, void *data)
{
	struct dump_ctx ctx = {.fn = fn, .data = data};
	unsigned char req[NLMSG_HDRLEN + 256] __attribute__((aligned(4)));
	struct nlbuf b;
	uint32_t seq = nl->seq++;
	int r;

	if (hdrlen > 256)
		return -EINVAL;
	nlbuf_init(&b, req, sizeof(req));
	nlbuf_msg(&b, type, NLM_F_REQUEST | NLM_F_DUMP, seq, hdr, hdrlen);
	if (b.err)
		return b.err;
	r = nl_send(nl, (const struct nlmsghdr *)(const void *)req);
	if (r < 0)
		return r;
	r = nl_wait(nl, seq, dump_one, &ctx, NULL, 0);
	return r < 0 ? r : ctx.err;
}

struct list_ctx {
	const struct nl_list *spec;
	unsigned char *v;
	size_t n, cap;
};

static int list_one(const struct nlmsghdr *nlh, void *data)
{
	struct list_ctx *l = data;
	const struct nl_list *spec = l->spec;
	int r;

	if (nlh->nlmsg_type != spec->want)
		return 0;
	if (l->n == l->cap) {
		unsigned char *v =
		    array_grow(l->v, &l->cap, spec->elem, spec->first, spec->max, &r);

		if (!v)
			return r;
		l->v = v;
	}
	r = spec->decode(nlh, l->v + l->n * spec->elem);
	if (r < 0)
		return r;
	l->n++;
	return 0;
}

int nl_dump_list(struct nl *nl, const struct nl_list *spec, void **out, size_t *n)
{
	struct list_ctx l = {.spec = spec};
	struct nl *own = NULL;
	int r;

	if (!nl) {
		r = nl_open(&own);
		if (r < 0)
			return r;
		nl = own;
	}
	r = nl_dump(nl, spec->type, spec->hdr, spec->hdrlen, list_one, &l);
	if (own)
		nl_close(own);
	if (r < 0) {
		free(l.v);
		return r;
	}
	*out = l.v;
	*n = l.n;
	return 0;
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
	for (off = 0; off < len; off += NLMSG_ALIGN((size_t)nlh->nlmsg_len)) {
		nlh = (struct nlmsghdr *)(void *)((unsigned char *)msgs + off);
		if (len - off < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
		    nlh->nlmsg_len > len - off || nlh->nlmsg_len > NL_BUFFER_SIZE ||
		    !(nlh->nlmsg_flags & NLM_F_REQUEST) || !(nlh->nlmsg_flags & NLM_F_ACK))
			return -EINVAL;
	}
	for (off = 0; off < len; off += NLMSG_ALIGN((size_t)nlh->nlmsg_len)) {
		nlh = (struct nlmsghdr *)(void *)((unsigned char *)msgs + off);
		nlh->nlmsg_seq = nl->seq++;
		nlh->nlmsg_pid = 0;
		r = nl_send(nl, nlh);
		if (r < 0)
			break;
		/* Replies other than the ack (an echo) are not wanted. */
		r = nl_wait(nl, nlh->nlmsg_seq, NULL, NULL, errmsg, errlen);
		if (r < 0)
			break;
		count++;
		if (done)
			*done = count;
	}
	return r;
}
